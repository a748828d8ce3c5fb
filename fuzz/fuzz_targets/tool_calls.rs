//! `parse_tool_calls`: OpenAI-shaped tool calls as a model or a proxy sends them.
//!
//! Input: JSON text; an array is the list of calls, anything else one call. Beyond "no
//! panic": one parsed call per entry; its id and name are the entry's when they are strings;
//! its arguments are always a JSON object; arguments that needed no fix are the ones sent.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright::parse_tool_calls;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let entries = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    let parsed = parse_tool_calls(&entries);
    assert_eq!(parsed.len(), entries.len(), "one call per entry");
    for (entry, call) in entries.iter().zip(&parsed) {
        let id = entry.get("id").and_then(Value::as_str).unwrap_or_default();
        assert_eq!(call.id, id);
        let name = entry
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert_eq!(call.skill_id, name);
        let arguments: Value = serde_json::from_str(&call.arguments)
            .unwrap_or_else(|e| panic!("arguments are JSON ({e}): {}", call.arguments));
        assert!(
            arguments.is_object(),
            "arguments are an object: {arguments}"
        );
        assert_eq!(call.arguments_value(), arguments);
        if call.warnings.is_empty() {
            match entry.pointer("/function/arguments") {
                Some(Value::String(text)) if !text.trim().is_empty() => {
                    assert_eq!(&call.arguments, text, "unfixed arguments are kept as sent");
                }
                Some(sent @ Value::Object(_)) => assert_eq!(&arguments, sent),
                _ => {}
            }
        }
        for warning in &call.warnings {
            assert_eq!(warning.path, "$");
        }
    }
});
