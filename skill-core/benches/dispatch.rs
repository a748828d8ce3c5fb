//! Dispatch and export costs, next to a hand-written floor measured in the same run.
//!
//! Each `call/*` variant consumes one owned tool call (id, name, argument text), as a
//! provider response yields it, and produces the JSON text that goes back:
//! - `call/floor`: `match` on the tool name + `serde_json::from_str` into the input struct +
//!   the same body + `serde_json::to_string` of the output.
//! - `call/toolwright_dispatch`: `ParsedCall::from_tool_call` (JSON check) +
//!   `Dispatcher::dispatch` (lookup, preparation, panic guard, timing) + `SkillResult::to_json`.
//! - `call/toolwright_call`: `Dispatcher::call` with the argument text + `to_json`.
//! - `call/parse_only`: the JSON check of `ParsedCall::from_tool_call` alone.
//! - `export/{16,1000}/cached`: `tools` + its JSON text, as a provider request
//!   needs it; `export/{16,1000}/first_render`: a fresh dispatcher's first render;
//!   `export/{16,1000}/first_render_mcp`: the same in the MCP dialect.
//!
//! - `limits/*`: the size and depth check every call passes before its arguments are parsed
//!   ([`ArgumentLimits::check`](toolwright::limits::ArgumentLimits::check)), on the typical
//!   argument above (86 bytes), on a 4 KiB clause quoted in full and on a parsed value; and
//!   `limits/call_with_checks`, the whole `Dispatcher::call` it is part of.
//!
//! Run: `cargo bench -p toolwright --bench dispatch`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use futures_util::FutureExt;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use toolwright::prelude::*;
use toolwright::{Dialect, Dispatcher, ParsedCall, SkillRegistration, ToolCall, ToolFilter};

/// One passage found.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    /// Passage id.
    pub id: String,
    /// Relevance.
    pub score: f64,
}

/// Search result.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hits {
    /// Clause searched.
    pub clause_id: String,
    /// Hits, best first.
    pub hits: Vec<Hit>,
    /// One line for the model.
    pub summary: String,
}

fn body(clause_id: String, query: &str, top_k: u32) -> Hits {
    let hits = (1..=top_k)
        .map(|i| Hit {
            id: format!("{clause_id}#p{i}"),
            score: 1.0 / f64::from(i),
        })
        .collect();
    let summary = format!("top {top_k} passages for '{query}' in {clause_id}");
    Hits {
        clause_id,
        hits,
        summary,
    }
}

/// Search the reference documents for passages relevant to a clause.
#[skill(id = "search_reference_doc", category = "retrieval")]
fn search_reference_doc(
    /// Clause number, for example "4.1".
    clause_id: String,
    /// Free-text query.
    query: String,
    /// How many passages to return.
    #[arg(default = 5)]
    top_k: u32,
) -> Hits {
    body(clause_id, &query, top_k)
}

#[derive(Deserialize)]
struct FloorInput {
    clause_id: String,
    query: String,
    #[serde(default = "five")]
    top_k: u32,
}

fn five() -> u32 {
    5
}

fn floor(name: &str, args: &str) -> String {
    match name {
        "search_reference_doc" => {
            let input: FloorInput = serde_json::from_str(args).unwrap();
            serde_json::to_string(&body(input.clause_id, &input.query, input.top_k)).unwrap()
        }
        _ => unreachable!(),
    }
}

const ARGS: &str =
    r#"{"clause_id": "ISO-26262-6:9.4.3", "query": "unit test coverage criteria", "top_k": 3}"#;

fn tool_call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: "search_reference_doc".into(),
        arguments: ARGS.into(),
    }
}

