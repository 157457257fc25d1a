//! The context: every clause the search can use, linear or unbounded, and
//! the index that finds candidates for a call without scanning.
//!
//! Lolli keeps one context in which the newest assumption is tried first
//! (and, inside one assumption `D1 , D2`, `D1` before `D2`; inside a module,
//! clauses in file order).  Here every usable clause is an [`Entry`] with an
//! id that grows with recency of assumption (the caller pushes the clauses of
//! one assumption in reverse so the first gets the highest id); candidates
//! are produced in decreasing id order, so the order is exactly Lolli's.
//!
//! Each entry has a *state*: `AVAIL` (usable), `GONE` (a consumed linear
//! resource, or any entry whose scope has ended) or a restriction token.
//! Restrictions implement the parts of Lolli's resource management that hide
//! resources: `{G}` hides every linear resource older than it, and the second
//! conjunct of `G1 & G2` may only use the resources the first one consumed.
//! The innermost restriction `(base, token)` says: a linear entry below `base`
//! is usable only if its state is `token`; entries at or above `base` are
//! usable when `AVAIL`.  Unbounded entries are never restricted.
//!
//! The index keeps, per predicate, buckets of `(entry, alternative)` items:
//! all items; items whose head is ground, by hash of the whole head; items
//! whose head is not ground; and for each of the first [`MAX_ARGS`] arguments,
//! items by hash of that argument when ground, or in a "not ground" bucket.
//! A call uses the smallest set of buckets that must contain every matching
//! item.  Buckets are stacks: an item is pushed when its entry is assumed and
//! popped when its scope ends, both through the trail (an item's pushes onto
//! all its buckets are one record, [`Undo::Indexed`], over its memberships),
//! so a bucket only holds entries of scopes still open (consumed resources
//! among them are skipped).
//!
//! Each entry also carries the signature of its head's first argument (its
//! principal symbol, see [`first_sig`](crate::logic::keys::first_sig)): when
//! the buckets could not narrow a call (a small predicate, or no ground
//! argument to key on), candidates whose signature differs from the call's
//! are passed over, and the cursor is moved past them as soon as a candidate
//! is taken, so a call with one matching clause leaves no choice point.
//!
//! A call whose candidates lie in one bucket of at most [`MASKED`] items
//! (the puzzles' calls) decides them all when it is made: a bit mask of the
//! items that are usable and do not clash.  Its choice point then knows
//! exactly whether a candidate is left, and a retry takes the next one in
//! O(1).  The mask stays true while the choice point lives, because a retry
//! runs in the state the call ran in (see [`Context::lookup`]).

use std::collections::HashMap;

use super::memo::UsableIds;
use super::runs::{aligned, Run, Stretch, RUN};
use super::trail::{Trail, Undo};
use crate::logic::clause::Body;
use crate::logic::keys::{Keys, MAX_ARGS};
use crate::term::cell::{Digest, FastHash};
use crate::term::{Cell, SymId};

/// State of a usable entry.
pub const AVAIL: u32 = 0;
/// State of a consumed or out-of-scope entry.
pub const GONE: u32 = u32::MAX;

/// Identifies an entry; larger means assumed more recently.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(pub u32);

/// Identifies an index bucket.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BucketId(pub u32);

/// One alternative of one entry, as stored in buckets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The entry.
    pub entry: u32,
    /// Which alternative of its clause.
    pub alt: u32,
}

/// What a call whose arguments are all ground would find
/// ([`Context::ground_candidates`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// No usable item: the call fails.
    Nothing,
    /// Usable items, all ground facts: the call only takes one.
    Facts,
    /// Anything else (a rule, a head with variables, or a bucket not
    /// scanned).
    Maybe,
}

/// The innermost hiding of linear resources (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Restriction {
    /// Linear entries below this id are restricted.
    pub base: u32,
    /// Such an entry is usable only with this state.
    pub token: u32,
}

/// Where an entry's clause lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A compiled template, with its environment (module parameters and
    /// `LOCAL` names) at `env` in the environment arena.
    Template {
        /// Index of the template in the program.
        tpl: u32,
        /// Start of its environment cells.
        env: u32,
    },
    /// A heap term assumed during search; its alternatives are `alts .. alts+n`
    /// in the heap-alternative arena.
    Heap {
        /// The clause term as assumed.
        clause: Cell,
        /// First alternative.
        alts: u32,
        /// Number of alternatives.
        n: u32,
    },
}

/// A clause in the context.
#[derive(Copy, Clone, Debug)]
pub struct Entry {
    /// Whether it is a linear resource (used at most once).
    pub linear: bool,
    /// Whether it is an unbounded template clause with an alternative whose
    /// first body conjunct has a
    /// [`FirstCall`](crate::logic::lookahead::FirstCall) (set by the
    /// caller of [`Context::push_entry`]; the engine looks into such a
    /// body when the clause is a candidate).
    pub first_call: bool,
    /// `AVAIL`, `GONE` or a restriction token.
    pub state: u32,
    /// The clause.
    pub source: Source,
    /// Its index memberships: `memb .. memb+nmemb` in the membership arena.
    pub memb: u32,
    /// Number of memberships.
    pub nmemb: u32,
    /// The proof node that assumed it (0 for program clauses).
    pub assumed_by: u32,
    /// Interned id of its ground term, for memo keys (`NO_RES` if not ground
    /// or not computed).
    pub res: u32,
    /// Hash of its term, summed into the context hash while usable.
    pub rhash: u64,
    /// The [`first_sig`](crate::logic::keys::first_sig) of its head when
    /// it has one alternative, else 0.
    pub sig: u32,
    /// For a template clause without variables: the heap address where its
    /// term was built once when assumed (`u32::MAX` otherwise), so a match
    /// shares that term instead of copying parts of the template.
    pub ground: u32,
    /// Whether that clause is a fact: one alternative, no body, so its
    /// head is the term at `ground` (a match or the look-ahead need not
    /// read its template).  For a clause on the heap, whether it is one
    /// alternative with a ground head and no body (set when it is
    /// assumed, so that asking costs no read of its alternative; false
    /// tells nothing).
    pub fact: bool,
}

/// An alternative of a heap clause.
#[derive(Copy, Clone, Debug)]
pub struct HeapAlt {
    /// Head atom.
    pub head: Cell,
    /// Name and arity of the head.
    pub pred: (SymId, u32),
    /// Body goals at `body .. body+nbody` in the body arena.
    pub body: u32,
    /// Number of body goals.
    pub nbody: u32,
    /// Whether the head is ground (it has a whole-atom index key).
    pub ground: bool,
    /// When the head is ground, the [`Digest`]s of its first
    /// [`ALT_DIGESTS`] arguments (computed for its index keys), else
    /// zeros: the look-ahead reads a candidate fact's arguments here
    /// instead of walking them.  Valid for the alternative's life: the
    /// bindings that made the head ground are older than the entry, and
    /// undoing them removes it.
    pub args: [Digest; ALT_DIGESTS],
}

/// How many argument digests a [`HeapAlt`] keeps.
pub const ALT_DIGESTS: usize = 2;

#[derive(Clone, Debug)]
struct PredIndex {
    all: [BucketId; 2],
    nonground: [BucketId; 2],
    arg_nonground: [[BucketId; 2]; MAX_ARGS],
    ground: HashMap<u64, GroundKey, FastHash>,
    arg_ground: HashMap<(u32, u64), [BucketId; 2], FastHash>,
}

