//! The contract of a [`RunStore`], checked the same way against every engine.

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;

use crate::agent::TokenUsage;
use crate::runs::{Lease, NewRun, RunEnd, RunRequest, RunStatus, RunStore, RunStoreError, RunUnit};

fn unit(key: &str, counts: bool) -> RunUnit {
    RunUnit {
        kind: "clause".into(),
        key: key.into(),
        counts,
        body: format!("{{\"key\":\"{key}\"}}"),
    }
}

/// Checks that `store` keeps the [`RunStore`] contract: creation and listing (newest first),
/// leases (held, lapsed, taken over from a dead holder, refused writes after a takeover),
/// units and requests written once and counted, ending, stop requests and pruning. Run ids
/// start with `prefix` (unique per call, so a shared database can be used); panics with what
/// was broken.
pub async fn check_run_store(store: Arc<dyn RunStore>, prefix: &str) {
    creation_and_listing(store.as_ref(), prefix).await;
    leases(store.as_ref(), prefix).await;
    units_and_requests(store.as_ref(), prefix).await;
    ending_and_pruning(store.as_ref(), prefix).await;
}

/// Runs are created once, read back whole and listed newest first.
async fn creation_and_listing(store: &dyn RunStore, prefix: &str) {
    let id = |n: &str| format!("{prefix}-{n}");
    let now = Utc::now();
    let soon = now + Duration::seconds(30);
    let new = |n: &str| NewRun {
        id: id(n),
        kind: "review".into(),
        fingerprint: format!("fp-{n}"),
        spec: json!({"mode": "agent", "n": n}),
        units_total: 4,
    };
    store.create(&new("a"), "h1", soon).await.expect("create a");
    store.create(&new("b"), "h1", soon).await.expect("create b");
    match store.create(&new("a"), "h2", soon).await {
        Err(RunStoreError::Exists(run)) => assert_eq!(run, id("a")),
        other => panic!("a second run with one id must be refused, got {other:?}"),
    }
    let a = store.get(&id("a")).await.unwrap().expect("run a is kept");
    assert_eq!(
        (a.status, a.kind.as_str(), a.fingerprint.as_str()),
        (RunStatus::Running, "review", "fp-a")
    );
    assert_eq!(a.spec, json!({"mode": "agent", "n": "a"}));
    assert_eq!((a.units_total, a.units_done, a.model_requests), (4, 0, 0));
    assert_eq!(a.lease_holder.as_deref(), Some("h1"));
    assert!(store.get(&id("none")).await.unwrap().is_none());
    let listed: Vec<String> = store
        .list(1000)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .filter(|r| r.starts_with(prefix))
        .collect();
    assert_eq!(listed, [id("b"), id("a")], "newest first");
}

/// A live holder keeps the run; a lapsed or dead one loses it, and its writes are refused.
async fn leases(store: &dyn RunStore, prefix: &str) {
    let id = |n: &str| format!("{prefix}-{n}");
    let now = Utc::now();
    let soon = now + Duration::seconds(30);
    let later = now + Duration::seconds(3600);
    // Leases: a live holder keeps the run; a lapsed or dead one loses it.
    let held = store
        .acquire(&id("a"), "h2", soon, now, None)
        .await
        .unwrap();
    assert!(
        matches!(held, Lease::Held { ref holder, .. } if holder == "h1"),
        "{held:?}"
    );
    assert_eq!(
        store
            .acquire(&id("a"), "h2", soon, now, Some("h1"))
            .await
            .unwrap(),
        Lease::Acquired
    );
    match store.renew(&id("a"), "h1", soon).await {
        Err(RunStoreError::LeaseLost { run }) => assert_eq!(run, id("a")),
        other => panic!("the old holder's renewal must be refused, got {other:?}"),
    }
    assert!(matches!(
        store.record_units(&id("a"), "h1", &[unit("1", true)]).await,
        Err(RunStoreError::LeaseLost { .. })
    ));
    let lapsed = store
        .acquire(&id("a"), "h3", later + Duration::seconds(30), later, None)
        .await
        .unwrap();
    assert_eq!(lapsed, Lease::Acquired, "a lapsed lease is free");
    assert!(matches!(
        store.acquire(&id("missing"), "h3", soon, now, None).await,
        Err(RunStoreError::NotFound(_))
    ));
}

