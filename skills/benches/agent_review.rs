//! An agent review of a 32-clause contract against a local OpenAI-compatible model that
//! answers every request after 400 ms (`skill_core::agent::mock`): each clause is one tool
//! round and a final answer, so 64 requests. The ideal wall time with `N` clauses in flight
//! is `turns x 0.4 s x ceil(32 / N)`; one timed run per `N` prints the ratio to it, then
//! criterion measures `N` = 8, 16 and 32.
//!
//! Run: `cargo bench -p skills --bench agent_review`
//! (`AGENT_BENCH_SEQUENTIAL=1` adds one run with one clause at a time, about 26 s.)

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skill_core::agent::mock::MockModel;
use skill_core::agent::{LlmClient, OpenAiClient, OpenAiConfig};
use skill_core::Dispatcher;
use skills::document::parse_text;
use skills::review::{review, AgentSettings, ReviewAgent, ReviewMode, ReviewOptions};
use skills::{ChecklistItem, DocumentRole, Priority, ReviewDocument, ReviewState};

const CLAUSES: usize = 32;
const LATENCY: Duration = Duration::from_millis(400);
/// Model turns per clause: one tool round, then the answer.
const TURNS: usize = 2;

const ANSWER: &str = r#"[{"risk_level": "medium", "risk_type": "notice", "description": "28-day notice period", "reason": "short", "analysis": "from the clause context"}]"#;

fn contract(clauses: usize) -> ReviewState {
    let mut text = String::from("SERVICES AGREEMENT\n\n");
    for n in 1..=clauses {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Contractor shall perform obligation number {n} within 28 days.\n\n"
        ));
    }
    ReviewState {
        our_party: "Contractor".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "contract.md".into(),
            structure: parse_text("contract", &text),
        }],
        review_checklist: (1..=clauses)
            .map(|n| ChecklistItem {
                clause_id: n.to_string(),
                clause_name: format!("Topic {n}"),
                priority: Priority::Medium,
                required_skills: vec!["get_clause_context".into()],
                description: String::new(),
            })
            .collect(),
        ..Default::default()
    }
}

fn ideal(concurrency: usize) -> Duration {
    LATENCY * (TURNS * CLAUSES.div_ceil(concurrency)) as u32
}

fn bench(c: &mut Criterion) {
    let model = MockModel::react(LATENCY, TURNS - 1, "get_clause_context", ANSWER)
        .expect("mock model starts");
    let client =
        OpenAiClient::new(OpenAiConfig::new(model.base_url(), "mock-model")).expect("client");
    let agent = ReviewAgent::new(
        Arc::new(client) as Arc<dyn LlmClient>,
        AgentSettings {
            use_react_agent: true,
            ..AgentSettings::default()
        },
    );
    let dispatcher = Dispatcher::from_inventory().expect("registry");
    let state = contract(CLAUSES);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let run = |concurrency: usize| {
        let options = ReviewOptions {
            concurrency,
            generate_checklist: false,
            progress: None,
        };
        runtime.block_on(review(&dispatcher, &state, &options, Some(&agent)))
    };

    let mut levels = vec![8, 16, 32];
    if std::env::var_os("AGENT_BENCH_SEQUENTIAL").is_some() {
        levels.insert(0, 1);
    }
    for &n in &levels {
        let before = model.requests();
        let started = Instant::now();
        let report = run(n);
        let wall = started.elapsed();
        assert!(report.clauses.iter().all(|c| c.mode == ReviewMode::React));
        let tool_ms: f64 = report
            .clauses
            .iter()
            .flat_map(|c| &c.skills)
            .map(|s| s.elapsed_ms)
            .sum();
        eprintln!(
            "N = {n:>2}: {:>6.2} s for {} requests; ideal {:>5.2} s; ratio {:.3}; {} model turns, {} tokens; tool time {:.1} ms in all",
            wall.as_secs_f64(),
            model.requests() - before,
            ideal(n).as_secs_f64(),
            wall.as_secs_f64() / ideal(n).as_secs_f64(),
            report.summary.model_turns,
            report.summary.usage.total(),
            tool_ms,
        );
    }
    eprintln!("most requests in flight at once: {}", model.max_in_flight());

    let mut group = c.benchmark_group("agent_review_32_clauses_400ms");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for n in [8, 16, 32] {
        group.measurement_time(ideal(n) * 11);
        group.bench_with_input(BenchmarkId::new("concurrency", n), &n, |b, &n| {
            b.iter(|| black_box(run(n)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
