//! Server processes on one store share the calls waiting for consent: a call one process
//! parks is listed by another, confirmed there exactly once (it runs there), refused to the
//! first afterwards, and one that outlives its time to live runs nowhere.
//!
//! The processes are this test binary itself, run with `--ignored --exact` on
//! [`consent_worker_process`] and told what to do through the environment, as in
//! `cross_process`.

use std::io::Write as _;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::SharedConfirmations;
use toolwright::{DispatcherBuilder, Outcome};
use toolwright_packs::Stores;

use crate::support::temp_db;

const WORKER_ENV: &str = "SKILL_PACKS_CONSENT_WORKER";
/// What a worker prints before its answer, so lines of the test harness are skipped.
const ANSWER_PREFIX: &str = "ANSWER ";

/// Appends a line to a file: a write, so it waits for a person's consent.
#[skill(
    id = "ledger.append",
    category = "create",
    confirm = "Append `{line}` to {file}"
)]
fn ledger_append(
    /// The file to append to.
    file: String,
    /// The line to append.
    line: String,
) -> Result<usize, SkillError> {
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .map_err(|e| SkillError::new("io", format!("cannot open {file}: {e}")))?;
    writeln!(out, "{line}")
        .map_err(|e| SkillError::new("io", format!("cannot write {file}: {e}")))?;
    Ok(line.len())
}

/// What one worker process does.
#[derive(serde::Serialize, serde::Deserialize)]
enum Job {
    /// Calls `ledger.append` (which parks) and shares the parked call.
    Park { file: String, line: String },
    /// Lists the waiting calls, then confirms `id`.
    Confirm { id: String },
    /// Rejects `id`.
    Reject { id: String },
    /// Lists the calls that expired.
    Expired,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Order {
    store: String,
    ttl_ms: u64,
    job: Job,
}

/// Runs one job on a dispatcher whose parked calls live in the order's store, and prints the
/// answer. Only does something when started by the tests below as a worker process.
#[test]
#[ignore = "a worker process of the shared-consent tests, started by them"]
fn consent_worker_process() {
    let Ok(order) = std::env::var(WORKER_ENV) else {
        return;
    };
    let order: Order = serde_json::from_str(&order).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let answer = runtime.block_on(async move {
        let stores = Stores::connect(&order.store, None).await.unwrap();
        let dispatcher = DispatcherBuilder::from_dispatcher(&Dispatcher::from_inventory().unwrap())
            .confirmation_ttl(Duration::from_millis(order.ttl_ms))
            .build()
            .unwrap();
        let shared = SharedConfirmations::new(dispatcher.clone(), stores.confirmations);
        let ctx = SkillContext::new();
        match order.job {
            Job::Park { file, line } => {
                let result = dispatcher
                    .call("ledger.append", &json!({"file": file, "line": line}), &ctx)
                    .await;
                let Some(Outcome::AwaitingConfirmation(pending)) = result.outcome() else {
                    panic!("the call did not wait for consent: {result:?}");
                };
                let stored = shared.adopt(pending).await.unwrap();
                json!({
                    "id": stored.id,
                    "local_left": dispatcher.pending_confirmations().len(),
                })
            }
            Job::Confirm { id } => {
                let listed: Vec<String> = shared
                    .pending()
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|c| c.id)
                    .collect();
                let decided = match shared.confirm(&id, &ctx).await {
                    Ok(result) => json!({"ran": result.success, "data": result.data_value()}),
                    Err(err) => json!({"refused": err.to_string()}),
                };
                json!({"listed": listed, "decided": decided})
            }
            Job::Reject { id } => match shared.reject(&id, Some("not today")).await {
                Ok(result) => {
                    json!({"code": result.error_code(), "message": result.error.map(|e| e.message)})
                }
                Err(err) => json!({"refused": err.to_string()}),
            },
            Job::Expired => {
                let expired: Vec<String> = shared
                    .expired(50)
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|c| c.id)
                    .collect();
                json!({"expired": expired})
            }
        }
    });
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{ANSWER_PREFIX}{answer}");
    let _ = out.flush();
}

/// Runs one worker to its end and returns its answer.
fn run(store: &str, ttl_ms: u64, job: Job) -> Value {
    let order = Order {
        store: store.to_string(),
        ttl_ms,
        job,
    };
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "shared_servers::consent_worker_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, serde_json::to_string(&order).unwrap())
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "a worker failed: {:?}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once(ANSWER_PREFIX).map(|(_, a)| a))
        .unwrap_or_else(|| panic!("no answer in {stdout}"));
    serde_json::from_str(line).unwrap()
}

