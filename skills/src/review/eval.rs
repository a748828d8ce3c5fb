//! Measuring the review against a labelled corpus: recall per category, recall at medium or
//! above, and the false-alarm rate where the absence of a provision is meaningful.
//!
//! The corpus is a folder with `cuad/labels/cuad-NNN.json` (CUAD's lawyer labels, contract
//! text in `cuad/contracts/cuad-NNN.txt`) and any other documents named by expectation files
//! (`*.json`: `{"document": "en/x.md", "domain": "sha_spa", "our_party": "Company",
//! "must_find": ["Drag-Along"], "must_not_find": ["Liquidated Damages"]}`).
//!
//! Scoring is per contract: a category labelled (or expected) and found is a hit; found but
//! not labelled is a false alarm. A CUAD contract is reviewed once for each of the first two
//! parties it names, so a category counts at "medium or above" when its level reaches medium
//! for the party it binds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwright::Dispatcher;

use super::checklist::run_checklist_review;
use super::findings::kinds::CATALOGUE;
use super::findings::provisions::document_parties;
use super::inputs::{build_review_state, ReviewInputs};
use super::types::{ReviewOptions, RiskKind, RiskLevel};
use crate::state::Domain;

/// A category scored by the harness and the kinds of finding that count as finding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// Its name (CUAD's for CUAD categories).
    pub name: &'static str,
    /// Kinds of finding that find it.
    pub kinds: Vec<RiskKind>,
    /// Whether a contract without the label is a meaningful negative (false alarms count).
    pub absence_meaningful: bool,
}

/// Every category the harness scores: the kinds the catalogue marks as scored by planted
/// expectations, in catalogue order.
pub fn categories() -> &'static [Category] {
    static CATEGORIES: LazyLock<Vec<Category>> = LazyLock::new(|| {
        CATALOGUE
            .iter()
            .filter(|e| e.scoring.planted)
            .map(|e| Category {
                name: e.title,
                kinds: std::iter::once(RiskKind::Provision(e.kind))
                    .chain(e.readings.iter().cloned())
                    .collect(),
                absence_meaningful: e.scoring.absence_matters,
            })
            .collect()
    });
    &CATEGORIES
}

/// Why an evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The corpus folder does not exist.
    #[error("corpus folder `{0}` does not exist (expected cuad/labels/*.json and the documents the expectation files name)")]
    CorpusMissing(PathBuf),
    /// A file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A label or expectation file is not the JSON expected.
    #[error("`{path}` is not a valid {what}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What it should be.
        what: &'static str,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// An expectation file names a category the harness does not score.
    #[error("`{path}` names unknown category `{category}` (known: {known})")]
    UnknownCategory {
        /// The expectation file.
        path: PathBuf,
        /// The name.
        category: String,
        /// The names the harness knows.
        known: String,
    },
    /// A document could not be loaded for review.
    #[error("cannot review `{path}`: {message}")]
    Review {
        /// The document.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// What an expectation file says of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Expectation {
    /// The document, relative to the corpus folder.
    pub document: String,
    /// Review domain (`fidic`, `sha_spa` or empty).
    #[serde(default)]
    pub domain: Domain,
    /// The party the review acts for.
    #[serde(default)]
    pub our_party: String,
    /// Categories the review must find.
    #[serde(default)]
    pub must_find: Vec<String>,
    /// Categories the document does not contain (a finding is a false alarm).
    #[serde(default)]
    pub must_not_find: Vec<String>,
}

/// The result for one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DocumentResult {
    /// The document (`cuad-012`, `en/series-seed-term-sheet.md`).
    pub id: String,
    /// Its group (`construction-like`, `sha-like`, `commercial`, `expectations`).
    pub group: String,
    /// Review domain used.
    pub domain: Domain,
    /// The parties it was reviewed for.
    pub perspectives: Vec<String>,
    /// Clauses the review read.
    pub clauses: usize,
    /// Each scored category found, with its highest level.
    pub found: BTreeMap<String, RiskLevel>,
    /// Categories labelled present.
    pub positives: Vec<String>,
    /// Categories labelled absent.
    pub negatives: Vec<String>,
    /// Labelled and not found.
    pub missed: Vec<String>,
    /// Found and labelled absent.
    pub false_alarms: Vec<String>,
    /// Wall time of the reviews in milliseconds.
    pub elapsed_ms: f64,
}

