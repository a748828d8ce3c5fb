//! The integration tests of the contract-review library, one binary: each module covers one
//! behaviour. (The ReAct review tests stay in their own binary.)

mod checklist_review;
mod classify_provisions;
mod fidic_skills;
mod fidic_text_robustness;
mod format_fixtures;
mod formats;
mod fuzz_regressions;
mod generic_fixture;
mod generic_robustness;
mod generic_skills;
mod learned_review;
mod linear_analyses;
mod office_files;
mod orchestrated_review;
mod parse_corpus;
mod registry;
mod sample_reviews;
mod samples_common;
mod scoped_ids;
mod sha_spa_skills;
mod skill_scopes;
mod toc_and_schedules;
