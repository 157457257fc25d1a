//! Failure memoization keyed on the linear context (`MEMO p`).
//!
//! In a linear logic program the state of a search is the linear context,
//! so depth-first search meets the same call in the same context again and
//! again along different orders of moves.  For a predicate declared `MEMO`,
//! the machine remembers "this call, in this context, has no proof" and
//! fails such a call at once the next time.
//!
//! The key of a call is:
//! - the call up to variable renaming (its cells, variables numbered by first
//!   occurrence);
//! - the multiset of usable linear resources;
//! - the unbounded clauses assumed since the table was made (the program
//!   loaded before is fixed for the table's life: loading clears the table).
//!   That fixed part, the *base*, is a length of the context's entries; the
//!   table remembers the base its keys were made under and is emptied when
//!   the context's base differs (a new program, memoization turned on, or
//!   the end of a nested top level whose queries ran under another base:
//!   see `Machine::sync_memo`).
//!
//! The lazy-erase state the calculus carries *into* a goal does not decide
//! whether the goal has a proof in this machine: erase is accounted at the
//! end of each scope, and every scope a goal opens is closed inside its own
//! proof.  So the key does not include it.
//!
//! A call is memoized only when its key is exact and cheap: no restriction
//! is active (not inside `{G}` or the right conjunct of `&`), every usable
//! linear resource and every assumed unbounded clause is ground, and the call
//! holds no `forall` constant.  Otherwise it simply runs.
//!
//! Cheap keys: each linear entry carries a hash and an interned id of its
//! (ground) term; the context keeps the wrapping sum of the hashes of usable
//! linear entries up to date as resources are consumed, assumed and restored
//! (the trail undoes it), so a memo check costs O(size of the call), plus
//! O(context) to compare exactly when the hash matches.  The exact
//! comparison needs the usable resources' ids: the context keeps them as
//! bitmaps beside the sums ([`UsableIds`]), so the usual key (each term
//! held once) is copied rather than gathered.  A ground fact
//! assumed again is named without tokenizing it: its whole-atom index key
//! finds the id it had, which one walk checks against that id's tokens
//! (`Machine::identify_fact`).  The facts a move assumes (the
//! assumption after `Gk , ...` in a clause whose conjunct `Gk` has a
//! move plan, as the triangle's `jump` clauses) are named without even
//! that walk, and indexed without computing their keys, when the term of
//! the candidate `Gk` took was met before in the same move: that term
//! decides the facts, so their ids are remembered by the move and the
//! term's id (`MemoTable::move_facts`, `Machine::move_assumed`), and
//! their keys by their ids.
//!
//! A memoized call made right after an assumption of ground facts (a move
//! of a puzzle: `(b X Y empty , ...) -o jump N`) is looked up before the
//! facts are assumed, with the key the assumption would make
//! (`Machine::memo_fails_with`): the facts' ids are found by their index
//! keys and checked against their terms on a hash match, so a known
//! position costs no assumption, indexing or undoing.  The figures are
//! those of the call made: one inference and one hit.
//!
//! Detecting failure: a memoized call pushes a `MemoFail` choice point under
//! its own alternatives and a `MemoExit` frame after its body.  Reaching the
//! frame marks the call as having a proof.  When backtracking reaches the
//! choice point, every alternative of the call has been explored; if none
//! reached the frame, the call has no proof in that context and its key is
//! recorded.  A guard that commits past the call removes the choice point, so
//! nothing is recorded then.  Successes are never recorded: answers and their
//! order are exactly those without `MEMO`.
//!
//! Bound: the table holds its keys in two generations; when the newer one
//! is full (`limit / 2` keys, or three eighths of `max_bytes`) the older one
//! is dropped, so memory stays bounded and an evicted key only costs a
//! search again.  The interning of resource terms is bounded too: when it
//! holds `limit` terms or a quarter of `max_bytes` (and at least twice the
//! context's entries) it starts afresh, dropping every key and renumbering
//! the entries' terms.  Bytes are estimated from lengths (see
//! `Generation::bytes_used`), so the bound costs nothing to keep.

use std::collections::HashMap;
use std::sync::Arc;

use super::tokens::ground_is;
pub use super::tokens::{hash_tokens, tokens};
pub(crate) use super::tokens::{written_is, written_tokens};
use crate::engine::context::{KeyBuckets, Targets, ALT_DIGESTS};
use crate::logic::keys::Keys;
use crate::logic::move_plan::MAX_TAKES;
use crate::term::cell::{Digest, FastHash, Hasher64};
use crate::term::{Cell, Heap, SymId};

/// No resource id (the term is not ground).
pub const NO_RES: u32 = u32::MAX;

/// Statistics of the memo table.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Keys in the table now.
    pub size: usize,
    /// Calls failed at once from the table.
    pub hits: u64,
    /// Memoizable calls not in the table.
    pub misses: u64,
    /// Keys recorded.
    pub recorded: u64,
    /// Keys dropped to respect the limit.
    pub evicted: u64,
}

/// One generation of failed keys, stored compactly.
///
/// Invariant: `bytes` holds each key as `[next: u32 LE][goal][len][ids]`,
/// where `goal` is the call's id in this generation's `goals` (the call's
/// canonical tokens are stored once there, however many contexts it failed
/// in), `len` the length of `ids`, both as [`put_varint`]s, and `ids` the
/// key's resource ids as [`encode_ids`] writes them.  `next` chains the
/// keys of one hash: `heads` maps a key hash to the offset of the newest
/// key with it, and `next` is `END` after the oldest.  Dropping a
/// generation drops its keys and the calls they name together.
#[derive(Clone, Debug, Default)]
struct Generation {
    bytes: Vec<u8>,
    heads: HashMap<u64, u32, FastHash>,
    goals: HashMap<Box<[u64]>, u32, FastHash>,
    /// Bytes the calls in `goals` hold (estimated as in [`Self::bytes_used`]).
    goal_bytes: usize,
    len: usize,
}

/// Estimated bytes of one entry of a hash map with small keys and values,
/// the table's spare room included (hashbrown stores 8 entries per 7 used
/// at most, and doubles when full).
const MAP_ENTRY_BYTES: usize = 24;

/// The end of a hash chain in [`Generation::bytes`].
const END: u32 = u32::MAX;

/// Append `x` in LEB128: seven bits per byte, low bits first, the high bit
/// set on every byte but the last.
fn put_varint(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The bytes [`put_varint`] writes for `x`, and how many there are.
fn varint(mut x: u32) -> ([u8; 5], usize) {
    let mut bytes = [0u8; 5];
    let mut n = 0;
    while x >= 0x80 {
        bytes[n] = (x as u8) | 0x80;
        x >>= 7;
        n += 1;
    }
    bytes[n] = x as u8;
    (bytes, n + 1)
}

/// Read a [`put_varint`] at `*at`, moving `*at` past it.
fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut x = 0u32;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        x |= ((b & 0x7f) as u32) << shift;
        if b < 0x80 {
            return x;
        }
        shift += 7;
    }
}

/// The resource part of a key as bytes: the linear ids, then the
/// unbounded ids, each multiset as [`encode_part`] writes it.  The parts
/// delimit themselves, so the encoding is one-to-one and keys compare as
/// bytes.  The ids are reordered.
fn encode_ids(out: &mut Vec<u8>, linear: &mut [u32], unbounded: &mut [u32]) {
    out.clear();
    encode_part(out, linear);
    encode_part(out, unbounded);
}

/// A multiset of ids as bytes, in one of two forms chosen by the multiset
/// alone (so equal multisets get equal bytes):
/// - a bitmap, when the ids are distinct and the bitmap (bit `i` of byte
///   `i / 8` for id `i`, up to the largest id) takes no more bytes than
///   there are ids: a [`put_varint`] of `2 * len + 1`, then the `len` bytes;
/// - otherwise the ids sorted, as differences from the previous one (the
///   first from 0): a `put_varint` of `2 * n`, then `n` `put_varint`s.
///
/// Resource terms are numbered densely, so the bitmap is the usual form: a
/// key for the 33 holes of the English board (66 terms, a peg and an empty
/// hole for each) takes 10 bytes here, 34 as a sorted list, 132 as `u32`s,
/// and needs no sorting.
fn encode_part(out: &mut Vec<u8>, ids: &mut [u32]) {
    let n = ids.len();
    let max = ids.iter().copied().max().unwrap_or(0) as usize;
    let len = max / 8 + 1;
    if n > 0 && len <= n {
        put_varint(out, (2 * len + 1) as u32);
        let start = out.len();
        out.resize(start + len, 0);
        let map = &mut out[start..];
        let mut distinct = true;
        for &id in ids.iter() {
            let (byte, bit) = (id as usize / 8, 1u8 << (id % 8));
            distinct &= map[byte] & bit == 0;
            map[byte] |= bit;
        }
        if distinct {
            return;
        }
        out.truncate(start - varint_len((2 * len + 1) as u32));
    }
    put_varint(out, (2 * n) as u32);
    ids.sort_unstable();
    let mut prev = 0;
    for &id in ids.iter() {
        put_varint(out, id - prev);
        prev = id;
    }
}

