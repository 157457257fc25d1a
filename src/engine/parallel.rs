//! Parallel search: workers on several threads explore disjoint parts of
//! one query's search tree, and what they find comes out in the order of
//! the sequential search, so that the answers, what the program writes
//! and the errors are exactly those of a search on one thread.
//!
//! **Segments.**  The search order is cut into *segments*, kept as a
//! linked list in that order.  The root segment is the whole search of
//! the machine that started the query (the root worker, on the caller's
//! thread).  When a worker splits its machine (`Machine::split`), the
//! part it hands over comes right after what the worker itself will still
//! do, so the new segment goes right after the worker's in the list; a
//! helper thread takes it and runs it on a machine of its own.  Each
//! helper keeps what its segment produces (text written, answers, the
//! end with its figures, or an error) as [`Item`]s, and the reader (the
//! root worker's thread, once its own segment is done) takes them
//! segment by segment with [`Pool::next`].
//!
//! **When work moves.**  A helper with nothing to do says so (`Splits::wanted`);
//! the busy workers look at their periodic checks, and one that can split
//! its search hands the split-off part over (`Splits::give`).  Helper
//! threads are started at the root's first check, so a query that ends
//! before it (a few thousand steps) never starts one.
//!
//! **Figures.**  Each helper counts its inferences from zero; an answer
//! carries the inferences made in its segment since the segment's
//! previous item, and the end of a segment the rest, with its collections
//! and look-ahead record figures.  Summed in segment order, the
//! inferences are those of the sequential search up to the same point
//! (what a call does does not depend on which worker makes it).

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use super::machine::fork::{Forked, PoolLink};
use super::machine::{Event, GcStats, Host, Machine};
use crate::diagnostics::RuntimeError;

/// What a worker's machine asks of its pool (see [`Machine::split`]).
pub(crate) trait Splits: Send + Sync {
    /// Whether a worker waits for work (called at every periodic check of
    /// a working machine; the first call from the root starts the helper
    /// threads).
    fn wanted(&self) -> bool;
    /// Take `work`, split off the search of segment `segment`.
    fn give(&self, segment: u32, work: Forked);
}

/// What a segment of the search produced, in order.
#[derive(Debug)]
pub enum Item<A> {
    /// Text the program wrote.
    Output(String),
    /// An answer, as the pool's handler made it, and the segment's
    /// figures since its previous item.
    Answer(A, Figures),
    /// The segment's search is over (exhausted, or stopped after as many
    /// answers as a segment may need), with its figures since its previous
    /// item.
    End(Figures),
    /// The segment's search stopped with an error, with its figures since
    /// its previous item.
    Error(RuntimeError, Figures),
}

/// The figures of one worker's search.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Inferences not yet counted with an answer.
    pub inferences: u64,
    /// What its garbage collector did.
    pub gc: GcStats,
    /// Its look-ahead record's decisions made and recalled.
    pub record: (u64, u64),
    /// The proofs it rejected for leaving linear resources unused, and
    /// the first resource so left, printed (see [`Machine::left_unused`]).
    pub left_unused: (u64, Option<String>),
}

impl Figures {
    /// The figures of `m`'s search so far.
    pub fn of(m: &Machine) -> Figures {
        let (left, first) = m.left_unused();
        let (made, recalled, _) = m.lookahead_record();
        Figures {
            inferences: m.inferences,
            gc: m.gc_stats(),
            record: (made, recalled),
            left_unused: (left, first.map(str::to_string)),
        }
    }

    /// What these figures (of a search) add to `before` (of the same
    /// search, earlier).
    pub fn since(&self, before: &Figures) -> Figures {
        Figures {
            inferences: self.inferences - before.inferences,
            gc: GcStats {
                runs: self.gc.runs - before.gc.runs,
                reclaimed: self.gc.reclaimed - before.gc.reclaimed,
            },
            record: (
                self.record.0 - before.record.0,
                self.record.1 - before.record.1,
            ),
            left_unused: (
                self.left_unused.0 - before.left_unused.0,
                match before.left_unused.1 {
                    Some(_) => None,
                    None => self.left_unused.1.clone(),
                },
            ),
        }
    }

