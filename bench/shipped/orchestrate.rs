//! `clausewright review --orchestrate` as users run it, against the local mock model answering
//! every request after 400 ms: a 200-clause contract whose planner sends 20 clauses to a
//! deep review (two turns each) and the other 180 to the rules, `--max-workers 8`. Ideal
//! wall time: `(planner turns + ceil(20 / 8) x 2) x 0.4 s` = 3.2 s. Then `review --agent`
//! of the same contract (every clause to the model, `--concurrency 8`) for the model
//! requests and tokens the plan saves.
//!
//! Run: `cargo build --release && cargo run --release --example orchestrate_bench --
//! [path/to/toolwright] [rounds]` (default `target/release/clausewright`, 3 rounds).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolwright::agent::mock::{react_answer, MockAnswer, MockModel, MockReply, MockUsage};
use toolwright::ToolCall;

const CLAUSES: usize = 200;
const DEEP: usize = 20;
const WORKERS: usize = 8;
const LATENCY: Duration = Duration::from_millis(400);

fn system_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect()
}

/// The planner: every tenth clause of the outline deep, the rest quick, then the synthesis.
/// Reviewers: the clause's context, then one risk.
fn answer(req: &toolwright::agent::mock::MockRequest) -> MockAnswer {
    if !system_text(&req.body).contains("You organise the legal review") {
        let answer = r#"[{"risk_level": "medium", "risk_type": "probe", "description": "deep"}]"#;
        return react_answer(req, 1, "get_clause_context", answer);
    }
    if req.tool_results() > 0 {
        return MockAnswer::Text(
            json!({"summary": "Done.", "risks": [], "cross_clause": []}).to_string(),
        );
    }
    // Outline lines: `- id | title | length | kinds | findings`.
    let ids: Vec<String> = req
        .user_text()
        .lines()
        .filter(|l| l.matches(" | ").count() == 4)
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split(" | ").next())
        .map(str::to_string)
        .collect();
    type Numbered<'a> = Vec<(usize, &'a String)>;
    let (deep, quick): (Numbered<'_>, Numbered<'_>) = ids
        .iter()
        .enumerate()
        .partition(|(i, _)| i % (CLAUSES / DEEP) == 0);
    let mut calls: Vec<ToolCall> = deep
        .iter()
        .map(|(i, id)| ToolCall {
            id: format!("d{i}"),
            name: "review_deep".into(),
            arguments: json!({"clause_id": id, "focus": "probe"}).to_string(),
        })
        .collect();
    calls.push(ToolCall {
        id: "q".into(),
        name: "review_quick".into(),
        arguments: json!({
            "clause_ids": quick.iter().map(|(_, id)| id).collect::<Vec<_>>(),
            "reason": "routine"
        })
        .to_string(),
    });
    MockAnswer::ToolCalls(calls)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let binary = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "target/release/clausewright".into()),
    );
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let dir = tempfile::tempdir().expect("temp dir");
    let contract = dir.path().join("contract.md");
    let mut text = String::from("SERVICES AGREEMENT\n\n");
    for n in 1..=CLAUSES {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Contractor shall perform obligation number {n} within 28 days.\n\n"
        ));
    }
    std::fs::write(&contract, text).expect("contract written");
    let model = MockModel::start(|req| MockReply {
        delay: LATENCY,
        answer: answer(req),
        usage: Some(MockUsage {
            prompt: req.body.to_string().len() as u64 / 4,
            completion: 20,
            cached: None,
        }),
    })
    .expect("mock model starts");
    let base_url = model.base_url();
    let out = dir.path().join("report.json");
    let run = |mode: &[&str]| -> (Duration, Value, usize) {
        let before = model.requests();
        let started = Instant::now();
        let status = Command::new(&binary)
            .env_remove("OPENAI_API_KEY")
            .env_remove("USE_REACT_AGENT")
            .arg("review")
            .arg(&contract)
            .args(mode)
            .args([
                "--base-url",
                &base_url,
                "--model",
                "mock",
                "--format",
                "json",
            ])
            .arg("--out")
            .arg(&out)
            .status()
            .expect("clausewright runs");
        let wall = started.elapsed();
        assert!(status.success(), "toolwright {mode:?} failed");
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("JSON");
        (wall, report, model.requests() - before)
    };
    let orchestrate = ["--orchestrate", "--max-workers", &WORKERS.to_string()].map(String::from);
    let orchestrate: Vec<&str> = orchestrate.iter().map(String::as_str).collect();
    let mut walls = Vec::new();
    let mut last = Value::Null;
    for round in 1..=rounds {
        let (wall, report, requests) = run(&orchestrate);
        let o = &report["orchestration"];
        let planner_turns = o["planner_turns"].as_u64().unwrap_or(0) as u32;
        let ideal = LATENCY * (planner_turns + DEEP.div_ceil(WORKERS) as u32 * 2);
        eprintln!(
            "orchestrate round {round}: {:.3} s; ideal {:.2} s; ratio {:.3}; {requests} requests; {} input + {} output tokens; deep {}",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64(),
            o["spent"]["input_tokens"],
            o["spent"]["output_tokens"],
            o["deep"].as_array().map_or(0, Vec::len),
        );
        walls.push((wall, ideal));
        last = report;
    }
    walls.sort();
    let (median, ideal) = walls[walls.len() / 2];
    let o = &last["orchestration"];
    let (agent_wall, agent, agent_requests) = run(&["--agent", "--concurrency", "8"]);
    let agent_tokens = &agent["summary"]["usage"];
    println!(
        "orchestrate (median of {rounds}): {:.3} s, ideal {:.2} s, ratio {:.3}; {} model requests, {} input + {} output tokens",
        median.as_secs_f64(),
        ideal.as_secs_f64(),
        median.as_secs_f64() / ideal.as_secs_f64(),
        o["spent"]["model_requests"],
        o["spent"]["input_tokens"],
        o["spent"]["output_tokens"],
    );
    println!(
        "agent --concurrency 8: {:.3} s; {agent_requests} model requests, {} input + {} output tokens",
        agent_wall.as_secs_f64(),
        agent_tokens["prompt_tokens"],
        agent_tokens["completion_tokens"],
    );
    let requests = o["spent"]["model_requests"].as_f64().unwrap_or(f64::NAN);
    println!(
        "requests: {:.3} of the agent review's; most requests in flight at once: {}",
        requests / agent_requests as f64,
        model.max_in_flight()
    );
}
