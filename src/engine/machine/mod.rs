//! The search: Lolli's proof rules run by an abstract machine with its own
//! stacks (never the Rust call stack), undoing by trail.
//!
//! The resource semantics is the input/output model with lazy `erase` of
//! Cervesato, Hodas and Pfenning ("Efficient Resource Management for Linear
//! Logic Proof Search", the RM3 system), in the form Lolli 0.94 implements.
//! A goal runs in the current context; consuming a linear resource marks its
//! entry `GONE`; the *slack* register records whether an `erase` has been
//! proved since the start of the enclosing scope (Lolli's "top flag"), and
//! then resources left over at the end of the scope count as erased.  Where
//! Lolli tests strictness at every leaf, this machine checks at the end of
//! each scope (`D -o G`, the query, the second conjunct of `&`); the proofs
//! found, and their order, are the same.
//!
//! The rules, as the machine runs them:
//! - `true`: nothing.  `erase`: set slack.  `G1 , G2`: G1 then G2 (slack accumulates).
//! - `D -o G` / `D => G` (`G :- D` / `G <= D`): push D's clauses as linear
//!   (resp. unbounded) entries, prove G with slack cleared, then every linear
//!   entry of D must be consumed unless G's slack is set; the entries leave.
//! - `G1 & G2`: prove G1 (slack cleared); the resources it consumed (C1) are
//!   made usable again for G2 and, if G1 had no slack, G2 may use nothing
//!   else; after G2 every resource of C1 must be consumed again (unless G2
//!   has slack).  Slack of the whole: both had slack.
//! - `{G}`: prove G with every linear resource hidden; no slack.
//! - atom: try every usable entry whose head may match, newest first; a linear
//!   entry is consumed when used; then prove the clause body left to right.
//! - `G1 ; G2`, guard `G1 -> G2 | G3`, `forall`, `exists`: as in Lolli.
//!
//! Using a program clause copies its body to the heap.  A body `G1 , ... ,
//! Gn` is pushed as n goals (when neither proofs nor a trace record the `,`
//! steps): G1 is copied at once, the others into blocks reserved then and
//! filled when each goal is first reached, so the copy of a conjunct that
//! an earlier one never lets through is never made (`push_conjuncts`).
//!
//! A call whose candidates are decided in one pass passes over the ground
//! facts after which the next goal would find nothing to match
//! (`lookahead`), and, when the clause's body makes a move ending in a
//! memoized call, those whose move leads to a known failure
//! (`memo_ahead`): the same answers in the same order, with fewer tries.
//! The calls a move then takes (`b (s X) Y peg` after `b X Y peg` took a
//! fact) are ground: one whose fact was found before, after a candidate of
//! the same term, takes that fact when it is the one usable item the call
//! can match, without looking up or matching, and without copying the
//! call unless a proof step names it (`fast_take`).
//!
//! Machine state: the store (heap + trail), the context, the continuation
//! (a persistent list of frames), the choice-point stack and the proof log.
//! A choice point saves the lengths of every arena and the trail mark, so
//! backtracking is "undo the trail, truncate the arenas"; nothing is copied.
//! Resuming a clause choice keeps the choice point and advances its cursor;
//! it is popped with its last candidate.
//! Frames above both the continuation and the newest choice point's saved
//! frame count are reclaimed whenever a frame is taken (a frame's `next` is
//! always older than it); so the frame counts saved by choice points never
//! decrease from older to newer, and deterministic recursion runs in
//! constant frame space, also when a cut removed the choice points that
//! once kept its frames.

mod calls;
pub(crate) mod decisions;
mod effects;
pub(crate) mod explain;
pub(crate) mod fork;
mod gc;
mod goals;
mod lookahead;
mod memo_ahead;
pub(crate) mod modules;
mod scopes;

pub use gc::GcStats;
pub use modules::Parsed;

use std::io::Write as _;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::closed::ScopeStart;
use super::context::{Context, ContextLens, Cursor, IndexMark, Item, MoveTake, Source, GONE};
use super::memo::{MemoCall, MemoTable};
use super::store::Store;
use super::trail::Undo;
use crate::builtins::Builtin;
use crate::diagnostics::{Error, RuntimeError};
use crate::logic::clause::{clause_alts, split_assumed, Alt, Assumed, Body, ClauseError};
use crate::logic::keys::{first_sig, keys_of};
use crate::logic::module::{compile_module, find_module, module_name_of, Module};
use crate::logic::template::{Conjunct, Template};
use crate::source::{FileId, Sources};
use crate::syntax;
use crate::term::{sym, Addr, Cell, SymId, Symbols};

/// No frame / no node.
pub const NONE: u32 = u32::MAX;

/// What the cells of a deferred body goal's block hold until it is filled
/// (a cell no term contains: the first cell of a filled block is a functor).
const UNFILLED: Cell = Cell::Bound(u32::MAX);

/// What a step of the machine asks of its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The query has an answer; the machine can be asked for the next one.
    Answer,
    /// The query has no (more) answers.
    Exhausted,
    /// `top` was called: the caller may run nested queries in this state.
    Top,
    /// `pop` was called.
    Pop,
    /// `popall` was called.
    PopAll,
    /// `bye` / `exit` was called.
    Bye,
    /// `abort` was called.
    Abort,
    /// A machine working in a parallel search stopped so that its thread
    /// can take up a part of the search to the left of its own
    /// ([`crate::engine::parallel`]); [`Machine::resume`] goes on.  Never
    /// returned to the caller of a search on one thread.
    Paused,
}

/// The proof rule a proof node records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Backchaining on a clause or using a resource.
    Atom,
    /// A built-in predicate.
    Builtin,
    /// `true`.
    One,
    /// `erase`.
    Erase,
    /// `{G}`.
    Bang,
    /// `G1 , G2`.
    Tensor,
    /// `G1 & G2`.
    With,
    /// `D -o G` (also `M --o G`).
    Lolli,
    /// `D => G`.
    Imp,
    /// `forall x \ G`.
    Forall,
    /// `exists x \ G`.
    Exists,
    /// Left side of `;`.
    OrLeft,
    /// Right side of `;`.
    OrRight,
    /// `G1 -> G2 | G3`.
    Guard,
}

/// One node of the proof log.
#[derive(Copy, Clone, Debug)]
pub struct ProofNode {
    /// The parent node (`NONE` for a root).
    pub parent: u32,
    /// The rule.
    pub rule: Rule,
    /// The goal proved (a heap term; instantiated when read after the answer).
    pub goal: Cell,
    /// Atom: the entry used.  Lolli/Imp: first assumed entry.  Forall/Exists: the witness cell index.
    pub a: u32,
    /// Atom with a template: start of the slot values in `proof_slots`.  Lolli/Imp: end of assumed entries.
    pub b: u32,
}

/// The proof log of the current branch.
#[derive(Clone, Debug, Default)]
pub struct ProofLog {
    /// Nodes in the order they were made (children after parents, siblings left to right).
    pub nodes: Vec<ProofNode>,
    /// Slot values of template clause instances.
    pub slots: Vec<Cell>,
    /// Witness terms (forall/exists).
    pub witnesses: Vec<Cell>,
    /// (erase node, entry) pairs: resources an `erase` swallowed.
    pub erased: Vec<(u32, u32)>,
}