    /// Add `other`'s figures; the first resource left unused stays this
    /// one's when it has one (segments are added in search order).
    pub fn add(&mut self, other: &Figures) {
        self.inferences += other.inferences;
        self.gc.runs += other.gc.runs;
        self.gc.reclaimed += other.gc.reclaimed;
        self.record.0 += other.record.0;
        self.record.1 += other.record.1;
        self.left_unused.0 += other.left_unused.0;
        if self.left_unused.1.is_none() {
            self.left_unused.1.clone_from(&other.left_unused.1);
        }
    }
}

/// What [`Pool::next`] found.
#[derive(Debug)]
pub enum Next<A> {
    /// The next item in search order.
    Item(Item<A>),
    /// Nothing yet, after the time given: the caller may check for an
    /// interrupt and ask again.
    Wait,
    /// Every segment has been read.
    End,
}

/// A parallel search (see the module doc).  Made by the root worker's
/// caller before the query runs; the root machine joins it with
/// `Pool::splits`.
pub struct Pool<A: Send + 'static> {
    shared: Arc<Shared<A>>,
}

/// The answers a segment needs at most, the handler that makes an
/// answer's payload from a machine stopped at it, and the number of
/// workers.
type Handler<A> = Box<dyn Fn(&mut Machine) -> A + Send + Sync>;

struct Shared<A: Send + 'static> {
    me: Weak<Shared<A>>,
    state: Mutex<State<A>>,
    /// Idle helpers wait here for work.
    work: Condvar,
    /// The reader waits here for items.
    items: Condvar,
    /// Whether a busy worker should split (an idle helper waits).
    want: AtomicBool,
    started: AtomicBool,
    /// The interrupt flag of every helper's machine: set to stop them.
    cancel: Arc<AtomicBool>,
    handler: Handler<A>,
    per_segment: Option<usize>,
    workers: usize,
    /// Split at every check, whether or not a helper waits (for tests).
    stress: bool,
}

struct State<A> {
    segments: Vec<Segment<A>>,
    /// The segment the reader is at.
    head: usize,
    queue: VecDeque<(u32, Forked)>,
    idle: usize,
    /// Helpers running a segment.
    running: usize,
    root_running: bool,
    stopped: bool,
    threads: Vec<JoinHandle<()>>,
    splits: u64,
}

struct Segment<A> {
    items: VecDeque<Item<A>>,
    done: bool,
    next: Option<usize>,
}

impl<A> Segment<A> {
    fn new(next: Option<usize>) -> Self {
        Segment {
            items: VecDeque::new(),
            done: false,
            next,
        }
    }
}

/// Most pieces of work waiting at once under `LOLLI_SPLIT_STRESS`.
const STRESS_QUEUE: usize = 4;

