//! Reference documents ranked by BM25, built once per document and shared.
//!
//! The ranking engine and the tokenizer are the runtime's ([`toolwright::search::bm25`],
//! [`Analyzer::prose`]): English words lowercase as written (contract stop words dropped),
//! Chinese as character bigrams, so `合同价格` matches `合同价格调整` without a dictionary.
//! Indexes are cached by a cheap document fingerprint (see [`index_for`]), so a review of
//! 2,000 clauses builds each reference index once; a host may also build a
//! [`ReferenceIndex`] up front and inject it.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use toolwright::search::bm25::{top, Bm25F, Bm25FBuilder, Field, TermId};
use toolwright::search::Analyzer;

use crate::state::{ReviewDocument, ReviewState};

/// Query words used per search: the most selective (highest idf) ones.
pub(super) const MAX_QUERY_TERMS: usize = 24;
/// Query words always used, however common.
const MIN_QUERY_TERMS: usize = 3;
/// idf of a word found in about half the passages (`ln 2`); commoner words are dropped from
/// queries that have enough selective words.
const COMMON_TERM_IDF: f32 = std::f32::consts::LN_2;
/// Passages longer than this many characters are split at sentence ends.
const MAX_PASSAGE_CHARS: usize = 1200;

/// Words too common in contracts to help a search (sorted, for the analyzer).
const STOP_WORDS: &[&str] = &[
    "a", "all", "an", "and", "any", "are", "as", "at", "be", "been", "by", "each", "for", "from",
    "has", "have", "if", "in", "into", "is", "it", "its", "may", "no", "not", "of", "on", "or",
    "other", "shall", "such", "that", "the", "this", "to", "under", "was", "which", "will", "with",
];

/// The tokenizer of reference documents and of the queries against them.
fn analyzer() -> &'static Analyzer {
    static ANALYZER: OnceLock<Analyzer> = OnceLock::new();
    ANALYZER.get_or_init(|| Analyzer::prose(STOP_WORDS))
}

/// The tokens of `text`: lowercase English words without stop words, Chinese character
/// bigrams.
pub fn tokenize(text: &str) -> Vec<String> {
    analyzer().terms(text)
}

/// A searchable piece of a reference document: a clause, or part of a long one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// Clause id, with `#n` for the n-th part of a long clause.
    pub passage_id: String,
    /// Clause title.
    pub title: String,
    /// The text.
    pub text: String,
}

/// A BM25 index over one document's passages.
#[derive(Debug)]
pub struct Bm25Index {
    /// File name of the document.
    pub filename: String,
    passages: Vec<Passage>,
    /// One document per passage (title and text as one field).
    bm25: Bm25F,
}

/// A scored passage.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredPassage<'a> {
    /// The passage.
    pub passage: &'a Passage,
    /// BM25 score (higher is better).
    pub score: f32,
}

impl Bm25Index {
    /// Indexes every clause of a document.
    pub fn build(document: &ReviewDocument) -> Self {
        let mut passages = Vec::new();
        for clause in document.structure.iter_clauses() {
            if clause.text.trim().is_empty() && clause.title.is_empty() {
                continue;
            }
            let chunks = split_long(&clause.text);
            let many = chunks.len() > 1;
            for (n, chunk) in chunks.into_iter().enumerate() {
                passages.push(Passage {
                    passage_id: if many {
                        format!("{}#{}", clause.clause_id, n + 1)
                    } else {
                        clause.clause_id.clone()
                    },
                    title: clause.title.clone(),
                    text: chunk,
                });
            }
        }
        let mut builder = Bm25FBuilder::new(vec![Field::weighted(1.0)]);
        for passage in &passages {
            analyzer().for_each_term(&passage.title, |t| builder.add_term(0, t));
            analyzer().for_each_term(&passage.text, |t| builder.add_term(0, t));
            builder.end_document();
        }
        Self {
            filename: document.filename.clone(),
            passages,
            bm25: builder.build(),
        }
    }

    /// Number of passages indexed.
    pub fn len(&self) -> usize {
        self.passages.len()
    }

