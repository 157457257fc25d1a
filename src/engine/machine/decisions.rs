//! Look-ahead decisions recorded by position, so that a position met again
//! along another path is not looked ahead from again.
//!
//! A search over positions meets the same position many times: the
//! triangle's 13-jump game tree has 323,873 nodes but 1,651 positions.
//! At each, [`Machine::first_call_fails`] looks ahead into every clause of
//! the call (see [`super::lookahead`], "Into clause bodies"): it looks up
//! the clause's first conjunct and drops the candidates after which the
//! next goals find nothing.  What it decides depends only on the context:
//! the candidates are the usable items the conjunct can meet, each dropped
//! or kept by what the context holds.  So the decision, made once in a
//! context, is recorded under the context, and recalled when the context
//! is met again: either "passed over" (no candidate left, no lookup made)
//! or the terms of the candidate facts kept.
//!
//! **At calls.**  The look-ahead made when a conjunct is called
//! ([`Machine::look_ahead`]) decides in the same way, from the context
//! alone, when the conjunct holds no variable that occurs before it in
//! its clause ([`AheadPlan::own_call`](crate::logic::lookahead::AheadPlan::own_call)):
//! its index keys, and so its candidates, are then the same at every
//! call.  That decision is recorded by position too, under the plan it
//! used (marked apart from the clauses' alternatives): `b X Y peg` in
//! `jump K :- K > 0 , N is K - 1 , b X Y peg , ...`, where no clause is
//! looked into before it is tried.
//!
//! **The context's name.**  A position is named exactly as memo keys name
//! it ([`crate::engine::memo`]): the ids of the interned terms of the
//! usable linear resources and of the unbounded clauses assumed during
//! the query, as a multiset ([`UsableIds`](crate::engine::memo::UsableIds)),
//! found by the sums of their hashes and compared whole.  It can be
//! named only while those sums are kept (memoization on, or turned on for
//! the query by this record) and with no restriction (no `{G}` or right
//! side of `&` active).  The name leaves out the usable entries whose
//! terms have no id (not ground, or holding a name made during the
//! query), so a decision is recorded or recalled only when none of those
//! has a clause for a predicate the decision looks at (the first call's,
//! and those of the goals checked after it): `census P :- pegs P => ...`
//! keeps its `pegs P` out of every decision about `b X Y peg`.  The
//! program's clauses below the memo base do not change during a query;
//! the record starts empty at each query.
//!
//! **Exactness.**  The same name means the same multiset of terms, so the
//! same candidates (as terms) and the same drops: a recalled decision is
//! the one the look-ahead would make.  A decision is recorded only for a
//! masked cursor, whose candidates are exactly the usable ones (an
//! unmasked cursor counts consumed items as left).  A candidate is
//! matched to a recorded one by the id of its term (for a clause of the
//! fixed program, by its entry).
//!
//! **Cost.**  Naming contexts costs the interning of every resource
//! assumed (one walk of each fact's term, none for the facts of a move
//! whose candidate's term was met before: see
//! [`Machine::move_assumed`]) and the upkeep of the sums.
//! The record is turned on at a query's start only when the program has a
//! clause whose first conjunct the look-ahead can look into, or a call
//! whose decision it can record, and turned off
//! for the rest of the query when, after a while, fewer decisions are
//! recalled than tried (made, or wanted in a context too new to be named:
//! positions rarely met again); then the sums stop too, unless a predicate
//! is memoized ([`Context::stop_memo_sums`](crate::engine::context::Context::stop_memo_sums)),
//! so a record that does not pay costs little more than its trial.  It
//! holds at most [`MAX_DECISIONS`] decisions, and starts afresh when full.

#[allow(unused_imports)]
use super::*;
use crate::engine::memo::NO_RES;
use crate::term::cell::{FastHash, Hasher64};
use std::collections::HashMap;

