//! Training: the recipe, the fit of one model on a set of contracts, and the choice of its
//! calibration and thresholds on contracts it was not fitted on.
//!
//! Fitting on contracts `T`:
//!
//! 1. `T` is split by group of related contracts into an inner training part (`1 − s`) and a
//!    validation part (`s`, the recipe's `validation_share`).
//! 2. A model fitted on the inner training part scores the validation sentences; per
//!    category, Platt scaling is fitted on those scores and the decision threshold is the one
//!    that maximises F1 of span recall and sentence precision on them.
//! 3. With several candidate feature sets in the recipe (`feature_sets`), steps 1–2 run for
//!    each and the one with the best mean F1 over the categories on the validation part is
//!    kept: the choice, like the thresholds, never sees the contracts the model is measured
//!    on.
//! 4. The model is fitted again on all of `T` with that feature set and takes that
//!    calibration and threshold.
//!
//! Per category the learner sees every sentence mostly covered by a labelled excerpt as a
//! positive, sentences touching an excerpt only at their edge not at all, and a seeded sample
//! of the other sentences (`negatives_per_positive` per positive) as negatives: with
//! categories present in 2–10% of sentences or far fewer, this both balances the classes and
//! cuts training time; the calibration on untouched validation sentences undoes the bias.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::corpus::LabelledContract;
use super::dataset::{Dataset, Doc, Truth};
use super::features::{idf, tf_idf, PREVIOUS_PREFIX};
use super::logistic::{fit, FtrlParams, Linear, Platt, Rows};
use super::model::{CategoryModel, ModelError, ProvisionModel};
use crate::parallel::map_uneven;

/// Everything that decides the model besides the labelled contracts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Seed of every shuffle and sample.
    pub seed: u64,
    /// A term is in the vocabulary when at least this many training sentences have it.
    pub min_df: u32,
    /// At most this many terms, the most frequent (ties by text).
    pub max_terms: usize,
    /// Negative sentences sampled per positive one, per category.
    pub negatives_per_positive: f64,
    /// Weight of a positive sentence in the loss.
    pub positive_weight: f64,
    /// Share of the training contracts held out to calibrate and choose thresholds.
    pub validation_share: f64,
    /// The learner's parameters.
    pub ftrl: FtrlParams,
    /// Candidate feature sets; with more than one, each fit keeps the one that scores best
    /// on its own held-out contracts (step 3 of the module docs).
    #[serde(default = "only_the_sentence")]
    pub feature_sets: Vec<FeatureSet>,
    /// Groups of related contracts (parts of one filing, one template), by record id: a
    /// group is never split between training and validation or between folds.
    #[serde(default)]
    pub related: Vec<Vec<String>>,
    /// The clause precision, on the held-out training contracts, from which each
    /// category's findings may be serious (medium or high): the threshold for serious
    /// findings is the lowest reaching it (see `choose_serious`).
    #[serde(default = "default_serious_precision")]
    pub serious_precision: f64,
}

fn default_serious_precision() -> f64 {
    0.8
}

impl Default for Recipe {
    fn default() -> Self {
        Recipe {
            seed: 20_211_206,
            min_df: 3,
            max_terms: 60_000,
            negatives_per_positive: 30.0,
            positive_weight: 2.0,
            validation_share: 0.25,
            ftrl: FtrlParams {
                alpha: 0.3,
                beta: 1.0,
                l1: 0.5,
                l2: 1.0,
                epochs: 6,
            },
            feature_sets: only_the_sentence(),
            related: Vec::new(),
            serious_precision: default_serious_precision(),
        }
    }
}

/// Which words describe a sentence besides its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureSet {
    /// The sentence's words and word pairs, and its clause heading's words.
    Sentence,
    /// Those, and the words of the sentence before it in the clause.
    SentenceAndPrevious,
}

impl FeatureSet {
    /// Its name in the recipe.
    pub fn name(self) -> &'static str {
        match self {
            FeatureSet::Sentence => "sentence",
            FeatureSet::SentenceAndPrevious => "sentence_and_previous",
        }
    }
}