    /// Whether nothing was indexed.
    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    /// The `top_k` best passages for `query`, best first (passages sharing no token with the
    /// query are never returned).
    pub fn search(&self, query: &str, top_k: usize) -> Vec<ScoredPassage<'_>> {
        let mut terms: Vec<TermId> = Vec::new();
        analyzer().for_each_term(query, |t| {
            if let Some(id) = self.bm25.term(t) {
                if !terms.contains(&id) {
                    terms.push(id);
                }
            }
        });
        if terms.is_empty() || top_k == 0 {
            return Vec::new();
        }
        // A query made from a whole clause has dozens of words; the most selective ones
        // decide the ranking, while words found in most passages add almost nothing to any
        // score and only cost time: keep the selective ones (at least a few).
        terms.sort_by(|a, b| self.bm25.idf(*b).total_cmp(&self.bm25.idf(*a)));
        let selective = terms
            .iter()
            .take_while(|t| self.bm25.idf(**t) >= COMMON_TERM_IDF)
            .count();
        terms.truncate(selective.clamp(MIN_QUERY_TERMS, MAX_QUERY_TERMS));
        let mut scores = vec![0.0_f32; self.passages.len()];
        for term in terms {
            self.bm25.accumulate(term, 1.0, &mut scores);
        }
        top(&scores, top_k, |_| true)
            .into_iter()
            .map(|(doc, score)| ScoredPassage {
                passage: &self.passages[doc],
                score,
            })
            .collect()
    }
}

fn split_long(text: &str) -> Vec<String> {
    if text.chars().count() <= MAX_PASSAGE_CHARS {
        return vec![text.to_string()];
    }
    let mut chunks = Vec::new();
    let mut current = String::new();
    for sentence in crate::text::sentences(text) {
        if !current.is_empty()
            && current.chars().count() + sentence.chars().count() > MAX_PASSAGE_CHARS
        {
            chunks.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(sentence);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// A fingerprint of a document that costs one pass over its clause list, not its bytes:
/// file name, id, and every clause's id, length and first bytes.
fn fingerprint(document: &ReviewDocument) -> u64 {
    let mut hasher = DefaultHasher::new();
    document.filename.hash(&mut hasher);
    document.structure.document_id.hash(&mut hasher);
    for clause in document.structure.iter_clauses() {
        clause.clause_id.hash(&mut hasher);
        clause.text.len().hash(&mut hasher);
        clause.text.as_bytes()[..clause.text.len().min(32)].hash(&mut hasher);
        clause.text.as_bytes()[clause.text.len().saturating_sub(32)..].hash(&mut hasher);
    }
    hasher.finish()
}

/// How many document indexes the process-wide cache keeps before starting afresh.
const CACHE_CAPACITY: usize = 32;

/// The index of a document, built on first use and cached process-wide by fingerprint.
pub(crate) fn index_for(document: &ReviewDocument) -> Arc<Bm25Index> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Arc<Bm25Index>>>> = OnceLock::new();
    let key = fingerprint(document);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Arc::clone(found);
    }
    // Build outside the lock so other documents are not held up.
    let built = Arc::new(Bm25Index::build(document));
    tracing::debug!(filename = %document.filename, passages = built.len(), "built reference index");
    let mut guard = cache.lock().unwrap_or_else(|p| p.into_inner());
    if guard.len() >= CACHE_CAPACITY {
        guard.clear();
    }
    Arc::clone(guard.entry(key).or_insert(built))
}

/// The indexes of every reference document of a review; build it once and put it in the
/// `SkillContext` so searches never rebuild or fingerprint anything.
#[derive(Debug, Clone, Default)]
pub struct ReferenceIndex {
    /// One index per reference document, in state order.
    pub documents: Vec<Arc<Bm25Index>>,
}

impl ReferenceIndex {
    /// Indexes the review's reference documents (reusing cached indexes).
    pub fn build(state: &ReviewState) -> Self {
        Self {
            documents: state.references().map(index_for).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_text;
    use crate::state::DocumentRole;

    fn doc(text: &str) -> ReviewDocument {
        ReviewDocument {
            role: DocumentRole::Reference,
            filename: "ER.md".into(),
            structure: parse_text("ER", text).into(),
        }
    }

    #[test]
    fn tokens() {
        assert_eq!(
            tokenize("The Pumps, 合同价格!"),
            ["pumps", "合同", "同价", "价格"]
        );
        assert_eq!(tokenize("of 价"), ["价"]);
    }

    #[test]
    fn ranks_by_relevance() {
        let d = doc("1 Pumps\nThe pumps shall be tested at the factory.\n2 Roads\nAccess roads shall be paved.\n3 Testing\nAll plant shall be tested; pumps twice.");
        let index = Bm25Index::build(&d);
        let hits: Vec<&str> = index
            .search("pump testing pumps", 5)
            .iter()
            .map(|h| h.passage.passage_id.as_str())
            .collect();
        // Passage 3 matches two query words, passage 1 one word twice.
        assert_eq!(hits, ["3", "1"]);
        assert!(index.search("bridges", 5).is_empty());
        assert!(Arc::ptr_eq(&index_for(&d), &index_for(&d)), "cached");
    }
}