/// The ids of the usable resources, kept up to date with the context's
/// sums ([`MemoSums`](super::context::MemoSums)) so that a key's resource
/// part is written without visiting the context: in a search over
/// positions, where each resource term is held once, each part is the
/// bitmap `encode_part` makes, already made.
///
/// Invariant (while memoization is on and `valid`): `linear` holds the ids
/// of the usable linear entries, `unbounded` those of the usable unbounded
/// entries counted in the sums (from the memo base on), of ground terms.
#[derive(Clone, Debug, Default)]
pub struct UsableIds {
    linear: IdSet,
    unbounded: IdSet,
    /// Whether the invariant holds (made so by [`UsableIds::clear`], as
    /// [`Context::rebuild_memo_ids`](super::context::Context::rebuild_memo_ids)
    /// does).
    valid: bool,
}

/// A multiset of ids: bit `i` of `bits` is set when id `i` is held;
/// `more` holds, for each id held twice or more, its multiplicity less
/// one (rare: two usable entries with the same term); `len` is the sum of
/// the multiplicities.
#[derive(Clone, Debug, Default)]
struct IdSet {
    bits: Vec<u8>,
    more: HashMap<u32, u32, FastHash>,
    len: u32,
}

impl UsableIds {
    /// Nothing usable (and valid).
    pub fn clear(&mut self) {
        *self = UsableIds {
            valid: true,
            ..UsableIds::default()
        };
    }

    /// Into `out`, the resource part of a key for the usable ids (as
    /// [`encode_ids`] writes it) when it has the bitmap form.
    pub(crate) fn key(&self, out: &mut Vec<u8>) -> bool {
        self.encode_with(out, &[], true)
    }

    /// A usable entry with term `id`, linear or not, came (`add`) or went.
    #[inline(always)]
    pub fn change(&mut self, linear: bool, id: u32, add: bool) {
        if linear {
            self.linear.change(id, add)
        } else {
            self.unbounded.change(id, add)
        }
    }

    /// Into `out`, what [`encode_ids`] writes for the usable ids with
    /// `extra` added (linear ones when `linear`), when each part is empty
    /// or has the bitmap form of distinct ids; `false` (with `out`
    /// unspecified) when not, or when finding a part's largest id would
    /// take longer than visiting the context.
    #[inline]
    fn encode_with(&self, out: &mut Vec<u8>, extra: &[u32], linear: bool) -> bool {
        let (lin, unb): (&[u32], &[u32]) = if linear { (extra, &[]) } else { (&[], extra) };
        out.clear();
        self.valid && self.linear.encode_with(out, lin) && self.unbounded.encode_with(out, unb)
    }

    /// [`UsableIds::encode_with`] with the linear ids `removed` (each held
    /// once) taken out as well: the key's resource part after a move that
    /// consumes them and assumes `extra`.
    #[inline]
    pub(crate) fn encode_moved(
        &self,
        out: &mut Vec<u8>,
        removed: &[u32],
        extra: &[u32],
        linear: bool,
    ) -> bool {
        let (lin, unb): (&[u32], &[u32]) = if linear { (extra, &[]) } else { (&[], extra) };
        out.clear();
        self.valid
            && self.linear.encode_change(out, removed, lin)
            && self.unbounded.encode_change(out, &[], unb)
    }
}

impl IdSet {
    #[inline(always)]
    fn change(&mut self, id: u32, add: bool) {
        let (byte, bit) = (id as usize / 8, 1u8 << (id % 8));
        if byte >= self.bits.len() {
            self.grow(byte);
        }
        if add {
            let b = &mut self.bits[byte];
            if *b & bit == 0 {
                *b |= bit;
            } else {
                *self.more.entry(id).or_insert(0) += 1;
            }
            self.len += 1;
        } else {
            if self.more.is_empty() || !self.less(id) {
                self.bits[byte] &= !bit;
            }
            self.len -= 1;
        }
    }

    /// One copy fewer of `id` in `more`; false if it had none there.
    #[cold]
    fn less(&mut self, id: u32) -> bool {
        let Some(c) = self.more.get_mut(&id) else {
            return false;
        };
        *c -= 1;
        if *c == 0 {
            self.more.remove(&id);
        }
        true
    }

    /// Room for ids up to those of byte `byte`.
    #[cold]
    fn grow(&mut self, byte: usize) {
        self.bits.resize(byte + 1, 0);
    }

    /// Append [`encode_part`] of these ids and `extra` to `out` when it is
    /// empty or the bitmap form (see [`UsableIds::encode_with`]).
    #[inline]
    fn encode_with(&self, out: &mut Vec<u8>, extra: &[u32]) -> bool {
        let n = self.len as usize + extra.len();
        if n == 0 {
            put_varint(out, 0);
            return true;
        }
        // Distinct ids only; and the bitmap has at most `n` bytes (past a
        // few times that, the bits are not looked through).
        if !self.more.is_empty() || self.bits.len() > 2 * n + 8 {
            return false;
        }
        let top = self.bits.iter().rposition(|&b| b != 0);
        let mut max = top.map_or(0, |t| t * 8 + 7 - self.bits[t].leading_zeros() as usize);
        for &id in extra {
            max = max.max(id as usize);
        }
        let len = max / 8 + 1;
        if len > n {
            return false;
        }
        put_varint(out, (2 * len + 1) as u32);
        let start = out.len();
        out.extend_from_slice(&self.bits[..self.bits.len().min(len)]);
        out.resize(start + len, 0);
        for &id in extra {
            let (byte, bit) = (start + id as usize / 8, 1u8 << (id % 8));
            if out[byte] & bit != 0 {
                return false;
            }
            out[byte] |= bit;
        }
        true
    }

    /// [`IdSet::encode_with`] with the ids `removed` (each held once)
    /// taken out as well.  `false` too when an id removed is not held, or
    /// when the bitmap before the removal would be too long.
    fn encode_change(&self, out: &mut Vec<u8>, removed: &[u32], extra: &[u32]) -> bool {
        let Some(n) = (self.len as usize + extra.len()).checked_sub(removed.len()) else {
            return false;
        };
        let header = out.len();
        if !self.encode_with(out, extra) {
            return false;
        }
        if removed.is_empty() {
            return true;
        }
        let mut at = header;
        let len = get_varint(out, &mut at) as usize / 2;
        let start = at;
        for &id in removed {
            let (byte, bit) = (start + id as usize / 8, 1u8 << (id % 8));
            if byte >= out.len() || out[byte] & bit == 0 {
                return false;
            }
            out[byte] &= !bit;
        }
        // The bitmap up to its last id, under the header for that length.
        let short = match out[start..].iter().rposition(|&b| b != 0) {
            None => {
                out.truncate(header);
                put_varint(out, 0);
                return true;
            }
            Some(top) => top + 1,
        };
        if short > n {
            return false;
        }
        if short < len {
            // The header is no longer than before: the bitmap moves down.
            let (head, k) = varint((2 * short + 1) as u32);
            out.copy_within(start..start + short, header + k);
            out[header..header + k].copy_from_slice(&head[..k]);
            out.truncate(header + k + short);
        }
        true
    }
}

/// The number of bytes [`put_varint`] writes for `x`.
fn varint_len(x: u32) -> usize {
    (32 - (x | 1).leading_zeros() as usize).div_ceil(7)
}

impl Generation {
    /// Whether this generation holds the key of call `goal` (its tokens)
    /// with resource part `ids` (see [`encode_ids`]) under `hash`.
    fn contains(&self, hash: u64, goal: &[u64], ids: &[u8]) -> bool {
        let Some(&first) = self.heads.get(&hash) else {
            return false;
        };
        let Some(&goal) = self.goals.get(goal) else {
            return false;
        };
        let mut at = first;
        while at != END {
            let k = at as usize;
            let mut p = k + 4;
            if get_varint(&self.bytes, &mut p) == goal {
                let len = get_varint(&self.bytes, &mut p) as usize;
                if self.bytes[p..p + len] == *ids {
                    return true;
                }
            }
            at = u32::from_le_bytes(self.bytes[k..k + 4].try_into().expect("4 bytes"));
        }
        false
    }

