//! Cost of the ReAct loop itself, with a model that answers instantly.
//!
//! Run: `cargo bench -p toolwright --bench agent -- --warm-up-time 1 --measurement-time 2`
//!
//! - `react/one_iteration`: the initial messages, tool definitions (cached), one model turn with
//!   one tool call, argument parsing, dispatch with preparation from the context, result
//!   serialization and history append. Target < 50 µs.
//! - `react/final_answer`: one turn whose answer is a fenced JSON list to read.
//! - `react/round_8x20ms/*`: one round of 8 calls to a skill that sleeps 20 ms, concurrent
//!   (should take ~20 ms) and with parallelism 1 (~160 ms) for comparison.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use toolwright::agent::{
    extract_json, react_agent_loop, ChatMessage, LlmResponse, ReactOptions, ScriptedClient,
};
use toolwright::prelude::*;
use toolwright::{Skill, ToolCall};

/// The clause under review.
struct CurrentClause(String);

fn current_clause(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<CurrentClause>()
        .map(|c| c.0.clone())
        .ok_or_else(|| SkillError::not_found("no current clause"))
}

/// Context of a clause.
#[derive(Serialize, JsonSchema)]
struct ClauseContext {
    /// Clause number.
    clause_id: String,
    /// Text around it.
    context_text: String,
    /// Clauses it refers to.
    references: Vec<String>,
}

/// Get the full context of a clause.
#[skill(id = "bench.get_clause_context", category = "retrieval")]
fn get_clause_context(
    /// Clause number; the current clause when left out.
    #[arg(prepare = current_clause)]
    clause_id: String,
    /// Include neighbouring clauses.
    #[arg(default = true)]
    neighbours: bool,
) -> ClauseContext {
    ClauseContext {
        context_text: format!("The Contractor shall design, execute and complete the Works ({clause_id}, neighbours: {neighbours})."),
        references: vec!["1.1".into(), "8.2".into()],
        clause_id,
    }
}

/// Compare a clause with the baseline template.
#[skill(id = "bench.compare_with_baseline", category = "analysis")]
fn compare_with_baseline(
    /// Clause number.
    clause_id: String,
    /// Baseline edition.
    edition: Option<String>,
) -> Value {
    json!({"clause_id": clause_id, "edition": edition, "modification_type": "modified"})
}

/// Extract monetary amounts and periods from a text.
#[skill(id = "bench.extract_terms", category = "analysis")]
fn extract_terms(
    /// The text.
    text: String,
    /// Largest number of terms.
    #[arg(default = 10)]
    limit: u32,
) -> Vec<String> {
    text.split_whitespace()
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .take(limit as usize)
        .map(str::to_string)
        .collect()
}

/// Sleeps like a slow lookup.
#[skill(id = "bench.sleep", category = "io")]
async fn sleep(
    /// Milliseconds.
    ms: u64,
) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(GetClauseContext::registration())
        .skill(CompareWithBaseline::registration())
        .skill(ExtractTerms::registration())
        .skill(Sleep::registration())
        .build()
        .unwrap()
}

fn call(id: usize, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: format!("call_{id}"),
        name: name.into(),
        arguments: arguments.into(),
    }
}

const FINAL: &str = "```json\n[{\"risk_level\": \"high\", \"risk_type\": \"scope\", \"description\": \"Design duty added\", \"reason\": \"PC 4.1\", \"analysis\": \"Fitness for purpose without cap.\", \"original_text\": \"The Contractor shall design\"}]\n```";

fn bench_loop(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dispatcher = dispatcher();
    let ctx = SkillContext::new().with(CurrentClause("4.1".into()));
    // A system and a user message of the size a clause review sends.
    let prompt = vec![
        ChatMessage::system("你是一位资深法务审阅专家，正在逐条审查合同条款。".repeat(24)),
        ChatMessage::user(
            "The Contractor shall design, execute and complete the Works in accordance with the Contract.",
        ),
    ];
    let read = |text: &str| extract_json(text).ok_or("no JSON in the final answer");
    let one_turn = ReactOptions::default().max_iterations(1);
    let mut group = c.benchmark_group("react");

    group.bench_function("one_iteration", |b| {
        b.iter(|| {
            rt.block_on(async {
                let model = ScriptedClient::from_responses([LlmResponse::tool_calls(vec![call(
                    1,
                    "bench_get_clause_context",
                    "{}",
                )])])
                .without_recording();
                let messages = prompt.clone();
                black_box(
                    react_agent_loop(&model, &dispatcher, messages, &ctx, &one_turn, read).await,
                )
            })
        })
    });

    group.bench_function("final_answer", |b| {
        b.iter(|| {
            rt.block_on(async {
                let model =
                    ScriptedClient::from_responses([LlmResponse::text(FINAL)]).without_recording();
                let messages = prompt.clone();
                black_box(
                    react_agent_loop(&model, &dispatcher, messages, &ctx, &one_turn, read).await,
                )
            })
        })
    });

    let sleepers: Vec<ToolCall> = (0..8)
        .map(|i| call(i, "bench_sleep", r#"{"ms": 20}"#))
        .collect();
    group.sample_size(10);
    for (label, parallel) in [("concurrent", 8), ("sequential", 1)] {
        let options = ReactOptions::default()
            .max_iterations(1)
            .max_parallel_tools(parallel);
        group.bench_function(format!("round_8x20ms/{label}"), |b| {
            b.iter(|| {
                rt.block_on(async {
                    let model =
                        ScriptedClient::from_responses([LlmResponse::tool_calls(sleepers.clone())])
                            .without_recording();
                    black_box(
                        react_agent_loop(&model, &dispatcher, Vec::new(), &ctx, &options, read)
                            .await,
                    )
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_loop);
criterion_main!(benches);
