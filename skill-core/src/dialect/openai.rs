//! OpenAI: Chat Completions function tools (plain and strict), Responses API tools, and the
//! strict-mode lowering of the neutral schema.
//!
//! Chat Completions requests and answers are read and written here too: the request body
//! ([`chat_request`]), tool-call entries ([`WireCall`], [`chat_call`]) and the answer
//! ([`read_chat_completion`]); the HTTP client only sends them.
//!
//! The plain Chat Completions definition is the hot path (every agent turn offers it): it is
//! serialized straight from the cached schema into a JSON fragment once per registration and
//! process, and a tool set is those fragments joined.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
#[cfg(feature = "openai")]
use serde_json::json;
use serde_json::{Map, Value};

use super::calls::{ProviderCall, WireArguments};
#[cfg(feature = "openai")]
use super::chat::{ChatMessage, LlmResponse, TokenUsage};
use super::lower::*;
use super::{Dialect, DialectError};
use crate::registration::SkillRegistration;
use crate::tools::ToolCall;

/// The Responses API's hosted tool search, `{"type": "tool_search"}`: the functions beside it
/// marked `defer_loading: true` are loaded when it finds them
/// (developers.openai.com/api/docs/guides/tools-tool-search; `defer_loading` of a function
/// tool: `provider-dialects.md` §A.2). Chat Completions has no such tool.
pub(crate) fn responses_tool_search() -> Value {
    let mut tool = Map::new();
    tool.insert("type".into(), Value::String("tool_search".into()));
    Value::Object(tool)
}

/// The one shape of an OpenAI Chat Completions function tool:
/// `{"type": "function", "function": {"name", "description", "parameters"[, "strict"]}}`.
#[derive(Serialize)]
pub(crate) struct ChatTool<'a, P> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a, P>,
}

/// The flat Responses API shape: `{"type": "function", "name", "description", "parameters",
/// "strict"}`.
#[derive(Serialize)]
pub(crate) struct ResponsesTool<'a, P> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    function: Function<'a, P>,
}

#[derive(Serialize)]
struct Function<'a, P> {
    name: &'a str,
    description: &'a str,
    parameters: P,
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}

impl<'a, P> Function<'a, P> {
    /// `skill`'s function: its wire name and description, with `parameters` as given.
    fn of(skill: &'a SkillRegistration, parameters: P, strict: Option<bool>) -> Self {
        Self {
            name: skill.wire_name,
            description: skill.description,
            parameters,
            strict,
        }
    }
}

impl<'a, P: Serialize> ChatTool<'a, P> {
    pub(crate) fn new(skill: &'a SkillRegistration, parameters: P, strict: Option<bool>) -> Self {
        Self {
            kind: "function",
            function: Function::of(skill, parameters, strict),
        }
    }
}

impl<'a, P: Serialize> ResponsesTool<'a, P> {
    pub(crate) fn new(skill: &'a SkillRegistration, parameters: P, strict: bool) -> Self {
        Self {
            kind: "function",
            function: Function::of(skill, parameters, Some(strict)),
        }
    }
}

/// The plain Chat Completions definition as JSON text, rendered once per registration for
/// the life of the process and shared by every dispatcher.
pub(crate) fn chat_fragment(skill: &'static SkillRegistration) -> Arc<str> {
    super::fragment(Dialect::OpenAi, skill, || {
        serde_json::to_string(&ChatTool::new(skill, NeutralParameters::of(skill), None))
            .expect("a JSON schema always serializes")
    })
}

/// The neutral `parameters` object borrowed from the cached input schema (no clone).
#[derive(Serialize)]
pub(crate) struct NeutralParameters<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: &'a Value,
    required: &'a Value,
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    defs: Option<&'a Value>,
}

static EMPTY_OBJECT: OnceLock<Value> = OnceLock::new();
static EMPTY_ARRAY: OnceLock<Value> = OnceLock::new();

impl NeutralParameters<'static> {
    pub(crate) fn of(skill: &SkillRegistration) -> Self {
        let schema: &'static Value = (skill.input_schema)();
        Self {
            kind: "object",
            properties: schema
                .get("properties")
                .unwrap_or_else(|| EMPTY_OBJECT.get_or_init(|| Value::Object(Map::new()))),
            required: schema
                .get("required")
                .unwrap_or_else(|| EMPTY_ARRAY.get_or_init(|| Value::Array(Vec::new()))),
            defs: schema.get("$defs"),
        }
    }
}

/// Keywords OpenAI's strict mode accepts.
pub(crate) const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
    "$ref",
    "$defs",
];