    /// The bytes this generation holds, estimated from lengths: its keys,
    /// its chain heads and its calls.
    fn bytes_used(&self) -> usize {
        self.bytes.len() + self.heads.len() * MAP_ENTRY_BYTES + self.goal_bytes
    }

    /// Whether one more key of `ids.len()` bytes fits the `u32` offsets.
    fn has_room(&self, ids: &[u8]) -> bool {
        self.bytes.len() + ids.len() + 16 < END as usize
    }

    /// Add a key (not already held; `has_room` said it fits).
    fn push(&mut self, hash: u64, goal: &[u64], ids: &[u8]) {
        // (Looked up first: a call already held costs no allocation.)
        let goal = match self.goals.get(goal) {
            Some(&g) => g,
            None => {
                let g = self.goals.len() as u32;
                self.goal_bytes += goal.len() * 8 + MAP_ENTRY_BYTES;
                self.goals.insert(goal.into(), g);
                g
            }
        };
        let at = self.bytes.len() as u32;
        let next = self.heads.insert(hash, at).unwrap_or(END);
        self.bytes.extend_from_slice(&next.to_le_bytes());
        put_varint(&mut self.bytes, goal);
        put_varint(&mut self.bytes, ids.len() as u32);
        self.bytes.extend_from_slice(ids);
        self.len += 1;
    }
}

/// The most facts a move may assume (or consume) for its memo key to be
/// written before it is made.
pub const MAX_MOVE_FACTS: usize = 8;

/// The ids of the facts a move assumes (the first ones of the array) and
/// the sum of their hashes.
pub(crate) type MoveFacts = ([u32; MAX_MOVE_FACTS], u64);

/// What the take of a move finds after a given candidate (see
/// [`MemoTable::take_fact`]): the id of the fact's term, and the
/// whole-atom index key of that term, the call's.
pub(crate) type TakeFact = (u32, u64);

/// What is kept of a take of a move after a given candidate: what it
/// finds, and the buckets of the fact's whole-atom key when last looked up.
#[derive(Copy, Clone, Debug)]
pub(crate) struct KnownTake {
    pub(crate) fact: TakeFact,
    pub(crate) buckets: KeyBuckets,
}

/// A fact's name and number of arguments, its head's index keys, and the
/// digests of its first arguments, as [`head_keys_and_digests`] gives them.
///
/// [`head_keys_and_digests`]: crate::logic::keys::head_keys_and_digests
pub(crate) type FactKeys = ((SymId, u32), Keys, [Digest; ALT_DIGESTS]);

/// What is kept of the fact of an interned term that moves assume: its
/// keys, and the buckets it joined when last indexed.
#[derive(Copy, Clone, Debug)]
pub(crate) struct KnownFact {
    pub(crate) keys: FactKeys,
    pub(crate) targets: Targets,
}

/// What is known of a move after a candidate of a given term (see
/// [`MemoTable::moves`]): the facts it assumes, and what each of its takes
/// finds.  The record names its move and term, so that a place kept for
/// it is checked by reading it.
#[derive(Copy, Clone, Debug)]
struct MoveRecord {
    key: (u32, u32, u32),
    facts: Option<MoveFacts>,
    takes: [Option<KnownTake>; MAX_TAKES],
}

/// The most moves whose facts and takes the table remembers
/// ([`MemoTable::moves`]): when full, it starts afresh (about 16 MB:
/// 208 bytes a record, and its place in a map of 131,072 slots by then).
const MOVES_KEPT: usize = 1 << 16;
const _: () = assert!(std::mem::size_of::<MoveRecord>() == 208);

/// The memo table and the interning of resource terms.
#[derive(Clone, Debug)]
pub struct MemoTable {
    /// Most keys kept (both generations together); `usize::MAX` for no
    /// bound but `max_bytes`.
    pub limit: usize,
    /// Most bytes the keys, their calls and the interned terms may hold
    /// together (as estimated from lengths).
    pub max_bytes: usize,
    newer: Generation,
    older: Generation,
    /// Interned resource terms: canonical tokens to id.
    terms: HashMap<Arc<[u64]>, u32, FastHash>,
    /// Each interned term's tokens and their [`hash_tokens`], by id.
    term_list: Vec<(Arc<[u64]>, u64)>,
    /// Ids of interned ground facts by the whole-atom index key they were
    /// last seen with (see [`Machine::identify_fact`]): a hint, checked
    /// against the id's tokens before use.
    by_key: HashMap<u64, u32, FastHash>,
    /// What is known of each move after a candidate (see [`MoveRecord`]),
    /// by the move (the template and look-ahead plan of its move plan) and
    /// the id of the candidate's term: the ids (and summed hashes) of the
    /// facts the move assumes, and the fact each take finds.  The
    /// candidate's term decides both (the takes' goals are ground atoms
    /// then), so ids checked once against the terms hold while the ids do
    /// (see the memo look-ahead, `Machine::move_assumed`, which names the
    /// facts of a move by them, and `Machine::fast_take`).  The records, in
    /// `move_records`, by their key here; bounded by [`MOVES_KEPT`].
    moves: HashMap<(u32, u32, u32), u32, FastHash>,
    move_records: Vec<MoveRecord>,
    /// The place in `move_records` of the record found last: the takes
    /// and the assumption of one move ask for the same record in turn.
    last_move: std::cell::Cell<u32>,
    /// The index keys of interned facts that moves assume, and the
    /// buckets they joined (see `Machine::assume_clause`): the term decides
    /// them, so they are computed once per term.  By term id, one more than
    /// the place of the fact's record in `known_facts` (0 for none).
    /// Counted in `terms_bytes`.
    fact_slots: Vec<u32>,
    known_facts: Vec<KnownFact>,
    /// Bytes the interned terms hold (estimated as for keys).
    terms_bytes: usize,
    /// How many times the interned terms were numbered afresh
    /// (`forget_terms`): an id read before a change means nothing after it.
    pub(crate) numbering: u32,
    /// The context's memo base (`MemoSums::base`) the keys were recorded
    /// under: a key leaves out the unbounded entries below it, so keys of
    /// one base mean nothing under another.
    keys_base: u32,
    /// The parameters of the modules in the base (their environment
    /// blocks in `Context::envs`, as start and length): a base clause
    /// that mentions a parameter means what the parameter's binding makes
    /// it, so keys hold the parameters' values (see [`Machine::memo_enter`]).
    base_params: Vec<(u32, u32)>,
    /// Counters.
    pub stats: MemoStats,
    /// Reused buffers (no allocation per memoized call or assumed resource).
    scratch: Scratch,
}

/// Buffers reused by key computations.
#[derive(Clone, Debug, Default)]
struct Scratch {
    toks: Vec<u64>,
    vars: Vec<Cell>,
    stack: Vec<Cell>,
    linear: Vec<u32>,
    unbounded: Vec<u32>,
    ids: Vec<u8>,
}

impl Scratch {
    /// The canonical tokens of `goal` alone, into `toks` (`None` as for [`tokens`]).
    fn goal_tokens(&mut self, heap: &Heap, settled: u32, goal: Cell) -> Option<()> {
        self.toks.clear();
        self.vars.clear();
        tokens(
            heap,
            settled,
            goal,
            &mut self.vars,
            &mut self.toks,
            &mut self.stack,
        )
    }
}

/// The table's memory bound when none is given (the command line gives a
/// quarter of the machine's memory).
pub const DEFAULT_MEMO_BYTES: usize = 1 << 30;

impl Default for MemoTable {
    fn default() -> Self {
        MemoTable::new(usize::MAX, DEFAULT_MEMO_BYTES)
    }
}

impl MemoTable {
    /// An empty table holding at most `limit` keys in at most `max_bytes`.
    pub fn new(limit: usize, max_bytes: usize) -> Self {
        MemoTable {
            limit: limit.max(2),
            max_bytes,
            newer: Generation::default(),
            older: Generation::default(),
            terms: HashMap::default(),
            term_list: Vec::new(),
            by_key: HashMap::default(),
            moves: HashMap::default(),
            move_records: Vec::new(),
            last_move: std::cell::Cell::new(0),
            fact_slots: Vec::new(),
            known_facts: Vec::new(),
            terms_bytes: 0,
            numbering: 0,
            keys_base: 0,
            base_params: Vec::new(),
            stats: MemoStats::default(),
            scratch: Scratch::default(),
        }
    }

