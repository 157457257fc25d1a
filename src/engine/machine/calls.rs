//! Calls: choosing candidates from the index (newest first), backchaining on
//! a clause or consuming a resource, and unifying clause templates against
//! heap terms without copying them first.

#[allow(unused_imports)]
use super::*;

impl Machine {
    // ----------------------------------------------------------------
    // Calls

    /// Try the candidates of `cursor` for atom `goal`.
    pub(super) fn call(
        &mut self,
        goal: Cell,
        mut cursor: Cursor,
        parent: u32,
        origin: u32,
    ) -> Step {
        if let Some(max) = self.options.max_depth {
            if self.depth >= max {
                return Err(self
                    .goal_error(format!("the proof is deeper than --max-depth {max}"), goal, origin)
                    .note("raise the limit with --max-depth, or look for a recursion that does not end"));
            }
        }
        let Some(item) = self.next_candidate(goal, &mut cursor) else {
            if self.tracer.is_some() {
                self.trace(crate::engine::trace::TraceKind::Fail, goal, String::new());
            }
            return Ok(false);
        };
        if Context::has_more(&cursor) {
            self.push_choice(Alternative::Clauses {
                goal,
                cursor,
                parent,
                depth: self.depth,
            });
        }
        let more = Context::has_more(&cursor);
        let ok = self.try_item(goal, item, parent);
        if ok && cursor.begins_move {
            self.took_move(goal, item);
        }
        self.traced_try(goal, item, ok, more);
        Ok(ok)
    }

    /// Record that call `goal`, which begins a move, took `item` (see
    /// [`MoveTake`]).
    #[inline(never)]
    fn took_move(&mut self, goal: Cell, item: Item) {
        if let Cell::Struct(a) = goal {
            self.ctx
                .set_move_take(&mut self.store.trail, a.0, item.entry);
        }
    }

    /// Try the next candidates of the newest choice point, a `Clauses`
    /// alternative whose state was just restored: the choice is updated in
    /// place while candidates remain after the one tried, popped otherwise.
    pub(super) fn retry(&mut self, goal: Cell, mut cursor: Cursor, parent: u32) -> Step {
        let item = self.next_candidate(goal, &mut cursor);
        let more = item.is_some() && Context::has_more(&cursor);
        self.resume_newest(more, |alt| {
            if let Alternative::Clauses { cursor: c, .. } = alt {
                *c = cursor;
            }
        });
        let Some(item) = item else {
            if self.tracer.is_some() {
                self.trace(crate::engine::trace::TraceKind::Fail, goal, String::new());
            }
            return Ok(false);
        };
        let ok = self.try_item(goal, item, parent);
        if ok && cursor.begins_move {
            self.took_move(goal, item);
        }
        self.traced_try(goal, item, ok, more);
        Ok(ok)
    }

    /// The next candidate of a call to try: the next usable item, passing
    /// over the clauses whose first conjunct would find nothing (see
    /// [`Machine::first_conjunct_fails`]) when no tracer is installed and
    /// no depth limit set.
    #[inline(always)]
    fn next_candidate(&mut self, goal: Cell, cursor: &mut Cursor) -> Option<Item> {
        let item = self.ctx.next_usable(cursor)?;
        if !self.ctx.entries[item.entry as usize].first_call {
            return Some(item);
        }
        self.next_clause_candidate(goal, cursor, item)
    }

    /// [`Self::next_candidate`] of call `goal` from `item`, a clause with a
    /// first call.
    #[inline(never)]
    fn next_clause_candidate(
        &mut self,
        goal: Cell,
        cursor: &mut Cursor,
        mut item: Item,
    ) -> Option<Item> {
        let mut seen = None;
        while self.first_conjunct_fails(goal, item, &mut seen) {
            item = self.ctx.next_usable(cursor)?;
        }
        Some(item)
    }

