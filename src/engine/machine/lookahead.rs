//! Look-ahead: a call's candidates passed over when the goal after the call
//! cannot succeed after them.
//!
//! In `b X Y peg , b (s X) Y peg , ...` most candidates of the first goal
//! leave the second with nothing to match: on the triangle, 85 % of them.
//! Trying such a candidate, looking up the next goal and backtracking cost
//! about 1,750 instructions; deciding from the index that the next goal
//! would find nothing costs a fraction of that.  So when a call's
//! candidates are decided in one pass (a masked cursor, see
//! [`Context::lookup`]), each candidate that is a ground fact is checked
//! against the next goal before anything is tried, and dropped from the
//! mask when that goal would fail.
//!
//! The check is exact in what it drops.  It applies only when:
//! - the next goal to run after the call (the top of the continuation) is
//!   a compound term of a predicate that is not predefined, a built-in, a
//!   foreign predicate or memoized: proving it is a plain lookup;
//! - the candidate is a ground fact: trying it binds the call's variables
//!   to its arguments, consumes it if linear, and runs no body, so the next
//!   goal runs at once, in the same context less that fact;
//! - every variable of the next goal that is unbound now occurs in the
//!   call (`X` in `b (s (s X)) Y peg`, at most a few compound terms deep,
//!   not inside a variable application or a binder term), so the candidate
//!   binds it to its own subterm at the same place ([`Place`]): the
//!   candidate makes the next goal ground, and its whole-atom key can be
//!   computed from those subterms ([`term_digest`]) without building
//!   anything;
//! - no tracer is installed (the trace would show the dropped tries) and
//!   no depth limit is set (a dropped try never reaches it).
//!
//! The candidate is dropped when no usable item can unify with the next
//! goal ([`Context::may_match_ground`]): that goal would fail, and with it
//! this try, with nothing recorded and no answer lost or reordered.  It is
//! dropped too when it has no subterm at such a place (`b z z peg` for
//! `b (s (s X)) Y peg`): it cannot match the call, and its try would fail
//! at once.  The
//! context used for the check still holds the candidate itself, so at
//! worst a doomed candidate is kept and fails the usual way.
//!
//! The decision stays true for the cursor's whole life, for the reason the
//! mask does: a retry runs in the state the call ran in.
//!
//! How the next goal's key is computed from a candidate is a list of
//! [`KeyOp`]s.  For a clause body's conjuncts run one by one (the next goal
//! is a deferred conjunct, [`Action::Deferred`]) the list was made when the
//! clause was compiled ([`crate::logic::lookahead`]), and the call is known
//! to be the conjunct before it by its address.  For a next goal already on
//! the heap (a `Solve` frame: bodies copied whole, when proofs are
//! recorded) the list is made from the two goals as they stand.
//!
//! Calls whose candidates were dropped are never made, so `--stats`
//! counts fewer inferences than the search would make without this.

#[allow(unused_imports)]
use super::*;
use crate::logic::keys::{term_digest, term_hash, HASH_BUDGET};
use crate::logic::lookahead::{end_argument, KeyOp, Place, MAX_PLAN_ARGS};
use crate::term::cell::{Digest, Hasher64, SeqHash};

/// The steps computing the next goal's key from a candidate, and the
/// places in the candidate they read (reused from call to call).
#[derive(Debug, Default)]
pub(super) struct KeySteps {
    ops: Vec<KeyOp>,
    places: Vec<Place>,
}

impl Machine {
    /// Drop from a masked cursor the candidates of call `goal` after which
    /// the next goal cannot succeed (see the module doc).  The caller has
    /// checked that no tracer is installed and no depth limit set.
    #[inline(always)]
    pub(super) fn look_ahead(&mut self, goal: Cell, cur: &mut Cursor) {
        if self.cont == NONE {
            return;
        }
        match self.frames[self.cont as usize].action {
            Action::Deferred { plan, .. } if plan == NONE => {}
            Action::Deferred { .. } | Action::Solve { .. } if self.some_fact(cur) => {
                self.look_ahead_at(goal, cur)
            }
            _ => {}
        }
    }