    /// Forget every key (the program changed).
    pub fn clear(&mut self) {
        self.newer = Generation::default();
        self.older = Generation::default();
        self.stats.size = 0;
    }

    /// Whether the interning of resource terms should start afresh before
    /// one more term, with `live` entries in the context: it holds as many
    /// terms as the table may hold keys, or a quarter of its bytes, and at
    /// least twice the entries (after a fresh start it holds at most one
    /// term per entry, so fresh starts are rare: their cost, O(entries), is
    /// spread over at least as many new terms).
    fn terms_full(&self, live: usize) -> bool {
        (self.terms.len() >= self.limit || self.terms_bytes >= self.max_bytes / 4)
            && self.terms.len() >= 2 * live
    }

    /// The bytes the table holds, estimated from lengths.
    pub fn bytes_used(&self) -> usize {
        self.newer.bytes_used() + self.older.bytes_used() + self.terms_bytes
    }

    /// The number of resource terms interned now.
    pub fn interned(&self) -> usize {
        self.terms.len()
    }

    /// Drop every interned term and, since keys name terms by id, every key
    /// (counted as evicted).
    fn forget_terms(&mut self) {
        self.stats.evicted += (self.newer.len + self.older.len) as u64;
        self.clear();
        self.terms.clear();
        self.term_list.clear();
        self.by_key.clear();
        self.forget_moves();
        self.fact_slots.clear();
        self.known_facts.clear();
        self.terms_bytes = 0;
        self.numbering = self.numbering.wrapping_add(1);
    }

    /// The id of a ground term given as canonical tokens, and the
    /// tokens' [`hash_tokens`].
    #[inline]
    pub fn intern(&mut self, tokens: &[u64]) -> (u32, u64) {
        if let Some(&id) = self.terms.get(tokens) {
            return (id, self.term_list[id as usize].1);
        }
        let next = self.terms.len() as u32;
        let shared: Arc<[u64]> = tokens.into();
        let hash = hash_tokens(tokens);
        self.terms.insert(shared.clone(), next);
        self.term_list.push((shared, hash));
        // The tokens and their counts, the list's entry, and the entries
        // of `terms` and (for a fact) `by_key`.
        self.terms_bytes += tokens.len() * 8 + 16 + 24 + 2 * MAP_ENTRY_BYTES;
        (next, hash)
    }

    /// The ids of the facts that move `moved` (template, plan) assumes from a
    /// candidate of term `id`, and their hashes' sum, when known.
    #[inline]
    pub(crate) fn move_facts(
        &self,
        moved: (u32, u32),
        id: u32,
    ) -> Option<([u32; MAX_MOVE_FACTS], u64)> {
        self.move_record(moved, id)
            .and_then(|r| self.move_records[r].facts)
    }

    /// The place of the record of move `moved` after a candidate of term
    /// `id` in `move_records`, when there is one.
    #[inline]
    fn move_record(&self, (tpl, plan): (u32, u32), id: u32) -> Option<usize> {
        let key = (tpl, plan, id);
        let last = self.last_move.get() as usize;
        if self.move_records.get(last).is_some_and(|r| r.key == key) {
            return Some(last);
        }
        let at = *self.moves.get(&key)?;
        self.last_move.set(at);
        Some(at as usize)
    }

    /// The record of move `moved` after a candidate of term `id`, made
    /// (empty) when there is none.
    fn move_record_mut(&mut self, (tpl, plan): (u32, u32), id: u32) -> &mut MoveRecord {
        let at = match self.move_record((tpl, plan), id) {
            Some(at) => at,
            None => {
                if self.move_records.len() >= MOVES_KEPT {
                    self.forget_moves();
                }
                let at = self.move_records.len();
                let key = (tpl, plan, id);
                self.move_records.push(MoveRecord {
                    key,
                    facts: None,
                    takes: [None; MAX_TAKES],
                });
                self.moves.insert(key, at as u32);
                at
            }
        };
        &mut self.move_records[at]
    }

    /// Remember the facts move `moved` assumes from a candidate of term `id`
    /// (checked against their terms).
    pub(crate) fn learn_move_facts(&mut self, moved: (u32, u32), id: u32, facts: MoveFacts) {
        self.move_record_mut(moved, id).facts = Some(facts);
    }

    /// The keys of the fact of term `id`, when kept.
    #[inline]
    pub(crate) fn fact_keys(&self, id: u32) -> Option<FactKeys> {
        self.fact_slot(id).map(|i| self.known_facts[i].keys)
    }

    /// The keys of the fact of term `id` and the buckets it joined, when
    /// kept.
    #[inline]
    pub(crate) fn known_fact(&mut self, id: u32) -> Option<&mut KnownFact> {
        let i = self.fact_slot(id)?;
        Some(&mut self.known_facts[i])
    }

    /// Where the record of the fact of term `id` is in `known_facts`.
    #[inline]
    fn fact_slot(&self, id: u32) -> Option<usize> {
        match self.fact_slots.get(id as usize) {
            Some(&slot) if slot != 0 => Some(slot as usize - 1),
            _ => None,
        }
    }

    /// Keep the keys of the fact of term `id`.
    pub(crate) fn keep_fact_keys(&mut self, id: u32, keys: FactKeys) {
        let known = KnownFact {
            keys,
            targets: Targets::default(),
        };
        if let Some(i) = self.fact_slot(id) {
            self.known_facts[i] = known;
            return;
        }
        if self.fact_slots.len() <= id as usize {
            let grown = id as usize + 1 - self.fact_slots.len();
            self.terms_bytes += grown * std::mem::size_of::<u32>();
            self.fact_slots.resize(id as usize + 1, 0);
        }
        self.known_facts.push(known);
        self.fact_slots[id as usize] = self.known_facts.len() as u32;
        self.terms_bytes += std::mem::size_of::<KnownFact>();
    }

    /// Forget the facts and takes of every move (the templates they name
    /// change).
    pub(crate) fn forget_moves(&mut self) {
        self.moves.clear();
        self.move_records.clear();
    }

    /// What take `k` of move `moved` (template, plan) finds after a
    /// candidate of term `id`, when known.
    #[inline]
    pub(crate) fn take_fact(
        &mut self,
        moved: (u32, u32),
        k: u32,
        id: u32,
    ) -> Option<&mut KnownTake> {
        let at = self.move_record(moved, id)?;
        self.move_records[at].takes.get_mut(k as usize)?.as_mut()
    }

    /// Remember what take `k` of move `moved` finds after a candidate of
    /// term `id` (checked by unifying the take's goal with the fact).
    pub(crate) fn learn_take_fact(&mut self, moved: (u32, u32), k: u32, id: u32, fact: TakeFact) {
        let known = KnownTake {
            fact,
            buckets: KeyBuckets::default(),
        };
        if let Some(take) = self.move_record_mut(moved, id).takes.get_mut(k as usize) {
            *take = Some(known);
        }
    }

    /// Whether the table holds the key with these parts under `hash`: the
    /// call's canonical tokens and the ids of the usable linear resources
    /// and of the assumed unbounded clauses (in any order: multisets).
    pub fn contains(&self, hash: u64, goal: &[u64], linear: &[u32], unbounded: &[u32]) -> bool {
        let mut ids = Vec::new();
        encode_ids(&mut ids, &mut linear.to_vec(), &mut unbounded.to_vec());
        self.contains_ids(hash, goal, &ids)
    }

    /// [`MemoTable::contains`] with the resource part encoded.
    fn contains_ids(&self, hash: u64, goal: &[u64], ids: &[u8]) -> bool {
        self.newer.contains(hash, goal, ids) || self.older.contains(hash, goal, ids)
    }

    /// Whether any key has this hash (a cheap first test).
    pub fn may_contain(&self, hash: u64) -> bool {
        self.newer.heads.contains_key(&hash) || self.older.heads.contains_key(&hash)
    }

    /// Record a failed key (parts as for [`MemoTable::contains`]).
    pub fn insert(&mut self, hash: u64, goal: &[u64], linear: &[u32], unbounded: &[u32]) {
        let mut ids = Vec::new();
        encode_ids(&mut ids, &mut linear.to_vec(), &mut unbounded.to_vec());
        self.insert_ids(hash, goal, &ids);
    }

