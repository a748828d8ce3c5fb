use super::*;
use crate::fidic::time_bar::TimeLimit;
use crate::generic::assess_deviation::DeviationAssessment;
use crate::generic::extract_financial_terms::FinancialTerm;
use serde_json::json;

fn output(skill: &str, data: impl serde::Serialize) -> (String, Box<RawValue>) {
    (
        skill.to_string(),
        serde_json::value::to_raw_value(&data).unwrap(),
    )
}

#[test]
fn outside_outputs_are_read_by_shape() {
    let outputs = vec![output(
        "acme_indemnity_review",
        json!({"summary": "1 time bar", "findings": [
            {"severity": "HIGH", "type": "time_bar", "description": "28-day notice", "evidence": "within 28 days"},
            {"severity": "none", "description": "ignored"}
        ]}),
    )];
    let risks = risks_from_outputs(&outputs);
    assert_eq!(risks.len(), 1);
    assert_eq!(
        (risks[0].level, risks[0].kind.name()),
        (RiskLevel::High, "time_bar")
    );
    assert_eq!(risks[0].quote, "within 28 days");
    assert_eq!(risks[0].source_skill, "acme_indemnity_review");
    assert_eq!(risks[0].analysis, "1 time bar");
}

#[test]
fn library_findings_are_read_by_type() {
    let report = GovernanceReport {
        clause_id: "*".into(),
        board_size: None,
        board_seats: Vec::new(),
        chair_casting_vote: true,
        quorum: None,
        adjourned_quorum: None,
        reserved_matters: Vec::new(),
        veto_holders: Vec::new(),
        deadlock_mechanisms: Vec::new(),
        drag_along: None,
        tag_along: None,
        missing: Vec::new(),
        findings: vec![Observation::new(
            "casting_vote",
            RiskLevel::High,
            "the chair has a casting vote",
            Some("5"),
        )],
        summary: "deadlock".into(),
    };
    let risks = risks_from_outputs(&[output(ShaGovernanceCheck::ID, &report)]);
    assert_eq!(risks.len(), 1);
    assert_eq!(risks[0].level, RiskLevel::High);
    assert_eq!(risks[0].kind.name(), ShaGovernanceCheck::ID);
    assert_eq!(risks[0].description, "the chair has a casting vote");
    assert_eq!(
        risks[0].reason,
        "`sha_governance_check` reported a high finding"
    );
    assert_eq!(risks[0].analysis, "deadlock");
}

#[test]
fn subjects_are_data_not_prose() {
    let report = GovernanceReport {
        clause_id: "*".into(),
        board_size: None,
        board_seats: Vec::new(),
        chair_casting_vote: false,
        quorum: None,
        adjourned_quorum: None,
        reserved_matters: Vec::new(),
        veto_holders: Vec::new(),
        deadlock_mechanisms: Vec::new(),
        drag_along: None,
        tag_along: None,
        missing: vec!["deadlock".into(), "quorum".into()],
        findings: vec![
            Observation::new("deadlock", RiskLevel::Medium, "worded any way", None),
            Observation::new("quorum", RiskLevel::Medium, "no quorum", None),
        ],
        summary: String::new(),
    };
    let risks = risks_from_outputs(&[output(ShaGovernanceCheck::ID, &report)]);
    assert_eq!(
        risks[0].subject,
        Subject::Absence(Provision::Deadlock.into())
    );
    assert_eq!(
        risks[1].subject,
        Subject::Clause,
        "no provision kind for a quorum"
    );
    let definitions = DefinitionResolution {
        clause_id: "4.1".into(),
        definitions: Vec::new(),
        undefined_terms: vec!["Plant".into(), "Site Data".into()],
        summary: String::new(),
    };
    let risks = risks_from_outputs(&[output(ResolveDefinition::ID, &definitions)]);
    assert_eq!(
        risks[0].subject,
        Subject::UndefinedTerms(vec!["Plant".into(), "Site Data".into()])
    );
}

#[test]
fn an_output_of_the_wrong_shape_gives_no_risks_and_is_reported() {
    let reading = read_outputs(&[
        output(
            ShaGovernanceCheck::ID,
            json!({"risk_level": "high", "summary": "not a governance report"}),
        ),
        output(
            "x",
            json!({"risk_level": "high", "summary": "read by shape"}),
        ),
    ]);
    assert_eq!(
        reading.findings.len(),
        1,
        "the readable output still counts"
    );
    assert_eq!(reading.findings[0].source_skill, "x");
    assert_eq!(reading.unreadable.len(), 1, "{:?}", reading.unreadable);
    let unreadable = &reading.unreadable[0];
    assert_eq!(unreadable.skill, ShaGovernanceCheck::ID);
    assert!(
        unreadable
            .reason
            .starts_with("the output does not read as the skill's output type: "),
        "{}",
        unreadable.reason
    );
    assert!(read_outputs(&[output("x", json!([1, 2]))])
        .unreadable
        .is_empty());
}