fn lines_of(file: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Parked by one process, confirmed by a second, refused to the first; rejected by another;
/// expired calls run nowhere.
fn consent_crosses_processes(store: &str) {
    let file = temp_db("ledger").with_extension("txt");
    let file_text = file.display().to_string();
    let minute = 60_000;

    let parked = run(
        store,
        minute,
        Job::Park {
            file: file_text.clone(),
            line: "first".into(),
        },
    );
    let id = parked["id"].as_str().unwrap().to_string();
    assert!(
        id.starts_with(toolwright::SHARED_CONFIRMATION_PREFIX),
        "{parked}"
    );
    assert_eq!(
        parked["local_left"], 0,
        "the parked call left the process's own queue"
    );
    assert!(lines_of(&file).is_empty(), "nothing ran before the consent");

    let confirmed = run(store, minute, Job::Confirm { id: id.clone() });
    assert!(
        confirmed["listed"].as_array().unwrap().contains(&json!(id)),
        "the second process lists the first one's call: {confirmed}"
    );
    assert_eq!(confirmed["decided"]["ran"], true, "{confirmed}");
    assert_eq!(lines_of(&file), vec!["first".to_string()]);

    let again = run(store, minute, Job::Confirm { id: id.clone() });
    let refused = again["decided"]["refused"].as_str().unwrap_or_default();
    assert!(
        refused.contains("no pending confirmation") && refused.contains(&id),
        "a decided call cannot be confirmed again: {again}"
    );
    assert_eq!(lines_of(&file), vec!["first".to_string()], "it ran once");

    let second = run(
        store,
        minute,
        Job::Park {
            file: file_text.clone(),
            line: "second".into(),
        },
    );
    let second = second["id"].as_str().unwrap().to_string();
    let rejected = run(store, minute, Job::Reject { id: second.clone() });
    assert_eq!(rejected["code"], "confirmation_rejected", "{rejected}");
    assert!(
        rejected["message"].as_str().unwrap().contains("not today"),
        "{rejected}"
    );
    let late = run(store, minute, Job::Confirm { id: second });
    assert!(late["decided"]["refused"].is_string(), "{late}");

    // A call with a 300 ms time to live, answered a second later.
    let short = run(
        store,
        300,
        Job::Park {
            file: file_text,
            line: "late".into(),
        },
    );
    let short = short["id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(1000));
    let expired = run(store, minute, Job::Confirm { id: short.clone() });
    assert!(
        !expired["listed"]
            .as_array()
            .unwrap()
            .contains(&json!(short)),
        "an expired call is not listed as waiting: {expired}"
    );
    let refused = expired["decided"]["refused"].as_str().unwrap_or_default();
    assert!(refused.contains("no longer pending"), "{expired}");
    let listed = run(store, minute, Job::Expired);
    assert!(
        listed["expired"]
            .as_array()
            .unwrap()
            .contains(&json!(short)),
        "{listed}"
    );
    assert_eq!(
        lines_of(&file),
        vec!["first".to_string()],
        "only the consented call ran"
    );
    let _ = std::fs::remove_file(&file);
}

#[test]
fn sqlite_shares_calls_waiting_for_consent_across_processes() {
    let store = format!("sqlite://{}", temp_db("consent").display());
    consent_crosses_processes(&store);
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_shares_calls_waiting_for_consent_across_processes() {
    let Some(url) = crate::servers::postgres() else {
        return;
    };
    let schema = crate::servers::TestSchema::new(&url, "consent");
    consent_crosses_processes(&schema.store_url());
}

/// Two clients of one server (an MCP answer, the console's page) moving the same parked call
/// at once store it once, under one id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_moved_twice_at_once_is_stored_once() {
    let store = Stores::connect(
        &format!("sqlite://{}", temp_db("adopt-twice").display()),
        None,
    )
    .await
    .unwrap();
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let shared = SharedConfirmations::new(dispatcher.clone(), store.confirmations.clone());
    let result = dispatcher
        .call(
            "ledger.append",
            &json!({"file": "/nonexistent/never-written", "line": "x"}),
            &SkillContext::new(),
        )
        .await;
    let Some(Outcome::AwaitingConfirmation(pending)) = result.outcome() else {
        panic!("the call did not wait for consent: {result:?}");
    };
    let (first, second) = tokio::join!(shared.adopt(pending), shared.adopt(pending));
    assert_eq!(first.unwrap().id, second.unwrap().id);
    assert_eq!(shared.pending().await.unwrap().len(), 1);
    assert!(dispatcher.pending_confirmations().is_empty());
}
