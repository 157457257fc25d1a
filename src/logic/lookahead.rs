//! Look-ahead plans: how to compute, from a candidate fact of one conjunct
//! of a clause body, the index key of the conjunct after it.
//!
//! In `jump (s N) :- b X Y peg , b (s X) Y peg , ...`, a fact `b x y peg`
//! that the first conjunct may take binds `X` and `Y`, and so decides the
//! whole-atom key of the second.  A plan, made once when the clause is
//! compiled, says how: the second conjunct's arguments as steps over the
//! first conjunct's arguments ([`KeyOp::Arg`]), the clause's other
//! variables ([`KeyOp::Slot`], read when the call is made) and fixed cells.
//! The engine runs a plan for each candidate of the first conjunct
//! ([`crate::engine`]'s look-ahead) to pass over the candidates after which
//! the second conjunct has nothing to match.
//!
//! A plan exists for conjuncts `Gk , Gk+1` of a body when:
//! - `Gk` is a compound term (the engine finds its copy by address, see
//!   [`AheadPlan::offset`]);
//! - `Gk+1` is a compound term whose name is not predefined (a
//!   connective or a predefined name is never a plain call);
//! - every variable of `Gk+1` either occurs in `Gk` (at most
//!   [`MAX_DEPTH`] compound terms deep, as `X` in `b (s (s X)) Y peg`), or
//!   occurs before `Gk` only (in the head or an earlier conjunct: its value
//!   is known when `Gk` is called, or it is an environment slot).  After
//!   `Gk` matches a fact, a variable of `Gk` has the fact's subterm at its
//!   place ([`Place`]) as value: the match binds it there, or it was bound
//!   before (by the head, say) to a term the fact equals there.  So the
//!   plan reads it from the candidate even when it occurs before `Gk`; a
//!   candidate that does not match fails whatever the plan computes.
//!
//! The steps hash the conjunct exactly as [`super::keys::keys_of`] would
//! hash its heap copy: the same cells in the same order.
//!
//! A pair with a plan may have a second one, for `Gk , Gk+2`
//! ([`AheadPlan::then`]), under the same conditions with `Gk+2` in place
//! of `Gk+1` (a variable first seen in `Gk+1` has no place in `Gk`, so
//! no plan).  The engine uses it when every candidate `Gk+1` has is a
//! ground fact: that call then only consumes one, and `Gk+2` runs next.

use super::clause::Alt;
use super::keys::{first_sig, keys_of, term_hash, Keys};
use super::move_plan::{move_plan, MovePlan};
use super::template::Conjunct;
use crate::term::cell::{Digest, Hasher64, SeqHash};
use crate::term::{sym, Cell, SymId};

/// One step of computing a conjunct's whole-atom key.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KeyOp {
    /// An argument that is the same for every candidate: its hash.
    Fixed(u64),
    /// The start of an argument computed from the steps up to [`KeyOp::End`].
    Start,
    /// A cell (tag and word, as [`term_hash`] adds them).
    Add(u64, u64),
    /// The value of a variable slot of the clause, known when the earlier
    /// conjunct is called (the engine turns it into [`KeyOp::Digest`]).
    Slot(u32),
    /// A ground term, by its digest.
    Digest(Digest),
    /// The candidate's subterm at source `j` of the plan's (or the call's)
    /// [`Place`]s, which trying it binds to a variable.
    Arg(u32),
    /// The end of an argument.
    End,
    /// A whole argument that is source `j` (what `Start, Arg(j), End`
    /// compute, in one step).
    ArgHash(u32),
    /// A whole argument that is fixed cells, then source `j`: what
    /// `Start`, the steps of those cells, `Arg(j), End` compute, in one
    /// step from the state the cells leave ([`SeqHash::state`]).
    ArgAfter(u64, u32),
}

/// The most compound terms deep a [`Place`] reaches.
pub const MAX_DEPTH: usize = 6;

/// Where in a candidate fact a variable of the call is bound: argument
/// `arg` of the fact, then argument `steps[0]` of that, and so on, `len`
/// steps deep.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The argument of the fact.
    pub arg: u8,
    /// How many steps follow.
    pub len: u8,
    /// The argument taken at each step.
    pub steps: [u8; MAX_DEPTH],
}

