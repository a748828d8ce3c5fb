//! MCP calls → dispatcher calls: the one place that runs skills and reads their results.
//!
//! Every use of `skill-core` for *running* tools is in this module (describing them is in
//! [`crate::registry`]). A call goes through the dispatcher the way an agent's call does:
//! lenient argument parsing, preparation from the server's state, time limit, panic
//! isolation, and the confirmation queue for skills that write.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde_json::{json, Value};
use skill_core::{codes, Dispatcher, SkillContext, SkillResult};

use crate::registry::ServedSkill;

/// `_meta` key of the argument fixes the lenient parser applied.
pub const META_WARNINGS: &str = "skillkit/warnings";
/// `_meta` key of a failed call's code and, for invalid arguments, its problems.
pub const META_ERROR: &str = "skillkit/error";
/// `_meta` key of a call that waits for the user's confirmation.
pub const META_PENDING: &str = "skillkit/pendingConfirmation";

/// What a call came to.
#[derive(Debug)]
pub(crate) enum Outcome {
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
    Gateway(skill_packs::Gateway, skill_packs::Caller),
}

/// Runs one `tools/call` through the dispatcher (or the pack's gateway), preparing
/// left-out arguments from `ctx`.
pub(crate) async fn call(
    runner: &Runner,
    skill: ServedSkill,
    arguments: Option<JsonObject>,
    ctx: &SkillContext,
) -> Outcome {
    let arguments = arguments.map(Value::Object);
    let result = match runner {
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
    if result.error_code() == Some(codes::CONFIRMATION_REQUIRED) {
        if let Some(pending) = pending_of(&result) {
            let (id, summary) = pending;
            return Outcome::AwaitingConsent(Pending {
                id,
                summary,
                unanswered: to_mcp(skill, &result),
            });
        }
    }
    Outcome::Finished(to_mcp(skill, &result))
}

/// Runs a parked call the user agreed to, with the arguments it was parked with.
pub(crate) async fn confirm(
    dispatcher: &Dispatcher,
    skill: ServedSkill,
    pending_id: &str,
    ctx: &SkillContext,
) -> CallToolResult {
    match dispatcher.confirm(pending_id, ctx).await {
        Ok(result) => to_mcp(skill, &result),
        Err(err) => expired(&err.to_string()),
    }
}

/// Drops a parked call the user refused; the answer tells the model not to retry.
pub(crate) fn reject(
    dispatcher: &Dispatcher,
    skill: ServedSkill,
    pending_id: &str,
    reason: &str,
) -> CallToolResult {
    match dispatcher.reject(pending_id, Some(reason)) {
        Ok(result) => to_mcp(skill, &result),
        Err(err) => expired(&err.to_string()),
    }
}

/// The answer to consent given after the parked call `pending_id` expired.
pub(crate) fn expired_result(pending_id: &str) -> CallToolResult {
    expired(&format!(
        "the confirmation `{pending_id}` is no longer pending (it expired or was already answered); this answer ran nothing"
    ))
}

fn expired(message: &str) -> CallToolResult {
    let mut meta = MetaObject::new();
    meta.insert(
        META_ERROR.into(),
        json!({ "code": codes::CONFIRMATION_REJECTED }),
    );
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {message}",
        codes::CONFIRMATION_REJECTED
    ))])
    .with_meta(Some(meta))
}

/// The pending confirmation's id and summary, from the dispatcher's result.
fn pending_of(result: &SkillResult) -> Option<(String, String)> {
    let pending = result
        .error
        .as_ref()?
        .details
        .as_ref()?
        .get("pending_confirmation")?;
    let id = pending.get("id")?.as_str()?.to_string();
    let summary = pending
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Some((id, summary))
}

/// The MCP answer to a dispatcher result: `structuredContent` shaped like the tool's
/// `outputSchema` plus its text copy on success; on failure an `isError` result whose text
/// the model can act on (each argument problem with path, expected and got).
pub(crate) fn to_mcp(skill: ServedSkill, result: &SkillResult) -> CallToolResult {
    let mut meta = MetaObject::new();
    if !result.warnings.is_empty() {
        for warning in &result.warnings {
            tracing::info!(tool = skill.wire_name(), code = %warning.code, path = %warning.path, "argument fixed");
        }
        meta.insert(
            META_WARNINGS.into(),
            serde_json::to_value(&result.warnings).unwrap_or(Value::Null),
        );
    }
    if result.success {
        let data = result.data_value();
        let structured = skill_core::mcp_structured_content(Some(skill.registration), data);
        let answer = CallToolResult::structured(structured);
        return if meta.is_empty() {
            answer
        } else {
            answer.with_meta(Some(meta))
        };
    }
    let Some(error) = &result.error else {
        return CallToolResult::error(vec![ContentBlock::text("the call failed")]);
    };
    let mut text = format!("{}: {}", error.code, error.message);
    let mut error_meta = json!({ "code": error.code });
    let details = error.details.as_ref();
    if error.code == codes::INVALID_ARGUMENTS {
        let problems = problems(details);
        for p in &problems {
            text.push_str(&format!(
                "\n- at {}: expected {}, got {}",
                p["path"].as_str().unwrap_or("$"),
                p["expected"].as_str().unwrap_or("a valid value"),
                p["got"]
            ));
        }
        error_meta["problems"] = Value::Array(problems);
    } else if error.code == codes::TIMEOUT {
        if let Some(ms) = details.and_then(|d| d.get("timeout_ms")) {
            error_meta["timeout_ms"] = ms.clone();
        }
    } else if error.code == codes::CONFIRMATION_REQUIRED {
        if let Some(pending) = details.and_then(|d| d.get("pending_confirmation")) {
            meta.insert(META_PENDING.into(), pending.clone());
        }
    }
    meta.insert(META_ERROR.into(), error_meta);
    tracing::debug!(tool = skill.wire_name(), code = %error.code, "tool call failed");
    CallToolResult::error(vec![ContentBlock::text(text)]).with_meta(Some(meta))
}

/// Each argument problem as `{path, expected, got, message}`: the lenient parser's list when
/// it made one, else the strict reader's single finding.
fn problems(details: Option<&Value>) -> Vec<Value> {
    let Some(details) = details else {
        return Vec::new();
    };
    if let Some(errors) = details.get("errors").and_then(Value::as_array) {
        return errors
            .iter()
            .map(|e| {
                json!({
                    "path": e.get("path").cloned().unwrap_or_else(|| json!("$")),
                    "expected": e.get("expected").cloned().unwrap_or(Value::Null),
                    "got": e.get("raw").cloned().unwrap_or(Value::Null),
                    "message": e.get("message").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
    }
    let expected = details
        .get("expected")
        .or_else(|| details.get("serde"))
        .cloned()
        .unwrap_or(Value::Null);
    vec![json!({
        "path": details.get("path").cloned().unwrap_or_else(|| json!("$")),
        "expected": expected,
        "got": details.get("got").cloned().unwrap_or(Value::Null),
    })]
}
