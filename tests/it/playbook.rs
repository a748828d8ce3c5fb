//! `clausewright playbook` and the classifier options of `review`, as a user would use them.

use std::process::Output;

use serde_json::Value;

use crate::cli::{clausewright, stderr, stdout};

/// A services agreement of our own wording whose governing-law and audit clauses the
/// classifier finds and no keyword rule does.
const SERVICES: &str = "# Services Agreement

This Services Agreement is made between Fenwick Data Ltd (the \"Supplier\") and Orchard Retail plc (the \"Customer\").

## 1 Services

1.1 The Supplier shall provide the Services described in Schedule 1 with reasonable skill and care.

## 2 Audit

2.1 The Customer may, on reasonable notice and not more than once a year, audit the books and records of the Supplier relating to the Services.

## 3 Governing Law

3.1 This Agreement and any dispute arising out of it shall be governed by the laws of England and Wales.
";

fn review_json(extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let contract = dir.path().join("services.md");
    std::fs::write(&contract, SERVICES).unwrap();
    let mut args = vec![
        "review",
        contract.to_str().unwrap(),
        "--our-party",
        "Supplier",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    clausewright(&args)
}

fn kinds(out: &Output) -> Vec<String> {
    let report: Value = serde_json::from_str(&stdout(out)).unwrap();
    let mut kinds: Vec<String> = report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["risks"].as_array().unwrap())
        .map(|r| r["risk_type"].as_str().unwrap().to_string())
        .collect();
    kinds.sort();
    kinds
}

#[test]
fn the_playbook_with_thresholds_names_each_learned_kinds_threshold() {
    let out = clausewright(&["playbook", "--domain", "generic", "--thresholds"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let playbook: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let kinds = playbook["kinds"].as_object().unwrap();
    assert_eq!(kinds.len(), 49);
    // The 41 kinds the model learned carry a threshold, the 8 rule-only ones none.
    let with: Vec<&String> = kinds
        .iter()
        .filter(|(_, l)| l.get("serious_at").is_some())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(with.len(), 41, "{with:?}");
    assert!(kinds["deadlock"].get("serious_at").is_none());
    let at = kinds["exclusivity"]["serious_at"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&at), "{at}");
    // A model that cannot be read is named.
    let bad = clausewright(&[
        "playbook",
        "--thresholds",
        "--provision-model",
        "/nonexistent/model.bin",
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("/nonexistent/model.bin"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn the_printed_playbook_is_one_review_accepts() {
    let out = clausewright(&["playbook", "--domain", "fidic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let playbook: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(playbook["domain"], "fidic");
    // CUAD's 41 categories and the rules' 8 provisions that are not among them.
    assert_eq!(playbook["kinds"].as_object().unwrap().len(), 49);
    // Edited to leave one kind out, it changes what the review reports.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ours.json");
    let mut edited = playbook.clone();
    edited["kinds"]
        .as_object_mut()
        .unwrap()
        .remove("governing_law");
    std::fs::write(&path, edited.to_string()).unwrap();
    let with_default = review_json(&[]);
    assert!(with_default.status.success(), "{}", stderr(&with_default));
    assert!(
        kinds(&with_default).contains(&"governing_law".to_string()),
        "{:?}",
        kinds(&with_default)
    );
    let with_edited = review_json(&["--playbook", path.to_str().unwrap()]);
    assert!(with_edited.status.success(), "{}", stderr(&with_edited));
    assert!(!kinds(&with_edited).contains(&"governing_law".to_string()));
}

#[test]
fn rules_only_leaves_the_classifier_out() {
    let out = review_json(&["--rules-only"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("provision_classifier"));
    let out = review_json(&[]);
    assert!(stdout(&out).contains("provision_classifier"));
}

#[test]
fn a_bad_playbook_or_model_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"domain": "x", "kinds": {"insurance": {"binds_us": "grave", "binds_them": null}}}"#,
    )
    .unwrap();
    let out = review_json(&["--playbook", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("bad.json") && err.contains("kinds.insurance.binds_us"),
        "{err}"
    );
    let model = dir.path().join("model.bin");
    std::fs::write(&model, b"not a model").unwrap();
    let out = review_json(&["--provision-model", model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("model.bin"), "{}", stderr(&out));
    let out = review_json(&["--rules-only", "--provision-model", model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--rules-only"), "{}", stderr(&out));
    // The rules take their levels from a playbook too.
    let good = dir.path().join("good.json");
    std::fs::write(
        &good,
        clausewright_skills::review::Playbook::text_for(
            clausewright_skills::review::Domain::Generic,
        ),
    )
    .unwrap();
    let out = review_json(&["--rules-only", "--playbook", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}