    /// Whether some candidate of a masked cursor is a ground fact (a quick
    /// filter: calls of rules, as in ordinary Prolog code, pay no more than
    /// this).
    #[inline(always)]
    fn some_fact(&self, cur: &Cursor) -> bool {
        let Some((items, mut m)) = self.ctx.masked_candidates(cur) else {
            return false;
        };
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            if self.fact_head(items[i as usize]).is_some() {
                return true;
            }
        }
        false
    }

    /// [`Self::look_ahead`] when the continuation starts with a goal.
    #[inline(never)]
    fn look_ahead_at(&mut self, goal: Cell, cur: &mut Cursor) {
        let mut steps = std::mem::take(&mut self.ahead);
        steps.ops.clear();
        steps.places.clear();
        let pred = match self.frames[self.cont as usize].action {
            Action::Deferred {
                at, tpl, plan, env, ..
            } => self.deferred_ops(goal, at, tpl, plan, env, &mut steps),
            Action::Solve { goal: next, .. } => self.solve_ops(goal, next, &mut steps),
            _ => None,
        };
        if let Some(pred) = pred {
            if !self.special(pred) {
                self.drop_doomed(cur, pred, &steps);
            }
        }
        self.ahead = steps;
    }

    /// Whether calls of `pred` are not plain lookups: built-in, foreign or
    /// memoized.
    fn special(&self, (f, n): (SymId, u32)) -> bool {
        self.builtin_of(f, n).is_some()
            || self.foreign_of(f, n).is_some()
            || (self.ctx.memo.on && self.memo_preds.get(f.0 as usize) == Some(&true))
    }

    /// The key steps for a deferred conjunct of template `tpl` (block `at`,
    /// environment `env`), from its `plan` made when the clause was
    /// compiled, if `goal` is the conjunct before it; slots become digests
    /// of their values now.  Returns the conjunct's predicate.
    fn deferred_ops(
        &mut self,
        goal: Cell,
        at: u32,
        tpl: u32,
        plan: u32,
        env: u32,
        steps: &mut KeySteps,
    ) -> Option<(SymId, u32)> {
        let KeySteps { ops, places } = steps;
        let plan = &self.templates[tpl as usize].ahead[plan as usize];
        if goal != Cell::Struct(Addr((at as i64 + plan.offset) as u32)) {
            return None;
        }
        let heap = &self.store.heap;
        let deref = |c: Cell| heap.deref(c);
        places.extend_from_slice(&plan.places);
        for &op in plan.ops.iter() {
            ops.push(match op {
                // A slot still unbound (a variable of the head, say) may
                // be in the call, and bound by the candidate.
                KeyOp::Slot(s) => match deref(heap.cells[(env + s) as usize]) {
                    v @ Cell::Ref(_) => KeyOp::Arg(place_of(heap, goal, v, places)?),
                    v => KeyOp::Digest(term_digest(
                        &heap.cells,
                        &heap.digests,
                        &deref,
                        v,
                        &mut self.scratch,
                    )?),
                },
                op => op,
            });
        }
        Some(plan.pred)
    }

    /// The key steps for `next`, a goal on the heap, from the call `goal`
    /// as they stand (see the module doc).  Returns `next`'s predicate;
    /// `None` when `next` is not a compound term of a name that is not
    /// predefined, or has a variable that a candidate leaves unbound.
    fn solve_ops(&mut self, goal: Cell, next: Cell, steps: &mut KeySteps) -> Option<(SymId, u32)> {
        let KeySteps { ops, places } = steps;
        let heap = &self.store.heap;
        let deref = |c: Cell| heap.deref(c);
        // Through `,`, its left conjunct.
        let mut next = deref(next);
        let mut depth = 0;
        let (f2, n2, args2) = loop {
            let Cell::Struct(a) = next else {
                return None;
            };
            match heap.get(a) {
                Cell::Functor(sym::COMMA, 2) if depth < HASH_BUDGET => {
                    depth += 1;
                    next = deref(heap.get(Addr(a.0 + 1)))
                }
                Cell::Functor(f, n) if f.0 > sym::END_OF_FILE.0 => break (f, n, a.0 + 1),
                _ => return None,
            }
        };
        for j in 0..n2 {
            let arg = heap.cells[(args2 + j) as usize];
            if let Some(h) = term_hash(&heap.cells, &heap.digests, &deref, arg, &mut self.scratch) {
                ops.push(KeyOp::Fixed(h));
                continue;
            }
            ops.push(KeyOp::Start);
            self.scratch.clear();
            self.scratch.push(arg);
            // As many cells as an index key may hash: the work stays
            // bounded whatever the size of the goal (a long list).
            let mut budget = HASH_BUDGET;
            while let Some(c) = self.scratch.pop() {
                budget = budget.checked_sub(1)?;
                ops.push(match deref(c) {
                    v @ Cell::Ref(_) => KeyOp::Arg(place_of(heap, goal, v, places)?),
                    Cell::Atom(s) => KeyOp::Add(1, s.0 as u64),
                    Cell::Int(i) => KeyOp::Add(2, i as u64),
                    Cell::Str(s) => KeyOp::Add(3, s.0 as u64),
                    Cell::Eigen(e) => KeyOp::Add(4, e as u64),
                    Cell::Struct(p) => match Digest::at(&heap.digests, p) {
                        Some(d) => KeyOp::Digest(d),
                        None => {
                            let Cell::Functor(f, k) = heap.cells[p.ix()] else {
                                return None;
                            };
                            if f == sym::APPLY {
                                return None;
                            }
                            for i in (0..k as usize).rev() {
                                self.scratch.push(heap.cells[p.ix() + 1 + i]);
                            }
                            KeyOp::Add(5, ((f.0 as u64) << 32) | k as u64)
                        }
                    },
                    Cell::Bound(_) | Cell::Functor(..) => return None,
                });
            }
            end_argument(ops);
        }
        Some((f2, n2))
    }

    /// Drop the candidates of `cur` that are ground facts after which a call
    /// of `pred` whose key `steps` compute would find nothing.
    fn drop_doomed(&mut self, cur: &mut Cursor, pred: (SymId, u32), steps: &KeySteps) {
        let KeySteps { ops, places } = steps;
        let Some((items, mask)) = self.ctx.masked_candidates(cur) else {
            return;
        };
        let pix = self.ctx.pred_index(pred);
        let mut start = Hasher64::new();
        start.add(5, ((pred.0 .0 as u64) << 32) | pred.1 as u64);
        // The arguments of the call that the key reads.
        let need = ops.iter().fold(0u32, |need, op| match *op {
            KeyOp::Arg(i) | KeyOp::ArgHash(i) => need | 1 << i,
            _ => need,
        });
        // A key that does not depend on the candidate is decided once.
        let fixed = (need == 0).then(|| match pix {
            // (A key that cannot be computed keeps every candidate.)
            Some(pix) => key(start, ops, &[]).is_none_or(|h| self.ctx.may_match_ground(pix, h)),
            None => false,
        });
        if fixed == Some(true) {
            return;
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let heap = &self.store.heap;
        let deref = |c: Cell| heap.deref(c);
        let mut digests = [Digest::default(); MAX_PLAN_ARGS as usize];
        let mut drop = 0u64;
        let mut m = mask;
        'facts: while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let Some(head) = self.fact_head(items[i as usize]) else {
                continue;
            };
            let doomed = match (fixed, pix) {
                (Some(ok), _) => !ok,
                (None, None) => true,
                (None, Some(pix)) => {
                    let Cell::Struct(head) = head else {
                        continue;
                    };
                    let mut need = need;
                    while need != 0 {
                        let k = need.trailing_zeros();
                        need &= need - 1;
                        // A fact without the call's shape there cannot
                        // match the call: trying it would fail at once.
                        let Some(a) = places[k as usize].find(&heap.cells, &deref, head.ix())
                        else {
                            drop |= 1 << i;
                            continue 'facts;
                        };
                        // Constants and shared terms (most arguments of
                        // facts) without the general walk.
                        let d = match a {
                            Cell::Struct(p) => Digest::at(&heap.digests, p),
                            Cell::Atom(s) => Some(Digest::of_word(1, s.0 as u64)),
                            _ => None,
                        };
                        match d.or_else(|| {
                            term_digest(&heap.cells, &heap.digests, &deref, a, &mut scratch)
                        }) {
                            Some(d) => digests[k as usize] = d,
                            None => continue 'facts,
                        }
                    }
                    key(start, ops, &digests).is_some_and(|h| !self.ctx.may_match_ground(pix, h))
                }
            };
            if doomed {
                drop |= 1 << i;
            }
        }
        self.scratch = scratch;
        if drop != 0 {
            Context::drop_candidates(cur, drop);
        }
    }

    /// The head of the clause of `item` when it is a ground fact with no
    /// body (a heap cell), else `None`.
    #[inline(always)]
    fn fact_head(&self, item: Item) -> Option<Cell> {
        let entry = &self.ctx.entries[item.entry as usize];
        match entry.source {
            Source::Heap { alts, .. } => {
                let alt = &self.ctx.heap_alts[(alts + item.alt) as usize];
                (alt.ground && alt.nbody == 0).then_some(alt.head)
            }
            Source::Template { tpl, .. } if entry.ground != NONE => {
                let t = &self.templates[tpl as usize];
                let alt = &t.alts[item.alt as usize];
                if !alt.body.is_empty() {
                    return None;
                }
                Some(match (alt.head, t.root) {
                    (Cell::Struct(a), Cell::Struct(r)) => {
                        Cell::Struct(Addr(entry.ground + (a.0 - r.0)))
                    }
                    (other, _) => other,
                })
            }
            Source::Template { .. } => None,
        }
    }
}

