//! The ReAct loop against a scripted model and real skills (SPEC-20 section 7.1.1, plus
//! parallel rounds, error feedback, truncation, id matching).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::{
    extract_json, react_agent_loop, ChatMessage, LlmError, LlmResponse, ReactOptions, ReactOutcome,
    ScriptedClient, StopReason, TokenUsage, MAX_TOOL_RESULT_CHARS,
};
use toolwright::prelude::*;
use toolwright::{codes, Skill, ToolCall};

/// The clause under review, put into the context by the host.
struct CurrentClause(String);

/// Counts how many tool bodies run at the same time.
#[derive(Default)]
struct Gauge {
    running: AtomicUsize,
    peak: AtomicUsize,
}

fn current_clause(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<CurrentClause>()
        .map(|c| c.0.clone())
        .ok_or_else(|| SkillError::not_found("no current clause in the context"))
}

/// Context of one clause.
#[derive(Debug, Serialize, JsonSchema)]
struct ClauseContext {
    /// The clause.
    clause_id: String,
    /// Its text.
    context_text: String,
}

/// Get the full context of a clause.
#[skill(id = "get_clause_context", category = "retrieval")]
fn get_clause_context(
    /// Clause number; the current clause when left out.
    #[arg(prepare = current_clause)]
    clause_id: String,
) -> ClauseContext {
    ClauseContext {
        context_text: format!("条款 {clause_id} 全文..."),
        clause_id,
    }
}

/// Compare a clause with the baseline template.
#[skill(id = "compare_with_baseline", category = "analysis")]
fn compare_with_baseline(
    /// Clause number.
    #[arg(prepare = current_clause)]
    clause_id: String,
) -> Value {
    json!({"clause_id": clause_id, "modification_type": "unmodified"})
}

/// Extract the financial terms of a clause.
#[skill(id = "extract_financial_terms", category = "analysis")]
fn extract_financial_terms(
    /// Clause number.
    clause_id: String,
) -> Value {
    json!({"clause_id": clause_id, "terms": []})
}

/// Always fails.
#[skill(id = "broken_tool")]
fn broken_tool() -> Result<String, SkillError> {
    Err(SkillError::new("tool_crashed", "工具崩溃")
        .with_details(json!({"secret": "operator-only"})))
}

/// Panics.
#[skill(id = "panicky_tool")]
fn panicky_tool() -> String {
    panic!("internal invariant broken")
}

/// Sleeps past its own limit.
#[skill(id = "slow_tool", timeout_ms = 30)]
async fn slow_tool(
    /// Milliseconds to sleep.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// Returns a long Chinese text.
#[skill(id = "long_text")]
fn long_text(
    /// Repetitions of the sample sentence.
    times: usize,
) -> String {
    "合同风险分析结果。".repeat(times)
}

/// Waits, then echoes its tag; records how many run at once.
#[skill(id = "wait_echo")]
async fn wait_echo(
    /// Echoed back.
    tag: String,
    /// Milliseconds to wait.
    ms: u64,
    gauge: Inject<Gauge>,
) -> String {
    let now = gauge.running.fetch_add(1, Ordering::SeqCst) + 1;
    gauge.peak.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    gauge.running.fetch_sub(1, Ordering::SeqCst);
    tag
}

/// Only for the finance domain.
#[skill(id = "finance.rate_check", domain = "finance")]
fn rate_check(
    /// Interest rate in percent.
    rate: f64,
) -> bool {
    rate < 10.0
}

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(GetClauseContext::registration())
        .skill(CompareWithBaseline::registration())
        .skill(ExtractFinancialTerms::registration())
        .skill(BrokenTool::registration())
        .skill(PanickyTool::registration())
        .skill(SlowTool::registration())
        .skill(LongText::registration())
        .skill(WaitEcho::registration())
        .skill(RateCheck::registration())
        .build()
        .expect("valid registry")
}

fn ctx() -> SkillContext {
    SkillContext::new()
        .with(CurrentClause("4.1".into()))
        .with(Gauge::default())
}