fn only_the_sentence() -> Vec<FeatureSet> {
    vec![FeatureSet::Sentence]
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The recipe is out of range.
    #[error("training recipe: {0}")]
    Recipe(String),
    /// Too few contracts to hold some out.
    #[error("{0} labelled contracts: training needs at least 4 (some are held out to calibrate)")]
    TooFew(usize),
    /// The fitted model could not be assembled.
    #[error(transparent)]
    Model(#[from] ModelError),
}

impl Recipe {
    /// Checks the ranges of the recipe's figures.
    pub fn validate(&self) -> Result<(), TrainError> {
        let bad = |what: &str| Err(TrainError::Recipe(what.to_string()));
        if !(self.validation_share > 0.0 && self.validation_share < 1.0) {
            return bad("validation_share must lie strictly between 0 and 1");
        }
        if !(0.0..=1.0).contains(&self.serious_precision) {
            return bad("serious_precision must lie between 0 and 1");
        }
        if self.negatives_per_positive <= 0.0 || self.positive_weight <= 0.0 {
            return bad("negatives_per_positive and positive_weight must be positive");
        }
        if self.max_terms == 0 || self.min_df == 0 {
            return bad("max_terms and min_df must be at least 1");
        }
        let f = &self.ftrl;
        if f.alpha <= 0.0 || f.beta < 0.0 || f.l1 < 0.0 || f.l2 < 0.0 || f.epochs == 0 {
            return bad("ftrl needs alpha > 0, beta, l1, l2 >= 0 and epochs >= 1");
        }
        if self.feature_sets.is_empty() {
            return bad(
                "feature_sets needs at least one of \"sentence\", \"sentence_and_previous\"",
            );
        }
        if self
            .feature_sets
            .iter()
            .enumerate()
            .any(|(i, f)| self.feature_sets[..i].contains(f))
        {
            return bad("feature_sets names a feature set twice");
        }
        Ok(())
    }

    /// The group key of each contract: the first id of its related group, or its own id.
    pub(crate) fn group_keys(&self, ids: &[&str]) -> Vec<String> {
        let mut key: BTreeMap<&str, &str> = BTreeMap::new();
        for group in &self.related {
            if let Some(first) = group.first() {
                for id in group {
                    key.insert(id, first);
                }
            }
        }
        ids.iter()
            .map(|id| key.get(id).copied().unwrap_or(id).to_string())
            .collect()
    }
}

/// What training reports.
#[derive(Debug, Clone, Serialize)]
pub struct TrainSummary {
    /// Contracts trained on.
    pub contracts: usize,
    /// Sentences (units) trained on.
    pub sentences: usize,
    /// Share of sentences located in their source text (the others cannot carry labels).
    pub located_share: f64,
    /// Terms in the vocabulary.
    pub terms: usize,
    /// Categories, with their positive training sentences and threshold.
    pub categories: Vec<(String, usize, f32)>,
    /// The feature set kept, and each candidate's mean F1 on the held-out contracts.
    pub selection: Selection,
}

/// The feature set a fit kept, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selection {
    /// The feature set kept.
    pub kept: FeatureSet,
    /// Each candidate with its mean F1 over the categories on the held-out contracts.
    pub candidates: Vec<(FeatureSet, f64)>,
}

/// Trains a model on every contract given.
pub fn train(
    contracts: &[LabelledContract],
    recipe: &Recipe,
    threads: usize,
) -> Result<(ProvisionModel, TrainSummary), TrainError> {
    recipe.validate()?;
    if contracts.len() < 4 {
        return Err(TrainError::TooFew(contracts.len()));
    }
    let data = Dataset::prepare(contracts, recipe.min_df, threads);
    let all: Vec<usize> = (0..data.docs.len()).collect();
    let (model, selection) = fit_on(&data, &all, recipe, threads)?;
    let (located, total) = data
        .docs
        .iter()
        .fold((0, 0), |(a, b), d| (a + d.located.0, b + d.located.1));
    let summary = TrainSummary {
        contracts: contracts.len(),
        sentences: total,
        located_share: located as f64 / total.max(1) as f64,
        terms: model.vocabulary_len(),
        categories: data
            .categories
            .iter()
            .zip(model.thresholds())
            .enumerate()
            .map(|(c, (name, t))| {
                let positives = data.docs.iter().map(|d| d.truth[c].positive.len()).sum();
                (name.clone(), positives, t)
            })
            .collect(),
        selection,
    };
    Ok((model, summary))
}

/// Splits `docs` by group: (training part, validation part of about `share`).
pub(crate) fn split_by_group(
    data: &Dataset,
    docs: &[usize],
    recipe: &Recipe,
    share: f64,
    seed: u64,
) -> (Vec<usize>, Vec<usize>) {
    let ids: Vec<&str> = docs.iter().map(|&d| data.docs[d].id.as_str()).collect();
    let keys = recipe.group_keys(&ids);
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (d, key) in docs.iter().zip(&keys) {
        groups.entry(key).or_default().push(*d);
    }
    let mut order: Vec<Vec<usize>> = groups.into_values().collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let wanted = ((docs.len() as f64) * share).round().max(1.0) as usize;
    let (mut train, mut held) = (Vec::new(), Vec::new());
    for group in order {
        if held.len() < wanted {
            held.extend(group);
        } else {
            train.extend(group);
        }
    }
    train.sort_unstable();
    held.sort_unstable();
    (train, held)
}

