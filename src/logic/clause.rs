//! Clauses in normal form, and the classification of a term into clauses.
//!
//! Lolli's clauses (`R := true | A | R1 & R2 | R :- G | G -o R | R <= G |
//! G => R | forall x \ R`) and assumed formulas (`D := R | {R} | D1 , D2`)
//! are terms; this module turns such a term into the shape the search uses:
//! a list of [`Alt`]ernatives, each a head atom and the body goals to prove
//! after the head matched, in order.  `R1 & R2` gives the alternatives of
//! `R1` then those of `R2` (Lolli tries `R1` first); `(H :- G1) :- G2` gives
//! head `H` with body `[G1, G2]` (Lolli backchains on the inner clause first);
//! `R <= G` and `G => R` give body `{G}`; `true` gives no alternative.
//!
//! The same code classifies clause templates (cells of a compiled program
//! clause) and heap terms (formulas assumed during search): it reads cells
//! through a `deref` function and never writes.

use crate::term::{sym, Cell, SymId};

/// The message for `exists` where a clause is needed (at load and run time).
pub const EXISTS_IN_CLAUSE: &str =
    "`exists` cannot quantify a clause: only `forall` may appear in an assumed or program clause";

/// A goal in the body of a clause alternative.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Prove the goal.
    Goal(Cell),
    /// Prove the goal with no linear resources (`R <= G`, `G => R`).
    Bang(Cell),
}

/// One way to use a clause: a head to match and the goals to prove then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alt {
    /// The head atom (a constant or a compound term).
    pub head: Cell,
    /// Name and arity of the head.
    pub pred: (SymId, u32),
    /// Body goals, proved left to right after the head matched.
    pub body: Vec<Body>,
}

/// One assumed formula after splitting `D1 , D2` and unwrapping `{R}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumed {
    /// The clause term.
    pub clause: Cell,
    /// Whether it was written `{R}` (or assumed with `=>`): unbounded use.
    pub bang: bool,
}

/// Why a term cannot be used as a clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseError {
    /// An unbound variable stands where a clause or head is needed.
    Unbound,
    /// A number, string or other non-formula stands where a clause is needed.
    NotAClause(Cell),
    /// The clause quantifies a variable (`forall x \ R`): the caller must
    /// rename it per use (only heap clauses report this; templates have their
    /// clause-level binders compiled to variable slots).
    HasBinder,
    /// The clause has `exists x \ R` where a clause is needed: only
    /// `forall` may quantify a clause (an existential belongs in a goal).
    Exists,
}

/// Split an assumed formula `D` into its clauses, in the order Lolli tries them
/// (`D1 , D2`: `D1` first).  `stack` is a reusable work stack.
// Always inlined: the search splits every assumption with it, and there
// `deref` is then a direct call (proofs call it too, to print what was
// assumed as it was written).
#[inline(always)]
pub fn split_assumed(
    cells: &[Cell],
    deref: &dyn Fn(Cell) -> Cell,
    root: Cell,
    bang: bool,
    stack: &mut Vec<(Cell, bool)>,
    out: &mut Vec<Assumed>,
) -> Result<(), ClauseError> {
    stack.clear();
    let mut next = Some((root, bang));
    while let Some((c, bang)) = next.take().or_else(|| stack.pop()) {
        let c = deref(c);
        match view(cells, c) {
            Some((f, 2, a)) if f == sym::COMMA => {
                stack.push((cells[a + 1], bang));
                next = Some((cells[a], bang));
            }
            Some((f, 1, a)) if f == sym::BANG => next = Some((cells[a], true)),
            Some(_) => out.push(Assumed { clause: c, bang }),
            None => match c {
                Cell::Ref(_) => return Err(ClauseError::Unbound),
                other => return Err(ClauseError::NotAClause(other)),
            },
        }
    }
    Ok(())
}

/// The alternatives of clause `root`, appended to `out` in Lolli's order.
pub fn clause_alts(
    cells: &[Cell],
    deref: &dyn Fn(Cell) -> Cell,
    root: Cell,
    out: &mut Vec<Alt>,
) -> Result<(), ClauseError> {
    // An atom, the most common clause assumed (a fact `b x y peg`), is its
    // own alternative.
    let c = deref(root);
    if let Some((f, n, _)) = view(cells, c) {
        if !is_connective(f, n) {
            out.push(Alt {
                head: c,
                pred: (f, n),
                body: Vec::new(),
            });
            return Ok(());
        }
    }
    // Depth-first, left to right: each entry is a clause and the body goals
    // that follow its own body.  Pushing `R2` before `R1` makes `R1`'s
    // alternatives come out first.
    // The clause being classified is kept out of the stack, which therefore
    // stays empty (and unallocated) for a clause without `&`.
    let mut stack: Vec<(Cell, Vec<Body>)> = Vec::new();
    let mut next = Some((root, Vec::new()));
    while let Some((c, outer)) = next.take().or_else(|| stack.pop()) {
        let c = deref(c);
        match view(cells, c) {
            Some((f, 2, a)) if f == sym::WITH => {
                stack.push((cells[a + 1], outer.clone()));
                next = Some((cells[a], outer));
            }
            Some((f, 2, a)) if f == sym::NECK || f == sym::LOLLI => {
                let (r, g) = if f == sym::NECK {
                    (a, a + 1)
                } else {
                    (a + 1, a)
                };
                let mut body = vec![Body::Goal(cells[g])];
                body.extend(outer);
                next = Some((cells[r], body));
            }
            Some((f, 2, a)) if f == sym::RIMP || f == sym::IMP => {
                let (r, g) = if f == sym::RIMP {
                    (a, a + 1)
                } else {
                    (a + 1, a)
                };
                let mut body = vec![Body::Bang(cells[g])];
                body.extend(outer);
                next = Some((cells[r], body));
            }
            Some((f, 2, _)) if f == sym::FORALL => return Err(ClauseError::HasBinder),
            Some((f, 2, _)) if f == sym::EXISTS => return Err(ClauseError::Exists),
            Some((f, 0, _)) if f == sym::TRUE => {}
            Some((f, n, _)) => out.push(Alt {
                // (Reached from an `&` or a body: `is_connective` is false.)
                head: c,
                pred: (f, n),
                body: outer,
            }),
            None => match c {
                Cell::Ref(_) => return Err(ClauseError::Unbound),
                other => return Err(ClauseError::NotAClause(other)),
            },
        }
    }
    Ok(())
}

/// Whether `f/n` is a name [`clause_alts`] takes apart (or refuses) rather
/// than an atom's: every name its walk has an arm for, and only those.
fn is_connective(f: SymId, n: u32) -> bool {
    match n {
        0 => f == sym::TRUE,
        2 => [
            sym::WITH,
            sym::NECK,
            sym::LOLLI,
            sym::RIMP,
            sym::IMP,
            sym::FORALL,
            sym::EXISTS,
        ]
        .contains(&f),
        _ => false,
    }
}

/// Name, arity and index of the first argument of a dereferenced cell.
fn view(cells: &[Cell], c: Cell) -> Option<(SymId, u32, usize)> {
    match c {
        Cell::Atom(s) => Some((s, 0, 0)),
        Cell::Struct(a) => match cells.get(a.ix()) {
            Some(Cell::Functor(f, n)) => Some((*f, *n, a.ix() + 1)),
            _ => None,
        },
        _ => None,
    }
}
