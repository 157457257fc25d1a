//! The goal rules: `solve` dispatches a goal on its principal connective
//! (see the rules in the machine's module doc), and the helpers it uses.

#[allow(unused_imports)]
use super::*;

impl Machine {
    // ----------------------------------------------------------------
    // Goals

    #[inline]
    pub(super) fn arg_of(&self, c: Cell, i: u32) -> Cell {
        match self.store.deref(c) {
            Cell::Struct(a) => self.store.heap.arg(a, i),
            other => other,
        }
    }

    pub(super) fn goal_error(
        &self,
        message: impl Into<String>,
        goal: Cell,
        origin: u32,
    ) -> RuntimeError {
        let mut e = RuntimeError::new(message);
        e.goal = Some(self.show(goal));
        self.locate(&mut e, goal, origin);
        e
    }

    /// Point error `e`, raised by `goal` in the body of entry `origin`'s
    /// clause, at the goal as it is written there when exactly one term of
    /// the body can have become `goal` ([`Machine::written_as`]);
    /// otherwise at the whole clause.
    pub(crate) fn locate(&self, e: &mut RuntimeError, goal: Cell, origin: u32) {
        e.origin = self.origin_of(origin);
        e.at_goal = false;
        let Some(Source::Template { tpl, .. }) =
            self.ctx.entries.get(origin as usize).map(|e| e.source)
        else {
            return;
        };
        let t = &self.templates[tpl as usize];
        if let (Some((_, span)), Some(at)) = (
            &mut e.origin,
            t.goal_span(|c| self.written_as(&t.cells, c, goal, 0)),
        ) {
            *span = at;
            e.at_goal = true;
        }
    }

    /// Whether heap term `h` can be an instance of template term `t`: the
    /// same names, numbers and shapes where `t` has them (its variables
    /// stand for anything).  Below a depth of 32, anything.
    fn written_as(&self, cells: &[Cell], t: Cell, h: Cell, depth: u32) -> bool {
        if depth > 32 {
            return true;
        }
        match (t, self.store.deref(h)) {
            (Cell::Struct(a), Cell::Struct(b)) => {
                let Cell::Functor(f, n) = cells[a.ix()] else {
                    return true;
                };
                self.store.heap.get(b) == Cell::Functor(f, n)
                    && (0..n as usize).all(|i| {
                        let h = self.store.heap.arg(b, i as u32);
                        self.written_as(cells, cells[a.ix() + 1 + i], h, depth + 1)
                    })
            }
            (Cell::Struct(_), _) => false,
            (Cell::Atom(_) | Cell::Int(_) | Cell::Str(_), h) => t == h,
            _ => true,
        }
    }

    /// The source position of the clause behind entry `origin`.
    pub fn origin_of(&self, origin: u32) -> Option<(FileId, std::ops::Range<usize>)> {
        let entry = self.ctx.entries.get(origin as usize)?;
        match entry.source {
            Source::Template { tpl, .. } => self.templates.get(tpl as usize)?.origin.clone(),
            Source::Heap { .. } => None,
        }
    }

    /// Print a term for a message or a trace: a variable of the innermost
    /// query that is still unbound shows as the query wrote it, and a large
    /// term is cut short with `...` ([`crate::pretty::Printer::message`]).
    pub fn show(&self, c: Cell) -> String {
        self.printer().message(c)
    }

