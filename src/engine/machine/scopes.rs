//! Resource scopes: assuming formulas (`D -o G`, `D => G`), the end of a
//! scope (every linear resource consumed, or erased by slack), `G1 & G2`
//! (the second conjunct must consume what the first did) and `{G}`.

#[allow(unused_imports)]
use super::*;
use crate::engine::context::ALT_DIGESTS;
use crate::engine::memo::{MAX_MOVE_FACTS, NO_RES};
use crate::logic::keys::head_keys_and_digests;
use crate::term::cell::Digest;

/// An assumption that ends a move, as [`Machine::move_assumed`] finds it.
#[derive(Copy, Clone, Debug)]
pub(super) struct MoveAssumed {
    /// The template and the plan of `Gk , Gk+1` (the key of
    /// [`MemoTable::move_facts`]).
    moved: (u32, u32),
    /// The id of the term of the candidate `Gk` took.
    res: u32,
    /// How many facts the move assumes.
    facts: usize,
}

/// The note on a `forall` constant assumed as a predicate when its body
/// does not name it so.
const FORALL_PREDICATE: &str = "a `forall` constant names a predicate when its body uses the name \
     as one (as a goal, an assumed clause or the head of either), as in \
     `forall p \\ (p a => p a)`; not when only a clause of another predicate passes it on";

impl Machine {
    /// Prove `body` in the scope of entries `first..end`, assumed since
    /// `start` (taken with [`Machine::scope_start`]).
    pub(super) fn enter_scope(
        &mut self,
        (first, end): (u32, u32),
        start: ScopeStart,
        body: Cell,
        node: u32,
        origin: u32,
    ) {
        self.cont = self.push_frame(
            Action::ExitScope {
                first,
                end,
                saved: self.slack,
                choices: start.choices,
                trail: start.trail,
                buckets: start.buckets,
            },
            self.cont,
        );
        self.slack = 0;
        self.push_solve(body, node, origin);
    }

    /// The erase node a slack value names (NONE when proofs are off).
    #[inline]
    pub(super) fn slack_node(slack: u32) -> u32 {
        if slack >= 2 {
            slack - 2
        } else {
            NONE
        }
    }

    /// Linear entry `e` is still unconsumed where it must be consumed: count
    /// it as swallowed by the erase behind slack `v`.  False without slack.
    fn erase_leftover(&mut self, e: u32, v: u32) -> bool {
        if v == 0 {
            return false;
        }
        self.ctx.set_state(&mut self.store.trail, e, GONE);
        let n = Self::slack_node(v);
        if n != NONE {
            self.proof.erased.push((n, e));
        }
        true
    }

    /// Report to the tracer, if one is installed, every linear entry of
    /// `first..last` left unused where it had to be used up (at `end`, the
    /// end of a scope, or of the query when `query`), one event each, in
    /// the order the search tries them (the newest assumption first, one
    /// assumption's parts in the order written): `first` is the oldest
    /// found, and no erase could swallow them.
    #[cold]
    #[inline(never)]
    fn trace_unused(&mut self, first: u32, last: u32, end: &str, query: bool) {
        for e in (first..last).rev() {
            if !self.left_at_end(e, query) {
                continue;
            }
            let text = self.entry_text(e);
            let event = crate::engine::trace::TraceEvent {
                kind: crate::engine::trace::TraceKind::Unused,
                depth: self.depth,
                goal: text,
                detail: end.to_string(),
            };
            if let Some(t) = self.tracer.as_mut() {
                t.event(event);
            }
        }
    }

    /// Whether linear entry `e` is left unused at the end of its scope
    /// (of the query, when `query`).
    fn left_at_end(&self, e: u32, query: bool) -> bool {
        let entry = self.ctx.entries[e as usize];
        entry.linear
            && if query {
                self.ctx.usable(e)
            } else {
                entry.state != GONE
            }
    }

    /// The number of choice points and the lengths that the end of a scope
    /// assumed from now on needs (see [`Machine::exit_scope`]).
    pub(super) fn scope_start(&self) -> ScopeStart {
        ScopeStart {
            choices: self.choices.len() as u32,
            trail: self.store.trail.mark() as u32,
            buckets: self.ctx.bucket_count() as u32,
        }
    }

