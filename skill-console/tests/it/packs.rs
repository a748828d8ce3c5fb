//! A console serving a pack: its calls go through the pack's gateway in the caller's name,
//! checked and audited like the MCP endpoint's.

use crate::support::*;
use axum::http::StatusCode;
use toolwright::prelude::*;
use toolwright_console::{router, ConsoleOptions, ConsoleState};
use toolwright_packs::{AuditQuery, Caller, Gateway, SqliteStore, Stores};

/// Tells the time of day in words.
#[skill(id = "clock.now", category = "query")]
fn clock_now(
    /// Whether to answer in the 24-hour style.
    #[arg(default)]
    twenty_four: bool,
) -> String {
    if twenty_four { "13:00" } else { "1 pm" }.to_string()
}

/// A tool no pack exports or imports.
#[skill(id = "stray.tool", category = "query")]
fn stray_tool() -> u8 {
    0
}

toolwright_packs::pack! {
    /// Provides the time.
    pub struct ClockPack {
        id: "clock",
        name: "Clock",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [ClockNow],
            access: { requires_subscription: false },
        },
    }
}

toolwright_packs::pack! {
    /// Asks the clock.
    pub struct Planner {
        id: "planner",
        name: "Planner",
        version: "0.1.0",
        imports: [
            { from: ClockPack, tools: [ClockNow], min_version: "1" },
        ],
    }
}

#[tokio::test]
async fn calls_go_through_the_gateway_and_are_audited() {
    let gateway = Gateway::builder(Dispatcher::from_inventory().unwrap())
        .linked_packs()
        .stores(Stores::sqlite(SqliteStore::open_in_memory().unwrap()))
        .build()
        .expect("the packs agree");
    let filter = gateway.pack_filter("planner").unwrap();
    let state = ConsoleState::builder(Dispatcher::builder().build().unwrap())
        .options(ConsoleOptions::new(TOKEN))
        .pack(gateway.clone(), Caller::new("planner", "alice"))
        .filter(filter)
        .build();
    let app = router(state.clone());

    let catalog = get(&app, "/").await;
    assert!(catalog.body.contains("clock.now"), "{}", catalog.body);
    assert!(!catalog.body.contains("stray.tool"), "{}", catalog.body);

    let called = post(
        &app,
        "/skills/clock.now/call",
        &[("csrf", state.csrf_token()), ("arg.twenty_four", "true")],
    )
    .await;
    assert_eq!(called.status, StatusCode::OK, "{}", called.body);
    assert!(called.body.contains("13:00"), "{}", called.body);

    let records = gateway
        .audit_log()
        .query(&AuditQuery::default())
        .await
        .unwrap();
    let [record] = records.as_slice() else {
        panic!("one audit record: {records:?}")
    };
    assert_eq!(
        (
            record.consumer.as_str(),
            record.provider.as_str(),
            record.user.as_str()
        ),
        ("planner", "clock", "alice")
    );
    let audit = get(&app, "/audit").await;
    assert!(audit.body.contains("planner"), "{}", audit.body);

    // Raw text that is no JSON object is refused, not run without its arguments.
    let raw = post(
        &app,
        "/skills/clock.now/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "json"),
            ("raw", "[1, 2]"),
        ],
    )
    .await;
    assert!(raw.body.contains("invalid_arguments"), "{}", raw.body);
    assert_eq!(
        gateway
            .audit_log()
            .query(&AuditQuery::default())
            .await
            .unwrap()
            .len(),
        1
    );
}
