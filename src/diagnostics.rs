//! Errors and warnings as data, and their rendering with codespan-reporting.
//!
//! Every stage reports problems as values of [`Error`] (with the source and
//! span they concern); only this module turns them into text.  Rendering is
//! rustc-style: a headline, the offending text underlined, and notes saying
//! what was expected or what to do.

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

use crate::source::{FileId, Sources};
use crate::syntax::ast::Span;

/// A problem that stops a load or a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The text does not parse.
    Syntax {
        /// Which source.
        file: FileId,
        /// Where.
        span: Span,
        /// What is wrong.
        message: String,
        /// What would have been accepted, in words.
        expected: Option<String>,
    },
    /// A module cannot be loaded or compiled.
    Load {
        /// Which source, if the problem is in one.
        file: Option<FileId>,
        /// Where in it.
        span: Span,
        /// What is wrong.
        message: String,
        /// Further explanation or advice.
        notes: Vec<String>,
    },
    /// A goal cannot be run.
    Runtime(RuntimeError),
}

/// A runtime error: the goal that caused it and the clause it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// What is wrong.
    pub message: String,
    /// The goal being run, printed.
    pub goal: Option<String>,
    /// The clause whose body holds the goal, if it came from a source.
    pub origin: Option<(FileId, Span)>,
    /// Further explanation or advice.
    pub notes: Vec<String>,
}

impl RuntimeError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        RuntimeError {
            message: message.into(),
            goal: None,
            origin: None,
            notes: Vec::new(),
        }
    }

    /// Add a note.
    pub fn note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }
}

impl From<RuntimeError> for Error {
    fn from(e: RuntimeError) -> Self {
        Error::Runtime(e)
    }
}

impl Error {
    /// A load error without a source position.
    pub fn load(message: impl Into<String>) -> Self {
        Error::Load {
            file: None,
            span: 0..0,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// The headline of the error, for one-line reports.
    pub fn message(&self) -> &str {
        match self {
            Error::Syntax { message, .. } | Error::Load { message, .. } => message,
            Error::Runtime(r) => &r.message,
        }
    }

    fn to_diagnostic(&self) -> Diagnostic<usize> {
        match self {
            Error::Syntax {
                file,
                span,
                message,
                expected,
            } => {
                let mut d = Diagnostic::error()
                    .with_code("E001")
                    .with_message(format!("syntax error: {message}"))
                    .with_labels(vec![Label::primary(file.0 as usize, span.clone())]);
                if let Some(e) = expected {
                    d = d.with_notes(vec![format!("expected {e}")]);
                }
                d
            }
            Error::Load {
                file,
                span,
                message,
                notes,
            } => {
                let mut d = Diagnostic::error()
                    .with_code("E002")
                    .with_message(message.clone())
                    .with_notes(notes.clone());
                if let Some(f) = file {
                    d = d.with_labels(vec![Label::primary(f.0 as usize, span.clone())]);
                }
                d
            }
            Error::Runtime(r) => {
                let mut d = Diagnostic::error()
                    .with_code("E003")
                    .with_message(r.message.clone());
                let mut notes = Vec::new();
                if let Some(g) = &r.goal {
                    notes.push(format!("while running the goal `{g}`"));
                }
                notes.extend(r.notes.iter().cloned());
                if let Some((f, span)) = &r.origin {
                    d = d.with_labels(vec![Label::primary(f.0 as usize, span.clone())
                        .with_message("in the body of this clause")]);
                }
                d.with_notes(notes)
            }
        }
    }
}

/// Render errors as text (no colour), as the command line prints them.
pub fn render(sources: &Sources, errors: &[Error]) -> String {
    let mut files = SimpleFiles::new();
    for f in sources.files() {
        files.add(f.name.clone(), f.text.clone());
    }
    let mut buf = termcolor::NoColor::new(Vec::new());
    let config = term::Config::default();
    for e in errors {
        let d = e.to_diagnostic();
        if term::emit(&mut buf, &config, &files, &d).is_err() {
            let _ = std::io::Write::write_all(
                buf.get_mut(),
                format!("error: {}\n", e.message()).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}
