//! End-to-end checklist reviews of every bundled sample, snapshotted: the risks a reviewer
//! would get for the FIDIC contract, the SPA, the SHA and the Chinese EPC contract.

use std::path::PathBuf;

use clausewright_skills::review::{
    build_review_state, run_checklist_review, Domain, ReviewInputs, ReviewOptions, ReviewReport,
};
use toolwright::Dispatcher;

fn sample(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../samples")
        .join(path)
}

fn review(inputs: ReviewInputs) -> ReviewReport {
    let state = build_review_state(&inputs).expect("sample inputs load");
    let dispatcher = Dispatcher::from_inventory().expect("valid registry");
    run_checklist_review(&dispatcher, &state, &ReviewOptions::default())
}

fn inputs(primary: &str, domain: Domain, our_party: &str, language: &str) -> ReviewInputs {
    ReviewInputs {
        primary: sample(primary),
        baseline: None,
        references: Vec::new(),
        criteria_file: None,
        checklist_file: None,
        domain,
        our_party: our_party.into(),
        language: language.into(),
        material_type: String::new(),
        domain_subtype: String::new(),
    }
}

fn assert_clean(report: &ReviewReport) {
    assert_eq!(
        report.summary.skill_failures, 0,
        "every skill ran: {:#?}",
        report.clauses
    );
    assert!(report.summary.unknown_skills.is_empty());
    assert!(report.summary.total_risks > 0, "the sample has findings");
}

fn snapshot(name: &str, report: &ReviewReport) {
    insta::assert_json_snapshot!(name, report, { ".clauses[].skills[].elapsed_ms" => "[ms]" });
}

#[test]
fn fidic_sample() {
    let report = review(ReviewInputs {
        baseline: Some(sample("fidic/general_conditions.md")),
        references: vec![
            sample("fidic/particular_conditions.md"),
            sample("fidic/employers_requirements.md"),
        ],
        criteria_file: Some(sample("fidic/criteria.json")),
        checklist_file: Some(sample("fidic/checklist.json")),
        ..inputs(
            "fidic/general_conditions.md",
            Domain::Fidic,
            "Contractor",
            "en",
        )
    });
    assert_clean(&report);
    let first = report
        .clauses
        .iter()
        .find(|c| c.clause_id != "document")
        .unwrap();
    assert_eq!(
        first.clause_id, "4.1",
        "the SPEC-20 clause 4.1 item comes first after the whole-agreement findings"
    );
    snapshot("fidic_review", &report);
}

#[test]
fn spa_sample() {
    let report = review(ReviewInputs {
        criteria_file: Some(sample("spa/criteria.json")),
        checklist_file: Some(sample("spa/checklist.json")),
        ..inputs(
            "spa/share_purchase_agreement.md",
            Domain::ShaSpa,
            "Buyer",
            "en",
        )
    });
    assert_clean(&report);
    snapshot("spa_review", &report);
}

#[test]
fn sha_sample() {
    let report = review(ReviewInputs {
        checklist_file: Some(sample("sha/checklist.json")),
        ..inputs(
            "sha/shareholders_agreement.md",
            Domain::ShaSpa,
            "Investor",
            "en",
        )
    });
    assert_clean(&report);
    snapshot("sha_review", &report);
}

#[test]
fn chinese_sample() {
    let report = review(ReviewInputs {
        checklist_file: Some(sample("zh/checklist.json")),
        ..inputs("zh/epc_contract_zh.md", Domain::Fidic, "承包商", "zh-CN")
    });
    assert_clean(&report);
    snapshot("zh_review", &report);
}

#[test]
fn generated_checklist_when_none_is_given() {
    let report = review(inputs(
        "sha/shareholders_agreement.md",
        Domain::ShaSpa,
        "Investor",
        "en",
    ));
    assert!(report.checklist_generated);
    assert!(report.summary.clauses_reviewed > 5);
    assert_eq!(report.summary.skill_failures, 0, "{:#?}", report.clauses);
}
