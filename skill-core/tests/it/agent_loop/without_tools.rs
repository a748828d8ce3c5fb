//! A run with no tools to offer: skipped, or one turn whose text is the answer.

use super::*;

/// A run with no tool to offer that answers anyway: one turn without tools.
async fn run_without_tools(model: &ScriptedClient) -> Outcome {
    let options = ReactOptions::default()
        .label("no-tools")
        .answer_without_tools();
    let nothing = Dispatcher::builder().build().unwrap();
    react_agent_loop(model, &nothing, initial(), &ctx(), &options, read_list).await
}

#[tokio::test]
async fn without_tools_the_model_answers_in_one_turn_when_asked_to() {
    let usage = TokenUsage {
        prompt_tokens: 120,
        completion_tokens: 30,
        cached_tokens: 100,
    };
    let model = ScriptedClient::from_responses([
        LlmResponse::text(r#"[{"risk_level": "low"}]"#).with_usage(usage),
        LlmResponse::text("[]"),
    ]);
    let outcome = run_without_tools(&model).await;
    assert_eq!(risks(&outcome), [json!({"risk_level": "low"})]);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.iterations, 1);
    assert_eq!(outcome.usage, usage);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert_eq!(outcome.tool_calls, 0);
    let mut expected = initial();
    expected.push(ChatMessage::assistant(r#"[{"risk_level": "low"}]"#));
    assert_eq!(outcome.final_messages, expected);
    let requests = model.requests();
    assert_eq!(requests.len(), 1, "one turn only");
    assert_eq!(requests[0].messages, initial());
    assert!(requests[0].tool_names.is_empty(), "no tools offered");
}

#[tokio::test]
async fn without_tools_calls_the_model_makes_anyway_are_not_run() {
    let mut response = LlmResponse::tool_calls(vec![call("a", "get_clause_context", "{}")]);
    response.text = "[]".into();
    let model = ScriptedClient::from_responses([response]);
    let outcome = run_without_tools(&model).await;
    assert_eq!(outcome.answer, Some(Vec::new()));
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 0);
    assert!(outcome.tool_runs.is_empty());
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert_eq!(
        outcome.final_messages.last(),
        Some(&ChatMessage::assistant("[]"))
    );
}

#[tokio::test]
async fn without_tools_an_unreadable_answer_is_a_warning() {
    let model = ScriptedClient::from_responses([LlmResponse::text("I could not decide.")]);
    let outcome = run_without_tools(&model).await;
    assert_eq!(outcome.answer, None);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        outcome.warnings,
        ["final answer unreadable (no-tools): the final answer contains no JSON list"]
    );
    assert_eq!(
        outcome.final_messages.last().unwrap().content(),
        Some("I could not decide.")
    );
}

#[tokio::test]
async fn without_tools_a_model_error_stops_the_run() {
    let model = ScriptedClient::new([Err(LlmError::Scripted("API timeout".into()))]);
    let outcome = run_without_tools(&model).await;
    assert_eq!(outcome.answer, None);
    assert_eq!(
        outcome.stop_reason,
        StopReason::LlmError("API timeout".into())
    );
    assert_eq!(outcome.iterations, 1);
    assert_eq!(outcome.usage, TokenUsage::default());
    assert_eq!(
        outcome.warnings,
        ["LLM call failed (no-tools): API timeout"]
    );
    assert_eq!(outcome.final_messages, initial());
}

#[tokio::test]
async fn tools_the_filter_accepts_are_offered_even_when_the_run_may_answer_without() {
    let model = ScriptedClient::from_responses([LlmResponse::text("[]")]);
    let options = ReactOptions::default().answer_without_tools();
    let outcome = run(&model, &options).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(model.requests()[0]
        .tool_names
        .contains(&"get_clause_context".to_string()));
}
