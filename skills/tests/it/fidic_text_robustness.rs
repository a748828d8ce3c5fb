//! The text analysis behind the contract skills never panics, whatever the input: mixed
//! scripts, odd quotes, digits next to CJK characters, multi-byte case changes.

use clausewright_skills::document::find_references;
use clausewright_skills::fidic::pc_instructions::{merge, word_changes};
use clausewright_skills::fidic::periods::{find_periods, standard_for};
use clausewright_skills::sha_spa::common::{amounts, durations_in_months, percentages};
use clausewright_skills::text::{definitions_in, enumerated_items, sentences};
use proptest::prelude::*;

fn contract_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "within 28 days",
        "Sub-Clause 20.1",
        "第4.1条",
        "28天内",
        "十二个月",
        "\"Cost\" means",
        "“工程”是指",
        "Delete \"28 days\" and replace with \"14 days\".",
        "This Sub-Clause is deleted.",
        "Add the following:",
        "GBP 1,000,000,",
        "30%",
        "百分之二十",
        "(a) ",
        "（一）",
        "İ",
        "ß",
        ".",
        "。",
        "；",
        "\n",
        " ",
        "2025年3月1日",
        "so far as the Seller is aware",
        "not be liable for any claim to the extent that",
    ]);
    prop::collection::vec(
        prop_oneof![pieces.prop_map(str::to_string), ".{0,12}"],
        0..24,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn text_helpers_never_panic(text in contract_like(), other in contract_like()) {
        for s in sentences(&text) {
            prop_assert!(text.contains(s));
            let _ = standard_for(s);
        }
        for p in find_periods(&text) {
            prop_assert!(p.days >= p.amount && text.is_char_boundary(p.start) && text.is_char_boundary(p.end));
        }
        let _ = (find_references(&text), definitions_in(&text), amounts(&text), percentages(&text));
        let _ = (durations_in_months(&text), enumerated_items(&text));
        let merged = merge(&other, &text);
        let _ = word_changes(&other, &merged.text);
    }
}

fn one_clause_doc(text: &str) -> clausewright_skills::document::DocumentStructure {
    clausewright_skills::document::DocumentStructure {
        clauses: vec![clausewright_skills::document::Clause {
            clause_id: "1".into(),
            text: text.into(),
            level: 1,
            ..Default::default()
        }],
        total_clauses: 1,
        ..Default::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn every_skill_answers_any_clause_text(text in contract_like(), pc in contract_like()) {
        use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
        let doc = |role, filename: &str, text: &str| ReviewDocument { role, filename: filename.into(), structure: one_clause_doc(text).into() };
        let review = ReviewState {
            our_party: "Buyer".into(),
            documents: vec![
                doc(DocumentRole::Primary, "contract.md", &text),
                doc(DocumentRole::Baseline, "gc.md", &text),
                doc(DocumentRole::Reference, "pc.md", &pc),
                doc(DocumentRole::Reference, "er.md", &pc),
            ],
            ..Default::default()
        };
        let ctx = toolwright::SkillContext::new().with(review).with(clausewright_skills::ClauseFocus("1".into()));
        let dispatcher = toolwright::Dispatcher::from_inventory().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        for skill in [
            "fidic_merge_gc_pc", "fidic_calculate_time_bar", "fidic_check_pc_consistency", "fidic_search_er",
            "spa_extract_conditions", "spa_extract_reps_warranties", "spa_indemnity_analysis", "sha_governance_check",
        ] {
            let result = runtime.block_on(dispatcher.prepare_and_call(skill, &ctx, None));
            prop_assert!(result.success, "{skill}: {:?}", result.error);
        }
    }
}
