//! `clausewright review --orchestrate` against a local OpenAI-compatible model: the planner
//! sends two clauses deep and one quick, the deep reviews run at the same time, and the
//! report carries the plan, the synthesis and the budget; wrong flags and an unreachable
//! model are refused before anything runs.

use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::mock::{MockAnswer, MockModel, MockReply, MockRequest, MockUsage};
use toolwright::ToolCall;

use crate::binary::in_repo as clausewright;

fn system_text(req: &MockRequest) -> String {
    req.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect()
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

/// Planner: two deep reviews and a quick one, then the synthesis. Reviewers: the clause's
/// context, then one risk.
fn script(req: &MockRequest) -> MockReply {
    let answer = if system_text(req).contains("You organise the legal review") {
        if req.tool_results() == 0 {
            MockAnswer::ToolCalls(vec![
                call(
                    "d1",
                    "review_deep",
                    json!({"clause_id": "4.1", "focus": "design duty"}),
                ),
                call(
                    "d2",
                    "review_deep",
                    json!({"clause_id": "17.6", "focus": "the cap"}),
                ),
                call(
                    "q1",
                    "review_quick",
                    json!({"clause_ids": ["1.1"], "reason": "definitions"}),
                ),
            ])
        } else {
            MockAnswer::Text(
                json!({
                    "summary": "The cap and the design duty need negotiation.",
                    "risks": [{"clause_id": "17.6", "risk_level": "high", "risk_type": "cap",
                               "description": "Indemnities fall outside the cap."}],
                    "cross_clause": [{"clause_ids": ["8.7", "17.6"], "risk_level": "medium",
                                      "description": "Delay damages sit outside the total cap."}]
                })
                .to_string(),
            )
        }
    } else if req.tool_results() == 0 && req.offers_tools() {
        MockAnswer::ToolCalls(vec![call("c1", "get_clause_context", json!({}))])
    } else {
        MockAnswer::Text(
            r#"[{"risk_level": "high", "risk_type": "deep", "description": "found by the deep review"}]"#
                .into(),
        )
    };
    MockReply {
        delay: Duration::from_millis(100),
        answer,
        usage: Some(MockUsage {
            prompt: 100,
            completion: 10,
            cached: None,
        }),
    }
}

#[test]
fn an_orchestrated_review_through_a_local_model_server() {
    let model = MockModel::start(script).unwrap();
    let base_url = model.base_url();
    let out = clausewright(&[
        "review",
        "samples/fidic",
        "--our-party",
        "Contractor",
        "--orchestrate",
        "--base-url",
        &base_url,
        "--model",
        "mock-model",
        "--max-workers",
        "2",
        "--budget-requests",
        "20",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let o = &report["orchestration"];
    assert_eq!(
        o["summary"],
        "The cap and the design duty need negotiation."
    );
    let depth = |clause: &str| {
        o["plan"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["clause_id"] == clause)
            .map(|p| p["depth"].as_str().unwrap().to_string())
    };
    assert_eq!(depth("4.1").as_deref(), Some("deep"));
    assert_eq!(depth("17.6").as_deref(), Some("deep"));
    assert_eq!(depth("1.1").as_deref(), Some("quick"));
    assert_eq!(depth("20.1").as_deref(), Some("none"));
    assert_eq!(o["cross_clause"][0]["clause_ids"], json!(["8.7", "17.6"]));
    // Planner: 2 turns; each deep review: 2. Never more than the budget, all counted.
    assert_eq!(o["spent"]["model_requests"], 6);
    assert_eq!(o["budget"]["model_requests"], 20);
    assert_eq!(model.requests(), 6);
    assert_eq!(
        model.max_in_flight(),
        2,
        "the two deep reviews ran at the same time"
    );
    let deep = report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["clause_id"] == "4.1")
        .unwrap();
    assert_eq!(deep["mode"], "react");
    assert_eq!(deep["risks"][0]["description"], "found by the deep review");

    // The table shows the plan and the budget.
    let out = clausewright(&[
        "review",
        "samples/fidic",
        "--orchestrate",
        "--base-url",
        &base_url,
        "--budget-requests",
        "20",
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        table.contains("budget used: 6 of 20 model request(s)"),
        "{table}"
    );
    assert!(table.contains("Across clauses"), "{table}");
}

#[test]
fn orchestrate_flags_are_checked_before_anything_runs() {
    let out = clausewright(&["review", "samples/fidic", "--deep-model", "big"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--orchestrate"));
    let out = clausewright(&["review", "samples/fidic", "--orchestrate", "--agent"]);
    assert_eq!(out.status.code(), Some(2));
    let out = clausewright(&[
        "review",
        "samples/fidic",
        "--orchestrate",
        "--budget-requests",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // No key for the OpenAI API: said, naming the flag.
    let out = clausewright(&["review", "samples/fidic", "--orchestrate"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--orchestrate with the OpenAI API needs OPENAI_API_KEY"),
        "{stderr}"
    );
    // Nothing listens on port 9: refused, or the checklist with --fallback.
    let args = [
        "review",
        "samples/fidic",
        "--orchestrate",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ];
    let out = clausewright(&args);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot be reached"), "{stderr}");
    let out = clausewright(&[&args[..], &["--fallback", "--format", "json"]].concat());
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report.get("orchestration").is_none());
    assert!(report["summary"]["total_risks"].as_u64().unwrap() > 0);
}
