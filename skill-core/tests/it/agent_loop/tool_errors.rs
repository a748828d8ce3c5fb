//! Tool calls the loop answers with an error the model can read: invented, outside the
//! filter, bad arguments, panics and time-outs.

use super::*;

#[tokio::test]
async fn invented_tool_comes_back_as_error_listing_the_offered_tools() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("a", "fidic_magic", "{}"),
            call("b", "get_clause_context", "{}"),
        ]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    let tools = tool_messages(&outcome);
    assert_eq!(tools[0].0, "a");
    assert_eq!(tools[0].1["error"]["code"], codes::UNKNOWN_SKILL);
    let message = tools[0].1["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("fidic_magic") && message.contains("get_clause_context"),
        "{message}"
    );
    assert!(tools[0].2);
    assert_eq!(
        tools[1].1["success"], true,
        "the other call of the round still ran"
    );
}

#[tokio::test]
async fn a_skill_outside_the_filter_is_not_callable() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "finance_rate_check", r#"{"rate": 3}"#)]),
        LlmResponse::text("[]"),
    ]);
    let options = ReactOptions::default().tool_filter(ToolFilter::all().domain("construction"));
    let outcome = run(&model, &options).await;
    assert!(!model.requests()[0]
        .tool_names
        .contains(&"finance_rate_check".to_string()));
    assert_eq!(
        tool_messages(&outcome)[0].1["error"]["code"],
        codes::UNKNOWN_SKILL
    );

    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "finance_rate_check", r#"{"rate": 3}"#)]),
        LlmResponse::text("[]"),
    ]);
    let options = ReactOptions::default().tool_filter(ToolFilter::all().domain("finance"));
    let outcome = run(&model, &options).await;
    assert_eq!(
        outcome.skill_context["finance.rate_check"], true,
        "context is keyed by skill id"
    );
}

#[tokio::test]
async fn invalid_arguments_come_back_as_errors_the_model_can_fix() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("a", "extract_financial_terms", r#"{"clause_id": "4.1""#),
            call("b", "extract_financial_terms", "[1, 2]"),
            call("c", "extract_financial_terms", r#"{"clause": "4.1"}"#),
            call("d", "slow_tool", r#"{"ms": "many"}"#),
        ]),
        LlmResponse::tool_calls(vec![call(
            "e",
            "extract_financial_terms",
            r#"{"clause_id": "4.1"}"#,
        )]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    let tools = tool_messages(&outcome);
    for (i, (_, content, is_error)) in tools.iter().take(4).enumerate() {
        assert!(is_error, "call {i}");
        assert_eq!(
            content["error"]["code"],
            codes::INVALID_ARGUMENTS,
            "call {i}: {content}"
        );
    }
    assert!(tools[0].1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
    assert!(tools[1].1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("not a JSON object"));
    assert!(tools[2].1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("clause_id"));
    assert!(tools[3].1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("ms"));
    assert_eq!(tools[4].1["success"], true, "the corrected call ran");
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
}

#[tokio::test]
async fn panicking_and_timing_out_skills_do_not_stop_the_loop() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("a", "panicky_tool", "{}"),
            call("b", "slow_tool", r#"{"ms": 5000}"#),
        ]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    let tools = tool_messages(&outcome);
    assert_eq!(tools[0].1["error"]["code"], codes::PANIC);
    assert!(
        !tools[0].1.to_string().contains("invariant"),
        "panic text stays with the operator"
    );
    assert_eq!(tools[1].1["error"]["code"], codes::TIMEOUT);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
}

#[tokio::test]
async fn loop_level_tool_timeout_applies() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "wait_echo", r#"{"tag": "x", "ms": 5000}"#)]),
        LlmResponse::text("[]"),
    ]);
    let options = ReactOptions::default().tool_timeout(Duration::from_millis(20));
    let outcome = run(&model, &options).await;
    let tools = tool_messages(&outcome);
    assert_eq!(tools[0].1["error"]["code"], codes::TIMEOUT);
    assert!(tools[0].1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("20 ms"));
}