/// Most decisions recorded; the record starts afresh past this.
const MAX_DECISIONS: usize = 1 << 18;

/// Slots for the positions of recent contexts ([`Decisions::recent`]).
const RECENT: usize = 64;

/// Decisions made (recorded) before the record judges whether it pays.
const TRIAL: u64 = 1024;

/// The decisions recorded in a query, by position.
#[derive(Default, Debug, Clone)]
pub(crate) struct Decisions {
    /// Whether decisions are recorded and recalled now.
    pub(crate) on: bool,
    /// Positions by the hash of their name (the sums), chained through
    /// [`Position::next`].
    heads: HashMap<u64, u32, FastHash>,
    positions: Vec<Position>,
    list: Vec<Decision>,
    /// The names of the positions (resource parts of memo keys).
    names: Vec<u8>,
    /// The terms of the candidates kept, for each decision.
    kept: Vec<u32>,
    /// Work space: the name of the context now.
    name: Vec<u8>,
    /// The positions of recent contexts, by the version of their memo sums
    /// ([`MemoSums::version`](crate::engine::context::MemoSums::version)):
    /// slot `version % RECENT` holds `(version, position)`.  Backtracking
    /// restores the version of the context it restores, so a position is
    /// named again only when the slot was taken since.
    recent: Vec<(u64, u32)>,
    /// The predicates of the usable entries that names leave out, for the
    /// version of their set in
    /// [`MemoSums::unnamed`](crate::engine::context::MemoSums::unnamed)
    /// (see [`Machine::unnamed_touch`]).
    unnamed: Option<Unnamed>,
    /// Decisions made and recalled in this query.
    pub(super) made: u64,
    pub(super) recalled: u64,
    /// Contexts met in this query that could not be named (the ids of
    /// their resources too sparse for a name: new terms keep coming).
    unnamed_contexts: u64,
}

/// The predicates of the usable entries that names leave out, for one
/// version of their set.
#[derive(Debug, Clone)]
struct Unnamed {
    version: u64,
    /// One bit for each predicate ([`pred_bit`]): most tests need no
    /// search of `preds`.
    mask: u64,
    preds: Vec<(SymId, u32)>,
}

/// A position: its name, and the decisions made there (a chain in the
/// order of their `(tpl, alt)`).
#[derive(Clone, Copy, Debug)]
struct Position {
    name_at: u32,
    name_len: u32,
    first: u32,
    /// The decision recalled or recorded here last (`NONE` at first).
    last: u32,
    /// The next position with the same hash.
    next: u32,
}

/// The decision for clause alternative `alt` of template `tpl` at a
/// position: passed over (`kept_len == NONE`), or the terms of the
/// candidate facts kept (every fact when `all`).
#[derive(Clone, Copy, Debug)]
struct Decision {
    tpl: u32,
    alt: u32,
    kept_at: u32,
    kept_len: u32,
    next: u32,
}

impl Decision {
    fn key(&self) -> (u32, u32) {
        (self.tpl, self.alt)
    }

    fn is(&self, tpl: u32, alt: u32) -> bool {
        self.tpl == tpl && self.alt == alt
    }
}

/// What was decided for a clause at a position.
#[derive(Clone, Copy, Debug)]
pub(super) enum Recalled {
    /// No candidate of its first conjunct is left: the clause is passed over.
    PassOver,
    /// The candidates kept are the facts with these terms (`kept` range).
    Kept(u32, u32),
}

impl Decisions {
    /// Start a query's record: empty, and on or off.
    pub(crate) fn reset(&mut self, on: bool) {
        self.forget();
        self.on = on;
        self.made = 0;
        self.recalled = 0;
        self.unnamed_contexts = 0;
    }

    /// Whether the record pays, judged at every [`TRIAL`] tries (decisions
    /// made and contexts that could not be named): fewer recalled than
    /// tried means that contexts rarely recur.
    fn pays(&self) -> bool {
        let tries = self.made + self.unnamed_contexts;
        !(tries.is_multiple_of(TRIAL) && self.recalled < tries)
    }

