use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::json;

use super::*;
use crate::agent::{ChatMessage, LlmClient, LlmResponse, ScriptedClient};
use crate::ToolCall;

fn run(id: &str) -> NewRun {
    NewRun {
        id: id.into(),
        kind: "review".into(),
        fingerprint: "f1".into(),
        spec: json!({"mode": "agent"}),
        units_total: 3,
    }
}

fn fast() -> JournalOptions {
    JournalOptions {
        lease: Duration::from_secs(5),
        heartbeat: Duration::from_millis(20),
        flush_every: Duration::from_millis(10),
    }
}

fn answer(text: &str, tokens: u64) -> LlmResponse {
    LlmResponse {
        text: text.into(),
        tool_calls: vec![ToolCall {
            id: "call_1".into(),
            name: "lookup".into(),
            arguments: json!({"q": text}).to_string(),
        }],
        usage: Some(crate::agent::TokenUsage {
            prompt_tokens: tokens,
            completion_tokens: 1,
            cached_tokens: 0,
        }),
    }
}

#[tokio::test]
async fn a_recorded_answer_is_replayed_and_not_asked_again() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let journal = RunJournal::create(Arc::clone(&store), &run("r1"), fast())
        .await
        .unwrap();
    let model = Arc::new(ScriptedClient::from_responses([
        answer("one", 10),
        answer("two", 20),
    ]));
    let client = JournaledClient::new(model.clone(), Arc::clone(&journal), "clause");
    let ask = |text: &str| vec![ChatMessage::user(text)];
    assert_eq!(
        client
            .chat_with_tools(&ask("a"), &[], 0.0)
            .await
            .unwrap()
            .text,
        "one"
    );
    // The same request again is a second occurrence: asked, not replayed.
    assert_eq!(
        client
            .chat_with_tools(&ask("a"), &[], 0.0)
            .await
            .unwrap()
            .text,
        "two"
    );
    let record = store.get("r1").await.unwrap().unwrap();
    assert_eq!((record.model_requests, record.input_tokens), (2, 30));
    drop(client);
    let end = RunEnd {
        status: RunStatus::Interrupted,
        result: None,
        error: None,
    };
    journal.finish(&end).await.unwrap();

    // Another process resumes: both answers come from the record, in order.
    let journal = RunJournal::resume(Arc::clone(&store), "r1", fast())
        .await
        .unwrap();
    assert_eq!(
        journal.started(),
        Started::Resumed {
            units: 0,
            requests: 2
        }
    );
    let empty = Arc::new(ScriptedClient::from_responses([answer("three", 5)]));
    let client = JournaledClient::new(empty.clone(), Arc::clone(&journal), "clause");
    let first = client.chat_with_tools(&ask("a"), &[], 0.0).await.unwrap();
    assert_eq!(
        first,
        answer("one", 10),
        "the recorded answer, tool calls and usage"
    );
    assert_eq!(
        client
            .chat_with_tools(&ask("a"), &[], 0.0)
            .await
            .unwrap()
            .text,
        "two"
    );
    // A request never made before goes to the model.
    assert_eq!(
        client
            .chat_with_tools(&ask("b"), &[], 0.0)
            .await
            .unwrap()
            .text,
        "three"
    );
    assert_eq!(empty.requests().len(), 1);
    assert_eq!(journal.request_counts(), (2, 1));
    let record = store.get("r1").await.unwrap().unwrap();
    assert_eq!(
        (record.model_requests, record.input_tokens),
        (3, 35),
        "spending kept"
    );
}

#[tokio::test]
async fn the_key_changes_with_anything_sent() {
    let m = [ChatMessage::user("x")];
    let base = request_key(Some("m"), crate::Dialect::OpenAi, &m, &[], 0.1);
    assert_ne!(
        base,
        request_key(Some("n"), crate::Dialect::OpenAi, &m, &[], 0.1)
    );
    assert_ne!(
        base,
        request_key(Some("m"), crate::Dialect::Anthropic, &m, &[], 0.1)
    );
    assert_ne!(
        base,
        request_key(Some("m"), crate::Dialect::OpenAi, &m, &[], 0.2)
    );
    assert_ne!(
        base,
        request_key(Some("m"), crate::Dialect::OpenAi, &m, &[json!({})], 0.1)
    );
    let other = [ChatMessage::user("y")];
    assert_ne!(
        base,
        request_key(Some("m"), crate::Dialect::OpenAi, &other, &[], 0.1)
    );
    assert_eq!(
        base,
        request_key(Some("m"), crate::Dialect::OpenAi, &m, &[], 0.1)
    );
}

