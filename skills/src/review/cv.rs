//! The review's own findings measured on contracts its model never saw. Each fold of
//! [`cross_validate`](crate::detect::cv::cross_validate) reviews its held-out contracts as
//! `clausewright review` does (the rules, the classifier fitted on the other folds, the
//! generic playbook), from the side of each of the contract's first two parties, and scores
//! what a reader acts on: the findings at medium or high. Per CUAD category, over the
//! fold's contracts:
//!
//! - **precision**: (clause, kind) findings of the category's kinds whose clause overlaps an
//!   excerpt of the category, over all such findings;
//! - **recall**: excerpts overlapped by the clause of such a finding, over all excerpts
//!   (and **recall at any level**: the same counting low findings too, what the report lists);
//! - **contract recall**: contracts with the category where at least one excerpt is found;
//! - **false alarms**: contracts without the category that get such a finding anyway;
//! - **absence said when present**: contracts with the category where the review reports
//!   that the agreement lacks it.
//!
//! A finding counts once per (clause, kind), at its higher level of the two sides, located by
//! its own clause's span (every clause has an id of its own; a repeated number is scoped).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde::Serialize;
use toolwright::Dispatcher;

use super::agent::review_with_agent;
use super::findings::kinds::{Catalogued, Provision as Kind};
use super::findings::learned::LearnedStage;
use super::findings::provisions::document_parties;
use super::types::{ReviewOptions, ReviewReport, RiskKind, RiskLevel};
use crate::detect::corpus::{CategoryLabel, LabelledContract};
use crate::detect::curve::{excerpt_key, Scored};
use crate::detect::cv::{mean, ratio};
use crate::detect::segment::segment_aligned;
use crate::document::parse_text;
use crate::{DocumentRole, ReviewDocument, ReviewState};

/// The review's figures for one category.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReviewCategoryFigures {
    /// Category name (CUAD's).
    pub category: String,
    /// One of the 13 core categories.
    pub core: bool,
    /// Labelled excerpts measured.
    pub excerpts: usize,
    /// Findings at medium or high of the category's kinds.
    pub findings: usize,
    /// Findings on an excerpt, share.
    pub precision: Option<f64>,
    /// Excerpts under a finding, share.
    pub recall: Option<f64>,
    /// Excerpts under a finding of any level (low ones too), share.
    pub recall_any_level: Option<f64>,
    /// Contracts with the category where it is found, share.
    pub contract_recall: Option<f64>,
    /// Contracts without the category where it is reported, share.
    pub false_alarms: Option<f64>,
    /// Contracts with the category where its absence is reported, share.
    pub absence_when_present: Option<f64>,
}

/// Macro averages of the review's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReviewMacro {
    /// Mean precision.
    pub precision: Option<f64>,
    /// Mean recall.
    pub recall: Option<f64>,
    /// Mean recall at any level.
    pub recall_any_level: Option<f64>,
    /// Mean contract recall.
    pub contract_recall: Option<f64>,
    /// Mean false-alarm rate.
    pub false_alarms: Option<f64>,
    /// Mean share of present categories reported absent.
    pub absence_when_present: Option<f64>,
}

/// The review's figures on one fold (or their mean over folds).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReviewFigures {
    /// Contracts reviewed.
    pub contracts: usize,
    /// Per category.
    pub categories: Vec<ReviewCategoryFigures>,
    /// Over the 13 core categories.
    pub macro_core: ReviewMacro,
    /// Mean false-alarm rate over the five categories whose absence matters.
    pub absence_false_alarms: Option<f64>,
    /// Per category, the fold's findings scored for a precision–recall curve, and the
    /// excerpts (pooled over folds into the report's curves).
    #[serde(skip)]
    pub(crate) scored: Vec<(Vec<Scored>, usize)>,
}

/// What one category adds up to over contracts.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    excerpts: usize,
    excerpts_found: usize,
    excerpts_found_any: usize,
    findings: usize,
    findings_located: usize,
    present: usize,
    present_found: usize,
    present_said_absent: usize,
    absent: usize,
    absent_alarmed: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.excerpts += o.excerpts;
        self.excerpts_found += o.excerpts_found;
        self.excerpts_found_any += o.excerpts_found_any;
        self.findings += o.findings;
        self.findings_located += o.findings_located;
        self.present += o.present;
        self.present_found += o.present_found;
        self.present_said_absent += o.present_said_absent;
        self.absent += o.absent;
        self.absent_alarmed += o.absent_alarmed;
    }
}

