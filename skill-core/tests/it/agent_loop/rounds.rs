//! Rounds of calls: concurrency and its bound, long results, call ids, final answers and
//! the history.

use super::*;

#[tokio::test(start_paused = true)]
async fn calls_of_a_round_run_concurrently_and_results_keep_the_order_asked() {
    let calls: Vec<ToolCall> = [("a", 300), ("b", 200), ("c", 100)]
        .iter()
        .map(|(tag, ms)| {
            call(
                &format!("id_{tag}"),
                "wait_echo",
                &format!(r#"{{"tag": "{tag}", "ms": {ms}}}"#),
            )
        })
        .collect();
    let model =
        ScriptedClient::from_responses([LlmResponse::tool_calls(calls), LlmResponse::text("[]")]);
    let gauge = Arc::new(Gauge::default());
    let ctx = SkillContext::new().with_arc(Arc::clone(&gauge));
    let started = tokio::time::Instant::now();
    let outcome = react_agent_loop(
        &model,
        &dispatcher(),
        initial(),
        &ctx,
        &ReactOptions::default(),
        read_list,
    )
    .await;
    let elapsed = started.elapsed();
    assert_eq!(
        gauge.peak.load(Ordering::SeqCst),
        3,
        "all three ran at once"
    );
    assert!(
        elapsed < Duration::from_millis(600),
        "virtual time {elapsed:?}: calls were serialized"
    );
    let tools = tool_messages(&outcome);
    let order: Vec<(&str, &Value)> = tools.iter().map(|(id, c, _)| (*id, &c["data"])).collect();
    assert_eq!(
        order,
        vec![
            ("id_a", &json!("a")),
            ("id_b", &json!("b")),
            ("id_c", &json!("c"))
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn parallelism_is_bounded() {
    let calls: Vec<ToolCall> = (0..6)
        .map(|i| {
            call(
                &format!("id{i}"),
                "wait_echo",
                &format!(r#"{{"tag": "{i}", "ms": 50}}"#),
            )
        })
        .collect();
    let model =
        ScriptedClient::from_responses([LlmResponse::tool_calls(calls), LlmResponse::text("[]")]);
    let gauge = Arc::new(Gauge::default());
    let ctx = SkillContext::new().with_arc(Arc::clone(&gauge));
    let options = ReactOptions::default().max_parallel_tools(2);
    let outcome =
        react_agent_loop(&model, &dispatcher(), initial(), &ctx, &options, read_list).await;
    assert_eq!(gauge.peak.load(Ordering::SeqCst), 2);
    assert_eq!(tool_messages(&outcome).len(), 6);
}

#[tokio::test]
async fn long_results_are_cut_on_a_character_boundary() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("a", "long_text", r#"{"times": 1000}"#)]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    let content = outcome.final_messages[3].content().unwrap();
    let full_len = json!({"success": true, "data": "合同风险分析结果。".repeat(1000)})
        .to_string()
        .chars()
        .count();
    assert!(
        content.contains(&format!("original {full_len} characters")),
        "{}",
        &content[content.len() - 120..]
    );
    assert!(content.contains("截断"));
    // The limit is on the result; the data fence around it is a constant few characters.
    assert!(unfenced(content).chars().count() < MAX_TOOL_RESULT_CHARS + 100);
    assert!(
        content.ends_with("</tool_output>"),
        "the fence is never cut off"
    );
    assert_eq!(
        outcome.skill_context["long_text"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        9000,
        "the host keeps the whole output"
    );
}

#[tokio::test]
async fn missing_and_repeated_call_ids_are_made_unique() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("", "get_clause_context", "{}"),
            call("", "get_clause_context", "{}"),
        ]),
        LlmResponse::tool_calls(vec![
            call("x", "get_clause_context", "{}"),
            call("x", "get_clause_context", "{}"),
        ]),
        LlmResponse::tool_calls(vec![call("x", "get_clause_context", "{}")]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(outcome.tool_calls, 5);
    assert_ids_match(&outcome.final_messages);
}

#[tokio::test]
async fn unreadable_final_answer_gives_no_risks_and_a_warning() {
    let model = ScriptedClient::from_responses([LlmResponse::text("I could not decide.")]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert!(risks(&outcome).is_empty());
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(
        outcome.warnings.iter().any(|w| w.contains("no JSON")),
        "{:?}",
        outcome.warnings
    );
    assert_eq!(
        outcome.final_messages.last().unwrap().content(),
        Some("I could not decide.")
    );
}

#[tokio::test]
async fn fenced_answer_with_prose_is_read() {
    let model = ScriptedClient::from_responses([LlmResponse::text(
        "分析如下：\n```json\n[{\"risk_level\": \"high\", \"risk_type\": \"付款\", \"description\": \"d\", \"reason\": \"r\", \"analysis\": \"a\", \"original_text\": \"56 天内付款\"}]\n```\n以上。",
    )]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(risks(&outcome).len(), 1);
    assert_eq!(risks(&outcome)[0]["risk_type"], "付款");
    assert_eq!(risks(&outcome)[0]["original_text"], "56 天内付款");
}

#[tokio::test]
async fn text_alongside_tool_calls_is_kept_in_history() {
    let model = ScriptedClient::from_responses([
        LlmResponse {
            text: "先查看上下文".into(),
            tool_calls: vec![call("a", "get_clause_context", "{}")],
            usage: None,
        },
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(outcome.final_messages[2].content(), Some("先查看上下文"));
    let (answer, context, messages) = outcome.into_parts();
    assert!(answer.unwrap().is_empty());
    assert_eq!(context.len(), 1);
    assert_eq!(messages.len(), 5);
}

#[tokio::test]
async fn final_messages_serialize_in_openai_shape_and_back() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("call_1", "broken_tool", "{}")]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    let wire = serde_json::to_value(&outcome.final_messages).unwrap();
    assert_eq!(
        wire[2],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "broken_tool", "arguments": "{}"}}
        ]})
    );
    assert_eq!(wire[3]["role"], "tool");
    assert_eq!(wire[3]["tool_call_id"], "call_1");
    assert_eq!(wire[3]["is_error"], true);
    assert_eq!(wire[4], json!({"role": "assistant", "content": "[]"}));
    let back: Vec<ChatMessage> = serde_json::from_value(wire).unwrap();
    assert_eq!(back, outcome.final_messages);
}

#[tokio::test]
async fn scripted_client_reports_an_exhausted_script() {
    let model = ScriptedClient::from_responses([LlmResponse::tool_calls(vec![call(
        "a",
        "get_clause_context",
        "{}",
    )])]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(
        outcome.stop_reason,
        StopReason::LlmError("scripted client has no reply left for turn 2".into())
    );
    assert_eq!(model.remaining(), 0);
}
