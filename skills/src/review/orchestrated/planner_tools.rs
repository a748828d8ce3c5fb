//! The planner's own tools in an orchestrated review (domain `review`): `list_clauses`,
//! the outline a page at a time, and `review_quick`, the rule-based checklist review of
//! clauses (no model). Both read the [`ClauseOutline`] the review puts in the planner's
//! context. They are not linked into `Dispatcher::from_inventory()` (`register = false`): the orchestrated
//! review adds them to the dispatcher it runs the planner on, so no other client lists a tool
//! that only answers inside a review.

use toolwright::prelude::*;

use super::outline::{ClauseOutline, OutlineEntry};

/// Clauses per page when the caller names no size.
pub const DEFAULT_PAGE_SIZE: usize = 50;
/// Most clauses on one page.
pub const MAX_PAGE_SIZE: usize = 200;

/// A page of the contract's outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseList {
    /// The clauses of this page, in document order.
    pub clauses: Vec<OutlineEntry>,
    /// This page, from 1.
    pub page: usize,
    /// Pages in all.
    pub pages: usize,
    /// Clauses in all.
    pub total: usize,
    /// One line the model can read directly.
    pub summary: String,
}

/// List the contract's clauses a page at a time: number, title, length in characters, the
/// provision kinds found in each and the rule findings so far.
///
/// Use it to see the whole contract before deciding which clauses need a deep review; the
/// first page is usually enough for short contracts.
#[skill(
    id = "list_clauses",
    domain = "review",
    category = "retrieval",
    register = false
)]
pub fn list_clauses(
    /// Page to show, from 1 (default 1).
    page: Option<usize>,
    /// Clauses per page, 1 to 200 (default 50).
    page_size: Option<usize>,
    outline: Inject<ClauseOutline>,
) -> Result<ClauseList, SkillError> {
    let page_size = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(SkillError::invalid_arguments(format!(
            "`page_size` is {page_size}; expected 1 to {MAX_PAGE_SIZE}"
        )));
    }
    let page = page.unwrap_or(1);
    if page == 0 {
        return Err(SkillError::invalid_arguments(
            "`page` is 0; pages are counted from 1",
        ));
    }
    let entries = outline.entries();
    let total = entries.len();
    let pages = total.div_ceil(page_size).max(1);
    if page > pages {
        return Err(SkillError::invalid_arguments(format!(
            "`page` is {page}, but the contract has {pages} page(s) of {page_size} clauses"
        )));
    }
    let clauses: Vec<OutlineEntry> = entries
        .iter()
        .skip((page - 1) * page_size)
        .take(page_size)
        .cloned()
        .collect();
    let summary = format!(
        "page {page} of {pages}: {} of {total} clause(s)",
        clauses.len()
    );
    Ok(ClauseList {
        clauses,
        page,
        pages,
        total,
        summary,
    })
}

/// One clause's quick review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuickReview {
    /// The clause.
    pub clause_id: String,
    /// The risks the rules found, most serious first: level, kind and description.
    pub risks: Vec<QuickRisk>,
}

/// One risk of a quick review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuickRisk {
    /// `high`, `medium` or `low`.
    pub risk_level: String,
    /// The risk's kind.
    pub risk_type: String,
    /// What was found.
    pub description: String,
}

/// What `review_quick` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuickReviews {
    /// The clauses reviewed, in the order asked.
    pub clauses: Vec<QuickReview>,
    /// Clause ids the contract does not have.
    pub unknown: Vec<String>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Review clauses quickly by the rule-based checklist (no model): the risks the rules
/// found in each.
///
/// Use it for clauses that look routine in the outline; send the ones that need judgement
/// to a deep review instead.
#[skill(
    id = "review_quick",
    domain = "review",
    category = "analysis",
    register = false
)]
pub fn review_quick(
    /// Clause numbers to review, for example ["1.1", "4.2"].
    clause_ids: Vec<String>,
    /// Why these clauses need no more than the rules, in a few words (shown in the report).
    reason: Option<String>,
    outline: Inject<ClauseOutline>,
) -> Result<QuickReviews, SkillError> {
    if clause_ids.is_empty() {
        return Err(SkillError::invalid_arguments(
            "`clause_ids` is empty: name at least one clause",
        ));
    }
    let reason = reason
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "chosen for a quick review (no reason given)".into());
    let mut clauses = Vec::new();
    let mut unknown = Vec::new();
    for raw in &clause_ids {
        let Some((id, review)) = outline
            .resolve(raw)
            .and_then(|id| outline.review(&id).map(|r| (id, r)))
        else {
            unknown.push(raw.clone());
            continue;
        };
        outline.choose_quick(&id, &reason);
        clauses.push(QuickReview {
            clause_id: id,
            risks: review
                .risks
                .iter()
                .map(|r| QuickRisk {
                    risk_level: r.finding.level.as_str().to_string(),
                    risk_type: r.finding.kind.name().to_string(),
                    description: r.finding.description.clone(),
                })
                .collect(),
        });
    }
    let risks: usize = clauses.iter().map(|c| c.risks.len()).sum();
    let summary = format!(
        "{} clause(s) reviewed by the rules, {risks} risk(s){}",
        clauses.len(),
        if unknown.is_empty() {
            String::new()
        } else {
            format!("; not in the contract: {}", unknown.join(", "))
        }
    );
    Ok(QuickReviews {
        clauses,
        unknown,
        summary,
    })
}