    /// [`MemoTable::insert`] with the resource part encoded.
    fn insert_ids(&mut self, hash: u64, goal: &[u64], ids: &[u8]) {
        if self.contains_ids(hash, goal, ids) {
            return;
        }
        let full = self.newer.len >= self.limit / 2
            || self.newer.bytes_used() >= self.max_bytes / 8 * 3
            || !self.newer.has_room(ids);
        if full {
            self.stats.evicted += self.older.len as u64;
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.push(hash, goal, ids);
        self.stats.recorded += 1;
        self.stats.size = self.newer.len + self.older.len;
    }
}

/// A memoized call in progress.
#[derive(Copy, Clone, Debug)]
pub struct MemoCall {
    /// The call (a heap term; restored by backtracking to its state at the call).
    pub goal: Cell,
    /// Its key hash.
    pub hash: u64,
    /// Whether a proof of it was found.
    pub proved: bool,
}

/// The hash of a memo key: the call's canonical tokens and the sums of
/// the hashes of the usable linear resources (`lin`) and of the assumed
/// unbounded clauses (`unb`).
fn key_hash(goal: &[u64], lin: u64, unb: u64) -> u64 {
    key_hash_of(hash_tokens(goal), lin, unb)
}

/// [`key_hash`] from the [`hash_tokens`] of the call's tokens.
fn key_hash_of(goal: u64, lin: u64, unb: u64) -> u64 {
    let mut h = Hasher64::new();
    h.add(1, goal);
    h.add(2, lin);
    h.add(3, unb);
    h.finish()
}

use super::context::Source;
use super::machine::Machine;

impl Machine {
    /// Declare `name` (at every arity) a memoized predicate, and turn memoization on.
    pub fn memoize(&mut self, name: &str) {
        let s = self.symbols.intern(name);
        let i = s.0 as usize;
        if self.memo_preds_mut().len() <= i {
            self.memo_preds_mut().resize(i + 1, false);
        }
        self.memo_preds_mut()[i] = true;
        self.sync_memo();
    }

    /// Stop memoizing predicates named `name`, or every predicate with
    /// `None`; whether some predicate was memoized and is no longer.  With
    /// none left, memoization is off and the table's keys are dropped (its
    /// counters stay).
    pub fn unmemoize(&mut self, name: Option<&str>) -> bool {
        let sym = name.and_then(|n| self.symbols.lookup(n));
        let changed = match (name, sym) {
            (Some(_), None) => false,
            (Some(_), Some(s)) => self
                .memo_preds_mut()
                .get_mut(s.0 as usize)
                .is_some_and(|m| std::mem::replace(m, false)),
            (None, _) => {
                let was = self.any_memoized();
                self.memo_preds_mut().iter_mut().for_each(|m| *m = false);
                was
            }
        };
        self.sync_memo();
        changed
    }

    /// Make the context's memo sums agree with the set of memoized
    /// predicates: turned on (every linear entry identified, the program
    /// so far taken as fixed, the table emptied) when some predicate is
    /// memoized and they are off; off when none is.  Called when the set
    /// changes and when a query ends: the end of the query that opened a
    /// nested top level restores the context to before it, sums included,
    /// undoing a `:memo` given at the nested level.
    pub(crate) fn sync_memo(&mut self) {
        let wanted = self.any_memoized();
        self.memoizing = wanted;
        // The look-ahead's decisions took the memoized predicates as fixed.
        self.decisions.forget();
        if wanted == self.ctx.memo.on {
            // The end of a query can bring back an older base (one taken
            // before a nested level turned memoization off and on again):
            // keys recorded under another base must not be read under it.
            if wanted && self.memo.keys_base != self.ctx.memo.base {
                self.reset_memo_keys();
            }
            return;
        }
        if !wanted {
            self.ctx.memo.on = false;
            self.memo.clear();
            return;
        }
        self.enable_memo();
    }

    /// Drop the table's keys, which are to be read under the context's
    /// memo base from now on.
    pub(crate) fn reset_memo_keys(&mut self) {
        self.memo.clear();
        self.memo.keys_base = self.ctx.memo.base;
        let mut params = Vec::new();
        for e in &self.ctx.entries[..self.ctx.memo.base as usize] {
            if let super::context::Source::Template { tpl, env } = e.source {
                let len = self.templates[tpl as usize].env_len;
                if len > 0 && !params.contains(&(env, len)) {
                    params.push((env, len));
                }
            }
        }
        self.memo.base_params = params;
    }

    /// Turn the memo sums on: the program so far is the fixed base, every
    /// linear entry gets its identity, the table starts empty.
    pub(crate) fn enable_memo(&mut self) {
        self.ctx.memo.on = true;
        self.ctx.memo_stopped = false;
        self.ctx.memo.base = self.ctx.entries.len() as u32;
        self.ctx.memo.lin_hash = 0;
        self.ctx.memo.lin_nonground = 0;
        self.ctx.memo.unb_hash = 0;
        self.ctx.memo.unb_nonground = 0;
        self.ctx.memo_ids.clear();
        for e in 0..self.ctx.entries.len() as u32 {
            if self.ctx.entries[e as usize].linear {
                self.identify(e);
            }
        }
        self.reset_memo_keys();
    }

    /// Whether any predicate is memoized.
    pub fn memo_on(&self) -> bool {
        self.ctx.memo.on && self.memoizing
    }

    /// The names of the memoized predicates, in the order of their symbols.
    pub fn memoized(&self) -> Vec<String> {
        (0..self.memo_preds_len())
            .filter(|&i| self.is_memoized(SymId(i as u32)))
            .map(|i| self.symbols.name(SymId(i as u32)).to_string())
            .collect()
    }

    /// Whether some clause of the context (usable now or not) has a head
    /// named `name`, at `arity` (at any arity when `None`).
    pub fn context_defines(&self, name: SymId, arity: Option<u32>) -> bool {
        let this = |&(f, n): &(SymId, u32)| f == name && arity.is_none_or(|a| a == n);
        self.ctx.entries.iter().any(|e| match e.source {
            Source::Heap { alts, n, .. } => self.ctx.heap_alts[alts as usize..(alts + n) as usize]
                .iter()
                .any(|a| this(&a.pred)),
            Source::Template { tpl, .. } => self.templates[tpl as usize]
                .keys
                .iter()
                .any(|(p, _)| this(p)),
        })
    }

    /// Give entry `e` its memo identity (call right after pushing it).
    pub(crate) fn identify(&mut self, e: u32) {
        let entry = self.ctx.entries[e as usize];
        if !entry.linear && e < self.ctx.memo.base {
            return;
        }
        if self.memo.terms_full(e as usize + 1) {
            self.renumber_terms(e);
        }
        let mut sc = std::mem::take(&mut self.memo.scratch);
        let ok = self.entry_tokens(e, &mut sc);
        let (res, rhash) = if ok.is_some() && sc.vars.is_empty() {
            self.memo.intern(&sc.toks)
        } else {
            (NO_RES, hash_tokens(&sc.toks))
        };
        self.memo.scratch = sc;
        self.ctx.set_identity(e, res, rhash);
    }

    /// [`Machine::identify`] for an entry of the heap, `clause`, with the
    /// whole-atom index key `key` (computed for the index anyway) when it
    /// is a single ground fact.  The same fact assumed again (a peg put
    /// back in a hole) is found by its key and checked against the
    /// interned tokens in one walk, instead of being tokenized and looked
    /// up by its tokens.  The key only finds a candidate: the id is the
    /// one [`Machine::identify`] would give.
    #[inline(never)]
    pub(crate) fn identify_fact(&mut self, e: u32, clause: Cell, key: Option<u64>) {
        let Some(key) = key else {
            return self.identify(e);
        };
        if !self.ctx.entries[e as usize].linear && e < self.ctx.memo.base {
            return;
        }
        if let Some(&id) = self.memo.by_key.get(&key) {
            if self.id_stands_for_term(e) {
                let heap = &self.store.heap;
                let (toks, rhash) = &self.memo.term_list[id as usize];
                let same = ground_is(heap, clause, toks, &mut self.memo.scratch.stack);
                if same {
                    let rhash = *rhash;
                    self.ctx.set_identity(e, id, rhash);
                    return;
                }
            }
        }
        self.identify(e);
        let res = self.ctx.entries[e as usize].res;
        if res != NO_RES {
            self.memo.by_key.insert(key, res);
        }
    }