    /// The end of the scope of entries `first..end`: its linear resources
    /// must be used up (or swallowed by an erase), and its entries are no
    /// longer usable.  With no choice point made since the scope began
    /// (`start`), nothing can reopen it: its entries are
    /// dropped ([`crate::engine::closed`]), with the templates made for
    /// them, unless a proof is recorded.
    pub(super) fn exit_scope(
        &mut self,
        first: u32,
        end: u32,
        saved: u32,
        start: ScopeStart,
    ) -> bool {
        let v = self.slack;
        for e in first..end {
            let entry = self.ctx.entries[e as usize];
            if entry.linear && entry.state != GONE && !self.erase_leftover(e, v) {
                if self.tracer.is_some() {
                    self.trace_unused(e, end, "its `-o`", false);
                }
                if self.sub_searches == 0 {
                    self.note_left_unused(e, end, false);
                }
                return false;
            }
        }
        self.ctx.close_scope(&mut self.store.trail, first, end);
        self.drop_committed(first, start);
        self.slack = if saved != 0 { saved } else { v };
        true
    }

    /// Drop the entries from `first` on, assumed since `start`, if no
    /// choice point made since then is left and all of them are closed
    /// ([`Context::drop_closed`]), with the templates made for them; not
    /// while a proof is recorded.  Called at the end of a scope, and after
    /// a commit (`once`, a guard) removed the choice points its goal left:
    /// the scopes closed inside that goal can then no longer be reopened
    /// either.
    pub(super) fn drop_committed(&mut self, first: u32, start: ScopeStart) {
        if self.choices.len() as u32 <= start.choices
            && !self.options.proofs
            && self.ctx.drop_closed(&mut self.store.trail, first, start)
        {
            self.drop_templates();
        }
    }

    pub(super) fn query_end(&mut self, first: u32, end: u32) -> bool {
        let v = self.slack;
        for e in first..end {
            if self.ctx.entries[e as usize].linear
                && self.ctx.usable(e)
                && !self.erase_leftover(e, v)
            {
                if self.tracer.is_some() {
                    self.trace_unused(e, end, "the query", true);
                }
                self.note_left_unused(e, end, true);
                return false;
            }
        }
        true
    }

    /// Count a proof rejected for leaving entries of `e..end` unused, `e`
    /// the oldest (see [`Machine::left_unused`]); the first time, name the
    /// one the search tries first, as the trace lists them.
    fn note_left_unused(&mut self, e: u32, end: u32, query: bool) {
        self.left_unused.0 += 1;
        if self.left_unused.1.is_none() {
            let shown = (e..end)
                .rev()
                .find(|&x| self.left_at_end(x, query))
                .unwrap_or(e);
            self.left_unused.1 = Some(self.entry_clause_text(shown));
        }
    }

