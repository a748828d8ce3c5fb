//! An agent review of a 32-clause contract against a local OpenAI-compatible model that
//! answers every request after 400 ms (`toolwright::agent::mock`): each clause is one tool
//! round and a final answer, so 64 requests. The ideal wall time with `N` clauses in flight
//! is `turns x 0.4 s x ceil(32 / N)`: 25.6 s at N = 1, 3.2 s at N = 8. One timed run per
//! `N` prints the ratio to it, then criterion measures N = 8 and N = 1 (ten samples each;
//! N = 1 alone takes about five minutes).
//!
//! Run: `nice -n -15 cargo bench -p clausewright-skills --bench agent_review`
//! (`AGENT_BENCH_QUICK=1`: the timed runs only, no criterion samples.)

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clausewright_skills::review::{review_with_agent, AgentSettings, ReviewAgent, ReviewMode};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use toolwright::agent::mock::{react_answer, MockModel, MockReply, MockUsage};
use toolwright::agent::{LlmClient, OpenAiClient, OpenAiConfig};
use toolwright::Dispatcher;

#[path = "../tests/support/mod.rs"]
mod support;

const CLAUSES: usize = 32;
const LATENCY: Duration = Duration::from_millis(400);
/// Model turns per clause: one tool round, then the answer.
const TURNS: usize = 2;

fn ideal(concurrency: usize) -> Duration {
    LATENCY * (TURNS * CLAUSES.div_ceil(concurrency)) as u32
}

fn bench(c: &mut Criterion) {
    let model = MockModel::start(|req| {
        let clause = support::clause_of(&req.user_text());
        MockReply {
            delay: LATENCY,
            answer: react_answer(
                req,
                TURNS - 1,
                "get_clause_context",
                &support::answer_for(&clause),
            ),
            usage: Some(MockUsage {
                prompt: req.body.to_string().len() as u64 / 4,
                completion: 20,
                cached: None,
            }),
        }
    })
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
    let state = support::contract(CLAUSES);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let run = |concurrency: usize| {
        runtime.block_on(review_with_agent(
            &dispatcher,
            &state,
            &support::options(concurrency),
            Some(&agent),
            std::future::pending(),
        ))
    };

    for n in [8, 1] {
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
            "N = {n:>2}: {:>6.3} s for {} requests; ideal {:>5.2} s; ratio {:.3}; {} model turns, {} tokens; tool time {:.1} ms in all",
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
    if std::env::var_os("AGENT_BENCH_QUICK").is_some() {
        return;
    }

    let mut group = c.benchmark_group("agent_review_32_clauses_400ms");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for n in [8, 1] {
        group.measurement_time(ideal(n) * 11);
        group.bench_with_input(BenchmarkId::new("concurrency", n), &n, |b, &n| {
            b.iter(|| black_box(run(n)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
