//! Reads contracts written as plain text or Markdown into a [`DocumentStructure`].
//!
//! Headings are recognised line by line: `Sub-Clause 20.1 Title`, `Clause 14 Title`,
//! `Article 5`, `Section 3`, `4.1.2 Title`, `1. Title`, `第一条 标题`, `第4.1条`, with Markdown
//! decoration (`#`, `**`) removed. A clause becomes the child of the nearest earlier clause
//! whose number is a prefix of its own (`4.1` under `4`). Text that has no heading at all is
//! split into paragraphs `P1`, `P2`, ... so reference material stays searchable.
//!
//! One module per step: [`numbering`] recognises headings (one recogniser per numbering
//! style), [`lines`] cleans and reflows lines, [`tree`] nests clauses, [`definitions`] and
//! [`references`] read definitions and cross references from the text, and [`json`]
//! completes documents given as JSON.

mod json;
mod lines;
mod numbering;
mod references;
mod tree;

use std::collections::{HashMap, HashSet};

pub(crate) use crate::text::definitions::{extract_definitions, quoted_terms};
pub(crate) use json::finalize_json_document;
pub(crate) use numbering::roman_value;
pub use references::{find_references, FoundReference};

use super::model::{DocumentStructure, SkippedText};
use super::scope::make_ids_unique;
use lines::{
    body_text, clean_line, furniture_key, is_contents_title, is_page_number, segments, starts_item,
};
use numbering::{fold_width, parse_heading, Heading, Style};
use references::collect_cross_references;
use tree::{build_tree, paragraphs, set_levels};

/// One cleaned line of the document and what it was recognised as.
struct Line<'a> {
    text: &'a str,
    /// Number of Markdown `#` marks before the text, 0 when none.
    markdown_level: u8,
    heading: Option<Heading>,
}

/// How permissive heading recognition is. A document is read in the strictest mode that
/// finds at least three headings: numbered headings; else numbered paragraphs (`1. The
/// Company shall ...`, `I. Party A ...`) counted in sequence; else Markdown headings
/// without numbers (a term sheet's `### Liquidation Preference`); else blank-line paragraphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Headings,
    NumberedParagraphs,
    Markdown,
}

/// Fewer headings than this and the next, more permissive, mode is tried.
const ENOUGH_HEADINGS: usize = 3;

/// Parses plain text or Markdown into a clause tree with definitions and cross references.
///
/// Steps, each one pass over the lines (linear in the size of the text, at most three
/// recognition passes): split and clean lines and recognise headings; drop page furniture
/// (page numbers, lines repeated as page headers or footers); drop a table of contents;
/// settle headings whose style depends on the headings around them; nest the headings into
/// a tree.
pub fn parse_text(document_id: &str, text: &str) -> DocumentStructure {
    let mut read = read_structure(text, Mode::Headings);
    for mode in [Mode::NumberedParagraphs, Mode::Markdown] {
        if read.flat.len() >= ENOUGH_HEADINGS {
            break;
        }
        let other = read_structure(text, mode);
        if other.flat.len() > read.flat.len() {
            read = other;
        }
    }
    let Structure {
        mut flat,
        preamble,
        skipped,
    } = read;
    for (heading, body) in &mut flat {
        take_title_from_next_line(heading, body);
        keep_broken_sentence_as_text(heading, body);
    }
    let mut structure_type = structure_type_of(&flat);
    let mut preamble_text = body_text("", &preamble);
    let mut clauses = if flat.is_empty() && !preamble_text.is_empty() {
        structure_type = "paragraphs";
        preamble_text.clear();
        paragraphs(preamble.iter().copied())
    } else {
        build_tree(flat)
    };
    if clauses.is_empty() {
        structure_type = "empty";
    }
    make_ids_unique(&mut clauses);
    set_levels(&mut clauses, 1);
    let mut doc = DocumentStructure {
        document_id: document_id.to_string(),
        structure_type: structure_type.to_string(),
        clauses,
        definitions: extract_definitions(text),
        cross_references: Vec::new(),
        total_clauses: 0,
        preamble: preamble_text,
        skipped,
    };
    doc.cross_references = collect_cross_references(&doc);
    doc.recount();
    doc
}

/// Headings with their body lines, the text before the first heading, and what was skipped.
struct Structure<'a> {
    flat: Vec<(Heading, Vec<&'a str>)>,
    preamble: Vec<&'a str>,
    skipped: SkippedText,
}

/// One recognition pass in the given mode.
fn read_structure(text: &str, mode: Mode) -> Structure<'_> {
    let mut lines: Vec<Line<'_>> = Vec::new();
    for raw_line in text.lines() {
        for segment in segments(raw_line) {
            let pieces = if mode == Mode::NumberedParagraphs {
                lines::run_in_numbers(segment)
            } else {
                vec![segment]
            };
            for piece in pieces {
                push_line(&mut lines, piece, mode);
            }
        }
        // Keep paragraph breaks: they separate wrapped prose from the next paragraph.
        if raw_line.trim().is_empty() {
            lines.push(Line {
                text: "",
                markdown_level: 0,
                heading: None,
            });
        }
    }
    finish_structure(lines)
}

