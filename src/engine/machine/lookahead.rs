//! Look-ahead: a call's candidates passed over when the goal after the call
//! cannot succeed after them.
//!
//! In `b X Y peg , b (s X) Y peg , ...` most candidates of the first goal
//! leave the second with nothing to match: on the triangle, 85 % of them.
//! Trying such a candidate, looking up the next goal and backtracking cost
//! about 1,750 instructions; deciding from the index that the next goal
//! would find nothing costs a fraction of that.  So when a call's
//! candidates are decided in one pass (a masked cursor, see
//! [`Context::lookup`]) and there are two or more, each candidate that is
//! a ground fact is checked against the next goal before anything is
//! tried, and dropped from the mask when that goal would fail.  (A single
//! candidate is tried: the check would cost about what its try costs when
//! the next goal finds nothing, and is wasted when it finds something, as
//! it does for `b (s X) Y peg` after `b X Y peg` has been checked two
//! goals ahead.)
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
//!   anything (a fact assumed during the search keeps the digests of its
//!   first arguments, computed for its own index keys, in
//!   [`HeapAlt::args`](crate::engine::context::HeapAlt::args));
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
//! **Two goals ahead.**  When every usable item the next goal can meet is
//! a ground fact ([`Context::ground_candidates`]), that goal only takes
//! one of them: it runs no body, has no effect, binds nothing (it is
//! ground) and always ends, and the goal after it runs next, in a context
//! that holds no more than the one checked.  So, when a plan for that goal
//! exists too ([`AheadPlan::then`]), the candidate is also dropped if the
//! goal after the next would find nothing.  In the triangle, `b X Y peg`
//! passes over the pegs whose jump would land off the board or on a peg,
//! not only those without a neighbour.  (Only for conjuncts run one by
//! one: for goals on the heap, making the second goal's steps at every
//! call cost more than it saved.)
//!
//! How the next goal's key is computed from a candidate is a list of
//! [`KeyOp`]s.  For a clause body's conjuncts run one by one (the next goal
//! is a deferred conjunct, [`Action::Deferred`]) the list was made when the
//! clause was compiled ([`crate::logic::lookahead`]), and the call is known
//! to be the conjunct before it by its address; without a slot to read, the
//! plan's list is used as it is.  For a next goal already on the heap (a
//! `Solve` frame: a body copied whole, under a tracer or, with proofs, when
//! it nests to the right) the list is made from the two goals as they
//! stand.
//!
//! What a plan compiled with a clause computes for a candidate (the key,
//! or that the candidate lacks a place) depends on the candidate's term
//! alone, so it is kept by plan and by the interned id of that term
//! ([`CandidateKeys`]): the same facts meet the same plans at every
//! position of a puzzle, and the check is then a lookup and one or two
//! probes of the index.
//!
//! **Into clause bodies.**  A candidate clause whose body's first
//! conjunct `G1` shares no variable with the head and the environment (a
//! [`FirstCall`](crate::logic::lookahead::FirstCall): `jump (s N) :- b X
//! Y peg , ...`) gives `G1` the same index keys at every use, and so the
//! same candidates in a given context.  When the call takes such a clause
//! as its next candidate ([`Machine::first_conjunct_fails`]), `G1`'s
//! candidates are looked up, and the look-ahead above applied to them with
//! the plans compiled with the clause (those that read no slot).  If none
//! is left, trying the clause would only match its head, copy `G1`, find
//! nothing and fail: the clause is passed over, and the next candidate
//! taken.  Exact for the reason the look-ahead is: nothing runs between
//! choosing the clause and calling `G1` that could change the context
//! (the clause is unbounded, so trying it consumes nothing).  Otherwise,
//! when the candidates were decided exactly as `G1`'s call would decide
//! them, they are kept ([`FirstAhead`]) and the call takes them instead of
//! looking them up again.  On the triangle 83 % of the clauses tried in
//! `first` end this way (`b X Y peg` has pegs, but none that can jump in
//! the clause's direction).  What this decides depends only on the
//! context, so it is recorded by position and recalled when the search
//! meets the position again ([`super::decisions`]).
//!
//! A first conjunct that holds variables of the head (`jump (j (sw X Y)
//! N) :- b X Y peg , ...`, the move recorded in the head) is looked up
//! with those variables unbound ([`FirstCall::shared`](crate::logic::lookahead::FirstCall::shared)):
//! whatever the head binds them to, `G1`'s candidates at the call are
//! some of these, each checked by the same plans (which read the head's
//! variables from the candidate too).  So the clause is passed over when
//! none of these is left, exactly as above.  Otherwise, when the head
//! leaves those variables distinct and unbound (a call that leaves the
//! move open, `jump (j J1 ...)`), the candidates kept are exactly the
//! call's and it takes them, as for other first calls
//! ([`Machine::head_left_unbound`], checked when the head has matched);
//! else `G1` looks up its own candidates when it is called.
//!
//! Calls whose candidates were dropped are never made, so `--stats`
//! counts fewer inferences than the search would make without this.

