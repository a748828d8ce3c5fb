//! Word 2007+ (`.docx`) into text: paragraphs in order, one per line with a blank line
//! between; headings (by style or outline level) as Markdown headings; automatic numbering
//! written in front of the paragraph as the reader sees it (an item nested in an item whose
//! label looks the same, `1.` under `1.`, is indented with a tab per level, as the reader
//! sees the indentation); tracked changes accepted
//! (insertions kept, deletions dropped, a deleted paragraph mark joins the paragraph to the
//! next); tables as `| cell | cell |` rows; comments, field codes, hidden text and text
//! boxes left out. Page headers, footers and footnotes are separate parts and not read.

use std::collections::HashMap;
use std::io::Cursor;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::budget::{too_many_lines, Budget, InflateError, MAX_LINES};
use super::numbering::{on, Numbering};
use super::FormatErrorKind;

/// Heading levels written as Markdown (`#` .. `######`).
const MAX_HEADING: usize = 6;

/// An element name without its namespace prefix.
pub(super) fn local(name: &str) -> &[u8] {
    let name = name.as_bytes();
    match name.iter().rposition(|&b| b == b':') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// The next event of a part, or where and why its XML is not well formed.
pub(super) fn next_event<'x>(reader: &mut Reader<&'x [u8]>) -> Result<Event<'x>, String> {
    reader.read_event().map_err(|e| {
        format!(
            "not well-formed XML at byte {}: {e}",
            reader.error_position()
        )
    })
}

/// An attribute's value by local name (`w:val` → `val`).
pub(super) fn attr(e: &BytesStart<'_>, key: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| local(a.key.as_ref()) == key)
        .map(|a| {
            a.normalized_value(XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.to_string())
        })
}

fn corrupt(what: impl Into<String>) -> FormatErrorKind {
    FormatErrorKind::CorruptDocx(what.into())
}

/// Reads a `.docx` package from memory into text. The parts read count against `budget`
/// as they are decompressed (all parts together), and paragraphs against its line limit.
pub(super) fn docx_text(bytes: &[u8], budget: &mut Budget) -> Result<String, FormatErrorKind> {
    let mut package = Package::open(bytes, budget)?;
    let main = package.main_document_name()?;
    let document = package
        .part(&main)?
        .ok_or_else(|| corrupt(format!("the package has no main document part `{main}`")))?;
    let (dir, file) = main.rsplit_once('/').unwrap_or(("", main.as_str()));
    let rels_name = if dir.is_empty() {
        format!("_rels/{file}.rels")
    } else {
        format!("{dir}/_rels/{file}.rels")
    };
    let rels = match package.part(&rels_name)? {
        Some(xml) => relationships(&xml).map_err(|e| corrupt(format!("{rels_name}: {e}")))?,
        None => Vec::new(),
    };
    let target_of = |kind: &str, fallback: &str| -> String {
        rels.iter()
            .find(|(t, _)| t.rsplit('/').next() == Some(kind))
            .map(|(_, target)| resolve(dir, target))
            .unwrap_or_else(|| resolve(dir, fallback))
    };
    let styles = match package.part(&target_of("styles", "styles.xml"))? {
        Some(xml) => Styles::parse(&xml).map_err(|e| corrupt(format!("styles.xml: {e}")))?,
        None => Styles::default(),
    };
    let numbering = match package.part(&target_of("numbering", "numbering.xml"))? {
        Some(xml) => Numbering::parse(&xml).map_err(corrupt)?,
        None => Numbering::default(),
    };
    Body::new(&styles, numbering).read(&document, |e| corrupt(format!("{main}: {e}")))
}

