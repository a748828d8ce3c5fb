//! Quotas and the audit across processes: several gateway processes on one store fire 1,000
//! concurrent calls in all at zodiac's 50/day limit, and one process killed mid-run leaves
//! an audit record for every call it returned.
//!
//! The worker processes are this test binary itself, run with `--ignored --exact` on
//! [`gateway_worker_process`] and told what to do through the environment.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;

use chrono::Utc;
use serde_json::{json, Value};
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{AuditQuery, Caller, Gateway, Stores, Window};

use crate::jungastro::Jungastro;
use crate::support::temp_db;
use crate::zodiac::Zodiac;

const WORKER_ENV: &str = "SKILL_PACKS_TEST_WORKER";
/// What a worker prints before each call's result, so lines of the test harness are skipped.
const CALL_PREFIX: &str = "CALL ";

/// What one worker process does.
#[derive(serde::Serialize, serde::Deserialize)]
struct Job {
    store: String,
    quota: Option<String>,
    user: String,
    calls: usize,
    concurrency: usize,
    pace_ms: u64,
}

/// Runs a gateway on the job's stores and prints one line per call. Only does something
/// when started by the tests below as a worker process.
#[test]
#[ignore = "a worker process of the cross-process tests, started by them"]
fn gateway_worker_process() {
    let Ok(job) = std::env::var(WORKER_ENV) else {
        return;
    };
    let job: Job = serde_json::from_str(&job).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let stores = Stores::connect(&job.store, job.quota.as_deref())
            .await
            .unwrap();
        let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
            .pack::<Zodiac>()
            .pack::<Jungastro>()
            .stores(stores)
            .build()
            .unwrap();
        let permits = Arc::new(tokio::sync::Semaphore::new(job.concurrency));
        let mut tasks = Vec::new();
        for i in 0..job.calls {
            let permit = permits.clone().acquire_owned().await.unwrap();
            let gateway = gateway.clone();
            let user = job.user.clone();
            let pace = job.pace_ms;
            tasks.push(tokio::spawn(async move {
                let caller = Caller::new("jungastro", user);
                let args = json!({"birth_date": "1990-07-15", "birth_time": "08:30"});
                let result = gateway
                    .call_tool(&caller, "zodiac_calculate_zodiac", Some(&args), &SkillContext::new())
                    .await;
                let line = json!({
                    "call": i,
                    "outcome": result.error_code().unwrap_or("ok"),
                    "retry_after": result.error.as_ref().and_then(|e| e.details.as_ref()).map(|d| d["retry_after"].clone()),
                });
                {
                    use std::io::Write as _;
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{CALL_PREFIX}{line}");
                    let _ = out.flush();
                }
                if pace > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(pace)).await;
                }
                drop(permit);
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
    });
}

fn worker(job: &Job) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "cross_process::gateway_worker_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, serde_json::to_string(job).unwrap())
        .env("RUST_LOG", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    command
}

fn call_lines(output: &str) -> Vec<Value> {
    output
        .lines()
        .filter_map(|l| l.split_once(CALL_PREFIX).map(|(_, call)| call))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// 4 processes × 250 calls, 32 at a time each, one user at 50/day.
fn thousand_calls_across_processes(store: &str, quota: Option<&str>) {
    let user = crate::servers::unique("load");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stores = rt.block_on(Stores::connect(store, quota)).unwrap();
    rt.block_on(stores.subscriptions.subscribe(&user, "zodiac", None))
        .unwrap();
    let before = Window::Day.retry_after(Utc::now());
    let children: Vec<_> = (0..4)
        .map(|_| {
            worker(&Job {
                store: store.into(),
                quota: quota.map(Into::into),
                user: user.clone(),
                calls: 250,
                concurrency: 32,
                pace_ms: 0,
            })
            .spawn()
            .unwrap()
        })
        .collect();
    let mut lines = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "a worker failed: {:?}",
            output.status
        );
        lines.extend(call_lines(&String::from_utf8_lossy(&output.stdout)));
    }
    let after = Window::Day.retry_after(Utc::now());
    assert_eq!(lines.len(), 1000);
    let ok = lines.iter().filter(|l| l["outcome"] == "ok").count();
    let limited: Vec<&Value> = lines
        .iter()
        .filter(|l| l["outcome"] == "rate_limited")
        .collect();
    assert_eq!(ok, 50, "admitted across processes");
    assert_eq!(limited.len(), 950, "{:?}", &lines[..5]);
    for line in &limited {
        let retry_after = line["retry_after"].as_u64().unwrap();
        assert!(
            (after..=before).contains(&retry_after),
            "retry_after {retry_after} outside {after}..={before}"
        );
    }
    let records = rt
        .block_on(stores.audit.query(&AuditQuery {
            user: Some(user.clone()),
            ..AuditQuery::default()
        }))
        .unwrap();
    assert_eq!(records.len(), 1000);
    assert_eq!(records.iter().filter(|r| r.outcome == "ok").count(), 50);
    assert_eq!(
        records
            .iter()
            .filter(|r| r.outcome == "rate_limited")
            .count(),
        950
    );
    assert_eq!(
        rt.block_on(
            stores
                .quotas
                .used(&user, "zodiac.calculate_zodiac", Window::Day, Utc::now())
        )
        .unwrap(),
        50
    );
}

/// How a store keeps a quota unit and its audit record together.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pairing {
    /// One transaction: the counter equals the records of admitted calls, kills or not.
    Transaction,
    /// Record first, then the count (quotas in Redis): a kill may leave a record without a
    /// count (at most one per call in flight), never a count without a record.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    RecordFirst,
}

