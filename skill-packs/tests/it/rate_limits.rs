//! Per-user rate limits: windows, other users, and exact counts under concurrency.

use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, Caller, SqliteStore};

use crate::jungastro::Jungastro;
use crate::support::*;
use crate::zodiac::CalculateZodiac;

#[tokio::test]
async fn the_fifty_first_call_of_the_day_is_rate_limited_until_midnight() {
    let (gateway, clock) = setup("ratelimit");
    let ctx = SkillContext::new();
    let hana = Caller::of::<Jungastro>("hana");
    gateway
        .subscriptions()
        .subscribe("hana", "zodiac", None)
        .await
        .unwrap();
    for i in 0..50 {
        let r = gateway
            .call::<Jungastro, CalculateZodiac>(&hana, &calc_input((2000, 1, 1)), &ctx)
            .await;
        assert!(r.is_ok(), "call {i}: {r:?}");
    }
    let limited = gateway
        .call_tool(
            &hana,
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            &ctx,
        )
        .await;
    assert_eq!(limited.error_code(), Some(codes::RATE_LIMITED));
    let details = limited.error.as_ref().unwrap().details.clone().unwrap();
    assert_eq!(details["retry_after"], 3600); // it is 23:00 UTC
    assert_eq!(details["limit"], "50/day");
    // Other users and the unlimited accessor are unaffected.
    gateway
        .subscriptions()
        .subscribe("ivan", "zodiac", None)
        .await
        .unwrap();
    assert!(gateway
        .call::<Jungastro, CalculateZodiac>(
            &Caller::of::<Jungastro>("ivan"),
            &calc_input((2000, 1, 1)),
            &ctx
        )
        .await
        .is_ok());
    for _ in 0..60 {
        let snap = gateway
            .call_tool(&hana, "zodiac_get_chart_snapshot", None, &ctx)
            .await;
        assert!(snap.success, "{}", snap.to_json());
    }
    // A new day opens a new window.
    clock.set(start() + chrono::Duration::hours(1));
    assert!(gateway
        .call::<Jungastro, CalculateZodiac>(&hana, &calc_input((2000, 1, 1)), &ctx)
        .await
        .is_ok());
}

/// 1,000 concurrent calls against 50/day admit exactly 50, across two gateway instances
/// sharing one SQLite file.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_daily_limit_holds_under_concurrency_across_two_instances() {
    let path = temp_db("concurrency");
    let clock = TestClock::at(start());
    let first = gateway_on(SqliteStore::open(&path).unwrap(), &clock);
    let second = gateway_on(SqliteStore::open(&path).unwrap(), &clock);
    first
        .subscriptions()
        .subscribe("judy", "zodiac", None)
        .await
        .unwrap();
    let mut tasks = Vec::with_capacity(1000);
    for i in 0..1000 {
        let gateway = if i % 2 == 0 {
            first.clone()
        } else {
            second.clone()
        };
        tasks.push(tokio::spawn(async move {
            gateway
                .call_tool(
                    &Caller::new("jungastro", "judy"),
                    "zodiac_calculate_zodiac",
                    Some(&json!({"birth_date": "1999-09-09"})),
                    &SkillContext::new(),
                )
                .await
        }));
    }
    let (mut ok, mut limited) = (0, 0);
    for task in tasks {
        let result = task.await.unwrap();
        match result.error_code() {
            None => ok += 1,
            Some(codes::RATE_LIMITED) => limited += 1,
            Some(other) => panic!("unexpected {other}: {}", result.to_json()),
        }
    }
    assert_eq!((ok, limited), (50, 950));
    let used = first
        .quotas()
        .used(
            "judy",
            "zodiac.calculate_zodiac",
            toolwright_packs::Window::Day,
            start(),
        )
        .await
        .unwrap();
    assert_eq!(used, 50);
    let records = audit_of(&second, "judy").await;
    assert_eq!(records.len(), 1000);
    assert_eq!(records.iter().filter(|r| r.outcome == "ok").count(), 50);
}
