//! Indexes built once per review state and shared by every skill call on it: the clause
//! index of each document (see [`crate::document::Index`]) and BM25 search over the
//! reference documents ([`ReferenceIndex`], which a host may build up front and inject).

mod bm25;
mod lookup;

pub use bm25::{tokenize, Bm25Index, Passage, ReferenceIndex, ScoredPassage};

pub(crate) use bm25::index_for;
pub(crate) use lookup::{lookup_for, StateLookup};
