//! Final-answer parsing, truncation and serialization of tool results (SPEC-20 7.1.1
//! helper tests).

use serde_json::json;
use skill_core::agent::{
    extract_json, parse_final_response, serialize_tool_result, truncate_tool_result,
    FinalAnswerError, MAX_TOOL_RESULT_CHARS,
};

#[test]
fn valid_json_array() {
    let risks = parse_final_response(r#"[{"risk_level": "high", "description": "test"}]"#).unwrap();
    assert_eq!(risks.len(), 1);
    assert_eq!(risks[0].risk_level, "high");
    assert_eq!(risks[0].description, "test");
}

#[test]
fn empty_array() {
    assert!(parse_final_response("[]").unwrap().is_empty());
}

#[test]
fn empty_string() {
    assert_eq!(parse_final_response(""), Err(FinalAnswerError::Empty));
    assert_eq!(parse_final_response("  \n "), Err(FinalAnswerError::Empty));
}

#[test]
fn invalid_json() {
    assert!(matches!(
        parse_final_response("not json"),
        Err(FinalAnswerError::NoJson { .. })
    ));
    assert!(matches!(
        parse_final_response("[{\"risk_level\": "),
        Err(FinalAnswerError::NoJson { .. })
    ));
}

#[test]
fn filters_non_dict() {
    let risks = parse_final_response(r#"[{"a": 1}, "string", 42]"#).unwrap();
    assert_eq!(risks.len(), 1);
    assert_eq!(risks[0].extra["a"], 1, "unknown fields are kept");
}

#[test]
fn fenced_block_and_prose_are_tolerated() {
    let text =
        "Here is my analysis [see below]:\n```json\n[{\"risk_level\": \"medium\"}]\n```\nDone.";
    assert_eq!(parse_final_response(text).unwrap()[0].risk_level, "medium");
    let bare_fence = "```\n[{\"risk_level\": \"low\"}]\n```";
    assert_eq!(
        parse_final_response(bare_fence).unwrap()[0].risk_level,
        "low"
    );
    let prose =
        "经分析，风险如下 [1]：[{\"risk_level\": \"high\", \"description\": \"x\"}] 请参考。";
    assert_eq!(parse_final_response(prose).unwrap()[0].description, "x");
    let no_risks = "No risks were found: [] — the clause is standard.";
    assert!(parse_final_response(no_risks).unwrap().is_empty());
}

#[test]
fn object_forms() {
    let wrapped = r#"{"risks": [{"risk_level": "low"}, {"risk_level": "high"}]}"#;
    assert_eq!(parse_final_response(wrapped).unwrap().len(), 2);
    let single = r#"{"risk_level": "low", "description": "one"}"#;
    assert_eq!(parse_final_response(single).unwrap().len(), 1);
    assert!(matches!(
        parse_final_response(r#"{"summary": "fine"}"#),
        Err(FinalAnswerError::NotAList { .. })
    ));
    assert!(matches!(
        parse_final_response(r#"{"risks": "none"}"#),
        Err(FinalAnswerError::NotAList { .. })
    ));
    assert!(matches!(
        parse_final_response("42"),
        Err(FinalAnswerError::NotAList { .. })
    ));
}

#[test]
fn risk_fields_are_read_leniently() {
    let text = json!([{
        "id": 7,
        "risk_level": " high ",
        "risk_type": null,
        "description": "d",
        "reason": "r",
        "analysis": "a",
        "location": {"original_text": "原文"},
        "confidence": 0.9
    }])
    .to_string();
    let risk = &parse_final_response(&text).unwrap()[0];
    assert_eq!(risk.id.as_deref(), Some("7"));
    assert_eq!(risk.risk_level, "high");
    assert_eq!(risk.risk_type, "");
    assert_eq!(risk.original_text(), "原文");
    assert_eq!(risk.extra["confidence"], 0.9);
    let back = serde_json::to_value(risk).unwrap();
    assert_eq!(back["location"]["original_text"], "原文");
    assert_eq!(back["confidence"], 0.9);

    let top_level = parse_final_response(r#"[{"original_text": "top"}]"#).unwrap();
    assert_eq!(top_level[0].original_text(), "top");
    let empty = parse_final_response(r#"[{"original_text": ""}]"#).unwrap();
    assert!(empty[0].location.is_none());
}

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
        fn parsing_never_panics(text in "\\PC{0,200}") {
            let _ = parse_final_response(&text);
        }
    }
}
