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
    let next_plain = next_plain_numbers(lines, keep);
    let mut walk = ContextWalk::default();
    for (i, (line, kept)) in lines.iter_mut().zip(keep.iter()).enumerate() {
        if *kept {
            walk.settle(i, line, next_plain[i]);
        }
    }
    for i in walk.demoted {
        lines[i].heading = None;
    }
}

/// For each line, the plain number heading after it (one pass from the end): a number of
/// five digits or more first of all is a heading only when the next one follows it.
fn next_plain_numbers(lines: &[Line<'_>], keep: &[bool]) -> Vec<Option<u32>> {
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
    next_plain
}

/// What [`settle_context`] has read so far, walking the kept headings in order.
#[derive(Default)]
struct ContextWalk {
    any_heading: bool,
    /// The last plain number of the main body.
    main_last: Option<u32>,
    /// The schedules not yet confirmed as scopes (no number read under them yet).
    pending: Vec<usize>,
    /// Schedules found to be text in the main body: their headings go at the end.
    demoted: Vec<usize>,
    /// Whether a schedule was confirmed as a scope.
    confirmed: bool,
    last_letter: Option<u8>,
    last_roman: Option<u32>,
    last_number: Option<u32>,
    last_paragraph: Option<u32>,
}

impl ContextWalk {
    /// Settles the heading of kept line `i` (none: nothing to do) in the context read so
    /// far, or takes it away; `next_plain` is the plain number heading after the line.
    fn settle(&mut self, i: usize, line: &mut Line<'_>, next_plain: Option<u32>) {
        let Some(h) = &mut line.heading else { return };
        if h.style == Style::Schedule {
            if !self.any_heading {
                line.heading = None;
                return;
            }
            self.open_schedule(i);
        }
        self.any_heading = true;
        // The first component of a clause number (`6` of `6.8`), to tell a schedule's own
        // numbering from the main body's going on.
        let first = (h.style == Style::Number)
            .then(|| h.id.split('.').next().and_then(|f| f.parse::<u32>().ok()))
            .flatten();
        self.settle_schedules(first);
        if h.letter_alternative {
            self.letter_or_roman(h);
        }
        if !self.follows(h, next_plain) {
            line.heading = None;
            return;
        }
        if self.pending.is_empty() && !self.confirmed {
            self.main_last = first.or(self.main_last);
        }
    }

    /// A schedule waits to be confirmed as a scope (unless one was) and restarts the count
    /// of numbers: its paragraphs may number from 1 again.
    fn open_schedule(&mut self, i: usize) {
        if !self.confirmed {
            self.pending.push(i);
        }
        self.last_letter = None;
        self.last_roman = None;
        self.last_number = None;
        self.last_paragraph = None;
    }

    /// The first clause number under schedules that wait decides them: one that does not
    /// go back below the main body's makes them text in the body, which goes on; a lower
    /// one (numbering that restarts) confirms them as scopes.
    fn settle_schedules(&mut self, first: Option<u32>) {
        if let (Some(n), false) = (first, self.pending.is_empty()) {
            if self.main_last.is_some_and(|m| n >= m) {
                self.demoted.append(&mut self.pending);
                self.last_number = self.main_last;
                self.last_paragraph = self.main_last;
            } else {
                self.pending.clear();
                self.confirmed = true;
            }
        }
    }

    /// A lone `I`, `V` or `X`: a letter after `H`, `U` or `W`, a Roman numeral otherwise
    /// (after the numeral before it, or `I` starting a list).
    fn letter_or_roman(&self, h: &mut Heading) {
        let letter = h.id.as_bytes()[0];
        let value = numbering::roman_value(&h.id).unwrap_or(0);
        let letter_context = self.last_letter == Some(letter.wrapping_sub(1));
        let roman_context = self.last_roman == Some(value.wrapping_sub(1));
        if !letter_context && (roman_context || letter == b'I') {
            h.style = Style::Roman;
            h.id = value.to_string();
        } else {
            h.style = Style::Letter;
        }
    }

    /// Whether `h` follows the numbering read so far (else it is no heading), noting its
    /// number when it does.
    fn follows(&mut self, h: &Heading, next_plain: Option<u32>) -> bool {
        match h.style {
            Style::Letter => self.last_letter = h.id.bytes().next(),
            Style::Number if h.sequenced => {
                return next_in_sequence(&mut self.last_paragraph, &h.id)
            }
            Style::Roman if h.sequenced => return next_in_sequence(&mut self.last_roman, &h.id),
            Style::Roman => self.last_roman = h.id.parse().ok(),
            Style::Number if !h.id.contains('.') && !h.keyword => {
                return self.plain_number_follows(&h.id, next_plain)
            }
            // `10000.1` is a sub-clause of the clause `10000` just read, or no heading.
            Style::Number if !h.keyword && numbering::long_first_component(&h.id) => {
                let first = h.id.split('.').next().and_then(|n| n.parse::<u32>().ok());
                if first.is_none() || first != self.last_number {
                    return false;
                }
            }
            _ => {}
        }
        true
    }

    /// Whether a plain number heading (`1000 Final Provisions`) follows the previous plain
    /// number closely, so a year or an amount starting a line is not taken for one.
    fn plain_number_follows(&mut self, id: &str, next_plain: Option<u32>) -> bool {
        if let Ok(n) = id.parse::<u32>() {
            // The first number may start anywhere (an extract starting at clause 998);
            // one of five digits or more only when the next number follows it
            // (`25000 Euro ...` before `1 Term` is an amount).
            let follows = match self.last_number {
                None if numbering::long_first_component(id) => {
                    next_plain.is_some_and(|next| next > n && next <= n + 5)
                }
                None => true,
                Some(last) => n > last && n <= last + 5,
            };
            if n >= 100 && !follows {
                return false;
            }
            self.last_number = Some(n);
            self.last_paragraph = Some(n);
        }
        true
    }
}

/// Whether a sequenced number `id` (a paragraph or Roman list) is the next of `last` (or 1
/// first of all), noting it when it is: out of sequence it is text, not a heading.
fn next_in_sequence(last: &mut Option<u32>, id: &str) -> bool {
    let n = id.parse::<u32>().unwrap_or(0);
    if last.map_or(n != 1, |last| n != last + 1) {
        return false;
    }
    *last = Some(n);
    true
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
mod tests;
