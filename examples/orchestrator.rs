//! A planner splitting a task between two workers with different tool sets, under one
//! budget, against the local mock model (no network, no key).
//!
//! ```text
//! cargo run --example orchestrator
//! ```
//!
//! The planner sees each worker as a tool taking a `task`. In its first turn it hands the
//! counting to `measurer` (which may only measure texts) and the rewriting to `rewriter`
//! (which may only reverse words); both run at the same time, each a ReAct loop of its
//! own. The run prints each worker's turns, tokens and time, and the budget spent against
//! the budget given. Point the three clients at a real OpenAI-compatible server to run the
//! same plan with a real model.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolwright::agent::mock::{MockAnswer, MockModel, MockReply, MockRequest, MockUsage};
use toolwright::agent::orchestrate::{Budget, Orchestrator, Worker};
use toolwright::agent::{ChatMessage, LlmClient, OpenAiClient, OpenAiConfig};
use toolwright::prelude::*;
use toolwright::{Skill, ToolCall, ToolFilter};

/// How a text is built: words and lines.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TextShape {
    /// Words in the text.
    pub words: usize,
    /// Lines in the text.
    pub lines: usize,
}

/// Measure a text: count its words and lines.
#[skill(id = "text.measure", category = "analysis")]
fn measure(
    /// The text to measure.
    text: String,
) -> TextShape {
    TextShape {
        words: text.split_whitespace().count(),
        lines: text.lines().count(),
    }
}

/// Reverse the order of the words of a text.
#[skill(id = "text.reverse_words", category = "transform")]
fn reverse_words(
    /// The text whose words to reverse.
    text: String,
) -> String {
    text.split_whitespace().rev().collect::<Vec<_>>().join(" ")
}

const POEM: &str =
    "I met a traveller from an antique land\nWho said: Two vast and trunkless legs of stone";

/// Names of the tools a request offers.
fn offered(req: &MockRequest) -> Vec<String> {
    req.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The contents of the tool results a request carries.
fn results(req: &MockRequest) -> Vec<String> {
    req.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect()
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    }
}

/// The JSON a fenced tool result carries.
fn fenced_json(content: &str) -> Option<Value> {
    let body = content
        .split_once('\n')?
        .1
        .rsplit_once("\n</tool_output>")?
        .0;
    serde_json::from_str(&body.replace("&lt;", "<")).ok()
}

/// A string as itself, anything else as JSON.
fn plain(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// What the mock model answers: the planner delegates, then sums up; each worker calls
/// its one tool on its task, then reports. The agent is told apart by the tools offered.
fn script(req: &MockRequest) -> MockAnswer {
    let tools = offered(req);
    let has = |name: &str| tools.iter().any(|t| t == name);
    let done = req.tool_results() > 0;
    if has("measurer") && !done {
        return MockAnswer::ToolCalls(vec![
            call("plan_1", "measurer", json!({ "task": POEM })),
            call("plan_2", "rewriter", json!({ "task": POEM })),
        ]);
    }
    if has("text_measure") && !done {
        return MockAnswer::ToolCalls(vec![call(
            "m1",
            "text_measure",
            json!({ "text": req.user_text() }),
        )]);
    }
    if has("text_reverse_words") && !done {
        return MockAnswer::ToolCalls(vec![call(
            "r1",
            "text_reverse_words",
            json!({ "text": req.user_text() }),
        )]);
    }
    let read: Vec<String> = results(req)
        .iter()
        .filter_map(|r| fenced_json(r))
        .map(|v| match (&v["worker"], &v["answer"], &v["data"]) {
            // The planner reads its workers' reports; a worker reads its tool's data.
            (Value::String(worker), answer, _) => format!("{worker}: {}", plain(answer)),
            (_, _, data) => plain(data),
        })
        .collect();
    MockAnswer::Text(read.join("; "))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    // Every request takes 200 ms and reports a quarter of its bytes as input tokens.
    let server = MockModel::start(|req| MockReply {
        delay: Duration::from_millis(200),
        answer: script(req),
        usage: Some(MockUsage {
            prompt: req.body.to_string().len() as u64 / 4,
            completion: 30,
            cached: None,
        }),
    })?;
    let client = |model: &str| -> Result<Arc<dyn LlmClient>, Box<dyn std::error::Error>> {
        Ok(Arc::new(OpenAiClient::new(OpenAiConfig::new(
            server.base_url(),
            model,
        ))?))
    };

    let orchestrator = Orchestrator::new(client("planner-model")?)
        .worker(
            Worker::new(
                "measurer",
                "Measures a text: words and lines.",
                client("small-model")?,
            )
            .instructions("Measure the text you are given with your tool; report the figures.")
            .tools(ToolFilter::default().category("analysis"))
            .max_iterations(3),
        )
        .worker(
            Worker::new(
                "rewriter",
                "Rewrites a text by reversing its words.",
                client("small-model")?,
            )
            .instructions("Rewrite the text you are given with your tool; report the result.")
            .tools(ToolFilter::default().category("transform"))
            .max_iterations(3),
        )
        .max_workers(2)
        .budget(
            Budget::unlimited()
                .model_requests(8)
                .input_tokens(20_000)
                .wall_time(Duration::from_secs(30)),
        );
    let dispatcher = Dispatcher::builder()
        .skill(Measure::registration())
        .skill(ReverseWords::registration())
        .build()?;
    let messages = vec![
        ChatMessage::system("Split the work between your workers, then sum up their results."),
        ChatMessage::user(format!("Measure this text and write it backwards:\n{POEM}")),
    ];

    let started = Instant::now();
    let outcome = orchestrator
        .run(&dispatcher, messages, &SkillContext::new(), |text: &str| {
            Ok::<_, std::convert::Infallible>(text.trim().to_string())
        })
        .await?;
    let wall = started.elapsed();

    for w in &outcome.workers {
        println!(
            "{:<28} {:<10} turns {}  tool calls {}  tokens {:>5}  {:>4.0} ms",
            w.path,
            w.status.as_str(),
            w.turns,
            w.tool_calls,
            w.usage.total(),
            w.elapsed_ms
        );
    }
    let (spent, budget) = (&outcome.spent, &outcome.budget);
    println!(
        "budget: {} of {} model requests, {} of {} input tokens, {} output tokens, {} tool calls",
        spent.model_requests,
        budget.model_requests.unwrap_or_default(),
        spent.input_tokens,
        budget.input_tokens.unwrap_or_default(),
        spent.output_tokens,
        spent.tool_calls
    );
    println!(
        "wall time {:.0} ms for {} requests of 200 ms; at most {} at once",
        wall.as_secs_f64() * 1000.0,
        server.requests(),
        server.max_in_flight()
    );
    for warning in &outcome.warnings {
        eprintln!("warning: {warning}");
    }
    match outcome.answer {
        Some(answer) => println!("\n{answer}"),
        None => return Err(format!("no answer ({:?})", outcome.stop_reason).into()),
    }
    Ok(())
}
