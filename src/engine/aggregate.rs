//! The aggregate and control built-ins: `findall`, `count`, `not`, `once`
//! and `between`.
//!
//! `findall`, `count` and `not` run their goal to exhaustion with
//! [`Machine::sub_search`]: the goal sees the current context (every linear
//! resource usable at the call; it need not consume them all), and whatever
//! it consumes or binds is undone when the sub-search ends, so these
//! built-ins consume nothing and bind only their result argument.
//!
//! Invariant: an answer of `findall` lives on the heap only until the
//! sub-search backtracks (backtracking truncates the heap), so each instance
//! of the template is copied out to an `Owned` term at once and rebuilt on
//! the heap after the sub-search has returned.  Unbound variables of an
//! answer become fresh variables (shared within that answer).
//!
//! `once G` and `between` need no sub-search: `once G` proves G, then drops
//! the choice points G left; `between` leaves a choice point that yields
//! the next integer on backtracking.  In a proof, `once G` is a built-in
//! step whose premise is the proof of G, `between` a built-in step with no
//! premise.

use std::collections::HashMap;

use super::machine::{Machine, Rule};
use crate::diagnostics::RuntimeError;
use crate::term::{sym, Addr, Cell};

type Step = Result<bool, RuntimeError>;

/// Terms copied out of the heap, one after another in one arena: the same
/// cell layout as the heap, each term's addresses relative to its own start,
/// so they outlive backtracking.  `Ref(i)` cells are a term's variables
/// (each points at itself).  One arena, not a vector per term: `findall`
/// over millions of answers holds about 24 bytes for each small one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Owned {
    cells: Vec<Cell>,
    /// Each term: where its cells start, and its root.
    terms: Vec<(u32, Cell)>,
}

impl Owned {
    /// Bytes held (for the memory limit).
    fn bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<Cell>()
            + self.terms.capacity() * std::mem::size_of::<(u32, Cell)>()
    }
}

/// How many answers `findall` collects between two checks of the memory limit.
const MEMORY_CHECK_EVERY: usize = 4096;

impl Machine {
    /// `findall Template Goal List`.
    pub(crate) fn findall(&mut self, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let template = self.store.heap.get(args);
        let goal = self.store.heap.get(Addr(args.0 + 1));
        let list = self.store.heap.get(Addr(args.0 + 2));
        let eigens = self.store.heap.eigens.len() as u32;
        let mut answers = Owned::default();
        // The answers are held outside the search's arenas, so they are
        // counted against the memory limit here.
        let mut over = None;
        self.sub_search(goal, &mut |m| {
            m.copy_out(template, eigens, &mut answers);
            if answers.terms.len() % MEMORY_CHECK_EVERY == 0 {
                if let Some(limit) = m.options.max_memory {
                    if m.memory_used() + answers.bytes() > limit {
                        over = Some(limit);
                        return false;
                    }
                }
            }
            true
        })
        .map_err(|e| self.in_goal(e, g, origin))?;
        if let Some(limit) = over {
            let e = RuntimeError::new(format!(
                "memory limit exceeded: `findall` holds {} answers and the search uses more than {} MB",
                answers.terms.len(),
                limit / (1024 * 1024)
            ))
            .note("the query was stopped by the memory limit: `--max-memory MB` sets it, 0 lifts it");
            return Err(self.in_goal(e, g, origin));
        }
        let mut result = Cell::Atom(sym::NIL);
        for i in (0..answers.terms.len()).rev() {
            let t = self.copy_in(&answers, i);
            result = self.store.heap.new_struct(sym::CONS, &[t, result]);
        }
        if !self.store.unify(list, result) {
            return Ok(false);
        }
        self.proof_node(parent, Rule::Builtin, g);
        Ok(true)
    }

    /// `count Goal N`.
    pub(crate) fn count(&mut self, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let goal = self.store.heap.get(args);
        let n = self.store.heap.get(Addr(args.0 + 1));
        let mut proofs: i64 = 0;
        self.sub_search(goal, &mut |_| {
            proofs += 1;
            true
        })
        .map_err(|e| self.in_goal(e, g, origin))?;
        if !self.store.unify(n, Cell::Int(proofs)) {
            return Ok(false);
        }
        self.proof_node(parent, Rule::Builtin, g);
        Ok(true)
    }

    /// `not G`: succeeds, consuming and binding nothing, when G has no proof.
    pub(crate) fn not(&mut self, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let goal = self.store.heap.get(args);
        let mut found = false;
        self.sub_search(goal, &mut |_| {
            found = true;
            false
        })
        .map_err(|e| self.in_goal(e, g, origin))?;
        if found {
            return Ok(false);
        }
        self.proof_node(parent, Rule::Builtin, g);
        Ok(true)
    }

