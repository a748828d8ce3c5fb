//! The gateway end to end on the example packs (zodiac, jungastro) plus two test packs:
//! the acceptance checklist of the spec (section 9), rate limits under concurrency across two
//! instances on one database, and the audit log after failing, panicking and dropped calls.

#[path = "../../examples/packs/astro.rs"]
#[allow(dead_code)]
mod astro;
#[path = "../../examples/packs/core_tools.rs"]
mod core_tools;
#[path = "../../examples/packs/jungastro.rs"]
#[allow(dead_code)]
mod jungastro;
#[path = "../../examples/packs/zodiac.rs"]
#[allow(dead_code)]
mod zodiac;

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use serde_json::{json, Value};
use skill_core::prelude::*;
use skill_core::{Dispatcher, Inject, SkillContext};
use skill_packs::gateway::codes;
use skill_packs::{
    AuditQuery, AuditRecord, Gateway, GatewayError, ImportDecl, PackExports, PackManifest,
    PackSession, SqliteStore,
};

use jungastro::{BirthProfile, Jungastro, JungianReading, CACHED_CHART_PATH};
use zodiac::{
    CalculateZodiac, CalculateZodiacInput, ChartSnapshot, GetChartSnapshot, Zodiac, ZodiacReading,
};

// ---------------------------------------------------------------- test packs

/// Panics on purpose.
#[skill(id = "flaky.explode")]
async fn flaky_explode() -> Result<u8, SkillError> {
    panic!("flaky exploded")
}

/// Fails on purpose.
#[skill(id = "flaky.fail")]
async fn flaky_fail() -> Result<u8, SkillError> {
    Err(SkillError::new("backend_down", "the flaky backend is down"))
}

/// Takes its time.
#[skill(id = "flaky.slow")]
async fn flaky_slow() -> u8 {
    tokio::time::sleep(Duration::from_secs(30)).await;
    1
}

skill_packs::pack! {
    /// A provider whose tools fail in every way.
    pub struct Flaky {
        id: "flaky",
        name: "Flaky",
        version: "1.0.0",
        exports: {
            api_version: "1.4.0",
            tools: [FlakyExplode, FlakyFail, FlakySlow],
            access: { requires_subscription: false },
            deprecated: [
                { tool: FlakyFail, since: "2026-01-01", removal_date: "2026-08-01", replacement: FlakyExplode },
            ],
        },
    }
}

/// Tries to read zodiac's storage directly.
#[skill(id = "horoscope.peek")]
async fn horoscope_peek(session: Inject<PackSession>) -> Result<Option<Value>, SkillError> {
    session.read("skills.zodiac.chart").await
}

/// Tries to write into zodiac's storage.
#[skill(id = "horoscope.scribble")]
async fn horoscope_scribble(session: Inject<PackSession>) -> Result<(), SkillError> {
    session
        .save(
            "skills.zodiac.chart",
            &json!({"format": "1", "sun": "Leo", "moon": "Leo"}),
        )
        .await
}

/// Calls in the name of jungastro.
#[skill(id = "horoscope.impersonate")]
async fn horoscope_impersonate(session: Inject<PackSession>) -> Result<ChartSnapshot, SkillError> {
    session
        .call::<Jungastro, GetChartSnapshot>(&zodiac::GetChartSnapshotInput {
            include_aspects: false,
        })
        .await
}

/// Calls itself until the gateway stops it.
#[skill(id = "horoscope.recurse")]
async fn horoscope_recurse(session: Inject<PackSession>) -> Result<u32, SkillError> {
    session
        .call_tool_as::<u32>("horoscope.recurse", None)
        .await
        .map(|n| n + 1)
}

skill_packs::pack! {
    /// A consumer that imports only zodiac's free accessor.
    pub struct Horoscope {
        id: "horoscope",
        name: "Daily horoscope",
        version: "0.3.0",
        imports: [
            { from: Zodiac, tools: [GetChartSnapshot], min_version: "1" },
            { from: Flaky, tools: [FlakyExplode, FlakyFail, FlakySlow], min_version: "1.2" },
        ],
    }
}

/// A tool of no pack and not a core tool: no pack may call it.
#[skill(id = "lonely_tool")]
fn lonely_tool() -> u8 {
    0
}

// ---------------------------------------------------------------- helpers