impl Place {
    /// The variable places of a term: for each cell reached by argument
    /// positions from `c` (at most [`MAX_DEPTH`] deep and through the
    /// first 256 arguments of a compound), `visit(source, cell)` in
    /// preorder; `arg` is the term's argument position in the call.
    pub fn walk(
        cells: &[Cell],
        deref: &impl Fn(Cell) -> Cell,
        arg: u8,
        c: Cell,
        visit: &mut impl FnMut(Place, Cell),
    ) {
        let mut stack = vec![(
            deref(c),
            Place {
                arg,
                len: 0,
                steps: [0; MAX_DEPTH],
            },
        )];
        while let Some((c, at)) = stack.pop() {
            visit(at, c);
            let (Cell::Struct(a), Some(n)) = (c, Self::inside(cells, c)) else {
                continue;
            };
            if at.len as usize == MAX_DEPTH {
                continue;
            }
            for i in (0..n.min(256) as usize).rev() {
                let mut inner = at;
                inner.steps[at.len as usize] = i as u8;
                inner.len += 1;
                stack.push((deref(cells[a.ix() + 1 + i]), inner));
            }
        }
    }

    /// The number of arguments of a compound term whose arguments match a
    /// fact's arguments place by place: not a variable application
    /// (`$apply F X` unifies with terms of other shapes) nor a binder term
    /// (matched up to its bound names).
    #[inline]
    fn inside(cells: &[Cell], c: Cell) -> Option<u32> {
        let Cell::Struct(a) = c else { return None };
        match cells[a.ix()] {
            Cell::Functor(f, n) if f != sym::APPLY && !f.is_binder() => Some(n),
            _ => None,
        }
    }

    /// The first place (in preorder) in the call at `atom` (a compound
    /// term's address) where the unbound variable `v` is, looking at no
    /// more than `budget` cells, without allocating: the engine asks at
    /// calls.
    pub fn locate(
        cells: &[Cell],
        deref: &impl Fn(Cell) -> Cell,
        atom: usize,
        v: Cell,
        budget: &mut usize,
    ) -> Option<Place> {
        const STACK: usize = 16;
        let Cell::Functor(_, n) = cells[atom] else {
            return None;
        };
        let top_place = Place {
            arg: 0,
            len: 0,
            steps: [0; MAX_DEPTH],
        };
        let mut stack = [(Cell::Ref(crate::term::Addr(0)), top_place); STACK];
        let mut top = 0;
        for i in (0..n.min(MAX_PLAN_ARGS)).rev() {
            stack[top] = (
                cells[atom + 1 + i as usize],
                Place {
                    arg: i as u8,
                    ..top_place
                },
            );
            top += 1;
        }
        while top > 0 {
            top -= 1;
            let (c, at) = stack[top];
            *budget = budget.checked_sub(1)?;
            let c = deref(c);
            if c == v {
                return Some(at);
            }
            let (Cell::Struct(a), Some(n)) = (c, Place::inside(cells, c)) else {
                continue;
            };
            if at.len as usize == MAX_DEPTH {
                continue;
            }
            for i in (0..n.min(256) as usize).rev() {
                if top == STACK {
                    return None;
                }
                let mut inner = at;
                inner.steps[at.len as usize] = i as u8;
                inner.len += 1;
                stack[top] = (cells[a.ix() + 1 + i], inner);
                top += 1;
            }
        }
        None
    }

    /// The subterm at this place of the atom at `head` (a heap address),
    /// if the atom has that shape.
    #[inline(always)]
    pub fn find(self, cells: &[Cell], deref: &impl Fn(Cell) -> Cell, head: usize) -> Option<Cell> {
        let mut c = deref(cells[head + 1 + self.arg as usize]);
        if self.len == 0 {
            return Some(c);
        }
        for &step in &self.steps[..self.len as usize] {
            let Cell::Struct(a) = c else { return None };
            match cells[a.ix()] {
                Cell::Functor(_, n) if (step as u32) < n => {
                    c = deref(cells[a.ix() + 1 + step as usize]);
                }
                _ => return None,
            }
        }
        Some(c)
    }
}

/// The places that steps read, as a mask.
pub fn need_of(ops: &[KeyOp]) -> u32 {
    ops.iter().fold(0, |need, op| match *op {
        KeyOp::Arg(i) | KeyOp::ArgHash(i) | KeyOp::ArgAfter(_, i) => need | 1 << i,
        _ => need,
    })
}

