//! `fidic_search_er`: the passages of the Employer's Requirements most relevant to a clause,
//! ranked with BM25 over English words and Chinese character pairs.

use std::collections::{BTreeMap, BTreeSet};

use toolwright::prelude::*;

use super::documents::{review_of, scoped_clause_id, FidicDocuments};
use crate::document::{normalize_clause_id, DocumentStructure};
use crate::index::StateLookup;
use crate::state::ReviewState;
use crate::text::excerpt;

/// One passage of the Employer's Requirements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErPassage {
    /// 1 for the best match.
    pub rank: usize,
    /// ER section the passage comes from.
    pub er_clause_id: String,
    /// Heading of that section.
    pub title: String,
    /// The passage, shortened.
    pub excerpt: String,
    /// BM25 relevance (higher is better).
    pub score: f64,
    /// Query terms found in the passage.
    pub matched_terms: Vec<String>,
}

/// Ranked ER passages for a clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErSearchResult {
    /// The clause searched for.
    pub clause_id: String,
    /// The query used.
    pub query: String,
    /// File name of the Employer's Requirements searched.
    pub er_document: String,
    /// Number of passages searched.
    pub passages_searched: usize,
    /// Best passages first.
    pub results: Vec<ErPassage>,
    /// Number of passages returned.
    pub result_count: usize,
    /// ER section of the best passage.
    pub top_er_clause_id: Option<String>,
    /// One paragraph for the reader.
    pub summary: String,
}

/// Search the Employer's Requirements for the requirements that bear on a contract clause;
/// returns ranked passages with the terms they share with the clause.
///
/// The query defaults to the clause text (first 500 characters) plus the material type and
/// contract sub-type of the review; passages are ranked by term relevance (BM25, English
/// words and Chinese characters). Use it to check what the Employer actually requires behind
/// a design, quality, testing or fitness-for-purpose obligation.
#[skill(id = "fidic_search_er", domain = "fidic", category = "retrieval")]
pub fn fidic_search_er(
    /// Clause number, e.g. "4.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    /// Free-text query; defaults to the clause text plus the material type and sub-type.
    #[arg(prepare = prepare_query)]
    query: Option<String>,
    /// How many passages to return (1-50).
    #[arg(default = 5)]
    top_k: u32,
    review: Inject<ReviewState>,
) -> Result<ErSearchResult, SkillError> {
    if !(1..=50).contains(&top_k) {
        return Err(SkillError::invalid_arguments(format!(
            "`fidic_search_er`: argument `top_k` must be between 1 and 50, got {top_k}"
        )));
    }
    let clause_id = normalize_clause_id(&clause_id);
    let lookup = crate::index::lookup_for(&review.0);
    let docs = FidicDocuments::of(&lookup);
    let er = docs.er.ok_or_else(|| {
        let names: Vec<&str> = review.references().map(|d| d.filename.as_str()).collect();
        SkillError::not_found(format!(
            "`fidic_search_er`: no Employer's Requirements among the reference documents (expected a file name containing \"employer\" or \"er\"; references: [{}])",
            names.join(", ")
        ))
    })?;
    if !docs.has_clause(&clause_id) {
        return Err(docs.clause_not_found("fidic_search_er", &clause_id));
    }
    let query = query
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| default_query(&lookup, &clause_id));
    let passages = passages(&er.structure);
    let ranked = rank(&passages, &query, top_k as usize);
    let summary = match ranked.first() {
        Some(best) => format!(
            "{} passage(s) of {} match clause {clause_id}; best: ER {} \"{}\" (terms: {}).",
            ranked.len(),
            er.filename,
            best.er_clause_id,
            best.title,
            best.matched_terms.join(", ")
        ),
        None => format!("No passage of {} matches clause {clause_id}.", er.filename),
    };
    Ok(ErSearchResult {
        clause_id,
        query,
        er_document: er.filename.clone(),
        passages_searched: passages.len(),
        result_count: ranked.len(),
        top_er_clause_id: ranked.first().map(|p| p.er_clause_id.clone()),
        results: ranked,
        summary,
    })
}

/// SPEC-19 6.5: clause text (first 500 characters), material type, domain sub-type; the
/// clause id when all are empty.
pub(crate) fn default_query(lookup: &StateLookup, clause_id: &str) -> String {
    let review = lookup.state();
    let docs = FidicDocuments::of(lookup);
    let text = docs
        .primary_text(clause_id)
        .or_else(|| docs.gc_text(clause_id))
        .or_else(|| docs.pc_text(clause_id))
        .unwrap_or_default();
    let head: String = text.chars().take(500).collect();
    let parts: Vec<&str> = [
        head.trim(),
        review.material_type.trim(),
        review.domain_subtype.trim(),
    ]
    .into_iter()
    .filter(|p| !p.is_empty())
    .collect();
    if parts.is_empty() {
        clause_id.to_string()
    } else {
        parts.join(" ")
    }
}