/// The kinds of finding that report `kind`: its own, and those the catalogue counts with it
/// (the delay-damages skill's finding for liquidated damages).
fn kinds_of(kind: Kind) -> Vec<RiskKind> {
    let mut kinds = vec![RiskKind::Provision(kind)];
    kinds.extend(kind.entry().readings.iter().cloned());
    kinds
}

/// Reviews `contracts` with `stage` on up to `threads` threads and scores the findings
/// against their labels, for each of `categories`.
pub(crate) fn review_fold(
    dispatcher: &Dispatcher,
    stage: &LearnedStage,
    contracts: &[(usize, &LabelledContract)],
    categories: &[Kind],
    threads: usize,
) -> ReviewFigures {
    let per_contract = crate::parallel::map_uneven(contracts, threads, |(d, c)| {
        score_contract(dispatcher, stage, *d, c, categories)
    });
    let mut totals = vec![Tally::default(); categories.len()];
    let mut scored: Vec<(Vec<Scored>, usize)> = vec![(Vec::new(), 0); categories.len()];
    for tallies in per_contract {
        for ((total, pooled), (t, units)) in totals.iter_mut().zip(&mut scored).zip(tallies) {
            total.add(&t);
            pooled.0.extend(units);
            pooled.1 += t.excerpts;
        }
    }
    let figures: Vec<ReviewCategoryFigures> = categories
        .iter()
        .zip(&totals)
        .map(|(kind, t)| ReviewCategoryFigures {
            category: kind.title().to_string(),
            core: kind.entry().scoring.core,
            excerpts: t.excerpts,
            findings: t.findings,
            // Nothing reported where excerpts exist is no precision to speak of: left out.
            precision: ratio(t.findings_located, t.findings),
            recall: ratio(t.excerpts_found, t.excerpts),
            recall_any_level: ratio(t.excerpts_found_any, t.excerpts),
            contract_recall: ratio(t.present_found, t.present),
            false_alarms: ratio(t.absent_alarmed, t.absent),
            absence_when_present: ratio(t.present_said_absent, t.present),
        })
        .collect();
    ReviewFigures {
        scored,
        ..summarise(contracts.len(), figures)
    }
}

/// One contract's tallies, one per category, with its findings scored for the curves
/// (`d` numbers the contract in the corpus).
fn score_contract(
    dispatcher: &Dispatcher,
    stage: &LearnedStage,
    d: usize,
    contract: &LabelledContract,
    categories: &[Kind],
) -> Vec<(Tally, Vec<Scored>)> {
    let doc = parse_text(&contract.id, &contract.text);
    let spans = clause_spans(&doc, &contract.text);
    let parties = review_sides(&doc);
    let Some(reported) = review_from_each_side(dispatcher, stage, contract, doc, parties) else {
        return vec![(Tally::default(), Vec::new()); categories.len()];
    };
    categories
        .iter()
        .map(|&kind| tally_category(kind, contract, &reported, &spans, d))
        .collect()
}

/// Where each clause lies in the contract's text, by clause id (a repeated number is
/// scoped, so every clause has an id of its own): a finding is located by its own clause's
/// span, as the labelled excerpts are spans of the same text.
type Spans = HashMap<String, Vec<Range<usize>>>;

/// The spans of the contract's clauses, segmented as the review reads them and aligned on
/// the text the labels point into.
fn clause_spans(doc: &crate::document::DocumentStructure, text: &str) -> Spans {
    let seg = segment_aligned(doc, text);
    let mut spans = Spans::new();
    for clause in &seg.clauses {
        if let Some(span) = &clause.span {
            spans
                .entry(clause.clause_id.clone())
                .or_default()
                .push(span.clone());
        }
    }
    spans
}

