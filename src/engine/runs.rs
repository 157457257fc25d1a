//! Runs of consumed items: how a call passes over many consumed resources
//! in one step.
//!
//! A bucket keeps the items of consumed resources until their scope ends
//! (consuming is one trailed state change, so that backtracking restores it
//! in O(1)), and a call passes over them.  Usually there are few.  Two
//! common shapes of program pile them up under the usable items, though: a
//! state threaded through a recursion (`cnt C, (cnt D -o loop)`: each level
//! consumes the previous level's resource, and when backtracking, each
//! level's retry passes over all those consumed below it), and a loop that
//! consumes a batch of resources with a call that has no key (`item K`
//! takes the newest, so the consumed ones sit on top of the usable ones).
//! Passing over them one by one makes such programs quadratic.
//!
//! So a cursor over one bucket longer than [`RUN`] items takes a slower
//! path ([`Context::next_usable`]): at every *aligned* position (one in
//! [`RUN`], see [`aligned`]) where it passes an unusable item,
//! `Context::pass_run` moves it past the whole run of `GONE` items there
//! and leaves *run records* behind: at each aligned position `p` it passed,
//! "items `to .. p` of this bucket are all `GONE`".  A later scan that
//! reaches `p` jumps to `to`; and, as in path compression, every record a
//! scan followed is pointed at the end of that scan's run.  A scan then
//! visits at most about `2 * RUN` items of a run one by one.  Shorter
//! cursors (the puzzles' calls) never look for records.
//!
//! A record is kept as long as it may be true, and checked when used:
//!
//! - Every change of an entry's state to `GONE` gets a stamp from a counter
//!   that never repeats (`Context::stamps`), and a record names the entry
//!   of its run with the latest stamp.  Undoing the consumption of any item
//!   of the run (or its assumption, which came earlier) pops the trail below
//!   that latest change as well, since the trail is a stack: so while that
//!   entry is `GONE` with the same stamp, every item of the run is `GONE`.
//! - The end of a scope pops the items on top of buckets without
//!   backtracking, and new items then take their positions: a record also
//!   names the entry at `p - 1`, and a new entry has a new id.
//! - `G1 & G2` gives back to `G2` the resources `G1` consumed, a change from
//!   `GONE` that is not an undo: it bumps `Context::epoch`, which a record
//!   must match.  (The stamps alone would not do: the latest item of a run
//!   may be one assumed in `G1`, which stays `GONE`.)
//!
//! A scan that finds no valid record just passes the items one by one, as
//! without records, so a stale record costs time, never answers.  Cursors
//! that merge several buckets do not use records.

use super::context::{Context, Cursor, Item, GONE};

/// The spacing of the positions where scans look for runs and leave run
/// records: a scan passes at most this many items one by one before it
/// reaches one.
pub const RUN: u32 = 64;

/// Whether a scan looks for a run, and may leave a record, at position `p`
/// (never 0, the end of a bucket).
#[inline(always)]
pub fn aligned(p: u32) -> bool {
    p % RUN == RUN - 1
}

/// A run record (see the module doc), kept at position `p` of a bucket.
#[derive(Copy, Clone, Debug)]
pub(super) struct Run {
    /// Items `to .. p` are `GONE`: the scan goes on at `to - 1`.
    to: u32,
    /// The entry at position `p - 1` when the record was made.
    top: u32,
    /// The entry of the run whose change to `GONE` is the latest.
    latest: u32,
    /// That change's stamp.
    stamp: u64,
    /// `Context::epoch` when the record was made.
    epoch: u32,
}

/// A stretch of a run, as a scan passed it: items `lo .. hi` one by one, or
/// the record at `hi` followed (it named `latest`, changed at `stamp`).
#[derive(Copy, Clone, Debug)]
pub(super) enum Stretch {
    /// Passed item by item.
    Items { lo: u32, hi: u32 },
    /// Jumped over by the record at `hi`.
    Jump { hi: u32, latest: u32, stamp: u64 },
}

