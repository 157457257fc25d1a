//! Splitting a search between workers: the untried alternatives of one
//! choice point move, with a copy of the whole state, to another machine
//! (see [`crate::engine::parallel`]).
//!
//! **What moves.**  The stealable choice point is the *oldest* one of the
//! innermost query with alternatives left.  The machine that splits
//! (the owner) marks it [`Alternative::Given`], so that backtracking
//! passes over it; the copy (the thief) drops every choice point newer
//! than it, marks the older ones `Given`, and resumes it with
//! [`Machine::next_answer`].  The two then search disjoint parts of the
//! tree, and, because no older choice point of the owner has
//! alternatives left, *everything the owner does from now on comes before
//! everything the thief does* in the sequential search's order.  That is
//! what lets the pool put their answers and output back in that order.
//!
//! **When a split is exact.**  The thief's search must be the part of the
//! sequential search that the alternatives would have run:
//! - no commit still to come may remove the choice point: a guard's
//!   (`GuardCommit`) or `once`'s (`Cut`) frame with a choice count at or
//!   below it, found in the continuation (a commit that would remove it is
//!   pushed before it was made, and stays in every continuation until it
//!   runs, which removes it);
//! - no memoized call may contain it (its failure would be recorded by
//!   the owner alone), nor may a sub-search (`findall`, `not`, ...: those
//!   run nested in a built-in, on the native stack, which a copy does not
//!   take): splits happen only when neither is running;
//! - nothing may read or write outside the machine in a way the order of
//!   the workers would change; the pool's user starts a parallel search
//!   only for goals that cannot (see
//!   [`Machine::sequential_only`](crate::engine::Machine::sequential_only));
//!   what a program writes is kept by each worker's host and put out in
//!   order.

#[allow(unused_imports)]
use super::*;
use crate::engine::parallel::{Poll, Splits};

/// A machine's state at a split, ready to run on another thread as the
/// thief (see the module doc): everything but the host, the tracer,
/// foreign predicates, open files and the module cache, none of which a
/// parallel search uses.  Clause templates are not shared between the
/// workers' machines (so that none touches another's reference counts):
/// those of the program travel as one copy made at the search's first
/// split ([`ProgramTemplates`]), each thread making its own from it once,
/// and those made during the search are copied at each split.
pub struct Forked {
    symbols: Symbols,
    sources: Sources,
    binder_names: Vec<SymId>,
    predicate_binders: Vec<Option<bool>>,
    program: ProgramTemplates,
    /// The templates after the program's (made for single assumptions).
    templates: Vec<Template>,
    templates_kept: u32,
    own_templates: Vec<(u32, u32)>,
    options: Options,
    store: Store,
    ctx: Context,
    proof: ProofLog,
    frames: Vec<Frame>,
    choices: Vec<Choice>,
    frames_floor: u32,
    cont: u32,
    slack: u32,
    aux: Vec<u32>,
    decisions: decisions::Decisions,
    output: u32,
    input: u32,
    epoch: Instant,
    query_names: Vec<Vec<(String, Cell)>>,
    query_goals: Vec<Cell>,
    query_proofs: Vec<(u32, bool)>,
    index_mark: Option<IndexMark>,
    depth: u32,
    memo: MemoTable,
    memo_preds: Vec<bool>,
    memoizing: bool,
    memo_calls: Vec<MemoCall>,
    builtin_table: Vec<[Option<Builtin>; 4]>,
    ticks: u32,
    tick_mask: u32,
    gc_next: usize,
    gc_stress: bool,
    gc_factor: usize,
    gc_old: u32,
    gc_full_live: usize,
}

const _: () = {
    const fn sendable<T: Send>() {}
    sendable::<Forked>();
};

/// The program's templates (those below `templates_kept`, which do not
/// change while a parallel search runs: it loads no module), copied once
/// for the search's threads.
pub(crate) type ProgramTemplates = Arc<Vec<Template>>;