fn initial() -> Vec<ChatMessage> {
    vec![ChatMessage::system("test"), ChatMessage::user("test")]
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

/// The loop's answer in these tests: the JSON list of objects the model wrote (a generic
/// reader; what the objects mean is the caller's business).
fn read_list(text: &str) -> Result<Vec<Value>, String> {
    match extract_json(text) {
        Some(Value::Array(items)) => Ok(items.into_iter().filter(Value::is_object).collect()),
        Some(other) => Err(format!("the final answer's JSON is not a list: {other}")),
        None => Err("the final answer contains no JSON list".into()),
    }
}

type Outcome = ReactOutcome<Vec<Value>>;

/// The objects of the final answer (empty when there was none).
fn risks(outcome: &Outcome) -> &[Value] {
    outcome.answer.as_deref().unwrap_or_default()
}

async fn run(model: &ScriptedClient, options: &ReactOptions) -> Outcome {
    react_agent_loop(model, &dispatcher(), initial(), &ctx(), options, read_list).await
}

/// A tool message's JSON without the data fence around it.
fn unfenced(content: &str) -> &str {
    toolwright::fence::fenced_body(toolwright::fence::TOOL_OUTPUT_TAG, content).unwrap_or(content)
}

fn tool_messages(outcome: &Outcome) -> Vec<(&str, Value, bool)> {
    outcome
        .final_messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
                is_error,
            } => Some((
                tool_call_id.as_str(),
                serde_json::from_str(unfenced(content)).unwrap_or(Value::String(content.clone())),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

/// Every tool message answers a call of the assistant turn before it, each call exactly once.
fn assert_ids_match(messages: &[ChatMessage]) {
    let mut open: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for m in messages {
        match m {
            ChatMessage::Assistant { tool_calls, .. } => {
                assert!(open.is_empty(), "calls without results: {open:?}");
                for c in tool_calls {
                    assert!(!c.id.is_empty(), "empty call id");
                    assert!(seen.insert(c.id.clone()), "call id {} used twice", c.id);
                    open.push(c.id.clone());
                }
            }
            ChatMessage::Tool { tool_call_id, .. } => {
                assert_eq!(open.first(), Some(tool_call_id), "tool result out of order");
                open.remove(0);
            }
            _ => assert!(open.is_empty(), "calls without results: {open:?}"),
        }
    }
    assert!(open.is_empty(), "calls without results: {open:?}");
}

#[tokio::test]
async fn single_iteration_no_tools() {
    let model = ScriptedClient::from_responses([LlmResponse::text(
        r#"[{"risk_level": "low", "description": "无重大风险"}]"#,
    )]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(risks(&outcome).len(), 1);
    assert_eq!(risks(&outcome)[0]["risk_level"], "low");
    assert!(outcome.skill_context.is_empty());
    assert_eq!(outcome.final_messages.len(), 3);
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.iterations, 1);
    let request = &model.requests()[0];
    assert_eq!(request.messages, initial());
    assert!(request
        .tool_names
        .contains(&"get_clause_context".to_string()));
    assert!(
        (request.temperature - 0.1).abs() < f32::EPSILON,
        "SPEC-20 default temperature"
    );
}

#[tokio::test]
async fn tool_call_then_final_response() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call(
            "call_1",
            "get_clause_context",
            r#"{"clause_id": "4.1"}"#,
        )]),
        LlmResponse::text(r#"[{"risk_level": "high", "description": "义务范围被扩大"}]"#),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(risks(&outcome).len(), 1);
    assert_eq!(risks(&outcome)[0]["risk_level"], "high");
    assert_eq!(
        outcome.skill_context["get_clause_context"]["context_text"],
        "条款 4.1 全文..."
    );
    assert_eq!(outcome.final_messages.len(), 5);
    assert_ids_match(&outcome.final_messages);
    // The second turn saw the tool result.
    let second = &model.requests()[1].messages;
    assert_eq!(second.len(), 4);
    assert_eq!(second[3].tool_call_id(), Some("call_1"));
    assert!(second[3].content().unwrap().contains("条款 4.1 全文"));
}

#[tokio::test]
async fn prepared_argument_fills_what_the_model_left_out() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("c", "compare_with_baseline", "{}")]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(
        outcome.skill_context["compare_with_baseline"]["clause_id"],
        "4.1"
    );
}

