//! Tool calls coming back from each provider, and results going to it.
//!
//! | dialect | call | result |
//! |---|---|---|
//! | OpenAI Chat | `tool_calls[]` with `function.arguments` as JSON text | `{role: "tool", tool_call_id, content}` |
//! | Responses | `function_call` output items (`call_id`) | `function_call_output` input items |
//! | Anthropic | `tool_use` content blocks (`input` object) | `tool_result` blocks with `is_error` |
//! | Gemini | `functionCall` parts (+ `thoughtSignature`, echoed back) | `functionResponse` parts (`output` / `error`) |
//! | MCP | `tools/call` requests | `{content, structuredContent, isError, resultType}` |
//!
//! The per-provider readers of one call (`openai::chat_call`, `anthropic::tool_use`) are
//! shared by [`Dialect::parse_calls`], the HTTP clients' answer readers and the history's serde
//! form, so each call shape is read in one place.
//!
//! [`WireArguments`] is the owned form of [`CallArgs`]: `CallArgs` borrows (it is `Copy` and
//! costs nothing on the dispatch hot path), while a [`ProviderCall`] outlives the payload it
//! was read from and must own its arguments. Making `CallArgs` own would put a clone or a
//! `Cow` on every dispatch; making `ProviderCall` borrow would tie it to the response body.

use serde_json::{json, Value};

use super::{anthropic, openai, Dialect, DialectError};
use crate::registration::{CallArgs, SkillRegistration};
use crate::result::SkillResult;
use crate::tools::{ParsedCall, ToolCall};

/// Arguments as the provider sent them: JSON text (OpenAI) or a parsed object (the others).
#[derive(Debug, Clone, PartialEq)]
pub enum WireArguments {
    /// JSON text, possibly invalid.
    Text(String),
    /// A JSON value.
    Json(Value),
}

impl WireArguments {
    /// Borrowed as dispatcher input.
    pub fn as_call_args(&self) -> CallArgs<'_> {
        match self {
            WireArguments::Text(text) => CallArgs::Text(text),
            WireArguments::Json(value) => CallArgs::Value(value),
        }
    }

    /// As JSON text, without copying text arguments.
    pub(crate) fn into_text(self) -> String {
        match self {
            WireArguments::Text(text) => text,
            WireArguments::Json(value) => value.to_string(),
        }
    }

    /// As JSON text.
    pub fn to_text(&self) -> String {
        match self {
            WireArguments::Text(text) => text.clone(),
            WireArguments::Json(value) => value.to_string(),
        }
    }
}

/// One tool call read from a provider's response.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderCall {
    /// The dialect it came in.
    pub dialect: Dialect,
    /// The provider's call id (`call_…`, `toolu_…`, Gemini's optional id, the JSON-RPC id);
    /// empty when the provider gave none.
    pub id: String,
    /// The tool name as sent (a wire name; the dispatcher maps it back to the id).
    pub name: String,
    /// The arguments as sent.
    pub arguments: WireArguments,
    /// Gemini's `thoughtSignature`, to be echoed unchanged in the history.
    pub thought_signature: Option<String>,
}

impl ProviderCall {
    /// The call as it goes back into the conversation history (the assistant turn) in its
    /// dialect: OpenAI's `tool_calls` entry, Responses' `function_call` item, Anthropic's
    /// `tool_use` block, Gemini's `functionCall` part with its `thoughtSignature`, MCP's
    /// `tools/call` request.
    pub fn render(&self) -> Value {
        render_call(self)
    }

    /// The call in the neutral form the dispatcher runs (`Dispatcher::dispatch`).
    pub fn to_parsed_call(&self) -> ParsedCall {
        ParsedCall::from_tool_call(self.clone().into_tool_call())
    }

    /// The neutral call a client hands to the agent loop (arguments as JSON text).
    pub(crate) fn into_tool_call(self) -> ToolCall {
        ToolCall {
            id: self.id,
            name: self.name,
            arguments: self.arguments.into_text(),
        }
    }
}