/// A part name from a relationship target relative to `dir`.
fn resolve(dir: &str, target: &str) -> String {
    if let Some(absolute) = target.strip_prefix('/') {
        return absolute.to_string();
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for piece in target.split('/') {
        match piece {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// `(type, target)` of each relationship in a `.rels` part.
fn relationships(xml: &str) -> Result<Vec<(String, String)>, String> {
    let mut reader = Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match next_event(&mut reader)? {
            Event::Start(e) | Event::Empty(e) if local(e.name().as_ref()) == b"Relationship" => {
                if let (Some(t), Some(target)) = (attr(&e, b"Type"), attr(&e, b"Target")) {
                    out.push((t, target));
                }
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

struct Package<'a, 'b> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    budget: &'b mut Budget,
}

impl<'a, 'b> Package<'a, 'b> {
    fn open(bytes: &'a [u8], budget: &'b mut Budget) -> Result<Self, FormatErrorKind> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| corrupt(format!("not a readable zip package: {e}")))?;
        Ok(Package { archive, budget })
    }

    /// The main document part: from `_rels/.rels`, else `word/document.xml`; a package of
    /// another kind (a spreadsheet, OpenDocument) is named as such.
    fn main_document_name(&mut self) -> Result<String, FormatErrorKind> {
        if let Some(xml) = self.part("_rels/.rels")? {
            let rels = relationships(&xml).map_err(|e| corrupt(format!("_rels/.rels: {e}")))?;
            if let Some((_, target)) = rels.iter().find(|(t, _)| t.ends_with("/officeDocument")) {
                let name = resolve("", target);
                if name.ends_with(".xml") && self.has(&name) && !name.starts_with("word/") {
                    return Err(self.other_kind());
                }
                if self.has(&name) {
                    return Ok(name);
                }
            }
        }
        if self.has("word/document.xml") {
            return Ok("word/document.xml".into());
        }
        Err(self.other_kind())
    }

    fn other_kind(&self) -> FormatErrorKind {
        let names: Vec<&str> = self.archive.file_names().collect();
        let has = |p: &str| names.iter().any(|n| n.starts_with(p));
        if has("xl/") {
            FormatErrorKind::Unsupported("an Excel workbook, not a Word document".into())
        } else if has("ppt/") {
            FormatErrorKind::Unsupported("a PowerPoint presentation, not a Word document".into())
        } else if has("content.xml") {
            FormatErrorKind::Unsupported(
                "an OpenDocument file: save it as .docx (Word 2007+)".into(),
            )
        } else {
            corrupt("a zip archive without a Word document part (word/document.xml)")
        }
    }

    fn has(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// A part's text, `None` when the package lacks it.
    fn part(&mut self, name: &str) -> Result<Option<String>, FormatErrorKind> {
        let mut file = match self.archive.by_name(name) {
            Ok(file) => file,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(corrupt(format!("part `{name}`: {e}"))),
        };
        let bytes = self.budget.read_inflated(&mut file).map_err(|e| match e {
            InflateError::Over(mut over) => {
                over.where_ = format!("(reading part `{name}`) ");
                FormatErrorKind::OverBudget(over)
            }
            InflateError::Read(e) => corrupt(format!("part `{name}` cannot be decompressed: {e}")),
        })?;
        let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(&bytes);
        String::from_utf8(body.to_vec())
            .map(Some)
            .map_err(|e| corrupt(format!("part `{name}` is not UTF-8 XML: {e}")))
    }
}

/// A style's properties that matter for text: its chain, numbering and outline level.
#[derive(Debug, Default)]
struct Style {
    name: String,
    based_on: Option<String>,
    num_id: Option<String>,
    ilvl: Option<usize>,
    outline: Option<usize>,
}

#[derive(Debug, Default)]
struct Styles {
    styles: HashMap<String, Style>,
    default_paragraph: Option<String>,
}

impl Styles {
    fn parse(xml: &str) -> Result<Self, String> {
        let mut styles = Styles::default();
        let mut reader = Reader::from_str(xml);
        let mut current: Option<(String, Style)> = None;
        loop {
            let event = next_event(&mut reader)?;
            match event {
                Event::Start(e) | Event::Empty(e) => {
                    let name = e.name();
                    let val = attr(&e, b"val");
                    match (local(name.as_ref()), current.as_mut()) {
                        (b"style", _) => {
                            let id = attr(&e, b"styleId").unwrap_or_default();
                            if attr(&e, b"type").as_deref() == Some("paragraph")
                                && on(attr(&e, b"default").as_deref())
                                && attr(&e, b"default").is_some()
                            {
                                styles.default_paragraph = Some(id.clone());
                            }
                            current = Some((id, Style::default()));
                        }
                        (b"name", Some((_, s))) => s.name = val.unwrap_or_default(),
                        (b"basedOn", Some((_, s))) => s.based_on = val,
                        (b"numId", Some((_, s))) => s.num_id = val,
                        (b"ilvl", Some((_, s))) => s.ilvl = val.and_then(|v| v.parse().ok()),
                        (b"outlineLvl", Some((_, s))) => {
                            s.outline = val.and_then(|v| v.parse().ok())
                        }
                        _ => {}
                    }
                }
                Event::End(e) if local(e.name().as_ref()) == b"style" => {
                    if let Some((id, style)) = current.take() {
                        styles.styles.insert(id, style);
                    }
                }
                Event::Eof => return Ok(styles),
                _ => {}
            }
        }
    }

    /// A style and the styles it is based on, nearest first (loops cut).
    fn chain<'s>(&'s self, id: &'s str) -> impl Iterator<Item = (&'s str, &'s Style)> + 's {
        let mut next = Some(id);
        std::iter::from_fn(move || {
            let id = next?;
            let style = self.styles.get(id)?;
            next = style.based_on.as_deref();
            Some((id, style))
        })
        .take(16)
    }

    /// The numbering a style gives its paragraphs: (style that sets it, numId, ilvl).
    fn numbering(&self, id: &str) -> Option<(String, String, Option<usize>)> {
        self.chain(id).find_map(|(sid, s)| {
            s.num_id
                .as_ref()
                .map(|n| (sid.to_string(), n.clone(), s.ilvl))
        })
    }

    /// The style's `numId`, for `numStyleLink`.
    fn num_id(&self, id: &str) -> Option<String> {
        self.chain(id).find_map(|(_, s)| s.num_id.clone())
    }

    /// The heading level (0-based outline level) a style gives: `w:outlineLvl` in its
    /// chain, else a built-in `heading N` name.
    fn outline(&self, id: &str) -> Option<usize> {
        self.chain(id).find_map(|(_, s)| {
            s.outline.or_else(|| {
                let name = s.name.to_ascii_lowercase();
                name.strip_prefix("heading ")
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .filter(|n| (1..=9).contains(n))
                    .map(|n| n - 1)
            })
        })
    }
}

/// The paragraph being read.
#[derive(Debug, Default)]
struct Paragraph {
    text: String,
    style: Option<String>,
    num_id: Option<String>,
    ilvl: Option<usize>,
    outline: Option<usize>,
    mark_deleted: bool,
}

/// A table being read: its rows so far, the current row's cells and the current cell's
/// paragraphs.
#[derive(Debug, Default)]
struct Table {
    rows: Vec<String>,
    cells: Vec<String>,
    cell: Vec<String>,
}

/// Elements whose content is not text a reader of the accepted document sees.
fn skipped(name: &[u8]) -> bool {
    matches!(
        name,
        b"del"
            | b"moveFrom"
            | b"instrText"
            | b"delText"
            | b"delInstrText"
            | b"txbxContent"
            | b"Fallback"
            | b"rt"
            | b"footnoteReference"
            | b"endnoteReference"
            | b"commentReference"
    ) || name.ends_with(b"Change")
}

/// Reading state of the document body.
struct Body<'s> {
    styles: &'s Styles,
    numbering: Numbering,
    blocks: Vec<String>,
    tables: Vec<Table>,
    paragraph: Option<Paragraph>,
    /// Text of paragraphs whose mark was deleted, joined to the next paragraph.
    carried: String,
    skip: usize,
    in_ppr: bool,
    in_run_props: bool,
    run_hidden: bool,
    in_text: bool,
}

impl<'s> Body<'s> {
    fn new(styles: &'s Styles, numbering: Numbering) -> Self {
        Body {
            styles,
            numbering,
            blocks: Vec::new(),
            tables: Vec::new(),
            paragraph: None,
            carried: String::new(),
            skip: 0,
            in_ppr: false,
            in_run_props: false,
            run_hidden: false,
            in_text: false,
        }
    }

    /// The body's text; `corrupt` makes the error for XML that is not well formed.
    fn read(
        mut self,
        xml: &str,
        corrupt: impl Fn(String) -> FormatErrorKind,
    ) -> Result<String, FormatErrorKind> {
        let mut reader = Reader::from_str(xml);
        loop {
            if self.blocks.len() > MAX_LINES {
                // Checked while reading: a part of tiny repeated paragraphs stops here.
                return Err(too_many_lines().into());
            }
            let event = next_event(&mut reader).map_err(&corrupt)?;
            match event {
                Event::Start(e) => {
                    if self.skip > 0 {
                        self.skip += 1;
                        continue;
                    }
                    let name = e.name();
                    let tag = local(name.as_ref());
                    self.mark_deleted_paragraph(tag);
                    if skipped(tag) {
                        self.skip = 1;
                        continue;
                    }
                    self.open(tag, &e);
                }
                Event::Empty(e) => {
                    if self.skip > 0 {
                        continue;
                    }
                    let name = e.name();
                    let tag = local(name.as_ref());
                    if self.mark_deleted_paragraph(tag) {
                        continue;
                    }
                    self.open(tag, &e);
                    self.close(tag);
                }
                Event::End(e) => {
                    if self.skip > 0 {
                        self.skip -= 1;
                        continue;
                    }
                    self.close(local(e.name().as_ref()));
                }
                Event::Text(t) if self.in_text && self.skip == 0 && !self.run_hidden => {
                    let text = t.xml10_content();
                    self.push_text(&text);
                }
                Event::CData(t) if self.in_text && self.skip == 0 && !self.run_hidden => {
                    let text = t.xml10_content().into_owned();
                    self.push_text(&text);
                }
                Event::GeneralRef(r) if self.in_text && self.skip == 0 && !self.run_hidden => {
                    let resolved = match r.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        _ => quick_xml::escape::resolve_predefined_entity(&r)
                            .unwrap_or_default()
                            .to_string(),
                    };
                    self.push_text(&resolved);
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !self.carried.is_empty() {
            let carried = std::mem::take(&mut self.carried);
            self.blocks.push(carried);
        }
        Ok(self.blocks.join("\n\n"))
    }

    fn push_text(&mut self, text: &str) {
        if let Some(p) = self.paragraph.as_mut() {
            p.text.push_str(text);
        }
    }

    /// Whether `tag` is a `w:del` inside a paragraph's properties (the paragraph mark itself
    /// was deleted); the paragraph is marked so.
    fn mark_deleted_paragraph(&mut self, tag: &[u8]) -> bool {
        let deleted = self.in_ppr && tag == b"del";
        if deleted {
            if let Some(p) = self.paragraph.as_mut() {
                p.mark_deleted = true;
            }
        }
        deleted
    }

    fn open(&mut self, tag: &[u8], e: &BytesStart<'_>) {
        let val = || attr(e, b"val");
        match tag {
            b"p" => {
                self.paragraph = Some(Paragraph::default());
                self.in_ppr = false;
            }
            b"pPr" => self.in_ppr = true,
            b"tbl" => self.tables.push(Table::default()),
            b"r" => {
                self.run_hidden = false;
                self.in_run_props = false;
            }
            b"rPr" if !self.in_ppr => self.in_run_props = true,
            b"vanish" if self.in_run_props => self.run_hidden = on(val().as_deref()),
            b"t" => self.in_text = true,
            _ => {}
        }
        let Some(p) = self.paragraph.as_mut() else {
            return;
        };
        if self.in_ppr {
            match tag {
                b"pStyle" => p.style = val(),
                b"numId" => p.num_id = val(),
                b"ilvl" => p.ilvl = val().and_then(|v| v.parse().ok()),
                b"outlineLvl" => p.outline = val().and_then(|v| v.parse().ok()),
                _ => {}
            }
            return;
        }
        if self.run_hidden {
            return;
        }
        match tag {
            b"tab" | b"ptab" => p.text.push(' '),
            b"br" => match attr(e, b"type").as_deref() {
                Some("page" | "column") => p.text.push(' '),
                _ => p.text.push('\n'),
            },
            b"cr" => p.text.push('\n'),
            b"noBreakHyphen" => p.text.push('-'),
            b"sym" => {
                if let Some(c) = attr(e, b"char")
                    .and_then(|h| u32::from_str_radix(&h, 16).ok())
                    .and_then(char::from_u32)
                    .filter(|c| !('\u{E000}'..='\u{F8FF}').contains(c))
                {
                    p.text.push(c);
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, tag: &[u8]) {
        match tag {
            b"pPr" => self.in_ppr = false,
            b"rPr" => self.in_run_props = false,
            b"r" => self.run_hidden = false,
            b"t" => self.in_text = false,
            b"p" => self.end_paragraph(),
            b"tc" => {
                if let Some(t) = self.tables.last_mut() {
                    let cell = std::mem::take(&mut t.cell).join(" ");
                    t.cells
                        .push(cell.replace(['\n', '|'], " ").trim().to_string());
                }
            }
            b"tr" => {
                if let Some(t) = self.tables.last_mut() {
                    let cells = std::mem::take(&mut t.cells);
                    if cells.iter().any(|c| !c.is_empty()) {
                        t.rows.push(format!("| {} |", cells.join(" | ")));
                    }
                }
            }
            b"tbl" => {
                if let Some(table) = self.tables.pop() {
                    match self.tables.last_mut() {
                        // A nested table becomes text of the outer cell.
                        Some(outer) => outer.cell.extend(table.rows),
                        None => self.blocks.extend(table.rows),
                    }
                }
            }
            _ => {}
        }
    }

    fn end_paragraph(&mut self) {
        self.in_ppr = false;
        let Some(p) = self.paragraph.take() else {
            return;
        };
        if p.mark_deleted {
            self.carried.push_str(&p.text);
            return;
        }
        let mut text = std::mem::take(&mut self.carried);
        text.push_str(&p.text);
        let text = text.trim();
        let style = p
            .style
            .clone()
            .or_else(|| self.styles.default_paragraph.clone());
        let label = self.label(&p, style.as_deref());
        let mut line = String::new();
        let heading = p
            .outline
            .or_else(|| style.as_deref().and_then(|s| self.styles.outline(s)))
            .filter(|&level| level < 9 && !text.is_empty());
        if let Some(level) = heading {
            line.push_str(&"#".repeat((level + 1).min(MAX_HEADING)));
            line.push(' ');
        } else if let Some(label) = label.as_ref().filter(|l| l.indent > 0) {
            // An item that looks like the next one of its outer list (`1.` under `1.`) is
            // indented as the reader sees it; the parser keeps tab-indented lines as text.
            line.push_str(&"\t".repeat(label.indent));
        }
        if let Some(label) = label.filter(|l| !l.text.trim().is_empty()) {
            line.push_str(label.text.trim_end());
            if label.spaced && !text.is_empty() {
                line.push(' ');
            }
        }
        line.push_str(text);
        if line.trim().is_empty() || line.trim_end_matches(['#', ' ']).is_empty() {
            return;
        }
        match self.tables.last_mut() {
            Some(table) => table.cell.push(line),
            None => self.blocks.push(line),
        }
    }

    /// The numbering label of a paragraph (ECMA-376 §17.9 with Word's behaviour): its own
    /// `numPr` wins over its style's; a missing `ilvl` comes from the style, else from the
    /// list level tied to the style, else 0.
    fn label(&mut self, p: &Paragraph, style: Option<&str>) -> Option<super::numbering::Label> {
        let styles = self.styles;
        let from_style = style.and_then(|s| styles.numbering(s));
        let (num_id, ilvl, tied_style) = match (&p.num_id, &from_style) {
            (Some(num), _) => (
                num.clone(),
                p.ilvl
                    .or_else(|| from_style.as_ref().and_then(|(_, _, l)| *l)),
                style.map(str::to_string),
            ),
            (None, Some((sid, num, l))) => (num.clone(), p.ilvl.or(*l), Some(sid.clone())),
            (None, None) => return None,
        };
        let style_num = |s: &str| styles.num_id(s);
        let ilvl = ilvl
            .or_else(|| {
                tied_style
                    .as_deref()
                    .and_then(|s| self.numbering.level_of_style(&num_id, s, &style_num))
            })
            .unwrap_or(0);
        self.numbering.next_label(&num_id, ilvl, &style_num)
    }
}
