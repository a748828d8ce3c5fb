//! The last step of a review: findings a reviewer would sign.
//!
//! - The provisions of [`provisions`] are found in every reviewed clause's own text
//!   and added to that clause (checklist mode), unless a skill already reported the same
//!   words (a FIDIC time bar, uncapped delay damages).
//! - A finding about the whole agreement ("the agreement has no quorum provision") is
//!   reported once, in a `document` entry first in the report; a finding a skill placed in
//!   another clause moves there.
//! - "Undefined term" findings become one document-level finding naming each term once with
//!   the clauses that use it, leaving out the parties, the defined roles of standard forms,
//!   and every term when the contract takes its definitions from another document.
//! - The same finding is never reported twice in one place; ids are renumbered.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::kinds::{Catalogued, Provision};
use super::learned::{self, Classified, LearnedStage};
use super::provisions::{self, ProvisionFinding};
use super::rules::UNDEFINED_TERMS_PREFIX;
use super::Playbook;
use crate::parallel::in_parts;
use crate::review::types::{
    ClauseReview, Finding, ReviewMode, ReviewReport, ReviewSummary, Risk, RiskKind, RiskLevel,
    Subject, DOCUMENT_ANCHOR,
};
use crate::state::{Priority, ReviewState};
use crate::text::truncate_chars;

/// Finishes `report`: provisions (when `scan` is set; with the classifier's stage when
/// `learned` is given), anchoring, undefined terms, duplicates.
pub(crate) fn finalize(
    report: &mut ReviewReport,
    state: &Arc<ReviewState>,
    scan: bool,
    learned: Option<(&LearnedStage, &Classified)>,
    playbook: &Playbook,
) {
    let Some(primary) = state.primary() else {
        return;
    };
    let classified = if scan {
        add_provisions(report, state, learned, playbook)
    } else {
        None
    };
    let mut document: Vec<Risk> = Vec::new();
    move_anchored(report, &mut document);
    if let (Some((_, found)), Some(mut classified)) = (learned, classified) {
        if report.checklist_generated {
            // Clauses the model reviewed (agent mode) count as read too.
            classified.extend(found.kinds());
            add_absences(report, playbook, &classified, &mut document);
        }
    }
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
            let ids: Vec<&str> = (clauses.iter())
                .map(|&i| report.clauses[i].clause_id.as_str())
                .collect();
            listed.push(format!("{term} ({})", ids.join(", ")));
            named.push(term.clone());
        }
        if !listed.is_empty() {
            let finding = Finding {
                reason: "an undefined term written as a defined one is open to interpretation"
                    .into(),
                analysis: format!(
                    "{} term(s), each with the clauses that use it",
                    listed.len()
                ),
                source_skill:
                    <crate::generic::resolve_definition::ResolveDefinition as toolwright::Skill>::ID
                        .into(),
                subject: Subject::UndefinedTerms(named),
                anchor: Some(DOCUMENT_ANCHOR.into()),
                ..Finding::new(
                    RiskKind::UndefinedTerm,
                    RiskLevel::Low,
                    format!("{UNDEFINED_TERMS_PREFIX}{}", listed.join("; ")),
                )
            };
            document.push(Risk::new(DOCUMENT_ANCHOR, finding));
        }
    }
    drop_contradicted_absences(report, &mut document);
    dedup(&mut document);
    for clause in &mut report.clauses {
        dedup(&mut clause.risks);
        renumber(&clause.clause_id.clone(), &mut clause.risks);
        // The report outlives the review (it is rendered next): a clause's risks grew by
        // pushes, so most lists hold room for several more findings than they have.
        clause.risks.shrink_to_fit();
    }
    if !document.is_empty() {
        renumber(DOCUMENT_ANCHOR, &mut document);
        // One entry more, not twice the clauses' room.
        report.clauses.reserve_exact(1);
        report.clauses.insert(
            0,
            ClauseReview {
                risks: document,
                ..ClauseReview::checklist(
                    DOCUMENT_ANCHOR.into(),
                    "The agreement as a whole".into(),
                    Priority::High,
                )
            },
        );
    }
    report.summary = ReviewSummary::of(&report.clauses);
}

