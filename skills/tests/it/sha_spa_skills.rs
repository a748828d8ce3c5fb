//! The SPA/SHA skills against the sample share purchase and shareholders' agreements.

use clausewright_skills::document::{Clause, DocumentStructure};
use clausewright_skills::review::RiskLevel;
use clausewright_skills::sha_spa::common::Observation;
use clausewright_skills::sha_spa::extract_conditions::ConditionsReport;
use clausewright_skills::sha_spa::extract_reps_warranties::WarrantiesReport;
use clausewright_skills::sha_spa::governance_check::GovernanceReport;
use clausewright_skills::sha_spa::indemnity_analysis::IndemnityReport;
use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
use serde_json::json;
use toolwright::prelude::*;
use toolwright::{codes, Dispatcher};

use crate::samples_common::*;

fn review(path: &str, our_party: &str) -> ReviewState {
    let filename = path.rsplit('/').next().unwrap();
    ReviewState {
        domain: clausewright_skills::review::Domain::ShaSpa,
        our_party: our_party.into(),
        documents: vec![doc(DocumentRole::Primary, filename, path)],
        ..Default::default()
    }
}

fn spa(our_party: &str, focus: &str) -> SkillContext {
    ctx(review("spa/share_purchase_agreement.md", our_party), focus)
}

fn sha(our_party: &str, focus: &str) -> SkillContext {
    ctx(review("sha/shareholders_agreement.md", our_party), focus)
}

fn topics(findings: &[Observation]) -> Vec<(&str, RiskLevel)> {
    findings
        .iter()
        .map(|f| (f.topic.as_str(), f.severity))
        .collect()
}

/// A one-clause agreement built directly, for cases the samples do not cover.
fn one_clause(text: &str, our_party: &str) -> SkillContext {
    let doc = DocumentStructure {
        document_id: "short".into(),
        clauses: vec![Clause {
            clause_id: "3".into(),
            title: "Terms".into(),
            text: text.into(),
            level: 1,
            children: vec![],
        }],
        total_clauses: 1,
        ..Default::default()
    };
    let review = ReviewState {
        our_party: our_party.into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "short.md".into(),
            structure: doc.into(),
        }],
        ..Default::default()
    };
    ctx(review, "3")
}

