//! Canonical tokens of terms: what the memo table's keys are made of.
//!
//! A term's tokens are its cells in preorder, a word each (a compound's
//! name and arity, an atom, a string, an integer and its value), with its
//! variables numbered by first occurrence, so that two terms have the same
//! tokens exactly when they are equal up to renaming.  Besides writing them
//! ([`tokens`]), a ground term can be checked against tokens without
//! writing its own (`ground_is`), and so can a term not built, written out
//! as a move plan writes assumed facts (`written_is`, `written_tokens`).

use crate::logic::move_plan::TermOp;
use crate::term::cell::Hasher64;
use crate::term::{Cell, Heap, SymId};

/// The token of an atom, a string, and a compound's name and arity; an
/// integer is [`INT_TOKEN`] followed by its value.  One place for the
/// encoding that [`tokens`] writes and [`ground_is`] reads.
fn atom_token(s: SymId) -> u64 {
    (1 << 60) | s.0 as u64
}

fn str_token(s: crate::term::StrId) -> u64 {
    (3 << 60) | s.0 as u64
}

fn functor_token(f: SymId, n: u32) -> u64 {
    (5 << 60) | ((f.0 as u64) << 24) | n as u64
}

/// The token before an integer's value.
const INT_TOKEN: u64 = 2 << 60;

/// Canonical tokens of a term: cells in preorder, variables numbered by
/// first occurrence (`vars` carries the numbering).  `None` if the term
/// holds a name with a scope that is not part of a key: a `forall`
/// constant, or a module's `LOCAL` name made after heap time `settled`
/// (see `Machine::settled_names`).  Whether a call with such a name
/// fails can depend on which of its variables are older than the name, and
/// a key sees variables only up to renaming.
pub fn tokens(
    heap: &Heap,
    settled: u32,
    c: Cell,
    vars: &mut Vec<Cell>,
    out: &mut Vec<u64>,
    stack: &mut Vec<Cell>,
) -> Option<()> {
    let young = |s: SymId| heap.sym_born_after(s, settled);
    // Preorder: a compound's first argument is visited next, its other
    // arguments are stacked (a numeral `s (s z)` needs no stack).
    stack.clear();
    let mut next = Some(c);
    loop {
        let c = match next.take() {
            Some(c) => c,
            None => match stack.pop() {
                Some(c) => c,
                None => return Some(()),
            },
        };
        let c = heap.deref(c);
        match c {
            Cell::Ref(_) => {
                let k = match vars.iter().position(|&v| v == c) {
                    Some(k) => k,
                    None => {
                        vars.push(c);
                        vars.len() - 1
                    }
                };
                out.push((7 << 60) | k as u64);
            }
            Cell::Atom(s) => {
                if young(s) {
                    return None;
                }
                out.push(atom_token(s))
            }
            Cell::Int(i) => {
                out.push(INT_TOKEN);
                out.push(i as u64);
            }
            Cell::Str(s) => out.push(str_token(s)),
            Cell::Bound(b) => out.push((8 << 60) | b as u64),
            Cell::Eigen(_) => return None,
            Cell::Functor(f, n) => out.push(functor_token(f, n)),
            Cell::Struct(a) => {
                let Cell::Functor(f, n) = heap.get(a) else {
                    return None;
                };
                if young(f) {
                    return None;
                }
                out.push(functor_token(f, n));
                for i in (1..n).rev() {
                    stack.push(heap.arg(a, i));
                }
                if n > 0 {
                    next = Some(heap.arg(a, 0));
                }
            }
        }
    }
}

/// Whether the term `c` is ground and has the canonical tokens `toks`
/// ([`tokens`] without its checks of young names, for when there are none).
pub(crate) fn ground_is(heap: &Heap, c: Cell, toks: &[u64], stack: &mut Vec<Cell>) -> bool {
    ground_is_at(heap, c, toks, 0, stack) == Some(toks.len())
}

