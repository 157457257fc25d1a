//! The session backend of the top level: goals and commands go in as text,
//! [`Output`]s come out; no terminal I/O happens here, so the front ends (the
//! line editor, the piped reader, `-e`) and the tests share one behaviour.
//!
//! The backend owns the nesting of top levels.  A goal that calls `top`
//! (`M --o top`, `load M`) stops in that state with its query still on the
//! machine; later goals run as queries on top of it, so their context holds
//! what the suspended goal assumed, and each of them is undone when it ends,
//! which restores the level's linear resources for the next query (as in
//! Lolli 0.94).  `pop` ends the nested query and then the suspended one:
//! the goal that called `top` is abandoned where it stopped, never resumed
//! (resuming it would run what follows `top`, then fail a `M --o top`
//! whose resources the nested level left unused, or backtrack into its
//! earlier choices and reach `top` again).
//!
//! Invariant: between calls, the machine holds exactly one open query per
//! nested level (`levels`), plus one more while an answer waits for `;` or
//! Enter (`pending`).  Every query is started and ended here, through
//! [`Machine::start_query`] and [`Machine::end_query`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::commands::{self, Command};
use super::inspect;
use crate::diagnostics::{Error, Severity, Warning};
use crate::engine::machine::{Event, GcStats};
use crate::engine::parallel::{Figures, Item, Next as Found, Pool};
use crate::engine::Machine;
use crate::repl::inspect::Parallel;
use crate::session::Session;
use crate::term::Cell;

/// How many answers a goal shows, and how.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answers {
    /// After an answer with bindings, wait: [`Backend::more`] says whether to go on.
    Ask,
    /// Print at most this many answers (`usize::MAX` for all), then stop.
    Take(usize),
    /// Print only how many answers there are, counting at most this many
    /// (`usize::MAX`: all).
    Count(usize),
}

/// Something the front end shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// An answer: the bindings, or `yes` for a goal without named variables.
    Answer(String),
    /// No (more) answers.
    No,
    /// The number of answers (with [`Answers::Count`]).
    Count(usize),
    /// The goal called `abort`.
    Aborted,
    /// A nested top level opened; its depth (1 for the first).
    Opened(usize),
    /// A nested top level closed; the depth now.
    Closed(usize),
    /// `pop` or `popall` at the outermost level: the goal ended, nothing closed.
    Outermost,
    /// Rendered warnings (for stderr; not an error).
    Warning(String),
    /// Why a query has no answer, when the engine can tell (for stderr).
    Note(String),
    /// The figures `--stats` prints after each answer (for stderr).
    Stats(String),
    /// Information for people (command output, timing), ending with a newline.
    Text(String),
    /// A rendered diagnostic (for stderr).
    Error(String),
}

/// What the front end should read next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// A goal or command, at the prompt [`Backend::prompt`].
    Goal,
    /// Whether to look for another answer (`;`) or stop (Enter).
    More,
    /// Nothing: the session is over (`bye`, `:quit`, Ctrl-D at the outermost level).
    Quit,
}

/// The result of one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// What to show, in order.
    pub outputs: Vec<Output>,
    /// What to read next.
    pub next: Next,
    /// Answers of this input already handed to the answer stream
    /// ([`Backend::stream_answers`]), before `outputs`.
    pub streamed: usize,
}

impl Reply {
    fn new() -> Self {
        Reply {
            outputs: Vec::new(),
            next: Next::Goal,
            streamed: 0,
        }
    }

    /// Whether some output is an error.
    pub fn has_error(&self) -> bool {
        self.outputs.iter().any(|o| matches!(o, Output::Error(_)))
    }
}

/// An open nested top level: the goal that opened it and the files `:load`ed in it.
#[derive(Clone, Debug)]
struct Level {
    goal: String,
    files: Vec<PathBuf>,
}

/// A query whose last answer waits for `;` or Enter.
#[derive(Clone, Debug)]
struct Pending {
    goal: String,
    vars: Vec<(String, Cell)>,
    found: usize,
    started: bool,
}

/// Counters for `:stats` and `:time`.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Goals run.
    pub queries: u64,
    /// Inferences made by them.
    pub inferences: u64,
    /// Time spent searching.
    pub search_time: Duration,
}

/// Builds a fresh session with the options and host of the original (for `:reload`).
pub type SessionFactory = Box<dyn Fn() -> Session>;

/// The top level's state: the session, the nesting, the settings.
pub struct Backend {
    session: Session,
    factory: SessionFactory,
    answers: Answers,
    /// Files loaded into the outermost level, in order (command line, then `:load`).
    files: Vec<PathBuf>,
    levels: Vec<Level>,
    pending: Option<Pending>,
    timing: bool,
    /// Whether each answer is followed by the figures of `--stats`.
    stats_shown: bool,
    timeout: Option<Duration>,
    stats: Stats,
    /// What to show or check with each answer's proof.
    proof_view: crate::proof::view::ProofView,
    /// The proof of the last answer (when proofs are recorded), for `:proof`.
    last_proof: Option<crate::proof::Proof>,
    /// Why the last answer's proof was not kept, if it was not.
    proof_not_kept: Option<NotKept>,
    /// Trace lines collected while `:trace on`.
    trace: Option<Rc<RefCell<Vec<String>>>>,
    /// Whether proofs are recorded (for `:proof`, or shown with answers).
    proofs: bool,
    /// Predicates memoized by `--memo` or `:memo` (names as parsed), and
    /// the memo table's bounds (`--memo-limit` keys, bytes): settings of
    /// the session that `:reload` carries to the fresh one.
    memo: Vec<String>,
    memo_bounds: Option<(usize, usize)>,
    /// Where answers go as they are found, when set.
    stream: Option<AnswerStream>,
    /// How warnings are shown, about goals and about the files `:load`
    /// and `:reload` load (`None`: not at all; as errors: refused).
    warnings: Option<Severity>,
    /// Whether the interpreter was left (`bye`, `exit`, `:quit`), at any
    /// level: nothing more is to run, not even goals given with `-e`.
    left: bool,
    /// How many workers a search may have (`--jobs`; 1: one thread).
    jobs: usize,
    /// Whether parallel searches split at every chance (for tests).
    split_often: bool,
    /// The parallel search of the query running, if it has one.
    pool: Option<Pool<AnswerData>>,
    /// The figures of the other workers of the last goal's parallel
    /// search, and how many times it was split (`None`: it ran on one
    /// thread).
    parallel: Option<(Figures, u64)>,
    /// The other workers' collections in the parallel searches of the
    /// session's earlier goals (the last goal's are in `parallel`), for
    /// `:stats`.
    others_gc: GcStats,
}

