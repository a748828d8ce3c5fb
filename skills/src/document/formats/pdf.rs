//! PDF into text: the text layer (decoded by `pdf-extract` from `lopdf`'s objects) is
//! gathered into lines with their positions; lines repeated at the top or bottom of most
//! pages (running headers and footers) and page numbers (`Page 3 of 40`, `- 3 -`, `3`,
//! `第3页`) are dropped; a word hyphenated across a line break is joined (its hyphen kept
//! when the document writes the word hyphenated elsewhere). A PDF that needs a password, or
//! whose pages are only images (a scan), is an error saying so.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use regex::Regex;

use super::FormatErrorKind;

/// Share of the page height at the top and at the bottom where headers, footers and page
/// numbers are looked for.
const BAND: f64 = 0.12;
/// Lines at each end of a page that can be page furniture.
const EDGE_LINES: usize = 3;

/// A line of text on a page; `y` grows downwards from the top of the page.
#[derive(Debug, Default)]
struct Line {
    y: f64,
    size: f64,
    end_x: f64,
    text: String,
    /// A wider gap than line spacing above it (a new paragraph).
    gap_before: bool,
}

#[derive(Debug, Default)]
struct Page {
    height: f64,
    lines: Vec<Line>,
}

/// Receives the characters `pdf-extract` decodes and groups them into lines.
#[derive(Debug, Default)]
struct Collector {
    pages: Vec<Page>,
}

impl OutputDev for Collector {
    fn begin_page(
        &mut self,
        _page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.pages.push(Page {
            height: (media_box.ury - media_box.lly).abs().max(1.0),
            lines: Vec::new(),
        });
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        text: &str,
    ) -> Result<(), OutputError> {
        let Some(page) = self.pages.last_mut() else {
            return Ok(());
        };
        let x = trm.m31;
        let y = page.height - trm.m32;
        let vx = font_size * (trm.m11 + trm.m21);
        let vy = font_size * (trm.m12 + trm.m22);
        let size = (vx * vy).abs().sqrt().max(0.1);
        let same_line = page
            .lines
            .last()
            .is_some_and(|l| (l.y - y).abs() <= 0.5 * size.max(l.size));
        if !same_line {
            let gap_before = page
                .lines
                .last()
                .is_some_and(|l| y - l.y > 1.5 * size.max(l.size) || y < l.y);
            page.lines.push(Line {
                y,
                size,
                end_x: x,
                text: String::new(),
                gap_before,
            });
        }
        let Some(line) = page.lines.last_mut() else {
            return Ok(());
        };
        if !line.text.is_empty()
            && x > line.end_x + 0.1 * size
            && !line.text.ends_with(' ')
            && text != " "
        {
            line.text.push(' ');
        }
        line.text.push_str(text);
        line.end_x = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// Reads a PDF from memory into text. The PDF libraries are guarded: a panic inside them on
/// a malformed file becomes a [`FormatErrorKind::CorruptPdf`].
pub(super) fn pdf_text(bytes: &[u8]) -> Result<String, FormatErrorKind> {
    match catch_unwind(AssertUnwindSafe(|| extract(bytes))) {
        Ok(result) => result,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            Err(FormatErrorKind::CorruptPdf(format!(
                "the PDF reader failed on it ({why})"
            )))
        }
    }
}

fn extract(bytes: &[u8]) -> Result<String, FormatErrorKind> {
    let doc = lopdf::Document::load_mem(bytes).map_err(|e| match e {
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword => {
            FormatErrorKind::EncryptedPdf
        }
        other => FormatErrorKind::CorruptPdf(other.to_string()),
    })?;
    // An owner password alone is removed while loading; a user password is not.
    if doc.is_encrypted() {
        return Err(FormatErrorKind::EncryptedPdf);
    }
    let page_ids: Vec<lopdf::ObjectId> = doc.get_pages().into_values().collect();
    if page_ids.is_empty() {
        return Err(FormatErrorKind::CorruptPdf("it has no pages".into()));
    }
    let mut collector = Collector::default();
    pdf_extract::output_doc(&doc, &mut collector)
        .map_err(|e| FormatErrorKind::CorruptPdf(e.to_string()))?;
    let textless: Vec<usize> = collector
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.lines.iter().all(|l| l.text.trim().is_empty()))
        .map(|(i, _)| i)
        .collect();
    let has_images = |i: &usize| {
        page_ids
            .get(*i)
            .and_then(|id| doc.get_page_images(*id).ok())
            .is_some_and(|images| !images.is_empty())
    };
    if textless.len() == collector.pages.len() {
        return Err(if textless.iter().any(has_images) {
            FormatErrorKind::ScannedPdf {
                pages: page_ids.len(),
            }
        } else {
            FormatErrorKind::Empty
        });
    }
    let scanned: Vec<usize> = textless
        .iter()
        .filter(|i| has_images(i))
        .map(|i| i + 1)
        .collect();
    if !scanned.is_empty() {
        tracing::warn!(pages = ?scanned, "PDF pages without a text layer (scanned) are left out");
    }
    Ok(assemble(collector.pages))
}

