//! A series of calls on one hand-over: a host that runs several skills one after the other
//! (a review runs five or six per clause) starts them together on one call thread, and each
//! runs there in turn, in place, under its own time limit, which the caller watches.
//!
//! The guarantees of a single timed call hold for every call of a series: a call that
//! overruns its limit (a busy loop, a blocked read) is answered `timeout` on time, its thread
//! is abandoned and counted, and the calls after it start on another thread; a skill that
//! yields comes back to the caller's task at its first `await`, with the rest of the series.
//! What changes is the cost: one hand-over to a thread and one back per series, not per call.

use std::cell::RefCell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tracing::Instrument;

use super::call_threads::Finishing;
use super::execute::{elapsed_ms, quick_answer, timeout_error};
use super::Dispatcher;
use crate::context::SkillContext;
use crate::error::SkillError;
use crate::registration::{CallArgs, PrepareMode, SkillRegistration};
use crate::result::SkillResult;

thread_local! {
    /// The series this thread is running, while a call thread polls one.
    static WATCHED: RefCell<Option<Arc<Watch>>> = const { RefCell::new(None) };
}

/// What the caller of a series watches: the call running now and its deadline, and the
/// results so far. One lock, taken a few times per call, never contended for long.
#[derive(Debug, Default)]
pub(super) struct Watch {
    state: Mutex<WatchState>,
}

#[derive(Debug, Default)]
struct WatchState {
    /// The call running in place now, if any.
    running: Option<Running>,
    /// Counts calls started, so the caller can tell a new call from the one it timed.
    started: u64,
    /// The caller stopped waiting (a call overran, or the caller went away): the thread
    /// starts no further call and its results are dropped.
    stopped: bool,
    results: Vec<SkillResult>,
}

#[derive(Debug, Clone, Copy)]
struct Running {
    skill: &'static SkillRegistration,
    limit: Duration,
    started: Instant,
    deadline: Instant,
}

impl Watch {
    fn lock(&self) -> MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a call starting in place; `None` when the caller has stopped waiting.
    fn start(&self, skill: &'static SkillRegistration, limit: Duration) -> Option<u64> {
        let mut state = self.lock();
        if state.stopped {
            return None;
        }
        let started = Instant::now();
        state.started += 1;
        state.running = Some(Running {
            skill,
            limit,
            started,
            deadline: started + limit,
        });
        Some(state.started)
    }

    fn end(&self, call: u64) {
        let mut state = self.lock();
        if state.started == call {
            state.running = None;
        }
    }

    fn push(&self, result: SkillResult) {
        let mut state = self.lock();
        if !state.stopped {
            state.results.push(result);
        }
    }

    fn stopped(&self) -> bool {
        self.lock().stopped
    }
}

/// The series the current thread runs, when it may run a call in place: on a call thread
/// polling a series, outside any call already running there (a call a skill makes from
/// inside its body goes to a thread of its own, as outside a series).
pub(super) fn watched() -> Option<Arc<Watch>> {
    WATCHED.with(|w| {
        w.borrow()
            .as_ref()
            .filter(|watch| watch.lock().running.is_none())
            .cloned()
    })
}

/// Ends a call's record when the call ends, however it ends (finished, panicked, dropped).
struct CallRecord<'a> {
    watch: &'a Watch,
    call: u64,
}

impl Drop for CallRecord<'_> {
    fn drop(&mut self) {
        self.watch.end(self.call);
    }
}

/// Runs `invocation` in place on a series' thread, recorded in `watch` so the caller can
/// time it. If it yields, its rest runs in the caller's task under the same deadline.
/// `None` when the limit passed (or the caller had stopped waiting before it began: nobody
/// reads that answer).
pub(super) async fn run_in_place<T>(
    watch: &Watch,
    skill: &'static SkillRegistration,
    limit: Duration,
    invocation: impl Future<Output = T>,
) -> Option<T> {
    let call = watch.start(skill, limit)?;
    let _record = CallRecord { watch, call };
    let deadline = tokio::time::Instant::now() + limit;
    tokio::time::timeout_at(deadline, invocation).await.ok()
}