/// Every variant consumes the same owned tool call (as a provider response yields it) through
/// the same batched harness, so the ratios compare like with like.
fn bench_call(c: &mut Criterion) {
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let ctx = SkillContext::new();
    let mut group = c.benchmark_group("call");
    group.bench_function("floor", |b| {
        b.iter_batched(
            tool_call,
            |call| black_box(floor(&call.name, &call.arguments)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("toolwright_dispatch", |b| {
        b.iter_batched(
            tool_call,
            |call| {
                let parsed = ParsedCall::from_tool_call(call);
                let result = dispatcher.dispatch(&parsed, &ctx).now_or_never().unwrap();
                black_box(result.to_json())
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("toolwright_call", |b| {
        b.iter_batched(
            tool_call,
            |call| {
                let result = dispatcher
                    .call(&call.name, call.arguments.as_str(), &ctx)
                    .now_or_never()
                    .unwrap();
                black_box(result.to_json())
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("parse_only", |b| {
        b.iter_batched(
            tool_call,
            |call| black_box(ParsedCall::from_tool_call(call)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// `n` registrations with distinct ids, copied from the generated one (ids are leaked once).
fn registrations(n: usize) -> Vec<&'static SkillRegistration> {
    let template = toolwright::linked_skills()
        .find(|r| r.id == "search_reference_doc")
        .unwrap();
    (0..n)
        .map(|i| {
            let id: &'static str =
                Box::leak(format!("search_reference_doc_{i:04}").into_boxed_str());
            &*Box::leak(Box::new(SkillRegistration {
                id,
                wire_name: id,
                ..*template
            }))
        })
        .collect()
}

fn bench_export(c: &mut Criterion) {
    let mut group = c.benchmark_group("export");
    for n in [16, 1000] {
        let regs = registrations(n);
        let dispatcher = Dispatcher::builder()
            .skills(regs.iter().copied())
            .build()
            .unwrap();
        let filter = ToolFilter::all();
        let bytes = dispatcher.tools(&filter).json().len();
        eprintln!("export/{n}: {bytes} bytes of JSON");
        group.bench_function(format!("{n}/cached"), |b| {
            b.iter(|| {
                let defs = dispatcher.tools(black_box(&filter));
                black_box(defs.json().len())
            })
        });
        group.bench_function(format!("{n}/first_render"), |b| {
            b.iter_batched(
                || {
                    Dispatcher::builder()
                        .skills(regs.iter().copied())
                        .build()
                        .unwrap()
                },
                |fresh| {
                    let defs = fresh.tools(&filter);
                    black_box(defs.json().len())
                },
                BatchSize::LargeInput,
            )
        });
        group.bench_function(format!("{n}/first_render_mcp"), |b| {
            b.iter_batched(
                || {
                    Dispatcher::builder()
                        .skills(regs.iter().copied())
                        .build()
                        .unwrap()
                },
                |fresh| {
                    let defs = fresh.tools_in(Dialect::Mcp, &filter).unwrap();
                    black_box(defs.json().len())
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.bench_function("schema_generation", |b| {
        b.iter(|| black_box(toolwright::schema::input_schema_of::<SearchReferenceDocInput>(&[])))
    });
    group.finish();
}

/// The argument limits alone, next to the whole call they are part of.
fn bench_limits(c: &mut Criterion) {
    use toolwright::limits::ArgumentLimits;
    use toolwright::CallArgs;
    let limits = ArgumentLimits::default();
    let clause = format!(
        r#"{{"clause_id": "20.1", "text": "{}", "top_k": 3}}"#,
        "The Contractor shall give notice within 28 days. ".repeat(82)
    );
    let value: serde_json::Value = serde_json::from_str(ARGS).unwrap();
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let ctx = SkillContext::new();
    let mut group = c.benchmark_group("limits");
    group.bench_function("check_typical_text", |b| {
        b.iter(|| black_box(limits.check(CallArgs::Text(black_box(ARGS)))))
    });
    group.bench_function("check_4k_clause_text", |b| {
        b.iter(|| black_box(limits.check(CallArgs::Text(black_box(&clause)))))
    });
    group.bench_function("check_typical_value", |b| {
        b.iter(|| black_box(limits.check(CallArgs::Value(black_box(&value)))))
    });
    group.bench_function("call_with_checks", |b| {
        b.iter_batched(
            tool_call,
            |call| {
                let result = dispatcher
                    .call(&call.name, call.arguments.as_str(), &ctx)
                    .now_or_never()
                    .unwrap();
                black_box(result.to_json())
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench_call, bench_export, bench_limits);
criterion_main!(benches);