/// End the steps of an argument begun with [`KeyOp::Start`]: `Start,
/// Arg(i)` becomes [`KeyOp::ArgHash`], and fixed cells followed by
/// `Arg(i)` (`s X`) become [`KeyOp::ArgAfter`].
pub fn end_argument(ops: &mut Vec<KeyOp>) {
    let start = ops.iter().rposition(|op| *op == KeyOp::Start);
    let Some((start, &[KeyOp::Arg(i)])) = start.map(|s| (s, &ops[ops.len() - 1..])) else {
        return ops.push(KeyOp::End);
    };
    let mut pre = SeqHash::new();
    for op in &ops[start + 1..ops.len() - 1] {
        match *op {
            KeyOp::Add(tag, word) => pre.add(tag, word),
            KeyOp::Digest(d) => pre.add_digest(d),
            _ => return ops.push(KeyOp::End),
        }
    }
    let fused = if start + 2 == ops.len() {
        KeyOp::ArgHash(i)
    } else {
        KeyOp::ArgAfter(pre.state(), i)
    };
    ops.truncate(start);
    ops.push(fused);
}

/// The whole-atom key that `ops` compute, after the name's step `start`,
/// with the call's arguments' digests `args` (as `keys_of` would hash the
/// goal); `None` if a step is still a slot (the engine makes them digests
/// first).
#[inline(always)]
pub fn run_ops(start: Hasher64, ops: &[KeyOp], args: &[Digest]) -> Option<u64> {
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
            KeyOp::ArgAfter(pre, k) => {
                let mut arg = SeqHash::from_state(pre);
                arg.add_digest(*args.get(k as usize)?);
                whole.add(6, arg.finish())
            }
            KeyOp::Slot(_) => return None,
            KeyOp::End => whole.add(6, arg.finish()),
        }
    }
    Some(whole.finish())
}

/// The state of a whole-atom key's hash after the name's step, for
/// [`run_ops`].
#[inline(always)]
pub fn key_start((f, n): (SymId, u32)) -> Hasher64 {
    let mut h = Hasher64::new();
    h.add(5, ((f.0 as u64) << 32) | n as u64);
    h
}

/// A plan for the conjunct pair `Gk , Gk+1` (see the module doc), named by
/// `Gk+1`'s [`Conjunct::plan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AheadPlan {
    /// Where the heap copy of `Gk` is, relative to the block reserved for
    /// `Gk+1`: the engine copies a body's later conjuncts into consecutive
    /// blocks and the first one after them.
    pub offset: i64,
    /// `Gk+1`'s name and number of arguments.
    pub pred: (SymId, u32),
    /// Where the variables of `Gk` that `Gk+1` holds are in a candidate,
    /// named by [`KeyOp::Arg`].
    pub places: Box<[Place]>,
    /// The steps, one group per argument of `Gk+1`.
    pub ops: Box<[KeyOp]>,
    /// The plan for `Gk , Gk+2` (its position in [`super::template::Template::ahead`]),
    /// or `u32::MAX` for none: when `Gk+1` only takes a ground fact, a
    /// candidate of `Gk` after which `Gk+2` has nothing to match is
    /// doomed too.  Its places begin with this plan's.
    pub then: u32,
    /// Whether a step is a [`KeyOp::Slot`] (the engine makes the steps
    /// anew at each call then).
    pub slots: bool,
    /// The places the steps read, as a mask.
    pub need: u32,
    /// Whether `Gk` holds no variable that occurs before it and no
    /// environment slot (a plan of `Gk , Gk+1` only): its index keys are
    /// then the same at every call, and so are its candidates in a given
    /// context, and what the look-ahead decides of them (the engine
    /// records the decision by position).
    pub own_call: bool,
    /// What a candidate of `Gk` decides of the move the body makes after
    /// it, when it decides it all ([`super::move_plan`]): only for a
    /// plan of `Gk , Gk+1`.
    pub moved: Option<Box<MovePlan>>,
}

/// The most arguments of `Gk` a plan reads, and the most places.
pub const MAX_PLAN_ARGS: u32 = 8;

