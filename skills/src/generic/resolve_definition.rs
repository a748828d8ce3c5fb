//! `resolve_definition`: the definitions behind the capitalised terms of a clause.

use std::collections::BTreeSet;

use toolwright::prelude::*;

use crate::document::quoted_terms;
use crate::index::lookup_for;
use crate::state::ReviewState;
use crate::text::contains_term;

/// A defined term used by the clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResolvedTerm {
    /// The term as defined (`Contract Price`).
    pub term: String,
    /// Its definition.
    pub definition: String,
    /// Where the definition comes from: `contract` or `baseline`.
    pub source: String,
}

/// Definitions of the terms a clause uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DefinitionResolution {
    /// The clause analysed.
    pub clause_id: String,
    /// Every defined term the clause uses, with its definition.
    pub definitions: Vec<ResolvedTerm>,
    /// Terms written like defined terms (quoted, or capitalised after "the") that neither
    /// the contract nor the baseline defines.
    pub undefined_terms: Vec<String>,
    /// One line the model can read directly.
    pub summary: String,
}

/// Resolve the defined terms a clause uses: each term with its definition (from the contract,
/// else the standard form), and terms that look defined but are defined nowhere.
///
/// Use it when the meaning of a clause hinges on capitalised terms such as "Contract Price"
/// or "合同价格", or to spot undefined terms that make a clause ambiguous.
#[skill(id = "resolve_definition", domain = "*", category = "analysis")]
pub fn resolve_definition(
    /// Clause number whose terms to resolve, for example "14.1"; defaults to the clause under review.
    #[arg(prepare = crate::prepare::focus_clause_id)]
    clause_id: String,
    review: Inject<ReviewState>,
) -> Result<DefinitionResolution, SkillError> {
    let lookup = lookup_for(&review.0);
    let contract = lookup.primary_or_not_found()?;
    let clause = contract.clause_or_not_found(&clause_id)?;
    let text = contract.full_text(&clause.clause_id).unwrap_or_default();
    let doc = contract.structure;
    let baseline_definitions = review.baseline().map(|b| &b.definitions);

    let mut definitions = Vec::new();
    let mut seen = BTreeSet::new();
    // Terms found by one pass over the text (not one search per defined term).
    let sources = [
        ("contract", Some(&doc.definitions), Some(contract)),
        ("baseline", baseline_definitions, lookup.baseline()),
    ];
    for (source, defs, indexed) in sources {
        let Some(defs) = defs else { continue };
        let used: Vec<&str> = match indexed {
            Some(indexed) => indexed.defined_terms_in(&text).into_iter().collect(),
            None => defs
                .keys()
                .filter(|t| contains_term(&text, t))
                .map(String::as_str)
                .collect(),
        };
        for term in used {
            let Some(definition) = defs.get(term) else {
                continue;
            };
            if seen.insert(term.to_string()) {
                definitions.push(ResolvedTerm {
                    term: term.to_string(),
                    definition: definition.clone(),
                    source: source.to_string(),
                });
            }
        }
    }
    // The terms resolved, compared without ASCII case in one lookup each.
    let seen_folded: std::collections::HashSet<String> =
        seen.iter().map(|t| t.to_ascii_lowercase()).collect();
    let is_defined = |candidate: &str| {
        doc.definitions.contains_key(candidate)
            || baseline_definitions.is_some_and(|d| d.contains_key(candidate))
            || seen_folded.contains(&candidate.to_ascii_lowercase())
    };
    let mut undefined = BTreeSet::new();
    for candidate in term_candidates(&text) {
        if !is_defined(&candidate) {
            undefined.insert(candidate);
        }
    }
    let undefined_terms: Vec<String> = undefined.into_iter().collect();
    let summary = if definitions.is_empty() && undefined_terms.is_empty() {
        format!("Clause {}: uses no defined terms", clause.clause_id)
    } else {
        format!(
            "Clause {}: {} defined term(s) resolved; {} term(s) used but never defined{}",
            clause.clause_id,
            definitions.len(),
            undefined_terms.len(),
            if undefined_terms.is_empty() {
                String::new()
            } else {
                format!(" ({})", undefined_terms.join(", "))
            }
        )
    };
    Ok(DefinitionResolution {
        clause_id: clause.clause_id.clone(),
        definitions,
        undefined_terms,
        summary,
    })
}

/// Words that introduce clause references or are capitalised for other reasons.
const NOT_TERMS: [&str; 10] = [
    "Sub-Clause",
    "Clause",
    "Clauses",
    "Article",
    "Section",
    "Parties",
    "Party",
    "Appendix",
    "Schedule",
    "Annex",
];

/// Terms written the way defined terms are: quoted (not being defined right here), or
/// capitalised words after "the" (`the Performance Security`).
fn term_candidates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        for (term, after) in quoted_terms(line) {
            // Only the first words can be the defining word: the rest of a long line is not
            // lower-cased once per quoted term.
            let after = after.trim_start();
            let head = after
                .char_indices()
                .nth(16)
                .map_or(after, |(at, _)| &after[..at]);
            let after = head.to_lowercase();
            let defining = ["means", "mean", "shall mean", "是指", "系指", "指"]
                .iter()
                .any(|w| after.starts_with(w));
            if !defining {
                out.push(term.to_string());
            }
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        if words[i].eq_ignore_ascii_case("the") {
            let mut phrase: Vec<&str> = Vec::new();
            let mut j = i + 1;
            while j < words.len() && phrase.len() < 6 {
                let word = words[j];
                let core = word
                    .trim_end_matches([',', '.', ';', ':', ')'])
                    .trim_end_matches("'s")
                    .trim_end_matches("’s");
                let capitalised = core.chars().next().is_some_and(char::is_uppercase)
                    && core.chars().skip(1).any(char::is_lowercase)
                    && core
                        .chars()
                        .all(|c| c.is_alphabetic() || c == '-' || c == '\'');
                // "Letter of Acceptance": a connector inside a phrase, before a capitalised word.
                let connector = !phrase.is_empty()
                    && matches!(core, "of" | "and" | "for")
                    && words
                        .get(j + 1)
                        .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
                if connector {
                    phrase.push(core);
                    j += 1;
                    continue;
                }
                if !capitalised || NOT_TERMS.contains(&core) {
                    break;
                }
                phrase.push(core);
                j += 1;
                if core.len() != word.len() {
                    break;
                }
            }
            if !phrase.is_empty() {
                out.push(phrase.join(" "));
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}