use super::decisions::Recalled;
#[allow(unused_imports)]
use super::*;
use crate::engine::context::{Found, ALT_DIGESTS};
use crate::engine::memo::NO_RES;
use crate::logic::keys::{term_digest, term_hash, HASH_BUDGET};
use crate::logic::lookahead::{
    end_argument, key_start, need_of, run_ops, AheadPlan, KeyOp, Place, MAX_PLAN_ARGS,
};
use crate::term::cell::{Digest, Hasher64};

/// The mark of a decision made at a call ([`Machine::look_ahead_planned`])
/// in the record, whose decisions are otherwise by clause alternative.
const CALL_DECISION: u32 = 1 << 31;

/// No item.
pub(super) const NO_ITEM: Item = Item {
    entry: NONE,
    alt: NONE,
};

/// The candidates of a clause's first conjunct, decided when the clause
/// was chosen as candidate `item` of a call ([`Machine::first_call_fails`]),
/// for that conjunct's call.  When `try_template` enters that clause, it
/// sets `at` to the address of the conjunct's copy, which is solved next;
/// the call of the goal at `at` takes the cursor.  Choosing another
/// candidate voids the decision, and taking it or entering any clause
/// clears it.
#[derive(Copy, Clone, Debug)]
pub(super) struct FirstAhead {
    pub(super) item: Item,
    pub(super) at: u32,
    pub(super) cursor: Cursor,
    /// When the candidates whose move leads to a known failure were
    /// dropped from `cursor` already ([`super::memo_ahead`]): how many,
    /// the memo hits to count when the cursor is taken.
    pub(super) known: Option<u32>,
}

impl Default for FirstAhead {
    fn default() -> Self {
        FirstAhead {
            item: NO_ITEM,
            at: NONE,
            cursor: Cursor::default(),
            known: None,
        }
    }
}

/// The lookup last made for a first call while a call passes over
/// candidate clauses (in one context): the clause whose first call it was
/// for (template and alternative, whose [`FirstCall`](crate::logic::lookahead::FirstCall)
/// has the lookup's keys), and the cursor found.
pub(super) type FirstSeen = Option<(u32, u32, Cursor)>;

/// Steps made at a call (reused from call to call): those computing the
/// next goal's key from a candidate, with the places in the candidate they
/// read, and those for the goal after it when it is checked too.
#[derive(Debug, Default)]
pub(super) struct KeySteps {
    ops: Vec<KeyOp>,
    places: Vec<Place>,
    then: Vec<KeyOp>,
}

/// A goal to check for each candidate: its name, the steps computing its
/// key, and the places these read (a mask over the places); for a plan
/// compiled with a clause, the plan (its template and its position there),
/// which names what the steps give for each candidate ([`CandidateKeys`]).
#[derive(Copy, Clone)]
struct Check<'a> {
    pred: (SymId, u32),
    ops: &'a [KeyOp],
    need: u32,
    plan: Option<(u32, u32)>,
}

impl<'a> Check<'a> {
    fn of(tpl: u32, ix: u32, plan: &'a AheadPlan) -> Self {
        Check {
            pred: plan.pred,
            ops: &plan.ops,
            need: plan.need,
            plan: Some((tpl, ix)),
        }
    }

    fn made(pred: (SymId, u32), ops: &'a [KeyOp]) -> Self {
        Check {
            pred,
            ops,
            need: need_of(ops),
            plan: None,
        }
    }
}

/// What a check's steps give for one candidate fact.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CandidateKey {
    /// The fact lacks a place the steps read: it cannot match the call.
    Doomed,
    /// No key (a subterm too large for a digest): the candidate is kept.
    Unknown,
    /// The checked goal's whole-atom key after this candidate.
    Key(u64),
}

/// The [`CandidateKey`]s of plans compiled with clauses, by the plan
/// (template and position) and the candidate (the interned id of its
/// term, [`Entry::res`](crate::engine::context::Entry::res), and its
/// alternative).  A plan's steps read no slot, so what they give depends
/// on the candidate's term alone: computed once, it holds while the ids
/// and the templates do.  The same facts meet the same plans at every
/// position of a puzzle (a peg in a hole, checked by each jump's
/// direction), so most checks are a lookup.  A cache: one place per
/// hash of the name ([`CANDIDATE_KEYS_KEPT`] places, made at the first
/// use), a newer key taking it over; forgotten when the terms are
/// numbered afresh or templates are dropped, in time proportional to the
/// places filled since (templates can go at every backtrack).
#[derive(Debug, Default)]
pub(crate) struct CandidateKeys {
    slots: Vec<(Name, CandidateKey)>,
    /// The places filled since the last time keys were forgotten.
    filled: Vec<u16>,
}

