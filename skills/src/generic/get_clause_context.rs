//! `get_clause_context`: the clause with everything around it.

use toolwright::prelude::*;

use super::ClauseRef;
use crate::document::find_references;
use crate::index::lookup_for;
use crate::state::ReviewState;

/// A clause in its setting, ready to analyse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseContext {
    /// Clause number (`4.1`).
    pub clause_id: String,
    /// Heading text.
    pub title: String,
    /// Body text of this clause only.
    pub text: String,
    /// Text of this clause followed by all its sub-clauses.
    pub full_text: String,
    /// Enclosing clause, if nested.
    pub parent: Option<ClauseRef>,
    /// Direct sub-clauses, in order.
    pub children: Vec<ClauseRef>,
    /// The sibling just before, if any.
    pub previous: Option<ClauseRef>,
    /// The sibling just after, if any.
    pub next: Option<ClauseRef>,
    /// Defined terms of the document that the clause (or its sub-clauses) uses.
    pub defined_terms_used: Vec<String>,
    /// Clause ids the text refers to: the clause each reference names, read from this
    /// clause's scope first, or the number written when no clause has it.
    pub referenced_clauses: Vec<String>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Get a clause's full context: its text, title, parent, children, neighbouring clauses
/// and the defined terms it uses.
///
/// Call this first for any clause: it gives the exact wording to quote and tells which other
/// clauses and definitions are worth looking at next.
#[skill(id = "get_clause_context", domain = "*", category = "retrieval")]
pub fn get_clause_context(
    /// Clause number to look up, for example "4.1" or "Sub-Clause 20.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<ClauseContext, SkillError> {
    let lookup = lookup_for(&review.0);
    let doc = lookup.primary_or_not_found()?;
    let clause = doc.clause_or_not_found(&clause_id)?;
    let parent = doc.parent(&clause.clause_id);
    let (siblings, position) = match doc.siblings(&clause.clause_id) {
        Some((siblings, i)) => (siblings, Some(i)),
        None => (&[][..], None),
    };
    let previous = position
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| siblings.get(i));
    let next = position.and_then(|i| siblings.get(i + 1));
    let full_text = doc.full_text(&clause.clause_id).unwrap_or_default();
    let defined_terms_used: Vec<String> = doc
        .defined_terms_in(&full_text)
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut referenced_clauses: Vec<String> = Vec::new();
    // A set beside the list, so a clause of many references is not searched once per each.
    let mut listed = std::collections::HashSet::new();
    for found in find_references(&full_text) {
        if found.is_to_itself(&clause.clause_id) {
            continue;
        }
        // The clause the reference names as read from this one (a schedule's `Section 2.2`
        // is its own paragraph), so the id can be asked about next; else the number written.
        let target = found
            .resolve_from(&doc, &clause.clause_id)
            .map_or(found.target, |c| c.clause_id.clone());
        if target != clause.clause_id && listed.insert(target.clone()) {
            referenced_clauses.push(target);
        }
    }
    let heading = if clause.title.is_empty() {
        format!("Clause {}", clause.clause_id)
    } else {
        format!("Clause {} ({})", clause.clause_id, clause.title)
    };
    let summary = format!(
        "{heading}: {} characters, {} sub-clause(s), uses {} defined term(s), refers to {} clause(s){}",
        full_text.chars().count(),
        clause.children.len(),
        defined_terms_used.len(),
        referenced_clauses.len(),
        parent.map(|p| format!(", part of clause {}", p.clause_id)).unwrap_or_default()
    );
    Ok(ClauseContext {
        clause_id: clause.clause_id.clone(),
        title: clause.title.clone(),
        text: clause.text.clone(),
        full_text,
        parent: parent.map(ClauseRef::from),
        children: clause.children.iter().map(ClauseRef::from).collect(),
        previous: previous.map(ClauseRef::from),
        next: next.map(ClauseRef::from),
        defined_terms_used,
        referenced_clauses,
        summary,
    })
}
