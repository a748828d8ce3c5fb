//! Definitions: quoted terms followed by a defining word (`"Contract Price" means ...`,
//! `“合同价格”是指……`).

use std::collections::BTreeMap;

use super::lines::clean_line;

const OPEN_QUOTES: [char; 4] = ['"', '“', '「', '『'];
const CLOSE_QUOTES: [char; 4] = ['"', '”', '」', '』'];
const DEFINING_WORDS: [&str; 8] = [
    "means",
    "shall mean",
    "mean",
    "is defined as",
    "has the meaning",
    "是指",
    "系指",
    "指",
];

/// Finds definitions such as `"Contract Price" means ...` and `“合同价格”是指……`.
pub(crate) fn extract_definitions(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = clean_line(line);
        for (term, after) in quoted_terms(line) {
            let rest = after.trim_start_matches(['*', ' ', '\u{3000}']);
            let lower = rest.to_lowercase();
            let Some(word) = DEFINING_WORDS.iter().find(|w| lower.starts_with(**w)) else {
                continue;
            };
            let definition = rest[word.len()..]
                .trim_start_matches([':', '：', ',', '，'])
                .trim()
                .trim_end_matches([';', '；', '.', '。'])
                .trim();
            if !definition.is_empty() {
                out.entry(term.to_string())
                    .or_insert_with(|| definition.to_string());
            }
        }
    }
    out
}

/// Every quoted term in a line (1 to 80 characters, no line breaks) and the text after it.
pub(crate) fn quoted_terms(line: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
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
        let after = &rest[inner_start + len + close_len..];
        if !term.is_empty() && term.chars().count() <= 80 {
            out.push((term, after));
        }
        rest = after;
    }
    out
}
