//! BM25F: ranking documents made of several weighted fields against a bag of query terms.
//!
//! Domain-free: a document is a list of terms per field, whatever produced them (the
//! [`Analyzer`](super::Analyzer) of tool search, or another tokenizer), so any index in the
//! workspace can rank with it. Each field has a weight and its own length normalisation
//! (BM25F, Robertson and Zaragoza 2009): a term's frequency in a document is the weighted
//! sum over fields of `tf / (1 - b + b * length / mean length)`, saturated once with `k1`.
//! The contribution of every (term, document) pair is computed when the index is built,
//! so a search only adds numbers.
//!
//! Documents may be grouped ([`Bm25FBuilder::group`]): the documents of a group (variants
//! of one thing) count as one for the inverse document frequency, so that a word repeated
//! by many variants of one tool is not taken for a common word.

use rustc_hash::FxHashMap;

/// One field of the documents: how much a match in it counts, and how much its length
/// normalises (`b`: 0 ignores length, 1 divides fully by the relative length).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    /// Weight of a match in this field (a match in a field of weight 2 counts twice).
    pub weight: f32,
    /// Length normalisation of this field, in `0.0..=1.0`.
    pub b: f32,
}

impl Field {
    /// A field with this weight and the usual length normalisation (`b = 0.75`).
    pub const fn weighted(weight: f32) -> Self {
        Self { weight, b: 0.75 }
    }
}

/// One document as collected: (term, field, count) sorted, and its length per field.
type DocumentTerms = (Vec<(u32, u16, u32)>, Vec<u32>);

/// Term frequency saturation used unless [`Bm25FBuilder::k1`] sets another.
pub const DEFAULT_K1: f32 = 1.2;

/// Collects documents, then builds a [`Bm25F`] index.
#[derive(Debug, Clone)]
pub struct Bm25FBuilder {
    fields: Vec<Field>,
    k1: f32,
    vocabulary: FxHashMap<String, u32>,
    /// Per document: (term, field, count), and its length per field.
    documents: Vec<DocumentTerms>,
    current: FxHashMap<(u32, u16), u32>,
    current_lengths: Vec<u32>,
    /// Per document ended, its group (numbered from 0 in order of appearance).
    groups: Vec<u32>,
    /// Group numbers by key: `(true, id)` for a group named by the caller, `(false, doc)`
    /// for a document in no group.
    group_numbers: FxHashMap<(bool, u32), u32>,
    current_group: Option<u32>,
}

impl Bm25FBuilder {
    /// A builder for documents with these fields (field `i` of [`add_term`](Self::add_term)
    /// is `fields[i]`).
    ///
    /// # Panics
    /// If there are no fields or more than 65,536 (a programming error, not input).
    pub fn new(fields: Vec<Field>) -> Self {
        assert!(
            !fields.is_empty() && fields.len() <= usize::from(u16::MAX) + 1,
            "BM25F needs 1 to 65,536 fields"
        );
        let n = fields.len();
        Self {
            fields,
            k1: DEFAULT_K1,
            vocabulary: FxHashMap::default(),
            documents: Vec::new(),
            current: FxHashMap::default(),
            current_lengths: vec![0; n],
            groups: Vec::new(),
            group_numbers: FxHashMap::default(),
            current_group: None,
        }
    }

    /// Term frequency saturation (default [`DEFAULT_K1`]): how fast repeats stop counting.
    #[must_use]
    pub fn k1(mut self, k1: f32) -> Self {
        self.k1 = k1.max(0.0);
        self
    }

    /// Adds one term to `field` of the document being built.
    ///
    /// # Panics
    /// If `field` is not one of the builder's fields.
    pub fn add_term(&mut self, field: usize, term: &str) {
        assert!(field < self.fields.len(), "no field {field}");
        let next = self.vocabulary.len() as u32;
        let id = match self.vocabulary.get(term) {
            Some(&id) => id,
            None => {
                self.vocabulary.insert(term.to_string(), next);
                next
            }
        };
        *self.current.entry((id, field as u16)).or_insert(0) += 1;
        self.current_lengths[field] += 1;
    }

