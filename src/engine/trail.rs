//! The trail: the single log of every undoable change the search makes.
//!
//! Stack discipline: changes are appended in the order they are made and
//! undone strictly in reverse (`undo_to(mark)` pops back to a mark taken
//! earlier).  A mark is only ever taken at a choice point or at the start of
//! a query, so undoing restores exactly the state the mark saw: variable
//! bindings, the state of every linear resource, the contents of every index
//! bucket, the stack of restrictions and which `forall` bodies have ended.
//! Arenas that only grow (heap, frames, entries, ...) are restored by
//! truncating to lengths saved with the mark.
//!
//! Bindings are trailed conditionally: only a variable older than the newest
//! choice point needs resetting (a younger one disappears with the heap).
//! Resource and index changes are always trailed.

use super::context::{BucketId, EntryId, Item, MoveTake, Restriction};
use crate::term::Addr;

/// One undoable change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Undo {
    /// A variable was bound: make it unbound again.
    Bind(Addr),
    /// A variable's age was lowered from this value (`u32::MAX`: it had
    /// none but its address): put it back.
    Lower(Addr, u32),
    /// An entry's state changed from this value.
    State(EntryId, u32),
    /// An item was indexed: its memberships `from .. from + n` (in
    /// [`Context::memberships`](super::context::Context::memberships)) were
    /// pushed onto their buckets, one each: pop them, newest first.  One
    /// record for all the buckets an item joins.
    Indexed(u32, u32),
    /// An item was popped from a bucket: push it back.
    Pop(BucketId, Item),
    /// A restriction was pushed: pop it.
    Restrict,
    /// A restriction was popped: push it back.
    Unrestrict(Restriction),
    /// The eigenvariable at this index was marked as having its `forall`
    /// body proved (see [`crate::term::cell::EigenInfo::ended`]): the
    /// search came back into the body, so it is no longer.
    EigenEnded(u32),
    /// The newest take of a call that begins a move changed from this
    /// (see [`Context::move_take`](super::context::Context::move_take)).
    MoveTake(MoveTake),
}

/// The trail.
#[derive(Clone, Debug, Default)]
pub struct Trail {
    /// The changes, oldest first.
    pub entries: Vec<Undo>,
}

impl Trail {
    /// The current position, to undo back to later.
    #[inline]
    pub fn mark(&self) -> usize {
        self.entries.len()
    }

    /// Record a change.
    #[inline]
    pub fn push(&mut self, u: Undo) {
        self.entries.push(u);
    }
}
