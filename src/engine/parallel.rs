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
//! **When work moves.**  At its periodic checks a working machine asks
//! its pool what to do (`Splits::poll`).  It splits when a helper waits
//! with nothing to take.  When only the first answers are wanted (a
//! limit), the part of the search right after the head segment's worker
//! is the one that decides how soon they come, so the head's worker also
//! splits whenever no part is waiting (queued or set aside), and a helper
//! working further right sets its part aside to take that one: the
//! helper *pauses* its machine ([`Event::Paused`]) and keeps it, and
//! always works on the leftmost part it can (taken from the queue or set
//! aside by itself).  An exhaustive search splits only for idle helpers.
//! Helper threads are started at the root's first check, so a query that
//! ends before it (a thousand steps) never starts one.  Stopping the pool
//! (the query's end) tells them to end and does not wait for them: each
//! ends by itself, at once if idle, else at its machine's next check.
//!
//! **Figures.**  Each helper counts its inferences from zero; an answer
//! carries the inferences made in its segment since the segment's
//! previous item, and the end of a segment the rest, with its collections
//! and look-ahead record figures.  Summed in segment order, the
//! inferences are those of the sequential search up to the same point
//! (what a call does does not depend on which worker makes it).

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::machine::fork::{Forked, PoolLink, TemplateCache};
use super::machine::{Event, GcStats, Host, Machine};
use crate::diagnostics::RuntimeError;

/// What a working machine should do at a periodic check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Poll {
    /// Go on.
    Nothing,
    /// Split off work, if the search can be split.
    Split,
    /// Stop with [`Event::Paused`]: a part of the search to the left of
    /// this one waits for this thread.
    Pause,
}

/// What a worker's machine asks of its pool (see [`Machine::split`]).
pub(crate) trait Splits: Send + Sync {
    /// What worker `worker` (0 the root), working on segment `segment`,
    /// should do (called at every periodic check; the root's first call
    /// starts the helper threads).
    fn poll(&self, worker: u32, segment: u32) -> Poll;
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
    /// Whether its look-ahead record is turned off (it stopped itself, or
    /// the record it started from, its giver's, had).
    pub record_off: bool,
    /// The proofs it rejected for leaving linear resources unused, and
    /// the first resource so left, printed (see [`Machine::left_unused`]).
    pub left_unused: (u64, Option<String>),
}