impl<A: Send + 'static> Pool<A> {
    /// A pool of `workers` workers (the root and `workers - 1` helpers,
    /// one more once the root is done) whose helpers make each answer's
    /// payload with `handler` and stop a segment after `per_segment`
    /// answers.  With `stress`, busy workers split at every check they
    /// can (tests use it to split often).
    pub fn new(
        workers: usize,
        per_segment: Option<usize>,
        stress: bool,
        handler: impl Fn(&mut Machine) -> A + Send + Sync + 'static,
    ) -> Self {
        let shared = Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            state: Mutex::new(State {
                segments: vec![Segment::new(None)],
                head: 0,
                queue: VecDeque::new(),
                idle: 0,
                running: 0,
                root_running: true,
                stopped: false,
                threads: Vec::new(),
                splits: 0,
            }),
            work: Condvar::new(),
            items: Condvar::new(),
            want: AtomicBool::new(false),
            started: AtomicBool::new(false),
            cancel: Arc::new(AtomicBool::new(false)),
            handler: Box::new(handler),
            per_segment,
            workers: workers.max(1),
            stress,
        });
        Pool { shared }
    }

    /// What the root machine joins the pool with.
    pub(crate) fn splits(&self) -> Arc<dyn Splits> {
        self.shared.clone()
    }

    /// Whether the helpers were started (at the root's first periodic
    /// check): only then may the search have been split.
    pub fn started(&self) -> bool {
        self.shared.started.load(Ordering::Relaxed)
    }

    /// How many times the search was split.
    pub fn splits_made(&self) -> u64 {
        self.shared.lock().splits
    }

    /// The root worker's segment is over: from now on its thread reads
    /// the other segments, and one more helper works in its place.
    pub fn root_done(&self) {
        let mut st = self.shared.lock();
        st.root_running = false;
        st.segments[0].done = true;
        if self.shared.started.load(Ordering::Relaxed) && !st.stopped {
            if let Some(t) = self.shared.spawn() {
                st.threads.push(t);
            }
        }
        self.shared.work.notify_all();
    }

    /// The next item after the root's segment, in search order (call
    /// after [`Pool::root_done`]); [`Next::Wait`] when none came within
    /// `wait`.
    pub fn next(&self, wait: Duration) -> Next<A> {
        let mut st = self.shared.lock();
        loop {
            let h = st.head;
            if let Some(item) = st.segments[h].items.pop_front() {
                return Next::Item(item);
            }
            if st.segments[h].done {
                match st.segments[h].next {
                    Some(n) => {
                        st.head = n;
                        continue;
                    }
                    None => return Next::End,
                }
            }
            let (guard, timeout) = self
                .shared
                .items
                .wait_timeout(st, wait)
                .unwrap_or_else(|e| e.into_inner());
            st = guard;
            if timeout.timed_out() {
                return Next::Wait;
            }
        }
    }

    /// Stop every helper and wait for their threads to end.
    pub fn stop(&self) {
        let threads = {
            let mut st = self.shared.lock();
            st.stopped = true;
            st.queue.clear();
            self.shared.cancel.store(true, Ordering::Relaxed);
            self.shared.work.notify_all();
            std::mem::take(&mut st.threads)
        };
        for t in threads {
            let _ = t.join();
        }
    }
}

impl<A: Send + 'static> Drop for Pool<A> {
    fn drop(&mut self) {
        self.stop();
    }
}