/// Receives the outputs of a query's answers while the query goes on to the
/// next ones (see [`Backend::stream_answers`]); returns false to stop the
/// query (say, because its reader went away).
pub type AnswerStream = Box<dyn FnMut(&Reply) -> bool>;

/// Most trace lines kept for one step of a query.
const TRACE_LINES: usize = 2000;

/// The size of a proof refused at `bound` term cells: its steps, and its
/// cells when they were what passed the bound.
fn size_text(size: crate::proof::ProofSize, bound: usize) -> String {
    if bound == 0 {
        step_count(size.steps)
    } else {
        format!(
            "{} and more than {bound} term cells",
            step_count(size.steps)
        )
    }
}

/// `bytes` in the megabytes of `--max-memory` (MiB), one decimal.
fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// `n steps`, or `1 step`.
fn step_count(n: usize) -> String {
    if n == 1 {
        "1 step".into()
    } else {
        format!("{n} steps")
    }
}

/// The largest proof, in term cells ([`crate::proof::ProofSize`]), that the
/// top level builds only to keep it for `:proof` and `:moves` (about 60 MB).
/// A proof can grow with the square of the search (a recursion over a list
/// shows the rest of the list at every step), and the top level records
/// every answer's proof whether or not it is asked for.
pub const KEPT_PROOF_CELLS: usize = 500_000;

/// Why the top level did not keep an answer's proof.
#[derive(Copy, Clone, Debug)]
enum NotKept {
    /// The proof was too large: its size and the bound it passed.
    Large(crate::proof::ProofSize, usize),
    /// The search stopped recording it past this many steps (see
    /// [`crate::engine::Options::proof_limit`]).
    Stopped(usize),
}

/// Collects trace events as lines.
struct LineTracer(Rc<RefCell<Vec<String>>>);

impl crate::engine::trace::Tracer for LineTracer {
    fn event(&mut self, event: crate::engine::trace::TraceEvent) {
        let mut lines = self.0.borrow_mut();
        if lines.len() < TRACE_LINES {
            lines.push(event.to_string());
        } else if lines.len() == TRACE_LINES {
            lines.push(format!("... (trace cut after {TRACE_LINES} lines)"));
        }
    }
}

impl Backend {
    /// A backend on a fresh session from `factory`, with `files` loaded.
    /// Errors are the rendered load errors.
    pub fn new(
        factory: SessionFactory,
        files: &[PathBuf],
        answers: Answers,
    ) -> Result<Self, String> {
        let mut session = factory();
        for f in files {
            session.load_file(f).map_err(|errs| session.render(&errs))?;
        }
        Ok(Backend {
            session,
            factory,
            answers,
            files: files.to_vec(),
            levels: Vec::new(),
            pending: None,
            timing: false,
            stats_shown: false,
            timeout: None,
            stats: Stats::default(),
            proof_view: Default::default(),
            last_proof: None,
            proof_not_kept: None,
            trace: None,
            proofs: false,
            memo: Vec::new(),
            memo_bounds: None,
            stream: None,
            warnings: Some(Severity::Warning),
            left: false,
            jobs: 1,
            split_often: false,
            pool: None,
            parallel: None,
            others_gc: GcStats::default(),
        })
    }

    /// How warnings are shown (the command line's `-W`): as warnings, as
    /// errors, or (`None`) not at all.  Those about a goal (W002 and W003:
    /// calls that nothing can provide, [`Session::goal_warnings`]) come
    /// before its answers, or as errors keep it from running; those about
    /// the files `:load` and `:reload` load come after the load, or as
    /// errors keep the program as it was.
    pub fn set_warnings(&mut self, severity: Option<Severity>) {
        self.warnings = severity;
    }

    /// The warnings `warnings` as `-W` shows them after a load: `None`
    /// when there are none to show, else the output, an error for
    /// `-W error` (saying that `what` was not done).
    fn load_warnings(&self, session: &Session, warnings: &[Warning], what: &str) -> Option<Output> {
        let severity = self.warnings?;
        if warnings.is_empty() {
            return None;
        }
        let shown = session.render_warnings(warnings, severity);
        Some(if severity == Severity::Error {
            Output::Error(format!(
                "{shown}error: -W error makes the warnings above errors; {what}\n"
            ))
        } else {
            Output::Warning(shown)
        })
    }

    /// Follow each answer (and each `no`) with the figures that `--stats`
    /// prints: the inferences and time of its search, the collector's and
    /// the memo table's figures.
    pub fn show_stats(&mut self, on: bool) {
        self.stats_shown = on;
    }

    /// Memoize the failures of predicate `name` (see
    /// [`Session::memoize`]; `origin` names the option or command in
    /// messages).  The setting lasts for the session, `:reload` included.
    pub fn memoize(&mut self, name: &str, origin: &str) -> Result<Vec<Warning>, Error> {
        let warnings = self.session.memoize(name, origin)?;
        if let Some(pred) = crate::session::predicate_name(name) {
            if !self.memo.contains(&pred) {
                self.memo.push(pred);
            }
        }
        Ok(warnings)
    }

    /// Keep at most `keys` keys (`--memo-limit`; `None`: no bound but the
    /// memory) in at most `bytes` in the memo table.
    pub fn set_memo_bounds(&mut self, keys: Option<usize>, bytes: usize) {
        let keys = keys.map_or(usize::MAX, |n| n.max(2));
        self.memo_bounds = Some((keys, bytes));
        let table = &mut self.session.machine.memo;
        (table.limit, table.max_bytes) = (keys, bytes);
    }

    /// Give a fresh session (`:reload`) the settings this one was given:
    /// proof recording, tracing, memoized predicates, the memo limit and
    /// the interrupt flag.
    fn configure(&self, fresh: &mut Session) {
        let m = &mut fresh.machine;
        m.interrupt = self.session.machine.interrupt.clone();
        m.options.proofs |= self.proofs;
        if let Some(buf) = &self.trace {
            m.tracer = Some(Box::new(LineTracer(buf.clone())));
        }
        if let Some((keys, bytes)) = self.memo_bounds {
            (m.memo.limit, m.memo.max_bytes) = (keys, bytes);
        }
        for pred in &self.memo {
            m.memoize(pred);
        }
    }