    /// Report a candidate's outcome to the tracer, if one is installed.  A
    /// candidate whose head did not match is not shown: with more left,
    /// the search backtracks at once to this call's choice point, and that
    /// is no `redo` (see [`Machine::quiet_redo`]).
    #[inline]
    fn traced_try(&mut self, goal: Cell, item: Item, ok: bool, more: bool) {
        if self.tracer.is_none() {
            return;
        }
        self.quiet_redo = !ok && more;
        if !ok && !more {
            self.trace(crate::engine::trace::TraceKind::Fail, goal, String::new());
        }
        if ok {
            let linear = self.ctx.entries[item.entry as usize].linear;
            let kind = if linear {
                crate::engine::trace::TraceKind::Resource
            } else {
                crate::engine::trace::TraceKind::Clause
            };
            let text = self.entry_text(item.entry);
            self.trace(kind, goal, text);
        }
    }

    /// Push a body goal (a heap term) of the clause in entry `e`.
    fn push_body(&mut self, b: Body, node: u32, e: u32) {
        match b {
            Body::Goal(g) => self.push_solve(g, node, e),
            Body::Bang(g) => {
                self.cont = self.push_frame(
                    Action::Bang {
                        goal: g,
                        parent: node,
                        origin: e,
                    },
                    self.cont,
                )
            }
        }
    }

    pub(super) fn try_item(&mut self, goal: Cell, item: Item, parent: u32) -> bool {
        let e = item.entry;
        let entry = self.ctx.entries[e as usize];
        match entry.source {
            Source::Heap { alts, .. } => {
                let alt = self.ctx.heap_alts[(alts + item.alt) as usize];
                let unified = if alt.ground {
                    self.store.unify_ground(goal, alt.head)
                } else {
                    self.store.unify(alt.head, goal)
                };
                if !unified {
                    return false;
                }
                if entry.linear {
                    self.ctx.set_state(&mut self.store.trail, e, GONE);
                }
                let node = self.fact_step(parent, goal, e);
                self.depth += 1;
                for i in (0..alt.nbody).rev() {
                    let b = self.ctx.bodies[(alt.body + i) as usize];
                    self.push_body(b, node, e);
                }
                self.depth -= 1;
                true
            }
            Source::Template { tpl, .. } if entry.ground != NONE => {
                // A ground fact built on the heap when it was assumed: unify
                // with its head there (no copy of the template's subterms).
                let head = if entry.fact {
                    Cell::Struct(Addr(entry.ground))
                } else {
                    let t = &self.templates[tpl as usize];
                    let alt = &t.alts[item.alt as usize];
                    if !alt.body.is_empty() {
                        return self.try_template(goal, item, parent);
                    }
                    match (alt.head, t.root) {
                        (Cell::Struct(a), Cell::Struct(r)) => {
                            Cell::Struct(Addr(entry.ground + (a.0 - r.0)))
                        }
                        (other, _) => other,
                    }
                };
                if !self.store.unify_ground(goal, head) {
                    return false;
                }
                if entry.linear {
                    self.ctx.set_state(&mut self.store.trail, e, GONE);
                }
                self.fact_step(parent, goal, e);
                true
            }
            Source::Template { .. } => self.try_template(goal, item, parent),
        }
    }