fn temp_db(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    std::env::temp_dir().join(format!(
        "skill-packs-{name}-{}-{nanos}-{}.db",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// A clock the test moves.
#[derive(Clone)]
struct TestClock(Arc<AtomicI64>);

impl TestClock {
    fn at(t: DateTime<Utc>) -> Self {
        Self(Arc::new(AtomicI64::new(t.timestamp_millis())))
    }
    fn set(&self, t: DateTime<Utc>) {
        self.0.store(t.timestamp_millis(), Ordering::SeqCst);
    }
    fn now(&self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0.load(Ordering::SeqCst))
            .unwrap()
    }
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 7, 1, 23, 0, 0).unwrap()
}

fn gateway_on(store: SqliteStore, clock: &TestClock) -> Gateway {
    let clock = clock.clone();
    Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .core_tools(["show_card"])
        .store(store)
        .clock(move || clock.now())
        .build()
        .unwrap()
}

fn setup(name: &str) -> (Gateway, TestClock) {
    let clock = TestClock::at(start());
    (
        gateway_on(SqliteStore::open(temp_db(name)).unwrap(), &clock),
        clock,
    )
}

fn profile_ctx(date: (i32, u32, u32), time: &str, offset: i32) -> SkillContext {
    SkillContext::new().with(BirthProfile {
        date: NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap(),
        time: Some(time.into()),
        place: Some("Beijing".into()),
        utc_offset_minutes: offset,
    })
}

fn tool_names(gateway: &Gateway, pack: &str) -> Vec<String> {
    gateway
        .tools_for_pack(pack)
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

async fn audit_of(gateway: &Gateway, user: &str) -> Vec<AuditRecord> {
    let mut records = gateway
        .audit_log()
        .query(&AuditQuery {
            user: Some(user.into()),
            ..Default::default()
        })
        .await
        .unwrap();
    records.reverse(); // oldest first
    records
}

fn calc_input(date: (i32, u32, u32)) -> CalculateZodiacInput {
    CalculateZodiacInput {
        birth_date: NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap(),
        birth_time: "12:00".into(),
        birth_place: None,
        utc_offset_minutes: 0,
        latitude: None,
        longitude: None,
    }
}

// ---------------------------------------------------------------- acceptance (spec section 9)

/// 1. The model's tool set is core ∪ own ∪ authorised imports; nothing else appears.
#[tokio::test]
async fn tool_set_is_core_own_and_authorised_imports_only() {
    let (gateway, clock) = setup("toolset");
    assert_eq!(
        tool_names(&gateway, "jungastro"),
        [
            "show_card",
            "jungastro_archetype_reading",
            "jungastro_get_zodiac_chart",
            "zodiac_calculate_zodiac",
            "zodiac_get_chart_snapshot"
        ]
    );
    let horoscope = tool_names(&gateway, "horoscope");
    assert_eq!(
        horoscope,
        [
            "show_card",
            "horoscope_impersonate",
            "horoscope_peek",
            "horoscope_recurse",
            "horoscope_scribble",
            "zodiac_get_chart_snapshot",
            "flaky_explode",
            "flaky_fail",
            "flaky_slow"
        ]
    );
    // Not imported (calculate_zodiac), of no pack (lonely_tool), or another consumer's own.
    for absent in [
        "zodiac_calculate_zodiac",
        "lonely_tool",
        "jungastro_get_zodiac_chart",
    ] {
        assert!(
            !horoscope.iter().any(|n| n == absent),
            "{absent} offered to horoscope"
        );
    }
    // Definitions come from the skills themselves.
    let set = gateway.tools_for_pack("jungastro").unwrap();
    let calc = set
        .iter()
        .find(|t| t["function"]["name"] == "zodiac_calculate_zodiac")
        .unwrap();
    assert_eq!(
        calc["function"]["parameters"]["required"],
        json!(["birth_date"])
    );

    // Once the removal date passes, the deprecated import disappears and cannot be called.
    clock.set(Utc.with_ymd_and_hms(2026, 8, 1, 0, 0, 1).unwrap());
    assert!(!tool_names(&gateway, "horoscope")
        .iter()
        .any(|n| n == "flaky_fail"));
    let removed = gateway
        .call_tool("horoscope", "flaky_fail", None, "u", &SkillContext::new())
        .await;
    assert_eq!(removed.error_code(), Some(codes::TOOL_REMOVED));
    assert!(removed
        .error
        .unwrap()
        .message
        .contains("use `flaky.explode` instead"));

    assert!(
        matches!(gateway.tools_for_pack("nope"), Err(GatewayError::UnknownPack(p)) if p == "nope")
    );
}

/// 2. Without a zodiac subscription, jungastro's call of calculate_zodiac returns
/// subscription_required with the subscribe-card action; with one, it runs.
#[tokio::test]
async fn unsubscribed_users_get_subscription_required_and_subscribed_users_a_chart() {
    let (gateway, _) = setup("subscription");
    let ctx = profile_ctx((1990, 7, 15), "08:30", 480);

    let refused = gateway
        .call_tool("jungastro", "jungastro_get_zodiac_chart", None, "bob", &ctx)
        .await;
    assert_eq!(refused.error_code(), Some(codes::SUBSCRIPTION_REQUIRED));
    let error = refused.error.as_ref().unwrap();
    assert_eq!(
        error.details.as_ref().unwrap()["action"],
        "show_subscribe_card"
    );
    assert_eq!(error.details.as_ref().unwrap()["skill_id"], "zodiac");
    // The typed path says the same.
    let typed = gateway
        .call::<Jungastro, CalculateZodiac>("bob", &calc_input((1990, 7, 15)), &SkillContext::new())
        .await
        .unwrap_err();
    assert_eq!(typed.code, codes::SUBSCRIPTION_REQUIRED);
    assert_eq!(typed.details.unwrap()["action"], "show_subscribe_card");
    // Nothing was cached in jungastro's namespace.
    assert_eq!(
        gateway
            .state_store()
            .read("bob", CACHED_CHART_PATH)
            .await
            .unwrap(),
        None
    );

    gateway
        .subscriptions()
        .subscribe("bob", "zodiac", None)
        .await
        .unwrap();
    let chart = gateway
        .call_tool("jungastro", "jungastro_get_zodiac_chart", None, "bob", &ctx)
        .await;
    assert!(chart.success, "{}", chart.to_json());
    let reading: ZodiacReading = chart.data_as().unwrap();
    assert_eq!(
        (reading.sun_sign.as_str(), reading.moon_sign.as_str()),
        ("Cancer", "Aries")
    );
    assert_eq!(reading.chart.utc, "1990-07-15T00:30:00+00:00");
    // Cached in jungastro's own namespace.
    let cached = gateway
        .state_store()
        .read("bob", CACHED_CHART_PATH)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cached["sun_sign"], "Cancer");

    // The free accessor needs no subscription.
    gateway
        .state_store()
        .save(
            "eve",
            zodiac::CHART_PATH,
            &json!({"format": "1", "sun": "Leo", "moon": "Pisces"}),
        )
        .await
        .unwrap();
    let free = gateway
        .call::<Jungastro, GetChartSnapshot>(
            "eve",
            &zodiac::GetChartSnapshotInput {
                include_aspects: false,
            },
            &SkillContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(free.sun_sign, "Leo");
}

/// 3. zodiac's storage format can change without breaking jungastro: jungastro reads it only
/// through the accessor, and the gateway stops direct reads and writes.
#[tokio::test]
async fn provider_storage_can_evolve_behind_its_accessor() {
    let (gateway, _) = setup("accessor");
    let ctx = SkillContext::new();
    // Old internal format (signs only), as written by an earlier zodiac release.
    gateway
        .state_store()
        .save(
            "carol",
            zodiac::CHART_PATH,
            &json!({"format": "1", "sun": "Leo", "moon": "Cancer"}),
        )
        .await
        .unwrap();
    let old = gateway
        .call_tool(
            "jungastro",
            "jungastro.archetype_reading",
            None,
            "carol",
            &ctx,
        )
        .await;
    let old: JungianReading = old.data_as().unwrap();
    assert_eq!(
        (old.ego_archetype.as_str(), old.anima_archetype.as_str()),
        ("the Ruler", "the Great Mother")
    );

    // Current format (longitudes), written by calculate_zodiac itself.
    gateway
        .subscriptions()
        .subscribe("carol", "zodiac", None)
        .await
        .unwrap();
    let stored = gateway
        .call::<Jungastro, CalculateZodiac>("carol", &calc_input((1992, 8, 10)), &ctx)
        .await
        .unwrap();
    assert_eq!(stored.sun_sign, "Leo");
    let raw = gateway
        .state_store()
        .read("carol", zodiac::CHART_PATH)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(raw["format"], "2");
    let new = gateway
        .call_tool(
            "jungastro",
            "jungastro_archetype_reading",
            None,
            "carol",
            &ctx,
        )
        .await;
    assert!(new.success, "{}", new.to_json());
    let new: JungianReading = new.data_as().unwrap();
    assert_eq!(new.ego_archetype, "the Ruler");
    assert_eq!(new.dominant_function, "intuition");

    // Direct access to zodiac's namespace is refused.
    let peek = gateway
        .call_tool("horoscope", "horoscope_peek", None, "carol", &ctx)
        .await;
    assert_eq!(peek.error_code(), Some(codes::CROSS_PACK_READ));
    assert!(peek.error.unwrap().message.contains("accessor tools"));
    let scribble = gateway
        .call_tool("horoscope", "horoscope_scribble", None, "carol", &ctx)
        .await;
    assert_eq!(scribble.error_code(), Some(codes::CROSS_PACK_WRITE));
    assert_eq!(
        gateway
            .state_store()
            .read("carol", zodiac::CHART_PATH)
            .await
            .unwrap()
            .unwrap()["format"],
        "2"
    );
}

/// 6. Every cross-pack call is audited: successes, refusals, failures, panics, drops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_cross_pack_call_is_audited_whatever_the_outcome() {
    let (gateway, _) = setup("audit");
    let ctx = SkillContext::new();
    let user = "frank";
    let explode = gateway
        .call_tool("horoscope", "flaky_explode", None, user, &ctx)
        .await;
    assert_eq!(explode.error_code(), Some(skill_core::codes::PANIC));
    let fail = gateway
        .call_tool("horoscope", "flaky.fail", None, user, &ctx)
        .await;
    assert_eq!(fail.error_code(), Some("backend_down"));
    let not_imported = gateway
        .call_tool(
            "horoscope",
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            user,
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
            "jungastro",
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            user,
            &ctx,
        )
        .await;
    assert_eq!(refused.error_code(), Some(codes::SUBSCRIPTION_REQUIRED));
    let outside = gateway
        .call_tool("horoscope", "lonely_tool", None, user, &ctx)
        .await;
    assert_eq!(outside.error_code(), Some(codes::TOOL_NOT_IMPORTED));
    let unknown = gateway
        .call_tool("horoscope", "no_such_tool", None, user, &ctx)
        .await;
    assert_eq!(unknown.error_code(), Some(skill_core::codes::UNKNOWN_SKILL));
    let message = &unknown.error.as_ref().unwrap().message;
    assert!(
        message.contains("tools of pack `horoscope`: show_card, horoscope_impersonate"),
        "{message}"
    );
    assert!(
        !message.contains("zodiac_calculate_zodiac") && !message.contains("lonely_tool"),
        "{message}"
    );
    let stranger = gateway
        .call_tool("nobody", "zodiac_get_chart_snapshot", None, user, &ctx)
        .await;
    assert_eq!(stranger.error_code(), Some(codes::UNKNOWN_PACK));
    // A call dropped half-way (here by a timeout) is recorded as cancelled.
    let dropped = tokio::time::timeout(
        Duration::from_millis(50),
        gateway.call_tool("horoscope", "flaky_slow", None, user, &ctx),
    )
    .await;
    assert!(dropped.is_err());
    // Own and core tools are not cross-pack calls.
    let own = gateway
        .call_tool(
            "horoscope",
            "show_card",
            Some(&json!({"card_type": "x"})),
            user,
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
                "horoscope",
                "flaky_explode",
                None,
                "gina",
                &SkillContext::new(),
            )
            .await;
        assert!(!r.success);
    }
    let reopened = SqliteStore::open(&path).unwrap();
    use skill_packs::AuditLog;
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

// ---------------------------------------------------------------- rate limits

#[tokio::test]
async fn the_fifty_first_call_of_the_day_is_rate_limited_until_midnight() {
    let (gateway, clock) = setup("ratelimit");
    let ctx = SkillContext::new();
    gateway
        .subscriptions()
        .subscribe("hana", "zodiac", None)
        .await
        .unwrap();
    for i in 0..50 {
        let r = gateway
            .call::<Jungastro, CalculateZodiac>("hana", &calc_input((2000, 1, 1)), &ctx)
            .await;
        assert!(r.is_ok(), "call {i}: {r:?}");
    }
    let limited = gateway
        .call_tool(
            "jungastro",
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01"})),
            "hana",
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
        .call::<Jungastro, CalculateZodiac>("ivan", &calc_input((2000, 1, 1)), &ctx)
        .await
        .is_ok());
    for _ in 0..60 {
        let snap = gateway
            .call_tool("jungastro", "zodiac_get_chart_snapshot", None, "hana", &ctx)
            .await;
        assert!(snap.success, "{}", snap.to_json());
    }
    // A new day opens a new window.
    clock.set(start() + chrono::Duration::hours(1));
    assert!(gateway
        .call::<Jungastro, CalculateZodiac>("hana", &calc_input((2000, 1, 1)), &ctx)
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
                    "jungastro",
                    "zodiac_calculate_zodiac",
                    Some(&json!({"birth_date": "1999-09-09"})),
                    "judy",
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
            skill_packs::Window::Day,
            start(),
        )
        .await
        .unwrap();
    assert_eq!(used, 50);
    let records = audit_of(&second, "judy").await;
    assert_eq!(records.len(), 1000);
    assert_eq!(records.iter().filter(|r| r.outcome == "ok").count(), 50);
}

// ---------------------------------------------------------------- other runtime rules

#[tokio::test]
async fn a_pack_cannot_call_in_the_name_of_another() {
    let (gateway, _) = setup("impersonate");
    let r = gateway
        .call_tool(
            "horoscope",
            "horoscope_impersonate",
            None,
            "kim",
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::CONSUMER_MISMATCH));
}

