//! The findings pipeline every mode shares: what a review finds and how serious it is.
//!
//! - [`kinds`]: the catalogue, every provision kind declared once.
//! - [`rules`]: skill outputs to findings, by skill marker.
//! - [`provisions`]: provisions found in clause text by rules (one module per family), the
//!   one detector of each family that skills and the scan both call.
//! - [`learned`]: the provision classifier as the review's first stage.
//! - [`Playbook`]: the level of every provision found, by kind.
//! - [`consolidate`]: the last step, findings a reviewer would sign (document-level
//!   findings, provisions added to their clauses, duplicates dropped).

pub(crate) mod consolidate;
pub mod kinds;
pub(crate) mod learned;
mod playbook;
pub mod provisions;
pub mod rules;

pub use learned::{LearnedStage, LearnedStageError, SOURCE as LEARNED_SOURCE};
pub use playbook::{KindLevels, Playbook, PlaybookError, Probability};

pub(crate) use learned::Classified;
