//! Reviews that outlive their process: `clausewright review` killed with SIGKILL at several
//! moments (some chosen at random, the seed printed) against a local model server, then
//! `--resume`d. The finished report equals an uninterrupted run's (wall times aside), no
//! model request recorded before the kill is sent again (counted at the server), and the
//! run's spending counts every request once. For the agent and the orchestrated review, on
//! the embedded SQLite store and on PostgreSQL.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolwright::agent::mock::{
    react_answer, MockAnswer, MockModel, MockReply, MockRequest, MockUsage,
};
use toolwright::ToolCall;

use crate::binary::run_in as clausewright;
use crate::shared_store::{postgres, unique, Schema};

const CLAUSES: usize = 8;

/// The binary in `dir` (its home too) with `args`, to spawn.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = crate::binary::isolated(dir);
    cmd.current_dir(dir).args(args);
    cmd
}

/// A contract of [`CLAUSES`] clauses and its checklist, in a folder of its own.
fn contract(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("clausewright-durable-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("SUPPLY AGREEMENT\n\n");
    let mut checklist = Vec::new();
    for n in 1..=CLAUSES {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Supplier shall deliver lot {n} within {} days and pay liquidated damages of {n}% per week.\n\n",
            7 * n
        ));
        checklist.push(json!({
            "clause_id": n.to_string(), "clause_name": format!("Topic {n}"), "priority": "high",
            "required_skills": ["get_clause_context"], "description": ""
        }));
    }
    std::fs::write(dir.join("contract.md"), text).unwrap();
    std::fs::write(dir.join("list.json"), Value::from(checklist).to_string()).unwrap();
    dir
}

fn usage() -> Option<MockUsage> {
    Some(MockUsage {
        prompt: 100,
        completion: 10,
        cached: None,
    })
}

/// Each clause: one tool round, then one risk naming the clause's first words.
fn agent_script(req: &MockRequest) -> MockReply {
    let clause = req
        .user_text()
        .chars()
        .filter(char::is_ascii_digit)
        .take(3)
        .collect::<String>();
    MockReply {
        delay: Duration::from_millis(40),
        answer: react_answer(
            req,
            1,
            "get_clause_context",
            &json!([{"risk_level": "high", "risk_type": "probe", "description": format!("risk {clause}")}]).to_string(),
        ),
        usage: usage(),
    }
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

/// The planner sends four clauses deep, two at a time, then writes a synthesis; each deep
/// review takes one tool round.
fn planner_script(req: &MockRequest) -> MockReply {
    let planner = req.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|m| {
            m["role"] == "system"
                && m["content"]
                    .as_str()
                    .unwrap_or("")
                    .contains("You organise the legal review")
        });
    let answer = if planner {
        match req.tool_results() {
            0 => MockAnswer::ToolCalls(vec![
                call(
                    "d1",
                    "review_deep",
                    json!({"clause_id": "1", "focus": "delay"}),
                ),
                call(
                    "d2",
                    "review_deep",
                    json!({"clause_id": "2", "focus": "damages"}),
                ),
            ]),
            2 => MockAnswer::ToolCalls(vec![
                call(
                    "d3",
                    "review_deep",
                    json!({"clause_id": "5", "focus": "delay"}),
                ),
                call(
                    "d4",
                    "review_deep",
                    json!({"clause_id": "7", "focus": "damages"}),
                ),
            ]),
            _ => MockAnswer::Text(
                json!({"summary": "Delay damages need a cap.",
                       "risks": [{"clause_id": "7", "risk_level": "high", "risk_type": "cap",
                                  "description": "No cap on delay damages."}]})
                .to_string(),
            ),
        }
    } else {
        react_answer(
            req,
            1,
            "get_clause_context",
            r#"[{"risk_level": "medium", "risk_type": "deep", "description": "deep finding"}]"#,
        )
    };
    MockReply {
        delay: Duration::from_millis(60),
        answer,
        usage: usage(),
    }
}

