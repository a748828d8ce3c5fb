//! The threads timed calls run on: a pool of reused threads, one per dispatcher, bounded,
//! that counts the calls it holds for callers that gave up.
//!
//! A timed call must not run on its caller's runtime thread, or a skill that never yields
//! would keep the caller from answering `timeout` (see `execute.rs`). Creating a thread per
//! call kept that promise at the price of a `clone`, a stack mapping and its unmapping per
//! call (most of the time of a review of 20,000 clauses). This pool keeps its threads: a
//! thread is created only when every thread is busy and the pool is under its bound, and an
//! idle thread ends after [`IDLE_TIMEOUT`].
//!
//! Why a pool of its own and not Tokio's blocking pool (`spawn_blocking`):
//! - a call abandoned to its thread (a skill looping past its limit) holds that thread for
//!   good; in Tokio's pool it would take a thread from `tokio::fs`, DNS lookups and every
//!   other `spawn_blocking` user of the runtime, and once that pool is full new work waits
//!   in its queue without a word. Here the bound is the dispatcher's own, abandoned calls are
//!   counted, and a call that finds every thread held by one is refused at once
//!   (`overloaded`), with the counts in the error and the log;
//! - it hands a call over with one lock and at most one wake-up (about a third of
//!   `spawn_blocking`'s CPU per call, BENCHMARKS.md "Why a pool of its own"), and works the
//!   same under a current-thread runtime.
//!
//! The wake-ups are most of what a short call costs, so a thread that finished a call looks
//! for the next one before it sleeps ([`THREAD_SPIN`], or twice the last gap between calls
//! when calls come in a steady stream, up to [`THREAD_SPIN_MAX`]), and says it is free before it
//! answers (a caller that calls again at once finds it, instead of waking or starting
//! another thread). A call submitted while a thread looks needs no wake-up: that thread
//! takes it. The looking is bounded: an idle pool sleeps on its condition variable.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Default bound on the threads of one dispatcher's pool (as Tokio's blocking pool).
pub const DEFAULT_MAX_CALL_THREADS: usize = 512;

/// How long an idle thread waits for work before it ends.
const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a thread that finished a call looks for the next one before it sleeps, at
/// least: long enough for a caller that calls again at once (a review's clause task), short
/// enough that an idle pool costs nothing.
const THREAD_SPIN: Duration = Duration::from_micros(50);

/// The longest a thread looks: calls that come in a steady stream a little further apart
/// than [`THREAD_SPIN`] (an MCP client's round trips) are looked for twice the last gap,
/// up to this; calls further apart are not worth a core's time, and a sleeping thread is
/// woken for them.
const THREAD_SPIN_MAX: Duration = Duration::from_micros(250);

/// How long to look for the next call after the last one came `gap` after its forerunner.
fn look_time(gap: Duration) -> Duration {
    if gap > THREAD_SPIN_MAX {
        THREAD_SPIN
    } else {
        (gap * 2).clamp(THREAD_SPIN, THREAD_SPIN_MAX)
    }
}

/// A snapshot of a dispatcher's call threads ([`crate::Dispatcher::call_threads`]), for
/// health checks and logs: how many exist, how many wait for work, and how many are held by
/// calls whose caller stopped waiting (time limit passed, or the call was cancelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallThreadStats {
    /// Threads alive (busy or idle).
    pub threads: usize,
    /// Threads waiting for a call.
    pub idle: usize,
    /// Threads still running a call nobody waits for any more; each is free again when its
    /// skill returns.
    pub abandoned: usize,
    /// The bound: at most this many threads. At the bound a timed call waits for a thread
    /// (at most until its own limit), or is refused at once with `overloaded` when every
    /// thread is held by an abandoned call.
    pub max_threads: usize,
}

/// Why the pool could not take a call.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The pool is at its bound and every thread is held by an abandoned call.
    Full(CallThreadStats),
    /// The pool needed a thread and the operating system gave none.
    NoThread(std::io::Error),
}