/// How many [`CandidateKeys`] are kept (a power of two).
const CANDIDATE_KEYS_KEPT: usize = 1 << 12;

/// A name no candidate has (its term id is `NO_RES`).
const NO_NAME: Name = (u64::MAX, u64::MAX);

/// What a [`CandidateKey`] is kept under: the plan (template and position)
/// and the candidate (term id and alternative), two numbers each.
type Name = (u64, u64);

/// The [`Name`] of plan `(tpl, ix)` and candidate alternative `alt` of term `res`.
#[inline(always)]
fn name_of((tpl, ix): (u32, u32), res: u32, alt: u32) -> Name {
    (
        (tpl as u64) << 32 | ix as u64,
        (res as u64) << 32 | alt as u64,
    )
}

impl CandidateKeys {
    /// Forget every key (the ids or the templates changed).
    pub(crate) fn forget(&mut self) {
        for &i in &self.filled {
            self.slots[i as usize].0 = NO_NAME;
        }
        self.filled.clear();
    }

    #[inline(always)]
    fn place((plan, candidate): Name) -> usize {
        let h = (plan ^ candidate.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0x517c_c1b7_2722_0a95);
        (h >> 52) as usize & (CANDIDATE_KEYS_KEPT - 1)
    }

    /// The key kept under `name`.
    #[inline(always)]
    fn get(&self, name: Name) -> Option<CandidateKey> {
        match self.slots.get(Self::place(name)) {
            Some(&(n, k)) if n == name => Some(k),
            _ => None,
        }
    }

    /// The key kept under `name`, or else the one `make` makes, then kept
    /// (made each time when there is no name).
    #[inline(always)]
    fn get_or(&mut self, name: Option<Name>, make: impl FnOnce() -> CandidateKey) -> CandidateKey {
        let Some(name) = name else {
            return make();
        };
        if let Some(k) = self.get(name) {
            return k;
        }
        let k = make();
        self.put(name, k);
        k
    }

    /// Keep `key` under `name` (whose term id is not `NO_RES`).  (Out of
    /// line: most lookups find their key.)
    #[inline(never)]
    fn put(&mut self, name: Name, key: CandidateKey) {
        if self.slots.is_empty() {
            self.slots = vec![(NO_NAME, CandidateKey::Unknown); CANDIDATE_KEYS_KEPT];
        }
        let i = Self::place(name);
        if self.slots[i].0 == NO_NAME {
            self.filled.push(i as u16);
        }
        self.slots[i] = (name, key);
    }
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

    /// Whether candidate `item` of a call is a clause whose first body
    /// conjunct would find nothing to match (see the module doc, "Into
    /// clause bodies"): passed over then.  Otherwise, when that
    /// conjunct's candidates were decided exactly as its call would decide
    /// them, they are kept for the call ([`FirstAhead`]).  Never under a
    /// tracer or a depth limit.
    #[inline(always)]
    pub(super) fn first_conjunct_fails(
        &mut self,
        goal: Cell,
        item: Item,
        seen: &mut FirstSeen,
    ) -> bool {
        // (Not a linear clause: trying it consumes it, which its first
        // conjunct might see.)
        let entry = &self.ctx.entries[item.entry as usize];
        if !entry.first_call {
            return false;
        }
        // What was decided for an earlier choice is void.
        self.first_ahead.item = NO_ITEM;
        if self.tracer.is_some() || self.options.max_depth.is_some() {
            return false;
        }
        let Source::Template { tpl, .. } = entry.source else {
            return false;
        };
        let t = &self.templates[tpl as usize];
        match t.conjuncts.get(item.alt as usize).and_then(|c| c.first()) {
            Some(c) if c.first.is_some() => self.first_call_fails(goal, tpl, item, seen),
            _ => false,
        }
    }

