//! Index keys of atoms: hashes of ground heads and ground arguments.
//!
//! Two equal ground terms get the same hash wherever they are stored (a
//! clause template or the heap), so a call and a clause head can be matched
//! by key before they are unified.  A key is only a filter: candidates are
//! always unified afterwards, so a hash collision costs time, never answers.

use crate::term::cell::Hasher64;
use crate::term::{Cell, SymId};

/// How many leading arguments are indexed.
pub const MAX_ARGS: usize = 3;

/// Most cells hashed for one argument: a larger argument (a long list, say)
/// is not used as a key, so a call costs at most this much hashing whatever
/// its size.  Both clause heads and calls obey the same bound, and an
/// argument without a key is simply matched by unification.
pub const HASH_BUDGET: usize = 64;

/// Hash keys of a head or call: whole-term hash when ground, per-argument
/// hashes of ground arguments.
#[derive(Copy, Clone, Debug, Default)]
pub struct Keys {
    /// Hash of the whole atom, if ground.
    pub whole: Option<u64>,
    /// Hash of each of the first arguments, if ground.
    pub args: [Option<u64>; MAX_ARGS],
}

/// Compute the index keys of an atom stored in `cells` (`deref` follows
/// variables; templates pass the identity, so their variables count as
/// unbound).  `scratch` is a reusable stack.
pub fn keys_of(
    cells: &[Cell],
    deref: impl Fn(Cell) -> Cell,
    atom: Cell,
    scratch: &mut Vec<Cell>,
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
                let h = term_hash(cells, &deref, cells[a.ix() + 1 + i], scratch);
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

/// Hash of a ground term (`None` if it has a variable).
pub fn term_hash(
    cells: &[Cell],
    deref: &impl Fn(Cell) -> Cell,
    c: Cell,
    stack: &mut Vec<Cell>,
) -> Option<u64> {
    let mut h = Hasher64::new();
    // Constants, and chains of one-argument terms ending in one (numerals
    // like `s (s z)`), need no stack; the hash is the same as the general
    // loop's below, which visits cells in the same order.
    let mut budget = HASH_BUDGET;
    let mut c = deref(c);
    loop {
        budget = budget.checked_sub(1)?;
        match c {
            Cell::Atom(s) => {
                h.add(1, s.0 as u64);
                return Some(h.finish());
            }
            Cell::Int(i) => {
                h.add(2, i as u64);
                return Some(h.finish());
            }
            Cell::Ref(_) | Cell::Bound(_) => return None,
            Cell::Struct(a) => match cells[a.ix()] {
                Cell::Functor(f, 1) => {
                    h.add(5, ((f.0 as u64) << 32) | 1);
                    c = deref(cells[a.ix() + 1]);
                }
                _ => break,
            },
            _ => break,
        }
    }
    budget += 1;
    stack.clear();
    stack.push(c);
    while let Some(c) = stack.pop() {
        budget = budget.checked_sub(1)?;
        match deref(c) {
            Cell::Ref(_) | Cell::Bound(_) => return None,
            Cell::Atom(s) => h.add(1, s.0 as u64),
            Cell::Int(i) => h.add(2, i as u64),
            Cell::Str(s) => h.add(3, s.0 as u64),
            Cell::Eigen(e) => h.add(4, e as u64),
            Cell::Functor(f, n) => h.add(5, ((f.0 as u64) << 32) | n as u64),
            Cell::Struct(a) => {
                let Cell::Functor(f, n) = cells[a.ix()] else {
                    return None;
                };
                h.add(5, ((f.0 as u64) << 32) | n as u64);
                for i in (0..n as usize).rev() {
                    stack.push(cells[a.ix() + 1 + i]);
                }
            }
        }
    }
    Some(h.finish())
}
