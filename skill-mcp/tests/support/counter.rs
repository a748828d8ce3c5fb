//! A task tool for the MCP tests (also linked into the `peer_server` example): `count`
//! counts to a number, recording one unit per permit of a gate the caller opens, in a run
//! store through a `RunJournal`; it ends with `{"counted": n}`, or fails when asked to.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use toolwright::runs::{JournalOptions, NewRun, RunEnd, RunJournal, RunStatus, RunStore, RunUnit};
use toolwright_mcp::{TaskError, TaskRunner, TaskTool};

/// The run kind of the counter.
pub const KIND: &str = "count";

fn journal_options() -> JournalOptions {
    JournalOptions {
        lease: Duration::from_secs(5),
        heartbeat: Duration::from_millis(20),
        flush_every: Duration::from_millis(10),
    }
}

/// Unique run ids across every server of the test binary.
fn next_run_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("count-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Counts to `units`, one unit per permit of `gate`; with `fail`, ends with an error.
pub struct Counter {
    store: Arc<dyn RunStore>,
    gate: Arc<Semaphore>,
    pub started: AtomicUsize,
    /// Calls of `resume`, and runs it took over.
    pub resume_calls: AtomicUsize,
    pub resumed: AtomicUsize,
}

impl Counter {
    pub fn new(store: Arc<dyn RunStore>, gate: Arc<Semaphore>) -> Arc<Self> {
        Arc::new(Self {
            store,
            gate,
            started: AtomicUsize::new(0),
            resume_calls: AtomicUsize::new(0),
            resumed: AtomicUsize::new(0),
        })
    }
}

#[async_trait]
impl TaskRunner for Counter {
    async fn start(&self, arguments: Value) -> Result<String, TaskError> {
        let units = arguments
            .get("units")
            .and_then(Value::as_u64)
            .filter(|n| (1..=50).contains(n))
            .ok_or_else(|| {
                TaskError::invalid_argument("$.units", "expected an integer from 1 to 50")
            })?;
        let fail = arguments.get("fail").and_then(Value::as_bool) == Some(true);
        let run = NewRun {
            id: next_run_id(),
            kind: KIND.into(),
            fingerprint: format!("units={units}"),
            spec: json!({"units": units, "fail": fail}),
            units_total: units,
        };
        let journal = RunJournal::create(Arc::clone(&self.store), &run, journal_options()).await?;
        self.started.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(count(journal, units, fail, Arc::clone(&self.gate)));
        Ok(run.id)
    }

    async fn resume(&self, run_id: &str) -> Result<(), TaskError> {
        self.resume_calls.fetch_add(1, Ordering::SeqCst);
        // Slow enough for a second poll to arrive while the first resumes.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let journal =
            RunJournal::resume(Arc::clone(&self.store), run_id, journal_options()).await?;
        let record = self
            .store
            .get(run_id)
            .await?
            .ok_or_else(|| TaskError::Refused(format!("run `{run_id}` is gone")))?;
        let units = record.spec["units"].as_u64().unwrap_or(record.units_total);
        let fail = record.spec["fail"] == true;
        self.resumed.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(count(journal, units, fail, Arc::clone(&self.gate)));
        Ok(())
    }
}

/// The work: the units not yet recorded, one per permit, stopping at the next unit when
/// asked to.
async fn count(journal: Arc<RunJournal>, units: u64, fail: bool, gate: Arc<Semaphore>) {
    let done = journal.recorded_units().len() as u64;
    for unit in done..units {
        tokio::select! {
            () = journal.stopped() => {
                let end = RunEnd {
                    status: RunStatus::Cancelled,
                    result: None,
                    error: Some(format!("stopped on request after {unit} units")),
                };
                journal.finish(&end).await.expect("run ends");
                return;
            }
            permit = gate.acquire() => permit.expect("gate open").forget(),
        }
        journal.record_unit(RunUnit {
            kind: "unit".into(),
            key: unit.to_string(),
            counts: true,
            body: "{}".into(),
        });
    }
    let end = if fail {
        RunEnd {
            status: RunStatus::Failed,
            result: None,
            error: Some("the counter was asked to fail".into()),
        }
    } else {
        RunEnd {
            status: RunStatus::Succeeded,
            result: Some(json!({"counted": units}).to_string()),
            error: None,
        }
    };
    journal.finish(&end).await.expect("run ends");
}

pub fn count_tool() -> TaskTool {
    TaskTool::new(
        "count",
        "Count to a number, one unit at a time.",
        json!({
            "type": "object",
            "properties": {
                "units": {"type": "integer", "minimum": 1, "maximum": 50},
                "fail": {"type": "boolean"}
            },
            "required": ["units"]
        }),
    )
    .expect("valid task tool")
    .run_kind(KIND)
    .poll_interval(Duration::from_millis(250))
}