impl PredIndex {
    /// The bucket after the predicate's own ones, which
    /// [`Context::ensure_pred`] makes together, `all` first and the last
    /// argument's `arg_nonground` pair last.
    fn own_end(&self) -> u32 {
        self.arg_nonground[MAX_ARGS - 1][1].0 + 1
    }
}

/// The buckets of a whole-atom key, and the argument buckets of the atom
/// whose indexing made the key (when all its arguments had keys): a
/// ground atom assumed again (a hole of a board emptied and filled back)
/// then finds every bucket it joins in one lookup.  The argument keys are
/// kept with their buckets and compared before use, since a whole-atom
/// key does not decide them (two atoms may share a hash).  As only the
/// [`Context::index`] call that made the whole pair keeps them, an
/// argument pair kept is never younger than the whole pair (made by that
/// call or before it), and forgetting the buckets made since a mark
/// forgets such an entry with its arguments'.
#[derive(Copy, Clone, Debug)]
struct GroundKey {
    pair: [BucketId; 2],
    /// How many of `args` are known: 0, or the arity (at most
    /// [`MAX_ARGS`]).
    nargs: u8,
    args: [(u64, [BucketId; 2]); MAX_ARGS],
}

impl GroundKey {
    fn new(pair: [BucketId; 2]) -> Self {
        GroundKey {
            pair,
            nargs: 0,
            args: [(0, [BucketId(0); 2]); MAX_ARGS],
        }
    }

    /// The argument buckets kept, when the atom's argument keys `args`
    /// are those they were kept for.
    #[inline]
    fn args_for(&self, args: &[Option<u64>]) -> Option<&[(u64, [BucketId; 2])]> {
        let kept = &self.args[..self.nargs as usize];
        (self.nargs as usize == args.len() && kept.iter().zip(args).all(|(k, a)| Some(k.0) == *a))
            .then_some(kept)
    }
}

/// A key that was given a pair of buckets: the first bucket, the
/// predicate's position in `preds`, the argument (or [`WHOLE`]) and the
/// key's hash.
#[derive(Copy, Clone, Debug)]
struct KeyPair {
    bucket: u32,
    pred: u32,
    arg: u32,
    hash: u64,
}

/// [`KeyPair::arg`] of a whole-head key.
const WHOLE: u32 = u32::MAX;

/// The size of the index at some moment (see [`Context::forget_index_since`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IndexMark {
    buckets: u32,
    preds: u32,
}

/// A position in the merged candidate streams of one call.
#[derive(Copy, Clone, Debug, Default)]
pub struct Cursor {
    /// Up to four (bucket, items still to visit) streams.
    pub(super) streams: [(u32, u32); 4],
    pub(super) n: u8,
    /// The call's first-argument signature (0: none): items whose head has
    /// another nonzero signature cannot match and are passed over.
    sig: u32,
    /// Whether [`Context::next_usable`] takes its slower path: with a
    /// signature, or with one bucket longer than [`RUN`] (where runs of
    /// consumed items may be passed in one step).
    slow: bool,
    /// Whether the candidates are the set bits of `mask` (see
    /// [`Context::lookup`]).
    masked: bool,
    /// Whether the call begins a move: its takes are recorded as the
    /// context's [`MoveTake`].
    pub(crate) begins_move: bool,
    /// For a masked cursor over one bucket of at most [`MASKED`] items:
    /// bit `i` is set when the item at position `i` is a candidate still to
    /// try (usable, and not clashing with the call's first argument).
    mask: u64,
}

/// The most items a cursor over one bucket may have to be masked.
pub const MASKED: u32 = 64;

/// Up to this many buckets in the index, backtracking keeps the keys made
/// since the choice point it returns to, with their (then empty) buckets
/// (see [`Context::truncate`]).  A key's buckets are the newest when it is
/// forgotten, always as a suffix of `buckets` (backtracking past a choice
/// point, dropping scopes, the end of a query), so a key kept this way
/// goes with the first suffix that holds it, and what each key's entry
/// remembers of older keys stays true.  At most about 2 MB kept.
const KEPT_BUCKETS: usize = 1 << 13;

impl Cursor {
    /// Whether `entry`'s head cannot match the call (both have signatures,
    /// and they differ).
    #[inline]
    fn clashes(&self, entry: &Entry) -> bool {
        self.sig != 0 && entry.sig != 0 && entry.sig != self.sig
    }
}

/// The context.
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// All entries ever assumed on the current branch, by id.
    pub entries: Vec<Entry>,
    /// Alternatives of heap clauses.
    pub heap_alts: Vec<HeapAlt>,
    /// Body goals of heap clause alternatives.
    pub bodies: Vec<Body>,
    /// Environment cells of template entries.
    pub envs: Vec<Cell>,
    /// Bucket memberships of entries.
    pub memberships: Vec<(BucketId, Item)>,
    /// Restrictions, innermost last.
    pub restrictions: Vec<Restriction>,
    /// The next restriction token.
    pub next_token: u32,
    /// The sums behind memo keys (see [`crate::engine::memo`]).
    pub memo: MemoSums,
    /// The ids of the usable resources, kept with `memo`.
    pub memo_ids: UsableIds,
    /// Whether the sums were stopped for the rest of the query
    /// ([`Context::stop_memo_sums`]): backtracking does not turn them on
    /// again.  Cleared when memoization is turned on.
    pub memo_stopped: bool,
    /// The last version given to `memo.version` (never goes back).
    versions: u64,
    /// The last version given to `memo.unnamed` (never goes back).
    unnamed_versions: u64,
    pub(super) buckets: Vec<Vec<Item>>,
    /// For each entry, the stamp of its latest change to `GONE` (0: none);
    /// stamps come from `clock` and never repeat (see [`super::runs`]).
    pub(super) stamps: Vec<u64>,
    clock: u64,
    /// Bumped when a `GONE` entry is made usable again other than by undo
    /// (the start of `G2` in `G1 & G2`): run records made before are void.
    pub(super) epoch: u32,
    /// Run records, by bucket and position (see [`super::runs`]).
    pub(super) runs: HashMap<u64, Run, FastHash>,
    /// A reusable stack for [`Context::pass_run`].
    pub(super) run_path: Vec<Stretch>,
    preds: Vec<PredIndex>,
    /// The keys that got a pair of buckets, in the order the pairs were
    /// made (so that [`Context::forget_keys_since`] finds the keys of the
    /// newest buckets).
    key_log: Vec<KeyPair>,
    /// Where each predicate's index is in `preds`: by symbol for arities
    /// below [`SMALL_ARITY`] (`u32::MAX` for none), in a map otherwise.
    small_preds: Vec<[u32; SMALL_ARITY]>,
    large_preds: HashMap<(SymId, u32), u32, FastHash>,
    /// Empty buckets of forgotten keys, their storage kept for the next
    /// new buckets (a search backtracks over the same keys many times).
    spare_buckets: Vec<Vec<Item>>,
    /// The newest candidate taken by a call that begins a move, and not
    /// undone (see [`MoveTake`]).
    pub move_take: MoveTake,
    /// What [`Targets`] kept for this context hold for: a number no other
    /// context or earlier state of this one had (0, never given, in a
    /// context made by `Default`), given anew when keys lose their
    /// buckets.  A clone keeps it, with the same buckets.
    index_epoch: u64,
}

/// The buckets an item of a ground head joins, as [`Context::index_known`]
/// found them, with the context's [`Context::index_epoch`] then: they hold
/// while it is the same (keys only ever gain buckets until some lose theirs,
/// which gives the context a new epoch).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Targets {
    epoch: u64,
    side: u8,
    n: u8,
    buckets: [BucketId; 2 + MAX_ARGS],
}