    /// A printer that names the innermost query's unbound variables as the
    /// query wrote them (see [`Machine::show`]).
    pub fn printer(&self) -> crate::pretty::Printer<'_> {
        self.name_query_vars(crate::pretty::Printer::new(self))
    }

    /// [`Machine::printer`] for the trace: the other unbound variables keep
    /// their numbers for the whole query ([`crate::pretty::Printer::for_trace`]).
    pub(crate) fn trace_printer(&self) -> crate::pretty::Printer<'_> {
        self.name_query_vars(crate::pretty::Printer::for_trace(self))
    }

    fn name_query_vars<'m>(&self, p: crate::pretty::Printer<'m>) -> crate::pretty::Printer<'m> {
        for (name, v) in self.query_names.last().into_iter().flatten() {
            if p.is_unbound(*v) {
                p.name_var(*v, name);
            }
        }
        p
    }

    pub(super) fn solve(&mut self, goal: Cell, parent: u32, origin: u32) -> Step {
        let g = self.store.deref(goal);
        let (f, n, args) = match g {
            Cell::Atom(s) => (s, 0, Addr(0)),
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(f, n) => (f, n, Addr(a.0 + 1)),
                _ => return self.not_a_goal(g, origin),
            },
            _ => return self.not_a_goal(g, origin),
        };
        let arg = |m: &Machine, i: u32| m.store.heap.get(Addr(args.0 + i));
        match (f, n) {
            (sym::TRUE, 0) => {
                self.node(parent, Rule::One, g, 0, 0);
                Ok(true)
            }
            (sym::ERASE, 0) => {
                let node = self.node(parent, Rule::Erase, g, 0, 0);
                self.slack = if node == NONE { 1 } else { node + 2 };
                Ok(true)
            }
            (sym::FAIL, 0) => Ok(false),
            (sym::COMMA, 2) => {
                let node = self.node(parent, Rule::Tensor, g, 0, 0);
                let (a, b) = (arg(self, 0), arg(self, 1));
                self.push_solve(b, node, origin);
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::WITH, 2) => {
                let node = self.node(parent, Rule::With, g, 0, 0);
                let (a, b) = (arg(self, 0), arg(self, 1));
                let aux = self.aux.len() as u32;
                self.aux.extend_from_slice(&[
                    self.slack,
                    self.store.trail.mark() as u32,
                    self.ctx.entries.len() as u32,
                    self.choices.len() as u32,
                ]);
                self.cont = self.push_frame(
                    Action::WithMid {
                        g2: b,
                        node,
                        origin,
                        aux,
                    },
                    self.cont,
                );
                self.slack = 0;
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::SEMI, 2) => {
                self.push_choice(Alternative::Goal {
                    goal: g,
                    parent,
                    origin,
                    rule: Rule::OrRight,
                    depth: self.depth,
                });
                let node = self.node(parent, Rule::OrLeft, g, 0, 0);
                let a = arg(self, 0);
                self.push_solve(a, node, origin);
                Ok(true)
            }
            (sym::LOLLI, 2) | (sym::NECK, 2) | (sym::IMP, 2) | (sym::RIMP, 2) => {
                let (d, body) = if f == sym::LOLLI || f == sym::IMP {
                    (arg(self, 0), arg(self, 1))
                } else {
                    (arg(self, 1), arg(self, 0))
                };
                let linear = f == sym::LOLLI || f == sym::NECK;
                if self.ctx.memo.on
                    && self.tracer.is_none()
                    && self.options.max_depth.is_none()
                    && self.fails_after_assuming(d, body, linear)
                {
                    // The call, made and failed from the table.
                    self.inferences += 1;
                    return Ok(false);
                }
                let rule = if linear { Rule::Lolli } else { Rule::Imp };
                let node = self.node(parent, rule, g, 0, 0);
                let start = self.scope_start();
                let moved = self.move_assumed(g);
                let (first, end) = self.assume(d, linear, node, g, origin, moved)?;
                if self.tracer.is_some() {
                    let what: Vec<String> =
                        (first..end).rev().map(|e| self.entry_text(e)).collect();
                    let kind = if linear {
                        "linearly"
                    } else {
                        "for unbounded use"
                    };
                    let detail = format!("{} {kind}", what.join(", "));
                    self.trace(crate::engine::trace::TraceKind::Assume, body, detail);
                }
                if node != NONE {
                    self.proof.nodes[node as usize].a = first;
                    self.proof.nodes[node as usize].b = end;
                }
                self.enter_scope((first, end), start, body, node, origin);
                Ok(true)
            }
            (sym::LOAD, 2) => self.load_goal(g, arg(self, 0), arg(self, 1), parent, origin),
            (sym::BANG, 1) => {
                let a = arg(self, 0);
                self.bang_node(g, a, parent, origin)
            }
            (sym::GUARD, 3) => {
                let node = self.node(parent, Rule::Guard, g, 0, 0);
                let (c, t, e) = (arg(self, 0), arg(self, 1), arg(self, 2));
                let choice = self.choices.len() as u32;
                self.push_choice(Alternative::Goal {
                    goal: e,
                    parent: node,
                    origin,
                    rule: Rule::Guard,
                    depth: self.depth,
                });
                self.cont = self.push_frame(
                    Action::GuardCommit {
                        choice,
                        then: t,
                        node,
                        origin,
                    },
                    self.cont,
                );
                self.push_solve(c, node, origin);
                Ok(true)
            }
            (sym::FORALL, 2) | (sym::EXISTS, 2) => {
                self.quantifier_goal(g, f, arg(self, 0), arg(self, 1), parent, origin)
            }
            (sym::APPLY, _) if n >= 1 => self.apply_goal(g, args, n, parent, origin),
            _ => {
                if let Some(b) = self.builtin_of(f, n) {
                    self.inferences += 1;
                    return self.builtin(b, g, args, parent, origin);
                }
                if let Some(rust) = self.foreign_of(f, n) {
                    return self.call_foreign(rust, g, args, n, parent, origin);
                }
                self.inferences += 1;
                if self.tracer.is_some() {
                    self.trace(crate::engine::trace::TraceKind::Call, g, String::new());
                }
                if self.ctx.memo.on
                    && self.memo_preds.get(f.0 as usize) == Some(&true)
                    && !self.memo_enter(g)
                {
                    if self.tracer.is_some() {
                        self.trace_memo_hit(g);
                    }
                    return Ok(false);
                }
                let mut cursor = if matches!(g, Cell::Struct(a) if a.0 == self.first_ahead.at) {
                    // The first conjunct of a clause just entered: its
                    // candidates were decided when the clause was chosen.
                    self.first_ahead.at = NONE;
                    let mut cursor = self.first_ahead.cursor;
                    match self.first_ahead.known {
                        Some(hits) => self.memo.stats.hits += hits as u64,
                        None if self.memoizing => self.drop_known_moves(g, &mut cursor),
                        None => {}
                    }
                    cursor
                } else {
                    let heap = &self.store.heap;
                    let scratch = &mut self.scratch;
                    let mut cursor = self.ctx.lookup(
                        (f, n),
                        8,
                        || keys_of(&heap.cells, &heap.digests, |c| heap.deref(c), g, scratch).1,
                        || match n {
                            0 => 0,
                            _ => first_sig(&heap.cells, heap.deref(heap.get(args))),
                        },
                    );
                    if self.tracer.is_none()
                        && self.options.max_depth.is_none()
                        && Context::masked_several(&cursor)
                    {
                        self.look_ahead(g, &mut cursor);
                    }
                    cursor
                };
                if matches!(g, Cell::Struct(a) if a.0 == self.move_first) {
                    // The first conjunct of a clause just entered, which
                    // begins a move: its takes are recorded.
                    self.move_first = NONE;
                    cursor.begins_move = true;
                }
                self.call(g, cursor, parent, origin)
            }
        }
    }

    /// Report a call failed from the memo table to the tracer.
    #[cold]
    #[inline(never)]
    fn trace_memo_hit(&mut self, g: Cell) {
        let why = "MEMO: it failed before with the same resources".to_string();
        self.trace(crate::engine::trace::TraceKind::Fail, g, why);
    }

    /// A goal that is not a name or a compound term (kept out of
    /// [`Self::solve`], as are the rare connectives below, so that its
    /// common path stays small): an error, but for a `forall` constant
    /// reached through a variable, which fails.  (One that its body names
    /// as a predicate is a symbol: see [`Self::names_predicate`]; no clause
    /// can be assumed for any other, so none proves it.)
    #[cold]
    #[inline(never)]
    fn not_a_goal(&self, g: Cell, origin: u32) -> Step {
        Err(match g {
            Cell::Eigen(_) => return Ok(false),
            Cell::Struct(_) => self.goal_error("corrupt term", g, origin),
            Cell::Ref(_) => self
                .goal_error("an unbound variable was called as a goal", g, origin)
                .note("bind the variable to a formula before calling it"),
            _ => self.goal_error(
                format!("`{}` is not a formula and cannot be proved", self.show(g)),
                g,
                origin,
            ),
        })
    }

    /// `M --o G`: load module `m` (a name, or a name applied to the
    /// module's parameters) for the proof of `body`.
    #[inline(never)]
    fn load_goal(&mut self, g: Cell, m: Cell, body: Cell, parent: u32, origin: u32) -> Step {
        // `F 5` with `F = counter` is `counter 5`.
        let m = self.store.deref(m);
        let m = self.store.flatten_apply(m);
        let m = self.store.deref(m);
        let (name, margs) = match m {
            Cell::Atom(s) => (s, Vec::new()),
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(sym::APPLY, _) => {
                    return Err(self
                        .not_a_module(g, m, None, origin)
                        .note("the variable applied to the parameters is unbound"))
                }
                Cell::Functor(s, _) if s.is_operator() => {
                    return Err(self.not_a_module(g, m, Some(s), origin))
                }
                Cell::Functor(s, k) => (s, (0..k).map(|i| self.store.heap.arg(a, i)).collect()),
                _ => return Ok(false),
            },
            _ => return Err(self.not_a_module(g, m, None, origin)),
        };
        let mname = self.symbols.name(name).to_string();
        let loaded = self.find_and_load(&mname).map_err(|mut e| {
            e.goal = Some(self.show(g));
            self.locate(&mut e, g, origin);
            e
        })?;
        if loaded.module.params.len() != margs.len() {
            return Err(self.goal_error(
                format!(
                    "module `{mname}` takes {} but was given {}",
                    count_of(loaded.module.params.len(), "parameter"),
                    margs.len()
                ),
                g,
                origin,
            ));
        }
        let node = self.node(parent, Rule::Lolli, g, 0, 0);
        let start = self.scope_start();
        let (first, end) = self.assume_module(&loaded, &margs, node);
        if node != NONE {
            self.proof.nodes[node as usize].a = first;
            self.proof.nodes[node as usize].b = end;
        }
        self.enter_scope((first, end), start, body, node, origin);
        Ok(true)
    }

    /// The error for `M --o G` whose `M` (the goal `g`'s left side, `m`)
    /// is not a module name alone or applied to the module's parameters:
    /// a variable, a number, a string, or a term whose functor is the
    /// operator `op` (`(a ; b) --o G`, and `X = a --o G`, which reads as
    /// `(X = a) --o G`).
    #[cold]
    #[inline(never)]
    fn not_a_module(&self, g: Cell, m: Cell, op: Option<SymId>, origin: u32) -> RuntimeError {
        const MUST: &str =
            "the left side of `--o` must be a module name, alone or applied to the module's parameters";
        let e = match m {
            Cell::Ref(_) => {
                return self
                    .goal_error(format!("{MUST}, but it is an unbound variable"), g, origin)
                    .note("bind the variable to a module name first")
            }
            _ => self.goal_error(format!("{MUST}, but it is `{}`", self.show(m)), g, origin),
        };
        let Some(op) = op else {
            return e;
        };
        let name = self.symbols.name(op).to_string();
        // The operators that bind tighter than `--o`.
        if op.is_term_operator() {
            e.note(format!(
                "`--o` binds more loosely than `{name}`, so `A {name} B --o G` reads as `(A {name} B) --o G`"
            ))
        } else {
            e.note(format!(
                "`{name}` is a connective, not a module name: each module is loaded by a `--o` of its own, as in `m1 --o m2 --o G`"
            ))
        }
    }

    /// `forall x \ G` (`f` is `forall`) or `exists x \ G`: `G` with a fresh
    /// constant, or a fresh variable, for the bound name `b`.
    #[inline(never)]
    fn quantifier_goal(
        &mut self,
        g: Cell,
        f: SymId,
        b: Cell,
        body: Cell,
        parent: u32,
        origin: u32,
    ) -> Step {
        let Cell::Bound(id) = b else {
            return Err(self.goal_error("malformed quantifier", g, origin));
        };
        // When the proof of the body ends with no choice point made since,
        // nothing can come back into it, and nothing outside it holds the
        // constant (it may not escape into an older variable): the
        // constant goes, so that a loop of `forall` does not keep one a
        // turn (and with it the slower binding of variables older than
        // the newest constant).  Not while proofs name it, nor while memo
        // keys may (an id given again would make two constants one).
        if f == sym::FORALL && !self.options.proofs && !self.memo_on() {
            let end = Action::ForallEnd {
                eigens: self.store.heap.eigens.len() as u32,
                choices: self.choices.len() as u32,
            };
            self.cont = self.push_frame(end, self.cont);
        }
        let witness = if f == sym::FORALL {
            let name = self
                .binder_names
                .get(id as usize)
                .copied()
                .unwrap_or(sym::NIL);
            if self.names_predicate(body, id) {
                // The context finds clauses by symbol: the constant is one.
                let s = match self.store.heap.reuse_sym(name) {
                    Some(s) => s,
                    None => {
                        let text = self.symbols.name(name).to_string();
                        self.symbols.fresh_constant(&text)
                    }
                };
                self.store.heap.new_named_eigen(name, s)
            } else {
                self.store.heap.new_eigen(name)
            }
        } else {
            self.store.heap.new_var()
        };
        let inst = self.store.substitute(body, id, witness);
        let rule = if f == sym::FORALL {
            Rule::Forall
        } else {
            Rule::Exists
        };
        let wi = self.proof.witnesses.len() as u32;
        let node = self.node(parent, rule, g, wi, 0);
        if node != NONE {
            self.proof.witnesses.push(witness);
        }
        self.push_solve(inst, node, origin);
        Ok(true)
    }

    /// Whether the body `body` of a `forall` with binder `id` may use the
    /// bound name as a predicate: as a goal, an assumed clause, or the
    /// head of either (`forall p \ (p a -o p a)`, the `reverse` of Hodas
    /// and Miller).  Found by walking the body's formula positions: the
    /// arguments of connectives, the heads of variable applications and
    /// the goal arguments of built-ins.  An unbound variable in such a
    /// position may come to be the name (`exists G \ (G = p , (q => G))`),
    /// so it too answers yes, as does a name bound by `exists` there.  The
    /// answer is kept for the binder unless the walk met such a variable (a
    /// later instance may have it bound).
    fn names_predicate(&mut self, body: Cell, id: u32) -> bool {
        if let Some(Some(known)) = self.predicate_binders.get(id as usize) {
            return *known;
        }
        let heap = &self.store.heap;
        let (mut found, mut open) = (false, false);
        let mut stack = vec![body];
        let mut exists = Vec::new();
        while let Some(c) = stack.pop() {
            match heap.deref(c) {
                Cell::Bound(b) if b == id => found = true,
                Cell::Bound(b) => open |= exists.contains(&b),
                Cell::Ref(_) => open = true,
                Cell::Struct(a) => {
                    let Cell::Functor(f, n) = heap.get(a) else {
                        continue;
                    };
                    let name = self.symbols.name(f);
                    if f == sym::APPLY {
                        stack.push(heap.arg(a, 0));
                    } else if f == sym::FORALL || f == sym::EXISTS {
                        if let (sym::EXISTS, Cell::Bound(b)) = (f, heap.arg(a, 0)) {
                            exists.push(b);
                        }
                        stack.push(heap.arg(a, 1));
                    } else if crate::builtins::is_connective(name, n) {
                        stack.extend((0..n).map(|i| heap.arg(a, i)));
                    } else if let Some(b) = Builtin::lookup(name, n) {
                        stack.extend(b.goal_args().iter().map(|&i| heap.arg(a, i as u32)));
                    }
                }
                _ => {}
            }
            if found || open {
                break;
            }
        }
        if !open {
            let i = id as usize;
            if self.predicate_binders.len() <= i {
                self.predicate_binders.resize(i + 1, None);
            }
            self.predicate_binders[i] = Some(found);
        }
        found || open
    }

    /// A variable application `$apply(F, a1, .., an)` (arguments from
    /// `args`, `n` of them with `F`): the atom it denotes once `F` is bound.
    #[inline(never)]
    fn apply_goal(&mut self, g: Cell, args: Addr, n: u32, parent: u32, origin: u32) -> Step {
        let arg = |m: &Machine, i: u32| m.store.heap.get(Addr(args.0 + i));
        let head = self.store.deref(arg(self, 0));
        let mut all: Vec<Cell> = Vec::new();
        let name = match head {
            Cell::Atom(s) => s,
            Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(s, k) => {
                    all.extend((0..k).map(|i| self.store.heap.arg(a, i)));
                    s
                }
                _ => return Ok(false),
            },
            Cell::Ref(_) => {
                return Err(self.goal_error("an unbound variable was called as a goal", g, origin))
            }
            // A `forall` constant (see `not_a_goal`).
            Cell::Eigen(_) => return Ok(false),
            other => {
                return Err(self.goal_error(
                    format!("`{}` cannot be applied to arguments", self.show(other)),
                    g,
                    origin,
                ))
            }
        };
        all.extend((1..n).map(|i| arg(self, i)));
        let goal = self.store.heap.new_struct(name, &all);
        self.push_solve(goal, parent, origin);
        Ok(true)
    }

    #[inline]
    pub(super) fn builtin_of(&self, f: SymId, n: u32) -> Option<Builtin> {
        let row = self.builtin_table.get(f.0 as usize)?;
        *row.get(n as usize)?
    }

    /// Whether `f/n` is a built-in predicate or a connective: no clause
    /// can be assumed for it.  (By symbol: a name is one symbol, and every
    /// built-in's name was interned when the machine was made.)
    #[inline]
    pub(super) fn built_in_name(&self, f: SymId, n: u32) -> bool {
        self.builtin_of(f, n).is_some() || crate::builtins::is_connective_sym(f, n)
    }

    pub(super) fn bang_node(&mut self, g: Cell, inner: Cell, parent: u32, origin: u32) -> Step {
        let node = self.node(parent, Rule::Bang, g, 0, 0);
        self.cont = self.push_frame(Action::BangEnd { saved: self.slack }, self.cont);
        let base = self.ctx.entries.len() as u32;
        self.ctx.restrict(&mut self.store.trail, base);
        self.slack = 0;
        self.push_solve(inner, node, origin);
        Ok(true)
    }

    pub(super) fn bang(&mut self, goal: Cell, parent: u32, origin: u32) -> Step {
        let bang = self.store.heap.new_struct(sym::BANG, &[goal]);
        self.bang_node(bang, goal, parent, origin)
    }
}

/// `n` and `what`, in the plural unless `n` is 1 (`1 parameter`, `2 parameters`).
fn count_of(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
