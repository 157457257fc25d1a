//! The command line: `lolli [OPTIONS] [FILE]... [-e GOAL]...`.
//!
//! With `-e`, each goal runs in turn and its answers are printed; without,
//! the top level of [`crate::repl`] starts: the line editor when stdin is a
//! terminal, the plain reader otherwise.
//!
//! Exit status: 0 when every goal given with `-e` had an answer (or `--count`
//! ran), 1 when some goal had none, 2 on any error (syntax, missing module,
//! runtime error, a limit reached, a warning under `-W error`, standard
//! output that cannot be written for a reason other than a closed pipe),
//! with the message on stderr.  When the reader of standard output goes
//! away, or a goal leaves the interpreter (`bye`), the run stops quietly
//! with the status it had so far.  Warnings
//! about the loaded files go to stderr after loading, before any goal runs.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use crate::diagnostics::{Severity, Warning};
use crate::engine::Options;
pub use crate::proof::view::{ProofFormat, ProofView};
use crate::repl::backend::SessionFactory;
use crate::repl::host::TerminalHost;
use crate::repl::piped::{self, Verdict};
use crate::repl::{editor, Answers, Backend, Reply};
use crate::session::Session;
use crate::stdio::{self, Stdout};

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "lolli",
    version,
    // `--timeout -1` is a value the option refuses with its own message,
    // not an unknown option.
    allow_negative_numbers = true,
    about = "An interpreter for Lolli, a linear logic programming language"
)]
pub struct Args {
    /// Program files to load (their LINEAR clauses become linear resources).
    pub files: Vec<PathBuf>,
    /// A goal to solve (repeatable; the final `.` is optional).  It may
    /// start with `-` (`-e '-1 < 0'`).
    #[arg(
        short = 'e',
        long = "eval",
        value_name = "GOAL",
        allow_hyphen_values = true
    )]
    pub goals: Vec<String>,
    /// Print every answer.
    #[arg(long)]
    pub all: bool,
    /// Print at most N answers (with --all or --count: show or count at most N).
    #[arg(long, value_name = "N", value_parser = positive)]
    pub limit: Option<usize>,
    /// Print only the number of answers.
    #[arg(long)]
    pub count: bool,
    /// Add a directory to the module search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Allow the `system` built-in to run shell commands.
    #[arg(long)]
    pub allow_system: bool,
    /// Stop each query after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub timeout: Option<Duration>,
    /// Stop a query whose goals nest deeper than N.
    #[arg(long, value_name = "N", value_parser = depth)]
    pub max_depth: Option<u32>,
    /// Stop a query whose stacks grow beyond this many megabytes (default:
    /// a third of the machine's memory, so that a runaway query stops with
    /// an error before the system runs out; 0: no limit).
    #[arg(long, value_name = "MB", value_parser = megabytes)]
    pub max_memory: Option<usize>,
    /// What to do with warnings about the loaded files: print them (`warn`,
    /// the default), make them errors (`error`, exit status 2) or hide them (`none`).
    #[arg(short = 'W', value_name = "WHAT", value_enum, default_value_t = WarningMode::Warn)]
    pub warnings: WarningMode,
    /// Print the derivation of each answer (tree, json, latex or dot).
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "tree", value_enum)]
    pub proof: Option<ProofFormat>,
    /// After each answer, list the uses of PRED's clauses (`name` or
    /// `name/arity`) with what each consumed and assumed.
    #[arg(long, value_name = "PRED")]
    pub moves: Option<String>,
    /// Check the derivation of every answer with the independent checker;
    /// a rejected proof is an error.
    #[arg(long)]
    pub check_proofs: bool,
    /// Memoize the failures of predicate PRED (repeatable), as `MEMO PRED.` does.
    #[arg(long, value_name = "PRED")]
    pub memo: Vec<String>,
    /// Keep at most N failure keys in the memo table, N at least 2 (default:
    /// as many as fit in a quarter of the machine's memory, which bounds the
    /// table in any case).
    #[arg(long, value_name = "N", value_parser = memo_keys)]
    pub memo_limit: Option<usize>,
    /// After each goal, print inferences and memo table figures on stderr.
    #[arg(long)]
    pub stats: bool,
    /// Search with up to N threads (default: the processors available; 1:
    /// one thread).  Answers, output and errors come out as with one.
    #[arg(short = 'j', long, value_name = "N", value_parser = workers)]
    pub jobs: Option<usize>,
}

