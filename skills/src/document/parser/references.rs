//! Cross references: clause numbers named in clause text, in English and Chinese, and their
//! resolution against every numbering style the parser knows.

use std::collections::HashMap;

use super::numbering::{fold_width, roman_value, take_number_with, MAX_LONG_NUMBER_DIGITS};
use crate::document::model::{chinese_numeral, Clause, CrossReference, DocumentStructure};
use crate::document::scope::own_number;
use crate::document::{ClauseIndex, Index};

/// A clause reference found in text: as written, and the clause id it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundReference {
    /// The reference as written (`Sub-Clause 20.1`, `第4.1条`, `Article V`).
    pub text: String,
    /// Normalised target id (`20.1`, `4.1`, `5` for `Article V`, `5.1(a)`).
    pub target: String,
    /// Byte offset of the reference in the text searched.
    pub start: usize,
}

impl FoundReference {
    /// The clause ids this reference may name, most exact first: the target as normalised,
    /// the same number without leading zeros (`5.01` -> `5.1`), and for an item of a clause
    /// (`5.1(a)`) the clause itself. A reference is broken only when none of them exists.
    pub fn candidates(&self) -> Vec<String> {
        reference_candidates(&self.target)
    }

    /// The first candidate that names a clause, by `lookup`.
    pub fn resolve<'d>(&self, lookup: impl Fn(&str) -> Option<&'d Clause>) -> Option<&'d Clause> {
        self.candidates().iter().find_map(|id| lookup(id))
    }

    /// Whether this reference, written in the clause `clause_id`, names that clause itself:
    /// its id, or its number in its scope (`Section 2.1` in `Schedule 2 para 2.1`).
    pub fn is_to_itself(&self, clause_id: &str) -> bool {
        self.target == clause_id || self.target == own_number(clause_id)
    }

    /// The clause this reference names when it is written in the clause `from`: every
    /// candidate in `from`'s own scope first (a schedule's `Section 2.2` is its own
    /// paragraph 2.2), then every candidate in the whole document.
    pub fn resolve_from<'d>(&self, doc: &Index<'d>, from: &str) -> Option<&'d Clause> {
        doc.first_of_from(from, &self.candidates())
    }

    /// The clause named, without the items of it the reference picks (`5.1(a)` -> `5.1`).
    pub fn clause(&self) -> &str {
        self.target
            .find('(')
            .map_or(self.target.as_str(), |i| &self.target[..i])
    }
}

/// See [`FoundReference::candidates`].
fn reference_candidates(target: &str) -> Vec<String> {
    let mut out = vec![target.to_string()];
    let mut push = |id: String| {
        if !id.is_empty() && !out.contains(&id) {
            out.push(id);
        }
    };
    push(without_leading_zeros(target));
    if let Some(i) = target.find('(') {
        let base = &target[..i];
        push(base.to_string());
        push(without_leading_zeros(base));
    }
    out
}