    /// [`Machine::identify_fact`] for a fact whose term is known to have
    /// id `id`: a fact a move assumes, whose id the move and the term of
    /// its candidate decide ([`MemoTable::move_facts`]).  Under the
    /// conditions of `identify_fact`'s own shortcut (no name with a
    /// scope about, no renumbering due); otherwise, and in debug builds
    /// (which check that the id is the one found), as `identify_fact`.
    pub(crate) fn identify_known(&mut self, e: u32, clause: Cell, key: Option<u64>, id: u32) {
        if !self.ctx.entries[e as usize].linear && e < self.ctx.memo.base {
            return;
        }
        let usable = self.id_stands_for_term(e);
        if !usable || cfg!(debug_assertions) {
            self.identify_fact(e, clause, key);
            debug_assert!(!usable || self.ctx.entries[e as usize].res == id);
            return;
        }
        let rhash = self.memo.term_list[id as usize].1;
        self.ctx.set_identity(e, id, rhash);
    }

    /// Whether an interned term's id may name entry `e`'s term without
    /// tokenizing it (the shortcuts of [`Machine::identify_fact`] and
    /// [`Machine::identify_known`]): with no name with a scope about, no
    /// symbol is young, so every ground term has its id; and the terms
    /// are not due to be numbered afresh before `e` is named.
    fn id_stands_for_term(&self, e: u32) -> bool {
        let heap = &self.store.heap;
        heap.max_sym_birth <= self.settled_names()
            && heap.eigens.is_empty()
            && !self.memo.terms_full(e as usize + 1)
    }

    /// The heap time up to which `LOCAL` names are settled for memo keys:
    /// the start of the outermost query (every variable a query can meet
    /// was made after the names of the program it runs against), or now
    /// when no query runs.  A name made later, by a module loaded during
    /// the query, keeps the keys it occurs in from being made.
    pub(crate) fn settled_names(&self) -> u32 {
        self.choices_bottom_heap()
            .unwrap_or(self.store.heap.len() as u32)
    }

    /// The canonical tokens of entry `e`'s term into `sc.toks` (its
    /// variables into `sc.vars`); `None` as for [`tokens`].
    #[inline]
    fn entry_tokens(&mut self, e: u32, sc: &mut Scratch) -> Option<()> {
        let entry = self.ctx.entries[e as usize];
        sc.toks.clear();
        sc.vars.clear();
        let (toks, vars, stack) = (&mut sc.toks, &mut sc.vars, &mut sc.stack);
        let settled = self.settled_names();
        match entry.source {
            Source::Heap { clause, .. } => {
                tokens(&self.store.heap, settled, clause, vars, toks, stack)
            }
            Source::Template { tpl, env } => {
                let t = self.templates[tpl as usize].clone();
                if entry.linear {
                    let mut slots: Vec<Option<Cell>> = vec![None; t.nslots as usize];
                    for (i, slot) in slots.iter_mut().enumerate().take(t.env_len as usize) {
                        *slot = Some(self.ctx.envs[env as usize + i]);
                    }
                    let c = self.copy_template(&t, t.root, &mut slots);
                    tokens(&self.store.heap, settled, c, vars, toks, stack)
                } else {
                    // The clause is named by its template, so a name made
                    // for this loading (a `LOCAL` one) is looked for there.
                    let heap = &self.store.heap;
                    if t.cells.iter().any(|c| match *c {
                        Cell::Atom(s) | Cell::Functor(s, _) => heap.sym_born_after(s, settled),
                        _ => false,
                    }) {
                        return None;
                    }
                    toks.push((10 << 60) | tpl as u64);
                    let mut r = Some(());
                    for i in 0..t.env_len as usize {
                        let c = self.ctx.envs[env as usize + i];
                        r = r.and_then(|_| tokens(&self.store.heap, settled, c, vars, toks, stack));
                    }
                    r
                }
            }
        }
    }

    /// Start the interning of resource terms afresh, so that it stays
    /// bounded: every key is dropped (keys name terms by id), and the
    /// entries below `below` that have an id get one in the new numbering.
    /// Their terms are unchanged (a term that was ground when assumed
    /// stays so while its entry exists), so are their hashes and the
    /// context's sums.
    fn renumber_terms(&mut self, below: u32) {
        self.memo.forget_terms();
        // Look-ahead decisions and candidate keys name terms by id too.
        self.candidate_keys.forget();
        let on = self.decisions.on;
        self.decisions.reset(on);
        let mut sc = std::mem::take(&mut self.memo.scratch);
        for i in 0..below {
            if self.ctx.entries[i as usize].res == NO_RES {
                continue;
            }
            let ok = self.entry_tokens(i, &mut sc);
            debug_assert!(ok.is_some() && sc.vars.is_empty());
            self.ctx.entries[i as usize].res = self.memo.intern(&sc.toks).0;
        }
        self.memo.scratch = sc;
        self.ctx.rebuild_memo_ids();
    }

    /// At a call of a memoized predicate: false if the table says it fails;
    /// otherwise set up the detection of its failure (when the key is exact).
    pub(crate) fn memo_enter(&mut self, goal: Cell) -> bool {
        // With module parameters in the base (`MODULE m P.` loaded from the
        // command line: each goal gets P fresh), the call's meaning depends
        // on their bindings as on the call's own arguments: the key is that
        // of the call with the parameters as extra arguments.  (Every key
        // of a table has them, so no key of one shape meets one of the
        // other.)
        let goal = if self.memo.base_params.is_empty() {
            goal
        } else {
            // The machine's scratch stack is free here (the call's index
            // keys are computed after this).
            let mut args = std::mem::take(&mut self.scratch);
            args.clear();
            args.push(goal);
            for &(env, len) in &self.memo.base_params {
                args.extend_from_slice(&self.ctx.envs[env as usize..(env + len) as usize]);
            }
            let wrapped = self.store.heap.new_struct(crate::term::sym::TRUE, &args);
            self.scratch = args;
            wrapped
        };
        let mut sc = std::mem::take(&mut self.memo.scratch);
        let known = match self.memo_hash(goal, &mut sc) {
            None => None,
            Some(hash) => {
                // `memo_hash` left the call's tokens in the scratch.
                let hit = self.memo.may_contain(hash) && {
                    self.usable_ids(&mut sc);
                    self.memo.contains_ids(hash, &sc.toks, &sc.ids)
                };
                Some((hash, hit))
            }
        };
        self.memo.scratch = sc;
        let Some((hash, hit)) = known else {
            return true;
        };
        if hit {
            self.memo.stats.hits += 1;
            return false;
        }
        self.memo.stats.misses += 1;
        let call = self.memo_calls_len();
        self.push_memo_call(MemoCall {
            goal,
            hash,
            proved: false,
        });
        self.push_memo_fail(call);
        true
    }

    /// Whether the call `goal` of a memoized predicate is known to fail in
    /// the context this one becomes when the ground `facts` (each with its
    /// whole-atom index key) are assumed, linearly when `linear`: the key
    /// [`Machine::memo_enter`] would make after the assumption is in the
    /// table.  Counted as a hit when it is.  `false` leaves the decision to
    /// the call: whenever a fact was never identified (a new term), the
    /// interning must start afresh, or the key is not memoizable.
    ///
    /// The facts' ids come from `by_key` as the assumption's
    /// [`Machine::identify_fact`] would find them; they are checked
    /// against their terms only when the hash says the key may be there,
    /// so a wrong hint can only miss a hit, never make one.
    pub(crate) fn memo_fails_with(
        &mut self,
        goal: Cell,
        facts: &[(Cell, u64)],
        linear: bool,
    ) -> bool {
        // The ids of the facts (as many as a move assumes, and more).
        let mut ids = [0u32; MAX_MOVE_FACTS];
        if facts.len() > ids.len() {
            return false;
        }
        let Some(settled) = self.keys_before_assuming(facts.len()) else {
            return false;
        };
        let heap = &self.store.heap;
        let m = &self.ctx.memo;
        let (mut lin, mut unb) = (m.lin_hash, m.unb_hash);
        for (i, &(_, key)) in facts.iter().enumerate() {
            let Some(&id) = self.memo.by_key.get(&key) else {
                return false;
            };
            let rhash = self.memo.term_list[id as usize].1;
            if linear {
                lin = lin.wrapping_add(rhash);
            } else {
                unb = unb.wrapping_add(rhash);
            }
            ids[i] = id;
        }
        let mut sc = std::mem::take(&mut self.memo.scratch);
        let hit = sc.goal_tokens(heap, settled, goal).is_some() && {
            let hash = key_hash(&sc.toks, lin, unb);
            self.memo.may_contain(hash)
                && facts.iter().zip(ids).all(|(&(c, _), id)| {
                    ground_is(heap, c, &self.memo.term_list[id as usize].0, &mut sc.stack)
                })
                && {
                    let extra = &ids[..facts.len()];
                    self.usable_ids_and(&mut sc, extra, linear);
                    self.memo.contains_ids(hash, &sc.toks, &sc.ids)
                }
        };
        self.memo.scratch = sc;
        if hit {
            self.memo.stats.hits += 1;
        }
        hit
    }

