//! The eight generic skills (domain `*`): they work on any contract, FIDIC or SPA/SHA,
//! English or Chinese. One module per skill; shared lookups live here.

pub mod assess_deviation;
pub mod bm25;
pub mod compare_with_baseline;
pub mod cross_reference_check;
pub mod extract_financial_terms;
pub mod get_clause_context;
pub mod load_review_criteria;
pub mod lookup;
pub mod resolve_definition;
pub mod search_reference_doc;

use skill_core::prelude::*;

use crate::document::{is_cjk, Clause, DocumentStructure};
use crate::state::ReviewState;

/// Ids of the generic skills, in the order a checklist runs them.
pub const GENERIC_SKILL_IDS: [&str; 8] = [
    "get_clause_context",
    "resolve_definition",
    "compare_with_baseline",
    "cross_reference_check",
    "extract_financial_terms",
    "search_reference_doc",
    "load_review_criteria",
    "assess_deviation",
];

/// A clause named by number and title, for parents, children and neighbours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClauseRef {
    /// Clause number (`4.1`).
    pub clause_id: String,
    /// Heading text, empty when the clause has none.
    pub title: String,
}

impl From<&Clause> for ClauseRef {
    fn from(clause: &Clause) -> Self {
        Self {
            clause_id: clause.clause_id.clone(),
            title: clause.title.clone(),
        }
    }
}

/// The contract under review, or a `not_found` error the model can read. (Skills use
/// [`lookup::lookup_for`], which finds clauses without walking the tree.)
pub fn primary_document(review: &ReviewState) -> Result<&DocumentStructure, SkillError> {
    review.primary().ok_or_else(|| {
        SkillError::not_found("the review has no primary (contract) document loaded")
    })
}

/// The clause with this id, or a `not_found` error naming the clause and a few existing ids
/// (walks the tree; see [`lookup::Doc::clause_or_not_found`] for repeated lookups).
pub fn find_clause<'d>(
    doc: &'d DocumentStructure,
    clause_id: &str,
) -> Result<&'d Clause, SkillError> {
    doc.find_clause(clause_id)
        .ok_or_else(|| clause_not_found(doc, clause_id))
}

/// The `not_found` error for a clause id that is not in `doc`.
pub fn clause_not_found(doc: &DocumentStructure, clause_id: &str) -> SkillError {
    let sample: Vec<&str> = doc
        .iter_clauses()
        .take(8)
        .map(|c| c.clause_id.as_str())
        .collect();
    let hint = if sample.is_empty() {
        "the document has no clauses".to_string()
    } else {
        format!("existing clauses include {}", sample.join(", "))
    };
    SkillError::not_found(format!(
        "clause `{clause_id}` does not exist in document `{}`; {hint}",
        doc.document_id
    ))
    .with_details(serde_json::json!({ "clause_id": clause_id, "document_id": doc.document_id }))
}

/// Whether `term` occurs in `text` as a whole word (any position for Chinese terms).
pub fn contains_term(text: &str, term: &str) -> bool {
    if term.is_empty() {
        return false;
    }
    let needs_boundary = !term.chars().any(is_cjk);
    let mut from = 0;
    while let Some(pos) = text[from..].find(term) {
        let start = from + pos;
        let end = start + term.len();
        if !needs_boundary {
            return true;
        }
        let before_ok = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = text[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if before_ok && after_ok {
            return true;
        }
        from = start + term.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Splits text into sentences (`.`, `;`, `。`, `；`, line breaks), keeping decimals intact.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(pos, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|&(_, n)| n);
        let ends = match c {
            '。' | '；' | ';' | '\n' | '！' | '？' => true,
            '.' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            let end = pos + c.len_utf8();
            let sentence = text[start..end].trim();
            if !sentence.is_empty() {
                out.push(sentence);
            }
            start = end;
        }
    }
    let tail = text[start..].trim();
    if !tail.is_empty() {
        out.push(tail);
    }
    out
}

/// Cuts text to at most `max` characters on a character boundary, marking the cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_match_whole_words_only() {
        assert!(contains_term("the Contract Price is", "Contract Price"));
        assert!(!contains_term("the Contractors", "Contractor"));
        assert!(contains_term("本合同价格为", "合同价格"));
        assert!(!contains_term("", "x"));
    }

    #[test]
    fn sentences_keep_decimals() {
        assert_eq!(
            sentences("Pay 2.5 million. Then stop; 完成。好"),
            ["Pay 2.5 million.", "Then stop;", "完成。", "好"]
        );
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        assert_eq!(truncate_chars("合同价格", 2), "合同…");
        assert_eq!(truncate_chars("abc", 5), "abc");
    }
}
