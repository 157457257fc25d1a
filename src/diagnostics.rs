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
//! `W001`..`W009` (one per [`WarningKind`]).  A warning rendered with [`Severity::Error`]
//! (the command line's `-W error`) keeps its code.
//!
//! A source line longer than [`LONG_LINE`] bytes (a generated clause, a
//! term thousands of levels deep) is shown clipped: its start and the text
//! around each end of a label are kept, the rest replaced by `…`, so a
//! message stays readable and its underline points at what it names.
//! A control character other than a tab or a line break (a NUL byte, say)
//! is shown as its Unicode picture (`␀`), so the terminal gets no raw
//! control byte and the underline has a character to stand under; the
//! line and column above stay those of the source.

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};

use crate::source::{FileId, SourceFile, Sources};
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
        /// How Lolli writes what the text seems to mean (a spelling from
        /// another language).
        hint: Option<String>,
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
                hint,
            } => {
                let notes = expected
                    .iter()
                    .map(|e| format!("expected {e}"))
                    .chain(hint.iter().cloned())
                    .collect();
                Diagnostic::error()
                    .with_code("E001")
                    .with_message(format!("syntax error: {message}"))
                    .with_labels(vec![Label::primary(file.0 as usize, span.clone())])
                    .with_notes(notes)
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
    /// A number or a string where a goal or a clause is expected (often
    /// `X <= 3` meant as a comparison): reaching it stops the query.  Also
    /// a clause whose head is an arithmetic expression (`dir 0 -1.`).
    NotAFormula,
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
            WarningKind::NotAFormula => "W009",
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
        let (shown, d) = Shown::new(sources, d);
        if term::emit(&mut buf, &config, &shown, &d).is_err() {
            // A span outside its text: still say what is wrong.
            let _ = std::io::Write::write_all(
                buf.get_mut(),
                format!("{}: {}\n", severity_word(d.severity), d.message).as_bytes(),
            );
        }
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

/// Source lines longer than this many bytes are shown clipped.
pub const LONG_LINE: usize = 200;

/// How many bytes of a clipped line are kept at its start and on each
/// side of a label's start and end.
const KEEP: usize = 40;

/// How far a clipped line's cut may move to fall on a space.
const WORD: usize = 12;

/// What stands for the text a clipped line leaves out.
const ELLIPSIS: &str = "…";

/// The sources as one diagnostic shows them: each file whose labels touch
/// a long line or a line with a control character is replaced by an
/// excerpt, the lines from the first label's to the last one's, with the
/// long ones clipped and control characters shown as pictures (numbered
/// as in the file).
struct Shown<'a> {
    sources: &'a Sources,
    excerpts: Vec<(usize, Clip)>,
}

impl<'a> Shown<'a> {
    /// The sources for `d`, and `d` with its labels moved into the
    /// excerpts.  Without long lines or control characters: the sources as
    /// they are, and no copy of any text.
    fn new(sources: &'a Sources, d: &Diagnostic<usize>) -> (Self, Diagnostic<usize>) {
        let mut shown = Shown {
            sources,
            excerpts: Vec::new(),
        };
        let mut d = d.clone();
        let mut ids: Vec<usize> = d.labels.iter().map(|l| l.file_id).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let Some(file) = sources.get(FileId(id as u32)) else {
                continue;
            };
            let points: Vec<usize> = d
                .labels
                .iter()
                .filter(|l| l.file_id == id)
                .flat_map(|l| [l.range.start, l.range.end])
                .filter(|&p| p <= file.text.len())
                .collect();
            if let Some(clip) = Clip::of(file, &points) {
                for l in d.labels.iter_mut().filter(|l| l.file_id == id) {
                    l.range = clip.map(l.range.start)..clip.map(l.range.end);
                }
                shown.excerpts.push((id, clip));
            }
        }
        (shown, d)
    }

    fn file(&self, id: usize) -> Result<&SourceFile, FilesError> {
        match self.excerpts.iter().find(|(e, _)| *e == id) {
            Some((_, clip)) => Ok(&clip.file),
            None => self
                .sources
                .get(FileId(id as u32))
                .ok_or(FilesError::FileMissing),
        }
    }
}

