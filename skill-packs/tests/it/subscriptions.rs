//! Tools on subscription: refused without one, run with one; free tools need none.

use serde_json::json;
use toolwright::SkillContext;
use toolwright_packs::{codes, Caller};

use crate::jungastro::{Jungastro, CACHED_CHART_PATH};
use crate::support::*;
use crate::zodiac::{self, CalculateZodiac, GetChartSnapshot, ZodiacReading};

/// Without a zodiac subscription, jungastro's call of calculate_zodiac returns
/// subscription_required with the subscribe-card action; with one, it runs.
#[tokio::test]
async fn unsubscribed_users_get_subscription_required_and_subscribed_users_a_chart() {
    let (gateway, _) = setup("subscription");
    let ctx = profile_ctx((1990, 7, 15), "08:30", 480);

    let refused = gateway
        .call_tool(
            &Caller::new("jungastro", "bob"),
            "jungastro_get_zodiac_chart",
            None,
            &ctx,
        )
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
        .call::<Jungastro, CalculateZodiac>(
            &Caller::of::<Jungastro>("bob"),
            &calc_input((1990, 7, 15)),
            &SkillContext::new(),
        )
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
        .call_tool(
            &Caller::new("jungastro", "bob"),
            "jungastro_get_zodiac_chart",
            None,
            &ctx,
        )
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
            &Caller::of::<Jungastro>("eve"),
            &zodiac::GetChartSnapshotInput {
                include_aspects: false,
            },
            &SkillContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(free.sun_sign, "Leo");
}
