//! Plain-text helpers shared by the skills and the review: whole-word matching, sentence
//! splitting and cutting text to a length, for English and Chinese.

/// Whether a character is a CJK ideograph (Chinese text).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
}

/// Every term of a fixed list, found in a text in one pass: the defined terms of a document,
/// looked for in each of its clauses. Matching is as [`contains_term`]'s (whole words, any
/// position for Chinese terms), but the cost is the length of the text, not the length of the
/// text times the number of terms, which made reviews of long contracts quadratic.
#[derive(Debug)]
pub(crate) struct TermIndex {
    terms: Vec<String>,
    automaton: Option<aho_corasick::AhoCorasick>,
}

impl TermIndex {
    /// Indexes the non-empty terms.
    pub(crate) fn new<'t>(terms: impl IntoIterator<Item = &'t String>) -> Self {
        let terms: Vec<String> = terms
            .into_iter()
            .filter(|t| !t.is_empty())
            .cloned()
            .collect();
        let automaton = aho_corasick::AhoCorasick::new(&terms)
            .map_err(|err| tracing::warn!(error = %err, "term index not built; terms are searched one by one"))
            .ok();
        Self { terms, automaton }
    }

    /// The indexed terms that occur in `text`, each once.
    pub(crate) fn found_in(&self, text: &str) -> std::collections::BTreeSet<&str> {
        let Some(automaton) = &self.automaton else {
            return self
                .terms
                .iter()
                .filter(|t| contains_term(text, t))
                .map(String::as_str)
                .collect();
        };
        let mut found = std::collections::BTreeSet::new();
        for m in automaton.find_overlapping_iter(text) {
            let term = &self.terms[m.pattern().as_usize()];
            if found.contains(term.as_str()) {
                continue;
            }
            let whole_word = term.chars().any(is_cjk)
                || (text[..m.start()]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
                    && text[m.end()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric()));
            if whole_word {
                found.insert(term.as_str());
            }
        }
        found
    }
}

/// Whether `term` occurs in `text` as a whole word (any position for Chinese terms).
pub(crate) fn contains_term(text: &str, term: &str) -> bool {
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
pub(crate) fn sentences(text: &str) -> Vec<&str> {
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
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// `n` in upper-case Roman numerals (`1..4000`), the one writer both Word's numbering formats
/// and the clause parser's canonical-numeral check use.
pub(crate) fn roman_numeral(mut n: u32) -> String {
    const TABLE: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, symbol) in TABLE {
        while n >= value {
            out.push_str(symbol);
            n -= value;
        }
    }
    out
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