#[tokio::test]
async fn multiple_tool_calls_in_one_round() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![
            call("call_1", "compare_with_baseline", r#"{"clause_id": "4.1"}"#),
            call(
                "call_2",
                "extract_financial_terms",
                r#"{"clause_id": "4.1"}"#,
            ),
        ]),
        LlmResponse::text("[]"),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert!(risks(&outcome).is_empty());
    assert!(
        outcome.warnings.is_empty(),
        "`[]` is a valid answer: {:?}",
        outcome.warnings
    );
    assert!(outcome.skill_context.contains_key("compare_with_baseline"));
    assert!(outcome
        .skill_context
        .contains_key("extract_financial_terms"));
    assert_eq!(outcome.final_messages.len(), 6);
    assert_eq!(outcome.tool_calls, 2);
    assert_ids_match(&outcome.final_messages);
}

#[tokio::test]
async fn max_iterations_reached() {
    let model = ScriptedClient::from_responses((0..3).map(|i| {
        LlmResponse::tool_calls(vec![call(&format!("c{i}"), "get_clause_context", "{}")])
    }));
    let outcome = run(&model, &ReactOptions::default().max_iterations(3)).await;
    assert!(risks(&outcome).is_empty());
    assert!(outcome.skill_context.contains_key("get_clause_context"));
    assert_eq!(outcome.stop_reason, StopReason::MaxIterations);
    assert_eq!(outcome.iterations, 3);
    assert_eq!(model.requests().len(), 3, "no fourth model turn");
    assert!(outcome
        .warnings
        .iter()
        .any(|w| w.contains("max_iterations = 3")));
    assert_ids_match(&outcome.final_messages);
}

#[tokio::test]
async fn llm_failure_breaks_loop() {
    let model = ScriptedClient::new([Err(LlmError::Scripted("API timeout".into()))]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert!(risks(&outcome).is_empty());
    assert!(outcome.skill_context.is_empty());
    assert_eq!(
        outcome.stop_reason,
        StopReason::LlmError("API timeout".into())
    );
    assert_eq!(outcome.final_messages, initial());
}

#[tokio::test]
async fn llm_failure_after_tools_keeps_what_was_collected() {
    let model = ScriptedClient::new([
        Ok(LlmResponse::tool_calls(vec![call(
            "a",
            "get_clause_context",
            "{}",
        )])),
        Err(LlmError::Scripted("rate limited".into())),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert!(outcome.skill_context.contains_key("get_clause_context"));
    assert_eq!(outcome.final_messages.len(), 4);
    assert!(matches!(outcome.stop_reason, StopReason::LlmError(_)));
}

#[tokio::test]
async fn tool_execution_failure_continues() {
    let model = ScriptedClient::from_responses([
        LlmResponse::tool_calls(vec![call("call_1", "broken_tool", "{}")]),
        LlmResponse::text(r#"[{"risk_level": "medium", "description": "test"}]"#),
    ]);
    let outcome = run(&model, &ReactOptions::default()).await;
    assert_eq!(risks(&outcome).len(), 1);
    let tools = tool_messages(&outcome);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].1["error"]["message"], "工具崩溃");
    assert_eq!(tools[0].1["error"]["code"], "tool_crashed");
    assert!(tools[0].2, "marked as error");
    assert!(
        !outcome
            .final_messages
            .iter()
            .any(|m| m.content().is_some_and(|c| c.contains("operator-only"))),
        "operator details never reach the model"
    );
    assert!(!outcome.skill_context.contains_key("broken_tool"));
}

#[tokio::test]
async fn no_tools_available() {
    let model = ScriptedClient::from_responses([]);
    let outcome = react_agent_loop(
        &model,
        &Dispatcher::builder().build().unwrap(),
        vec![ChatMessage::system("test")],
        &ctx(),
        &ReactOptions::default(),
        read_list,
    )
    .await;
    assert!(risks(&outcome).is_empty());
    assert!(outcome.skill_context.is_empty());
    assert_eq!(outcome.stop_reason, StopReason::NoTools);
    assert!(model.requests().is_empty(), "the model is not asked");
}

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