#[derive(Copy, Clone, Debug)]
enum Action {
    Solve {
        goal: Cell,
        parent: u32,
        origin: u32,
    },
    Bang {
        goal: Cell,
        parent: u32,
        origin: u32,
    },
    /// A conjunct of a clause body whose copy is deferred to when it is
    /// reached: heap block `at ..` is filled from template `tpl`'s block at
    /// `tc` (see `push_conjuncts`), then proved like `Solve`.  `plan` is
    /// the template's look-ahead plan for the conjunct before and this one
    /// ([`crate::logic::template::Conjunct::plan`], `NONE` for none);
    /// `begins` whether the conjunct begins a move whose takes are
    /// recorded ([`crate::logic::template::Conjunct::begins`]).
    Deferred {
        at: u32,
        tpl: u32,
        tc: u32,
        plan: u32,
        env: u32,
        parent: u32,
        origin: u32,
        begins: bool,
    },
    /// The end of the scope of entries `first..end` (see
    /// [`Machine::exit_scope`]): `saved` is the slack at its start,
    /// `choices`, `trail` and `buckets` the number of choice points, the
    /// trail's length and the number of index buckets then.
    ExitScope {
        first: u32,
        end: u32,
        saved: u32,
        choices: u32,
        trail: u32,
        buckets: u32,
    },
    /// Between the conjuncts of `G1 & G2`: `aux .. aux+4` holds the slack
    /// saved at the `&`, the trail length, the context length and the
    /// number of choice points then (in `aux`, so that `Action`, and with
    /// it every frame, stays 32 bytes).
    WithMid {
        g2: Cell,
        node: u32,
        origin: u32,
        aux: u32,
    },
    WithEnd {
        c1: u32,
        n: u32,
        v1: u32,
        saved: u32,
        restricted: bool,
        /// Trail length when G2 started, and the context length at the `&`.
        g2_trail: u32,
        ctx_len: u32,
    },
    BangEnd {
        saved: u32,
    },
    /// The commit of a guard `C -> T | E` after C's first proof: drop the
    /// choice points from `choice` on (the first is E's, which also holds
    /// the lengths [`Machine::drop_committed`] needs), then prove `then`.
    GuardCommit {
        choice: u32,
        then: Cell,
        node: u32,
        origin: u32,
    },
    /// The end of `telling F G` (`seeing F G`): `output` (`input`) is the
    /// enclosing stream, `choices` the number of choice points when G
    /// started (if G left none, its file can be closed).
    /// `goal` (from clause entry `origin`) is the `telling` goal, named by
    /// the error if its file cannot be written.
    RestoreOutput {
        output: u32,
        choices: u32,
        goal: Cell,
        origin: u32,
    },
    RestoreInput {
        input: u32,
        choices: u32,
    },
    /// The end of `timing G T`: `start` is when G started, in milliseconds
    /// since the machine's `epoch`, wrapping (a u32 keeps `Action` as
    /// compact as the hot variants need; durations under 49 days come out
    /// right).
    TimingEnd {
        start: u32,
        var: Cell,
    },
    QueryEnd {
        first: u32,
        end: u32,
    },
    SubEnd,
    MemoExit {
        call: u32,
    },
    /// The end of `forall x \ G` when no proof is recorded and
    /// memoization is off: `eigens` and `choices` are the numbers of
    /// eigenvariables and choice points before it (see
    /// [`Machine::quantifier_goal`]).
    ForallEnd {
        eigens: u32,
        choices: u32,
    },
    /// Drop every choice point made since there were `choice` of them
    /// (`once G` after G's first proof); `first`, `trail` and `buckets`
    /// are the context's length, the trail's length and the number of
    /// index buckets when G started (see [`Machine::drop_committed`]).
    Cut {
        choice: u32,
        first: u32,
        trail: u32,
        buckets: u32,
    },
}

#[derive(Copy, Clone, Debug)]
struct Frame {
    action: Action,
    next: u32,
    /// Number of clause uses between the query and this frame's goal.
    depth: u32,
}

// Frames are pushed and popped at every step: an `Action` is kept to 32
// bytes (a tag and seven `u32`s at most, and a flag beside the tag).
const _: () = assert!(std::mem::size_of::<Action>() == 32);

#[derive(Copy, Clone, Debug)]
enum Alternative {
    Clauses {
        goal: Cell,
        cursor: Cursor,
        parent: u32,
        depth: u32,
    },
    /// The other branch of `;`, or the else branch of a guard, to be
    /// proved at clause depth `depth` (the depth where the choice was
    /// made: the failed branch may have gone deeper).
    Goal {
        goal: Cell,
        parent: u32,
        origin: u32,
        rule: Rule,
        depth: u32,
    },
    Barrier,
    /// Alternatives handed to another worker of a parallel search (see
    /// [`fork`]): resuming it fails on.
    Given,
    MemoFail {
        call: u32,
    },
    /// The next answers of `between Low High X` (`goal`): X = `next`, then
    /// the integers after it up to `high`.
    Between {
        goal: Cell,
        x: Cell,
        next: i64,
        high: i64,
        parent: u32,
    },
}

#[derive(Copy, Clone, Debug)]
struct Choice {
    alt: Alternative,
    cont: u32,
    slack: u32,
    trail: u32,
    heap: u32,
    eigens: u32,
    frames: u32,
    ctx: ContextLens,
    aux: u32,
    nodes: u32,
    slots: u32,
    witnesses: u32,
    erased: u32,
    output: u32,
    input: u32,
    memo_calls: u32,
}