/// The plans of a template's bodies: for each alternative, each pair of
/// consecutive conjuncts that has one, its position written in the later
/// conjunct's [`Conjunct::plan`].  `env_len` slots are the module
/// environment's.
pub fn plans_of(
    cells: &[Cell],
    ends: &[u32],
    alts: &[Alt],
    conjuncts: &mut [Vec<Conjunct>],
    env_len: u32,
) -> Box<[AheadPlan]> {
    let mut plans = Vec::new();
    for (alt, conjuncts) in alts.iter().zip(conjuncts) {
        let mut seen: Vec<u32> = Vec::new();
        let block = |c: Cell| match c {
            Cell::Struct(a) => a.ix()..ends[a.ix()] as usize,
            _ => 0..0,
        };
        let slots_in = |c: Cell, out: &mut Vec<u32>| {
            for cell in &cells[block(c)] {
                if let Cell::Ref(s) = cell {
                    out.push(s.0);
                }
            }
            if let Cell::Ref(s) = c {
                out.push(s.0);
            }
        };
        slots_in(alt.head, &mut seen);
        if let Some(g1) = conjuncts.first_mut() {
            g1.first = first_call(cells, &block, g1.goal, &seen, env_len);
        }
        // The reserved blocks of conjuncts 1.. (see the engine's
        // `push_conjuncts`): the first conjunct is copied after them.
        let reserved: u32 = conjuncts.iter().skip(1).map(|c| c.len).sum();
        let lens: Vec<u32> = conjuncts.iter().map(|c| c.len).collect();
        let goals: Vec<Cell> = conjuncts.iter().map(|c| c.goal).collect();
        // The conjuncts before this one are in a move named already.
        let mut moves_end = 0;
        for k in 0..conjuncts.len() {
            let (gk, len_k) = (conjuncts[k].goal, conjuncts[k].len);
            // Where `Gk` is relative to the block of the conjunct `d`
            // after it.
            let offset = |d: usize| {
                let between: u32 = lens[k + 1..k + d].iter().sum();
                if k == 0 {
                    reserved as i64 - between as i64
                } else {
                    -((len_k + between) as i64)
                }
            };
            if let Some(next) = conjuncts.get(k + 1) {
                if let Some(mut p) = plan(cells, gk, next.goal, &seen, env_len, offset(1), &[]) {
                    p.own_call = cells[block(gk)].iter().all(|c| match *c {
                        Cell::Ref(s) => s.0 >= env_len && !seen.contains(&s.0),
                        _ => true,
                    });
                    let first = plans.len();
                    conjuncts[k + 1].plan = first as u32;
                    plans.push(p);
                    plans[first].moved =
                        move_plan(cells, &block, &goals, k, &seen, env_len, alt.head).map(Box::new);
                    // The engine names the takes and facts of a move that
                    // no earlier one holds (`Conjunct::take`, `assumes`).
                    let free = k >= moves_end;
                    if let Some(mv) = plans[first].moved.as_ref().filter(|_| free) {
                        let m = mv.takes.len();
                        for j in 0..m {
                            if let Some(c) = conjuncts.get_mut(k + 1 + j) {
                                c.take = Some((first as u32, j as u32, offset(1 + j)));
                            }
                        }
                        if let Some(c) = conjuncts.get_mut(k + 1 + m) {
                            c.assumes = Some((first as u32, offset(1 + m)));
                        }
                        conjuncts[k].begins = k > 0;
                        moves_end = k + 2 + m;
                    }
                    if let Some(after) = conjuncts.get(k + 2) {
                        let known = &plans[first].places;
                        if let Some(p) =
                            plan(cells, gk, after.goal, &seen, env_len, offset(2), known)
                        {
                            plans[first].then = plans.len() as u32;
                            plans.push(p);
                        }
                    }
                }
            }
            slots_in(gk, &mut seen);
        }
        // A first call that shares variables with the head only where the
        // look-ahead can check its candidates exactly (see `FirstCall`):
        // elsewhere (`len (X :: T) N :- len T M , ...`) its lookup would
        // rarely find nothing, and cost every try of the clause.
        let checked = |c: &Conjunct| c.plan != u32::MAX && !plans[c.plan as usize].slots;
        if let [g1, g2, ..] = &mut conjuncts[..] {
            if g1.first.is_some_and(|f| f.shared) && !checked(g2) {
                g1.first = None;
            }
        }
    }
    plans.into_boxed_slice()
}

