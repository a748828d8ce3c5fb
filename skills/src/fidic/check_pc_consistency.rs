//! `fidic_check_pc_consistency`: Particular Conditions changes that clash with the rest of
//! the contract: changed periods still quoted elsewhere, references to deleted or missing
//! sub-clauses, and defined terms the PC redefine.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use toolwright::prelude::*;

use super::documents::FidicDocuments;
use super::merge_gc_pc::merged_tree;
use super::pc_instructions::{merge, ClauseStatus, Merged, ModificationKind};
use super::periods::find_periods;
use crate::document::normalize_clause_id;
use crate::document::{find_references, DocumentStructure, FoundReference};
use crate::review::RiskLevel;
use crate::state::ReviewState;
use crate::text::{definitions_in, excerpt, sentence_spans, sentences, TermIndex};

/// What kind of inconsistency was found.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ConflictKind {
    /// Another clause refers to a sub-clause the PC delete.
    ReferenceToDeletedClause,
    /// Another clause still quotes the period the PC changed.
    StalePeriodReference,
    /// A reference to a sub-clause that exists in no document.
    BrokenReference,
    /// The PC define a term the GC already define differently.
    RedefinedTerm,
    /// The PC replace or delete words the GC do not contain.
    InstructionNotApplicable,
    /// The PC introduce a new defined term.
    NewDefinedTerm,
}

/// One inconsistency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Conflict {
    /// The kind of inconsistency.
    pub kind: ConflictKind,
    /// `high` when the contract now contradicts itself or points at nothing.
    pub severity: RiskLevel,
    /// Where the problem sits (the clause holding the reference or the wording).
    pub clause_id: String,
    /// The clause or term it concerns.
    pub related_to: String,
    /// What is wrong, in one sentence.
    pub description: String,
    /// The wording concerned, shortened.
    pub evidence: String,
}

/// The consistency check of one PC change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConsistencyReport {
    /// The clause checked.
    pub clause_id: String,
    /// How the PC leave the clause: `unchanged`, `amended`, `replaced`, `deleted`, `added`.
    pub pc_status: ClauseStatus,
    /// Inconsistencies, most serious first.
    pub conflicts: Vec<Conflict>,
    /// Number of inconsistencies.
    pub conflict_count: usize,
    /// Number of `high` ones.
    pub high_count: usize,
    /// Clauses read for references to this one.
    pub clauses_checked: usize,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Check whether the Particular Conditions' change to a clause conflicts with the rest of the
/// contract: periods still quoted elsewhere, references to deleted or missing sub-clauses,
/// redefined terms.
///
/// Finds other clauses that still quote a period the PC changed, references to sub-clauses the
/// PC delete or that exist nowhere, and defined terms the PC redefine (with the clauses that
/// use them). Use it after `fidic_merge_gc_pc` shows a clause was amended, replaced or deleted.
#[skill(
    id = "fidic_check_pc_consistency",
    domain = "fidic",
    category = "validation"
)]
pub fn fidic_check_pc_consistency(
    /// Sub-clause number, e.g. "20.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<ConsistencyReport, SkillError> {
    let clause_id = normalize_clause_id(&clause_id);
    let lookup = crate::index::lookup_for(&review.0);
    let docs = FidicDocuments::of(&lookup);
    if docs.pc_structure().is_none() {
        let names: Vec<&str> = review.references().map(|d| d.filename.as_str()).collect();
        return Err(SkillError::not_found(format!(
            "`fidic_check_pc_consistency`: no Particular Conditions among the reference documents (expected a file name containing \"pc\" or \"particular\"; references: [{}])",
            names.join(", ")
        )));
    }
    if !docs.has_clause(&clause_id) {
        return Err(docs.clause_not_found("fidic_check_pc_consistency", &clause_id));
    }
    let contract = effective_contract(&docs);
    let deleted: BTreeSet<&str> = contract
        .iter()
        .filter(|c| c.status == ClauseStatus::Deleted)
        .map(|c| c.id.as_str())
        .collect();
    let pairs = docs.clause_pairs(&clause_id);
    let pc_status = merged_tree(&clause_id, &pairs).status;
    let requested = clause_id;
    // The General Conditions' definitions, the first of each term, read once for the call.
    let gc_definitions = docs.gc.map(document_definitions).unwrap_or_default();
    let gc_terms: HashMap<&str, &str> = gc_definitions
        .iter()
        .rev()
        .map(|(term, definition)| (term.as_str(), definition.as_str()))
        .collect();
    let mut conflicts = Vec::new();
    // The clause and each of its sub-clauses, as the PC leave them.
    for pair in &pairs {
        let clause_id = pair.clause_id.clone();
        let pc_own = pair.pc_text.clone();
        let merged = merge(&pair.gc_text, &pc_own);
        // 1. Other clauses pointing at this clause once the PC delete it.
        if merged.status == ClauseStatus::Deleted {
            references_to_deleted(&contract, &clause_id, &mut conflicts);
        }
        // 2. References made by the clause as it now reads.
        references_made(&docs, &deleted, &clause_id, &merged.text, &mut conflicts);
        // 3. Periods changed here but still quoted where other clauses refer to this one.
        stale_periods(&contract, &clause_id, &merged, &mut conflicts);
        // 4. Defined terms the PC (re)define in this clause.
        defined_terms(&contract, &gc_terms, &clause_id, &pc_own, &mut conflicts);
        // 5. Instructions that do not fit the GC wording.
        for m in merged.modifications.iter().filter(|m| !m.applied) {
            conflicts.push(Conflict {
                kind: ConflictKind::InstructionNotApplicable,
                severity: RiskLevel::Medium,
                clause_id: clause_id.clone(),
                related_to: m.gc_text.clone(),
                description: m.description.clone(),
                evidence: excerpt(&pc_own, 200),
            });
        }
    }
    sort_and_dedup(&mut conflicts);
    let high_count = conflicts
        .iter()
        .filter(|c| c.severity == RiskLevel::High)
        .count();
    let summary = summarize(&requested, pc_status, &conflicts, high_count);
    Ok(ConsistencyReport {
        clause_id: requested,
        pc_status,
        conflict_count: conflicts.len(),
        high_count,
        clauses_checked: contract.len(),
        conflicts,
        summary,
    })
}

