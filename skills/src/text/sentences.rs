//! The one sentence splitter, for English and Chinese.
//!
//! A sentence ends at `。`, `；`, `！`, `？`, `;`, or a full stop followed by a space or the end
//! of the text, but not after an abbreviation (`Ltd.`, `No.`, `e.g.`) nor inside a number
//! (`2.5`, `20.1`). Line breaks are read one of two ways:
//!
//! - by lines ([`sentences`], [`sentence_spans`]): a line break ends a sentence, so each item
//!   of a displayed list and each heading is one sentence;
//! - joined ([`joined_sentences`]): a line break inside a paragraph is a space (PDF and Word
//!   extractions break lines anywhere), a blank line ends the sentence, and a clause number
//!   or a single letter before a full stop (`4.`, `A.`) is a label, not an ending;
//! - as the classifier's units ([`sentence_units`]): Unicode (UAX #29) sentence boundaries
//!   inside each line, pieces shorter than 40 bytes joined to the next, pieces longer than
//!   600 bytes cut after their semicolons. The embedded provision model was trained on
//!   these units (its features are their words), so this reading changes only with a
//!   retrained model.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;

/// Units shorter than this (bytes) are joined to the next one: list labels, "(a)", stray
/// numbers ([`sentence_units`]).
const MIN_UNIT: usize = 40;
/// Units longer than this (bytes) are cut after their semicolons: long enumerations
/// ([`sentence_units`]).
const MAX_UNIT: usize = 600;

/// A sentence with its lower-cased form, whitespace collapsed (from [`joined_sentences`]).
pub(crate) struct Sentence {
    /// The words as written, whitespace collapsed.
    pub text: String,
    /// `text` lower-cased.
    pub lower: String,
}

/// How line breaks are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breaks {
    /// A line break ends a sentence.
    Lines,
    /// A line break is a space; a blank line ends a sentence.
    Joined,
}

/// Splits text into sentences (and `;`-separated list items), one line at most each,
/// trimmed, without pieces that hold no letter or digit.
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text)
        .into_iter()
        .map(|(s, e)| &text[s..e])
        .collect()
}

/// Byte ranges of the sentences of `text` (see [`sentences`]).
pub(crate) fn sentence_spans(text: &str) -> Vec<(usize, usize)> {
    spans(text, Breaks::Lines)
}

/// Splits text into sentences with broken lines joined (see the module doc), each with
/// whitespace collapsed and at least three letters or digits.
pub(crate) fn joined_sentences(text: &str) -> Vec<Sentence> {
    spans(text, Breaks::Joined)
        .into_iter()
        .filter_map(|(s, e)| {
            let text = text[s..e].split_whitespace().collect::<Vec<_>>().join(" ");
            (text.chars().filter(|c| c.is_alphanumeric()).count() >= 3).then(|| Sentence {
                lower: text.to_lowercase(),
                text,
            })
        })
        .collect()
}

/// The sentence boundaries of `text`, trimmed, each holding a letter or digit.
fn spans(text: &str, breaks: Breaks) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    // The last character before `pos` that is not a space, and where the spaces after the
    // last line break looked at end: kept as the text is read, so a run of blank lines is
    // not read again from each of its line breaks.
    let mut last_visible: Option<char> = None;
    let mut spaces_end = 0;
    while let Some((pos, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let end = pos + c.len_utf8();
        let ends = match c {
            '。' | '；' | '！' | '？' | ';' => true,
            '\n' => match breaks {
                Breaks::Lines => {
                    if spaces_end <= end {
                        let rest = &text[end..];
                        spaces_end = end + rest.len() - rest.trim_start().len();
                    }
                    !continues_after(last_visible, &text[spaces_end..])
                }
                // A blank line (only spaces between two line breaks) ends a paragraph.
                Breaks::Joined => {
                    text[end..]
                        .chars()
                        .find(|c| !matches!(c, ' ' | '\t' | '\r'))
                        == Some('\n')
                }
            },
            '.' => {
                let current = &text[start..end];
                next.is_none_or(char::is_whitespace)
                    && !ends_with_abbreviation(current, breaks)
                    && (breaks == Breaks::Lines || current.trim().chars().nth(3).is_some())
            }
            _ => false,
        };
        // Joined text ends a sentence only once it has some length: "(a) Cost." is a label
        // and a word more often than a sentence.
        let long_enough = || {
            breaks == Breaks::Lines
                || c == '\n'
                || text[start..end].trim().chars().nth(12).is_some()
        };
        if ends && long_enough() {
            push_span(text, &mut out, start, end);
            start = end;
        }
        if !c.is_whitespace() {
            last_visible = Some(c);
        }
    }
    push_span(text, &mut out, start, text.len());
    out
}