impl<A: Send + 'static> Shared<A> {
    fn lock(&self) -> MutexGuard<'_, State<A>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Start a helper thread (none once the pool is stopped, or when the
    /// system will not make one: the search then goes on with fewer).
    fn spawn(&self) -> Option<JoinHandle<()>> {
        let me = self.me.upgrade()?;
        std::thread::Builder::new()
            .name("lolli-worker".into())
            .stack_size(WORKER_STACK)
            .spawn(move || me.helper())
            .ok()
    }

    /// Whether a busy worker should split now: an idle helper waits for
    /// work that is not queued yet.
    fn update_want(&self, st: &State<A>) {
        let want = if self.stress {
            st.queue.len() < STRESS_QUEUE
        } else {
            st.idle > st.queue.len()
        };
        self.want.store(want && !st.stopped, Ordering::Relaxed);
    }

    /// A helper thread: take work until there is none left.
    fn helper(self: Arc<Self>) {
        while let Some((segment, work)) = self.take() {
            let ran = std::panic::catch_unwind(AssertUnwindSafe(|| self.run(segment, work)));
            let mut st = self.lock();
            if ran.is_err() {
                let e = RuntimeError::new("internal error: a worker of the parallel search failed");
                let item = Item::Error(e, Figures::default());
                st.segments[segment as usize].items.push_back(item);
            }
            st.segments[segment as usize].done = true;
            st.running -= 1;
            self.update_want(&st);
            self.items.notify_all();
            self.work.notify_all();
        }
    }

    /// The next piece of work for a helper; `None` when the search is
    /// over or stopped.
    fn take(&self) -> Option<(u32, Forked)> {
        let mut st = self.lock();
        st.idle += 1;
        loop {
            if st.stopped {
                break;
            }
            if let Some(w) = st.queue.pop_front() {
                st.idle -= 1;
                st.running += 1;
                self.update_want(&st);
                return Some(w);
            }
            if !st.root_running && st.running == 0 {
                break;
            }
            self.update_want(&st);
            st = self.work.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.idle -= 1;
        self.update_want(&st);
        self.work.notify_all();
        None
    }

    /// Run the search split off into segment `segment` to its end.
    fn run(&self, segment: u32, work: Forked) {
        let Some(me) = self.me.upgrade() else {
            return;
        };
        let host = Box::new(SegmentHost {
            pool: me.clone(),
            segment,
        });
        let link = PoolLink {
            pool: me,
            segment,
            since: 0,
            often: self.stress,
        };
        let mut m = Machine::from_forked(work, host, self.cancel.clone(), link);
        if self.stress {
            m.split_often();
        }
        let (mut answers, mut reported) = (0, Figures::default());
        loop {
            match m.next_answer() {
                Ok(Event::Answer) => {
                    let a = (self.handler)(&mut m);
                    let now = Figures::of(&m);
                    self.push(segment, Item::Answer(a, now.since(&reported)));
                    reported = now;
                    answers += 1;
                    if self.per_segment.is_some_and(|n| answers >= n) {
                        break;
                    }
                }
                Ok(Event::Exhausted) => break,
                Ok(other) => {
                    let e = RuntimeError::new(format!(
                        "internal error: {other:?} in a parallel search"
                    ));
                    self.push(segment, Item::Error(e, Figures::of(&m).since(&reported)));
                    return;
                }
                Err(e) => {
                    self.push(segment, Item::Error(e, Figures::of(&m).since(&reported)));
                    return;
                }
            }
        }
        self.push(segment, Item::End(Figures::of(&m).since(&reported)));
    }

    fn push(&self, segment: u32, item: Item<A>) {
        let mut st = self.lock();
        let items = &mut st.segments[segment as usize].items;
        match (items.back_mut(), item) {
            (Some(Item::Output(text)), Item::Output(more)) => text.push_str(&more),
            (_, item) => items.push_back(item),
        }
        self.items.notify_all();
    }
}

impl<A: Send + 'static> Splits for Shared<A> {
    fn wanted(&self) -> bool {
        if !self.started.swap(true, Ordering::Relaxed) {
            let mut st = self.lock();
            for _ in 1..self.workers {
                if let Some(t) = self.spawn() {
                    st.threads.push(t);
                }
            }
            self.update_want(&st);
        }
        self.want.load(Ordering::Relaxed)
    }

    fn give(&self, segment: u32, work: Forked) {
        let mut st = self.lock();
        if st.stopped {
            return;
        }
        let t = st.segments.len();
        let next = st.segments[segment as usize].next;
        st.segments.push(Segment::new(next));
        st.segments[segment as usize].next = Some(t);
        st.queue.push_back((t as u32, work));
        st.splits += 1;
        self.update_want(&st);
        self.work.notify_one();
    }
}

/// The native stack of a helper thread: as deep as the command line's
/// main thread allows, since a helper runs the same searches.
const WORKER_STACK: usize = 256 * 1024 * 1024;

/// A helper's host: what its program writes becomes its segment's items.
/// It reads nothing (a parallel search never runs `read`).
struct SegmentHost<A: Send + 'static> {
    pool: Arc<Shared<A>>,
    segment: u32,
}

impl<A: Send + 'static> Host for SegmentHost<A> {
    fn write(&mut self, text: &str) {
        self.pool.push(self.segment, Item::Output(text.to_string()));
    }
    fn read_line(&mut self) -> Option<String> {
        None
    }
}