/// Whether a reference to `target` points at clause `id` or one of its sub-clauses.
fn refers_to(target: &str, id: &str) -> bool {
    target == id || target.starts_with(&format!("{id}."))
}

/// The references other clauses still make to `clause_id`, which the PC delete: each now
/// points at nothing.
fn references_to_deleted(
    contract: &[EffectiveClause],
    clause_id: &str,
    conflicts: &mut Vec<Conflict>,
) {
    for c in contract
        .iter()
        .filter(|c| c.status != ClauseStatus::Deleted && !refers_to(&c.id, clause_id))
    {
        let found = conditions_references(&c.text);
        let mut spans = None;
        for r in found.iter().filter(|r| refers_to(r.clause(), clause_id)) {
            let spans = spans.get_or_insert_with(|| sentence_spans(&c.text));
            conflicts.push(Conflict {
                kind: ConflictKind::ReferenceToDeletedClause,
                severity: RiskLevel::High,
                clause_id: c.id.clone(),
                related_to: clause_id.to_string(),
                description: format!(
                    "Sub-Clause {} still refers to {}, which the Particular Conditions delete",
                    c.id, r.text
                ),
                evidence: excerpt(sentence_with(&c.text, spans, r.start), 240),
            });
        }
    }
}

/// The references the clause makes, as it now reads, to sub-clauses the PC delete or that
/// exist in no document.
fn references_made(
    docs: &FidicDocuments,
    deleted: &BTreeSet<&str>,
    clause_id: &str,
    merged_text: &str,
    conflicts: &mut Vec<Conflict>,
) {
    let merged_spans = sentence_spans(merged_text);
    for r in conditions_references(merged_text) {
        if refers_to(r.clause(), clause_id) {
            continue;
        }
        let (kind, severity, why) = if deleted.iter().any(|d| refers_to(r.clause(), d)) {
            (
                ConflictKind::ReferenceToDeletedClause,
                RiskLevel::High,
                "which the Particular Conditions delete",
            )
        } else if !docs.has_clause(r.clause()) {
            (
                ConflictKind::BrokenReference,
                RiskLevel::Medium,
                "which exists in no contract document",
            )
        } else {
            continue;
        };
        conflicts.push(Conflict {
            kind,
            severity,
            clause_id: clause_id.to_string(),
            related_to: r.clause().to_string(),
            description: format!("Sub-Clause {clause_id} refers to {}, {why}", r.text),
            evidence: excerpt(sentence_with(merged_text, &merged_spans, r.start), 240),
        });
    }
}