/// Cleans one line, recognises its heading in `mode` and adds it.
fn push_line<'a>(lines: &mut Vec<Line<'a>>, segment: &'a str, mode: Mode) {
    let line = clean_line(segment);
    let markdown_level = segment
        .trim_start()
        .bytes()
        .take_while(|b| *b == b'#')
        .count()
        .min(6) as u8;
    let folded = fold_width(line);
    // A tab-indented line is an item nested in the paragraph above it (the Word reader
    // writes nested list items so when their label looks like the outer list's, `1.` under
    // `1.`); it is text of its clause, never a heading.
    let nested_item = segment.starts_with('\t');
    let heading = if nested_item {
        None
    } else {
        parse_heading(&folded).or_else(|| match mode {
            Mode::Headings => None,
            Mode::NumberedParagraphs => numbering::numbered_paragraph(&folded),
            Mode::Markdown => numbering::markdown_heading(line, markdown_level),
        })
    };
    lines.push(Line {
        text: line,
        markdown_level,
        heading,
    });
}

/// Drops what is not contract text, settles headings by context and groups body lines under
/// their headings.
fn finish_structure(mut lines: Vec<Line<'_>>) -> Structure<'_> {
    let mut skipped = SkippedText::default();
    let mut keep = drop_furniture(&lines, &mut skipped);
    drop_contents(&lines, &mut keep, &mut skipped);
    settle_context(&mut lines, &mut keep);

    let mut flat: Vec<(Heading, Vec<&str>)> = Vec::new();
    let mut preamble: Vec<&str> = Vec::new();
    for (line, kept) in lines.iter_mut().zip(&keep) {
        if !kept {
            continue;
        }
        if let Some(heading) = line.heading.take() {
            flat.push((heading, Vec::new()));
            continue;
        }
        let part = match flat.last_mut() {
            Some((_, body)) => body,
            None => &mut preamble,
        };
        // An unnumbered Markdown heading inside a clause starts a paragraph of its own.
        if line.markdown_level > 0 {
            part.push("");
        }
        part.push(line.text);
    }
    drop_unmarked_contents(&mut flat, &mut skipped);
    Structure {
        flat,
        preamble,
        skipped,
    }
}

/// Marks the lines to keep: page numbers, and lines repeated on many pages (headers and
/// footers of a PDF extraction, three times or more), are dropped.
fn drop_furniture(lines: &[Line<'_>], skipped: &mut SkippedText) -> Vec<bool> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for line in lines.iter().filter(|l| l.heading.is_none()) {
        if let Some(key) = furniture_key(line.text) {
            *counts.entry(key).or_default() += 1;
        }
    }
    lines
        .iter()
        .map(|line| {
            if line.heading.is_some() || line.text.is_empty() {
                return true;
            }
            let furniture = is_page_number(line.text)
                || furniture_key(line.text).is_some_and(|k| counts.get(&k).copied() >= Some(3));
            skipped.page_furniture += usize::from(furniture);
            !furniture
        })
        .collect()
}

/// Whether a line reads as a sentence of running text rather than a table of contents entry:
/// it starts in lower case, or is in mixed case and ends as a sentence does (`.`, `;`, `:`,
/// `,`). Titles in capitals (`CERTAIN DEFINITIONS; INTERPRETATION.`) and entries ending in
/// page numbers are not.
fn prose(text: &str) -> bool {
    let text = text.trim();
    text.starts_with(char::is_lowercase)
        || (text.chars().any(char::is_lowercase)
            && text.ends_with(['.', ';', ':', ',', '。', '；']))
}

/// A table of contents announced by a title (`TABLE OF CONTENTS`, `目录`): the run of entries
/// after the title, which ends at the first sentence of running text (the parties, the
/// recitals or the body) or at the first heading that repeats an entry, is dropped when
/// some of its entries come back later as headings. The body is never taken for a table:
/// a run whose next heading continues it (`1 Definitions`, `1.1 Terms`, then the body's own
/// `1.2`) was the body's first headings, and a run without repeats is no table at all.
fn drop_contents(lines: &[Line<'_>], keep: &mut [bool], skipped: &mut SkippedText) {
    let Some(start) = lines
        .iter()
        .zip(keep.iter())
        .take(lines.len() / 2 + 1)
        .position(|(l, k)| *k && is_contents_title(l.text))
    else {
        return;
    };
    let mut listed: HashSet<(Style, &str)> = HashSet::new();
    let mut entries: Vec<&str> = Vec::new();
    let mut last_entry = start;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if !keep[i] {
            continue;
        }
        match &line.heading {
            Some(h) => {
                if (!h.inline_text.is_empty() && prose(&h.inline_text))
                    || !listed.insert((h.style, h.id.as_str()))
                {
                    break;
                }
                entries.push(h.id.as_str());
                last_entry = i;
            }
            None if prose(line.text) => break,
            None => {}
        }
    }
    let later: Vec<&str> = (last_entry + 1..lines.len())
        .filter(|i| keep[*i])
        .filter_map(|i| lines[i].heading.as_ref().map(|h| h.id.as_str()))
        .collect();
    let repeated = entries.iter().any(|id| later.contains(id));
    let continued = match (entries.last(), later.first()) {
        (Some(last), Some(next)) => continues(last, next),
        _ => false,
    };
    if entries.len() < 2 || !repeated || continued {
        return;
    }
    // The table ends with its last entry and the page numbers after it; text between it and
    // the first repeated heading (the parties, the recitals) is the preamble.
    let end = (last_entry + 1..lines.len())
        .find(|i| {
            let line = lines[*i].text;
            !(line.is_empty() || is_page_number(line) || !keep[*i])
                && !(lines[*i].heading.is_none()
                    && numbering::looks_like_title(line)
                    && line.chars().count() < 60
                    && *i == last_entry + 1)
        })
        .unwrap_or(lines.len());
    for (k, line) in keep[start..end].iter_mut().zip(&lines[start..end]) {
        skipped.table_of_contents += usize::from(*k && !line.text.is_empty());
        *k = false;
    }
}

/// Whether the clause number `next` continues `last` as a body does: its first sub-clause
/// (`4` then `4.1`), its next sibling (`4.1` then `4.2`) or the next clause (`4.2` then `5`).
fn continues(last: &str, next: &str) -> bool {
    if next
        .strip_prefix(last)
        .is_some_and(|rest| rest.starts_with('.'))
    {
        return true;
    }
    let split = |id: &str| -> (String, Option<u32>) {
        match id.rsplit_once('.') {
            Some((head, tail)) => (head.to_string(), tail.parse().ok()),
            None => (String::new(), id.parse().ok()),
        }
    };
    let ((last_head, last_n), (next_head, next_n)) = (split(last), split(next));
    let sibling = last_head == next_head && last_n.zip(next_n).is_some_and(|(l, n)| n == l + 1);
    let first = last.split('.').next().and_then(|f| f.parse::<u32>().ok());
    let top = first
        .zip(next.parse::<u32>().ok())
        .is_some_and(|(l, n)| n == l + 1);
    sibling || top
}

/// Tables of contents without a title: headings whose title ends in a page number or dot
/// leader, and empty headings that repeat later, with no sentence of running text under them.
/// A run of three or more is a table; a shorter one only when its entries end in page
/// numbers and come back later as headings, so one or two short clauses ending in a number
/// (`Notice period:  14`) stay clauses.
fn drop_unmarked_contents(flat: &mut Vec<(Heading, Vec<&str>)>, skipped: &mut SkippedText) {
    let mut last: HashMap<(Style, &str), usize> = HashMap::new();
    for (i, (h, _)) in flat.iter().enumerate() {
        last.insert((h.style, h.id.as_str()), i);
    }
    let empty = |(h, body): &(Heading, Vec<&str>)| {
        h.inline_text.is_empty() && body.iter().all(|l| l.is_empty() || is_page_number(l))
    };
    let candidate: Vec<bool> = flat
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let repeats = last[&(entry.0.style, entry.0.id.as_str())] > i;
            let no_sentence = !entry.1.iter().any(|l| prose(l));
            no_sentence && ((entry.0.page_tail && entry.1.len() <= 2) || (empty(entry) && repeats))
        })
        .collect();
    let mut drop_entry = vec![false; flat.len()];
    let mut i = 0;
    while i < flat.len() {
        if !candidate[i] {
            i += 1;
            continue;
        }
        let run_end = (i..flat.len())
            .find(|j| !candidate[*j])
            .unwrap_or(flat.len());
        let run = run_end - i;
        let page_tails = (i..run_end).filter(|j| flat[*j].0.page_tail).count();
        let repeated = (i..run_end)
            .filter(|j| last[&(flat[*j].0.style, flat[*j].0.id.as_str())] >= run_end)
            .count();
        if run >= 3 || (page_tails * 2 > run && repeated * 2 > run) {
            for d in &mut drop_entry[i..run_end] {
                *d = true;
            }
        }
        i = run_end;
    }
    drop(last);
    let mut index = 0;
    flat.retain(|(_, body)| {
        let dropped = drop_entry[index];
        index += 1;
        if dropped {
            skipped.table_of_contents += 1 + body.iter().filter(|l| !l.is_empty()).count();
        }
        !dropped
    });
}