#[tokio::test]
async fn runaway_recursion_is_stopped() {
    let (gateway, _) = setup("recursion");
    let r = gateway
        .call_tool(
            "horoscope",
            "horoscope_recurse",
            None,
            "lee",
            &SkillContext::new(),
        )
        .await;
    assert_eq!(
        r.error_code(),
        Some(codes::CALL_DEPTH_EXCEEDED),
        "{}",
        r.to_json()
    );
}

#[tokio::test]
async fn bad_arguments_are_reported_by_the_provider_and_audited() {
    let (gateway, _) = setup("badargs");
    gateway
        .subscriptions()
        .subscribe("mia", "zodiac", None)
        .await
        .unwrap();
    let r = gateway
        .call_tool(
            "jungastro",
            "zodiac_calculate_zodiac",
            Some(&json!({"birth_date": "2000-01-01", "birth_time": "noon"})),
            "mia",
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(skill_core::codes::INVALID_ARGUMENTS));
    assert!(r.error.unwrap().message.contains("birth_time"));
    let records = audit_of(&gateway, "mia").await;
    assert_eq!(records.last().unwrap().outcome, "invalid_arguments");
}

#[tokio::test]
async fn model_tool_calls_go_through_the_gateway() {
    let (gateway, _) = setup("dispatch");
    let calls = skill_core::parse_tool_calls(&[json!({
        "id": "c1",
        "type": "function",
        "function": {"name": "zodiac_get_chart_snapshot", "arguments": "{\"include_aspects\": true}"}
    })]);
    let r = gateway
        .dispatch("horoscope", &calls[0], "nina", &SkillContext::new())
        .await;
    assert_eq!(r.error_code(), Some(skill_core::codes::NOT_FOUND));
    assert_eq!(audit_of(&gateway, "nina").await.len(), 1);
}

