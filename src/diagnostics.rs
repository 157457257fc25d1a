//! Errors and warnings as data, and their rendering with codespan-reporting.
//!
//! Every stage reports problems as values of [`Error`] (with the source and
//! span they concern) and load-time advice as values of [`Warning`]; only
//! this module turns them into text.  Rendering is rustc-style: a headline
//! with a code, the offending text underlined, and notes saying what was
//! expected or what to do.
//!
//! Codes: `E001` syntax, `E002` load, `E003` runtime (anything that stops
//! a query once it runs, a rejected proof included); warnings
//! `W001`..`W008` (one per [`WarningKind`]).  A warning rendered with [`Severity::Error`]
//! (the command line's `-W error`) keeps its code.

use codespan_reporting::diagnostic::{Diagnostic, Label};
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
    /// Where the goal was written, if it came from a source: the goal
    /// itself when `at_goal`, else the clause whose body holds it.
    pub origin: Option<(FileId, Span)>,
    /// Whether `origin` is the goal's own span.
    pub at_goal: bool,
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
            at_goal: false,
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
                    let what = if r.at_goal {
                        "in this goal"
                    } else {
                        "in the body of this clause"
                    };
                    d = d.with_labels(vec![
                        Label::primary(f.0 as usize, span.clone()).with_message(what)
                    ]);
                }
                d.with_notes(notes)
            }
        }
    }
}

/// What a load-time warning is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarningKind {
    /// A variable that occurs only once in its clause (and does not start with `_`).
    SingletonVariable,
    /// A call to a predicate that no clause, module or assumption can provide.
    UnknownPredicate,
    /// A predicate name defined with different numbers of arguments.
    ArityMismatch,
    /// A `LOCAL` name that no clause of the module uses.
    UnusedLocal,
    /// A clause that exactly repeats an earlier clause.
    DuplicateClause,
    /// A `MEMO` predicate whose search can run a built-in with side effects.
    MemoSideEffect,
    /// A `MEMO` predicate that no clause defines.
    MemoUnknown,
    /// A predicate given to `--moves` or `:moves` that no clause defines
    /// (at the arity given).
    MovesUnknown,
}

impl WarningKind {
    /// The code shown in brackets after `warning`.
    pub fn code(self) -> &'static str {
        match self {
            WarningKind::SingletonVariable => "W001",
            WarningKind::UnknownPredicate => "W002",
            WarningKind::ArityMismatch => "W003",
            WarningKind::UnusedLocal => "W004",
            WarningKind::DuplicateClause => "W005",
            WarningKind::MemoSideEffect => "W006",
            WarningKind::MemoUnknown => "W007",
            WarningKind::MovesUnknown => "W008",
        }
    }
}

/// Advice about a program that loaded: it runs, but probably not as meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// Which source.
    pub file: FileId,
    /// The text it is about.
    pub span: Span,
    /// What is suspicious, in words.
    pub message: String,
    /// Other places that explain it, each with a short label.
    pub related: Vec<(Span, String)>,
    /// Further explanation or advice.
    pub notes: Vec<String>,
}

/// How a warning is shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    /// As a warning (the default).
    Warning,
    /// As an error (`-W error`).
    Error,
}

impl Warning {
    fn to_diagnostic(&self, severity: Severity) -> Diagnostic<usize> {
        let d = match severity {
            Severity::Warning => Diagnostic::warning(),
            Severity::Error => Diagnostic::error(),
        };
        let file = self.file.0 as usize;
        let mut labels = vec![Label::primary(file, self.span.clone())];
        labels.extend(
            self.related
                .iter()
                .map(|(span, text)| Label::secondary(file, span.clone()).with_message(text)),
        );
        d.with_code(self.kind.code())
            .with_message(self.message.clone())
            .with_labels(labels)
            .with_notes(self.notes.clone())
    }
}

/// Render errors as text (no colour), as the command line prints them.
pub fn render(sources: &Sources, errors: &[Error]) -> String {
    let diagnostics: Vec<Diagnostic<usize>> = errors.iter().map(Error::to_diagnostic).collect();
    emit_all(sources, &diagnostics)
}

/// Render warnings as text (no colour), as warnings or, for `-W error`, as errors.
pub fn render_warnings(sources: &Sources, warnings: &[Warning], severity: Severity) -> String {
    let diagnostics: Vec<Diagnostic<usize>> =
        warnings.iter().map(|w| w.to_diagnostic(severity)).collect();
    emit_all(sources, &diagnostics)
}

fn severity_word(s: codespan_reporting::diagnostic::Severity) -> &'static str {
    use codespan_reporting::diagnostic::Severity as S;
    match s {
        S::Bug | S::Error => "error",
        S::Warning => "warning",
        S::Note | S::Help => "note",
    }
}

fn emit_all(sources: &Sources, diagnostics: &[Diagnostic<usize>]) -> String {
    let mut buf = termcolor::NoColor::new(Vec::new());
    let config = term::Config::default();
    for d in diagnostics {
        if term::emit(&mut buf, &config, sources, d).is_err() {
            // A span outside its text: still say what is wrong.
            let _ = std::io::Write::write_all(
                buf.get_mut(),
                format!("{}: {}\n", severity_word(d.severity), d.message).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}
