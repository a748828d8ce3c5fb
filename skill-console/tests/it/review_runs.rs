//! The reviews page over a run store: the store pruned at each start, a review stopped and
//! resumed from its recorded spec, runs another process recorded listed and stopped.

use std::sync::Arc;

use crate::reviews::{clause, console_on, location, page_once, start, LineRunner};
use crate::support::*;
use axum::http::StatusCode;
use toolwright::runs::{MemoryRunStore, NewRun, RunEnd, RunStatus, RunStore};
use toolwright_console::{router, ConsoleOptions, ConsoleState, ReviewMode, ReviewSource};

/// Starts `fields` until it is not refused for want of a place (the review before gives its
/// place back just after its run is recorded as ended).
async fn start_when_free(app: &axum::Router, fields: &[(&str, Option<&str>, &str)]) -> Answer {
    for _ in 0..200 {
        let answer = start(app, fields).await;
        if answer.status != StatusCode::TOO_MANY_REQUESTS {
            return answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("no place to start a review")
}

/// Reviews at once are capped (another start gets 429 until one ends); at each start the
/// finished runs beyond the number kept are deleted from the store, oldest first (their
/// pages answer 404), and those older than kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_at_once_are_capped_and_the_store_is_pruned_at_each_start() {
    let runner = Arc::new(LineRunner::default());
    let store = Arc::new(MemoryRunStore::new());
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN).review_limits(
            1,
            1,
            std::time::Duration::from_secs(3600),
        ))
        .reviews(runner.clone())
        .runs(store.clone())
        .build();
    let app = router(state.clone());
    let fields = [
        ("csrf", None, state.csrf_token()),
        ("sample", None, "demo"),
        ("domain", None, "fidic"),
    ];
    let first = start(&app, &fields).await;
    assert_eq!(first.status, StatusCode::SEE_OTHER, "{}", first.body);
    let first = location(&first);
    page_once(&app, &first, "1 of 3 clauses").await;
    let refused = start(&app, &fields).await;
    assert_eq!(
        refused.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        refused.body
    );
    assert!(refused.body.contains("at once (1)"), "{}", refused.body);

    runner.open();
    page_once(&app, &first, "id=\"risks\"").await;
    let second = location(&start_when_free(&app, &fields).await);
    page_once(&app, &second, "id=\"risks\"").await;
    // The first stays until a new start needs the room.
    assert_eq!(get(&app, &first).await.status, StatusCode::OK);
    let third = location(&start_when_free(&app, &fields).await);
    assert_eq!(get(&app, &first).await.status, StatusCode::NOT_FOUND);
    assert_eq!(get(&app, &second).await.status, StatusCode::OK);
    page_once(&app, &third, "id=\"risks\"").await;
    assert_eq!(
        store.list(10).await.unwrap().len(),
        2,
        "deleted from the store"
    );

    // Kept for 50 ms: a run finished longer ago goes at the next start.
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN).review_limits(
            1,
            100,
            std::time::Duration::from_millis(50),
        ))
        .reviews(runner.clone())
        .runs(store.clone())
        .build();
    let app = router(state.clone());
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let fields = [("csrf", None, state.csrf_token()), ("sample", None, "demo")];
    let fourth = location(&start_when_free(&app, &fields).await);
    assert_eq!(get(&app, &second).await.status, StatusCode::NOT_FOUND);
    assert_eq!(get(&app, &third).await.status, StatusCode::NOT_FOUND);
    page_once(&app, &fourth, "id=\"risks\"").await;
}

async fn post_to(app: &axum::Router, path: &str, csrf: Option<&str>) -> Answer {
    let fields: Vec<(&str, &str)> = csrf.map(|c| ("csrf", c)).into_iter().collect();
    post(app, path, &fields).await
}

