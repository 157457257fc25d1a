//! Garbage collection of the heap's newest segment.
//!
//! The heap only grows during forward search, and backtracking is what
//! gives cells back; a long deterministic computation (a loop of a million
//! iterations, `nrev` run again and again) would otherwise hold every cell it
//! ever made.  The collector reclaims the cells made since the newest choice
//! point that nothing can reach any more, and slides the live ones down in
//! address order (a mark–compact collector at cell granularity).
//!
//! Invariants it relies on, and keeps:
//! - Only the *segment* above the newest choice point's heap mark (`hb`) is
//!   collected.  Backtracking truncates the heap to that mark, and every
//!   older choice point's mark is lower, so no saved mark moves.  A cell
//!   below the mark points into the segment only if it is a variable bound
//!   after the choice point, and such a binding is on the trail (bindings
//!   of variables below `hb` are trailed): the trail since the newest choice
//!   point lists every pointer from below into the segment.
//! - Compaction keeps address order, so an address still says which of two
//!   variables is older.  The *times* kept beside the heap (the births of
//!   `forall` constants and `LOCAL` names, lowered variable ages) are mapped
//!   with the addresses; the cell at each such time is kept, so that a time
//!   and a variable never come out equal when they were not.  What that
//!   cell points to is not kept for it: a cell kept only for a time becomes
//!   a placeholder (an unbound variable no term refers to), so a `forall`
//!   in a loop does not keep alive the term made just after its constant.
//! - Blocks whose layout is fixed are kept whole: a deferred conjunct's
//!   reserved block and the environment it refers to, and the term a ground
//!   template clause was built as (its alternatives are found by offset).
//!   A block is made in one piece, so one that starts below the segment
//!   ends there too: the terms of a program's facts, loaded before the
//!   query, are not even visited.
//! - Collection happens between two steps of the run loop, when no Rust
//!   code holds a heap cell of the segment: callers of `run_inner` (the
//!   query's owner, `findall`'s sub-search) hold only cells made before the
//!   choice point that the run pushed.
//! - It does not run while proofs are recorded (the proof log refers to
//!   every goal; nothing would be garbage).  A log that is no longer being
//!   recorded (see `Options::proof_limit`) is a root like the others.
//!   Memoization needs nothing of it: memo keys and the identities of
//!   resources are tokens, not heap addresses, and the calls being
//!   memoized are roots.
//!
//! The roots are enumerated once, by [`Machine::visit_roots`], for both the
//! marking and the relocation, so the two cannot disagree (the map of
//! lowered ages, whose keys are addresses, is rebuilt instead).
//!
//! Setting the environment variable `LOLLI_GC_STRESS` makes the machine
//! collect every 64 steps, whatever the heap's size: the test suite run so
//! checks that no root is missing.

#[allow(unused_imports)]
use super::*;
use std::ops::Range;

/// The heap is collected when it has grown past this many cells since the
/// last collection, and at least to twice what survived it.
pub(super) const GC_MIN_CELLS: usize = 1 << 20;

/// What a collection did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GcStats {
    /// Collections run.
    pub runs: u64,
    /// Cells reclaimed, in all.
    pub reclaimed: u64,
}

impl GcStats {
    /// Count `other`'s collections too (another machine's).
    pub fn add(&mut self, other: GcStats) {
        self.runs += other.runs;
        self.reclaimed += other.reclaimed;
    }
}

/// Something the collector must find every heap reference in.
trait RootVisitor {
    /// The start of the segment collected: cells below it are neither
    /// marked nor moved.
    fn base(&self) -> u32;
    /// A cell that may point into the heap (its pointee is live).
    fn cell(&mut self, c: &mut Cell);
    /// The address of a heap cell that must be kept (and is relocated).
    fn addr(&mut self, a: &mut u32);
    /// A block of `len` cells from `start` that must be kept contiguous.
    fn range(&mut self, start: &mut u32, len: u32);
    /// A heap time (a length of the heap at some moment).
    fn time(&mut self, t: &mut u32);
    /// A variable whose age the trail says was lowered: relocated, but not
    /// a root ([`Machine::forget_dead_ages`] drops it if nothing else
    /// keeps it).
    fn lowered(&mut self, w: &mut u32);
}

