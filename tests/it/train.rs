//! `clausewright train` as a firm would run it on its own labelled contracts (CUAD's label
//! format), and the model it writes used by `review --provision-model`. The contracts are
//! our own wording, made here.

use std::path::Path;

use serde_json::{json, Value};

use crate::cli::{clausewright, stderr, stdout};

const PLACES: [&str; 4] = ["Ohio", "Ontario", "Victoria", "Bavaria"];
const FILLER: [&str; 3] = [
    "The Supplier shall deliver the goods to the warehouse named in each order.",
    "Invoices are payable within thirty days of receipt by bank transfer.",
    "Notices shall be in writing and delivered by hand or by courier.",
];

/// Writes `n` contracts and `labels.jsonl` into `dir`: every contract has a governing-law
/// clause (labelled with its character offsets) among clauses of no category.
fn corpus(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir.join("contracts")).unwrap();
    let mut labels = String::new();
    for i in 0..n {
        let mut text = format!("SUPPLY AGREEMENT {i}\n\n");
        for (k, filler) in FILLER.iter().enumerate() {
            text.push_str(&format!("{}. Terms {k}. {filler}\n\n", k + 1));
        }
        let clause = format!(
            "This Agreement is governed by the laws of {}, without regard to its conflict of laws rules.",
            PLACES[i % PLACES.len()]
        );
        text.push_str("4. Governing Law. ");
        let start = text.chars().count();
        text.push_str(&clause);
        let end = text.chars().count();
        text.push('\n');
        let path = format!("contracts/c{i:02}.txt");
        std::fs::write(dir.join(&path), &text).unwrap();
        let record = json!({
            "id": format!("c{i:02}"),
            "path": path,
            "categories": {"Governing Law": {"present": true, "excerpts": [{"start": start, "end": end}]}},
        });
        labels.push_str(&record.to_string());
        labels.push('\n');
    }
    std::fs::write(dir.join("labels.jsonl"), labels).unwrap();
}

fn recipe(dir: &Path, feature_sets: Value) -> String {
    let path = dir.join("recipe.json");
    let recipe = json!({
        "seed": 7, "min_df": 1, "max_terms": 5000, "negatives_per_positive": 10.0,
        "positive_weight": 2.0, "validation_share": 0.25,
        "ftrl": {"alpha": 0.5, "beta": 1.0, "l1": 0.01, "l2": 0.1, "epochs": 8},
        "feature_sets": feature_sets,
    });
    std::fs::write(&path, recipe.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_firm_trains_on_its_contracts_and_reviews_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 12);
    let model = dir.path().join("firm.bin");
    let recipe = recipe(dir.path(), json!(["sentence", "sentence_and_previous"]));
    let corpus_dir = dir.path().to_str().unwrap();
    let args = [
        "train",
        "--corpus",
        corpus_dir,
        "--recipe",
        &recipe,
        "--out",
        model.to_str().unwrap(),
    ];
    let out = clausewright(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("12 contracts"), "{said}");
    assert!(
        said.contains("feature set kept on held-out contracts"),
        "{said}"
    );
    let first = std::fs::read(&model).unwrap();
    let again = clausewright(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        std::fs::read(&model).unwrap(),
        first,
        "same corpus and recipe, same bytes"
    );

    let contract = dir.path().join("ours.md");
    std::fs::write(
        &contract,
        "# Services Agreement\n\n## 1 Services\n\n1.1 The Supplier shall deliver the goods to the warehouse named in each order.\n\n## 2 Law\n\n2.1 This Agreement is governed by the laws of Quebec, without regard to its conflict of laws rules.\n",
    )
    .unwrap();
    let out = clausewright(&[
        "review",
        contract.to_str().unwrap(),
        "--provision-model",
        model.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let found = report["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["risks"].as_array().unwrap())
        .any(|r| r["risk_type"] == "governing_law" && r["source_skill"] == "provision_classifier");
    assert!(found, "{report:#}");
}

#[test]
fn a_bad_recipe_or_corpus_is_named() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path(), 12);
    let model = dir.path().join("firm.bin");
    let corpus_dir = dir.path().to_str().unwrap();
    let bad = recipe(dir.path(), json!(["sentence", "words"]));
    let out = clausewright(&[
        "train",
        "--corpus",
        corpus_dir,
        "--recipe",
        &bad,
        "--out",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown variant `words`"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("feature_sets"), "{}", stderr(&out));
    let empty = recipe(dir.path(), json!([]));
    let out = clausewright(&[
        "train",
        "--corpus",
        corpus_dir,
        "--recipe",
        &empty,
        "--out",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("feature_sets needs at least one"),
        "{}",
        stderr(&out)
    );
    let nowhere = dir.path().join("missing");
    let out = clausewright(&[
        "train",
        "--corpus",
        nowhere.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing"), "{}", stderr(&out));
    assert!(
        !model.exists(),
        "no model is written when training cannot run"
    );
}