/// Kinds that report the same words as a provision: its readings in the catalogue, and for
/// a time bar a skill's time limit on the same sentence.
fn same_family(provision: Provision, kind: &RiskKind) -> bool {
    provision.entry().readings.contains(kind)
        || (provision == Provision::NoticeTimeBar && *kind == RiskKind::TimeLimit)
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

/// Clauses scanned at once (in parallel) before their findings are placed.
const SCAN_PART: usize = 1024;

/// Adds what the provision scan (rules) and, when given, the classifier find in every
/// clause reviewed in checklist mode. A classifier finding of a kind already reported in
/// the clause confirms it (its probability is added) instead of repeating it. Returns the
/// kinds the classifier found anywhere, whatever the playbook reports.
fn add_provisions(
    report: &mut ReviewReport,
    state: &Arc<ReviewState>,
    learned: Option<(&LearnedStage, &Classified)>,
    playbook: &Playbook,
) -> Option<HashSet<RiskKind>> {
    let mut classified = HashSet::new();
    let doc = state.primary()?;
    let reviewed = checklist_clauses(report, doc);
    let parties = provisions::document_parties(doc);
    // A clause's findings go to it as soon as it is read, and what it has seen is
    // forgotten then, unless the document repeats its id: a repeated clause's findings wait
    // until every clause of that id is read (its entries share the report's clause).
    let repeated = repeated_entries(&reviewed);
    let mut waiting: Vec<(usize, Risk)> = Vec::new();
    let mut seen_repeated: HashMap<usize, HashSet<String>> = HashMap::new();
    let mut seen_here: HashSet<String> = HashSet::new();
    // A part at a time: the scan's hits of a long contract are many times what is kept.
    let scan = |(_, clause): &(usize, &crate::document::Clause)| {
        scan_clause(clause, state, &parties, learned, playbook)
    };
    in_parts(&reviewed, SCAN_PART, scan, |part, scanned| {
        for ((i, _), (rules, model_found)) in part.iter().zip(scanned) {
            let i = *i;
            let is_repeated = repeated.contains(&i);
            let seen = if is_repeated {
                seen_repeated.entry(i).or_default()
            } else {
                seen_here.clear();
                &mut seen_here
            };
            let mut added = place_rule_findings(
                &report.clauses[i],
                rules,
                model_found.as_deref(),
                learned,
                seen,
            );
            let clause = &mut report.clauses[i];
            let readings = model_found.into_iter().flatten();
            add_readings(
                &mut clause.risks,
                &mut added,
                &clause.clause_id,
                readings,
                &mut classified,
            );
            if is_repeated {
                waiting.extend(added.into_iter().map(|risk| (i, risk)));
            } else {
                clause.risks.extend(added);
            }
        }
    });
    for (i, risk) in waiting {
        report.clauses[i].risks.push(risk);
    }
    learned.filter(|(_, c)| c.read_any()).map(|_| classified)
}

/// The report entries that more than one clause of `reviewed` goes to (a document that
/// repeats a clause id).
fn repeated_entries(reviewed: &[(usize, &crate::document::Clause)]) -> HashSet<usize> {
    let mut once = HashSet::new();
    reviewed
        .iter()
        .filter(|(i, _)| !once.insert(*i))
        .map(|(i, _)| *i)
        .collect()
}

/// The document's clauses reviewed in checklist mode, in document order, each with the
/// index of its entry in the report (the first entry of its id): only those get the scan's
/// findings, as the agent reviewed the others with its own tools.
fn checklist_clauses<'d>(
    report: &ReviewReport,
    doc: &'d crate::document::DocumentStructure,
) -> Vec<(usize, &'d crate::document::Clause)> {
    let mut at: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, clause) in report.clauses.iter().enumerate() {
        if clause.mode == ReviewMode::Checklist {
            at.entry(clause.clause_id.as_str()).or_insert(i);
        }
    }
    doc.iter_clauses()
        .filter_map(|clause| at.get(clause.clause_id.as_str()).map(|&i| (i, clause)))
        .collect()
}

/// What the rules, and the classifier when given, read in one clause. The scans are
/// independent and the most expensive part of the finishing step, so the caller runs them
/// in parallel and takes their findings in document order.
fn scan_clause(
    clause: &crate::document::Clause,
    state: &ReviewState,
    parties: &[String],
    learned: Option<(&LearnedStage, &Classified)>,
    playbook: &Playbook,
) -> (Vec<ProvisionFinding>, Option<Vec<learned::Reading>>) {
    let text: std::borrow::Cow<'_, str> = if clause.title.trim().is_empty() {
        clause.text.as_str().into()
    } else {
        format!("{}\n\n{}", clause.title, clause.text).into()
    };
    let rules = provisions::scan_clause_for(&text, &state.our_party, parties, playbook);
    let learned = learned.and_then(|(stage, classified)| {
        let found = classified.clause(&clause.clause_id)?;
        Some(stage.findings(found, &state.our_party, parties, playbook))
    });
    (rules, learned)
}