/// The parties the review takes the side of: the contract's first two, or (when fewer are
/// named) one review for no party, so a finding that depends on the side is counted from
/// both.
fn review_sides(doc: &crate::document::DocumentStructure) -> Vec<String> {
    match document_parties(doc) {
        p if p.len() >= 2 => p.into_iter().take(2).collect(),
        _ => vec![String::new()],
    }
}

/// What the reviews of one contract reported, merged over its sides: each (clause, kind)
/// counts once, at its higher level (or score) of the two.
#[derive(Default)]
struct Reported {
    /// Findings at medium or high, at their higher level.
    found: HashMap<(String, RiskKind), RiskLevel>,
    /// Every (clause, kind) listed at any level, with its score for the curves.
    listed: HashMap<(String, RiskKind), f32>,
    /// Kinds whose absence the review reported at medium or high.
    said_absent: HashSet<RiskKind>,
}

impl Reported {
    /// Takes one side's report in: every finding listed for the curves, the medium and high
    /// ones as found, an absence at medium or high as said.
    fn take(&mut self, report: &ReviewReport) {
        for risk in report.risks() {
            let f = &risk.finding;
            if !f.is_absence() {
                let score = match (f.probability, f.level >= RiskLevel::Medium) {
                    (Some(p), _) => p,
                    (None, true) => f32::INFINITY,
                    (None, false) => 0.0,
                };
                let best = self
                    .listed
                    .entry((risk.clause_id.clone(), f.kind.clone()))
                    .or_insert(score);
                *best = best.max(score);
            }
            if f.level < RiskLevel::Medium {
                continue;
            }
            if f.is_absence() {
                self.said_absent.insert(f.kind.clone());
                continue;
            }
            let level = self
                .found
                .entry((risk.clause_id.clone(), f.kind.clone()))
                .or_insert(f.level);
            *level = (*level).max(f.level);
        }
    }
}

/// Reviews the contract as `clausewright review` does (the classifier of `stage`, the
/// generic playbook, one clause at a time) from each of `parties`' side, on a runtime of
/// its own (the folds run on plain threads). `None` when no runtime can be started.
fn review_from_each_side(
    dispatcher: &Dispatcher,
    stage: &LearnedStage,
    contract: &LabelledContract,
    doc: crate::document::DocumentStructure,
    parties: Vec<String>,
) -> Option<Reported> {
    let mut state = ReviewState {
        language: "en".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: format!("{}.txt", contract.id),
            structure: doc.into(),
        }],
        ..ReviewState::default()
    };
    let options = ReviewOptions {
        concurrency: 1,
        learned: Some(stage.clone()),
        ..ReviewOptions::default()
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        tracing::error!(contract = %contract.id, "cannot start a runtime for the review");
        return None;
    };
    let mut reported = Reported::default();
    for party in parties {
        state.our_party = party;
        let report = runtime.block_on(review_with_agent(
            dispatcher,
            &state,
            &options,
            None,
            std::future::pending(),
        ));
        reported.take(&report);
    }
    Some(reported)
}

/// What category `kind` adds up to on the contract (nothing when the contract has no label
/// for it), with its findings scored for the curves.
fn tally_category(
    kind: Kind,
    contract: &LabelledContract,
    reported: &Reported,
    spans: &Spans,
    d: usize,
) -> (Tally, Vec<Scored>) {
    let Some(label) = contract.labels.get(kind.title()) else {
        return (Tally::default(), Vec::new());
    };
    let kinds = kinds_of(kind);
    let clauses: Vec<&[Range<usize>]> = reported
        .found
        .keys()
        .filter(|(_, kind)| kinds.contains(kind))
        .map(|(clause, _)| spans.get(clause.as_str()).map_or(&[][..], Vec::as_slice))
        .collect();
    let mut t = Tally {
        excerpts: label.excerpts.len(),
        findings: clauses.len(),
        ..Tally::default()
    };
    t.findings_located = clauses
        .iter()
        .filter(|spans| {
            spans
                .iter()
                .any(|s| label.excerpts.iter().any(|e| e.overlaps(s)))
        })
        .count();
    t.excerpts_found = label
        .excerpts
        .iter()
        .filter(|e| clauses.iter().flat_map(|s| s.iter()).any(|s| e.overlaps(s)))
        .count();
    let any_level: Vec<&Range<usize>> = reported
        .listed
        .keys()
        .filter(|(_, kind)| kinds.contains(kind))
        .flat_map(|(clause, _)| spans.get(clause.as_str()).into_iter().flatten())
        .collect();
    let units = scored_units(&kinds, label, reported, spans, d);
    t.excerpts_found_any = label
        .excerpts
        .iter()
        .filter(|e| any_level.iter().any(|s| e.overlaps(s)))
        .count();
    if label.present {
        t.present = 1;
        t.present_found = usize::from(t.excerpts_found > 0);
        t.present_said_absent = usize::from(kinds.iter().any(|k| reported.said_absent.contains(k)));
    } else {
        t.absent = 1;
        t.absent_alarmed = usize::from(t.findings > 0);
    }
    (t, units)
}

