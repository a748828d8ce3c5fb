//! MCP calls → dispatcher calls: the one place that runs skills and reads their results.
//!
//! Every use of `toolwright` for *running* tools is in this module (describing them is in
//! [`crate::registry`]). A call goes through the dispatcher the way an agent's call does:
//! lenient argument parsing, preparation from the server's state, time limit, panic
//! isolation, and the confirmation queue for skills that write.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use toolwright::{Decision, Dispatcher, McpCallResult, Outcome, SkillContext, SkillResult};

use crate::registry::ServedSkill;

/// `_meta` key of the argument fixes the lenient parser applied.
pub const META_WARNINGS: &str = McpCallResult::META_WARNINGS;
/// `_meta` key of a failed call's code and, for invalid arguments, its problems.
pub const META_ERROR: &str = McpCallResult::META_ERROR;
/// `_meta` key of a call that waits for the user's confirmation.
pub const META_PENDING: &str = McpCallResult::META_PENDING;

/// What a call came to.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    /// The call ran (or was refused) and this is its answer.
    Finished(CallToolResult),
    /// The skill writes and waits for consent; nothing ran yet.
    AwaitingConsent(Pending),
}

/// A parked call that needs the user's consent.
#[derive(Debug)]
pub(crate) struct Pending {
    /// Id in the dispatcher's confirmation queue.
    pub(crate) id: String,
    /// One sentence for the person deciding.
    pub(crate) summary: String,
    /// The answer for a client that cannot ask its user: the call waits.
    pub(crate) unanswered: CallToolResult,
}

/// What runs a call.
pub(crate) enum Runner {
    /// The dispatcher directly.
    Dispatcher(Dispatcher),
    /// A pack's gateway, in the name of the caller: calls into other packs are checked
    /// (import, subscription, rate limit) and audited.
    #[cfg(feature = "packs")]
    Gateway(toolwright_packs::Gateway, toolwright_packs::Caller),
}

/// Where parked calls wait and are decided: the dispatcher's own queue (this process), or
/// a store every server on it shares.
#[derive(Clone)]
pub(crate) enum Consent {
    /// The dispatcher's queue.
    Local(Dispatcher),
    /// A shared store: calls parked here are decided on any server on it.
    Shared(toolwright::SharedConfirmations),
}

impl Consent {
    /// Moves a call the dispatcher just parked into the shared store, if there is one, and
    /// names it by the store's id in `result` (its outcome and its message).
    async fn share(&self, result: &mut SkillResult) {
        if let Consent::Shared(shared) = self {
            let Some(error) = result.error.as_mut() else {
                return;
            };
            let Some(Outcome::AwaitingConfirmation(pending)) = error.outcome.as_deref_mut() else {
                return;
            };
            // A store that cannot be written leaves the call in this server's queue.
            if let Ok(stored) = shared.adopt(pending).await {
                error.message = error.message.replace(
                    &format!("(request {})", pending.id),
                    &format!("(request {})", stored.id),
                );
                pending.id = stored.id;
            }
        }
    }

    /// Runs a parked call the user agreed to, with the arguments it was parked with.
    pub(crate) async fn confirm(
        &self,
        skill: ServedSkill,
        pending_id: &str,
        ctx: &SkillContext,
    ) -> CallToolResult {
        self.decide(skill, pending_id, Decision::Approve, ctx).await
    }

    /// Drops a parked call the user refused; the answer tells the model not to retry.
    pub(crate) async fn reject(
        &self,
        skill: ServedSkill,
        pending_id: &str,
        reason: &str,
    ) -> CallToolResult {
        let decision = Decision::Reject(Some(reason.to_string()));
        self.decide(skill, pending_id, decision, &SkillContext::new())
            .await
    }

    /// The user's decision on a parked call, applied where the call waits and turned into
    /// the answer by the dispatcher ([`Dispatcher::decide`]); a call that no longer waits
    /// gets the dispatcher's answer that nothing ran.
    async fn decide(
        &self,
        skill: ServedSkill,
        pending_id: &str,
        decision: Decision,
        ctx: &SkillContext,
    ) -> CallToolResult {
        let (dispatcher, decided) = match self {
            Consent::Local(dispatcher) => (
                dispatcher,
                dispatcher
                    .decide(pending_id, decision, ctx)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            Consent::Shared(shared) => (
                shared.dispatcher(),
                shared
                    .decide(pending_id, decision, ctx)
                    .await
                    .map_err(|e| e.to_string()),
            ),
        };
        let result =
            decided.unwrap_or_else(|why| dispatcher.not_decided(skill.id(), pending_id, &why));
        to_mcp(skill, &result)
    }
}

/// Runs one `tools/call` through the dispatcher (or the pack's gateway), preparing
/// left-out arguments from `ctx`. `arguments` is an object on a direct call (the transport
/// refuses others); through `call_tool` it is what the client sent.
/// `proxied`: the call came through `call_tool`, so argument paths are reported under
/// `arguments` (see [`crate::search`]). A call that waits for consent is parked where
/// `consent` keeps such calls.
pub(crate) async fn call(
    runner: &Runner,
    consent: &Consent,
    skill: ServedSkill,
    arguments: Option<Value>,
    ctx: &SkillContext,
    proxied: bool,
) -> CallOutcome {
    let mut result = match runner {
        Runner::Dispatcher(dispatcher) => {
            dispatcher
                .prepare_and_call(skill.id(), ctx, arguments.as_ref())
                .await
        }
        #[cfg(feature = "packs")]
        Runner::Gateway(gateway, caller) => {
            gateway
                .call_tool(caller, skill.id(), arguments.as_ref(), ctx)
                .await
        }
    };
    if proxied {
        crate::search::under_arguments(&mut result);
    }
    consent.share(&mut result).await;
    if let Some(Outcome::AwaitingConfirmation(pending)) = result.outcome() {
        return CallOutcome::AwaitingConsent(Pending {
            id: pending.id.clone(),
            summary: pending.summary.clone(),
            unanswered: to_mcp(skill, &result),
        });
    }
    CallOutcome::Finished(to_mcp(skill, &result))
}

/// The MCP answer to a dispatcher result, as toolwright builds it for every MCP answer.
pub(crate) fn to_mcp(skill: ServedSkill, result: &SkillResult) -> CallToolResult {
    for warning in &result.warnings {
        tracing::info!(tool = skill.wire_name(), code = %warning.code, path = %warning.path, "argument fixed");
    }
    if let Some(error) = &result.error {
        tracing::debug!(tool = skill.wire_name(), code = %error.code, "tool call failed");
    }
    answer_of(McpCallResult::of(result, Some(skill.registration)))
}

/// The MCP answer to a call: its text, error flag, structured content and `_meta`.
pub(crate) fn answer_of(answer: McpCallResult) -> CallToolResult {
    let content = vec![ContentBlock::text(answer.text)];
    let mut mcp = if answer.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    mcp.structured_content = answer.structured;
    if !answer.meta.is_empty() {
        mcp = mcp.with_meta(Some(answer.meta.into()));
    }
    mcp
}
