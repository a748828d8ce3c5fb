//! FIDIC construction-contract skills: merging General and Particular Conditions, time bars,
//! consistency of the Particular Conditions, and search of the Employer's Requirements.
//!
//! The General Conditions are the review's baseline document; the Particular Conditions and
//! the Employer's Requirements are reference documents picked by file name.

pub mod check_pc_consistency;
pub(crate) mod documents;
pub mod merge_gc_pc;
pub mod pc_instructions;
pub mod periods;
pub mod search_er;
pub mod time_bar;