/// Fits a model on the documents `docs` of the dataset (see the module docs), with the
/// feature set it kept.
pub(crate) fn fit_on(
    data: &Dataset,
    docs: &[usize],
    recipe: &Recipe,
    threads: usize,
) -> Result<(ProvisionModel, Selection), TrainError> {
    let (inner, validation) = split_by_group(
        data,
        docs,
        recipe,
        recipe.validation_share,
        recipe.seed ^ 0x5eed,
    );
    // The best feature set so far, its mean F1 and its calibrations and thresholds.
    type Best = (FeatureSet, f64, Vec<(Platt, f32, f32)>);
    let mut best: Option<Best> = None;
    let mut candidates = Vec::new();
    for &features in &recipe.feature_sets {
        let first = fit_raw(data, &inner, recipe, features, threads);
        let tuned = tune(data, &validation, &first, threads, recipe.serious_precision);
        let scored: Vec<f64> = tuned.iter().filter_map(|(_, _, _, f1)| *f1).collect();
        let mean_f1 = scored.iter().sum::<f64>() / scored.len().max(1) as f64;
        tracing::info!(?features, mean_f1, "feature set on held-out contracts");
        candidates.push((features, mean_f1));
        if best.as_ref().is_none_or(|(_, b, _)| mean_f1 > *b) {
            let tuned = tuned.into_iter().map(|(p, t, s, _)| (p, t, s)).collect();
            best = Some((features, mean_f1, tuned));
        }
    }
    let (kept, _, tuned) =
        best.ok_or_else(|| TrainError::Recipe("feature_sets is empty".into()))?;
    let full = fit_raw(data, docs, recipe, kept, threads);
    let categories = data
        .categories
        .iter()
        .zip(full.linear)
        .zip(tuned)
        .map(
            |((name, linear), (platt, threshold, serious))| CategoryModel {
                name: name.clone(),
                linear,
                platt,
                threshold,
                serious,
            },
        )
        .collect();
    let model = ProvisionModel::from_parts(docs.len() as u32, full.terms, full.idf, categories)?;
    Ok((model, Selection { kept, candidates }))
}

/// Per category, the Platt calibration fitted on the validation documents' scores, the
/// threshold with the best F1 there, the threshold for serious findings
/// ([`choose_serious`]) and that F1 (`None` when they hold no excerpt).
fn tune(
    data: &Dataset,
    validation: &[usize],
    first: &Raw,
    threads: usize,
    target: f64,
) -> Vec<(Platt, f32, f32, Option<f64>)> {
    // Scores of every validation sentence for every category.
    let scores: Vec<Vec<Vec<f32>>> = validation
        .iter()
        .map(|&d| {
            data.docs[d]
                .units
                .iter()
                .map(|u| {
                    let row = first.vectorize(&u.terms);
                    let r = (
                        row.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                        row.iter().map(|(_, v)| *v).collect::<Vec<_>>(),
                    );
                    first.linear.iter().map(|l| l.score((&r.0, &r.1))).collect()
                })
                .collect()
        })
        .collect();
    let categories: Vec<usize> = (0..data.categories.len()).collect();
    map_uneven(&categories, threads, |&c| {
        let mut s = Vec::new();
        let mut y = Vec::new();
        for (v, &d) in validation.iter().enumerate() {
            let doc = &data.docs[d];
            let truth = &doc.truth[c];
            if !truth.listed {
                continue;
            }
            for (u, unit) in doc.units.iter().enumerate() {
                let u32_ = u as u32;
                if truth.hit_sentences.binary_search(&u32_).is_ok()
                    && truth.positive.binary_search(&u32_).is_err()
                {
                    continue;
                }
                if unit.terms.is_empty() {
                    continue;
                }
                s.push(scores[v][u][c]);
                y.push(truth.positive.binary_search(&u32_).is_ok());
            }
        }
        let platt = Platt::fit(&s, &y);
        let probs: Vec<Vec<f32>> = validation
            .iter()
            .enumerate()
            .map(|(v, _)| {
                scores[v]
                    .iter()
                    .map(|row| platt.probability(row[c]))
                    .collect()
            })
            .collect();
        let docs: Vec<&Doc> = validation.iter().map(|&d| &data.docs[d]).collect();
        let (threshold, f1) = choose_threshold(&docs, c, &probs);
        let serious = choose_serious(&docs, c, &probs, threshold, target);
        (platt, threshold, serious, f1)
    })
}

