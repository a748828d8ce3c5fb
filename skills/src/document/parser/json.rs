//! JSON input: a document read in the spec's shape is completed like a parsed one.

use std::collections::HashSet;

use super::references::collect_cross_references;
use super::tree::set_levels;
use crate::document::model::{normalize_clause_id, Clause, DocumentStructure};
use crate::document::scope::make_ids_unique;
use crate::text::definitions::extract_definitions;

/// Completes a document read from JSON: normalises clause ids (a repeated one gets a scoped
/// id, so every clause can be named), recomputes levels and counts, and fills definitions
/// and cross references from the text when the JSON left them out.
pub(crate) fn finalize_json_document(
    mut doc: DocumentStructure,
    document_id: &str,
) -> DocumentStructure {
    fn normalize(clauses: &mut [Clause]) {
        for clause in clauses {
            clause.clause_id = normalize_clause_id(&clause.clause_id);
            normalize(&mut clause.children);
        }
    }
    if doc.document_id.is_empty() {
        doc.document_id = document_id.to_string();
    }
    if doc.structure_type.is_empty() {
        doc.structure_type = "json".into();
    }
    normalize(&mut doc.clauses);
    make_ids_unique(&mut doc.clauses);
    set_levels(&mut doc.clauses, 1);
    if doc.definitions.is_empty() {
        let all: Vec<&str> = doc.iter_clauses().map(|c| c.text.as_str()).collect();
        doc.definitions = extract_definitions(&all.join("\n"));
    }
    let ids: HashSet<String> = doc.iter_clauses().map(|c| c.clause_id.clone()).collect();
    if doc.cross_references.is_empty() {
        doc.cross_references = collect_cross_references(&doc);
    } else {
        for reference in &mut doc.cross_references {
            reference.target_clause_id = normalize_clause_id(&reference.target_clause_id);
            reference.is_valid = ids.contains(&reference.target_clause_id);
        }
    }
    doc.recount();
    doc
}
