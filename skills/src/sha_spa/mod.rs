//! Share purchase (SPA) and shareholders' agreement (SHA) skills: conditions precedent,
//! warranties and their qualifiers, indemnity limits, and governance terms.
//!
//! Each skill reads the contract under review (`ReviewState::primary`), from the top-level
//! clause that contains the requested clause, or the whole agreement for `clause_id = "*"`.

pub mod common;
pub mod extract_conditions;
pub mod extract_reps_warranties;
pub mod governance_check;
pub mod indemnity_analysis;
