//! The provision classifier as the review's first stage: what each clause is comes from the
//! model, whom it binds and whether it is denied from rules, the level from the playbook.
//! The contract is our own wording.

use std::path::Path;

use clausewright_skills::review::kinds::Provision;

use clausewright_skills::review::{
    build_review_state, run_checklist_review, Domain, LearnedStage, Playbook, ReviewInputs,
    ReviewOptions, ReviewReport, RiskLevel, Subject, LEARNED_SOURCE,
};
use toolwright::Dispatcher;

const SERVICES: &str = "# Services Agreement

This Services Agreement is made between Northwind Analytics Ltd (the \"Supplier\") and Harbour Retail plc (the \"Customer\").

## 1 Services

1.1 The Supplier shall provide the Services described in Schedule 1 with reasonable skill and care.

## 2 Appointment

2.1 The Customer appoints the Supplier as a provider of analytics services on a non-exclusive basis, and the Customer may engage other providers.

## 3 Term and Termination

3.1 This Agreement starts on the Commencement Date and continues for three years.

3.2 The Customer may terminate this Agreement at any time for convenience by giving the Supplier ninety (90) days' written notice.

## 4 Assignment

4.1 Neither party may assign, transfer or subcontract any of its rights or obligations under this Agreement without the prior written consent of the other party.

## 5 Audit

5.1 The Customer may, on reasonable notice and not more than once a year, audit the books and records of the Supplier relating to the Services.

## 6 Governing Law

6.1 This Agreement and any dispute arising out of it shall be governed by the laws of England and Wales.
";

fn review(text: &str, our_party: &str, learned: Option<LearnedStage>) -> ReviewReport {
    review_with(text, our_party, learned, None)
}

fn review_with(
    text: &str,
    our_party: &str,
    learned: Option<LearnedStage>,
    playbook: Option<Playbook>,
) -> ReviewReport {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("services.md");
    std::fs::write(&path, text).unwrap();
    let state = build_review_state(&ReviewInputs {
        primary: path,
        our_party: our_party.into(),
        language: "en".into(),
        ..Default::default()
    })
    .unwrap();
    let options = ReviewOptions {
        concurrency: 1,
        learned,
        playbook: playbook.map(std::sync::Arc::new),
        ..ReviewOptions::default()
    };
    run_checklist_review(&Dispatcher::from_inventory().unwrap(), &state, &options)
}

fn stage() -> LearnedStage {
    LearnedStage::embedded().unwrap()
}

/// `(clause, kind)` of every finding, sorted.
fn kinds(report: &ReviewReport) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = report
        .risks()
        .map(|r| (r.clause_id.clone(), r.finding.kind.to_string()))
        .collect();
    out.sort();
    out
}

fn level_of(report: &ReviewReport, kind: &str) -> Option<RiskLevel> {
    report
        .risks()
        .find(|r| r.finding.kind.name() == kind)
        .map(|r| r.finding.level)
}

#[test]
fn the_classifier_finds_kinds_the_rules_do_not_know() {
    let report = review(SERVICES, "Supplier", Some(stage()));
    let law = report
        .risks()
        .find(|r| r.finding.kind.name() == "governing_law")
        .unwrap_or_else(|| panic!("no governing law finding: {:#?}", kinds(&report)));
    assert_eq!(law.clause_id, "6.1");
    assert_eq!(law.finding.source_skill, LEARNED_SOURCE);
    assert!(law.finding.quote.contains("laws of England"), "{law:#?}");
    let p = law.finding.probability.expect("a probability");
    assert!((0.0..=1.0).contains(&p), "{p}");
    let json = serde_json::to_value(law).unwrap();
    assert_eq!(json["risk_type"], "governing_law");
    assert_eq!(json["probability"].as_f64().map(|v| v as f32), Some(p));
    assert!(report
        .risks()
        .any(|r| r.clause_id == "5.1" && r.finding.kind.name() == "audit_rights"));
}