fn limit(days: u32, party: &str, severity: RiskLevel) -> TimeLimit {
    TimeLimit {
        period: format!("{days} days"),
        days,
        requirement: "within".into(),
        party: Some(party.into()),
        trigger: None,
        consequence: None,
        is_time_bar: false,
        standard_step: None,
        standard_days: None,
        standard_reference: None,
        comparison: "no_standard".into(),
        difference_days: None,
        gc_days: None,
        shortened: false,
        extended_for_other_party: false,
        severity,
        sentence: format!("within {days} days"),
    }
}

#[test]
fn time_limits_are_described_in_words() {
    let barred = TimeLimit {
        requirement: "not_later_than".into(),
        trigger: Some("after the Contractor became aware".into()),
        consequence: Some("no extension of time".into()),
        is_time_bar: true,
        shortened: true,
        gc_days: Some(28),
        sentence: "not later than 14 days after the Contractor became aware".into(),
        ..limit(14, "Contractor", RiskLevel::High)
    };
    let report = TimeBarReport {
        clause_id: "20.1".into(),
        text_source: "contract".into(),
        time_limits: vec![barred, limit(42, "Engineer", RiskLevel::Low)],
        time_limit_count: 2,
        time_bar_count: 1,
        shortened_count: 1,
        shortest_days: Some(14),
        highest_severity: Some(RiskLevel::High),
        summary: "2 limits".into(),
    };
    let risks = risks_from_outputs(&[output(FidicCalculateTimeBar::ID, &report)]);
    assert_eq!(risks.len(), 2, "every limit is rated");
    assert_eq!(risks[0].kind.name(), "time_bar_shortened");
    assert_eq!(
        risks[0].description,
        "Contractor: not later than 14 days (after the Contractor became aware) (General Conditions: 28 days)"
    );
    assert_eq!(
        risks[0].reason,
        "missing it is a time bar: no extension of time"
    );
    assert_eq!(
        risks[0].quote,
        "not later than 14 days after the Contractor became aware"
    );
    assert_eq!(
        (
            risks[1].level,
            risks[1].kind.name(),
            risks[1].description.as_str(),
            risks[1].reason.as_str()
        ),
        (
            RiskLevel::Low,
            "time_limit",
            "Engineer: within 42 days",
            "`fidic_calculate_time_bar` rated the limit low"
        )
    );
}

#[test]
fn top_level_level_and_nothing() {
    let risks = risks_from_outputs(&[output(
        "acme_governance_check",
        json!({"risk_level": "medium", "summary": "deadlock"}),
    )]);
    assert_eq!(risks[0].kind.name(), "acme_governance_check");
    assert!(risks_from_outputs(&[output("x", json!({"risk_level": "low"}))]).is_empty());
    assert!(risks_from_outputs(&[output("x", json!([1, 2]))]).is_empty());
}

#[test]
fn delay_damages_need_a_cap() {
    let term = |kind: &str, is_cap: bool, text: &str| FinancialTerm {
        category: "delay_damages".into(),
        kind: kind.into(),
        value: 0.0,
        currency: None,
        is_cap,
        text: text.into(),
        source_text: "s".into(),
    };
    let terms = |cap: bool| FinancialTerms {
        clause_id: "8.8".into(),
        terms: vec![
            term("amount", false, "USD 5,000"),
            term("percentage", cap, "10%"),
        ],
        amounts_by_currency: Default::default(),
        retention_percent: None,
        advance_payment_percent: None,
        delay_damages_rate_percent: None,
        delay_damages_cap_percent: None,
        payment_period_days: None,
        summary: String::new(),
    };
    let risks = risks_from_outputs(&[output(ExtractFinancialTerms::ID, terms(false))]);
    assert_eq!(
        risks[0].description,
        "Delay damages of USD 5,000 have no stated cap"
    );
    assert!(risks_from_outputs(&[output(ExtractFinancialTerms::ID, terms(true))]).is_empty());
}

#[test]
fn compare_defers_to_assess() {
    let compare = output(
        CompareWithBaseline::ID,
        BaselineComparison {
            clause_id: "4.12".into(),
            modification_type: ModificationType::Deleted,
            similarity: 0.0,
            changes: Vec::new(),
            inserted_words: 0,
            deleted_words: 0,
            summary: "s".into(),
        },
    );
    assert_eq!(
        risks_from_outputs(std::slice::from_ref(&compare))[0]
            .kind
            .name(),
        "clause_deleted"
    );
    let assess = output(
        AssessDeviation::ID,
        DeviationAssessment {
            clause_id: "4.12".into(),
            severity: "none".into(),
            modification_type: "deleted".into(),
            similarity: None,
            findings: Vec::new(),
            summary: String::new(),
        },
    );
    assert!(risks_from_outputs(&[compare, assess]).is_empty());
}

#[test]
fn summaries_are_read_from_objects_only() {
    let summary = |json: &str| {
        let raw = RawValue::from_string(json.to_string()).unwrap();
        output_summary(&raw).map(|s| s.into_owned())
    };
    assert_eq!(
        summary(r#"{"a": [1], "summary": "2 \"limits\""}"#).as_deref(),
        Some("2 \"limits\"")
    );
    assert_eq!(summary(r#"{"summary": ""}"#).as_deref(), Some(""));
    assert_eq!(summary(r#"{"summary": 3}"#), None);
    assert_eq!(summary(r#"["summary"]"#), None);
    assert_eq!(summary(r#"{"other": 1}"#), None);
}