/// The sources as codespan-reporting reads them, by id (`FileId.0`), with
/// the line starts computed once when each text was added.
impl<'a> Files<'a> for Shown<'a> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(&self.file(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte: usize) -> Result<usize, FilesError> {
        Ok(self.file(id)?.line_index(byte))
    }

    fn line_number(&'a self, id: usize, line_index: usize) -> Result<usize, FilesError> {
        Ok(line_index + self.file(id)?.first_line())
    }

    /// The column in the source, also for a position in an excerpt.
    fn column_number(
        &'a self,
        id: usize,
        _line_index: usize,
        byte: usize,
    ) -> Result<usize, FilesError> {
        let (f, byte) = match self.excerpts.iter().find(|(e, _)| *e == id) {
            Some((_, clip)) => {
                let f = self
                    .sources
                    .get(FileId(id as u32))
                    .ok_or(FilesError::FileMissing)?;
                (f, clip.unmap(byte))
            }
            None => (self.file(id)?, byte),
        };
        let line = f.line_range(f.line_index(byte)).unwrap_or(0..0);
        Ok(codespan_reporting::files::column_index(&f.text, line, byte) + 1)
    }

    fn line_range(&'a self, id: usize, line: usize) -> Result<Range<usize>, FilesError> {
        let f = self.file(id)?;
        f.line_range(line).ok_or(FilesError::LineTooLarge {
            given: line,
            max: f.line_count() - 1,
        })
    }
}

/// An excerpt of a source with its long lines clipped and its control
/// characters replaced by pictures, and where each piece of its text came
/// from.
struct Clip {
    file: SourceFile,
    /// `(start in the source, end in the source, start in the excerpt,
    /// end in the excerpt)` of each piece kept, in order: text copied as
    /// it is, or one control character and its picture.
    pieces: Vec<(usize, usize, usize, usize)>,
}

/// What shows a control character in an excerpt, `None` for any other
/// character: its Unicode control picture (`␀` for NUL, `␡` for DEL), or
/// `�` for a C1 control.  Tabs and line breaks are left to
/// codespan-reporting, which lays them out.
fn picture(c: char) -> Option<char> {
    match c {
        '\t' | '\n' | '\r' => None,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        c if c.is_control() => Some(char::REPLACEMENT_CHARACTER),
        _ => None,
    }
}

impl Clip {
    /// The excerpt of `file` from the line of the first of `points` (byte
    /// offsets: the ends of labels) to the line of the last, if a line of
    /// it is longer than [`LONG_LINE`] or holds a control character.
    fn of(file: &SourceFile, points: &[usize]) -> Option<Clip> {
        let (&lo, &hi) = (points.iter().min()?, points.iter().max()?);
        let lines = file.line_index(lo)..file.line_index(hi) + 1;
        let range = |i: usize| file.line_range(i).unwrap_or(0..0);
        let body = |i: usize| {
            let r = range(i);
            let end = if file.text[r.clone()].ends_with('\n') {
                r.end - 1
            } else {
                r.end
            };
            r.start..end
        };
        let text = &file.text;
        let shown = range(lines.start).start..range(lines.end - 1).end;
        if !lines.clone().any(|i| body(i).len() > LONG_LINE)
            && !text[shown].chars().any(|c| picture(c).is_some())
        {
            return None;
        }
        let mut clip = Clip {
            file: SourceFile::new("", "", 0),
            pieces: Vec::new(),
        };
        let mut out = String::new();
        // Copy `text[from..to]`, a control character as its picture.
        let mut keep = |out: &mut String, from: usize, to: usize| {
            let controls = text[from..to]
                .char_indices()
                .filter_map(|(i, c)| Some((from + i, c.len_utf8(), Some(picture(c)?))));
            let mut start = from;
            for (i, len, shown) in controls.chain([(to, 0, None)]) {
                if start < i {
                    let at = out.len();
                    out.push_str(&text[start..i]);
                    clip.pieces.push((start, i, at, out.len()));
                }
                if let Some(shown) = shown {
                    let at = out.len();
                    out.push(shown);
                    clip.pieces.push((i, i + len, at, out.len()));
                }
                start = i + len;
            }
        };
        // The start of the text not yet copied.
        let mut at = range(lines.start).start;
        for i in lines.clone() {
            let line = body(i);
            if line.len() <= LONG_LINE {
                continue;
            }
            keep(&mut out, at, line.start);
            let floor = |mut p: usize| {
                while !text.is_char_boundary(p) {
                    p -= 1;
                }
                p
            };
            let ceil = |mut p: usize| {
                while !text.is_char_boundary(p) {
                    p += 1;
                }
                p
            };
            let mut windows: Vec<(usize, usize)> = std::iter::once(line.start)
                .chain(
                    points
                        .iter()
                        .copied()
                        .filter(|p| line.contains(p) || *p == line.end),
                )
                .map(|p| {
                    // Widened to the nearest space, if one is near: the
                    // cuts fall between words where they can.
                    let from = p.saturating_sub(KEEP).max(line.start);
                    let from = text.as_bytes()[from.saturating_sub(WORD).max(line.start)..from]
                        .iter()
                        .rposition(|&b| b == b' ')
                        .map_or(from, |q| from.saturating_sub(WORD).max(line.start) + q + 1);
                    let to = (p + KEEP).min(line.end);
                    let to = text.as_bytes()[to..(to + WORD).min(line.end)]
                        .iter()
                        .position(|&b| b == b' ')
                        .map_or(to, |q| to + q);
                    (floor(from), ceil(to))
                })
                .collect();
            windows.sort_unstable();
            let mut pos = line.start;
            for (from, to) in windows {
                let from = from.max(pos);
                if to <= from {
                    continue;
                }
                if from > pos {
                    out.push_str(ELLIPSIS);
                }
                keep(&mut out, from, to);
                pos = to;
            }
            if pos < line.end {
                out.push_str(ELLIPSIS);
            }
            at = line.end;
        }
        keep(&mut out, at, range(lines.end - 1).end);
        let first = file.first_line() + lines.start;
        clip.file = SourceFile::new(file.name.clone(), out, first);
        Some(clip)
    }

