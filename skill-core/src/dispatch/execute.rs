//! Running one call: the strict fast path, the lenient second chance, panic isolation and
//! time limits.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use serde_json::json;

use super::Dispatcher;
use crate::args::{parse_for_tool, retry_message, ParseError, ParseWarning};
use crate::confirm::Confirmed;
use crate::context::SkillContext;
use crate::error::{codes, SkillError};
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
        let parse = parse_for_tool(tool, args);
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
        let first_path = errors.first().map_or("$", |e| e.path.as_str());
        let mut details = json!({ "path": first_path, "errors": errors });
        if let Some(strict) = strict_error.and_then(|e| e.details) {
            details["strict"] = strict;
        }
        let err = SkillError::invalid_arguments(retry_message(skill.wire_name, errors))
            .with_details(details);
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
    async fn execute(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        ctx: &SkillContext,
        mode: PrepareMode,
    ) -> Result<Box<serde_json::value::RawValue>, InvokeError> {
        let invocation = AssertUnwindSafe((skill.invoke)(ctx, args, mode)).catch_unwind();
        let timeout = skill
            .timeout_ms
            .map(Duration::from_millis)
            .or(self.inner.default_timeout);
        let outcome = match timeout {
            Some(limit) if tokio::runtime::Handle::try_current().is_ok() => {
                match tokio::time::timeout(limit, invocation).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        tracing::warn!(
                            skill = skill.id,
                            timeout_ms = limit.as_millis() as u64,
                            "skill timed out"
                        );
                        return Err(InvokeError::Run(
                            SkillError::new(
                                codes::TIMEOUT,
                                format!(
                                    "tool `{}` did not finish within {} ms; try again with a narrower request",
                                    skill.wire_name,
                                    limit.as_millis()
                                ),
                            )
                            .with_details(json!({ "timeout_ms": limit.as_millis() as u64 })),
                        ));
                    }
                }
            }
            _ => invocation.await,
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
