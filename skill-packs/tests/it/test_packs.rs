//! Packs the examples do not have: a provider whose tools fail in every way, a consumer that
//! breaks the rules, and a tool of no pack.

use std::time::Duration;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::Inject;
use toolwright_packs::PackSession;

use crate::jungastro::Jungastro;
use crate::zodiac::{self, ChartSnapshot, GetChartSnapshot, Zodiac};

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

toolwright_packs::pack! {
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

/// Answers a question; limited on its own and with the rest of its pack.
#[skill(id = "oracle.ask")]
fn oracle_ask() -> u8 {
    42
}

/// A free glance, limited only by the pack-wide limit.
#[skill(id = "oracle.glance")]
fn oracle_glance() -> u8 {
    7
}

toolwright_packs::pack! {
    /// A provider with a pack-wide limit on top of a per-tool one.
    pub struct Oracle {
        id: "oracle",
        name: "Oracle",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [OracleAsk, OracleGlance],
            access: {
                requires_subscription: true,
                rate_limit: "5/day",
                free_tools: [OracleGlance],
                rate_limits: { OracleAsk: "3/day" },
            },
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

toolwright_packs::pack! {
    /// A consumer that imports only zodiac's free accessor.
    pub struct Horoscope {
        id: "horoscope",
        name: "Daily horoscope",
        version: "0.3.0",
        imports: [
            { from: Zodiac, tools: [GetChartSnapshot], min_version: "1" },
            { from: Flaky, tools: [FlakyExplode, FlakyFail, FlakySlow], min_version: "1.2" },
            { from: Oracle, tools: [OracleAsk, OracleGlance], min_version: "1" },
        ],
    }
}

/// A tool of no pack and not a core tool: no pack may call it.
#[skill(id = "lonely_tool")]
fn lonely_tool() -> u8 {
    0
}
