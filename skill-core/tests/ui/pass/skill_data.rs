use toolwright::prelude::*;

/// A verdict with serde's and schemars' own attributes on it.
#[skill_data]
#[derive(Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing to change.
    Accept,
    /// Ask for changes.
    NeedsWork,
}

/// The answer of the skill below.
#[skill_data]
#[derive(Debug)]
pub struct Review {
    /// What was decided.
    pub verdict: Verdict,
    /// Why, in one line.
    #[serde(rename = "why")]
    pub reason: String,
}

/// Decide on a text.
#[skill(id = "ui.skill_data")]
async fn decide(
    /// How it should go.
    verdict: Verdict,
) -> Result<Review, SkillError> {
    Ok(Review {
        verdict,
        reason: "as asked".into(),
    })
}

fn main() {
    let review: Review = toolwright::__private::serde_json::from_str(
        r#"{"verdict": "needs_work", "why": "too long"}"#,
    )
    .unwrap();
    assert_eq!(review.verdict, Verdict::NeedsWork);
    let schema = toolwright::__private::schemars::schema_for!(Review);
    assert!(schema.as_value()["properties"]["why"].is_object());
}
