//! Contract-review skills for skillkit: the document model, the review state, and analysis
//! skills for FIDIC construction contracts and share purchase / shareholders' agreements.

#![warn(missing_docs)]

pub mod document;
pub mod fidic;
pub mod generic;
pub mod index;
pub mod prepare;
pub mod review;
pub mod sha_spa;
pub mod state;
mod text;

pub use document::{Clause, CrossReference, DocumentStructure};
pub use state::{
    ChecklistItem, ClauseFocus, DocumentRole, Priority, ReviewCriterion, ReviewDocument,
    ReviewState,
};