/// Scores of one category in one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CategoryScore {
    /// The category.
    pub category: String,
    /// Contracts labelled present.
    pub positives: usize,
    /// Of those, found.
    pub hits: usize,
    /// Of those, found at medium or above.
    pub hits_medium: usize,
    /// Contracts labelled absent (only where absence is meaningful).
    pub negatives: usize,
    /// Of those, flagged anyway.
    pub false_alarms: usize,
    /// `hits / positives`.
    pub recall: Option<f64>,
    /// `hits_medium / positives`.
    pub recall_medium: Option<f64>,
    /// `false_alarms / negatives`.
    pub false_alarm_rate: Option<f64>,
}

/// Scores of one group of documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupScore {
    /// The group.
    pub group: String,
    /// Documents in it.
    pub documents: usize,
    /// Per category, those with a positive or a negative.
    pub categories: Vec<CategoryScore>,
    /// All hits over all positives.
    pub recall: Option<f64>,
    /// All medium-or-above hits over all positives.
    pub recall_medium: Option<f64>,
    /// All false alarms over all meaningful negatives.
    pub false_alarm_rate: Option<f64>,
}

/// The whole evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvalReport {
    /// The corpus folder.
    pub corpus: String,
    /// Per group: `construction-like`, `sha-like`, `commercial`, `expectations`, `cuad-all`.
    pub groups: Vec<GroupScore>,
    /// Per document.
    pub documents: Vec<DocumentResult>,
}

impl EvalReport {
    /// The scores of a group.
    pub fn group(&self, name: &str) -> Option<&GroupScore> {
        self.groups.iter().find(|g| g.group == name)
    }
}

impl GroupScore {
    /// The scores of a category.
    pub fn category(&self, name: &str) -> Option<&CategoryScore> {
        self.categories.iter().find(|c| c.category == name)
    }
}

#[derive(Deserialize)]
struct CuadLabels {
    id: String,
    domain_hint: String,
    categories: BTreeMap<String, CuadCategory>,
}

#[derive(Deserialize)]
struct CuadCategory {
    present: bool,
}

