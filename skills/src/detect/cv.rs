//! K-fold cross-validation by contract: each fold's model is trained (and calibrated, and
//! its thresholds chosen, see [`super::train`]) on the other folds only, then measured on
//! the fold. Related contracts share a fold.
//!
//! Figures per category, each on the fold's contracts:
//!
//! - **span recall**: labelled excerpts overlapped by a sentence predicted as the category,
//!   over all excerpts; **clause span recall**: the same with the predicted sentence's clause;
//! - **precision**: predicted sentences that overlap an excerpt of the category, over
//!   predicted sentences (0 when nothing is predicted although excerpts exist); **clause
//!   precision**: the same for clauses with a predicted sentence;
//! - **contract recall**: contracts with the category where at least one excerpt is found;
//! - **false alarms**: contracts without the category where a sentence is predicted anyway.
//!
//! A figure with nothing to count (no excerpt, no negative contract) is left out, also of the
//! macro averages over the core and over all categories.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::corpus::LabelledContract;
use super::curve::{curve, excerpt_key, KindCurve, Scored};
use super::dataset::Dataset;
use super::model::ModelError;
use super::train::{fit_on, Counts, Recipe, Selection, TrainError};
use crate::review::cv::{mean_of as review_mean_of, review_fold, ReviewFigures};
use crate::review::kinds::{Catalogued, Provision as Kind};
use crate::review::learned::{negated, LearnedStage};
use toolwright::Dispatcher;

/// The figures of one category.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CategoryFigures {
    /// Category name.
    pub category: String,
    /// One of the 13 core categories.
    pub core: bool,
    /// Labelled excerpts measured.
    pub excerpts: usize,
    /// Excerpts found by a predicted sentence, share.
    pub span_recall: Option<f64>,
    /// Predicted sentences on an excerpt, share.
    pub precision: Option<f64>,
    /// Excerpts found by a predicted clause, share.
    pub clause_span_recall: Option<f64>,
    /// Predicted clauses on an excerpt, share.
    pub clause_precision: Option<f64>,
    /// Contracts with the category where it is found, share.
    pub contract_recall: Option<f64>,
    /// Contracts without the category where it is predicted, share.
    pub false_alarms: Option<f64>,
}

/// Macro averages over a set of categories.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Macro {
    /// Mean span recall.
    pub span_recall: Option<f64>,
    /// Mean precision.
    pub precision: Option<f64>,
    /// Mean clause span recall.
    pub clause_span_recall: Option<f64>,
    /// Mean clause precision.
    pub clause_precision: Option<f64>,
    /// Mean contract recall.
    pub contract_recall: Option<f64>,
    /// Mean false-alarm rate.
    pub false_alarms: Option<f64>,
}

/// The figures of one fold (or their mean over folds).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FoldFigures {
    /// Contracts measured.
    pub contracts: usize,
    /// Per category.
    pub categories: Vec<CategoryFigures>,
    /// Over the 13 core categories.
    pub macro_core: Macro,
    /// Over all categories.
    pub macro_all: Macro,
    /// Mean false-alarm rate over the five categories whose absence matters.
    pub absence_false_alarms: Option<f64>,
    /// The feature set the fold's model kept on its own held-out training contracts (none
    /// for the mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
}

/// The result of a cross-validation.
#[derive(Debug, Clone, Serialize)]
pub struct CvReport {
    /// Number of folds.
    pub folds: usize,
    /// Contracts in all.
    pub contracts: usize,
    /// Share of sentences located in their source (only those can be matched to labels).
    pub located_share: f64,
    /// The contract ids of each fold.
    pub fold_contracts: Vec<Vec<String>>,
    /// Each fold's figures.
    pub per_fold: Vec<FoldFigures>,
    /// The mean of the folds' figures.
    pub mean: FoldFigures,
    /// Each fold's figures with the review's second stage applied: a predicted sentence the
    /// denial rules read as denying the category ("non-exclusive", "may not be terminated
    /// for convenience", "Nothing … shall restrict") is dropped, as the review drops it.
    pub per_fold_with_denials: Vec<FoldFigures>,
    /// The mean of those.
    pub mean_with_denials: FoldFigures,
    /// Each fold's held-out contracts reviewed end to end with the fold's model (when a
    /// dispatcher was given): the findings at medium or high, as a reader sees them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_fold_review: Vec<ReviewFigures>,
    /// The mean of those.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_review: Option<ReviewFigures>,
    /// Per kind, the classifier's precision–recall curve over sentences, every held-out
    /// contract of every fold pooled (each scored by the model of the fold that held it out).
    pub curves: Vec<KindCurve>,
    /// Per kind, the review's curve over its (clause, kind) findings at any level, ranked by
    /// the classifier's probability (findings without one: medium or high always counted,
    /// low last), pooled the same way.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub review_curves: Vec<KindCurve>,
}