/// A helper thread's own templates of the program, made from the copy
/// the search's splits carry, once per copy.
#[derive(Default)]
pub(crate) struct TemplateCache {
    from: Option<ProgramTemplates>,
    own: Vec<Rc<Template>>,
}

impl TemplateCache {
    /// The thread's templates of `program`.
    fn of(&mut self, program: &ProgramTemplates) -> &[Rc<Template>] {
        if !self.from.as_ref().is_some_and(|p| Arc::ptr_eq(p, program)) {
            self.own = program.iter().map(|t| Rc::new(t.clone())).collect();
            self.from = Some(program.clone());
        }
        &self.own
    }
}

/// How a machine takes part in a parallel search: its pool, and the
/// segment of the search order it works on.
#[derive(Clone)]
pub(crate) struct PoolLink {
    pub(crate) pool: Arc<dyn Splits>,
    pub(crate) segment: u32,
    /// The worker it is (0: the root).
    pub(crate) worker: u32,
    /// The machine's inference count when it joined the search.
    pub(crate) since: u64,
    /// Whether to split at every chance (see [`Machine::join_pool`]).
    pub(crate) often: bool,
    /// The program's templates as the splits carry them, once made.
    pub(crate) program: Option<ProgramTemplates>,
}

/// The periodic checks of a machine in a parallel search come every
/// 1,024 steps (a quarter of the usual interval, a few tenths of a
/// millisecond): a waiting worker gets its share of the search, and a
/// search stopped at an answer its workers' end, that much sooner.
const POOL_TICK_MASK: u32 = 0x3ff;

/// What copying a clause template costs, in bytes, about (a fact of
/// three arguments takes some 300: cells, keys, spans).
const TEMPLATE_BYTES: usize = 256;

/// How many bytes of state a split may copy per inference the machine
/// made in the search before it: copying a megabyte takes about a tenth
/// of the time of 10,000 inferences.
const BYTES_PER_INFERENCE: usize = 100;

impl std::fmt::Debug for PoolLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PoolLink(segment {})", self.segment)
    }
}

/// The built-ins whose effect a parallel search could not keep in order
/// (they read input, change the process, use files, or end or nest top
/// levels), and those that make names from strings (so that a goal could
/// come to call one of the others without naming it).
const SEQUENTIAL_ONLY: &[&str] = &[
    "read",
    "telling",
    "seeing",
    "load",
    "--o",
    "cd",
    "system",
    "top",
    "pop",
    "popall",
    "abort",
    "bye",
    "exit",
    "explode",
    "explode_words",
];

impl Machine {
    /// Whether the innermost query must run on one thread: a tracer is
    /// installed, foreign predicates are registered, a predicate is
    /// memoized, or a name of `SEQUENTIAL_ONLY` occurs in a clause of
    /// the program or on the heap (the query, and the clauses assumed by
    /// an enclosing query).  Any goal the search can come to call is made
    /// of names found there.
    pub fn sequential_only(&self) -> bool {
        if self.tracer.is_some() || !self.foreign.is_empty() || self.any_memoized() {
            return true;
        }
        let names: Vec<SymId> = SEQUENTIAL_ONLY
            .iter()
            .filter_map(|n| self.symbols.lookup(n))
            .collect();
        let named = |c: &Cell| match *c {
            Cell::Atom(s) | Cell::Functor(s, _) => names.contains(&s),
            _ => false,
        };
        self.templates.iter().any(|t| t.cells.iter().any(named))
            || self.store.heap.cells.iter().any(named)
    }

    /// Make this machine the root worker of a parallel search: at its
    /// periodic checks, every 1,024 steps ([`POOL_TICK_MASK`]), it gives
    /// work to the pool's idle workers.  With `often` (for tests that want
    /// many splits), it checks every 8 steps, and splits whatever the copy
    /// costs.
    pub(crate) fn join_pool(&mut self, pool: Arc<dyn Splits>, often: bool) {
        self.pool = Some(PoolLink {
            pool,
            segment: 0,
            worker: 0,
            since: self.inferences,
            often,
            program: None,
        });
        self.tick_mask &= if often { 0x7 } else { POOL_TICK_MASK };
    }