    // (Not inlined: `&` is rare, and the run loop it would join is hot.)
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn with_mid(
        &mut self,
        g2: Cell,
        node: u32,
        origin: u32,
        mid: u32,
        saved: u32,
        trail: u32,
        ctx_len: u32,
    ) -> bool {
        let v1 = self.slack;
        // The set of what G1 consumed follows the index of the `&`'s own
        // values (for `with_end` to find them).
        self.aux.push(mid);
        let c1 = self.aux.len() as u32;
        let restricted = v1 == 0;
        let token = if restricted {
            let base = self.ctx.entries.len() as u32;
            Some(self.ctx.restrict(&mut self.store.trail, base))
        } else {
            None
        };
        let end = self.store.trail.mark();
        for i in trail as usize..end {
            if let Undo::State(e, _) = self.store.trail.entries[i] {
                let e = e.0;
                if e < ctx_len {
                    let entry = self.ctx.entries[e as usize];
                    if entry.linear && entry.state == GONE {
                        self.aux.push(e);
                        let state = match token {
                            Some(t) => t,
                            None => self.ctx.usable_state(e),
                        };
                        self.ctx.set_state(&mut self.store.trail, e, state);
                    }
                }
            }
        }
        let n = self.aux.len() as u32 - c1;
        let g2_trail = self.store.trail.mark() as u32;
        self.cont = self.push_frame(
            Action::WithEnd {
                c1,
                n,
                v1,
                saved,
                restricted,
                g2_trail,
                ctx_len,
            },
            self.cont,
        );
        self.slack = 0;
        self.push_solve(g2, node, origin);
        true
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn with_end(
        &mut self,
        c1: u32,
        n: u32,
        v1: u32,
        saved: u32,
        restricted: bool,
        g2_trail: u32,
        ctx_len: u32,
    ) -> bool {
        let v2 = self.slack;
        // With slack in G1, G2 may consume more than G1 did: G1's erase
        // swallowed those resources (recorded for the proof).
        let n1 = Self::slack_node(v1);
        if n1 != NONE {
            let c1_set: Vec<u32> = self.aux[c1 as usize..(c1 + n) as usize].to_vec();
            for i in g2_trail as usize..self.store.trail.mark() {
                if let Undo::State(e, _) = self.store.trail.entries[i] {
                    let e = e.0;
                    if e < ctx_len
                        && self.ctx.entries[e as usize].linear
                        && self.ctx.entries[e as usize].state == GONE
                        && !c1_set.contains(&e)
                        && !self.proof.erased.contains(&(n1, e))
                    {
                        self.proof.erased.push((n1, e));
                    }
                }
            }
        }
        for i in c1..c1 + n {
            let e = self.aux[i as usize];
            if self.ctx.entries[e as usize].state != GONE && !self.erase_leftover(e, v2) {
                return false;
            }
        }
        if restricted {
            self.ctx.unrestrict(&mut self.store.trail);
        }
        self.slack = if saved != 0 {
            saved
        } else if v1 != 0 && v2 != 0 {
            v2
        } else {
            0
        };
        // With no choice point made since the `&` began, nothing can come
        // back to it: what it keeps in `aux` goes (a deterministic loop of
        // `&` would otherwise keep 20 bytes a turn).  The frames that refer
        // to those values are gone too (they were made since).
        let mid = self.aux[c1 as usize - 1] as usize;
        if self.choices.len() as u32 <= self.aux[mid + 3] {
            self.aux.truncate(mid);
        }
        true
    }

    // ----------------------------------------------------------------
    // Assumptions

    /// Whether the assumption `goal` (an `-o` or `=>` goal) is the one
    /// that ends a move ([`crate::logic::move_plan`]) in a clause instance
    /// whose `Gk` took a candidate fact with an interned term: the move
    /// (template, and the plan of `Gk , Gk+1`), that term's id and the
    /// number of facts the assumption adds.  The candidate's term decides
    /// those facts (their variables all occur in `Gk`), so their ids,
    /// once found, are remembered by the move and the id, and the facts
    /// assumed by the same move from the same term later are not looked
    /// for again ([`MemoTable::move_facts`], shared with the memo
    /// look-ahead).  Only when the context is named (the memo sums kept).
    pub(super) fn move_assumed(&self, goal: Cell) -> Option<MoveAssumed> {
        let take = self.ctx.move_take;
        if !self.ctx.memo.on || take == MoveTake::NONE {
            return None;
        }
        let (at, tpl, tc) = self.deferred;
        if goal != Cell::Struct(Addr(at)) {
            return None;
        }
        let t = &self.templates[tpl as usize];
        let conjunct = t
            .conjuncts
            .iter()
            .flatten()
            .find(|c| c.goal == Cell::Struct(Addr(tc)))?;
        let (plan, offset) = conjunct.assumes?;
        if take.goal != (at as i64 + offset) as u32 {
            return None;
        }
        let res = self.ctx.entries.get(take.entry as usize)?.res;
        let facts = t.ahead[plan as usize].moved.as_ref()?.facts.len();
        (res != NO_RES && facts <= MAX_MOVE_FACTS).then_some(MoveAssumed {
            moved: (tpl, plan),
            res,
            facts,
        })
    }

    /// Remember the ids of the facts move `m` assumed, entries `first ..`
    /// (the assumption's parts in reverse order), when every one has one.
    fn learn_move(&mut self, m: MoveAssumed, first: u32) {
        let mut ids = [0u32; MAX_MOVE_FACTS];
        let mut hash = 0u64;
        for (i, id) in ids.iter_mut().enumerate().take(m.facts) {
            let entry = &self.ctx.entries[(first as usize) + m.facts - 1 - i];
            if entry.res == NO_RES {
                return;
            }
            *id = entry.res;
            hash = hash.wrapping_add(entry.rhash);
        }
        self.memo.learn_move_facts(m.moved, m.res, (ids, hash));
    }

    /// Assume formula `d` (linear or unbounded); returns the new entry
    /// range.  `moved` says when it ends a move ([`Machine::move_assumed`]).
    pub(super) fn assume(
        &mut self,
        d: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
        moved: Option<MoveAssumed>,
    ) -> Result<(u32, u32), RuntimeError> {
        // The buffers are taken for the call and given back at its end (an
        // error drops them; they are made again when next needed).
        let mut parts = std::mem::take(&mut self.assume_parts);
        parts.clear();
        {
            let heap = &self.store.heap;
            let stack = &mut self.assume_stack;
            split_assumed(
                &heap.cells,
                &|c| heap.deref(c),
                d,
                !linear,
                stack,
                &mut parts,
            )
            .map_err(|e| self.clause_error(e, goal, origin))?;
        }
        let first = self.ctx.entries.len() as u32;
        let moved = moved.filter(|m| m.facts == parts.len());
        let known = moved.and_then(|m| self.memo.move_facts(m.moved, m.res));
        // (Naming a fact may number the terms afresh: the ids read before
        // then, the candidate's too, mean nothing after it.)
        let numbering = self.memo.numbering;
        for (i, part) in parts.iter().enumerate().rev() {
            let id = known
                .filter(|_| self.memo.numbering == numbering)
                .map(|(ids, _)| ids[i]);
            self.assume_clause(part.clause, linear && !part.bang, node, goal, origin, id)?;
        }
        self.assume_parts = parts;
        let end = self.ctx.entries.len() as u32;
        if let (Some(m), None) = (moved, known) {
            // (Each part is one entry.)
            if self.memo.numbering == numbering {
                self.learn_move(m, first);
            }
        }
        Ok((first, end))
    }

    /// Whether assuming `d` (linearly when `linear`) and then solving
    /// `body` is known to fail from the memo table, without assuming
    /// anything: `d` is one or more ground facts joined by `,`, the goal
    /// `body` runs first is a call of a memoized predicate, and its key in
    /// the context the assumption would make is a recorded failure (see
    /// [`Machine::memo_fails_with`]).  A state-changing program such as the
    /// puzzles' (`(b X Y empty , ...) -o jump N`) meets most known
    /// positions here, after the consumptions of a move but before its
    /// new facts are indexed and identified.
    ///
    /// The caller has checked that memoization is on, and that no tracer
    /// (which would show the assumption and the call) and no depth limit
    /// (which the call might exceed, an error rather than a failure) is
    /// set.  Anything else (a clause with a body, a variable, a built-in
    /// head, too many parts) leaves the decision to the call itself.
    pub(super) fn fails_after_assuming(&mut self, d: Cell, body: Cell, linear: bool) -> bool {
        /// Most facts looked at in one assumption.
        const MAX_FACTS: usize = 8;
        let Some(goal) = self.leftmost(body) else {
            return false;
        };
        let (f, n) = match goal {
            Cell::Atom(s) => (s, 0),
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(f, n) => (f, n),
                _ => return false,
            },
            _ => return false,
        };
        if !self.is_memoized(f)
            || self.builtin_of(f, n).is_some()
            || self.foreign_of(f, n).is_some()
        {
            return false;
        }
        let mut parts = std::mem::take(&mut self.assume_parts);
        parts.clear();
        let split = {
            let heap = &self.store.heap;
            let deref = |c: Cell| heap.deref(c);
            split_assumed(
                &heap.cells,
                &deref,
                d,
                !linear,
                &mut self.assume_stack,
                &mut parts,
            )
        };
        let mut facts = [(Cell::Atom(sym::TRUE), 0u64); MAX_FACTS];
        let mut nfacts = 0;
        let mut all_facts = split.is_ok() && parts.len() <= MAX_FACTS;
        for part in parts.iter() {
            // A part under `!` in `-o` would be unbounded, and any clause
            // other than a ground fact decides for itself.
            match self.ground_fact_key(part.clause) {
                Some(key) if all_facts && part.bang != linear => {
                    facts[nfacts] = (part.clause, key);
                    nfacts += 1;
                }
                _ => {
                    all_facts = false;
                    break;
                }
            }
        }
        self.assume_parts = parts;
        all_facts && self.memo_fails_with(goal, &facts[..nfacts], linear)
    }

