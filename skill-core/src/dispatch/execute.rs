//! Running one call: the strict fast path, the lenient second chance, panic isolation and
//! time limits.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::json;
use tracing::Instrument;

use super::call_threads::{CallThreadStats, Finishing, Refusal};
use super::series;
use super::Dispatcher;
use crate::args::{parse_for_tool_strict, retry_message, ParseError, ParseWarning};
use crate::confirm::Confirmed;
use crate::context::SkillContext;
use crate::error::{codes, SkillError};
// `Outcome` below names what a timed call's thread gives back.
use crate::outcome::Outcome as CallOutcome;
use crate::registration::{CallArgs, InvokeError, PrepareMode, SkillRegistration, SkillStatus};
use crate::result::SkillResult;

impl Dispatcher {
    pub(super) async fn run(
        &self,
        id: &str,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
    ) -> SkillResult {
        let started = Instant::now();
        let Some(skill) = self.registration(id) else {
            return self.unknown_skill(id, started);
        };
        if let Err(err) = self.inner.limits.check(args) {
            tracing::warn!(skill = skill.id, error = %err, "arguments over a limit refused unparsed");
            return SkillResult::err(
                skill.id,
                err.to_skill_error(skill.wire_name),
                elapsed_ms(started),
            );
        }
        if skill.status == SkillStatus::Disabled {
            let err = SkillError::new(
                codes::SKILL_DISABLED,
                format!(
                    "tool `{}` is disabled and cannot be called",
                    skill.wire_name
                ),
            );
            return SkillResult::err(skill.id, err, elapsed_ms(started));
        }
        if skill.needs_confirmation() && !ctx.contains::<Confirmed>() {
            return self.hold_for_confirmation(skill, args, mode, started);
        }
        let result = match self.execute(skill, args, ctx, mode).await {
            Ok(data) => SkillResult::ok(skill.id, data, elapsed_ms(started)),
            Err(InvokeError::Input(err)) if err.code == codes::INVALID_ARGUMENTS => {
                // The strict fast path failed before the skill body ran: read the arguments
                // leniently against the catalog and run once more with the fixed value.
                // Boxed: keeps the fast path's future small.
                Box::pin(self.run_lenient(skill, args, ctx, mode, err, started)).await
            }
            Err(InvokeError::Input(err)) | Err(InvokeError::Run(err)) => {
                tracing::debug!(skill = skill.id, code = %err.code, error = %err.message, "skill call failed");
                SkillResult::err(skill.id, err, elapsed_ms(started))
            }
        };
        tracing::debug!(
            skill = skill.id,
            success = result.success,
            elapsed_ms = result.elapsed_ms,
            "skill call"
        );
        result
    }

    /// Second chance for arguments the strict path refused: coerce, then either answer with
    /// a list of problems the model can fix, or run with the fixed arguments.
    async fn run_lenient(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
        strict_error: SkillError,
        started: Instant,
    ) -> SkillResult {
        let Some(tool) = self.catalog().get(skill.id) else {
            return SkillResult::err(skill.id, strict_error, elapsed_ms(started));
        };
        let parse = parse_for_tool_strict(tool, args, self.inner.strict_arguments);
        let (fixed, warnings) = match parse.into_executable() {
            Ok(ok) => ok,
            Err(errors) => {
                return self.fixable_error(skill, &errors, Some(strict_error), Vec::new(), started)
            }
        };
        if warnings.is_empty() {
            // Nothing the catalog could fix: the strict error says it best.
            return SkillResult::err(skill.id, strict_error, elapsed_ms(started));
        }
        for warning in &warnings {
            tracing::debug!(skill = skill.id, code = %warning.code, path = %warning.path, "argument coerced");
        }
        let mut result = match self
            .execute(skill, CallArgs::Value(&fixed), ctx, mode)
            .await
        {
            Ok(data) => SkillResult::ok(skill.id, data, elapsed_ms(started)),
            Err(InvokeError::Input(err)) | Err(InvokeError::Run(err)) => {
                SkillResult::err(skill.id, err, elapsed_ms(started))
            }
        };
        result.warnings = warnings;
        result
    }