/// The variables of the compound term `gk` and their first places in it
/// (in preorder, through its first [`MAX_PLAN_ARGS`] arguments): where a
/// candidate fact that matches `gk` holds each one's value.
pub(super) fn places_in(cells: &[Cell], gk: Cell) -> Vec<(u32, Place)> {
    let mut at: Vec<(u32, Place)> = Vec::new();
    let Cell::Struct(a) = gk else { return at };
    let Cell::Functor(_, n) = cells[a.ix()] else {
        return at;
    };
    for i in 0..n.min(MAX_PLAN_ARGS) {
        let arg = cells[a.ix() + 1 + i as usize];
        Place::walk(cells, &|c| c, i as u8, arg, &mut |p, c| {
            if let Cell::Ref(s) = c {
                if !at.iter().any(|&(t, _)| t == s.0) {
                    at.push((s.0, p));
                }
            }
        });
    }
    at
}

/// A clause body's first conjunct `G1` whose candidates can be looked up
/// before the clause is tried: a call of a name that is not predefined,
/// no variable of which is the environment's.  When every variable of
/// `G1` occurs first in `G1` itself (as in `jump (s N) :- b X Y peg ,
/// ...`), its index keys are the same for every use of the clause, and so
/// are its candidates in a given context: the engine looks them up when
/// the clause is a candidate of a call, and passes over a clause whose
/// `G1` would find nothing (see the engine's look-ahead, "into clause
/// bodies").
///
/// `G1` may also hold variables of the head (`jump (j (sw X Y) N) :- b X
/// Y peg , ...`, the move recorded in the head), when the plan of `G1 ,
/// G2` reads no slot ([`AheadPlan::slots`]).  The keys are then those of
/// `G1` with those variables unbound: a call that binds them through the
/// head finds among these candidates only those that match, so when none
/// of them is left after the look-ahead, the clause is passed over as
/// well.  When the head leaves those variables distinct and unbound, the
/// candidates are exactly the call's; otherwise `G1` looks up its own
/// when it is called.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FirstCall {
    /// `G1`'s name and number of arguments.
    pub pred: (SymId, u32),
    /// Its index keys, as [`super::keys::keys_of`] computes them for any copy.
    pub keys: Keys,
    /// The signature of its first argument ([`super::keys::first_sig`]).
    pub sig: u32,
    /// Whether `G1` holds a variable of the head (its candidates at a call
    /// are then some of those found with `keys`).
    pub shared: bool,
    /// Those variables' slots, when there are at most [`MAX_SHARED`]
    /// (`nshared` of them; `u8::MAX` when more): when the head leaves them
    /// distinct unbound variables, `G1`'s candidates at the call are
    /// exactly those found with `keys`.
    pub shared_slots: [u32; MAX_SHARED],
    /// How many of `shared_slots` there are.
    pub nshared: u8,
}

/// The most variables of the head in a first call whose values the engine
/// checks after the head matched ([`FirstCall::shared_slots`]).
pub const MAX_SHARED: usize = 4;

impl FirstCall {
    /// The slots of the head's variables in `G1`, if they can be checked.
    pub fn shared_slots(&self) -> Option<&[u32]> {
        self.shared_slots.get(..self.nshared as usize)
    }
}

/// The [`FirstCall`] of the first conjunct `g1` of a body (its cells in
/// `block(g1)`), if it has one; `head` are the slots of the head.
fn first_call(
    cells: &[Cell],
    block: &impl Fn(Cell) -> std::ops::Range<usize>,
    g1: Cell,
    head: &[u32],
    env_len: u32,
) -> Option<FirstCall> {
    let Cell::Struct(a) = g1 else {
        return None;
    };
    let Cell::Functor(f, n) = cells[a.ix()] else {
        return None;
    };
    if f.0 <= sym::END_OF_FILE.0 || f == sym::APPLY {
        return None;
    }
    let vars = || {
        cells[block(g1)].iter().filter_map(|c| match *c {
            Cell::Ref(s) => Some(s.0),
            _ => None,
        })
    };
    if vars().any(|s| s < env_len) {
        return None;
    }
    let mut shared: Vec<u32> = vars().filter(|s| head.contains(s)).collect();
    shared.sort_unstable();
    shared.dedup();
    let mut shared_slots = [0; MAX_SHARED];
    let nshared = match shared_slots.get_mut(..shared.len()) {
        Some(slots) => {
            slots.copy_from_slice(&shared);
            shared.len() as u8
        }
        None => u8::MAX,
    };
    let (pred, keys) = keys_of(cells, &[], |c| c, g1, &mut Vec::new());
    let sig = match n {
        0 => 0,
        _ => first_sig(cells, cells[a.ix() + 1]),
    };
    Some(FirstCall {
        pred,
        keys,
        sig,
        shared: nshared > 0,
        shared_slots,
        nshared,
    })
}