/// The total, units and requests: each written once and counted.
async fn units_and_requests(store: &dyn RunStore, prefix: &str) {
    let id = |n: &str| format!("{prefix}-{n}");
    // The total is set once the work knows it.
    store.set_units_total(&id("a"), "h3", 3).await.unwrap();
    assert_eq!(store.get(&id("a")).await.unwrap().unwrap().units_total, 3);
    assert!(matches!(
        store.set_units_total(&id("a"), "h1", 9).await,
        Err(RunStoreError::LeaseLost { .. })
    ));

    // Units: written once, counted when they count, read back in order.
    store
        .record_units(
            &id("a"),
            "h3",
            &[unit("2", true), unit("1", true), unit("note", false)],
        )
        .await
        .unwrap();
    store
        .record_units(&id("a"), "h3", &[unit("1", true)])
        .await
        .unwrap();
    let keys: Vec<String> = store
        .units(&id("a"))
        .await
        .unwrap()
        .into_iter()
        .map(|u| u.key)
        .collect();
    assert_eq!(keys, ["2", "1", "note"]);
    assert_eq!(store.get(&id("a")).await.unwrap().unwrap().units_done, 2);

    // Requests: written once, their usage added to the run's spending.
    let request = |occurrence: u32| RunRequest {
        key: "k".into(),
        occurrence,
        label: "clause".into(),
        response: json!({"text": format!("answer {occurrence}")}),
        usage: TokenUsage {
            prompt_tokens: 100,
            completion_tokens: 7,
            cached_tokens: 3,
        },
    };
    for occurrence in [0, 1, 0] {
        store
            .record_request(&id("a"), "h3", &request(occurrence))
            .await
            .unwrap();
    }
    let requests = store.requests(&id("a")).await.unwrap();
    assert_eq!(requests, [request(0), request(1)]);
    let a = store.get(&id("a")).await.unwrap().unwrap();
    assert_eq!(
        (a.model_requests, a.input_tokens, a.output_tokens),
        (2, 200, 14)
    );
}

/// Stop requests, ending, resuming an ended run and pruning.
async fn ending_and_pruning(store: &dyn RunStore, prefix: &str) {
    let id = |n: &str| format!("{prefix}-{n}");
    let now = Utc::now();
    let soon = now + Duration::seconds(30);
    let later = now + Duration::seconds(3600);
    // Stop requests reach the holder; an ended run keeps its result and cannot be stopped.
    assert!(!store
        .renew(&id("a"), "h3", later + Duration::seconds(60))
        .await
        .unwrap());
    assert!(store.request_cancel(&id("a")).await.unwrap());
    assert!(store
        .renew(&id("a"), "h3", later + Duration::seconds(60))
        .await
        .unwrap());
    let end = RunEnd {
        status: RunStatus::Succeeded,
        result: Some("{\"report\":true}".into()),
        error: None,
    };
    assert!(matches!(
        store.finish(&id("a"), "h1", &end).await,
        Err(RunStoreError::LeaseLost { .. })
    ));
    store.finish(&id("a"), "h3", &end).await.unwrap();
    let a = store.get(&id("a")).await.unwrap().unwrap();
    assert_eq!(
        (a.status, a.lease_holder.as_deref()),
        (RunStatus::Succeeded, None)
    );
    assert!(a.finished_at.is_some());
    assert_eq!(
        store.result(&id("a")).await.unwrap().as_deref(),
        Some("{\"report\":true}")
    );
    assert!(!store.request_cancel(&id("a")).await.unwrap());
    assert!(matches!(
        store.request_cancel(&id("none")).await,
        Err(RunStoreError::NotFound(_))
    ));

    // Resuming an ended run makes it running again, its stop request cleared.
    assert_eq!(
        store
            .acquire(&id("a"), "h4", soon, now, None)
            .await
            .unwrap(),
        Lease::Acquired
    );
    let a = store.get(&id("a")).await.unwrap().unwrap();
    assert_eq!(
        (a.status, a.cancel_requested, a.finished_at),
        (RunStatus::Running, false, None)
    );
    let end = RunEnd {
        status: RunStatus::Failed,
        result: None,
        error: Some("model down".into()),
    };
    store.finish(&id("a"), "h4", &end).await.unwrap();
    assert_eq!(
        store.get(&id("a")).await.unwrap().unwrap().error.as_deref(),
        Some("model down")
    );

    // Pruning: ended runs beyond the age go; a running one never does.
    let pruned = store
        .prune(usize::MAX, Utc::now() + Duration::seconds(1))
        .await
        .unwrap();
    assert!(pruned >= 1, "the ended run is older than the cut-off");
    assert!(store.get(&id("a")).await.unwrap().is_none());
    assert!(store.units(&id("a")).await.map_or(true, |u| u.is_empty()));
    assert!(
        store.get(&id("b")).await.unwrap().is_some(),
        "a running run is kept"
    );
}