    /// The model-fixable answer to unusable arguments (code `invalid_arguments`).
    pub(super) fn fixable_error(
        &self,
        skill: &'static SkillRegistration,
        errors: &[ParseError],
        strict_error: Option<SkillError>,
        warnings: Vec<ParseWarning>,
        started: Instant,
    ) -> SkillResult {
        let mut err = SkillError::from_outcome(
            CallOutcome::InvalidArguments(errors.to_vec()),
            retry_message(skill.wire_name, errors),
        );
        // What the skill's own reader said first, for the operator.
        if let Some(strict) = strict_error
            .and_then(|e| CallOutcome::write_details(e.outcome.as_deref(), e.details.as_ref()))
        {
            err = err.with_details(json!({ "strict": strict }));
        }
        tracing::debug!(
            skill = skill.id,
            problems = errors.len(),
            "arguments refused"
        );
        let mut result = SkillResult::err(skill.id, err, elapsed_ms(started));
        result.warnings = warnings;
        result
    }

    /// One invocation with panic isolation and the time limit; errors before the body runs
    /// stay [`InvokeError::Input`].
    ///
    /// A call with a time limit starts on one of the dispatcher's call threads (a pool of
    /// reused threads, `call_threads.rs`) while this task waits on a timer, so the limit
    /// holds even against a skill that never yields (a busy loop, a blocking read): the
    /// caller gets `timeout` on time and the host keeps serving. Rust cannot stop a thread,
    /// so such a skill's thread is abandoned, counted, and runs on until it returns. A skill
    /// that yields (an async skill awaiting I/O or a timer) comes back to this task at its
    /// first `await` and runs on the caller's runtime from then on. Without a limit (or
    /// outside a Tokio runtime) the skill runs in this task.
    async fn execute(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
    ) -> Result<Box<serde_json::value::RawValue>, InvokeError> {
        let timeout = skill
            .timeout_ms
            .map(Duration::from_millis)
            .or(self.inner.default_timeout);
        let watched = timeout.and_then(|_| series::watched());
        let outcome = match (timeout, tokio::runtime::Handle::try_current(), watched) {
            (Some(limit), Ok(_), Some(watch)) => {
                // Already on a call thread, running a series its caller watches.
                let invocation = AssertUnwindSafe((skill.invoke)(ctx, args, mode)).catch_unwind();
                match series::run_in_place(&watch, skill, limit, invocation).await {
                    Some(outcome) => outcome,
                    None => return Err(InvokeError::Run(timeout_error(skill, limit))),
                }
            }
            (Some(limit), Ok(handle), _) => {
                match self.run_timed(skill, args, ctx, mode, handle, limit).await {
                    Ending::Finished(outcome) => outcome,
                    Ending::TimedOut => return Err(InvokeError::Run(timeout_error(skill, limit))),
                    Ending::Refused(err) => return Err(InvokeError::Run(err)),
                }
            }
            _ => {
                AssertUnwindSafe((skill.invoke)(ctx, args, mode))
                    .catch_unwind()
                    .await
            }
        };
        match outcome {
            Ok(result) => result,
            Err(payload) => {
                let text = panic_text(payload.as_ref());
                tracing::error!(skill = skill.id, panic = %text, "skill panicked");
                Err(InvokeError::Run(
                    SkillError::new(
                        codes::PANIC,
                        format!("tool `{}` failed with an internal error", skill.wire_name),
                    )
                    .with_details(json!({ "panic": text })),
                ))
            }
        }
    }

    fn unknown_skill(&self, id: &str, started: Instant) -> SkillResult {
        let available: Vec<&str> = self
            .inner
            .skills
            .iter()
            .filter(|s| s.is_active())
            .map(|s| s.wire_name)
            .collect();
        let err = SkillError::new(
            codes::UNKNOWN_SKILL,
            format!(
                "there is no tool named `{id}`; available tools: {}",
                available.join(", ")
            ),
        )
        .with_details(json!({ "requested": id }));
        tracing::warn!(requested = id, "call of an unknown skill");
        SkillResult::err(id.to_string(), err, elapsed_ms(started))
    }
}