/// Whether the line after `rest` continues the sentence of the line before (`head`): the
/// line before ends without punctuation and the next one (past blank lines) starts in lower
/// case, as a sentence broken by a PDF or Word line wrap does. A list item or a heading
/// starts with a label or a capital and stays a line of its own.
pub(crate) fn continues(head: &str, rest: &str) -> bool {
    continues_after(head.trim_end().chars().next_back(), rest.trim_start())
}

/// [`continues`] from the last visible character of the line before and the next line
/// without its leading spaces.
fn continues_after(last: Option<char>, rest: &str) -> bool {
    let ends_open =
        last.is_some_and(|c| c.is_alphanumeric() || matches!(c, ',' | '，' | ')' | '-'));
    // `b) five`: a list label, not the rest of a sentence.
    let head: String = rest.chars().take(4).collect();
    let label = head
        .split_once(')')
        .is_some_and(|(l, _)| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric()));
    ends_open && !label && rest.chars().next().is_some_and(|c| c.is_lowercase())
}

/// `text` as logical lines: lines broken inside a sentence (see [`continues`]) joined with
/// a space, blank lines dropped.
pub(crate) fn logical_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if open && continues(last, line) => {
                last.push(' ');
                last.push_str(line);
            }
            _ => out.push(line.to_string()),
        }
        open = true;
    }
    out
}

fn push_span(text: &str, out: &mut Vec<(usize, usize)>, start: usize, end: usize) {
    if text[start..end].chars().any(char::is_alphanumeric) {
        let trimmed = trimmed(text, start..end);
        out.push((trimmed.start, trimmed.end));
    }
}

/// `range` of `text` without the whitespace at either end (empty where it holds only
/// whitespace).
fn trimmed(text: &str, range: Range<usize>) -> Range<usize> {
    let piece = &text[range.clone()];
    let start = range.start + (piece.len() - piece.trim_start().len());
    let end = range.start + piece.trim_end().len();
    start..end.max(start)
}

/// Byte ranges of the classifier's units of a clause text (see the module doc): the
/// sentences it scores, as its model was trained on them.
pub fn sentence_units(text: &str) -> Vec<Range<usize>> {
    let mut raw: Vec<Range<usize>> = Vec::new();
    let mut line_start = 0;
    for line in text.split('\n') {
        for (offset, piece) in line.split_sentence_bound_indices() {
            let start = line_start + offset;
            cut_long(text, trimmed(text, start..start + piece.len()), &mut raw);
        }
        line_start += line.len() + 1;
    }
    raw.retain(|r| text[r.clone()].chars().any(char::is_alphanumeric));
    // Join short pieces to the next one (or, for the last, to the one before).
    let mut out: Vec<Range<usize>> = Vec::with_capacity(raw.len());
    let mut pending: Option<usize> = None;
    for range in raw {
        let start = pending.take().unwrap_or(range.start);
        if range.end - start < MIN_UNIT {
            pending = Some(start);
            continue;
        }
        out.push(start..range.end);
    }
    if let Some(start) = pending {
        match out.last_mut() {
            Some(last) => last.end = text.trim_end().len().max(last.end),
            None => out.push(start..text.trim_end().len()),
        }
    }
    out
}

/// Pushes `range`, cut after its semicolons into pieces of [`MIN_UNIT`] bytes or more when
/// it is longer than [`MAX_UNIT`].
fn cut_long(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    if range.len() <= MAX_UNIT {
        out.push(range);
        return;
    }
    let mut start = range.start;
    for (i, _) in text[range.clone()].match_indices("; ") {
        let end = range.start + i + 1;
        if end - start >= MIN_UNIT {
            out.push(start..end);
            start = end + 1;
        }
    }
    if start < range.end {
        out.push(start..range.end);
    }
}