    /// Whether the key of a memoized call made after an assumption of
    /// `nfacts` ground facts can be computed before the assumption (by
    /// [`Machine::memo_fails_with`] and the memo look-ahead): no
    /// restriction is active, every usable resource is ground, no module
    /// parameter is in the keys and the interning has room.  Then the
    /// heap time up to which names are settled, unless a name with a
    /// scope is about (the assumption would check each fact's names; it
    /// decides then).
    pub(crate) fn keys_before_assuming(&self, nfacts: usize) -> Option<u32> {
        let m = &self.ctx.memo;
        if !self.ctx.restrictions.is_empty()
            || m.lin_nonground != 0
            || m.unb_nonground != 0
            || !self.memo.base_params.is_empty()
            || self.memo.terms_full(self.ctx.entries.len() + nfacts)
        {
            return None;
        }
        let heap = &self.store.heap;
        let settled = self.settled_names();
        (heap.max_sym_birth <= settled && heap.eigens.is_empty()).then_some(settled)
    }

    /// The id and hash of the term that a ground fact with whole-atom
    /// index key `key` had when last assumed: a hint (see `by_key`), to
    /// check against the fact before use.
    pub(crate) fn fact_hint(&self, key: u64) -> Option<(u32, u64)> {
        let &id = self.memo.by_key.get(&key)?;
        Some((id, self.memo.term_list[id as usize].1))
    }

    /// The canonical tokens of interned term `id`.
    pub(crate) fn memo_term(&self, id: u32) -> &[u64] {
        &self.memo.term_list[id as usize].0
    }

    /// Whether the call with canonical tokens `toks` (whose
    /// [`hash_tokens`] is `toks_hash`) has a recorded
    /// failure in the context this one becomes when the usable linear
    /// entries `gone` are consumed and the terms `added` (interned ids,
    /// their hashes summing to `added_hash`) are assumed, linearly when
    /// `linear`.  `ids` is work space.  `false` when a key cannot be
    /// written so (an entry without an id, a multiset not in bitmap form):
    /// the call decides then.  `checked` says whether `added` are the ids
    /// of the terms assumed (ids found by a hint); it is asked only when
    /// the hash may be in the table.  The caller has checked
    /// [`Machine::keys_before_assuming`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fails_after_move(
        &self,
        toks: &[u64],
        toks_hash: u64,
        gone: &[u32],
        added: &[u32],
        added_hash: u64,
        linear: bool,
        ids: &mut Vec<u8>,
        checked: impl FnOnce() -> bool,
    ) -> bool {
        let m = &self.ctx.memo;
        let (mut lin, mut unb) = (m.lin_hash, m.unb_hash);
        let mut removed = [0u32; MAX_MOVE_FACTS];
        if gone.len() > removed.len() {
            return false;
        }
        for (r, &e) in removed.iter_mut().zip(gone) {
            let entry = &self.ctx.entries[e as usize];
            if entry.res == NO_RES {
                return false;
            }
            lin = lin.wrapping_sub(entry.rhash);
            *r = entry.res;
        }
        if linear {
            lin = lin.wrapping_add(added_hash);
        } else {
            unb = unb.wrapping_add(added_hash);
        }
        let hash = key_hash_of(toks_hash, lin, unb);
        self.memo.may_contain(hash)
            && checked()
            && self
                .ctx
                .memo_ids
                .encode_moved(ids, &removed[..gone.len()], added, linear)
            && self.memo.contains_ids(hash, toks, ids)
    }

    /// The hash of the key of `goal` now, if the call can be memoized; the
    /// call's tokens are left in `sc.toks`.
    fn memo_hash(&self, goal: Cell, sc: &mut Scratch) -> Option<u64> {
        let m = &self.ctx.memo;
        if !self.ctx.restrictions.is_empty() || m.lin_nonground != 0 || m.unb_nonground != 0 {
            return None;
        }
        sc.goal_tokens(&self.store.heap, self.settled_names(), goal)?;
        Some(key_hash(&sc.toks, m.lin_hash, m.unb_hash))
    }

    /// The interned ids of the usable linear resources and of the assumed
    /// unbounded clauses, encoded as a key's resource part into `sc.ids`
    /// (`sc.linear` and `sc.unbounded` are work space).
    fn usable_ids(&self, sc: &mut Scratch) {
        self.usable_ids_and(sc, &[], true)
    }

    /// [`Machine::usable_ids`] as they would be with the entries of ids
    /// `extra` added (linear ones when `linear`).
    /// Written from the kept ids ([`UsableIds`]) when they allow it, else
    /// by visiting the context.
    fn usable_ids_and(&self, sc: &mut Scratch, extra: &[u32], linear: bool) {
        if self.ctx.memo_ids.encode_with(&mut sc.ids, extra, linear) {
            #[cfg(debug_assertions)]
            {
                let mut visited = sc.clone();
                self.usable_ids_visited(&mut visited, extra, linear);
                assert_eq!(sc.ids, visited.ids, "the kept ids are the usable ones");
            }
            return;
        }
        self.usable_ids_visited(sc, extra, linear);
    }

    /// [`Machine::usable_ids_and`] by visiting the context's entries.
    fn usable_ids_visited(&self, sc: &mut Scratch, extra: &[u32], linear: bool) {
        sc.linear.clear();
        sc.unbounded.clear();
        if linear {
            sc.linear.extend_from_slice(extra);
        } else {
            sc.unbounded.extend_from_slice(extra);
        }
        for (i, e) in self.ctx.entries.iter().enumerate() {
            if e.state != super::context::AVAIL {
                continue;
            }
            if e.linear {
                sc.linear.push(e.res);
            } else if i as u32 >= self.ctx.memo.base {
                sc.unbounded.push(e.res);
            }
        }
        encode_ids(&mut sc.ids, &mut sc.linear, &mut sc.unbounded);
    }

