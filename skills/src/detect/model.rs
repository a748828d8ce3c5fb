//! The trained provision model: vocabulary with idf, one sparse logistic model per
//! category, Platt calibration and a decision threshold per category; its file format and
//! how it classifies a document.
//!
//! File format (little-endian), version 2:
//!
//! ```text
//! "SKPROV02"
//! u32 trained_contracts
//! u32 terms;       per term:     str text, f32 idf
//! u32 categories;  per category: str name, f32 threshold, f32 serious, f32 platt_a,
//!                                f32 platt_b, f32 bias, u32 weights,
//!                                per weight: u32 term, f32 weight
//! ```
//!
//! `str` is a `u32` byte length and UTF-8 bytes. Terms are sorted, weights sorted by term.
//! `threshold` decides that a sentence is a provision; `serious`, at or above it, that the
//! review may report it at medium or high (chosen for precision on held-out training
//! contracts). Version 1 files ("SKPROV01") have no `serious` and read with it equal to
//! `threshold`.

use std::path::Path;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::review::kinds::{Catalogued, Provision as Kind};

use super::features::{
    counts_of, distinct, hash_of_term, term_counts, tf_idf, word_hashes, TermCounts,
};
use super::logistic::{Linear, Platt};
use super::segment::{segment, Segmented};
use crate::document::{Clause, DocumentStructure, Index};
use crate::text::sentence_units;

const MAGIC: &[u8; 8] = b"SKPROV02";
/// The first version's header: no `serious` threshold.
const MAGIC_V1: &[u8; 8] = b"SKPROV01";

/// The model shipped in the binary: `clausewright train` on the CUAD v1 training split with
/// `skills/models/provisions.recipe.json` (see `skills/models/README.md`).
static EMBEDDED: &[u8] = include_bytes!("../../models/provisions.bin");

/// Why a model could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A category the catalogue of kinds does not declare.
    #[error("provision model has category `{name}`, which is no kind of the catalogue (a CUAD category title such as `Cap On Liability` was expected)")]
    UnknownCategory {
        /// The category's name.
        name: String,
    },
    /// The file could not be read.
    #[error("cannot read model {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a provision model of this version.
    #[error("not a provision model (expected a file starting with \"SKPROV02\" or \"SKPROV01\", written by `clausewright train`)")]
    Magic,
    /// The file ends inside a field.
    #[error("provision model is cut short: {what} expected at byte {at}")]
    Truncated {
        /// The field.
        what: &'static str,
        /// Byte offset.
        at: usize,
    },
    /// A field holds a value that cannot be right.
    #[error("provision model is corrupt at byte {at}: {what}")]
    Corrupt {
        /// What is wrong.
        what: String,
        /// Byte offset.
        at: usize,
    },
}

/// One category of a model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CategoryModel {
    pub(crate) name: String,
    pub(crate) linear: Linear,
    pub(crate) platt: Platt,
    pub(crate) threshold: f32,
    /// At or above it (and the decision threshold) a finding may be medium or high.
    pub(crate) serious: f32,
}

/// A trained provision classifier.
#[derive(Debug, Clone)]
pub struct ProvisionModel {
    trained_contracts: u32,
    terms: Vec<String>,
    idf: Vec<f32>,
    categories: Vec<CategoryModel>,
    /// The kind of each category, read from the catalogue at load.
    kinds: Vec<Kind>,
    /// Term hash → term index.
    index: FxHashMap<u64, u32>,
    /// Per term, the categories that weigh it: `postings[offsets[t]..offsets[t + 1]]`.
    offsets: Vec<u32>,
    postings: Vec<(u16, f32)>,
}

impl PartialEq for ProvisionModel {
    fn eq(&self, other: &Self) -> bool {
        self.trained_contracts == other.trained_contracts
            && self.terms == other.terms
            && self.idf == other.idf
            && self.categories == other.categories
    }
}

/// A kind of provision found in a clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Detection {
    /// The kind (`governing_law`, `cap_on_liability`, ...).
    pub kind: Kind,
    /// Calibrated probability that the sentence is such a provision.
    pub probability: f32,
    /// The sentence of the clause the category rests on.
    pub sentence: String,
}

/// The categories found in one clause, most probable first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseProvisions {
    /// Clause number (`preamble` for the text before the first clause).
    pub clause_id: String,
    /// Kinds at or above their decision threshold.
    pub provisions: Vec<Detection>,
}

