//! The settled prefix of the heap, which lets an occurs check pass over
//! old terms in one step.
//!
//! Invariant: every unbound variable reachable from a cell below the
//! boundary (following bindings) lies below the boundary too.  So a
//! variable at or above the boundary occurs in no term rooted below it,
//! and binding that variable needs no look inside such a term.  Without
//! this, a difference list or queue threaded through a loop
//! (`push X (H - T) (H - T2) :- T = (X :: T2)`, with the caller's new
//! variable bound to `H - T2`) walks the whole open list at every step,
//! and costs time quadratic in its length.
//!
//! The whole heap is always settled (nothing lies above it), so the
//! boundary may be raised to the heap's length at any moment; what keeps it
//! true is the changes that can make an old cell reach a new variable:
//! - binding a variable to a compound term with variables in it: the
//!   boundary is raised to the heap's length
//!   ([`crate::engine::store::Store::bind`]; a variable bound to a constant,
//!   to an older variable or to a ground term reaches no new variable, and
//!   leaves it);
//! - cutting the heap back (backtracking): cells above the new length will
//!   be made again, so the boundary is lowered to it ([`Settled::cut`]);
//! - the collector moving cells, which maps it ([`Settled::relocate`]).
//!
//! A clause body's reserved conjunct block, written in place later (see
//! [`crate::term::cell`]), refers only to variables made before it, so it
//! keeps the invariant.  Raising the boundary at each such binding keeps it
//! as high as it can be for the variable bound next: a variable made since
//! the last such binding lies above it, and every term built before lies
//! below.

/// The boundary (see the module doc): a heap length.
#[derive(Copy, Clone, Debug, Default)]
pub struct Settled(u32);

impl Settled {
    /// The boundary.
    #[inline]
    pub fn get(self) -> u32 {
        self.0
    }

    /// A variable was bound to a compound term that may hold variables,
    /// with the heap `top` cells long: everything below `top` is settled.
    #[inline]
    pub fn raise(&mut self, top: u32) {
        self.0 = top;
    }

    /// The heap was cut back to `len` cells.
    #[inline]
    pub fn cut(&mut self, len: u32) {
        self.0 = self.0.min(len);
    }

    /// The collector moved the cells: `map` gives a heap length's new value
    /// (the number of cells kept below it).
    pub fn relocate(&mut self, map: impl Fn(u32) -> u32) {
        self.0 = map(self.0);
    }

    /// Whether the occurs check for the variable at `v` may pass over the
    /// terms rooted at cells below the boundary.
    #[inline]
    pub fn covers(self, v: u32) -> bool {
        v >= self.0 && self.0 > 0
    }
}
