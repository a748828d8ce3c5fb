//! The stores on real engines (PostgreSQL, Redis), chosen by URL, and what the gateway does
//! when one fails: at start, mid-run, and when an audit write fails.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{
    codes, AuditLog, AuditQuery, AuditRecord, Caller, Gateway, SqliteStore, StoreError, Stores,
};

use crate::support::*;

fn gateway_with(stores: Stores, clock: &TestClock) -> toolwright_packs::GatewayBuilder {
    let clock = clock.clone();
    Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .stores(stores)
        .clock(move || clock.now())
        .audit_retry_delays(vec![std::time::Duration::from_millis(1); 2])
}

/// Exercises one set of stores through the gateway: subscriptions, the per-tool limit, the
/// pack-wide limit (a refused call counts nowhere), retry_after and the audit.
async fn gateway_contract(stores: Stores, user: &str) {
    let clock = TestClock::at(start()); // 23:00 UTC: an hour to the next day window
    let gateway = gateway_with(stores, &clock).build().unwrap();
    let ctx = SkillContext::new();
    let caller = Caller::new("horoscope", user);
    let refused = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
    assert_eq!(refused.error_code(), Some(codes::SUBSCRIPTION_REQUIRED));
    gateway
        .subscriptions()
        .subscribe(user, "oracle", None)
        .await
        .unwrap();
    for _ in 0..3 {
        let ok = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
        assert!(ok.success, "{ok:?}");
    }
    let tool_limited = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
    assert_eq!(tool_limited.error_code(), Some(codes::RATE_LIMITED));
    let details = tool_limited.error.unwrap().details.unwrap();
    assert_eq!(details["scope"], "tool");
    assert_eq!(details["limit"], "3/day");
    assert_eq!(details["retry_after"], 3600);
    // The pack allows 5 a day in all: 3 asks and 2 glances, then the pack is full.
    for _ in 0..2 {
        let ok = gateway
            .call_tool(&caller, "oracle_glance", None, &ctx)
            .await;
        assert!(ok.success, "{ok:?}");
    }
    let pack_limited = gateway
        .call_tool(&caller, "oracle_glance", None, &ctx)
        .await;
    assert_eq!(pack_limited.error_code(), Some(codes::RATE_LIMITED));
    let details = pack_limited.error.unwrap().details.unwrap();
    assert_eq!(details["scope"], "pack");
    assert_eq!(details["limit"], "5/day");
    let now = clock.now();
    let quotas = gateway.quotas();
    let day = toolwright_packs::Window::Day;
    assert_eq!(quotas.used(user, "oracle.ask", day, now).await.unwrap(), 3);
    assert_eq!(quotas.used(user, "oracle.*", day, now).await.unwrap(), 5);
    // The next day both windows are new.
    clock.set(now + chrono::Duration::hours(2));
    let ok = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
    assert!(ok.success, "{ok:?}");
    let records = gateway
        .audit_log()
        .query(&AuditQuery {
            user: Some(user.into()),
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    let outcomes: Vec<&str> = records.iter().rev().map(|r| r.outcome.as_str()).collect();
    assert_eq!(
        outcomes,
        [
            "subscription_required",
            "ok",
            "ok",
            "ok",
            "rate_limited",
            "ok",
            "ok",
            "rate_limited",
            "ok"
        ]
    );
    assert!(records
        .iter()
        .all(|r| r.consumer == "horoscope" && r.provider == "oracle"));
    // Pack state goes to the main store.
    gateway
        .state_store()
        .save(user, "skills.oracle.x", &json!({"k": [1, 2]}))
        .await
        .unwrap();
    assert_eq!(
        gateway
            .state_store()
            .read(user, "skills.oracle.x")
            .await
            .unwrap(),
        Some(json!({"k": [1, 2]}))
    );
}

#[tokio::test]
async fn sqlite_by_url_keeps_the_gateway_contract() {
    let path = temp_db("engines");
    let stores = Stores::connect(&format!("sqlite://{}", path.display()), None)
        .await
        .unwrap();
    gateway_contract(stores, "sqlite-user").await;
}

#[tokio::test]
async fn sqlite_counts_a_call_refused_by_one_limit_in_none() {
    let path = temp_db("sqlite-all-limits");
    let store = toolwright_packs::SqliteStore::open(&path).unwrap();
    assert_nothing_counted_when_one_limit_is_full(&store).await;
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_is_named_in_the_error() {
    let err = Stores::connect("sqlite:///no/such/dir/x.db", None)
        .await
        .unwrap_err();
    assert!(
        err.message.contains("sqlite:///no/such/dir/x.db"),
        "{}",
        err.message
    );
    let err = Stores::connect("mongodb://u:hunter2@h/db", None)
        .await
        .unwrap_err();
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(err
        .to_string()
        .contains("expected sqlite://, postgres:// or redis://"));
}

/// An audit log that fails a given number of times, then writes to SQLite.
struct FailingAudit {
    failures_left: AtomicU32,
    inner: SqliteStore,
}

#[async_trait]
impl AuditLog for FailingAudit {
    async fn record(&self, record: &AuditRecord) -> Result<(), StoreError> {
        if self
            .failures_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(StoreError::new("disk full"));
        }
        self.inner.record(record).await
    }
    async fn query(&self, query: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        self.inner.query(query).await
    }
}

#[tokio::test]
async fn a_failed_audit_write_is_retried_and_never_dropped_silently() {
    let clock = TestClock::at(start());
    let store = SqliteStore::open(temp_db("audit-retry")).unwrap();
    let audit = Arc::new(FailingAudit {
        failures_left: AtomicU32::new(2),
        inner: store.clone(),
    });
    let gateway = gateway_with(Stores::sqlite(store.clone()), &clock)
        .audit(audit.clone())
        .build()
        .unwrap();
    let ctx = SkillContext::new();
    let caller = Caller::new("horoscope", "ana");
    gateway
        .subscriptions()
        .subscribe("ana", "oracle", None)
        .await
        .unwrap();
    // Two failures, three attempts allowed: the record is written on the third.
    let ok = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
    assert!(ok.success, "{ok:?}");
    let written = store.query(&AuditQuery::default()).await.unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].outcome, "ok");
    // Every attempt fails: the call ran, and says its audit failed, with its result.
    audit.failures_left.store(10, Ordering::SeqCst);
    let failed = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
    assert_eq!(failed.error_code(), Some(codes::AUDIT_FAILED));
    let error = failed.error.unwrap();
    assert!(error.message.contains("disk full"), "{}", error.message);
    assert_eq!(error.details.unwrap()["result"]["data"], 42);
    assert_eq!(store.query(&AuditQuery::default()).await.unwrap().len(), 1);
}