/// String formats OpenAI's strict mode accepts.
pub(crate) const OPENAI_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI strict-mode limits.
pub(crate) mod openai_limits {
    /// Object properties in one schema.
    pub(crate) const MAX_PROPERTIES: usize = 5000;
    /// Nesting levels of objects.
    pub(crate) const MAX_NESTING: usize = 10;
    /// Enum values in one schema.
    pub(crate) const MAX_ENUM_VALUES: usize = 1000;
    /// Characters of property names, definition names, enum and const values.
    pub(crate) const MAX_STRING_BUDGET: usize = 120_000;
}

/// OpenAI strict form: `additionalProperties: false` and every property required on every
/// object, optionals as `null` unions, only supported keywords, limits checked. Recursive
/// definitions stay in `$defs` (OpenAI allows them), other `$ref`s are inlined.
pub(crate) fn openai_strict(params: &Value) -> Result<Value, Unfit> {
    let mut schema = match inline_refs(params) {
        Ok(inlined) => inlined,
        Err(Unfit::Recursive(_)) => {
            let mut kept = params.clone();
            strip_ref_siblings(&mut kept);
            kept
        }
        Err(other) => return Err(other),
    };
    collapse_const_unions(&mut schema);
    strict_node(&mut schema, "", Flavor::OpenAi)?;
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            strict_node(def, &format!("/$defs/{name}"), Flavor::OpenAi)?;
        }
    }
    check_openai_limits(&schema)?;
    Ok(schema)
}

/// Counts against OpenAI's strict limits.
pub(crate) fn check_openai_limits(schema: &Value) -> Result<(), Unfit> {
    #[derive(Default)]
    struct Tally {
        properties: usize,
        enum_values: usize,
        budget: usize,
        depth: usize,
    }
    fn walk(node: &Value, depth: usize, t: &mut Tally) {
        match node {
            Value::Object(map) => {
                let mut depth = depth;
                if let Some(Value::Object(props)) = map.get("properties") {
                    depth += 1;
                    t.depth = t.depth.max(depth);
                    t.properties += props.len();
                    t.budget += props.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Object(defs)) = map.get("$defs") {
                    t.budget += defs.keys().map(String::len).sum::<usize>();
                }
                if let Some(Value::Array(values)) = map.get("enum") {
                    t.enum_values += values.len();
                    t.budget += values
                        .iter()
                        .map(|v| v.as_str().map_or(0, str::len))
                        .sum::<usize>();
                }
                if let Some(Value::String(c)) = map.get("const") {
                    t.budget += c.len();
                }
                for (k, v) in map {
                    if k != "enum" && k != "const" {
                        walk(v, depth, t);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, depth, t)),
            _ => {}
        }
    }
    use openai_limits::*;
    let mut t = Tally::default();
    walk(schema, 0, &mut t);
    let counts = [
        (t.properties, MAX_PROPERTIES, "properties"),
        (t.depth, MAX_NESTING, "levels of nesting"),
        (t.enum_values, MAX_ENUM_VALUES, "enum values"),
        (
            t.budget,
            MAX_STRING_BUDGET,
            "characters of names and enum values",
        ),
    ];
    if let Some((count, limit, what)) = counts.into_iter().find(|(count, limit, _)| count > limit) {
        return Err(Unfit::OverLimit(format!(
            "{count} {what} exceed the limit of {limit}"
        )));
    }
    Ok(())
}

/// A tool call in the Chat Completions shape, as the assistant turn carries it:
/// `{"id", "type": "function", "function": {"name", "arguments"}}`, arguments as JSON text.
#[derive(Serialize)]
pub(crate) struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

impl<'a> WireCall<'a> {
    pub(crate) fn new(id: &'a str, name: &'a str, arguments: &'a str) -> Self {
        Self {
            id,
            kind: "function",
            function: WireFunction { name, arguments },
        }
    }
}

/// Arguments of a function call as sent: JSON text, or (some servers) the object itself.
/// `null` means no arguments (`{}`); a missing field stays empty text.
pub(crate) fn wire_arguments(arguments: Option<&Value>) -> WireArguments {
    match arguments {
        Some(Value::String(text)) => WireArguments::Text(text.clone()),
        None => WireArguments::Text(String::new()),
        Some(Value::Null) => WireArguments::Text("{}".into()),
        Some(other) => WireArguments::Json(other.clone()),
    }
}

/// Reads entry `i` of a Chat Completions `tool_calls` list: `function` and its `name` are
/// required, a missing id reads as `""`.
pub(crate) fn chat_call(
    dialect: Dialect,
    i: usize,
    entry: &Value,
) -> Result<ProviderCall, DialectError> {
    let (call, missing) = read_chat_call(dialect, entry);
    match missing {
        None => Ok(call),
        Some(Missing::Function) => Err(super::calls::malformed(
            dialect,
            format!("tool_calls[{i}]"),
            "no `function`",
        )),
        Some(Missing::Name) => Err(super::calls::malformed(
            dialect,
            format!("tool_calls[{i}].function"),
            "no `name`",
        )),
    }
}

/// What a `tool_calls` entry lacks to name a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// No `function` object.
    Function,
    /// No `function.name` string.
    Name,
}