#[tokio::test]
async fn a_live_holder_keeps_the_run_and_a_lapsed_one_loses_it() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let journal = RunJournal::create(Arc::clone(&store), &run("r2"), fast())
        .await
        .unwrap();
    // Another holder (as another host would be) is refused while the lease is renewed.
    let now = Utc::now();
    let later = now + chrono::Duration::seconds(60);
    let held = store
        .acquire("r2", "elsewhere/1/0", later, now, None)
        .await
        .unwrap();
    assert!(matches!(held, Lease::Held { ref holder, .. } if holder == journal.holder()));
    // Past the lease, it is taken over, and the first holder's writes are refused.
    let after = now + chrono::Duration::seconds(3600);
    let taken = store
        .acquire(
            "r2",
            "elsewhere/1/0",
            after + chrono::Duration::seconds(60),
            after,
            None,
        )
        .await
        .unwrap();
    assert_eq!(taken, Lease::Acquired);
    journal.record_unit(RunUnit {
        kind: "clause".into(),
        key: "1".into(),
        counts: true,
        body: "{}".into(),
    });
    let err = journal.flush().await.unwrap_err();
    assert!(matches!(err, RunStoreError::LeaseLost { .. }), "{err}");
    assert!(journal.lease_lost());
    tokio::time::timeout(Duration::from_secs(5), journal.stopped())
        .await
        .expect("a journal that lost its lease says stop");
}

#[tokio::test]
async fn units_are_written_once_counted_and_handed_back_on_resume() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let journal = RunJournal::create(Arc::clone(&store), &run("r3"), fast())
        .await
        .unwrap();
    for key in ["1", "2", "1"] {
        journal.record_unit(RunUnit {
            kind: "clause".into(),
            key: key.into(),
            counts: true,
            body: format!("{{\"clause\":{key}}}"),
        });
    }
    journal.record_unit(RunUnit {
        kind: "note".into(),
        key: "1".into(),
        counts: false,
        body: "{}".into(),
    });
    // Written in the background, within the flush period.
    for _ in 0..100 {
        if store.get("r3").await.unwrap().unwrap().units_done == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(store.get("r3").await.unwrap().unwrap().units_done, 2);
    journal
        .finish(&RunEnd {
            status: RunStatus::Interrupted,
            result: None,
            error: Some("stopped".into()),
        })
        .await
        .unwrap();
    let journal = RunJournal::resume(Arc::clone(&store), "r3", fast())
        .await
        .unwrap();
    let keys: Vec<_> = journal
        .recorded_units()
        .iter()
        .map(|u| (u.kind.as_str(), u.key.as_str()))
        .collect();
    assert_eq!(keys, [("clause", "1"), ("clause", "2"), ("note", "1")]);
    assert_eq!(
        store.get("r3").await.unwrap().unwrap().status,
        RunStatus::Running
    );
}

#[tokio::test]
async fn a_stop_request_reaches_the_holder_and_ended_runs_are_pruned() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let journal = RunJournal::create(Arc::clone(&store), &run("r4"), fast())
        .await
        .unwrap();
    assert!(store.request_cancel("r4").await.unwrap());
    tokio::time::timeout(Duration::from_secs(5), journal.stopped())
        .await
        .expect("the heartbeat reads the stop request");
    assert!(journal.stop_requested());
    journal
        .finish(&RunEnd {
            status: RunStatus::Cancelled,
            result: None,
            error: None,
        })
        .await
        .unwrap();
    assert!(
        !store.request_cancel("r4").await.unwrap(),
        "ended runs cannot be stopped"
    );
    RunJournal::create(Arc::clone(&store), &run("r5"), fast())
        .await
        .unwrap();
    // A running run is never pruned; the ended one goes when over the count.
    assert_eq!(
        store
            .prune(0, Utc::now() - chrono::Duration::days(1))
            .await
            .unwrap(),
        1
    );
    let ids: Vec<_> = store
        .list(10)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, ["r5"]);
    assert!(matches!(
        RunJournal::create(Arc::clone(&store), &run("r5"), fast()).await,
        Err(RunStoreError::Exists(_))
    ));
}