/// The periods the PC change in the clause that other clauses, citing it, still quote at
/// their old length. The sentences citing the clause are found once, not once per changed
/// period.
fn stale_periods(
    contract: &[EffectiveClause],
    clause_id: &str,
    merged: &Merged,
    conflicts: &mut Vec<Conflict>,
) {
    let changed: Vec<_> = merged
        .modifications
        .iter()
        .filter(|m| m.kind == ModificationKind::WordsReplaced && m.applied)
        .filter_map(|m| {
            Some((
                find_periods(&m.gc_text).into_iter().next()?,
                find_periods(&m.pc_text).into_iter().next()?,
            ))
        })
        .collect();
    let citing: Vec<(&str, &str, Vec<u32>)> = if changed.is_empty() {
        Vec::new()
    } else {
        contract
            .iter()
            .filter(|c| c.id != clause_id && c.status != ClauseStatus::Deleted)
            .flat_map(|c| sentences(&c.text).into_iter().map(move |s| (c, s)))
            .filter(|(_, sentence)| {
                conditions_references(sentence)
                    .iter()
                    .any(|r| r.clause() == clause_id)
            })
            .map(|(c, sentence)| {
                let days = find_periods(sentence).iter().map(|p| p.days).collect();
                (c.id.as_str(), sentence, days)
            })
            .collect()
    };
    for (old, new) in &changed {
        for (id, sentence, days) in &citing {
            if days.contains(&old.days) {
                conflicts.push(Conflict {
                    kind: ConflictKind::StalePeriodReference,
                    severity: RiskLevel::High,
                    clause_id: id.to_string(),
                    related_to: clause_id.to_string(),
                    description: format!(
                        "Sub-Clause {id} quotes {} for Sub-Clause {clause_id}, but the Particular Conditions changed it to {}",
                        old.raw, new.raw
                    ),
                    evidence: excerpt(sentence, 240),
                });
            }
        }
    }
}

/// The terms the PC define in the clause: a redefinition of a GC term changes the meaning
/// of the clauses using it, a new term is noted. The clauses using each are found in one
/// pass over the contract for all of them.
fn defined_terms(
    contract: &[EffectiveClause],
    gc_terms: &HashMap<&str, &str>,
    clause_id: &str,
    pc_own: &str,
    conflicts: &mut Vec<Conflict>,
) {
    let defined = definitions_in(pc_own);
    let mut users_of: HashMap<String, Vec<&str>> = HashMap::new();
    if !defined.is_empty() {
        let index = TermIndex::new(defined.iter().map(|(term, _)| term));
        for c in contract
            .iter()
            .filter(|c| c.id != clause_id && c.status != ClauseStatus::Deleted)
        {
            for term in index.found_in(&c.text) {
                users_of
                    .entry(term.to_string())
                    .or_default()
                    .push(c.id.as_str());
            }
        }
    }
    for (term, definition) in &defined {
        let (term, definition) = (term.clone(), definition.clone());
        let users: Vec<&str> = users_of.get(&term).cloned().unwrap_or_default();
        let used_in = if users.is_empty() {
            "no other clause".to_string()
        } else {
            format!(
                "Sub-Clause(s) {}",
                users.iter().take(6).cloned().collect::<Vec<_>>().join(", ")
            )
        };
        match gc_terms.get(term.as_str()) {
            Some(old) if normalize_ws(old) != normalize_ws(&definition) => conflicts.push(Conflict {
                kind: ConflictKind::RedefinedTerm,
                severity: if users.is_empty() { RiskLevel::Medium } else { RiskLevel::High },
                clause_id: clause_id.to_string(),
                related_to: term.clone(),
                description: format!("the Particular Conditions redefine \"{term}\", which changes the meaning of {used_in}"),
                evidence: format!("GC: {} | PC: {}", excerpt(old, 110), excerpt(&definition, 110)),
            }),
            Some(_) => {}
            None => conflicts.push(Conflict {
                kind: ConflictKind::NewDefinedTerm,
                severity: RiskLevel::Low,
                clause_id: clause_id.to_string(),
                related_to: term.clone(),
                description: format!("the Particular Conditions introduce the defined term \"{term}\", used in {used_in}"),
                evidence: excerpt(&definition, 200),
            }),
        }
    }
}

/// Orders the conflicts most serious first and drops the same problem seen from both ends
/// (the deleted clause and the clause citing it).
fn sort_and_dedup(conflicts: &mut Vec<Conflict>) {
    conflicts.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.kind.cmp(&b.kind))
            .then(a.clause_id.cmp(&b.clause_id))
            .then(a.related_to.cmp(&b.related_to))
    });
    // The same problem seen from both ends (the deleted clause and the clause citing it).
    conflicts.dedup_by(|a, b| {
        a.kind == b.kind && a.clause_id == b.clause_id && a.related_to == b.related_to
    });
}