/// One dispatcher's call threads (shared by its clones). Threads end when idle for
/// [`IDLE_TIMEOUT`] or once the dispatcher is dropped.
#[derive(Debug)]
pub(crate) struct CallThreads {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    work: Condvar,
    /// The queue's length, read without the lock by threads looking for work.
    queued: AtomicUsize,
    max_threads: usize,
    abandoned: AtomicUsize,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Job>,
    threads: usize,
    /// Threads free for a call: looking for one ([`Self::spinning`]) or asleep.
    idle: usize,
    /// Idle threads still looking for a call before they sleep: each takes a queued call
    /// without being woken, and checks the queue under the lock before it sleeps.
    spinning: usize,
    closed: bool,
}

/// What a call's code is given to say its thread is free again, just before it hands its
/// answer back (the caller may call again at once, and should find the thread idle).
pub(crate) type Finishing<'a> = &'a dyn Fn();

/// A call handed to the pool, with the slot its caller watches.
struct Job {
    run: Box<dyn FnOnce(Finishing<'_>) + Send>,
    slot: Arc<Slot>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").field("slot", &self.slot).finish()
    }
}

/// Where a call stands; shared by the caller's [`Ticket`] and the thread.
#[derive(Debug)]
struct Slot {
    state: AtomicU8,
    skill: &'static str,
}

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
const ABANDONED: u8 = 3;
const CANCELLED: u8 = 4;

impl CallThreads {
    /// An empty pool of at most `max_threads` threads (at least one).
    pub(crate) fn new(max_threads: usize) -> Self {
        CallThreads {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                queued: AtomicUsize::new(0),
                max_threads: max_threads.max(1),
                abandoned: AtomicUsize::new(0),
            }),
        }
    }

    /// The pool's counts now.
    pub(crate) fn stats(&self) -> CallThreadStats {
        self.shared.stats(&self.shared.lock())
    }

    /// Idle threads still looking for a call, for tests: an idle pool must sleep.
    #[cfg(test)]
    fn spinning(&self) -> usize {
        self.shared.lock().spinning
    }

    /// Runs `run` on a thread of the pool: an idle one, else a new one while under the
    /// bound, else the next one to finish its call; refused when every thread is held by
    /// an abandoned call. `run` calls its [`Finishing`] just before it answers its caller.
    /// The [`Ticket`] tells the pool when the caller stops waiting.
    pub(crate) fn submit(
        &self,
        skill: &'static str,
        run: impl FnOnce(Finishing<'_>) + Send + 'static,
    ) -> Result<Ticket, Refusal> {
        let slot = Arc::new(Slot {
            state: AtomicU8::new(QUEUED),
            skill,
        });
        let job = Job {
            run: Box::new(run),
            slot: Arc::clone(&slot),
        };
        let ticket = Ticket {
            slot,
            shared: Arc::clone(&self.shared),
            armed: true,
        };
        let mut state = self.shared.lock();
        if state.idle > state.queue.len() {
            state.queue.push_back(job);
            self.shared
                .queued
                .store(state.queue.len(), Ordering::Release);
            // Threads still looking take the first calls themselves; a sleeping one is
            // woken only for a call beyond them.
            let wake = state.queue.len() > state.spinning;
            drop(state);
            if wake {
                self.shared.work.notify_one();
            }
            return Ok(ticket);
        }
        if state.threads >= self.shared.max_threads {
            let stats = self.shared.stats(&state);
            if stats.abandoned < stats.threads {
                // A thread running a live call (or finishing one) takes it next; the caller
                // waits at most until its own time limit, then the call is dropped unrun.
                state.queue.push_back(job);
                self.shared
                    .queued
                    .store(state.queue.len(), Ordering::Release);
                return Ok(ticket);
            }
            drop(state);
            // Every thread is held by an abandoned call: none may ever come free.
            ticket.disarm();
            return Err(Refusal::Full(stats));
        }
        state.threads += 1;
        drop(state);
        let shared = Arc::clone(&self.shared);
        // The job goes to the new thread directly, so no other call can take its place.
        let spawned = std::thread::Builder::new()
            .name("skill-call".into())
            .spawn(move || shared.serve(Some(job)));
        match spawned {
            Ok(_) => Ok(ticket),
            Err(err) => {
                self.shared.lock().threads -= 1;
                ticket.disarm();
                Err(Refusal::NoThread(err))
            }
        }
    }
}