    /// The whole-atom index key of `c`, a part of an assumption, when it
    /// is a ground fact that [`Machine::check_heads`] accepts.
    fn ground_fact_key(&mut self, c: Cell) -> Option<u64> {
        let heap = &self.store.heap;
        let (f, n) = match heap.deref(c) {
            Cell::Atom(s) => (s, 0),
            Cell::Struct(a) => match heap.get(a) {
                Cell::Functor(f, n) => (f, n),
                _ => return None,
            },
            _ => return None,
        };
        // What `check_heads` refuses, and every connective (a clause with
        // a body, `&`): the assumption decides those.
        if self.built_in_name(f, n) {
            return None;
        }
        let deref = |c: Cell| heap.deref(c);
        keys_of(&heap.cells, &heap.digests, deref, c, &mut self.scratch)
            .1
            .whole
    }

    pub(super) fn clause_error(&self, e: ClauseError, goal: Cell, origin: u32) -> RuntimeError {
        match e {
            ClauseError::Unbound => self
                .goal_error("an unbound variable was assumed as a clause", goal, origin)
                .note("bind the variable to a clause before assuming it"),
            ClauseError::NotAClause(c @ Cell::Eigen(_)) => self
                .goal_error(
                    format!(
                        "cannot assume a clause for `{}`, the constant of a `forall` that \
                         does not use its name as a predicate",
                        self.show(c)
                    ),
                    goal,
                    origin,
                )
                .note(FORALL_PREDICATE),
            ClauseError::NotAClause(c) => {
                let e = self.goal_error(
                    format!("`{}` is not a clause and cannot be assumed", self.show(c)),
                    goal,
                    origin,
                );
                // `N <= 3` meant as a comparison assumes the number 3.
                let reverse = match self.store.heap.deref(goal) {
                    Cell::Struct(a) => matches!(self.store.heap.get(a),
                        Cell::Functor(f, 2) if self.symbols.name(f) == "<="),
                    _ => false,
                };
                if reverse && matches!(c, Cell::Int(_)) {
                    e.note(
                        "`<=` is the implication `G <= D` (`D => G`); less than or equal is `=<`",
                    )
                } else {
                    e
                }
            }
            ClauseError::HasBinder => self.goal_error("unexpected quantifier", goal, origin),
            ClauseError::Exists => self
                .goal_error(crate::logic::clause::EXISTS_IN_CLAUSE, goal, origin)
                .note("an existential belongs in a goal: `exists x \\ G`"),
        }
    }