/// What a caught panic or a finished call gives back.
type Outcome = Result<
    Result<Box<serde_json::value::RawValue>, InvokeError>,
    Box<dyn std::any::Any + Send + 'static>,
>;

/// The arguments of a call, owned, so they can move to a call thread.
enum OwnedArgs {
    None,
    Text(String),
    Value(serde_json::Value),
}

impl OwnedArgs {
    fn new(args: CallArgs<'_>) -> Self {
        match args {
            CallArgs::None => OwnedArgs::None,
            CallArgs::Text(text) => OwnedArgs::Text(text.to_string()),
            CallArgs::Value(value) => OwnedArgs::Value(value.clone()),
        }
    }

    fn borrow(&self) -> CallArgs<'_> {
        match self {
            OwnedArgs::None => CallArgs::None,
            OwnedArgs::Text(text) => CallArgs::Text(text),
            OwnedArgs::Value(value) => CallArgs::Value(value),
        }
    }
}

/// How a timed call ended.
enum Ending {
    /// The skill returned (or panicked) within its limit.
    Finished(Outcome),
    /// The limit passed first.
    TimedOut,
    /// No call thread could take the call (`overloaded`).
    Refused(SkillError),
}

/// A timed call's future, owned so it can move from a call thread to the caller's task.
type CallFuture = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// What a call thread hands back after polling a call once.
enum FirstPoll {
    /// The skill finished without yielding (every sync skill).
    Ready(Outcome),
    /// The skill yielded: the rest is polled by the caller's task, on its runtime.
    Yielded(CallFuture),
}

impl Dispatcher {
    /// Runs a timed call: its first poll (a sync skill's whole body, an async skill's code up
    /// to its first `await`) on a call thread, since nothing can interrupt it; the rest, if
    /// the skill yields, in this task under the same deadline. `TimedOut` when the limit
    /// passed first; a call still running on its thread is then counted as abandoned.
    async fn run_timed(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
        handle: tokio::runtime::Handle,
        limit: Duration,
    ) -> Ending {
        let deadline = tokio::time::Instant::now() + limit;
        let owned_args = OwnedArgs::new(args);
        let owned_ctx = ctx.clone();
        let mut future: CallFuture = Box::pin(
            async move {
                let (ctx, args) = (owned_ctx, owned_args);
                AssertUnwindSafe((skill.invoke)(&ctx, args.borrow(), mode))
                    .catch_unwind()
                    .await
            }
            .instrument(tracing::Span::current()),
        );
        // The thread polls with this task's waker, so whatever the skill waits on wakes
        // this task, which polls it from then on.
        let waker = std::future::poll_fn(|cx| Poll::Ready(cx.waker().clone())).await;
        let (sender, receiver) = tokio::sync::oneshot::channel::<FirstPoll>();
        let first_poll = move |finishing: Finishing<'_>| {
            let _runtime = handle.enter();
            let first = match future.as_mut().poll(&mut Context::from_waker(&waker)) {
                Poll::Ready(outcome) => FirstPoll::Ready(outcome),
                Poll::Pending => FirstPoll::Yielded(future),
            };
            finishing();
            // The caller may have given up (timeout, cancelled): nobody to tell.
            let _ = sender.send(first);
        };
        let ticket = match self.inner.call_threads.submit(skill.id, first_poll) {
            Ok(ticket) => ticket,
            Err(Refusal::Full(stats)) => return Ending::Refused(overloaded_error(skill, stats)),
            Err(Refusal::NoThread(err)) => {
                // The system gives no thread (resource limits): run here, with the limit
                // as an async timer.
                tracing::warn!(skill = skill.id, error = %err, "no thread for a timed call; running it in the caller's task");
                let invocation = AssertUnwindSafe((skill.invoke)(ctx, args, mode)).catch_unwind();
                return match tokio::time::timeout_at(deadline, invocation).await {
                    Ok(outcome) => Ending::Finished(outcome),
                    Err(_) => Ending::TimedOut,
                };
            }
        };
        // Dropping `ticket` unanswered (limit passed, or this future dropped) marks the call
        // abandoned while its thread still runs it.
        let mut receiver = receiver;
        let answer = match quick_answer(&mut receiver) {
            Some(answer) => answer,
            None => match tokio::time::timeout_at(deadline, receiver).await {
                Ok(answer) => answer.map_err(|_| ()),
                Err(_) => return Ending::TimedOut,
            },
        };
        let first = match answer {
            Ok(first) => first,
            // The thread ended without an answer: the dispatcher is being dropped.
            Err(()) => {
                ticket.disarm();
                let why: Box<dyn std::any::Any + Send> =
                    Box::new("the call thread ended before the tool answered");
                return Ending::Finished(Err(why));
            }
        };
        ticket.disarm();
        match first {
            FirstPoll::Ready(outcome) => Ending::Finished(outcome),
            // Dropped here at the deadline: cancelled at the `await` it waits on.
            FirstPoll::Yielded(rest) => match tokio::time::timeout_at(deadline, rest).await {
                Ok(outcome) => Ending::Finished(outcome),
                Err(_) => Ending::TimedOut,
            },
        }
    }
}