/// The rules' findings for the report's clause `clause`, as they are added to it: denied
/// readings, words a skill already reported there and repeats (`seen`, the clause's) are
/// left out, and a provision is reported once per clause, so a reader
/// gets one decision per clause and kind.
fn place_rule_findings(
    clause: &ClauseReview,
    rules: Vec<ProvisionFinding>,
    model_found: Option<&[learned::Reading]>,
    learned: Option<(&LearnedStage, &Classified)>,
    seen: &mut HashSet<String>,
) -> Vec<Risk> {
    let mut added: Vec<Risk> = Vec::new();
    // Per rule finding in `added`: whether it names whom it binds, and its level.
    let mut ranks: Vec<(bool, RiskLevel)> = Vec::new();
    for finding in rules {
        // The denial rules read the rules' sentences as they read the classifier's.
        if learned::negated(finding.provision, &finding.quote) {
            continue;
        }
        let existing = &clause.risks;
        let reported = existing.iter().any(|r| {
            same_family(finding.provision, &r.finding.kind)
                && overlaps(&r.finding.quote, &finding.quote)
        });
        if reported || !seen.insert(format!("{:?}{}", finding.provision, finding.quote)) {
            continue;
        }
        // A provision is reported once per clause: of two sentences of one kind (a
        // renewal and its notice of non-renewal; a heading and the cap under it), the
        // reading that names whom it binds wins, then the more serious one.
        let kind: RiskKind = finding.provision.into();
        let rank = (finding.binds_our_party.is_some(), finding.level);
        let same_kind = added.iter().position(|r| r.finding.kind == kind);
        if same_kind.is_some_and(|at| ranks[at] >= rank) {
            continue;
        }
        let disagrees = classifier_disagrees(&kind, model_found, learned);
        let placed = Risk::new(
            clause.clause_id.clone(),
            rule_finding(finding, kind, disagrees),
        );
        match same_kind {
            Some(at) => {
                added[at] = placed;
                ranks[at] = rank;
            }
            None => {
                added.push(placed);
                ranks.push(rank);
            }
        }
    }
    added
}

/// Whether the classifier read the clause, knows `kind`, and found no serious provision of
/// it there: one decision per clause and kind, so a rule's reading it does not share is
/// listed to check, never as a serious finding on a keyword alone.
fn classifier_disagrees(
    kind: &RiskKind,
    model_found: Option<&[learned::Reading]>,
    learned: Option<(&LearnedStage, &Classified)>,
) -> bool {
    model_found.is_some_and(|found| {
        learned.is_some_and(|(stage, _)| stage.knows(kind))
            && !found.iter().any(|r| r.kind == *kind && r.serious)
    })
}

/// A rule's finding as the report shows it: lowered to a point to check when the
/// classifier disagrees, with whom it binds and the words it rests on in its analysis.
fn rule_finding(finding: ProvisionFinding, kind: RiskKind, classifier_disagrees: bool) -> Finding {
    let (level, reason) = if classifier_disagrees && finding.level > RiskLevel::Low {
        (
            RiskLevel::Low,
            format!(
                "{}; to check: the provision classifier does not read this clause as such a provision with the confidence a serious finding needs",
                finding.reason
            ),
        )
    } else {
        (finding.level, finding.reason)
    };
    let whom = match finding.binds_our_party {
        Some(true) => "binds our party",
        Some(false) => "binds the other party",
        None => "the party bound is not named",
    };
    Finding {
        reason,
        analysis: format!("{whom}; {}", truncate_chars(&finding.quote, 200)),
        source_skill: provisions::SOURCE.into(),
        quote: finding.quote,
        ..Finding::new(kind, level, finding.description)
    }
}

/// Adds the classifier's readings of one clause: a reading of a kind already reported
/// there (by a skill in `existing`, or by the scan in `added`) confirms it with its
/// probability; any other is added. Every kind read goes into `classified`.
fn add_readings(
    existing: &mut [Risk],
    added: &mut Vec<Risk>,
    clause_id: &str,
    readings: impl Iterator<Item = learned::Reading>,
    classified: &mut HashSet<RiskKind>,
) {
    for reading in readings {
        let (kind, finding) = (reading.kind, reading.finding);
        classified.insert(kind.clone());
        let Some(finding) = finding else {
            continue;
        };
        let same = |r: &Risk| {
            r.finding.kind == kind
                || matches!(kind, RiskKind::Provision(p) if same_family(p, &r.finding.kind))
        };
        match existing
            .iter_mut()
            .chain(added.iter_mut())
            .find(|r| same(r))
        {
            Some(risk) => {
                risk.finding
                    .probability
                    .get_or_insert(finding.probability.unwrap_or(0.0));
            }
            None => added.push(Risk::new(clause_id.to_string(), finding)),
        }
    }
}