/// The predicate index and the bucket pair of a whole-atom key, as
/// [`Context::single_fact_known`] found them, with the context's
/// [`Context::index_epoch`] then (they hold while it is the same).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyBuckets {
    epoch: u64,
    pix: u32,
    pair: [BucketId; 2],
}

/// A new [`Context::index_epoch`], never given before in this process.
fn new_index_epoch() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static EPOCHS: AtomicU64 = AtomicU64::new(1);
    EPOCHS.fetch_add(1, Ordering::Relaxed)
}

/// A candidate fact taken by the call `Gk` that begins a move (the
/// conjunct a [`crate::logic::move_plan::MovePlan`] is for): the call's
/// heap address and the entry it took.  The engine sets it at each take
/// of such a call, through the trail, so that it always names the newest
/// take not undone; at the move's assumption, a `move_take` at the
/// address of the instance's own `Gk` is that `Gk`'s take (the goals of
/// live clause instances have distinct addresses, and a take undone by
/// backtracking is no longer named), and the candidate's term decides
/// the facts the assumption adds.  [`MoveTake::NONE`] names no take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveTake {
    /// The heap address of the call.
    pub goal: u32,
    /// The entry it took.
    pub entry: u32,
}

impl MoveTake {
    /// No take.
    pub const NONE: MoveTake = MoveTake {
        goal: u32::MAX,
        entry: u32::MAX,
    };
}

impl Default for MoveTake {
    fn default() -> Self {
        MoveTake::NONE
    }
}

/// Predicates of fewer arguments than this are found by symbol id alone.
const SMALL_ARITY: usize = 4;