/// The I/O the engine needs from its host (the engine itself never touches stdin/stdout).
pub trait Host {
    /// Write text to the standard output.
    fn write(&mut self, text: &str);
    /// Read one line from the standard input (`None` at end of input).
    fn read_line(&mut self) -> Option<String>;
    /// Read one line, or a piece of a long one, from the standard input
    /// (`Ok(None)` at end of input), or the error that kept it from being
    /// read (text that is not UTF-8): `read` reports it.  By default, what
    /// `read_line` gives, which cannot fail.
    fn try_read_line(&mut self) -> std::io::Result<Option<String>> {
        Ok(self.read_line())
    }
    /// [`Host::try_read_line`] for `read`, which may wait for input: a
    /// host that can wait without blocking calls `stop` every so often
    /// meanwhile and, when it returns true (Ctrl-C, `--timeout`), gives up
    /// with an error of kind `Interrupted`.  By default, `try_read_line`.
    fn try_read_line_or_stop(
        &mut self,
        stop: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<Option<String>> {
        let _ = stop;
        self.try_read_line()
    }
    /// Called every few thousand steps of a search: a host that holds
    /// output back may send it on.
    fn tick(&mut self) {}
    /// Whether the output this host writes to can no longer be written (a
    /// reader that went away, a full disk): checked with `tick`, it stops
    /// the search, which would otherwise print into nothing for ever.
    fn output_failed(&mut self) -> bool {
        false
    }
    /// Send on any output held back (before another process writes to
    /// the same standard output).
    fn flush(&mut self) {}
}

/// A host that writes to a string and reads nothing; for tests and embedding.
#[derive(Clone, Debug, Default)]
pub struct BufferHost {
    /// Everything written.
    pub out: String,
    /// Lines to hand to `read`.
    pub input: std::collections::VecDeque<String>,
}

impl Host for BufferHost {
    fn write(&mut self, text: &str) {
        self.out.push_str(text);
    }
    fn read_line(&mut self) -> Option<String> {
        self.input.pop_front()
    }
}

/// A host on the process's stdin and stdout: what a program prints is
/// written out at once (the default of a [`Session`](crate::Session)).
#[derive(Debug, Default)]
pub struct StdHost;

impl Host for StdHost {
    fn write(&mut self, text: &str) {
        let mut out = crate::stdio::Stdout;
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
    fn read_line(&mut self) -> Option<String> {
        read_stdin_line().ok().flatten()
    }
    fn try_read_line(&mut self) -> std::io::Result<Option<String>> {
        read_stdin_line()
    }
    fn try_read_line_or_stop(
        &mut self,
        stop: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<Option<String>> {
        wait_for_terminal(stop)?;
        read_stdin_line()
    }
}

/// The command line's host: as [`StdHost`], but what a program prints goes
/// through the process's output buffer, written in blocks to a file or a
/// pipe (see [`crate::stdio`]).  Whoever uses it flushes the buffer before
/// the process ends ([`crate::stdio::flush`]).
#[derive(Debug, Default)]
pub struct BufferedStdHost;

impl Host for BufferedStdHost {
    fn write(&mut self, text: &str) {
        let _ = crate::stdio::Stdout.write_all(text.as_bytes());
    }
    fn read_line(&mut self) -> Option<String> {
        self.try_read_line().ok().flatten()
    }
    fn try_read_line(&mut self) -> std::io::Result<Option<String>> {
        // A prompt the program wrote must be seen before it waits.
        let _ = crate::stdio::flush();
        read_stdin_line()
    }
    fn try_read_line_or_stop(
        &mut self,
        stop: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<Option<String>> {
        let _ = crate::stdio::flush();
        wait_for_terminal(stop)?;
        read_stdin_line()
    }
    fn tick(&mut self) {
        crate::stdio::flush_if_stale();
    }
    fn output_failed(&mut self) -> bool {
        crate::stdio::failure().is_some()
    }
    fn flush(&mut self) {
        let _ = crate::stdio::flush();
    }
}

/// When standard input is a terminal, wait until it has a line to read,
/// calling `stop` ten times a second meanwhile; an error of kind
/// `Interrupted` when `stop` says to give up.  A read from a terminal
/// otherwise blocks in the kernel, where neither Ctrl-C (the handler only
/// sets a flag, and the read is restarted) nor `--timeout` can end it.
///
/// Only a terminal: in canonical mode each read takes at most one line
/// (of at most 4,096 bytes), which [`effects::read_piece`] consumes whole,
/// so nothing waits in the standard library's buffer while the descriptor
/// is polled.  From a pipe or a file, text may wait there unseen by
/// `poll`, so those are read as before (a pipe that stays silent blocks).
#[cfg(unix)]
fn wait_for_terminal(stop: &mut dyn FnMut() -> bool) -> std::io::Result<()> {
    use nix::poll::{poll, PollFd, PollFlags};
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Ok(());
    }
    loop {
        if stop() {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, 100u16) {
            // Readable, or closed, or in error: the read says which.
            Ok(n) if n > 0 => return Ok(()),
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return Ok(()),
        }
    }
}

#[cfg(not(unix))]
fn wait_for_terminal(_stop: &mut dyn FnMut() -> bool) -> std::io::Result<()> {
    Ok(())
}

/// One line, or a piece of a long one ([`effects::read_piece`]), of the
/// process's standard input (`Ok(None)` at its end).
fn read_stdin_line() -> std::io::Result<Option<String>> {
    effects::read_piece(&mut std::io::stdin().lock())
}

/// Options that change how the machine runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Record proof terms.
    pub proofs: bool,
    /// Allow the `system` built-in.
    pub allow_system: bool,
    /// Directories searched for modules, in order.
    pub search_path: Vec<PathBuf>,
    /// Stop a query that nests deeper than this many goals.
    pub max_depth: Option<u32>,
    /// Stop a query at this instant.
    pub deadline: Option<Instant>,
    /// Stop a query whose stacks grow beyond this many bytes.
    pub max_memory: Option<usize>,
    /// Stop recording a query's proof once its log holds more than this
    /// many steps (for a host that keeps proofs only up to a size: every
    /// step adds at least one term cell to the proof built from the log).
    /// The search goes on without recording, and with its garbage
    /// collected; [`Machine::proof_complete`] says whether it happened.
    pub proof_limit: Option<usize>,
    /// Do not record the look-ahead's decisions by position
    /// (see `engine::machine::decisions`): the answers and the inferences
    /// counted are the same, only slower where positions recur.  For
    /// comparing runs.
    pub no_lookahead_record: bool,
}

/// A loaded module: the compiled module and the ids of its templates.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The module.
    pub module: Rc<Module>,
    /// Template id of each clause.
    pub tpl_ids: Vec<u32>,
}

/// The interpreter state: program, context and search.
pub struct Machine {
    /// Names and strings.
    pub symbols: Symbols,
    /// Source texts (files and typed goals).
    pub sources: Sources,
    /// Name of each binder, by binder id.
    pub binder_names: Vec<SymId>,
    /// By binder id, once known: whether a `forall` with that binder uses
    /// its name as a predicate ([`Machine::names_predicate`]).
    predicate_binders: Vec<Option<bool>>,
    /// All clause templates, by id.  Those from `templates_kept` on were
    /// made for one assumption each (a quantified clause, a module's
    /// `LOCAL` names): only their entries name them, and they go when
    /// the entries do (see `Machine::drop_templates`).
    pub templates: Vec<Rc<Template>>,
    /// The templates below this stay for the session: a loaded module's
    /// (named by the module cache, or by the program).
    templates_kept: u32,
    /// For the templates made for single assumptions, oldest first: the
    /// first entry that names them and the first of them.
    own_templates: Vec<(u32, u32)>,
    /// Compiled modules by file path.
    pub modules: Vec<(PathBuf, Loaded)>,
    /// Options.
    pub options: Options,
    /// Heap and trail.
    pub store: Store,
    /// The context.
    pub ctx: Context,
    /// The proof log of the current branch.
    pub proof: ProofLog,
    /// Set from another thread (Ctrl-C) to stop the running query.
    pub interrupt: Arc<AtomicBool>,
    /// Calls made (atoms and built-ins), for statistics.
    pub inferences: u64,
    /// Of those, the takes of moves made from a known fact
    /// (`Machine::fast_take`), for tests and profiles.
    pub known_takes: u64,
    /// Predicates written in Rust by an embedder.
    pub foreign: super::foreign::Foreign,
    pub(crate) host: Box<dyn Host>,
    frames: Vec<Frame>,
    choices: Vec<Choice>,
    /// The frame count the newest choice point saved (0 without one): no
    /// frame below it is reclaimed (kept with `store.hb` by `push_choice`
    /// and `update_hb`).
    frames_floor: u32,
    cont: u32,
    slack: u32,
    aux: Vec<u32>,
    slots: Vec<Option<Cell>>,
    /// Work space of `push_conjuncts_proved`: the conjuncts' goals and
    /// their proof nodes' parents.
    conjunct_goals: Vec<Cell>,
    conjunct_parents: Vec<u32>,
    /// A reusable work stack: index keys of calls, memo calls with module
    /// parameters.
    pub(crate) scratch: Vec<Cell>,
    /// The look-ahead's key steps (reused, see [`lookahead`]).
    ahead: lookahead::KeySteps,
    /// What the look-ahead's compiled plans give for each candidate fact
    /// (see [`lookahead::CandidateKeys`]).
    pub(crate) candidate_keys: lookahead::CandidateKeys,
    /// The candidates of the first conjunct of the clause being entered,
    /// decided when the clause was chosen (see [`lookahead`]).
    first_ahead: lookahead::FirstAhead,
    /// The heap address of the first conjunct of the clause being
    /// entered when it begins a move (see [`Machine::move_assumed`]), or
    /// `NONE` (as `first_ahead` names its first conjunct).
    move_first: u32,
    /// The deferred conjunct solved last (its block's address, template
    /// and template cell), so that a move's assumption can tell it is one
    /// (see [`Machine::move_assumed`]).
    deferred: (u32, u32, u32),
    /// Work space of the memo look-ahead (see [`memo_ahead`]).
    moves_ahead: memo_ahead::MoveScratch,
    /// Look-ahead decisions recorded by position (see [`decisions`]).
    pub(crate) decisions: decisions::Decisions,
    /// Work space for [`decisions`].
    scratch_ids: Vec<u32>,
    outputs: Vec<effects::OutFile>,
    output: u32,
    /// A `telling` file that could not be flushed while backtracking left
    /// its goal (no goal to name is at hand there): the error the query
    /// stops with at its next check (`check_limits`, or when it returns).
    output_error: Option<RuntimeError>,
    inputs: Vec<Box<dyn std::io::BufRead>>,
    input: u32,
    /// Per input (0 the host's, i the `inputs[i - 1]`), the text read from
    /// it that `read` has not consumed yet (see `effects::Unread`).
    unread: Vec<effects::Unread>,
    /// When the machine was made (`timing` measures from it).
    epoch: Instant,
    /// The named variables of each query being run, innermost last (error
    /// messages and traces show a query's variables by their names).
    pub(crate) query_names: Vec<Vec<(String, Cell)>>,
    /// Beside `query_names`, each query's goal (see [`Machine::unmatched_call`]).
    query_goals: Vec<Cell>,
    /// Beside `query_names`, for each query being run: the length of the
    /// proof log when it started, and whether its log is complete (proofs
    /// were recorded from its start and never stopped by `proof_limit`).
    query_proofs: Vec<(u32, bool)>,
    /// Sub-searches (`findall`, `count`, ...) running: their steps are
    /// undone when they end, so `proof_limit` does not count them.
    sub_searches: u32,
    /// The index's size when the outermost query started (taken when it ends).
    index_mark: Option<IndexMark>,
    /// Reused by `unify_template`: a frame (template functor, heap
    /// functor, next argument, arity) for each outer pair of compounds
    /// with arguments left.
    unify_frames: Vec<(u32, u32, u32, u32)>,
    /// Reused by `assume`: the clauses of an assumed formula, its work
    /// stack, and the alternatives of one clause.
    assume_parts: Vec<Assumed>,
    assume_stack: Vec<(Cell, bool)>,
    assume_alts: Vec<Alt>,
    pub(crate) pending: Option<Event>,
    /// Depth (clause uses from the query) of the goal being run.
    depth: u32,
    /// Failure memoization table (see [`super::memo`]).
    pub memo: MemoTable,
    /// Predicates declared `MEMO`, by symbol id.
    memo_preds: Vec<bool>,
    /// Whether some predicate is memoized (`memo_preds` has a `true`),
    /// as [`Machine::sync_memo`] last found.
    pub(crate) memoizing: bool,
    /// Memoized calls in progress.
    memo_calls: Vec<MemoCall>,
    /// Receives a step-by-step trace, when installed.
    pub tracer: Option<Box<dyn crate::engine::trace::Tracer>>,
    /// With a tracer: the newest choice point is a call's, whose last
    /// candidate's head did not match, so the call has not succeeded since
    /// it was made or last resumed.  Backtracking to it goes on to the next
    /// candidate of the same attempt, and is not traced as a `redo` (a
    /// re-entry of a call that succeeded).  Set and read only when tracing.
    quiet_redo: bool,
    /// Proofs rejected for leaving a linear resource unused (see
    /// [`Machine::left_unused`]), with the first such resource, printed.
    left_unused: (u64, Option<String>),
    /// The numbers the trace gave the query's unbound variables (see
    /// [`crate::engine::trace::TraceVars`]; empty when not tracing).  In a
    /// cell because printers read the machine shared, and number as they
    /// print.
    pub(crate) trace_vars: std::cell::RefCell<crate::engine::trace::TraceVars>,
    /// Built-ins by symbol id and arity 0..=3 (all built-in names are interned
    /// when the machine is made, so user symbols fall outside the table).
    builtin_table: Vec<[Option<Builtin>; 4]>,
    /// Steps run, modulo 2^32: limits (interrupt, time, memory) are checked
    /// every 4,096 (see `tick_mask`).
    ticks: u32,
    /// `ticks` bits that must be zero for the periodic checks (every
    /// 4,096 steps; every 1,024 in a parallel search; every 64 under
    /// `LOLLI_GC_STRESS`).
    tick_mask: u32,
    /// Heap length at which the next collection is due (see [`gc`]).
    gc_next: usize,
    /// Collect at every check (`LOLLI_GC_STRESS`).
    gc_stress: bool,
    /// How many times what survived the last collection the heap may grow
    /// before the next (see [`gc`]).
    gc_factor: usize,
    /// The heap's length after the last collection: cells below it
    /// survived one, and a minor collection leaves them in place (0: none,
    /// or backtracking has since cut the heap below it).
    gc_old: u32,
    /// Cells that survived the last full collection (above its base).
    gc_full_live: usize,
    gc: gc::GcStats,
    /// The parallel search this machine works in, if any (see [`fork`]).
    pub(crate) pool: Option<fork::PoolLink>,
}

type Step = Result<bool, RuntimeError>;

impl Machine {
    /// A machine with an empty program.
    pub fn new(options: Options, host: Box<dyn Host>) -> Self {
        let mut symbols = Symbols::new();
        let mut builtin_table: Vec<[Option<Builtin>; 4]> = Vec::new();
        for &(name, arity) in Builtin::ALL {
            let id = symbols.intern(name).0 as usize;
            if builtin_table.len() <= id {
                builtin_table.resize(id + 1, [None; 4]);
            }
            builtin_table[id][arity as usize] = Builtin::lookup(name, arity);
        }
        let gc_stress = std::env::var_os("LOLLI_GC_STRESS").is_some();
        Machine {
            ticks: 0,
            tick_mask: if gc_stress { 0x3f } else { 0xfff },
            gc_next: if gc_stress { 0 } else { gc::GC_MIN_CELLS },
            gc_stress,
            gc_factor: 1,
            gc_old: 0,
            gc_full_live: 0,
            gc: gc::GcStats::default(),
            builtin_table,
            symbols,
            sources: Sources::new(),
            binder_names: Vec::new(),
            predicate_binders: Vec::new(),
            templates: Vec::new(),
            templates_kept: 0,
            own_templates: Vec::new(),
            modules: Vec::new(),
            options,
            store: Store::new(),
            ctx: Context::new(),
            proof: ProofLog::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            inferences: 0,
            known_takes: 0,
            foreign: Default::default(),
            host,
            frames: Vec::new(),
            choices: Vec::new(),
            frames_floor: 0,
            cont: NONE,
            slack: 0,
            aux: Vec::new(),
            slots: Vec::new(),
            conjunct_goals: Vec::new(),
            conjunct_parents: Vec::new(),
            scratch: Vec::new(),
            ahead: Default::default(),
            candidate_keys: Default::default(),
            first_ahead: Default::default(),
            move_first: NONE,
            deferred: (NONE, NONE, NONE),
            moves_ahead: Default::default(),
            decisions: Default::default(),
            scratch_ids: Vec::new(),
            outputs: Vec::new(),
            output_error: None,
            output: 0,
            inputs: Vec::new(),
            input: 0,
            unread: Vec::new(),
            epoch: Instant::now(),
            query_names: Vec::new(),
            query_goals: Vec::new(),
            query_proofs: Vec::new(),
            sub_searches: 0,
            index_mark: None,
            unify_frames: Vec::new(),
            assume_parts: Vec::new(),
            assume_stack: Vec::new(),
            assume_alts: Vec::new(),
            pending: None,
            depth: 0,
            memo: MemoTable::default(),
            memo_preds: Vec::new(),
            memoizing: false,
            memo_calls: Vec::new(),
            tracer: None,
            quiet_redo: false,
            left_unused: (0, None),
            trace_vars: Default::default(),
            pool: None,
        }
    }