    /// Check every 8 steps, for a thief of a search that splits at every
    /// chance (see [`Machine::join_pool`]).
    pub(crate) fn split_often(&mut self) {
        self.tick_mask = 0x7;
    }

    /// Stop taking part in a parallel search.
    pub(crate) fn leave_pool(&mut self) {
        self.pool = None;
        self.tick_mask = if self.gc_stress { 0x3f } else { 0xfff };
    }

    /// The choice point whose untried alternatives another worker may
    /// take (see the module doc), and the innermost query's barrier.
    fn stealable(&self) -> Option<(usize, usize)> {
        if self.sub_searches != 0
            || self.tracer.is_some()
            || !self.outputs.is_empty()
            || !self.inputs.is_empty()
            || self.memo_on()
        {
            return None;
        }
        let barrier = self
            .choices
            .iter()
            .rposition(|c| matches!(c.alt, Alternative::Barrier))?;
        let j = (barrier + 1..self.choices.len()).find(|&i| match &self.choices[i].alt {
            Alternative::Clauses { cursor, .. } => Context::has_more(cursor),
            Alternative::Goal { .. } | Alternative::Between { .. } => true,
            Alternative::MemoFail { .. } => true,
            Alternative::Barrier | Alternative::Given => false,
        })?;
        if matches!(self.choices[j].alt, Alternative::MemoFail { .. }) {
            return None;
        }
        let mut f = self.cont;
        while f != NONE {
            let frame = &self.frames[f as usize];
            if let Action::GuardCommit { choice, .. } | Action::Cut { choice, .. } = frame.action {
                if choice as usize <= j {
                    return None;
                }
            }
            f = frame.next;
        }
        Some((barrier, j))
    }

    /// Split the search (see the module doc): the state for a thief that
    /// takes the untried alternatives of the stealable choice point,
    /// which this machine will pass over; `None` when no choice point can
    /// be split off.
    pub(crate) fn split(&mut self) -> Option<Forked> {
        let (barrier, j) = self.stealable()?;
        let kept = self.templates_kept as usize;
        let program = match self.pool.as_mut()?.program.clone() {
            Some(p) if p.len() == kept => p,
            _ => {
                let p: ProgramTemplates = Arc::new(
                    self.templates[..kept]
                        .iter()
                        .map(|t| Template::clone(t))
                        .collect(),
                );
                self.pool.as_mut()?.program = Some(p.clone());
                p
            }
        };
        let mut choices = self.choices[..=j].to_vec();
        for c in &mut choices[barrier + 1..j] {
            c.alt = Alternative::Given;
        }
        self.choices[j].alt = Alternative::Given;
        Some(Forked {
            symbols: self.symbols.clone(),
            sources: self.sources.clone(),
            binder_names: self.binder_names.clone(),
            predicate_binders: self.predicate_binders.clone(),
            program,
            templates: self.templates[kept..]
                .iter()
                .map(|t| Template::clone(t))
                .collect(),
            templates_kept: self.templates_kept,
            own_templates: self.own_templates.clone(),
            options: self.options.clone(),
            store: self.store.clone(),
            ctx: self.ctx.clone(),
            proof: self.proof.clone(),
            frames: self.frames.clone(),
            choices,
            frames_floor: self.frames_floor,
            cont: self.cont,
            slack: self.slack,
            aux: self.aux.clone(),
            decisions: self.decisions.clone(),
            output: self.output,
            input: self.input,
            epoch: self.epoch,
            query_names: self.query_names.clone(),
            query_goals: self.query_goals.clone(),
            query_proofs: self.query_proofs.clone(),
            index_mark: self.index_mark,
            depth: self.depth,
            memo: self.memo.clone(),
            memo_preds: self.memo_preds.clone(),
            memoizing: self.memoizing,
            memo_calls: self.memo_calls.clone(),
            builtin_table: self.builtin_table.clone(),
            ticks: self.ticks,
            tick_mask: self.tick_mask,
            gc_next: self.gc_next,
            gc_stress: self.gc_stress,
            gc_factor: self.gc_factor,
            gc_old: self.gc_old,
            gc_full_live: self.gc_full_live,
        })
    }