    /// [`Machine::first_conjunct_fails`] for a clause whose first
    /// conjunct has a [`FirstCall`](crate::logic::lookahead::FirstCall):
    /// its lookup, then the look-ahead its call would make from the plans
    /// compiled with the clause that read no slot (the clause's
    /// environment does not exist yet).
    #[inline(always)]
    fn first_call_fails(&mut self, goal: Cell, tpl: u32, item: Item, seen: &mut FirstSeen) -> bool {
        // The decision recalled first, without the template's handle: a
        // call with many clauses, most of them passed over, goes through
        // them all at every position (the triangle's `jump`, five clauses
        // of six).
        let conj = &self.templates[tpl as usize].conjuncts[item.alt as usize];
        let Some(fc) = &conj[0].first else {
            return false;
        };
        let (pred, plan) = (fc.pred, conj.get(1).map_or(NONE, |c| c.plan));
        if self.special(pred) {
            return false;
        }
        // What was decided for this clause when the context was the same
        // (see [`super::decisions`]), from the entries of the predicates
        // the decision looks at.
        let pos = self.recording_position(|m| {
            let mut preds = [pred; 3];
            if plan != NONE {
                let t = &m.templates[tpl as usize];
                let first = &t.ahead[plan as usize];
                preds[1] = first.pred;
                if first.then != NONE {
                    preds[2] = t.ahead[first.then as usize].pred;
                }
            }
            preds
        });
        let recalled = pos.and_then(|p| self.decisions.recall(p, tpl, item.alt));
        if let Some(Recalled::PassOver) = recalled {
            return true;
        }
        self.first_call_decide(goal, (tpl, plan), item, seen, pos, recalled)
    }

