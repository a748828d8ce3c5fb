//! Anthropic Messages: tools as `{name, description, input_schema[, strict]}`, the strict-mode
//! subset and its per-request budget, `tool_use` / `tool_result` blocks, the request body of a
//! turn ([`messages_request`]) and its answer ([`read_message`]); the HTTP client only sends
//! them.

use serde_json::{json, Map, Value};

use super::calls::{malformed, ProviderCall, WireArguments};
#[cfg(feature = "anthropic")]
use super::chat::{ChatMessage, LlmResponse, TokenUsage};
use super::lower::*;
use super::{Dialect, DialectError};
use crate::registration::SkillRegistration;
#[cfg(feature = "anthropic")]
use crate::tools::ToolCall;

/// The plain Anthropic tool definition.
pub(crate) fn tool(skill: &SkillRegistration, input_schema: Value) -> Value {
    json!({
        "name": skill.wire_name,
        "description": skill.description,
        "input_schema": input_schema,
    })
}

/// Anthropic's tool search tool, never deferred itself: the BM25 variant (the model searches
/// in plain words) or the regex one (the model writes a regular expression). Documented at
/// platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool; the deferred
/// definitions beside it carry `defer_loading` (`provider-dialects.md` §A.3).
pub(crate) fn tool_search_tool(bm25: bool) -> Value {
    if bm25 {
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    } else {
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    }
}

/// A `tool_use` block: the assistant's call as it goes back into the history. The input is
/// always an object (`{}` when the model's arguments were not one).
pub(crate) fn tool_use_block(id: &str, name: &str, input: Value) -> Value {
    let input = match input {
        Value::Object(map) => Value::Object(map),
        _ => Value::Object(Map::new()),
    };
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// A `tool_result` block answering call `id`; `is_error` only when the call failed.
pub(crate) fn tool_result_block(id: &str, content: &str, is_error: bool) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": content});
    if is_error {
        block["is_error"] = Value::Bool(true);
    }
    block
}

/// Reads content block `i`, a `tool_use`: `name` and `id` are required, a missing `input`
/// reads as `{}`.
pub(crate) fn tool_use(
    dialect: Dialect,
    i: usize,
    block: &Value,
) -> Result<ProviderCall, DialectError> {
    let field = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_string);
    let name = field("name").ok_or_else(|| {
        malformed(
            dialect,
            format!("content[{i}]"),
            "a tool_use without `name`",
        )
    })?;
    let id = field("id").ok_or_else(|| malformed(dialect, format!("content[{i}]"), "no `id`"))?;
    Ok(ProviderCall {
        dialect,
        id,
        name,
        arguments: WireArguments::Json(block.get("input").cloned().unwrap_or_else(|| json!({}))),
        thought_signature: None,
    })
}

#[cfg(feature = "anthropic")]
/// The body of one Messages request: system messages go to `system`, tool results become
/// `tool_result` blocks of a user turn, consecutive turns of one role are merged. `tools` are
/// [`Dialect::Anthropic`] definitions, sent as they are; the temperature is clamped to the
/// API's 0..=1.
pub(crate) fn messages_request(
    model: &str,
    max_tokens: u32,
    messages: &[ChatMessage],
    tools: &[Value],
    temperature: f32,
) -> Value {
    let (system, turns) = turns(messages);
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(max_tokens));
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(turns));
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools.to_vec()));
    }
    body.insert("temperature".into(), json!(temperature.clamp(0.0, 1.0)));
    Value::Object(body)
}

#[cfg(feature = "anthropic")]
/// The system text and the alternating turns of a history, as content blocks.
pub(crate) fn turns(messages: &[ChatMessage]) -> (String, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut push = |role: &'static str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    };
    for message in messages {
        match message {
            ChatMessage::System { content } => system.push(content.as_str()),
            ChatMessage::User { content } => push("user", vec![text_block(content)]),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks = Vec::new();
                if let Some(text) = content.as_deref().filter(|t| !t.trim().is_empty()) {
                    blocks.push(text_block(text));
                }
                blocks.extend(tool_calls.iter().map(neutral_tool_use_block));
                push("assistant", blocks);
            }
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } => push(
                "user",
                vec![tool_result_block(tool_call_id, content, *is_error)],
            ),
        }
    }
    let turns = turns
        .into_iter()
        .map(|(role, blocks)| json!({"role": role, "content": blocks}))
        .collect();
    (system.join("\n\n"), turns)
}

