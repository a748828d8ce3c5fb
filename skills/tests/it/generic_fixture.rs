//! A small FIDIC-style contract, its standard form and a reference document, shared by the
//! generic-skill and review tests.

use clausewright_skills::document::parse_text;
use clausewright_skills::{
    ClauseFocus, DocumentRole, ReviewCriterion, ReviewDocument, ReviewState,
};
use serde_json::Value;
use toolwright::{Dispatcher, SkillContext, SkillResult};

pub const GENERAL_CONDITIONS: &str = "\
1 General Provisions

1.1 Definitions

\"Contract Price\" means the price stated in the Letter of Acceptance.
\"Employer\" means the person named as employer in the Contract Data.
\"Contractor\" means the person named as contractor in the Contract Data.

2 The Employer

2.1 Right of Access to the Site

The Employer shall give the Contractor right of access to the Site within the time stated in the Contract Data.

4 The Contractor

4.1 Contractor's General Obligations

The Contractor shall design, execute and complete the Works in accordance with the Contract. The Contractor shall be entitled to an extension of time under Sub-Clause 8.5.

4.2 Performance Security

The Contractor shall deliver the Performance Security to the Employer within 28 days after receiving the Letter of Acceptance.

8 Commencement, Delays and Suspension

8.5 Extension of Time

The Contractor shall be entitled to an extension of time if completion is delayed.

14 Contract Price and Payment

14.3 Application for Interim Payment

The Contractor shall submit a Statement after the end of each month.

14.7 Payment

The Employer shall pay the Contractor within 56 days after receiving the Statement under Sub-Clause 14.3. Retention shall be 5% of each payment.
";

pub const PARTICULAR_CONDITIONS: &str = "\
1 General Provisions

1.1 Definitions

\"Contract Price\" means the lump sum of USD 1,500,000.
\"Employer\" means Harbour Authority.

2 The Employer

2.1 Right of Access to the Site

The Employer shall give the Contractor right of access to the Site within the time stated in the Contract Data.

4 The Contractor

4.1 Contractor's General Obligations

The Contractor shall design, execute and complete the Works in accordance with the Contract and the Works shall be fit for purpose.

4.2 Performance Security

The Contractor shall deliver the Performance Security to the Employer within 14 days after receiving the Letter of Acceptance.

8.5 Extension of Time

Deleted.

14 Contract Price and Payment

14.7 Payment

The Employer shall pay the Contractor within 84 days after receiving the Statement under Sub-Clause 14.3. Retention shall be 15% of each payment. Delay damages shall be 0.5% of the Contract Price per day.

20 Claims

20.1 Contractor's Claims

Claims under Sub-Clause 8.5 and Sub-Clause 99.1 shall follow Clause 14. The Site Manager shall record every claim.
";

pub const EMPLOYERS_REQUIREMENTS: &str = "\
1 Performance Security Requirements
The bank guarantee for the Performance Security shall be issued by an approved bank.
2 Site Access
Access roads to the Site shall be maintained by the Contractor.
3 Payment Applications
Statements shall be submitted monthly with supporting records.
";

pub fn criterion(
    id: &str,
    clause: &str,
    level: &str,
    requirement: &str,
    keywords: &[&str],
) -> ReviewCriterion {
    ReviewCriterion {
        criterion_id: id.into(),
        clause_id: clause.into(),
        topic: String::new(),
        requirement: requirement.into(),
        risk_level: level.into(),
        keywords: keywords.iter().map(|k| k.to_string()).collect(),
    }
}

pub fn document(role: DocumentRole, filename: &str, text: &str) -> ReviewDocument {
    let id = filename.split('.').next().unwrap_or(filename);
    ReviewDocument {
        role,
        filename: filename.into(),
        structure: parse_text(id, text).into(),
    }
}

/// Contract, standard form, reference and three inline criteria.
pub fn state() -> ReviewState {
    ReviewState {
        domain: clausewright_skills::review::Domain::Generic,
        our_party: "Contractor".into(),
        language: "en".into(),
        documents: vec![
            document(DocumentRole::Primary, "PC.md", PARTICULAR_CONDITIONS),
            document(DocumentRole::Baseline, "GC.md", GENERAL_CONDITIONS),
            document(DocumentRole::Reference, "ER.md", EMPLOYERS_REQUIREMENTS),
        ],
        criteria: vec![
            criterion(
                "C-1",
                "4",
                "high",
                "Fitness for purpose must be excluded",
                &["fit for purpose"],
            ),
            criterion(
                "C-2",
                "*",
                "medium",
                "Retention must not exceed 10%",
                &["retention"],
            ),
            criterion(
                "C-3",
                "14",
                "low",
                "Payment terms must be back-to-back",
                &[],
            ),
        ],
        ..Default::default()
    }
}

pub fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry builds")
}

pub fn context(state: ReviewState, focus: Option<&str>) -> SkillContext {
    let ctx = SkillContext::new().with(state);
    match focus {
        Some(clause) => ctx.with(ClauseFocus(clause.into())),
        None => ctx,
    }
}

/// Calls a skill the way the review does, focused on `clause`.
pub async fn call(skill: &str, clause: &str, args: Option<Value>) -> SkillResult {
    call_with(state(), skill, clause, args).await
}

pub async fn call_with(
    state: ReviewState,
    skill: &str,
    clause: &str,
    args: Option<Value>,
) -> SkillResult {
    dispatcher()
        .prepare_and_call(skill, &context(state, Some(clause)), args.as_ref())
        .await
}

/// The successful output as JSON (panics with the error otherwise).
pub fn ok(result: SkillResult) -> Value {
    assert!(
        result.success,
        "{} failed: {:?}",
        result.skill_id, result.error
    );
    serde_json::from_str(result.data.as_ref().unwrap().get()).unwrap()
}

/// The error code and message of a failed result.
pub fn err(result: SkillResult) -> (String, String) {
    assert!(
        !result.success,
        "{} unexpectedly succeeded: {:?}",
        result.skill_id, result.data
    );
    let e = result.error.unwrap();
    (e.code.to_string(), e.message)
}

pub fn ids(values: &Value, field: &str) -> Vec<String> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v[field].as_str().unwrap().to_string())
        .collect()
}

pub fn without(state: ReviewState, role: DocumentRole) -> ReviewState {
    ReviewState {
        documents: state
            .documents
            .into_iter()
            .filter(|d| d.role != role)
            .collect(),
        ..state
    }
}
