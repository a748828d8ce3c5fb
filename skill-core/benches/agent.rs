//! Cost of the ReAct loop itself, with a model that answers instantly.
//!
//! Run: `cargo bench -p skill-core --bench agent -- --warm-up-time 1 --measurement-time 2`
//!
//! - `react/one_iteration`: prompt building, tool definitions (cached), one model turn with
//!   one tool call, argument parsing, dispatch with preparation from the context, result
//!   serialization and history append. Target < 50 µs.
//! - `react/final_answer`: one turn whose answer is a fenced JSON risk list to parse.
//! - `react/round_8x20ms/*`: one round of 8 calls to a skill that sleeps 20 ms, concurrent
//!   (should take ~20 ms) and with parallelism 1 (~160 ms) for comparison.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use skill_core::agent::{
    build_react_agent_messages, react_agent_loop, Language, LlmResponse, ReactOptions,
    ReactPromptInput, ScriptedClient,
};
use skill_core::prelude::*;
use skill_core::{Skill, ToolCall};

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
        .skill(BenchGetClauseContext::registration())
        .skill(BenchCompareWithBaseline::registration())
        .skill(BenchExtractTerms::registration())
        .skill(BenchSleep::registration())
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
    let suggested = ["bench.get_clause_context", "bench.compare_with_baseline"];
    let prompt = ReactPromptInput {
        language: Language::ZhCn,
        our_party: "承包商",
        clause_id: "4.1",
        clause_name: "承包商义务",
        description: "检查义务范围",
        priority: "critical",
        clause_text: "The Contractor shall design, execute and complete the Works in accordance with the Contract.",
        suggested_skills: &suggested,
        dispatcher: Some(&dispatcher),
        ..Default::default()
    };
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
                let messages = build_react_agent_messages(&prompt);
                black_box(
                    react_agent_loop(&model, &dispatcher, messages, "4.1", &ctx, &one_turn).await,
                )
            })
        })
    });

    group.bench_function("final_answer", |b| {
        b.iter(|| {
            rt.block_on(async {
                let model =
                    ScriptedClient::from_responses([LlmResponse::text(FINAL)]).without_recording();
                let messages = build_react_agent_messages(&prompt);
                black_box(
                    react_agent_loop(&model, &dispatcher, messages, "4.1", &ctx, &one_turn).await,
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
                        react_agent_loop(&model, &dispatcher, Vec::new(), "4.1", &ctx, &options)
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