    /// Puts the document being built in group `group` (any number the caller chooses): the
    /// documents of one group count as one document for the inverse document frequency.
    /// A document put in no group is a group of its own.
    pub fn group(&mut self, group: u32) {
        self.current_group = Some(group);
    }

    /// Ends the document being built (it may be empty) and returns its number: documents
    /// are numbered from 0 in the order they were ended.
    pub fn end_document(&mut self) -> usize {
        let mut terms: Vec<(u32, u16, u32)> = self
            .current
            .drain()
            .map(|((term, field), count)| (term, field, count))
            .collect();
        terms.sort_unstable();
        let lengths = std::mem::replace(&mut self.current_lengths, vec![0; self.fields.len()]);
        self.documents.push((terms, lengths));
        let doc = self.documents.len() - 1;
        let key = match self.current_group.take() {
            Some(group) => (true, group),
            None => (false, doc as u32),
        };
        let next = self.group_numbers.len() as u32;
        self.groups
            .push(*self.group_numbers.entry(key).or_insert(next));
        doc
    }

    /// Builds the index (a document still being built is ended first).
    pub fn build(mut self) -> Bm25F {
        if !self.current.is_empty() || self.current_lengths.iter().any(|&l| l > 0) {
            self.end_document();
        }
        let n_docs = self.documents.len();
        let mut mean = vec![0f32; self.fields.len()];
        for (_, lengths) in &self.documents {
            for (m, &l) in mean.iter_mut().zip(lengths) {
                *m += l as f32;
            }
        }
        for m in &mut mean {
            *m = if n_docs == 0 {
                1.0
            } else {
                (*m / n_docs as f32).max(1.0)
            };
        }
        let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); self.vocabulary.len()];
        for (doc, (terms, lengths)) in self.documents.iter().enumerate() {
            let mut i = 0;
            while i < terms.len() {
                let term = terms[i].0;
                let mut tf = 0f32;
                while i < terms.len() && terms[i].0 == term {
                    let (_, field, count) = terms[i];
                    let spec = self.fields[usize::from(field)];
                    let norm = 1.0 - spec.b
                        + spec.b * lengths[usize::from(field)] as f32 / mean[usize::from(field)];
                    tf += spec.weight * count as f32 / norm;
                    i += 1;
                }
                if tf > 0.0 {
                    postings[term as usize]
                        .push((doc as u32, tf * (self.k1 + 1.0) / (self.k1 + tf)));
                }
            }
        }
        // Document frequency and the number of documents count groups.
        let n_groups = self.group_numbers.len();
        let mut last_term = vec![u32::MAX; n_groups];
        let groups = &self.groups;
        let terms = postings
            .into_iter()
            .enumerate()
            .map(|(term, mut impacts)| {
                let mut df = 0u32;
                for &(doc, _) in &impacts {
                    let seen = &mut last_term[groups[doc as usize] as usize];
                    if *seen != term as u32 {
                        *seen = term as u32;
                        df += 1;
                    }
                }
                let df = df as f32;
                let idf = (1.0 + (n_groups as f32 - df + 0.5) / (df + 0.5)).ln();
                for (_, impact) in &mut impacts {
                    *impact *= idf;
                }
                Postings { idf, impacts }
            })
            .collect();
        Bm25F {
            vocabulary: self.vocabulary,
            terms,
            documents: n_docs,
        }
    }
}

#[derive(Debug, Clone)]
struct Postings {
    idf: f32,
    /// (document, the term's full BM25F contribution to it), by document.
    impacts: Vec<(u32, f32)>,
}