#[test]
fn the_gateway_refuses_to_start_on_broken_contracts() {
    static ORPHAN: PackManifest = PackManifest {
        id: "orphan",
        name: "Orphan",
        version: "1.0.0",
        exports: PackExports::NONE,
        imports: &[
            ImportDecl {
                from: "ghost",
                tools: &["ghost.x"],
                min_version: "1",
            },
            ImportDecl {
                from: "zodiac",
                tools: &["zodiac.secret"],
                min_version: "1",
            },
        ],
        type_name: "Orphan",
    };
    let err = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .manifest(&ORPHAN)
        .store(SqliteStore::open_in_memory().unwrap())
        .clock(start)
        .build()
        .unwrap_err();
    let GatewayError::Contracts(problems) = &err else {
        panic!("{err}")
    };
    assert_eq!(problems.len(), 2, "{err}");
    let text = err.to_string();
    assert!(text.starts_with("2 pack contract problem(s):"), "{text}");
    assert!(text.contains("no pack `ghost` exists"), "{text}");
    assert!(text.contains("imports `zodiac.secret`"), "{text}");

    // An exported tool the dispatcher does not know.
    let err = Gateway::builder(Dispatcher::builder().build().unwrap())
        .pack::<Zodiac>()
        .store(SqliteStore::open_in_memory().unwrap())
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `zodiac.calculate_zodiac` (exported by `zodiac`) is not registered in the dispatcher"
    );
    let err = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .core_tools(["read"])
        .store(SqliteStore::open_in_memory().unwrap())
        .clock(start)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `read` (core tool) is not registered in the dispatcher"
    );
}

#[tokio::test]
async fn without_explicit_stores_the_gateway_opens_sqlite_in_wal_mode_at_the_given_path() {
    let path = temp_db("default-store");
    let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .sqlite_path(&path)
        .clock(start)
        .build()
        .unwrap();
    gateway
        .subscriptions()
        .subscribe("olga", "zodiac", None)
        .await
        .unwrap();
    assert!(path.exists());
    // WAL mode leaves a -wal file next to the database while a connection is open.
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    assert!(wal.exists(), "{}", wal.display());
    // A second instance on the same file sees the subscription.
    let other = SqliteStore::open(&path).unwrap();
    use skill_packs::SubscriptionStore;
    assert!(other
        .is_subscribed("olga", "zodiac", start())
        .await
        .unwrap());
}