    /// Backtracking reached the `MemoFail` choice of call `call` (the state is
    /// as it was at the call): record the key if the call had no proof.
    pub(crate) fn memo_failed(&mut self, call: u32) {
        let Some(c) = self.memo_call(call) else {
            return;
        };
        if c.proved {
            return;
        }
        let mut sc = std::mem::take(&mut self.memo.scratch);
        if sc
            .goal_tokens(&self.store.heap, self.settled_names(), c.goal)
            .is_some()
        {
            self.usable_ids(&mut sc);
            self.memo.insert_ids(c.hash, &sc.toks, &sc.ids);
        }
        self.memo.scratch = sc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_under_one_hash_are_told_apart_exactly() {
        let mut t = MemoTable::new(100, DEFAULT_MEMO_BYTES);
        t.insert(7, &[1, 2], &[3, 4], &[]);
        t.insert(7, &[1, 2], &[3, 5], &[]);
        t.insert(7, &[9], &[3, 4], &[]);
        t.insert(7, &[1, 2], &[3], &[4]);
        assert!(t.contains(7, &[1, 2], &[3, 4], &[]));
        assert!(t.contains(7, &[1, 2], &[3, 5], &[]));
        assert!(t.contains(7, &[9], &[3, 4], &[]));
        assert!(t.contains(7, &[1, 2], &[3], &[4]));
        assert!(!t.contains(7, &[1, 2], &[3, 4, 5], &[]));
        assert!(!t.contains(7, &[1, 2], &[3, 4], &[5]));
        assert!(!t.contains(7, &[2, 1], &[3, 4], &[]));
        assert!(!t.contains(8, &[1, 2], &[3, 4], &[]));
        assert_eq!(t.stats.recorded, 4);
        // Recording a key already held changes nothing.
        t.insert(7, &[9], &[3, 4], &[]);
        assert_eq!(t.stats.recorded, 4);
        assert_eq!(t.stats.size, 4);
    }

    #[test]
    fn a_call_is_stored_once_per_generation() {
        let mut t = MemoTable::new(100, DEFAULT_MEMO_BYTES);
        let call = [5u64; 40];
        for r in 0..10u32 {
            t.insert(r as u64, &call, &[r, r + 1], &[]);
        }
        assert_eq!(t.newer.goals.len(), 1);
        // Each key: `next` (4 bytes), the goal id and the length (1 each),
        // then the linear ids as a bitmap (a length byte and one byte up to
        // id 7, two up to 15) and the empty unbounded part (1).
        assert_eq!(t.newer.bytes.len(), 10 * 6 + 7 * 3 + 3 * 4);
    }

    /// Every multiset of up to `n` ids below `max`, as sorted vectors.
    fn multisets(n: usize, max: u32) -> Vec<Vec<u32>> {
        let mut out = vec![vec![]];
        let mut last = vec![vec![]];
        for _ in 0..n {
            let mut next = Vec::new();
            for m in &last {
                let from = m.last().copied().unwrap_or(0);
                for id in from..max {
                    let mut m = m.clone();
                    m.push(id);
                    next.push(m);
                }
            }
            out.extend(next.iter().cloned());
            last = next;
        }
        out
    }

    #[test]
    fn resource_parts_encode_multisets_one_to_one() {
        // Small multisets, with repeats and ids across byte boundaries:
        // every one gets its own bytes, whatever the order of its ids.
        let all: Vec<Vec<u32>> = multisets(3, 20)
            .into_iter()
            .chain([vec![0, 1, 2, 3, 4, 5, 6, 7, 8], vec![300, 301], vec![0; 12]])
            .collect();
        let mut seen = std::collections::HashMap::new();
        for m in &all {
            let mut ids = Vec::new();
            encode_ids(
                &mut ids,
                &mut m.clone(),
                &mut m.iter().rev().copied().collect::<Vec<_>>(),
            );
            let mut reversed = m.clone();
            reversed.reverse();
            let mut again = Vec::new();
            encode_ids(&mut again, &mut reversed, &mut m.clone());
            assert_eq!(ids, again, "{m:?}");
            assert!(seen.insert(ids, m.clone()).is_none(), "{m:?}");
        }
        // Distinct dense ids take a bitmap, repeats and sparse ones a list.
        let mut out = Vec::new();
        encode_part(&mut out, &mut [3, 0, 9, 1]);
        assert_eq!(out, [5, 0b1011, 0b10]);
        out.clear();
        encode_part(&mut out, &mut [3, 3]);
        assert_eq!(out, [4, 3, 0]);
        out.clear();
        encode_part(&mut out, &mut [200, 7]);
        assert_eq!(out, [4, 7, 193, 1]);
        assert_eq!((varint_len(0), varint_len(127), varint_len(128)), (1, 1, 2));
    }

    #[test]
    fn kept_ids_encode_as_the_multisets_they_hold() {
        // Every pair of small multisets (linear, unbounded), reached by
        // adding ids and taking some away again, and a few extra ids: when
        // the kept ids give an encoding, it is `encode_ids`'s.
        let small = multisets(3, 12);
        let mut given = 0;
        for lin in &small {
            for unb in small.iter().step_by(7) {
                for (extra, linear) in [(&[][..], true), (&[5, 17][..], true), (&[2][..], false)] {
                    let mut kept = UsableIds::default();
                    kept.clear();
                    for &id in lin.iter().chain(&[11, 3]) {
                        kept.change(true, id, true);
                    }
                    for &id in &[11, 3] {
                        kept.change(true, id, false);
                    }
                    for &id in unb {
                        kept.change(false, id, true);
                    }
                    let (mut l, mut u) = (lin.clone(), unb.clone());
                    if linear { &mut l } else { &mut u }.extend_from_slice(extra);
                    let mut want = Vec::new();
                    encode_ids(&mut want, &mut l, &mut u);
                    let mut got = Vec::new();
                    if kept.encode_with(&mut got, extra, linear) {
                        assert_eq!(got, want, "{lin:?} {unb:?} {extra:?}");
                        given += 1;
                    }
                }
            }
        }
        // Most of them are bitmaps of distinct ids, which it gives.
        assert!(given > 500, "{given}");
        // An invalid set gives nothing.
        let mut out = Vec::new();
        assert!(!UsableIds::default().encode_with(&mut out, &[], true));
    }

    #[test]
    fn kept_ids_after_a_move_encode_as_the_multisets_they_become() {
        // Sets of distinct linear ids, a move taking up to three of them
        // away (the top ones, so that the bitmap shrinks) and adding up to
        // three others: when the kept ids give an encoding, it is
        // `encode_ids`'s of the set after the move; and it gives one for
        // every set after the move in bitmap form, unless the bitmap
        // before the move is too long.
        let small = multisets(3, 14);
        let (mut given, mut bitmaps) = (0, 0);
        for held in small.iter().filter(|m| m.windows(2).all(|w| w[0] != w[1])) {
            let mut kept = UsableIds::default();
            kept.clear();
            for &id in held {
                kept.change(true, id, true);
            }
            let mut sorted = held.clone();
            sorted.sort_unstable();
            for take in 0..=sorted.len().min(3) {
                let removed: Vec<u32> = sorted.iter().rev().take(take).copied().collect();
                for added in [&[][..], &[20][..], &[0, 21, 22][..]] {
                    if added.iter().any(|a| held.contains(a)) {
                        continue;
                    }
                    let mut after: Vec<u32> = held
                        .iter()
                        .filter(|i| !removed.contains(i))
                        .copied()
                        .collect();
                    after.extend_from_slice(added);
                    let mut want = Vec::new();
                    encode_ids(&mut want, &mut after.clone(), &mut []);
                    let bitmap = !after.is_empty()
                        && after.iter().max().map_or(0, |&m| m as usize / 8 + 1) <= after.len();
                    bitmaps += bitmap as usize;
                    let mut got = Vec::new();
                    if kept.encode_moved(&mut got, &removed, added, true) {
                        assert_eq!(got, want, "{held:?} - {removed:?} + {added:?}");
                        given += 1;
                    } else if bitmap {
                        // Only when the bitmap before the move is too long.
                        let before = held.iter().chain(added).max().map_or(0, |&m| m / 8 + 1);
                        assert!(before as usize > held.len() + added.len(), "{held:?}");
                    }
                }
            }
        }
        assert!(given > 100 && bitmaps > 0, "{given} {bitmaps}");
        // An id taken away that is not held: nothing.
        let mut kept = UsableIds::default();
        kept.clear();
        kept.change(true, 1, true);
        let mut out = Vec::new();
        assert!(!kept.encode_moved(&mut out, &[2], &[], true));
        assert!(kept.encode_moved(&mut out, &[1], &[], true));
        let mut want = Vec::new();
        encode_ids(&mut want, &mut [], &mut []);
        assert_eq!(out, want);
    }

    #[test]
    fn a_generation_is_also_full_at_three_eighths_of_the_bytes() {
        // No bound on keys; 800 bytes: a generation holds at most 300.
        let mut t = MemoTable::new(usize::MAX, 800);
        let ids: Vec<u32> = (0..20).collect();
        for r in 0..100u32 {
            t.insert(r as u64, &[1], &ids, &[r]);
            assert!(t.newer.bytes_used() <= 300 + 60, "{}", t.newer.bytes_used());
        }
        assert!(t.stats.evicted > 0);
        assert!(t.bytes_used() <= 800, "{}", t.bytes_used());
        // The newest keys are kept, the oldest dropped.
        assert!(t.contains(99, &[1], &ids, &[99]));
        assert!(!t.contains(0, &[1], &ids, &[0]));
    }

    #[test]
    fn a_full_generation_drops_the_older_one() {
        let mut t = MemoTable::new(4, DEFAULT_MEMO_BYTES);
        for r in 0..4u32 {
            t.insert(r as u64, &[1], &[r], &[]);
        }
        // Keys 0 and 1 were moved to the older generation when 2 came,
        // and dropped when 4 found the newer one full again.
        assert_eq!(t.stats.size, 4);
        t.insert(4, &[1], &[4], &[]);
        assert_eq!(t.stats.evicted, 2);
        assert_eq!(t.stats.size, 3);
        assert!(!t.contains(0, &[1], &[0], &[]));
        assert!(!t.contains(1, &[1], &[1], &[]));
        for r in 2..5u32 {
            assert!(t.contains(r as u64, &[1], &[r], &[]));
        }
    }
}
