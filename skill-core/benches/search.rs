//! Tool search costs: building a [`ToolIndex`] and ranking one request against it.
//!
//! - `search/build/<registry>`: [`ToolIndex::from_definitions`] on a parsed registry (JSON
//!   parsing not included).
//! - `search/query/<registry>`: one [`ToolIndex::search`] of the top 10, averaged over a
//!   fixed list of requests (short and long, English, one in Chinese).
//!
//! Registries: `synthetic_2744` (always: 2,744 generated definitions, the size of the
//! benchmark registry) and `bfcl` (when the benchmark registry is found: the file named by
//! `TOOLWRIGHT_TOOL_REGISTRY`, else `../shared/reference/tool-search/registry.json` from the
//! workspace root).
//!
//! Run: `cargo bench -p toolwright --bench search`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use toolwright::search::ToolIndex;

const REQUESTS: &[&str] = &[
    "Calculate the factorial of 5 using math functions.",
    "What's the weather like in Paris tomorrow, in Celsius?",
    "Find me a cheap Italian restaurant near Union Square that is open now",
    "Book two tickets for the 7pm showing of the new Spielberg movie and then send the confirmation to my email",
    "I want to rent a car in Los Angeles from March 3rd to March 7th, preferably an SUV",
    "kill the process listening on port 8080",
    "帮我查一下北京明天的天气",
    "convert 100 US dollars to euros at today's exchange rate",
];

/// 2,744 definitions from a small vocabulary, shaped like real ones.
fn synthetic() -> Value {
    let verbs = [
        "get",
        "find",
        "create",
        "update",
        "delete",
        "list",
        "calculate",
        "send",
        "book",
        "convert",
    ];
    let things = [
        "weather",
        "flight",
        "hotel",
        "invoice",
        "user",
        "order",
        "movie",
        "song",
        "stock",
        "recipe",
        "ticket",
        "email",
        "file",
        "server",
        "project",
        "payment",
        "event",
        "car",
        "restaurant",
        "doctor",
    ];
    let defs: Vec<Value> = (0..2744)
        .map(|i| {
            let verb = verbs[i % verbs.len()];
            let thing = things[(i / verbs.len()) % things.len()];
            let variant = i / (verbs.len() * things.len());
            let name = if variant == 0 {
                format!("{thing}.{verb}_{thing}")
            } else {
                format!("{thing}.{verb}_{thing}__{}", variant + 1)
            };
            json!({
                "name": name,
                "description": format!("{verb} a {thing} by its identifier, with optional filters on date and location (variant {variant})."),
                "parameters": {"type": "object", "properties": {
                    format!("{thing}_id"): {"type": "string", "description": format!("The identifier of the {thing}.")},
                    "date": {"type": "string", "description": "The date, in the format YYYY-MM-DD."},
                    "location": {"type": "string", "description": "The city and state, e.g. Berkeley, CA."},
                    "unit": {"type": "string", "enum": ["metric", "imperial"]}
                }, "required": [format!("{thing}_id")]}
            })
        })
        .collect();
    Value::Array(defs)
}

fn benchmark_registry() -> Option<Value> {
    let path = std::env::var_os("TOOLWRIGHT_TOOL_REGISTRY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/reference/tool-search/registry.json")
        });
    let text = std::fs::read_to_string(&path).ok()?;
    serde_json::from_str(&text).ok()
}

fn bench(c: &mut Criterion) {
    let mut registries = vec![("synthetic_2744", synthetic())];
    match benchmark_registry() {
        Some(registry) => registries.push(("bfcl", registry)),
        None => eprintln!("benchmark registry not found (set TOOLWRIGHT_TOOL_REGISTRY): measuring the synthetic one only"),
    }
    for (name, registry) in &registries {
        c.bench_function(&format!("search/build/{name}"), |b| {
            b.iter(|| ToolIndex::from_definitions(black_box(registry)).unwrap())
        });
        let index = ToolIndex::from_definitions(registry).unwrap();
        c.bench_function(&format!("search/query/{name}"), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % REQUESTS.len();
                black_box(index.search(black_box(REQUESTS[i]), 10))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