/// The category's listed clauses as units of its precision–recall curve: a clause listed
/// under several of the category's `kinds` is one unit, at its best score, covering the
/// excerpts its span overlaps (keyed by contract `d` and excerpt, to pool over folds).
fn scored_units(
    kinds: &[RiskKind],
    label: &CategoryLabel,
    reported: &Reported,
    spans: &Spans,
    d: usize,
) -> Vec<Scored> {
    let mut by_clause: HashMap<&str, f32> = HashMap::new();
    for ((clause, k), score) in &reported.listed {
        if kinds.contains(k) {
            let best = by_clause.entry(clause.as_str()).or_insert(*score);
            *best = best.max(*score);
        }
    }
    by_clause
        .into_iter()
        .map(|(clause, score)| {
            let on = spans.get(clause).map_or(&[][..], Vec::as_slice);
            let covers: Vec<u64> = label
                .excerpts
                .iter()
                .enumerate()
                .filter(|(_, e)| on.iter().any(|s| e.overlaps(s)))
                .map(|(i, _)| excerpt_key(d, i))
                .collect();
            Scored {
                score,
                located: !covers.is_empty(),
                covers,
            }
        })
        .collect()
}

fn summarise(contracts: usize, categories: Vec<ReviewCategoryFigures>) -> ReviewFigures {
    let core: Vec<&ReviewCategoryFigures> = categories.iter().filter(|c| c.core).collect();
    let macro_core = ReviewMacro {
        precision: mean(core.iter().map(|c| c.precision)),
        recall: mean(core.iter().map(|c| c.recall)),
        recall_any_level: mean(core.iter().map(|c| c.recall_any_level)),
        contract_recall: mean(core.iter().map(|c| c.contract_recall)),
        false_alarms: mean(core.iter().map(|c| c.false_alarms)),
        absence_when_present: mean(core.iter().map(|c| c.absence_when_present)),
    };
    let absence_false_alarms = mean(
        categories
            .iter()
            .filter(|c| {
                Kind::from_title(&c.category)
                    .is_some_and(|k| Kind::absence_matters().any(|a| a == k))
            })
            .map(|c| c.false_alarms),
    );
    ReviewFigures {
        contracts,
        categories,
        macro_core,
        absence_false_alarms,
        scored: Vec::new(),
    }
}

/// The mean over folds of each figure (a fold without a figure is left out of its mean).
pub(crate) fn mean_of(folds: &[ReviewFigures]) -> ReviewFigures {
    let Some(first) = folds.first() else {
        return ReviewFigures::default();
    };
    let categories = first
        .categories
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let of = |f: fn(&ReviewCategoryFigures) -> Option<f64>| {
                mean(folds.iter().map(|fold| f(&fold.categories[i])))
            };
            ReviewCategoryFigures {
                category: c.category.clone(),
                core: c.core,
                excerpts: folds.iter().map(|f| f.categories[i].excerpts).sum(),
                findings: folds.iter().map(|f| f.categories[i].findings).sum(),
                precision: of(|c| c.precision),
                recall: of(|c| c.recall),
                recall_any_level: of(|c| c.recall_any_level),
                contract_recall: of(|c| c.contract_recall),
                false_alarms: of(|c| c.false_alarms),
                absence_when_present: of(|c| c.absence_when_present),
            }
        })
        .collect();
    summarise(folds.iter().map(|f| f.contracts).sum(), categories)
}
