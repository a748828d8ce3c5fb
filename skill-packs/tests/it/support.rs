//! Helpers shared by the gateway tests: databases, a clock the test moves, gateways on them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use toolwright::{Dispatcher, SkillContext};
use toolwright_packs::{AuditQuery, AuditRecord, Gateway, SqliteStore};

use crate::jungastro::BirthProfile;
use crate::zodiac::CalculateZodiacInput;

pub(crate) fn temp_db(name: &str) -> PathBuf {
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
pub(crate) struct TestClock(Arc<AtomicI64>);

impl TestClock {
    pub(crate) fn at(t: DateTime<Utc>) -> Self {
        Self(Arc::new(AtomicI64::new(t.timestamp_millis())))
    }
    pub(crate) fn set(&self, t: DateTime<Utc>) {
        self.0.store(t.timestamp_millis(), Ordering::SeqCst);
    }
    pub(crate) fn now(&self) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(self.0.load(Ordering::SeqCst))
            .unwrap()
    }
}

pub(crate) fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 7, 1, 23, 0, 0).unwrap()
}

pub(crate) fn gateway_on(store: SqliteStore, clock: &TestClock) -> Gateway {
    let clock = clock.clone();
    Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .core_tools(["show_card"])
        .store(store)
        .clock(move || clock.now())
        .build()
        .unwrap()
}

pub(crate) fn setup(name: &str) -> (Gateway, TestClock) {
    let clock = TestClock::at(start());
    (
        gateway_on(SqliteStore::open(temp_db(name)).unwrap(), &clock),
        clock,
    )
}

pub(crate) fn profile_ctx(date: (i32, u32, u32), time: &str, offset: i32) -> SkillContext {
    SkillContext::new().with(BirthProfile {
        date: NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap(),
        time: Some(time.into()),
        place: Some("Beijing".into()),
        utc_offset_minutes: offset,
    })
}

pub(crate) fn tool_names(gateway: &Gateway, pack: &str) -> Vec<String> {
    gateway
        .tools_for_pack(pack)
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

pub(crate) async fn audit_of(gateway: &Gateway, user: &str) -> Vec<AuditRecord> {
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

pub(crate) fn calc_input(date: (i32, u32, u32)) -> CalculateZodiacInput {
    CalculateZodiacInput {
        birth_date: NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap(),
        birth_time: "12:00".into(),
        birth_place: None,
        utc_offset_minutes: 0,
        latitude: None,
        longitude: None,
    }
}
