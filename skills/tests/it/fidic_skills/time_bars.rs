//! Time bars of the sample's clauses, in English and in Chinese.

use super::*;

#[tokio::test]
async fn time_bars_of_the_claims_clause_after_the_pc() {
    let r: TimeBarReport = run(
        "fidic_calculate_time_bar",
        &ctx(review(), "20.1"),
        json!({}),
    )
    .await;
    assert_eq!(r.text_source, "gc_with_pc");
    assert_eq!(
        limits(&r),
        [
            (
                14,
                Some("notice_of_claim"),
                "shorter",
                true,
                RiskLevel::High
            ),
            (
                14,
                Some("notice_of_claim"),
                "shorter",
                true,
                RiskLevel::High
            ),
            (
                42,
                Some("fully_detailed_claim"),
                "shorter",
                false,
                RiskLevel::High
            ),
            (
                42,
                Some("engineer_response_to_claim"),
                "same",
                false,
                RiskLevel::Low
            ),
        ]
    );
    let first = &r.time_limits[0];
    assert_eq!(
        (
            first.requirement.as_str(),
            first.gc_days,
            first.party.as_deref()
        ),
        ("not_later_than", Some(28), Some("Contractor"))
    );
    assert_eq!(
        first.trigger.as_deref(),
        Some("after the Contractor became aware")
    );
    assert!(first
        .consequence
        .as_deref()
        .unwrap()
        .contains("shall not be entitled to additional payment"));
    assert_eq!(
        (r.time_bar_count, r.shortened_count, r.shortest_days),
        (2, 3, Some(14))
    );
    assert!(
        r.summary.contains("notice of claim 14 days (usually 28)"),
        "{}",
        r.summary
    );
}

#[tokio::test]
async fn time_bars_elsewhere_and_none_in_notices() {
    let c = ctx(review(), "4.2");
    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({})).await;
    assert_eq!(
        limits(&r),
        [(
            14,
            Some("performance_security"),
            "shorter",
            false,
            RiskLevel::Medium
        )]
    );
    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({"clause_id": "14.7"})).await;
    assert_eq!(
        limits(&r),
        [(
            84,
            Some("interim_payment"),
            "longer",
            false,
            RiskLevel::Medium
        )]
    );
    let payment = &r.time_limits[0];
    assert_eq!(
        (
            payment.party.as_deref(),
            payment.gc_days,
            payment.extended_for_other_party
        ),
        (Some("Employer"), Some(56), true)
    );
    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({"clause_id": "20.4"})).await;
    assert_eq!(
        limits(&r),
        [
            (84, Some("dab_decision"), "same", false, RiskLevel::Low),
            (
                28,
                Some("notice_of_dissatisfaction"),
                "same",
                false,
                RiskLevel::Medium
            ),
            (
                28,
                Some("notice_of_dissatisfaction"),
                "same",
                false,
                RiskLevel::Medium
            ),
        ]
    );
    // Negative: the notices clause has no time limit.
    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({"clause_id": "1.3"})).await;
    assert_eq!(
        (r.time_limit_count, r.highest_severity, r.summary.as_str()),
        (0, None, "Clause 1.3 sets no time limit.")
    );
}

#[tokio::test]
async fn chinese_claim_time_bar() {
    let review = ReviewState {
        domain: clausewright_skills::review::Domain::Fidic,
        documents: vec![doc(
            DocumentRole::Primary,
            "epc_contract_zh.md",
            "zh/epc_contract_zh.md",
        )],
        ..Default::default()
    };
    let c = ctx(review, "5.1");
    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({})).await;
    assert_eq!(r.text_source, "gc");
    assert_eq!(
        limits(&r),
        [
            (
                14,
                Some("notice_of_claim"),
                "shorter",
                true,
                RiskLevel::High
            ),
            (
                14,
                Some("notice_of_claim"),
                "shorter",
                true,
                RiskLevel::High
            )
        ]
    );
    let first = &r.time_limits[0];
    assert_eq!(
        (
            first.party.as_deref(),
            first.trigger.as_deref(),
            first.requirement.as_str()
        ),
        (Some("承包人"), Some("知道或应当知道索赔事件发生"), "within")
    );
    assert!(first
        .consequence
        .as_deref()
        .unwrap()
        .contains("丧失要求追加付款"));
    let r: TimeBarReport = run(
        "fidic_calculate_time_bar",
        &c,
        json!({"clause_id": "第5.3条"}),
    )
    .await;
    assert_eq!(
        limits(&r),
        [
            (
                14,
                Some("engineer_response_to_claim"),
                "shorter",
                false,
                RiskLevel::Medium
            ),
            (
                28,
                Some("engineer_response_to_claim"),
                "shorter",
                false,
                RiskLevel::Medium
            )
        ]
    );
    assert!(r.time_limits[1]
        .consequence
        .as_deref()
        .unwrap()
        .contains("视为认可"));
}
