//! Which document of a review plays which FIDIC part, clause lookup across them, and the
//! preparers that follow the clause the model asked about.

use toolwright::prelude::*;

use std::collections::HashSet;

use crate::document::{clause_not_found, normalize_clause_id, DocumentStructure, Index};
use crate::index::StateLookup;
use crate::state::{ClauseFocus, ReviewDocument, ReviewState};

/// The FIDIC parts of a review, with the clause lookups of their documents (built once per
/// review state, so finding a clause does not walk the document).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FidicDocuments<'a> {
    /// The contract under review.
    pub primary: Option<&'a DocumentStructure>,
    /// The General Conditions (baseline; the primary document when no baseline was given).
    pub gc: Option<&'a DocumentStructure>,
    /// The Particular Conditions (a reference whose file name says `pc` or `particular`).
    pub pc: Option<&'a ReviewDocument>,
    /// The Employer's Requirements (a reference whose file name says `employer` or `er`).
    pub er: Option<&'a ReviewDocument>,
    primary_doc: Option<Index<'a>>,
    gc_doc: Option<Index<'a>>,
    pc_doc: Option<Index<'a>>,
}

impl<'a> FidicDocuments<'a> {
    /// Picks the parts from the review's documents.
    pub(crate) fn of(lookup: &'a StateLookup) -> Self {
        let review = lookup.state();
        let pc = review.references().find(|d| is_pc_name(&d.filename));
        let er = pick_er(review, pc);
        let primary_doc = lookup.primary();
        let gc_doc = lookup.baseline().or(primary_doc);
        Self {
            primary: primary_doc.map(|d| d.structure),
            gc: gc_doc.map(|d| d.structure),
            pc,
            er,
            primary_doc,
            gc_doc,
            pc_doc: pc.and_then(|d| lookup.doc_of(d)),
        }
    }

    /// The Particular Conditions' structure.
    pub(crate) fn pc_structure(&self) -> Option<&'a DocumentStructure> {
        self.pc.map(|d| &*d.structure)
    }

    /// General Conditions text of a clause (with its sub-clauses), if the clause is there.
    pub(crate) fn gc_text(&self, clause_id: &str) -> Option<String> {
        self.gc_doc.and_then(|d| d.full_text(clause_id))
    }

    /// Particular Conditions text of a clause, if the PC deal with it.
    pub(crate) fn pc_text(&self, clause_id: &str) -> Option<String> {
        self.pc_doc.and_then(|d| d.full_text(clause_id))
    }

    /// The Particular Conditions' clause with this id, if the PC have it.
    pub(crate) fn pc_clause(&self, clause_id: &str) -> Option<&'a crate::document::Clause> {
        self.pc_doc.and_then(|d| d.clause(clause_id))
    }

    /// Text of the clause (with its sub-clauses) in the contract under review.
    pub(crate) fn primary_text(&self, clause_id: &str) -> Option<String> {
        self.primary_doc.and_then(|d| d.full_text(clause_id))
    }

    /// The clause and every sub-clause under it that the GC or the PC have (GC order, then
    /// clauses only the PC have), each with its own text in both.
    pub(crate) fn clause_pairs(&self, clause_id: &str) -> Vec<ClausePair> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut ids: Vec<&str> = Vec::new();
        for doc in [self.gc_doc, self.pc_doc].into_iter().flatten() {
            for id in doc.family(clause_id) {
                if seen.insert(id) {
                    ids.push(id);
                }
            }
        }
        let own = |doc: Option<Index<'_>>, id: &str| {
            doc.and_then(|d| d.clause(id))
                .map(|c| c.text.trim().to_string())
                .unwrap_or_default()
        };
        ids.into_iter()
            .map(|id| ClausePair {
                gc_text: own(self.gc_doc, id),
                pc_text: own(self.pc_doc, id),
                clause_id: id.to_string(),
            })
            .collect()
    }

    /// Every document that holds clauses, for "does this clause exist" questions.
    pub(crate) fn all(&self) -> impl Iterator<Item = &'a DocumentStructure> {
        [self.primary, self.gc, self.pc_structure()]
            .into_iter()
            .flatten()
    }

    /// Whether any document has the clause.
    pub(crate) fn has_clause(&self, clause_id: &str) -> bool {
        [self.primary_doc, self.gc_doc, self.pc_doc]
            .into_iter()
            .flatten()
            .any(|d| d.clause(clause_id).is_some())
    }

    /// The "no such clause" error, naming a few clauses that do exist.
    pub(crate) fn clause_not_found(&self, skill: &str, clause_id: &str) -> SkillError {
        clause_not_found(Some(skill), clause_id, self.all())
    }
}

/// One clause with its own General and Particular Conditions text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClausePair {
    /// The clause.
    pub clause_id: String,
    /// Its General Conditions text (without sub-clauses), empty when the GC lack it.
    pub gc_text: String,
    /// Its Particular Conditions text (without sub-clauses), empty when the PC are silent.
    pub pc_text: String,
}

fn name_tokens(filename: &str) -> Vec<String> {
    filename
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn is_pc_name(filename: &str) -> bool {
    let lower = filename.to_lowercase();
    lower.contains("particular")
        || name_tokens(filename)
            .iter()
            .any(|t| t == "pc" || t.starts_with("pc"))
}

/// The ER: a reference named `employer...` or with an `er` word, else (as SPEC-19 6.5) the
/// first reference whose name merely contains "er", never the PC.
fn pick_er<'a>(
    review: &'a ReviewState,
    pc: Option<&'a ReviewDocument>,
) -> Option<&'a ReviewDocument> {
    let not_pc = |d: &&ReviewDocument| pc.is_none_or(|p| !std::ptr::eq(*d, p));
    review
        .references()
        .filter(not_pc)
        .find(|d| {
            let lower = d.filename.to_lowercase();
            lower.contains("employer") || name_tokens(&d.filename).iter().any(|t| t == "er")
        })
        .or_else(|| {
            review
                .references()
                .filter(not_pc)
                .find(|d| d.filename.to_lowercase().contains("er"))
        })
}

/// The clause a preparer works for: the one the model named, else the clause under review.
pub(crate) fn scoped_clause_id(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<String, SkillError> {
    scope
        .str_argument("clause_id")
        .or_else(|| ctx.get::<ClauseFocus>().map(|f| f.0.clone()))
        .map(|id| normalize_clause_id(&id))
        .ok_or_else(|| SkillError::invalid_arguments("no clause is under review; pass `clause_id`"))
}

/// The review state of a context with its clause lookups, for preparers of the skill in
/// `scope`.
pub(crate) fn review_of(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<StateLookup, SkillError> {
    ctx.get_arc::<ReviewState>()
        .map(|state| crate::index::lookup_for(&state))
        .ok_or_else(|| {
            SkillError::missing_injection(scope.skill_id(), std::any::type_name::<ReviewState>())
        })
}