impl Drop for CallThreads {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.closed = true;
        state.queue.clear();
        self.shared.queued.store(0, Ordering::Release);
        drop(state);
        self.shared.work.notify_all();
    }
}

impl Shared {
    /// The state; a poisoned lock is taken over (nothing in it can be left half-updated by
    /// a panic: the pool never runs a job while holding it).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stats(&self, state: &State) -> CallThreadStats {
        CallThreadStats {
            threads: state.threads,
            idle: state.idle,
            abandoned: self.abandoned.load(Ordering::Relaxed),
            max_threads: self.max_threads,
        }
    }

    /// A pool thread: runs its first job, then whatever comes, until idle too long or the
    /// pool is closed.
    fn serve(&self, mut job: Option<Job>) {
        let mut look = THREAD_SPIN;
        while let Some(next) = job.take() {
            self.run(next);
            let free = Instant::now();
            // Counted idle and looking since `run` (just before its answer went out).
            job = self.look_for_work(look).or_else(|| self.sleep_for_work());
            look = look_time(free.elapsed());
        }
    }

    /// Counts this thread idle and looking for work (see [`State::spinning`]).
    fn now_idle(&self) {
        let mut state = self.lock();
        state.idle += 1;
        state.spinning += 1;
    }

    /// Takes the next queued call, if any, for a thread counted idle.
    fn take(&self, state: &mut State) -> Option<Job> {
        let job = state.queue.pop_front()?;
        self.queued.store(state.queue.len(), Ordering::Release);
        state.idle -= 1;
        Some(job)
    }

    /// Looks for a call for at most `look` without sleeping, reading the queue's
    /// length without the lock; the thread stays counted as looking (callers submitting
    /// meanwhile wake nobody), so it must go on to [`Self::sleep_for_work`] if it finds none.
    fn look_for_work(&self, look: Duration) -> Option<Job> {
        let started = Instant::now();
        loop {
            for _ in 0..64 {
                if self.queued.load(Ordering::Acquire) > 0 {
                    let mut state = self.lock();
                    if let Some(job) = self.take(&mut state) {
                        state.spinning -= 1;
                        return Some(job);
                    }
                }
                std::hint::spin_loop();
            }
            if started.elapsed() >= look {
                return None;
            }
            // Another thread may need this core (the caller, on a busy machine): spinning
            // without yielding cost several times the CPU it saved on two cores.
            std::thread::yield_now();
        }
    }

    /// Stops looking and sleeps until a call comes: `None` once idle for [`IDLE_TIMEOUT`]
    /// or when the pool is closed (the thread then ends, uncounted).
    fn sleep_for_work(&self) -> Option<Job> {
        let mut state = self.lock();
        // A call queued while this thread looked was not woken for: the queue is checked
        // under the lock before the first wait.
        state.spinning -= 1;
        let idle_since = Instant::now();
        loop {
            if let Some(job) = self.take(&mut state) {
                return Some(job);
            }
            let waited = idle_since.elapsed();
            if state.closed || waited >= IDLE_TIMEOUT {
                state.idle -= 1;
                state.threads -= 1;
                return None;
            }
            state = match self.work.wait_timeout(state, IDLE_TIMEOUT - waited) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// Runs one call; the thread is counted idle when this returns (from the moment the
    /// call said it was finishing, or when it returns without saying so).
    fn run(&self, job: Job) {
        let idle = Cell::new(false);
        let finishing = || {
            if !idle.replace(true) {
                self.now_idle();
            }
        };
        if job
            .slot
            .state
            .compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            finishing();
            return; // the caller left before the call started
        }
        let started = Instant::now();
        // The job catches the skill's panics itself; this guard only keeps a bug in the
        // hand-over from taking the thread's count with it.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (job.run)(&finishing)));
        finishing();
        if job.slot.state.swap(DONE, Ordering::AcqRel) == ABANDONED {
            let abandoned = self.abandoned.fetch_sub(1, Ordering::Relaxed) - 1;
            tracing::info!(
                skill = job.slot.skill,
                ran_ms = started.elapsed().as_millis() as u64,
                abandoned,
                "an abandoned call returned; its thread is free again"
            );
        }
    }
}