    /// Run the deferred conjunct at block `at` (template `tpl`'s cell `tc`)
    /// at once when it is a take of the move in progress (see
    /// [`crate::logic::template::Conjunct::take`]) whose fact is known:
    /// `Some(true)` when it was taken, `None` when the conjunct is to be
    /// solved the usual way.
    ///
    /// The candidate the move's `Gk` took (`Context::move_take`) decides
    /// the take's goal, a ground atom, so the fact a take found once after
    /// a candidate of the same term is the one it finds again
    /// ([`MemoTable::take_fact`]: the fact's term id and the call's
    /// whole-atom key).  When the one usable item that can match the call
    /// is a fact of that term ([`Context::single_fact`]: no other item
    /// can unify with a ground call), the call would try it, match it
    /// (equal ground terms), consume it if linear and go on, with no other
    /// candidate to come back to; this does the same, counted as the same
    /// inference, without computing the keys or matching, and without
    /// filling the block unless proofs are recorded (the proof's step, the
    /// one the usual way makes under `parent`, names the goal there).
    /// Anything else (several candidates, another term, a tracer, a depth
    /// limit, a predicate that is not a plain lookup) goes the usual way.
    /// The facts are learnt the usual way's first time
    /// ([`Self::learn_take`]), and only while the resource terms have ids
    /// (the memo sums kept).
    #[inline]
    pub(super) fn fast_take(
        &mut self,
        at: u32,
        tpl: u32,
        tc: u32,
        env: u32,
        parent: u32,
    ) -> Option<bool> {
        let take = self.ctx.move_take;
        if take == MoveTake::NONE || !self.ctx.memo.on {
            return None;
        }
        let t = &self.templates[tpl as usize];
        if t.takes.is_empty() {
            return None;
        }
        let of = t.takes[t.takes.binary_search_by_key(&tc, |x| x.goal).ok()?];
        if take.goal != (at as i64 + of.offset) as u32
            || self.tracer.is_some()
            || self.options.max_depth.is_some()
        {
            return None;
        }
        let cand = self.ctx.entries.get(take.entry as usize)?.res;
        let pred = t.ahead[of.plan as usize].moved.as_ref()?.takes[of.k as usize].pred;
        if cand == crate::engine::memo::NO_RES || !self.plain_lookup(pred) {
            return None;
        }
        let moved = (tpl, of.plan);
        let Some(known) = self.memo.take_fact(moved, of.k, cand) else {
            self.learn_take(at, tpl, tc, env, (moved, of.k, cand), pred);
            return None;
        };
        let ((res, whole), buckets) = (known.fact, &mut known.buckets);
        let ctx = &self.ctx;
        let item = ctx.single_fact_known(pred, whole, buckets, |it| {
            ctx.entries[it.entry as usize].res == res
        })?;
        self.fact_head(item)?;
        self.inferences += 1;
        self.known_takes += 1;
        if self.ctx.entries[item.entry as usize].linear {
            self.ctx.set_state(&mut self.store.trail, item.entry, GONE);
        }
        if self.options.proofs {
            self.known_take_step(at, (tpl, tc, env), parent, item);
        }
        Some(true)
    }

    /// The proof step of a take made from a known fact (see
    /// [`Self::fast_take`]): the one `try_item` records for the fact, with
    /// the call, the block at `at` of conjunct `tc` of template `tpl`,
    /// filled first as the usual way fills it.
    #[inline(never)]
    fn known_take_step(
        &mut self,
        at: u32,
        (tpl, tc, env): (u32, u32, u32),
        parent: u32,
        item: Item,
    ) {
        self.fill_deferred(at, tpl, tc, env);
        self.fact_step(parent, Cell::Struct(Addr(at)), item.entry);
    }

    /// The proof step of call `goal` matched by entry `e`'s clause head
    /// without a copy of its template (a clause on the heap, or a ground
    /// fact built there): for a template's, the step's slots begin at the
    /// end of the proof's slots (it adds none).
    #[inline]
    fn fact_step(&mut self, parent: u32, goal: Cell, e: u32) -> u32 {
        let slots = match self.ctx.entries[e as usize].source {
            Source::Heap { .. } => NONE,
            Source::Template { .. } => self.proof.slots.len() as u32,
        };
        self.node(parent, Rule::Atom, goal, e, slots)
    }

    /// Whether a call of `pred` is a plain lookup in the context: not a
    /// connective, a built-in, a foreign or a memoized predicate.
    fn plain_lookup(&self, (f, n): (SymId, u32)) -> bool {
        !self.built_in_name(f, n)
            && f != sym::APPLY
            && self.foreign_of(f, n).is_none()
            && !(self.ctx.memo.on && self.memo_preds.get(f.0 as usize) == Some(&true))
    }

