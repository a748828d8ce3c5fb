use super::*;
use crate::detect::train::tests::{small_recipe, synthetic};

#[test]
fn folds_keep_related_contracts_together_and_cover_every_contract_once() {
    let contracts = synthetic(12);
    let data = Dataset::prepare(&contracts, 1, 1);
    let folds = folds(&data, &small_recipe(), 3);
    let mut all: Vec<usize> = folds.iter().flatten().copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..12).collect::<Vec<_>>());
    assert!(folds.iter().any(|f| f.contains(&0) && f.contains(&1)));
}

#[test]
fn cross_validation_measures_held_out_folds() {
    let contracts = synthetic(12);
    let report = cross_validate(&contracts, &small_recipe(), 3, 2, None).unwrap();
    assert_eq!(report.per_fold.len(), 3);
    assert_eq!(report.mean.contracts, 12);
    let law = report
        .mean
        .categories
        .iter()
        .find(|c| c.category == "Governing Law")
        .unwrap();
    assert_eq!(law.excerpts, 12);
    assert!(law.span_recall.unwrap() > 0.8, "{law:?}");
    let insurance = report
        .mean
        .categories
        .iter()
        .find(|c| c.category == "Insurance")
        .unwrap();
    assert!(
        insurance.false_alarms.is_some(),
        "every third contract lacks insurance"
    );
    assert_eq!(report.per_fold_with_denials.len(), 3);
    assert_eq!(
        report.mean_with_denials, report.mean,
        "no sentence of these contracts denies its category"
    );
    let text = render_cv(&report);
    assert!(
        text.contains("3-fold") && text.contains("Governing Law *"),
        "{text}"
    );
    assert!(text.contains("denial rules"), "{text}");
    assert!(report.per_fold_review.is_empty() && report.mean_review.is_none());
    // The classifier's curve per kind, pooled over the folds; no review curve without one.
    let law_curve = report
        .curves
        .iter()
        .find(|c| c.category == "Governing Law")
        .unwrap();
    assert_eq!(law_curve.excerpts, 12);
    assert!(law_curve.area.unwrap() > 0.8, "{law_curve:?}");
    assert!(law_curve.max_recall.unwrap() > 0.8, "{law_curve:?}");
    assert!(report.review_curves.is_empty());
    assert!(text.contains("precision–recall curves"), "{text}");
    // End to end: each fold's held-out contracts reviewed with the fold's model.
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let report = cross_validate(&contracts, &small_recipe(), 3, 2, Some(&dispatcher)).unwrap();
    assert_eq!(report.per_fold_review.len(), 3);
    let review = report.mean_review.as_ref().unwrap();
    assert_eq!(review.contracts, 12);
    let law = review
        .categories
        .iter()
        .find(|c| c.category == "Governing Law")
        .unwrap();
    assert_eq!(law.excerpts, 12);
    let text = render_cv(&report);
    assert!(text.contains("the review end to end"), "{text}");
    assert_eq!(report.review_curves.len(), report.curves.len());
    let law_review = report
        .review_curves
        .iter()
        .find(|c| c.category == "Governing Law")
        .unwrap();
    assert_eq!(law_review.excerpts, 12);
    assert!(law_review.max_recall.unwrap() > 0.5, "{law_review:?}");
    assert!(text.contains("| review"), "{text}");
    // A category the catalogue does not declare is refused by name.
    let mut strange = contracts.clone();
    let label = strange[0].labels.remove("Insurance").unwrap();
    strange[0].labels.insert("Office Plants".into(), label);
    let err = cross_validate(&strange, &small_recipe(), 3, 2, None).unwrap_err();
    assert!(err.to_string().contains("`Office Plants`"), "{err}");
    assert!(
        cross_validate(&contracts, &small_recipe(), 4, 1, None).is_err(),
        "3 contracts a fold"
    );
}
