//! The FIDIC skills against the sample construction contract in `samples/fidic/`.

use clausewright_skills::fidic::check_pc_consistency::{ConflictKind, ConsistencyReport};
use clausewright_skills::fidic::merge_gc_pc::{FidicMergeGcPc, MergedClause};
use clausewright_skills::fidic::pc_instructions::{ClauseStatus, ModificationKind};
use clausewright_skills::fidic::search_er::{ErSearchResult, FidicSearchEr};
use clausewright_skills::fidic::time_bar::TimeBarReport;
use clausewright_skills::review::RiskLevel;
use clausewright_skills::{DocumentRole, ReviewState};
use serde_json::json;
use toolwright::{codes, Dispatcher, Skill};

use crate::samples_common::*;

mod time_bars;

fn review() -> ReviewState {
    ReviewState {
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        language: "en".into(),
        material_type: "design-build water treatment plant".into(),
        domain_subtype: "yellow_book".into(),
        documents: vec![
            doc(
                DocumentRole::Primary,
                "general_conditions.md",
                "fidic/general_conditions.md",
            ),
            doc(
                DocumentRole::Baseline,
                "general_conditions.md",
                "fidic/general_conditions.md",
            ),
            doc(
                DocumentRole::Reference,
                "particular_conditions.md",
                "fidic/particular_conditions.md",
            ),
            doc(
                DocumentRole::Reference,
                "employers_requirements.md",
                "fidic/employers_requirements.md",
            ),
        ],
        ..Default::default()
    }
}

fn limits(report: &TimeBarReport) -> Vec<(u32, Option<&str>, &str, bool, RiskLevel)> {
    report
        .time_limits
        .iter()
        .map(|l| {
            (
                l.days,
                l.standard_step.as_deref(),
                l.comparison.as_str(),
                l.is_time_bar,
                l.severity,
            )
        })
        .collect()
}

#[tokio::test]
async fn merge_applies_word_replacements_from_the_focus_clause() {
    let m: MergedClause = run("fidic_merge_gc_pc", &ctx(review(), "20.1"), json!({})).await;
    assert_eq!(m.clause_id, "20.1");
    assert_eq!(m.status, ClauseStatus::Amended);
    let periods: Vec<(&str, &str, i64)> = m
        .changed_periods
        .iter()
        .map(|p| (p.from.as_str(), p.to.as_str(), p.difference_days))
        .collect();
    assert_eq!(
        periods,
        [
            ("28 days", "14 days", -14),
            ("28 days", "14 days", -14),
            ("84 days", "42 days", -42)
        ]
    );
    assert!(m
        .merged_text
        .contains("not later than 14 days after the Contractor became aware"));
    assert!(!m.merged_text.contains("28 days"));
    assert_eq!(m.severity, RiskLevel::High);
    assert_eq!(m.unapplied_count, 0);
}

#[tokio::test]
async fn merge_statuses_across_the_sample() {
    let c = ctx(review(), "4.1");
    let status = |m: &MergedClause| {
        (
            m.status,
            m.modifications.iter().map(|x| x.kind).collect::<Vec<_>>(),
            m.severity,
        )
    };
    let m: MergedClause = run("fidic_merge_gc_pc", &c, json!({})).await;
    assert_eq!(
        status(&m),
        (
            ClauseStatus::Amended,
            vec![ModificationKind::Added],
            RiskLevel::Medium
        )
    );
    assert!(m
        .merged_text
        .ends_with("shall be limited to that stated in Sub-Clause 4.12."));
    let m: MergedClause = run("fidic_merge_gc_pc", &c, json!({"clause_id": "4.12"})).await;
    assert_eq!(
        (status(&m), m.merged_text.as_str()),
        (
            (
                ClauseStatus::Deleted,
                vec![ModificationKind::Deleted],
                RiskLevel::High
            ),
            ""
        )
    );
    let m: MergedClause = run(
        "fidic_merge_gc_pc",
        &c,
        json!({"clause_id": "Sub-Clause 4.25"}),
    )
    .await;
    assert_eq!(
        status(&m),
        (
            ClauseStatus::Added,
            vec![ModificationKind::NewSubClause],
            RiskLevel::Medium
        )
    );
    assert!(m
        .merged_text
        .starts_with("The Contractor shall source not less than 30%"));
    let m: MergedClause = run("fidic_merge_gc_pc", &c, json!({"clause_id": "4.2"})).await;
    assert!(
        m.merged_text
            .contains("amount of 15% of the Accepted Contract Amount")
            && m.merged_text.contains("within 14 days")
    );
    // Negative: the PC do not touch 3.5.
    let m: MergedClause = run("fidic_merge_gc_pc", &c, json!({"clause_id": "3.5"})).await;
    assert_eq!(
        status(&m),
        (ClauseStatus::Unchanged, vec![], RiskLevel::Low)
    );
    assert!(m.text_changes.is_empty() && m.changed_periods.is_empty());
}

