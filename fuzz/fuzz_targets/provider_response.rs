//! Provider answers in every dialect: tool calls read from a payload, whole answers read as
//! the model clients read them, and results rendered back.
//!
//! Input: JSON text (anything else is skipped). For every dialect, beyond "no panic":
//! - each call read is of that dialect and survives a round trip: rendered into the
//!   conversation history and read again it has the same id, name and arguments;
//! - a whole answer (OpenAI Chat, Anthropic Messages) lists the same calls as `parse_calls`;
//! - every call converts to a dispatchable call whose arguments are a JSON object;
//! - a result rendered for a chat dialect is fenced: nothing in the call's name or the
//!   result's text opens or closes the fence.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use toolwright::fence::TOOL_OUTPUT_TAG;
use toolwright::{Dialect, ProviderCall, SkillError, SkillResult, WireArguments};

/// The calls as a payload `parse_calls` reads in `dialect`.
fn history_payload(dialect: Dialect, calls: &[ProviderCall]) -> Value {
    let rendered: Vec<Value> = calls.iter().map(ProviderCall::render).collect();
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => json!({ "tool_calls": rendered }),
        Dialect::Responses => json!({ "output": rendered }),
        Dialect::Anthropic | Dialect::AnthropicStrict => json!({ "content": rendered }),
        Dialect::Gemini | Dialect::GeminiJsonSchema => json!({ "parts": rendered }),
        Dialect::Mcp => rendered.into_iter().next().unwrap_or(Value::Null),
    }
}

/// Arguments compared as JSON when they are JSON, as text otherwise.
fn same_arguments(a: &WireArguments, b: &WireArguments) -> bool {
    let value = |w: &WireArguments| match w {
        WireArguments::Json(v) => Some(v.clone()),
        WireArguments::Text(t) => serde_json::from_str::<Value>(t).ok(),
    };
    match (value(a), value(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.to_text() == b.to_text(),
    }
}

fn check_results(dialect: Dialect, call: &ProviderCall) {
    let text = call.arguments.to_text();
    let data = serde_json::value::to_raw_value(&text).expect("a string serializes");
    let ok = SkillResult::ok("fuzz", data, 1.0);
    let err = SkillResult::err("fuzz", SkillError::new("failed", text.clone()), 1.0);
    for result in [&ok, &err] {
        let rendered = dialect.render_result(call, result, None);
        let content = match dialect {
            Dialect::OpenAi | Dialect::OpenAiStrict => rendered["content"].as_str(),
            Dialect::Responses => rendered["output"].as_str(),
            Dialect::Anthropic | Dialect::AnthropicStrict => rendered["content"]
                .as_str()
                .or_else(|| rendered.pointer("/content/0/text").and_then(Value::as_str)),
            _ => None,
        };
        if let Some(content) = content {
            common::assert_fenced(content, TOOL_OUTPUT_TAG);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(payload) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for dialect in Dialect::ALL {
        if let Ok(calls) = dialect.parse_calls(&payload) {
            for call in &calls {
                assert_eq!(call.dialect, dialect);
                let parsed = call.to_parsed_call();
                assert!(
                    serde_json::from_str::<Value>(&parsed.arguments).is_ok_and(|v| v.is_object()),
                    "dispatchable arguments are an object: {}",
                    parsed.arguments
                );
                check_results(dialect, call);
            }
            let again = dialect
                .parse_calls(&history_payload(dialect, &calls))
                .unwrap_or_else(|e| panic!("{dialect}: rendered calls do not read back: {e}"));
            assert_eq!(
                again.len(),
                calls.len().min(if dialect == Dialect::Mcp {
                    1
                } else {
                    usize::MAX
                })
            );
            for (a, b) in calls.iter().zip(&again) {
                assert_eq!(a.id, b.id, "{dialect}: id changed in the round trip");
                assert_eq!(a.name, b.name, "{dialect}: name changed in the round trip");
                assert_eq!(a.thought_signature, b.thought_signature);
                assert!(
                    same_arguments(&a.arguments, &b.arguments),
                    "{dialect}: arguments changed in the round trip: {:?} -> {:?}",
                    a.arguments,
                    b.arguments
                );
            }
        }
        match dialect.read_response(&payload) {
            Ok(answer) => {
                let listed = match dialect {
                    Dialect::OpenAi | Dialect::OpenAiStrict => payload
                        .pointer("/choices/0/message/tool_calls")
                        .is_some_and(Value::is_array),
                    _ => true,
                };
                if listed {
                    let calls = dialect
                        .parse_calls(&payload)
                        .expect("an answer that reads whole has readable calls");
                    let names: Vec<(&str, &str)> = calls
                        .iter()
                        .map(|c| (c.id.as_str(), c.name.as_str()))
                        .collect();
                    let read: Vec<(&str, &str)> = answer
                        .tool_calls
                        .iter()
                        .map(|c| (c.id.as_str(), c.name.as_str()))
                        .collect();
                    assert_eq!(
                        names, read,
                        "{dialect}: the answer and parse_calls disagree"
                    );
                } else {
                    assert!(answer.tool_calls.is_empty());
                }
            }
            Err(err) => {
                common::assert_no_internals(&err.to_string(), "");
            }
        }
    }
});
