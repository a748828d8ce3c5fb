//! Labelled contracts prepared once for training and evaluation: parsed, cut into units,
//! each unit located in the source, its terms counted, and every label mapped onto units.

use std::collections::BTreeSet;
use std::ops::Range;

use rustc_hash::FxHashMap;

use super::corpus::{Excerpt, LabelledContract};
use super::features::{named_terms, term_counts, TermCounts};
use super::segment::segment_aligned;
use crate::document::parse_text;

/// A sentence's training label for one category is positive when the labelled excerpts
/// cover at least this share of the sentence or of the excerpt (whichever is shorter).
const POSITIVE_COVER: f64 = 0.5;

/// A sentence ready for the learner.
#[derive(Debug, Clone)]
pub(crate) struct Unit {
    pub(crate) terms: TermCounts,
    /// The sentence, for the rules that read it after the model (denials).
    pub(crate) text: String,
    pub(crate) span: Option<Range<usize>>,
    pub(crate) clause: usize,
}

/// What the labels say about one category of one contract, in terms of units.
#[derive(Debug, Clone, Default)]
pub(crate) struct Truth {
    /// The record lists the category (else the contract is neither positive nor negative).
    pub(crate) listed: bool,
    /// The category is present.
    pub(crate) present: bool,
    /// Per excerpt, the sentences that overlap it.
    pub(crate) excerpt_sentences: Vec<Vec<u32>>,
    /// Per excerpt, the clauses that overlap it.
    pub(crate) excerpt_clauses: Vec<Vec<u32>>,
    /// Sentences overlapping any excerpt (sorted).
    pub(crate) hit_sentences: Vec<u32>,
    /// Clauses overlapping any excerpt (sorted).
    pub(crate) hit_clauses: Vec<u32>,
    /// Sentences mostly covered by an excerpt: the positives for training (sorted).
    pub(crate) positive: Vec<u32>,
}

/// One contract ready for training and evaluation.
#[derive(Debug, Clone)]
pub(crate) struct Doc {
    pub(crate) id: String,
    pub(crate) units: Vec<Unit>,
    pub(crate) clauses: usize,
    /// One entry per category of the dataset.
    pub(crate) truth: Vec<Truth>,
    /// Sentences whose source position was found, and all sentences.
    pub(crate) located: (usize, usize),
}

/// The prepared corpus.
#[derive(Debug, Clone)]
pub(crate) struct Dataset {
    /// Category names, sorted.
    pub(crate) categories: Vec<String>,
    pub(crate) docs: Vec<Doc>,
    /// Term hash → text, for the terms of at least `min_df` sentences of the corpus.
    pub(crate) dictionary: FxHashMap<u64, String>,
}

impl Dataset {
    /// Prepares every contract (in parallel over `threads`, result in input order).
    pub(crate) fn prepare(contracts: &[LabelledContract], min_df: u32, threads: usize) -> Dataset {
        let categories: Vec<String> = contracts
            .iter()
            .flat_map(|c| c.labels.keys().cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let docs = crate::parallel::map_uneven(contracts, threads, |c| prepare_doc(c, &categories));
        // Global document frequencies, then the text of every frequent term.
        let mut df: FxHashMap<u64, u32> = FxHashMap::default();
        for doc in &docs {
            for unit in &doc.units {
                for (h, _) in &unit.terms {
                    *df.entry(*h).or_default() += 1;
                }
            }
        }
        let mut dictionary = FxHashMap::default();
        for contract in contracts {
            let doc = parse_text(&contract.id, &contract.text);
            let seg = super::segment::segment(&doc);
            for (i, sentence) in seg.sentences.iter().enumerate() {
                let heading = &seg.clauses[sentence.clause].heading;
                let previous = previous_in_clause(&seg.sentences, i, |s| s.clause, |s| &s.text);
                named_terms(heading, previous, &sentence.text, |h, text| {
                    if df.get(&h).is_some_and(|n| *n >= min_df) {
                        dictionary.entry(h).or_insert(text);
                    }
                });
            }
        }
        Dataset {
            categories,
            docs,
            dictionary,
        }
    }
}

/// The text of the sentence before `items[i]` when both are in the same clause.
pub(crate) fn previous_in_clause<T>(
    items: &[T],
    i: usize,
    clause: impl Fn(&T) -> usize,
    text: impl Fn(&T) -> &str,
) -> Option<&str> {
    let before = items.get(i.checked_sub(1)?)?;
    (clause(before) == clause(&items[i])).then(|| text(before))
}

fn prepare_doc(contract: &LabelledContract, categories: &[String]) -> Doc {
    let doc = parse_text(&contract.id, &contract.text);
    let seg = segment_aligned(&doc, &contract.text);
    let units: Vec<Unit> = seg
        .sentences
        .iter()
        .enumerate()
        .map(|(i, s)| Unit {
            terms: term_counts(
                &seg.clauses[s.clause].heading,
                previous_in_clause(&seg.sentences, i, |s| s.clause, |s| &s.text),
                &s.text,
            ),
            text: s.text.clone(),
            span: s.span.clone(),
            clause: s.clause,
        })
        .collect();
    let clause_spans: Vec<Option<Range<usize>>> =
        seg.clauses.iter().map(|c| c.span.clone()).collect();
    let truth = categories
        .iter()
        .map(|name| match contract.labels.get(name) {
            None => Truth::default(),
            Some(label) => truth_of(&label.excerpts, label.present, &units, &clause_spans),
        })
        .collect();
    let located = units.iter().filter(|u| u.span.is_some()).count();
    Doc {
        id: contract.id.clone(),
        clauses: seg.clauses.len(),
        located: (located, units.len()),
        units,
        truth,
    }
}

fn truth_of(
    excerpts: &[Excerpt],
    present: bool,
    units: &[Unit],
    clauses: &[Option<Range<usize>>],
) -> Truth {
    let mut truth = Truth {
        listed: true,
        present,
        ..Truth::default()
    };
    let mut hit_sentences = BTreeSet::new();
    let mut hit_clauses = BTreeSet::new();
    let mut positive = BTreeSet::new();
    for excerpt in excerpts {
        let mut sentences = Vec::new();
        for (i, unit) in units.iter().enumerate() {
            let Some(span) = &unit.span else { continue };
            if !excerpt.overlaps(span) {
                continue;
            }
            sentences.push(i as u32);
            hit_sentences.insert(i as u32);
            let covered = excerpt.overlap_len(span) as f64;
            let shorter = span.len().min(excerpt.len()).max(1) as f64;
            if covered / shorter >= POSITIVE_COVER {
                positive.insert(i as u32);
            }
        }
        let overlapping: Vec<u32> = clauses
            .iter()
            .enumerate()
            .filter(|(_, span)| span.as_ref().is_some_and(|s| excerpt.overlaps(s)))
            .map(|(i, _)| i as u32)
            .collect();
        hit_clauses.extend(overlapping.iter().copied());
        truth.excerpt_sentences.push(sentences);
        truth.excerpt_clauses.push(overlapping);
    }
    truth.hit_sentences = hit_sentences.into_iter().collect();
    truth.hit_clauses = hit_clauses.into_iter().collect();
    truth.positive = positive.into_iter().collect();
    truth
}