#[tokio::test]
async fn whole_clauses_are_merged_sub_clause_by_sub_clause() {
    let c = ctx(review(), "Clause 4");
    let m: MergedClause = run("fidic_merge_gc_pc", &c, json!({})).await;
    let subs: Vec<(&str, ClauseStatus)> = m
        .sub_clauses
        .iter()
        .map(|s| (s.clause_id.as_str(), s.status))
        .collect();
    assert_eq!(
        subs,
        [
            ("4", ClauseStatus::Unchanged),
            ("4.1", ClauseStatus::Amended),
            ("4.2", ClauseStatus::Amended),
            ("4.12", ClauseStatus::Deleted),
            ("4.25", ClauseStatus::Added),
        ]
    );
    assert_eq!(
        (m.status, m.severity),
        (ClauseStatus::Amended, RiskLevel::High)
    );
    assert!(
        m.merged_text.contains("\n4.25 The Contractor shall source")
            && !m.merged_text.contains("4.12 ")
    );
    assert!(m
        .modifications
        .iter()
        .any(|x| x.description == "Sub-Clause 4.12: sub-clause deleted in full"));
    let input = FidicMergeGcPc::prepare_input(&c, None).unwrap();
    assert_eq!(
        (input.gc_text, input.pc_text),
        (None, None),
        "left to the skill, which merges per sub-clause"
    );

    let r: TimeBarReport = run("fidic_calculate_time_bar", &c, json!({"clause_id": "20"})).await;
    assert_eq!(
        (
            r.text_source.as_str(),
            r.time_limit_count,
            r.shortened_count
        ),
        ("gc_with_pc", 7, 3)
    );
    let r: ConsistencyReport = run("fidic_check_pc_consistency", &c, json!({})).await;
    assert_eq!(
        kinds(&r),
        [
            (
                ConflictKind::ReferenceToDeletedClause,
                "4.1",
                "4.12",
                RiskLevel::High
            ),
            (
                ConflictKind::ReferenceToDeletedClause,
                "8.4",
                "4.12",
                RiskLevel::High
            ),
        ]
    );
}

#[tokio::test]
async fn merge_prepares_texts_for_the_clause_the_model_names_and_accepts_given_texts() {
    let c = ctx(review(), "20.1");
    let input = FidicMergeGcPc::prepare_input(&c, Some(&json!({"clause_id": "4.2"}))).unwrap();
    assert!(
        input
            .gc_text
            .as_deref()
            .unwrap()
            .contains("Performance Security"),
        "prepared for 4.2, not the focus clause"
    );
    assert_eq!(
        input.pc_text.as_deref(),
        Some("Delete \"28 days\" and replace with \"14 days\". Replace \"10%\" with \"15%\".")
    );
    let m: MergedClause = run(
        "fidic_merge_gc_pc",
        &c,
        json!({"clause_id": "99.1", "gc_text": "Pay within 56 days.", "pc_text": "Replace \"60 days\" with \"90 days\"."}),
    )
    .await;
    assert_eq!(
        (m.unapplied_count, m.severity, m.merged_text.as_str()),
        (1, RiskLevel::High, "Pay within 56 days.")
    );
}

#[tokio::test]
async fn unknown_clause_is_not_found_with_known_ids() {
    let c = ctx(review(), "20.1");
    for skill in [
        "fidic_merge_gc_pc",
        "fidic_calculate_time_bar",
        "fidic_check_pc_consistency",
        "fidic_search_er",
    ] {
        let (code, message) = run_err(skill, &c, json!({"clause_id": "77.7"})).await;
        assert_eq!(code, codes::NOT_FOUND, "{skill}");
        assert!(
            message.contains("`77.7`") && message.contains(skill) && message.contains("1.1"),
            "{skill}: {message}"
        );
    }
}