    /// Assume one clause of an assumption (a part of it, see
    /// [`split_assumed`]); `id` is the id of its term when known (a move's
    /// fact, see [`Machine::move_assumed`]).
    pub(super) fn assume_clause(
        &mut self,
        clause: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
        id: Option<u32>,
    ) -> Result<(), RuntimeError> {
        if let Some(id) = id.filter(|_| self.ctx.memo.on) {
            if self.assume_known_fact(clause, linear, node, id) {
                return Ok(());
            }
        }
        let mut alts = std::mem::take(&mut self.assume_alts);
        alts.clear();
        let r = {
            let heap = &self.store.heap;
            clause_alts(&heap.cells, &|c| heap.deref(c), clause, &mut alts)
        };
        match r {
            Ok(()) => {}
            Err(ClauseError::HasBinder) => {
                return self.assume_generic(clause, linear, node, goal, origin)
            }
            Err(e) => return Err(self.clause_error(e, goal, origin)),
        }
        // A head written `F a` with F bound is the atom it denotes.
        for a in alts.iter_mut() {
            if a.pred.0 == sym::APPLY {
                let flat = self.store.flatten_apply(a.head);
                if let Some((f, n, _)) = self.store.heap.functor(self.store.deref(flat)) {
                    a.head = flat;
                    a.pred = (f, n);
                }
            }
        }
        self.check_heads(alts.iter().map(|a| (a.pred, Some(a.head))), goal, origin)?;
        let start = self.ctx.heap_alts.len() as u32;
        for a in &alts {
            let body = self.ctx.bodies.len() as u32;
            self.ctx.bodies.extend_from_slice(&a.body);
            self.ctx.heap_alts.push(crate::engine::context::HeapAlt {
                head: a.head,
                pred: a.pred,
                body,
                nbody: a.body.len() as u32,
                ground: false,
                args: Default::default(),
            });
        }
        let n = alts.len() as u32;
        self.assume_alts = alts;
        let e = self.ctx.push_entry(
            linear,
            Source::Heap {
                clause,
                alts: start,
                n,
            },
            node,
        );
        // Whether it is a ground fact, for its memo identity.  (A clause of
        // no alternatives, `true`, is no fact.)
        let fact = self.ctx.memo.on && n == 1 && {
            let alt = &self.ctx.heap_alts[start as usize];
            alt.nbody == 0 && alt.head == self.store.heap.deref(clause)
        };
        // A fact whose term's id is known: its keys too, once computed.
        let id = id.filter(|_| fact);
        let known_keys = id.and_then(|id| self.memo.fact_keys(id));
        // The first alternative's whole-atom key, for the memo identity of
        // a ground fact.
        let mut fact_key = None;
        // Alternatives are indexed last first, so the first is on top of
        // its buckets and is tried first.
        for k in (0..n).rev() {
            let alt = &mut self.ctx.heap_alts[(start + k) as usize];
            let mut computed = || {
                let mut args = [Digest::default(); ALT_DIGESTS];
                let heap = &self.store.heap;
                let (pred, keys) = head_keys_and_digests(
                    &heap.cells,
                    &heap.digests,
                    |c| heap.deref(c),
                    alt.head,
                    &mut self.scratch,
                    |i, d| {
                        if let Some(a) = args.get_mut(i) {
                            *a = d;
                        }
                    },
                );
                (pred, keys, args)
            };
            let (pred, keys, args) = match known_keys {
                Some(known) => {
                    debug_assert_eq!(known, computed(), "the keys of a fact by its id");
                    known
                }
                None => computed(),
            };
            alt.ground = keys.whole.is_some();
            if alt.ground {
                alt.args = args;
            }
            fact_key = keys.whole;
            if let (Some(id), None) = (id, known_keys) {
                self.memo.keep_fact_keys(id, (pred, keys, args));
            }
            self.ctx.index(&mut self.store.trail, e, k, pred, &keys);
        }
        if n == 1 {
            let alt = &self.ctx.heap_alts[start as usize];
            self.ctx.entries[e as usize].fact = alt.ground && alt.nbody == 0;
        }
        if self.ctx.memo.on {
            match id {
                Some(id) => self.identify_known(e, clause, fact_key, id),
                None => self.identify_fact(e, clause, fact_key.filter(|_| fact)),
            }
        }
        Ok(())
    }