/// Three processes call as three users; one is killed with SIGKILL after it returned ten
/// admitted calls. Every call any process printed (returned) has its audit record, and the
/// killed process's counter matches its records of admitted calls (see [`Pairing`]).
fn killed_process_loses_no_returned_record(store: &str, quota: Option<&str>, pairing: Pairing) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let stores = rt.block_on(Stores::connect(store, quota)).unwrap();
    let users: Vec<String> = (0..3).map(|_| crate::servers::unique("kill")).collect();
    for user in &users {
        rt.block_on(stores.subscriptions.subscribe(user, "zodiac", None))
            .unwrap();
    }
    let mut children: Vec<_> = users
        .iter()
        .map(|user| {
            worker(&Job {
                store: store.into(),
                quota: quota.map(Into::into),
                user: user.clone(),
                calls: 120,
                concurrency: 4,
                pace_ms: 10,
            })
            .spawn()
            .unwrap()
        })
        .collect();
    // Read the first worker's calls until ten were admitted, then kill it.
    let mut victim = children.remove(0);
    let mut reader = BufReader::new(victim.stdout.take().unwrap());
    let mut printed = Vec::new();
    let mut line = String::new();
    while printed
        .iter()
        .filter(|l: &&Value| l["outcome"] == "ok")
        .count()
        < 10
    {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the worker ended early"
        );
        // The harness's own `test … ` may precede the first call on its line.
        if let Some((_, call)) = line.trim_end().split_once(CALL_PREFIX) {
            printed.push(serde_json::from_str::<Value>(call).unwrap());
        }
    }
    victim.kill().unwrap(); // SIGKILL
    let status = victim.wait().unwrap();
    assert!(!status.success(), "the worker was killed, not finished");
    // What was already in the pipe was returned before the kill, too.
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut reader, &mut rest);
    printed.extend(call_lines(&rest));
    assert!(printed.len() < 120, "the worker was killed mid-run");
    let mut others = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        others.push(call_lines(&String::from_utf8_lossy(&output.stdout)));
    }
    let audit_of = |user: &str| {
        rt.block_on(stores.audit.query(&AuditQuery {
            user: Some(user.into()),
            ..AuditQuery::default()
        }))
        .unwrap()
    };
    let victim_records = audit_of(&users[0]);
    for outcome in ["ok", "rate_limited"] {
        let returned = printed.iter().filter(|l| l["outcome"] == outcome).count();
        let recorded = victim_records
            .iter()
            .filter(|r| r.outcome == outcome)
            .count();
        assert!(
            recorded >= returned,
            "{returned} `{outcome}` calls returned but {recorded} recorded"
        );
    }
    // The killed process admitted no more than its quota counted.
    let used = rt
        .block_on(stores.quotas.used(
            &users[0],
            "zodiac.calculate_zodiac",
            Window::Day,
            Utc::now(),
        ))
        .unwrap() as usize;
    assert!(used >= victim_records.iter().filter(|r| r.outcome == "ok").count());
    // Every record but a refusal by the limit is of a call that was counted: finished
    // (`ok`), or cut off by the kill (`started`, `cancelled`).
    let admitted = victim_records
        .iter()
        .filter(|r| r.outcome != "rate_limited")
        .count();
    match pairing {
        Pairing::Transaction => assert_eq!(
            used, admitted,
            "the counter and the records of admitted calls differ after the kill"
        ),
        Pairing::RecordFirst => assert!(
            used <= admitted && admitted - used <= 4,
            "counter {used}, records of admitted calls {admitted}: a record comes first, at most one per call in flight (4) without its count"
        ),
    }
    for (user, lines) in users[1..].iter().zip(&others) {
        assert_eq!(lines.len(), 120);
        assert_eq!(audit_of(user).len(), 120);
        assert_eq!(lines.iter().filter(|l| l["outcome"] == "ok").count(), 50);
    }
}

#[test]
fn sqlite_holds_the_quota_across_processes() {
    let store = format!("sqlite://{}", temp_db("load").display());
    thousand_calls_across_processes(&store, None);
}

#[test]
fn sqlite_keeps_the_audit_of_a_killed_process() {
    let store = format!("sqlite://{}", temp_db("kill").display());
    killed_process_loses_no_returned_record(&store, None, Pairing::Transaction);
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_holds_the_quota_across_processes() {
    let Some(url) = crate::servers::postgres() else {
        return;
    };
    let schema = crate::servers::TestSchema::new(&url, "load");
    thousand_calls_across_processes(&schema.store_url(), None);
}

#[cfg(feature = "postgres")]
#[test]
fn postgres_keeps_the_audit_of_a_killed_process() {
    let Some(url) = crate::servers::postgres() else {
        return;
    };
    let schema = crate::servers::TestSchema::new(&url, "kill");
    killed_process_loses_no_returned_record(&schema.store_url(), None, Pairing::Transaction);
}

#[cfg(feature = "redis")]
#[test]
fn redis_holds_the_quota_across_processes() {
    let Some(url) = crate::servers::redis() else {
        return;
    };
    let prefix = crate::servers::TestPrefix::new(&url, "load");
    let store = format!("sqlite://{}", temp_db("redis-load").display());
    thousand_calls_across_processes(&store, Some(&prefix.store_url()));
}

#[cfg(feature = "redis")]
#[test]
fn redis_keeps_the_audit_of_a_killed_process() {
    let Some(url) = crate::servers::redis() else {
        return;
    };
    let prefix = crate::servers::TestPrefix::new(&url, "kill");
    let store = format!("sqlite://{}", temp_db("redis-kill").display());
    killed_process_loses_no_returned_record(
        &store,
        Some(&prefix.store_url()),
        Pairing::RecordFirst,
    );
}