    /// Learn what the take at block `at` finds (see [`Self::fast_take`]):
    /// fill the block and, when the goal is ground and can match one
    /// usable item only, a fact whose term has an id and is the goal,
    /// remember it under `key` (the move, the take's place, the
    /// candidate's term).  Changes nothing but the block, which
    /// the usual way fills anyway.
    #[cold]
    #[inline(never)]
    fn learn_take(
        &mut self,
        at: u32,
        tpl: u32,
        tc: u32,
        env: u32,
        key: ((u32, u32), u32, u32),
        pred: (SymId, u32),
    ) {
        self.fill_deferred(at, tpl, tc, env);
        let g = Cell::Struct(Addr(at));
        let heap = &self.store.heap;
        let (found, keys) = keys_of(
            &heap.cells,
            &heap.digests,
            |c| heap.deref(c),
            g,
            &mut self.scratch,
        );
        let (Some(whole), Some(pix)) = (keys.whole, self.ctx.pred_index(pred)) else {
            return;
        };
        if found != pred {
            return;
        }
        let Some(item) = self.ctx.single_fact(pix, whole, |_| true) else {
            return;
        };
        let (Some(head), res) = (
            self.fact_head(item),
            self.ctx.entries[item.entry as usize].res,
        ) else {
            return;
        };
        if res == crate::engine::memo::NO_RES {
            return;
        }
        // The goal is ground: matching binds nothing.
        let mark = self.store.trail.mark();
        let same = self.store.unify_ground(g, head);
        debug_assert_eq!(self.store.trail.mark(), mark);
        if same {
            let ((tpl, plan), k, cand) = key;
            self.memo
                .learn_take_fact((tpl, plan), k, cand, (res, whole));
        }
    }

    /// Backchain on template clause `item` (its variables fresh for this use).
    fn try_template(&mut self, goal: Cell, item: Item, parent: u32) -> bool {
        let e = item.entry;
        let entry = self.ctx.entries[e as usize];
        match entry.source {
            Source::Heap { .. } => false,
            Source::Template { tpl, env } => {
                // Whether the choice of this clause decided the candidates
                // of its first conjunct (see `next_candidate`).
                let decided = entry.first_call && self.first_ahead.item == item;
                if decided {
                    self.first_ahead.item = lookahead::NO_ITEM;
                }
                let t = self.templates[tpl as usize].clone();
                let alt = &t.alts[item.alt as usize];
                let mut slots = std::mem::take(&mut self.slots);
                slots.clear();
                slots.resize(t.nslots as usize, None);
                let env_cells = &self.ctx.envs[env as usize..env as usize + t.env_len as usize];
                for (slot, &c) in slots.iter_mut().zip(env_cells) {
                    *slot = Some(c);
                }
                let ok = if t.binder_heads {
                    // Binder terms match up to the names they bind, which
                    // `unify` sees to.
                    let head = self.copy_template(&t, alt.head, &mut slots);
                    self.store.unify(head, goal)
                } else {
                    self.unify_template(&t, alt.head, goal, &mut slots)
                };
                // Candidates decided with the head's variables in `G1`
                // unbound are the call's if the head left them so.
                let decided = decided && (!ok || self.head_left_unbound(&t, item.alt, &slots));
                if ok {
                    if entry.linear {
                        self.ctx.set_state(&mut self.store.trail, e, GONE);
                    }
                    let node = self.node(parent, Rule::Atom, goal, e, 0);
                    self.depth += 1;
                    // Traces show each `,` step when it is taken: they
                    // get the body copied whole, as it is written, and so
                    // do proofs of a body whose steps are not all made
                    // before its first conjunct runs.
                    let conjuncts = &t.conjuncts[item.alt as usize];
                    let deferred = !conjuncts.is_empty()
                        && (!self.options.proofs || t.left_nested[item.alt as usize])
                        && self.tracer.is_none();
                    if deferred && node != NONE {
                        self.push_conjuncts_proved(&t, tpl, conjuncts, &mut slots, node, e);
                    } else if deferred {
                        self.push_conjuncts(&t, tpl, conjuncts, &mut slots, node, e);
                    } else {
                        for b in alt.body.iter().rev() {
                            let b = match *b {
                                Body::Goal(g) => Body::Goal(self.copy_template(&t, g, &mut slots)),
                                Body::Bang(g) => Body::Bang(self.copy_template(&t, g, &mut slots)),
                            };
                            self.push_body(b, node, e);
                        }
                    }
                    self.depth -= 1;
                    // Whether the first conjunct begins a move whose facts
                    // are named by the move (see `Machine::move_assumed`).
                    let moves = deferred
                        && conjuncts.get(1).is_some_and(|c| {
                            c.plan != NONE && t.ahead[c.plan as usize].moved.is_some()
                        });
                    if (decided || moves) && deferred {
                        // The first conjunct is solved next.
                        if let Action::Solve {
                            goal: Cell::Struct(a),
                            ..
                        } = self.frames[self.cont as usize].action
                        {
                            if decided {
                                self.first_ahead.at = a.0;
                            }
                            if moves {
                                self.move_first = a.0;
                            }
                        }
                    }
                    if node != NONE {
                        let s = self.proof.slots.len() as u32;
                        for sl in slots.iter() {
                            let c = match sl {
                                Some(c) => *c,
                                None => self.store.heap.new_var(),
                            };
                            self.proof.slots.push(c);
                        }
                        self.proof.nodes[node as usize].b = s;
                    }
                }
                self.slots = slots;
                ok
            }
        }
    }