impl ProvisionModel {
    /// Builds a model from its parts (terms sorted, one idf per term).
    pub(crate) fn from_parts(
        trained_contracts: u32,
        terms: Vec<String>,
        idf: Vec<f32>,
        categories: Vec<CategoryModel>,
    ) -> Result<Self, ModelError> {
        let kinds = categories
            .iter()
            .map(|c| {
                Kind::from_title(&c.name).ok_or_else(|| ModelError::UnknownCategory {
                    name: c.name.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut index = FxHashMap::default();
        index.reserve(terms.len());
        for (i, term) in terms.iter().enumerate() {
            let hash = hash_of_term(term).ok_or_else(|| ModelError::Corrupt {
                what: format!("term {i} `{term}` is not a word, a bigram or a heading word"),
                at: 0,
            })?;
            index.insert(hash, i as u32);
        }
        let mut counts = vec![0u32; terms.len() + 1];
        for category in &categories {
            for (t, _) in &category.linear.weights {
                let slot = counts
                    .get_mut(*t as usize + 1)
                    .ok_or_else(|| ModelError::Corrupt {
                        what: format!(
                            "category `{}` weighs term {t} of {}",
                            category.name,
                            terms.len()
                        ),
                        at: 0,
                    })?;
                *slot += 1;
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let offsets = counts.clone();
        let mut postings = vec![(0u16, 0f32); *counts.last().unwrap_or(&0) as usize];
        let mut fill = counts;
        for (c, category) in categories.iter().enumerate() {
            for (t, w) in &category.linear.weights {
                let slot = &mut fill[*t as usize];
                postings[*slot as usize] = (c as u16, *w);
                *slot += 1;
            }
        }
        Ok(ProvisionModel {
            trained_contracts,
            terms,
            idf,
            categories,
            kinds,
            index,
            offsets,
            postings,
        })
    }

    /// The model built into this binary (read once; later calls share it).
    pub fn embedded() -> Result<&'static ProvisionModel, &'static ModelError> {
        static MODEL: OnceLock<Result<ProvisionModel, ModelError>> = OnceLock::new();
        MODEL
            .get_or_init(|| ProvisionModel::from_bytes(EMBEDDED))
            .as_ref()
    }

    /// Reads a model file written by [`ProvisionModel::to_bytes`] (`clausewright train`).
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes(&bytes)
    }

    /// The vocabulary's terms as the model file writes them (`word`, `word word`, `h:word`
    /// for a heading word, `p:word` for a word of the previous sentence).
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(String::as_str)
    }

    /// The kinds of its categories, in the model's order.
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.kinds.iter().copied()
    }

    /// The probability at or above which a provision of `kind` may be reported at medium
    /// or high (never below the category's decision threshold); `None` for a kind the
    /// model does not have.
    pub fn serious_threshold(&self, kind: Kind) -> Option<f32> {
        self.kinds
            .iter()
            .position(|k| *k == kind)
            .map(|c| self.categories[c].serious.max(self.categories[c].threshold))
    }

    /// Decision threshold of each category (calibrated probability), in the model's order.
    pub fn thresholds(&self) -> impl Iterator<Item = f32> + '_ {
        self.categories.iter().map(|c| c.threshold)
    }

    /// Number of contracts the model was trained on.
    pub fn trained_contracts(&self) -> u32 {
        self.trained_contracts
    }

    /// Number of terms in the vocabulary.
    pub fn vocabulary_len(&self) -> usize {
        self.terms.len()
    }

    /// Calibrated probability of every category for one sentence under a clause heading,
    /// after `previous`, the sentence before it in the clause (`None` for the first).
    pub fn sentence_probabilities(
        &self,
        heading: &str,
        previous: Option<&str>,
        sentence: &str,
    ) -> Vec<f32> {
        self.probabilities(&term_counts(heading, previous, sentence))
    }

    /// Calibrated probabilities of every category for a sentence's term counts.
    pub(crate) fn probabilities(&self, counts: &TermCounts) -> Vec<f32> {
        let vector = tf_idf(counts, |h| self.index.get(&h).copied(), &self.idf);
        let mut scores: Vec<f32> = self.categories.iter().map(|c| c.linear.bias).collect();
        for (t, v) in vector {
            let range = self.offsets[t as usize] as usize..self.offsets[t as usize + 1] as usize;
            for (c, w) in &self.postings[range] {
                scores[*c as usize] += v * w;
            }
        }
        scores
            .iter()
            .zip(&self.categories)
            .map(|(s, c)| c.platt.probability(*s))
            .collect()
    }

    /// Whether a probability reaches the decision threshold of category `c`.
    pub(crate) fn decides(&self, c: usize, probability: f32) -> bool {
        probability >= self.categories[c].threshold
    }

    /// The categories of every clause of a parsed document, in document order; each
    /// category with the sentence that scores highest for it.
    pub fn classify(&self, doc: &DocumentStructure) -> Vec<ClauseProvisions> {
        self.classify_segmented(&segment(doc))
    }

    /// [`ProvisionModel::classify`] on a document already cut into units.
    pub fn classify_segmented(&self, segmented: &Segmented) -> Vec<ClauseProvisions> {
        segmented
            .clauses
            .iter()
            .map(|clause| ClauseProvisions {
                clause_id: clause.clause_id.clone(),
                provisions: self.classify_sentences(
                    &clause.heading,
                    segmented.sentences[clause.sentences.clone()]
                        .iter()
                        .map(|s| s.text.as_str()),
                    None,
                ),
            })
            .collect()
    }

    /// The categories of one clause of a parsed document, judged as the model was trained:
    /// its sentences under its heading (or its nearest ancestor's), a clause with a heading
    /// and no text by its heading. Returns the categories and the sentences read.
    pub fn classify_clause(
        &self,
        doc: &Index<'_>,
        clause: &Clause,
        min_probability: Option<f32>,
    ) -> (Vec<Detection>, usize) {
        let heading = heading_of(doc, &clause.clause_id, &clause.title);
        let title = clause.title.trim();
        let mut sentences: Vec<&str> = sentence_units(&clause.text)
            .into_iter()
            .map(|r| &clause.text[r])
            .collect();
        if sentences.is_empty() && !title.is_empty() {
            sentences.push(title);
        }
        let read = sentences.len();
        (
            self.classify_sentences(heading, sentences, min_probability),
            read,
        )
    }

    /// The categories of one clause given its heading and sentences, most probable first,
    /// each with the sentence that scores highest for it. A category counts when its
    /// probability reaches `min_probability`, or the category's own decision threshold
    /// when `None`.
    pub fn classify_sentences<'s>(
        &self,
        heading: &str,
        sentences: impl IntoIterator<Item = &'s str>,
        min_probability: Option<f32>,
    ) -> Vec<Detection> {
        let mut best: Vec<Option<(f32, &str)>> = vec![None; self.categories.len()];
        // Each text is hashed once: the heading for every sentence, a sentence for itself
        // and as the next one's previous sentence.
        let heading = distinct(word_hashes(heading));
        let mut previous: Option<Vec<u64>> = None;
        for sentence in sentences {
            let words = word_hashes(sentence);
            let probs = self.probabilities(&counts_of(&heading, previous.as_deref(), &words));
            previous = Some(distinct(words));
            for (c, p) in probs.into_iter().enumerate() {
                let counts = match min_probability {
                    Some(min) => p >= min,
                    None => self.decides(c, p),
                };
                if counts && best[c].is_none_or(|(b, _)| p > b) {
                    best[c] = Some((p, sentence));
                }
            }
        }
        let mut provisions: Vec<Detection> = best
            .into_iter()
            .enumerate()
            .filter_map(|(c, found)| {
                let (probability, sentence) = found?;
                Some(Detection {
                    kind: self.kinds[c],
                    probability,
                    sentence: sentence.to_string(),
                })
            })
            .collect();
        provisions.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        provisions
    }

    /// The model file's bytes (same model, same bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, self.trained_contracts);
        put_u32(&mut out, self.terms.len() as u32);
        for (term, idf) in self.terms.iter().zip(&self.idf) {
            put_str(&mut out, term);
            put_f32(&mut out, *idf);
        }
        put_u32(&mut out, self.categories.len() as u32);
        for c in &self.categories {
            put_str(&mut out, &c.name);
            put_f32(&mut out, c.threshold);
            put_f32(&mut out, c.serious);
            put_f32(&mut out, c.platt.a);
            put_f32(&mut out, c.platt.b);
            put_f32(&mut out, c.linear.bias);
            put_u32(&mut out, c.linear.weights.len() as u32);
            for (t, w) in &c.linear.weights {
                put_u32(&mut out, *t);
                put_f32(&mut out, *w);
            }
        }
        out
    }