    // ----------------------------------------------------------------
    // Queries

    /// How many proofs the last query rejected for leaving a linear
    /// resource unused, and the first such resource, printed (a query
    /// with no answer tells why).  Counted: the end of the query (a
    /// resource of its context left) and the end of every `-o` (a
    /// resource it assumed left), except in the goals that `findall`,
    /// `count` and `not` run, whose failures are theirs.
    pub fn left_unused(&self) -> (u64, Option<&str>) {
        (self.left_unused.0, self.left_unused.1.as_deref())
    }

    /// Start a query for `goal` (a heap term) in the current state.  Linear
    /// entries usable now must all be consumed by each answer (unless erased).
    /// `names` are the query's named variables (name, heap variable): error
    /// messages and traces show those variables by these names.
    pub fn start_query(&mut self, goal: Cell, names: Vec<(String, Cell)>) {
        if self.ctx.memo.on && self.choices.is_empty() {
            let len = self.ctx.entries.len() as u32;
            if self.ctx.memo.base != len {
                // The program changed: keys made against the old one are void.
                self.ctx.memo.base = len;
                self.ctx.memo.unb_hash = 0;
                self.ctx.memo.unb_nonground = 0;
                self.ctx.rebuild_memo_ids();
                self.reset_memo_keys();
            }
        }
        if self.choices.is_empty() {
            self.index_mark = Some(self.ctx.index_mark());
            self.start_decisions();
        }
        let end = self.ctx.entries.len() as u32;
        // A query's goal is at clause depth 0, whatever depth the last
        // query (stopped by an error, say) was left at.
        self.depth = 0;
        // No take of a call that begins a move is named by a new query's
        // calls, whatever an earlier one (stopped by an error, say) left.
        self.ctx.move_take = MoveTake::NONE;
        self.quiet_redo = false;
        self.left_unused = (0, None);
        self.trace_vars.get_mut().clear();
        self.begin(goal, Action::QueryEnd { first: 0, end }, self.cont);
        self.query_names.push(names);
        self.query_goals.push(goal);
        self.query_proofs
            .push((self.proof.nodes.len() as u32, self.options.proofs));
    }

