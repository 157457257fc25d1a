//! Move plans: how a candidate fact of one conjunct decides a whole move,
//! the facts the next conjuncts take, the facts the assumption after them
//! adds and the call it makes.
//!
//! In `jump (s N) :- b X Y peg , b (s X) Y peg , b (s (s X)) Y empty ,
//! ((b X Y empty , b (s X) Y empty , b (s (s X)) Y peg) -o jump N)`, a
//! fact `b x y peg` that the first conjunct may take binds `X` and `Y`,
//! and so decides everything the body does until `jump N` is called: the
//! two facts it takes next (if each is one fact of the context), the three
//! it assumes, and the call.  When `jump` is memoized, the engine can tell
//! from the memo table, before trying the candidate, that the call would
//! fail in the context the move makes ([`crate::engine`]'s memo
//! look-ahead).  A move plan, made once when the clause is compiled, holds
//! what that needs: the index keys of the conjuncts taken and of the facts
//! assumed as [`KeyOp`] steps over the candidate's subterms ([`Place`]s),
//! where each variable of the move is in the candidate, and the call.
//!
//! A plan exists for conjunct `Gk` when the conjuncts after it are:
//! - one to [`MAX_TAKES`] calls `Gk+1 .. Gk+m` each of which has a
//!   look-ahead plan from `Gk` that reads no slot (every variable occurs
//!   in `Gk`, [`super::lookahead`]);
//! - then an assumption `D -o G` (or `D => G`, `G :- D`, `G <= D`) whose
//!   `D` is one or more compound atoms joined by `,`, each with such a
//!   plan, and whose `G` (or its leftmost conjunct) is a call of a name
//!   that is not predefined, each variable of which occurs in `Gk` or
//!   before it.
//!
//! A variable of `Gk` is read from the candidate at its place, as the
//! look-ahead plans read it: in `jump (j (sw X Y) N) :- b X Y peg , ...`
//! (the move recorded in the head) as in the seed's clause.
//!
//! Terms are kept small ([`MAX_TERM`] cells), so the engine's walks over
//! them stay cheap.

use super::lookahead::{need_of, KeyOp};
use super::lookahead::{places_in, plan, Place, MAX_PLAN_ARGS};
use crate::term::{sym, Addr, Cell, SymId};

/// The most calls between `Gk` and the assumption.
pub const MAX_TAKES: usize = 3;

/// The most cells of an assumed fact or of the call.
pub const MAX_TERM: usize = 64;

/// A goal's name and the steps computing its whole-atom key from the
/// candidate's subterms (as [`super::lookahead::AheadPlan::ops`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyedGoal {
    /// Name and number of arguments.
    pub pred: (SymId, u32),
    /// The steps.
    pub ops: Box<[KeyOp]>,
    /// For an assumed fact, the fact written out ([`TermOp`]s); empty
    /// for a take.
    pub term: Box<[TermOp]>,
}

/// A term written out in preorder, one step a cell, with the
/// candidate's subterms and the clause's variables named, not copied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TermOp {
    /// A cell of the template: a constant (atom, integer, string) or a
    /// compound's `Functor` (its arguments follow).
    Cell(Cell),
    /// The candidate's subterm at place `j` of the plan's places.
    Place(u32),
    /// The value of the clause's variable slot `s`, known when `Gk` is
    /// called (in the call only).
    Slot(u32),
}

/// What a candidate of conjunct `Gk` decides (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovePlan {
    /// Where the steps and the terms read the candidate.
    pub places: Box<[Place]>,
    /// The places read, as a mask.
    pub need: u32,
    /// The calls `Gk+1 .. Gk+m`, in order.
    pub takes: Box<[KeyedGoal]>,
    /// The facts of the assumption, in the order it names them.
    pub facts: Box<[KeyedGoal]>,
    /// Whether the assumption is linear (`-o`, `:-`).
    pub linear: bool,
    /// The call, the leftmost goal of the assumption's body, written out.
    pub call: Box<[TermOp]>,
    /// The call's name and number of arguments.
    pub call_pred: (SymId, u32),
    /// Whether the call holds a variable of `Gk` (its key then differs
    /// from candidate to candidate).
    pub call_reads: bool,
    /// For the first conjunct (`k` = 0), when each slot the call reads
    /// ([`TermOp::Slot`]) occurs once in the clause's head and is not the
    /// environment's: the slot and its place in the head.  A call that
    /// the head matches binds the slot to its subterm at that place, so
    /// the call's key can be written before the clause is tried.
    pub head: Option<Box<[(u32, Place)]>>,
}

