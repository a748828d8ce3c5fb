//! The outline an orchestrated review's planner plans from: every clause of the contract
//! with its title, length, the provision kinds found in it and the rule findings so far,
//! and the checklist review of each clause, which `review_quick` hands out. It is held in
//! the planner's skill context, so the planner's tools read it like any host state.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::review::types::{ClauseReview, ReviewReport, Risk, RiskLevel, DOCUMENT_ANCHOR};
use crate::state::ReviewState;

/// One rule finding as the outline shows it: level, kind and a short description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutlineFinding {
    /// `high`, `medium` or `low`.
    pub level: RiskLevel,
    /// The finding's kind (`time_bar`, `uncapped_liability`, ...).
    pub kind: String,
    /// What was found, shortened.
    pub description: String,
}

/// One clause of the outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutlineEntry {
    /// Clause number.
    pub clause_id: String,
    /// Heading text (empty when it has none).
    pub title: String,
    /// Characters of the clause with its sub-clauses.
    pub chars: usize,
    /// Provision and risk kinds found in it, each once.
    pub kinds: Vec<String>,
    /// The rule findings of the checklist review, most serious first.
    pub findings: Vec<OutlineFinding>,
}

/// What the planner chose for a clause through `review_quick`, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuickChoice {
    pub(crate) clause_id: String,
    pub(crate) reason: String,
}

/// The contract as the planner sees it, and the checklist review behind it.
#[derive(Debug)]
pub struct ClauseOutline {
    entries: Vec<OutlineEntry>,
    document: Vec<OutlineFinding>,
    position: HashMap<String, usize>,
    reviews: HashMap<String, ClauseReview>,
    quick: Mutex<Vec<QuickChoice>>,
}

/// Longest description of a finding in the outline, in characters.
const DESCRIPTION_CHARS: usize = 140;

impl ClauseOutline {
    /// The outline of `state`'s clauses from the checklist review `report` of the same
    /// state: one entry per reviewed clause, in checklist order.
    pub fn new(state: &Arc<ReviewState>, report: &ReviewReport) -> Self {
        let lookup = crate::index::lookup_for(state);
        let primary = lookup.primary();
        let mut by_clause: BTreeMap<&str, Vec<&Risk>> = BTreeMap::new();
        for risk in report.risks() {
            by_clause
                .entry(risk.clause_id.as_str())
                .or_default()
                .push(risk);
        }
        let mut entries = Vec::with_capacity(report.clauses.len());
        let mut position = HashMap::with_capacity(report.clauses.len());
        let mut reviews = HashMap::with_capacity(report.clauses.len());
        let mut document = Vec::new();
        for clause in &report.clauses {
            if clause.clause_id == DOCUMENT_ANCHOR {
                document.extend(clause.risks.iter().map(|r| OutlineFinding {
                    level: r.finding.level,
                    kind: r.finding.kind.name().to_string(),
                    description: crate::text::truncate_chars(
                        &r.finding.description,
                        DESCRIPTION_CHARS,
                    ),
                }));
                continue;
            }
            if position.contains_key(&clause.clause_id) {
                continue;
            }
            let chars = primary
                .and_then(|d| d.full_text(&clause.clause_id))
                .map_or(0, |t| t.chars().count());
            let mut risks = by_clause
                .get(clause.clause_id.as_str())
                .cloned()
                .unwrap_or_default();
            risks.sort_by_key(|r| std::cmp::Reverse(r.finding.level));
            let mut kinds: Vec<String> = Vec::new();
            for risk in &risks {
                let kind = risk.finding.kind.name();
                if !kind.is_empty() && !kinds.iter().any(|k| k == kind) {
                    kinds.push(kind.to_string());
                }
            }
            let findings = risks
                .iter()
                .map(|r| OutlineFinding {
                    level: r.finding.level,
                    kind: r.finding.kind.name().to_string(),
                    description: crate::text::truncate_chars(
                        &r.finding.description,
                        DESCRIPTION_CHARS,
                    ),
                })
                .collect();
            position.insert(clause.clause_id.clone(), entries.len());
            entries.push(OutlineEntry {
                clause_id: clause.clause_id.clone(),
                title: clause.clause_name.clone(),
                chars,
                kinds,
                findings,
            });
            reviews.insert(clause.clause_id.clone(), clause.clone());
        }
        Self {
            entries,
            document,
            position,
            reviews,
            quick: Mutex::new(Vec::new()),
        }
    }

    /// Every clause, in checklist order.
    pub fn entries(&self) -> &[OutlineEntry] {
        &self.entries
    }

    /// Findings about the whole agreement (an absent provision, undefined terms).
    pub fn document_findings(&self) -> &[OutlineFinding] {
        &self.document
    }

    /// The clause `clause_id`, if the outline has it.
    pub fn entry(&self, clause_id: &str) -> Option<&OutlineEntry> {
        self.position.get(clause_id).map(|&i| &self.entries[i])
    }

    /// The outline's id of the clause a model named `raw` (`4.1`, `Sub-Clause 4.1`,
    /// ` 4.1 `), if the outline has that clause.
    pub fn resolve(&self, raw: &str) -> Option<String> {
        let raw = raw.trim();
        if self.position.contains_key(raw) {
            return Some(raw.to_string());
        }
        let id = crate::document::normalize_clause_id(raw);
        self.position.contains_key(&id).then_some(id)
    }

    /// The checklist review of `clause_id`.
    pub fn review(&self, clause_id: &str) -> Option<&ClauseReview> {
        self.reviews.get(clause_id)
    }

    /// Records that the planner chose the quick review for `clause_id`, and why.
    pub(crate) fn choose_quick(&self, clause_id: &str, reason: &str) {
        let mut quick = self.quick.lock().unwrap_or_else(|p| p.into_inner());
        if !quick.iter().any(|q| q.clause_id == clause_id) {
            quick.push(QuickChoice {
                clause_id: clause_id.to_string(),
                reason: reason.to_string(),
            });
        }
    }

    /// The clauses the planner chose the quick review for, in the order it chose them.
    pub(crate) fn quick_choices(&self) -> Vec<QuickChoice> {
        self.quick.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// One line per clause for the planner's first message: id, title, length, kinds and
    /// the count of findings by level.
    pub(crate) fn compact_lines(&self, limit: usize) -> String {
        let mut out = String::new();
        for entry in self.entries.iter().take(limit) {
            let count =
                |level: RiskLevel| entry.findings.iter().filter(|f| f.level == level).count();
            out.push_str(&format!(
                "- {} | {} | {} chars | kinds: {} | findings: {} high, {} medium, {} low\n",
                entry.clause_id,
                if entry.title.is_empty() {
                    "(no title)"
                } else {
                    entry.title.as_str()
                },
                entry.chars,
                if entry.kinds.is_empty() {
                    "-".to_string()
                } else {
                    entry.kinds.join(", ")
                },
                count(RiskLevel::High),
                count(RiskLevel::Medium),
                count(RiskLevel::Low),
            ));
        }
        out
    }
}
