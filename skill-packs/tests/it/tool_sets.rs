//! The tool set each pack's model sees: core tools, its own, its authorised imports.

use chrono::{TimeZone, Utc};
use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, Caller, GatewayError};

use crate::support::*;

/// The model's tool set is core ∪ own ∪ authorised imports, sorted by id; nothing else
/// appears.
#[tokio::test]
async fn tool_set_is_core_own_and_authorised_imports_only() {
    let (gateway, clock) = setup("toolset");
    assert_eq!(
        tool_names(&gateway, "jungastro"),
        [
            "jungastro_archetype_reading",
            "jungastro_get_zodiac_chart",
            "show_card",
            "zodiac_calculate_zodiac",
            "zodiac_get_chart_snapshot"
        ]
    );
    let horoscope = tool_names(&gateway, "horoscope");
    assert_eq!(
        horoscope,
        [
            "flaky_explode",
            "flaky_fail",
            "flaky_slow",
            "horoscope_impersonate",
            "horoscope_peek",
            "horoscope_recurse",
            "horoscope_scribble",
            "oracle_ask",
            "oracle_glance",
            "show_card",
            "zodiac_get_chart_snapshot"
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
        .call_tool(
            &Caller::new("horoscope", "u"),
            "flaky_fail",
            None,
            &SkillContext::new(),
        )
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

/// A pack's tool set in another dialect comes from the same filter and the dispatcher's
/// cache: the same tools, in MCP's shape.
#[tokio::test]
async fn pack_filter_gives_the_same_tools_in_any_dialect() {
    let (gateway, _clock) = setup("toolset_dialect");
    let filter = gateway.pack_filter("jungastro").unwrap();
    let mcp = gateway
        .dispatcher()
        .tools_in(toolwright::Dialect::Mcp, &filter)
        .unwrap();
    let names: Vec<&str> = mcp.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, tool_names(&gateway, "jungastro"));
    assert!(mcp.iter().all(|t| t["inputSchema"].is_object()));
    assert!(
        matches!(gateway.pack_filter("nope"), Err(GatewayError::UnknownPack(p)) if p == "nope")
    );
}
