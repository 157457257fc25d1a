//! Forgetting closed scopes that no choice point can reopen.
//!
//! A scope `R -o G` (or `R => G`, `M --o G`) leaves its entries in the
//! context when `G` is proved: they are `GONE`, but backtracking into a
//! choice point left inside `G` would make them usable again, so the
//! entries, their index items and the trail records that undo them stay
//! until backtracking passes the scope.  When the scope ends with no
//! choice point younger than its start, nothing can ever reopen it, and a
//! deterministic loop that opens a scope on every turn would otherwise grow
//! by every entry it ever assumed (about 600 bytes a turn, and every term
//! they hold stays a root of the collector).
//!
//! [`Context::drop_closed`] then removes, at the scope's end:
//! - the entries from the scope's first one on (the scope's own and those
//!   of scopes closed inside it: all `GONE`, or nothing is removed), with
//!   their alternatives, bodies, environments and index memberships;
//! - their items from the buckets (buckets are stacks ordered by entry, so
//!   their items are on top), and the run records above them;
//! - the buckets made for keys first met inside the scope, with those keys;
//! - the trail records made since the scope began that refer to them:
//!   changes of their states, and pushes and pops of their items.  Every
//!   other record stays (bindings, changes of older entries' states,
//!   restrictions), so backtracking to an older choice point still restores
//!   exactly the state it saved: the entries it saved are below the
//!   scope's first one.
//!
//! Invariants this relies on (the caller, `Machine::exit_scope`, checks the
//! first two): no choice point was made since the scope began (every
//! position saved elsewhere is then older than the scope: choice points'
//! lengths of the arenas and the trail, the `&` frames' trail positions);
//! no proof is being recorded (proof nodes name entries); arenas grow with
//! entry ids (an entry's alternatives, bodies, environment and memberships
//! are pushed after those of every older entry, and no newer entry uses an
//! older one's), so truncating each arena at the dropped entries' first
//! element keeps everything older entries use.

use super::context::{Context, Source, GONE};
use super::trail::{Trail, Undo};

/// What the end of a scope needs to know of its start.
#[derive(Copy, Clone, Debug)]
pub struct ScopeStart {
    /// The number of choice points (the caller's test: none made since).
    pub choices: u32,
    /// The trail's length.
    pub trail: u32,
    /// The number of index buckets.
    pub buckets: u32,
}

impl Context {
    /// Remove entries `first..` and what refers to them (see the module
    /// doc), at the end of a scope that began at `start` with entry
    /// `first`, when no choice point was made since.  False, with nothing
    /// changed, if one of them is still usable.
    pub fn drop_closed(&mut self, trail: &mut Trail, first: u32, start: ScopeStart) -> bool {
        let from = first as usize;
        if from >= self.entries.len() || self.entries[from..].iter().any(|e| e.state != GONE) {
            return false;
        }
        // Index items: each bucket's items of these entries are on top.
        // Run records above the items removed go with them (see
        // [`Context::forget_runs_above`]).
        let memb = self.entries[from].memb as usize;
        for m in memb..self.memberships.len() {
            let b = self.memberships[m].0 .0 as usize;
            let bucket = &mut self.buckets[b];
            let old = bucket.len() as u32;
            while bucket.last().is_some_and(|it| it.entry >= first) {
                bucket.pop();
            }
            let len = bucket.len() as u32;
            if old > len && !self.runs.is_empty() {
                self.forget_runs_above(b as u32, len, old);
            }
        }
        // The arenas, each at the first element a dropped entry uses.
        let (mut alts, mut envs) = (self.heap_alts.len(), self.envs.len());
        for e in &self.entries[from..] {
            match e.source {
                Source::Heap { alts: a, .. } => alts = alts.min(a as usize),
                Source::Template { env, .. } => envs = envs.min(env as usize),
            }
        }
        let bodies = match self.heap_alts.get(alts) {
            Some(a) => a.body as usize,
            None => self.bodies.len(),
        };
        self.heap_alts.truncate(alts);
        self.bodies.truncate(bodies);
        self.envs.truncate(envs);
        self.memberships.truncate(memb);
        self.entries.truncate(from);
        self.stamps.truncate(from);
        // The trail since the scope began, without the records of the
        // dropped entries and their items.
        let t = &mut trail.entries;
        let mut to = start.trail as usize;
        for i in start.trail as usize..t.len() {
            let u = t[i];
            let keep = match u {
                Undo::State(e, _) => e.0 < first,
                Undo::Indexed(..) => false,
                Undo::Pop(_, item) => item.entry < first,
                Undo::Bind(_)
                | Undo::Lower(..)
                | Undo::Restrict
                | Undo::Unrestrict(_)
                | Undo::EigenEnded(_)
                | Undo::MoveTake(_) => true,
            };
            if keep {
                t[to] = u;
                to += 1;
            }
        }
        t.truncate(to);
        self.forget_keys_since(start.buckets);
        true
    }
}
