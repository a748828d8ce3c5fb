//! Numbering recognition: which lines are clause headings, in which style, and what the
//! clause number is.
//!
//! Each numbering style is one recogniser in [`RECOGNISERS`], tried in order on every
//! cleaned line; the first that returns a [`Heading`] wins. A style that recognises a line
//! must never overlap with a later one (each starts with different characters: a keyword,
//! `第`, a digit), so their order only matters for speed. A new style is a new function
//! with the same signature, added to the list.

use crate::document::model::chinese_numeral;
use crate::text::is_cjk;

/// A clause heading recognised on a line.
#[derive(Debug)]
pub(crate) struct Heading {
    /// Normalised clause number (`4.1`, `14` for `第十四条`).
    pub(crate) id: String,
    /// Heading text, empty when the line has none.
    pub(crate) title: String,
    /// Text on the heading line that is body, not title (`4.1 The Contractor shall ...`).
    pub(crate) inline_text: String,
    /// Which numbering style recognised it (`fidic`, `numbered`, `article`, `chinese`).
    pub(crate) style: &'static str,
}

/// Recognises one numbering style at the start of a cleaned line.
type Recogniser = fn(&str) -> Option<Heading>;

/// The numbering styles, in the order they are tried.
const RECOGNISERS: [Recogniser; 3] = [keyword_heading, chinese_heading, number_heading];

/// Recognises a clause heading at the start of a (cleaned) line.
pub(crate) fn parse_heading(line: &str) -> Option<Heading> {
    if line.is_empty() {
        return None;
    }
    RECOGNISERS.iter().find_map(|recognise| recognise(line))
}

/// `Sub-Clause 20.1 Title`, `Clause 14 Title`, `Article 5`, `Section 3`.
fn keyword_heading(line: &str) -> Option<Heading> {
    let lower = line.to_ascii_lowercase();
    for (prefix, style) in [
        ("sub-clause", "fidic"),
        ("subclause", "fidic"),
        ("clause", "numbered"),
        ("article", "article"),
        ("section", "numbered"),
    ] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            if !rest.starts_with(' ') {
                continue;
            }
            let offset = line.len() - rest.len();
            let after = line[offset..].trim_start();
            let (number, tail) = take_number(after)?;
            if tail.starts_with(|c: char| c.is_alphanumeric()) {
                return None;
            }
            // "Clause 14 shall apply ..." is a sentence, not a heading.
            let title = tail
                .trim_start_matches(['.', ':', '：', ' ', '-', '–'])
                .trim();
            if !title.is_empty() && !title.starts_with('[') && !looks_like_title(title) {
                return None;
            }
            return Some(make_heading(number, tail, style));
        }
    }
    None
}

/// `第一条 标题`, `第4.1条` (章 and 节 are not clauses).
fn chinese_heading(line: &str) -> Option<Heading> {
    let rest = line.strip_prefix('第')?;
    let end = rest.find(['条', '章', '节'])?;
    let marker = rest[end..].chars().next()?;
    if marker != '条' {
        return None;
    }
    let inner = &rest[..end];
    let id = if let Some(n) = chinese_numeral(inner) {
        n.to_string()
    } else if !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit() || c == '.') {
        inner.trim_end_matches('.').to_string()
    } else {
        return None;
    };
    let tail = &rest[end + marker.len_utf8()..];
    Some(make_heading(id, tail, "chinese"))
}

/// `4.1.2 Title`, `4.1 The Contractor shall ...`, `1. Title`, `14 Title`.
fn number_heading(line: &str) -> Option<Heading> {
    let (number, tail) = take_number(line)?;
    // `4.1 The Contractor shall ...` is a clause with its text on the heading line; a plain
    // `1.` or `14` must be followed by a title, so list items (`1. The Contractor shall
    // pay.`) and sentences (`14 days after ...`) stay body text.
    let dotted = number.contains('.');
    let tail_trimmed = tail.trim_start_matches(['.', ')', ' ', '\t', '、']).trim();
    if tail_trimmed.is_empty() || !tail.starts_with(['.', ' ', '\t', '、', '\u{3000}']) {
        return None;
    }
    // A bare number ("14 Days after ...") is a heading only when what follows looks like a
    // title: short, capitalised or Chinese, and not a sentence.
    if !dotted && (number.len() > 3 || !looks_like_title(tail_trimmed)) {
        return None;
    }
    Some(make_heading(number, tail_trimmed, "numbered"))
}

/// Splits `4.1.2 rest` into (`4.1.2`, ` rest`); a trailing dot is not part of the number.
pub(crate) fn take_number(text: &str) -> Option<(String, &str)> {
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(text.len(), |(i, _)| i);
    let number = text[..end].trim_end_matches('.');
    if number.is_empty()
        || !number.starts_with(|c: char| c.is_ascii_digit())
        || number.contains("..")
    {
        return None;
    }
    if number.split('.').any(|part| part.len() > 4) {
        return None;
    }
    Some((number.to_string(), &text[number.len()..]))
}

fn looks_like_title(text: &str) -> bool {
    let first = text.chars().next().unwrap_or(' ');
    text.chars().count() <= 80
        && !text.ends_with(['.', '。', ';', '；', ','])
        && (first.is_uppercase() || is_cjk(first))
}

fn make_heading(id: String, tail: &str, style: &'static str) -> Heading {
    let tail = tail
        .trim_start_matches(['.', ':', '：', ')', '、'])
        .trim()
        .trim_end_matches("**")
        .trim();
    let tail = tail
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(tail);
    let (title, inline_text) = if tail.is_empty() {
        (String::new(), String::new())
    } else if looks_like_title(tail) {
        (tail.to_string(), String::new())
    } else {
        (String::new(), tail.to_string())
    };
    Heading {
        id,
        title,
        inline_text,
        style,
    }
}

/// The document's numbering style: the most frequent of `fidic`, `chinese` and `article`
/// headings, else `numbered`.
pub(crate) fn structure_type_of(flat: &[(Heading, Vec<&str>)]) -> &'static str {
    let count = |style: &str| flat.iter().filter(|(h, _)| h.style == style).count();
    let candidates = [
        ("fidic", count("fidic")),
        ("chinese", count("chinese")),
        ("article", count("article")),
    ];
    candidates
        .iter()
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(_, n)| *n)
        .map_or("numbered", |(style, _)| style)
}