/// The one reader of a Chat Completions `tool_calls` entry: id (`""` when missing), name
/// (`""` when missing, and said so) and arguments as sent. [`chat_call`] refuses an entry
/// without a name; `parse_tool_calls` dispatches it under no name.
pub(crate) fn read_chat_call(dialect: Dialect, entry: &Value) -> (ProviderCall, Option<Missing>) {
    let function = entry.get("function");
    let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
    let missing = match (function, name) {
        (None, _) => Some(Missing::Function),
        (Some(_), None) => Some(Missing::Name),
        _ => None,
    };
    let call = ProviderCall {
        dialect,
        id: entry
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        name: name.unwrap_or_default().to_string(),
        arguments: wire_arguments(function.and_then(|f| f.get("arguments"))),
        thought_signature: None,
    };
    (call, missing)
}

/// Reads a whole `tool_calls` list with [`chat_call`], in neutral form.
fn chat_calls(entries: &[Value]) -> Result<Vec<ToolCall>, DialectError> {
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| chat_call(Dialect::OpenAi, i, entry).map(ProviderCall::into_tool_call))
        .collect()
}

/// Writes neutral calls as a `tool_calls` list (the history's serde form).
pub(crate) fn ser_tool_calls<S: Serializer>(calls: &[ToolCall], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(
        calls
            .iter()
            .map(|c| WireCall::new(&c.id, &c.name, &c.arguments)),
    )
}

/// Reads a `tool_calls` list (the history's serde form) with [`chat_call`].
pub(crate) fn de_tool_calls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ToolCall>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(entries)) => chat_calls(&entries).map_err(serde::de::Error::custom),
        Some(_) => Err(serde::de::Error::custom("`tool_calls` is not a list")),
    }
}

#[cfg(feature = "openai")]
/// A message in the request shape: the neutral serde shape minus `is_error`, which OpenAI
/// does not define.
fn chat_message(message: &ChatMessage) -> Value {
    let mut value = serde_json::to_value(message)
        .unwrap_or_else(|_| json!({"role": message.role(), "content": ""}));
    if let Value::Object(map) = &mut value {
        map.remove("is_error");
    }
    value
}

#[cfg(feature = "openai")]
/// The body of one Chat Completions request; `tools` are [`Dialect::OpenAi`] definitions,
/// sent as they are.
pub(crate) fn chat_request(
    model: &str,
    messages: &[ChatMessage],
    tools: &[Value],
    temperature: f32,
    max_tokens: Option<u32>,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert(
        "messages".into(),
        Value::Array(messages.iter().map(chat_message).collect()),
    );
    if !tools.is_empty() {
        // `tool_choice` is left out: "auto" is the default when tools are sent, and some
        // servers (vLLM without --enable-auto-tool-choice) reject it spelled out.
        body.insert("tools".into(), Value::Array(tools.to_vec()));
    }
    body.insert("temperature".into(), json!(temperature));
    if let Some(max) = max_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    Value::Object(body)
}

#[cfg(feature = "openai")]
/// Reads the first choice of a Chat Completions answer: its text (a string or text parts)
/// and its tool calls in neutral form.
pub(crate) fn read_chat_completion(body: &Value) -> Result<LlmResponse, DialectError> {
    let unreadable = |reason: String| DialectError::UnreadableResponse {
        dialect: Dialect::OpenAi,
        reason,
    };
    if let Some(err) = body.get("error").filter(|e| !e.is_null()) {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string());
        return Err(unreadable(format!(
            "error in a successful response: {message}"
        )));
    }
    let message = body
        .pointer("/choices/0/message")
        .ok_or_else(|| unreadable("no `choices[0].message` in the response".into()))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    };
    let tool_calls = match message.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(entries)) => chat_calls(entries)?,
        Some(_) => {
            return Err(unreadable(
                "`tool_calls` is not a list of function calls".into(),
            ))
        }
    };
    let cut = body
        .pointer("/choices/0/finish_reason")
        .and_then(Value::as_str)
        == Some("length");
    Ok(super::model_answer(
        Dialect::OpenAi,
        body,
        cut,
        text,
        tool_calls,
        chat_usage,
    ))
}

