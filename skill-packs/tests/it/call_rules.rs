//! Rules on who calls what: no impersonation, bounded nesting, the provider's argument checks, model calls.

use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, Caller};

use crate::support::*;

#[tokio::test]
async fn a_pack_cannot_call_in_the_name_of_another() {
    let (gateway, _) = setup("impersonate");
    let r = gateway
        .call_tool(
            &Caller::new("horoscope", "kim"),
            "horoscope_impersonate",
            None,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::CONSUMER_MISMATCH));
}

#[tokio::test]
async fn runaway_recursion_is_stopped() {
    let (gateway, _) = setup("recursion");
    let r = gateway
        .call_tool(
            &Caller::new("horoscope", "lee"),
            "horoscope_recurse",
            None,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(
        r.error_code(),
        Some(codes::CALL_DEPTH_EXCEEDED),
        "{}",
        r.to_json()
    );
}

#[tokio::test]
async fn bad_arguments_are_reported_by_the_provider_and_audited() {
    let (gateway, _) = setup("badargs");
    gateway
        .subscriptions()
        .subscribe("mia", "zodiac", None)
        .await
        .unwrap();
    let r = gateway
        .call_tool(
            &Caller::new("jungastro", "mia"),
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01", "birth_time": "noon"})),
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(toolwright::codes::INVALID_ARGUMENTS));
    assert!(r.error.unwrap().message.contains("birth_time"));
    let records = audit_of(&gateway, "mia").await;
    assert_eq!(records.last().unwrap().outcome, "invalid_arguments");
}

#[tokio::test]
async fn model_tool_calls_go_through_the_gateway() {
    let (gateway, _) = setup("dispatch");
    let calls = toolwright::parse_tool_calls(&[json!({
        "id": "c1",
        "type": "function",
        "function": {"name": "zodiac_get_chart_snapshot", "arguments": "{\"include_aspects\": true}"}
    })]);
    let r = gateway
        .dispatch(
            &Caller::new("horoscope", "nina"),
            &calls[0],
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(toolwright::codes::NOT_FOUND));
    assert_eq!(audit_of(&gateway, "nina").await.len(), 1);
}