    /// The rest of [`Machine::first_call_fails`] for a clause not recalled
    /// as passed over: the lookup of its first call, and the decision
    /// recalled (`recalled`) or made (and recorded at `pos`); `plan` is the
    /// second conjunct's look-ahead plan, as that function found it.
    #[inline(never)]
    fn first_call_decide(
        &mut self,
        goal: Cell,
        (tpl, plan): (u32, u32),
        item: Item,
        seen: &mut FirstSeen,
        pos: Option<u32>,
        recalled: Option<Recalled>,
    ) -> bool {
        let t = self.templates[tpl as usize].clone();
        let conj = &t.conjuncts[item.alt as usize];
        // (`first_call_fails` found it.)
        let Some(fc) = &conj[0].first else {
            return false;
        };
        // Clauses passed over one after the other see the same context:
        // one lookup serves those whose first calls have the same keys.
        let same = |(tpl, alt): (u32, u32)| {
            self.templates[tpl as usize].conjuncts[alt as usize][0]
                .first
                .as_ref()
                .is_some_and(|k| k.pred == fc.pred && k.keys == fc.keys && k.sig == fc.sig)
        };
        let mut sub = match *seen {
            Some((tpl, alt, c)) if same((tpl, alt)) => c,
            _ => {
                let c = self.ctx.lookup(fc.pred, 8, || fc.keys, || fc.sig);
                *seen = Some((tpl, item.alt, c));
                c
            }
        };
        // Whether `sub` is what the call will compute: when `G1` holds
        // variables of the head, only if the head leaves them distinct and
        // unbound (checked when the clause is tried); otherwise the call's
        // candidates are some of these.
        let mut exact = !fc.shared || fc.shared_slots().is_some();
        if plan != NONE && Context::masked_nonempty(&sub) {
            let first = &t.ahead[plan as usize];
            if first.slots {
                exact = false;
            } else if !self.special(first.pred) && self.some_fact(&sub) {
                // The goal after the next is checked when the call's
                // look-ahead would check it: it is a deferred conjunct (a
                // compound term), and its plan reads no slot either.
                let then = match (first.then, conj.get(2).map(|c| c.goal)) {
                    (NONE, _) | (_, None) => None,
                    (p, Some(Cell::Struct(_))) => {
                        let p = &t.ahead[p as usize];
                        exact &= !p.slots;
                        Some(p).filter(|p| !p.slots && !self.special(p.pred))
                    }
                    _ => None,
                };
                match recalled {
                    Some(Recalled::Kept(at, len)) => self.keep_recalled(&mut sub, at, len),
                    _ => {
                        let places = then.map_or(&first.places, |p| &p.places);
                        self.drop_doomed(
                            &mut sub,
                            places,
                            Check::of(tpl, plan, first),
                            then.map(|p| Check::of(tpl, first.then, p)),
                        );
                    }
                }
            }
        }
        if let (Some(pos), None) = (pos, recalled) {
            self.record_decision(pos, tpl, item.alt, &sub);
        }
        // Candidates whose move leads to a known failure (after the
        // record, which holds what the context alone decides).
        let mut known = None;
        if exact && !fc.shared && self.memoizing && plan != NONE && Context::masked_nonempty(&sub) {
            if let Some(mv) = t.ahead[plan as usize].moved.as_deref() {
                known = self.drop_known_first_moves(goal, (tpl, plan), mv, &mut sub);
            }
        }
        if !Context::has_more(&sub) {
            self.memo.stats.hits += known.unwrap_or(0) as u64;
            return true;
        }
        if exact {
            self.first_ahead = FirstAhead {
                item,
                at: NONE,
                cursor: sub,
                known,
            };
        }
        false
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
            if self.is_fact(items[i as usize]) {
                return true;
            }
        }
        false
    }

    /// [`Self::look_ahead`] when the continuation starts with a goal.
    #[inline(never)]
    fn look_ahead_at(&mut self, goal: Cell, cur: &mut Cursor) {
        let frame = self.frames[self.cont as usize];
        match frame.action {
            Action::Deferred {
                at, tpl, plan, env, ..
            } => self.look_ahead_planned(goal, cur, at, tpl, plan, env, frame.next),
            Action::Solve { goal: next, .. } => self.look_ahead_heap(goal, cur, next),
            _ => {}
        }
    }

    /// The look-ahead for a deferred conjunct of template `tpl` (block
    /// `at`, environment `env`, the frame after it `after`), from its
    /// `plan` made when the clause was compiled, if `goal` is the conjunct
    /// before it.  When that plan has a [`then`](AheadPlan::then) plan and
    /// the frame `after` is the conjunct it is for, that conjunct is
    /// checked too.  Steps that read slots are made anew: a slot's value
    /// becomes its digest, or when unbound a place in the call.
    #[allow(clippy::too_many_arguments)]
    fn look_ahead_planned(
        &mut self,
        goal: Cell,
        cur: &mut Cursor,
        at: u32,
        tpl: u32,
        plan: u32,
        env: u32,
        after: u32,
    ) {
        let t = self.templates[tpl as usize].clone();
        let first = &t.ahead[plan as usize];
        if goal != Cell::Struct(Addr((at as i64 + first.offset) as u32)) || self.special(first.pred)
        {
            return;
        }
        let then = match (first.then, after) {
            (NONE, _) | (_, NONE) => None,
            (then, after) => match self.frames[after as usize].action {
                Action::Deferred {
                    at,
                    tpl: tpl2,
                    env: env2,
                    ..
                } if tpl2 == tpl && env2 == env => {
                    let p = &t.ahead[then as usize];
                    (goal == Cell::Struct(Addr((at as i64 + p.offset) as u32))
                        && !self.special(p.pred))
                    .then_some(p)
                }
                _ => None,
            },
        };
        if !first.slots && then.is_none_or(|p| !p.slots) {
            // What was decided at this call in the same context, when the
            // call's candidates depend on the context alone.
            let key = CALL_DECISION | plan << 1 | then.is_some() as u32;
            let pos = if first.own_call {
                let then_pred = then.map_or(first.pred, |p| p.pred);
                self.recording_position(|m| {
                    let heap = &m.store.heap;
                    let call = heap
                        .functor(heap.deref(goal))
                        .map_or(first.pred, |(f, n, _)| (f, n));
                    [call, first.pred, then_pred]
                })
            } else {
                None
            };
            match pos.and_then(|p| self.decisions.recall(p, tpl, key)) {
                Some(Recalled::Kept(at, len)) => self.keep_recalled(cur, at, len),
                Some(Recalled::PassOver) => Context::drop_candidates(cur, u64::MAX),
                None => {
                    // The `then` plan's places begin with the first's.
                    let places = then.map_or(&first.places, |p| &p.places);
                    self.drop_doomed(
                        cur,
                        places,
                        Check::of(tpl, plan, first),
                        then.map(|p| Check::of(tpl, first.then, p)),
                    );
                    if let Some(p) = pos {
                        self.record_decision(p, tpl, key, cur);
                    }
                }
            }
        } else {
            self.drop_doomed_made(goal, cur, first, then, env);
        }
        if self.memoizing && first.moved.is_some() {
            self.drop_known_moves(goal, cur);
        }
    }

    /// [`Self::look_ahead_planned`]'s checks when a plan reads slots: its
    /// steps are made anew, a slot's value its digest or, when unbound, a
    /// place in the call.
    fn drop_doomed_made(
        &mut self,
        goal: Cell,
        cur: &mut Cursor,
        first: &AheadPlan,
        then: Option<&AheadPlan>,
        env: u32,
    ) {
        let mut steps = std::mem::take(&mut self.ahead);
        steps.ops.clear();
        steps.places.clear();
        steps.then.clear();
        let heap = &self.store.heap;
        if plan_ops(
            heap,
            first,
            goal,
            env,
            &mut steps.ops,
            &mut steps.places,
            &mut self.scratch,
        ) {
            let len = steps.places.len();
            let then = then.filter(|p| {
                let ok = plan_ops(
                    heap,
                    p,
                    goal,
                    env,
                    &mut steps.then,
                    &mut steps.places,
                    &mut self.scratch,
                );
                if !ok {
                    steps.places.truncate(len);
                }
                ok
            });
            self.drop_doomed(
                cur,
                &steps.places,
                Check::made(first.pred, &steps.ops),
                then.map(|p| Check::made(p.pred, &steps.then)),
            );
        }
        self.ahead = steps;
    }

    /// Whether calls of `pred` are not plain lookups: built-in, foreign or
    /// memoized.
    #[inline(always)]
    pub(super) fn special(&self, (f, n): (SymId, u32)) -> bool {
        self.builtin_of(f, n).is_some()
            || self.foreign_of(f, n).is_some()
            || (self.ctx.memo.on && self.memo_preds.get(f.0 as usize) == Some(&true))
    }

    /// The leftmost goal of `g` through `,` (the goal that runs first when
    /// `g` is solved).  `None` past [`HASH_BUDGET`] levels.
    pub(super) fn leftmost(&self, g: Cell) -> Option<Cell> {
        let heap = &self.store.heap;
        let mut g = heap.deref(g);
        for _ in 0..HASH_BUDGET {
            match g {
                Cell::Struct(a) if heap.get(a) == Cell::Functor(sym::COMMA, 2) => {
                    g = heap.deref(heap.get(Addr(a.0 + 1)));
                }
                _ => return Some(g),
            }
        }
        None
    }

    /// The key steps for `next`, a goal on the heap (not a `,`), from the
    /// call `goal` as they stand (see the module doc), into `ops`; the
    /// places they read are found in (or added to) `places`.  Returns
    /// `next`'s predicate; `None` when `next` is not a compound term of a
    /// name that is not predefined, or has a variable that a candidate
    /// leaves unbound.
    fn solve_ops(
        &mut self,
        goal: Cell,
        next: Cell,
        ops: &mut Vec<KeyOp>,
        places: &mut Vec<Place>,
    ) -> Option<(SymId, u32)> {
        let heap = &self.store.heap;
        let deref = |c: Cell| heap.deref(c);
        let Cell::Struct(a) = next else {
            return None;
        };
        let (f2, n2, args2) = match heap.get(a) {
            Cell::Functor(f, n) if f.0 > sym::END_OF_FILE.0 => (f, n, a.0 + 1),
            _ => return None,
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

    /// The look-ahead for a continuation that starts with `next`, a goal
    /// on the heap (a body copied whole): the steps are made from the two
    /// goals as they stand.  Only the next goal is checked: making the
    /// steps for the one after it too cost more than the tries it saved
    /// (`first` with every body copied whole: 1,124M instructions, with
    /// that check 1,257M).
    fn look_ahead_heap(&mut self, goal: Cell, cur: &mut Cursor, next: Cell) {
        let Some(next) = self.leftmost(next) else {
            return;
        };
        let mut steps = std::mem::take(&mut self.ahead);
        steps.ops.clear();
        steps.places.clear();
        let KeySteps { ops, places, .. } = &mut steps;
        if let Some(pred) = self.solve_ops(goal, next, ops, places) {
            if !self.special(pred) {
                self.drop_doomed(cur, places, Check::made(pred, ops), None);
            }
        }
        self.ahead = steps;
    }

    /// Drop the candidates of `cur` that are ground facts after which the
    /// call `next` would find nothing; or, when the goal after it is
    /// checked too (`after`), would find only ground facts, after which
    /// `after` would find nothing.  The checks' steps read `places`.
    fn drop_doomed(
        &mut self,
        cur: &mut Cursor,
        places: &[Place],
        next: Check<'_>,
        after: Option<Check<'_>>,
    ) {
        let Some((items, mask)) = self.ctx.masked_candidates(cur) else {
            return;
        };
        let Machine {
            ref ctx,
            ref templates,
            ref store,
            ref mut scratch,
            candidate_keys: ref mut kept,
            ..
        } = *self;
        let heap = &store.heap;
        let (pix, start1) = (ctx.pred_index(next.pred), key_start(next.pred));
        let two = after.is_some();
        // What the next goal finds, when a candidate gives it the key `h`.
        let found = |h: u64| match pix {
            None => Found::Nothing,
            Some(pix) if two => {
                ctx.ground_candidates(pix, h, |it| fact_in(ctx, templates, it).is_some())
            }
            Some(pix) if ctx.may_match_ground(pix, h) => Found::Maybe,
            Some(_) => Found::Nothing,
        };
        // Whether the goal after it finds nothing, with the key `h`.
        let after = after.map(|a| (a, ctx.pred_index(a.pred)));
        let start2 = after.map_or(start1, |(a, _)| key_start(a.pred));
        let fails_after = |h: u64| match after {
            Some((_, None)) => true,
            Some((_, Some(pix))) => !ctx.may_match_ground(pix, h),
            None => false,
        };
        // What does not depend on the candidate is decided once.  (A key
        // that cannot be computed keeps every candidate.)
        let fixed = (next.need == 0).then(|| match pix {
            None => Found::Nothing,
            Some(_) => run_ops(start1, next.ops, &[]).map_or(Found::Maybe, found),
        });
        let settled = match (fixed, after) {
            (Some(Found::Maybe), _) | (Some(Found::Facts), None) => true,
            // (A key that cannot be computed keeps every candidate, unless
            // the goal after has no clause at all.)
            (Some(Found::Facts), Some((a, pix2))) => {
                a.need == 0
                    && run_ops(start2, a.ops, &[]).map_or(pix2.is_some(), |h| !fails_after(h))
            }
            _ => false,
        };
        if settled {
            return;
        }
        let mut digests = [Digest::default(); MAX_PLAN_ARGS as usize];
        let mut drop = 0u64;
        let mut m = mask;
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let item = items[i as usize];
            let Some((Cell::Struct(head), known)) = fact_in(ctx, templates, item) else {
                continue;
            };
            // The places read for this candidate so far.
            let mut read = 0u32;
            let mut make = |check: &Check<'_>, start: Hasher64| {
                let need = check.need & !read;
                match read_places(heap, places, need, head, known, &mut digests, scratch) {
                    Err(true) => CandidateKey::Doomed,
                    Err(false) => CandidateKey::Unknown,
                    Ok(()) => {
                        read |= need;
                        run_ops(start, check.ops, &digests)
                            .map_or(CandidateKey::Unknown, CandidateKey::Key)
                    }
                }
            };
            let name = |check: &Check<'_>| {
                let res = ctx.entries[item.entry as usize].res;
                check
                    .plan
                    .filter(|_| res != NO_RES)
                    .map(|plan| name_of(plan, res, item.alt))
            };
            let first = match fixed {
                Some(f) => f,
                None => match kept.get_or(name(&next), || make(&next, start1)) {
                    CandidateKey::Doomed => Found::Nothing,
                    CandidateKey::Unknown => Found::Maybe,
                    CandidateKey::Key(h) => found(h),
                },
            };
            let doomed = match (first, after) {
                (Found::Nothing, _) => true,
                (Found::Maybe, _) | (Found::Facts, None) => false,
                (Found::Facts, Some((a, _))) => match kept.get_or(name(&a), || make(&a, start2)) {
                    CandidateKey::Doomed => true,
                    CandidateKey::Unknown => false,
                    CandidateKey::Key(h) => fails_after(h),
                },
            };
            if doomed {
                drop |= 1 << i;
            }
        }
        if drop != 0 {
            Context::drop_candidates(cur, drop);
        }
    }

    /// The head of the clause of `item` when it is a ground fact with no
    /// body (a heap cell), else `None`.
    #[inline(always)]
    pub(super) fn fact_head(&self, item: Item) -> Option<Cell> {
        self.fact_of(item).map(|(head, _)| head)
    }

    /// Whether [`Self::fact_head`] has a head for `item`, reading the
    /// entry alone when it says so.
    #[inline(always)]
    pub(super) fn is_fact(&self, item: Item) -> bool {
        self.ctx.entries[item.entry as usize].fact || self.fact_head(item).is_some()
    }

    /// [`Self::fact_head`], with the digests of the fact's first arguments
    /// where they are kept ([`HeapAlt::args`](crate::engine::context::HeapAlt::args);
    /// zeros otherwise).
    #[inline(always)]
    pub(super) fn fact_of(&self, item: Item) -> Option<(Cell, &[Digest; ALT_DIGESTS])> {
        fact_in(&self.ctx, &self.templates, item)
    }
}