/// The number of the place in the call `goal` where the unbound variable
/// `v` is, added to `places` if new (`None` if it is not in the call, or
/// `places` is full).
fn place_of(heap: &crate::term::Heap, goal: Cell, v: Cell, places: &mut Vec<Place>) -> Option<u32> {
    let Cell::Struct(a) = heap.deref(goal) else {
        return None;
    };
    let Cell::Functor(_, n) = heap.cells[a.ix()] else {
        return None;
    };
    // An argument by itself (the common case) without the general search.
    let direct =
        (0..n.min(MAX_PLAN_ARGS)).find(|&i| heap.deref(heap.cells[a.ix() + 1 + i as usize]) == v);
    let at = match direct {
        Some(i) => Place {
            arg: i as u8,
            len: 0,
            steps: Default::default(),
        },
        None => {
            let mut budget = HASH_BUDGET;
            Place::locate(&heap.cells, &|c| heap.deref(c), a.ix(), v, &mut budget)?
        }
    };
    match places.iter().position(|&s| s == at) {
        Some(j) => Some(j as u32),
        None if places.len() < MAX_PLAN_ARGS as usize => {
            places.push(at);
            Some(places.len() as u32 - 1)
        }
        None => None,
    }
}

/// The whole-atom key that `ops` compute, after the name's step `start`,
/// with the call's arguments' digests `args` (as `keys_of` would hash the
/// goal); `None` if a step is still a slot (never: they are made digests
/// first).
#[inline]
fn key(start: Hasher64, ops: &[KeyOp], args: &[Digest]) -> Option<u64> {
    let mut whole = start;
    let mut arg = SeqHash::new();
    for op in ops {
        match *op {
            KeyOp::Fixed(h) => whole.add(6, h),
            KeyOp::Start => arg = SeqHash::new(),
            KeyOp::Add(tag, word) => arg.add(tag, word),
            KeyOp::Digest(d) => arg.add_digest(d),
            KeyOp::Arg(k) => arg.add_digest(*args.get(k as usize)?),
            KeyOp::ArgHash(k) => whole.add(6, args.get(k as usize)?.finish()),
            KeyOp::Slot(_) => return None,
            KeyOp::End => whole.add(6, arg.finish()),
        }
    }
    Some(whole.finish())
}
