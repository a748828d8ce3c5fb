use super::*;
use chrono::TimeZone;

#[tokio::test]
async fn subscriptions_expire_and_can_be_ended() {
    let store = SqliteStore::open_in_memory().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    assert!(!store.is_subscribed("u", "zodiac", now).await.unwrap());
    store
        .subscribe("u", "zodiac", Some(now + chrono::Duration::days(1)))
        .await
        .unwrap();
    assert!(store.is_subscribed("u", "zodiac", now).await.unwrap());
    assert!(!store
        .is_subscribed("u", "zodiac", now + chrono::Duration::days(2))
        .await
        .unwrap());
    store.subscribe("u", "zodiac", None).await.unwrap();
    assert!(store
        .is_subscribed("u", "zodiac", now + chrono::Duration::days(2))
        .await
        .unwrap());
    store.unsubscribe("u", "zodiac").await.unwrap();
    assert!(!store.is_subscribed("u", "zodiac", now).await.unwrap());
}

#[tokio::test]
async fn quota_admits_up_to_the_limit_per_window() {
    let store = SqliteStore::open_in_memory().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 1, 1, 10, 0, 0).unwrap();
    for i in 1..=3 {
        assert_eq!(
            store
                .try_acquire("u", "t", 3, Window::Day, now)
                .await
                .unwrap(),
            QuotaDecision::Admitted { used: i }
        );
    }
    assert_eq!(
        store
            .try_acquire("u", "t", 3, Window::Day, now)
            .await
            .unwrap(),
        QuotaDecision::Exhausted
    );
    assert_eq!(store.used("u", "t", Window::Day, now).await.unwrap(), 3);
    let tomorrow = now + chrono::Duration::days(1);
    assert_eq!(
        store
            .try_acquire("u", "t", 3, Window::Day, tomorrow)
            .await
            .unwrap(),
        QuotaDecision::Admitted { used: 1 }
    );
    assert_eq!(
        store
            .try_acquire("u", "t", 0, Window::Day, tomorrow)
            .await
            .unwrap(),
        QuotaDecision::Exhausted
    );
}

#[tokio::test]
async fn state_round_trips_json() {
    let store = SqliteStore::open_in_memory().unwrap();
    assert_eq!(store.read("u", "skills.a.x").await.unwrap(), None);
    store
        .save("u", "skills.a.x", &serde_json::json!({"k": 1}))
        .await
        .unwrap();
    assert_eq!(
        store.read("u", "skills.a.x").await.unwrap(),
        Some(serde_json::json!({"k": 1}))
    );
    assert_eq!(store.read("other", "skills.a.x").await.unwrap(), None);
}

#[tokio::test]
async fn the_sqlite_store_keeps_the_run_store_contract() {
    let store = SqliteStore::open_in_memory().unwrap();
    toolwright::testing::check_run_store(std::sync::Arc::new(store), "sqlite").await;
}
