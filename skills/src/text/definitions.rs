//! Definitions: quoted terms followed by a defining word (`"Contract Price" means ...`,
//! `“合同价格”是指……`), the one reader the parser and the skills share.

use std::collections::BTreeMap;

const OPEN_QUOTES: [char; 4] = ['"', '“', '「', '『'];
const CLOSE_QUOTES: [char; 4] = ['"', '”', '」', '』'];
const DEFINING_WORDS: [&str; 9] = [
    "means",
    "shall mean",
    "mean",
    "is defined as",
    "has the meaning",
    "refers to",
    "是指",
    "系指",
    "指",
];
/// More characters than the longest of [`DEFINING_WORDS`].
const DEFINING_WORD_MAX_CHARS: usize = 20;

/// Every definition of `text`, such as `"Contract Price" means ...` and `“合同价格”是指……`,
/// in order, as (term, definition). A definition runs to the end of its line or to the next
/// definition in the line, whichever comes first (definitions reflowed into one paragraph
/// are still told apart), without its closing punctuation.
pub fn definitions_in(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = clean_line(line);
        // (term, where its definition starts, where the term's quote starts)
        let mut heads: Vec<(&str, usize, usize)> = Vec::new();
        for (quote_start, term, after) in quoted_terms_at(line) {
            let rest = after.trim_start_matches(['*', ' ', '\u{3000}']);
            // The defining word starts the rest: lower-case only as much as the longest
            // one, not the rest of the line once per quoted term.
            let head = rest
                .char_indices()
                .nth(DEFINING_WORD_MAX_CHARS)
                .map_or(rest, |(at, _)| &rest[..at]);
            let lower = head.to_lowercase();
            let Some(word) = DEFINING_WORDS.iter().find(|w| lower.starts_with(**w)) else {
                continue;
            };
            heads.push((term, line.len() - rest.len() + word.len(), quote_start));
        }
        for (i, &(term, body_start, _)) in heads.iter().enumerate() {
            let end = heads.get(i + 1).map_or(line.len(), |h| h.2.max(body_start));
            let definition = line[body_start..end]
                .trim_start_matches([':', '：', ',', '，'])
                .trim()
                .trim_end_matches([';', '；', '.', '。'])
                .trim();
            if !definition.is_empty() {
                out.push((term.to_string(), definition.to_string()));
            }
        }
    }
    out
}

/// The definitions of `text` by term, the first definition of a term winning.
pub(crate) fn extract_definitions(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (term, definition) in definitions_in(text) {
        out.entry(term).or_insert(definition);
    }
    out
}

/// A line without surrounding space and Markdown heading or bold markers.
fn clean_line(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches('#').trim();
    let line = line.strip_prefix("**").unwrap_or(line);
    line.trim()
}

/// Every quoted term in a line (1 to 80 characters, no line breaks) and the text after it.
pub(crate) fn quoted_terms(line: &str) -> Vec<(&str, &str)> {
    quoted_terms_at(line)
        .into_iter()
        .map(|(_, term, after)| (term, after))
        .collect()
}

/// [`quoted_terms`] with the byte offset of each opening quote.
fn quoted_terms_at(line: &str) -> Vec<(usize, &str, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut rest = line;
    while let Some(start) = rest.find(OPEN_QUOTES) {
        let open = rest[start..].chars().next().unwrap_or('"');
        let inner_start = start + open.len_utf8();
        let Some(len) = rest[inner_start..].find(CLOSE_QUOTES) else {
            break;
        };
        let term = rest[inner_start..inner_start + len].trim();
        let close_len = rest[inner_start + len..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        let consumed = inner_start + len + close_len;
        let after = &rest[consumed..];
        if !term.is_empty() && term.chars().count() <= 80 {
            out.push((offset + start, term, after));
        }
        offset += consumed;
        rest = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_in_both_languages_and_in_one_line() {
        assert_eq!(
            definitions_in("\"Cost\" means all expenditure.\n“工程”是指永久工程。\n\"Day\" means a calendar day; \"Month\" refers to a calendar month."),
            [
                ("Cost".to_string(), "all expenditure".to_string()),
                ("工程".to_string(), "永久工程".to_string()),
                ("Day".to_string(), "a calendar day".to_string()),
                ("Month".to_string(), "a calendar month".to_string()),
            ]
        );
        assert_eq!(
            extract_definitions("\"A\" means x.\n\"A\" means y.")["A"],
            "x"
        );
        assert!(DEFINING_WORDS
            .iter()
            .all(|w| w.chars().count() < DEFINING_WORD_MAX_CHARS));
        assert_eq!(
            definitions_in("\"Fee\" HAS THE MEANING given in Clause 4"),
            [("Fee".to_string(), "given in Clause 4".to_string())]
        );
    }
}