fn kinds(r: &ConsistencyReport) -> Vec<(ConflictKind, &str, &str, RiskLevel)> {
    r.conflicts
        .iter()
        .map(|c| {
            (
                c.kind,
                c.clause_id.as_str(),
                c.related_to.as_str(),
                c.severity,
            )
        })
        .collect()
}

#[tokio::test]
async fn consistency_findings_of_the_pc() {
    let c = ctx(review(), "20.1");
    let r: ConsistencyReport = run("fidic_check_pc_consistency", &c, json!({})).await;
    assert_eq!(
        kinds(&r),
        [(
            ConflictKind::StalePeriodReference,
            "8.4",
            "20.1",
            RiskLevel::High
        )]
    );
    assert!(r.conflicts[0].evidence.contains("within 28 days"));
    let r: ConsistencyReport = run(
        "fidic_check_pc_consistency",
        &c,
        json!({"clause_id": "4.12"}),
    )
    .await;
    assert_eq!(r.pc_status, ClauseStatus::Deleted);
    assert_eq!(
        kinds(&r),
        [
            (
                ConflictKind::ReferenceToDeletedClause,
                "4.1",
                "4.12",
                RiskLevel::High
            ),
            (
                ConflictKind::ReferenceToDeletedClause,
                "8.4",
                "4.12",
                RiskLevel::High
            ),
        ]
    );
    let r: ConsistencyReport = run(
        "fidic_check_pc_consistency",
        &c,
        json!({"clause_id": "1.1"}),
    )
    .await;
    assert_eq!(
        kinds(&r),
        [
            (ConflictKind::RedefinedTerm, "1.1", "Cost", RiskLevel::High),
            (
                ConflictKind::NewDefinedTerm,
                "1.1",
                "Key Personnel",
                RiskLevel::Low
            )
        ]
    );
    assert!(r.conflicts[0].description.contains("Sub-Clause(s) 8.4"));
    let r: ConsistencyReport = run(
        "fidic_check_pc_consistency",
        &c,
        json!({"clause_id": "14.7"}),
    )
    .await;
    assert_eq!(
        kinds(&r),
        [(
            ConflictKind::BrokenReference,
            "14.7",
            "14.15",
            RiskLevel::Medium
        )]
    );
    // Negative: an unchanged clause is consistent.
    let r: ConsistencyReport = run(
        "fidic_check_pc_consistency",
        &c,
        json!({"clause_id": "3.5"}),
    )
    .await;
    assert_eq!(
        (r.pc_status, r.conflict_count),
        (ClauseStatus::Unchanged, 0)
    );
}

#[tokio::test]
async fn consistency_needs_particular_conditions() {
    let mut state = review();
    state
        .documents
        .retain(|d| !d.filename.starts_with("particular"));
    let (code, message) =
        run_err("fidic_check_pc_consistency", &ctx(state, "20.1"), json!({})).await;
    assert_eq!(code, codes::NOT_FOUND);
    assert!(
        message.contains("no Particular Conditions")
            && message.contains("employers_requirements.md"),
        "{message}"
    );
}

