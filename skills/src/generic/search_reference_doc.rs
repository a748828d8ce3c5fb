//! `search_reference_doc`: ranked passages of the reference documents for a clause.

use std::sync::Arc;

use toolwright::prelude::*;

use crate::index::{index_for, Bm25Index, ReferenceIndex};
use crate::state::ReviewState;
use crate::text::truncate_chars;

/// One passage found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// File name of the reference document (`ER.md`).
    pub document: String,
    /// Clause (or paragraph) id in that document, `#n` for a part of a long clause.
    pub passage_id: String,
    /// Clause title, if any.
    pub title: String,
    /// BM25 relevance score, higher is better.
    pub score: f64,
    /// The passage text, cut to 300 characters.
    pub snippet: String,
}

/// The best passages for a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResults {
    /// Clause the search is for.
    pub clause_id: String,
    /// The query used.
    pub query: String,
    /// Best passages first.
    pub hits: Vec<SearchHit>,
    /// Reference documents searched.
    pub documents_searched: Vec<String>,
    /// Passages searched in total.
    pub passages_searched: usize,
    /// One line the model can read directly.
    pub summary: String,
}

/// Search the reference documents (Employer's Requirements, Particular Conditions, guidance)
/// for the passages most relevant to a clause, ranked by BM25, with score and snippet.
///
/// Use it to find requirements elsewhere that constrain or contradict a clause. The query is
/// built from the clause's title and text when omitted; name `document` to search one file.
#[skill(id = "search_reference_doc", domain = "*", category = "retrieval")]
pub fn search_reference_doc(
    /// Clause number the search is for, for example "4.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Words to search for; built from the clause's title and text when omitted.
    #[arg(prepare = crate::prepare::clause_search_query)]
    query: String,
    /// How many passages to return (1 to 50).
    #[arg(default = 5)]
    top_k: u32,
    /// Only search reference documents whose file name contains this text, for example "ER".
    document: Option<String>,
    review: Inject<ReviewState>,
    index: Option<Inject<ReferenceIndex>>,
) -> Result<SearchResults, SkillError> {
    if !(1..=50).contains(&top_k) {
        return Err(SkillError::invalid_arguments(format!(
            "`top_k` must be between 1 and 50, got {top_k}"
        )));
    }
    if query.trim().is_empty() {
        return Err(SkillError::invalid_arguments(
            "`query` is empty; give words to search for",
        ));
    }
    let indexes: Vec<Arc<Bm25Index>> = match &index {
        Some(index) => index.documents.clone(),
        None => review.references().map(index_for).collect(),
    };
    if indexes.is_empty() {
        return Err(SkillError::not_found(
            "the review has no reference documents to search",
        ));
    }
    let selected: Vec<&Arc<Bm25Index>> = match &document {
        Some(name) => {
            let wanted = name.to_lowercase();
            indexes
                .iter()
                .filter(|i| i.filename.to_lowercase().contains(&wanted))
                .collect()
        }
        None => indexes.iter().collect(),
    };
    if selected.is_empty() {
        let names: Vec<&str> = indexes.iter().map(|i| i.filename.as_str()).collect();
        return Err(SkillError::not_found(format!(
            "no reference document matches `{}`; available: {}",
            document.unwrap_or_default(),
            names.join(", ")
        )));
    }
    let k = top_k as usize;
    let mut hits: Vec<SearchHit> = Vec::new();
    for index in &selected {
        for found in index.search(&query, k) {
            hits.push(SearchHit {
                document: index.filename.clone(),
                passage_id: found.passage.passage_id.clone(),
                title: found.passage.title.clone(),
                score: (f64::from(found.score) * 1000.0).round() / 1000.0,
                snippet: truncate_chars(&found.passage.text, 300),
            });
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.truncate(k);
    let documents_searched: Vec<String> = selected.iter().map(|i| i.filename.clone()).collect();
    let passages_searched = selected.iter().map(|i| i.len()).sum();
    let summary = match hits.first() {
        Some(best) => format!(
            "{} passage(s) found for clause {clause_id}; best: {} {} (score {:.2})",
            hits.len(),
            best.document,
            best.passage_id,
            best.score
        ),
        None => format!(
            "No passage of {} matches the query for clause {clause_id}",
            documents_searched.join(", ")
        ),
    };
    Ok(SearchResults {
        clause_id,
        query,
        hits,
        documents_searched,
        passages_searched,
        summary,
    })
}