/// The marking pass's visitor: it only collects what to mark (pointers
/// into the segment from `base` on).
#[derive(Default)]
struct Gather {
    base: u32,
    cells: Vec<Cell>,
    addrs: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    times: Vec<u32>,
}

impl RootVisitor for Gather {
    fn base(&self) -> u32 {
        self.base
    }
    fn cell(&mut self, c: &mut Cell) {
        if let Cell::Ref(a) | Cell::Struct(a) = *c {
            if a.0 >= self.base {
                self.cells.push(*c);
            }
        }
    }
    fn addr(&mut self, a: &mut u32) {
        self.addrs.push(*a);
    }
    fn range(&mut self, start: &mut u32, len: u32) {
        self.ranges.push((*start, len));
    }
    fn time(&mut self, t: &mut u32) {
        // The cell at a time is kept, but not what it points to (see the
        // module doc).
        self.times.push(*t);
    }
    fn lowered(&mut self, _w: &mut u32) {}
}

/// Live cells of the segment `base .. base + 64 * words.len()`: a bitmap,
/// and for each word the number of live cells before it.
struct Marks {
    base: u32,
    len: u32,
    bits: Vec<u64>,
    before: Vec<u32>,
}

impl Marks {
    fn new(base: u32, len: u32) -> Self {
        let words = len as usize / 64 + 1;
        Marks {
            base,
            len,
            bits: vec![0; words],
            before: Vec::new(),
        }
    }

    /// Whether `a` (in the segment) is marked.
    #[inline]
    fn get(&self, a: u32) -> bool {
        let i = (a - self.base) as usize;
        self.bits[i / 64] & (1u64 << (i % 64)) != 0
    }

    /// Set the mark of `a` (in the segment); whether it was newly set.
    #[inline]
    fn set(&mut self, a: u32) -> bool {
        let i = (a - self.base) as usize;
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let new = self.bits[w] & b == 0;
        self.bits[w] |= b;
        new
    }

    /// Count the live cells (after marking).
    fn count(&mut self) -> u32 {
        let mut n = 0;
        self.before = self
            .bits
            .iter()
            .map(|w| {
                let b = n;
                n += w.count_ones();
                b
            })
            .collect();
        n
    }

    /// Where heap time or address `t` goes: unchanged below the segment,
    /// else the segment's start plus the live cells before `t`.
    #[inline]
    fn map(&self, t: u32) -> u32 {
        if t < self.base {
            return t;
        }
        let i = (t - self.base).min(self.len) as usize;
        let (w, b) = (i / 64, i % 64);
        let below = if b == 0 { 0 } else { self.bits[w] << (64 - b) };
        self.base + self.before[w] + below.count_ones()
    }
}

/// The marking pass: live cells of the segment are marked, and the
/// pointers among them followed, from a stack (never the Rust stack).
struct Marker<'a> {
    cells: &'a [Cell],
    top: u32,
    marks: &'a mut Marks,
    /// Pointer cells (`Ref`, `Struct`) of marked cells, still to follow.
    work: Vec<Cell>,
}

impl Marker<'_> {
    /// Mark the cell at `a` (nothing outside the segment).  A compound's
    /// functor cell is marked with all its arguments, so a marked functor
    /// means a marked block and a `Struct` pointer to it needs no more work.
    #[inline]
    fn addr(&mut self, a: u32) {
        if a < self.marks.base || a >= self.top || !self.marks.set(a) {
            return;
        }
        match self.cells[a as usize] {
            Cell::Functor(_, n) => {
                // Argument cells are never functors.
                for b in a + 1..=a + n {
                    if self.marks.set(b) {
                        self.push(self.cells[b as usize]);
                    }
                }
            }
            c => self.push(c),
        }
    }

    #[inline]
    fn push(&mut self, c: Cell) {
        if matches!(c, Cell::Ref(_) | Cell::Struct(_)) {
            self.work.push(c);
        }
    }

    /// Mark what a pointer cell points at.
    #[inline]
    fn follow(&mut self, c: Cell) {
        match c {
            Cell::Ref(a) | Cell::Struct(a) => self.addr(a.0),
            _ => {}
        }
    }
}

