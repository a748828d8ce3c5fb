use std::collections::BTreeMap;

use super::*;
use crate::detect::corpus::{CategoryLabel, Excerpt};
use crate::review::kinds::Catalogued;

/// Clause texts of our own, by category; `None` is boilerplate of no category.
const CLAUSES: [(Option<&str>, &str, &str); 8] = [
        (Some("Governing Law"), "Applicable Law", "This Agreement is governed by the laws of the State of {place}, without regard to its conflict of laws rules."),
        (Some("Anti-Assignment"), "Assignment", "Neither party may assign or transfer this Agreement without the prior written consent of the other party, which shall not be unreasonably withheld."),
        (Some("Insurance"), "Insurance", "The {party} shall maintain general liability insurance with a limit of at least {n} dollars per occurrence and shall name the other party as additional insured."),
        (None, "Payment", "The {party} shall pay each invoice within {n} days of receipt by bank transfer to the account named in the invoice."),
        (None, "Notices", "Notices shall be in writing and delivered by hand or by courier to the address of the {party} stated above."),
        (None, "Delivery", "The {party} shall deliver the products to the warehouse in {place} packed for transport by road."),
        (None, "Confidentiality", "Each party shall keep confidential the information disclosed to it by the {party} and use it only for this Agreement."),
        (None, "Counterparts", "This Agreement may be signed in counterparts, each of which is an original and all of which are one instrument."),
    ];
const PLACES: [&str; 4] = ["Ohio", "Texas", "Victoria", "Ontario"];
const PARTIES: [&str; 3] = ["Supplier", "Distributor", "Licensee"];

/// `n` contracts of our own wording with their labels (character offsets).
pub(crate) fn synthetic(n: usize) -> Vec<LabelledContract> {
    (0..n)
            .map(|i| {
                let mut text = format!("SUPPLY AGREEMENT {i}\n\nThis Agreement is made between the parties named below.\n\n");
                let mut labels: BTreeMap<String, CategoryLabel> = ["Governing Law", "Anti-Assignment", "Insurance"]
                    .iter()
                    .map(|c| (c.to_string(), CategoryLabel { present: false, excerpts: Vec::new() }))
                    .collect();
                let mut number = 0;
                for k in 0..CLAUSES.len() {
                    let (category, title, body) = CLAUSES[(k + i) % CLAUSES.len()];
                    // Every third contract lacks insurance: a negative for it.
                    if category == Some("Insurance") && i % 3 == 0 {
                        continue;
                    }
                    number += 1;
                    text.push_str(&format!("{number}. {title}\n\n"));
                    let body = body
                        .replace("{place}", PLACES[(i + k) % PLACES.len()])
                        .replace("{party}", PARTIES[(i * 7 + k) % PARTIES.len()])
                        .replace("{n}", &format!("{}", 10 + i * 5 + k));
                    let start = text.len();
                    text.push_str(&body);
                    let end = text.len();
                    text.push_str("\n\n");
                    if let Some(category) = category {
                        let label = labels.get_mut(category).expect("listed");
                        label.present = true;
                        label.excerpts.push(Excerpt {
                            pieces: std::iter::once(start..end).collect(),
                        });
                    }
                }
                LabelledContract { id: format!("c{i:02}"), text, labels }
            })
            .collect()
}

pub(crate) fn small_recipe() -> Recipe {
    Recipe {
        min_df: 1,
        negatives_per_positive: 10.0,
        ftrl: FtrlParams {
            alpha: 0.5,
            beta: 1.0,
            l1: 0.01,
            l2: 0.1,
            epochs: 8,
        },
        related: vec![vec!["c00".into(), "c01".into()]],
        ..Recipe::default()
    }
}

#[test]
fn training_is_deterministic_and_learns_the_categories() {
    let contracts = synthetic(12);
    let (a, summary) = train(&contracts, &small_recipe(), 2).unwrap();
    let (b, _) = train(&contracts, &small_recipe(), 1).unwrap();
    assert_eq!(
        a.to_bytes(),
        b.to_bytes(),
        "same corpus and recipe, same bytes"
    );
    assert_eq!(summary.contracts, 12);
    assert!(summary.located_share > 0.99, "{summary:?}");
    let kinds: Vec<&str> = a.kinds().map(|k| k.title()).collect();
    assert_eq!(kinds, ["Anti-Assignment", "Governing Law", "Insurance"]);
    let probs = a.sentence_probabilities(
        "Governing Law",
        None,
        "This Agreement shall be governed by the laws of the State of Georgia.",
    );
    let thresholds: Vec<f32> = a.thresholds().collect();
    assert!(probs[1] >= thresholds[1], "{probs:?} {thresholds:?}");
    assert!(
        probs[0] < thresholds[0] && probs[2] < thresholds[2],
        "{probs:?} {thresholds:?}"
    );
}

