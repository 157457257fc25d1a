//! Memo look-ahead: a call's candidates passed over when the move each
//! would make leads to a position the memo table knows to fail.
//!
//! In the triangle's `jump (s N) :- b X Y peg , b (s X) Y peg , b (s (s
//! X)) Y empty , ((b X Y empty , ...) -o jump N)` with `jump` memoized, a
//! candidate fact of `b X Y peg` decides the whole move: the two facts the
//! next conjuncts take, the three the assumption adds, and the call `jump
//! N` made then.  Most moves of an exhaustive search lead to positions
//! already searched; [`Machine::fails_after_assuming`] finds them before
//! the new facts are assumed, but only after the move's first three calls
//! have run.  Here the key the call would have is written for each
//! candidate before any of it runs, from the clause's move plan
//! ([`crate::logic::move_plan`]), and a candidate whose key is a recorded
//! failure is dropped from the call's mask.
//!
//! Exact, for the reasons the look-ahead is (see [`super::lookahead`]):
//! the candidate is a ground fact, so trying it binds the call's variables
//! to its subterms and runs nothing; each later call the plan takes has
//! exactly one usable item that can unify with it, a ground fact
//! ([`Context::single_fact`]), which it consumes if linear (or fails on,
//! when the terms differ after all: then the move fails anyway); the
//! assumption adds ground facts, whose ids the memo table knows from
//! their index keys and which are checked against their terms
//! ([`written_is`]); and the call's key is then the one the table holds
//! (its variables are the candidate's subterms, or terms that are ground
//! when the candidate is chosen, which nothing can bind).
//! A recorded failure is a fact about the call in that context, whatever
//! happens to the table later.  The candidate's term decides the facts the
//! move assumes, so their ids, once checked, are remembered by the move and
//! the candidate's term id ([`MemoTable::move_facts`]) and not looked for
//! again.  So the candidate would fail, having
//! consumed, assumed and called nothing that shows in an answer.  When any
//! of this does not hold (a take with two usable facts, a fact never seen
//! before, a key the table cannot write so) the candidate stays, and its
//! call decides as before.
//!
//! The check is made when a clause is chosen as a candidate of a call,
//! for the candidates the look-ahead decided for its first conjunct
//! (the call's key then reads the clause's variables where its head has
//! them in the call: `N` in `jump (s N)`), so that a clause all of whose
//! moves are known failures is passed over untried; and otherwise at the
//! call of a conjunct whose candidates are decided in one pass.
//!
//! Each candidate dropped counts as a memo hit, the one its call would
//! have made, counted when the decision is used: the table's figures are
//! those of a search without the look-ahead (calls not made are not
//! counted as inferences).  Only when no tracer is installed and no depth
//! limit is set, as for the look-ahead.

use super::lookahead::read_places;
#[allow(unused_imports)]
use super::*;
use crate::engine::memo::{hash_tokens, written_is, written_tokens};
use crate::engine::memo::{MoveFacts, MAX_MOVE_FACTS, NO_RES};
use crate::logic::lookahead::{key_start, run_ops, Place, MAX_PLAN_ARGS};
use crate::logic::move_plan::{KeyedGoal, MovePlan, MAX_TAKES};
use crate::term::cell::Digest;
use crate::term::sym;

/// Buffers reused from call to call.
#[derive(Debug, Default)]
pub(super) struct MoveScratch {
    toks: Vec<u64>,
    vars: Vec<Cell>,
    stack: Vec<Cell>,
    cells: Vec<Cell>,
    ids: Vec<u8>,
    /// The facts checked against their ids, by the candidate's term id,
    /// to remember after the loop.
    learnt: Vec<(u32, MoveFacts)>,
}

/// Where the values of the slots a move's call reads are.
#[derive(Copy, Clone)]
enum Slots<'a> {
    /// In the clause instance's environment block at this heap address.
    Env(u32),
    /// In the call the clause is a candidate of, at these places of its
    /// head ([`MovePlan::head`]).
    Head(Cell, &'a [(u32, Place)]),
}