/// The move plan for conjunct `k` of `conjuncts` (template cells) of the
/// clause with head `head`, if it has one; `seen` are the slots occurring
/// before it, `env_len` the environment's, `block` gives a term's cells.
pub fn move_plan(
    cells: &[Cell],
    block: &impl Fn(Cell) -> std::ops::Range<usize>,
    conjuncts: &[Cell],
    k: usize,
    seen: &[u32],
    env_len: u32,
    head: Cell,
) -> Option<MovePlan> {
    let gk = conjuncts[k];
    let keyed = |goal: Cell, known: &[Place]| -> Option<(KeyedGoal, Box<[Place]>)> {
        let p = plan(cells, gk, goal, seen, env_len, 0, known)?;
        (!p.slots && block(goal).len() <= MAX_TERM).then(|| {
            let g = KeyedGoal {
                pred: p.pred,
                ops: p.ops,
                term: Box::default(),
            };
            (g, p.places)
        })
    };
    let mut places: Box<[Place]> = Box::default();
    let mut takes = Vec::new();
    let mut j = k + 1;
    let (d, body, linear) = loop {
        let goal = *conjuncts.get(j)?;
        if let Some(found) = assumption(cells, goal) {
            break found;
        }
        if takes.len() == MAX_TAKES {
            return None;
        }
        let (g, p) = keyed(goal, &places)?;
        takes.push(g);
        places = p;
        j += 1;
    };
    if takes.is_empty() {
        return None;
    }
    let mut facts = Vec::new();
    let mut todo = vec![d];
    while let Some(c) = todo.pop() {
        match c {
            Cell::Struct(a) if cells[a.ix()] == Cell::Functor(sym::COMMA, 2) => {
                todo.push(cells[a.ix() + 2]);
                todo.push(cells[a.ix() + 1]);
            }
            Cell::Struct(a) => {
                let Cell::Functor(f, _) = cells[a.ix()] else {
                    return None;
                };
                if f.0 <= sym::END_OF_FILE.0 || f == sym::APPLY {
                    return None;
                }
                let (g, p) = keyed(c, &places)?;
                facts.push((g, c));
                places = p;
            }
            _ => return None,
        }
    }
    let call = leftmost(cells, body);
    let call_pred = match call {
        Cell::Atom(s) => (s, 0),
        Cell::Struct(a) => match cells[a.ix()] {
            Cell::Functor(f, n) => (f, n),
            _ => return None,
        },
        _ => return None,
    };
    if call_pred.0 .0 <= sym::END_OF_FILE.0 || call_pred.0 == sym::APPLY {
        return None;
    }
    if block(call).len() > MAX_TERM {
        return None;
    }
    // Where each variable of `Gk` is.
    let at = places_in(cells, gk);
    let mut places = places.into_vec();
    // A variable of `Gk` as its place in the candidate, one that occurs
    // only before `Gk` as its slot (in the call only).
    let mut call_reads = false;
    let mut name = |s: u32, in_call: bool| -> Option<TermOp> {
        let slot = (in_call && (s < env_len || seen.contains(&s))).then_some(TermOp::Slot(s));
        let Some(&(_, p)) = at.iter().find(|&&(t, _)| t == s) else {
            return slot;
        };
        let ix = match places.iter().position(|&q| q == p) {
            Some(ix) => ix,
            None if places.len() < MAX_PLAN_ARGS as usize => {
                places.push(p);
                places.len() - 1
            }
            None => return slot,
        };
        call_reads |= in_call;
        Some(TermOp::Place(ix as u32))
    };
    let facts = facts
        .into_iter()
        .map(|(mut g, c)| {
            g.term = written(cells, c, &mut |s| name(s, false))?;
            Some(g)
        })
        .collect::<Option<Vec<_>>>()?;
    let call = written(cells, call, &mut |s| name(s, true))?;
    let need = takes
        .iter()
        .chain(facts.iter())
        .fold(0, |need, g| need | need_of(&g.ops))
        | facts
            .iter()
            .flat_map(|g| g.term.iter())
            .chain(call.iter())
            .fold(0, |need, op| match *op {
                TermOp::Place(j) => need | 1 << j,
                _ => need,
            });
    let head = (k == 0)
        .then(|| in_head(cells, block, head, env_len, &call))
        .flatten();
    Some(MovePlan {
        places: places.into_boxed_slice(),
        need,
        takes: takes.into_boxed_slice(),
        facts: facts.into_boxed_slice(),
        linear,
        call,
        call_pred,
        call_reads,
        head,
    })
}