    /// Where byte `p` of the source is in the excerpt: a point inside a
    /// piece copied moves with it, the start and end of a control
    /// character go to those of its picture; one in text left out goes to
    /// the `…` that replaced it.
    fn map(&self, p: usize) -> usize {
        let i = self.pieces.partition_point(|&(from, _, _, _)| from <= p);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            Some((_, to, _, end)) if p >= to => end,
            Some((from, to, at, end)) if end - at == to - from => at + (p - from),
            Some((_, _, at, _)) => at,
            None => self.pieces.first().map_or(0, |&(_, _, at, _)| at),
        }
    }

    /// Where byte `b` of the excerpt came from in the source (text the
    /// excerpt added, a `…`, maps to the end of the piece before it; a
    /// control character's picture, to the character).
    fn unmap(&self, b: usize) -> usize {
        let i = self.pieces.partition_point(|&(_, _, at, _)| at <= b);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            Some((_, to, _, end)) if b >= end => to,
            Some((from, to, at, end)) if end - at == to - from => from + (b - at),
            Some((from, _, _, _)) => from,
            None => self.pieces.first().map_or(0, |&(from, _, _, _)| from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_not_clipped() {
        let file = SourceFile::new("f", "p :- q.\nr :- s.\n", 1);
        assert!(Clip::of(&file, &[5, 6, 13, 14]).is_none());
    }

    #[test]
    fn clipped_lines_keep_the_labels_and_their_columns() {
        // A long line of wide characters with a label near its end, then a
        // short line.
        let long = format!("p :- X = \"{}\", Y = 1.", "●".repeat(300));
        let text = format!("{long}\nq.\n");
        let y = text.find('Y').unwrap();
        let file = SourceFile::new("f", text.clone(), 1);
        let clip = Clip::of(&file, &[y, y + 1]).expect("the line is long");
        let shown = &clip.file.text;
        assert!(shown.len() < 3 * (KEEP + WORD) + 2 * ELLIPSIS.len() + 8);
        assert!(shown.starts_with("p :- X = \"●"));
        assert!(shown.ends_with("\", Y = 1.\n"), "{shown}");
        assert_eq!(&shown[clip.map(y)..clip.map(y + 1)], "Y");
        assert_eq!(clip.unmap(clip.map(y)), y);
        // Every kept piece is the source's text, cut on character bounds.
        for &(from, to, at, end) in &clip.pieces {
            assert_eq!(&shown[at..end], &text[from..to]);
        }
    }

    #[test]
    fn a_control_character_is_shown_as_its_picture_under_a_caret() {
        let mut sources = Sources::new();
        let file = sources.add("nul.lolli", "p.\n q\0.\n");
        let out = render(
            &sources,
            &[Error::Syntax {
                file,
                span: 5..6,
                message: "unexpected character `\\0`".into(),
                expected: None,
                hint: None,
            }],
        );
        let expected = "\
error[E001]: syntax error: unexpected character `\\0`
  ┌─ nul.lolli:2:3
  │
2 │  q␀.
  │   ^

";
        assert_eq!(out, expected);
    }

    #[test]
    fn a_diagnostic_in_a_long_line_gives_its_column_in_the_source() {
        let mut sources = Sources::new();
        let text = format!("p :- {}, foo.\n", vec!["true"; 100].join(", "));
        let at = text.find("foo").unwrap();
        let file = sources.add("long.lolli", text);
        let out = render(
            &sources,
            &[Error::Load {
                file: Some(file),
                span: at..at + 3,
                message: "here".into(),
                notes: Vec::new(),
            }],
        );
        assert!(out.contains(&format!("long.lolli:1:{}", at + 1)), "{out}");
        assert!(out.contains("true, foo."), "{out}");
        assert!(
            out.lines().all(|l| l.chars().count() < 2 * LONG_LINE),
            "{out}"
        );
    }
}
