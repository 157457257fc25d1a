//! The process's standard output, as the interpreter writes it.
//!
//! Everything the interpreter prints on standard output (a program's
//! `write`, `nl` and friends through the hosts
//! [`StdHost`](crate::engine::StdHost) and
//! [`BufferedStdHost`](crate::engine::BufferedStdHost), answers through the
//! command line's printers) goes through one buffer, [`Stdout`], so it
//! keeps its order.  `StdHost`, a library's default, empties it after each
//! write.  Otherwise, how the buffer is emptied depends on where the
//! output goes:
//!
//! - to a terminal, at once: a student sees each line as it is printed;
//! - to a file or a pipe, when 64 KB are waiting or when the oldest
//!   waiting byte is 50 ms old.  A stream of a hundred thousand answers
//!   then costs a few system calls instead of one per line, and output
//!   that comes slowly still arrives promptly.  The age is checked when
//!   something is written and, through [`flush_if_stale`], every few
//!   thousand steps of the search, so output never waits long for a
//!   search that has stopped printing.
//!
//! Whoever reads input, runs a command that shares standard output
//! (`system`) or writes to standard error flushes first ([`flush`]), so a
//! prompt is seen before the reply is read and an error after the output
//! that preceded it.  The buffer belongs to the process: the command line
//! empties it before it returns.
//!
//! Invariant: once writing to standard output has failed (a reader that
//! went away, a full disk), the failure is kept ([`failure`]) and nothing
//! more is written: every later `write` and `flush` returns the same error
//! at once, whichever call met it first (a `write`, a [`flush`] or the
//! periodic [`flush_if_stale`], which has no caller to tell).  So a writer
//! that only appends to the buffer still learns, at its next write, that
//! the output is gone.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How much output may wait.
const CAPACITY: usize = 64 * 1024;

/// How long output may wait.
const MAX_AGE: Duration = Duration::from_millis(50);

/// The waiting output.
struct Pending {
    bytes: Vec<u8>,
    /// When the oldest waiting byte was written (`None`: nothing waits).
    since: Option<Instant>,
    /// Whether standard output is a terminal (decided on first use).
    terminal: Option<bool>,
    /// Whether what was written last ended a line (or nothing was
    /// written): see [`at_line_start`].
    line_start: bool,
    /// The first error met writing to standard output, as its kind and
    /// text (see the module invariant); `None` while writing works.
    failed: Option<(std::io::ErrorKind, String)>,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    bytes: Vec::new(),
    since: None,
    terminal: None,
    line_start: true,
    failed: None,
});

/// A writer on the shared buffer.  `write` buffers (and empties the buffer
/// as the module doc says); `flush` empties it now.  Errors of the
/// underlying stream (a reader that went away) are returned by the call
/// that meets them.
#[derive(Copy, Clone, Debug, Default)]
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut p = lock();
        if let Some(e) = failure_of(&p) {
            return Err(e);
        }
        p.bytes.extend_from_slice(buf);
        if let Some(&last) = buf.last() {
            p.line_start = last == b'\n';
        }
        let now = Instant::now();
        let since = *p.since.get_or_insert(now);
        let terminal = *p
            .terminal
            .get_or_insert_with(|| std::io::stdout().is_terminal());
        if terminal || p.bytes.len() >= CAPACITY || now.duration_since(since) >= MAX_AGE {
            drain(&mut p)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        drain(&mut lock())
    }
}

/// Empty the buffer now.
pub fn flush() -> std::io::Result<()> {
    Stdout.flush()
}

/// Whether the output written through [`Stdout`] so far ends a line (true
/// when there is none): the top level at a terminal starts an answer on a
/// line of its own after a goal that wrote `hello` without `nl`.
pub fn at_line_start() -> bool {
    lock().line_start
}

/// Say that the output goes on at the start of a line (after text written
/// to standard output other than through [`Stdout`], that ends one).
pub fn set_line_start() {
    lock().line_start = true;
}

/// Empty the buffer if its oldest byte has waited too long (called while
/// a search runs).  A failure is kept for the next writer (module doc).
pub fn flush_if_stale() {
    let mut p = lock();
    if p.since.is_some_and(|t| t.elapsed() >= MAX_AGE) {
        let _ = drain(&mut p);
    }
}

/// The error that made writing to standard output fail, if it has failed
/// (see the module invariant).
pub fn failure() -> Option<std::io::Error> {
    failure_of(&lock())
}

fn failure_of(p: &Pending) -> Option<std::io::Error> {
    p.failed
        .as_ref()
        .map(|(kind, text)| std::io::Error::new(*kind, text.clone()))
}

fn lock() -> std::sync::MutexGuard<'static, Pending> {
    // A panic while holding the lock leaves plain bytes behind: go on.
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Write the waiting bytes out.  They are dropped even when that fails, so
/// a closed pipe does not make them pile up; the failure is kept.
fn drain(p: &mut Pending) -> std::io::Result<()> {
    p.since = None;
    if let Some(e) = failure_of(p) {
        p.bytes.clear();
        return Err(e);
    }
    if p.bytes.is_empty() {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    let r = out.write_all(&p.bytes).and_then(|()| out.flush());
    p.bytes.clear();
    if let Err(e) = &r {
        p.failed = Some((e.kind(), e.to_string()));
    }
    r
}
