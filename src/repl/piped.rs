//! The plain front end, for a stdin that is not a terminal (a file or a
//! pipe) and for `-e`: goals are read without line editing and answers are
//! printed as the command line prints them (the first answer, or `no`,
//! unless `--all`, `--limit` or `--count` say otherwise), nothing else: no
//! prompt, no banner, no notes about nesting.
//!
//! A goal may span lines; it ends at the line where
//! [`crate::syntax::is_complete`] says it is complete (a `:`-command, or a
//! lone `;`, is one line); several goals on one line run in turn.  At the end of input a goal without its final `.` still runs.
//!
//! Exit status: 0 at the end of input or `bye` (whether or not the goals
//! had answers), 2 at the first error (its diagnostic on stderr; the goals
//! after it are not run), input that is not UTF-8 included.

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;

use super::backend::{AnswerStream, Backend, Next, Output, Reply};
use super::commands;

/// Read one goal or command; `None` at the end of input, an error when a
/// line cannot be read.  Each line is lexed once however many lines the
/// goal spans ([`crate::syntax::is_complete_resuming`]).  With the text,
/// the number of lines `next_line` gave before the one it starts on
/// (blank lines before a goal are passed over).
pub fn read_goal(
    next_line: &mut dyn FnMut() -> std::io::Result<Option<String>>,
) -> std::io::Result<Option<(String, usize)>> {
    let mut text = String::new();
    let mut resume = crate::syntax::Resume::default();
    let (mut read, mut start) = (0, 0);
    loop {
        let Some(line) = next_line()? else {
            // Comments left at the end are not a goal.
            return Ok((!crate::syntax::is_blank(&text)).then_some((text, start)));
        };
        read += 1;
        if text.trim().is_empty() {
            text.clear();
            start = read - 1;
            resume = crate::syntax::Resume::default();
            // A command is one line; so is a lone `;` (more answers are
            // asked for at a terminal; the top level explains it).
            if commands::is_command(&line) || line.trim() == ";" {
                return Ok(Some((line, start)));
            }
        }
        text.push_str(&line);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if !text.trim().is_empty() && crate::syntax::is_complete_resuming(&text, &mut resume) {
            return Ok(Some((text, start)));
        }
    }
}

/// How a goal ended, for the exit status.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It had an answer (or opened a top level, or was a command).
    Answered,
    /// It had none.
    Failed,
    /// It stopped with an error.
    Error,
}

/// Print a reply plainly: answers and `no` to `out`, diagnostics to `err`.
/// With `eval` (for `-e`), a goal that ended by `pop` or `abort` prints
/// `no`, as having no answer; otherwise `abort` prints `aborted`.  A goal
/// that left the interpreter (`bye`) prints nothing more.
///
/// What goes to `out` is collected and written at once, before each
/// diagnostic and at the end: one write for an answer, not one per piece
/// of it.  `out` is flushed before a diagnostic (so it follows what was
/// printed before it), not at the end: the caller says when the reply
/// must be seen (on [`crate::stdio::Stdout`], answers streamed from a long
/// search then cost a few system calls, not one each).
pub fn print(reply: &Reply, out: &mut dyn Write, err: &mut dyn Write, eval: bool) -> Verdict {
    use std::fmt::Write as _;
    let mut verdict = Verdict::Answered;
    let mut text = String::new();
    for o in &reply.outputs {
        let _ = match o {
            Output::Answer(a) => writeln!(text, "{a}"),
            Output::Count(n) => writeln!(text, "{n}"),
            Output::No => {
                verdict = Verdict::Failed;
                writeln!(text, "no")
            }
            Output::Aborted | Output::Outermost => {
                verdict = Verdict::Failed;
                match (eval, o) {
                    (true, _) => writeln!(text, "no"),
                    (false, Output::Aborted) => writeln!(text, "aborted"),
                    _ => Ok(()),
                }
            }
            Output::Opened(_) | Output::Closed(_) => Ok(()),
            Output::Text(t) => write!(text, "{t}"),
            Output::Warning(w) | Output::Stats(w) | Output::Note(w) => {
                flush_text(out, &mut text);
                let _ = write!(err, "{w}");
                Ok(())
            }
            Output::Error(e) => {
                flush_text(out, &mut text);
                let _ = write!(err, "{e}");
                return Verdict::Error;
            }
        };
    }
    if !text.is_empty() {
        let _ = out.write_all(text.as_bytes());
    }
    verdict
}

