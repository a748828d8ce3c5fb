//! The last step of a review: findings a reviewer would sign.
//!
//! - The provisions of [`super::provisions`] are found in every reviewed clause's own text
//!   and added to that clause (checklist mode), unless a skill already reported the same
//!   words (a FIDIC time bar, uncapped delay damages).
//! - A finding about the whole agreement ("the agreement has no quorum provision") is
//!   reported once, in a `document` entry first in the report; a finding a skill placed in
//!   another clause moves there.
//! - "Undefined term" findings become one document-level finding naming each term once with
//!   the clauses that use it, leaving out the parties, the defined roles of standard forms,
//!   and every term when the contract takes its definitions from another document.
//! - The same finding is never reported twice in one place; ids are renumbered.

use std::collections::{BTreeMap, HashSet};

use super::provisions::{self, Provision};
use super::rules::{DOCUMENT_ANCHOR, UNDEFINED_TERMS_PREFIX};
use super::{
    summarize, ClauseReview, ReviewMode, ReviewReport, Risk, RiskLevel, RiskLocation, Subject,
};
use crate::state::{Priority, ReviewState};
use crate::text::truncate_chars;

/// Finishes `report`: provisions (when `scan` is set), anchoring, undefined terms, duplicates.
pub(super) fn finalize(report: &mut ReviewReport, state: &ReviewState, scan: bool) {
    let Some(primary) = state.primary() else {
        return;
    };
    if scan {
        add_provisions(report, state);
    }
    let mut document: Vec<Risk> = Vec::new();
    move_anchored(report, &mut document);
    let undefined = take_undefined_terms(report);
    let parties = provisions::document_parties(primary);
    let incorporated = provisions::incorporates_definitions(primary);
    let defined_elsewhere = provisions::defined_by_reference(primary);
    if !incorporated {
        let mut listed: Vec<String> = Vec::new();
        let mut named: Vec<String> = Vec::new();
        for (term, clauses) in &undefined {
            let is_party = parties.iter().any(|p| p.eq_ignore_ascii_case(term));
            if is_party
                || provisions::is_standard_role(term)
                || provisions::names_the_document(term)
                || defined_elsewhere.contains(term)
            {
                continue;
            }
            listed.push(format!("{term} ({})", clauses.join(", ")));
            named.push(term.clone());
        }
        if !listed.is_empty() {
            document.push(Risk {
                id: String::new(),
                clause_id: DOCUMENT_ANCHOR.into(),
                risk_level: RiskLevel::Low,
                risk_type: "undefined_term".into(),
                description: format!("{UNDEFINED_TERMS_PREFIX}{}", listed.join("; ")),
                reason: "an undefined term written as a defined one is open to interpretation"
                    .into(),
                analysis: format!(
                    "{} term(s), each with the clauses that use it",
                    listed.len()
                ),
                source_skill:
                    <crate::generic::resolve_definition::ResolveDefinition as skill_core::Skill>::ID
                        .into(),
                location: None,
                subject: Subject::UndefinedTerms(named),
            });
        }
    }
    drop_contradicted_absences(report, &mut document);
    dedup(&mut document);
    for clause in &mut report.clauses {
        dedup(&mut clause.risks);
        renumber(&clause.clause_id.clone(), &mut clause.risks);
    }
    if !document.is_empty() {
        renumber(DOCUMENT_ANCHOR, &mut document);
        report.clauses.insert(
            0,
            ClauseReview {
                clause_id: DOCUMENT_ANCHOR.into(),
                clause_name: "The agreement as a whole".into(),
                priority: Priority::High,
                skills: Vec::new(),
                skipped_skills: Vec::new(),
                risks: document,
                mode: ReviewMode::Checklist,
                tools_chosen: Vec::new(),
                agent_messages: Vec::new(),
                fallback_reason: None,
                agent_warnings: Vec::new(),
                model_turns: 0,
                usage: Default::default(),
            },
        );
    }
    report.summary = summarize(&report.clauses);
}

/// Risk types that report the same thing as a provision, by provision.
fn same_family(provision: Provision, risk_type: &str) -> bool {
    match provision {
        Provision::NoticeTimeBar => {
            matches!(risk_type, "time_bar" | "time_bar_shortened" | "time_limit")
        }
        Provision::LiquidatedDamages => risk_type == "uncapped_delay_damages",
        _ => false,
    }
}