#[tokio::test]
async fn conditions_of_the_spa() {
    let r: ConditionsReport = run("spa_extract_conditions", &spa("Buyer", "4.1"), json!({})).await;
    assert_eq!(r.clause_id, "4", "the whole conditions clause is read");
    let conditions: Vec<(&str, &str, Vec<&str>)> = r
        .conditions
        .iter()
        .map(|c| {
            (
                c.label.as_str(),
                c.category.as_str(),
                c.waivable_by.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        conditions,
        [
            ("a", "regulatory", vec![]),
            ("b", "shareholder_approval", vec![]),
            ("c", "third_party_consent", vec!["Buyer"]),
            ("d", "no_material_adverse_change", vec!["Buyer"]),
            ("e", "warranties_true", vec!["Buyer"]),
        ]
    );
    assert_eq!(
        r.long_stop_date.as_deref(),
        Some("30 June 2026"),
        "taken from the definition"
    );
    assert!(r
        .long_stop_consequence
        .as_deref()
        .unwrap()
        .contains("either Party may terminate"));
    assert_eq!(r.non_waivable, ["a"]);
    assert_eq!(
        topics(&r.findings),
        [
            ("waiver", RiskLevel::Medium),
            ("mac_condition", RiskLevel::Low),
            ("warranty_bring_down", RiskLevel::Low),
            ("waiver", RiskLevel::Low)
        ]
    );
    let r: ConditionsReport = run("spa_extract_conditions", &spa("Seller", "4"), json!({})).await;
    assert_eq!(
        topics(&r.findings)[0],
        ("mac_condition", RiskLevel::High),
        "a MAC walk-away right weighs on the Seller"
    );
}

#[tokio::test]
async fn conditions_without_long_stop_and_none_in_warranties() {
    let c = one_clause("Completion is conditional on the following:\n(a) the Buyer having obtained financing of USD 20 million;\n(b) no injunction being in force.", "Seller");
    let r: ConditionsReport = run("spa_extract_conditions", &c, json!({})).await;
    assert_eq!(r.long_stop_date, None);
    assert_eq!(
        topics(&r.findings),
        [
            ("long_stop_date", RiskLevel::High),
            ("financing_condition", RiskLevel::High),
            ("waiver", RiskLevel::Medium)
        ]
    );
    // Negative: the warranties clause sets no condition.
    let r: ConditionsReport = run("spa_extract_conditions", &spa("Buyer", "7"), json!({})).await;
    assert_eq!(
        (r.condition_count, r.findings.len(), r.summary.as_str()),
        (0, 0, "Clause 7 sets no conditions precedent.")
    );
}

#[tokio::test]
async fn chinese_conditions_precedent() {
    let c = one_clause(
        "本次交易以下列条件全部满足为先决条件：\n（一）国家市场监督管理总局已批准本次经营者集中；\n（二）目标公司股东会已作出同意本次交易的决议。\n买方可以书面豁免第（二）项条件。最后截止日为2026年6月30日，届时先决条件仍未满足的，任何一方有权解除本协议。",
        "买方",
    );
    let r: ConditionsReport = run("spa_extract_conditions", &c, json!({})).await;
    let conditions: Vec<(&str, &str, Vec<&str>)> = r
        .conditions
        .iter()
        .map(|c| {
            (
                c.label.as_str(),
                c.category.as_str(),
                c.waivable_by.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        conditions,
        [
            ("一", "regulatory", vec![]),
            ("二", "shareholder_approval", vec!["买方"])
        ]
    );
    assert_eq!(r.long_stop_date.as_deref(), Some("2026年6月30日"));
    assert!(r
        .long_stop_consequence
        .as_deref()
        .unwrap()
        .contains("任何一方有权解除本协议"));
    assert_eq!(
        topics(&r.findings),
        [("waiver", RiskLevel::Medium)],
        "condition 一 has no waiver right"
    );
}

#[tokio::test]
async fn warranties_and_their_qualifiers() {
    let r: WarrantiesReport = run(
        "spa_extract_reps_warranties",
        &spa("Buyer", "7.4"),
        json!({}),
    )
    .await;
    assert_eq!(r.clause_id, "7");
    let ws: Vec<(&str, &str, bool, bool, bool)> = r
        .warranties
        .iter()
        .map(|w| {
            (
                w.clause_id.as_str(),
                w.topic.as_str(),
                w.knowledge_qualifier.is_some(),
                w.materiality_qualifier.is_some(),
                w.disclosure_carve_out.is_some(),
            )
        })
        .collect();
    assert_eq!(
        ws,
        [
            ("7.2", "title_and_capacity", false, false, true),
            ("7.3", "accounts", false, true, false),
            ("7.4", "litigation", true, false, false),
            ("7.5", "compliance", false, true, true),
            ("7.6", "tax", true, false, false),
            ("7.7", "intellectual_property", false, true, false),
            ("7.8", "employees", false, false, true),
        ]
    );
    assert_eq!(
        (
            r.knowledge_qualified_count,
            r.materiality_qualified_count,
            r.disclosure_qualified_count,
            r.unqualified_count
        ),
        (2, 3, 3, 0)
    );
    assert_eq!(r.general_qualifiers.len(), 2);
    assert!(r
        .knowledge_definition
        .as_deref()
        .unwrap()
        .contains("Jane Hart"));
    assert_eq!(
        topics(&r.findings),
        [
            ("fundamental_warranty_qualified", RiskLevel::High),
            ("general_disclosure", RiskLevel::High),
            ("knowledge_qualifier", RiskLevel::Medium),
            ("knowledge_qualifier", RiskLevel::Medium),
        ]
    );
    let r: WarrantiesReport = run(
        "spa_extract_reps_warranties",
        &spa("Seller", "7"),
        json!({}),
    )
    .await;
    assert!(
        r.findings.iter().all(|f| f.severity != RiskLevel::High),
        "the Seller is protected by the qualifiers"
    );
    // Negative: the limitations clause gives no warranty.
    let r: WarrantiesReport =
        run("spa_extract_reps_warranties", &spa("Buyer", "8"), json!({})).await;
    assert_eq!((r.warranty_count, r.findings.len()), (0, 0));
}

#[tokio::test]
async fn limitations_of_the_spa() {
    let r: IndemnityReport = run("spa_indemnity_analysis", &spa("Buyer", "8"), json!({})).await;
    assert_eq!(r.consideration, Some(48_000_000.0));
    let caps: Vec<(&str, Option<f64>, Option<f64>)> = r
        .caps
        .iter()
        .map(|c| (c.applies_to.as_str(), c.percent_of_consideration, c.amount))
        .collect();
    assert_eq!(
        caps,
        [
            ("all claims", Some(30.0), Some(14_400_000.0)),
            ("title warranties", Some(100.0), Some(48_000_000.0))
        ]
    );
    let de_minimis = r.de_minimis.as_ref().unwrap();
    assert_eq!(
        (
            de_minimis.amount.as_ref().unwrap().raw.as_str(),
            de_minimis.percent_of_consideration
        ),
        ("GBP 50,000", Some(0.1))
    );
    let basket = r.basket.as_ref().unwrap();
    assert_eq!(
        (
            basket.kind.as_str(),
            basket.amount.as_ref().unwrap().value,
            basket.percent_of_consideration
        ),
        ("tipping", 480_000.0, Some(1.0))
    );
    let periods: Vec<(u32, &str)> = r
        .claim_periods
        .iter()
        .map(|p| (p.months, p.applies_to.as_str()))
        .collect();
    assert_eq!(periods, [(18, "all claims"), (72, "tax claims")]);
    assert_eq!(
        r.exclusions,
        [
            "the matter was Disclosed",
            "the loss arises from a change in law after Completion",
            "the loss is recoverable under any insurance policy"
        ]
    );
    assert_eq!(
        topics(&r.findings),
        [("cap", RiskLevel::Low), ("basket", RiskLevel::Low)]
    );
}

#[tokio::test]
async fn specific_indemnities_and_weak_protection() {
    let r: IndemnityReport = run("spa_indemnity_analysis", &spa("Buyer", "9.2"), json!({})).await;
    let subjects: Vec<(&str, &str)> = r
        .specific_indemnities
        .iter()
        .map(|s| (s.clause_id.as_str(), s.subject.as_str()))
        .collect();
    assert_eq!(
        subjects,
        [
            ("9.1", "the environmental contamination at the Eastport depot described in the Disclosure Letter"),
            ("9.2", "Tax of the Company attributable to any period before Completion"),
        ]
    );
    assert_eq!(r.limitations_incorporated_from.as_deref(), Some("8"));
    assert_eq!(
        r.claim_periods
            .iter()
            .map(|p| (p.months, p.applies_to.as_str()))
            .collect::<Vec<_>>(),
        [(60, "claims under Clause 9.1")]
    );
    assert_eq!(topics(&r.findings), [("limitations", RiskLevel::Low)]);
    let c = one_clause(
        "The Seller's total liability shall not exceed 5% of the Consideration. The Buyer must give notice of any claim within 6 months after Completion.",
        "Buyer",
    );
    let r: IndemnityReport = run("spa_indemnity_analysis", &c, json!({})).await;
    assert_eq!(
        topics(&r.findings)[..2],
        [("cap", RiskLevel::High), ("claim_period", RiskLevel::High)]
    );
    // Negative: the conditions clause sets no liability limit.
    let r: IndemnityReport = run("spa_indemnity_analysis", &spa("Buyer", "4"), json!({})).await;
    assert_eq!(
        (r.caps.len(), r.findings.len(), r.summary.as_str()),
        (0, 0, "Clause 4 sets no liability limit or indemnity.")
    );
}

#[tokio::test]
async fn governance_of_the_sha() {
    let r: GovernanceReport = run("sha_governance_check", &sha("Investor", "8"), json!({})).await;
    assert_eq!(r.board_size, Some(5));
    let seats: Vec<(&str, u32)> = r
        .board_seats
        .iter()
        .map(|s| (s.appointed_by.as_str(), s.seats))
        .collect();
    assert_eq!(seats, [("Investor", 1), ("Founders", 2), ("Board", 2)]);
    assert!(r.chair_casting_vote);
    assert!(r
        .quorum
        .as_deref()
        .unwrap()
        .contains("must include the Investor Director"));
    assert!(r
        .adjourned_quorum
        .as_deref()
        .unwrap()
        .contains("any two directors"));
    assert_eq!(r.reserved_matters.len(), 7);
    assert_eq!(r.veto_holders, ["Investor Majority"]);
    assert_eq!(
        r.deadlock_mechanisms,
        ["escalation", "mediation", "russian_roulette"]
    );
    assert_eq!(
        (
            r.drag_along.as_ref().unwrap().threshold_percent,
            r.tag_along.as_ref().unwrap().threshold_percent
        ),
        (Some(60.0), Some(50.0))
    );
    assert!(r.missing.is_empty());
    assert_eq!(
        topics(&r.findings),
        [
            ("drag_along", RiskLevel::High),
            ("tag_along", RiskLevel::Low),
            ("quorum", RiskLevel::High),
            ("casting_vote", RiskLevel::Medium),
            ("deadlock", RiskLevel::Medium),
            ("veto", RiskLevel::Low),
        ],
        "findings of the requested clause 8 first"
    );
}

#[tokio::test]
async fn governance_finds_nothing_in_a_share_purchase() {
    let r: GovernanceReport = run("sha_governance_check", &spa("Buyer", "*"), json!({})).await;
    assert_eq!(r.clause_id, "*");
    assert!(
        r.board_seats.is_empty()
            && r.reserved_matters.is_empty()
            && r.veto_holders.is_empty()
            && r.deadlock_mechanisms.is_empty()
    );
    assert!(
        r.drag_along.is_none()
            && r.tag_along.is_none()
            && r.quorum.is_none()
            && !r.chair_casting_vote
    );
    assert_eq!(
        r.missing,
        [
            "board_composition",
            "quorum",
            "reserved_matters",
            "deadlock",
            "drag_along",
            "tag_along"
        ]
    );
    assert!(r.findings.iter().all(|f| f.severity == RiskLevel::Medium));
}

#[tokio::test]
async fn unknown_clause_and_missing_contract() {
    let c = spa("Buyer", "4");
    for skill in [
        "spa_extract_conditions",
        "spa_extract_reps_warranties",
        "spa_indemnity_analysis",
        "sha_governance_check",
    ] {
        let (code, message) = run_err(skill, &c, json!({"clause_id": "42.1"})).await;
        assert_eq!(code, codes::NOT_FOUND);
        assert!(
            message.contains(skill)
                && message.contains("`42.1`")
                && message.contains("existing clauses include 1, 1.1"),
            "{message}"
        );
        let (code, message) = run_err(skill, &ctx(ReviewState::default(), "4"), json!({})).await;
        assert_eq!(code, codes::NOT_FOUND);
        assert!(message.contains("no contract under review"), "{message}");
    }
    let r = Dispatcher::from_inventory()
        .unwrap()
        .prepare_and_call(
            "spa_extract_conditions",
            &SkillContext::new().with(ReviewState::default()),
            None,
        )
        .await;
    assert_eq!(
        r.error.unwrap().code,
        codes::PREPARE_FAILED,
        "no clause given and none under review"
    );
}

#[test]
fn sha_spa_skills_are_registered() {
    let d = Dispatcher::from_inventory().unwrap();
    for (id, category) in [
        ("spa_extract_conditions", "analysis"),
        ("spa_extract_reps_warranties", "analysis"),
        ("spa_indemnity_analysis", "analysis"),
        ("sha_governance_check", "validation"),
    ] {
        let reg = d.registration(id).unwrap();
        assert_eq!((reg.domain, reg.category), ("sha_spa", category));
        assert!(reg.param("clause_id").unwrap().prepared);
        let schema = (reg.output_schema)();
        assert!(
            schema["properties"]["summary"].is_object()
                && schema["properties"]["findings"].is_object(),
            "{id}"
        );
    }
}
