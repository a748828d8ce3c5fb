//! Provision detection learned from labelled clauses: which CUAD categories a clause is
//! (governing law, cap on liability, anti-assignment, ... 41 in all), with a calibrated
//! probability and the sentence it rests on.
//!
//! | module | what it holds |
//! |---|---|
//! | `corpus` (feature `train`) | labelled contracts in CUAD's label format |
//! | [`segment`] | units of prediction: clauses of the parsed document and their sentences |
//! | `features` | word uni- and bigrams and heading words, sublinear tf-idf, L2-normalised |
//! | `logistic` | sparse logistic regression (FTRL-Proximal) and Platt calibration |
//! | [`model`] | the trained model, its file format and classification |
//! | `train` (feature `train`) | the training recipe and fit, calibration and thresholds on held-out contracts |
//! | `cv` (feature `train`) | k-fold cross-validation by contract and its figures |
//! | `curve` (feature `train`) | precision–recall curves per kind, their area and precision at 80% recall |
//! | [`skill`] | the `classify_provisions` skill: one clause's categories, on request |
//!
//! Design: the unit of prediction is the sentence, since CUAD's excerpts are mostly a
//! sentence or a paragraph and a finding quotes one sentence; a clause has a category when
//! one of its sentences has it (the clause keeps the best sentence as its quote). One
//! binary model per category (one-vs-rest), so a clause can be several things at once
//! (an anti-assignment clause that is also a change-of-control clause). Everything is seeded:
//! the same corpus and recipe give the same model file, byte for byte.
//!
//! The model file shipped in the binary is built from CUAD v1 (The Atticus Project,
//! CC BY 4.0); see `skills/models/README.md` for the command and the attribution.
//!
//! Training and cross-validation (`corpus`, `train`, `cv`, `curve`, and the fit in
//! `logistic`) are behind the `train` feature, off by default: a host that classifies with
//! the shipped model compiles neither the trainer nor its random-number generator. The
//! `clausewright` binary enables it for `train` and `eval --cv`.

#[cfg(feature = "train")]
pub mod corpus;
#[cfg(feature = "train")]
pub mod curve;
#[cfg(feature = "train")]
pub mod cv;
#[cfg(feature = "train")]
pub(crate) mod dataset;
mod features;
mod logistic;
pub mod model;
pub mod segment;
pub mod skill;
#[cfg(feature = "train")]
pub mod train;

#[cfg(feature = "train")]
pub use logistic::FtrlParams;