/// A running review stops when asked (the cancel button, CSRF-checked); the console
/// resumes it from its recorded spec (an upload saved anew from the bytes it recorded),
/// without doing again the clauses it recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_cancelled_and_resumed_from_its_recorded_spec() {
    let runner = Arc::new(LineRunner {
        model: Some("mock-model".into()),
        ..LineRunner::default()
    });
    let store = Arc::new(MemoryRunStore::new());
    let (state, app) = console_on(runner.clone(), store.clone());
    let started = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("c.md"), "risk one\nfine\nrisk two"),
            ("mode", None, "agent"),
            ("our_party", None, "Buyer"),
            ("budget_requests", None, "9"),
        ],
    )
    .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.body);
    let path = location(&started);
    let id = path.strip_prefix("/reviews/").unwrap().to_string();
    let running = page_once(&app, &path, "1 of 3 clauses").await;
    assert!(running.contains("0 of 9"), "the budget is shown: {running}");

    let forged = post_to(&app, &format!("{path}/cancel"), Some("forged")).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let early = post_to(&app, &format!("{path}/resume"), Some(state.csrf_token())).await;
    assert_eq!(early.status, StatusCode::CONFLICT, "{}", early.body);
    let asked = post_to(&app, &format!("{path}/cancel"), Some(state.csrf_token())).await;
    assert_eq!(asked.status, StatusCode::SEE_OTHER, "{}", asked.body);
    let stopped = page_once(&app, &path, "id=\"review-resume\"").await;
    assert!(
        stopped.contains("The review cancelled: stopped on request"),
        "{stopped}"
    );
    let record = store.get(&id).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.units_done),
        (RunStatus::Cancelled, 1)
    );
    assert_eq!(record.spec["files"][0]["name"], "c.md");
    assert_eq!(record.spec["mode"], "agent");

    runner.open();
    let resumed = post_to(&app, &format!("{path}/resume"), Some(state.csrf_token())).await;
    assert_eq!(resumed.status, StatusCode::SEE_OTHER, "{}", resumed.body);
    assert_eq!(location(&resumed), path, "the same run goes on");
    let done = page_once(&app, &path, "id=\"risks\"").await;
    assert!(done.contains("clause says: risk two"), "{done}");
    let record = store.get(&id).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.units_done),
        (RunStatus::Succeeded, 3)
    );
    let seen = runner.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        (
            seen[1].mode,
            seen[1].our_party.as_str(),
            seen[1].budget_requests
        ),
        (ReviewMode::Agent, "Buyer", Some(9))
    );
    let ReviewSource::Upload(upload) = &seen[1].source else {
        panic!("an upload")
    };
    assert_eq!(upload.files()[0].name, "c.md");
    let again = post_to(&app, &format!("{path}/resume"), Some(state.csrf_token())).await;
    assert_eq!(
        again.status,
        StatusCode::CONFLICT,
        "a finished run does not go on"
    );
    assert!(again.body.contains("is succeeded"), "{}", again.body);
}

/// Review runs another process recorded in the store are listed and shown; one started
/// elsewhere is stopped from here, and not resumed here (its spec is not the console's).
#[tokio::test]
async fn runs_another_process_recorded_are_listed_and_stopped_not_resumed() {
    let store = Arc::new(MemoryRunStore::new());
    let spec = serde_json::json!({"path": "/contracts/lease.md", "mode": "orchestrate",
        "budget_requests": 40, "budget_tokens": 90000});
    let until = chrono::Utc::now() + chrono::Duration::hours(1);
    for (id, kind) in [("r-cli", "review"), ("r-other", "train")] {
        let run = NewRun {
            id: id.into(),
            kind: kind.into(),
            fingerprint: "f".into(),
            spec: spec.clone(),
            units_total: 12,
        };
        store.create(&run, "elsewhere:1", until).await.unwrap();
    }
    store
        .record_units("r-cli", "elsewhere:1", &[clause(0), clause(1)])
        .await
        .unwrap();
    let (state, app) = console_on(Arc::new(LineRunner::default()), store.clone());
    let list = get(&app, "/reviews").await.body;
    assert!(
        list.contains("/reviews/r-cli") && list.contains("lease.md"),
        "{list}"
    );
    assert!(
        list.contains("2 of 12") && list.contains("0 of 40"),
        "{list}"
    );
    assert!(!list.contains("r-other"), "only reviews: {list}");
    assert_eq!(
        get(&app, "/reviews/r-other").await.status,
        StatusCode::NOT_FOUND
    );
    let page = get(&app, "/reviews/r-cli").await.body;
    assert!(page.contains("Reviewing: 2 of 12 clauses."), "{page}");

    let asked = post_to(&app, "/reviews/r-cli/cancel", Some(state.csrf_token())).await;
    assert_eq!(asked.status, StatusCode::SEE_OTHER, "{}", asked.body);
    assert!(store.get("r-cli").await.unwrap().unwrap().cancel_requested);
    assert!(get(&app, "/reviews/r-cli")
        .await
        .body
        .contains("id=\"cancel-requested\""));
    let end = RunEnd {
        status: RunStatus::Cancelled,
        result: None,
        error: Some("stopped on request".into()),
    };
    store.finish("r-cli", "elsewhere:1", &end).await.unwrap();
    let page = get(&app, "/reviews/r-cli").await.body;
    assert!(page.contains("id=\"not-resumable\""), "{page}");
    assert!(page.contains("clausewright review --resume"), "{page}");
    let refused = post_to(&app, "/reviews/r-cli/resume", Some(state.csrf_token())).await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert!(
        refused.body.contains("not started from the console"),
        "{}",
        refused.body
    );
}
