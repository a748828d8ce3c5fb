//! Clause lookup by id in O(1), shared by every skill call on the same review state.
//!
//! `DocumentStructure::find_clause` walks the whole tree; a review of 2,000 clauses calls it
//! tens of thousands of times. The lookups here are built once per `Arc<ReviewState>` and
//! found again by pointer identity. The cache holds a `Weak` to the state, which keeps its
//! allocation (so its address) reserved and makes `Arc::get_mut` refuse, so an entry can
//! never describe a different or mutated state; entries of dropped states are purged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use skill_core::SkillError;

use crate::document::{normalize_clause_id, Clause, DocumentStructure};
use crate::state::{DocumentRole, ReviewDocument, ReviewState};
use crate::text::TermIndex;

/// Paths (child indexes from the roots) of every clause of one document, by id.
#[derive(Debug, Default)]
pub(super) struct DocumentLookup {
    paths: HashMap<String, Box<[u32]>>,
    /// Every distinct clause id with the document-order position of its first clause, sorted
    /// by id, so the clauses under a number (`4` and `4.*`) are one range.
    sorted: Vec<(String, u32)>,
    /// Child id → path of the first clause (in document order) that has a child with it.
    parents: HashMap<String, Box<[u32]>>,
    /// The document's defined terms, to find those a clause uses in one pass.
    terms: Option<TermIndex>,
}

impl DocumentLookup {
    /// Indexes every clause of `doc` (the first clause wins when ids repeat, as in
    /// `find_clause`).
    pub(super) fn build(doc: &DocumentStructure) -> Self {
        fn walk(clauses: &[Clause], path: &mut Vec<u32>, lookup: &mut DocumentLookup, n: &mut u32) {
            for (i, clause) in clauses.iter().enumerate() {
                path.push(i as u32);
                if !lookup.paths.contains_key(&clause.clause_id) {
                    lookup
                        .paths
                        .insert(clause.clause_id.clone(), path.clone().into_boxed_slice());
                    lookup.sorted.push((clause.clause_id.clone(), *n));
                }
                *n += 1;
                for child in &clause.children {
                    if !lookup.parents.contains_key(&child.clause_id) {
                        lookup
                            .parents
                            .insert(child.clause_id.clone(), path.clone().into_boxed_slice());
                    }
                }
                walk(&clause.children, path, lookup, n);
                path.pop();
            }
        }
        let mut lookup = Self::default();
        walk(&doc.clauses, &mut Vec::new(), &mut lookup, &mut 0);
        lookup.sorted.sort_unstable();
        Self {
            paths: lookup.paths,
            sorted: lookup.sorted,
            parents: lookup.parents,
            terms: Some(TermIndex::new(doc.definitions.keys())),
        }
    }

    fn path(&self, clause_id: &str) -> Option<&[u32]> {
        match self.paths.get(clause_id) {
            Some(path) => Some(path),
            None => self
                .paths
                .get(&normalize_clause_id(clause_id))
                .map(|p| &**p),
        }
    }
}

fn at<'d>(doc: &'d DocumentStructure, path: &[u32]) -> Option<&'d Clause> {
    let (first, rest) = path.split_first()?;
    let mut node = doc.clauses.get(*first as usize)?;
    for i in rest {
        node = node.children.get(*i as usize)?;
    }
    Some(node)
}

/// A document with its lookup.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Doc<'a> {
    /// The document.
    pub structure: &'a DocumentStructure,
    lookup: &'a DocumentLookup,
}