    /// Whether the variables of the head in the first conjunct of
    /// alternative `alt` of `t` (see [`FirstCall::shared_slots`]) are
    /// distinct unbound variables after the head matched (`slots`), so that
    /// the conjunct's candidates are those decided when the clause was
    /// chosen.  True when it holds none.
    ///
    /// [`FirstCall::shared_slots`]: crate::logic::lookahead::FirstCall::shared_slots
    #[inline]
    fn head_left_unbound(&self, t: &Template, alt: u32, slots: &[Option<Cell>]) -> bool {
        let Some(fc) = t.conjuncts[alt as usize]
            .first()
            .and_then(|c| c.first.as_ref())
        else {
            return true;
        };
        if !fc.shared {
            return true;
        }
        let Some(shared) = fc.shared_slots() else {
            return false;
        };
        let mut seen = [Addr(u32::MAX); crate::logic::lookahead::MAX_SHARED];
        for (k, &s) in shared.iter().enumerate() {
            // (A slot the head did not reach gets a fresh variable.)
            let Some(c) = slots[s as usize] else { continue };
            match self.store.heap.deref(c) {
                Cell::Ref(v) if !seen[..k].contains(&v) => seen[k] = v,
                _ => return false,
            }
        }
        true
    }

    /// Push the conjuncts `G1 , ... , Gn` of a template clause instance's
    /// body (the head has matched) as goals of their own.  `G1` is copied to
    /// the heap now.  Each later compound conjunct gets a block of cells
    /// reserved now and filled when the goal is first reached
    /// ([`Self::fill_deferred`]): a conjunct never reached (an earlier one
    /// failed) is never copied, and one reached again after backtracking
    /// into an earlier conjunct is not copied again, since its block lies
    /// below that conjunct's choice points.  The instance's variables get
    /// their cells now, in an environment block the deferred conjuncts
    /// refer to.
    fn push_conjuncts(
        &mut self,
        t: &Template,
        tpl: u32,
        conjuncts: &[Conjunct],
        slots: &mut [Option<Cell>],
        node: u32,
        e: u32,
    ) {
        let (env, start, reserved) = self.reserve_conjuncts(conjuncts, slots);
        let mut end = start + reserved;
        for (k, c) in conjuncts.iter().enumerate().rev() {
            match c.goal {
                Cell::Struct(a) if k > 0 => {
                    let at = end - c.len;
                    end = at;
                    let action = Action::Deferred {
                        at,
                        tpl,
                        tc: a.0,
                        plan: c.plan,
                        env,
                        parent: node,
                        origin: e,
                        begins: c.begins,
                    };
                    self.cont = self.push_frame(action, self.cont);
                }
                Cell::Struct(a) => {
                    // The block's length is known: no walk to find its end.
                    let g = self.copy_block(t, a, a.ix() + c.len as usize, slots);
                    self.push_solve(g, node, e);
                }
                g => {
                    let g = self.copy_template(t, g, slots);
                    self.push_solve(g, node, e);
                }
            }
        }
    }