/// One clause of the contract as it applies.
struct EffectiveClause<'a> {
    id: String,
    text: Cow<'a, str>,
    status: ClauseStatus,
}

/// Every GC clause with its PC text applied, then the clauses only the PC have. A clause the
/// PC leave alone (most of them) is its GC text as it is, neither merged nor copied: the
/// check runs for every clause of a review, and copying the whole contract each time made
/// the review grow with the square of the contract.
fn effective_contract<'a>(docs: &FidicDocuments<'a>) -> Vec<EffectiveClause<'a>> {
    let pc = docs.pc_structure();
    let mut out: Vec<EffectiveClause<'a>> = Vec::new();
    for c in docs.gc.into_iter().flat_map(|d| d.iter_clauses()) {
        let pc_own = docs
            .pc_clause(&c.clause_id)
            .map(|p| p.text.as_str())
            .filter(|t| !t.trim().is_empty());
        out.push(match pc_own {
            // What `merge` gives for no PC text: the GC text, trimmed, unchanged.
            None => EffectiveClause {
                id: c.clause_id.clone(),
                text: Cow::Borrowed(c.text.trim()),
                status: ClauseStatus::Unchanged,
            },
            Some(pc_own) => {
                let m = merge(&c.text, pc_own);
                EffectiveClause {
                    id: c.clause_id.clone(),
                    text: Cow::Owned(m.text),
                    status: m.status,
                }
            }
        });
    }
    let mut seen: HashSet<&str> = docs
        .gc
        .into_iter()
        .flat_map(|d| d.iter_clauses())
        .map(|c| c.clause_id.as_str())
        .collect();
    for c in pc.into_iter().flat_map(|d| d.iter_clauses()) {
        if seen.insert(c.clause_id.as_str()) {
            let m = merge("", &c.text);
            out.push(EffectiveClause {
                id: c.clause_id.clone(),
                text: Cow::Owned(m.text),
                status: m.status,
            });
        }
    }
    out
}

/// The sentence of `text` holding byte `at`, from the text's sentence `spans` (in order, not
/// overlapping: a binary search), or the whole text.
fn sentence_with<'t>(text: &'t str, spans: &[(usize, usize)], at: usize) -> &'t str {
    let after = spans.partition_point(|&(s, _)| s <= at);
    after
        .checked_sub(1)
        .map(|i| spans[i])
        .filter(|&(_, e)| at < e)
        .map_or(text, |(s, e)| &text[s..e])
}

fn normalize_ws(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches(['.', ';', '。'])
        .to_lowercase()
}

fn summarize(clause_id: &str, status: ClauseStatus, conflicts: &[Conflict], high: usize) -> String {
    if status == ClauseStatus::Unchanged && conflicts.is_empty() {
        return format!(
            "The Particular Conditions do not change Sub-Clause {clause_id}; no inconsistency."
        );
    }
    if conflicts.is_empty() {
        return format!("The Particular Conditions' change to Sub-Clause {clause_id} is consistent with the rest of the contract.");
    }
    let kinds: Vec<String> = conflicts
        .iter()
        .map(|c| format!("{:?}", c.kind))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    format!(
        "Sub-Clause {clause_id} ({status:?}): {} inconsistenc{} ({high} high): {}. First: {}",
        conflicts.len(),
        if conflicts.len() == 1 { "y" } else { "ies" },
        kinds.join(", "),
        conflicts[0].description
    )
}

/// Defined terms of a document: those the parser recorded plus those found in its text.
fn document_definitions(doc: &DocumentStructure) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = doc
        .definitions
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut known: HashSet<String> = out.iter().map(|(t, _)| t.clone()).collect();
    for clause in doc.iter_clauses() {
        for (term, def) in definitions_in(&clause.text) {
            if known.insert(term.clone()) {
                out.push((term, def));
            }
        }
    }
    out
}

/// References to clauses of the Conditions (`Sub-Clause 20.1`, `Clauses 4 and 5`,
/// `第4.1条`); a `Section` or `Paragraph` of another document (the Employer's Requirements)
/// is not one.
fn conditions_references(text: &str) -> Vec<FoundReference> {
    let mut of_conditions = true;
    find_references(text)
        .into_iter()
        .filter(|r| {
            let lower = r.text.to_ascii_lowercase();
            if lower.starts_with(|c: char| c.is_ascii_alphabetic()) {
                of_conditions = lower.starts_with("sub-clause")
                    || lower.starts_with("clause")
                    || lower.starts_with("article");
            } else if r.text.starts_with('第') {
                of_conditions = true;
            }
            of_conditions
        })
        .collect()
}