/// How long a caller looks for the answer of a call it just handed over before its task
/// waits on the timer: a call that ends within it (a short sync skill) is answered without
/// parking the caller's runtime thread, waking it again or arming a timer. Bounded far
/// below any time limit, so a busy loop still times out on time and the runtime thread
/// serves other calls again within microseconds.
const CALLER_SPIN: Duration = Duration::from_micros(20);

/// The answer of a handed-over call if it comes within [`CALLER_SPIN`]; `Some(Err(()))`
/// when the call thread ended without one. Between looks the thread yields its core, which
/// the call thread may need on a busy machine.
pub(super) fn quick_answer<T>(
    receiver: &mut tokio::sync::oneshot::Receiver<T>,
) -> Option<Result<T, ()>> {
    use tokio::sync::oneshot::error::TryRecvError;
    let started = Instant::now();
    loop {
        for _ in 0..32 {
            match receiver.try_recv() {
                Ok(answer) => return Some(Ok(answer)),
                Err(TryRecvError::Closed) => return Some(Err(())),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        if started.elapsed() >= CALLER_SPIN {
            return None;
        }
        std::thread::yield_now();
    }
}

/// The error for a timed call no call thread could take: every one is busy, most often
/// with calls abandoned after their time limit.
fn overloaded_error(skill: &SkillRegistration, stats: CallThreadStats) -> SkillError {
    tracing::error!(
        skill = skill.id,
        threads = stats.threads,
        abandoned = stats.abandoned,
        max_threads = stats.max_threads,
        "no call thread free for a timed call; refused"
    );
    SkillError::new(
        codes::OVERLOADED,
        format!(
            "tool `{}` could not start: the host is running as many calls as it allows; try again later",
            skill.wire_name
        ),
    )
    .with_details(json!({
        "threads": stats.threads,
        "abandoned": stats.abandoned,
        "max_threads": stats.max_threads,
    }))
}

/// The error for a call that did not finish within `limit`.
pub(super) fn timeout_error(skill: &SkillRegistration, limit: Duration) -> SkillError {
    tracing::warn!(
        skill = skill.id,
        timeout_ms = limit.as_millis() as u64,
        "skill timed out"
    );
    SkillError::from_outcome(
        CallOutcome::TimedOut {
            limit_ms: limit.as_millis() as u64,
        },
        format!(
            "tool `{}` did not finish within {} ms; try again with a narrower request",
            skill.wire_name,
            limit.as_millis()
        ),
    )
}

pub(super) fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