/// Whether the term `c` is ground and its canonical tokens are those of
/// `toks` from `at` on: the position after them if so.
fn ground_is_at(
    heap: &Heap,
    c: Cell,
    toks: &[u64],
    mut at: usize,
    stack: &mut Vec<Cell>,
) -> Option<usize> {
    stack.clear();
    let mut c = c;
    loop {
        let t = match heap.deref(c) {
            Cell::Atom(s) => atom_token(s),
            Cell::Str(s) => str_token(s),
            Cell::Int(i) => {
                if toks.get(at) != Some(&INT_TOKEN) {
                    return None;
                }
                at += 1;
                i as u64
            }
            Cell::Struct(a) => {
                let Cell::Functor(f, n) = heap.get(a) else {
                    return None;
                };
                if toks.get(at) != Some(&functor_token(f, n)) {
                    return None;
                }
                at += 1;
                if n > 0 {
                    for i in (1..n).rev() {
                        stack.push(heap.arg(a, i));
                    }
                    c = heap.arg(a, 0);
                    continue;
                }
                match stack.pop() {
                    Some(d) => {
                        c = d;
                        continue;
                    }
                    None => return Some(at),
                }
            }
            _ => return None,
        };
        if toks.get(at) != Some(&t) {
            return None;
        }
        at += 1;
        match stack.pop() {
            Some(d) => c = d,
            None => return Some(at),
        }
    }
}

/// The token of a constant or compound name of a written-out term
/// ([`TermOp::Cell`]), and the word after it (an integer's value);
/// `None` for a name with a scope (see [`tokens`]) or any other cell.
#[inline]
fn cell_token(heap: &Heap, settled: u32, c: Cell) -> Option<(u64, Option<u64>)> {
    let young = |s: SymId| heap.sym_born_after(s, settled);
    match c {
        Cell::Atom(s) if !young(s) => Some((atom_token(s), None)),
        Cell::Functor(f, n) if !young(f) => Some((functor_token(f, n), None)),
        Cell::Str(s) => Some((str_token(s), None)),
        Cell::Int(i) => Some((INT_TOKEN, Some(i as u64))),
        _ => None,
    }
}

/// Whether the term written out as `term`, with the ground heap terms
/// `subs` at its places, has the canonical tokens `toks`: [`ground_is`]
/// for a term not built.  (A slot is not read: `false`.)
pub(crate) fn written_is(
    heap: &Heap,
    term: &[TermOp],
    subs: &[Cell],
    toks: &[u64],
    stack: &mut Vec<Cell>,
) -> bool {
    let mut at = 0;
    for op in term {
        match *op {
            TermOp::Cell(c) => {
                // Names with a scope were ruled out by the caller.
                let Some((t, word)) = cell_token(heap, u32::MAX, c) else {
                    return false;
                };
                if toks.get(at) != Some(&t) {
                    return false;
                }
                at += 1;
                if let Some(w) = word {
                    if toks.get(at) != Some(&w) {
                        return false;
                    }
                    at += 1;
                }
            }
            TermOp::Place(j) => match ground_is_at(heap, subs[j as usize], toks, at, stack) {
                Some(next) => at = next,
                None => return false,
            },
            TermOp::Slot(_) => return false,
        }
    }
    at == toks.len()
}

/// [`tokens`] of the term written out as `term`, with the heap terms
/// `subs` at its places and `slot(s)` for its slots, appended to `out`
/// (`vars` carries the numbering of variables); `None` as for [`tokens`],
/// and when a slot has no value.
#[allow(clippy::too_many_arguments)]
pub(crate) fn written_tokens(
    heap: &Heap,
    settled: u32,
    term: &[TermOp],
    subs: &[Cell],
    slot: &impl Fn(u32) -> Option<Cell>,
    vars: &mut Vec<Cell>,
    out: &mut Vec<u64>,
    stack: &mut Vec<Cell>,
) -> Option<()> {
    for op in term {
        match *op {
            TermOp::Cell(c) => {
                let (t, word) = cell_token(heap, settled, c)?;
                out.push(t);
                out.extend(word);
            }
            TermOp::Place(j) => tokens(heap, settled, subs[j as usize], vars, out, stack)?,
            TermOp::Slot(s) => tokens(heap, settled, slot(s)?, vars, out, stack)?,
        }
    }
    Some(())
}