/// Whether the full stop ending `current` closes an abbreviation ("Inc.", "Ltd.", "No.",
/// "e.g."), or, in joined text, a clause number or single letter ("4.", "A.").
fn ends_with_abbreviation(current: &str, breaks: Breaks) -> bool {
    let last = current
        .trim_end_matches('.')
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    // Every abbreviation is short: longer words are not lower-cased at all.
    // Lower-cased in place on the stack: this runs at every full stop of every text.
    let mut buf = [0u8; 5];
    let lower = match buf.get_mut(..last.len()) {
        Some(short) => {
            short.copy_from_slice(last.as_bytes());
            short.make_ascii_lowercase();
            std::str::from_utf8(short).unwrap_or("")
        }
        None => "",
    };
    let named = matches!(
        lower,
        "inc"
            | "ltd"
            | "co"
            | "corp"
            | "no"
            | "nos"
            | "e.g"
            | "i.e"
            | "u.s"
            | "mr"
            | "ms"
            | "dr"
            | "art"
            | "sec"
            | "para"
            | "st"
            | "s.a"
            | "n.v"
            | "b.v"
            | "l.p"
            | "etc"
            | "vs"
            | "p.r.c"
            | "prc"
    );
    named
        || (breaks == Breaks::Joined
            && ((!last.is_empty() && last.chars().all(|c| c.is_ascii_digit() || c == '.'))
                || (last.chars().count() == 1 && last.chars().all(char::is_alphabetic))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_clause_numbers_decimals_and_abbreviations_whole() {
        assert_eq!(
            sentences("See Sub-Clause 20.1. The Contractor shall give notice; and pay.\n承包商应通知。发包人应付款"),
            [
                "See Sub-Clause 20.1.",
                "The Contractor shall give notice;",
                "and pay.",
                "承包商应通知。",
                "发包人应付款"
            ]
        );
        assert_eq!(
            sentences("Pay 2.5 million to Acme Ltd. within 7 days. Then stop"),
            ["Pay 2.5 million to Acme Ltd. within 7 days.", "Then stop"]
        );
        assert!(sentences(" ; \n—").is_empty());
        assert_eq!(
            sentences("Either party\n\nmay terminate by notice.\nThe Buyer pays"),
            ["Either party\n\nmay terminate by notice.", "The Buyer pays"],
            "a line broken inside a sentence is joined"
        );
        assert_eq!(
            logical_lines("(a) one\n(b) two and\nthree.\n\nNext"),
            ["(a) one", "(b) two and three.", "Next"]
        );
    }

    #[test]
    fn blank_lines_are_read_once() {
        // Each line break used to look back and forward over every blank line around it.
        let text = format!(
            "The Buyer shall pay{}and the Seller deliver.",
            "\n \n".repeat(50_000)
        );
        assert_eq!(sentences(&text), [text.as_str()]);
        let text = format!("One.{}Two", "\n\n".repeat(50_000));
        assert_eq!(sentences(&text), ["One.", "Two"]);
        assert_eq!(sentences("a\n\n  \n b"), ["a\n\n  \n b"]);
        assert_eq!(sentences("a\n\n  \n B"), ["a", "B"]);
    }

    #[test]
    fn joined_sentences_mend_broken_lines() {
        let found = joined_sentences(
            "The Seller shall indemnify the Buyer\nagainst all Losses. 4. Termination\n\nEither party may end it.",
        );
        let texts: Vec<&str> = found.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "The Seller shall indemnify the Buyer against all Losses.",
                "4. Termination",
                "Either party may end it."
            ]
        );
        assert_eq!(found[2].lower, "either party may end it.");
    }

    #[test]
    fn units_are_cut_at_boundaries_and_short_pieces_joined() {
        let text = "(a) The Supplier shall deliver the goods on time. The Buyer shall pay within thirty days of invoice.\n(b)\nEach party shall keep the other's information confidential.";
        let ranges = sentence_units(text);
        let pieces: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            pieces,
            [
                "(a) The Supplier shall deliver the goods on time.",
                "The Buyer shall pay within thirty days of invoice.",
                "(b)\nEach party shall keep the other's information confidential."
            ]
        );
    }

    #[test]
    fn long_enumerations_are_cut_into_units_after_semicolons() {
        let item = "the Licensee shall not copy, modify or distribute the Software to anyone";
        let text = [item; 12].join("; ");
        let ranges = sentence_units(&text);
        assert!(ranges.len() >= 10, "{ranges:?}");
        assert!(ranges.iter().all(|r| r.len() <= MAX_UNIT));
    }
}
