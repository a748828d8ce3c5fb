//! Plain-text helpers shared by the contract skills: sentences, clause references, defined
//! terms and parties. English and Chinese wording.

use std::sync::LazyLock;

use regex::Regex;

use crate::document::{chinese_numeral, DocumentStructure};

/// Splits text into sentences (and `;`-separated list items), trimmed, without empty ones.
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text)
        .into_iter()
        .map(|(s, e)| &text[s..e])
        .collect()
}

/// Byte ranges of the sentences of `text` (see [`sentences`]).
pub(crate) fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(pos, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|&(_, n)| n);
        let end = match c {
            '。' | '；' | '！' | '？' | '\n' | ';' => true,
            '.' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if end {
            push_span(text, &mut out, start, pos + c.len_utf8());
            start = pos + c.len_utf8();
        }
    }
    push_span(text, &mut out, start, text.len());
    out
}

fn push_span(text: &str, out: &mut Vec<(usize, usize)>, start: usize, end: usize) {
    let piece = &text[start..end];
    if piece.chars().any(char::is_alphanumeric) {
        let lead = piece.len() - piece.trim_start().len();
        let trail = piece.len() - piece.trim_end().len();
        out.push((start + lead, end - trail));
    }
}

/// Shortens text to at most `max` characters, on a character boundary, marking the cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max).collect();
    cut.push('…');
    cut
}

static CLAUSE_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sub-clauses?|clauses?|articles?)\s+(\d+(?:\.\d+)*)|第\s*(\d+(?:\.\d+)*|[一二三四五六七八九十百零]+)\s*[条款]").unwrap()
});

/// A reference to another clause found in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClauseRef {
    /// The clause referred to (`20.1`).
    pub target: String,
    /// The reference as written (`Sub-Clause 20.1`).
    pub text: String,
    /// Byte offset in the text.
    pub start: usize,
}

/// Every clause reference in `text` ("Sub-Clause 20.1", "Clause 14", "第4.1条", "第十四条").
pub fn clause_references(text: &str) -> Vec<ClauseRef> {
    CLAUSE_REF
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let target = match (c.get(1), c.get(2)) {
                (Some(n), _) => n.as_str().to_string(),
                (None, Some(n)) => match chinese_numeral(n.as_str()) {
                    Some(v) => v.to_string(),
                    None => n.as_str().to_string(),
                },
                _ => return None,
            };
            Some(ClauseRef {
                target,
                text: whole.as_str().to_string(),
                start: whole.start(),
            })
        })
        .collect()
}

static DEFINITION_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"["“]([^"”\n]{2,80})["”]\s*(?:means|shall mean|has the meaning|refers to|是指|系指|指)\s*"#).unwrap()
});

/// Defined terms in `text`: `"Term" means ...` / `“术语”是指……`, as (term, definition). A
/// definition runs to the end of its line or to the next definition, whichever comes first,
/// so definitions reflowed into one paragraph are still told apart.
pub fn definitions_in(text: &str) -> Vec<(String, String)> {
    let heads: Vec<_> = DEFINITION_HEAD.captures_iter(text).collect();
    heads
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let whole = c.get(0).expect("match");
            let next = heads
                .get(i + 1)
                .map_or(text.len(), |n| n.get(0).expect("match").start());
            let rest = &text[whole.end()..next];
            let definition = rest.split('\n').next().unwrap_or_default();
            (c[1].trim().to_string(), definition.trim().to_string())
        })
        .collect()
}

/// Defined terms of a document: those the parser recorded plus those found in its text.
pub(crate) fn document_definitions(doc: &DocumentStructure) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = doc
        .definitions
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for clause in doc.iter_clauses() {
        for (term, def) in definitions_in(&clause.text) {
            if !out.iter().any(|(t, _)| t == &term) {
                out.push((term, def));
            }
        }
    }
    out
}

/// Whether `text` uses `term` as a whole word (case-sensitive: defined terms are capitalised).
pub(crate) fn uses_term(text: &str, term: &str) -> bool {
    text.match_indices(term).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + term.len()..].chars().next();
        let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        !is_word(before) && !is_word(after)
    })
}

/// Whether any of `needles` (lower-case) occurs in `haystack` (already lower-cased).
pub(crate) fn contains_any(haystack: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| haystack.contains(n))
}

/// The first of `needles` found in `haystack` (already lower-cased).
pub(crate) fn first_of<'a>(haystack: &str, needles: &[&'a str]) -> Option<&'a str> {
    needles
        .iter()
        .filter_map(|n| haystack.find(n).map(|i| (i, *n)))
        .min_by_key(|(i, _)| *i)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_clause_numbers_whole() {
        let s = sentences("See Sub-Clause 20.1. The Contractor shall give notice; and pay.\n承包商应通知。发包人应付款");
        assert_eq!(
            s,
            [
                "See Sub-Clause 20.1.",
                "The Contractor shall give notice;",
                "and pay.",
                "承包商应通知。",
                "发包人应付款"
            ]
        );
    }

    #[test]
    fn references_in_both_languages() {
        let refs: Vec<String> =
            clause_references("under Sub-Clause 20.1 and Clause 14, 见第4.1条及第十四条")
                .into_iter()
                .map(|r| r.target)
                .collect();
        assert_eq!(refs, ["20.1", "14", "4.1", "14"]);
    }

    #[test]
    fn definitions_and_terms() {
        let defs = definitions_in("\"Cost\" means all expenditure.\n“工程”是指永久工程。");
        assert_eq!(
            defs,
            [
                ("Cost".to_string(), "all expenditure.".to_string()),
                ("工程".to_string(), "永久工程。".to_string())
            ]
        );
        assert!(uses_term("the Cost Plus Profit", "Cost"));
        assert!(!uses_term("Costs", "Cost"));
        assert_eq!(excerpt("a  b c", 3), "a b…");
    }
}