/// Incrementally kept summaries of the context for memo keys.
#[derive(Copy, Clone, Debug, Default)]
pub struct MemoSums {
    /// Whether memoization is on (the sums are kept only then).
    pub on: bool,
    /// Unbounded entries below this id are the fixed program.
    pub base: u32,
    /// Wrapping sum of the hashes of usable linear entries.
    pub lin_hash: u64,
    /// Usable linear entries whose term is not ground.
    pub lin_nonground: u32,
    /// Wrapping sum of the hashes of usable unbounded entries from `base` on.
    pub unb_hash: u64,
    /// Such unbounded entries whose term is not ground.
    pub unb_nonground: u32,
    /// The version of these sums and of the ids kept with them
    /// (`Context::memo_ids`): a number never given before at each change,
    /// and restored with the sums on backtracking, when the ids are
    /// restored too.  So the same version means the same context, as far
    /// as they tell.
    pub version: u64,
    /// The version of the set of usable entries counted here without a
    /// term id (not ground): a number never given before at each change
    /// to the set, and restored with the sums on backtracking, when the
    /// set is restored too.  So the same version means the same set.
    pub unnamed: u64,
}

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Context {
            next_token: 1,
            index_epoch: new_index_epoch(),
            ..Context::default()
        }
    }

    fn new_bucket(&mut self) -> BucketId {
        self.buckets.push(Vec::new());
        BucketId(self.buckets.len() as u32 - 1)
    }

    fn pair(&mut self) -> [BucketId; 2] {
        [self.new_bucket(), self.new_bucket()]
    }

    /// The position of `pred`'s index in `preds`, if it has one.
    #[inline]
    fn pred_ix(&self, pred: (SymId, u32)) -> Option<usize> {
        if (pred.1 as usize) < SMALL_ARITY {
            let ix = *self
                .small_preds
                .get(pred.0 .0 as usize)?
                .get(pred.1 as usize)?;
            (ix != u32::MAX).then_some(ix as usize)
        } else {
            self.large_preds.get(&pred).map(|&ix| ix as usize)
        }
    }

    /// The numbers of arguments with which the index holds items for a
    /// predicate named `name` (items of open scopes; a consumed resource
    /// still counts), in increasing order.
    pub fn arities(&self, name: SymId) -> Vec<u32> {
        let has_items = |ix: usize| {
            let all = self.preds[ix].all;
            all.iter().any(|b| !self.buckets[b.0 as usize].is_empty())
        };
        let mut found: Vec<u32> = (0..SMALL_ARITY as u32)
            .filter(|&n| self.pred_ix((name, n)).is_some_and(has_items))
            .collect();
        found.extend(
            self.large_preds
                .iter()
                .filter(|&(&(f, _), &ix)| f == name && has_items(ix as usize))
                .map(|(&(_, n), _)| n),
        );
        found.sort_unstable();
        found
    }

    /// The index of `pred`, made if it has none yet.
    fn ensure_pred(&mut self, pred: (SymId, u32)) -> usize {
        if let Some(ix) = self.pred_ix(pred) {
            return ix;
        }
        let all = self.pair();
        let nonground = self.pair();
        let mut arg_nonground = [[BucketId(0); 2]; MAX_ARGS];
        for slot in arg_nonground.iter_mut() {
            *slot = self.pair();
        }
        self.preds.push(PredIndex {
            all,
            nonground,
            arg_nonground,
            ground: HashMap::default(),
            arg_ground: HashMap::default(),
        });
        let ix = self.preds.len() - 1;
        if (pred.1 as usize) < SMALL_ARITY {
            let s = pred.0 .0 as usize;
            if self.small_preds.len() <= s {
                self.small_preds.resize(s + 1, [u32::MAX; SMALL_ARITY]);
            }
            self.small_preds[s][pred.1 as usize] = ix as u32;
        } else {
            self.large_preds.insert(pred, ix as u32);
        }
        ix
    }

    /// Whether entry `e` can be used now.
    #[inline]
    pub fn usable(&self, e: u32) -> bool {
        let entry = &self.entries[e as usize];
        if !entry.linear {
            return entry.state == AVAIL;
        }
        match self.restrictions.last() {
            Some(r) if e < r.base => entry.state == r.token,
            _ => entry.state == AVAIL,
        }
    }

    /// The state that makes entry `e` usable under the current restrictions.
    #[inline]
    pub fn usable_state(&self, e: u32) -> u32 {
        match self.restrictions.last() {
            Some(r) if e < r.base => r.token,
            _ => AVAIL,
        }
    }

    /// Set the state of entry `e`, trailed.
    #[inline]
    pub fn set_state(&mut self, trail: &mut Trail, e: u32, state: u32) {
        let old = self.entries[e as usize].state;
        if old != state {
            trail.push(Undo::State(EntryId(e), old));
            if state == GONE {
                self.clock += 1;
                self.stamps[e as usize] = self.clock;
            } else if old == GONE {
                self.epoch = self.epoch.wrapping_add(1);
            }
            self.change_state(e, state);
        }
    }

    #[inline]
    fn change_state(&mut self, e: u32, state: u32) {
        let old = std::mem::replace(&mut self.entries[e as usize].state, state);
        if self.memo.on && (old == AVAIL) != (state == AVAIL) && self.counted(e) {
            self.memo_sums(e, state == AVAIL);
        }
    }

    /// [`Context::change_state`] undone by backtracking: only `memo_ids`
    /// follows the change.  The sums, their versions and the count of
    /// entries without a term id come back whole with the arena lengths,
    /// right after the trail is undone ([`Context::truncate`]), so adding
    /// to them here would be work thrown away.
    #[inline]
    fn restore_state(&mut self, e: u32, state: u32) {
        let old = std::mem::replace(&mut self.entries[e as usize].state, state);
        if self.memo.on && (old == AVAIL) != (state == AVAIL) && self.counted(e) {
            let entry = &self.entries[e as usize];
            if entry.res != crate::engine::memo::NO_RES {
                self.memo_ids
                    .change(entry.linear, entry.res, state == AVAIL);
            }
        }
    }

    /// Push a restriction, trailed; returns its token.
    pub fn restrict(&mut self, trail: &mut Trail, base: u32) -> u32 {
        let token = self.next_token;
        self.next_token = self.next_token.wrapping_add(1).max(1);
        self.restrictions.push(Restriction { base, token });
        trail.push(Undo::Restrict);
        token
    }

    /// Pop the innermost restriction, trailed.
    pub fn unrestrict(&mut self, trail: &mut Trail) {
        if let Some(r) = self.restrictions.pop() {
            trail.push(Undo::Unrestrict(r));
        }
    }

    /// Add an entry (not yet indexed); returns its id.
    pub fn push_entry(&mut self, linear: bool, source: Source, assumed_by: u32) -> u32 {
        let id = self.entries.len() as u32;
        self.stamps.push(0);
        self.entries.push(Entry {
            linear,
            first_call: false,
            state: AVAIL,
            source,
            memb: self.memberships.len() as u32,
            nmemb: 0,
            assumed_by,
            res: crate::engine::memo::NO_RES,
            rhash: 0,
            ground: u32::MAX,
            fact: false,
            sig: 0,
        });
        id
    }

    /// Give entry `e` its memo identity (`res`, `rhash`) and count it in the
    /// context sums while it is usable.  Called right after `push_entry`
    /// when memoization is on.
    pub fn set_identity(&mut self, e: u32, res: u32, rhash: u64) {
        let entry = &mut self.entries[e as usize];
        entry.res = res;
        entry.rhash = rhash;
        if entry.state == AVAIL {
            self.memo_sums(e, true);
        }
    }

    /// Add (or remove) entry `e` to (from) the sums behind memo keys.
    #[inline]
    fn memo_sums(&mut self, e: u32, add: bool) {
        if !self.memo.on {
            return;
        }
        self.new_version();
        let Entry {
            linear, res, rhash, ..
        } = self.entries[e as usize];
        let ground = res != crate::engine::memo::NO_RES;
        let (hash, count) = if linear {
            (&mut self.memo.lin_hash, &mut self.memo.lin_nonground)
        } else {
            (&mut self.memo.unb_hash, &mut self.memo.unb_nonground)
        };
        if add {
            *hash = hash.wrapping_add(rhash);
            *count += !ground as u32;
        } else {
            *hash = hash.wrapping_sub(rhash);
            *count -= !ground as u32;
        }
        if !ground {
            self.new_unnamed_version();
        }
        if ground {
            self.memo_ids.change(linear, res, add);
        }
    }

    /// Give the sums and ids a new version (see [`MemoSums::version`]).
    fn new_version(&mut self) {
        self.versions += 1;
        self.memo.version = self.versions;
    }

    /// Give the set of usable entries without a term id a new version
    /// (see [`MemoSums::unnamed`]).
    fn new_unnamed_version(&mut self) {
        self.unnamed_versions += 1;
        self.memo.unnamed = self.unnamed_versions;
    }

    /// Stop keeping the memo sums and ids (for the rest of the query:
    /// only the look-ahead's record kept them, and it turned itself off).
    /// A choice point made before keeps its sums, but backtracking to it
    /// leaves them off ([`Context::truncate`]).
    pub fn stop_memo_sums(&mut self) {
        self.memo.on = false;
        self.memo_stopped = true;
        self.memo_ids.clear();
        self.new_version();
    }

    /// Count `memo_ids` afresh from the entries (memoization was turned
    /// on, its base moved, or the terms were renumbered).
    pub fn rebuild_memo_ids(&mut self) {
        self.new_version();
        self.new_unnamed_version();
        self.memo_ids.clear();
        if !self.memo.on {
            return;
        }
        for e in 0..self.entries.len() as u32 {
            if let Some((linear, res)) = self.usable_id(e) {
                self.memo_ids.change(linear, res, true);
            }
        }
    }

    /// Whether entry `e` is usable and counted in the memo sums with a
    /// ground term, and then its kind and term id (as `memo_ids` holds it).
    #[inline]
    fn usable_id(&self, e: u32) -> Option<(bool, u32)> {
        let entry = &self.entries[e as usize];
        let ground = entry.res != crate::engine::memo::NO_RES;
        (entry.state == AVAIL && ground && self.counted(e)).then_some((entry.linear, entry.res))
    }

    /// Whether entry `e` counts in the memo sums (unbounded entries of the
    /// program loaded before the table was made do not).
    #[inline]
    fn counted(&self, e: u32) -> bool {
        self.memo.on && (self.entries[e as usize].linear || e >= self.memo.base)
    }

    /// Index alternative `alt` of the newest entry `e` under its head keys.
    /// Must be called right after `push_entry(e)` for each alternative, in order.
    pub fn index(&mut self, trail: &mut Trail, e: u32, alt: u32, pred: (SymId, u32), keys: &Keys) {
        let side = 1 - self.entries[e as usize].linear as usize; // 0: linear, 1: unbounded
        let (targets, n) = self.targets_of(pred, keys, side);
        self.join(trail, e, alt, keys.first, &targets[..n]);
    }

    /// [`Context::index`] of the only alternative of the newest entry `e`,
    /// a fact whose buckets an earlier indexing of the same head found
    /// (`known`, filled in here when it does not hold): a move's fact,
    /// assumed again and again, costs no lookup of its keys.
    #[inline]
    pub fn index_known(
        &mut self,
        trail: &mut Trail,
        e: u32,
        pred: (SymId, u32),
        keys: &Keys,
        known: &mut Targets,
    ) {
        let side = 1 - self.entries[e as usize].linear as usize;
        if known.epoch != self.index_epoch || known.epoch == 0 || known.side as usize != side {
            let (buckets, n) = self.targets_of(pred, keys, side);
            *known = Targets {
                epoch: self.index_epoch,
                side: side as u8,
                n: n as u8,
                buckets,
            };
        }
        debug_assert_eq!(
            {
                let (b, n) = self.targets_of(pred, keys, side);
                b[..n].to_vec()
            },
            known.buckets[..known.n as usize].to_vec(),
            "the kept buckets of a fact"
        );
        self.join(trail, e, 0, keys.first, &known.buckets[..known.n as usize]);
    }

    /// Put alternative `alt` of entry `e` (whose head's first-argument
    /// signature is `first`) on the buckets `targets`, as one trail record.
    #[inline]
    fn join(&mut self, trail: &mut Trail, e: u32, alt: u32, first: u32, targets: &[BucketId]) {
        // The first alternative gives the entry its signature; a second one
        // takes it away (the filter is per entry, not per alternative).
        let entry = &mut self.entries[e as usize];
        entry.sig = if entry.nmemb == 0 { first } else { 0 };
        let item = Item { entry: e, alt };
        let from = self.memberships.len() as u32;
        for &b in targets {
            self.buckets[b.0 as usize].push(item);
            self.memberships.push((b, item));
        }
        trail.push(Undo::Indexed(from, targets.len() as u32));
        let entry = &mut self.entries[e as usize];
        entry.nmemb = self.memberships.len() as u32 - entry.memb;
    }

    /// The buckets an item of a head of `pred` with `keys` joins on `side`
    /// (0 linear, 1 unbounded): "all", the whole head's, each argument's.
    /// Keys seen for the first time get their pairs of buckets now.
    fn targets_of(
        &mut self,
        pred: (SymId, u32),
        keys: &Keys,
        side: usize,
    ) -> ([BucketId; 2 + MAX_ARGS], usize) {
        let nargs = (pred.1 as usize).min(MAX_ARGS);
        // Every bucket the item joins: "all", whole head, each argument.
        let mut targets = [BucketId(0); 2 + MAX_ARGS];
        let mut n = 0;
        let mut add = |b: BucketId| {
            targets[n] = b;
            n += 1;
        };
        let pix = self.ensure_pred(pred);
        // A key seen for the first time gets a new pair of buckets, numbered
        // from the current end of `buckets` and made below.
        let first_new = self.buckets.len() as u32;
        let mut fresh = 0;
        let mut new_pair = || {
            let b0 = BucketId(first_new + fresh);
            fresh += 2;
            [b0, BucketId(b0.0 + 1)]
        };
        // The keys given new pairs, for `key_log`.
        let mut made = [(0u32, 0u64); 1 + MAX_ARGS];
        let mut nmade = 0;
        let pi = &mut self.preds[pix];
        add(pi.all[side]);
        let known = keys
            .whole
            .and_then(|h| pi.ground.get(&h))
            .and_then(|g| Some((g.pair, g.args_for(&keys.args[..nargs])?)));
        if let Some((pair, args)) = known {
            add(pair[side]);
            for (_, pair) in args {
                add(pair[side]);
            }
        } else {
            match keys.whole {
                None => add(pi.nonground[side]),
                Some(h) => add(pi
                    .ground
                    .entry(h)
                    .or_insert_with(|| {
                        made[nmade] = (WHOLE, h);
                        nmade += 1;
                        GroundKey::new(new_pair())
                    })
                    .pair[side]),
            }
            let mut args = [(0, [BucketId(0); 2]); MAX_ARGS];
            let mut all_keyed = true;
            for (i, kept) in args.iter_mut().enumerate().take(nargs) {
                match keys.args[i] {
                    None => {
                        all_keyed = false;
                        add(pi.arg_nonground[i][side])
                    }
                    Some(h) => {
                        let pair = *pi.arg_ground.entry((i as u32, h)).or_insert_with(|| {
                            made[nmade] = (i as u32, h);
                            nmade += 1;
                            new_pair()
                        });
                        *kept = (h, pair);
                        add(pair[side])
                    }
                }
            }
            // Kept only by the call that made the whole pair, so that no
            // argument pair is younger than it.
            let whole_made = nmade > 0 && made[0].0 == WHOLE;
            if let (Some(h), true, true) = (keys.whole, all_keyed, whole_made) {
                if let Some(g) = pi.ground.get_mut(&h) {
                    g.nargs = nargs as u8;
                    g.args = args;
                }
            }
        }
        for (k, &(arg, hash)) in made[..nmade].iter().enumerate() {
            self.key_log.push(KeyPair {
                bucket: first_new + 2 * k as u32,
                pred: pix as u32,
                arg,
                hash,
            });
        }
        for _ in 0..fresh {
            let b = self.spare_buckets.pop().unwrap_or_default();
            self.buckets.push(b);
        }
        (targets, n)
    }

    /// End the scope of entries `first .. end`: they become `GONE` and leave
    /// the index (they are the newest items of their buckets).
    pub fn close_scope(&mut self, trail: &mut Trail, first: u32, end: u32) {
        for e in (first..end).rev() {
            self.set_state(trail, e, GONE);
            let entry = self.entries[e as usize];
            for m in (entry.memb..entry.memb + entry.nmemb).rev() {
                let (b, item) = self.memberships[m as usize];
                let bucket = &mut self.buckets[b.0 as usize];
                if bucket.last() == Some(&item) {
                    bucket.pop();
                    trail.push(Undo::Pop(b, item));
                }
            }
        }
    }

    /// Record that call `goal` (a heap address), which begins a move,
    /// took `entry` (see [`MoveTake`]).
    #[inline]
    pub fn set_move_take(&mut self, trail: &mut Trail, goal: u32, entry: u32) {
        trail.push(Undo::MoveTake(self.move_take));
        self.move_take = MoveTake { goal, entry };
    }

    /// Undo one index or state change (called by the trail's undo loop,
    /// which [`Context::truncate`] follows: the memo sums are left for it
    /// to restore).
    pub fn undo(&mut self, u: Undo) {
        match u {
            Undo::State(e, old) => self.restore_state(e.0, old),
            Undo::Indexed(from, n) => {
                for m in (from..from + n).rev() {
                    let (b, _) = self.memberships[m as usize];
                    self.buckets[b.0 as usize].pop();
                }
            }
            Undo::Pop(b, item) => self.buckets[b.0 as usize].push(item),
            Undo::Restrict => {
                self.restrictions.pop();
            }
            Undo::Unrestrict(r) => self.restrictions.push(r),
            Undo::MoveTake(t) => self.move_take = t,
            Undo::Bind(_) | Undo::Lower(..) | Undo::EigenEnded(_) => {}
        }
    }

    /// The candidate streams for a call of `pred`: every item when there
    /// are at most `small` (computing keys would cost more than it saves),
    /// else the smallest set of buckets for the call's keys, which `keys`
    /// computes only then.  One lookup of the predicate either way.  The
    /// call's first-argument signature, which `first` computes, filters the
    /// candidates when no key narrowed them (always for a small predicate).
    pub fn lookup(
        &self,
        pred: (SymId, u32),
        small: u32,
        keys: impl FnOnce() -> Keys,
        first: impl FnOnce() -> u32,
    ) -> Cursor {
        let Some(pi) = self.pred_ix(pred).map(|ix| &self.preds[ix]) else {
            return Cursor::default();
        };
        let len = |b: BucketId| self.buckets[b.0 as usize].len() as u32;
        let (a, b) = (len(pi.all[0]), len(pi.all[1]));
        if a + b <= small {
            let mut cur = Cursor::default();
            for (bucket, n) in [(pi.all[0], a), (pi.all[1], b)] {
                if n > 0 {
                    cur.streams[cur.n as usize] = (bucket.0, n);
                    cur.n += 1;
                }
            }
            // Only a choice among two or more can be narrowed.
            if a + b > 1 {
                cur.sig = first();
                cur.slow = cur.sig != 0;
            }
            self.mask_small(&mut cur);
            return cur;
        }
        let mut cur = self.cursor_in(pi, pred, &keys(), first);
        self.mask_small(&mut cur);
        cur
    }

    /// Make a cursor over one bucket of at most [`MASKED`] items masked:
    /// its candidates are decided now, in one pass, so that
    /// [`Context::has_more`] is exact (a call whose last usable candidate
    /// is taken leaves no choice point) and a retry finds the next one in
    /// O(1).  The mask stays true for the cursor's whole life: a choice
    /// point's retry runs in the state the call ran in, which
    /// backtracking restores (entry states, restrictions and bucket
    /// contents are all undone by the trail).
    #[inline(always)]
    fn mask_small(&self, cur: &mut Cursor) {
        if cur.n != 1 || cur.streams[0].1 > MASKED {
            return;
        }
        let (b, n) = cur.streams[0];
        let items = &self.buckets[b as usize][..n as usize];
        let mut mask = 0u64;
        match self.restrictions.last().copied() {
            None if cur.sig == 0 => {
                for (i, item) in items.iter().enumerate() {
                    let usable = self.entries[item.entry as usize].state == AVAIL;
                    mask |= (usable as u64) << i;
                }
            }
            _ => {
                for (i, item) in items.iter().enumerate() {
                    let ok =
                        self.usable(item.entry) && !cur.clashes(&self.entries[item.entry as usize]);
                    mask |= (ok as u64) << i;
                }
            }
        }
        cur.mask = mask;
        cur.masked = true;
    }

    /// The candidates of a masked cursor still to try: the items of its
    /// bucket, of which those at the set bits of the mask are candidates.
    /// `None` for a cursor that is not masked.
    #[inline]
    pub fn masked_candidates(&self, cur: &Cursor) -> Option<(&[Item], u64)> {
        if !cur.masked {
            return None;
        }
        let (b, n) = cur.streams[0];
        Some((&self.buckets[b as usize][..n as usize], cur.mask))
    }

    /// Whether a cursor is masked and has a candidate left.
    #[inline]
    pub fn masked_nonempty(cur: &Cursor) -> bool {
        cur.masked && cur.mask != 0
    }

    /// Whether a cursor is masked and has two candidates or more left.
    #[inline]
    pub fn masked_several(cur: &Cursor) -> bool {
        cur.masked && cur.mask & cur.mask.wrapping_sub(1) != 0
    }

    /// Take the candidates at the set bits of `drop` out of a masked cursor.
    #[inline]
    pub fn drop_candidates(cur: &mut Cursor, drop: u64) {
        debug_assert!(cur.masked);
        cur.mask &= !drop;
    }

    /// Where `pred`'s index is, for [`Context::may_match_ground`]; `None`
    /// when nothing was ever indexed under it (a call has no candidate).
    #[inline]
    pub fn pred_index(&self, pred: (SymId, u32)) -> Option<u32> {
        self.pred_ix(pred).map(|ix| ix as u32)
    }

    /// Whether a call of the predicate at index `pix` whose arguments are
    /// all ground, with whole-atom key `whole`, may have a candidate now:
    /// a usable item in the bucket of that key, or in the bucket of heads
    /// without a whole key (not ground, or too large to hash).  No other
    /// item can unify with the call, since an item goes to the bucket of
    /// its head's key and equal ground terms hash alike.  `false` means
    /// the call would find nothing and fail.  A long bucket counts as a
    /// "maybe" without being scanned, so the answer costs O(1).
    #[inline]
    pub fn may_match_ground(&self, pix: u32, whole: u64) -> bool {
        const SCAN: usize = 8;
        let pi = &self.preds[pix as usize];
        let any_usable = |b: BucketId| {
            let items = &self.buckets[b.0 as usize];
            items.len() > SCAN || items.iter().any(|it| self.usable(it.entry))
        };
        pi.nonground.iter().any(|&b| any_usable(b))
            || pi
                .ground
                .get(&whole)
                .is_some_and(|g| g.pair.iter().any(|&b| any_usable(b)))
    }

    /// What a call of the predicate at index `pix` whose arguments are all
    /// ground, with whole-atom key `whole`, would find now, as
    /// [`Context::may_match_ground`] tells, but exact about items that are
    /// ground facts (`fact`): [`Found::Facts`] when every usable item it
    /// can meet is one.  Buckets of more than a few items count as
    /// [`Found::Maybe`] without being scanned.
    #[inline]
    pub fn ground_candidates(&self, pix: u32, whole: u64, fact: impl Fn(Item) -> bool) -> Found {
        let mut found = Found::Nothing;
        let all = self.each_usable_by_key(pix, whole, |it| {
            found = Found::Facts;
            fact(it)
        });
        if all {
            found
        } else {
            Found::Maybe
        }
    }

    /// The one usable item that a call of the predicate at index `pix`
    /// whose arguments are all ground, with whole-atom key `whole`, can
    /// take, when there is exactly one and `fact` accepts it (a ground
    /// fact); `None` otherwise, or when a bucket is too long to look
    /// through.  As for [`Context::may_match_ground`], no other item can
    /// unify with the call; this one does if its term is the call's.
    pub fn single_fact(&self, pix: u32, whole: u64, fact: impl Fn(Item) -> bool) -> Option<Item> {
        let mut one = None;
        let all = self.each_usable_by_key(pix, whole, |it| {
            let first = one.is_none();
            one = Some(it);
            first && fact(it)
        });
        one.filter(|_| all)
    }

    /// [`Context::single_fact`] for a call of `pred` whose whole-atom key
    /// `whole` got its buckets when `known` was filled in (here, when it
    /// does not hold and the key has buckets): a take of a move, made
    /// again and again, costs no lookup of its key.
    #[inline]
    pub fn single_fact_known(
        &self,
        pred: (SymId, u32),
        whole: u64,
        known: &mut KeyBuckets,
        fact: impl Fn(Item) -> bool,
    ) -> Option<Item> {
        if known.epoch != self.index_epoch || known.epoch == 0 {
            let pix = self.pred_ix(pred)?;
            let pair = self.preds[pix].ground.get(&whole)?.pair;
            *known = KeyBuckets {
                epoch: self.index_epoch,
                pix: pix as u32,
                pair,
            };
        }
        debug_assert_eq!(self.pred_ix(pred), Some(known.pix as usize));
        debug_assert_eq!(
            self.preds[known.pix as usize]
                .ground
                .get(&whole)
                .map(|g| g.pair),
            Some(known.pair),
            "the kept buckets of a key"
        );
        let mut one = None;
        let all = self.each_usable_in(known.pix, &known.pair, |it| {
            let first = one.is_none();
            one = Some(it);
            first && fact(it)
        });
        one.filter(|_| all)
    }

    /// Give `visit` the usable items that a call of the predicate at index
    /// `pix` whose arguments are all ground, with whole-atom key `whole`,
    /// can meet, until it says `false`; whether every such item was
    /// visited and accepted.  `false` too when the call may meet a usable
    /// item without a whole-atom key, or a bucket is too long to look
    /// through (a few items with no key, more facts under one).
    #[inline(always)]
    fn each_usable_by_key(&self, pix: u32, whole: u64, visit: impl FnMut(Item) -> bool) -> bool {
        let pi = &self.preds[pix as usize];
        match pi.ground.get(&whole) {
            Some(g) => self.each_usable_in(pix, &g.pair, visit),
            None => self.each_usable_in(pix, &[], visit),
        }
    }

    /// [`Context::each_usable_by_key`] with the key's buckets `pair` (none
    /// when the key has none).
    #[inline(always)]
    fn each_usable_in(
        &self,
        pix: u32,
        pair: &[BucketId],
        mut visit: impl FnMut(Item) -> bool,
    ) -> bool {
        const SCAN: usize = 8;
        const FACTS: usize = 32;
        let pi = &self.preds[pix as usize];
        for &b in &pi.nonground {
            let items = &self.buckets[b.0 as usize];
            if items.len() > SCAN || items.iter().any(|it| self.usable(it.entry)) {
                return false;
            }
        }
        for &b in pair {
            let items = &self.buckets[b.0 as usize];
            if items.len() > FACTS {
                return false;
            }
            for &it in items {
                if self.usable(it.entry) && !visit(it) {
                    return false;
                }
            }
        }
        true
    }

    /// The candidate streams for a call with predicate `pred` and keys
    /// `keys`, chosen by the keys alone (no first-argument filter).
    pub fn cursor(&self, pred: (SymId, u32), keys: &Keys) -> Cursor {
        match self.pred_ix(pred) {
            Some(ix) => self.cursor_in(&self.preds[ix], pred, keys, || 0),
            None => Cursor::default(),
        }
    }

    #[inline(always)]
    fn cursor_in(
        &self,
        pi: &PredIndex,
        pred: (SymId, u32),
        keys: &Keys,
        first: impl FnOnce() -> u32,
    ) -> Cursor {
        let mut cur = Cursor::default();
        let len = |b: BucketId| self.buckets[b.0 as usize].len() as u32;
        let mut best: [Option<BucketId>; 4] = [Some(pi.all[0]), Some(pi.all[1]), None, None];
        let mut best_size = len(pi.all[0]) + len(pi.all[1]);
        let mut narrowed = false;
        let mut done = false;
        if let Some(h) = keys.whole {
            let g = pi.ground.get(&h).map(|g| g.pair);
            let size = g.map_or(0, |g| len(g[0]) + len(g[1]))
                + len(pi.nonground[0])
                + len(pi.nonground[1]);
            if size <= best_size {
                best_size = size;
                narrowed = true;
                best = [
                    g.map(|g| g[0]),
                    g.map(|g| g[1]),
                    Some(pi.nonground[0]),
                    Some(pi.nonground[1]),
                ];
                // Few enough: looking at single arguments cannot pay off.
                done = size <= 4;
            }
        }
        for (i, key) in keys.args.iter().enumerate().take(if done {
            0
        } else {
            (pred.1 as usize).min(MAX_ARGS)
        }) {
            if let Some(h) = key {
                let g = pi.arg_ground.get(&(i as u32, *h));
                let ng = pi.arg_nonground[i];
                let size = g.map_or(0, |g| len(g[0]) + len(g[1])) + len(ng[0]) + len(ng[1]);
                if size < best_size {
                    best_size = size;
                    narrowed = true;
                    best = [g.map(|g| g[0]), g.map(|g| g[1]), Some(ng[0]), Some(ng[1])];
                }
            }
        }
        for b in best.into_iter().flatten() {
            let n = len(b);
            if n > 0 {
                cur.streams[cur.n as usize] = (b.0, n);
                cur.n += 1;
            }
        }
        if !narrowed {
            cur.sig = first();
        }
        cur.slow = cur.sig != 0 || (cur.n == 1 && cur.streams[0].1 > RUN);
        cur
    }

    /// The next candidate of a cursor, newest first; `None` when exhausted.
    #[inline(always)]
    pub fn next(&self, cur: &mut Cursor) -> Option<Item> {
        if cur.n == 1 {
            // One stream (the common case): no merging.
            let (b, pos) = cur.streams[0];
            if pos == 0 {
                return None;
            }
            cur.streams[0].1 = pos - 1;
            return self.buckets[b as usize].get(pos as usize - 1).copied();
        }
        let mut best: Option<(usize, Item)> = None;
        for s in 0..cur.n as usize {
            let (b, pos) = cur.streams[s];
            if pos == 0 {
                continue;
            }
            let item = self.buckets[b as usize][pos as usize - 1];
            if best.is_none_or(|(_, bi)| {
                item.entry > bi.entry || (item.entry == bi.entry && item.alt < bi.alt)
            }) {
                best = Some((s, item));
            }
        }
        let (s, item) = best?;
        cur.streams[s].1 -= 1;
        Some(item)
    }

    /// Whether a cursor has items left (usable or not; a masked cursor
    /// counts only candidates).
    #[inline]
    pub fn has_more(cur: &Cursor) -> bool {
        if cur.masked {
            return cur.mask != 0;
        }
        cur.streams[..cur.n as usize].iter().any(|s| s.1 > 0)
    }

    /// The next candidate whose entry is usable and whose head's first
    /// argument does not clash with the call's.  The cursor is then moved
    /// past the clashing items that follow, so that [`Context::has_more`]
    /// says false when no other clause can match (no choice point is left
    /// for a call that first-argument indexing shows to be determinate).
    ///
    /// A one-bucket cursor with more than [`RUN`] items left passes long
    /// runs of consumed items in one step (see [`super::runs`]).
    #[inline(always)]
    pub fn next_usable(&mut self, cur: &mut Cursor) -> Option<Item> {
        if cur.masked {
            if cur.mask == 0 {
                return None;
            }
            let i = 63 - cur.mask.leading_zeros();
            cur.mask &= !(1u64 << i);
            return Some(self.buckets[cur.streams[0].0 as usize][i as usize]);
        }
        if cur.slow {
            return if cur.n == 1 && cur.streams[0].1 > RUN {
                self.next_usable_long(cur)
            } else {
                self.next_usable_matching(cur)
            };
        }
        while let Some(item) = self.next(cur) {
            if self.usable(item.entry) {
                return Some(item);
            }
        }
        None
    }

    /// [`Context::next_usable`] for a call with a first-argument signature.
    #[inline(never)]
    fn next_usable_matching(&self, cur: &mut Cursor) -> Option<Item> {
        while let Some(item) = self.next(cur) {
            if !cur.clashes(&self.entries[item.entry as usize]) && self.usable(item.entry) {
                self.pass_clashing(cur);
                return Some(item);
            }
        }
        None
    }

    /// Move `cur` past the items that clash with the call and follow.
    #[inline(always)]
    fn pass_clashing(&self, cur: &mut Cursor) {
        loop {
            let mut ahead = *cur;
            match self.next(&mut ahead) {
                Some(next) if cur.clashes(&self.entries[next.entry as usize]) => *cur = ahead,
                _ => break,
            }
        }
    }

    /// [`Context::next_usable`] for a long one-bucket cursor: at the
    /// positions where run records may be, runs of consumed items are passed
    /// in one step (see [`super::runs`]).
    #[cold]
    #[inline(never)]
    fn next_usable_long(&mut self, cur: &mut Cursor) -> Option<Item> {
        while let Some(item) = self.next(cur) {
            if !cur.clashes(&self.entries[item.entry as usize]) && self.usable(item.entry) {
                if cur.sig != 0 {
                    self.pass_clashing(cur);
                }
                return Some(item);
            }
            if aligned(cur.streams[0].1) {
                self.pass_run(cur);
            }
        }
        None
    }

    /// The size of the index now, to forget later what a query added to it.
    pub fn index_mark(&self) -> IndexMark {
        IndexMark {
            buckets: self.buckets.len() as u32,
            preds: self.preds.len() as u32,
        }
    }

    /// Forget the buckets and predicate indexes made since `mark`.  Only
    /// when no entry made since then is left (the outermost query has
    /// ended and its barrier restored the context): nothing refers to them
    /// any more, and without this a long session whose queries assume ever
    /// new ground resources would keep a bucket pair for every key.
    pub fn forget_index_since(&mut self, mark: IndexMark) {
        if self.buckets.len() as u32 == mark.buckets && self.preds.len() as u32 == mark.preds {
            return;
        }
        // A key's buckets are made as a pair, so the first tells the age.
        for pi in &mut self.preds[..mark.preds as usize] {
            pi.ground.retain(|_, g| g.pair[0].0 < mark.buckets);
            pi.arg_ground.retain(|_, b| b[0].0 < mark.buckets);
        }
        if self.preds.len() as u32 > mark.preds {
            for row in &mut self.small_preds {
                for ix in row.iter_mut() {
                    if *ix != u32::MAX && *ix >= mark.preds {
                        *ix = u32::MAX;
                    }
                }
            }
            self.large_preds.retain(|_, ix| *ix < mark.preds);
            self.preds.truncate(mark.preds as usize);
        }
        self.buckets.truncate(mark.buckets as usize);
        while self
            .key_log
            .last()
            .is_some_and(|k| k.bucket >= mark.buckets)
        {
            self.key_log.pop();
        }
        // Bucket ids are given again from here: their records are void.
        self.runs.clear();
        self.index_epoch = new_index_epoch();
    }

    /// Forget the buckets made since there were `mark` of them, and their
    /// keys, when they are all empty (backtracking removed their entries,
    /// or they were dropped: see [`super::closed`]).  The buckets of a
    /// predicate first indexed since then stay, and so do those made before
    /// the newest such predicate's, with their keys.  Their run records need
    /// not go: a record names an entry of its bucket by the stamp of its
    /// change to `GONE`, and those entries are gone.
    #[cold]
    #[inline(never)]
    pub(super) fn forget_keys_since(&mut self, mark: u32) {
        // A predicate first indexed since `mark` owns the buckets made with
        // it (`ensure_pred`): only those made after the newest such one go.
        let mark = match self.preds.last() {
            Some(p) if p.all[0].0 >= mark => mark.max(p.own_end()),
            _ => mark,
        };
        if self.buckets.len() as u32 <= mark {
            return;
        }
        while let Some(k) = self.key_log.last().copied() {
            if k.bucket < mark {
                break;
            }
            let pi = &mut self.preds[k.pred as usize];
            if k.arg == WHOLE {
                pi.ground.remove(&k.hash);
            } else {
                pi.arg_ground.remove(&(k.arg, k.hash));
            }
            self.key_log.pop();
        }
        debug_assert!(self.buckets[mark as usize..].iter().all(|b| b.is_empty()));
        self.index_epoch = new_index_epoch();
        self.spare_buckets
            .extend(self.buckets.drain(mark as usize..));
    }

    /// The number of index buckets (for tests and statistics).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// Truncate the arenas (backtracking), after the trail was undone.
    pub fn truncate(&mut self, lens: &ContextLens) {
        // The sums come back whole; the ids of the entries dropped that
        // are usable now (their consumption was undone) go one by one.
        let (now, then) = (&self.memo, &lens.memo);
        // (Sums stopped for the query stay off.)
        let then_on = then.on && !self.memo_stopped;
        let same = now.on == then_on && now.base == then.base;
        if same && now.on {
            for e in lens.entries..self.entries.len() as u32 {
                if let Some((linear, res)) = self.usable_id(e) {
                    self.memo_ids.change(linear, res, false);
                }
            }
        }
        // (With the sums come their version and that of the set of
        // entries without an id: the trail has undone every change since.)
        self.memo = lens.memo;
        self.memo.on = then_on;
        if !same || !self.memo.on {
            self.new_version();
        }
        self.entries.truncate(lens.entries as usize);
        self.stamps.truncate(lens.entries as usize);
        self.heap_alts.truncate(lens.heap_alts as usize);
        self.bodies.truncate(lens.bodies as usize);
        self.envs.truncate(lens.envs as usize);
        self.memberships.truncate(lens.memberships as usize);
        // Buckets made since are empty now (their pushes were undone).
        // While the index is small their keys stay, for the search to meet
        // again along other paths (a key made afresh costs a map insertion
        // per key and a removal here); past [`KEPT_BUCKETS`], they go.
        if self.buckets.len() > KEPT_BUCKETS && self.buckets.len() as u32 > lens.buckets {
            self.forget_keys_since(lens.buckets);
        }
        if !same {
            self.rebuild_memo_ids();
        }
    }

    /// Bytes the context's arenas and index hold now (an estimate from
    /// lengths, in O(1): every bucket item has a membership record, so the
    /// items are counted through those).
    pub fn memory_used(&self) -> usize {
        use std::mem::size_of;
        self.entries.len() * size_of::<Entry>()
            + self.heap_alts.len() * size_of::<HeapAlt>()
            + self.bodies.len() * size_of::<Body>()
            + self.envs.len() * size_of::<Cell>()
            + self.memberships.len() * (size_of::<(BucketId, Item)>() + size_of::<Item>())
            + self.buckets.len() * size_of::<Vec<Item>>()
            + self.stamps.len() * size_of::<u64>()
            + self.runs.len() * size_of::<(u64, Run)>()
            + self.key_log.len() * size_of::<KeyPair>()
    }

    /// The current arena lengths.
    pub fn lens(&self) -> ContextLens {
        ContextLens {
            entries: self.entries.len() as u32,
            heap_alts: self.heap_alts.len() as u32,
            bodies: self.bodies.len() as u32,
            envs: self.envs.len() as u32,
            memberships: self.memberships.len() as u32,
            buckets: self.buckets.len() as u32,
            memo: self.memo,
        }
    }
}