    /// Reads a model from the bytes of a model file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ModelError> {
        let mut r = Reader { bytes, at: 0 };
        let version = match r.take(8, "the file header")? {
            h if h == MAGIC => 2,
            h if h == MAGIC_V1 => 1,
            _ => return Err(ModelError::Magic),
        };
        let trained_contracts = r.u32("the number of training contracts")?;
        let n_terms = r.count("the number of terms", 8)?;
        let mut terms = Vec::with_capacity(n_terms);
        let mut idf = Vec::with_capacity(n_terms);
        for _ in 0..n_terms {
            let at = r.at;
            let term = r.string("a term")?;
            if terms.last().is_some_and(|last: &String| *last >= term) {
                return Err(ModelError::Corrupt {
                    what: format!("term `{term}` is out of order"),
                    at,
                });
            }
            terms.push(term);
            idf.push(r.f32("an idf")?);
        }
        let n_categories = r.count("the number of categories", 24)?;
        if n_categories > u16::MAX as usize {
            return Err(ModelError::Corrupt {
                what: format!("{n_categories} categories"),
                at: r.at,
            });
        }
        let mut categories = Vec::with_capacity(n_categories);
        for _ in 0..n_categories {
            let name = r.string("a category name")?;
            let threshold = r.f32("a threshold")?;
            let serious = match version {
                1 => threshold,
                _ => r.f32("a threshold for serious findings")?,
            };
            let a = r.f32("a calibration slope")?;
            let b = r.f32("a calibration offset")?;
            let bias = r.f32("a bias")?;
            let n = r.count("the number of weights", 8)?;
            let mut weights = Vec::with_capacity(n);
            for _ in 0..n {
                let at = r.at;
                let t = r.u32("a term index")?;
                if t as usize >= n_terms || weights.last().is_some_and(|(last, _)| *last >= t) {
                    return Err(ModelError::Corrupt {
                        what: format!("category `{name}` weighs term {t} (of {n_terms}, in order)"),
                        at,
                    });
                }
                weights.push((t, r.f32("a weight")?));
            }
            categories.push(CategoryModel {
                name,
                linear: Linear { weights, bias },
                platt: Platt { a, b },
                threshold,
                serious,
            });
        }
        if r.at != bytes.len() {
            return Err(ModelError::Corrupt {
                what: format!("{} bytes after the last category", bytes.len() - r.at),
                at: r.at,
            });
        }
        Self::from_parts(trained_contracts, terms, idf, categories)
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ModelError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ModelError::Truncated { what, at: self.at })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ModelError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32(&mut self, what: &'static str) -> Result<f32, ModelError> {
        let at = self.at;
        let v = f32::from_bits(self.u32(what)?);
        if !v.is_finite() {
            return Err(ModelError::Corrupt {
                what: format!("{what} is {v}"),
                at,
            });
        }
        Ok(v)
    }

    /// A count of items of at least `item_bytes` each, checked against what is left.
    fn count(&mut self, what: &'static str, item_bytes: usize) -> Result<usize, ModelError> {
        let at = self.at;
        let n = self.u32(what)? as usize;
        if n.saturating_mul(item_bytes) > self.bytes.len() - self.at {
            return Err(ModelError::Corrupt {
                what: format!("{what} is {n}, more than the file holds"),
                at,
            });
        }
        Ok(n)
    }

    fn string(&mut self, what: &'static str) -> Result<String, ModelError> {
        let at = self.at;
        let n = self.count(what, 1)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| ModelError::Corrupt {
            what: format!("{what} is not UTF-8"),
            at,
        })
    }
}

/// The clause's heading, or that of its nearest ancestor with one (as the model was trained).
fn heading_of<'a>(doc: &Index<'a>, clause_id: &str, title: &'a str) -> &'a str {
    if !title.trim().is_empty() {
        return title.trim();
    }
    let mut current = doc.parent(clause_id);
    while let Some(parent) = current {
        if !parent.title.trim().is_empty() {
            return parent.title.trim();
        }
        current = doc.parent(&parent.clause_id);
    }
    ""
}

#[cfg(test)]
mod tests;