/// No argument digests kept (see [`Machine::fact_of`]).
const NO_DIGESTS: [Digest; ALT_DIGESTS] = [Digest { hash: 0, pow: 0 }; ALT_DIGESTS];

/// Into `digests`, those of the subterms of the candidate fact at `head`
/// at the `places` in `need`; a place that is an argument whose digest is
/// `known` (nonzero) is not read.  `Err(true)` when the fact lacks one of
/// these places: it cannot match the call, whose variables are there, and
/// trying it would fail at once.  `Err(false)` when a subterm has no
/// digest (too large).
#[inline(always)]
pub(super) fn read_places(
    heap: &crate::term::Heap,
    places: &[Place],
    mut need: u32,
    head: Addr,
    known: &[Digest; ALT_DIGESTS],
    digests: &mut [Digest; MAX_PLAN_ARGS as usize],
    scratch: &mut Vec<Cell>,
) -> Result<(), bool> {
    let deref = |c: Cell| heap.deref(c);
    while need != 0 {
        let k = need.trailing_zeros() as usize;
        need &= need - 1;
        let place = places[k];
        if place.len == 0 {
            if let Some(&d) = known.get(place.arg as usize).filter(|d| d.pow != 0) {
                debug_assert_eq!(
                    place
                        .find(&heap.cells, &deref, head.ix())
                        .and_then(|a| walk_digest(heap, a, scratch)),
                    Some(d),
                    "a kept digest is that of the argument"
                );
                digests[k] = d;
                continue;
            }
        }
        let Some(a) = place.find(&heap.cells, &deref, head.ix()) else {
            return Err(true);
        };
        // Constants and shared terms (most arguments of facts) without
        // the general walk.
        digests[k] = match a {
            Cell::Struct(p) => match Digest::at(&heap.digests, p) {
                Some(d) => d,
                None => walk_digest(heap, a, scratch).ok_or(false)?,
            },
            Cell::Atom(s) => Digest::of_word(1, s.0 as u64),
            _ => walk_digest(heap, a, scratch).ok_or(false)?,
        };
    }
    Ok(())
}

