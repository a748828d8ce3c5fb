//! The clause indexes of a review state, built once per `Arc<ReviewState>` and shared by
//! every skill call on it.
//!
//! A review of 2,000 clauses asks for clauses tens of thousands of times; the
//! [`ClauseIndex`] of each document is built once and found again by pointer identity. The
//! cache holds a `Weak` to the state, which keeps its allocation (so its address) reserved
//! and makes `Arc::get_mut` refuse, so an entry can never describe a different or mutated
//! state; entries of dropped states are purged.

use std::sync::{Arc, Mutex, OnceLock, Weak};

use toolwright::SkillError;

use crate::document::{ClauseIndex, Index};
use crate::state::{DocumentRole, ReviewDocument, ReviewState};

/// A review state with the lookups of all its documents.
#[derive(Debug, Clone)]
pub(crate) struct StateLookup {
    state: Arc<ReviewState>,
    documents: Arc<Vec<ClauseIndex>>,
}

impl StateLookup {
    /// The state.
    pub(crate) fn state(&self) -> &ReviewState {
        &self.state
    }

    /// The first document with this role.
    pub(crate) fn document(&self, role: DocumentRole) -> Option<Index<'_>> {
        let i = self.state.documents.iter().position(|d| d.role == role)?;
        Some(Index::new(
            &self.state.documents[i].structure,
            &self.documents[i],
        ))
    }

    /// The contract under review.
    pub(crate) fn primary(&self) -> Option<Index<'_>> {
        self.document(DocumentRole::Primary)
    }

    /// The contract under review, or a `not_found` error.
    pub(crate) fn primary_or_not_found(&self) -> Result<Index<'_>, SkillError> {
        self.primary().ok_or_else(|| {
            SkillError::not_found("the review has no primary (contract) document loaded")
        })
    }

    /// The standard form.
    pub(crate) fn baseline(&self) -> Option<Index<'_>> {
        self.document(DocumentRole::Baseline)
    }

    /// One of the state's documents (by identity) with its lookup.
    pub(crate) fn doc_of(&self, document: &ReviewDocument) -> Option<Index<'_>> {
        let i = self
            .state
            .documents
            .iter()
            .position(|d| std::ptr::eq(d, document))?;
        Some(Index::new(
            &self.state.documents[i].structure,
            &self.documents[i],
        ))
    }
}

type Cache = Mutex<Vec<(Weak<ReviewState>, Arc<Vec<ClauseIndex>>)>>;

/// The lookups of `state`, built on first use and kept while the state lives (the cache
/// holds only a `Weak` to the state).
pub(crate) fn lookup_for(state: &Arc<ReviewState>) -> StateLookup {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let find = |entries: &Vec<(Weak<ReviewState>, Arc<Vec<ClauseIndex>>)>| {
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
                    .map(|d| ClauseIndex::build(&d.structure))
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
                structure: parse_text("a", text).into(),
            }],
            ..Default::default()
        })
    }

    #[test]
    fn documents_are_found_by_role_and_identity() {
        let s = state("4 Contractor\n4.1 Duty\nDo it.");
        let lookup = lookup_for(&s);
        let doc = lookup.primary().unwrap();
        assert_eq!(doc.clause("Sub-Clause 4.1").unwrap().title, "Duty");
        assert!(lookup.baseline().is_none());
        let by_identity = lookup.doc_of(&s.documents[0]).unwrap();
        assert!(std::ptr::eq(by_identity.structure, doc.structure));
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