#[cfg(feature = "openai")]
/// The `usage` object of a Chat Completions answer: `prompt_tokens`, `completion_tokens`
/// and `prompt_tokens_details.cached_tokens` (OpenAI, DeepSeek's `prompt_cache_hit_tokens`).
fn chat_usage(usage: &Value) -> TokenUsage {
    let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64);
    TokenUsage {
        prompt_tokens: count("/prompt_tokens").unwrap_or(0),
        completion_tokens: count("/completion_tokens").unwrap_or(0),
        cached_tokens: count("/prompt_tokens_details/cached_tokens")
            .or_else(|| count("/prompt_cache_hit_tokens"))
            .unwrap_or(0),
    }
}

#[cfg(all(test, feature = "openai"))]
mod tests {
    use super::*;
    use crate::dialect::chat::recorded_usage;

    /// Token usage as OpenAI and DeepSeek report it in real answers (recorded bodies).
    #[test]
    fn usage_is_read_from_recorded_answers() {
        let cached_prompt = include_str!("../../tests/fixtures/openai/chat_cached_prompt.json");
        for (body, counts, why) in [
            (
                include_str!("../../tests/fixtures/openai/chat_final_text.json"),
                (801, 96, 0),
                "no prompt_tokens_details: nothing cached",
            ),
            (
                cached_prompt,
                (2006, 3, 1920),
                "prompt_tokens_details.cached_tokens is part of the prompt",
            ),
            (
                include_str!("../../tests/fixtures/openai/deepseek_tool_call.json"),
                (540, 28, 512),
                "DeepSeek's prompt_cache_hit_tokens",
            ),
        ] {
            let usage = recorded_usage(read_chat_completion, body);
            assert_eq!(usage.counts(), counts, "{why}");
        }
        assert_eq!(
            recorded_usage(read_chat_completion, cached_prompt).total(),
            2009,
            "the answer's total_tokens"
        );
        let none: Value = serde_json::json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "[]"}}]
        });
        assert_eq!(
            read_chat_completion(&none).unwrap().usage,
            None,
            "no usage sent"
        );
    }

    /// Each strict limit is reported with the count found and the limit it passes.
    #[test]
    fn schemas_over_a_strict_limit_are_refused_with_their_count() {
        let over = |schema: Value| match check_openai_limits(&schema) {
            Err(Unfit::OverLimit(message)) => message,
            other => panic!("expected a limit to be passed, got {other:?}"),
        };
        let properties: Map<String, Value> = (0..5001)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        assert_eq!(
            over(json!({"type": "object", "properties": properties})),
            "5001 properties exceed the limit of 5000"
        );
        let mut nested = json!({"type": "string"});
        for _ in 0..11 {
            nested = json!({"type": "object", "properties": {"a": nested}});
        }
        assert_eq!(over(nested), "11 levels of nesting exceed the limit of 10");
        let values: Vec<usize> = (0..1001).collect();
        assert_eq!(
            over(json!({"enum": values})),
            "1001 enum values exceed the limit of 1000"
        );
        let long = "x".repeat(60_001);
        assert_eq!(
            over(json!({"enum": [long.clone(), long]})),
            "120002 characters of names and enum values exceed the limit of 120000"
        );
        assert!(check_openai_limits(&json!({"enum": [1, 2]})).is_ok());
    }

    #[test]
    fn answer_calls_are_read_like_history_calls() {
        let answer = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "n", "arguments": null}},
            {"id": "c2", "type": "function", "function": {"name": "m", "arguments": {"k": 1}}}
        ]}}]});
        let read = read_chat_completion(&answer).unwrap();
        assert_eq!(read.text, "ab");
        assert_eq!(read.tool_calls[0].arguments, "{}");
        assert_eq!(read.tool_calls[1].arguments, r#"{"k":1}"#);
        let history: ChatMessage = serde_json::from_value(
            json!({"role": "assistant", "content": null, "tool_calls": answer["choices"][0]["message"]["tool_calls"]}),
        )
        .unwrap();
        assert_eq!(history.tool_calls(), read.tool_calls.as_slice());
    }

    #[test]
    fn a_tool_calls_field_that_is_no_list_is_unreadable() {
        let err =
            read_chat_completion(&json!({"choices": [{"message": {"tool_calls": {"id": "c1"}}}]}))
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            "unreadable openai response: `tool_calls` is not a list of function calls"
        );
        let err = read_chat_completion(
            &json!({"choices": [{"message": {"tool_calls": [{"id": "c1"}]}}]}),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "malformed openai tool call at tool_calls[0]: no `function`"
        );
    }
}