static PAGE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)^(?:
            (?:page|p\.|pg\.?|seite|página)?\s*\d{1,4}(?:\s*(?:of|/|von|de)\s*\d{1,4})?
          | [-–—]\s*\d{1,4}\s*[-–—]
          | (?:page\s+)?[ivxlcdm]{1,7}
          | 第\s*\d{1,4}\s*页(?:\s*[,，/]?\s*共\s*\d{1,4}\s*页)?
          | 共\s*\d{1,4}\s*页\s*[,，]?\s*第\s*\d{1,4}\s*页
        )$",
    )
    .expect("page number pattern")
});

/// Whether a line is only a page number.
fn is_page_number(text: &str) -> bool {
    PAGE_NUMBER.is_match(text.trim())
}

/// The form of a line compared across pages: digits (page numbers, dates) made equal.
fn furniture_key(text: &str) -> String {
    let mut key = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !key.is_empty() {
            key.push(' ');
        }
        key.extend(word.chars().map(|c| {
            if c.is_ascii_digit() {
                '#'
            } else {
                c.to_ascii_lowercase()
            }
        }));
    }
    key
}

/// Whether a line starts or ends with a bare number (a page number in a running head).
fn has_edge_number(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let first = words.next();
    let last = words.next_back();
    last.is_some()
        && [first, last]
            .into_iter()
            .flatten()
            .any(|w| (1..=4).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()))
}

/// Which lines of a page may be furniture: (index, true for the top band) of the lines
/// nearest the top and the bottom edge within the bands.
fn edge_lines(page: &Page) -> Vec<(usize, bool)> {
    let mut order: Vec<usize> = (0..page.lines.len())
        .filter(|&i| !page.lines[i].text.trim().is_empty())
        .collect();
    order.sort_by(|&a, &b| page.lines[a].y.total_cmp(&page.lines[b].y));
    let mut out = Vec::new();
    for &i in order.iter().take(EDGE_LINES) {
        if page.lines[i].y <= page.height * BAND {
            out.push((i, true));
        }
    }
    for &i in order.iter().rev().take(EDGE_LINES) {
        if page.lines[i].y >= page.height * (1.0 - BAND) && !out.iter().any(|(j, _)| *j == i) {
            out.push((i, false));
        }
    }
    out
}

/// Drops page furniture, then joins the lines into text.
fn assemble(mut pages: Vec<Page>) -> String {
    let mut seen: HashMap<(bool, String), usize> = HashMap::new();
    let edges: Vec<Vec<(usize, bool)>> = pages.iter().map(edge_lines).collect();
    for (page, edge) in pages.iter().zip(&edges) {
        let keys: HashSet<(bool, String)> = edge
            .iter()
            .map(|&(i, top)| (top, furniture_key(&page.lines[i].text)))
            .collect();
        for key in keys {
            *seen.entry(key).or_default() += 1;
        }
    }
    let repeated_on = pages.len().div_ceil(2).max(2);
    for (page, edge) in pages.iter_mut().zip(&edges) {
        for &(i, top) in edge {
            let line = &mut page.lines[i];
            // A running head with its page number (`Chapter 2: Scope 7`) changes with the
            // chapter: two pages are enough.
            let needed = if has_edge_number(&line.text) {
                2
            } else {
                repeated_on
            };
            let repeated = seen
                .get(&(top, furniture_key(&line.text)))
                .is_some_and(|&n| n >= needed);
            if repeated || is_page_number(&line.text) {
                line.text.clear();
            }
        }
    }
    let lines: Vec<(String, bool)> = pages
        .into_iter()
        .flat_map(|page| {
            let mut first = true;
            page.lines
                .into_iter()
                .filter(|l| !l.text.trim().is_empty())
                .map(move |l| {
                    let gap = l.gap_before && !first;
                    first = false;
                    (l.text.trim().to_string(), gap)
                })
        })
        .collect();
    let hyphenated = hyphenated_words(&lines);
    let mut out = String::new();
    let mut pending: Option<String> = None;
    for (text, gap_before) in lines {
        if let Some(prev) = pending.take() {
            if !gap_before {
                if let Some(joined) = join_hyphenated(&prev, &text, &hyphenated) {
                    pending = Some(joined);
                    continue;
                }
            }
            out.push_str(&prev);
            out.push_str(if gap_before { "\n\n" } else { "\n" });
        }
        pending = Some(text);
    }
    if let Some(last) = pending {
        out.push_str(&last);
    }
    out.retain(|c| c != '\u{AD}');
    out
}