/// Whitespace-collapsed, lower-cased text for comparing quotes.
fn norm(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether two quotes are about the same words: one holds the start of the other.
fn overlaps(a: &str, b: &str) -> bool {
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let head = |s: &str| s.chars().take(40).collect::<String>();
    a.contains(&head(&b)) || b.contains(&head(&a))
}

fn add_provisions(report: &mut ReviewReport, state: &ReviewState) {
    let Some(doc) = state.primary() else {
        return;
    };
    let mut at: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, clause) in report.clauses.iter().enumerate() {
        if clause.mode == ReviewMode::Checklist {
            at.entry(clause.clause_id.as_str()).or_insert(i);
        }
    }
    let parties = provisions::document_parties(doc);
    let mut found: Vec<(usize, Risk)> = Vec::new();
    let mut seen: HashSet<(usize, String)> = HashSet::new();
    let reviewed: Vec<(usize, &crate::document::Clause)> = doc
        .iter_clauses()
        .filter_map(|clause| at.get(clause.clause_id.as_str()).map(|&i| (i, clause)))
        .collect();
    // The scans are independent and the most expensive part: run them in parallel, then
    // take their findings in document order as before.
    let scanned = super::parallel_map(&reviewed, |(_, clause)| {
        let text = if clause.title.trim().is_empty() {
            clause.text.clone()
        } else {
            format!("{}\n\n{}", clause.title, clause.text)
        };
        provisions::scan_clause_for(&text, &state.our_party, &parties)
    });
    for ((i, _), findings) in reviewed.iter().zip(scanned) {
        let i = *i;
        for finding in findings {
            let existing = &report.clauses[i].risks;
            let reported = existing.iter().any(|r| {
                same_family(finding.provision, &r.risk_type)
                    && r.location
                        .as_ref()
                        .is_some_and(|l| overlaps(&l.original_text, &finding.quote))
            });
            if reported || !seen.insert((i, format!("{:?}{}", finding.provision, finding.quote))) {
                continue;
            }
            let whom = match finding.binds_our_party {
                Some(true) => "binds our party",
                Some(false) => "binds the other party",
                None => "the party bound is not named",
            };
            found.push((
                i,
                Risk {
                    id: String::new(),
                    clause_id: report.clauses[i].clause_id.clone(),
                    risk_level: finding.level,
                    risk_type: finding.provision.risk_type().into(),
                    description: finding.description,
                    reason: finding.reason,
                    analysis: format!("{whom}; {}", truncate_chars(&finding.quote, 200)),
                    source_skill: provisions::SOURCE.into(),
                    location: Some(RiskLocation {
                        original_text: finding.quote,
                    }),
                    subject: Subject::Clause,
                },
            ));
        }
    }
    for (i, risk) in found {
        report.clauses[i].risks.push(risk);
    }
}

/// Moves risks whose clause is another one (or the whole document) to where they belong.
fn move_anchored(report: &mut ReviewReport, document: &mut Vec<Risk>) {
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (i, clause) in report.clauses.iter().enumerate() {
        index.entry(clause.clause_id.clone()).or_insert(i);
    }
    let mut moved: Vec<(usize, Risk)> = Vec::new();
    for clause in &mut report.clauses {
        let own = clause.clause_id.clone();
        let risks = std::mem::take(&mut clause.risks);
        for mut risk in risks {
            if risk.clause_id == own {
                clause.risks.push(risk);
            } else if risk.clause_id == DOCUMENT_ANCHOR {
                document.push(risk);
            } else if let Some(&target) = index.get(&risk.clause_id) {
                moved.push((target, risk));
            } else {
                risk.clause_id = own.clone();
                clause.risks.push(risk);
            }
        }
    }
    for (target, risk) in moved {
        report.clauses[target].risks.push(risk);
    }
}

/// Takes every per-clause "undefined term" risk out of the report: term → clauses using it.
fn take_undefined_terms(report: &mut ReviewReport) -> BTreeMap<String, Vec<String>> {
    let mut terms: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // (term, clause) pairs already listed: a term used by every clause must not make this
    // step grow with the square of the clause count.
    let mut listed: HashSet<(String, String)> = HashSet::new();
    for clause in &mut report.clauses {
        let clause_id = clause.clause_id.clone();
        clause.risks.retain(|risk| {
            let Subject::UndefinedTerms(list) = &risk.subject else {
                return true;
            };
            for term in list.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                if listed.insert((term.to_string(), clause_id.clone())) {
                    terms
                        .entry(term.to_string())
                        .or_default()
                        .push(clause_id.clone());
                }
            }
            false
        });
    }
    terms
}

/// Drops document-level absences ("the agreement has no deadlock provision") that the
/// provision scan contradicts by finding such a provision in a clause.
fn drop_contradicted_absences(report: &ReviewReport, document: &mut Vec<Risk>) {
    let found: HashSet<&str> = report
        .clauses
        .iter()
        .flat_map(|c| c.risks.iter())
        .map(|r| r.risk_type.as_str())
        .collect();
    document.retain(|risk| match risk.subject {
        Subject::Absence(provision) => !found.contains(provision.risk_type()),
        _ => true,
    });
}

/// Keeps the first of risks with the same type, description and words.
fn dedup(risks: &mut Vec<Risk>) {
    let mut seen = HashSet::new();
    risks.retain(|r| {
        seen.insert((
            r.risk_type.clone(),
            r.description.clone(),
            r.location.as_ref().map(|l| l.original_text.clone()),
        ))
    });
}

/// Most serious first (stable), ids `R-{clause}-{n}`.
fn renumber(clause_id: &str, risks: &mut [Risk]) {
    risks.sort_by_key(|r| std::cmp::Reverse(r.risk_level));
    for (n, risk) in risks.iter_mut().enumerate() {
        risk.id = format!("R-{clause_id}-{}", n + 1);
    }
}
