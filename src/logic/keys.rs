//! Index keys of atoms: hashes of ground heads and ground arguments.
//!
//! Two equal ground terms get the same hash wherever they are stored (a
//! clause template or the heap), so a call and a clause head can be matched
//! by key before they are unified.  A key is only a filter: candidates are
//! always unified afterwards, so a hash collision costs time, never answers.
//!
//! A term gets a key only when every term that unifies with it has the
//! same cells: it is ground, and holds no variable application `$apply F
//! X` (which unifies with `f X` once `F = f`), so such a term has no key
//! and is matched by unification alone, like a variable.

use crate::term::cell::{Digest, Hasher64, SeqHash};
use crate::term::{sym, Addr, Cell, SymId};

/// How many leading arguments are indexed.
pub const MAX_ARGS: usize = 3;

/// Most cells hashed for one argument: a larger argument (a long list, say)
/// is not used as a key, so a call costs at most this much hashing whatever
/// its size.  Both clause heads and calls obey the same bound, and an
/// argument without a key is simply matched by unification.
pub const HASH_BUDGET: usize = 64;

/// Hash keys of a head or call: whole-term hash when ground, per-argument
/// hashes of ground arguments, and the signature of the first argument.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    /// Hash of the whole atom, if ground.
    pub whole: Option<u64>,
    /// Hash of each of the first arguments, if ground.
    pub args: [Option<u64>; MAX_ARGS],
    /// [`first_sig`] of the atom's first argument (heads only, see [`head_keys`]).
    pub first: u32,
}

