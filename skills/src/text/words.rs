//! Whole-word matching for English and Chinese: a term matches where the characters around
//! it are not letters or digits (any script), and a Chinese term matches anywhere.

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
    fn terms_match_whole_words_only() {
        assert!(contains_term("the Contract Price is", "Contract Price"));
        assert!(!contains_term("the Contractors", "Contractor"));
        assert!(!contains_term("Costs", "Cost"));
        assert!(
            !contains_term("Costé", "Cost"),
            "a letter of any script is part of the word"
        );
        assert!(contains_term("the Cost Plus Profit", "Cost"));
        assert!(contains_term("本合同价格为", "合同价格"));
        assert!(!contains_term("", "x"));
        let index = TermIndex::new(&["Cost".to_string(), "工程".to_string()]);
        assert_eq!(
            index
                .found_in("Costs of the 工程; Cost")
                .into_iter()
                .collect::<Vec<_>>(),
            ["Cost", "工程"]
        );
    }

    #[test]
    fn first_of_finds_the_earliest() {
        assert_eq!(
            first_of(
                "subject to disclosure, so far as aware",
                &["aware", "disclos"]
            ),
            Some("disclos")
        );
        assert!(contains_any("a b", &["b"]));
    }
}