/// Candidate thresholds (calibrated probability).
fn candidates() -> impl Iterator<Item = f32> {
    (2..=38).map(|i| i as f32 * 0.025)
}

/// The threshold that maximises F1 of span recall and sentence precision for category `c`
/// on `docs` (`probs[d][u]` is the probability of unit `u` of doc `d`), with that F1; 0.5
/// and no F1 when the docs hold no excerpt of the category.
fn choose_threshold(docs: &[&Doc], c: usize, probs: &[Vec<f32>]) -> (f32, Option<f64>) {
    let mut best = (f64::MIN, 0.5f32);
    for t in candidates() {
        let mut total = Counts::default();
        for (doc, p) in docs.iter().zip(probs) {
            total.add(&Counts::of(doc, &doc.truth[c], |u| p[u] >= t));
        }
        if total.excerpts == 0 {
            return (0.5, None);
        }
        let recall = total.found_sentence as f64 / total.excerpts as f64;
        let precision = if total.predicted_sentences == 0 {
            0.0
        } else {
            total.correct_sentences as f64 / total.predicted_sentences as f64
        };
        let f1 = if recall + precision == 0.0 {
            0.0
        } else {
            2.0 * recall * precision / (recall + precision)
        };
        if f1 > best.0 {
            best = (f1, t);
        }
    }
    (best.1, Some(best.0))
}

/// The lowest threshold (not below the decision threshold) at which the clauses predicted
/// as category `c` on `docs` are on its excerpts at least `target` of the time (the
/// recipe's `serious_precision`);
/// when none reaches it, the one with the best F0.5 of clause precision and clause span
/// recall (precision weighed twice); the decision threshold when the docs hold no excerpt.
fn choose_serious(docs: &[&Doc], c: usize, probs: &[Vec<f32>], threshold: f32, target: f64) -> f32 {
    let mut best = (f64::MIN, threshold);
    for t in candidates().filter(|t| *t >= threshold) {
        let mut total = Counts::default();
        for (doc, p) in docs.iter().zip(probs) {
            total.add(&Counts::of(doc, &doc.truth[c], |u| p[u] >= t));
        }
        if total.excerpts == 0 {
            return threshold;
        }
        if total.predicted_clauses == 0 {
            break;
        }
        let precision = total.correct_clauses as f64 / total.predicted_clauses as f64;
        if precision >= target {
            return t;
        }
        let recall = total.found_clause as f64 / total.excerpts as f64;
        let f_half = if precision + recall == 0.0 {
            0.0
        } else {
            1.25 * precision * recall / (0.25 * precision + recall)
        };
        if f_half > best.0 {
            best = (f_half, t);
        }
    }
    best.1
}

/// Found and predicted units of one category, summed over contracts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Counts {
    pub(crate) excerpts: usize,
    pub(crate) found_sentence: usize,
    pub(crate) found_clause: usize,
    pub(crate) predicted_sentences: usize,
    pub(crate) correct_sentences: usize,
    pub(crate) predicted_clauses: usize,
    pub(crate) correct_clauses: usize,
    pub(crate) present: usize,
    pub(crate) present_found: usize,
    pub(crate) absent: usize,
    pub(crate) absent_alarmed: usize,
}

impl Counts {
    /// The counts of one contract, given which of its units are predicted.
    pub(crate) fn of(doc: &Doc, truth: &Truth, predicted: impl Fn(usize) -> bool) -> Counts {
        let mut out = Counts::default();
        if !truth.listed {
            return out;
        }
        let mut clauses = vec![false; doc.clauses];
        for (u, unit) in doc.units.iter().enumerate() {
            if predicted(u) {
                out.predicted_sentences += 1;
                if truth.hit_sentences.binary_search(&(u as u32)).is_ok() {
                    out.correct_sentences += 1;
                }
                clauses[unit.clause] = true;
            }
        }
        for (c, on) in clauses.iter().enumerate() {
            if *on {
                out.predicted_clauses += 1;
                if truth.hit_clauses.binary_search(&(c as u32)).is_ok() {
                    out.correct_clauses += 1;
                }
            }
        }
        out.excerpts = truth.excerpt_sentences.len();
        for (sentences, cls) in truth.excerpt_sentences.iter().zip(&truth.excerpt_clauses) {
            if sentences.iter().any(|&u| predicted(u as usize)) {
                out.found_sentence += 1;
            }
            if cls.iter().any(|&c| clauses[c as usize]) {
                out.found_clause += 1;
            }
        }
        if truth.present {
            out.present = 1;
            out.present_found = usize::from(out.found_sentence > 0);
        } else {
            out.absent = 1;
            out.absent_alarmed = usize::from(out.predicted_sentences > 0);
        }
        out
    }