#[test]
fn groups_stay_together_when_held_out() {
    let contracts = synthetic(12);
    let data = Dataset::prepare(&contracts, 1, 1);
    let recipe = small_recipe();
    let all: Vec<usize> = (0..12).collect();
    for seed in 0..20 {
        let (train, held) = split_by_group(&data, &all, &recipe, 0.25, seed);
        assert_eq!(train.len() + held.len(), 12);
        assert_eq!(held.contains(&0), held.contains(&1), "seed {seed}");
    }
}

#[test]
fn a_recipe_out_of_range_is_refused() {
    let recipe = Recipe {
        validation_share: 1.5,
        ..Recipe::default()
    };
    assert!(recipe
        .validate()
        .unwrap_err()
        .to_string()
        .contains("validation_share"));
    let recipe = Recipe {
        serious_precision: 1.2,
        ..Recipe::default()
    };
    assert!(recipe
        .validate()
        .unwrap_err()
        .to_string()
        .contains("serious_precision"));
    assert!(matches!(
        train(&synthetic(2), &Recipe::default(), 1),
        Err(TrainError::TooFew(2))
    ));
}

#[test]
fn a_feature_set_is_kept_on_held_out_contracts() {
    let contracts = synthetic(12);
    let recipe = Recipe {
        feature_sets: vec![FeatureSet::Sentence, FeatureSet::SentenceAndPrevious],
        ..small_recipe()
    };
    let (model, summary) = train(&contracts, &recipe, 2).unwrap();
    let tried: Vec<FeatureSet> = summary
        .selection
        .candidates
        .iter()
        .map(|(f, _)| *f)
        .collect();
    assert_eq!(tried, recipe.feature_sets);
    let best = summary
        .selection
        .candidates
        .iter()
        .map(|(_, f1)| *f1)
        .fold(f64::MIN, f64::max);
    let kept = summary
        .selection
        .candidates
        .iter()
        .find(|(f, _)| *f == summary.selection.kept);
    assert_eq!(kept.map(|(_, f1)| *f1), Some(best));
    let previous_terms = model
        .terms()
        .filter(|t| t.starts_with(PREVIOUS_PREFIX))
        .count();
    assert_eq!(
        previous_terms > 0,
        summary.selection.kept == FeatureSet::SentenceAndPrevious,
        "the vocabulary holds the previous sentence's words only when that set was kept"
    );
    let (again, _) = train(&contracts, &recipe, 1).unwrap();
    assert_eq!(
        model.to_bytes(),
        again.to_bytes(),
        "the choice is deterministic"
    );
    let only_sentence = train(&contracts, &small_recipe(), 1).unwrap().0;
    assert_eq!(
        only_sentence
            .terms()
            .filter(|t| t.starts_with(PREVIOUS_PREFIX))
            .count(),
        0
    );
}

#[test]
fn feature_sets_must_be_named_once() {
    for sets in [vec![], vec![FeatureSet::Sentence, FeatureSet::Sentence]] {
        let recipe = Recipe {
            feature_sets: sets,
            ..Recipe::default()
        };
        assert!(recipe
            .validate()
            .unwrap_err()
            .to_string()
            .contains("feature_sets"));
    }
    let parsed: Recipe =
            serde_json::from_str(r#"{"seed": 1, "min_df": 1, "max_terms": 10, "negatives_per_positive": 1.0, "positive_weight": 1.0, "validation_share": 0.25, "ftrl": {"alpha": 0.1, "beta": 1.0, "l1": 0.0, "l2": 0.0, "epochs": 1}}"#)
                .unwrap();
    assert_eq!(
        parsed.feature_sets,
        [FeatureSet::Sentence],
        "older recipes read as before"
    );
}
