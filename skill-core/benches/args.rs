//! Cost of reading tool-call arguments.
//!
//! `well_typed/*`: plain `serde_json::from_str` into the generated input struct (the floor),
//! the argument reader the generated code calls (`deserialize_args`), the skill's invoke entry
//! (argument reading + a trivial body + output serialization + boxed future), and a whole
//! `Dispatcher::call`. The lenient machinery must cost nothing here: it only runs after
//! the strict path fails. `coerced/*`: a call where every argument needs a fix (strict
//! attempt, lenient parse, second attempt), and the lenient parse alone.
//!
//! Run: `cargo bench -p toolwright --bench args -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use futures_util::FutureExt;
use toolwright::prelude::*;
use toolwright::{CallArgs, PrepareMode};

/// Priority of a task.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Low.
    Low,
    /// High.
    High,
}

/// Search tasks.
#[skill(id = "bench.search", category = "query")]
#[allow(clippy::too_many_arguments)]
fn search(
    /// Keyword.
    keyword: String,
    /// Maximum hits.
    #[arg(default = 10)]
    limit: u32,
    /// Include closed tasks.
    #[arg(default)]
    include_closed: bool,
    /// Only this priority.
    priority: Option<Priority>,
    /// Tags to match.
    #[arg(default)]
    tags: Vec<String>,
    /// Minimum score.
    #[arg(default)]
    min_score: f64,
    /// Created after this moment.
    since: Option<chrono::DateTime<chrono::Utc>>,
) -> u32 {
    limit
        + u32::from(include_closed)
        + keyword.len() as u32
        + tags.len() as u32
        + u32::from(priority.is_some())
        + u32::from(since.is_some())
        + min_score as u32
}

const WELL_TYPED: &str = r#"{"keyword": "payment terms", "limit": 5, "include_closed": true, "priority": "high", "tags": ["fidic", "red-book"], "min_score": 0.5, "since": "2024-05-01T00:00:00Z"}"#;
const ALL_COERCED: &str = r#"{"keyword": 42, "limit": "5", "include_closed": "yes", "priority": "HIGH", "tags": "fidic", "min_score": "0.5", "since": "2024-05-01"}"#;

fn bench_args(c: &mut Criterion) {
    let dispatcher = Dispatcher::builder()
        .skill(Search::registration())
        .build()
        .unwrap();
    let ctx = SkillContext::new();
    let reg = Search::registration();

    // Sanity: both payloads succeed, the second with one warning per argument.
    let ok = dispatcher
        .call("bench.search", WELL_TYPED, &ctx)
        .now_or_never()
        .unwrap();
    assert!(ok.success && ok.warnings.is_empty());
    let fixed = dispatcher
        .call("bench.search", ALL_COERCED, &ctx)
        .now_or_never()
        .unwrap();
    assert!(
        fixed.success && fixed.warnings.len() == 7,
        "{:?}",
        fixed.warnings
    );

    let mut group = c.benchmark_group("well_typed");
    group.bench_function("serde_from_str", |b| {
        b.iter(|| serde_json::from_str::<SearchInput>(black_box(WELL_TYPED)).unwrap())
    });
    group.bench_function("deserialize_args", |b| {
        b.iter(|| {
            toolwright::__private::deserialize_args::<SearchInput>(
                CallArgs::Text(black_box(WELL_TYPED)),
                "bench.search",
            )
            .unwrap()
        })
    });
    group.bench_function("skill_invoke", |b| {
        b.iter(|| {
            (reg.invoke)(
                &ctx,
                CallArgs::Text(black_box(WELL_TYPED)),
                PrepareMode::ArgumentsOnly,
            )
            .now_or_never()
            .unwrap()
            .unwrap()
        })
    });
    group.bench_function("dispatcher_call", |b| {
        b.iter(|| {
            dispatcher
                .call("bench.search", black_box(WELL_TYPED), &ctx)
                .now_or_never()
                .unwrap()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("coerced");
    group.bench_function("dispatcher_call", |b| {
        b.iter(|| {
            dispatcher
                .call("bench.search", black_box(ALL_COERCED), &ctx)
                .now_or_never()
                .unwrap()
        })
    });
    group.bench_function("parse_arguments", |b| {
        b.iter(|| dispatcher.parse_arguments("bench.search", black_box(ALL_COERCED)))
    });
    group.finish();
}

criterion_group!(benches, bench_args);
criterion_main!(benches);
