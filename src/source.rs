//! Source texts: every file or string the interpreter has parsed, by id, so
//! that spans in errors, warnings and proofs can be shown with their text.

/// Identifies a source text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// One source text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in messages (a path, or `<goal>` for typed goals).
    pub name: String,
    /// The text.
    pub text: String,
    line_starts: Vec<usize>,
}

/// All source texts.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// No sources yet.
    pub fn new() -> Self {
        Sources::default()
    }

    /// Add a text; returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
        });
        FileId(self.files.len() as u32 - 1)
    }

    /// The source with this id.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, id: FileId, offset: usize) -> u32 {
        match self.get(id) {
            Some(f) => match f.line_starts.binary_search(&offset) {
                Ok(i) => i as u32 + 1,
                Err(i) => i as u32,
            },
            None => 0,
        }
    }

    /// The name of a source.
    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map_or("?", |f| f.name.as_str())
    }

    /// All sources, by id (for diagnostics rendering).
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }
}
