//! The text toolkit of the library: the one owner of sentences, enumerations, clause
//! references, definitions and word matching, for English and Chinese. Skills, the
//! provision scan and the parser read text only through it; FIDIC wording (time-bar
//! cues, standard periods) stays with the FIDIC skills.
//!
//! | module | what it owns |
//! |---|---|
//! | `words` | whole-word matching (Unicode letters, CJK terms anywhere), term indexes |
//! | `sentences` | the one sentence splitter: by lines ([`sentences`]), joining broken lines, or as the classifier's units ([`sentence_units`]) |
//! | `enumeration` | list items `(a)`, `(i)`, `(1)`, `（一）`, `1)`, displayed or inline ([`enumerated_items`]) |
//! | `definitions` | `"Term" means ...` / `“术语”是指……` ([`definitions_in`]) |
//!
//! Clause references are found by [`crate::document::find_references`], next to their
//! resolution against a document's numbering.

pub(crate) mod definitions;
mod enumeration;
mod sentences;
mod words;

pub use definitions::definitions_in;
pub(crate) use enumeration::cited_labels;
pub use enumeration::enumerated_items;
pub(crate) use sentences::{continues, joined_sentences, sentence_spans, Sentence};
pub use sentences::{sentence_units, sentences};
pub(crate) use words::{contains_any, contains_term, first_of, is_cjk, TermIndex};

/// Shortens text to at most `max` characters with its whitespace collapsed, marking the cut.
/// Reads only the words it keeps (and one more), so an excerpt of a long text costs the
/// excerpt, not the text.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let mut collapsed = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > max {
            break;
        }
        if !collapsed.is_empty() {
            collapsed.push(' ');
            chars += 1;
        }
        collapsed.push_str(word);
        chars += word.chars().count();
    }
    truncate_chars(&collapsed, max)
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
    fn truncation_respects_char_boundaries() {
        assert_eq!(truncate_chars("合同价格", 2), "合同…");
        assert_eq!(truncate_chars("abc", 5), "abc");
        assert_eq!(excerpt("a  b c", 3), "a b…");
        assert_eq!(excerpt(" a  b c ", 5), "a b c");
        assert_eq!(excerpt("a  b c", 4), "a b …");
        assert_eq!(excerpt("", 4), "");
        let long = "word ".repeat(100_000);
        assert_eq!(excerpt(&long, 9), "word word…");
    }
}
