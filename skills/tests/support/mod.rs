//! What the tests and the bench of agent reviews against the local model server
//! (`toolwright::agent::mock`) share: the generated contract, how a request names its
//! clause, the answer naming it back, the options. Included by `tests/review_*.rs` as
//! `mod support;` and by `benches/agent_review.rs` by path.

// Each includer uses part of it.
#![allow(dead_code)]

use clausewright_skills::document::parse_text;
use clausewright_skills::review::ReviewOptions;
use clausewright_skills::{ChecklistItem, DocumentRole, Priority, ReviewDocument, ReviewState};

/// A contract of `clauses` numbered clauses (`{n} Topic {n}`, one obligation each), every
/// clause on the checklist with `get_clause_context` as its suggested skill.
pub fn contract(clauses: usize) -> ReviewState {
    let mut text = String::from("SERVICES AGREEMENT\n\n");
    for n in 1..=clauses {
        text.push_str(&format!(
            "{n} Topic {n}\n\nThe Contractor shall perform obligation number {n} within 28 days.\n\n"
        ));
    }
    ReviewState {
        our_party: "Contractor".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "contract.md".into(),
            structure: parse_text("contract", &text).into(),
        }],
        review_checklist: (1..=clauses)
            .map(|n| ChecklistItem {
                clause_id: n.to_string(),
                clause_name: format!("Topic {n}"),
                priority: Priority::Medium,
                required_skills: vec!["get_clause_context".into()],
                description: String::new(),
            })
            .collect(),
        ..Default::default()
    }
}

/// The clause a request is about, from the prompt's `- Number: ` line.
pub fn clause_of(user_text: &str) -> String {
    user_text
        .lines()
        .find_map(|l| l.strip_prefix("- Number: "))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// The final answer naming the clause it reviewed, so a result put on the wrong clause
/// shows.
pub fn answer_for(clause: &str) -> String {
    format!(
        r#"[{{"risk_level": "low", "risk_type": "probe", "description": "about clause {clause}"}}]"#
    )
}

/// `concurrency` clauses in flight, the checklist as given, no progress hook.
pub fn options(concurrency: usize) -> ReviewOptions {
    ReviewOptions {
        concurrency,
        generate_checklist: false,
        progress: None,
        learned: None,
        playbook: None,
        run: None,
        run_report: Default::default(),
    }
}
