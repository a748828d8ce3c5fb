//! CPU time of building a tool-search index and of one search, for a shared machine where
//! wall time mostly measures the other processes (`search` bench gives wall time).
//!
//! `cargo run --release -p toolwright --example search_cpu_time -- REGISTRY.json [QUERIES.jsonl]`
//!
//! Builds the index of REGISTRY (a JSON array of `{name, description, parameters}`) 20 times,
//! then searches every `query` of QUERIES (JSON lines; default: a few fixed requests) 5
//! times, and prints CPU time (user + system of this thread, Linux `/proc`, 10 ms ticks
//! summed over the whole loop) and wall time per operation.

use std::hint::black_box;
use std::time::Instant;

use serde_json::Value;
use toolwright::search::ToolIndex;

/// CPU ticks (1/100 s) this thread has used, when Linux reports them.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 2..)?
        .split_whitespace()
        .collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

fn report(what: &str, runs: u32, started: (Option<u64>, Instant), unit_us: bool) {
    let wall = started.1.elapsed() / runs;
    let cpu = match (started.0, cpu_ticks()) {
        (Some(a), Some(b)) if unit_us => format!("{} µs", (b - a) * 10_000 / u64::from(runs)),
        (Some(a), Some(b)) => format!("{:.1} ms", (b - a) as f64 * 10.0 / f64::from(runs)),
        _ => "unknown".into(),
    };
    println!("{what}: CPU {cpu} each, wall {wall:?} each ({runs} runs)");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let registry_path = args
        .next()
        .ok_or("usage: search_cpu_time REGISTRY.json [QUERIES.jsonl]")?;
    let registry: Value = serde_json::from_str(&std::fs::read_to_string(&registry_path)?)?;
    let queries: Vec<String> = match args.next() {
        Some(path) => std::fs::read_to_string(&path)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l)?;
                Ok(v["query"].as_str().unwrap_or_default().to_string())
            })
            .collect::<Result<_, serde_json::Error>>()?,
        None => [
            "Calculate the factorial of 5.",
            "What's the weather like in Paris tomorrow, in Celsius?",
            "Book two tickets for the 7pm showing and email me the confirmation",
        ]
        .map(String::from)
        .to_vec(),
    };
    let started = (cpu_ticks(), Instant::now());
    for _ in 0..20 {
        black_box(ToolIndex::from_definitions(&registry)?);
    }
    report("build", 20, started, false);
    let index = ToolIndex::from_definitions(&registry)?;
    let started = (cpu_ticks(), Instant::now());
    for _ in 0..5 {
        for query in &queries {
            black_box(index.search(query, 10));
        }
    }
    report("search, top 10", 5 * queries.len() as u32, started, true);
    Ok(())
}