    /// The heap cells of a body run conjunct by conjunct: the instance's
    /// environment (every slot gets its cell, unbound ones a fresh
    /// variable), then the reserved blocks of conjuncts 1.., one after the
    /// other.  Returns where each begins, and the blocks' length.
    #[inline(always)]
    fn reserve_conjuncts(
        &mut self,
        conjuncts: &[Conjunct],
        slots: &mut [Option<Cell>],
    ) -> (u32, u32, u32) {
        let env = self.store.heap.len() as u32;
        for (i, slot) in slots.iter_mut().enumerate() {
            let c = *slot.get_or_insert(Cell::Ref(Addr(env + i as u32)));
            self.store.heap.cells.push(c);
        }
        let start = self.store.heap.len() as u32;
        let reserved: u32 = conjuncts[1..].iter().map(|c| c.len).sum();
        let cells = &mut self.store.heap.cells;
        cells.resize(cells.len() + reserved as usize, UNFILLED);
        (env, start, reserved)
    }

    /// [`Self::push_conjuncts`] with proofs recorded, for a conjunction
    /// that nests to the left only (`(G1 , G2) , G3`).  Solving the body
    /// whole would make its `,` steps' proof nodes first, outermost first,
    /// then prove `G1` and `G2` under the innermost, and each later
    /// conjunct under the step that joins it.  So do these: the steps'
    /// goals are a spine of `,` terms built now over the conjuncts'
    /// blocks, which are filled by the time a proof is read (a proof's
    /// conjuncts were all reached).  The blocks and `G1` are where
    /// [`Self::push_conjuncts`] puts them, so the look-ahead's plans apply.
    fn push_conjuncts_proved(
        &mut self,
        t: &Template,
        tpl: u32,
        conjuncts: &[Conjunct],
        slots: &mut [Option<Cell>],
        node: u32,
        e: u32,
    ) {
        let (env, start, _) = self.reserve_conjuncts(conjuncts, slots);
        // Each conjunct's goal: G1 copied after the blocks, a compound
        // later conjunct its block, any other copied now.
        let mut goals = std::mem::take(&mut self.conjunct_goals);
        goals.clear();
        let mut at = start;
        for (k, c) in conjuncts.iter().enumerate() {
            goals.push(match c.goal {
                Cell::Struct(a) if k == 0 => self.copy_block(t, a, a.ix() + c.len as usize, slots),
                Cell::Struct(_) => {
                    at += c.len;
                    Cell::Struct(Addr(at - c.len))
                }
                g => self.copy_template(t, g, slots),
            });
        }
        // The spine: step j (from 1) is `Sj-1 , Gj+1`, with S0 = G1.
        let spine = self.store.heap.len() as u32;
        let step = |j: usize| Cell::Struct(Addr(spine + 3 * (j as u32 - 1)));
        for j in 1..goals.len() {
            let left = if j == 1 { goals[0] } else { step(j - 1) };
            self.store.heap.cells.extend_from_slice(&[
                Cell::Functor(sym::COMMA, 2),
                left,
                goals[j],
            ]);
        }
        // The steps' nodes, outermost first; `parents[k]` is conjunct k's.
        let mut parents = std::mem::take(&mut self.conjunct_parents);
        parents.clear();
        parents.resize(goals.len(), node);
        let mut parent = node;
        for j in (1..goals.len()).rev() {
            parent = self.node(parent, Rule::Tensor, step(j), 0, 0);
            parents[j] = parent;
        }
        parents[0] = parent;
        for (k, c) in conjuncts.iter().enumerate().rev() {
            match (c.goal, goals[k]) {
                (Cell::Struct(a), Cell::Struct(at)) if k > 0 => {
                    let action = Action::Deferred {
                        at: at.0,
                        tpl,
                        tc: a.0,
                        plan: c.plan,
                        env,
                        parent: parents[k],
                        origin: e,
                        begins: c.begins,
                    };
                    self.cont = self.push_frame(action, self.cont);
                }
                (_, g) => self.push_solve(g, parents[k], e),
            }
        }
        self.conjunct_goals = goals;
        self.conjunct_parents = parents;
    }

