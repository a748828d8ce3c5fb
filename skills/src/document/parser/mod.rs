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

mod definitions;
mod json;
mod lines;
mod numbering;
mod references;
mod tree;

use std::collections::{HashMap, HashSet};

pub(crate) use definitions::{extract_definitions, quoted_terms};
pub(crate) use json::finalize_json_document;
pub use references::{find_references, FoundReference};

use super::model::{DocumentStructure, SkippedText};
use lines::{body_text, clean_line, furniture_key, is_contents_title, is_page_number, segments};
use numbering::{fold_width, parse_heading, Heading, Style};
use references::collect_cross_references;
use tree::{build_tree, paragraphs, set_levels};

/// One cleaned line of the document and what it was recognised as.
struct Line<'a> {
    text: &'a str,
    heading: Option<Heading>,
}

/// Parses plain text or Markdown into a clause tree with definitions and cross references.
///
/// Steps, each one pass over the lines (linear in the size of the text): split and clean
/// lines and recognise headings; drop page furniture (page numbers, lines repeated as page
/// headers or footers); drop a table of contents; settle headings whose style depends on the
/// headings around them; nest the headings into a tree.
pub fn parse_text(document_id: &str, text: &str) -> DocumentStructure {
    let mut lines: Vec<Line<'_>> = Vec::new();
    for raw_line in text.lines() {
        for segment in segments(raw_line) {
            let line = clean_line(segment);
            let heading = parse_heading(&fold_width(line));
            lines.push(Line { text: line, heading });
        }
        // Keep paragraph breaks: they separate wrapped prose from the next paragraph.
        if raw_line.trim().is_empty() {
            lines.push(Line {
                text: "",
                heading: None,
            });
        }
    }
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
        match flat.last_mut() {
            Some((_, body)) => body.push(line.text),
            None => preamble.push(line.text),
        }
    }
    drop_unmarked_contents(&mut flat, &mut skipped);
    for (heading, body) in &mut flat {
        take_title_from_next_line(heading, body);
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

/// A table of contents announced by a title (`TABLE OF CONTENTS`, `目录`): everything from
/// the title up to the first heading that repeats one listed in it is dropped. Without such a
/// repeat the title is not followed by a table of contents, and nothing is dropped.
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
    let mut end = None;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if let Some(h) = &line.heading {
            if !listed.insert((h.style, h.id.as_str())) {
                end = Some(i);
                break;
            }
        }
    }
    let Some(end) = end else { return };
    for k in &mut keep[start..end] {
        skipped.table_of_contents += usize::from(*k);
        *k = false;
    }
}

/// Tables of contents without a title: headings whose title ends in a page number or dot
/// leader, and runs of three or more empty headings that all repeat later.
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
            (entry.0.page_tail && entry.1.len() <= 2) || (empty(entry) && repeats)
        })
        .collect();
    drop(last);
    let mut drop_entry = vec![false; flat.len()];
    let mut i = 0;
    while i < flat.len() {
        if !candidate[i] {
            i += 1;
            continue;
        }
        let run_end = (i..flat.len()).find(|j| !candidate[*j]).unwrap_or(flat.len());
        let page_tails = (i..run_end).filter(|j| flat[*j].0.page_tail).count();
        if run_end - i >= 3 || page_tails * 2 > run_end - i {
            for d in &mut drop_entry[i..run_end] {
                *d = true;
            }
        }
        i = run_end;
    }
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
/// closely, so a year or an amount starting a line is not taken for one.
fn settle_context(lines: &mut [Line<'_>], keep: &mut [bool]) {
    let mut last_letter: Option<u8> = None;
    let mut last_roman: Option<u32> = None;
    let mut last_number: Option<u32> = None;
    for (line, kept) in lines.iter_mut().zip(keep.iter_mut()) {
        if !*kept {
            continue;
        }
        let Some(h) = &mut line.heading else { continue };
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
            Style::Roman => last_roman = h.id.parse().ok(),
            Style::Number if !h.id.contains('.') && !h.keyword => {
                if let Ok(n) = h.id.parse::<u32>() {
                    let follows = last_number.is_some_and(|last| n > last && n <= last + 5);
                    if n >= 100 && !follows {
                        line.heading = None;
                        continue;
                    }
                    last_number = Some(n);
                }
            }
            _ => {}
        }
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
    ["fidic", "chinese", "article", "federal"]
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
}