/// What `-W` asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WarningMode {
    /// Print warnings on stderr and go on.
    Warn,
    /// Print warnings as errors and stop with exit status 2.
    Error,
    /// Print nothing.
    None,
}

/// Run the command line; returns the exit status.
pub fn main() -> i32 {
    let args = Args::parse();
    run(args)
}

fn search_path(args: &Args) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = vec![PathBuf::from(".")];
    for f in &args.files {
        if let Some(d) = f.parent() {
            let d = if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            };
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    for d in &args.include {
        if !dirs.contains(d) {
            dirs.push(d.clone());
        }
    }
    if let Ok(p) = std::env::var("LOLLI_PATH") {
        for d in std::env::split_paths(&p) {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

/// A number of seconds, 0 or more (`--timeout`; fractions allowed).
fn seconds(text: &str) -> Result<Duration, String> {
    let s: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if s.is_nan() || s < 0.0 {
        return Err("the timeout must be a number of seconds, 0 or more".to_string());
    }
    Duration::try_from_secs_f64(s).map_err(|_| "the timeout is too long".to_string())
}

/// A whole number of at least `min` that fits in a `T`, or the error
/// `below` when it is smaller (a negative number included).
fn whole<T: TryFrom<i128>>(text: &str, min: i128, below: &str) -> Result<T, String> {
    let n: i128 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    if n < min {
        return Err(below.to_string());
    }
    T::try_from(n).map_err(|_| format!("{n} is too large"))
}

/// A count of at least 1 (`--limit`).
fn positive(text: &str) -> Result<usize, String> {
    whole(text, 1, "the limit must be at least 1")
}

/// A `--jobs`: 1 or more workers.
fn workers(text: &str) -> Result<usize, String> {
    whole(text, 1, "the number of jobs must be at least 1")
}

/// A `--memo-limit`: the table keeps its keys in two generations, so it
/// holds at least two.
fn memo_keys(text: &str) -> Result<usize, String> {
    whole(text, 2, "the memo table holds at least 2 keys")
}

/// A `--max-depth`: 0 or more clause uses.
fn depth(text: &str) -> Result<u32, String> {
    whole(text, 0, "the depth limit must be 0 or more")
}

/// A `--max-memory`: 0 (no limit) or more megabytes.
fn megabytes(text: &str) -> Result<usize, String> {
    whole(
        text,
        0,
        "the memory limit must be 0 (no limit) or more megabytes",
    )
}

/// How many answers to show: as the options say, else one (or, at a
/// terminal's top level, as many as the user asks for).
fn answers(args: &Args, asking: bool) -> Answers {
    // `--limit` caps `--all` and `--count` too.
    let cap = args.limit.unwrap_or(usize::MAX);
    if args.count {
        Answers::Count(cap)
    } else if args.all {
        Answers::Take(cap)
    } else if let Some(n) = args.limit {
        Answers::Take(n)
    } else if asking {
        Answers::Ask
    } else {
        Answers::Take(1)
    }
}

/// The memory limit when `--max-memory` is not given: a third of the
/// machine's memory (the limit counts what the stacks hold; they grow by
/// doubling, so their allocations may be up to twice that), or none where
/// the size of the memory cannot be read.
fn default_memory_limit() -> Option<usize> {
    machine_memory().map(|m| m / 3)
}

/// The memo table's memory bound: a quarter of the machine's memory (with
/// the stacks' third, the search stays within seven twelfths of it), or
/// the engine's default where the size cannot be read.
fn memo_memory() -> usize {
    machine_memory().map_or(crate::engine::memo::DEFAULT_MEMO_BYTES, |m| m / 4)
}

/// The machine's memory in bytes, from `/proc/meminfo` (read once: both
/// bounds above need it).
fn machine_memory() -> Option<usize> {
    static MEMORY: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *MEMORY.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        memory_from_meminfo(&text)
    })
}

/// `MemTotal` in a `/proc/meminfo` text, in bytes.
fn memory_from_meminfo(text: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kib: usize = words.next()?.parse().ok()?;
    if words.next() != Some("kB") {
        return None;
    }
    Some(kib.saturating_mul(1024))
}

/// Run with parsed arguments; returns the exit status.
pub fn run(args: Args) -> i32 {
    let options = Options {
        allow_system: args.allow_system,
        search_path: search_path(&args),
        max_depth: args.max_depth,
        max_memory: match args.max_memory {
            Some(0) => None,
            Some(mb) => Some(mb.saturating_mul(1024 * 1024)),
            None => default_memory_limit(),
        },
        ..Options::default()
    };
    let factory: SessionFactory =
        Box::new(move || Session::with_options(options.clone(), Box::new(TerminalHost::default())));
    let terminal = std::io::stdin().is_terminal();
    let policy = answers(&args, terminal && args.goals.is_empty());
    let mut backend = match Backend::new(factory, &args.files, policy) {
        Ok(b) => b,
        Err(text) => {
            eprint!("{text}");
            return 2;
        }
    };
    let mut status = serve(&args, &mut backend, policy, terminal);
    let _ = stdio::flush();
    if let Some(e) = stdio::failure() {
        // A reader that went away ends the run quietly (LANGUAGE.md,
        // section 8); any other failure lost output, which is an error.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to standard output: {e}");
            status = 2;
        }
    }
    // The process ends with this status, and the system takes its memory
    // back at once; dropping the session would free each of its
    // allocations (for a program of 100,000 facts, a tenth of the time
    // loading it took).  Files written by `telling` are flushed first.
    backend.session_mut().machine.flush_outputs();
    std::mem::forget(backend);
    status
}

