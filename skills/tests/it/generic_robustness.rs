//! Text analysis never panics, whatever the text: mixed scripts, stray quotes, numbers next
//! to multi-byte characters, decorations without numbers.

use clausewright_skills::document::{find_references, parse_text};
use clausewright_skills::generic::compare_with_baseline::compare_texts;
use clausewright_skills::generic::extract_financial_terms::analyse_financial_terms;
use clausewright_skills::index::tokenize;
use proptest::prelude::*;

fn contract_like() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "Sub-Clause ",
        "Clause ",
        "Clauses ",
        "Article ",
        "第",
        "条",
        "十四",
        "4.1",
        "20.",
        "1.",
        "\n",
        " ",
        "“",
        "”",
        "\"",
        "means ",
        "是指",
        "USD ",
        "$",
        "€",
        "¥",
        "人民币",
        "万元",
        "%",
        "百分之",
        "days",
        "天",
        "million",
        ".",
        "。",
        "; ",
        ", ",
        " and ",
        "é",
        "ß",
        "İ",
        "合同价格",
        "The Contractor",
        "# ",
        "**",
        "[",
        "]",
        "0",
        "99999",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn analysis_never_panics(text in contract_like(), other in contract_like()) {
        let doc = parse_text("p", &text);
        prop_assert_eq!(doc.total_clauses, doc.iter_clauses().count());
        let _ = find_references(&text);
        let _ = analyse_financial_terms("1", &text);
        let _ = tokenize(&text);
        let c = compare_texts("1", Some(&text), &other);
        prop_assert!((0.0..=1.0).contains(&c.similarity));
    }

    #[test]
    fn arbitrary_unicode_never_panics(text in "\\PC{0,200}") {
        let _ = parse_text("p", &text);
        let _ = find_references(&text);
        let _ = analyse_financial_terms("1", &text);
        let _ = tokenize(&text);
    }
}
