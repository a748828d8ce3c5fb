//! Every cross-pack call leaves an audit record, whatever its outcome.

use std::time::Duration;

use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, AuditQuery, Caller, SqliteStore};

use crate::support::*;

/// Every cross-pack call is audited: successes, refusals, failures, panics, drops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cross_pack_call_is_audited_whatever_the_outcome() {
    let (gateway, _) = setup("audit");
    let ctx = SkillContext::new();
    let user = "frank";
    let horoscope = Caller::new("horoscope", user);
    let explode = gateway
        .call_tool(&horoscope, "flaky_explode", None, &ctx)
        .await;
    assert_eq!(explode.error_code(), Some(toolwright::codes::PANIC));
    let fail = gateway
        .call_tool(&horoscope, "flaky.fail", None, &ctx)
        .await;
    assert_eq!(fail.error_code(), Some("backend_down"));
    let not_imported = gateway
        .call_tool(
            &horoscope,
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            &ctx,
        )
        .await;
    assert_eq!(not_imported.error_code(), Some(codes::TOOL_NOT_IMPORTED));
    assert!(not_imported
        .error
        .unwrap()
        .message
        .contains("not in the imports of pack `horoscope`"));
    let refused = gateway
        .call_tool(
            &Caller::new("jungastro", user),
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            &ctx,
        )
        .await;
    assert_eq!(refused.error_code(), Some(codes::SUBSCRIPTION_REQUIRED));
    let outside = gateway
        .call_tool(&horoscope, "lonely_tool", None, &ctx)
        .await;
    assert_eq!(outside.error_code(), Some(codes::TOOL_NOT_IMPORTED));
    let unknown = gateway
        .call_tool(&horoscope, "no_such_tool", None, &ctx)
        .await;
    assert_eq!(unknown.error_code(), Some(toolwright::codes::UNKNOWN_SKILL));
    let message = &unknown.error.as_ref().unwrap().message;
    assert!(
        message.contains("tools of pack `horoscope`: flaky_explode, flaky_fail"),
        "{message}"
    );
    assert!(
        !message.contains("zodiac_calculate_zodiac") && !message.contains("lonely_tool"),
        "{message}"
    );
    let stranger = gateway
        .call_tool(
            &Caller::new("nobody", user),
            "zodiac_get_chart_snapshot",
            None,
            &ctx,
        )
        .await;
    assert_eq!(stranger.error_code(), Some(codes::UNKNOWN_PACK));
    // A call dropped half-way (here by a timeout) is recorded as cancelled.
    let dropped = tokio::time::timeout(
        Duration::from_millis(50),
        gateway.call_tool(&horoscope, "flaky_slow", None, &ctx),
    )
    .await;
    assert!(dropped.is_err());
    // Own and core tools are not cross-pack calls.
    let own = gateway
        .call_tool(
            &horoscope,
            "show_card",
            Some(&json!({"card_type": "x"})),
            &ctx,
        )
        .await;
    assert!(own.success);

    let mut records = audit_of(&gateway, user).await;
    for _ in 0..100 {
        if records.len() >= 8 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        records = audit_of(&gateway, user).await;
    }
    let seen: Vec<(&str, &str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r.consumer.as_str(),
                r.provider.as_str(),
                r.tool.as_str(),
                r.outcome.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("horoscope", "flaky", "flaky.explode", "panic"),
            ("horoscope", "flaky", "flaky.fail", "backend_down"),
            (
                "horoscope",
                "zodiac",
                "zodiac.calculate_zodiac",
                "tool_not_imported"
            ),
            (
                "jungastro",
                "zodiac",
                "zodiac.calculate_zodiac",
                "subscription_required"
            ),
            ("horoscope", "", "lonely_tool", "tool_not_imported"),
            ("horoscope", "", "no_such_tool", "unknown_skill"),
            ("nobody", "", "zodiac_get_chart_snapshot", "unknown_pack"),
            ("horoscope", "flaky", "flaky.slow", "cancelled"),
        ]
    );
    for r in &records {
        assert_eq!(r.user, user);
        assert!(r.duration_ms >= 0.0);
        assert_eq!(r.at, start());
        assert!(r.message.is_some(), "{r:?}");
    }
    assert!(records[7].duration_ms >= 40.0, "{:?}", records[7]);
}

/// An audit record survives the process: it is in the database file, read by a new store.
#[tokio::test]
async fn audit_records_of_failed_calls_are_persisted() {
    let path = temp_db("audit-persist");
    let clock = TestClock::at(start());
    {
        let gateway = gateway_on(SqliteStore::open(&path).unwrap(), &clock);
        let r = gateway
            .call_tool(
                &Caller::new("horoscope", "gina"),
                "flaky_explode",
                None,
                &SkillContext::new(),
            )
            .await;
        assert!(!r.success);
    }
    let reopened = SqliteStore::open(&path).unwrap();
    use toolwright_packs::AuditLog;
    let records = reopened
        .query(&AuditQuery {
            user: Some("gina".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].outcome, "panic");
    assert_eq!(
        records[0].message.as_deref(),
        Some("tool `flaky_explode` failed with an internal error")
    );
}

/// A row the gateway did not write (a time that is not RFC 3339, text where a number
/// belongs, bytes where text belongs) is read back as an unreadable record naming each
/// bad column; the rows around it are read as usual.
#[tokio::test]
async fn an_unreadable_audit_row_is_returned_marked_and_hides_no_other() {
    use toolwright_packs::{AuditLog, AuditRecord};
    let path = temp_db("audit-unreadable");
    let store = SqliteStore::open(&path).unwrap();
    let record = |tool: &str| AuditRecord {
        consumer: "crm".into(),
        provider: "oracle".into(),
        tool: tool.into(),
        user: "alice".into(),
        at: start(),
        outcome: "ok".into(),
        message: None,
        duration_ms: 2.5,
        unreadable: None,
    };
    store.record(&record("oracle.before")).await.unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO pack_audit (consumer, provider, tool, user_id, at, outcome, message, duration_ms)
             VALUES ('crm', X'00FF', 'oracle.bad', 'alice', 'yesterday at noon', 'ok', NULL, 'slow')",
            [],
        )
        .unwrap();
    store.record(&record("oracle.after")).await.unwrap();

    let records = store.query(&AuditQuery::default()).await.unwrap();
    let tools: Vec<&str> = records.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(tools, ["oracle.after", "oracle.bad", "oracle.before"]);
    assert_eq!(records[0], record("oracle.after"));
    assert_eq!(records[2], record("oracle.before"));
    let bad = &records[1];
    let why = bad.unreadable.as_deref().expect("the bad row is marked");
    assert!(
        why.contains("provider is a blob of 2 bytes, not text")
            && why.contains("at `yesterday at noon` is not an RFC 3339 time")
            && why.contains("duration_ms is `slow`, not a number"),
        "{why}"
    );
    assert_eq!(
        (
            bad.consumer.as_str(),
            bad.user.as_str(),
            bad.provider.as_str()
        ),
        ("crm", "alice", "")
    );
}
