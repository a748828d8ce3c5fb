//! The audit page reads the store the gateway writes.

use std::sync::Arc;

use crate::support::*;
use axum::http::StatusCode;
use chrono::{TimeZone, Utc};
use toolwright_console::{router, ConsoleOptions, ConsoleState};
use toolwright_packs::{AuditLog, AuditRecord, SqliteStore};

async fn store_with(n: usize) -> Arc<SqliteStore> {
    let store = Arc::new(SqliteStore::open_in_memory().unwrap());
    for i in 0..n {
        let ok = i % 3 != 0;
        store
            .record(&AuditRecord {
                consumer: if i % 2 == 0 { "crm" } else { "billing" }.into(),
                provider: "oracle".into(),
                tool: format!("oracle.tool_{i:03}"),
                user: "alice".into(),
                at: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
                    + chrono::Duration::seconds(i as i64),
                outcome: if ok {
                    "ok".into()
                } else {
                    "rate_limited".into()
                },
                message: (!ok).then(|| "<i>too many</i> calls".to_string()),
                duration_ms: 1.5,
                unreadable: None,
            })
            .await
            .unwrap();
    }
    store
}

fn console(store: Arc<SqliteStore>) -> (ConsoleState, axum::Router) {
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN))
        .audit(store)
        .build();
    let app = router(state.clone());
    (state, app)
}

#[tokio::test]
async fn without_a_log_the_page_says_so() {
    let app = app(&state());
    let page = get(&app, "/audit").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("id=\"no-audit\""));
}

#[tokio::test]
async fn records_are_listed_newest_first_and_paginated() {
    let (_, app) = console(store_with(120).await);
    let first = get(&app, "/audit").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(
        first.body.matches("<tr>").count(),
        1 + 50,
        "header + a page"
    );
    assert!(first.body.contains("oracle.tool_119"));
    assert!(!first.body.contains("oracle.tool_069"));
    assert!(
        first.body.contains(r#"id="next" href="/audit?page=2""#),
        "{}",
        first.body
    );
    assert!(!first.body.contains("id=\"previous\""));
    assert!(
        first.body.contains("&lt;i&gt;too many&lt;/i&gt; calls"),
        "messages escaped"
    );

    let third = get(&app, "/audit?page=3").await;
    assert_eq!(third.body.matches("<tr>").count(), 1 + 20);
    assert!(third.body.contains("oracle.tool_000"));
    assert!(!third.body.contains("id=\"next\""));
    assert!(third.body.contains(r#"id="previous" href="/audit?page=2""#));
}

#[tokio::test]
async fn filters_apply_to_the_store_and_the_outcome() {
    let (_, app) = console(store_with(30).await);
    let crm = get(&app, "/audit?consumer=crm").await;
    assert_eq!(crm.body.matches("<tr>").count(), 1 + 15);
    assert!(!crm.body.contains(">billing<"));

    let failed = get(&app, "/audit?consumer=crm&outcome=failed").await;
    // Failed: i % 3 == 0; crm: i even → i % 6 == 0 → 0, 6, 12, 18, 24.
    assert_eq!(
        failed.body.matches("<tr>").count(),
        1 + 5,
        "{}",
        failed.body
    );
    assert!(!failed.body.contains("<code>ok</code>"));

    let nobody = get(&app, "/audit?user=bob").await;
    assert!(nobody.body.contains("id=\"no-records\""));
}

/// A row of the audit database with a time that is not a time (written by hand or another
/// tool) is listed as unreadable, with the reason; the page and every other row still show.
#[tokio::test]
async fn a_row_with_a_bad_time_is_shown_unreadable_and_the_page_renders() {
    let path = std::env::temp_dir().join(format!(
        "toolwright-console-audit-{}-{}.db",
        std::process::id(),
        uuid_like()
    ));
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let good = |tool: &str| AuditRecord {
        consumer: "crm".into(),
        provider: "oracle".into(),
        tool: tool.into(),
        user: "alice".into(),
        at: Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap(),
        outcome: "ok".into(),
        message: None,
        duration_ms: 1.5,
        unreadable: None,
    };
    store.record(&good("oracle.first")).await.unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO pack_audit (consumer, provider, tool, user_id, at, outcome, message, duration_ms)
             VALUES ('crm', 'oracle', 'oracle.broken', 'alice', '<b>not a time</b>', 'ok', NULL, 1.0)",
            [],
        )
        .unwrap();
    store.record(&good("oracle.last")).await.unwrap();

    let (_, app) = console(store);
    for url in ["/audit", "/audit?outcome=ok", "/audit?user=alice"] {
        let page = get(&app, url).await;
        assert_eq!(page.status, StatusCode::OK, "{url}: {}", page.body);
        assert!(
            page.body.contains("<tr class=\"unreadable\">"),
            "{url}: {}",
            page.body
        );
        assert!(
            page.body.contains(
                "This record could not be read: at `&lt;b&gt;not a time&lt;/b&gt;` is not an RFC 3339 time"
            ),
            "{url}: {}",
            page.body
        );
        assert!(page.body.contains("oracle.broken"), "{url}");
    }
    let all = get(&app, "/audit").await;
    assert!(all.body.contains("oracle.first") && all.body.contains("oracle.last"));
    assert!(all.body.contains("2026-01-01 12:00:00"));
    let _ = std::fs::remove_file(&path);
}

/// A short random suffix for a file name, from the clock.
fn uuid_like() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}