/// Run the goals of the command line, or the top level, on `backend`;
/// returns the exit status.
fn serve(args: &Args, backend: &mut Backend, policy: Answers, terminal: bool) -> i32 {
    let mut warnings = backend.session_mut().take_warnings();
    backend.set_memo_bounds(args.memo_limit, memo_memory());
    for p in &args.memo {
        match backend.memoize(p, "--memo") {
            Ok(advice) => warnings.extend(advice),
            Err(e) => {
                eprint!("{}", backend.session().render(&[e]));
                return 2;
            }
        }
    }
    let mut moves = None;
    if let Some(p) = &args.moves {
        let goals: Vec<&str> = args.goals.iter().map(String::as_str).collect();
        match backend.session_mut().moves_predicate(p, "--moves", &goals) {
            Ok((pred, advice)) => {
                moves = Some(pred);
                warnings.extend(advice);
            }
            Err(e) => {
                eprint!("{}", backend.session().render(&[e]));
                return 2;
            }
        }
    }
    if !report_warnings(backend.session(), &warnings, args.warnings) {
        return 2;
    }
    // `--count` prints no answer, so no proof or moves either: recording
    // them only to drop them made counting 1.8 times slower.  The checker
    // still checks every proof counted.
    let shown = !args.count;
    backend.set_proof_view(ProofView {
        format: args.proof.filter(|_| shown),
        moves: moves.filter(|_| shown),
        check: args.check_proofs,
    });
    if args.goals.is_empty() {
        // The top level keeps the proof of the last answer for `:proof`.
        backend.record_proofs();
    }
    backend.set_timeout(args.timeout);
    backend.set_jobs(
        args.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    );
    backend.split_often(std::env::var_os("LOLLI_SPLIT_STRESS").is_some());
    backend.set_warnings(match args.warnings {
        WarningMode::None => None,
        WarningMode::Warn => Some(Severity::Warning),
        WarningMode::Error => Some(Severity::Error),
    });
    if args.goals.is_empty() {
        backend.show_stats(args.stats);
        return top_level(backend, terminal, 0);
    }
    // Answers are printed as they are found (`--all` on a goal with endless
    // answers shows them), until standard output is closed.
    let (stream, closed) = piped::stdout_stream(true);
    backend.stream_answers(Some(stream));
    let mut status = 0;
    for g in &args.goals {
        let before = backend.stats().inferences;
        let started = std::time::Instant::now();
        let reply = backend.run_goal(g);
        if stdio::failure().is_some() {
            // Nothing more can be shown; `run` reports a cause other than
            // a closed pipe.
            return status;
        }
        let verdict = piped::print(&reply, &mut Stdout, &mut std::io::stderr(), true);
        let _ = stdio::flush();
        if args.stats {
            let secs = started.elapsed().as_secs_f64();
            let n = backend.stats().inferences - before;
            eprint!("{}", backend.goal_stats(n, secs));
        }
        match verdict {
            Verdict::Answered => {}
            Verdict::Failed => status = 1,
            Verdict::Error => return 2,
        }
        // (`bye` leaves: the goals after it do not run.)
        if closed.get() || stdio::failure().is_some() || backend.left() {
            return status;
        }
        if backend.depth() > 0 {
            // The goal called `top`: read goals from stdin in its context
            // until that level closes.
            backend.set_answers(answers(args, terminal));
            let nested = top_level(backend, terminal, 1);
            backend.pop_all();
            backend.set_answers(policy);
            if nested == 2 {
                return 2;
            }
            if backend.left() {
                return status;
            }
        }
    }
    status
}