/// The key of the record at position `p` of bucket `b`.
#[inline]
fn key(b: u32, p: u32) -> u64 {
    ((b as u64) << 32) | p as u64
}

impl Context {
    /// Forget the records of bucket `b` at positions `len + 1 ..= old`: its
    /// items above `len` were removed for good (their entries were dropped,
    /// see [`super::closed`]), and new items taking those positions could
    /// carry the same entry ids, which a record checks.
    pub(super) fn forget_runs_above(&mut self, b: u32, len: u32, old: u32) {
        let mut p = len + 1;
        while p <= old {
            if aligned(p) {
                self.runs.remove(&key(b, p));
                p += RUN;
            } else {
                p += 1;
            }
        }
    }

    /// Move a one-bucket cursor past the run of `GONE` items that starts at
    /// its position (the next item it visits is then usable, or unusable
    /// without being `GONE`, or there is none), using and leaving run
    /// records.
    #[cold]
    #[inline(never)]
    pub(super) fn pass_run(&mut self, cur: &mut Cursor) {
        let (b, start) = cur.streams[0];
        let mut path = std::mem::take(&mut self.run_path);
        path.clear();
        let bucket = &self.buckets[b as usize];
        let mut pos = start;
        let mut hi = pos;
        while pos > 0 {
            if aligned(pos) {
                if let Some(r) = self.runs.get(&key(b, pos)) {
                    if self.run_holds(bucket, pos, r) {
                        if hi > pos {
                            path.push(Stretch::Items { lo: pos, hi });
                        }
                        path.push(Stretch::Jump {
                            hi: pos,
                            latest: r.latest,
                            stamp: r.stamp,
                        });
                        pos = r.to;
                        hi = pos;
                        continue;
                    }
                }
            }
            if self.entries[bucket[pos as usize - 1].entry as usize].state != GONE {
                break;
            }
            pos -= 1;
        }
        if hi > pos {
            path.push(Stretch::Items { lo: pos, hi });
        }
        cur.streams[0].1 = pos;
        self.record_run(b, pos, &path);
        self.run_path = path;
    }

    /// Whether the record `r` at position `p` of `bucket` still holds.
    #[inline]
    fn run_holds(&self, bucket: &[Item], p: u32, r: &Run) -> bool {
        r.epoch == self.epoch
            && bucket.get(p as usize - 1).is_some_and(|i| i.entry == r.top)
            && self
                .entries
                .get(r.latest as usize)
                .is_some_and(|e| e.state == GONE)
            && self.stamps[r.latest as usize] == r.stamp
    }

    /// Leave records for a run of bucket `b` that ends at `end`, passed as
    /// `path` (top down): at every aligned position passed item by item,
    /// and at every record followed.
    fn record_run(&mut self, b: u32, end: u32, path: &[Stretch]) {
        let bucket = &self.buckets[b as usize];
        let (stamps, runs, epoch) = (&self.stamps, &mut self.runs, self.epoch);
        // The latest change to `GONE` among the items from `end` up to the
        // position being recorded.
        let (mut latest, mut stamp) = (0, 0);
        let mut record = |p: u32, latest: u32, stamp: u64| {
            let top = bucket[p as usize - 1].entry;
            let run = Run {
                to: end,
                top,
                latest,
                stamp,
                epoch,
            };
            runs.insert(key(b, p), run);
        };
        for s in path.iter().rev() {
            match *s {
                Stretch::Items { lo, hi } => {
                    for i in lo..hi {
                        let e = bucket[i as usize].entry;
                        if stamps[e as usize] >= stamp {
                            (latest, stamp) = (e, stamps[e as usize]);
                        }
                        if aligned(i + 1) {
                            record(i + 1, latest, stamp);
                        }
                    }
                }
                Stretch::Jump {
                    hi,
                    latest: l,
                    stamp: s,
                } => {
                    if s >= stamp {
                        (latest, stamp) = (l, s);
                    }
                    record(hi, latest, stamp);
                }
            }
        }
    }
}
