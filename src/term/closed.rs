//! Compound terms known to be closed, so that an occurs check can pass
//! them in one step.
//!
//! A heap term is *closed* when nothing that can change is reachable from
//! it: no unbound variable, no eigenvariable and no `LOCAL` name (the
//! names with a scope).  Binding a variable to a term that holds a closed
//! subterm needs no look inside that subterm: the variable cannot occur
//! there, and no name there can escape its scope.  Without this, a list
//! built back to front (`L = (X :: T)` after the call that made `T`)
//! walks all of `T` at every step, and costs time quadratic in its length.
//!
//! The occurs check ([`crate::engine::store::Store::can_bind`]) records the
//! terms it found closed here.  A closed term stays closed while the search
//! only goes forward: bindings fill variables in and never reach into a term
//! without any.  It can open again or move when a binding is undone, the
//! heap is cut back or the collector moves cells; each of these starts a new
//! *epoch*, and an entry counts only in the epoch it was made in.
//!
//! The table is direct-mapped by address and small: it holds the terms
//! checked last, which is what building a term step by step looks at next.

/// Slots in the table (a power of two).
const SLOTS: usize = 64;

/// The table of terms known closed (see the module doc).
#[derive(Clone, Debug)]
pub struct KnownClosed {
    /// `(address of a compound's functor cell, epoch it was found closed in)`;
    /// the address `u32::MAX` for an empty slot.
    slots: Box<[(u32, u32); SLOTS]>,
    epoch: u32,
}

impl Default for KnownClosed {
    fn default() -> Self {
        KnownClosed {
            slots: Box::new([(u32::MAX, 0); SLOTS]),
            epoch: 0,
        }
    }
}

impl KnownClosed {
    #[inline]
    fn slot(a: u32) -> usize {
        (a as usize ^ (a as usize >> 6)) & (SLOTS - 1)
    }

    /// Whether the compound at `a` was found closed in this epoch.
    #[inline]
    pub fn contains(&self, a: u32) -> bool {
        self.slots[Self::slot(a)] == (a, self.epoch)
    }

    /// Record that the compound at `a` is closed.
    #[inline]
    pub fn insert(&mut self, a: u32) {
        self.slots[Self::slot(a)] = (a, self.epoch);
    }

    /// Forget every entry: a binding was undone, the heap cut back or its
    /// cells moved.  O(1), except once every 2^32 epochs.
    #[inline]
    pub fn forget(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.slots.fill((u32::MAX, 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_last_one_epoch() {
        let mut k = KnownClosed::default();
        assert!(!k.contains(0));
        k.insert(7);
        k.insert(700);
        assert!(k.contains(7) && k.contains(700));
        assert!(!k.contains(8));
        k.forget();
        assert!(!k.contains(7) && !k.contains(700));
    }

    #[test]
    fn a_wrapped_epoch_clears_the_table() {
        let mut k = KnownClosed::default();
        k.insert(5);
        for _ in 0..3 {
            k.forget();
        }
        k.epoch = u32::MAX;
        k.insert(9);
        k.forget();
        assert_eq!(k.epoch, 0);
        assert!(!k.contains(9) && !k.contains(5));
    }
}
