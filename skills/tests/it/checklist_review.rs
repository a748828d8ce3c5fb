//! The offline checklist review end to end, on the fixture contract.

use crate::generic_fixture::*;
use clausewright_skills::review::{
    build_review_state, generate_checklist, render, render_json, run_checklist_review,
    ReportFormat, ReviewInputError, ReviewInputs, ReviewOptions, ReviewReport,
};
use clausewright_skills::{ChecklistItem, DocumentRole, Priority};

/// Elapsed times vary from run to run; zero them for snapshots.
fn stable(mut report: ReviewReport) -> ReviewReport {
    for clause in &mut report.clauses {
        for run in &mut clause.skills {
            run.elapsed_ms = 0.0;
        }
    }
    report
}

#[test]
fn generated_checklist_review_snapshot() {
    let report = stable(run_checklist_review(
        &dispatcher(),
        &state(),
        &ReviewOptions::default(),
    ));
    assert!(report.checklist_generated);
    assert_eq!(report.summary.skill_failures, 0, "{:#?}", report.clauses);
    insta::assert_json_snapshot!("review_generated_checklist", report);
    insta::assert_snapshot!("review_markdown", render(&report, ReportFormat::Markdown));
    insta::assert_snapshot!("review_table", render(&report, ReportFormat::Table));
}