    /// [`Self::assume_clause`] of a fact of a move whose term's id `id`
    /// is known, when its index keys are kept (see
    /// [`Machine::move_assumed`]): the same fact was assumed before the
    /// usual way, its head checked and its keys computed then, so it is
    /// pushed and indexed at once, on the buckets it joined last time
    /// when they still hold.  False when the keys are not kept.
    fn assume_known_fact(&mut self, clause: Cell, linear: bool, node: u32, id: u32) -> bool {
        let Machine {
            memo, ctx, store, ..
        } = self;
        let Some(known) = memo.known_fact(id) else {
            return false;
        };
        let (pred, keys, args) = known.keys;
        let head = store.heap.deref(clause);
        debug_assert!({
            let heap = &store.heap;
            let computed = head_keys_and_digests(
                &heap.cells,
                &heap.digests,
                |c| heap.deref(c),
                head,
                &mut Vec::new(),
                |_, _| {},
            );
            computed == (pred, keys)
        });
        let start = ctx.heap_alts.len() as u32;
        let ground = keys.whole.is_some();
        ctx.heap_alts.push(crate::engine::context::HeapAlt {
            head,
            pred,
            body: ctx.bodies.len() as u32,
            nbody: 0,
            ground,
            args: if ground { args } else { Default::default() },
        });
        let e = ctx.push_entry(
            linear,
            Source::Heap {
                clause,
                alts: start,
                n: 1,
            },
            node,
        );
        ctx.entries[e as usize].fact = ground;
        ctx.index_known(&mut store.trail, e, pred, &keys, &mut known.targets);
        self.identify_known(e, clause, keys.whole, id);
        true
    }