/// One call of a series ([`Dispatcher::prepare_and_call_all`]): the skill, the context it
/// is prepared from, and the span it is recorded under.
#[derive(Debug, Clone)]
pub struct SeriesCall {
    skill_id: String,
    context: SkillContext,
    span: tracing::Span,
}

impl SeriesCall {
    /// A call of `skill_id` prepared from `context`, recorded under the span current here
    /// (a host that runs calls of several tasks in one series keeps each under its own).
    pub fn new(skill_id: impl Into<String>, context: SkillContext) -> Self {
        SeriesCall {
            skill_id: skill_id.into(),
            context,
            span: tracing::Span::current(),
        }
    }

    /// The skill this call runs.
    pub fn skill_id(&self) -> &str {
        &self.skill_id
    }
}

/// Stops a series whose caller went away (its future dropped: a cancelled review): the
/// thread starts no further call of it.
struct StopOnDrop(Arc<Watch>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.lock().stopped = true;
    }
}

/// A series' future, owned so it can move from a call thread to the caller's task.
type SeriesFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// What a call thread hands back after polling a series once.
enum FirstPoll {
    /// Every call ran in place.
    Ready,
    /// A call yielded: the rest of the series runs in the caller's task.
    Yielded(SeriesFuture),
}

impl Dispatcher {
    /// Runs `calls` one after the other, each as [`prepare_and_call`](Self::prepare_and_call)
    /// would with its own context, and returns their results in order.
    ///
    /// Under a time limit the calls start together on one call thread and run there in
    /// turn, each under its own limit: the same guarantees as calls made one by one (a call
    /// that overruns is answered `timeout` on time and the rest go on elsewhere), for one
    /// hand-over to a thread and back instead of one per call. Without a limit they run in
    /// this task, as one by one.
    pub async fn prepare_and_call_all(&self, calls: Vec<SeriesCall>) -> Vec<SkillResult> {
        let mut results = Vec::with_capacity(calls.len());
        let handle = match tokio::runtime::Handle::try_current() {
            Ok(handle) if calls.len() > 1 && self.any_timed(&calls) => handle,
            _ => {
                for call in &calls {
                    let result = self.prepare_and_call(&call.skill_id, &call.context, None);
                    results.push(result.instrument(call.span.clone()).await);
                }
                return results;
            }
        };
        let calls: Arc<[SeriesCall]> = calls.into();
        while results.len() < calls.len() {
            match self.run_series(&calls, results.len(), handle.clone()).await {
                Some(done) => results.extend(done),
                None => {
                    // No thread took the series: one by one, each refused or run as usual.
                    for call in &calls[results.len()..] {
                        let result = self.prepare_and_call(&call.skill_id, &call.context, None);
                        results.push(result.instrument(call.span.clone()).await);
                    }
                }
            }
        }
        results
    }

    /// Whether any of `calls` would run under a time limit.
    fn any_timed(&self, calls: &[SeriesCall]) -> bool {
        self.inner.default_timeout.is_some()
            || calls.iter().any(|call| {
                self.registration(&call.skill_id)
                    .is_some_and(|s| s.timeout_ms.is_some())
            })
    }