/// A built BM25F index: per term, the documents that hold it and its score in each.
#[derive(Debug, Clone)]
pub struct Bm25F {
    vocabulary: FxHashMap<String, u32>,
    terms: Vec<Postings>,
    documents: usize,
}

/// A term of a [`Bm25F`] index's vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(u32);

impl Bm25F {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.documents
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.documents == 0
    }

    /// The term's id, when some document holds it.
    pub fn term(&self, term: &str) -> Option<TermId> {
        self.vocabulary.get(term).map(|&id| TermId(id))
    }

    /// Inverse document frequency of a term: `ln(1 + (N - df + 0.5) / (df + 0.5))`, where
    /// `N` and `df` count groups of documents ([`Bm25FBuilder::group`]).
    pub fn idf(&self, term: TermId) -> f32 {
        self.terms[term.0 as usize].idf
    }

    /// The documents holding `term` (ascending) with the term's score in each.
    pub fn postings(&self, term: TermId) -> &[(u32, f32)] {
        &self.terms[term.0 as usize].impacts
    }

    /// Adds `weight` times the term's score to `scores[document]` for every document that
    /// holds it (`scores` has [`len`](Self::len) entries).
    pub fn accumulate(&self, term: TermId, weight: f32, scores: &mut [f32]) {
        for &(doc, impact) in self.postings(term) {
            scores[doc as usize] += weight * impact;
        }
    }

    /// Plain BM25F ranking: the documents matching any of `terms` (unknown terms are
    /// ignored, repeats count once), best first, at most `limit`; ties keep document order.
    pub fn rank<'t>(
        &self,
        terms: impl IntoIterator<Item = &'t str>,
        limit: usize,
    ) -> Vec<(usize, f32)> {
        let mut ids: Vec<TermId> = terms.into_iter().filter_map(|t| self.term(t)).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut scores = vec![0f32; self.documents];
        for id in ids {
            self.accumulate(id, 1.0, &mut scores);
        }
        top(&scores, limit, |_| true)
    }
}