/// Where the slots that `call` reads are in the clause head `head`, when
/// each occurs there once (see [`MovePlan::head`]).
fn in_head(
    cells: &[Cell],
    block: &impl Fn(Cell) -> std::ops::Range<usize>,
    head: Cell,
    env_len: u32,
    call: &[TermOp],
) -> Option<Box<[(u32, Place)]>> {
    let mut found: Vec<(u32, Place)> = Vec::new();
    for op in call {
        let TermOp::Slot(s) = *op else { continue };
        if s < env_len {
            return None;
        }
        if found.iter().any(|&(t, _)| t == s) {
            continue;
        }
        let Cell::Struct(a) = head else { return None };
        let Cell::Functor(_, n) = cells[a.ix()] else {
            return None;
        };
        let slot = Cell::Ref(Addr(s));
        if n > MAX_PLAN_ARGS || cells[block(head)].iter().filter(|&&c| c == slot).count() != 1 {
            return None;
        }
        let mut at = None;
        for i in 0..n {
            let arg = cells[a.ix() + 1 + i as usize];
            Place::walk(cells, &|c| c, i as u8, arg, &mut |p, c| {
                if c == slot && at.is_none() {
                    at = Some(p);
                }
            });
        }
        found.push((s, at?));
    }
    Some(found.into_boxed_slice())
}

/// Template term `term` written out in preorder, its variable slots named
/// by `name`; `None` when one has no name, or for a term that is not
/// written cell by cell (a variable application, a binder term).
fn written(
    cells: &[Cell],
    term: Cell,
    name: &mut impl FnMut(u32) -> Option<TermOp>,
) -> Option<Box<[TermOp]>> {
    let mut out = Vec::new();
    let mut todo = vec![term];
    while let Some(c) = todo.pop() {
        match c {
            Cell::Ref(s) => out.push(name(s.0)?),
            Cell::Atom(_) | Cell::Int(_) | Cell::Str(_) => out.push(TermOp::Cell(c)),
            Cell::Struct(a) => {
                let f @ Cell::Functor(g, n) = cells[a.ix()] else {
                    return None;
                };
                if g == sym::APPLY || g.is_binder() {
                    return None;
                }
                out.push(TermOp::Cell(f));
                for i in (0..n as usize).rev() {
                    todo.push(cells[a.ix() + 1 + i]);
                }
            }
            _ => return None,
        }
    }
    Some(out.into_boxed_slice())
}

