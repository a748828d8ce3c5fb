//! Truncation and serialization of tool results, and finding JSON in a model's answer
//! (SPEC-20 7.1.1 helper tests).

use serde_json::json;
use toolwright::agent::{
    extract_json, serialize_tool_result, truncate_tool_result, MAX_TOOL_RESULT_CHARS,
};

#[test]
fn extract_json_prefers_objects_over_noise() {
    assert_eq!(
        extract_json("see [1] and [2]: {\"a\": 1}"),
        Some(json!({"a": 1}))
    );
    assert_eq!(extract_json("nothing here"), None);
    assert_eq!(
        extract_json("[1, 2]"),
        Some(json!([1, 2])),
        "whole text wins as is"
    );
}

#[test]
fn short_text_unchanged() {
    assert_eq!(truncate_tool_result("hello", 100), "hello");
    assert_eq!(truncate_tool_result("hello", 5), "hello");
}

#[test]
fn long_text_truncated() {
    let text = "x".repeat(5000);
    let result = truncate_tool_result(&text, 100);
    assert!(result.chars().count() < 200);
    assert!(result.starts_with(&"x".repeat(100)));
    assert!(!result.starts_with(&"x".repeat(101)));
    assert!(result.contains("截断"));
    assert!(result.contains("original 5000 characters"));
}

#[test]
fn chinese_text_is_cut_between_characters() {
    let text = "风险".repeat(2000);
    for max in [0, 1, 2, 3, 999, MAX_TOOL_RESULT_CHARS] {
        let cut = truncate_tool_result(&text, max);
        let kept: String = cut.chars().take(max).collect();
        assert_eq!(
            kept,
            text.chars().take(max).collect::<String>(),
            "max {max}"
        );
        assert!(cut.contains("original 4000 characters"));
    }
    let mixed = "a风b险c".repeat(10);
    assert_eq!(
        truncate_tool_result(&mixed, 50),
        mixed,
        "exactly 50 characters is not cut"
    );
    assert!(truncate_tool_result(&mixed, 49).contains("original 50"));
}

#[test]
fn serialize_none() {
    assert_eq!(
        serialize_tool_result(&json!(null), MAX_TOOL_RESULT_CHARS),
        "{}"
    );
}

#[test]
fn serialize_dict() {
    let result = serialize_tool_result(&json!({"key": "value"}), MAX_TOOL_RESULT_CHARS);
    assert_eq!(result, r#"{"key":"value"}"#);
}

#[test]
fn serialize_string() {
    assert_eq!(
        serialize_tool_result(&json!("hello"), MAX_TOOL_RESULT_CHARS),
        "hello"
    );
}

#[test]
fn serialize_truncates() {
    let big = json!({"text": "条".repeat(5000)});
    let out = serialize_tool_result(&big, 100);
    assert!(out.contains("截断"));
    assert!(out.chars().count() < 200);
}

mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn truncation_never_panics_and_keeps_a_prefix(text in "\\PC{0,300}", max in 0usize..320) {
            let cut = truncate_tool_result(&text, max);
            let kept: String = text.chars().take(max).collect();
            prop_assert!(cut.starts_with(&kept));
            prop_assert_eq!(cut == text, text.chars().count() <= max);
        }

        #[test]
        fn json_search_never_panics(text in "\\PC{0,200}") {
            let _ = extract_json(&text);
        }
    }
}