/// Assigns groups of related contracts to `k` folds: groups in a seeded random order, each
/// to the fold with the fewest contracts so far.
pub(crate) fn folds(data: &Dataset, recipe: &Recipe, k: usize) -> Vec<Vec<usize>> {
    let ids: Vec<&str> = data.docs.iter().map(|d| d.id.as_str()).collect();
    let keys = recipe.group_keys(&ids);
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (d, key) in keys.iter().enumerate() {
        groups.entry(key).or_default().push(d);
    }
    let mut order: Vec<Vec<usize>> = groups.into_values().collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(recipe.seed ^ 0xf01d));
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); k];
    for group in order {
        let smallest = (0..k).min_by_key(|&f| (out[f].len(), f)).unwrap_or(0);
        out[smallest].extend(group);
    }
    for fold in &mut out {
        fold.sort_unstable();
    }
    out
}

/// Runs `k`-fold cross-validation of the recipe on the contracts; with `review`, each fold's
/// held-out contracts are also reviewed end to end with the fold's model
/// ([`crate::review::cv`]).
pub fn cross_validate(
    contracts: &[LabelledContract],
    recipe: &Recipe,
    k: usize,
    threads: usize,
    review: Option<&Dispatcher>,
) -> Result<CvReport, TrainError> {
    recipe.validate()?;
    if k < 2 || contracts.len() < 4 * k {
        return Err(TrainError::Recipe(format!(
            "cross-validation needs at least 2 folds and 4 contracts per fold ({} contracts, {k} folds)",
            contracts.len()
        )));
    }
    let data = Dataset::prepare(contracts, recipe.min_df, threads);
    let folds = folds(&data, recipe, k);
    let mut per_fold = Vec::new();
    let mut per_fold_denied = Vec::new();
    let mut per_fold_review = Vec::new();
    // Per category, the classifier's scored sentences and the excerpts, pooled over folds.
    let mut scored: Vec<(Vec<Scored>, usize)> = vec![(Vec::new(), 0); data.categories.len()];
    let kinds = data
        .categories
        .iter()
        .map(|c| Kind::from_title(c).ok_or_else(|| ModelError::UnknownCategory { name: c.clone() }))
        .collect::<Result<Vec<Kind>, _>>()?;
    for (f, test) in folds.iter().enumerate() {
        let train: Vec<usize> = (0..data.docs.len())
            .filter(|d| test.binary_search(d).is_err())
            .collect();
        tracing::info!(fold = f + 1, train = train.len(), test = test.len(), "fold");
        let (model, selection) = fit_on(&data, &train, recipe, threads)?;
        let mut counts = vec![Counts::default(); data.categories.len()];
        let mut counts_denied = counts.clone();
        for &d in test {
            let doc = &data.docs[d];
            let probs: Vec<Vec<f32>> = doc
                .units
                .iter()
                .map(|u| model.probabilities(&u.terms))
                .collect();
            for (c, (units, excerpts)) in scored.iter_mut().enumerate() {
                score_sentences(
                    d,
                    doc.units.len(),
                    &doc.truth[c],
                    |u| probs[u][c],
                    units,
                    excerpts,
                );
            }
            for (c, (total, total_denied)) in counts.iter_mut().zip(&mut counts_denied).enumerate()
            {
                let predicted = |u: usize| model.decides(c, probs[u][c]);
                total.add(&Counts::of(doc, &doc.truth[c], predicted));
                total_denied.add(&Counts::of(doc, &doc.truth[c], |u| {
                    predicted(u) && !negated(kinds[c], &doc.units[u].text)
                }));
            }
        }
        let mut fold = figures(&kinds, &counts, test.len());
        fold.selection = Some(selection);
        per_fold.push(fold);
        per_fold_denied.push(figures(&kinds, &counts_denied, test.len()));
        if let Some(dispatcher) = review {
            let held_out: Vec<(usize, &LabelledContract)> =
                test.iter().map(|&d| (d, &contracts[d])).collect();
            let stage = LearnedStage::from_model(model);
            per_fold_review.push(review_fold(dispatcher, &stage, &held_out, &kinds, threads));
        }
    }
    let (located, total) = data
        .docs
        .iter()
        .fold((0, 0), |(a, b), d| (a + d.located.0, b + d.located.1));
    let mean = mean_of(&per_fold);
    let curves = kinds
        .iter()
        .zip(scored)
        .map(|(kind, (units, excerpts))| {
            curve(kind.title(), kind.entry().scoring.core, units, excerpts)
        })
        .collect();
    let review_curves = pooled_review_curves(&kinds, &per_fold_review);
    Ok(CvReport {
        folds: k,
        contracts: data.docs.len(),
        located_share: located as f64 / total.max(1) as f64,
        fold_contracts: folds
            .iter()
            .map(|f| f.iter().map(|&d| data.docs[d].id.clone()).collect())
            .collect(),
        per_fold,
        mean,
        mean_with_denials: mean_of(&per_fold_denied),
        per_fold_with_denials: per_fold_denied,
        mean_review: (!per_fold_review.is_empty()).then(|| review_mean_of(&per_fold_review)),
        per_fold_review,
        curves,
        review_curves,
    })
}