#[tokio::test]
async fn er_search_ranks_purpose_first_for_the_obligations_clause() {
    let c = ctx(review(), "20.1");
    let input = FidicSearchEr::prepare_input(&c, Some(&json!({"clause_id": "4.1"}))).unwrap();
    let query = input.query.unwrap();
    assert!(query.starts_with("The Contractor shall design, execute and complete the Works"));
    assert!(query.ends_with(" design-build water treatment plant yellow_book"));
    assert_eq!(input.top_k, 5);
    let r: ErSearchResult = run("fidic_search_er", &c, json!({"clause_id": "4.1"})).await;
    assert_eq!(r.er_document, "employers_requirements.md");
    let ids: Vec<&str> = r.results.iter().map(|p| p.er_clause_id.as_str()).collect();
    assert_eq!(ids, ["1.2", "1.1", "7.1", "2.3", "3.2"]);
    assert!(r.results.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(r.results[0].matched_terms.contains(&"purpose".to_string()));
    let r: ErSearchResult = run(
        "fidic_search_er",
        &c,
        json!({"query": "turbidity NTU raw water", "top_k": 2}),
    )
    .await;
    let ids: Vec<&str> = r.results.iter().map(|p| p.er_clause_id.as_str()).collect();
    assert_eq!(ids, ["3.2", "5.1"]);
    // Negative: nothing in the ER matches.
    let r: ErSearchResult = run("fidic_search_er", &c, json!({"query": "arbitration seat"})).await;
    assert_eq!((r.result_count, r.top_er_clause_id), (0, None));
}

#[tokio::test]
async fn er_search_errors() {
    let c = ctx(review(), "4.1");
    let (code, message) = run_err("fidic_search_er", &c, json!({"top_k": 0})).await;
    assert_eq!(code, codes::INVALID_ARGUMENTS);
    assert!(message.contains("top_k") && message.contains("between 1 and 50"));
    let mut state = review();
    state
        .documents
        .retain(|d| !d.filename.starts_with("employers"));
    let (code, message) = run_err("fidic_search_er", &ctx(state, "4.1"), json!({})).await;
    assert_eq!(code, codes::NOT_FOUND);
    assert!(
        message.contains("no Employer's Requirements")
            && message.contains("particular_conditions.md"),
        "{message}"
    );
}

#[test]
fn fidic_skills_are_registered_with_a_prepared_clause_id() {
    let d = Dispatcher::from_inventory().unwrap();
    for (id, category) in [
        ("fidic_merge_gc_pc", "analysis"),
        ("fidic_calculate_time_bar", "analysis"),
        ("fidic_check_pc_consistency", "validation"),
        ("fidic_search_er", "retrieval"),
    ] {
        let reg = d.registration(id).unwrap();
        assert_eq!((reg.domain, reg.category), ("fidic", category));
        let clause = reg.param("clause_id").unwrap();
        assert!(clause.prepared && !clause.required, "{id}");
        assert!(reg.description.len() > 40);
    }
    toolwright::testing::assert_registry_valid();
}

#[test]
fn sample_checklists_and_criteria_fit_their_contracts() {
    use clausewright_skills::{ChecklistItem, Priority, ReviewCriterion};
    let domain_skills = [
        "fidic_merge_gc_pc",
        "fidic_calculate_time_bar",
        "fidic_check_pc_consistency",
        "fidic_search_er",
        "spa_extract_conditions",
        "spa_extract_reps_warranties",
        "spa_indemnity_analysis",
        "sha_governance_check",
    ];
    let d = Dispatcher::from_inventory().unwrap();
    for (checklist, contract) in [
        ("fidic/checklist.json", "fidic/general_conditions.md"),
        ("spa/checklist.json", "spa/share_purchase_agreement.md"),
        ("sha/checklist.json", "sha/shareholders_agreement.md"),
        ("zh/checklist.json", "zh/epc_contract_zh.md"),
    ] {
        let items: Vec<ChecklistItem> = serde_json::from_str(&sample(checklist)).unwrap();
        let doc = parse(contract, &sample(contract));
        for item in &items {
            assert!(
                doc.find_clause(&item.clause_id).is_some(),
                "{checklist}: clause {} not in {contract}",
                item.clause_id
            );
            for skill in item
                .required_skills
                .iter()
                .filter(|s| domain_skills.contains(&s.as_str()))
            {
                assert!(d.registration(skill).is_some(), "{skill}");
            }
        }
    }
    let fidic: Vec<ChecklistItem> = serde_json::from_str(&sample("fidic/checklist.json")).unwrap();
    assert_eq!(
        fidic[0],
        ChecklistItem {
            clause_id: "4.1".into(),
            clause_name: "承包商义务".into(),
            priority: Priority::Critical,
            required_skills: vec![
                "get_clause_context".into(),
                "fidic_merge_gc_pc".into(),
                "compare_with_baseline".into()
            ],
            description: "检查义务范围".into(),
        }
    );
    for criteria in ["fidic/criteria.json", "spa/criteria.json"] {
        let parsed: Vec<ReviewCriterion> = serde_json::from_str(&sample(criteria)).unwrap();
        assert!(parsed.len() >= 4);
    }
}