impl Machine {
    /// Drop from a masked cursor of call `goal` the candidates whose move
    /// leads to a recorded failure (see the module doc), when `goal` is
    /// the conjunct of a clause instance whose move plan is the next
    /// frame's.  The caller has checked that no tracer is installed and
    /// no depth limit is set.
    #[inline(never)]
    pub(super) fn drop_known_moves(&mut self, goal: Cell, cur: &mut Cursor) {
        if self.cont == NONE {
            return;
        }
        let Action::Deferred {
            at, tpl, plan, env, ..
        } = self.frames[self.cont as usize].action
        else {
            return;
        };
        if plan == NONE {
            return;
        }
        let t = self.templates[tpl as usize].clone();
        let first = &t.ahead[plan as usize];
        let Some(mv) = first.moved.as_deref() else {
            return;
        };
        if goal != Cell::Struct(Addr((at as i64 + first.offset) as u32)) {
            return;
        }
        let dropped = self.drop_moves((tpl, plan), mv, Slots::Env(env), cur);
        self.memo.stats.hits += dropped as u64;
    }

    /// [`Machine::drop_known_moves`] for the candidates `cur` of a clause's
    /// first conjunct, whose move plan is `mv`, decided when the clause is
    /// a candidate of call `goal` and before it is tried: the call's key
    /// reads the clause's variables where the head has them in `goal` (a
    /// head that does not match `goal` fails the clause anyway).  The
    /// number of candidates dropped, whose hits the caller counts when the
    /// decision is used; `None` when it could not look (the conjunct's
    /// call looks then).
    #[inline(never)]
    pub(super) fn drop_known_first_moves(
        &mut self,
        goal: Cell,
        moved: (u32, u32),
        mv: &MovePlan,
        cur: &mut Cursor,
    ) -> Option<u32> {
        let head = mv.head.as_deref()?;
        Some(self.drop_moves(moved, mv, Slots::Head(goal, head), cur))
    }

