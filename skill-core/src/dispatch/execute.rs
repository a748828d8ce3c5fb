//! Running one call: the strict fast path, the lenient second chance, panic isolation and
//! time limits.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::json;

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
    /// A call with a time limit runs on a thread of its own while this task waits on a
    /// timer, so the limit holds even against a skill that never yields (a busy loop, a
    /// blocking read): the caller gets `timeout` on time and the host keeps serving. Rust
    /// cannot stop a thread, so such a skill's thread is abandoned and runs on until it
    /// returns. Without a limit (or outside a Tokio runtime) the skill runs in this task.
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
        let outcome = match (timeout, tokio::runtime::Handle::try_current()) {
            (Some(limit), Ok(handle)) => {
                match run_on_own_thread(skill, args, ctx, mode, handle, limit).await {
                    Some(outcome) => outcome,
                    None => return Err(InvokeError::Run(timeout_error(skill, limit))),
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

/// The arguments of a call, owned, so they can move to the skill's thread.
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

/// Runs the skill on a new thread (driving its future with `handle`) and waits at most
/// `limit` for it; `None` when the limit passed first. The thread is detached: a skill that
/// never returns keeps its thread, not the caller's.
async fn run_on_own_thread(
    skill: &'static SkillRegistration,
    args: CallArgs<'_>,
    ctx: &SkillContext,
    mode: PrepareMode,
    handle: tokio::runtime::Handle,
    limit: Duration,
) -> Option<Outcome> {
    let (sender, receiver) = tokio::sync::oneshot::channel::<Outcome>();
    let owned_args = OwnedArgs::new(args);
    let owned_ctx = ctx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("skill {}", skill.id))
        .spawn(move || {
            let invocation =
                AssertUnwindSafe((skill.invoke)(&owned_ctx, owned_args.borrow(), mode))
                    .catch_unwind();
            // The caller may have given up (timeout, cancelled): nobody to tell.
            let _ = sender.send(handle.block_on(invocation));
        });
    if let Err(err) = spawned {
        // No thread to be had (resource limits): run here, with the limit as an async timer.
        tracing::warn!(skill = skill.id, error = %err, "no thread for a timed call; running it in the caller's task");
        let invocation = AssertUnwindSafe((skill.invoke)(ctx, args, mode)).catch_unwind();
        return tokio::time::timeout(limit, invocation).await.ok();
    }
    match tokio::time::timeout(limit, receiver).await {
        Ok(Ok(outcome)) => Some(outcome),
        // The thread ended without an answer: its runtime is shutting down.
        Ok(Err(_)) => {
            let why: Box<dyn std::any::Any + Send> =
                Box::new("the runtime shut down while the tool was running");
            Some(Err(why))
        }
        Err(_) => None,
    }
}

/// The error for a call that did not finish within `limit`.
fn timeout_error(skill: &SkillRegistration, limit: Duration) -> SkillError {
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