    /// The session (its machine holds the program and the context).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, to change (for example to take the warnings of the loaded files).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The flag that stops a running query (set it from a signal handler).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.session.machine.interrupt.clone()
    }

    /// Whether `bye`, `exit` or `:quit` left the interpreter (the
    /// command line then runs no more goals).
    pub fn left(&self) -> bool {
        self.left
    }

    /// The number of open nested top levels (0 at the outermost).
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// The prompt for the next goal: `?- `, or `[N] ?- ` at nesting depth N.
    pub fn prompt(&self) -> String {
        match self.depth() {
            0 => "?- ".to_string(),
            d => format!("[{d}] ?- "),
        }
    }

    /// Change how many answers a goal shows.
    pub fn set_answers(&mut self, answers: Answers) {
        self.answers = answers;
    }

    /// Let each search run on up to `jobs` threads (`--jobs`), when its
    /// answers are shown or counted without asking for each and its
    /// program can (see [`crate::engine::parallel`]).
    pub fn set_jobs(&mut self, jobs: usize) {
        self.jobs = jobs.max(1);
    }

    /// Make parallel searches split whenever they can, whether or not a
    /// worker waits for work, and look every 8 steps instead of every
    /// 1,024: many more splits than a search needs, for tests of the
    /// parallel search's order (`LOLLI_SPLIT_STRESS` for the command line).
    pub fn split_often(&mut self, on: bool) {
        self.split_often = on;
    }

    /// Stop each goal after this long (`--timeout`).
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// Counters so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The figures `--stats` prints after the last goal, given its
    /// inferences `n` and time `secs`: the machine's, with the other
    /// workers' when its search ran in parallel.
    pub fn goal_stats(&self, n: u64, secs: f64) -> String {
        let parallel = self.parallel.as_ref().map(|(figures, splits)| Parallel {
            figures,
            workers: self.jobs,
            splits: *splits,
        });
        crate::repl::inspect::stats_lines(&self.session.machine, n, secs, parallel)
    }

    /// Handle one input: a goal (ending with `.`) or a `:`-command.
    pub fn input(&mut self, text: &str) -> Reply {
        self.stop_pending();
        // Nothing but white space and comments: nothing to do.
        if crate::syntax::is_blank(text) {
            return Reply::new();
        }
        if text.trim() == ";" {
            let mut r = Reply::new();
            r.outputs.push(Output::Text(
                "`;` asks for the next answer at `more?`; here, type a goal ending with `.`\n"
                    .into(),
            ));
            return r;
        }
        if commands::is_command(text) {
            return match commands::parse(text) {
                Ok(c) => self.command(c),
                Err(e) => {
                    let mut r = Reply::new();
                    r.outputs.push(Output::Error(format!("error: {e}\n")));
                    r
                }
            };
        }
        self.run_goal(text)
    }

    /// After [`Next::More`]: `true` looks for the next answer, `false` stops.
    pub fn more(&mut self, again: bool) -> Reply {
        if !again {
            self.stop_pending();
            return Reply::new();
        }
        match self.pending.take() {
            Some(p) => {
                let mut r = Reply::new();
                self.drive(p, &mut r);
                r
            }
            None => Reply::new(),
        }
    }

    /// End of input at the prompt (Ctrl-D): leave the innermost nested level,
    /// or end the session at the outermost.
    pub fn eof(&mut self) -> Reply {
        self.stop_pending();
        let mut r = Reply::new();
        if self.levels.pop().is_some() {
            self.session.machine.end_query();
            r.outputs.push(Output::Closed(self.depth()));
        } else {
            r.next = Next::Quit;
        }
        r
    }

    /// Close every nested level (the goals that opened them end).
    pub fn pop_all(&mut self) {
        self.stop_pending();
        while self.levels.pop().is_some() {
            self.session.machine.end_query();
        }
    }

    /// Names worth completing: predicates of the program and the context,
    /// built-ins, and modules on the search path.
    pub fn completion_words(&self) -> Vec<String> {
        let m = &self.session.machine;
        let mut words = inspect::predicate_names(m);
        words.extend(crate::logic::module::available_modules(
            &m.options.search_path,
        ));
        words.sort();
        words.dedup();
        words
    }

    fn stop_pending(&mut self) {
        if self.pending.take().is_some() {
            self.end_query();
        }
    }

    fn end_query(&mut self) {
        if let Some(pool) = self.pool.take() {
            pool.stop();
        }
        self.session.machine.leave_pool();
        self.session.machine.flush_outputs();
        self.session.machine.end_query();
    }

    /// Run a goal (never a command; the final `.` is optional) to its first
    /// stop: an answer, the end, or `top`.
    pub fn run_goal(&mut self, text: &str) -> Reply {
        self.stop_pending();
        let mut r = Reply::new();
        let (cell, vars) = match self.session.prepare(text) {
            Ok(p) => {
                if let Some(severity) = self.warnings {
                    let m = &self.session.machine;
                    let w = self
                        .session
                        .goal_warnings(&p, &|| inspect::predicate_names(m));
                    if !w.is_empty() {
                        let shown = self.session.render_warnings(&w, severity);
                        if severity == Severity::Error {
                            r.outputs.push(Output::Error(format!(
                                "{shown}error: -W error makes the warnings above errors; \
                                 the goal was not run\n"
                            )));
                            return r;
                        }
                        r.outputs.push(Output::Warning(shown));
                    }
                }
                p.into_parts()
            }
            Err(err) => {
                r.outputs.push(Output::Error(self.session.render(&[err])));
                return r;
            }
        };
        self.stats.queries += 1;
        // `:proof` and `:moves` are about this goal's answers from now on.
        self.last_proof = None;
        self.proof_not_kept = None;
        let m = &mut self.session.machine;
        // Recording starts afresh for each goal (the last one may have
        // stopped it), and when proofs are only kept, it stops where no
        // proof could be kept any more: each step is a cell or more.
        m.options.proofs |= self.proofs;
        m.options.proof_limit = (!self.proof_view.active()).then_some(KEPT_PROOF_CELLS);
        // A timeout too long to add to the clock is no deadline at all.
        m.options.deadline = self.timeout.and_then(|t| Instant::now().checked_add(t));
        m.start_query(cell, vars.clone());
        let p = Pending {
            goal: text.to_string(),
            vars,
            found: 0,
            started: false,
        };
        self.drive(p, &mut r);
        r
    }

    /// Show or check proofs with each answer as `view` says; recording
    /// proofs is turned on when the view needs them.
    pub fn set_proof_view(&mut self, view: crate::proof::view::ProofView) {
        if view.active() {
            self.proofs = true;
            self.session.machine.options.proofs = true;
        }
        self.proof_view = view;
    }

    /// Record proofs (for `:proof` and `:moves`) even when answers do not show them.
    pub fn record_proofs(&mut self) {
        self.proofs = true;
        self.session.machine.options.proofs = true;
    }

    /// The proof of the last answer, if proofs were recorded.
    pub fn last_proof(&self) -> Option<&crate::proof::Proof> {
        self.last_proof.as_ref()
    }

    /// Hand the outputs of each answer to `stream` as soon as the query
    /// goes on to look for the next one (under `--all`, `--limit` and
    /// `--count`), instead of gathering them all in the reply: a goal with
    /// endless answers shows them as they come, in constant memory.  The
    /// reply then holds what followed the last answer streamed, and counts
    /// the answers streamed.  `None` gathers them again.  Returns the
    /// stream set before.
    pub fn stream_answers(&mut self, stream: Option<AnswerStream>) -> Option<AnswerStream> {
        std::mem::replace(&mut self.stream, stream)
    }

    /// Run the query of `p` (the innermost on the machine) until it stops,
    /// showing answers as the policy says.
    fn drive(&mut self, mut p: Pending, r: &mut Reply) {
        // A Ctrl-C from before this input does not count; one that comes
        // while the query runs stops it, also between two answers.
        self.session
            .machine
            .interrupt
            .store(false, Ordering::Relaxed);
        if !p.started {
            if let Some((figures, _)) = self.parallel.take() {
                self.others_gc.add(figures.gc);
            }
            self.pool = self.parallel_pool(&p);
            if let Some(pool) = &self.pool {
                self.session
                    .machine
                    .join_pool(pool.splits(), self.split_often);
            }
        }
        loop {
            let m = &mut self.session.machine;
            let (start, inferences) = (Instant::now(), m.inferences);
            let ev = if p.started { m.next_answer() } else { m.run() };
            p.started = true;
            let (elapsed, steps) = (start.elapsed(), m.inferences - inferences);
            if let Some(buf) = &self.trace {
                let lines: Vec<String> = buf.borrow_mut().drain(..).collect();
                if !lines.is_empty() {
                    r.outputs.push(Output::Text(lines.join("\n") + "\n"));
                }
            }
            self.stats.search_time += elapsed;
            self.stats.inferences += steps;
            let ev = match ev {
                Ok(ev) => ev,
                Err(e) => {
                    self.end_query();
                    r.outputs
                        .push(Output::Error(self.session.render(&[e.into()])));
                    return;
                }
            };
            match ev {
                Event::Answer => {
                    p.found += 1;
                    let policy = self.answer_policy(&p);
                    let m = &mut self.session.machine;
                    let data = answer_data(m, &policy);
                    let more = self.answers == Answers::Ask && m.may_have_more();
                    // (The other workers' parts of the search come after
                    // this answer: only their number is told.)
                    self.parallel = self
                        .pool
                        .as_ref()
                        .map(|pool| (Figures::default(), pool.splits_made()));
                    let parallel = self.parallel.as_ref().map(|(figures, splits)| Parallel {
                        figures,
                        workers: self.jobs,
                        splits: *splits,
                    });
                    let timing = self.timing_outputs(steps, elapsed.as_secs_f64(), parallel);
                    if !self.take_answer(data, more, timing, &mut p, r) {
                        return;
                    }
                }
                Event::Exhausted if self.pool.as_ref().is_some_and(|pool| pool.started()) => {
                    // The root worker's part is over; the other workers'
                    // parts come after it, and its inferences and time
                    // since its last answer are counted with theirs.
                    self.stats.inferences -= steps;
                    self.stats.search_time -= elapsed;
                    self.read_segments(p, steps, start, r);
                    return;
                }
                Event::Exhausted => {
                    let (left, first) = self.session.machine.left_unused();
                    let left_unused = (left, first.map(str::to_string));
                    let timing = self.timing_outputs(steps, elapsed.as_secs_f64(), None);
                    self.no_more(&p, &left_unused, timing, r);
                    return;
                }
                Event::Top => {
                    self.levels.push(Level {
                        goal: p.goal,
                        files: Vec::new(),
                    });
                    r.outputs.push(Output::Opened(self.depth()));
                    return;
                }
                Event::Pop | Event::PopAll => {
                    self.end_query();
                    if self.levels.is_empty() {
                        r.outputs.push(Output::Outermost);
                        return;
                    }
                    let all = ev == Event::PopAll;
                    while self.levels.pop().is_some() {
                        self.session.machine.end_query();
                        if !all {
                            break;
                        }
                    }
                    r.outputs.push(Output::Closed(self.depth()));
                    return;
                }
                Event::Bye => {
                    self.end_query();
                    self.pop_all();
                    self.left = true;
                    r.next = Next::Quit;
                    return;
                }
                Event::Abort => {
                    self.end_query();
                    r.outputs.push(Output::Aborted);
                    return;
                }
                // Only helpers of a parallel search pause, never its root.
                Event::Paused => {
                    self.end_query();
                    let e = crate::diagnostics::RuntimeError::new("internal error: a query paused");
                    r.outputs
                        .push(Output::Error(self.session.render(&[e.into()])));
                    return;
                }
            }
        }
    }

    /// A pool for a parallel search of the query of `p`, when it may have
    /// one: more than one worker is allowed, the answers are not asked for
    /// one by one, nothing is traced, and the program cannot do what only
    /// a search on one thread can keep in order
    /// ([`Machine::sequential_only`]).
    fn parallel_pool(&self, p: &Pending) -> Option<Pool<AnswerData>> {
        if self.jobs < 2
            || self.answers == Answers::Ask
            || self.trace.is_some()
            || self.session.machine.sequential_only()
        {
            return None;
        }
        // A part of the search need not find more answers than the goal
        // shows or counts.
        let per_segment = match self.answers {
            Answers::Take(n) | Answers::Count(n) if n != usize::MAX => Some(n),
            _ => None,
        };
        let policy = self.answer_policy(p);
        Some(Pool::new(
            self.jobs,
            per_segment,
            self.split_often,
            move |m| answer_data(m, &policy),
        ))
    }

    /// The rest of a parallel search, once the root worker's own part is
    /// exhausted: the other workers' answers, text and errors, in the
    /// order of the sequential search (see [`crate::engine::parallel`]).
    /// `carried` counts the root's inferences since its last answer, made
    /// from `started` on.
    fn read_segments(&mut self, mut p: Pending, carried: u64, started: Instant, r: &mut Reply) {
        let (left, first) = self.session.machine.left_unused();
        let mut figures = Figures {
            inferences: carried,
            left_unused: (left, first.map(str::to_string)),
            ..Figures::default()
        };
        if let Some(pool) = &self.pool {
            pool.root_done();
        }
        let mut since = started;
        loop {
            let Some(pool) = &self.pool else {
                return;
            };
            let next = pool.next(Duration::from_millis(20));
            let splits = pool.splits_made();
            if let Some(e) = self.session.machine.check_waiting() {
                self.stopped_by(e, figures, splits, r);
                return;
            }
            match next {
                Found::Wait => {}
                Found::Item(Item::Output(text)) => self.session.machine.host.write(&text),
                Found::Item(Item::Answer(data, more)) => {
                    p.found += 1;
                    figures.add(&more);
                    let steps = std::mem::take(&mut figures.inferences);
                    let elapsed = since.elapsed();
                    since = Instant::now();
                    self.stats.search_time += elapsed;
                    self.stats.inferences += steps;
                    let parallel = Parallel {
                        figures: &figures,
                        workers: self.jobs,
                        splits,
                    };
                    let timing = self.timing_outputs(steps, elapsed.as_secs_f64(), Some(parallel));
                    self.parallel = Some((figures.clone(), splits));
                    if !self.take_answer(data, false, timing, &mut p, r) {
                        return;
                    }
                }
                Found::Item(Item::End(f)) => figures.add(&f),
                Found::Item(Item::Error(e, more)) => {
                    figures.add(&more);
                    self.stopped_by(e, figures, splits, r);
                    return;
                }
                Found::End => break,
            }
        }
        let splits = self.pool.as_ref().map_or(0, |pool| pool.splits_made());
        let elapsed = since.elapsed();
        self.stats.search_time += elapsed;
        self.stats.inferences += figures.inferences;
        let parallel = Parallel {
            figures: &figures,
            workers: self.jobs,
            splits,
        };
        let timing = self.timing_outputs(figures.inferences, elapsed.as_secs_f64(), Some(parallel));
        let left_unused = figures.left_unused.clone();
        self.parallel = Some((figures, splits));
        self.no_more(&p, &left_unused, timing, r);
    }

    /// A parallel search stopped by error `e`, its figures `figures` so
    /// far, split `splits` times.
    fn stopped_by(
        &mut self,
        e: crate::diagnostics::RuntimeError,
        figures: Figures,
        splits: u64,
        r: &mut Reply,
    ) {
        self.stats.inferences += figures.inferences;
        self.parallel = Some((figures, splits));
        self.end_query();
        r.outputs
            .push(Output::Error(self.session.render(&[e.into()])));
    }

    /// What answers are made of, for a machine stopped at one.
    fn answer_policy(&self, p: &Pending) -> AnswerPolicy {
        AnswerPolicy {
            counting: matches!(self.answers, Answers::Count(_)),
            proofs: self.proofs,
            view: self.proof_view.clone(),
            vars: p.vars.clone(),
        }
    }

    /// What `:time` and `--stats` show after an answer or a `no`: `steps`
    /// inferences in `secs` seconds, with the other workers' figures when
    /// the search ran in parallel.
    fn timing_outputs(&self, steps: u64, secs: f64, parallel: Option<Parallel<'_>>) -> Vec<Output> {
        let mut out = Vec::new();
        if self.timing {
            out.push(Output::Text(crate::repl::inspect::inferences_line(
                steps, secs,
            )));
        }
        if self.stats_shown {
            let m = &self.session.machine;
            out.push(Output::Stats(crate::repl::inspect::stats_lines(
                m, steps, secs, parallel,
            )));
        }
        out
    }

    /// Show answer number `p.found`, made into `data` (`more`: the search
    /// may have another, for [`Answers::Ask`]); `timing` follows it.
    /// Whether the query goes on to the next answer (false: it was ended,
    /// or waits for `;`).
    fn take_answer(
        &mut self,
        data: AnswerData,
        more: bool,
        timing: Vec<Output>,
        p: &mut Pending,
        r: &mut Reply,
    ) -> bool {
        // Counting shows neither the answer nor (without a proof to show
        // or check) anything made from it.
        let counting = matches!(self.answers, Answers::Count(_));
        let AnswerData {
            mut text,
            bindings,
            pairs,
            proof,
        } = data;
        match proof {
            ProofMade::NotRecorded => {}
            ProofMade::Stopped => {
                self.proof_not_kept = Some(NotKept::Stopped(KEPT_PROOF_CELLS));
                self.last_proof = None;
            }
            ProofMade::TooLarge { size, bound, left } if self.proof_view.active() => {
                self.end_query();
                self.last_proof = None;
                if !counting {
                    r.outputs.push(Output::Answer(text));
                }
                let need = crate::proof::ProofSize {
                    steps: size.steps,
                    cells: size.cells.max(bound.saturating_add(1)),
                };
                let e = crate::diagnostics::RuntimeError::new(format!(
                    "the proof of answer {} is too large to build within the memory \
                     limit: it has {}, {} or more to build, and the limit leaves \
                     {}",
                    p.found,
                    size_text(size, bound),
                    megabytes(need.bytes()),
                    megabytes(left.unwrap_or(0))
                ))
                .note("`--max-memory MB` sets the limit, 0 lifts it");
                r.outputs
                    .push(Output::Error(self.session.render(&[e.into()])));
                return false;
            }
            ProofMade::TooLarge { size, bound, .. } => {
                self.proof_not_kept = Some(NotKept::Large(size, bound));
                self.last_proof = None;
            }
            ProofMade::Built(proof, rejected_by) => {
                self.proof_not_kept = None;
                if let Some(e) = rejected_by {
                    self.end_query();
                    let e = rejected(p.found, &e);
                    r.outputs.push(Output::Error(self.session.render(&[e])));
                    return false;
                }
                if let Some(proof) = &proof {
                    text = self.proof_view.show(&text, &pairs, p.found, proof);
                }
                self.last_proof = proof.map(|p| *p);
            }
        }
        if !counting {
            r.outputs.push(Output::Answer(text));
        }
        r.outputs.extend(timing);
        let go_on = match self.answers {
            // An answer after which no choice is left is the last: no
            // `more?` then.
            Answers::Ask if bindings && more => {
                self.pending = Some(p.clone());
                r.next = Next::More;
                return false;
            }
            Answers::Ask => false,
            Answers::Take(n) | Answers::Count(n) => p.found < n,
        };
        if !go_on {
            self.end_query();
            if let Answers::Count(_) = self.answers {
                r.outputs.push(Output::Count(p.found));
            }
            return false;
        }
        if let Some(stream) = &mut self.stream {
            let answers = r
                .outputs
                .iter()
                .filter(|o| matches!(o, Output::Answer(_)))
                .count();
            let go_on = r.outputs.is_empty() || stream(r);
            r.streamed += answers;
            r.outputs.clear();
            if !go_on {
                self.end_query();
                return false;
            }
        }
        true
    }

    /// The query of `p` has no more answers: end it and say so, with
    /// why it had none when that can be told (`left_unused`: the proofs
    /// rejected for leaving resources unused, and the first such
    /// resource); `timing` follows.
    fn no_more(
        &mut self,
        p: &Pending,
        left_unused: &(u64, Option<String>),
        timing: Vec<Output>,
        r: &mut Reply,
    ) {
        // (Read before the query ends: its goal is still there.  Only
        // asked when the note on rejected proofs is not given.)
        let unmatched = match p.found {
            0 if left_unused.0 == 0 => self.session.machine.unmatched_call(),
            _ => None,
        };
        self.end_query();
        match self.answers {
            Answers::Count(_) => r.outputs.push(Output::Count(p.found)),
            Answers::Ask => r.outputs.push(Output::No),
            Answers::Take(_) if p.found == 0 => r.outputs.push(Output::No),
            Answers::Take(_) => {}
        }
        if p.found == 0 && r.streamed == 0 {
            let note =
                left_unused_note(left_unused).or_else(|| unmatched.map(|u| unmatched_note(&u)));
            r.outputs.extend(note.map(Output::Note));
        }
        r.outputs.extend(timing);
    }

    fn command(&mut self, c: Command) -> Reply {
        let mut r = Reply::new();
        let text = |s: String| Output::Text(s);
        match c {
            Command::Help => r.outputs.push(text(commands::help())),
            Command::Quit => {
                self.pop_all();
                self.left = true;
                r.next = Next::Quit;
            }
            Command::Load(f) => self.load(Path::new(&f), &mut r),
            Command::Reload => self.reload(&mut r),
            Command::Context => r
                .outputs
                .push(text(inspect::context(&mut self.session.machine))),
            Command::Stats => {
                let others = inspect::Others {
                    earlier_gc: self.others_gc,
                    last: self.parallel.as_ref().map(|(figures, _)| figures),
                };
                r.outputs.push(text(inspect::stats(
                    &self.session.machine,
                    &self.stats,
                    self.depth(),
                    others,
                )))
            }
            Command::Time(on) => {
                self.timing = on;
                r.outputs
                    .push(text(format!("timing {}\n", if on { "on" } else { "off" })));
            }
            Command::Trace(on) => {
                if on {
                    let buf = Rc::new(RefCell::new(Vec::new()));
                    self.session.machine.tracer = Some(Box::new(LineTracer(buf.clone())));
                    self.trace = Some(buf);
                } else {
                    self.session.machine.tracer = None;
                    self.trace = None;
                }
                r.outputs
                    .push(text(format!("trace {}\n", if on { "on" } else { "off" })));
            }
            Command::Memo(None) => {
                let m = &self.session.machine;
                let names = m.memoized();
                r.outputs.push(text(if names.is_empty() {
                    "no predicate is memoized (`:memo PRED` or `MEMO PRED.` in a file)\n".into()
                } else {
                    format!("memoized: {}\n{}", names.join(", "), inspect::memo_line(m))
                }));
            }
            Command::Memo(Some(name)) => match self.memoize(&name, ":memo") {
                Ok(warnings) => {
                    if !warnings.is_empty() {
                        r.outputs.push(Output::Warning(
                            self.session.render_warnings(&warnings, Severity::Warning),
                        ));
                    }
                    r.outputs
                        .push(text(format!("failures of `{name}` are memoized\n")));
                }
                Err(e) => r.outputs.push(Output::Error(self.session.render(&[e]))),
            },
            Command::MemoOff(name) => {
                let m = &mut self.session.machine;
                let said = match name
                    .as_deref()
                    .map(|n| (n, crate::session::predicate_name(n)))
                {
                    None => {
                        m.unmemoize(None);
                        self.memo.clear();
                        "memoization is off (a file's `MEMO` declarations apply again at `:reload`)\n"
                            .to_string()
                    }
                    Some((name, None)) => {
                        format!("`{name}` is not a predicate name: nothing changed\n")
                    }
                    Some((name, Some(pred))) => {
                        if m.unmemoize(Some(&pred)) {
                            self.memo.retain(|p| *p != pred);
                            format!("failures of `{name}` are no longer memoized\n")
                        } else {
                            format!("`{name}` is not memoized: nothing changed\n")
                        }
                    }
                };
                r.outputs.push(text(said));
            }
            Command::Proof => match &self.last_proof {
                Some(p) => r.outputs.push(text(crate::proof::print_tree::tree(p))),
                None => r.outputs.push(text(self.no_proof())),
            },
            Command::Moves(given) => {
                let (pred, warnings) = match self.session.moves_predicate(&given, ":moves", &[]) {
                    Ok(checked) => checked,
                    Err(e) => {
                        r.outputs.push(Output::Error(self.session.render(&[e])));
                        return r;
                    }
                };
                let lines: Option<String> = self.last_proof.as_ref().map(|p| {
                    crate::proof::moves::moves(p, &pred)
                        .iter()
                        .map(|m| format!("{m}\n"))
                        .collect()
                });
                // A predicate with moves in the last proof is defined (by
                // the goal that proved it, if nothing else).
                if !warnings.is_empty() && lines.as_ref().is_none_or(String::is_empty) {
                    r.outputs.push(Output::Warning(
                        self.session.render_warnings(&warnings, Severity::Warning),
                    ));
                }
                r.outputs.push(text(match lines {
                    Some(l) if l.is_empty() => {
                        format!("the last proof uses no clause of `{given}`\n")
                    }
                    Some(l) => l,
                    None => self.no_proof(),
                }));
            }
        }
        r
    }

    /// Why `:proof` and `:moves` have no proof to show.
    fn no_proof(&self) -> String {
        match self.proof_not_kept {
            Some(NotKept::Large(size, bound)) => format!(
                "the proof of the last answer was not kept: it has {}, more than the top \
                 level keeps (`lolli FILE --proof -e GOAL` prints it)\n",
                size_text(size, bound)
            ),
            Some(NotKept::Stopped(limit)) => format!(
                "the proof of the last answer was not kept: its search went past {limit} \
                 steps, more than the top level keeps (`lolli FILE --proof -e GOAL` \
                 prints it)\n"
            ),
            None if self.stats.queries > 0 => {
                "no proof to show: the last goal had no answer (proofs are kept for the last answer)\n"
                    .into()
            }
            None => "no proof to show: answer a goal first (proofs are kept for the last answer)\n"
                .into(),
        }
    }

    fn load(&mut self, path: &Path, r: &mut Reply) {
        let loaded_here = match self.levels.last() {
            Some(l) => &l.files,
            None => &self.files,
        };
        if loaded_here.iter().any(|f| same_file(f, path)) {
            r.outputs.push(Output::Error(format!(
                "error: `{}` is already loaded at this level\n  `:reload` loads it again after an edit\n",
                path.display()
            )));
            return;
        }
        if self.warnings == Some(Severity::Error) && !self.load_trial(path, r) {
            return;
        }
        match self.session.load_file(path) {
            Ok(()) => {
                match self.levels.last_mut() {
                    Some(l) => l.files.push(path.to_path_buf()),
                    None => self.files.push(path.to_path_buf()),
                }
                let warnings = self.session.take_warnings();
                let what = "the file was loaded";
                r.outputs
                    .extend(self.load_warnings(&self.session, &warnings, what));
                r.outputs
                    .push(Output::Text(format!("loaded {}\n", path.display())));
            }
            Err(errs) => r.outputs.push(Output::Error(self.session.render(&errs))),
        }
    }

    /// Under `-W error`, whether loading `path` gives no warning: it is
    /// loaded first in a fresh session with every file loaded so far, so
    /// that a file with warnings is refused before it changes the program
    /// (the warnings, as errors, go to `r`).
    fn load_trial(&mut self, path: &Path, r: &mut Reply) -> bool {
        let mut trial = (self.factory)();
        let so_far = self
            .files
            .iter()
            .chain(self.levels.iter().flat_map(|l| &l.files));
        for f in so_far.map(PathBuf::as_path).chain([path]) {
            if let Err(errs) = trial.load_file(f) {
                r.outputs.push(Output::Error(trial.render(&errs)));
                return false;
            }
        }
        let warnings = trial.take_warnings();
        match self.load_warnings(&trial, &warnings, "the file was not loaded") {
            Some(refused) => {
                r.outputs.push(refused);
                false
            }
            None => true,
        }
    }

    /// Start again from a fresh session: load the outermost files, then
    /// reopen each nested level by running its goal again up to `top`.
    fn reload(&mut self, r: &mut Reply) {
        // The levels are closed in this session (so that a failed reload
        // leaves it at its outermost level), and reopened in the new one.
        let levels = self.levels.clone();
        self.pop_all();
        // Everything is undone: the machine is back at its base context.
        let mut fresh = (self.factory)();
        for f in &self.files {
            if let Err(errs) = fresh.load_file(f) {
                r.outputs.push(Output::Error(fresh.render(&errs)));
                r.outputs.push(Output::Text(if levels.is_empty() {
                    "the program is as it was before `:reload`\n".into()
                } else {
                    "the program is as it was before `:reload`; the nested levels are closed\n"
                        .into()
                }));
                return;
            }
        }
        let warnings = fresh.take_warnings();
        let what = if levels.is_empty() {
            "the program is as it was before `:reload`"
        } else {
            "the program is as it was before `:reload`; the nested levels are closed"
        };
        match self.load_warnings(&fresh, &warnings, what) {
            Some(Output::Error(e)) => {
                r.outputs.push(Output::Error(e));
                return;
            }
            shown => r.outputs.extend(shown),
        }
        self.configure(&mut fresh);
        self.session = fresh;
        // (The collections `:stats` counts are the new machine's.)
        self.parallel = None;
        self.others_gc = GcStats::default();
        // The last proof is of the program as it was.
        self.last_proof = None;
        self.proof_not_kept = None;
        let answers = std::mem::replace(&mut self.answers, Answers::Take(1));
        for level in levels {
            let reply = self.run_goal(&level.goal);
            if !matches!(reply.outputs.last(), Some(Output::Opened(_))) {
                r.outputs.extend(
                    reply
                        .outputs
                        .into_iter()
                        .filter(|o| matches!(o, Output::Error(_))),
                );
                r.outputs.push(Output::Text(format!(
                    "`{}` no longer reaches `top`: it and the levels above it stay closed\n",
                    level.goal.trim()
                )));
                break;
            }
            for f in &level.files {
                let mut sub = Reply::new();
                self.load(f, &mut sub);
                r.outputs.extend(
                    sub.outputs
                        .into_iter()
                        .filter(|o| matches!(o, Output::Error(_) | Output::Warning(_))),
                );
            }
        }
        self.answers = answers;
        let files = self.files.len() + self.levels.iter().map(|l| l.files.len()).sum::<usize>();
        r.outputs.push(Output::Text(format!(
            "reloaded {} file{}{}\n",
            files,
            if files == 1 { "" } else { "s" },
            match self.depth() {
                0 => String::new(),
                d => format!(
                    ", {d} nested level{} reopened",
                    if d == 1 { "" } else { "s" }
                ),
            }
        )));
    }
}