    /// `once G`: the first proof of G, which is the premise of the step.
    pub(crate) fn once(&mut self, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let goal = self.store.heap.get(args);
        let node = self.proof_node(parent, Rule::Builtin, g);
        self.then_solve_once(goal, node, origin);
        Ok(true)
    }

    /// `between Low High X`: with X bound, a test; otherwise X = Low, and on
    /// backtracking each integer after it up to High.  Each answer is one
    /// built-in step with no premise.
    pub(crate) fn between(&mut self, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let low = self.eval(self.store.heap.get(args), g, origin)?;
        let high = self.eval(self.store.heap.get(Addr(args.0 + 1)), g, origin)?;
        let x = self.store.heap.get(Addr(args.0 + 2));
        match self.store.deref(x) {
            Cell::Int(v) => {
                if low <= v && v <= high {
                    self.proof_node(parent, Rule::Builtin, g);
                    Ok(true)
                } else {
                    Ok(false)
                }
            }
            Cell::Ref(_) => {
                if low > high {
                    return Ok(false);
                }
                if low < high {
                    self.push_between(g, x, low + 1, high, parent);
                }
                if !self.store.unify(x, Cell::Int(low)) {
                    return Ok(false);
                }
                self.proof_node(parent, Rule::Builtin, g);
                Ok(true)
            }
            other => Err(self.error_at(
                format!(
                    "`between` needs an integer or a variable as its third argument, not `{}`",
                    self.show(other)
                ),
                g,
                origin,
            )),
        }
    }

    /// An error raised inside an aggregate's goal, unless it already names
    /// the goal it happened in, names the aggregate call.
    fn in_goal(&self, mut e: RuntimeError, g: Cell, origin: u32) -> RuntimeError {
        if e.goal.is_none() {
            e.goal = Some(self.show(g));
            self.locate(&mut e, g, origin);
        }
        e
    }

    /// Copy heap term `root` out of the heap, as the next term of `into`.
    /// Eigenvariables made at or after index `eigens` (inside the
    /// sub-search) will not exist afterwards: they become variables (so do
    /// the symbols that stand for such constants).
    pub(crate) fn copy_out(&self, root: Cell, eigens: u32, into: &mut Owned) {
        let heap = &self.store.heap;
        let start = into.cells.len();
        let cells = &mut into.cells;
        // Addresses in the copy are relative to `start`.
        let at = |cells: &Vec<Cell>| (cells.len() - start) as u32;
        let mut vars: HashMap<Cell, Cell> = HashMap::new();
        let mut out_root = root;
        // Each task: copy `src` into `cells[dst]`, or into the root when None.
        let mut tasks: Vec<(Cell, Option<usize>)> = vec![(root, None)];
        while let Some((src, dst)) = tasks.pop() {
            let c = heap.deref(src);
            let out = match c {
                Cell::Ref(_) => *vars.entry(c).or_insert_with(|| {
                    let v = Cell::Ref(Addr(at(cells)));
                    cells.push(v);
                    v
                }),
                Cell::Eigen(e) if e >= eigens => *vars.entry(c).or_insert_with(|| {
                    let v = Cell::Ref(Addr(at(cells)));
                    cells.push(v);
                    v
                }),
                Cell::Atom(s) if heap.is_eigen_sym_from(s, eigens as usize) => {
                    *vars.entry(c).or_insert_with(|| {
                        let v = Cell::Ref(Addr(at(cells)));
                        cells.push(v);
                        v
                    })
                }
                Cell::Struct(a) => match heap.get(a) {
                    Cell::Functor(f, n) => {
                        let base = cells.len();
                        cells.push(Cell::Functor(f, n));
                        for i in 0..n {
                            cells.push(Cell::Atom(sym::NIL));
                            tasks.push((heap.arg(a, i), Some(base + 1 + i as usize)));
                        }
                        Cell::Struct(Addr((base - start) as u32))
                    }
                    other => other,
                },
                other => other,
            };
            match dst {
                Some(d) => cells[d] = out,
                None => out_root = out,
            }
        }
        into.terms.push((start as u32, out_root));
    }

    /// Rebuild term `i` of `t` on the heap (its variables become fresh ones).
    pub(crate) fn copy_in(&mut self, t: &Owned, i: usize) -> Cell {
        let (start, root) = t.terms[i];
        let end = t
            .terms
            .get(i + 1)
            .map_or(t.cells.len(), |&(s, _)| s as usize);
        let base = self.store.heap.len() as u32;
        let shift = |c: Cell| match c {
            Cell::Ref(a) => Cell::Ref(Addr(a.0 + base)),
            Cell::Struct(a) => Cell::Struct(Addr(a.0 + base)),
            other => other,
        };
        for &c in &t.cells[start as usize..end] {
            self.store.heap.cells.push(shift(c));
        }
        shift(root)
    }
}