    /// Forget every decision (the figures stay).
    pub(crate) fn forget(&mut self) {
        self.heads.clear();
        self.positions.clear();
        self.list.clear();
        self.names.clear();
        self.kept.clear();
        self.recent.clear();
        self.unnamed = None;
    }

    /// The decision for `(tpl, alt)` at position `pos`, if made.  The
    /// clauses of a call are decided in order, so the decision after the
    /// one last recalled at the position (see [`Position::last`]) is
    /// looked at first.
    #[inline(always)]
    pub(super) fn recall(&mut self, pos: u32, tpl: u32, alt: u32) -> Option<Recalled> {
        let p = self.positions[pos as usize];
        let mut at = match p.last {
            NONE => p.first,
            last => self.list[last as usize].next,
        };
        if at == NONE || !self.list[at as usize].is(tpl, alt) {
            at = p.first;
            while at != NONE && !self.list[at as usize].is(tpl, alt) {
                at = self.list[at as usize].next;
            }
            if at == NONE {
                return None;
            }
        }
        self.positions[pos as usize].last = at;
        self.recalled += 1;
        let d = &self.list[at as usize];
        Some(match d.kept_len {
            NONE => Recalled::PassOver,
            len => Recalled::Kept(d.kept_at, len),
        })
    }

    /// The terms kept by a recalled decision.
    pub(super) fn kept(&self, at: u32, len: u32) -> &[u32] {
        &self.kept[at as usize..(at + len) as usize]
    }

    /// Record the decision for `(tpl, alt)` at `pos`: passed over when
    /// `kept` is `None`.  False when the record does not pay: the caller
    /// turns it off.
    fn record(&mut self, pos: u32, tpl: u32, alt: u32, kept: Option<&[u32]>) -> bool {
        self.made += 1;
        if !self.pays() {
            return false;
        }
        let kept_at = self.kept.len() as u32;
        let kept_len = match kept {
            None => NONE,
            Some(ids) => {
                self.kept.extend_from_slice(ids);
                ids.len() as u32
            }
        };
        // Into the position's chain, which is in the order of `(tpl, alt)`.
        let id = self.list.len() as u32;
        let mut prev = NONE;
        let mut at = self.positions[pos as usize].first;
        while at != NONE && self.list[at as usize].key() < (tpl, alt) {
            prev = at;
            at = self.list[at as usize].next;
        }
        self.list.push(Decision {
            tpl,
            alt,
            kept_at,
            kept_len,
            next: at,
        });
        match prev {
            NONE => self.positions[pos as usize].first = id,
            prev => self.list[prev as usize].next = id,
        }
        self.positions[pos as usize].last = id;
        true
    }

    /// The position named `self.name` with sums hash `hash`, made if new.
    fn position(&mut self, hash: u64) -> u32 {
        if self.list.len() >= MAX_DECISIONS {
            self.forget();
        }
        let mut at = self.heads.get(&hash).copied().unwrap_or(NONE);
        while at != NONE {
            let p = &self.positions[at as usize];
            if self.names[p.name_at as usize..(p.name_at + p.name_len) as usize] == self.name[..] {
                return at;
            }
            at = p.next;
        }
        let id = self.positions.len() as u32;
        let next = self.heads.insert(hash, id).unwrap_or(NONE);
        self.positions.push(Position {
            name_at: self.names.len() as u32,
            name_len: self.name.len() as u32,
            first: NONE,
            last: NONE,
            next,
        });
        self.names.extend_from_slice(&self.name);
        id
    }
}

impl Machine {
    /// The record's figures for the last query: decisions made and
    /// recalled, and whether it is (still) on.
    pub fn lookahead_record(&self) -> (u64, u64, bool) {
        (
            self.decisions.made,
            self.decisions.recalled,
            self.decisions.on,
        )
    }