/// The error for answer number `answer` whose proof the checker rejected:
/// a run-time error (E003), as is a proof too large to build.
fn rejected(answer: usize, e: &crate::proof::CheckError) -> Error {
    crate::diagnostics::RuntimeError::new(format!("the proof of answer {answer} was rejected: {e}"))
        .into()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The printed answer of the current solution, and whether it has bindings
/// (printed as [`crate::session::Query::answer`] prints them).
fn answer(m: &Machine, vars: &[(String, Cell)]) -> (String, Vec<(String, String)>) {
    let a = crate::session::answer_printed(m, vars);
    (a.to_string(), a.bindings)
}

/// Why a query has no answer, when proofs were found but rejected for
/// leaving a linear resource unused (a `LINEAR` fact of the program, or a
/// resource the goal assumed with `-o`): `left_unused` counts them and
/// names the first such resource.
fn left_unused_note(left_unused: &(u64, Option<String>)) -> Option<String> {
    let (n, first) = (left_unused.0, left_unused.1.as_deref()?);
    let found = match n {
        1 => format!("a proof was found but rejected: it left linear resources unused (`{first}`)"),
        n => format!("{n} proofs were found but rejected: each left linear resources unused (the first `{first}`)"),
    };
    Some(format!(
        "note: {found}; every linear resource must be used up, and `erase` uses up what \
         is left\n"
    ))
}

/// How the answers of a query are made into what they show (shared by
/// the workers of a parallel search, which make their own answers').
#[derive(Clone, Debug)]
struct AnswerPolicy {
    /// Only counted: no text is made unless a proof is.
    counting: bool,
    /// Proofs are recorded, to keep for `:proof` when not shown.
    proofs: bool,
    /// What to show or check with each proof.
    view: crate::proof::view::ProofView,
    /// The query's named variables.
    vars: Vec<(String, Cell)>,
}

/// An answer, made from the machine stopped at it: its text and bindings,
/// and its proof.
#[derive(Debug)]
struct AnswerData {
    text: String,
    /// Whether the answer binds a named variable.
    bindings: bool,
    /// The bindings printed, when a proof is shown with them (else
    /// empty: a parallel search keeps every answer of the parts after
    /// the one being read, so they are kept small).
    pairs: Vec<(String, String)>,
    proof: ProofMade,
}

/// What became of an answer's proof.
#[derive(Debug)]
enum ProofMade {
    /// Proofs are not recorded.
    NotRecorded,
    /// The search stopped recording them (see
    /// [`crate::engine::Options::proof_limit`]).
    Stopped,
    /// Too large to build within `bound` term cells (`left`: the bytes
    /// the memory limit left for it).
    TooLarge {
        size: crate::proof::ProofSize,
        bound: usize,
        left: Option<usize>,
    },
    /// Built (`None` when there was none to build), and the checker's
    /// complaint when it was asked to check the proof and rejected it.
    Built(
        Option<Box<crate::proof::Proof>>,
        Option<Box<crate::proof::CheckError>>,
    ),
}

/// The answer machine `m` stopped at, made as `policy` says.
fn answer_data(m: &mut Machine, policy: &AnswerPolicy) -> AnswerData {
    let (text, pairs) = if policy.counting && !m.options.proofs {
        (String::new(), Vec::new())
    } else {
        answer(m, &policy.vars)
    };
    let proof = if policy.proofs && !m.proof_complete() {
        ProofMade::Stopped
    } else if m.options.proofs {
        // Room for the proof: what the memory limit leaves, and no more
        // than `KEPT_PROOF_CELLS` when it is only kept.
        let left = m
            .options
            .max_memory
            .map(|limit| limit.saturating_sub(m.memory_used()));
        let steps = crate::proof::build::steps(m).unwrap_or(0);
        let room = left.map_or(usize::MAX, |left| {
            crate::proof::build::cells_within(left, steps)
        });
        let bound = if policy.view.active() {
            room
        } else {
            room.min(KEPT_PROOF_CELLS)
        };
        match crate::proof::build_within(m, &policy.vars, bound) {
            Ok(proof) => {
                let rejected_by = match &proof {
                    Some(proof) if policy.view.check => proof.check().err().map(Box::new),
                    _ => None,
                };
                ProofMade::Built(proof.map(Box::new), rejected_by)
            }
            Err(size) => ProofMade::TooLarge { size, bound, left },
        }
    } else {
        ProofMade::NotRecorded
    };
    let bindings = !pairs.is_empty();
    let pairs = match proof {
        ProofMade::Built(Some(_), _) => pairs,
        _ => Vec::new(),
    };
    AnswerData {
        text,
        bindings,
        pairs,
        proof,
    }
}

/// The note for a goal that no head of its predicate can match.
fn unmatched_note(u: &crate::engine::machine::explain::Unmatched) -> String {
    let count = |n: usize, what: &str| match n {
        0 => None,
        1 => Some(format!("1 {what}")),
        n => Some(format!("{n} {what}s")),
    };
    let heads: Vec<String> = [count(u.clauses, "clause"), count(u.resources, "resource")]
        .into_iter()
        .flatten()
        .collect();
    let (name, goal) = (&u.name, &u.goal);
    let text = match u.clauses + u.resources {
        1 => format!(
            "the head of `{name}`'s one {} cannot match `{goal}`",
            if u.clauses == 1 { "clause" } else { "resource" }
        ),
        _ => format!(
            "no head of `{name}`'s {} can match `{goal}`",
            heads.join(" and ")
        ),
    };
    format!("note: {text}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::{CheckError, Problem, RuleName};

    #[test]
    fn a_rejected_proof_is_a_runtime_error_with_its_code() {
        let e = CheckError {
            path: vec![1, 0],
            rule: RuleName::Atom,
            goal: "p a".into(),
            problem: Problem::Head {
                instance: "p b".into(),
            },
        };
        let session = Session::new();
        assert_eq!(
            session.render(&[rejected(2, &e)]),
            "error[E003]: the proof of answer 2 was rejected: step 1.0 (atom `p a`): \
             no head of the clause instance `p b` is the goal\n\n"
        );
    }
}