/// The relocation pass's visitor.
struct Relocate<'a>(&'a Marks);

impl Relocate<'_> {
    #[inline]
    fn cell_of(&self, c: Cell) -> Cell {
        match c {
            Cell::Ref(a) => Cell::Ref(Addr(self.0.map(a.0))),
            Cell::Struct(a) => Cell::Struct(Addr(self.0.map(a.0))),
            other => other,
        }
    }
}

impl RootVisitor for Relocate<'_> {
    fn base(&self) -> u32 {
        self.0.base
    }
    fn cell(&mut self, c: &mut Cell) {
        *c = self.cell_of(*c);
    }
    fn addr(&mut self, a: &mut u32) {
        *a = self.0.map(*a);
    }
    fn range(&mut self, start: &mut u32, _len: u32) {
        *start = self.0.map(*start);
    }
    fn time(&mut self, t: &mut u32) {
        *t = self.0.map(*t);
    }
    fn lowered(&mut self, w: &mut u32) {
        *w = self.0.map(*w);
    }
}

impl Machine {
    /// Collect the heap if it has grown enough since the last collection
    /// and nothing rules collection out now (see the module doc).
    pub(super) fn maybe_collect(&mut self) {
        if self.store.heap.len() < self.gc_next || self.options.proofs {
            return;
        }
        // Only the cells above the newest choice point can go.  When a
        // choice point was pushed just now (a guard's, say, taken away
        // again a few steps later), that segment is small: collecting then
        // would reclaim next to nothing and put the next collection off, so
        // wait for a later check instead (under LOLLI_GC_STRESS, collect
        // all the same: the point there is to collect often).
        if !self.gc_stress && self.store.heap.len() - (self.store.hb as usize) < GC_MIN_CELLS / 2 {
            return;
        }
        let before = self.store.heap.len();
        self.collect();
        let after = self.store.heap.len();
        // The next collection when the heap has grown by `gc_factor` times
        // what survived (at least GC_MIN_CELLS).  While most of the heap
        // survives (a deep recursion whose data stays live), the factor
        // goes 3, 7, 15, so that the same live cells are not marked over
        // and over: all collections together mark about 1.3 times the
        // heap's final size.
        self.gc_factor = if 2 * after > before {
            (2 * self.gc_factor + 1).min(15)
        } else {
            1
        };
        self.gc_next = if self.gc_stress {
            0
        } else {
            after + (self.gc_factor * after).max(GC_MIN_CELLS)
        };
    }

    /// What the collector has done in this machine so far.
    pub fn gc_stats(&self) -> GcStats {
        self.gc
    }