/// Write `text` to `out` in one piece, flush, and empty `text`.
fn flush_text(out: &mut dyn Write, text: &mut String) {
    if !text.is_empty() {
        let _ = out.write_all(text.as_bytes());
        text.clear();
    }
    let _ = out.flush();
}

/// An answer stream ([`Backend::stream_answers`]) that prints each answer
/// to the process's standard output as [`print()`] does, as soon as it is
/// found, and stops the query when standard output is closed (a reader such
/// as `head` went away); the flag it returns tells the caller so.
pub fn stdout_stream(eval: bool) -> (AnswerStream, Rc<Cell<bool>>) {
    let closed = Rc::new(Cell::new(false));
    let flag = closed.clone();
    let stream: AnswerStream = Box::new(move |reply: &Reply| {
        let mut out = Watched {
            inner: crate::stdio::Stdout,
            failed: false,
        };
        print(reply, &mut out, &mut std::io::stderr(), eval);
        if out.failed {
            flag.set(true);
        }
        !out.failed
    });
    (stream, closed)
}

/// A writer that remembers whether a write failed.
struct Watched<W> {
    inner: W,
    failed: bool,
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

/// Run goals from `next_line` until the end of input, `bye`, an error, or
/// (when `stop_below` > 0) until the nesting depth falls below `stop_below`;
/// returns the exit status.  Input that cannot be read (not UTF-8) is an
/// error, as a goal's error is: `error[E002]`, status 2.
pub fn run(
    backend: &mut Backend,
    next_line: &mut dyn FnMut() -> std::io::Result<Option<String>>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stop_below: usize,
) -> i32 {
    // What followed the last goal on its line (more goals, see
    // [`commands::split_first`]): read before the next line.  `line` counts
    // the lines read; `rest` starts on the last of them, at `rest_column`.
    let mut rest = String::new();
    let (mut line, mut rest_column) = (0, 0);
    while backend.depth() >= stop_below {
        let mut first = std::mem::take(&mut rest);
        let from_rest = !first.is_empty();
        let mut fresh = 0;
        let mut lines = || match first.is_empty() {
            true => {
                let l = next_line();
                fresh += matches!(l, Ok(Some(_))) as usize;
                l
            }
            false => Ok(Some(std::mem::take(&mut first))),
        };
        let read = read_goal(&mut lines);
        let before = line;
        line += fresh;
        let goal = match read {
            Ok(Some((text, start))) => {
                // Where the text starts: in `rest`, or on a line read now.
                let (goal_line, column) = match (from_rest, start) {
                    (true, 0) => (before, rest_column),
                    (true, _) => (before + start, 0),
                    (false, _) => (before + start + 1, 0),
                };
                let (goal, after) = commands::split_first(&text);
                rest = after.to_string();
                rest_column = match goal.rfind('\n') {
                    Some(i) => goal.len() - i - 1,
                    None => column + goal.len(),
                };
                if !commands::is_command(goal) {
                    backend.session_mut().next_goal_at(crate::session::GoalAt {
                        name: "<stdin>".to_string(),
                        line: goal_line,
                        column,
                    });
                }
                goal.to_string()
            }
            Ok(None) => break,
            Err(e) => {
                let _ = out.flush();
                let e = crate::diagnostics::Error::load(format!("cannot read standard input: {e}"));
                let _ = write!(err, "{}", backend.session().render(&[e]));
                return 2;
            }
        };
        let reply = backend.input(&goal);
        let verdict = print(&reply, out, err, false);
        // Whoever drives the top level through a pipe reads each reply
        // before writing the next goal.
        let _ = out.flush();
        if verdict == Verdict::Error {
            return 2;
        }
        if reply.next == Next::Quit {
            break;
        }
    }
    0
}

/// Lines of the process's stdin (read one at a time, never held locked, so
/// the `read` built-in can share it); text that is not UTF-8 is an error.
/// A byte order mark at the start of the input is dropped, as the lexer
/// skips one at the start of a text: here the first line may be a
/// `:`-command, which is recognized before any lexing.
pub fn stdin_lines() -> impl FnMut() -> std::io::Result<Option<String>> {
    let mut first = true;
    move || {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line)? {
            0 => Ok(None),
            _ if std::mem::take(&mut first) && line.starts_with('\u{feff}') => {
                Ok(Some(line.split_off('\u{feff}'.len_utf8())))
            }
            _ => Ok(Some(line)),
        }
    }
}