    /// Turn the record on for a query starting now, if the program has a
    /// clause the look-ahead looks into or a call whose decision it
    /// records (the sums behind the contexts'
    /// names are then kept for the query: memoization's, turned off again
    /// when the query ends unless a predicate is memoized).
    pub(super) fn start_decisions(&mut self) {
        let templates = &self.templates;
        let wanted = !self.options.no_lookahead_record
            && self.ctx.entries.iter().any(|e| {
                e.first_call
                    || matches!(e.source, Source::Template { tpl, .. }
                        if templates[tpl as usize].ahead.iter().any(|p| p.own_call))
            });
        self.decisions.reset(wanted);
        if wanted && !self.ctx.memo.on {
            self.enable_memo();
        }
    }

    /// The position of the context now, when decisions are recorded and
    /// the context can be named (see the module doc).
    #[inline]
    pub(super) fn decided_position(&mut self) -> Option<u32> {
        if !self.decisions.on {
            return None;
        }
        let version = self.ctx.memo.version;
        if let Some(&(v, pos)) = self.decisions.recent.get(version as usize % RECENT) {
            // (A restriction comes and goes without a change to the sums.)
            if v == version && self.ctx.restrictions.is_empty() {
                return Some(pos);
            }
        }
        self.name_position()
    }

    /// [`Self::decided_position`] for a decision that looks at the
    /// predicates `preds` gives: none when a usable entry that the name
    /// leaves out has a clause for one of them
    /// ([`Self::unnamed_touch`]).
    #[inline]
    pub(super) fn recording_position(
        &mut self,
        preds: impl FnOnce(&Self) -> [(SymId, u32); 3],
    ) -> Option<u32> {
        let pos = self.decided_position()?;
        let m = &self.ctx.memo;
        if m.lin_nonground == 0 && m.unb_nonground == 0 {
            return Some(pos);
        }
        let preds = preds(self);
        (!self.unnamed_touch(&preds)).then_some(pos)
    }

    #[inline(never)]
    fn name_position(&mut self) -> Option<u32> {
        let m = &self.ctx.memo;
        if !m.on || !self.ctx.restrictions.is_empty() {
            return None;
        }
        if !self.ctx.memo_ids.key(&mut self.decisions.name) {
            self.decisions.unnamed_contexts += 1;
            if !self.decisions.pays() {
                self.stop_decisions();
            }
            return None;
        }
        let mut h = Hasher64::new();
        h.add(2, m.lin_hash);
        h.add(3, m.unb_hash);
        let pos = self.decisions.position(h.finish());
        let version = self.ctx.memo.version;
        let recent = &mut self.decisions.recent;
        if recent.is_empty() {
            recent.resize(RECENT, (u64::MAX, 0));
        }
        recent[version as usize % RECENT] = (version, pos);
        Some(pos)
    }

    /// Whether a usable entry that the context's name leaves out (its term
    /// not ground, or holding a name made during the query: `pegs P`
    /// assumed for the whole search) has a clause for one of `preds`, the
    /// predicates a decision looks at.  Then the decision depends on more
    /// than the name tells, and is neither recorded nor recalled.
    #[inline]
    pub(super) fn unnamed_touch(&mut self, preds: &[(SymId, u32)]) -> bool {
        let version = self.ctx.memo.unnamed;
        if !matches!(&self.decisions.unnamed, Some(u) if u.version == version) {
            self.find_unnamed(version);
        }
        let Some(Unnamed {
            mask, preds: found, ..
        }) = &self.decisions.unnamed
        else {
            return true;
        };
        preds
            .iter()
            .any(|&p| mask & pred_bit(p) != 0 && found.contains(&p))
    }