/// A call refused by one of its limits is counted in none (stores that check atomically).
async fn assert_nothing_counted_when_one_limit_is_full(store: &dyn toolwright_packs::QuotaStore) {
    use toolwright_packs::{QuotaRequest, Window};
    let now = start();
    let limits = [
        QuotaRequest {
            key: "p.tool",
            max: 10,
            window: Window::Hour,
        },
        QuotaRequest {
            key: "p.*",
            max: 1,
            window: Window::Day,
        },
    ];
    assert_eq!(
        store.try_acquire_all("atom", &limits, now).await.unwrap(),
        None
    );
    assert_eq!(
        store.try_acquire_all("atom", &limits, now).await.unwrap(),
        Some(1)
    );
    assert_eq!(
        store
            .used("atom", "p.tool", Window::Hour, now)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        store.used("atom", "p.*", Window::Day, now).await.unwrap(),
        1
    );
}

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;
    use crate::servers::*;
    use chrono::{DateTime, Utc};
    use toolwright_packs::{PgStore, QuotaDecision, QuotaStore, Window};

    #[tokio::test]
    async fn postgres_by_url_keeps_the_gateway_contract() {
        let Some(url) = postgres() else { return };
        let schema = TestSchema::new(&url, "contract");
        let stores = Stores::connect(&schema.store_url(), None).await.unwrap();
        gateway_contract(stores, "pg-user").await;
    }

    #[tokio::test]
    async fn postgres_keeps_the_run_store_contract() {
        let Some(url) = postgres() else { return };
        let schema = TestSchema::new(&url, "runs");
        let store = PgStore::connect_in_schema(&url, &schema.name)
            .await
            .unwrap();
        toolwright::testing::check_run_store(Arc::new(store), "pg").await;
    }

    #[tokio::test]
    async fn migrations_are_applied_once_and_the_audit_is_append_only() {
        let Some(url) = postgres() else { return };
        let schema = TestSchema::new(&url, "migrate");
        let store = PgStore::connect_in_schema(&url, &schema.name)
            .await
            .unwrap();
        // Opening again (another process starting) applies nothing twice.
        let again = PgStore::connect_in_schema(&url, &schema.name)
            .await
            .unwrap();
        let client = again.client().await.unwrap();
        let versions: Vec<i32> = client
            .query(
                &format!(
                    "SELECT version FROM {}.toolwright_migrations ORDER BY 1",
                    schema.name
                ),
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(versions, [1, 2, 3, 4]);
        let record = AuditRecord {
            consumer: "c".into(),
            provider: "p".into(),
            tool: "p.t".into(),
            user: "u".into(),
            at: Utc::now(),
            outcome: "ok".into(),
            message: None,
            duration_ms: 1.5,
            unreadable: None,
        };
        store.record(&record).await.unwrap();
        // A record appended as its call started, and its outcome appended when it ended.
        let started = store.start(&record).await.unwrap();
        assert!(started.is_some());
        store.finish(started, &record).await.unwrap();
        for statement in [
            "UPDATE {s}.pack_audit SET outcome = 'x'",
            "DELETE FROM {s}.pack_audit",
            "TRUNCATE {s}.pack_audit",
            "UPDATE {s}.pack_audit_outcome SET outcome = 'x'",
            "DELETE FROM {s}.pack_audit_outcome",
            "TRUNCATE {s}.pack_audit_outcome",
        ] {
            let err = client
                .batch_execute(&statement.replace("{s}", &schema.name))
                .await
                .unwrap_err();
            assert!(
                format!("{err:?}").contains("append-only"),
                "{statement}: {err:?}"
            );
        }
        let indexes: Vec<String> = client
            .query(
                "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'pack_audit' ORDER BY 1",
                &[&schema.name],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        for wanted in [
            "pack_audit_at",
            "pack_audit_consumer",
            "pack_audit_provider",
        ] {
            assert!(indexes.iter().any(|i| i == wanted), "{indexes:?}");
        }
    }

    #[tokio::test]
    async fn concurrent_checks_admit_exactly_the_limit_and_old_windows_are_purged() {
        let Some(url) = postgres() else { return };
        let schema = TestSchema::new(&url, "quota");
        let store = Arc::new(
            PgStore::connect_in_schema(&url, &schema.name)
                .await
                .unwrap(),
        );
        let yesterday: DateTime<Utc> = start() - chrono::Duration::days(1);
        store
            .try_acquire("u", "t", 5, Window::Day, yesterday)
            .await
            .unwrap();
        let now = start();
        let tasks: Vec<_> = (0..200)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move { store.try_acquire("u", "t", 50, Window::Day, now).await })
            })
            .collect();
        let mut admitted = 0;
        for task in tasks {
            if let QuotaDecision::Admitted { .. } = task.await.unwrap().unwrap() {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 50);
        assert_eq!(store.used("u", "t", Window::Day, now).await.unwrap(), 50);
        // Opening today's window purged yesterday's.
        assert_eq!(
            store.used("u", "t", Window::Day, yesterday).await.unwrap(),
            0
        );
    }

    #[tokio::test]
    async fn an_unreachable_postgres_at_start_is_named_without_its_password() {
        let err = Stores::connect("postgres://app:hunter2@127.0.0.1:1/test", None)
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("postgres://app:***@127.0.0.1:1/test"),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
    }

    #[tokio::test]
    async fn postgres_vanishing_mid_run_refuses_checked_calls() {
        let Some(url) = postgres() else { return };
        let schema = TestSchema::new(&url, "vanish");
        let relay = Relay::start(server_address(&url, 5432)).await;
        let relayed = format!("{}?schema={}", relay.url_for(&url), schema.name);
        let stores = Stores::connect(&relayed, None).await.unwrap();
        let clock = TestClock::at(start());
        let gateway = gateway_with(stores, &clock).build().unwrap();
        let ctx = SkillContext::new();
        let caller = Caller::new("horoscope", "vic");
        gateway
            .subscriptions()
            .subscribe("vic", "oracle", None)
            .await
            .unwrap();
        assert!(
            gateway
                .call_tool(&caller, "oracle_glance", None, &ctx)
                .await
                .success
        );
        relay.cut();
        let refused = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
        assert_eq!(refused.error_code(), Some(codes::STORAGE_FAILED));
    }
}