/// The agreement-level findings of kinds the playbook reports when absent and that nothing
/// found: not the classifier, not a rule, not a skill (the whole agreement was reviewed).
fn add_absences(
    report: &ReviewReport,
    playbook: &Playbook,
    classified: &HashSet<RiskKind>,
    document: &mut Vec<Risk>,
) {
    let reported: HashSet<&RiskKind> = report
        .clauses
        .iter()
        .flat_map(|c| &c.risks)
        .chain(document.iter())
        .map(|r| &r.finding.kind)
        .collect();
    let mut missing = Vec::new();
    for (provision, levels) in &playbook.kinds {
        let Some(level) = levels.absent else {
            continue;
        };
        let name = provision.name();
        let kind = RiskKind::Provision(*provision);
        if classified.contains(&kind) || reported.contains(&kind) {
            continue;
        }
        let words = name.replace('_', " ");
        missing.push(Risk::new(
            DOCUMENT_ANCHOR,
            Finding {
                reason: format!(
                    "the {} playbook reports the lack of a {words} provision at {level}",
                    playbook.domain
                ),
                analysis: "no clause reviewed was found to be such a provision".into(),
                source_skill: learned::SOURCE.into(),
                subject: Subject::Absence(kind.clone()),
                anchor: Some(DOCUMENT_ANCHOR.into()),
                ..Finding::new(
                    kind,
                    level,
                    format!("The agreement has no {words} provision"),
                )
            },
        ));
    }
    document.extend(missing);
}

/// Moves risks whose clause is another one (or the whole document) to where they belong.
fn move_anchored(report: &mut ReviewReport, document: &mut Vec<Risk>) {
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (i, clause) in report.clauses.iter().enumerate() {
        index.entry(clause.clause_id.clone()).or_insert(i);
    }
    let mut moved: Vec<(usize, Risk)> = Vec::new();
    for clause in &mut report.clauses {
        let ClauseReview {
            clause_id: own,
            risks,
            ..
        } = clause;
        // In place: a clause's list is not made again for the few risks that leave it.
        let leaving = risks.extract_if(.., |risk| {
            if risk.clause_id == *own {
                false
            } else if risk.clause_id == DOCUMENT_ANCHOR || index.contains_key(&risk.clause_id) {
                true
            } else {
                risk.clause_id = own.clone();
                false
            }
        });
        for risk in leaving {
            match index.get(&risk.clause_id) {
                Some(&target) if risk.clause_id != DOCUMENT_ANCHOR => moved.push((target, risk)),
                _ => document.push(risk),
            }
        }
    }
    for (target, risk) in moved {
        report.clauses[target].risks.push(risk);
    }
}

/// Takes every per-clause "undefined term" risk out of the report: term → the report
/// entries whose clauses use it, each clause id once (by its first entry).
fn take_undefined_terms(report: &mut ReviewReport) -> BTreeMap<String, Vec<usize>> {
    let first_entry: Vec<usize> = {
        let mut at: HashMap<&str, usize> = HashMap::new();
        (report.clauses.iter().enumerate())
            .map(|(i, c)| *at.entry(c.clause_id.as_str()).or_insert(i))
            .collect()
    };
    let mut terms: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    // (term, clause) pairs already listed, by the term's entry in `terms` and the clause's
    // first entry: a term used by every clause must not make this step grow with the
    // square of the clause count, nor copy the clause id for every term.
    let mut term_no: HashMap<String, usize> = HashMap::new();
    let mut listed: HashSet<(usize, usize)> = HashSet::new();
    for (clause, &entry) in report.clauses.iter_mut().zip(&first_entry) {
        clause.risks.retain(|risk| {
            let Subject::UndefinedTerms(list) = &risk.finding.subject else {
                return true;
            };
            for term in list.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
                let no = match term_no.get(term) {
                    Some(&no) => no,
                    None => {
                        let no = term_no.len();
                        term_no.insert(term.to_string(), no);
                        no
                    }
                };
                if listed.insert((no, entry)) {
                    match terms.get_mut(term) {
                        Some(entries) => entries.push(entry),
                        None => {
                            terms.insert(term.to_string(), vec![entry]);
                        }
                    }
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
    let found: HashSet<&RiskKind> = report
        .clauses
        .iter()
        .flat_map(|c| c.risks.iter())
        .map(|r| &r.finding.kind)
        .collect();
    document.retain(|risk| match &risk.finding.subject {
        Subject::Absence(kind) => !found.contains(kind),
        _ => true,
    });
}

/// Keeps the first of risks of the same kind, subject, words and description.
fn dedup(risks: &mut Vec<Risk>) {
    let mut seen = HashSet::new();
    risks.retain(|r| {
        let f = &r.finding;
        seen.insert((
            f.kind.clone(),
            f.subject.clone(),
            f.quote.clone(),
            f.description.clone(),
        ))
    });
}

/// Most serious first (stable), ids `R-{clause}-{n}`.
fn renumber(clause_id: &str, risks: &mut [Risk]) {
    risks.sort_by_key(|r| std::cmp::Reverse(r.finding.level));
    for (n, risk) in risks.iter_mut().enumerate() {
        risk.id = format!("R-{clause_id}-{}", n + 1);
    }
}