    /// Adds another contract's counts.
    pub(crate) fn add(&mut self, other: &Counts) {
        self.excerpts += other.excerpts;
        self.found_sentence += other.found_sentence;
        self.found_clause += other.found_clause;
        self.predicted_sentences += other.predicted_sentences;
        self.correct_sentences += other.correct_sentences;
        self.predicted_clauses += other.predicted_clauses;
        self.correct_clauses += other.correct_clauses;
        self.present += other.present;
        self.present_found += other.present_found;
        self.absent += other.absent;
        self.absent_alarmed += other.absent_alarmed;
    }
}

/// Vocabulary and per-category linear models, before calibration.
struct Raw {
    terms: Vec<String>,
    idf: Vec<f32>,
    index: FxHashMap<u64, u32>,
    linear: Vec<Linear>,
}

impl Raw {
    fn vectorize(&self, terms: &super::features::TermCounts) -> Vec<(u32, f32)> {
        tf_idf(terms, |h| self.index.get(&h).copied(), &self.idf)
    }
}

/// Vocabulary from `docs` (the terms `features` takes), then one FTRL model per category.
fn fit_raw(
    data: &Dataset,
    docs: &[usize],
    recipe: &Recipe,
    features: FeatureSet,
    threads: usize,
) -> Raw {
    let mut df: FxHashMap<u64, u32> = FxHashMap::default();
    let mut sentences = 0usize;
    for &d in docs {
        for unit in &data.docs[d].units {
            sentences += 1;
            for (h, _) in &unit.terms {
                *df.entry(*h).or_default() += 1;
            }
        }
    }
    let mut chosen: Vec<(u32, &str, u64)> = df
        .iter()
        .filter(|(_, n)| **n >= recipe.min_df)
        .filter_map(|(h, n)| Some((*n, data.dictionary.get(h)?.as_str(), *h)))
        .filter(|(_, text, _)| {
            features == FeatureSet::SentenceAndPrevious || !text.starts_with(PREVIOUS_PREFIX)
        })
        .collect();
    chosen.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    chosen.truncate(recipe.max_terms);
    chosen.sort_unstable_by(|a, b| a.1.cmp(b.1));
    let terms: Vec<String> = chosen.iter().map(|(_, t, _)| t.to_string()).collect();
    let idf: Vec<f32> = chosen.iter().map(|(n, _, _)| idf(sentences, *n)).collect();
    let index: FxHashMap<u64, u32> = chosen
        .iter()
        .enumerate()
        .map(|(i, (_, _, h))| (*h, i as u32))
        .collect();
    let mut raw = Raw {
        terms,
        idf,
        index,
        linear: Vec::new(),
    };
    let mut rows = Rows::new();
    let mut where_: Vec<(usize, usize)> = Vec::new();
    for &d in docs {
        for (u, unit) in data.docs[d].units.iter().enumerate() {
            rows.push(&raw.vectorize(&unit.terms));
            where_.push((d, u));
        }
    }
    let categories: Vec<usize> = (0..data.categories.len()).collect();
    let features = raw.terms.len();
    raw.linear = map_uneven(&categories, threads, |&c| {
        let seed = recipe.seed.wrapping_add(c as u64 * 0x9e37_79b9);
        let mut positives = Vec::new();
        let mut negatives = Vec::new();
        for (row, &(d, u)) in where_.iter().enumerate() {
            let truth = &data.docs[d].truth[c];
            if !truth.listed || data.docs[d].units[u].terms.is_empty() {
                continue;
            }
            let u = u as u32;
            if truth.positive.binary_search(&u).is_ok() {
                positives.push(row);
            } else if truth.hit_sentences.binary_search(&u).is_err() {
                negatives.push(row);
            }
        }
        if positives.is_empty() {
            return Linear {
                weights: Vec::new(),
                bias: -20.0,
            };
        }
        let rate = (recipe.negatives_per_positive * positives.len() as f64
            / negatives.len().max(1) as f64)
            .min(1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        negatives.retain(|_| rng.random::<f64>() < rate);
        let mut examples = positives.clone();
        let mut labels = vec![true; positives.len()];
        examples.extend(&negatives);
        labels.extend(std::iter::repeat_n(false, negatives.len()));
        fit(
            &rows,
            &examples,
            &labels,
            recipe.positive_weight,
            features,
            &recipe.ftrl,
            seed,
        )
    });
    raw
}

#[cfg(test)]
pub(crate) mod tests;