impl<'a> Doc<'a> {
    /// The clause with this id (decorated forms such as `Sub-Clause 4.1` accepted).
    pub(crate) fn clause(&self, clause_id: &str) -> Option<&'a Clause> {
        self.lookup
            .path(clause_id)
            .and_then(|p| at(self.structure, p))
    }

    /// The clause, or a `not_found` error naming it and a few existing ids.
    pub(crate) fn clause_or_not_found(&self, clause_id: &str) -> Result<&'a Clause, SkillError> {
        self.clause(clause_id)
            .ok_or_else(|| clause_not_found(self.structure, clause_id))
    }

    /// The clause with this id after [`normalize_clause_id`], exactly as
    /// [`DocumentStructure::find_clause`] finds it (the first clause with that id).
    pub(crate) fn find_clause(&self, clause_id: &str) -> Option<&'a Clause> {
        self.lookup
            .paths
            .get(&normalize_clause_id(clause_id))
            .and_then(|p| at(self.structure, p))
    }

    /// Text of the clause and all its sub-clauses, as
    /// [`DocumentStructure::clause_full_text`] gives it.
    pub(crate) fn clause_full_text(&self, clause_id: &str) -> Option<String> {
        self.find_clause(clause_id).map(Clause::full_text)
    }

    /// The first clause (in document order) with a child of this id after
    /// [`normalize_clause_id`], exactly as [`DocumentStructure::parent_of`] finds it.
    pub(crate) fn parent_of(&self, clause_id: &str) -> Option<&'a Clause> {
        self.lookup
            .parents
            .get(&normalize_clause_id(clause_id))
            .and_then(|p| at(self.structure, p))
    }

    /// The distinct ids equal to `clause_id` or starting with `{clause_id}.`, in the document
    /// order of their first clause.
    pub(crate) fn family(&self, clause_id: &str) -> Vec<&'a str> {
        let sorted = &self.lookup.sorted;
        let prefix = format!("{clause_id}.");
        let mut found: Vec<(u32, &'a str)> = Vec::new();
        let start = sorted.partition_point(|(id, _)| id.as_str() < clause_id);
        if let Some((id, n)) = sorted.get(start).filter(|(id, _)| id == clause_id) {
            found.push((*n, id.as_str()));
        }
        let start = sorted.partition_point(|(id, _)| id.as_str() < prefix.as_str());
        found.extend(
            sorted[start..]
                .iter()
                .take_while(|(id, _)| id.starts_with(&prefix))
                .map(|(id, n)| (*n, id.as_str())),
        );
        found.sort_unstable();
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// The clause's siblings (its parent's children, or the top-level clauses) and its
    /// position among them.
    pub(crate) fn siblings(&self, clause_id: &str) -> Option<(&'a [Clause], usize)> {
        let path = self.lookup.path(clause_id)?;
        let (last, parent) = path.split_last()?;
        let siblings = if parent.is_empty() {
            self.structure.clauses.as_slice()
        } else {
            at(self.structure, parent)?.children.as_slice()
        };
        Some((siblings, *last as usize))
    }

    /// The enclosing clause.
    pub(crate) fn parent(&self, clause_id: &str) -> Option<&'a Clause> {
        let path = self.lookup.path(clause_id)?;
        let (_, parent) = path.split_last()?;
        at(self.structure, parent)
    }

    /// Text of the clause and all its sub-clauses.
    pub(crate) fn full_text(&self, clause_id: &str) -> Option<String> {
        self.clause(clause_id).map(Clause::full_text)
    }

    /// The document's defined terms that `text` uses, as whole words, in term order.
    pub(crate) fn defined_terms_in(&self, text: &str) -> std::collections::BTreeSet<&'a str> {
        match &self.lookup.terms {
            Some(index) => index.found_in(text),
            None => self
                .structure
                .definitions
                .keys()
                .filter(|t| crate::text::contains_term(text, t))
                .map(String::as_str)
                .collect(),
        }
    }
}

/// A review state with the lookups of all its documents.
#[derive(Debug, Clone)]
pub(crate) struct StateLookup {
    state: Arc<ReviewState>,
    documents: Arc<Vec<DocumentLookup>>,
}

impl StateLookup {
    /// The state.
    pub(crate) fn state(&self) -> &ReviewState {
        &self.state
    }

    /// The first document with this role.
    pub(crate) fn document(&self, role: DocumentRole) -> Option<Doc<'_>> {
        let i = self.state.documents.iter().position(|d| d.role == role)?;
        Some(Doc {
            structure: &self.state.documents[i].structure,
            lookup: &self.documents[i],
        })
    }

    /// The contract under review.
    pub(crate) fn primary(&self) -> Option<Doc<'_>> {
        self.document(DocumentRole::Primary)
    }

    /// The contract under review, or a `not_found` error.
    pub(crate) fn primary_or_not_found(&self) -> Result<Doc<'_>, SkillError> {
        self.primary().ok_or_else(|| {
            SkillError::not_found("the review has no primary (contract) document loaded")
        })
    }

    /// The standard form.
    pub(crate) fn baseline(&self) -> Option<Doc<'_>> {
        self.document(DocumentRole::Baseline)
    }

    /// One of the state's documents (by identity) with its lookup.
    pub(crate) fn doc_of(&self, document: &ReviewDocument) -> Option<Doc<'_>> {
        let i = self
            .state
            .documents
            .iter()
            .position(|d| std::ptr::eq(d, document))?;
        Some(Doc {
            structure: &self.state.documents[i].structure,
            lookup: &self.documents[i],
        })
    }
}

type Cache = Mutex<Vec<(Weak<ReviewState>, Arc<Vec<DocumentLookup>>)>>;