    /// Whether the innermost query's proof log is complete: proofs were
    /// recorded from its start and never stopped by
    /// [`Options::proof_limit`], so the current answer's proof can be built.
    pub fn proof_complete(&self) -> bool {
        self.options.proofs && self.query_proofs.last().is_some_and(|q| q.1)
    }

    /// Stop recording proofs when the innermost query's log has outgrown
    /// [`Options::proof_limit`] (checked with the other limits).  Every
    /// query being run loses steps from now on, so none of their logs is
    /// complete any more.  The log stays as it is (frames and choice
    /// points name its nodes) and is truncated by backtracking as usual.
    fn check_proof_limit(&mut self) {
        let (Some(limit), Some(&(base, _))) = (self.options.proof_limit, self.query_proofs.last())
        else {
            return;
        };
        if self.options.proofs
            && self.sub_searches == 0
            && self.proof.nodes.len().saturating_sub(base as usize) > limit
        {
            self.options.proofs = false;
            for q in &mut self.query_proofs {
                q.1 = false;
            }
        }
    }

    /// Start a search for `goal` on top of the current state: a barrier
    /// choice point under it, and `finish` (then `next`) after it.
    fn begin(&mut self, goal: Cell, finish: Action, next: u32) {
        self.push_choice(Alternative::Barrier);
        let end = self.push_frame(finish, next);
        self.slack = 0;
        self.cont = self.push_frame(
            Action::Solve {
                goal,
                parent: NONE,
                origin: NONE,
            },
            end,
        );
    }

    pub(crate) fn memo_preds_mut(&mut self) -> &mut Vec<bool> {
        &mut self.memo_preds
    }

    /// Whether some predicate is memoized.
    pub(crate) fn any_memoized(&self) -> bool {
        self.memo_preds.iter().any(|&m| m)
    }

    pub(crate) fn memo_preds_len(&self) -> usize {
        self.memo_preds.len()
    }

    /// Whether predicates named `name` are memoized.
    pub fn is_memoized(&self, name: SymId) -> bool {
        self.memo_preds.get(name.0 as usize) == Some(&true)
    }

    pub(crate) fn memo_calls_len(&self) -> u32 {
        self.memo_calls.len() as u32
    }

    pub(crate) fn memo_call(&self, call: u32) -> Option<MemoCall> {
        self.memo_calls.get(call as usize).copied()
    }

    pub(crate) fn push_memo_call(&mut self, c: MemoCall) {
        self.memo_calls.push(c);
    }

    /// Push the choice point that detects a memoized call's failure, and the
    /// frame that detects its success (after the call's body).
    pub(crate) fn push_memo_fail(&mut self, call: u32) {
        self.push_choice(Alternative::MemoFail { call });
        self.cont = self.push_frame(Action::MemoExit { call }, self.cont);
    }