#[test]
fn a_status_is_read_back_by_name() {
    for status in [
        RunStatus::Running,
        RunStatus::Interrupted,
        RunStatus::Succeeded,
        RunStatus::Failed,
        RunStatus::Cancelled,
    ] {
        assert_eq!(status.as_str().parse::<RunStatus>().unwrap(), status);
    }
    let err = "done".parse::<RunStatus>().unwrap_err().to_string();
    assert!(err.contains("`done`") && err.contains("succeeded"), "{err}");
}

#[tokio::test]
async fn a_lapsed_lease_or_a_dead_holder_of_this_host_reads_interrupted() {
    let store: Arc<dyn RunStore> = Arc::new(MemoryRunStore::new());
    let journal = RunJournal::create(Arc::clone(&store), &run("r6"), fast())
        .await
        .unwrap();
    let live = store.get("r6").await.unwrap().unwrap();
    assert_eq!(
        live.status_now(),
        RunStatus::Running,
        "this process is alive"
    );
    assert_eq!(live.dead_holder(), None);
    let later = Utc::now() + chrono::Duration::seconds(3600);
    assert_eq!(
        live.status_at(later),
        RunStatus::Interrupted,
        "a lapsed lease"
    );
    // The same host, a process that has ended: interrupted before its lease lapses.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    child.wait().unwrap();
    let host = journal.holder().split('/').next().unwrap();
    let gone = format!("{host}/{}/0", child.id());
    let dead = RunRecord {
        lease_holder: Some(gone.clone()),
        ..live.clone()
    };
    if std::path::Path::new("/proc/self").exists() {
        assert_eq!(dead.status_now(), RunStatus::Interrupted);
        assert_eq!(dead.dead_holder(), Some(gone.as_str()));
    }
    // Another host's holder is never judged from here: its lease must lapse.
    let elsewhere = RunRecord {
        lease_holder: Some(format!("elsewhere-{host}/{}/0", child.id())),
        ..live
    };
    assert_eq!(elsewhere.status_now(), RunStatus::Running);
}

#[tokio::test]
async fn the_memory_store_keeps_the_contract() {
    crate::testing::check_run_store(Arc::new(MemoryRunStore::new()), "mem").await;
}

/// The lease rule every store applies: another holder's lease stands until its time has
/// passed (at its last instant it still stands), unless that holder is known dead; a free,
/// own or timeless lease is granted.
#[test]
fn a_lease_is_granted_only_when_no_live_other_holder_has_it() {
    let now = Utc::now();
    let later = now + chrono::TimeDelta::seconds(5);
    let earlier = now - chrono::TimeDelta::milliseconds(1);
    let held = |until| Lease::Held {
        holder: "a".into(),
        until,
    };
    assert_eq!(Lease::decide(None, None, "b", now, None), Lease::Acquired);
    assert_eq!(
        Lease::decide(Some("a"), Some(later), "b", now, None),
        held(later)
    );
    assert_eq!(
        Lease::decide(Some("a"), Some(now), "b", now, None),
        held(now)
    );
    assert_eq!(
        Lease::decide(Some("a"), Some(earlier), "b", now, None),
        Lease::Acquired
    );
    assert_eq!(
        Lease::decide(Some("a"), Some(later), "a", now, None),
        Lease::Acquired
    );
    assert_eq!(
        Lease::decide(Some("a"), Some(later), "b", now, Some("a")),
        Lease::Acquired
    );
    assert_eq!(
        Lease::decide(Some("a"), Some(later), "b", now, Some("c")),
        held(later)
    );
    assert_eq!(
        Lease::decide(Some("a"), None, "b", now, None),
        Lease::Acquired
    );
}

/// A write is the lease holder's alone, and the refusal names the run.
#[test]
fn only_the_lease_holder_may_write() {
    assert!(Lease::require_held("r1", Some("a"), "a").is_ok());
    for current in [Some("b"), None] {
        match Lease::require_held("r1", current, "a") {
            Err(RunStoreError::LeaseLost { run }) => assert_eq!(run, "r1"),
            other => panic!("{current:?}: {other:?}"),
        }
    }
}
