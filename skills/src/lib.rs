//! Contract-review skills for skillkit: the document model, the review state, and analysis
//! skills for FIDIC construction contracts and share purchase / shareholders' agreements.

#![warn(missing_docs, unreachable_pub)]

pub mod document;
pub mod fidic;
pub mod generic;
pub mod index;
mod prepare;
pub mod review;
pub mod sha_spa;
mod state;
mod text;

pub use state::{
    ChecklistItem, ClauseFocus, DocumentRole, Priority, ReviewCriterion, ReviewDocument,
    ReviewState,
};