/// The plan for `gk , next`, if they have one; `seen` are the slots that
/// occur before `gk`; its places begin with `known`.
///
/// Every variable of `gk` is read from the candidate at its place, the
/// variables that occur before `gk` (in the head, say) too: for a
/// candidate that matches the call, the subterm there is the variable's
/// value after the match, whether the candidate binds it or it was bound
/// before to a term the candidate equals there; and a candidate that does
/// not match fails whatever its plan computes.  So the plan is the same
/// at every call, however the variables of the head are bound.  Only
/// when the places would be too many are those variables read as slots
/// ([`KeyOp::Slot`]) instead.
pub(super) fn plan(
    cells: &[Cell],
    gk: Cell,
    next: Cell,
    seen: &[u32],
    env_len: u32,
    offset: i64,
    known_places: &[Place],
) -> Option<AheadPlan> {
    let with = |read: &[(u32, Place)]| {
        plan_from(cells, gk, next, seen, env_len, offset, known_places, read)
    };
    let all = places_in(cells, gk);
    with(&all).or_else(|| {
        // Only the variables first seen in `gk`.
        let own: Vec<(u32, Place)> = all
            .iter()
            .filter(|&&(s, _)| s >= env_len && !seen.contains(&s))
            .copied()
            .collect();
        (own.len() < all.len()).then(|| with(&own)).flatten()
    })
}