    /// The thief of a split, on the thread that runs it: `host` gets what
    /// it writes, `interrupt` stops it, `link` names its pool and segment,
    /// `cache` holds the thread's templates of the program.
    /// Its counters (inferences, collections, the look-ahead record's
    /// figures, proofs rejected for unused resources) start at zero, so
    /// that they count its own work.  [`Machine::next_answer`] resumes the
    /// alternatives it took.
    pub(crate) fn from_forked(
        f: Forked,
        host: Box<dyn Host>,
        interrupt: Arc<AtomicBool>,
        mut link: PoolLink,
        cache: &mut TemplateCache,
    ) -> Machine {
        let mut templates = cache.of(&f.program).to_vec();
        templates.extend(f.templates.into_iter().map(Rc::new));
        link.program = Some(f.program);
        let mut decisions = f.decisions;
        decisions.made = 0;
        decisions.recalled = 0;
        let mut m = Machine {
            symbols: f.symbols,
            sources: f.sources,
            binder_names: f.binder_names,
            predicate_binders: f.predicate_binders,
            templates,
            templates_kept: f.templates_kept,
            own_templates: f.own_templates,
            modules: Vec::new(),
            options: f.options,
            store: f.store,
            ctx: f.ctx,
            proof: f.proof,
            interrupt,
            inferences: 0,
            known_takes: 0,
            foreign: Default::default(),
            host,
            frames: f.frames,
            choices: f.choices,
            frames_floor: f.frames_floor,
            cont: f.cont,
            slack: f.slack,
            aux: f.aux,
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
            decisions,
            scratch_ids: Vec::new(),
            outputs: Vec::new(),
            output: f.output,
            output_error: None,
            inputs: Vec::new(),
            input: f.input,
            unread: Vec::new(),
            epoch: f.epoch,
            query_names: f.query_names,
            query_goals: f.query_goals,
            query_proofs: f.query_proofs,
            sub_searches: 0,
            index_mark: f.index_mark,
            unify_frames: Vec::new(),
            assume_parts: Vec::new(),
            assume_stack: Vec::new(),
            assume_alts: Vec::new(),
            pending: None,
            depth: f.depth,
            memo: f.memo,
            memo_preds: f.memo_preds,
            memoizing: f.memoizing,
            memo_calls: f.memo_calls,
            tracer: None,
            quiet_redo: false,
            left_unused: (0, None),
            trace_vars: Default::default(),
            builtin_table: f.builtin_table,
            ticks: f.ticks,
            tick_mask: f.tick_mask,
            gc_next: f.gc_next,
            gc_stress: f.gc_stress,
            gc_factor: f.gc_factor,
            gc_old: f.gc_old,
            gc_full_live: f.gc_full_live,
            gc: Default::default(),
            pool: Some(link),
        };
        m.update_hb();
        m
    }

    /// At a periodic check, what the pool asks: split off work (when a
    /// worker waits for it), or pause (true: a part of the search to the
    /// left of this one waits for this thread; see
    /// [`crate::engine::parallel`]).
    #[inline(never)]
    pub(super) fn pool_tick(&mut self) -> bool {
        let Some(link) = self.pool.clone() else {
            return false;
        };
        match link.pool.poll(link.worker, link.segment) {
            Poll::Nothing => false,
            Poll::Pause => true,
            Poll::Split => {
                // A split copies the whole state: not before the search
                // has done work worth ten times the copy (a deep
                // recursion holding a gigabyte is never copied; the
                // puzzles' small states are, after a few milliseconds).
                let bytes = self.memory_used() + self.templates.len() * TEMPLATE_BYTES;
                let worth = (bytes / BYTES_PER_INFERENCE) as u64;
                if link.often || self.inferences.saturating_sub(link.since) >= worth {
                    if let Some(work) = self.split() {
                        link.pool.give(link.segment, work);
                    }
                }
                false
            }
        }
    }
}