/// Print the warnings about what was loaded (and memoized) as `-W` says; false when they
/// count as errors.
pub fn report_warnings(session: &Session, warnings: &[Warning], mode: WarningMode) -> bool {
    match mode {
        WarningMode::None => true,
        WarningMode::Warn => {
            eprint!("{}", session.render_warnings(warnings, Severity::Warning));
            true
        }
        WarningMode::Error => {
            if warnings.is_empty() {
                return true;
            }
            eprint!("{}", session.render_warnings(warnings, Severity::Error));
            eprintln!("error: -W error makes the warnings above errors; nothing was run");
            false
        }
    }
}

/// The top level on stdin, until the end of input or until the nesting
/// depth falls below `stop_below`.
fn top_level(backend: &mut Backend, terminal: bool, stop_below: usize) -> i32 {
    if terminal {
        // Answers under `--all`, `--limit` and `--count` are shown as they
        // are found (Ctrl-C stops the query).
        let stream = backend.stream_answers(Some(Box::new(|r: &Reply| {
            editor::show(r);
            true
        })));
        let code = editor::run(backend, stop_below);
        backend.stream_answers(stream);
        code
    } else {
        let (stream, closed) = piped::stdout_stream(false);
        let outer = backend.stream_answers(Some(stream));
        let mut lines = piped::stdin_lines();
        let mut next_line = || {
            if closed.get() || stdio::failure().is_some() {
                Ok(None)
            } else {
                lines()
            }
        };
        let code = piped::run(
            backend,
            &mut next_line,
            &mut Stdout,
            &mut QuietAfterOutputFails(std::io::stderr()),
            stop_below,
        );
        backend.stream_answers(outer);
        // Once standard output has failed, the goal that met it was
        // stopped: `run` reports a cause other than a closed pipe.
        if stdio::failure().is_some() {
            return 0;
        }
        code
    }
}

/// Standard error for the piped top level's messages, silent once standard
/// output has failed: the error of the goal stopped by that failure says
/// nothing the reader of the output can use (LANGUAGE.md, section 8).
struct QuietAfterOutputFails<W>(W);

impl<W: std::io::Write> std::io::Write for QuietAfterOutputFails<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if stdio::failure().is_some() {
            return Ok(buf.len());
        }
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::memory_from_meminfo;

    #[test]
    fn the_machine_memory_is_read_from_meminfo() {
        let text = "MemTotal:       24576000 kB\nMemFree:        20000000 kB\n";
        assert_eq!(memory_from_meminfo(text), Some(24576000 * 1024));
        assert_eq!(memory_from_meminfo("MemFree: 10 kB\n"), None);
        assert_eq!(memory_from_meminfo("MemTotal: many kB\n"), None);
    }
}
