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
    /// The number of the text's first line (1, or more for a goal read from
    /// the middle of standard input).
    first_line: usize,
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
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
            first_line,
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
            Some(f) => {
                let index = match f.line_starts.binary_search(&offset) {
                    Ok(i) => i,
                    Err(i) => i - 1,
                };
                (index + f.first_line) as u32
            }
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

/// The sources as codespan-reporting reads them, by id (`FileId.0`), with
/// the line starts computed once in [`Sources::add`]: rendering a
/// diagnostic copies no text.
impl<'a> codespan_reporting::files::Files<'a> for Sources {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, codespan_reporting::files::Error> {
        Ok(&self.file(id)?.text)
    }

    fn line_index(
        &'a self,
        id: usize,
        byte: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        let starts = &self.file(id)?.line_starts;
        Ok(starts.binary_search(&byte).unwrap_or_else(|next| next - 1))
    }

    fn line_number(
        &'a self,
        id: usize,
        line_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(line_index + self.file(id)?.first_line)
    }

    fn line_range(
        &'a self,
        id: usize,
        line: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        let f = self.file(id)?;
        let start = |i: usize| match i.cmp(&f.line_starts.len()) {
            std::cmp::Ordering::Less => Ok(f.line_starts[i]),
            std::cmp::Ordering::Equal => Ok(f.text.len()),
            std::cmp::Ordering::Greater => Err(codespan_reporting::files::Error::LineTooLarge {
                given: i,
                max: f.line_starts.len() - 1,
            }),
        };
        Ok(start(line)?..start(line + 1)?)
    }
}

impl Sources {
    fn file(&self, id: usize) -> Result<&SourceFile, codespan_reporting::files::Error> {
        self.files
            .get(id)
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }
}