impl Figures {
    /// The figures of `m`'s search so far.
    pub fn of(m: &Machine) -> Figures {
        let (left, first) = m.left_unused();
        let (made, recalled, on) = m.lookahead_record();
        Figures {
            inferences: m.inferences,
            gc: m.gc_stats(),
            record: (made, recalled),
            record_off: !on,
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
            record_off: self.record_off,
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
        self.gc.add(other.gc);
        self.record.0 += other.record.0;
        self.record.1 += other.record.1;
        self.record_off |= other.record_off;
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

/// What makes an answer's payload from a machine stopped at it.
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
    /// The segment the reader is at, for [`Splits::poll`].
    head: AtomicU32,
    /// Whether no part of the search waits to be taken up (queued or
    /// set aside), for [`Splits::poll`].
    none_waiting: AtomicBool,
    /// By worker: a part to the left of its own waits for it.
    pause: Vec<AtomicBool>,
    started: AtomicBool,
    /// The interrupt flag of every helper's machine: set to stop them.
    cancel: Arc<AtomicBool>,
    handler: Handler<A>,
    /// The answers a segment needs at most (a limit on the answers
    /// shown or counted); with one, the search goes leftmost first.
    per_segment: Option<usize>,
    /// Workers at first: the root and `workers - 1` helper threads.
    workers: usize,
    /// Split at every check, whether or not a helper waits (for tests).
    stress: bool,
}

struct State<A> {
    segments: Vec<Segment<A>>,
    /// The segment the reader is at (every segment before it is read).
    head: usize,
    queue: Vec<(u32, Forked)>,
    /// By helper (worker id - 1): the segment it runs, if any, and the
    /// segments it set aside.
    helpers: Vec<Helper>,
    /// Helpers waiting for work.
    idle: usize,
    root_running: bool,
    stopped: bool,
    splits: u64,
}

#[derive(Clone, Default)]
struct Helper {
    running: Option<u32>,
    aside: Vec<u32>,
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

impl<A> State<A> {
    /// The position of segment `s` in the search order, counted from the
    /// reader's (segments already read come before every other).
    fn order(&self, s: u32) -> usize {
        let mut at = Some(self.head);
        let mut n = 0;
        while let Some(i) = at {
            if i == s as usize {
                return n;
            }
            n += 1;
            at = self.segments[i].next;
        }
        if self.segments[s as usize].done {
            0
        } else {
            usize::MAX
        }
    }
}

/// Most pieces of work waiting at once under `LOLLI_SPLIT_STRESS`.
const STRESS_QUEUE: usize = 4;

/// A helper's piece of the search: its segment, its machine, and what it
/// has reported so far.
struct Job {
    segment: u32,
    machine: Machine,
    /// Whether the machine resumes by backtracking (fresh from a split,
    /// or stopped at an answer) rather than where it paused.
    backtrack: bool,
    answers: usize,
    reported: Figures,
}

/// How a helper's run of a job ended.
enum Ran {
    /// The segment is over (its last item pushed).
    Done,
    /// Paused for a part to the left.
    Paused,
}

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
        let workers = workers.max(1);
        let shared = Arc::new_cyclic(|me| Shared {
            me: me.clone(),
            state: Mutex::new(State {
                segments: vec![Segment::new(None)],
                head: 0,
                queue: Vec::new(),
                helpers: Vec::new(),
                idle: 0,
                root_running: true,
                stopped: false,
                splits: 0,
            }),
            work: Condvar::new(),
            items: Condvar::new(),
            want: AtomicBool::new(false),
            head: AtomicU32::new(0),
            none_waiting: AtomicBool::new(true),
            pause: (0..=workers).map(|_| AtomicBool::new(false)).collect(),
            started: AtomicBool::new(false),
            cancel: Arc::new(AtomicBool::new(false)),
            handler: Box::new(handler),
            per_segment,
            workers,
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
            let id = st.helpers.len() + 1;
            if id < self.shared.pause.len() && self.shared.spawn(id as u32) {
                st.helpers.push(Helper::default());
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
                        self.shared.head.store(n as u32, Ordering::Relaxed);
                        self.shared.update_flags(&st);
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

    /// Stop every helper: an idle one ends now, a working one at its
    /// machine's next check (its interrupt flag is set), and what either
    /// would still produce is dropped with the pool.  Their threads are
    /// not waited for: they share nothing with the caller but the pool's
    /// state, and waiting (each woken, ended and its stack unmapped) took
    /// 0.4 ms at the end of every first-answer query on two workers.
    pub fn stop(&self) {
        let mut st = self.shared.lock();
        st.stopped = true;
        st.queue.clear();
        self.shared.cancel.store(true, Ordering::Relaxed);
        self.shared.work.notify_all();
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

    /// Start helper thread `id`, whose end is not waited for (see
    /// [`Pool::stop`]); false once the pool is gone, or when the system
    /// will not make a thread (the search then goes on with fewer).
    fn spawn(&self, id: u32) -> bool {
        let Some(me) = self.me.upgrade() else {
            return false;
        };
        std::thread::Builder::new()
            .name("lolli-worker".into())
            .stack_size(WORKER_STACK)
            .spawn(move || me.helper(id))
            .is_ok()
    }

    /// Keep the flags [`Splits::poll`] reads in step with the state.
    fn update_flags(&self, st: &State<A>) {
        let waiting = !st.queue.is_empty() || st.helpers.iter().any(|h| !h.aside.is_empty());
        self.none_waiting.store(!waiting, Ordering::Relaxed);
        let want = if self.stress {
            st.queue.len() < STRESS_QUEUE
        } else {
            st.idle > st.queue.len()
        };
        self.want.store(want && !st.stopped, Ordering::Relaxed);
    }

    /// A helper thread: run the leftmost part of the search it can until
    /// there is none left.
    fn helper(self: Arc<Self>, id: u32) {
        let mut aside: Vec<Job> = Vec::new();
        let mut cache = TemplateCache::default();
        while let Some(mut job) = self.take(id, &mut aside, &mut cache) {
            let ran = std::panic::catch_unwind(AssertUnwindSafe(|| self.run(&mut job)));
            let mut st = self.lock();
            let helper = &mut st.helpers[id as usize - 1];
            helper.running = None;
            match ran {
                Ok(Ran::Paused) => {
                    helper.aside.push(job.segment);
                    aside.push(job);
                }
                Ok(Ran::Done) => st.segments[job.segment as usize].done = true,
                Err(_) => {
                    let e =
                        RuntimeError::new("internal error: a worker of the parallel search failed");
                    let segment = &mut st.segments[job.segment as usize];
                    segment.items.push_back(Item::Error(e, Figures::default()));
                    segment.done = true;
                }
            }
            self.update_flags(&st);
            self.items.notify_all();
            self.work.notify_all();
        }
    }

    /// The next job for helper `id`: the leftmost of the queued parts and
    /// those it set aside (`aside`); `None` when the search is over or
    /// stopped.
    fn take(&self, id: u32, aside: &mut Vec<Job>, cache: &mut TemplateCache) -> Option<Job> {
        let mut st = self.lock();
        let me = id as usize - 1;
        let mut idle = false;
        let job = loop {
            if st.stopped {
                break None;
            }
            let queued = (0..st.queue.len()).min_by_key(|&i| st.order(st.queue[i].0));
            let mine = (0..aside.len()).min_by_key(|&i| st.order(aside[i].segment));
            let take_queued = match (queued, mine) {
                (Some(q), Some(a)) => st.order(st.queue[q].0) < st.order(aside[a].segment),
                (Some(_), None) => true,
                (None, _) => false,
            };
            // (A pause asked for before this choice is answered by it; one
            // asked for after it stays, as the flag is cleared here.)
            if let (true, Some(q)) = (take_queued, queued) {
                let (segment, work) = st.queue.swap_remove(q);
                self.pause[id as usize].store(false, Ordering::Relaxed);
                st.helpers[me].running = Some(segment);
                self.update_flags(&st);
                drop(st);
                let job = self.job(id, segment, work, cache);
                st = self.lock();
                break job;
            }
            if let Some(a) = mine {
                let job = aside.swap_remove(a);
                self.pause[id as usize].store(false, Ordering::Relaxed);
                let helper = &mut st.helpers[me];
                helper.aside.retain(|&s| s != job.segment);
                helper.running = Some(job.segment);
                break Some(job);
            }
            let busy = st
                .helpers
                .iter()
                .any(|h| h.running.is_some() || !h.aside.is_empty());
            if !st.root_running && !busy {
                break None;
            }
            if !idle {
                idle = true;
                st.idle += 1;
            }
            self.update_flags(&st);
            st = self.work.wait(st).unwrap_or_else(|e| e.into_inner());
        };
        if idle {
            st.idle -= 1;
        }
        self.update_flags(&st);
        if job.is_none() {
            self.work.notify_all();
            self.items.notify_all();
        }
        job
    }

    /// Helper `id`'s job of the work split off into `segment` (made
    /// outside the lock: the copy is rebuilt into a machine); `None` once
    /// the pool is gone.
    fn job(&self, id: u32, segment: u32, work: Forked, cache: &mut TemplateCache) -> Option<Job> {
        let pool = self.me.upgrade()?;
        let host = Box::new(SegmentHost {
            pool: pool.clone(),
            segment,
        });
        let link = PoolLink {
            pool,
            segment,
            worker: id,
            since: 0,
            often: self.stress,
            program: None,
        };
        let mut machine = Machine::from_forked(work, host, self.cancel.clone(), link, cache);
        if self.stress {
            machine.split_often();
        }
        Some(Job {
            segment,
            machine,
            backtrack: true,
            answers: 0,
            reported: Figures::default(),
        })
    }

    /// Run `job` until its segment is over or it pauses.
    fn run(&self, job: &mut Job) -> Ran {
        let segment = job.segment;
        loop {
            let m = &mut job.machine;
            let ev = if job.backtrack {
                m.next_answer()
            } else {
                m.resume()
            };
            match ev {
                Ok(Event::Answer) => {
                    job.backtrack = true;
                    let a = (self.handler)(m);
                    let now = Figures::of(m);
                    self.push(segment, Item::Answer(a, now.since(&job.reported)));
                    job.reported = now;
                    job.answers += 1;
                    if self.per_segment.is_some_and(|n| job.answers >= n) {
                        break;
                    }
                }
                Ok(Event::Paused) => {
                    job.backtrack = false;
                    return Ran::Paused;
                }
                Ok(Event::Exhausted) => break,
                Ok(other) => {
                    let e = RuntimeError::new(format!(
                        "internal error: {other:?} in a parallel search"
                    ));
                    let f = Figures::of(m).since(&job.reported);
                    self.push(segment, Item::Error(e, f));
                    return Ran::Done;
                }
                Err(e) => {
                    let f = Figures::of(m).since(&job.reported);
                    self.push(segment, Item::Error(e, f));
                    return Ran::Done;
                }
            }
        }
        let f = Figures::of(&job.machine).since(&job.reported);
        self.push(segment, Item::End(f));
        Ran::Done
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
    fn poll(&self, worker: u32, segment: u32) -> Poll {
        if !self.started.swap(true, Ordering::Relaxed) {
            let mut st = self.lock();
            for id in 1..self.workers {
                if self.spawn(id as u32) {
                    st.helpers.push(Helper::default());
                }
            }
            self.update_flags(&st);
        }
        if worker != 0 && self.pause[worker as usize].swap(false, Ordering::Relaxed) {
            return Poll::Pause;
        }
        let leftmost = self.per_segment.is_some()
            && self.none_waiting.load(Ordering::Relaxed)
            && self.head.load(Ordering::Relaxed) == segment;
        if leftmost || self.want.load(Ordering::Relaxed) {
            Poll::Split
        } else {
            Poll::Nothing
        }
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
        st.queue.push((t as u32, work));
        st.splits += 1;
        if st.idle > 0 {
            self.work.notify_one();
        } else if self.per_segment.is_some() {
            // The helper working furthest right, if right of this part,
            // sets its part aside for it.
            let at = st.order(t as u32);
            let furthest = (0..st.helpers.len())
                .filter_map(|i| Some((i, st.order(st.helpers[i].running?))))
                .filter(|&(_, o)| o > at)
                .max_by_key(|&(_, o)| o);
            if let Some((i, _)) = furthest {
                self.pause[i + 1].store(true, Ordering::Relaxed);
            }
        }
        self.update_flags(&st);
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