#[test]
fn risks_follow_the_rules() {
    let report = run_checklist_review(&dispatcher(), &state(), &ReviewOptions::default());
    let of = |clause: &str| -> Vec<(String, String)> {
        report
            .clauses
            .iter()
            .find(|c| c.clause_id == clause)
            .unwrap()
            .risks
            .iter()
            .map(|r| (r.finding.kind.to_string(), r.finding.level.to_string()))
            .collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // Unchanged from the standard form: nothing of its own. The terms neither document
    // defines are named once, at document level, with the clauses using them.
    assert_eq!(of("2.1"), pairs(&[]));
    let undefined = report
        .risks()
        .find(|r| r.finding.kind.name() == "undefined_term")
        .unwrap();
    assert_eq!(undefined.clause_id, "document");
    assert!(
        undefined.finding.description.contains("Contract Data (2.1")
            && undefined.finding.description.contains("Site (2.1"),
        "{}",
        undefined.finding.description
    );
    assert_eq!(
        report
            .risks()
            .filter(|r| r.finding.kind.name() == "undefined_term")
            .count(),
        1
    );
    let claims = of("20.1");
    for expected in [
        ("broken_cross_reference", "medium"),
        ("reference_to_deleted_clause", "medium"),
        ("clause_added", "medium"),
    ] {
        assert!(
            claims.contains(&(expected.0.to_string(), expected.1.to_string())),
            "{claims:?}"
        );
    }
    let payment = of("14.7");
    for expected in [
        ("uncapped_delay_damages", "high"),
        ("high_retention", "medium"),
        ("long_payment_period", "medium"),
    ] {
        assert!(
            payment.contains(&(expected.0.to_string(), expected.1.to_string())),
            "{payment:?}"
        );
    }
    let risk = report
        .risks()
        .find(|r| r.finding.kind.name() == "uncapped_delay_damages")
        .unwrap();
    assert_eq!(risk.id, "R-14.7-1");
    assert_eq!(risk.finding.source_skill, "extract_financial_terms");
    assert_eq!(
        risk.finding.quote,
        "Delay damages shall be 0.5% of the Contract Price per day."
    );
    let s = &report.summary;
    assert_eq!(s.total_risks, s.high + s.medium + s.low);
    assert_eq!(s.total_risks, report.risks().count());
}

#[test]
fn unknown_and_failing_skills_are_skipped_and_noted() {
    let mut s = state();
    s.review_checklist = vec![ChecklistItem {
        clause_id: "4.2".into(),
        clause_name: "Performance Security".into(),
        priority: Priority::High,
        required_skills: vec![
            "fidic_calculate_time_bar".into(),
            "no_such_skill".into(),
            "assess_deviation".into(),
        ],
        description: String::new(),
    }];
    let report = run_checklist_review(&dispatcher(), &s, &ReviewOptions::default());
    assert!(!report.checklist_generated);
    let clause = &report.clauses[0];
    assert_eq!(clause.skipped_skills, ["no_such_skill"]);
    assert_eq!(report.summary.unknown_skills, ["no_such_skill"]);
    assert_eq!(clause.skills[0].skill_id, "fidic_calculate_time_bar");
    assert!(
        clause.skills[0].error_code.is_none(),
        "a registered skill runs"
    );
    assert_eq!(
        clause.skills[1].error_code.as_deref(),
        Some("unknown_skill")
    );
    assert_eq!(clause.risks[0].finding.kind.name(), "time_period_shortened");
    assert!(render(&report, ReportFormat::Table).contains("skipped unknown skills: no_such_skill"));

    // A clause that does not exist: every skill fails with not_found, nothing crashes.
    s.review_checklist[0].clause_id = "99".into();
    let report = run_checklist_review(&dispatcher(), &s, &ReviewOptions::default());
    assert_eq!(
        report.clauses[0].skills[2].error_code.as_deref(),
        Some("not_found")
    );
    assert_eq!(report.summary.total_risks, 0);
}

#[test]
fn concurrency_does_not_change_the_result() {
    let one = stable(run_checklist_review(
        &dispatcher(),
        &state(),
        &ReviewOptions {
            concurrency: 1,
            ..Default::default()
        },
    ));
    let four = stable(run_checklist_review(
        &dispatcher(),
        &state(),
        &ReviewOptions {
            concurrency: 4,
            ..Default::default()
        },
    ));
    assert_eq!(one, four);
}

#[test]
fn no_checklist_and_generation_off_reviews_nothing() {
    let options = ReviewOptions {
        generate_checklist: false,
        ..Default::default()
    };
    let report = run_checklist_review(&dispatcher(), &state(), &options);
    assert!(report.clauses.is_empty());
    assert_eq!(
        render(&report, ReportFormat::Table).lines().nth(1),
        Some("No risks found.")
    );
}

#[test]
fn checklist_generation_picks_skills_and_priorities() {
    let doc = clausewright_skills::document::parse_text("pc", PARTICULAR_CONDITIONS);
    let list = generate_checklist(&doc, clausewright_skills::review::Domain::Fidic);
    let item = |id: &str| list.iter().find(|i| i.clause_id == id).unwrap();
    assert_eq!(
        item("14.7").required_skills,
        [
            "get_clause_context",
            "resolve_definition",
            "cross_reference_check",
            "extract_financial_terms",
            "assess_deviation",
            "search_reference_doc",
            "fidic_merge_gc_pc",
            "fidic_check_pc_consistency",
            "fidic_calculate_time_bar",
        ]
    );
    assert_eq!(item("14.7").priority, Priority::Critical);
    assert_eq!(item("1.1").priority, Priority::Low);
    assert_eq!(item("2.1").priority, Priority::Medium);
    assert!(item("4.1")
        .required_skills
        .contains(&"fidic_search_er".to_string()));
    // Headings without text of their own are not items.
    assert!(list.iter().all(|i| i.clause_id != "4"));
    let spa = generate_checklist(
        &clausewright_skills::document::parse_text(
            "spa",
            "1 Indemnities\nThe Seller shall indemnify the Buyer.",
        ),
        clausewright_skills::review::Domain::ShaSpa,
    );
    assert!(spa[0]
        .required_skills
        .contains(&"spa_indemnity_analysis".to_string()));
    assert!(!spa[0]
        .required_skills
        .iter()
        .any(|s| s.starts_with("fidic")));
}

#[test]
fn generated_checklist_drops_skills_without_inputs() {
    let s = without(
        without(state(), DocumentRole::Reference),
        DocumentRole::Baseline,
    );
    let report = run_checklist_review(&dispatcher(), &s, &ReviewOptions::default());
    assert!(report.clauses.iter().all(|c| c
        .skills
        .iter()
        .all(|r| r.skill_id != "search_reference_doc")));
    assert_eq!(report.summary.skill_failures, 0);
}

#[test]
fn state_is_built_from_files() {
    let dir = std::env::temp_dir().join(format!("skills-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let inputs = ReviewInputs {
        primary: write("PC.md", PARTICULAR_CONDITIONS),
        baseline: Some(write("GC.txt", GENERAL_CONDITIONS)),
        references: vec![write("ER.md", EMPLOYERS_REQUIREMENTS)],
        checklist_file: Some(write(
            "checklist.json",
            r#"[{"clause_id": "4.2", "priority": "high", "required_skills": ["assess_deviation"]}]"#,
        )),
        domain: clausewright_skills::review::Domain::Fidic,
        ..Default::default()
    };
    let state = build_review_state(&inputs).unwrap();
    assert_eq!(state.primary().unwrap().document_id, "PC");
    assert_eq!(state.baseline().unwrap().total_clauses, 12);
    assert_eq!(state.references().next().unwrap().filename, "ER.md");
    assert_eq!(state.language, "en");
    let report = run_checklist_review(&dispatcher(), &state, &ReviewOptions::default());
    assert_eq!(report.summary.high, 1);
    assert!(render_json(&report).contains("\"time_period_shortened\""));

    let bad = ReviewInputs {
        checklist_file: Some(write("bad.json", "{}")),
        ..inputs.clone()
    };
    let e = build_review_state(&bad).unwrap_err();
    assert!(matches!(e, ReviewInputError::ChecklistJson { .. }));
    assert!(e.to_string().contains("bad.json"), "{e}");
    let missing = ReviewInputs {
        primary: dir.join("nope.md"),
        ..inputs.clone()
    };
    assert!(build_review_state(&missing)
        .unwrap_err()
        .to_string()
        .contains("nope.md"));
    let no_criteria = ReviewInputs {
        criteria_file: Some(dir.join("c.csv")),
        ..inputs
    };
    assert!(matches!(
        build_review_state(&no_criteria),
        Err(ReviewInputError::CriteriaMissing(_))
    ));
}

#[test]
fn report_formats_parse() {
    assert_eq!("md".parse::<ReportFormat>(), Ok(ReportFormat::Markdown));
    assert_eq!("JSON".parse::<ReportFormat>(), Ok(ReportFormat::Json));
    assert!("xml"
        .parse::<ReportFormat>()
        .unwrap_err()
        .contains("table, json or markdown"));
}

/// A shareholders' agreement with no quorum rule, parties named in the preamble, a term
/// defined elsewhere and a term defined nowhere, used in two clauses.
const SHA: &str = "\
1. Parties

This Agreement is made by and between Alpha Holdings Limited (\"Alpha\") and Beta Capital LLC (\"Beta\").

2. Board

2.1 Composition

The Board shall consist of four directors. Alpha is entitled to appoint two directors.

2.2 Reserved Matters

The following matters require the unanimous approval of the directors: the annual budget.

3. Transfers

3.1 Restriction

Alpha shall not transfer its shares without the prior written consent of Beta. The Sale Procedure applies.

3.2 First Refusal

Beta shall have a right of first refusal on any transfer by Alpha under the Sale Procedure.
";

fn sha_report(our_party: &str) -> ReviewReport {
    let dir = std::env::temp_dir().join(format!("skills-sha-{}-{our_party}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sha.md");
    std::fs::write(&path, SHA).unwrap();
    let state = build_review_state(&ReviewInputs {
        primary: path,
        domain: clausewright_skills::review::Domain::ShaSpa,
        our_party: our_party.into(),
        language: "en".into(),
        ..Default::default()
    })
    .unwrap();
    run_checklist_review(&dispatcher(), &state, &ReviewOptions::default())
}

#[test]
fn whole_document_findings_are_reported_once() {
    let report = sha_report("Alpha");
    let quorum: Vec<&str> = report
        .risks()
        .filter(|r| r.finding.description.contains("no quorum provision"))
        .map(|r| r.clause_id.as_str())
        .collect();
    assert_eq!(quorum, ["document"], "{:#?}", report.clauses);
    assert_eq!(report.clauses[0].clause_id, "document");
    let mut seen = std::collections::HashSet::new();
    for risk in report.risks() {
        let key = (
            &risk.clause_id,
            &risk.finding.kind,
            &risk.finding.description,
            &risk.finding.quote,
        );
        assert!(seen.insert(key), "duplicate finding {risk:#?}");
        assert!(
            risk.id.starts_with(&format!("R-{}-", risk.clause_id)),
            "{risk:#?}"
        );
    }
    assert_eq!(
        report.summary.total_risks,
        report.risks().count(),
        "the summary counts what is reported"
    );
}

/// The descriptions of the report's undefined-term findings.
fn undefined_terms(report: &ReviewReport) -> Vec<&str> {
    report
        .risks()
        .filter(|r| r.finding.kind.name() == "undefined_term")
        .map(|r| r.finding.description.as_str())
        .collect()
}

#[test]
fn undefined_terms_are_named_once_with_their_clauses() {
    let report = sha_report("Alpha");
    let undefined = undefined_terms(&report);
    assert_eq!(undefined.len(), 1, "{undefined:?}");
    let text = undefined[0];
    assert!(text.contains("Sale Procedure (3.1, 3.2)"), "{text}");
    for not_flagged in ["Alpha", "Beta", "Board"] {
        assert!(!text.contains(&format!("{not_flagged} (")), "{text}");
    }
}

#[test]
fn key_provisions_are_found_and_weighed_for_our_party() {
    let level_of = |report: &ReviewReport, risk_type: &str| {
        report
            .risks()
            .find(|r| r.finding.kind.name() == risk_type)
            .map(|r| (r.clause_id.clone(), r.finding.level.to_string()))
    };
    let alpha = sha_report("Alpha");
    let beta = sha_report("Beta");
    assert_eq!(
        level_of(&alpha, "anti_assignment"),
        Some(("3.1".into(), "medium".into())),
        "the restriction binds Alpha"
    );
    assert_eq!(
        level_of(&beta, "anti_assignment"),
        Some(("3.1".into(), "low".into())),
        "Beta holds the consent"
    );
    assert_eq!(
        level_of(&alpha, "rofr_rofo_rofn").map(|l| l.0),
        Some("3.2".into())
    );
    assert_eq!(
        level_of(&alpha, "reserved_matters").map(|l| l.0),
        Some("2.2".into())
    );
    let quote = alpha
        .risks()
        .find(|r| r.finding.kind.name() == "rofr_rofo_rofn")
        .map(|r| r.finding.quote.clone())
        .unwrap_or_default();
    assert!(quote.contains("right of first refusal"), "{quote}");
}

/// A contract that numbers two clauses alike: both go to the report's one entry of that
/// id, the same words read in both are reported there once, and an undefined term both use
/// names the clause once.
#[test]
fn a_repeated_clause_id_gets_its_findings_once() {
    let assignment = "The Contractor shall not assign this Agreement without the prior written consent of the Employer.";
    let text = format!(
        "SERVICES AGREEMENT\n\n1 Definitions\n\n\"Services\" means the services described in the Annex.\n\n\
         2 Assignment\n\n{assignment} The Contractor shall follow the Site Manual.\n\n\
         3 Payment\n\nThe Employer shall pay within 30 days.\n\n\
         2 Assignment\n\n{assignment} The Site Manual prevails over the Annex.\n"
    );
    // The parser tells repeated numbers apart ("2 #2"); a structure made elsewhere (a JSON
    // outline, a host's own parser) may not.
    let mut doc = document(DocumentRole::Primary, "contract.md", &text);
    let structure = std::sync::Arc::make_mut(&mut doc.structure);
    for clause in &mut structure.clauses {
        if clause.clause_id == "2 #2" {
            clause.clause_id = "2".into();
        }
    }
    let ids: Vec<&str> = structure
        .iter_clauses()
        .map(|c| c.clause_id.as_str())
        .collect();
    assert_eq!(ids, ["1", "2", "3", "2"]);
    let state = clausewright_skills::ReviewState {
        our_party: "Contractor".into(),
        documents: vec![doc],
        ..Default::default()
    };
    let report = run_checklist_review(&dispatcher(), &state, &ReviewOptions::default());
    let assignments: Vec<(&str, &str)> = report
        .risks()
        .filter(|r| r.finding.kind.name() == "anti_assignment")
        .map(|r| (r.clause_id.as_str(), r.finding.quote.as_str()))
        .collect();
    assert_eq!(assignments.len(), 1, "{assignments:#?}");
    assert_eq!(assignments[0].0, "2");
    let undefined = undefined_terms(&report);
    assert_eq!(undefined.len(), 1, "{undefined:?}");
    assert!(undefined[0].contains("Site Manual (2)"), "{undefined:?}");
}