/// The documents with a score above 0 that `keep` accepts, best first, at most `limit`;
/// ties keep document order. For callers that add up scores themselves (with
/// [`Bm25F::accumulate`]), e.g. from a chosen subset of the query's terms.
pub fn top(scores: &[f32], limit: usize, keep: impl Fn(usize) -> bool) -> Vec<(usize, f32)> {
    let mut hits: Vec<(usize, f32)> = scores
        .iter()
        .enumerate()
        .filter(|&(i, &s)| s > 0.0 && keep(i))
        .map(|(i, &s)| (i, s))
        .collect();
    let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if hits.len() > limit {
        if limit > 0 {
            hits.select_nth_unstable_by(limit - 1, by_score);
        }
        hits.truncate(limit);
    }
    hits.sort_unstable_by(by_score);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A title with the usual length normalisation and a body whose length is ignored.
    fn unnormalised_body() -> Vec<Field> {
        vec![
            Field::weighted(1.0),
            Field {
                weight: 1.0,
                b: 0.0,
            },
        ]
    }

    fn index(docs: &[(&str, &str)], fields: Vec<Field>) -> Bm25F {
        let mut b = Bm25FBuilder::new(fields);
        for (title, body) in docs {
            for t in title.split_whitespace() {
                b.add_term(0, t);
            }
            for t in body.split_whitespace() {
                b.add_term(1, t);
            }
            b.end_document();
        }
        b.build()
    }

    #[test]
    fn rare_terms_outweigh_common_ones() {
        let idx = index(
            &[
                ("weather", "get the weather"),
                ("stock", "get the stock price"),
                ("news", "get the news"),
            ],
            vec![Field::weighted(1.0), Field::weighted(1.0)],
        );
        let ranked = idx.rank(["get", "stock"], 10);
        assert_eq!(ranked[0].0, 1);
        assert_eq!(ranked.len(), 3, "every document holds `get`");
        assert!(idx.idf(idx.term("stock").unwrap()) > idx.idf(idx.term("get").unwrap()));
    }

    #[test]
    fn field_weight_decides_between_equal_matches() {
        let docs = [("alpha", "beta"), ("beta", "alpha")];
        let title_first = index(&docs, vec![Field::weighted(3.0), Field::weighted(1.0)]);
        assert_eq!(title_first.rank(["alpha"], 10)[0].0, 0);
        let body_first = index(&docs, vec![Field::weighted(1.0), Field::weighted(3.0)]);
        assert_eq!(body_first.rank(["alpha"], 10)[0].0, 1);
    }

    #[test]
    fn shorter_fields_score_higher_with_length_normalisation() {
        let docs = [("x", "term filler filler filler filler"), ("x", "term")];
        let normalised = index(&docs, vec![Field::weighted(1.0), Field::weighted(1.0)]);
        let ranked = normalised.rank(["term"], 10);
        assert_eq!(ranked[0].0, 1);
        assert!(ranked[0].1 > ranked[1].1);
        let flat = index(&docs, unnormalised_body());
        let ranked = flat.rank(["term"], 10);
        assert_eq!(ranked[0].1, ranked[1].1, "b = 0 ignores length");
        assert_eq!(ranked[0].0, 0, "ties keep document order");
    }

    #[test]
    fn repeats_saturate_and_unknown_terms_are_ignored() {
        let idx = index(
            &[("a", "w"), ("a", "w w w w w w w w"), ("b", "z")],
            unnormalised_body(),
        );
        let ranked = idx.rank(["w", "w", "nowhere"], 10);
        assert_eq!(ranked.len(), 2);
        // Eight repeats count for less than twice one (k1 = 1.2 saturates).
        assert!(ranked[0].1 < 2.0 * ranked[1].1);
        assert!(idx.rank(["nowhere"], 10).is_empty());
        assert!(idx.rank(["w"], 0).is_empty());
    }

    #[test]
    fn variants_in_a_group_count_once_for_idf() {
        let build = |grouped: bool| {
            let mut b = Bm25FBuilder::new(vec![Field::weighted(1.0)]);
            for (i, text) in [
                "weather today",
                "weather now",
                "weather here",
                "stock price",
            ]
            .iter()
            .enumerate()
            {
                for t in text.split_whitespace() {
                    b.add_term(0, t);
                }
                if grouped && i < 3 {
                    b.group(7);
                }
                b.end_document();
            }
            b.build()
        };
        let apart = build(false);
        let grouped = build(true);
        let weather = |idx: &Bm25F| idx.idf(idx.term("weather").unwrap());
        let stock = |idx: &Bm25F| idx.idf(idx.term("stock").unwrap());
        // Apart: 3 of 4 documents hold "weather". Grouped: 1 of 2 groups, like "stock".
        assert!(weather(&apart) < stock(&apart));
        assert!((weather(&grouped) - stock(&grouped)).abs() < 1e-6);
        assert!(weather(&grouped) > weather(&apart));
        // Grouping changes weights, not which documents match.
        assert_eq!(grouped.rank(["weather"], 10).len(), 3);
        assert_eq!(grouped.len(), 4);
    }

    #[test]
    fn empty_index_ranks_nothing() {
        let idx = Bm25FBuilder::new(vec![Field::weighted(1.0)]).build();
        assert!(idx.is_empty());
        assert!(idx.rank(["x"], 5).is_empty());
    }

    #[test]
    fn limit_keeps_the_best() {
        let docs: Vec<(String, String)> = (0..50)
            .map(|i| ("t".to_string(), "w ".repeat(i % 7 + 1)))
            .collect();
        let borrowed: Vec<(&str, &str)> =
            docs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let idx = index(&borrowed, unnormalised_body());
        let all = idx.rank(["w"], 100);
        let five = idx.rank(["w"], 5);
        assert_eq!(&all[..5], &five[..]);
    }
}
