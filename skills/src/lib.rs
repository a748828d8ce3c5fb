//! Contract-review skills for toolwright: the document model, the review state, and analysis
//! skills for FIDIC construction contracts and share purchase / shareholders' agreements.
//!
//! | module | what it holds |
//! |---|---|
//! | crate root | the review state a host builds and injects ([`ReviewState`], [`ClauseFocus`], ...) |
//! | [`detect`] | provision detection learned from labelled clauses (CUAD categories), and the skill that asks it about a clause |
//! | [`document`] | the clause tree and how it is read from text, Markdown or JSON |
//! | [`index`] | indexes built once per review: BM25 search over the reference documents |
//! | [`generic`] | the eight generic skills |
//! | [`fidic`] | the FIDIC skills and their text analysis |
//! | [`sha_spa`] | the SPA/SHA skills and what they share |
//! | [`review`] | the clause-by-clause review, its risks ([`review::RiskLevel`]) and reports |
//! | [`text`] | the text toolkit: sentences, enumerations, definitions, word matching |
//!
//! Each public item has one path: the modules above, or the root for the review state.

#![warn(missing_docs, unreachable_pub)]

pub mod detect;
pub mod document;
pub mod fidic;
pub mod generic;
pub mod index;
mod parallel;
mod prepare;
pub mod review;
pub mod sha_spa;
mod state;
pub mod text;

pub use state::{
    ChecklistItem, ClauseFocus, DocumentRole, Priority, ReviewCriterion, ReviewDocument,
    ReviewState,
};

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