    /// Fill the block of a deferred body goal (see [`Self::push_conjuncts`])
    /// unless an earlier visit did: template cells `tc ..` to the end of
    /// that compound term's block, variable slot `s` pointing at cell
    /// `env + s`.  The block is written in place, untrailed: its contents
    /// depend on the template and the environment's addresses only, so they
    /// are the same whenever the goal is reached.
    pub(super) fn fill_deferred(&mut self, at: u32, tpl: u32, tc: u32, env: u32) {
        let cells = &mut self.store.heap.cells;
        if cells[at as usize] != UNFILLED {
            return;
        }
        let t = &self.templates[tpl as usize];
        let len = t.ends[tc as usize] - tc;
        let shift = at.wrapping_sub(tc);
        let block = &mut cells[at as usize..(at + len) as usize];
        for (dst, &cell) in block
            .iter_mut()
            .zip(&t.cells[tc as usize..(tc + len) as usize])
        {
            *dst = match cell {
                Cell::Ref(s) => Cell::Ref(Addr(env + s.0)),
                Cell::Struct(p) => Cell::Struct(Addr(p.0.wrapping_add(shift))),
                other => other,
            };
        }
    }

    /// Unify template cell `tc` (with slots) against heap cell `hc`.
    ///
    /// The terms are walked depth first, left to right.  The arguments of
    /// a pair of compounds are read in place as the walk reaches them, and
    /// a frame is kept only for an outer pair with arguments left, so a
    /// constant or variable argument costs no stack traffic, nor does the
    /// last argument's compound (a list's tail).
    pub(super) fn unify_template(
        &mut self,
        t: &Template,
        tc: Cell,
        hc: Cell,
        slots: &mut [Option<Cell>],
    ) -> bool {
        let mut frames = std::mem::take(&mut self.unify_frames);
        frames.clear();
        let (mut tc, mut hc) = (tc, hc);
        // The compound pair being walked (template functor, heap functor,
        // next argument, arity); the frames hold the outer ones that have
        // arguments left.
        let (mut a, mut b, mut i, mut n) = (0, 0, 0, 0);
        let ok = 'walk: loop {
            match self.unify_template_pair(t, tc, hc, slots) {
                Pair::Failed => break false,
                Pair::Unified => {}
                Pair::Compounds(a2, b2, n2) => {
                    if i < n {
                        frames.push((a, b, i, n));
                    }
                    (a, b, i, n) = (a2, b2, 0, n2);
                }
            }
            while i == n {
                match frames.pop() {
                    Some(f) => (a, b, i, n) = f,
                    None => break 'walk true,
                }
            }
            tc = t.cells[(a + 1 + i) as usize];
            hc = self.store.heap.get(Addr(b + 1 + i));
            i += 1;
        };
        self.unify_frames = frames;
        ok
    }

    /// One pair of [`Self::unify_template`]'s walk: a constant or a slot
    /// is unified now; two compounds with the same functor are left for
    /// the walk to visit their arguments.
    #[inline(always)]
    fn unify_template_pair(
        &mut self,
        t: &Template,
        tc: Cell,
        mut hc: Cell,
        slots: &mut [Option<Cell>],
    ) -> Pair {
        match tc {
            Cell::Ref(s) => match slots[s.ix()] {
                None => {
                    slots[s.ix()] = Some(self.store.deref(hc));
                    Pair::Unified
                }
                Some(v) => Pair::unified(self.store.unify(v, hc)),
            },
            Cell::Struct(a) => loop {
                let h = self.store.deref(hc);
                match h {
                    Cell::Struct(b) => {
                        let fc = t.cells[a.ix()];
                        let fh = self.store.heap.get(b);
                        if fc != fh {
                            let flat = self.store.flatten_apply(h);
                            if flat != h {
                                hc = flat;
                                continue;
                            }
                            // A variable application on either side
                            // (curried: see `Store::unify`): rare, so
                            // the template term is copied and unified.
                            let is_apply = |c: Cell| matches!(c, Cell::Functor(f, _) if f == crate::term::sym::APPLY);
                            if is_apply(fc) || is_apply(fh) {
                                let c = self.copy_template(t, tc, slots);
                                return Pair::unified(self.store.unify(c, h));
                            }
                            return Pair::Failed;
                        }
                        return match fc {
                            Cell::Functor(_, n) if n > 0 => Pair::Compounds(a.0, b.0, n),
                            _ => Pair::Unified,
                        };
                    }
                    Cell::Ref(x) => {
                        // With no scoped name younger than `x`, only the
                        // occurs check matters, and only values already
                        // in slots can hold `x`: the copy's other
                        // variables are new.
                        let quick = self.store.heap.no_scoped_names_after(x);
                        if quick && !self.slot_values_can_bind(t, a, slots, x) {
                            return Pair::Failed;
                        }
                        let c = self.copy_template(t, tc, slots);
                        if quick {
                            self.store.bind_plain(x, c);
                        } else if self.store.can_bind(x, c) {
                            self.store.bind(x, c);
                        } else {
                            return Pair::Failed;
                        }
                        return Pair::Unified;
                    }
                    _ => return Pair::Failed,
                }
            },
            constant => {
                let h = self.store.deref(hc);
                if h == constant {
                    return Pair::Unified;
                }
                match h {
                    Cell::Ref(x) if self.store.can_bind(x, constant) => {
                        self.store.bind_plain(x, constant);
                        Pair::Unified
                    }
                    _ => Pair::Failed,
                }
            }
        }
    }

    /// Whether no value already in `slots` for a variable of the template
    /// term at `a` contains the variable `x` (the occurs check for binding
    /// `x` to a copy of that term).
    fn slot_values_can_bind(
        &mut self,
        t: &Template,
        a: Addr,
        slots: &[Option<Cell>],
        x: Addr,
    ) -> bool {
        for &cell in &t.cells[a.ix()..t.block_end(a)] {
            let Cell::Ref(s) = cell else { continue };
            let Some(v) = slots[s.ix()] else { continue };
            match self.store.deref(v) {
                Cell::Ref(y) if y == x => return false,
                v @ Cell::Struct(_) if !self.store.can_bind(x, v) => return false,
                _ => {}
            }
        }
        true
    }

    /// Copy template cell `c` to the heap, creating variables for unset slots.
    pub(crate) fn copy_template(
        &mut self,
        t: &Template,
        c: Cell,
        slots: &mut [Option<Cell>],
    ) -> Cell {
        match c {
            Cell::Ref(s) => match slots[s.ix()] {
                Some(v) => v,
                None => {
                    let v = self.store.heap.new_var();
                    slots[s.ix()] = Some(v);
                    v
                }
            },
            Cell::Struct(a) => self.copy_block(t, a, t.block_end(a), slots),
            other => other,
        }
    }

    /// Copy the template's compound term at `a`, whose block of cells ends
    /// at `end`, to the heap (as [`Self::copy_template`]).
    fn copy_block(
        &mut self,
        t: &Template,
        a: Addr,
        end: usize,
        slots: &mut [Option<Cell>],
    ) -> Cell {
        let start = a.ix();
        let base = self.store.heap.len();
        let heap = &mut self.store.heap.cells;
        // One exact-size extend: no capacity check per cell.
        let shift = (base as u32).wrapping_sub(start as u32);
        heap.extend(
            t.cells[start..end]
                .iter()
                .enumerate()
                .map(|(i, &cell)| match cell {
                    Cell::Ref(s) => match slots[s.ix()] {
                        Some(v) => v,
                        None => {
                            let v = Cell::Ref(Addr((base + i) as u32));
                            slots[s.ix()] = Some(v);
                            v
                        }
                    },
                    Cell::Struct(p) => Cell::Struct(Addr(p.0.wrapping_add(shift))),
                    other => other,
                }),
        );
        Cell::Struct(Addr(base as u32))
    }
}

/// What one pair of a template's unification left (see
/// [`Machine::unify_template`]).
enum Pair {
    /// The pair does not unify.
    Failed,
    /// The pair is unified.
    Unified,
    /// Two compounds with the same functor: the template's at the first
    /// address, the heap's at the second, with this many arguments.
    Compounds(u32, u32, u32),
}

impl Pair {
    #[inline(always)]
    fn unified(ok: bool) -> Pair {
        if ok {
            Pair::Unified
        } else {
            Pair::Failed
        }
    }
}