/// [`term_digest`] of a term on the heap, out of the hot loop.
#[inline(never)]
fn walk_digest(heap: &crate::term::Heap, c: Cell, scratch: &mut Vec<Cell>) -> Option<Digest> {
    term_digest(&heap.cells, &heap.digests, &|c| heap.deref(c), c, scratch)
}

/// The steps of `plan` for the call `goal` (environment `env`) into `ops`:
/// slots become digests of their values, or places in the call when still
/// unbound, and the plan's places are found in (or added to) `places`.
/// `false` when a step cannot be made.
fn plan_ops(
    heap: &crate::term::Heap,
    plan: &AheadPlan,
    goal: Cell,
    env: u32,
    ops: &mut Vec<KeyOp>,
    places: &mut Vec<Place>,
    scratch: &mut Vec<Cell>,
) -> bool {
    let deref = |c: Cell| heap.deref(c);
    // Where the plan's places are in `places` (the first plan's, on an
    // empty list, stay where they are).
    let mut map = [0, 1, 2, 3, 4, 5, 6, 7];
    if places.is_empty() {
        places.extend_from_slice(&plan.places);
    } else {
        for (j, &p) in plan.places.iter().enumerate() {
            map[j] = match places.iter().position(|&q| q == p) {
                Some(i) => i as u32,
                None if places.len() < MAX_PLAN_ARGS as usize => {
                    places.push(p);
                    places.len() as u32 - 1
                }
                None => return false,
            };
        }
    }
    for &op in plan.ops.iter() {
        ops.push(match op {
            // A slot still unbound (a variable of the head, say) may be in
            // the call, and bound by the candidate.
            KeyOp::Slot(s) => match deref(heap.cells[(env + s) as usize]) {
                v @ Cell::Ref(_) => match place_of(heap, goal, v, places) {
                    Some(j) => KeyOp::Arg(j),
                    None => return false,
                },
                v => match term_digest(&heap.cells, &heap.digests, &deref, v, scratch) {
                    Some(d) => KeyOp::Digest(d),
                    None => return false,
                },
            },
            KeyOp::Arg(j) => KeyOp::Arg(map[j as usize]),
            KeyOp::ArgHash(j) => KeyOp::ArgHash(map[j as usize]),
            KeyOp::ArgAfter(pre, j) => KeyOp::ArgAfter(pre, map[j as usize]),
            op => op,
        });
    }
    true
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

/// [`Machine::fact_of`] from the context and the templates (for loops that
/// borrow the machine's other parts mutably).
#[inline(always)]
fn fact_in<'a>(
    ctx: &'a Context,
    templates: &[Rc<Template>],
    item: Item,
) -> Option<(Cell, &'a [Digest; ALT_DIGESTS])> {
    let entry = &ctx.entries[item.entry as usize];
    match entry.source {
        Source::Heap { alts, .. } => {
            let alt = &ctx.heap_alts[(alts + item.alt) as usize];
            (alt.ground && alt.nbody == 0).then_some((alt.head, &alt.args))
        }
        Source::Template { .. } if entry.fact => {
            Some((Cell::Struct(Addr(entry.ground)), &NO_DIGESTS))
        }
        Source::Template { tpl, .. } if entry.ground != NONE => {
            let t = &templates[tpl as usize];
            let alt = &t.alts[item.alt as usize];
            if !alt.body.is_empty() {
                return None;
            }
            let head = match (alt.head, t.root) {
                (Cell::Struct(a), Cell::Struct(r)) => {
                    Cell::Struct(Addr(entry.ground + (a.0 - r.0)))
                }
                (other, _) => other,
            };
            Some((head, &NO_DIGESTS))
        }
        Source::Template { .. } => None,
    }
}