#[test]
fn a_denied_provision_is_not_reported() {
    let sentence =
        "The Supplier appoints the Distributor as its non-exclusive distributor of the Products in the Territory.";
    // The classifier alone reads the sentence as exclusivity: the denial rule must drop it.
    let model = clausewright_skills::detect::model::ProvisionModel::embedded().unwrap();
    let read = model.classify_sentences("Appointment", [sentence], None);
    assert!(
        read.iter().any(|p| p.kind == Provision::Exclusivity),
        "the model no longer reads this sentence as exclusivity, so this test tests nothing: {read:?}"
    );
    let text = format!("# Distribution Agreement\n\n## 1 Appointment\n\n1.1 {sentence}\n");
    let report = review(&text, "Supplier", Some(stage()));
    assert!(
        !report
            .risks()
            .any(|r| r.finding.kind.name() == "exclusivity"),
        "a non-exclusive appointment is not exclusivity: {:#?}",
        kinds(&report)
    );
    // The same appointment made exclusive is reported.
    let exclusive = text.replace("non-exclusive", "exclusive");
    let report = review(&exclusive, "Supplier", Some(stage()));
    assert!(
        report
            .risks()
            .any(|r| r.clause_id == "1.1" && r.finding.kind.name() == "exclusivity"),
        "{:#?}",
        kinds(&report)
    );
}

#[test]
fn our_party_changes_levels_not_what_is_found() {
    let supplier = review(SERVICES, "Supplier", Some(stage()));
    let customer = review(SERVICES, "Customer", Some(stage()));
    assert_eq!(kinds(&supplier), kinds(&customer));
    // The Customer's right to terminate and to audit binds the Supplier.
    assert_eq!(level_of(&supplier, "audit_rights"), Some(RiskLevel::Medium));
    assert_eq!(level_of(&customer, "audit_rights"), Some(RiskLevel::Low));
}

#[test]
fn a_kind_found_by_a_rule_is_confirmed_not_repeated() {
    let report = review(SERVICES, "Supplier", Some(stage()));
    let assignment: Vec<_> = report
        .risks()
        .filter(|r| r.clause_id == "4.1" && r.finding.kind.name() == "anti_assignment")
        .collect();
    assert_eq!(assignment.len(), 1, "{assignment:#?}");
    assert!(
        assignment[0].finding.probability.is_some(),
        "{assignment:#?}"
    );
}