    /// Run `goal` to exhaustion inside the current proof (for built-ins such
    /// as `findall`): the goal sees the current context, and whatever it
    /// binds or consumes is undone afterwards.  `on_answer` is called at
    /// each answer (the goal's bindings are visible then) and returns whether
    /// to look for more.  The machine's state is unchanged on return.
    pub fn sub_search(
        &mut self,
        goal: Cell,
        on_answer: &mut dyn FnMut(&mut Machine) -> bool,
    ) -> Result<(), RuntimeError> {
        let (cont, slack) = (self.cont, self.slack);
        self.begin(goal, Action::SubEnd, NONE);
        self.sub_searches += 1;
        let barrier = self.choices.len();
        let mut result = Ok(());
        loop {
            // A goal can nest sub-searches as deep as memory allows (`not`
            // inside the recursion that `not` runs): each level takes a
            // few kilobytes of the native stack, and a new segment is put
            // under it when little is left.
            let ev = stacker::maybe_grow(NATIVE_RED_ZONE, NATIVE_SEGMENT, || self.run_inner());
            match ev {
                Ok(Event::Answer) => {
                    if !on_answer(self) {
                        break;
                    }
                    match self.backtrack() {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                Ok(Event::Exhausted) => break,
                Ok(_) => {
                    result = Err(RuntimeError::new(
                        "top-level commands cannot run inside an aggregate such as findall",
                    ));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        // Drop every choice above the barrier, then the barrier itself.
        self.choices.truncate(barrier);
        if !self.choices.is_empty() {
            self.restore_top();
            self.choices.pop();
        }
        self.update_hb();
        self.sub_searches -= 1;
        self.cont = cont;
        self.slack = slack;
        self.pending = None;
        result
    }

    /// Whether the innermost query, stopped at an answer, may have more:
    /// false when no choice point is left above its barrier but those of
    /// memoized calls, which only record a failure (then
    /// [`Self::next_answer`] could only say [`Event::Exhausted`]).
    pub fn may_have_more(&self) -> bool {
        self.choices
            .iter()
            .rev()
            .take_while(|c| !matches!(c.alt, Alternative::Barrier))
            .any(|c| !matches!(c.alt, Alternative::MemoFail { .. }))
    }

    /// Abandon the innermost query: undo everything it did.
    pub fn end_query(&mut self) {
        while let Some(ch) = self.choices.last() {
            if matches!(ch.alt, Alternative::Barrier) {
                self.restore_top();
                self.choices.pop();
                break;
            }
            self.choices.pop();
        }
        self.query_names.pop();
        self.query_goals.pop();
        self.query_proofs.pop();
        self.update_hb();
        // Abandoning the query flushed its files again; nothing is left to
        // report them to.
        self.output_error = None;
        if self.choices.is_empty() {
            // The outermost query is over: what it added to the index is
            // referred to by nothing, nor are the files it opened.
            if let Some(mark) = self.index_mark.take() {
                self.ctx.forget_index_since(mark);
            }
            self.close_files();
        }
        self.sync_memo();
    }

    /// Run until the next answer or the end of the innermost query.
    pub fn run(&mut self) -> Result<Event, RuntimeError> {
        // Candidates decided before an interruption mean nothing now.  (A
        // call that begins a move is named by its address, and so is its
        // take: one left from before names no call of another clause
        // instance, see `Machine::move_assumed`.)
        self.first_ahead = Default::default();
        self.run_on()
    }

    /// Go on after [`Event::Paused`], where the search stopped.
    pub fn resume(&mut self) -> Result<Event, RuntimeError> {
        self.run_on()
    }

    /// [`Machine::run`] right after backtracking, which may have decided
    /// the candidates of the first conjunct of the clause it entered.
    fn run_on(&mut self) -> Result<Event, RuntimeError> {
        let mut r = self.run_loop();
        if let (Ok(_), Some(e)) = (&r, self.output_error.take()) {
            r = Err(e);
        }
        if r.is_err() {
            // Leave the state as it was at the start of the query.
            self.unwind_to_barrier();
            // Unwinding flushes files again: their errors are this one's.
            self.output_error = None;
        }
        r
    }

    /// Ask for the next answer after one was returned.
    pub fn next_answer(&mut self) -> Result<Event, RuntimeError> {
        if !self.backtrack()? {
            return Ok(Event::Exhausted);
        }
        self.run_on()
    }

    fn unwind_to_barrier(&mut self) {
        while let Some(ch) = self.choices.last() {
            if matches!(ch.alt, Alternative::Barrier) {
                self.restore_top();
                self.cont = NONE;
                break;
            }
            self.choices.pop();
        }
        self.update_hb();
    }

    /// [`Machine::run`] for a sub-search (see [`Machine::sub_search`]).
    fn run_inner(&mut self) -> Result<Event, RuntimeError> {
        self.first_ahead = Default::default();
        self.run_loop()
    }

    fn run_loop(&mut self) -> Result<Event, RuntimeError> {
        loop {
            // Counted across calls: a search that returns often (an answer
            // every few steps, as in `count (between 1 1000000000 X) N`)
            // still meets the checks.
            self.ticks = self.ticks.wrapping_add(1);
            if self.ticks & self.tick_mask == 0 {
                self.check_limits()?;
                // (Not inside `findall`, `count` or `not`: their search runs
                // on the native stack, and pauses only at its own end.)
                if self.pool.is_some() && self.sub_searches == 0 && self.pool_tick() {
                    return Ok(Event::Paused);
                }
            }
            if self.cont == NONE {
                // Only reachable if a query was not started.
                return Ok(Event::Exhausted);
            }
            let at = self.cont;
            let frame = self.frames[at as usize];
            self.cont = frame.next;
            // A frame's `next` is older than it (frames never change once
            // pushed), so the continuation left reaches only frames below
            // `next + 1`; a choice point's continuation, only frames below
            // the count it saved.  Every frame above both is garbage: the
            // one just taken, and those a cut (`once`, a guard's commit)
            // left behind when it removed the choice points that kept them.
            // (Saved counts never decrease from older to newer choice
            // points, since no frame below the newest one's count is ever
            // reclaimed.)  Deterministic loops thus run in constant frame
            // space, with cuts or without.
            let live = self.cont.wrapping_add(1).max(self.frames_floor);
            if (live as usize) < self.frames.len() {
                self.frames.truncate(live as usize);
            }
            self.depth = frame.depth;
            let ok = match frame.action {
                Action::Solve {
                    goal,
                    parent,
                    origin,
                } => self.solve(goal, parent, origin),
                Action::Bang {
                    goal,
                    parent,
                    origin,
                } => self.bang(goal, parent, origin),
                Action::Deferred {
                    at,
                    tpl,
                    tc,
                    env,
                    parent,
                    origin,
                    begins,
                    ..
                } => {
                    if let Some(ok) = self.fast_take(at, tpl, tc, env, parent) {
                        Ok(ok)
                    } else {
                        if begins {
                            // A conjunct after the first that begins a move:
                            // its takes are recorded.
                            self.move_first = at;
                        }
                        self.fill_deferred(at, tpl, tc, env);
                        self.deferred = (at, tpl, tc);
                        let step = self.solve(Cell::Struct(Addr(at)), parent, origin);
                        self.deferred = (NONE, NONE, NONE);
                        step
                    }
                }
                Action::ExitScope {
                    first,
                    end,
                    saved,
                    choices,
                    trail,
                    buckets,
                } => {
                    let start = ScopeStart {
                        choices,
                        trail,
                        buckets,
                    };
                    Ok(self.exit_scope(first, end, saved, start))
                }
                Action::WithMid {
                    g2,
                    node,
                    origin,
                    aux,
                } => {
                    let at = aux as usize;
                    let (saved, trail, ctx_len) =
                        (self.aux[at], self.aux[at + 1], self.aux[at + 2]);
                    Ok(self.with_mid(g2, node, origin, aux, saved, trail, ctx_len))
                }
                Action::WithEnd {
                    c1,
                    n,
                    v1,
                    saved,
                    restricted,
                    g2_trail,
                    ctx_len,
                } => Ok(self.with_end(c1, n, v1, saved, restricted, g2_trail, ctx_len)),
                Action::BangEnd { saved } => {
                    self.ctx.unrestrict(&mut self.store.trail);
                    self.slack = saved;
                    Ok(true)
                }
                Action::GuardCommit {
                    choice,
                    then,
                    node,
                    origin,
                } => {
                    self.commit(choice, None);
                    self.push_solve(then, node, origin);
                    Ok(true)
                }
                Action::RestoreOutput {
                    output,
                    choices,
                    goal,
                    origin,
                } => match self.end_telling(output, choices) {
                    Ok(()) => Ok(true),
                    Err(m) => Err(self.error_at(m, goal, origin)),
                },
                Action::RestoreInput { input, choices } => {
                    self.end_seeing(input, choices);
                    Ok(true)
                }
                Action::TimingEnd { start, var } => {
                    let now = self.epoch.elapsed().as_millis() as u32;
                    let ms = now.wrapping_sub(start) as i64;
                    Ok(self.store.unify(var, Cell::Int(ms)))
                }
                Action::SubEnd => return Ok(Event::Answer),
                Action::Cut {
                    choice,
                    first,
                    trail,
                    buckets,
                } => {
                    let start = ScopeStart {
                        choices: choice,
                        trail,
                        buckets,
                    };
                    self.commit(choice, Some((first, start)));
                    Ok(true)
                }
                Action::ForallEnd { eigens, choices } => {
                    if self.choices.len() as u32 <= choices {
                        self.store.heap.drop_eigens(eigens as usize);
                    } else {
                        self.store.end_eigen(eigens as usize, choices);
                    }
                    Ok(true)
                }
                Action::MemoExit { call } => {
                    if let Some(c) = self.memo_calls.get_mut(call as usize) {
                        c.proved = true;
                    }
                    Ok(true)
                }
                Action::QueryEnd { first, end } => {
                    if self.query_end(first, end) {
                        return Ok(Event::Answer);
                    }
                    Ok(false)
                }
            };
            match ok {
                Ok(true) => {
                    if let Some(ev) = self.pending.take() {
                        return Ok(ev);
                    }
                }
                Ok(false) => {
                    if !self.backtrack()? {
                        return Ok(Event::Exhausted);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn check_limits(&mut self) -> Result<(), RuntimeError> {
        self.host.tick();
        if self.host.output_failed() {
            return Err(output_failed_error());
        }
        if let Some(e) = self.output_error.take() {
            return Err(e);
        }
        self.check_proof_limit();
        self.maybe_collect();
        if self.interrupt.swap(false, Ordering::Relaxed) {
            return Err(RuntimeError::new("interrupted"));
        }
        if let Some(limit) = self.options.max_memory {
            if self.memory_used() > limit {
                return Err(memory_limit_error(limit));
            }
        }
        if let Some(d) = self.options.deadline {
            if Instant::now() >= d {
                return Err(time_limit_error());
            }
        }
        Ok(())
    }

    /// The periodic checks of a search whose machine waits for other
    /// threads' work (see [`crate::engine::parallel`]): the host may send
    /// on what it holds back, and the error that stops the search now, if
    /// one does: output that cannot be written, Ctrl-C (the interrupt
    /// flag) or `--timeout`.
    pub(crate) fn check_waiting(&mut self) -> Option<RuntimeError> {
        self.host.tick();
        if self.host.output_failed() {
            return Some(output_failed_error());
        }
        if self.interrupt.swap(false, Ordering::Relaxed) {
            return Some(RuntimeError::new("interrupted"));
        }
        match self.options.deadline {
            Some(d) if Instant::now() >= d => Some(time_limit_error()),
            _ => None,
        }
    }

    /// Bytes the search's stacks and arenas hold now (an estimate from
    /// their lengths: room left over from an earlier, larger query is not
    /// counted, so a query stopped by the limit does not stop the next).
    pub fn memory_used(&self) -> usize {
        use std::mem::size_of;
        self.store.heap.cells.len() * size_of::<Cell>()
            + self.store.trail.entries.len() * size_of::<Undo>()
            + self.frames.len() * size_of::<Frame>()
            + self.choices.len() * size_of::<Choice>()
            + self.ctx.memory_used()
            + self.proof.nodes.len() * size_of::<ProofNode>()
            + self.sub_searches as usize * NATIVE_PER_LEVEL
    }

    /// The heap mark of the oldest choice point: the start of the
    /// outermost query (its barrier), if a query runs.
    pub(crate) fn choices_bottom_heap(&self) -> Option<u32> {
        self.choices.first().map(|c| c.heap)
    }

    /// Whether the machine is inside a query that was stopped at `top`
    /// (nested queries run on top of it).
    pub fn depth(&self) -> usize {
        self.choices
            .iter()
            .filter(|c| matches!(c.alt, Alternative::Barrier))
            .count()
    }

    // ----------------------------------------------------------------
    // Frames, choices, backtracking

    #[inline]
    fn push_frame(&mut self, action: Action, next: u32) -> u32 {
        self.frames.push(Frame {
            action,
            next,
            depth: self.depth,
        });
        self.frames.len() as u32 - 1
    }

    #[inline]
    fn push_solve(&mut self, goal: Cell, parent: u32, origin: u32) {
        self.cont = self.push_frame(
            Action::Solve {
                goal,
                parent,
                origin,
            },
            self.cont,
        );
    }

    fn push_choice(&mut self, alt: Alternative) {
        let ch = Choice {
            alt,
            cont: self.cont,
            slack: self.slack,
            trail: self.store.trail.mark() as u32,
            heap: self.store.heap.len() as u32,
            eigens: self.store.heap.eigens.len() as u32,
            frames: self.frames.len() as u32,
            ctx: self.ctx.lens(),
            aux: self.aux.len() as u32,
            nodes: self.proof.nodes.len() as u32,
            slots: self.proof.slots.len() as u32,
            witnesses: self.proof.witnesses.len() as u32,
            erased: self.proof.erased.len() as u32,
            output: self.output,
            input: self.input,
            memo_calls: self.memo_calls.len() as u32,
        };
        self.choices.push(ch);
        self.store.hb = ch.heap;
        self.frames_floor = ch.frames;
    }

    /// After choice points were removed: the heap mark and the frame count
    /// of the newest one left become the registers' values.
    #[inline]
    fn update_hb(&mut self) {
        let (heap, frames) = self.choices.last().map_or((0, 0), |c| (c.heap, c.frames));
        self.store.hb = heap;
        self.frames_floor = frames;
    }

    /// A commit (`once G` after G's first proof, a guard after its
    /// condition's): drop the choice points from `choice` on, then the
    /// scopes closed since the committed goal started, which nothing can
    /// reopen now ([`Machine::drop_committed`]).  `started` is the
    /// context's first entry and the lengths when the goal started; for a
    /// guard (`None`) the choice point of its else branch, the first one
    /// dropped, was pushed then and saved them.
    #[inline(never)]
    fn commit(&mut self, choice: u32, started: Option<(u32, ScopeStart)>) {
        let started = started.or_else(|| {
            let ch = self.choices.get(choice as usize)?;
            let start = ScopeStart {
                choices: choice,
                trail: ch.trail,
                buckets: ch.ctx.buckets(),
            };
            Some((ch.ctx.entries(), start))
        });
        self.choices.truncate(choice as usize);
        self.update_hb();
        self.store.heap.drop_ended_eigens(choice);
        if let Some((first, start)) = started {
            self.drop_committed(first, start);
        }
    }

    /// Restore the state the newest choice point saved (which stays).
    fn restore_top(&mut self) {
        // Borrowing the fields apart reads the choice in place (no copy).
        let Machine {
            choices,
            store,
            ctx,
            frames,
            aux,
            proof,
            cont,
            slack,
            output,
            outputs,
            output_error,
            input,
            memo_calls,
            gc_old,
            trace_vars,
            ..
        } = self;
        let Some(ch) = choices.last() else {
            return;
        };
        store.undo_to(ch.trail as usize, |u: Undo| ctx.undo(u));
        store.heap.truncate(ch.heap as usize, ch.eigens as usize);
        trace_vars.get_mut().forget_from(ch.heap);
        if ch.heap < *gc_old {
            // The cells that survived a collection are gone: the next one
            // is a full one.
            *gc_old = 0;
        }
        frames.truncate(ch.frames as usize);
        ctx.truncate(&ch.ctx);
        aux.truncate(ch.aux as usize);
        // The other proof arenas only grow with a node, so with no node
        // (proofs off) there is nothing to truncate.
        if !proof.nodes.is_empty() {
            proof.nodes.truncate(ch.nodes as usize);
            proof.slots.truncate(ch.slots as usize);
            proof.witnesses.truncate(ch.witnesses as usize);
            proof.erased.truncate(ch.erased as usize);
        }
        *cont = ch.cont;
        *slack = ch.slack;
        if ch.output < *output {
            effects::flush_telling_files(outputs, ch.output, output_error);
        }
        *output = ch.output;
        *input = ch.input;
        memo_calls.truncate(ch.memo_calls as usize);
        self.drop_templates();
    }

    /// Forget the templates made for single assumptions whose entries are
    /// gone (backtracking, or a dropped scope).
    #[inline]
    pub(super) fn drop_templates(&mut self) {
        let len = self.ctx.entries.len() as u32;
        if self.own_templates.last().is_some_and(|&(e, _)| e >= len) {
            self.drop_templates_of_gone_entries();
        }
    }

    /// [`Machine::drop_templates`] when there are some.  Not while
    /// memoization is on: keys name an assumed quantified clause by its
    /// template's id, and an id given again would name another clause.
    /// The look-ahead's recorded decisions, which name clauses the same
    /// way, are forgotten instead.
    #[cold]
    #[inline(never)]
    fn drop_templates_of_gone_entries(&mut self) {
        if self.memo_on() {
            return;
        }
        let len = self.ctx.entries.len() as u32;
        let mut from = None;
        while let Some(&(e, t)) = self.own_templates.last() {
            if e < len {
                break;
            }
            from = Some(t);
            self.own_templates.pop();
        }
        if let Some(t) = from {
            let keep = t.max(self.templates_kept) as usize;
            if self.templates.len() > keep {
                self.templates.truncate(keep);
                self.decisions.forget();
                self.memo.forget_moves();
                self.candidate_keys.forget();
            }
        }
    }

    /// Templates from `tpl` on were made for entries from `e` on (a
    /// quantified clause assumed, a module with `LOCAL` names loaded):
    /// they go with those entries.
    pub(super) fn own_templates_from(&mut self, e: u32, tpl: u32) {
        self.own_templates.push((e, tpl));
    }

    /// Mark every template made so far as kept for the session (a module
    /// was compiled: the module cache or the program names them).
    pub(super) fn keep_templates(&mut self) {
        self.templates_kept = self.templates.len() as u32;
    }

    /// Resume the newest alternative; false when the innermost query is exhausted.
    fn backtrack(&mut self) -> Result<bool, RuntimeError> {
        loop {
            let Some(alt) = self.choices.last().map(|ch| ch.alt) else {
                return Ok(false);
            };
            self.restore_top();
            match alt {
                Alternative::Barrier => {
                    self.cont = NONE;
                    return Ok(false);
                }
                Alternative::Given => {
                    self.choices.pop();
                    self.update_hb();
                }
                Alternative::MemoFail { call } => {
                    self.choices.pop();
                    self.update_hb();
                    self.memo_failed(call);
                }
                Alternative::Clauses {
                    goal,
                    cursor,
                    parent,
                    depth,
                } => {
                    // The choice stays for the candidates after this one
                    // (the state it saved is the state just restored).
                    self.depth = depth;
                    if self.tracer.is_some() && !std::mem::take(&mut self.quiet_redo) {
                        self.trace(crate::engine::trace::TraceKind::Redo, goal, String::new());
                    }
                    if self.retry(goal, cursor, parent)? {
                        return Ok(true);
                    }
                }
                Alternative::Between {
                    goal,
                    x,
                    next,
                    high,
                    parent,
                } => {
                    if self.retry_between(goal, x, next, high, parent) {
                        return Ok(true);
                    }
                }
                Alternative::Goal {
                    goal,
                    parent,
                    origin,
                    rule,
                    depth,
                } => {
                    self.choices.pop();
                    self.depth = depth;
                    self.update_hb();
                    if rule == Rule::OrRight {
                        let n = self.node(parent, Rule::OrRight, goal, 0, 0);
                        let g = self.arg_of(goal, 1);
                        self.push_solve(g, n, origin);
                    } else {
                        self.push_solve(goal, parent, origin);
                    }
                    return Ok(true);
                }
            }
        }
    }

    /// The newest choice point, whose state was just restored, is being
    /// resumed: while it has alternatives left (`more`) it stays, advanced
    /// in place by `advance`; otherwise it is popped.
    #[inline]
    fn resume_newest(&mut self, more: bool, advance: impl FnOnce(&mut Alternative)) {
        if more {
            if let Some(ch) = self.choices.last_mut() {
                advance(&mut ch.alt);
            }
        } else {
            self.choices.pop();
            self.update_hb();
        }
    }

    /// Resume `between` (the newest choice point, whose state was just
    /// restored): bind `x` to `next`; the choice stays while integers
    /// remain after it.  Kept out of line: the search's hot loop is
    /// `backtrack`, and this case is rare in it.
    #[inline(never)]
    fn retry_between(&mut self, goal: Cell, x: Cell, next: i64, high: i64, parent: u32) -> bool {
        self.resume_newest(next < high, |alt| {
            if let Alternative::Between { next: n, .. } = alt {
                *n = next + 1;
            }
        });
        if !self.store.unify(x, Cell::Int(next)) {
            return false;
        }
        self.node(parent, Rule::Builtin, goal, 0, 0);
        true
    }

    // ----------------------------------------------------------------
    // Proof log

    #[inline]
    fn node(&mut self, parent: u32, rule: Rule, goal: Cell, a: u32, b: u32) -> u32 {
        if !self.options.proofs {
            return NONE;
        }
        self.proof.nodes.push(ProofNode {
            parent,
            rule,
            goal,
            a,
            b,
        });
        self.proof.nodes.len() as u32 - 1
    }
}

/// Native stack a sub-search needs to start on the current segment (see
/// [`Machine::sub_search`]).
const NATIVE_RED_ZONE: usize = 256 * 1024;

/// The size of each new native stack segment for nested sub-searches.
const NATIVE_SEGMENT: usize = 16 * 1024 * 1024;

/// The native stack one level of nested sub-searches takes, as counted
/// against the memory limit (measured: 200,000 nested `count`s or `not`s
/// take 1.1 GB, nearly all of it native stack).
const NATIVE_PER_LEVEL: usize = 5632;

/// The error of a query stopped by the memory limit of `limit` bytes.
#[cold]
pub(crate) fn memory_limit_error(limit: usize) -> RuntimeError {
    RuntimeError::new(format!(
        "memory limit exceeded: the search uses more than {} MB",
        limit / (1024 * 1024)
    ))
    .note("the query was stopped by the memory limit: `--max-memory MB` sets it, 0 lifts it")
}

/// The error of a query stopped by `--timeout`.
#[cold]
pub(crate) fn time_limit_error() -> RuntimeError {
    RuntimeError::new("time limit exceeded").note("the query was stopped by --timeout")
}

/// The error of a query stopped because standard output can no longer be
/// written (the command line reports the cause itself, or nothing for a
/// closed pipe).
#[cold]
fn output_failed_error() -> RuntimeError {
    RuntimeError::new("standard output cannot be written: the query was stopped")
}