    /// Reclaim the unreachable cells above the newest choice point's heap
    /// mark, sliding the live ones down.  A *minor* collection leaves the
    /// cells that survived the last collection where they are (they are
    /// mostly still live) and collects only the cells made since; the old
    /// cells are then scanned for pointers to the new ones instead of
    /// being marked.  Every collection is a full one once the old cells
    /// have doubled since the last full one.  (Kept out of the run loop,
    /// where `maybe_collect` is inlined.)
    #[inline(never)]
    fn collect(&mut self) {
        // A first conjunct's candidates kept for its call name the goal by
        // its address, which the collection may give to another goal.
        self.first_ahead = Default::default();
        self.move_first = NONE;
        let hb = self.store.hb;
        let top = self.store.heap.len() as u32;
        let old = self.gc_old;
        // (Under LOLLI_GC_STRESS, every other collection is a full one.)
        let minor = old > hb
            && old <= top
            && ((old - hb) as usize) < 2 * self.gc_full_live + GC_MIN_CELLS
            && !(self.gc_stress && self.gc.runs % 2 == 1);
        let base = if minor { old } else { hb };
        if top <= base {
            return;
        }
        let scan = hb..base;
        let trail_from = self.choices.last().map_or(0, |c| c.trail as usize);
        // So do the takes of calls that begin a move (`Context::move_take`):
        // those of calls in the collected cells are forgotten.  (A record
        // made before the newest choice point names a call made before it,
        // below `hb`.)
        let forget = |t: &mut MoveTake| {
            if t.goal >= base && t.goal != NONE {
                *t = MoveTake::NONE;
            }
        };
        forget(&mut self.ctx.move_take);
        for u in &mut self.store.trail.entries[trail_from..] {
            if let Undo::MoveTake(t) = u {
                forget(t);
            }
        }
        self.tidy_trail(hb, trail_from);
        let mut marks = Marks::new(base, top - base);

        // Mark.
        let mut roots = Gather {
            base,
            ..Gather::default()
        };
        self.visit_roots(&mut roots, trail_from, scan.clone());
        let mut marker = Marker {
            cells: &self.store.heap.cells,
            top,
            marks: &mut marks,
            work: Vec::new(),
        };
        for &a in &roots.addrs {
            marker.addr(a);
        }
        for &(start, len) in &roots.ranges {
            for a in start..start + len {
                marker.addr(a);
            }
        }
        for &c in &roots.cells {
            marker.follow(c);
        }
        while let Some(c) = marker.work.pop() {
            marker.follow(c);
        }
        self.forget_dead_ages(&marks, trail_from, &mut roots.times);
        // A time whose cell nothing reaches keeps the cell as a placeholder
        // (an unbound variable no term refers to), so that the cells on
        // either side of it stay on either side of the time.
        let mut placeholders = Vec::new();
        for &t in &roots.times {
            if t >= base && t < top && marks.set(t) {
                placeholders.push(t);
            }
        }
        let live = marks.count();
        self.gc.runs += 1;
        if !minor {
            self.gc_full_live = (base + live - hb) as usize;
        }
        self.gc_old = base + live;
        if live == top - base {
            return;
        }

        // Relocate the roots, then slide the live cells down.
        self.visit_roots(&mut Relocate(&marks), trail_from, scan);
        let reloc = Relocate(&marks);
        let heap = &mut self.store.heap;
        let mut to = base as usize;
        for (w, &word) in marks.bits.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let from = base as usize + w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                heap.cells[to] = reloc.cell_of(heap.cells[from]);
                if to < heap.digests.len() {
                    heap.digests[to] = heap.digests.get(from).copied().unwrap_or_default();
                }
                to += 1;
            }
        }
        heap.cells.truncate(to);
        heap.closed.forget();
        heap.settled.relocate(|a| marks.map(a));
        if heap.digests.len() > to {
            heap.digests.truncate(to);
        }
        for p in placeholders {
            let p = marks.map(p) as usize;
            heap.cells[p] = Cell::Ref(Addr(p as u32));
            if let Some(d) = heap.digests.get_mut(p) {
                *d = Default::default();
            }
        }
        // Lowered ages: keys are variables, values times.
        if !heap.lowered.is_empty() {
            let old = std::mem::take(&mut heap.lowered);
            heap.lowered = old
                .into_iter()
                .map(|(v, age)| (Addr(marks.map(v.0)), marks.map(age)))
                .collect();
        }
        // The trace's variable numbers: kept for the variables kept.
        let dead = |a: u32| a >= base && a < top && !marks.get(a);
        self.trace_vars
            .get_mut()
            .relocate(|a| (!dead(a)).then(|| marks.map(a)));
        self.gc.reclaimed += u64::from(top - base - live);
    }

    /// Forget the lowered ages of the segment's variables that marking
    /// found unreachable: the search can never look them up.  Their map
    /// entries go, and so do their trail entries (all made since the newest
    /// choice point, as the variables were); the trail positions that `&`
    /// keeps in its frames move down with the entries after them.  The
    /// ages of the variables that stay are times (pushed to `times`).
    fn forget_dead_ages(&mut self, marks: &Marks, trail_from: usize, times: &mut Vec<u32>) {
        let top = marks.base + marks.len;
        let dead = |w: Addr| w.0 >= marks.base && w.0 < top && !marks.get(w.0);
        let heap = &mut self.store.heap;
        if heap.lowered.is_empty() {
            return;
        }
        heap.lowered.retain(|&w, &mut age| {
            if dead(w) {
                return false;
            }
            times.push(age);
            true
        });
        self.remove_trail_records(trail_from, |_, u| matches!(u, Undo::Lower(w, _) if dead(w)));
    }

    /// Remove the trail records, from `trail_from` on (made since the
    /// newest choice point), that undoing can do without:
    /// - bindings of variables made since that choice point (at `hb` or
    ///   above): backtracking truncates the heap below them, so they never
    ///   need unbinding.  They were trailed because a newer choice point
    ///   existed then, since removed by a commit (`once`, a guard); kept,
    ///   each record would keep its variable, and what it is bound to,
    ///   alive (a loop of `once (q X)`: 70 bytes a turn);
    /// - a restriction pushed and popped again (`{G}`, and `G1 & G2`
    ///   restricting G2 to what G1 consumed): undone, the pair leaves the
    ///   restrictions as they were, and no other undo looks at them (a
    ///   loop of `{ true }`: 32 bytes a turn).
    fn tidy_trail(&mut self, hb: u32, trail_from: usize) {
        let entries = &self.store.trail.entries;
        let mut drop = vec![false; entries.len() - trail_from];
        let mut open: Vec<usize> = Vec::new();
        for (i, u) in entries[trail_from..].iter().enumerate() {
            match u {
                Undo::Bind(a) if a.0 >= hb => drop[i] = true,
                Undo::Restrict => open.push(i),
                // Pops the innermost restriction: the newest one pushed in
                // the segment and not yet popped, if any.
                Undo::Unrestrict(_) => {
                    if let Some(p) = open.pop() {
                        drop[p] = true;
                        drop[i] = true;
                    }
                }
                _ => {}
            }
        }
        self.remove_trail_records(trail_from, |i, _| drop[i - trail_from]);
    }

    /// Remove the trail records from `trail_from` on (all made since the
    /// newest choice point) for which `remove(position, record)` holds,
    /// keeping the others in order, and move the trail positions the
    /// frames keep down with the records after them.
    fn remove_trail_records(
        &mut self,
        trail_from: usize,
        mut remove: impl FnMut(usize, Undo) -> bool,
    ) {
        let entries = &mut self.store.trail.entries;
        let mut removed: Vec<u32> = Vec::new();
        let mut to = trail_from;
        for from in trail_from..entries.len() {
            let u = entries[from];
            if remove(from, u) {
                removed.push(from as u32);
            } else {
                entries[to] = u;
                to += 1;
            }
        }
        entries.truncate(to);
        self.move_trail_positions(&removed);
    }

    /// The trail records at positions `removed` (ascending) were removed:
    /// move the trail positions the frames keep down with the records
    /// after them.
    fn move_trail_positions(&mut self, removed: &[u32]) {
        if removed.is_empty() {
            return;
        }
        let moved = |p: u32| p - removed.partition_point(|&r| r < p) as u32;
        for f in &mut self.frames {
            match &mut f.action {
                Action::WithMid { aux, .. } => {
                    let t = &mut self.aux[*aux as usize + 1];
                    *t = moved(*t);
                }
                Action::WithEnd { g2_trail, .. } => *g2_trail = moved(*g2_trail),
                Action::ExitScope { trail, .. } | Action::Cut { trail, .. } => {
                    *trail = moved(*trail)
                }
                _ => {}
            }
        }
    }

    /// Show every heap reference the machine holds outside the heap's
    /// segment to `v` (see the module doc for why these are all).
    /// `old` is the range of cells below the segment (and above the newest
    /// choice point's mark) that a minor collection leaves in place: each
    /// is visited as a root, so the trail is needed only below it.
    fn visit_roots(&mut self, v: &mut impl RootVisitor, trail_from: usize, old: Range<u32>) {
        // The continuation and every frame still stored.
        for f in &mut self.frames {
            match &mut f.action {
                Action::Solve { goal, .. } | Action::Bang { goal, .. } => v.cell(goal),
                Action::Deferred {
                    at, tc, env, tpl, ..
                } => {
                    let t = &self.templates[*tpl as usize];
                    v.range(at, t.ends[*tc as usize] - *tc);
                    v.range(env, t.nslots);
                }
                Action::WithMid { g2, .. } => v.cell(g2),
                Action::GuardCommit { then, .. } => v.cell(then),
                Action::TimingEnd { var, .. } => v.cell(var),
                Action::RestoreOutput { goal, .. } => v.cell(goal),
                Action::ExitScope { .. }
                | Action::WithEnd { .. }
                | Action::BangEnd { .. }
                | Action::RestoreInput { .. }
                | Action::QueryEnd { .. }
                | Action::SubEnd
                | Action::MemoExit { .. }
                | Action::ForallEnd { .. }
                | Action::Cut { .. } => {}
            }
        }
        // Choice points: their terms were made before them, so below the
        // segment; visited all the same (relocation leaves them as they
        // are), so that the enumeration stays complete if that changes.
        for ch in &mut self.choices {
            match &mut ch.alt {
                Alternative::Clauses { goal, .. } | Alternative::Goal { goal, .. } => v.cell(goal),
                Alternative::Between { goal, x, .. } => {
                    v.cell(goal);
                    v.cell(x);
                }
                Alternative::Barrier | Alternative::Given | Alternative::MemoFail { .. } => {}
            }
        }
        // The context.  (A ground template clause's term below the
        // segment lies there whole, made before the segment's start: a
        // program's facts, loaded before the query, are not visited.)
        let base = v.base();
        for e in &mut self.ctx.entries {
            match &mut e.source {
                Source::Heap { clause, .. } => v.cell(clause),
                Source::Template { tpl, .. } if e.ground != u32::MAX => {
                    let templates = &self.templates;
                    let len = |tpl: u32| {
                        let t = &templates[tpl as usize];
                        match t.root {
                            Cell::Struct(r) => Some((t.block_end(r) - r.ix()) as u32),
                            _ => None,
                        }
                    };
                    if e.ground < base {
                        debug_assert!(len(*tpl).is_none_or(|n| e.ground + n <= base));
                    } else if let Some(n) = len(*tpl) {
                        v.range(&mut e.ground, n);
                    }
                }
                Source::Template { .. } => {}
            }
        }
        for alt in &mut self.ctx.heap_alts {
            v.cell(&mut alt.head);
        }
        for b in &mut self.ctx.bodies {
            match b {
                Body::Goal(g) | Body::Bang(g) => v.cell(g),
            }
        }
        for c in &mut self.ctx.envs {
            v.cell(c);
        }
        // Answers' variables and memoized calls.
        for names in &mut self.query_names {
            for (_, c) in names {
                v.cell(c);
            }
        }
        for call in &mut self.memo_calls {
            v.cell(&mut call.goal);
        }
        // A proof log no longer being recorded (stopped by the proof limit,
        // or an enclosing query's): its goals, clause instances and witnesses.
        for n in &mut self.proof.nodes {
            v.cell(&mut n.goal);
        }
        for c in self.proof.slots.iter_mut().chain(&mut self.proof.witnesses) {
            v.cell(c);
        }
        // Pointers from below the segment: the old cells a minor collection
        // keeps, and bindings since the newest choice point below them.
        let heap = &mut self.store.heap;
        for c in &mut heap.cells[old.start as usize..old.end as usize] {
            v.cell(c);
        }
        for u in &mut self.store.trail.entries[trail_from..] {
            match u {
                Undo::Bind(a) => {
                    if a.0 < old.start {
                        v.cell(&mut heap.cells[a.ix()]);
                    } else if a.0 >= old.end {
                        v.addr(&mut a.0);
                    }
                }
                Undo::Lower(w, old) => {
                    v.lowered(&mut w.0);
                    if *old != u32::MAX {
                        v.time(old);
                    }
                }
                Undo::State(..)
                | Undo::Indexed(..)
                | Undo::Pop(..)
                | Undo::Restrict
                | Undo::Unrestrict(..)
                | Undo::EigenEnded(_)
                | Undo::MoveTake(_) => {}
            }
        }
        // Times kept beside the heap.
        for e in &mut heap.eigens {
            v.time(&mut e.birth.0);
        }
        if heap.max_sym_birth >= old.end {
            for b in &mut heap.sym_birth {
                if *b >= old.end {
                    v.time(b);
                }
            }
            v.time(&mut heap.max_sym_birth);
        }
        // A `forall` symbol is born with its eigenvariable.
        for e in &heap.eigens {
            if let Some(s) = e.sym {
                heap.sym_birth[s.0 as usize] = e.birth.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::engine::trace::{TraceEvent, Tracer};
    use crate::engine::{BufferHost, Options};
    use crate::Session;

    struct Lines(Rc<RefCell<Vec<String>>>);

    impl Tracer for Lines {
        fn event(&mut self, event: TraceEvent) {
            self.0.borrow_mut().push(event.to_string());
        }
    }

    #[test]
    fn the_traces_variable_numbers_move_with_their_variables() {
        // `go2`'s `V` is made after `junk`'s garbage, so collections (one
        // every 64 steps, as under LOLLI_GC_STRESS) move it down; it keeps
        // its number, and the variables made later get new ones.
        let mut s = Session::with_options(Options::default(), Box::new(BufferHost::default()));
        s.load_str(
            "t.lolli",
            "junk 0.\njunk N :- N > 0, _L = f N N N, M is N - 1, junk M.\n\
             loop 0 _.\nloop N V :- N > 0, M is N - 1, _L = f M M, loop M V.\n\
             t _.\ngo :- junk 50, go2.\ngo2 :- t V, loop 200 V, t V.\n",
        )
        .expect("loads");
        let m = &mut s.machine;
        (m.gc_stress, m.tick_mask, m.gc_next) = (true, 0x3f, 0);
        let lines = Rc::new(RefCell::new(Vec::new()));
        m.tracer = Some(Box::new(Lines(lines.clone())));
        let mut q = s.query("go").expect("parses");
        assert!(q.next_answer().expect("runs").is_some());
        drop(q);
        assert!(s.machine.gc_stats().runs > 5, "{:?}", s.machine.gc_stats());
        let lines = lines.borrow();
        let calls: Vec<&str> = lines
            .iter()
            .map(|l| l.trim_start())
            .filter(|l| l.starts_with("call t ") || l.starts_with("call loop "))
            .collect();
        let v = calls[0].strip_prefix("call t ").expect("`t V` first");
        assert_eq!(calls.last(), Some(&format!("call t {v}").as_str()));
        assert_eq!(calls.len(), 203);
        for (i, l) in calls[1..202].iter().enumerate() {
            assert_eq!(*l, format!("call loop {} {v}", 200 - i), "{lines:#?}");
        }
        // Every `_L` is a variable of its own.
        let unify: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.trim_start().strip_prefix("call "))
            .filter(|l| l.contains(" = f "))
            .map(|l| l.split(' ').next().unwrap_or(""))
            .collect();
        assert_eq!(unify.len(), 250);
        let distinct: std::collections::HashSet<&&str> = unify.iter().collect();
        assert_eq!(distinct.len(), 250);
        assert!(!distinct.contains(&v));
    }
}