    /// Refuse to assume clauses for the heads `preds` (each with its head
    /// term, when known) when one is built in, or is a variable
    /// application whose function is not a name (still unbound, say).
    pub(super) fn check_heads(
        &self,
        preds: impl Iterator<Item = ((SymId, u32), Option<Cell>)>,
        goal: Cell,
        origin: u32,
    ) -> Result<(), RuntimeError> {
        for ((f, n), head) in preds {
            if f == sym::APPLY {
                return Err(self.apply_head_error(head, goal, origin));
            }
            if self.built_in_name(f, n) {
                let name = self.symbols.name(f);
                return Err(self.goal_error(
                    format!("cannot assume a clause for `{name}`, which is built in"),
                    goal,
                    origin,
                ));
            }
        }
        Ok(())
    }

    /// The error for a clause whose head is a variable application `F a`
    /// that does not denote an atom (it was flattened if it did): `F` is
    /// unbound, or bound to what is not a name.
    #[cold]
    #[inline(never)]
    fn apply_head_error(&self, head: Option<Cell>, goal: Cell, origin: u32) -> RuntimeError {
        let unbound = || {
            self.goal_error(
                "cannot assume a clause whose head is a variable applied to arguments \
                 while the variable is unbound: the clause's predicate is not known",
                goal,
                origin,
            )
        };
        let hint = "bind the variable to a predicate name first, as in `F = p, (F a) -o p a`";
        let Some((h, f)) = head.and_then(|h| {
            let (_, n, args) = self.store.heap.functor(self.store.deref(h))?;
            (n > 0).then(|| (h, self.store.deref(self.store.heap.get(args))))
        }) else {
            return unbound().note(hint);
        };
        let p = self.printer();
        let (head, f_text) = (p.term(h), p.term(f));
        if let Cell::Eigen(_) = f {
            self.goal_error(
                format!(
                    "cannot assume a clause whose head `{head}` applies `{f_text}`, the \
                     constant of a `forall` that does not use its name as a predicate"
                ),
                goal,
                origin,
            )
            .note(FORALL_PREDICATE)
        } else if p.is_unbound(f) {
            self.goal_error(
                format!(
                    "cannot assume a clause whose head `{head}` is the variable `{f_text}` \
                     applied to arguments: `{f_text}` is unbound, so the clause's predicate \
                     is not known"
                ),
                goal,
                origin,
            )
            .note(hint)
        } else {
            self.goal_error(
                format!(
                    "cannot assume a clause whose head `{head}` applies `{f_text}`, \
                     which is not a predicate name"
                ),
                goal,
                origin,
            )
        }
    }

    /// Assume a heap clause that quantifies variables (`forall x \ R`): it is
    /// turned into a template whose environment is its free variables, so
    /// each use renames the quantified ones.
    pub(super) fn assume_generic(
        &mut self,
        clause: Cell,
        linear: bool,
        node: u32,
        goal: Cell,
        origin: u32,
    ) -> Result<(), RuntimeError> {
        let (tpl, env) = crate::engine::generalize::template_of_heap(self, clause)
            .map_err(|e| self.clause_error(e, goal, origin))?;
        self.check_heads(tpl.keys.iter().map(|(p, _)| (*p, None)), goal, origin)?;
        let env_start = self.ctx.envs.len() as u32;
        self.ctx.envs.extend_from_slice(&env);
        let keys = tpl.keys.clone();
        let first_call = !linear && tpl.has_first_call();
        self.templates.push(Rc::new(tpl));
        let id = self.templates.len() as u32 - 1;
        self.own_templates_from(self.ctx.entries.len() as u32, id);
        let e = self.ctx.push_entry(
            linear,
            Source::Template {
                tpl: id,
                env: env_start,
            },
            node,
        );
        self.ctx.entries[e as usize].first_call = first_call;
        if self.ctx.memo.on {
            self.identify(e);
        }
        for (k, (pred, key)) in keys.iter().enumerate().rev() {
            self.ctx
                .index(&mut self.store.trail, e, k as u32, *pred, key);
        }
        Ok(())
    }
}