/// The signature of an atom's first argument: a nonzero hash of its
/// principal symbol (name and arity, or the constant) when it has one, 0
/// when it is a variable, a variable application `$apply ...` (which
/// unifies with terms of other shapes) or absent.  Two atoms whose first
/// arguments have different nonzero signatures cannot unify; equal ones
/// may.  `c` is the argument, already dereferenced.
#[inline]
pub fn first_sig(cells: &[Cell], c: Cell) -> u32 {
    let (tag, word) = match c {
        // A constant and a compound of no arguments get the same signature:
        // the filter must never tell apart terms that unification does not.
        Cell::Atom(s) => (5, (s.0 as u64) << 32),
        Cell::Struct(a) => match cells[a.ix()] {
            Cell::Functor(f, n) if f != crate::term::sym::APPLY => {
                (5, ((f.0 as u64) << 32) | n as u64)
            }
            _ => return 0,
        },
        Cell::Int(i) => (2, i as u64),
        Cell::Str(s) => (3, s.0 as u64),
        Cell::Eigen(e) => (4, e as u64),
        Cell::Ref(_) | Cell::Bound(_) | Cell::Functor(..) => return 0,
    };
    // One multiply: the signature is only a filter, a collision merely lets
    // a clause through to unification.
    let x = (word ^ (tag << 61)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((x >> 32) as u32) | 1
}

/// Compute the index keys of an atom stored in `cells` (`deref` follows
/// variables; templates pass the identity, so their variables count as
/// unbound).  `scratch` is a reusable stack.
#[inline]
pub fn keys_of(
    cells: &[Cell],
    digests: &[Digest],
    deref: impl Fn(Cell) -> Cell,
    atom: Cell,
    scratch: &mut Vec<Cell>,
) -> ((SymId, u32), Keys) {
    keys_and_digests(cells, digests, deref, atom, scratch, |_, _| {})
}

/// [`keys_of`], telling `arg` the [`Digest`] of each ground argument (its
/// position and digest) as it is hashed.
pub fn keys_and_digests(
    cells: &[Cell],
    digests: &[Digest],
    deref: impl Fn(Cell) -> Cell,
    atom: Cell,
    scratch: &mut Vec<Cell>,
    mut arg: impl FnMut(usize, Digest),
) -> ((SymId, u32), Keys) {
    let mut keys = Keys::default();
    match deref(atom) {
        Cell::Atom(s) => {
            let mut h = Hasher64::new();
            h.add(5, (s.0 as u64) << 32);
            keys.whole = Some(h.finish());
            ((s, 0), keys)
        }
        Cell::Struct(a) => {
            let Cell::Functor(f, n) = cells[a.ix()] else {
                return ((SymId(0), 0), keys);
            };
            let mut whole = Hasher64::new();
            whole.add(5, ((f.0 as u64) << 32) | n as u64);
            let mut ground = true;
            for i in 0..n as usize {
                let d = term_digest(cells, digests, &deref, cells[a.ix() + 1 + i], scratch);
                if let Some(d) = d {
                    arg(i, d);
                }
                let h = d.map(Digest::finish);
                if i < MAX_ARGS {
                    keys.args[i] = h;
                }
                match h {
                    Some(h) => whole.add(6, h),
                    None => ground = false,
                }
            }
            if ground {
                keys.whole = Some(whole.finish());
            }
            ((f, n), keys)
        }
        _ => ((SymId(0), u32::MAX), keys),
    }
}

/// [`keys_of`] for a clause head, with the signature of its first argument
/// (calls compute theirs only when the index needs it).
#[inline]
pub fn head_keys(
    cells: &[Cell],
    digests: &[Digest],
    deref: impl Fn(Cell) -> Cell,
    atom: Cell,
    scratch: &mut Vec<Cell>,
) -> ((SymId, u32), Keys) {
    head_keys_and_digests(cells, digests, deref, atom, scratch, |_, _| {})
}

/// [`head_keys`], telling `arg` the digests of ground arguments as
/// [`keys_and_digests`] does.
pub fn head_keys_and_digests(
    cells: &[Cell],
    digests: &[Digest],
    deref: impl Fn(Cell) -> Cell,
    atom: Cell,
    scratch: &mut Vec<Cell>,
    arg: impl FnMut(usize, Digest),
) -> ((SymId, u32), Keys) {
    let (pred, mut keys) = keys_and_digests(cells, digests, &deref, atom, scratch, arg);
    if let Cell::Struct(a) = deref(atom) {
        if pred.1 > 0 {
            keys.first = first_sig(cells, deref(cells[a.ix() + 1]));
        }
    }
    (pred, keys)
}

/// Hash of a ground term (`None` if it has a variable).  The cells are
/// visited in preorder and summed by a [`SeqHash`]; a compound with a
/// digest in `digests` (shared ground terms of the heap, see
/// [`Heap::digests`](crate::term::Heap::digests)) joins the sum in one step
/// with the same result, so where the term is stored never changes its hash.
/// It is the final mix of the term's [`term_digest`].
pub fn term_hash(
    cells: &[Cell],
    digests: &[Digest],
    deref: &impl Fn(Cell) -> Cell,
    c: Cell,
    stack: &mut Vec<Cell>,
) -> Option<u64> {
    term_digest(cells, digests, deref, c, stack).map(Digest::finish)
}

/// The digest of the ground compound at `a` whose arguments are constants
/// or compounds with digests (a shared fact's subterm, visited after its
/// arguments); `None` otherwise.  Agrees with [`term_hash`]'s visit.
pub fn compound_digest(cells: &[Cell], digests: &[Digest], a: Addr) -> Option<Digest> {
    let Cell::Functor(f, n) = cells[a.ix()] else {
        return None;
    };
    if f == sym::APPLY {
        return None;
    }
    let mut h = SeqHash::new();
    let mut pow = SeqHash::P;
    h.add(5, ((f.0 as u64) << 32) | n as u64);
    for &arg in &cells[a.ix() + 1..a.ix() + 1 + n as usize] {
        let (tag, word) = match arg {
            Cell::Atom(s) => (1, s.0 as u64),
            Cell::Int(i) => (2, i as u64),
            Cell::Str(s) => (3, s.0 as u64),
            Cell::Eigen(e) => (4, e as u64),
            Cell::Struct(p) => {
                let d = Digest::at(digests, p)?;
                h.add_digest(d);
                pow = pow.wrapping_mul(d.pow);
                continue;
            }
            Cell::Ref(_) | Cell::Bound(_) | Cell::Functor(..) => return None,
        };
        h.add(tag, word);
        pow = pow.wrapping_mul(SeqHash::P);
    }
    Some(Digest {
        hash: h.state(),
        pow,
    })
}

/// The [`Digest`] of a ground term: the [`SeqHash`] state its cells reach
/// in preorder, and `P` to the number of cells, so that the digest can
/// stand for the term inside a larger one ([`SeqHash::add_digest`]); its
/// final mix is [`term_hash`].  `None` if the term has a variable or more
/// than [`HASH_BUDGET`] cells (shared subterms with digests count one).
pub fn term_digest(
    cells: &[Cell],
    digests: &[Digest],
    deref: &impl Fn(Cell) -> Cell,
    c: Cell,
    stack: &mut Vec<Cell>,
) -> Option<Digest> {
    let mut h = SeqHash::new();
    let mut pow = 1u64;
    let mut budget = HASH_BUDGET;
    // Numerals and constants without the stack, as in `term_hash`.
    let mut c = deref(c);
    loop {
        budget = budget.checked_sub(1)?;
        match c {
            Cell::Atom(s) => {
                h.add(1, s.0 as u64);
                pow = pow.wrapping_mul(SeqHash::P);
                return Some(Digest {
                    hash: h.state(),
                    pow,
                });
            }
            Cell::Struct(a) => {
                if let Some(d) = Digest::at(digests, a) {
                    h.add_digest(d);
                    pow = pow.wrapping_mul(d.pow);
                    return Some(Digest {
                        hash: h.state(),
                        pow,
                    });
                }
                match cells[a.ix()] {
                    Cell::Functor(f, 1) if f != sym::APPLY => {
                        h.add(5, ((f.0 as u64) << 32) | 1);
                        pow = pow.wrapping_mul(SeqHash::P);
                        c = deref(cells[a.ix() + 1]);
                    }
                    _ => break,
                }
            }
            _ => break,
        }
    }
    budget += 1;
    stack.clear();
    stack.push(c);
    while let Some(c) = stack.pop() {
        budget = budget.checked_sub(1)?;
        let (tag, word) = match deref(c) {
            Cell::Ref(_) | Cell::Bound(_) => return None,
            Cell::Atom(s) => (1, s.0 as u64),
            Cell::Int(i) => (2, i as u64),
            Cell::Str(s) => (3, s.0 as u64),
            Cell::Eigen(e) => (4, e as u64),
            Cell::Functor(f, n) => (5, ((f.0 as u64) << 32) | n as u64),
            Cell::Struct(a) => {
                if let Some(d) = Digest::at(digests, a) {
                    h.add_digest(d);
                    pow = pow.wrapping_mul(d.pow);
                    continue;
                }
                let Cell::Functor(f, n) = cells[a.ix()] else {
                    return None;
                };
                if f == sym::APPLY {
                    return None;
                }
                for i in (0..n as usize).rev() {
                    stack.push(cells[a.ix() + 1 + i]);
                }
                (5, ((f.0 as u64) << 32) | n as u64)
            }
        };
        h.add(tag, word);
        pow = pow.wrapping_mul(SeqHash::P);
    }
    Some(Digest {
        hash: h.state(),
        pow,
    })
}
