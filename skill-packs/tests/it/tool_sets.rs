//! The tool set each pack's model sees: core tools, its own, its authorised imports.

use chrono::{TimeZone, Utc};
use serde_json::json;
use skill_core::SkillContext;
use skill_packs::{codes, Caller, GatewayError};

use crate::support::*;

/// The model's tool set is core ∪ own ∪ authorised imports; nothing else appears.
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