/// Sentences scored below it are left off a curve: they would only count at thresholds
/// no one sets, and there are millions of them.
const CURVE_FLOOR: f32 = 0.02;

/// Adds the `sentences` sentences of contract `d` for one category, scored by
/// `probability`, to `units`, and its excerpts to `excerpts` (a contract the labels do not
/// list adds nothing).
fn score_sentences(
    d: usize,
    sentences: usize,
    truth: &super::dataset::Truth,
    probability: impl Fn(usize) -> f32,
    units: &mut Vec<Scored>,
    excerpts: &mut usize,
) {
    if !truth.listed {
        return;
    }
    *excerpts += truth.excerpt_sentences.len();
    let mut covers: Vec<Vec<u64>> = vec![Vec::new(); sentences];
    for (e, on) in truth.excerpt_sentences.iter().enumerate() {
        for &u in on {
            if let Some(c) = covers.get_mut(u as usize) {
                c.push(excerpt_key(d, e));
            }
        }
    }
    for (u, covers) in covers.into_iter().enumerate() {
        let score = probability(u);
        if score >= CURVE_FLOOR {
            units.push(Scored {
                score,
                located: truth.hit_sentences.binary_search(&(u as u32)).is_ok(),
                covers,
            });
        }
    }
}

/// The review's curves, each kind's findings pooled over the folds.
fn pooled_review_curves(kinds: &[Kind], folds: &[ReviewFigures]) -> Vec<KindCurve> {
    if folds.is_empty() {
        return Vec::new();
    }
    kinds
        .iter()
        .enumerate()
        .map(|(c, kind)| {
            let mut units = Vec::new();
            let mut excerpts = 0;
            for fold in folds {
                if let Some((u, e)) = fold.scored.get(c) {
                    units.extend(u.iter().cloned());
                    excerpts += e;
                }
            }
            curve(kind.title(), kind.entry().scoring.core, units, excerpts)
        })
        .collect()
}

/// `a / b`, none when there is nothing to count.
pub(crate) fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

fn figures(kinds: &[Kind], counts: &[Counts], contracts: usize) -> FoldFigures {
    let categories: Vec<CategoryFigures> = kinds
        .iter()
        .zip(counts)
        .map(|(kind, n)| {
            let precision = |correct: usize, predicted: usize| {
                if predicted > 0 {
                    ratio(correct, predicted)
                } else if n.excerpts > 0 {
                    Some(0.0)
                } else {
                    None
                }
            };
            CategoryFigures {
                category: kind.title().to_string(),
                core: kind.entry().scoring.core,
                excerpts: n.excerpts,
                span_recall: ratio(n.found_sentence, n.excerpts),
                precision: precision(n.correct_sentences, n.predicted_sentences),
                clause_span_recall: ratio(n.found_clause, n.excerpts),
                clause_precision: precision(n.correct_clauses, n.predicted_clauses),
                contract_recall: ratio(n.present_found, n.present),
                false_alarms: ratio(n.absent_alarmed, n.absent),
            }
        })
        .collect();
    summarise(contracts, categories)
}