#[cfg(feature = "anthropic")]
fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

#[cfg(feature = "anthropic")]
fn neutral_tool_use_block(call: &ToolCall) -> Value {
    let input = serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null);
    tool_use_block(&call.id, &call.name, input)
}

#[cfg(feature = "anthropic")]
/// Reads a Messages answer: text blocks joined, `tool_use` blocks as neutral calls.
pub(crate) fn read_message(body: &Value) -> Result<LlmResponse, DialectError> {
    let unreadable = |reason: String| DialectError::UnreadableResponse {
        dialect: Dialect::Anthropic,
        reason,
    };
    if body.get("type").and_then(Value::as_str) == Some("error") {
        let message = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        return Err(unreadable(format!(
            "error in a successful response: {message}"
        )));
    }
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| unreadable("no `content` list in the response".into()))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => {
                tool_calls.push(tool_use(Dialect::Anthropic, i, block)?.into_tool_call());
            }
            _ => {}
        }
    }
    let cut = body.get("stop_reason").and_then(Value::as_str) == Some("max_tokens");
    Ok(super::model_answer(
        Dialect::Anthropic,
        body,
        cut,
        text,
        tool_calls,
        message_usage,
    ))
}

#[cfg(feature = "anthropic")]
/// The `usage` object of a Messages answer. Anthropic counts cache reads and cache writes
/// apart from `input_tokens`; the prompt is all three, the cached part the reads.
fn message_usage(usage: &Value) -> TokenUsage {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
    let cached = count("cache_read_input_tokens");
    TokenUsage {
        prompt_tokens: count("input_tokens") + cached + count("cache_creation_input_tokens"),
        completion_tokens: count("output_tokens"),
        cached_tokens: cached,
    }
}

/// Anthropic strict-mode budget per request.
pub(crate) mod anthropic_limits {
    /// Tools with `strict: true`.
    pub(crate) const MAX_STRICT_TOOLS: usize = 20;
    /// Properties not in `required`, summed over all strict schemas.
    pub(crate) const MAX_OPTIONAL: usize = 24;
    /// Properties with union types (`anyOf`, type arrays), summed over all strict schemas.
    pub(crate) const MAX_UNIONS: usize = 16;
}

pub(crate) fn check_anthropic_budget(
    skills: &[&'static SkillRegistration],
    defs: &[Value],
) -> Result<(), DialectError> {
    use anthropic_limits::*;
    let mut strict_tools = 0;
    let mut optional = 0;
    let mut unions = 0;
    let mut per_tool = Vec::new();
    for (skill, def) in skills.iter().zip(defs) {
        if def.get("strict") != Some(&Value::Bool(true)) {
            continue;
        }
        strict_tools += 1;
        let (o, u) = anthropic_budget(&def["input_schema"]);
        optional += o;
        unions += u;
        per_tool.push(format!("{} ({o} optional, {u} union)", skill.id));
    }
    let mut over = Vec::new();
    if strict_tools > MAX_STRICT_TOOLS {
        over.push(format!(
            "{strict_tools} strict tools (limit {MAX_STRICT_TOOLS})"
        ));
    }
    if optional > MAX_OPTIONAL {
        over.push(format!(
            "{optional} optional parameters (limit {MAX_OPTIONAL})"
        ));
    }
    if unions > MAX_UNIONS {
        over.push(format!(
            "{unions} parameters with union types (limit {MAX_UNIONS})"
        ));
    }
    if over.is_empty() {
        return Ok(());
    }
    Err(DialectError::AnthropicLimits {
        reason: format!("{}; per tool: {}", over.join(", "), per_tool.join(", ")),
    })
}

/// Anthropic strict form: `additionalProperties: false` everywhere, optional properties may
/// stay out of `required` (without a redundant `null`), unsupported keywords moved into the
/// description, no recursion.
pub(crate) fn anthropic_strict(params: &Value) -> Result<Value, Unfit> {
    let mut schema = inline_refs(params)?;
    collapse_const_unions(&mut schema);
    strict_node(&mut schema, "", Flavor::Anthropic)?;
    Ok(schema)
}

/// String formats Anthropic's strict mode accepts.
pub(crate) const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords Anthropic's strict mode accepts.
pub(crate) const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "description",
    "title",
    "pattern",
    "format",
    "minItems",
    "default",
];

