//! Calls that wait for a person's confirmation: parking, confirming, rejecting.

use std::fmt::Display;
use std::time::{Duration, Instant};

use serde_json::json;

use super::execute::elapsed_ms;
use super::Dispatcher;
use crate::args::parse_for_tool;
use crate::confirm::{
    ConfirmationError, Confirmed, Decision, ExpiredConfirmation, PendingConfirmation,
};
use crate::context::SkillContext;
use crate::error::{codes, SkillError};
use crate::outcome::Outcome;
use crate::registration::{CallArgs, PrepareMode, SkillRegistration};
use crate::result::SkillResult;

impl Dispatcher {
    /// Checks the arguments of a call that needs confirmation and parks it.
    pub(super) fn hold_for_confirmation(
        &self,
        skill: &'static SkillRegistration,
        args: CallArgs<'_>,
        mode: PrepareMode,
        started: Instant,
    ) -> SkillResult {
        let Some(tool) = self.catalog().get(skill.id) else {
            let err = SkillError::invalid_arguments(format!(
                "tool `{}` has no metadata",
                skill.wire_name
            ));
            return SkillResult::err(skill.id, err, elapsed_ms(started));
        };
        let parse = parse_for_tool(tool, args);
        let (arguments, warnings) = match parse.into_executable() {
            Ok(ok) => ok,
            Err(errors) => return self.fixable_error(skill, &errors, None, Vec::new(), started),
        };
        let summary = skill
            .confirmation_summary(&arguments)
            .unwrap_or_else(|| format!("run `{}` with {arguments}", skill.id));
        let pending = self
            .inner
            .confirmations
            .push(skill.id, summary, arguments, mode);
        tracing::info!(skill = skill.id, pending = %pending.id, "call waits for confirmation");
        let message = format!(
            "`{}` changes data and waits for the user's confirmation (request {}); do not call it again, tell the user what will be done",
            skill.wire_name, pending.id
        );
        let err = SkillError::from_outcome(Outcome::AwaitingConfirmation(pending), message);
        let mut result = SkillResult::err(skill.id, err, elapsed_ms(started));
        result.warnings = warnings;
        result
    }

    /// Calls waiting for the host's confirmation, oldest first (those past the time to live
    /// are dropped first).
    pub fn pending_confirmations(&self) -> Vec<PendingConfirmation> {
        self.inner.confirmations.list()
    }

    /// Calls that waited longer than the time to live and were dropped without running,
    /// newest first (the last 50), for hosts that show what happened to them.
    pub fn expired_confirmations(&self) -> Vec<ExpiredConfirmation> {
        self.inner.confirmations.expired()
    }

    /// How long a call that needs confirmation waits for a decision.
    pub fn confirmation_ttl(&self) -> Duration {
        self.inner.confirmations.ttl()
    }

    /// Runs a call that waited for confirmation, with the arguments it was parked with.
    pub async fn confirm(
        &self,
        pending_id: &str,
        ctx: &SkillContext,
    ) -> Result<SkillResult, ConfirmationError> {
        self.decide(pending_id, Decision::Approve, ctx).await
    }

    /// Drops a call that waited for confirmation; the result tells the model it was refused.
    pub fn reject(
        &self,
        pending_id: &str,
        reason: Option<&str>,
    ) -> Result<SkillResult, ConfirmationError> {
        let pending = self.inner.confirmations.take(pending_id)?;
        Ok(self.rejection(&pending, reason))
    }

    /// The one place a person's decision on a call in this dispatcher's queue becomes the
    /// result the model (or the client) reads: approved calls run, rejected ones are
    /// refused, a decision the host already applied is passed on. A call that no longer
    /// waits (expired, decided elsewhere) is an error and nothing runs; see
    /// [`not_decided`](Self::not_decided) for the result that says so.
    pub async fn decide(
        &self,
        pending_id: &str,
        decision: Decision,
        ctx: &SkillContext,
    ) -> Result<SkillResult, ConfirmationError> {
        if let Decision::Decided(result) = decision {
            return Ok(result);
        }
        let pending = self.inner.confirmations.take(pending_id)?;
        Ok(self.apply_decision(pending, decision, ctx).await)
    }

    /// Applies a decision to a call already taken out of the queue that held it (this
    /// dispatcher's, or a store several servers share): an approved call runs with the
    /// arguments it was parked with and the preparation it was parked for.
    pub async fn apply_decision(
        &self,
        pending: PendingConfirmation,
        decision: Decision,
        ctx: &SkillContext,
    ) -> SkillResult {
        match decision {
            Decision::Approve => {
                tracing::info!(skill = %pending.skill_id, pending = %pending.id, "call confirmed");
                let ctx = ctx.clone().with(Confirmed);
                self.run(
                    &pending.skill_id,
                    CallArgs::Value(&pending.arguments),
                    &ctx,
                    pending.mode,
                )
                .await
            }
            Decision::Reject(reason) => self.rejection(&pending, reason.as_deref()),
            Decision::Decided(result) => result,
        }
    }

    /// The result of a decision that could not be applied (`why`): call `pending_id` of
    /// `skill_id` no longer waits, so nothing ran; the model reads it as a refusal.
    pub fn not_decided(&self, skill_id: &str, pending_id: &str, why: &dyn Display) -> SkillResult {
        let skill_id = self.registration(skill_id).map_or_else(
            || std::borrow::Cow::Owned(skill_id.to_string()),
            |s| std::borrow::Cow::Borrowed(s.id),
        );
        SkillResult::err(
            skill_id,
            SkillError::new(
                codes::CONFIRMATION_REJECTED,
                format!(
                    "request {pending_id} no longer waits for a decision ({why}); this decision ran nothing"
                ),
            ),
            0.0,
        )
    }

    /// The refusal of a parked call a person rejected.
    fn rejection(&self, pending: &PendingConfirmation, reason: Option<&str>) -> SkillResult {
        tracing::info!(skill = %pending.skill_id, pending = %pending.id, "call rejected");
        let registration = self.registration(&pending.skill_id);
        let wire = registration.map_or(pending.skill_id.as_str(), |s| s.wire_name);
        let mut message = format!("the user rejected the call of `{wire}`");
        if let Some(reason) = reason {
            message.push_str(": ");
            message.push_str(reason);
        }
        message.push_str("; do not retry it unless the user asks");
        let err = SkillError::new(codes::CONFIRMATION_REJECTED, message)
            .with_details(json!({ "pending_confirmation": pending }));
        let skill_id = registration.map_or_else(
            || std::borrow::Cow::Owned(pending.skill_id.clone()),
            |s| std::borrow::Cow::Borrowed(s.id),
        );
        SkillResult::err(skill_id, err, 0.0)
    }
}