fn prepare_query(
    ctx: &SkillContext,
    scope: &PrepareScope<'_>,
) -> Result<Option<String>, SkillError> {
    let clause_id = scoped_clause_id(ctx, scope)?;
    Ok(Some(default_query(&review_of(ctx, scope)?, &clause_id)))
}

struct Passage {
    clause_id: String,
    title: String,
    text: String,
    terms: Vec<String>,
}

fn passages(er: &DocumentStructure) -> Vec<Passage> {
    let mut out = Vec::new();
    for clause in er.iter_clauses() {
        let body = clause.text.trim();
        if body.is_empty() {
            continue;
        }
        let pieces: Vec<&str> = if body.chars().count() > 800 {
            body.split("\n\n").collect()
        } else {
            vec![body]
        };
        for piece in pieces.into_iter().filter(|p| !p.trim().is_empty()) {
            let text = format!("{} {}", clause.title, piece);
            out.push(Passage {
                clause_id: clause.clause_id.clone(),
                title: clause.title.clone(),
                terms: terms(&text),
                text: piece.to_string(),
            });
        }
    }
    out
}

const STOPWORDS: &[&str] = &[
    "the", "and", "of", "to", "in", "for", "or", "by", "with", "be", "is", "are", "as", "on", "at",
    "an", "any", "all", "shall", "this", "that", "which", "such", "under", "from", "its", "it",
    "if", "has", "have", "not", "will", "may", "other", "each", "into", "these", "those", "been",
    "than", "so", "no",
];

/// Lower-case English words (light stemming) and Chinese character pairs.
fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut han: Vec<char> = Vec::new();
    let flush_han = |han: &mut Vec<char>, out: &mut Vec<String>| {
        match han.len() {
            0 => {}
            1 => out.push(han[0].to_string()),
            _ => out.extend(han.windows(2).map(|w| w.iter().collect::<String>())),
        }
        han.clear();
    };
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let mut latin = String::new();
        for c in word.chars() {
            if is_han(c) {
                flush_word(&mut latin, &mut out);
                han.push(c);
            } else {
                flush_han(&mut han, &mut out);
                latin.extend(c.to_lowercase());
            }
        }
        flush_word(&mut latin, &mut out);
        flush_han(&mut han, &mut out);
    }
    out
}

fn flush_word(word: &mut String, out: &mut Vec<String>) {
    if word.chars().count() >= 2
        && !STOPWORDS.contains(&word.as_str())
        && !word.chars().all(|c| c.is_ascii_digit())
    {
        let stem = match word.strip_suffix('s') {
            Some(s) if s.len() > 3 && !s.ends_with('s') => s.to_string(),
            _ => word.clone(),
        };
        out.push(stem);
    }
    word.clear();
}

fn is_han(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c)
}

fn rank(passages: &[Passage], query: &str, top_k: usize) -> Vec<ErPassage> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let query_terms: BTreeSet<String> = terms(query).into_iter().collect();
    let n = passages.len() as f64;
    if n == 0.0 {
        return Vec::new();
    }
    let avg_len = passages.iter().map(|p| p.terms.len()).sum::<usize>() as f64 / n;
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for p in passages {
        for t in p.terms.iter().collect::<BTreeSet<_>>() {
            if query_terms.contains(t) {
                *df.entry(t.as_str()).or_default() += 1;
            }
        }
    }
    let mut scored: Vec<(f64, usize, Vec<String>)> = passages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let len = p.terms.len() as f64;
            let mut score = 0.0;
            let mut matched = Vec::new();
            // The passage's terms counted once, summed in the query's (sorted) order: the
            // cost is the passage's length, not that times the query's.
            let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
            for x in p.terms.iter().filter(|x| query_terms.contains(*x)) {
                *counts.entry(x).or_default() += 1;
            }
            for (t, tf) in counts {
                let tf = tf as f64;
                let d = df[t.as_str()] as f64;
                let idf = ((n - d + 0.5) / (d + 0.5) + 1.0).ln();
                score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg_len.max(1.0)));
                matched.push(t.clone());
            }
            (score > 0.0).then_some((score, i, matched))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(top_k)
        .enumerate()
        .map(|(rank, (score, i, mut matched))| {
            let p = &passages[i];
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for x in &p.terms {
                *counts.entry(x.as_str()).or_default() += 1;
            }
            matched.sort_by_key(|t| std::cmp::Reverse(counts[t.as_str()]));
            matched.truncate(8);
            ErPassage {
                rank: rank + 1,
                er_clause_id: p.clause_id.clone(),
                title: p.title.clone(),
                excerpt: excerpt(&p.text, 400),
                score: (score * 1000.0).round() / 1000.0,
                matched_terms: matched,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_mix_words_and_chinese_pairs() {
        assert_eq!(
            terms("The Works shall be fit for purposes 设计标准"),
            ["work", "fit", "purpose", "设计", "计标", "标准"]
        );
    }
}