/// Arena lengths saved at a choice point.
#[derive(Copy, Clone, Debug, Default)]
pub struct ContextLens {
    entries: u32,
    heap_alts: u32,
    bodies: u32,
    envs: u32,
    memberships: u32,
    buckets: u32,
    memo: MemoSums,
}

impl ContextLens {
    /// The number of entries.
    pub fn entries(&self) -> u32 {
        self.entries
    }

    /// The number of index buckets.
    pub fn buckets(&self) -> u32 {
        self.buckets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_argument_buckets_serve_only_the_keys_they_were_kept_for() {
        let mut g = GroundKey::new([BucketId(0), BucketId(1)]);
        // Nothing kept yet: not even an atom with the same arity is served.
        assert!(g.args_for(&[Some(7), Some(8)]).is_none());
        g.nargs = 2;
        g.args[0] = (7, [BucketId(2), BucketId(3)]);
        g.args[1] = (8, [BucketId(4), BucketId(5)]);
        let kept = g.args_for(&[Some(7), Some(8)]).expect("the same keys");
        assert_eq!(kept[1].1, [BucketId(4), BucketId(5)]);
        // Another atom under the same whole-atom hash: its own keys decide.
        assert!(g.args_for(&[Some(7), Some(9)]).is_none());
        assert!(g.args_for(&[Some(7), None]).is_none());
        assert!(g.args_for(&[Some(7)]).is_none());
    }

    /// An item joins several buckets under one trail record, and undoing
    /// that record takes it out of every one of them, leaving the items
    /// indexed before it where they were.
    #[test]
    fn undoing_an_index_record_pops_the_item_from_each_of_its_buckets() {
        let mut ctx = Context::default();
        let mut trail = Trail::default();
        let pred = (SymId(7), 2);
        let fact = |ctx: &mut Context, trail: &mut Trail, whole, a, b| {
            let source = Source::Heap {
                clause: Cell::Atom(SymId(7)),
                alts: 0,
                n: 1,
            };
            let e = ctx.push_entry(true, source, u32::MAX);
            let keys = Keys {
                whole: Some(whole),
                args: [Some(a), Some(b), None],
                first: 1,
            };
            ctx.index(trail, e, 0, pred, &keys);
        };
        fact(&mut ctx, &mut trail, 100, 1, 2);
        let before = ctx.buckets.clone();
        let mark = trail.mark();
        // The same first argument and a new second one: the new item joins
        // buckets the first item is in and buckets made for it.
        fact(&mut ctx, &mut trail, 200, 1, 3);
        assert_eq!(trail.entries.len(), mark + 1, "one record for the item");
        let joined = ctx
            .buckets
            .iter()
            .filter(|b| b.iter().any(|it| it.entry == 1))
            .count();
        assert_eq!(joined, 4, "all, whole atom, and each of two arguments");
        while trail.entries.len() > mark {
            let u = trail.entries.pop().unwrap();
            ctx.undo(u);
        }
        assert_eq!(&ctx.buckets[..before.len()], &before[..]);
        assert!(ctx.buckets[before.len()..].iter().all(|b| b.is_empty()));
    }
}