/// Hash of a token sequence.
pub fn hash_tokens(tokens: &[u64]) -> u64 {
    let mut h = Hasher64::new();
    for &t in tokens {
        h.add(9, t);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names `b`, `s`, `z` and `peg`.
    const B: SymId = SymId(40);
    const S: SymId = SymId(41);
    const Z: SymId = SymId(42);
    const PEG: SymId = SymId(43);

    /// A heap holding `s z`, `s (s z)` and the fact `b (s (s z)) (s z)
    /// peg`, those three terms and the fact's tokens.
    fn the_fact() -> (Heap, Cell, Cell, Cell, Vec<u64>) {
        let mut heap = Heap::new();
        let one = heap.new_struct(S, &[Cell::Atom(Z)]);
        let two = heap.new_struct(S, &[one]);
        let fact = heap.new_struct(B, &[two, one, Cell::Atom(PEG)]);
        let (mut vars, mut toks, mut stack) = (Vec::new(), Vec::new(), Vec::new());
        tokens(&heap, 0, fact, &mut vars, &mut toks, &mut stack).unwrap();
        (heap, one, two, fact, toks)
    }

    #[test]
    fn a_fact_is_checked_against_tokens_exactly() {
        let (mut heap, one, two, fact, toks) = the_fact();
        let (b, peg) = (B, PEG);
        let mut stack = Vec::new();
        assert!(ground_is(&heap, fact, &toks, &mut stack));
        // The same term built again, through a bound variable.
        let v = heap.new_var();
        let again = heap.new_struct(b, &[two, v, Cell::Atom(peg)]);
        let Cell::Ref(a) = v else { panic!() };
        heap.cells[a.ix()] = one;
        assert!(ground_is(&heap, again, &toks, &mut stack));
        // Another term, a prefix, a longer list, a variable: no.
        let other = heap.new_struct(b, &[one, two, Cell::Atom(peg)]);
        assert!(!ground_is(&heap, other, &toks, &mut stack));
        assert!(!ground_is(&heap, fact, &toks[..toks.len() - 1], &mut stack));
        let longer = [&toks[..], &[atom_token(Z)]].concat();
        assert!(!ground_is(&heap, fact, &longer, &mut stack));
        let w = heap.new_var();
        let open = heap.new_struct(b, &[two, w, Cell::Atom(peg)]);
        assert!(!ground_is(&heap, open, &toks, &mut stack));
    }

    #[test]
    fn a_written_out_fact_is_checked_against_tokens_exactly() {
        let (heap, one, two, _, toks) = the_fact();
        let (b, s, z, peg) = (B, S, Cell::Atom(Z), PEG);
        let (mut vars, mut stack) = (Vec::new(), Vec::new());
        // `b (s X) Y peg` with X = `s z`, Y = `s z` at places 0 and 1.
        let written = [
            TermOp::Cell(Cell::Functor(b, 3)),
            TermOp::Cell(Cell::Functor(s, 1)),
            TermOp::Place(0),
            TermOp::Place(1),
            TermOp::Cell(Cell::Atom(peg)),
        ];
        assert!(written_is(&heap, &written, &[one, one], &toks, &mut stack));
        assert!(!written_is(&heap, &written, &[z, one], &toks, &mut stack));
        assert!(!written_is(&heap, &written, &[one, two], &toks, &mut stack));
        assert!(!written_is(
            &heap,
            &written[..4],
            &[one, one],
            &toks,
            &mut stack
        ));
        let slot = [
            written[0],
            written[1],
            TermOp::Slot(0),
            written[3],
            written[4],
        ];
        assert!(!written_is(&heap, &slot, &[one, one], &toks, &mut stack));
        // Its tokens, with a slot's value: those of the term.
        let mut out = Vec::new();
        vars.clear();
        let value = |_| Some(one);
        written_tokens(
            &heap,
            0,
            &slot,
            &[one, one],
            &value,
            &mut vars,
            &mut out,
            &mut stack,
        )
        .unwrap();
        assert_eq!(out, toks);
        assert!(vars.is_empty());
    }
}
