//! The report of a contract review, as data: the [`ReviewReport`] with one [`ClauseReview`]
//! per checklist item, each with the [`SkillRun`]s made and the [`Risk`]s found (a
//! [`Finding`] of a [`RiskKind`], of a [`RiskLevel`]), the counts of [`ReviewSummary`], and
//! (orchestrated mode) the planner's [`Orchestration`].
//!
//! The review library (`clausewright-skills`) writes these types and re-exports each at its
//! own paths; this crate holds them apart so that a program that only reads reports (the web
//! console, a dashboard, a store) does not build the document readers and the provision
//! classifier. Their JSON form (serde) is the report's, and their JSON Schema (schemars) its
//! schema.
//!
//! | module | what it holds |
//! |---|---|
//! | crate root | the report ([`ReviewReport`], [`ClauseReview`], [`SkillRun`], [`ReviewMode`], [`ReviewSummary`]) |
//! | [`Domain`], [`Priority`] | what the review was of, and how much a clause matters |
//! | [`RiskLevel`] | how serious a risk is |
//! | [`Provision`] | the provision kinds a review reports, by name |
//! | [`RiskKind`], [`Finding`], [`Risk`] | what a review finds, and where it is reported |
//! | [`Orchestration`] | an orchestrated review's plan, synthesis and budget |

#![warn(missing_docs, unreachable_pub)]

mod domain;
mod finding;
mod orchestration;
mod priority;
mod provision;
mod report;
mod risk;

pub use domain::{Domain, UnknownDomain};
pub use finding::{Finding, Risk, RiskKind, Subject, DOCUMENT_ANCHOR};
pub use orchestration::{ClausePlan, CrossClauseFinding, DeepRun, Orchestration, PlanDepth};
pub use priority::Priority;
pub use provision::Provision;
pub use report::{ClauseReview, ReviewMode, ReviewReport, ReviewSummary, SkillRun};
pub use risk::{RiskLevel, UnknownRiskLevel};

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
