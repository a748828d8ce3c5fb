//! `classify_provisions` on clauses written for these tests: what the learned model says a
//! clause is, with a probability and the sentence it rests on.

use crate::generic_fixture::*;
use clausewright_skills::{DocumentRole, ReviewState};
use serde_json::json;

const SUPPLY: &str = "\
# Supply Agreement

## 1 Price

1.1 The Buyer shall pay the Supplier four hundred dollars for each pallet delivered, \
invoiced at the end of each calendar month and payable within thirty days of the invoice.

## 2 Law and Disputes

2.1 This Agreement and any dispute arising out of it shall be governed by and construed in \
accordance with the laws of the State of Ohio, without regard to its conflict of laws rules.
";

fn supply() -> ReviewState {
    ReviewState {
        our_party: "Buyer".into(),
        language: "en".into(),
        documents: vec![document(DocumentRole::Primary, "supply.md", SUPPLY)],
        ..Default::default()
    }
}

fn kinds(out: &serde_json::Value) -> Vec<String> {
    ids(&out["categories"], "kind")
}

#[tokio::test]
async fn a_governing_law_clause_is_governing_law_with_its_sentence() {
    let out = ok(call_with(supply(), "classify_provisions", "2.1", None).await);
    assert_eq!(out["clause_id"], "2.1");
    let first = &out["categories"][0];
    assert_eq!(first["category"], "Governing Law", "{out}");
    assert_eq!(first["kind"], "governing_law");
    let p = first["probability"].as_f64().unwrap();
    assert!(p > 0.5 && p <= 1.0, "probability {p}");
    assert!(
        first["sentence"]
            .as_str()
            .unwrap()
            .contains("laws of the State of Ohio"),
        "{out}"
    );
    let summary = out["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Clause 2.1: Governing Law ("),
        "{summary}"
    );
}

#[tokio::test]
async fn a_price_clause_is_not_governing_law() {
    let out = ok(call_with(supply(), "classify_provisions", "1.1", None).await);
    assert_eq!(out["clause_id"], "1.1");
    assert!(!kinds(&out).contains(&"governing_law".to_string()), "{out}");
}

#[tokio::test]
async fn min_probability_overrides_the_thresholds_and_is_checked() {
    let all = ok(call_with(
        supply(),
        "classify_provisions",
        "1.1",
        Some(json!({"min_probability": 0.0})),
    )
    .await);
    assert_eq!(all["categories"].as_array().unwrap().len(), 41, "{all}");
    let probabilities: Vec<f64> = all["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["probability"].as_f64().unwrap())
        .collect();
    assert!(probabilities.windows(2).all(|w| w[0] >= w[1]), "sorted");
    let none = ok(call_with(
        supply(),
        "classify_provisions",
        "2.1",
        Some(json!({"min_probability": 1.0})),
    )
    .await);
    assert_eq!(none["categories"], json!([]));
    assert!(none["summary"]
        .as_str()
        .unwrap()
        .contains("no provision category reached its threshold"));
    let (code, message) = err(call_with(
        supply(),
        "classify_provisions",
        "2.1",
        Some(json!({"min_probability": 1.5})),
    )
    .await);
    assert_eq!(code, "invalid_arguments");
    assert!(
        message.contains("min_probability") && message.contains("1.5"),
        "{message}"
    );
}

#[tokio::test]
async fn a_missing_clause_is_not_found_naming_existing_clauses() {
    let (code, message) = err(call_with(supply(), "classify_provisions", "9.9", None).await);
    assert_eq!(code, "not_found");
    assert!(
        message.contains("`9.9`") && message.contains("1, 1.1, 2, 2.1"),
        "{message}"
    );
}