/// The lookups of `state`, built on first use and kept while the state lives (the cache
/// holds only a `Weak` to the state).
pub(crate) fn lookup_for(state: &Arc<ReviewState>) -> StateLookup {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let find = |entries: &Vec<(Weak<ReviewState>, Arc<Vec<DocumentLookup>>)>| {
        entries
            .iter()
            .find(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(state)))
            .map(|(_, docs)| Arc::clone(docs))
    };
    let cached = {
        let mut entries = cache.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(weak, _)| weak.strong_count() > 0);
        find(&entries)
    };
    let documents = match cached {
        Some(documents) => documents,
        None => {
            // Build outside the lock; if another thread won the race, use its lookups.
            let built = Arc::new(
                state
                    .documents
                    .iter()
                    .map(|d| DocumentLookup::build(&d.structure))
                    .collect::<Vec<_>>(),
            );
            let mut entries = cache.lock().unwrap_or_else(|p| p.into_inner());
            match find(&entries) {
                Some(documents) => documents,
                None => {
                    entries.push((Arc::downgrade(state), Arc::clone(&built)));
                    built
                }
            }
        }
    };
    StateLookup {
        state: Arc::clone(state),
        documents,
    }
}

/// The `not_found` error for a clause id that is not in `doc`.
pub(crate) fn clause_not_found(doc: &DocumentStructure, clause_id: &str) -> SkillError {
    let sample: Vec<&str> = doc
        .iter_clauses()
        .take(8)
        .map(|c| c.clause_id.as_str())
        .collect();
    let hint = if sample.is_empty() {
        "the document has no clauses".to_string()
    } else {
        format!("existing clauses include {}", sample.join(", "))
    };
    SkillError::not_found(format!(
        "clause `{clause_id}` does not exist in document `{}`; {hint}",
        doc.document_id
    ))
    .with_details(serde_json::json!({ "clause_id": clause_id, "document_id": doc.document_id }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::parse_text;
    use crate::state::ReviewDocument;

    fn state(text: &str) -> Arc<ReviewState> {
        Arc::new(ReviewState {
            documents: vec![ReviewDocument {
                role: DocumentRole::Primary,
                filename: "a.md".into(),
                structure: parse_text("a", text),
            }],
            ..Default::default()
        })
    }

    #[test]
    fn finds_clauses_parents_and_text() {
        let s = state(
            "4 Contractor
4.1 Duty
Do it.
4.1.1 Detail
More.",
        );
        let lookup = lookup_for(&s);
        let doc = lookup.primary().unwrap();
        assert_eq!(doc.clause("Sub-Clause 4.1").unwrap().title, "Duty");
        assert_eq!(doc.parent("4.1.1").unwrap().clause_id, "4.1");
        assert!(doc.parent("4").is_none());
        assert_eq!(doc.full_text("4.1").unwrap(), "Do it.\nMore.");
        assert_eq!(doc.clause_or_not_found("9").unwrap_err().code, "not_found");
    }

    #[test]
    fn indexed_answers_match_the_tree_walks() {
        let s = state(
            "4 Contractor
Intro.
4.1 Duty
Do it.
4.1.1 Detail
More.
4.10 Late
Later.
40 Other
Text.
40.1 Sub
Text.
4.2 Again
Repeated number.
5 Last
End.",
        );
        let lookup = lookup_for(&s);
        let doc = lookup.primary().unwrap();
        let tree = doc.structure;
        let mut asked: Vec<String> = tree.iter_clauses().map(|c| c.clause_id.clone()).collect();
        asked.extend(["Sub-Clause 4.1".into(), "Clause 40".into(), "9".into()]);
        for id in &asked {
            assert_eq!(doc.find_clause(id), tree.find_clause(id), "{id}");
            assert_eq!(doc.parent_of(id), tree.parent_of(id), "{id}");
            assert_eq!(doc.clause_full_text(id), tree.clause_full_text(id), "{id}");
            let mut walked: Vec<&str> = Vec::new();
            for c in tree.iter_clauses() {
                let id = id.as_str();
                let in_family = c.clause_id == id || c.clause_id.starts_with(&format!("{id}."));
                if in_family && !walked.contains(&c.clause_id.as_str()) {
                    walked.push(&c.clause_id);
                }
            }
            assert_eq!(doc.family(id), walked, "{id}");
        }
        assert_eq!(doc.family("4"), ["4", "4.1", "4.1.1", "4.10", "4.2"]);
        let (siblings, i) = doc.siblings("4.10").unwrap();
        assert_eq!(siblings[i].clause_id, "4.10");
        assert_eq!(siblings[i - 1].clause_id, "4.1");
        let (top, i) = doc.siblings("5").unwrap();
        assert_eq!(top.len(), tree.clauses.len());
        assert_eq!(top[i].clause_id, "5");
    }

    #[test]
    fn entries_follow_state_identity() {
        let a = state("1 One\nx");
        let b = state("2 Two\ny");
        assert!(lookup_for(&a).primary().unwrap().clause("1").is_some());
        assert!(lookup_for(&b).primary().unwrap().clause("1").is_none());
        assert!(
            Arc::ptr_eq(&lookup_for(&a).documents, &lookup_for(&a).documents),
            "cached"
        );
        let weak = Arc::downgrade(&a);
        drop(a);
        assert_eq!(
            weak.strong_count(),
            0,
            "the cache does not keep states alive"
        );
    }
}