/// `5.01` -> `5.1`, `05` -> `5`; other text unchanged.
fn without_leading_zeros(id: &str) -> String {
    id.split('.')
        .map(|part| {
            let trimmed = part.trim_start_matches('0');
            if trimmed.is_empty() || !part.starts_with('0') {
                if part.chars().all(|c| c == '0') && !part.is_empty() {
                    "0"
                } else {
                    part
                }
            } else {
                trimmed
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Keywords that introduce a reference, with whether Roman numerals follow them.
const KEYWORDS: [(&str, bool); 10] = [
    ("sub-clauses", false),
    ("sub-clause", false),
    ("clauses", false),
    ("clause", false),
    ("articles", true),
    ("article", true),
    ("sections", false),
    ("section", false),
    ("paragraphs", false),
    ("paragraph", false),
];

/// Finds references to clauses, in the order they are written: `Sub-Clause 20.1`, `Clause 14`, `Clauses 4 and 5`,
/// `Article 5`, `Article V`, `Section 3.2`, `Clause 5.1(a)`, `Section 52.211-12`, `第4.1条`,
/// `第十四条`, `第一章`.
pub fn find_references(text: &str) -> Vec<FoundReference> {
    let mut out = Vec::new();
    // ASCII lowercasing keeps every byte offset, so positions map back onto `text`.
    let lower = text.to_ascii_lowercase();
    let haystack = lower.as_str();
    let bytes = haystack.as_bytes();
    let mut i = 0;
    while i < haystack.len() {
        let prev_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'-';
        let keyword = if prev_ok && matches!(bytes[i], b's' | b'c' | b'a' | b'p') {
            KEYWORDS.iter().find(|(k, _)| haystack[i..].starts_with(*k))
        } else {
            None
        };
        let Some((keyword, roman)) = keyword else {
            i += haystack[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut pos = i + keyword.len();
        let mut found_any = false;
        loop {
            let after = &text[pos..];
            let trimmed = after.trim_start_matches([' ', '\u{a0}']);
            if !found_any && trimmed.len() == after.len() {
                break;
            }
            let start = pos + (after.len() - trimmed.len());
            let Some((target, len)) = reference_number(trimmed, *roman) else {
                break;
            };
            let end = start + len;
            let written = if found_any {
                text[start..end].to_string()
            } else {
                text[i..end].to_string()
            };
            out.push(FoundReference {
                text: written,
                target,
                start: if found_any { start } else { i },
            });
            found_any = true;
            pos = end;
            let next = &text[pos..];
            let joiner = [", ", " and ", " or ", "、", "，", " to ", " through "]
                .iter()
                .find(|j| next.starts_with(**j));
            match joiner {
                Some(j) if keyword.ends_with('s') => pos += j.len(),
                _ => break,
            }
        }
        i = pos.max(i + keyword.len());
    }
    find_chinese_references(text, &mut out);
    // In the order they are written, whichever language.
    out.sort_by_key(|r| r.start);
    out
}

/// The clause number at the start of `text` after a keyword, normalised, and how many bytes
/// it takes: `5.1(a)(ii)`, `52.211-12`, `12A`, `V` (Roman, after `Article`).
fn reference_number(text: &str, roman: bool) -> Option<(String, usize)> {
    // After a keyword a long number is a clause (`Clause 10000`), not an amount.
    let number = take_number_with(text, MAX_LONG_NUMBER_DIGITS);
    let (mut target, mut len) = if let Some((number, rest)) = number {
        let mut len = number.len();
        let mut target = number;
        // A federal clause number: `52.211-12`.
        if let Some(digits) = rest.strip_prefix('-') {
            let n = digits.bytes().take_while(u8::is_ascii_digit).count();
            if target.contains('.') && (1..=4).contains(&n) {
                target.push('-');
                target.push_str(&digits[..n]);
                len += 1 + n;
            }
        }
        (target, len)
    } else if roman {
        let end = text
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(text.len());
        let token = &text[..end];
        // Only capital numerals: "Article I" is a reference, "article in" is not.
        if !token.bytes().all(|b| b.is_ascii_uppercase()) {
            return None;
        }
        (roman_value(token)?.to_string(), end)
    } else {
        return None;
    };
    // Items of the clause: `(a)`, `(ii)`, `(3)`.
    while let Some(rest) = text[len..].strip_prefix('(') {
        // An item never closed ("Clause 4.1 (as amended") ends the items, not the reference.
        // A label has at most four characters: look no further for its `)`, so a text of
        // unclosed brackets is not read to its end once per reference.
        let Some(close) = rest.bytes().take(6).position(|b| b == b')') else {
            break;
        };
        let label = &rest[..close];
        if label.is_empty() || label.len() > 4 || !label.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            break;
        }
        target.push('(');
        target.push_str(label);
        target.push(')');
        len += close + 2;
    }
    Some((target, len))
}

/// Chinese references: `第4.1条`, `第十四条`, `第１２条` (full-width), `第一章`, `第二节`.
fn find_chinese_references(text: &str, out: &mut Vec<FoundReference>) {
    let mut base = 0;
    while let Some(start) = text[base..].find('第') {
        let at = base + start;
        let inner_start = at + '第'.len_utf8();
        let candidate = &text[inner_start..];
        let end = candidate
            .char_indices()
            .find(|(_, c)| {
                !(c.is_ascii_digit()
                    || matches!(c, '.' | '．' | '０'..='９')
                    || chinese_numeral(&c.to_string()).is_some()
                    || matches!(c, '十' | '百' | '千'))
            })
            .map_or(candidate.len(), |(i, _)| i);
        let inner = fold_width(&candidate[..end]).into_owned();
        let marker = candidate[end..].chars().next();
        let kind = match marker {
            Some('条') => Some(""),
            Some('章') => Some("章"),
            Some('节') => Some("节"),
            _ => None,
        };
        if let (false, Some(kind)) = (inner.is_empty(), kind) {
            let number = if let Some(n) = chinese_numeral(&inner) {
                Some(n.to_string())
            } else if inner.chars().all(|c| c.is_ascii_digit() || c == '.') {
                Some(inner.trim_end_matches('.').to_string())
            } else {
                None
            };
            if let Some(number) = number.filter(|t| !t.is_empty()) {
                let written_end = inner_start + end + marker.map_or(0, char::len_utf8);
                let target = if kind.is_empty() {
                    number
                } else {
                    format!("第{number}{kind}")
                };
                out.push(FoundReference {
                    text: text[at..written_end].to_string(),
                    target,
                    start: at,
                });
            }
        }
        base = inner_start;
    }
}

/// Every reference of every clause to another clause, marked valid when one of its
/// [`FoundReference::candidates`] exists, in the referring clause's own scope first (see
/// [`FoundReference::resolve_from`]); a valid reference names the clause it resolved to.
pub(crate) fn collect_cross_references(doc: &DocumentStructure) -> Vec<CrossReference> {
    let tables = ClauseIndex::build(doc);
    let index = Index::new(doc, &tables);
    let mut by_plain_number: HashMap<String, &Clause> = HashMap::new();
    for clause in doc.iter_clauses() {
        let plain = without_leading_zeros(&clause.clause_id);
        if plain != clause.clause_id {
            by_plain_number.entry(plain).or_insert(clause);
        }
    }
    let mut out = Vec::new();
    for clause in doc.iter_clauses() {
        for found in find_references(&clause.text) {
            if found.is_to_itself(&clause.clause_id) {
                continue;
            }
            // `Section 5.1` names a clause written `5.01` too.
            let resolved = found
                .resolve_from(&index, &clause.clause_id)
                .or_else(|| found.resolve(|id| by_plain_number.get(id).copied()));
            out.push(CrossReference {
                source_clause_id: clause.clause_id.clone(),
                is_valid: resolved.is_some(),
                target_clause_id: resolved.map_or(found.target, |c| c.clause_id.clone()),
                reference_text: found.text,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<String> {
        find_references(text)
            .into_iter()
            .map(|r| r.target)
            .collect()
    }

    #[test]
    fn references_in_every_style() {
        assert_eq!(
            targets("See Section 6, Clause 5.1(a)(ii), Article V and Sections 4.01 and 4.02."),
            ["6", "5.1(a)(ii)", "5", "4.01", "4.02"]
        );
        assert_eq!(
            targets("under clause 52.211-12 and Article 12A; the article in question"),
            ["52.211-12", "12A"]
        );
        assert_eq!(
            targets("按第5条、第五条、第１２条及第一章"),
            ["5", "5", "12", "第1章"]
        );
    }

    #[test]
    fn an_item_never_closed_keeps_the_reference() {
        assert_eq!(
            targets("as set out in Clause 4.1 (as amended and in Clause 7(b)"),
            ["4.1", "7(b)"]
        );
    }

    #[test]
    fn candidates_fall_back_to_the_clause_and_plain_numbers() {
        let found = FoundReference {
            text: "Section 5.01(a)".into(),
            target: "5.01(a)".into(),
            start: 0,
        };
        assert_eq!(found.clause(), "5.01");
        assert_eq!(found.candidates(), ["5.01(a)", "5.1(a)", "5.01", "5.1"]);
        assert_eq!(without_leading_zeros("10.0"), "10.0");
    }
}