/// The caller's hold on a submitted call. Dropped before [`Ticket::disarm`] (the time
/// limit passed, or the caller's future was dropped), it marks the call abandoned: counted
/// and logged while its skill runs on, or never started if it was still queued.
#[derive(Debug)]
pub(crate) struct Ticket {
    slot: Arc<Slot>,
    shared: Arc<Shared>,
    armed: bool,
}

impl Ticket {
    /// The caller has the call's answer: nothing to account for.
    pub(crate) fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let state = &self.slot.state;
        if state
            .compare_exchange(QUEUED, CANCELLED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return;
        }
        if state
            .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            let abandoned = self.shared.abandoned.fetch_add(1, Ordering::Relaxed) + 1;
            let threads = self.shared.lock().threads;
            tracing::warn!(
                skill = self.slot.skill,
                abandoned,
                threads,
                max_threads = self.shared.max_threads,
                "a call was abandoned to its thread, which runs on until the skill returns"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Submits a call that frees its thread before it says it is done on `done`.
    fn submit_finishing_first(pool: &CallThreads, done: mpsc::Sender<()>) {
        pool.submit("t", move |finishing| {
            finishing();
            done.send(()).unwrap();
        })
        .unwrap()
        .disarm();
    }

    /// A submitted call that holds its thread until released.
    struct Held {
        /// Lets the call go on (sending or dropping it).
        release: mpsc::Sender<()>,
        /// Hears once the call runs on a thread.
        started: mpsc::Receiver<()>,
        ticket: Ticket,
    }

    /// Submits a call named `skill` that holds its thread until released, then runs `after`.
    fn hold(
        pool: &CallThreads,
        skill: &'static str,
        after: impl FnOnce() + Send + 'static,
    ) -> Held {
        let (release, wait) = mpsc::channel::<()>();
        let (start, started) = mpsc::channel();
        let ticket = pool
            .submit(skill, move |_| {
                let _ = start.send(());
                let _ = wait.recv();
                after();
            })
            .unwrap();
        Held {
            release,
            started,
            ticket,
        }
    }

    #[test]
    fn threads_are_reused_and_bounded() {
        let pool = CallThreads::new(2);
        let (done, finished) = mpsc::channel();
        for _ in 0..20 {
            let done = done.clone();
            let ticket = pool.submit("t", move |_| done.send(()).unwrap()).unwrap();
            finished.recv().unwrap();
            ticket.disarm();
        }
        // Twenty calls one after another: one thread, maybe two while the first goes idle.
        assert!(pool.stats().threads <= 2, "{:?}", pool.stats());
        assert_eq!(pool.stats().abandoned, 0);
    }

    #[test]
    fn at_the_bound_a_call_waits_for_a_live_call_to_finish() {
        let pool = CallThreads::new(1);
        let (done, finished) = mpsc::channel();
        let first = done.clone();
        let busy = hold(&pool, "busy", move || first.send("busy").unwrap());
        let next = pool
            .submit("next", move |_| done.send("next").unwrap())
            .unwrap();
        busy.release.send(()).unwrap();
        assert_eq!(finished.recv().unwrap(), "busy");
        assert_eq!(finished.recv().unwrap(), "next");
        busy.ticket.disarm();
        next.disarm();
        assert_eq!(pool.stats().threads, 1);
    }

    #[test]
    fn a_call_left_in_the_queue_never_runs() {
        let pool = CallThreads::new(1);
        let (ran, runs) = mpsc::channel();
        let busy = hold(&pool, "busy", || {});
        let queued = pool
            .submit("queued", move |_| ran.send(()).unwrap())
            .unwrap();
        drop(queued); // its caller gave up before a thread took it
        busy.release.send(()).unwrap();
        busy.ticket.disarm();
        assert!(runs.recv().is_err(), "the queued call was dropped unrun");
        assert_eq!(pool.stats().abandoned, 0);
    }

    #[test]
    fn a_full_pool_refuses_and_counts_abandoned_calls() {
        let pool = CallThreads::new(1);
        let stuck = hold(&pool, "stuck", || {});
        stuck.started.recv().unwrap();
        drop(stuck.ticket); // the caller gives up
        assert_eq!(pool.stats().abandoned, 1);
        match pool.submit("next", |_| {}) {
            Err(Refusal::Full(stats)) => {
                assert_eq!(
                    (stats.threads, stats.abandoned, stats.max_threads),
                    (1, 1, 1)
                )
            }
            other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
        }
        stuck.release.send(()).unwrap();
        // The abandoned call returns: its thread is counted free and serves again.
        let deadline = Instant::now() + Duration::from_secs(10);
        while pool.stats().abandoned != 0 || pool.stats().idle != 1 {
            assert!(Instant::now() < deadline, "{:?}", pool.stats());
            std::thread::sleep(Duration::from_millis(5));
        }
        let (done, finished) = mpsc::channel();
        pool.submit("again", move |_| done.send(()).unwrap())
            .unwrap()
            .disarm();
        finished.recv().unwrap();
    }

    #[test]
    fn a_thread_is_free_before_its_caller_has_the_answer() {
        let pool = CallThreads::new(8);
        let (done, finished) = mpsc::channel();
        for _ in 0..2_000 {
            submit_finishing_first(&pool, done.clone());
            finished.recv().unwrap();
        }
        // Every call found the thread that answered the last one idle: no second thread.
        assert_eq!(pool.stats().threads, 1, "{:?}", pool.stats());
    }

    #[test]
    fn an_idle_pool_stops_looking_and_sleeps() {
        let pool = CallThreads::new(4);
        let (done, finished) = mpsc::channel();
        let call = |done: mpsc::Sender<()>| {
            pool.submit("t", move |_| done.send(()).unwrap())
                .unwrap()
                .disarm();
        };
        call(done.clone());
        finished.recv().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while pool.spinning() != 0 || pool.stats().idle != 1 {
            assert!(
                Instant::now() < deadline,
                "still looking: {:?}",
                pool.stats()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        // Asleep, it is woken for the next call.
        call(done);
        finished
            .recv_timeout(Duration::from_secs(5))
            .expect("the sleeping thread was woken");
    }

    #[test]
    fn calls_submitted_while_threads_look_are_all_taken() {
        let pool = Arc::new(CallThreads::new(8));
        // Gaps around THREAD_SPIN: calls arrive while threads look, as they stop looking,
        // and once they sleep. A call nobody takes would wait for IDLE_TIMEOUT.
        let callers: Vec<_> = (0..4u64)
            .map(|caller| {
                let pool = Arc::clone(&pool);
                std::thread::spawn(move || {
                    let (done, finished) = mpsc::channel();
                    for i in 0..400u64 {
                        let gap = Duration::from_micros((i * 7 + caller * 13) % 120);
                        let start = Instant::now();
                        while start.elapsed() < gap {
                            std::hint::spin_loop();
                        }
                        submit_finishing_first(&pool, done.clone());
                        finished
                            .recv_timeout(Duration::from_secs(5))
                            .unwrap_or_else(|_| panic!("call {i} of caller {caller} never ran"));
                    }
                })
            })
            .collect();
        for caller in callers {
            caller.join().unwrap();
        }
        assert_eq!(pool.stats().abandoned, 0);
        assert!(pool.stats().threads <= 8, "{:?}", pool.stats());
    }

    #[test]
    fn a_steady_stream_of_calls_is_looked_for_and_sparse_calls_are_not() {
        // Calls back to back (a review): the shortest look.
        assert_eq!(look_time(Duration::from_micros(3)), THREAD_SPIN);
        // An MCP client's round trips, a little over the shortest look: twice the gap.
        assert_eq!(
            look_time(Duration::from_micros(90)),
            Duration::from_micros(180)
        );
        assert_eq!(look_time(Duration::from_micros(200)), THREAD_SPIN_MAX);
        // Calls far apart: not worth a core's time.
        assert_eq!(look_time(Duration::from_millis(5)), THREAD_SPIN);
    }
}