    /// Starts `calls[from..]` on a call thread and waits for them, call by call: the
    /// results of the calls that ended, the last one `timeout` if it overran (the thread is
    /// then abandoned and the caller starts the rest again). `None` when no thread could
    /// take the series.
    async fn run_series(
        &self,
        calls: &Arc<[SeriesCall]>,
        from: usize,
        handle: tokio::runtime::Handle,
    ) -> Option<Vec<SkillResult>> {
        let label = self
            .registration(&calls[from].skill_id)
            .map_or("series", |s| s.id);
        let watch = Arc::new(Watch::default());
        let _stop = StopOnDrop(Arc::clone(&watch));
        let series = {
            let (dispatcher, watch, calls) = (self.clone(), Arc::clone(&watch), Arc::clone(calls));
            async move {
                for call in &calls[from..] {
                    if watch.stopped() {
                        break;
                    }
                    let result = dispatcher
                        .run(
                            &call.skill_id,
                            CallArgs::None,
                            &call.context,
                            PrepareMode::FromState,
                        )
                        .instrument(call.span.clone())
                        .await;
                    watch.push(result);
                }
            }
        };
        let mut future: SeriesFuture = Box::pin(series);
        let waker = std::future::poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
        let (sender, receiver) = tokio::sync::oneshot::channel::<FirstPoll>();
        let thread_watch = Arc::clone(&watch);
        let first_poll = move |finishing: Finishing<'_>| {
            let _runtime = handle.enter();
            WATCHED.with(|w| *w.borrow_mut() = Some(thread_watch));
            let polled =
                AssertUnwindSafe(|| future.as_mut().poll(&mut Context::from_waker(&waker)));
            let polled = std::panic::catch_unwind(polled);
            WATCHED.with(|w| w.borrow_mut().take());
            let first = match polled {
                Ok(Poll::Ready(())) => FirstPoll::Ready,
                Ok(Poll::Pending) => FirstPoll::Yielded(future),
                // Every call catches its skill's panics; this is the dispatcher's own.
                Err(payload) => std::panic::resume_unwind(payload),
            };
            finishing();
            let _ = sender.send(first);
        };
        let ticket = self.inner.call_threads.submit(label, first_poll).ok()?;
        let mut receiver = receiver;
        let answer = match quick_answer(&mut receiver) {
            Some(answer) => answer,
            None => loop {
                let (deadline, call) = {
                    let state = watch.lock();
                    (state.running.map(|r| r.deadline), state.started)
                };
                // Between calls nothing runs that could hold the thread: wait for the
                // next call to start, or the series to end.
                let wake = deadline.unwrap_or_else(|| Instant::now() + BETWEEN_CALLS);
                match tokio::time::timeout_at(wake.into(), &mut receiver).await {
                    Ok(answer) => break answer.map_err(|_| ()),
                    Err(_) => {
                        if let Some(timed_out) = self.overran(&watch, call) {
                            let mut state = watch.lock();
                            state.stopped = true;
                            let mut done = std::mem::take(&mut state.results);
                            drop(state);
                            // Dropped armed: the thread is counted abandoned.
                            drop(ticket);
                            done.push(timed_out);
                            return Some(done);
                        }
                    }
                }
            },
        };
        ticket.disarm();
        match answer {
            Ok(FirstPoll::Ready) => {}
            Ok(FirstPoll::Yielded(rest)) => rest.await,
            Err(()) => {
                // The thread ended without an answer (a fault in the hand-over itself): the
                // call it was on is reported, the rest start again.
                let mut done = std::mem::take(&mut watch.lock().results);
                let id = calls
                    .get(from + done.len())
                    .map_or("series", |call| call.skill_id.as_str());
                done.push(SkillResult::err(
                    id.to_string(),
                    SkillError::new(
                        crate::error::codes::PANIC,
                        format!("tool `{id}` failed with an internal error"),
                    ),
                    0.0,
                ));
                return Some(done);
            }
        }
        let results = std::mem::take(&mut watch.lock().results);
        Some(results)
    }

    /// The `timeout` result of the call running in `watch`, if it is still call number
    /// `call` and its deadline has passed.
    fn overran(&self, watch: &Watch, call: u64) -> Option<SkillResult> {
        let state = watch.lock();
        let running = state.running.filter(|r| Instant::now() >= r.deadline)?;
        if state.started != call {
            return None;
        }
        let err = timeout_error(running.skill, running.limit);
        Some(SkillResult::err(
            running.skill.id,
            err,
            elapsed_ms(running.started),
        ))
    }
}

/// How often a caller looks at a series between two of its calls (a call starts within
/// microseconds of the last one's end; this only bounds a wait that finds none).
const BETWEEN_CALLS: Duration = Duration::from_millis(50);
