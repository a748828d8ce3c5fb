//! Contract-review skills for skillkit: the document model, the review state, and analysis
//! skills for FIDIC construction contracts and share purchase / shareholders' agreements.

#![warn(missing_docs)]

pub mod document;
pub mod fidic;
pub mod prepare;
pub mod sha_spa;
pub mod state;

pub use document::{Clause, CrossReference, DocumentStructure};
pub use state::{
    ChecklistItem, ClauseFocus, DocumentRole, Priority, ReviewCriterion, ReviewDocument,
    ReviewState,
};
