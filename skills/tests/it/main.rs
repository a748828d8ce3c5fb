//! The integration tests of the contract-review library, one binary: each module covers one
//! behaviour. Apart, each with its reason at its top: `react_prompt` (skills of its own
//! that share ids with the library's), `review_concurrency` (timing) and `review_tracing`
//! (span callsites).

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
mod review_agent;
mod sample_reviews;
mod samples_common;
mod scoped_ids;
mod sha_spa_skills;
mod skill_scopes;
mod toc_and_schedules;