#[test]
fn an_absence_the_playbook_names_is_reported_once_for_the_agreement() {
    let report = review(SERVICES, "Supplier", Some(stage()));
    let absent: Vec<_> = report
        .risks()
        .filter(|r| matches!(&r.finding.subject, Subject::Absence(kind) if kind.name() == "cap_on_liability"))
        .collect();
    assert_eq!(absent.len(), 1, "{:#?}", kinds(&report));
    assert_eq!(absent[0].clause_id, "document");
    assert_eq!(absent[0].finding.level, RiskLevel::Medium);
    // The JSON says "absent" in a field, and reads back as an absence; found kinds carry no
    // such field. Table and Markdown show the kind as missing.
    let json = serde_json::to_value(&report).unwrap();
    let records: Vec<&serde_json::Value> = json["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["risks"].as_array().unwrap())
        .collect();
    let lacking: Vec<_> = records.iter().filter(|r| r["absent"] == true).collect();
    assert_eq!(lacking.len(), 1, "{records:#?}");
    assert_eq!(lacking[0]["risk_type"], "cap_on_liability");
    assert!(records
        .iter()
        .filter(|r| r["absent"] != true)
        .all(|r| r.get("absent").is_none()));
    let back: clausewright_skills::review::ReviewReport = serde_json::from_value(json).unwrap();
    assert_eq!(
        back.risks().filter(|r| r.finding.is_absence()).count(),
        1,
        "absence survives a round trip"
    );
    let table = clausewright_skills::review::render_table(&report);
    assert!(table.contains("missing: cap_on_liability"), "{table}");
    let markdown = clausewright_skills::review::render_markdown(&report);
    assert!(
        markdown.contains("| missing: cap_on_liability |"),
        "{markdown}"
    );
    assert!(
        !markdown.contains("| missing: anti_assignment |"),
        "{markdown}"
    );
    // With a cap, no absence.
    let capped = SERVICES.replace(
        "## 6 Governing Law",
        "## 6 Liability\n\n6.0 The total liability of each party under this Agreement shall not exceed the fees paid in the twelve months before the claim.\n\n## 7 Governing Law",
    );
    let report = review(&capped, "Supplier", Some(stage()));
    assert!(
        !report
            .risks()
            .any(|r| matches!(r.finding.subject, Subject::Absence(_))),
        "{:#?}",
        kinds(&report)
    );
}

#[test]
fn without_the_stage_the_review_is_the_rule_review() {
    let report = review(SERVICES, "Supplier", None);
    assert!(!report
        .risks()
        .any(|r| r.finding.source_skill == LEARNED_SOURCE || r.finding.probability.is_some()));
}

#[test]
fn chinese_text_keeps_the_rule_path() {
    let text = "# 服务合同\n\n## 第一条 适用法律\n\n本合同受中华人民共和国法律管辖。\n\n## 第二条 转让\n\n未经对方书面同意，任何一方不得转让本合同项下的权利。\n";
    let report = review(text, "甲方", Some(stage()));
    assert!(!report
        .risks()
        .any(|r| r.finding.source_skill == LEARNED_SOURCE));
}

#[test]
fn a_playbook_that_leaves_a_kind_out_hides_it() {
    let mut playbook = Playbook::for_domain(Domain::Generic);
    playbook.kinds.remove(&Provision::GoverningLaw);
    playbook.kinds.remove(&Provision::AssignmentRestriction);
    let report = review_with(SERVICES, "Supplier", Some(stage()), Some(playbook.clone()));
    assert!(!report
        .risks()
        .any(|r| matches!(r.finding.kind.name(), "governing_law" | "anti_assignment")));
    // The rules take their levels from it too: on rules alone, a kind it leaves out is
    // not reported either.
    assert!(review(SERVICES, "Supplier", None)
        .risks()
        .any(|r| r.finding.kind.name() == "anti_assignment"));
    assert!(!review_with(SERVICES, "Supplier", None, Some(playbook))
        .risks()
        .any(|r| r.finding.kind.name() == "anti_assignment"));
}

#[test]
fn a_playbook_naming_an_unknown_kind_is_refused() {
    let mut text: serde_json::Value =
        serde_json::from_str(Playbook::text_for(Domain::Generic)).unwrap();
    let levels = text["kinds"]["insurance"].clone();
    text["kinds"]["insurence"] = levels;
    let err = Playbook::parse(&text.to_string(), Path::new("ours.json")).unwrap_err();
    assert!(err.to_string().contains("`insurence`"), "{err}");
    assert!(err.to_string().contains("ours.json"), "{err}");
    text["kinds"].as_object_mut().unwrap().remove("insurence");
    Playbook::parse(&text.to_string(), Path::new("ours.json")).unwrap();
}

#[test]
fn the_generated_checklist_follows_what_the_classifier_found() {
    let capped = SERVICES.replace(
        "## 6 Governing Law",
        "## 6 Liability\n\n6.0 The total liability of each party under this Agreement shall not exceed the fees paid in the twelve months before the claim.\n\n## 7 Governing Law",
    );
    let without = review(&capped, "Supplier", None);
    let with = review(&capped, "Supplier", Some(stage()));
    let clause = |report: &ReviewReport, id: &str| {
        report
            .clauses
            .iter()
            .find(|c| c.clause_id == id)
            .cloned()
            .unwrap()
    };
    let skills = |report: &ReviewReport, id: &str| -> Vec<String> {
        clause(report, id)
            .skills
            .iter()
            .map(|s| s.skill_id.to_string())
            .collect()
    };
    // A cap on liability calls for the financial analysis, figures or not.
    assert!(!skills(&without, "6.0").contains(&"extract_financial_terms".to_string()));
    assert!(skills(&with, "6.0").contains(&"extract_financial_terms".to_string()));
    // An audit right the playbook rates medium makes the clause at least high.
    assert_eq!(
        clause(&without, "5.1").priority,
        clausewright_skills::Priority::Medium
    );
    assert_eq!(
        clause(&with, "5.1").priority,
        clausewright_skills::Priority::High
    );
}

/// The classes of wording the keyword rules missed, in our own words: a liability exclusion
/// without "shall not be liable", assignment barred by "no party" / "none of the parties",
/// termination on notice written as "unless sooner terminated" or "will have the ability
/// to terminate", a non-compete that never says "compete", and a per-week payment for delay
/// that never says "liquidated".
const WORDINGS: &str = "# Distribution Agreement

This Distribution Agreement is made between Kestrel Devices Ltd (the \"Supplier\") and Alder Trading plc (the \"Distributor\").

## 1 Liability

1.1 Neither party shall be liable to the other for any indirect, special or consequential loss, including loss of profit, arising under this Agreement.

## 2 Assignment

2.1 No party may assign or otherwise transfer any of its rights under this Agreement without the written consent of the others.

## 3 Transfer

3.1 None of the Parties may assign, novate or charge this Agreement or any interest in it without the prior consent of the other Parties.

## 4 Term

4.1 This Agreement shall remain in force for five years unless sooner terminated by either party on sixty (60) days' written notice to the other.

## 5 Ending the Agreement

5.1 The Distributor will have the ability to terminate this Agreement at any time upon thirty (30) days' prior written notice to the Supplier.

## 6 Restrictions

6.1 During the term and for one year after it, the Distributor shall not, directly or indirectly, manufacture, sell or promote in the Territory any products similar to or substitutable for the Products.

## 7 Late Delivery

7.1 If the Supplier fails to deliver an order by its delivery date, the Supplier shall pay the Distributor an amount equal to one percent (1%) of the price of that order for each week of delay, up to ten percent (10%) of that price.
";

#[test]
fn wordings_the_keyword_rules_missed_are_found() {
    let report = review(WORDINGS, "Distributor", Some(stage()));
    let found = kinds(&report);
    for (clause, kind) in [
        ("1.1", "cap_on_liability"),
        ("2.1", "anti_assignment"),
        ("3.1", "anti_assignment"),
        ("4.1", "termination_for_convenience"),
        ("5.1", "termination_for_convenience"),
        ("6.1", "non_compete"),
        ("7.1", "liquidated_damages"),
    ] {
        assert!(
            found.iter().any(|(c, k)| c == clause && k == kind),
            "{kind} not found in {clause}: {found:#?}"
        );
    }
}

#[test]
fn a_provision_is_reported_once_per_clause() {
    let text = "# Supply Agreement

This Supply Agreement is made between Larch Foods Ltd (the \"Supplier\") and Quay Stores plc (the \"Buyer\").

## 5 Term

5.1 This Agreement shall automatically renew for successive one-year terms. Either party may prevent a renewal by a notice of non-renewal given at least sixty days before the end of a term.
";
    for learned in [None, Some(stage())] {
        let with_stage = learned.is_some();
        let report = review(text, "Buyer", learned);
        let renewals = report
            .risks()
            .filter(|r| {
                r.clause_id == "5.1"
                    && r.finding.kind.name() == "notice_period_to_terminate_renewal"
            })
            .count();
        assert_eq!(renewals, 1, "stage: {with_stage}: {:#?}", kinds(&report));
    }
}

/// The generic playbook with `serious_at` set for `kinds`.
fn serious_at(kinds: &[&str], probability: f32) -> Playbook {
    let mut playbook = Playbook::shipped(Domain::Generic).clone();
    for kind in kinds {
        let levels = playbook
            .kinds
            .get_mut(&Provision::from_name(kind).expect("a kind of the catalogue"))
            .expect("a kind of the playbook");
        levels.serious_at = Some(serde_json::from_value(serde_json::json!(probability)).unwrap());
    }
    playbook
}

const DISTRIBUTION: &str = "# Distribution Agreement

This Distribution Agreement is made between Alder Components Ltd (the \"Supplier\") and Birch Retail plc (the \"Distributor\").

## 1 Appointment

1.1 During the Term the Supplier shall sell the Products in the Territory exclusively to the Distributor and shall not appoint any other distributor or reseller in the Territory.

## 2 Assignment

2.1 Neither party may assign or transfer this Agreement or any of its rights under it without the prior written consent of the other party.
";

#[test]
fn a_finding_below_its_threshold_for_serious_findings_is_listed_low_to_check() {
    // Positive twin: with the threshold at 0, the exclusive appointment binding the
    // Supplier is a serious finding for the Supplier.
    let seen = review_with(
        DISTRIBUTION,
        "Supplier",
        Some(stage()),
        Some(serious_at(&["exclusivity"], 0.0)),
    );
    let exclusivity: Vec<_> = seen
        .risks()
        .filter(|r| r.finding.kind.name() == "exclusivity")
        .collect();
    assert!(
        exclusivity
            .iter()
            .any(|r| r.finding.level >= RiskLevel::Medium),
        "{:#?}",
        kinds(&seen)
    );
    // The same clause when the playbook asks for a probability the sentence does not
    // reach: still listed, at low, saying why; never medium or high, whichever detector
    // (the keyword rules or the classifier) read it.
    let doubted = review_with(
        DISTRIBUTION,
        "Supplier",
        Some(stage()),
        Some(serious_at(&["exclusivity"], 1.0)),
    );
    let exclusivity: Vec<_> = doubted
        .risks()
        .filter(|r| r.finding.kind.name() == "exclusivity")
        .collect();
    assert!(!exclusivity.is_empty(), "{:#?}", kinds(&doubted));
    for risk in &exclusivity {
        assert_eq!(risk.finding.level, RiskLevel::Low, "{risk:#?}");
        assert!(risk.finding.reason.contains("to check"), "{risk:#?}");
    }
    // Other kinds keep their own thresholds.
    assert!(
        level_of(&seen, "anti_assignment").is_some(),
        "{:#?}",
        kinds(&seen)
    );
    assert_eq!(
        level_of(&doubted, "anti_assignment"),
        level_of(&seen, "anti_assignment")
    );
}

/// A works contract of our own wording whose delay damages state no cap.
const WORKS: &str = "# Works Agreement

## 1 Completion
1.1 The Contractor shall complete the Works by the Completion Date.

## 2 Delay Damages
2.1 If the Contractor fails to complete the Works by the Completion Date, the Contractor shall pay the Employer delay damages of 0.1% of the Contract Price for each day of delay.

## 3 Governing Law
3.1 This Agreement is governed by the laws of Ontario.
";

#[test]
fn a_parsed_delay_damages_rate_is_evidence_the_classifier_does_not_overrule() {
    let uncapped = |report: &ReviewReport| -> Vec<RiskLevel> {
        report
            .risks()
            .filter(|r| r.finding.kind.name() == "uncapped_delay_damages")
            .map(|r| r.finding.level)
            .collect()
    };
    let rules = review(WORKS, "Contractor", None);
    assert!(
        uncapped(&rules).iter().any(|l| *l >= RiskLevel::Medium),
        "{:#?}",
        kinds(&rules)
    );
    // The classifier, trained on contracts that seldom say "delay damages", rates the
    // sentence far below its threshold; the skill's reading of a rate per day of delay with
    // no ceiling keeps its level, whatever the playbook asks of the classifier.
    let doubted = review_with(
        WORKS,
        "Contractor",
        Some(stage()),
        Some(serious_at(&["liquidated_damages"], 1.0)),
    );
    assert_eq!(
        uncapped(&doubted),
        uncapped(&rules),
        "{:#?}",
        kinds(&doubted)
    );
}

#[test]
fn a_playbook_threshold_out_of_range_is_refused_with_its_place() {
    let mut json = serde_json::to_value(Playbook::shipped(Domain::Generic)).unwrap();
    json["kinds"]["exclusivity"]["serious_at"] = serde_json::json!(1.5);
    let err = Playbook::parse(&json.to_string(), Path::new("ours.json")).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("ours.json")
            && text.contains("kinds.exclusivity.serious_at")
            && text.contains("from 0 to 1"),
        "{text}"
    );
    json["kinds"]["exclusivity"]["serious_at"] = serde_json::json!(0.65);
    let read = Playbook::parse(&json.to_string(), Path::new("ours.json")).unwrap();
    assert_eq!(
        read.levels(Provision::Exclusivity)
            .unwrap()
            .serious_at
            .map(|p| p.get()),
        Some(0.65)
    );
}