/// Runs the review over the corpus: every CUAD contract under `corpus/cuad/`, and every
/// document an expectation file of `expectations` names (the folder may be absent).
pub fn evaluate(
    dispatcher: &Dispatcher,
    corpus: &Path,
    expectations: &Path,
) -> Result<EvalReport, EvalError> {
    if !corpus.is_dir() {
        return Err(EvalError::CorpusMissing(corpus.to_path_buf()));
    }
    let mut documents = Vec::new();
    let labels_dir = corpus.join("cuad").join("labels");
    for path in json_files(&labels_dir)? {
        let labels: CuadLabels = read_json(&path, "CUAD label file")?;
        let contract = corpus
            .join("cuad")
            .join("contracts")
            .join(format!("{}.txt", labels.id));
        let domain = match labels.domain_hint.as_str() {
            "construction-like" => Domain::Fidic,
            "sha-like" => Domain::ShaSpa,
            _ => Domain::Generic,
        };
        let mut positives = Vec::new();
        let mut negatives = Vec::new();
        for category in categories() {
            match labels.categories.get(category.name) {
                Some(c) if c.present => positives.push(category.name.to_string()),
                Some(_) if category.absence_meaningful => negatives.push(category.name.to_string()),
                _ => {}
            }
        }
        documents.push(review_document(
            dispatcher,
            &contract,
            labels.id.clone(),
            labels.domain_hint.clone(),
            domain,
            None,
            positives,
            negatives,
        )?);
    }
    for path in json_files(expectations)? {
        let expectation: Expectation = read_json(&path, "expectation file")?;
        for name in expectation
            .must_find
            .iter()
            .chain(&expectation.must_not_find)
        {
            if !categories().iter().any(|c| c.name == name) {
                return Err(EvalError::UnknownCategory {
                    path,
                    category: name.clone(),
                    known: categories()
                        .iter()
                        .map(|c| c.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        documents.push(review_document(
            dispatcher,
            &corpus.join(&expectation.document),
            expectation.document.clone(),
            "expectations".into(),
            expectation.domain,
            Some(expectation.our_party.clone()),
            expectation.must_find.clone(),
            expectation.must_not_find.clone(),
        )?);
    }
    let mut groups = Vec::new();
    for group in [
        "construction-like",
        "sha-like",
        "commercial",
        "expectations",
    ] {
        let docs: Vec<&DocumentResult> = documents.iter().filter(|d| d.group == group).collect();
        if !docs.is_empty() {
            groups.push(score(group, &docs));
        }
    }
    let cuad: Vec<&DocumentResult> = documents
        .iter()
        .filter(|d| d.group != "expectations")
        .collect();
    if !cuad.is_empty() {
        groups.push(score("cuad-all", &cuad));
    }
    Ok(EvalReport {
        corpus: corpus.display().to_string(),
        groups,
        documents,
    })
}

/// `*.json` files of a folder, sorted; none when the folder does not exist.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, EvalError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir).map_err(|source| EvalError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}

fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<T, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        what,
        source,
    })
}

#[allow(clippy::too_many_arguments)]
fn review_document(
    dispatcher: &Dispatcher,
    path: &Path,
    id: String,
    group: String,
    domain: Domain,
    our_party: Option<String>,
    positives: Vec<String>,
    negatives: Vec<String>,
) -> Result<DocumentResult, EvalError> {
    let started = Instant::now();
    let inputs = ReviewInputs {
        primary: path.to_path_buf(),
        domain,
        our_party: our_party.clone().unwrap_or_default(),
        language: "en".into(),
        ..Default::default()
    };
    let mut state = build_review_state(&inputs).map_err(|e| EvalError::Review {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let perspectives = match our_party {
        Some(party) => vec![party],
        None => {
            let parties = state.primary().map(document_parties).unwrap_or_default();
            if parties.len() >= 2 {
                parties.into_iter().take(2).collect()
            } else {
                vec![String::new()]
            }
        }
    };
    let mut found: BTreeMap<String, RiskLevel> = BTreeMap::new();
    let mut clauses = 0;
    for party in &perspectives {
        state.our_party = party.clone();
        let report = run_checklist_review(dispatcher, &state, &ReviewOptions::default());
        clauses = report.summary.clauses_reviewed;
        for risk in report.risks() {
            for category in categories() {
                if category.kinds.contains(&risk.finding.kind) {
                    let level = found
                        .entry(category.name.to_string())
                        .or_insert(risk.finding.level);
                    *level = (*level).max(risk.finding.level);
                }
            }
        }
    }
    let missed = positives
        .iter()
        .filter(|c| !found.contains_key(*c))
        .cloned()
        .collect();
    let false_alarms = negatives
        .iter()
        .filter(|c| found.contains_key(*c))
        .cloned()
        .collect();
    Ok(DocumentResult {
        id,
        group,
        domain,
        perspectives,
        clauses,
        found,
        positives,
        negatives,
        missed,
        false_alarms,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

fn score(group: &str, docs: &[&DocumentResult]) -> GroupScore {
    let mut scores = Vec::new();
    let (mut pos, mut hit, mut hit_m, mut neg, mut fa) = (0, 0, 0, 0, 0);
    for category in categories() {
        let name = category.name;
        let positives = docs
            .iter()
            .filter(|d| d.positives.iter().any(|p| p == name))
            .count();
        let hits = docs
            .iter()
            .filter(|d| d.positives.iter().any(|p| p == name) && d.found.contains_key(name))
            .count();
        let hits_medium = docs
            .iter()
            .filter(|d| {
                d.positives.iter().any(|p| p == name)
                    && d.found.get(name).is_some_and(|l| *l >= RiskLevel::Medium)
            })
            .count();
        let negatives = docs
            .iter()
            .filter(|d| d.negatives.iter().any(|p| p == name))
            .count();
        let false_alarms = docs
            .iter()
            .filter(|d| d.false_alarms.iter().any(|p| p == name))
            .count();
        if positives + negatives == 0 {
            continue;
        }
        pos += positives;
        hit += hits;
        hit_m += hits_medium;
        neg += negatives;
        fa += false_alarms;
        scores.push(CategoryScore {
            category: name.to_string(),
            positives,
            hits,
            hits_medium,
            negatives,
            false_alarms,
            recall: ratio(hits, positives),
            recall_medium: ratio(hits_medium, positives),
            false_alarm_rate: ratio(false_alarms, negatives),
        });
    }
    GroupScore {
        group: group.to_string(),
        documents: docs.len(),
        categories: scores,
        recall: ratio(hit, pos),
        recall_medium: ratio(hit_m, pos),
        false_alarm_rate: ratio(fa, neg),
    }
}

/// The evaluation as tables, one per group, then the documents with misses or false alarms.
pub fn render_eval(report: &EvalReport) -> String {
    let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let mut out = format!("Evaluation over {}\n", report.corpus);
    for group in &report.groups {
        out.push_str(&format!(
            "\n## {} ({} documents): recall {}, recall at medium+ {}, false alarms {}\n\n",
            group.group,
            group.documents,
            pct(group.recall),
            pct(group.recall_medium),
            pct(group.false_alarm_rate)
        ));
        out.push_str(&format!(
            "{:<36} {:>4} {:>4} {:>7} {:>8} {:>4} {:>4} {:>7}\n",
            "category", "pos", "hit", "recall", "medium+", "neg", "fa", "fa rate"
        ));
        for c in &group.categories {
            out.push_str(&format!(
                "{:<36} {:>4} {:>4} {:>7} {:>8} {:>4} {:>4} {:>7}\n",
                c.category,
                c.positives,
                c.hits,
                pct(c.recall),
                pct(c.recall_medium),
                c.negatives,
                c.false_alarms,
                pct(c.false_alarm_rate)
            ));
        }
    }
    out.push_str("\nDocuments with misses or false alarms:\n");
    for d in &report.documents {
        if d.missed.is_empty() && d.false_alarms.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "  {} ({}, {} clauses): missed [{}]; false alarms [{}]\n",
            d.id,
            d.group,
            d.clauses,
            d.missed.join(", "),
            d.false_alarms.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(positives: &[&str], negatives: &[&str], found: &[(&str, RiskLevel)]) -> DocumentResult {
        let found: BTreeMap<String, RiskLevel> =
            found.iter().map(|(c, l)| (c.to_string(), *l)).collect();
        let positives: Vec<String> = positives.iter().map(|s| s.to_string()).collect();
        let negatives: Vec<String> = negatives.iter().map(|s| s.to_string()).collect();
        DocumentResult {
            id: "d".into(),
            group: "g".into(),
            domain: Domain::Generic,
            perspectives: Vec::new(),
            clauses: 1,
            missed: positives
                .iter()
                .filter(|p| !found.contains_key(*p))
                .cloned()
                .collect(),
            false_alarms: negatives
                .iter()
                .filter(|p| found.contains_key(*p))
                .cloned()
                .collect(),
            found,
            positives,
            negatives,
            elapsed_ms: 0.0,
        }
    }

    #[test]
    fn scores_count_hits_levels_and_false_alarms() {
        let a = doc(
            &["Non-Compete"],
            &["Change Of Control"],
            &[
                ("Non-Compete", RiskLevel::Low),
                ("Change Of Control", RiskLevel::Medium),
            ],
        );
        let b = doc(
            &["Non-Compete"],
            &["Change Of Control"],
            &[("Non-Compete", RiskLevel::High)],
        );
        let c = doc(&["Non-Compete"], &[], &[]);
        let group = score("g", &[&a, &b, &c]);
        let nc = group.category("Non-Compete").unwrap();
        assert_eq!((nc.positives, nc.hits, nc.hits_medium), (3, 2, 1));
        assert_eq!(nc.recall, Some(2.0 / 3.0));
        let coc = group.category("Change Of Control").unwrap();
        assert_eq!((coc.negatives, coc.false_alarms), (2, 1));
        assert_eq!(coc.false_alarm_rate, Some(0.5));
        assert!(group.category("Exclusivity").is_none());
    }

    #[test]
    fn a_missing_corpus_is_a_clear_error() {
        let dispatcher = Dispatcher::from_inventory().unwrap();
        let err = evaluate(
            &dispatcher,
            Path::new("/nonexistent/corpus"),
            Path::new("x"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("/nonexistent/corpus"), "{err}");
    }
}
