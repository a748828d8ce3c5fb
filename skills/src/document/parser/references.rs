//! Cross references: clause numbers named in clause text, in English and Chinese.

use std::collections::HashSet;

use super::numbering::take_number;
use crate::document::model::{chinese_numeral, CrossReference, DocumentStructure};

/// A clause reference found in text: as written, and the clause id it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundReference {
    /// The reference as written (`Sub-Clause 20.1`, `第4.1条`).
    pub text: String,
    /// Normalised target id (`20.1`, `4.1`).
    pub target: String,
}

/// Finds references to clauses: `Sub-Clause 20.1`, `Clause 14`, `Clauses 4 and 5`,
/// `Article 5`, `Section 3.2`, `第4.1条`, `第十四条`.
pub fn find_references(text: &str) -> Vec<FoundReference> {
    let mut out = Vec::new();
    // ASCII lowercasing keeps every byte offset, so positions map back onto `text`.
    let lower = text.to_ascii_lowercase();
    let haystack = lower.as_str();
    const KEYWORDS: [&str; 8] = [
        "sub-clauses",
        "sub-clause",
        "clauses",
        "clause",
        "articles",
        "article",
        "sections",
        "section",
    ];
    let bytes = haystack.as_bytes();
    let mut i = 0;
    while i < haystack.len() {
        let prev_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'-';
        let keyword = if prev_ok {
            KEYWORDS.iter().find(|k| haystack[i..].starts_with(**k))
        } else {
            None
        };
        let Some(keyword) = keyword else {
            i += haystack[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut pos = i + keyword.len();
        let mut found_any = false;
        loop {
            let after = &text[pos..];
            let trimmed = after.trim_start();
            let Some((number, _)) = take_number(trimmed) else {
                break;
            };
            let start = pos + (after.len() - trimmed.len());
            let end = start + number.len();
            let written = if found_any {
                number.clone()
            } else {
                text[i..end].to_string()
            };
            out.push(FoundReference {
                text: written,
                target: number,
            });
            found_any = true;
            pos = end;
            let next = &text[pos..];
            let joiner = [", ", " and ", " or ", "、", "，", " to "]
                .iter()
                .find(|j| next.starts_with(**j));
            match joiner {
                Some(j) if keyword.ends_with('s') => pos += j.len(),
                _ => break,
            }
        }
        i = pos.max(i + keyword.len());
    }
    // Chinese: 第X条 / 第X款
    let mut rest = text;
    let mut base = 0;
    while let Some(start) = rest.find('第') {
        let inner_start = start + '第'.len_utf8();
        let candidate = &rest[inner_start..];
        let end = candidate
            .char_indices()
            .find(|(_, c)| {
                !(c.is_ascii_digit()
                    || *c == '.'
                    || chinese_numeral(&c.to_string()).is_some()
                    || matches!(c, '十' | '百' | '千'))
            })
            .map_or(candidate.len(), |(i, _)| i);
        let inner = &candidate[..end];
        let marker = candidate[end..].chars().next();
        if !inner.is_empty() && matches!(marker, Some('条')) {
            let target = if let Some(n) = chinese_numeral(inner) {
                Some(n.to_string())
            } else if inner.chars().all(|c| c.is_ascii_digit() || c == '.') {
                Some(inner.trim_end_matches('.').to_string())
            } else {
                None
            };
            if let Some(target) = target.filter(|t| !t.is_empty()) {
                let written_end = inner_start + end + '条'.len_utf8();
                out.push(FoundReference {
                    text: text[base + start..base + written_end].to_string(),
                    target,
                });
            }
        }
        base += inner_start;
        rest = &rest[inner_start..];
    }
    out
}

/// Every reference of every clause to another clause, marked valid when the target exists.
pub(crate) fn collect_cross_references(doc: &DocumentStructure) -> Vec<CrossReference> {
    let ids: HashSet<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    let mut out = Vec::new();
    for clause in doc.iter_clauses() {
        for found in find_references(&clause.text) {
            if found.target == clause.clause_id {
                continue;
            }
            out.push(CrossReference {
                source_clause_id: clause.clause_id.clone(),
                is_valid: ids.contains(found.target.as_str()),
                target_clause_id: found.target,
                reference_text: found.text,
            });
        }
    }
    out
}