/// Optional and union-typed properties of a strict Anthropic schema (what its per-request
/// budget counts).
pub(crate) fn anthropic_budget(schema: &Value) -> (usize, usize) {
    fn walk(node: &Value, optional: &mut usize, unions: &mut usize) {
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    let required: Vec<&str> = map
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    for (name, prop) in props {
                        if !required.contains(&name.as_str()) {
                            *optional += 1;
                        }
                        if is_union(prop) {
                            *unions += 1;
                        }
                    }
                }
                map.values().for_each(|v| walk(v, optional, unions));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, optional, unions)),
            _ => {}
        }
    }
    let (mut optional, mut unions) = (0, 0);
    walk(schema, &mut optional, &mut unions);
    (optional, unions)
}

/// Whether a property schema is a union (`anyOf` or a type array).
pub(crate) fn is_union(prop: &Value) -> bool {
    prop.get("anyOf").is_some() || prop.get("type").is_some_and(Value::is_array)
}

#[cfg(all(test, feature = "anthropic"))]
mod tests {
    use super::*;
    use crate::dialect::chat::recorded_usage;

    /// Token usage as the Messages API reports it (recorded bodies): cache reads and
    /// writes are counted apart from `input_tokens`; the prompt is all three.
    #[test]
    fn usage_is_read_from_recorded_answers() {
        let plain = recorded_usage(
            read_message,
            include_str!("../../tests/fixtures/anthropic/messages_final_text.json"),
        );
        assert_eq!(plain.counts(), (1033, 88, 0));
        let cached = recorded_usage(
            read_message,
            include_str!("../../tests/fixtures/anthropic/messages_cache_read.json"),
        );
        assert_eq!(cached.counts(), (312 + 148 + 2048, 5, 2048));
    }

    /// An answer of a request with Anthropic's tool search: the platform's own search call
    /// (`server_tool_use`) and its result are no calls for the client; the deferred tool
    /// the model then calls is.
    #[test]
    fn provider_search_blocks_are_not_client_calls() {
        let body = json!({
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Searching."},
                {"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25",
                 "input": {"query": "weather"}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01",
                 "content": {"type": "tool_search_tool_search_result",
                             "tool_references": [{"type": "tool_reference", "tool_name": "weather_lookup"}]}},
                {"type": "tool_use", "id": "toolu_01", "name": "weather_lookup", "input": {"city": "Oslo"}}
            ],
            "stop_reason": "tool_use"
        });
        let answer = read_message(&body).unwrap();
        assert_eq!(answer.text, "Searching.");
        assert_eq!(answer.tool_calls.len(), 1);
        assert_eq!(answer.tool_calls[0].name, "weather_lookup");
        assert_eq!(answer.tool_calls[0].id, "toolu_01");
    }

    #[test]
    fn history_becomes_alternating_turns_with_blocks() {
        let messages = vec![
            ChatMessage::system("rules"),
            ChatMessage::user("review 4.1"),
            ChatMessage::assistant_tool_calls(
                Some("looking".into()),
                vec![
                    ToolCall {
                        id: "a".into(),
                        name: "x".into(),
                        arguments: r#"{"k":1}"#.into(),
                    },
                    ToolCall {
                        id: "b".into(),
                        name: "y".into(),
                        arguments: "not json".into(),
                    },
                ],
            ),
            ChatMessage::tool("a", "{\"ok\":1}", false),
            ChatMessage::tool("b", "bad", true),
            ChatMessage::user("go on"),
        ];
        let (system, turns) = turns(&messages);
        assert_eq!(system, "rules");
        assert_eq!(turns.len(), 3);
        assert_eq!(
            turns[1]["content"][1],
            json!({"type": "tool_use", "id": "a", "name": "x", "input": {"k": 1}})
        );
        assert_eq!(turns[1]["content"][2]["input"], json!({}));
        let results = turns[2]["content"].as_array().unwrap();
        assert_eq!(
            results.len(),
            3,
            "two tool results and the user text merge into one user turn"
        );
        assert_eq!(results[0].get("is_error"), None);
        assert_eq!(results[1]["is_error"], json!(true));
        assert_eq!(results[2]["type"], "text");
    }
}