    /// The predicates of the usable entries that names leave out, under
    /// `version` (see [`Self::unnamed_touch`]).
    #[cold]
    #[inline(never)]
    fn find_unnamed(&mut self, version: u64) {
        let mut found = match self.decisions.unnamed.take() {
            Some(u) => u.preds,
            None => Vec::new(),
        };
        found.clear();
        // (The program's clauses, below the memo base, are the same in
        // every context of the query.)
        let base = self.ctx.memo.base;
        for e in 0..self.ctx.entries.len() as u32 {
            let entry = &self.ctx.entries[e as usize];
            if entry.res != NO_RES || (!entry.linear && e < base) || !self.ctx.usable(e) {
                continue;
            }
            let preds: &mut dyn Iterator<Item = (SymId, u32)> = match entry.source {
                Source::Heap { alts, n, .. } => &mut self.ctx.heap_alts
                    [alts as usize..(alts + n) as usize]
                    .iter()
                    .map(|a| a.pred),
                Source::Template { tpl, .. } => {
                    &mut self.templates[tpl as usize].keys.iter().map(|(p, _)| *p)
                }
            };
            for p in preds {
                if !found.contains(&p) {
                    found.push(p);
                }
            }
        }
        let mask = found.iter().fold(0, |m, &p| m | pred_bit(p));
        self.decisions.unnamed = Some(Unnamed {
            version,
            mask,
            preds: found,
        });
    }

    /// Drop from masked cursor `cur` the candidate facts whose terms are
    /// not among `kept` (a recalled decision).
    pub(super) fn keep_recalled(&mut self, cur: &mut Cursor, at: u32, len: u32) {
        let Some((items, mask)) = self.ctx.masked_candidates(cur) else {
            return;
        };
        let kept = self.decisions.kept(at, len);
        let mut drop = 0u64;
        let mut m = mask;
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let it = items[i as usize];
            if self.is_fact(it) && !kept.contains(&self.term_id(it.entry)) {
                drop |= 1 << i;
            }
        }
        if drop != 0 {
            Context::drop_candidates(cur, drop);
        }
    }

    /// Record the decision made for `(tpl, alt)` at `pos`, whose
    /// candidates left are those of masked cursor `cur`.
    pub(super) fn record_decision(&mut self, pos: u32, tpl: u32, alt: u32, cur: &Cursor) {
        let mut kept = std::mem::take(&mut self.scratch_ids);
        kept.clear();
        let passed = match self.ctx.masked_candidates(cur) {
            None => return self.scratch_ids = kept,
            Some((_, 0)) => true,
            Some((items, mask)) => {
                let mut m = mask;
                while m != 0 {
                    let i = m.trailing_zeros();
                    m &= m - 1;
                    let it = items[i as usize];
                    if self.is_fact(it) {
                        kept.push(self.term_id(it.entry));
                    }
                }
                false
            }
        };
        let pays = self
            .decisions
            .record(pos, tpl, alt, (!passed).then_some(&kept[..]));
        self.scratch_ids = kept;
        if !pays {
            self.stop_decisions();
        }
    }

    /// Turn the record off for the rest of the query (its figures stay),
    /// and with it the memo sums when no predicate is memoized: only the
    /// record kept them, and their upkeep (every assumed resource's term
    /// interned) is what a record that does not pay costs.
    #[cold]
    fn stop_decisions(&mut self) {
        self.decisions.forget();
        self.decisions.on = false;
        if !self.memoizing {
            self.ctx.stop_memo_sums();
        }
    }

    /// The term of entry `e` as a position's name counts it: its interned
    /// id, or for a clause of the fixed program (not counted in names), its
    /// entry.
    #[inline]
    fn term_id(&self, e: u32) -> u32 {
        match self.ctx.entries[e as usize].res {
            NO_RES => (1 << 31) | e,
            res => res,
        }
    }
}

/// The bit of predicate `p` in a mask of predicates (several share one).
#[inline]
fn pred_bit((f, n): (SymId, u32)) -> u64 {
    1 << ((f.0 ^ n.rotate_left(5)) & 63)
}