/// The report without what differs from run to run however it is run: wall times.
fn without_times(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|k, _| !k.ends_with("_ms"));
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn read_report(path: &Path) -> Value {
    without_times(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
}

fn runs(dir: &Path, store: &str) -> Vec<Value> {
    let out = clausewright(dir, &["runs", "list", "--format", "json", "--store", store]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// A pseudo-random number below `n` from `seed` (xorshift).
fn pick(seed: &mut u64, n: usize) -> usize {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed % n as u64) as usize
}

/// Runs the review once uninterrupted, then once per kill point: killed with SIGKILL once
/// that many model answers came back, resumed, and checked.
fn kill_and_resume(
    tag: &str,
    store: Option<&str>,
    mode: &[&str],
    script: fn(&MockRequest) -> MockReply,
) {
    let dir = contract(tag);
    let sqlite = dir.join("runs.db").display().to_string();
    let store = store.unwrap_or(&sqlite);
    let base_args = |store: &str, out: &str| -> Vec<String> {
        let mut args: Vec<String> = [
            "review",
            "contract.md",
            "--checklist",
            "list.json",
            "--format",
            "json",
            "--concurrency",
            "2",
            "--out",
            out,
            "--store",
            store,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(mode.iter().map(|s| s.to_string()));
        args
    };
    // The uninterrupted run: its report and how many requests it takes.
    let model = MockModel::start(script).unwrap();
    let url = model.base_url();
    let mut args = base_args(store, "whole.json");
    args.extend([
        "--base-url".into(),
        url.clone(),
        "--model".into(),
        "mock-model".into(),
    ]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = clausewright(&dir, &argv);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let whole = read_report(&dir.join("whole.json"));
    let needed = model.requests();
    assert!(
        needed >= 4,
        "the review asks the model several times ({needed})"
    );
    drop(model);

    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("{tag}: random kill points from seed {seed}");
    let mut points = vec![1, needed / 2];
    points.push(1 + pick(&mut seed, needed - 1));
    points.push(1 + pick(&mut seed, needed - 1));
    for answered in points {
        let model = MockModel::start(script).unwrap();
        let url = model.base_url();
        let mut args = base_args(store, "resumed.json");
        args.extend([
            "--base-url".into(),
            url.clone(),
            "--model".into(),
            "mock-model".into(),
        ]);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = command(&dir, &argv)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let guard = Instant::now() + Duration::from_secs(60);
        while model.log().iter().filter(|e| e.finished.is_some()).count() < answered {
            assert!(
                Instant::now() < guard,
                "{tag}: the review never got {answered} answers"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL: no handler runs
        child.wait().unwrap();
        let sent_before = model.requests();
        let listed = runs(&dir, store);
        let run = &listed[0];
        let id = run["id"].as_str().unwrap().to_string();
        let recorded = run["model_requests"].as_u64().unwrap() as usize;
        if recorded < needed {
            assert_eq!(
                run["status"], "interrupted",
                "{tag}: a killed run reads interrupted: {run}"
            );
        }
        // Resume by id alone: the recorded options apply.
        let out = clausewright(
            &dir,
            &[
                "review",
                "--resume",
                &id,
                "--store",
                store,
                "--format",
                "json",
                "--out",
                "resumed.json",
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{tag} kill after {answered}: {stderr}"
        );
        let resumed = read_report(&dir.join("resumed.json"));
        assert_eq!(
            resumed, whole,
            "{tag} kill after {answered}: the resumed report differs"
        );
        let sent_after = model.requests() - sent_before;
        eprintln!(
            "{tag}: killed after {answered} answers; {sent_before} sent, {recorded} recorded, {sent_after} sent on resume, {needed} in all"
        );
        assert_eq!(
            sent_after,
            needed - recorded,
            "{tag} kill after {answered}: only the requests not recorded are sent again"
        );
        assert!(
            sent_before - recorded <= 2,
            "{tag}: at most the requests in flight at the kill were lost ({sent_before} sent, {recorded} recorded)"
        );
        let run = runs(&dir, store)
            .into_iter()
            .find(|r| r["id"] == id.as_str())
            .unwrap();
        assert_eq!(run["status"], "succeeded", "{run}");
        assert_eq!(
            run["model_requests"], needed,
            "each request counted once: {run}"
        );
        assert_eq!(run["input_tokens"], 100 * needed, "{run}");
        assert_eq!(run["clauses_done"], CLAUSES, "{run}");
        if let Some(spent) = resumed.pointer("/orchestration/spent/model_requests") {
            assert_eq!(
                spent, needed,
                "the budget spent before the kill stays spent"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn an_agent_review_killed_at_any_point_resumes_on_sqlite() {
    kill_and_resume("agent-sqlite", None, &["--agent"], agent_script);
}

#[cfg(unix)]
#[test]
fn an_orchestrated_review_killed_at_any_point_resumes_on_sqlite() {
    kill_and_resume("orchestrate-sqlite", None, ORCHESTRATE, planner_script);
}

const ORCHESTRATE: &[&str] = &[
    "--orchestrate",
    "--max-workers",
    "2",
    "--budget-requests",
    "40",
];

/// A schema of its own on the tests' PostgreSQL server, dropped afterwards.
fn postgres_schema(base: &str) -> Option<Schema> {
    let url = postgres()?;
    Some(Schema {
        url,
        name: unique(base),
    })
}

#[cfg(unix)]
#[test]
fn an_agent_review_killed_at_any_point_resumes_on_postgres() {
    let Some(schema) = postgres_schema("durable_agent") else {
        return;
    };
    kill_and_resume(
        "agent-pg",
        Some(&schema.store_url()),
        &["--agent"],
        agent_script,
    );
}

#[cfg(unix)]
#[test]
fn an_orchestrated_review_killed_at_any_point_resumes_on_postgres() {
    let Some(schema) = postgres_schema("durable_orch") else {
        return;
    };
    kill_and_resume(
        "orchestrate-pg",
        Some(&schema.store_url()),
        ORCHESTRATE,
        planner_script,
    );
}

/// A slow model: every answer takes `secs` seconds (a review stays in flight).
fn slow_model(secs: u64) -> MockModel {
    MockModel::start(move |req| MockReply {
        delay: Duration::from_secs(secs),
        answer: react_answer(req, 0, "get_clause_context", "[]"),
        usage: usage(),
    })
    .unwrap()
}

/// An agent review killed while its first requests wait, leaving an interrupted run.
fn interrupted_run(dir: &Path, store: &str, model: &MockModel) -> String {
    let url = model.base_url();
    let mut child = command(
        dir,
        &[
            "review",
            "contract.md",
            "--checklist",
            "list.json",
            "--agent",
            "--store",
            store,
            "--base-url",
            &url,
            "--model",
            "mock-model",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let guard = Instant::now() + Duration::from_secs(60);
    while model.requests() == 0 {
        assert!(Instant::now() < guard, "the review never reached the model");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    runs(dir, store)[0]["id"].as_str().unwrap().to_string()
}

fn fails_with(out: &Output, words: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected a refusal: {stderr}");
    for word in words {
        assert!(stderr.contains(word), "`{word}` missing from: {stderr}");
    }
}

/// What makes a resumed run the same run: a contradicting option, a changed document, an
/// unknown id and a second process are refused, each with its reason.
fn refusals(tag: &str, store: Option<&str>) {
    let dir = contract(tag);
    let sqlite = dir.join("runs.db").display().to_string();
    let store = store.unwrap_or(&sqlite);
    let model = slow_model(30);
    let id = interrupted_run(&dir, store, &model);
    let unknown = clausewright(&dir, &["review", "--resume", "r-none", "--store", store]);
    fails_with(&unknown, &["--resume r-none", "no such run"]);
    let other_model = clausewright(
        &dir,
        &[
            "review",
            "--resume",
            &id,
            "--store",
            store,
            "--model",
            "another-model",
        ],
    );
    fails_with(&other_model, &["--model", "another-model", "mock-model"]);
    let other_party = clausewright(
        &dir,
        &[
            "review",
            "--resume",
            &id,
            "--store",
            store,
            "--our-party",
            "Buyer",
        ],
    );
    fails_with(&other_party, &["--our-party", "Buyer"]);

    // Two processes on one run: the first resume holds it, the second is refused.
    let url = model.base_url();
    let mut first = command(
        &dir,
        &[
            "review",
            "--resume",
            &id,
            "--store",
            store,
            "--base-url",
            &url,
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let guard = Instant::now() + Duration::from_secs(60);
    while runs(&dir, store)[0]["status"] != "running" {
        assert!(
            Instant::now() < guard,
            "the first resume never took the run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = clausewright(&dir, &["review", "--resume", &id, "--store", store]);
    fails_with(&second, &["is being worked on", &id]);
    first.kill().unwrap();
    first.wait().unwrap();

    // A document that changed since the run started.
    let contract = dir.join("contract.md");
    let text = std::fs::read_to_string(&contract).unwrap();
    std::fs::write(&contract, text.replace("lot 3", "lot three")).unwrap();
    let changed = clausewright(&dir, &["review", "--resume", &id, "--store", store]);
    fails_with(&changed, &["cannot go on", "contract.md changed"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn a_resume_that_is_not_the_same_run_is_refused_on_sqlite() {
    refusals("refusals-sqlite", None);
}

#[cfg(unix)]
#[test]
fn a_resume_that_is_not_the_same_run_is_refused_on_postgres() {
    let Some(schema) = postgres_schema("durable_refusals") else {
        return;
    };
    refusals("refusals-pg", Some(&schema.store_url()));
}

#[test]
fn runs_of_an_empty_store_and_an_unknown_run_are_answered_plainly() {
    let dir = contract("runs-cli");
    let store = dir.join("runs.db").display().to_string();
    let out = clausewright(&dir, &["runs", "list", "--store", &store]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no runs in"));
    let out = clausewright(&dir, &["runs", "show", "r-missing", "--store", &store]);
    fails_with(&out, &["no run `r-missing`", "runs list"]);
    // A checklist review is recorded, listed, shown, and resuming it prints its report.
    let out = clausewright(
        &dir,
        &[
            "review",
            "contract.md",
            "--checklist",
            "list.json",
            "--store",
            &store,
            "--format",
            "json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = runs(&dir, &store);
    assert_eq!(listed.len(), 1);
    let run = &listed[0];
    assert_eq!(
        (run["status"].as_str(), run["mode"].as_str()),
        (Some("succeeded"), Some("checklist"))
    );
    assert_eq!(
        (run["clauses_done"].as_u64(), run["clauses_total"].as_u64()),
        (Some(CLAUSES as u64), Some(CLAUSES as u64))
    );
    let id = run["id"].as_str().unwrap();
    let shown = clausewright(&dir, &["runs", "show", id, "--store", &store]);
    assert!(String::from_utf8_lossy(&shown.stdout)
        .contains(&format!("clauses    {CLAUSES} of {CLAUSES} done")));
    let again = clausewright(
        &dir,
        &[
            "review", "--resume", id, "--store", &store, "--format", "json",
        ],
    );
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("had finished"));
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let recorded: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(without_times(first), without_times(recorded));
    let cancel = clausewright(&dir, &["runs", "cancel", id, "--store", &store]);
    assert!(String::from_utf8_lossy(&cancel.stdout).contains("not running"));
    let nothing = clausewright(
        &dir,
        &["review", "contract.md", "--no-record", "--store", &store],
    );
    fails_with(&nothing, &["--no-record", "--store"]);
    std::fs::remove_dir_all(&dir).ok();
}