fn summarise(contracts: usize, categories: Vec<CategoryFigures>) -> FoldFigures {
    let core: Vec<&CategoryFigures> = categories.iter().filter(|c| c.core).collect();
    let all: Vec<&CategoryFigures> = categories.iter().collect();
    let absence: Vec<Option<f64>> = categories
        .iter()
        .filter(|c| {
            Kind::from_title(&c.category).is_some_and(|k| Kind::absence_matters().any(|a| a == k))
        })
        .map(|c| c.false_alarms)
        .collect();
    FoldFigures {
        contracts,
        macro_core: macro_of(&core),
        macro_all: macro_of(&all),
        absence_false_alarms: mean(absence),
        categories,
        selection: None,
    }
}

/// The mean of the figures there are.
pub(crate) fn mean(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.into_iter().flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn macro_of(categories: &[&CategoryFigures]) -> Macro {
    Macro {
        span_recall: mean(categories.iter().map(|c| c.span_recall)),
        precision: mean(categories.iter().map(|c| c.precision)),
        clause_span_recall: mean(categories.iter().map(|c| c.clause_span_recall)),
        clause_precision: mean(categories.iter().map(|c| c.clause_precision)),
        contract_recall: mean(categories.iter().map(|c| c.contract_recall)),
        false_alarms: mean(categories.iter().map(|c| c.false_alarms)),
    }
}

/// The mean of the folds: per category the mean of each figure over the folds where it is
/// defined; the macro figures the mean of the folds' macro figures.
fn mean_of(folds: &[FoldFigures]) -> FoldFigures {
    let Some(first) = folds.first() else {
        return FoldFigures::default();
    };
    let categories = (0..first.categories.len())
        .map(|c| {
            let each = |f: fn(&CategoryFigures) -> Option<f64>| {
                mean(folds.iter().map(|fold| f(&fold.categories[c])))
            };
            CategoryFigures {
                category: first.categories[c].category.clone(),
                core: first.categories[c].core,
                excerpts: folds.iter().map(|f| f.categories[c].excerpts).sum(),
                span_recall: each(|c| c.span_recall),
                precision: each(|c| c.precision),
                clause_span_recall: each(|c| c.clause_span_recall),
                clause_precision: each(|c| c.clause_precision),
                contract_recall: each(|c| c.contract_recall),
                false_alarms: each(|c| c.false_alarms),
            }
        })
        .collect();
    let macro_mean = |m: fn(&FoldFigures) -> &Macro| {
        let each = |f: fn(&Macro) -> Option<f64>| mean(folds.iter().map(|fold| f(m(fold))));
        Macro {
            span_recall: each(|m| m.span_recall),
            precision: each(|m| m.precision),
            clause_span_recall: each(|m| m.clause_span_recall),
            clause_precision: each(|m| m.clause_precision),
            contract_recall: each(|m| m.contract_recall),
            false_alarms: each(|m| m.false_alarms),
        }
    };
    FoldFigures {
        contracts: folds.iter().map(|f| f.contracts).sum(),
        categories,
        macro_core: macro_mean(|f| &f.macro_core),
        macro_all: macro_mean(|f| &f.macro_all),
        absence_false_alarms: mean(folds.iter().map(|f| f.absence_false_alarms)),
        selection: None,
    }
}

/// The report as text: the mean per category, then each fold's macro figures.
pub fn render_cv(report: &CvReport) -> String {
    use std::fmt::Write as _;
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.2}", v));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}-fold cross-validation by contract, {} contracts ({:.1}% of sentences located in their source)\n",
        report.folds,
        report.contracts,
        report.located_share * 100.0
    );
    let _ = writeln!(
        out,
        "{:<36} {:>5} {:>7} {:>6} {:>7} {:>6} {:>7} {:>6}",
        "category (mean over folds)",
        "spans",
        "recall",
        "prec",
        "cl.rec",
        "cl.pre",
        "ctr.rec",
        "f.alarm"
    );
    let mut rows: Vec<&CategoryFigures> = report.mean.categories.iter().collect();
    rows.sort_by_key(|c| (!c.core, c.category.clone()));
    for c in rows {
        let _ = writeln!(
            out,
            "{:<36} {:>5} {:>7} {:>6} {:>7} {:>6} {:>7} {:>6}",
            format!("{}{}", c.category, if c.core { " *" } else { "" }),
            c.excerpts,
            pct(c.span_recall),
            pct(c.precision),
            pct(c.clause_span_recall),
            pct(c.clause_precision),
            pct(c.contract_recall),
            pct(c.false_alarms)
        );
    }
    let _ = writeln!(out, "\n* core category\n");
    let line = |out: &mut String, label: &str, f: &FoldFigures| {
        for (name, m) in [("core 13", &f.macro_core), ("all", &f.macro_all)] {
            let _ = writeln!(
                out,
                "{label:<8} {name:<8} recall {} precision {} | clause recall {} clause precision {} | contract recall {} false alarms {}",
                pct(m.span_recall),
                pct(m.precision),
                pct(m.clause_span_recall),
                pct(m.clause_precision),
                pct(m.contract_recall),
                pct(m.false_alarms)
            );
        }
        let _ = writeln!(
            out,
            "{label:<8} false alarms on the five categories whose absence matters: {}",
            pct(f.absence_false_alarms)
        );
        if let Some(selection) = &f.selection {
            let tried: Vec<String> = selection
                .candidates
                .iter()
                .map(|(set, f1)| format!("{} {f1:.3}", set.name()))
                .collect();
            let _ = writeln!(
                out,
                "{label:<8} feature set kept on held-out training contracts: {} (mean F1 {})",
                selection.kept.name(),
                tried.join(", ")
            );
        }
    };
    for (i, fold) in report.per_fold.iter().enumerate() {
        line(&mut out, &format!("fold {}", i + 1), fold);
    }
    line(&mut out, "mean", &report.mean);
    let _ = writeln!(
        out,
        "\nwith the review's denial rules (a predicted sentence that denies the category is dropped):"
    );
    for (i, fold) in report.per_fold_with_denials.iter().enumerate() {
        line(&mut out, &format!("fold {}", i + 1), fold);
    }
    line(&mut out, "mean", &report.mean_with_denials);
    if let Some(mean) = &report.mean_review {
        out.push_str(&render_review(&report.per_fold_review, mean));
    }
    let _ = writeln!(
        out,
        "\nprecision–recall curves per kind (held-out contracts of all folds pooled): area (average precision), precision at 80% recall, highest recall; the classifier over sentences, the review over its (clause, kind) findings ranked by probability:\n"
    );
    let mut sources: Vec<(&str, &[KindCurve])> = vec![("model", &report.curves)];
    if !report.review_curves.is_empty() {
        sources.push(("review", &report.review_curves));
    }
    out.push_str(&super::curve::render(&sources));
    out
}

