//! Source texts: every file or string the interpreter has parsed, by id, so
//! that spans in errors, warnings and proofs can be shown with their text
//! (the line starts are computed once, when a text is added).

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
    /// The number of the text's first line (1, or more for a goal read from
    /// the middle of standard input).
    first_line: usize,
}

impl SourceFile {
    /// A text whose first line is line `first_line` of what it was read
    /// from.
    pub fn new(name: impl Into<String>, text: impl Into<String>, first_line: usize) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            first_line,
        }
    }

    /// The number of the text's first line.
    pub fn first_line(&self) -> usize {
        self.first_line
    }

    /// The 0-based index of the line holding byte offset `byte`.
    pub fn line_index(&self, byte: usize) -> usize {
        self.line_starts
            .binary_search(&byte)
            .unwrap_or_else(|next| next - 1)
    }

    /// The byte range of line `line` (0-based), with its newline; `None`
    /// past the last line.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = |i: usize| match i.cmp(&self.line_starts.len()) {
            std::cmp::Ordering::Less => Some(self.line_starts[i]),
            std::cmp::Ordering::Equal => Some(self.text.len()),
            std::cmp::Ordering::Greater => None,
        };
        Some(start(line)?..start(line + 1)?)
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
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
        self.add_at(name, text, 1)
    }

    /// Add a text whose first line is line `first_line` of what it was read
    /// from (messages number its lines from there); returns its id.
    pub fn add_at(
        &mut self,
        name: impl Into<String>,
        text: impl Into<String>,
        first_line: usize,
    ) -> FileId {
        self.files.push(SourceFile::new(name, text, first_line));
        FileId(self.files.len() as u32 - 1)
    }

    /// The source with this id.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, id: FileId, offset: usize) -> u32 {
        match self.get(id) {
            Some(f) => (f.line_index(offset) + f.first_line) as u32,
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
