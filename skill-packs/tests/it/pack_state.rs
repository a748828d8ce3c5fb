//! Each pack's state is its own: read by others only through its accessor tools.

use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, Caller};

use crate::jungastro::{Jungastro, JungianReading};
use crate::support::*;
use crate::zodiac::{self, CalculateZodiac};

/// Zodiac's storage format can change without breaking jungastro: jungastro reads it only
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
            &Caller::new("jungastro", "carol"),
            "jungastro.archetype_reading",
            None,
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
        .call::<Jungastro, CalculateZodiac>(
            &Caller::of::<Jungastro>("carol"),
            &calc_input((1992, 8, 10)),
            &ctx,
        )
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
            &Caller::new("jungastro", "carol"),
            "jungastro_archetype_reading",
            None,
            &ctx,
        )
        .await;
    assert!(new.success, "{}", new.to_json());
    let new: JungianReading = new.data_as().unwrap();
    assert_eq!(new.ego_archetype, "the Ruler");
    assert_eq!(new.dominant_function, "intuition");

    // Direct access to zodiac's namespace is refused.
    let peek = gateway
        .call_tool(
            &Caller::new("horoscope", "carol"),
            "horoscope_peek",
            None,
            &ctx,
        )
        .await;
    assert_eq!(peek.error_code(), Some(codes::CROSS_PACK_READ));
    assert!(peek.error.unwrap().message.contains("accessor tools"));
    let scribble = gateway
        .call_tool(
            &Caller::new("horoscope", "carol"),
            "horoscope_scribble",
            None,
            &ctx,
        )
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