pub(super) fn malformed(dialect: Dialect, location: String, reason: &str) -> DialectError {
    DialectError::MalformedCall {
        dialect,
        location,
        reason: reason.to_string(),
    }
}

fn str_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The list found at the first key that holds an array, or the payload itself if it is one.
fn list_at<'a>(payload: &'a Value, paths: &[&str]) -> Vec<&'a Value> {
    if let Value::Array(items) = payload {
        return items.iter().collect();
    }
    for path in paths {
        if let Some(Value::Array(items)) = payload.pointer(path) {
            return items.iter().collect();
        }
    }
    Vec::new()
}

/// Reads the tool calls in a provider payload. Accepted payloads:
/// OpenAI Chat: a completion, an assistant message or its `tool_calls` array;
/// Responses: a response or its `output` array; Anthropic: a message or its `content`
/// blocks; Gemini: a response, a candidate, a content or its `parts`; MCP: a `tools/call`
/// JSON-RPC request or its `params`. Items that are not tool calls are skipped.
pub(crate) fn parse_calls(
    dialect: Dialect,
    payload: &Value,
) -> Result<Vec<ProviderCall>, DialectError> {
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => list_at(
            payload,
            &[
                "/choices/0/message/tool_calls",
                "/tool_calls",
                "/message/tool_calls",
            ],
        )
        .into_iter()
        .enumerate()
        .map(|(i, entry)| openai::chat_call(dialect, i, entry))
        .collect(),
        Dialect::Responses => list_at(payload, &["/output"])
            .into_iter()
            .enumerate()
            .filter(|(_, item)| item.get("type").and_then(Value::as_str) == Some("function_call"))
            .map(|(i, item)| {
                let name = str_field(item, "name")
                    .ok_or_else(|| malformed(dialect, format!("output[{i}]"), "no `name`"))?;
                let id = str_field(item, "call_id")
                    .ok_or_else(|| malformed(dialect, format!("output[{i}]"), "no `call_id`"))?;
                Ok(ProviderCall {
                    dialect,
                    id,
                    name,
                    arguments: openai::wire_arguments(item.get("arguments")),
                    thought_signature: None,
                })
            })
            .collect(),
        Dialect::Anthropic | Dialect::AnthropicStrict => list_at(payload, &["/content"])
            .into_iter()
            .enumerate()
            .filter(|(_, block)| block.get("type").and_then(Value::as_str) == Some("tool_use"))
            .map(|(i, block)| anthropic::tool_use(dialect, i, block))
            .collect(),
        Dialect::Gemini | Dialect::GeminiJsonSchema => list_at(
            payload,
            &["/candidates/0/content/parts", "/content/parts", "/parts"],
        )
        .into_iter()
        .enumerate()
        .filter_map(|(i, part)| part.get("functionCall").map(|fc| (i, part, fc)))
        .map(|(i, part, fc)| {
            let name = str_field(fc, "name").ok_or_else(|| {
                malformed(dialect, format!("parts[{i}].functionCall"), "no `name`")
            })?;
            Ok(ProviderCall {
                dialect,
                id: str_field(fc, "id").unwrap_or_default(),
                name,
                arguments: WireArguments::Json(
                    fc.get("args").cloned().unwrap_or_else(|| json!({})),
                ),
                thought_signature: str_field(part, "thoughtSignature")
                    .or_else(|| str_field(part, "thought_signature")),
            })
        })
        .collect(),
        Dialect::Mcp => {
            let (params, id) = match payload.get("method").and_then(Value::as_str) {
                Some("tools/call") => (
                    payload.get("params").unwrap_or(&Value::Null),
                    payload.get("id"),
                ),
                Some(other) => {
                    return Err(malformed(
                        dialect,
                        "method".into(),
                        &format!("`{other}` is not `tools/call`"),
                    ))
                }
                None => (payload, None),
            };
            let name = str_field(params, "name")
                .ok_or_else(|| malformed(dialect, "params".into(), "no `name`"))?;
            let id = match id {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => String::new(),
            };
            Ok(vec![ProviderCall {
                dialect,
                id,
                name,
                arguments: WireArguments::Json(
                    params
                        .get("arguments")
                        .cloned()
                        .unwrap_or_else(|| json!({})),
                ),
                thought_signature: None,
            }])
        }
    }
}