/// `(D, G, linear)` when `goal` is an assumption `D -o G` (or `D => G`,
/// `G :- D`, `G <= D`), as the engine reads them.
fn assumption(cells: &[Cell], goal: Cell) -> Option<(Cell, Cell, bool)> {
    let Cell::Struct(a) = goal else { return None };
    let Cell::Functor(f, 2) = cells[a.ix()] else {
        return None;
    };
    let (x, y) = (cells[a.ix() + 1], cells[a.ix() + 2]);
    match f {
        sym::LOLLI => Some((x, y, true)),
        sym::IMP => Some((x, y, false)),
        sym::NECK => Some((y, x, true)),
        sym::RIMP => Some((y, x, false)),
        _ => None,
    }
}

/// The leftmost goal of `g` through `,` (the one that runs first).
fn leftmost(cells: &[Cell], mut g: Cell) -> Cell {
    while let Cell::Struct(a) = g {
        if cells[a.ix()] != Cell::Functor(sym::COMMA, 2) {
            break;
        }
        g = cells[a.ix() + 1];
    }
    g
}

#[cfg(test)]
mod tests {
    use super::MovePlan;
    use crate::logic::template::Compiler;
    use crate::term::Symbols;
    use std::collections::HashMap;

    /// The move plan of the first conjunct of the clause's first
    /// alternative, if it has one.
    fn moved(clause: &str) -> Option<MovePlan> {
        let mut symbols = Symbols::new();
        let mut binders = Vec::new();
        let locals = HashMap::new();
        let term = crate::syntax::parse_term(clause).expect("parses");
        let t = Compiler::new(&mut symbols, &mut binders, &[], &locals)
            .clause(&term)
            .expect("compiles");
        let plan = t.conjuncts[0].get(1)?.plan;
        t.ahead.get(plan as usize)?.moved.as_deref().cloned()
    }

    /// How many takes and facts the move has, whether it is linear and
    /// whether its call reads the candidate.
    fn shape(clause: &str) -> Option<(usize, usize, bool, bool)> {
        let m = moved(clause)?;
        Some((m.takes.len(), m.facts.len(), m.linear, m.call_reads))
    }

    /// How many of the head's variables the move's call reads, if known.
    fn head_of(clause: &str) -> Option<usize> {
        moved(clause)?.head.map(|h| h.len())
    }

    #[test]
    fn a_move_is_takes_then_an_assumption_of_facts_then_a_call() {
        let jump = "jump (s N) :- b X Y peg , b (s X) Y peg , b (s (s X)) Y empty , \
                    ((b X Y empty , b (s X) Y empty , b (s (s X)) Y peg) -o jump N)";
        assert_eq!(shape(jump), Some((2, 3, true, false)));
        // One take, unbounded facts, a call that reads the candidate.
        assert_eq!(
            shape("p :- a X , b X , (c X => q X)"),
            Some((1, 1, false, true))
        );
        // The call's leftmost goal, through `,`.
        assert_eq!(
            shape("p :- a X , b X , (c X -o (q , r))"),
            Some((1, 1, true, false))
        );
        // No take; a take with a variable `Gk` does not bind; a fact with
        // one; a call that is a variable or a connective; a fact that is
        // a rule: none.
        assert_eq!(shape("p :- a X , (c X -o q)"), None);
        assert_eq!(shape("p :- a X , b Y , (c X -o q)"), None);
        assert_eq!(shape("p :- a X , b X , (c Y -o q)"), None);
        assert_eq!(shape("p :- a X , b X , (c X -o q Y)"), None);
        assert_eq!(shape("p G :- a X , b X , (c X -o G)"), None);
        assert_eq!(shape("p :- a X , b X , (c X -o (q ; r))"), None);
        assert_eq!(shape("p :- a X , b X , ((c X :- r) -o q)"), None);
        // The call's variables in the head: once each, or not at all.
        let jump = "jump (s N) :- b X Y peg , b (s X) Y peg , (b X Y empty -o jump N)";
        assert_eq!(head_of(jump), Some(1));
        assert_eq!(head_of("p :- a X , b X , (c X -o q)"), Some(0));
        assert_eq!(head_of("p N N :- a X , b X , (c X -o q N)"), None);
        assert_eq!(head_of("p N :- a X , b X , (c X -o q N N)"), Some(1));
    }
}