#[cfg(feature = "redis")]
mod redis_quota {
    use super::*;
    use crate::servers::*;
    use chrono::Utc;
    use toolwright_packs::{QuotaDecision, QuotaStore, RedisQuotaStore, Window};

    #[tokio::test]
    async fn redis_quotas_keep_the_gateway_contract() {
        let Some(url) = redis() else { return };
        let prefix = TestPrefix::new(&url, "contract");
        let main = format!("sqlite://{}", temp_db("redis-main").display());
        let stores = Stores::connect(&main, Some(&prefix.store_url()))
            .await
            .unwrap();
        assert!(stores.urls.1.starts_with("redis://"));
        gateway_contract(stores, "redis-user").await;
    }

    #[tokio::test]
    async fn concurrent_redis_checks_admit_exactly_the_limit_and_counters_expire() {
        let Some(url) = redis() else { return };
        let prefix = TestPrefix::new(&url, "quota");
        let store = Arc::new(
            RedisQuotaStore::connect_with_prefix(&url, &prefix.prefix)
                .await
                .unwrap(),
        );
        let now = Utc::now();
        let tasks: Vec<_> = (0..200)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move { store.try_acquire("u", "t", 50, Window::Day, now).await })
            })
            .collect();
        let mut admitted = 0;
        for task in tasks {
            if let QuotaDecision::Admitted { .. } = task.await.unwrap().unwrap() {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 50);
        assert_eq!(store.used("u", "t", Window::Day, now).await.unwrap(), 50);
        // Each counter expires a minute after its window ends.
        let key = store.counter_key("u", "t", Window::Day, now);
        let client = redis::Client::open(url.as_str()).unwrap();
        let mut conn = client.get_connection().unwrap();
        let ttl: i64 = redis::cmd("TTL").arg(&key).query(&mut conn).unwrap();
        let to_window_end = Window::Day.start_of(now) + Window::Day.seconds() - now.timestamp();
        assert!(
            (to_window_end..=to_window_end + 60).contains(&ttl),
            "ttl {ttl}, window ends in {to_window_end} s"
        );
        assert_eq!(prefix.keys(), [key]);
        assert_nothing_counted_when_one_limit_is_full(store.as_ref()).await;
    }

    #[tokio::test]
    async fn an_unreachable_redis_at_start_is_named_without_its_password() {
        let main = format!("sqlite://{}", temp_db("redis-down").display());
        let err = Stores::connect(&main, Some("redis://:hunter2@127.0.0.1:1/0"))
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("redis://:***@127.0.0.1:1/0"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }

    #[tokio::test]
    async fn redis_vanishing_mid_run_refuses_limited_calls_and_can_fail_open_for_free_tools() {
        let Some(url) = redis() else { return };
        let prefix = TestPrefix::new(&url, "vanish");
        let relay = Relay::start(server_address(&url, 6379)).await;
        let relayed = format!("{}?prefix={}", relay.url_for(&url), prefix.prefix);
        let main = format!("sqlite://{}", temp_db("redis-vanish").display());
        let clock = TestClock::at(start());
        let ctx = SkillContext::new();
        let caller = Caller::new("horoscope", "wu");
        let strict = gateway_with(
            Stores::connect(&main, Some(&relayed)).await.unwrap(),
            &clock,
        )
        .build()
        .unwrap();
        let open = gateway_with(
            Stores::connect(&main, Some(&relayed)).await.unwrap(),
            &clock,
        )
        .fail_open_free_tools(true)
        .build()
        .unwrap();
        strict
            .subscriptions()
            .subscribe("wu", "oracle", None)
            .await
            .unwrap();
        assert!(
            strict
                .call_tool(&caller, "oracle_ask", None, &ctx)
                .await
                .success
        );
        relay.cut();
        for gateway in [&strict, &open] {
            let refused = gateway.call_tool(&caller, "oracle_ask", None, &ctx).await;
            assert_eq!(refused.error_code(), Some(codes::QUOTA_UNAVAILABLE));
        }
        let strict_free = strict.call_tool(&caller, "oracle_glance", None, &ctx).await;
        assert_eq!(strict_free.error_code(), Some(codes::QUOTA_UNAVAILABLE));
        let open_free = open.call_tool(&caller, "oracle_glance", None, &ctx).await;
        assert!(open_free.success, "{open_free:?}");
        let outcomes: Vec<String> = strict
            .audit_log()
            .query(&AuditQuery {
                user: Some("wu".into()),
                ..AuditQuery::default()
            })
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.outcome)
            .collect();
        assert_eq!(
            outcomes,
            [
                "ok",
                "quota_unavailable",
                "quota_unavailable",
                "quota_unavailable",
                "ok"
            ]
        );
    }
}