/// Words the document writes with a hyphen inside a line (`well-known`), lower case.
fn hyphenated_words(lines: &[(String, bool)]) -> HashSet<String> {
    lines
        .iter()
        .flat_map(|(text, _)| text.split_whitespace())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.split('-').count() > 1 && w.split('-').all(|p| !p.is_empty()))
        .map(str::to_lowercase)
        .collect()
}

/// `prev` ending in a hyphen (or soft hyphen) after a letter, and `next` starting with a
/// lower-case letter: the two lines as one, the word joined.
fn join_hyphenated(prev: &str, next: &str, hyphenated: &HashSet<String>) -> Option<String> {
    if let Some(stem) = prev.strip_suffix('\u{AD}') {
        return Some(format!("{stem}{next}"));
    }
    let stem = prev.strip_suffix('-')?;
    let before: String = stem
        .chars()
        .rev()
        .take_while(|c| c.is_alphabetic())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if before.is_empty() || !next.starts_with(|c: char| c.is_lowercase()) {
        return None;
    }
    let after: String = next.chars().take_while(|c| c.is_alphabetic()).collect();
    let word = format!("{before}-{after}").to_lowercase();
    Some(if hyphenated.contains(&word) {
        format!("{prev}{next}")
    } else {
        format!("{stem}{next}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers() {
        for s in [
            "3",
            "Page 3",
            "Page 3 of 40",
            "- 3 -",
            "— 12 —",
            "3/40",
            "iv",
            "第3页",
            "第 3 页 共 40 页",
        ] {
            assert!(is_page_number(s), "{s}");
        }
        for s in ["3. Payment", "Page 3 shows", "Clause 4", "1.1"] {
            assert!(!is_page_number(s), "{s}");
        }
    }

    #[test]
    fn hyphenation() {
        let known: HashSet<String> = ["well-known".to_string()].into();
        assert_eq!(
            join_hyphenated("the con-", "tractor shall", &known).unwrap(),
            "the contractor shall"
        );
        assert_eq!(
            join_hyphenated("a well-", "known rule", &known).unwrap(),
            "a well-known rule"
        );
        assert!(join_hyphenated("Sub-", "Clause 4", &known).is_none());
        assert!(join_hyphenated("costs -", "and more", &known).is_none());
    }

    fn page(lines: &[(f64, &str)]) -> Page {
        Page {
            height: 800.0,
            lines: lines
                .iter()
                .map(|&(y, t)| Line {
                    y,
                    size: 10.0,
                    end_x: 0.0,
                    text: t.to_string(),
                    gap_before: false,
                })
                .collect(),
        }
    }

    #[test]
    fn running_heads_with_page_numbers_are_dropped() {
        let pages = (1..=6)
            .map(|n| {
                let chapter = if n <= 3 {
                    "Chapter 1: Scope"
                } else {
                    "Chapter 2: Price"
                };
                let head = format!("{chapter} {n}");
                let body = format!("Body line {n}");
                page(&[(30.0, &head), (100.0, &body)])
            })
            .collect();
        let text = assemble(pages);
        assert!(!text.contains("Chapter"), "{text}");
        assert!(
            has_edge_number("12 Libtasn1")
                && !has_edge_number("12")
                && !has_edge_number("1.1 Scope")
        );
    }

    #[test]
    fn furniture_is_dropped() {
        let pages = (1..=4)
            .map(|n| {
                let footer = format!("Page {n} of 4");
                let body = format!("Body line {n}");
                page(&[
                    (30.0, "ACME Supply Agreement"),
                    (100.0, &body),
                    (770.0, &footer),
                ])
            })
            .collect();
        assert_eq!(
            assemble(pages),
            "Body line 1\nBody line 2\nBody line 3\nBody line 4"
        );
    }
}
