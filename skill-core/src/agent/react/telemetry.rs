//! What an agent loop tells the tracing layer: a `chat` span per model turn and an
//! `execute_tool` span per tool call (OpenTelemetry GenAI semantic conventions), and the
//! call ids every tool result is matched by.

use std::collections::HashSet;

use serde_json::Value;
use tracing::field::Empty;
use tracing::Instrument;

use crate::agent::client::{LlmClient, LlmError};
use crate::dialect::{ChatMessage, Dialect, LlmResponse};
use crate::tools::ToolCall;

/// The `gen_ai.provider.name` of a client speaking `dialect` (OpenTelemetry GenAI
/// semantic conventions).
fn provider_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Anthropic | Dialect::AnthropicStrict => "anthropic",
        Dialect::Gemini | Dialect::GeminiJsonSchema => "gcp.gemini",
        _ => "openai",
    }
}

/// The `error.type` of a failed model turn: the HTTP status, else the kind of failure.
fn llm_error_type(err: &LlmError) -> String {
    match err {
        LlmError::Http { status, .. } => status.to_string(),
        LlmError::Config(_) => "config".into(),
        LlmError::Connection { .. } => "connection".into(),
        LlmError::Timeout { .. } => "timeout".into(),
        LlmError::InvalidResponse { .. } => "invalid_response".into(),
        LlmError::ScriptExhausted { .. } | LlmError::Scripted(_) => "scripted".into(),
        LlmError::Record(_) => "run_record".into(),
    }
}

/// One model turn in a `chat` span following the OpenTelemetry GenAI semantic conventions:
/// operation, provider, model, temperature, then the token usage the provider reported
/// (input tokens include the cached ones, as the conventions count them), or `error.type`.
pub(crate) async fn traced_turn<C: LlmClient + ?Sized>(
    llm: &C,
    messages: &[ChatMessage],
    tools: &[Value],
    temperature: f32,
) -> Result<LlmResponse, LlmError> {
    let model = llm.model().unwrap_or_default();
    let span = tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(llm.dialect()),
        gen_ai.request.model = model,
        gen_ai.request.temperature = f64::from(temperature),
        gen_ai.tools.offered = tools.len(),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.response.tool_calls = Empty,
        error.type = Empty,
    );
    let result = llm
        .chat_with_tools(messages, tools, temperature)
        .instrument(span.clone())
        .await;
    match &result {
        Ok(response) => {
            if let Some(usage) = response.usage {
                span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
                span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
                span.record("gen_ai.usage.cache_read.input_tokens", usage.cached_tokens);
            }
            span.record("gen_ai.response.tool_calls", response.tool_calls.len());
        }
        Err(err) => {
            span.record("error.type", llm_error_type(err).as_str());
            span.record("otel.status_code", "ERROR");
        }
    }
    result
}

/// The `execute_tool` span of one tool call (OpenTelemetry GenAI semantic conventions);
/// `error.type` is set to the error code when the call fails.
pub(crate) fn tool_span(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        error.type = Empty,
    )
}

/// Gives every call an id that is non-empty and unique in the conversation, so each tool
/// result can be matched to its call (some local servers send no ids or repeat them).
pub(crate) fn unique_call_ids(
    calls: Vec<ToolCall>,
    iteration: usize,
    used: &mut HashSet<String>,
) -> Vec<ToolCall> {
    calls
        .into_iter()
        .enumerate()
        .map(|(index, mut call)| {
            if call.id.trim().is_empty() || used.contains(&call.id) {
                let mut n = 0;
                call.id = loop {
                    let candidate = if n == 0 {
                        format!("call_{iteration}_{index}")
                    } else {
                        format!("call_{iteration}_{index}_{n}")
                    };
                    if !used.contains(&candidate) {
                        break candidate;
                    }
                    n += 1;
                };
            }
            used.insert(call.id.clone());
            call
        })
        .collect()
}
/// The ids of the calls whose results are in `messages` already.
pub(crate) fn answered_ids(messages: &[ChatMessage]) -> HashSet<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { tool_call_id, .. } => Some(tool_call_id.clone()),
            _ => None,
        })
        .collect()
}