    /// Drop the candidates of `cur` whose move by `mv` (the move plan of
    /// template and look-ahead plan `moved`) leads to a recorded failure;
    /// how many.
    fn drop_moves(
        &mut self,
        moved: (u32, u32),
        mv: &MovePlan,
        slots: Slots<'_>,
        cur: &mut Cursor,
    ) -> u32 {
        if !self.ctx.memo.on || !Context::masked_nonempty(cur) {
            return 0;
        }
        let (f, n) = mv.call_pred;
        if !self.is_memoized(f)
            || self.builtin_of(f, n).is_some()
            || self.foreign_of(f, n).is_some()
            || mv.facts.len() > MAX_MOVE_FACTS
            || mv.takes.iter().any(|g| self.special(g.pred))
            || mv
                .facts
                .iter()
                .any(|g| self.built_in_name(g.pred.0, g.pred.1))
        {
            return 0;
        }
        let Some(settled) = self.keys_before_assuming(mv.facts.len()) else {
            return 0;
        };
        let mut pix = [0u32; MAX_TAKES];
        for (p, g) in pix.iter_mut().zip(mv.takes.iter()) {
            match self.ctx.pred_index(g.pred) {
                Some(i) => *p = i,
                None => return 0,
            }
        }
        let Some((items, mask)) = self.ctx.masked_candidates(cur) else {
            return 0;
        };
        let MoveScratch {
            mut toks,
            mut vars,
            mut stack,
            mut cells,
            mut ids,
            mut learnt,
        } = std::mem::take(&mut self.moves_ahead);
        let heap = &self.store.heap;
        let deref = |c: Cell| heap.deref(c);
        let slot = |s: u32| match slots {
            Slots::Env(env) => Some(heap.cells[(env + s) as usize]),
            Slots::Head(goal, head) => {
                let (_, p) = head.iter().find(|&&(t, _)| t == s)?;
                let Cell::Struct(a) = heap.deref(goal) else {
                    return None;
                };
                p.find(&heap.cells, &deref, a.ix())
            }
        };
        let mut subs = [Cell::Atom(sym::TRUE); MAX_PLAN_ARGS as usize];
        // The call's tokens, when every candidate gives the same.  (A
        // variable of the call would be one the candidate, or the head,
        // may bind.)
        let mut toks_ok = true;
        let mut toks_hash = 0;
        if !mv.call_reads {
            toks.clear();
            vars.clear();
            let (v, o, st) = (&mut vars, &mut toks, &mut stack);
            toks_ok = written_tokens(heap, settled, &mv.call, &subs, &slot, v, o, st).is_some()
                && vars.is_empty();
            toks_hash = hash_tokens(&toks);
        }
        let mut digests = [Digest::default(); MAX_PLAN_ARGS as usize];
        let mut drop = 0u64;
        learnt.clear();
        let mut m = if toks_ok { mask } else { 0 };
        'candidates: while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let item = items[i as usize];
            let Some((Cell::Struct(head), known)) = self.fact_of(item) else {
                continue;
            };
            let read = read_places(
                heap,
                &mv.places,
                mv.need,
                head,
                known,
                &mut digests,
                &mut cells,
            );
            if read.is_err() {
                continue;
            }
            let Some((gone, ngone)) = self.move_consumes(mv, &pix, item, &digests) else {
                continue;
            };
            // The facts the move assumes: known from the candidate's term
            // when this move was checked from it before, else the ids
            // their keys hint at.
            let res = self.ctx.entries[item.entry as usize].res;
            let known = (res != NO_RES)
                .then(|| self.memo.move_facts(moved, res))
                .flatten();
            let Some((added, added_hash)) = known.or_else(|| self.move_assumes(mv, &digests))
            else {
                continue;
            };
            // The candidate's subterms the terms name.
            if known.is_none() || mv.call_reads {
                for (j, p) in mv.places.iter().enumerate() {
                    if mv.need & (1 << j) != 0 {
                        match p.find(&heap.cells, &deref, head.ix()) {
                            Some(c) => subs[j] = c,
                            None => continue 'candidates,
                        }
                    }
                }
            }
            if mv.call_reads {
                toks.clear();
                vars.clear();
                let (v, o, st) = (&mut vars, &mut toks, &mut stack);
                if written_tokens(heap, settled, &mv.call, &subs, &slot, v, o, st).is_none()
                    || !vars.is_empty()
                {
                    continue;
                }
                toks_hash = hash_tokens(&toks);
            }
            let facts = &added[..mv.facts.len()];
            let checked = std::cell::Cell::new(false);
            let terms_are = || {
                known.is_some() || {
                    let is = |(g, &id): (&KeyedGoal, &u32)| {
                        written_is(heap, &g.term, &subs, self.memo_term(id), &mut stack)
                    };
                    let ok = mv.facts.iter().zip(facts).all(is);
                    checked.set(ok);
                    ok
                }
            };
            let gone = &gone[..ngone];
            let (lin, th) = (mv.linear, toks_hash);
            if self.fails_after_move(&toks, th, gone, facts, added_hash, lin, &mut ids, terms_are) {
                drop |= 1 << i;
            }
            if checked.get() && res != NO_RES {
                learnt.push((res, (added, added_hash)));
            }
        }
        for &(res, facts) in &learnt {
            self.memo.learn_move_facts(moved, res, facts);
        }
        self.moves_ahead = MoveScratch {
            toks,
            vars,
            stack,
            cells,
            ids,
            learnt,
        };
        if drop != 0 {
            Context::drop_candidates(cur, drop);
        }
        drop.count_ones()
    }

    /// The linear entries a move by `mv` from candidate `item` consumes
    /// (the candidate's, then each take's one fact), and how many; the
    /// takes' predicates are at `pix` in the index, and `digests` are the
    /// candidate's at the plan's places.  `None` when a take finds no
    /// single fact, or one the move takes already.
    #[inline]
    fn move_consumes(
        &self,
        mv: &MovePlan,
        pix: &[u32; MAX_TAKES],
        item: Item,
        digests: &[Digest],
    ) -> Option<([u32; MAX_TAKES + 1], usize)> {
        let mut gone = [NONE; MAX_TAKES + 1];
        let mut n = 0;
        if self.ctx.entries[item.entry as usize].linear {
            gone[0] = item.entry;
            n = 1;
        }
        for (g, &pix) in mv.takes.iter().zip(pix.iter()) {
            let h = run_ops(key_start(g.pred), &g.ops, digests)?;
            let it = self
                .ctx
                .single_fact(pix, h, |it| self.fact_head(it).is_some())?;
            if it.entry == item.entry || gone[..n].contains(&it.entry) {
                return None;
            }
            if self.ctx.entries[it.entry as usize].linear {
                gone[n] = it.entry;
                n += 1;
            }
        }
        Some((gone, n))
    }

    /// The ids and summed hashes of the facts a move by `mv` assumes, as
    /// their index keys (from the candidate's `digests`) hint at them: to
    /// be checked against the facts.  `None` when a fact was never seen.
    #[inline]
    fn move_assumes(&self, mv: &MovePlan, digests: &[Digest]) -> Option<MoveFacts> {
        let mut added = [0u32; MAX_MOVE_FACTS];
        let mut hash = 0u64;
        for (a, g) in added.iter_mut().zip(mv.facts.iter()) {
            let (id, h) = self.fact_hint(run_ops(key_start(g.pred), &g.ops, digests)?)?;
            *a = id;
            hash = hash.wrapping_add(h);
        }
        Some((added, hash))
    }
}