/// Decisions that need the headings around a line: a lone `I`, `V` or `X` is a letter after
/// `H`, `U` or `W` and a Roman numeral otherwise; a plain number of three digits or more
/// (`1000 Final Provisions`) is a heading only when it follows the previous plain number
/// closely, so a year or an amount starting a line is not taken for one; a number of five
/// digits or more (`10000 Title`) must follow one, or, first of all, be followed by one, and
/// `10000.1` must be inside the clause `10000` just read. A schedule restarts the count of
/// numbers (its paragraphs may number from 1 again); one before any other heading (a list of
/// exhibits on the cover, a document that is only a schedule) is text, not a scope that
/// would take the whole body in, and so is a schedule whose first number does not go back
/// below the main body's (`Exhibit B` listed inside clause 20, then `20.2` or `27 Notices`):
/// the body goes on. Only numbering that restarts makes a schedule a scope.
fn settle_context(lines: &mut [Line<'_>], keep: &mut [bool]) {
    let mut any_heading = false;
    // The last plain number of the main body, the schedules not yet confirmed as scopes (no
    // number read under them yet), and whether one was.
    let mut main_last: Option<u32> = None;
    let mut pending: Vec<usize> = Vec::new();
    let mut demoted: Vec<usize> = Vec::new();
    let mut confirmed = false;
    let mut last_letter: Option<u8> = None;
    let mut last_roman: Option<u32> = None;
    let mut last_number: Option<u32> = None;
    let mut last_paragraph: Option<u32> = None;
    // For each line, the plain number heading after it (one pass from the end).
    let mut next_plain: Vec<Option<u32>> = vec![None; lines.len()];
    let mut after: Option<u32> = None;
    for (i, (line, kept)) in lines.iter().zip(keep.iter()).enumerate().rev() {
        next_plain[i] = after;
        if let Some(h) = line.heading.as_ref().filter(|_| *kept) {
            if h.style == Style::Number && !h.sequenced && !h.keyword && !h.id.contains('.') {
                after = h.id.parse().ok().or(after);
            }
        }
    }
    for (i, (line, kept)) in lines.iter_mut().zip(keep.iter_mut()).enumerate() {
        if !*kept {
            continue;
        }
        let Some(h) = &mut line.heading else { continue };
        if h.style == Style::Schedule {
            if !any_heading {
                line.heading = None;
                continue;
            }
            if !confirmed {
                pending.push(i);
            }
            last_letter = None;
            last_roman = None;
            last_number = None;
            last_paragraph = None;
        }
        any_heading = true;
        // The first component of a clause number (`6` of `6.8`), to tell a schedule's own
        // numbering from the main body's going on.
        let first = (h.style == Style::Number)
            .then(|| h.id.split('.').next().and_then(|f| f.parse::<u32>().ok()))
            .flatten();
        if let (Some(n), false) = (first, pending.is_empty()) {
            if main_last.is_some_and(|m| n >= m) {
                demoted.append(&mut pending);
                last_number = main_last;
                last_paragraph = main_last;
            } else {
                pending.clear();
                confirmed = true;
            }
        }
        if h.letter_alternative {
            let letter = h.id.as_bytes()[0];
            let value = numbering::roman_value(&h.id).unwrap_or(0);
            let letter_context = last_letter == Some(letter.wrapping_sub(1));
            let roman_context = last_roman == Some(value.wrapping_sub(1));
            if !letter_context && (roman_context || letter == b'I') {
                h.style = Style::Roman;
                h.id = value.to_string();
            } else {
                h.style = Style::Letter;
            }
        }
        match h.style {
            Style::Letter => last_letter = h.id.bytes().next(),
            Style::Number if h.sequenced => {
                let n = h.id.parse::<u32>().unwrap_or(0);
                if last_paragraph.map_or(n != 1, |last| n != last + 1) {
                    line.heading = None;
                    continue;
                }
                last_paragraph = Some(n);
            }
            Style::Roman if h.sequenced => {
                let n = h.id.parse::<u32>().unwrap_or(0);
                if last_roman.map_or(n != 1, |last| n != last + 1) {
                    line.heading = None;
                    continue;
                }
                last_roman = Some(n);
            }
            Style::Roman => last_roman = h.id.parse().ok(),
            Style::Number if !h.id.contains('.') && !h.keyword => {
                if let Ok(n) = h.id.parse::<u32>() {
                    // The first number may start anywhere (an extract starting at clause 998);
                    // one of five digits or more only when the next number follows it
                    // (`25000 Euro ...` before `1 Term` is an amount).
                    let follows = match last_number {
                        None if numbering::long_first_component(&h.id) => {
                            next_plain[i].is_some_and(|next| next > n && next <= n + 5)
                        }
                        None => true,
                        Some(last) => n > last && n <= last + 5,
                    };
                    if n >= 100 && !follows {
                        line.heading = None;
                        continue;
                    }
                    last_number = Some(n);
                    last_paragraph = Some(n);
                }
            }
            // `10000.1` is a sub-clause of the clause `10000` just read, or no heading.
            Style::Number if !h.keyword && numbering::long_first_component(&h.id) => {
                let first = h.id.split('.').next().and_then(|n| n.parse::<u32>().ok());
                if first.is_none() || first != last_number {
                    line.heading = None;
                    continue;
                }
            }
            _ => {}
        }
        if pending.is_empty() && !confirmed && line.heading.is_some() {
            main_last = first.or(main_last);
        }
    }
    for i in demoted {
        lines[i].heading = None;
    }
}

/// `1.1` or `ARTICLE V` alone on its line takes its title from the next line when that line
/// reads like one (`TERM`, `"Acceptance Criteria"`).
fn take_title_from_next_line(heading: &mut Heading, body: &mut Vec<&str>) {
    if !heading.title.is_empty() || !heading.inline_text.is_empty() {
        return;
    }
    let Some(first) = body.iter().position(|l| !l.is_empty()) else {
        return;
    };
    let candidate = body[first];
    if numbering::looks_like_title(candidate) && candidate.chars().count() <= 60 {
        heading.title = candidate.trim_end_matches("**").trim().to_string();
        body.drain(..=first);
    }
}

/// A "title" that is the first line of a sentence the page width broke (`3.1 Closing is
/// conditional on (a) the permit being` / `issued; (b) ...`, as PDF extractions give it) is
/// the start of the clause's text, not its heading.
fn keep_broken_sentence_as_text(heading: &mut Heading, body: &[&str]) {
    if heading.title.is_empty() || !heading.inline_text.is_empty() {
        return;
    }
    let Some(next) = body.iter().find(|l| !l.trim().is_empty()) else {
        return;
    };
    let title = heading.title.as_str();
    // A heading is short or in title case; six words and more in sentence case are prose.
    let prose = title.split_whitespace().count() >= 6
        && title.ends_with(|c: char| c.is_alphanumeric())
        && !starts_item(next);
    if (crate::text::continues(title, next) || prose) && !numbering::is_english_title(title) {
        heading.inline_text = std::mem::take(&mut heading.title);
    }
}

/// The document's numbering style: the most frequent of `fidic` (keyword headings such as
/// `Sub-Clause`), `chinese`, `article` and `federal` headings, else `numbered`.
fn structure_type_of(flat: &[(Heading, Vec<&str>)]) -> &'static str {
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    for (h, _) in flat {
        let name = if h.fidic_keyword {
            "fidic"
        } else {
            h.style.structure_type()
        };
        *counts.entry(name).or_default() += 1;
    }
    ["fidic", "chinese", "article", "federal", "headings"]
        .into_iter()
        .filter_map(|name| counts.get(name).map(|n| (name, *n)))
        .max_by_key(|(_, n)| *n)
        .map_or("numbered", |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIDIC: &str = "\
# Conditions of Contract

1 General Provisions

1.1 Definitions

\"Contract Price\" means the price defined in Sub-Clause 14.1.
\"Employer\" means the person named as employer in the Contract Data.

4 The Contractor

4.1 Contractor's General Obligations

The Contractor shall design and execute the Works in accordance with Clause 14.
Sub-Clause 4.2 Performance Security
The Contractor shall obtain a Performance Security within 28 days. See Sub-Clauses 4.1 and 20.1.
4.2.1 Amount
The amount shall be 10% of the Contract Price.
";

    #[test]
    fn a_sentence_broken_after_its_number_is_text_not_a_title() {
        let doc = parse_text(
            "a",
            "1. SUPPLY\n\n1.1 The Supplier shall deliver the pumps to the quay\n\nbefore the end of May.\n\n1.2 Delivery Terms\n\nRisk passes on unloading.",
        );
        let broken = doc.find_clause("1.1").unwrap();
        assert_eq!(broken.title, "");
        assert_eq!(
            broken.text,
            "The Supplier shall deliver the pumps to the quay\nbefore the end of May."
        );
        assert_eq!(doc.find_clause("1.2").unwrap().title, "Delivery Terms");
        let doc = parse_text(
            "b",
            "1. PRICE\n\n1.1 The total price of the pumps shall not exceed\n\nEUR 90,000.",
        );
        assert_eq!(
            doc.find_clause("1.1").unwrap().text,
            "The total price of the pumps shall not exceed\nEUR 90,000."
        );
    }

    #[test]
    fn english_numbering_nests_and_finds_titles() {
        let doc = parse_text("gc", FIDIC);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "1.1", "4", "4.1", "4.2", "4.2.1"]);
        assert_eq!(doc.find_clause("4").unwrap().title, "The Contractor");
        assert_eq!(
            doc.find_clause("4.2").unwrap().title,
            "Performance Security"
        );
        assert_eq!(doc.find_clause("4.2.1").unwrap().level, 3);
        assert_eq!(doc.parent_of("4.2.1").unwrap().clause_id, "4.2");
        assert_eq!(doc.total_clauses, 6);
        assert_eq!(doc.structure_type, "fidic");
        assert_eq!(
            doc.definitions["Contract Price"],
            "the price defined in Sub-Clause 14.1"
        );
        assert_eq!(doc.definitions.len(), 2);
    }

    #[test]
    fn cross_references_are_resolved_or_broken() {
        let doc = parse_text("gc", FIDIC);
        let refs: Vec<(&str, &str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| {
                (
                    r.source_clause_id.as_str(),
                    r.target_clause_id.as_str(),
                    r.is_valid,
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("1.1", "14.1", false),
                ("4.1", "14", false),
                ("4.2", "4.1", true),
                ("4.2", "20.1", false)
            ]
        );
    }

    #[test]
    fn chinese_numbering_and_definitions() {
        let text = "第一条 定义\n“合同价格”是指本合同第4.1条约定的价格。\n第二条 付款\n发包人应按第一条支付。\n第2.1条 预付款\n预付款为合同价格的10%。";
        let doc = parse_text("cn", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "2.1"]);
        assert_eq!(doc.structure_type, "chinese");
        assert_eq!(doc.find_clause("第一条").unwrap().title, "定义");
        assert_eq!(doc.definitions["合同价格"], "本合同第4.1条约定的价格");
        let targets: Vec<(&str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| (r.target_clause_id.as_str(), r.is_valid))
            .collect();
        assert_eq!(targets, [("4.1", false), ("1", true)]);
    }

    #[test]
    fn article_headings_and_sentences_are_not_headings() {
        let text = "Article 1 Scope\nThe parties agree.\n14 days after signing the Buyer pays.\nArticle 2\nPrice.";
        let doc = parse_text("a", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2"]);
        assert_eq!(
            doc.find_clause("1").unwrap().text,
            "The parties agree. 14 days after signing the Buyer pays."
        );
        assert_eq!(doc.structure_type, "article");
    }

    #[test]
    fn unnumbered_text_becomes_paragraphs() {
        let doc = parse_text(
            "er",
            "The plant shall be designed.\n\nThe pumps shall be tested.",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["P1", "P2"]);
        assert_eq!(doc.structure_type, "paragraphs");
        assert_eq!(parse_text("x", "  \n").structure_type, "empty");
    }

    #[test]
    fn list_items_stay_in_the_clause() {
        let doc = parse_text(
            "x",
            "2 Payment\n1. The Employer shall pay monthly.\n2. Interest accrues.\n3. Title",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["2", "3"]);
        assert_eq!(
            doc.find_clause("2").unwrap().text,
            "1. The Employer shall pay monthly. 2. Interest accrues."
        );
    }

    #[test]
    fn inline_body_on_heading_line() {
        let doc = parse_text(
            "x",
            "1.1 The Contractor shall pay the Employer within 14 days of demand.",
        );
        let clause = doc.find_clause("1.1").unwrap();
        assert_eq!(clause.title, "");
        assert_eq!(
            clause.text,
            "The Contractor shall pay the Employer within 14 days of demand."
        );
    }

    #[test]
    fn list_items_and_definitions_keep_their_lines_while_prose_is_reflowed() {
        let doc = parse_text(
            "t",
            "4.1 Conditions\nCompletion is conditional on\nthe following:\n(a) clearance by the\nauthority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff.\n",
        );
        let text = &doc.find_clause("4.1").unwrap().text;
        assert_eq!(
            text,
            "Completion is conditional on the following:\n(a) clearance by the authority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff."
        );
    }

    fn ids(doc: &DocumentStructure) -> Vec<&str> {
        doc.iter_clauses().map(|c| c.clause_id.as_str()).collect()
    }

    fn levels(doc: &DocumentStructure) -> Vec<(&str, u32)> {
        doc.iter_clauses()
            .map(|c| (c.clause_id.as_str(), c.level))
            .collect()
    }

    #[test]
    fn federal_clauses_are_headings() {
        let text = "SECTION I - CONTRACT CLAUSES\n\n52.211-12 Liquidated Damages-Construction (SEP 2000)\n(a) If the Contractor fails to complete the work within the time specified, the Contractor shall pay liquidated damages.\n52.236-2 Differing Site Conditions (APR 1984)\n(a) The Contractor shall promptly, and before the conditions are disturbed, give a written notice.\n52.249-2 Termination for Convenience of the Government (Fixed-Price) (APR 2012)\nThe Government may terminate performance of work under this contract.";
        let doc = parse_text("far", text);
        assert_eq!(ids(&doc), ["1", "52.211-12", "52.236-2", "52.249-2"]);
        assert_eq!(doc.structure_type, "federal");
        let clause = doc.find_clause("52.211-12").unwrap();
        assert_eq!(clause.title, "Liquidated Damages-Construction (SEP 2000)");
        assert_eq!(clause.level, 2);
        assert!(clause.text.starts_with("(a) If the Contractor fails"));
    }

    #[test]
    fn articles_sections_and_four_digit_numbers_nest() {
        let text = "ARTICLE I\nDEFINITIONS\nSection 1.1 Terms. As used herein the following terms apply.\nSection 1.2 Construction.\nARTICLE II\nPAYMENT\nSection 2.1 Price. The Buyer shall pay the price.\n12A Additional Covenants\nThe Seller shall comply.";
        let doc = parse_text("spa", text);
        assert_eq!(
            levels(&doc),
            [
                ("1", 1),
                ("1.1", 2),
                ("1.2", 2),
                ("2", 1),
                ("2.1", 2),
                ("12A", 2)
            ]
        );
        assert_eq!(doc.find_clause("1").unwrap().title, "DEFINITIONS");
        assert_eq!(doc.find_clause("1.1").unwrap().title, "Terms");
        assert_eq!(
            doc.find_clause("1.1").unwrap().text,
            "As used herein the following terms apply."
        );
        assert_eq!(doc.find_clause("1.2").unwrap().title, "Construction");

        let mut many = String::new();
        for n in 995..=1003 {
            many.push_str(&format!("{n} Heading {n}\nText of clause {n}.\n"));
        }
        let doc = parse_text("long", &many);
        assert_eq!(doc.total_clauses, 9);
        assert_eq!(
            doc.find_clause("1000").unwrap().text,
            "Text of clause 1000."
        );
        // A year at the start of a line is not clause 2019.
        let doc = parse_text(
            "y",
            "1 Term\nThe term starts in\n2019 Annual Meeting\nand ends later.",
        );
        assert_eq!(ids(&doc), ["1"]);
    }

    #[test]
    fn roman_and_letter_headings_are_told_apart_by_context() {
        let text = "I. Definitions\nText.\nII. Scope\nText.\nIII. Price\nText.\nIV. Term\nText.\nV. Notices\nText.";
        let doc = parse_text("r", text);
        assert_eq!(ids(&doc), ["1", "2", "3", "4", "5"]);
        let letters: String = ('A'..='I')
            .map(|c| format!("{c}. Heading {c}\nText.\n"))
            .collect();
        let doc = parse_text("l", &letters);
        assert_eq!(ids(&doc), ["A", "B", "C", "D", "E", "F", "G", "H", "I"]);
    }

    #[test]
    fn chinese_model_form_with_numbers_run_into_text() {
        let text = "建设工程施工合同\n\n一、词语定义及合同文件\n1.1通用条款：是根据法律、行政法规规定制定的条款。\n1.2专用条款：是发包人与承包人协商一致的条款。\n二、双方一般权利和义务\n2.1工程师：本工程监理单位委派的总监理工程师。\n（一）一般约定\n甲方应当按期付款。\n１２．３　付款\n发包人应在１４天内支付。";
        let doc = parse_text("gf", text);
        assert_eq!(
            levels(&doc),
            [
                ("一", 1),
                ("1.1", 2),
                ("1.2", 2),
                ("二", 1),
                ("2.1", 2),
                ("2.1（一）", 3),
                ("12.3", 2)
            ]
        );
        assert_eq!(doc.find_clause("1.1").unwrap().title, "通用条款");
        assert_eq!(doc.preamble, "建设工程施工合同");
        assert_eq!(doc.structure_type, "chinese");
    }

    #[test]
    fn chinese_chapters_contain_articles() {
        let text = "第一章 总则\n第一条 目的\n为明确双方权利义务，订立本合同。\n第二条 定义\n见第一条。\n第二章 价款\n第三条 价款\n按第5条和第二条执行。";
        let doc = parse_text("cn", text);
        assert_eq!(
            levels(&doc),
            [("第1章", 1), ("1", 2), ("2", 2), ("第2章", 1), ("3", 2)]
        );
        let refs: Vec<(&str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| (r.target_clause_id.as_str(), r.is_valid))
            .collect();
        assert_eq!(refs, [("1", true), ("5", false), ("2", true)]);
    }

    #[test]
    fn table_of_contents_is_skipped() {
        let text = "SUPPLY AGREEMENT\n\nTABLE OF CONTENTS\n1. Definitions 1\n2. Supply 3\n3. Price 5\n\n1. Definitions\n\"Products\" means the goods.\n2. Supply\nThe Seller supplies.\n3. Price\nThe Buyer pays.";
        let doc = parse_text("toc", text);
        assert_eq!(ids(&doc), ["1", "2", "3"]);
        assert_eq!(doc.find_clause("2").unwrap().text, "The Seller supplies.");
        assert_eq!(doc.skipped.table_of_contents, 4);
        assert_eq!(doc.preamble, "SUPPLY AGREEMENT");

        // No title: entries with dot leaders and page numbers, or empty headings that repeat.
        let text = "1. Definitions ........ 1\n2. Supply ........ 3\n\n1. Definitions\n\"Products\" means the goods.\n2. Supply\nThe Seller supplies.";
        let doc = parse_text("toc", text);
        assert_eq!(ids(&doc), ["1", "2"]);
        assert_eq!(
            doc.find_clause("1").unwrap().text,
            "\"Products\" means the goods."
        );
        let text = "1 Definitions\n2 Supply\n3 Price\n1 Definitions\nText one.\n2 Supply\nText two.\n3 Price\nText three.";
        let doc = parse_text("toc", text);
        assert_eq!(ids(&doc), ["1", "2", "3"]);
        assert_eq!(doc.find_clause("3").unwrap().text, "Text three.");
    }

    #[test]
    fn page_furniture_is_dropped() {
        let mut text = String::from("Preamble of the agreement.\n");
        for page in 1..=4 {
            let topic = ["price", "delivery", "warranty", "notices"][page - 1];
            text.push_str(&format!(
                "{page} Heading {page}\nThe parties agree on the {topic}\nSource: ACME CORP, 10-K, 3/1/2020\nPage {page} of 4\nof the goods ({topic}).\n"
            ));
        }
        let doc = parse_text("pdf", &text);
        assert_eq!(ids(&doc), ["1", "2", "3", "4"]);
        assert_eq!(
            doc.find_clause("3").unwrap().text,
            "The parties agree on the warranty of the goods (warranty)."
        );
        assert_eq!(doc.skipped.page_furniture, 8);
        assert_eq!(doc.preamble, "Preamble of the agreement.");
    }

    #[test]
    fn repeated_sentences_are_contract_text_not_furniture() {
        let mut text = String::new();
        for n in 1..=4 {
            text.push_str(&format!(
                "{n} Heading {n}\nThe Supplier shall deliver the goods and\nkeep them insured until delivery.\nEach Party shall bear its own costs of performing this clause.\n"
            ));
        }
        let doc = parse_text("boilerplate", &text);
        assert_eq!(ids(&doc), ["1", "2", "3", "4"]);
        assert_eq!(doc.skipped.page_furniture, 0);
        let three = &doc.find_clause("3").unwrap().text;
        assert!(
            three.contains("keep them insured until delivery."),
            "{three}"
        );
        assert!(three.contains("bear its own costs"), "{three}");
    }

    #[test]
    fn pdf_lines_joined_with_runs_of_spaces_are_split() {
        let text = "The Parties agree as follows:   1 Definitions   1.1 \"Batch\" means a lot.   1.2 \"Product\" means the drug.   2 Supply   The Seller supplies.";
        let doc = parse_text("joined", text);
        assert_eq!(ids(&doc), ["1", "1.1", "1.2", "2"]);
        assert_eq!(doc.preamble, "The Parties agree as follows:");
        assert_eq!(doc.definitions.len(), 2);
    }

    #[test]
    fn preamble_and_recitals_are_their_own_part() {
        let text = "THIS AGREEMENT is made between A and B.\n\nWHEREAS, A makes goods;\nWHEREAS, B wants them;\n\nNOW, THEREFORE, the parties agree:\n\n1. Sale\nA sells.\n2. Price\nB pays.";
        let doc = parse_text("p", text);
        assert_eq!(ids(&doc), ["1", "2"]);
        assert_eq!(doc.find_clause("1").unwrap().text, "A sells.");
        assert!(doc.preamble.starts_with("THIS AGREEMENT is made"));
        assert!(doc.preamble.contains("WHEREAS, B wants them;"));
        assert!(doc.preamble.ends_with("the parties agree:"));
    }

    #[test]
    fn numbered_paragraphs_and_markdown_headings_when_there_are_no_headings() {
        let text = "Agreement between A and B.\n1. The Seller shall deliver the goods.\n2. The Buyer shall pay within 30 days.\n3. The Buyer may terminate on notice.\n5. A stray number.";
        let doc = parse_text("np", text);
        assert_eq!(ids(&doc), ["1", "2", "3"]);
        assert!(doc
            .find_clause("3")
            .unwrap()
            .text
            .contains("5. A stray number."));
        let text = "# Term Sheet\n\n## Offering Terms\n\n### Securities:\n\nSeries Seed.\n\n### Price:\n\n$1.00 per share.\n\n## Other Terms\n\n### Expenses:\n\nEach party pays its own.";
        let doc = parse_text("ts", text);
        assert_eq!(
            levels(&doc),
            [
                ("Term Sheet", 1),
                ("Offering Terms", 2),
                ("Securities", 3),
                ("Price", 3),
                ("Other Terms", 2),
                ("Expenses", 3)
            ]
        );
        assert_eq!(doc.find_clause("Price").unwrap().text, "$1.00 per share.");
    }

    /// Where each clause sits: `(id, level)` in document order.
    fn shape(doc: &DocumentStructure) -> Vec<(String, u32)> {
        doc.iter_clauses()
            .map(|c| (c.clause_id.clone(), c.level))
            .collect()
    }

    fn owned(pairs: &[(&str, u32)]) -> Vec<(String, u32)> {
        pairs.iter().map(|(id, l)| (id.to_string(), *l)).collect()
    }

    #[test]
    fn a_container_heading_after_a_numbered_clause_starts_at_the_top() {
        // Numbered sub-clauses before the first article (a summary of key terms, say), then
        // articles holding their own sections.
        let doc = parse_text(
            "en",
            "1.4 Rent
The rent is payable monthly.

ARTICLE II
TERM
2.1 Start
The lease starts on signing.
2.2 Renewal
One renewal of five years.

Article 3 Insurance
3.1 Cover
The tenant insures the contents.",
        );
        assert_eq!(
            shape(&doc),
            owned(&[
                ("1.4", 1),
                ("2", 1),
                ("2.1", 2),
                ("2.2", 2),
                ("3", 1),
                ("3.1", 2)
            ])
        );
        // The same in Chinese: an article (条) and a section (节) after a dotted number.
        let doc = parse_text(
            "zh",
            "2.3 发包人应按时支付。

第三条 工期
3.1 开工日期为签约后七日。
3.2 竣工日期以验收为准。

第二节 保险
4.1 承包人投保工程一切险。",
        );
        assert_eq!(
            shape(&doc),
            owned(&[
                ("2.3", 1),
                ("3", 1),
                ("3.1", 2),
                ("3.2", 2),
                ("第2节", 1),
                ("4.1", 2)
            ])
        );
    }

    #[test]
    fn containers_still_hold_numbers_and_each_other() {
        // Numbers under an article, articles under a part, numbers under a Chinese article,
        // and dotted numbers under a plain number: unchanged nesting.
        let doc = parse_text(
            "en",
            "PART I
GENERAL
ARTICLE 1
DEFINITIONS
1.1 Terms
Words mean what they say.
1.2 Headings
Headings do not count.",
        );
        assert_eq!(
            shape(&doc),
            owned(&[("Part 1", 1), ("1", 2), ("1.1", 3), ("1.2", 3)])
        );
        let doc = parse_text(
            "zh",
            "第一条 总则
1.1 本合同适用中国法律。
1.2 本合同一式两份。
第二条 价款
2.1 合同总价为一百万元。",
        );
        assert_eq!(
            shape(&doc),
            owned(&[("1", 1), ("1.1", 2), ("1.2", 2), ("2", 1), ("2.1", 2)])
        );
        let doc = parse_text(
            "n",
            "1. SUPPLY
1.1 Delivery
The goods are delivered to the site.
1.2 Risk
Risk passes on delivery.",
        );
        assert_eq!(shape(&doc), owned(&[("1", 1), ("1.1", 2), ("1.2", 2)]));
    }

    #[test]
    fn references_resolve_against_every_style() {
        let text = "ARTICLE V\nPAYMENT\nSection 5.01 Price. The Buyer pays as set out in Section 6 and Clause 5.01(a).\n(a) in cash;\nSection 6 Term. See Article V, Section 5.1 and Section 7.";
        let doc = parse_text("refs", text);
        let refs: Vec<(&str, &str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| {
                (
                    r.reference_text.as_str(),
                    r.target_clause_id.as_str(),
                    r.is_valid,
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("Section 6", "6", true),
                ("Clause 5.01(a)", "5.01", true),
                ("Article V", "5", true),
                ("Section 5.1", "5.01", true),
                ("Section 7", "7", false)
            ]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Generated contracts of any shape of numbering parse back into that numbering.
        #[test]
        fn generated_numbering_is_recovered(
            shape in proptest::collection::vec(0usize..4, 1..40),
            chinese in proptest::bool::ANY,
            start in proptest::sample::select(vec![1u32, 998]),
        ) {
            let mut text = String::from("Preamble text of the agreement.\n\n");
            let mut expected = Vec::new();
            for (i, subs) in shape.iter().enumerate() {
                let n = start + i as u32;
                if chinese {
                    text.push_str(&format!("第{n}条 条款{n}\n本条约定事项。\n"));
                } else {
                    text.push_str(&format!("{n} Heading Number {n}\nThe parties agree on item {n}.\n"));
                }
                expected.push(n.to_string());
                for s in 1..=*subs {
                    if chinese {
                        text.push_str(&format!("{n}.{s}子条款：本款内容。\n"));
                    } else {
                        text.push_str(&format!("{n}.{s} Sub Heading\nSub-clause text of {n}.{s}.\n"));
                    }
                    expected.push(format!("{n}.{s}"));
                }
            }
            let doc = parse_text("gen", &text);
            let got: Vec<String> = doc.iter_clauses().map(|c| c.clause_id.clone()).collect();
            proptest::prop_assert_eq!(got, expected);
            for clause in doc.iter_clauses() {
                let depth = clause.clause_id.matches('.').count() as u32 + 1;
                proptest::prop_assert_eq!(clause.level, depth);
            }
            proptest::prop_assert_eq!(doc.preamble.as_str(), "Preamble text of the agreement.");
        }
    }

    #[test]
    fn tab_indented_numbered_lines_are_text_of_their_clause() {
        let text = "1. Scope. The Supplier supplies:\n\n\t1. pumps;\n\n\t2. valves.\n\n\
                    2. Price. The Buyer pays.\n\n3. Term. One year.\n";
        let doc = parse_text("t", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"]);
        let scope = doc.find_clause("1").unwrap();
        assert!(scope.text.contains("1. pumps;") && scope.text.contains("2. valves."));
        let spaced = parse_text("t", "1. Scope. Goods.\n\n    2. Price. The Buyer pays.\n");
        assert!(
            spaced.find_clause("2").is_some(),
            "space-indented lines (PDF extractions) still open clauses"
        );
    }
}
