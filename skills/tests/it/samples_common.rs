//! What the domain-skill tests share: the bundled samples, parsed by the library's own parser,
//! and calls through the dispatcher. Several test modules use them.

use clausewright_skills::document::DocumentStructure;
use clausewright_skills::{ClauseFocus, DocumentRole, ReviewDocument, ReviewState};
use serde_json::Value;
use toolwright::prelude::*;

/// Parses sample text with the library's own parser.
pub fn parse(id: &str, text: &str) -> DocumentStructure {
    clausewright_skills::document::parse_text(id, text)
}

/// The text of a file under `samples/`.
pub fn sample(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../samples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A sample file as a review document with the given role.
pub fn doc(role: DocumentRole, filename: &str, path: &str) -> ReviewDocument {
    ReviewDocument {
        role,
        filename: filename.into(),
        structure: parse(filename, &sample(path)).into(),
    }
}

/// A context holding the review state and the clause under review.
pub fn ctx(review: ReviewState, focus: &str) -> SkillContext {
    SkillContext::new()
        .with(review)
        .with(ClauseFocus(focus.into()))
}

/// Runs a skill as an agent would and returns its output; fails the test if the skill failed.
pub async fn run<T: serde::de::DeserializeOwned>(
    skill: &str,
    ctx: &SkillContext,
    args: Value,
) -> T {
    let d = Dispatcher::from_inventory().unwrap();
    let r = d.prepare_and_call(skill, ctx, Some(&args)).await;
    assert!(r.success, "{skill} failed: {:?}", r.error);
    r.data_as::<T>().unwrap()
}

/// Runs a skill that must fail; returns its error code and message.
pub async fn run_err(skill: &str, ctx: &SkillContext, args: Value) -> (String, String) {
    let r = Dispatcher::from_inventory()
        .unwrap()
        .prepare_and_call(skill, ctx, Some(&args))
        .await;
    let err = r.error.expect("an error");
    (err.code.to_string(), err.message)
}
