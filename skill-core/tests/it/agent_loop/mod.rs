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

mod answer_repair;
mod rounds;
mod tool_errors;
mod without_tools;

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
