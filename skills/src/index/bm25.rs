//! BM25 ranking over reference documents, built once per document and shared.
//!
//! English is tokenised into lowercase words (stop words dropped), Chinese into character
//! bigrams, so `合同价格` matches `合同价格调整` without a dictionary. Indexes are cached by a
//! cheap document fingerprint (see [`index_for`]), so a review of 2,000 clauses builds each
//! reference index once; a host may also build a [`ReferenceIndex`] up front and inject it.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use crate::state::{ReviewDocument, ReviewState};
use crate::text::is_cjk;

const K1: f32 = 1.2;
const B: f32 = 0.75;
/// Query words used per search: the most selective (highest idf) ones.
pub(super) const MAX_QUERY_TERMS: usize = 24;
/// Query words always used, however common.
const MIN_QUERY_TERMS: usize = 3;
/// idf of a word found in about half the passages (`ln 2`); commoner words are dropped from
/// queries that have enough selective words.
const COMMON_TERM_IDF: f32 = std::f32::consts::LN_2;
/// Passages longer than this many characters are split at sentence ends.
const MAX_PASSAGE_CHARS: usize = 1200;

/// Words too common in contracts to help a search.
fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "the"
            | "of"
            | "and"
            | "or"
            | "to"
            | "in"
            | "a"
            | "an"
            | "be"
            | "by"
            | "for"
            | "on"
            | "at"
            | "as"
            | "is"
            | "are"
            | "was"
            | "with"
            | "that"
            | "this"
            | "which"
            | "any"
            | "all"
            | "such"
            | "it"
            | "its"
            | "from"
            | "shall"
            | "will"
            | "may"
            | "not"
            | "no"
            | "if"
            | "under"
            | "other"
            | "has"
            | "have"
            | "been"
            | "each"
            | "into"
    )
}

/// Calls `f` with every search token of `text`: lowercase words, CJK character bigrams.
pub(super) fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut pair = String::new();
    let emit_word = |word: &mut String, f: &mut dyn FnMut(&str)| {
        if word.chars().count() >= 2 && !is_stop_word(word) {
            f(word);
        }
        word.clear();
    };
    let mut emit_cjk = |run: &mut Vec<char>, f: &mut dyn FnMut(&str)| {
        if run.len() == 1 {
            pair.clear();
            pair.push(run[0]);
            f(&pair);
        }
        for w in run.windows(2) {
            pair.clear();
            pair.push(w[0]);
            pair.push(w[1]);
            f(&pair);
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            emit_word(&mut word, &mut f);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            emit_cjk(&mut cjk, &mut f);
            word.extend(c.to_lowercase());
        } else {
            emit_word(&mut word, &mut f);
            emit_cjk(&mut cjk, &mut f);
        }
    }
    emit_word(&mut word, &mut f);
    emit_cjk(&mut cjk, &mut f);
}

/// The tokens of `text`: lowercase English words without stop words, Chinese character
/// bigrams.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
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
    vocabulary: HashMap<String, u32>,
    /// Per term: its idf and, per passage containing it, the passage and the term's BM25
    /// contribution (precomputed, so a search only adds numbers).
    postings: Vec<TermPostings>,
}

#[derive(Debug, Default)]
struct TermPostings {
    idf: f32,
    impacts: Vec<(u32, f32)>,
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
        let mut vocabulary: HashMap<String, u32> = HashMap::new();
        let mut raw: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut lengths: Vec<u32> = Vec::with_capacity(passages.len());
        let mut counts: HashMap<u32, u32> = HashMap::new();
        for (i, passage) in passages.iter().enumerate() {
            counts.clear();
            let mut length: u32 = 0;
            let mut add = |token: &str| {
                let id = match vocabulary.get(token) {
                    Some(id) => *id,
                    None => {
                        let id = raw.len() as u32;
                        vocabulary.insert(token.to_string(), id);
                        raw.push(Vec::new());
                        id
                    }
                };
                *counts.entry(id).or_default() += 1;
                length += 1;
            };
            for_each_token(&passage.title, &mut add);
            for_each_token(&passage.text, &mut add);
            for (&term, &tf) in &counts {
                raw[term as usize].push((i as u32, tf));
            }
            lengths.push(length);
        }
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let average_length = if lengths.is_empty() {
            1.0
        } else {
            (total as f32 / lengths.len() as f32).max(1.0)
        };
        let n = passages.len() as f32;
        let postings = raw
            .into_iter()
            .map(|list| {
                let df = list.len() as f32;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let impacts = list
                    .into_iter()
                    .map(|(doc, tf)| {
                        let tf = tf as f32;
                        let norm =
                            K1 * (1.0 - B + B * lengths[doc as usize] as f32 / average_length);
                        (doc, idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .collect();
                TermPostings { idf, impacts }
            })
            .collect();
        Self {
            filename: document.filename.clone(),
            passages,
            vocabulary,
            postings,
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
        let mut terms: Vec<u32> = Vec::new();
        for_each_token(query, |t| {
            if let Some(&id) = self.vocabulary.get(t) {
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
        terms.sort_by(|a, b| {
            self.postings[*b as usize]
                .idf
                .total_cmp(&self.postings[*a as usize].idf)
        });
        let selective = terms
            .iter()
            .take_while(|t| self.postings[**t as usize].idf >= COMMON_TERM_IDF)
            .count();
        terms.truncate(selective.clamp(MIN_QUERY_TERMS, MAX_QUERY_TERMS));
        let mut scores = vec![0.0_f32; self.passages.len()];
        for term in terms {
            for &(doc, impact) in &self.postings[term as usize].impacts {
                scores[doc as usize] += impact;
            }
        }
        // Keep the best `top_k` in a small sorted buffer while scanning: no full sort.
        let better = |a: (u32, f32), b: (u32, f32)| a.1 > b.1 || (a.1 == b.1 && a.0 < b.0);
        let mut ranked: Vec<(u32, f32)> = Vec::with_capacity(top_k + 1);
        for (doc, &score) in scores.iter().enumerate() {
            let candidate = (doc as u32, score);
            if score <= 0.0 || (ranked.len() == top_k && !better(candidate, ranked[top_k - 1])) {
                continue;
            }
            let at = ranked
                .iter()
                .position(|&r| better(candidate, r))
                .unwrap_or(ranked.len());
            ranked.insert(at, candidate);
            ranked.truncate(top_k);
        }
        ranked
            .into_iter()
            .map(|(doc, score)| ScoredPassage {
                passage: &self.passages[doc as usize],
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
            structure: parse_text("ER", text),
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