/// The call as it goes back into the conversation history (the assistant turn): OpenAI's
/// `tool_calls` entry, Responses' `function_call` item, Anthropic's `tool_use` block, Gemini's
/// `functionCall` part with its `thoughtSignature`, MCP's `tools/call` request.
pub(crate) fn render_call(call: &ProviderCall) -> Value {
    match call.dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => {
            let arguments = call.arguments.to_text();
            serde_json::to_value(openai::WireCall::new(&call.id, &call.name, &arguments))
                .expect("a tool call always serializes")
        }
        Dialect::Responses => json!({
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": call.arguments.to_text(),
        }),
        Dialect::Anthropic | Dialect::AnthropicStrict => {
            anthropic::tool_use_block(&call.id, &call.name, arguments_value(&call.arguments))
        }
        Dialect::Gemini | Dialect::GeminiJsonSchema => {
            let mut fc = json!({ "name": call.name, "args": arguments_value(&call.arguments) });
            if !call.id.is_empty() {
                fc["id"] = Value::String(call.id.clone());
            }
            let mut part = json!({ "functionCall": fc });
            if let Some(signature) = &call.thought_signature {
                part["thoughtSignature"] = Value::String(signature.clone());
            }
            part
        }
        Dialect::Mcp => json!({
            "jsonrpc": "2.0",
            "id": call.id,
            "method": "tools/call",
            "params": { "name": call.name, "arguments": arguments_value(&call.arguments) },
        }),
    }
}

fn arguments_value(arguments: &WireArguments) -> Value {
    match arguments {
        WireArguments::Json(v) => v.clone(),
        WireArguments::Text(t) => serde_json::from_str(t).unwrap_or_else(|_| json!({})),
    }
}

/// The answer to `call` in its dialect. `skill` (when known) decides MCP's
/// `structuredContent` wrapping, matching the `outputSchema` the tool was listed with.
pub(crate) fn render_result(
    call: &ProviderCall,
    result: &SkillResult,
    skill: Option<&SkillRegistration>,
) -> Value {
    // Chat dialects carry the result as text in the conversation: fenced as data. Gemini and
    // MCP carry it as structured JSON (MCP's text block must be that JSON's serialization).
    let text = match call.dialect {
        Dialect::Gemini | Dialect::GeminiJsonSchema | Dialect::Mcp => String::new(),
        _ => result.to_model_text(&call.name),
    };
    match call.dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => json!({
            "role": "tool",
            "tool_call_id": call.id,
            "content": text,
        }),
        Dialect::Responses => json!({
            "type": "function_call_output",
            "call_id": call.id,
            "output": text,
        }),
        Dialect::Anthropic | Dialect::AnthropicStrict => {
            anthropic::tool_result_block(&call.id, &text, !result.success)
        }
        Dialect::Gemini | Dialect::GeminiJsonSchema => {
            let response = if result.success {
                json!({ "output": result.data_value() })
            } else {
                let error = result.error.as_ref();
                json!({ "error": {
                    "code": error.map_or("", |e| e.code.as_ref()),
                    "message": error.map_or("", |e| e.message.as_str()),
                } })
            };
            let mut fr = json!({ "name": call.name, "response": response });
            if !call.id.is_empty() {
                fr["id"] = Value::String(call.id.clone());
            }
            json!({ "functionResponse": fr })
        }
        Dialect::Mcp => super::mcp::McpCallResult::of(result, skill).to_value(),
    }
}