/// [`plan`] with `read`, the variables of `gk` read from the candidate
/// and their places (the others occurring before `gk` are read as slots).
#[allow(clippy::too_many_arguments)]
fn plan_from(
    cells: &[Cell],
    gk: Cell,
    next: Cell,
    seen: &[u32],
    env_len: u32,
    offset: i64,
    known_places: &[Place],
    read: &[(u32, Place)],
) -> Option<AheadPlan> {
    let (Cell::Struct(a), Cell::Struct(b)) = (gk, next) else {
        return None;
    };
    let Cell::Functor(..) = cells[a.ix()] else {
        return None;
    };
    let Cell::Functor(f2, n2) = cells[b.ix()] else {
        return None;
    };
    if f2.0 <= sym::END_OF_FILE.0 {
        return None;
    }
    let known = |s: u32| s < env_len || seen.contains(&s);
    let mut places: Vec<Place> = known_places.to_vec();
    let mut ops = Vec::new();
    let mut stack = Vec::new();
    for j in 0..n2 as usize {
        let arg = cells[b.ix() + 1 + j];
        if let Some(h) = term_hash(cells, &[], &|c| c, arg, &mut stack) {
            ops.push(KeyOp::Fixed(h));
            continue;
        }
        ops.push(KeyOp::Start);
        stack.clear();
        stack.push(arg);
        while let Some(c) = stack.pop() {
            ops.push(match c {
                Cell::Ref(s) => match read.iter().find(|&&(t, _)| t == s.0) {
                    Some(&(_, at)) => {
                        let j = match places.iter().position(|&o| o == at) {
                            Some(j) => j,
                            None if places.len() < MAX_PLAN_ARGS as usize => {
                                places.push(at);
                                places.len() - 1
                            }
                            None => return None,
                        };
                        KeyOp::Arg(j as u32)
                    }
                    None if known(s.0) => KeyOp::Slot(s.0),
                    // Unbound after `gk` succeeds: no whole key.
                    None => return None,
                },
                Cell::Atom(s) => KeyOp::Add(1, s.0 as u64),
                Cell::Int(i) => KeyOp::Add(2, i as u64),
                Cell::Str(s) => KeyOp::Add(3, s.0 as u64),
                Cell::Eigen(e) => KeyOp::Add(4, e as u64),
                Cell::Struct(p) => {
                    // A variable application has no key (see `keys`).
                    let Cell::Functor(f, k) = cells[p.ix()] else {
                        return None;
                    };
                    if f == sym::APPLY {
                        return None;
                    }
                    for i in (0..k as usize).rev() {
                        stack.push(cells[p.ix() + 1 + i]);
                    }
                    KeyOp::Add(5, ((f.0 as u64) << 32) | k as u64)
                }
                // A binder term is not hashed: no whole key.
                Cell::Bound(_) | Cell::Functor(..) => return None,
            });
        }
        end_argument(&mut ops);
    }
    Some(AheadPlan {
        offset,
        pred: (f2, n2),
        places: places.into_boxed_slice(),
        slots: ops.iter().any(|op| matches!(op, KeyOp::Slot(_))),
        need: need_of(&ops),
        ops: ops.into_boxed_slice(),
        then: u32::MAX,
        own_call: false,
        moved: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::template::Compiler;
    use crate::term::Symbols;
    use std::collections::HashMap;

    /// The first call of the clause's first alternative, compiled in a
    /// module with parameters `params`.
    fn first_of(clause: &str, params: &[&str]) -> Option<FirstCall> {
        let mut symbols = Symbols::new();
        let mut binders = Vec::new();
        let locals = HashMap::new();
        let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        let term = crate::syntax::parse_term(clause).expect("parses");
        let t = Compiler::new(&mut symbols, &mut binders, &params, &locals)
            .clause(&term)
            .expect("compiles");
        t.conjuncts[0].first().and_then(|c| c.first)
    }

    #[test]
    fn fused_argument_steps_compute_the_key_the_steps_do() {
        let d = |h: u64, n: u32| Digest {
            hash: h,
            pow: SeqHash::P.wrapping_pow(n),
        };
        let args = [d(0x1234_5678, 3), d(0xdead_beef, 1)];
        let fixed = d(0x4242, 2);
        // `f (s (s A)) B (g C A)`'s arguments, with A, B and C sources 0,
        // 1 and 0 again: `s (s A)` fuses, `B` is a whole source, `g C A`
        // (fixed cells, sources, a digest) stays as it is.
        let mut ops = Vec::new();
        let mut unfused = Vec::new();
        for arg in [
            vec![
                KeyOp::Add(5, 7 << 32 | 1),
                KeyOp::Add(5, 7 << 32 | 1),
                KeyOp::Arg(0),
            ],
            vec![KeyOp::Arg(1)],
            vec![
                KeyOp::Add(5, 9 << 32 | 2),
                KeyOp::Arg(0),
                KeyOp::Digest(fixed),
                KeyOp::Arg(0),
            ],
        ] {
            ops.push(KeyOp::Start);
            ops.extend_from_slice(&arg);
            end_argument(&mut ops);
            unfused.push(KeyOp::Start);
            unfused.extend_from_slice(&arg);
            unfused.push(KeyOp::End);
        }
        assert!(matches!(ops[0], KeyOp::ArgAfter(_, 0)));
        assert_eq!(ops[1], KeyOp::ArgHash(1));
        assert_eq!(ops.len(), 2 + 6);
        let start = Hasher64::new();
        assert_eq!(run_ops(start, &ops, &args), run_ops(start, &unfused, &args));
        assert_eq!(need_of(&ops), 0b11);
    }

    #[test]
    fn a_first_call_shares_no_variable_with_the_head() {
        let jump = first_of("jump (s N) :- b X Y peg , b (s X) Y peg", &[]).expect("one");
        assert_eq!(jump.pred.1, 3);
        assert_eq!(
            (jump.keys.whole, jump.keys.args[0], jump.keys.args[1]),
            (None, None, None)
        );
        assert!(jump.keys.args[2].is_some());
        assert_eq!(jump.sig, 0);
        // A ground first call has a whole-atom key, and its first argument
        // a signature.
        let ground = first_of("p :- q (s z) , r", &[]).expect("one");
        assert!(ground.keys.whole.is_some() && ground.sig != 0);
        // Sharing a variable with the head: a first call whose candidates
        // include the call's, when the plan of `G1 , G2` reads no slot.
        let shared = first_of("p X :- q X Y , r Y", &[]).expect("one");
        assert!(shared.shared && shared.keys.args[0].is_none());
        assert!(!jump.shared && !ground.shared);
        assert_eq!(first_of("p X Z :- q X Y , r Z", &[]), None);
        assert_eq!(first_of("p X :- q X Y , r W", &[]), None);
        // A predefined name, a module parameter, a body of one goal: none.
        assert_eq!(first_of("p :- X = a , q X", &[]), None);
        assert_eq!(first_of("p :- q K , r", &["K"]), None);
        assert_eq!(first_of("p :- q X", &[]), None);
    }
}