/// The end-to-end part of the report: the review's findings at medium or high.
fn render_review(folds: &[ReviewFigures], mean: &ReviewFigures) -> String {
    use std::fmt::Write as _;
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.2}", v));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nthe review end to end (rules, the fold's classifier, generic playbook; both parties' sides), findings at medium or high:\n"
    );
    let _ = writeln!(
        out,
        "{:<36} {:>5} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "category (mean over folds)",
        "spans",
        "found",
        "prec",
        "recall",
        "rec.any",
        "ctr.rec",
        "f.alarm",
        "abs.pres"
    );
    let mut rows: Vec<_> = mean
        .categories
        .iter()
        .filter(|c| c.excerpts > 0 || c.findings > 0)
        .collect();
    rows.sort_by_key(|c| (!c.core, c.category.clone()));
    for c in rows {
        let _ = writeln!(
            out,
            "{:<36} {:>5} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8}",
            format!("{}{}", c.category, if c.core { " *" } else { "" }),
            c.excerpts,
            c.findings,
            pct(c.precision),
            pct(c.recall),
            pct(c.recall_any_level),
            pct(c.contract_recall),
            pct(c.false_alarms),
            pct(c.absence_when_present)
        );
    }
    let _ = writeln!(
        out,
        "\nfound: findings over all folds; rec.any: recall counting low findings (to check) too; abs.pres: contracts with the category where the review says the agreement lacks it\n"
    );
    let line = |out: &mut String, label: &str, f: &ReviewFigures| {
        let m = &f.macro_core;
        let _ = writeln!(
            out,
            "{label:<8} core 13  precision {} recall {} (any level {}) | contract recall {} false alarms {} | absence said when present {} | false alarms on the five {}",
            pct(m.precision),
            pct(m.recall),
            pct(m.recall_any_level),
            pct(m.contract_recall),
            pct(m.false_alarms),
            pct(m.absence_when_present),
            pct(f.absence_false_alarms)
        );
    };
    for (i, fold) in folds.iter().enumerate() {
        line(&mut out, &format!("fold {}", i + 1), fold);
    }
    line(&mut out, "mean", mean);
    out
}

#[cfg(test)]
mod tests;
