// Over 700 lines, kept whole: one pass from objects to positioned lines to furniture
// removal, every step over the same page geometry; the document budget lives in `budget`.

//! PDF into text: the text layer (decoded by `pdf-extract` from `lopdf`'s objects) is
//! gathered into lines with their positions; lines repeated at the top or bottom of most
//! pages (running headers and footers) and page numbers (`Page 3 of 40`, `- 3 -`, `3`,
//! `第3页`) are dropped; a word hyphenated across a line break is joined (its hyphen kept
//! when the document writes the word hyphenated elsewhere). A PDF that needs a password, or
//! whose pages are only images (a scan), is an error saying so.
//!
//! The PDF libraries inflate streams, build each page's operators and keep a stack of saved
//! graphics states without limits. So the file is measured against the document
//! [`Budget`] before they run, in this process: the compressed streams the loader will
//! inflate are counted first (stopping past the budget); once loaded, every stream is
//! inflated once under the budget (images are emptied: their pixels are never text), and
//! each page's operators, forms and saved states are counted, forms drawn on the page
//! included, before the page is read.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

use flate2::read::ZlibDecoder;
use flate2::{Decompress, FlushDecompress, Status};
use lopdf::{Dictionary, Document, Object, ObjectId};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use regex::Regex;

use super::budget::{
    Budget, Limit, OverBudget, MAX_NESTING, MAX_OBJECT_NESTING, MAX_OPERATORS,
    MAX_OPERATORS_PER_PAGE,
};
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
    check_object_nesting(bytes)?;
    check_load_inflation(bytes)?;
    let mut doc = lopdf::Document::load_mem(bytes).map_err(|e| match e {
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword => {
            FormatErrorKind::EncryptedPdf
        }
        other => FormatErrorKind::CorruptPdf(other.to_string()),
    })?;
    // An owner password alone is removed while loading; a user password is not.
    if doc.is_encrypted() {
        return Err(FormatErrorKind::EncryptedPdf);
    }
    let mut budget = Budget::for_input(bytes.len() as u64);
    inflate_streams(&mut doc, &mut budget)?;
    let page_ids: Vec<lopdf::ObjectId> = doc.get_pages().into_values().collect();
    if page_ids.is_empty() {
        return Err(FormatErrorKind::CorruptPdf("it has no pages".into()));
    }
    check_page_tree(&doc, &page_ids)?;
    let mut operators = 0;
    for (i, &page) in page_ids.iter().enumerate() {
        operators += PageCost::measure(&doc, &budget, page, i + 1)?;
        if operators > MAX_OPERATORS {
            return Err(budget.over(Limit::Operators, String::new()).into());
        }
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

/// How deep arrays, dictionaries and literal-string parentheses nest, read byte by byte
/// (across calls, so inflated data can be fed as it comes): the recursion the PDF loader
/// would make, measured before it runs (PDF 32000-1, 7.2 and 7.3). Comments and hex
/// strings are skipped; `obj`, `endobj`, `xref` and `trailer` start again at depth 0, so a
/// damaged object does not count against the next.
#[derive(Debug, Default)]
struct NestingScan {
    /// Arrays and dictionaries open.
    depth: usize,
    /// Parentheses open in a literal string (0: not in a string).
    string: usize,
    escaped: bool,
    comment: bool,
    hex: bool,
    /// The previous byte was a `<` not yet known to open a dictionary or a hex string.
    less: bool,
    /// The previous byte was a `>` that may close a dictionary.
    greater: bool,
    /// The keyword being read (its first bytes), for `stream` and the object keywords.
    word: [u8; 8],
    /// Bytes of the word read so far (past 8: too long for a keyword).
    word_len: usize,
    /// The word is a name (`/stream` is not the keyword).
    name: bool,
}

/// Where a [`NestingScan::feed`] stopped.
enum Scanned {
    /// At the end of the bytes given.
    End,
    /// After the keyword `stream`, at this index: a stream's data follows (raw file only).
    Stream(usize),
    /// Over [`MAX_OBJECT_NESTING`] at this index.
    Over(usize),
}

impl NestingScan {
    /// Reads `bytes`; `streams` says whether to stop after the keyword `stream` (in the file,
    /// whose stream data is not PDF syntax; an object stream has no such keyword).
    fn feed(&mut self, bytes: &[u8], streams: bool) -> Scanned {
        for (i, &b) in bytes.iter().enumerate() {
            if self.string > 0 {
                if self.escaped {
                    self.escaped = false;
                } else {
                    match b {
                        b'\\' => self.escaped = true,
                        b'(' => {
                            self.string += 1;
                            if self.string > MAX_OBJECT_NESTING {
                                return Scanned::Over(i);
                            }
                        }
                        b')' => self.string -= 1,
                        _ => {}
                    }
                }
                continue;
            }
            if self.comment {
                self.comment = !matches!(b, b'\n' | b'\r');
                continue;
            }
            if self.hex {
                self.hex = b != b'>';
                continue;
            }
            if std::mem::take(&mut self.less) {
                if b == b'<' {
                    self.depth += 1;
                    if self.depth > MAX_OBJECT_NESTING {
                        return Scanned::Over(i);
                    }
                } else {
                    self.hex = b != b'>';
                }
                continue;
            }
            if std::mem::take(&mut self.greater) && b == b'>' {
                self.depth = self.depth.saturating_sub(1);
                continue;
            }
            if is_space(b) || is_delimiter(b) {
                let word = &self.word[..self.word_len.min(self.word.len())];
                let keyword = !self.name && self.word_len <= self.word.len();
                self.word_len = 0;
                self.name = b == b'/';
                match word {
                    b"obj" | b"endobj" | b"xref" | b"trailer" if keyword => self.depth = 0,
                    b"stream" if keyword && streams => return Scanned::Stream(i),
                    _ => {}
                }
            }
            match b {
                b'%' => self.comment = true,
                b'(' => self.string = 1,
                b'<' => self.less = true,
                b'>' => self.greater = true,
                b'[' => {
                    self.depth += 1;
                    if self.depth > MAX_OBJECT_NESTING {
                        return Scanned::Over(i);
                    }
                }
                b']' => self.depth = self.depth.saturating_sub(1),
                b if is_space(b) || is_delimiter(b) => {}
                b => {
                    if let Some(slot) = self.word.get_mut(self.word_len) {
                        *slot = b;
                    }
                    self.word_len = self.word_len.saturating_add(1);
                }
            }
        }
        Scanned::End
    }
}

/// Refuses a file with an object nested deeper than [`MAX_OBJECT_NESTING`] (arrays,
/// dictionaries, parentheses in a string), stream data skipped, before the loader reads it:
/// past its own limit the loader drops such an object with only a log line, and a dropped
/// page tree reads as a PDF with no pages.
fn check_object_nesting(bytes: &[u8]) -> Result<(), OverBudget> {
    let mut scan = NestingScan::default();
    let mut from = 0;
    while from < bytes.len() {
        match scan.feed(&bytes[from..], true) {
            Scanned::End => break,
            Scanned::Stream(at) => {
                let data = from + at;
                match find(&bytes[data..], b"endstream") {
                    Some(end) => from = data + end + b"endstream".len(),
                    None => break,
                }
            }
            Scanned::Over(at) => {
                return Err(object_nesting_over(format!("at byte {} ", from + at)));
            }
        }
    }
    Ok(())
}

/// The refusal of an object nested too deep, `where_` saying where (`at byte 120 `).
fn object_nesting_over(where_: String) -> OverBudget {
    OverBudget {
        limit: Limit::ObjectNesting,
        allowed: MAX_OBJECT_NESTING as u64,
        where_,
    }
}

/// Counts what the PDF loader inflates while it loads (object and cross-reference streams)
/// before it runs: every stream of the file that starts as zlib data, images aside, inflated
/// into one scratch buffer (one decoder, reset per stream) under a budget of its own. Over
/// the budget, the file is refused unread. The objects of an object stream (`/ObjStm`) are
/// measured for nesting as they are inflated, as [`check_object_nesting`] does in the file.
fn check_load_inflation(bytes: &[u8]) -> Result<(), OverBudget> {
    let mut budget = Budget::for_input(bytes.len() as u64);
    let mut decoder = Decompress::new(true);
    let mut scratch = vec![0u8; 64 * 1024];
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], b"stream").map(|i| i + from) {
        from = at + 6;
        if at >= 3 && &bytes[at - 3..at] == b"end" {
            continue;
        }
        let start = match &bytes[from..] {
            [b'\r', b'\n', ..] => from + 2,
            [b'\n' | b'\r', ..] => from + 1,
            _ => continue,
        };
        // zlib's header: deflate, and a check value dividing by 31.
        let zlib = matches!(&bytes[start..], [cmf, flg, ..]
            if cmf & 0x0F == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0);
        if !zlib {
            continue;
        }
        let near = &bytes[at.saturating_sub(4096)..at];
        let dict = near
            .windows(3)
            .rposition(|w| w == b"obj")
            .map_or(near, |i| &near[i..]);
        if find(dict, b"/Image").is_some() {
            continue;
        }
        let mut objects = find(dict, b"/ObjStm").map(|_| NestingScan::default());
        decoder.reset(true);
        let mut input = &bytes[start..];
        loop {
            let (in_before, out_before) = (decoder.total_in(), decoder.total_out());
            let status = decoder.decompress(input, &mut scratch, FlushDecompress::None);
            let produced = decoder.total_out() - out_before;
            input = &input[(decoder.total_in() - in_before) as usize..];
            budget.inflate(produced)?;
            if let Some(scan) = objects.as_mut() {
                if let Scanned::Over(_) = scan.feed(&scratch[..produced as usize], false) {
                    return Err(object_nesting_over(format!(
                        "in the object stream at byte {at} "
                    )));
                }
            }
            match status {
                Ok(Status::Ok) if produced > 0 || decoder.total_in() > in_before => {}
                _ => break,
            }
        }
    }
    Ok(())
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Worst ratio of LZW output to input: a 9-bit code stands for at most 4,096 bytes.
const LZW_WORST_RATIO: u64 = 3_641;

/// Inflates every stream of the loaded document once, under the budget, so the text
/// extraction that follows reads plain bytes and inflates nothing itself. Images are emptied
/// (their dictionaries kept, for the scan check). A filter not read here (image codecs) is
/// left to the extraction, which then reads the stream's bytes as they are.
fn inflate_streams(doc: &mut Document, budget: &mut Budget) -> Result<(), OverBudget> {
    for object in doc.objects.values_mut() {
        let Object::Stream(stream) = object else {
            continue;
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Image") {
            stream.content = Vec::new();
            continue;
        }
        let Ok(filters) = stream.filters() else {
            continue;
        };
        let filters: Vec<Vec<u8>> = filters.into_iter().map(<[u8]>::to_vec).collect();
        if filters.is_empty() {
            continue;
        }
        let mut data = stream.content.clone();
        let mut decoded = true;
        for filter in &filters {
            let next = match filter.as_slice() {
                b"FlateDecode" => Some(budget.read_inflated_lenient(ZlibDecoder::new(&data[..]))?),
                b"LZWDecode" | b"ASCII85Decode" => {
                    if filter == b"LZWDecode"
                        && (data.len() as u64).saturating_mul(LZW_WORST_RATIO)
                            > budget.inflated_left()
                    {
                        return Err(budget.over(Limit::InflatedBytes, String::new()));
                    }
                    let mut one = Dictionary::new();
                    one.set("Filter", Object::Name(filter.clone()));
                    match lopdf::Stream::new(one, std::mem::take(&mut data)).decompressed_content()
                    {
                        Ok(out) => {
                            budget.inflate(out.len() as u64)?;
                            Some(out)
                        }
                        Err(_) => None,
                    }
                }
                _ => None,
            };
            match next {
                Some(next) => data = next,
                None => {
                    decoded = false;
                    break;
                }
            }
        }
        if !decoded {
            continue;
        }
        let predictor = stream
            .dict
            .get(b"DecodeParms")
            .and_then(Object::as_dict)
            .and_then(|p| p.get(b"Predictor"))
            .and_then(Object::as_i64)
            .is_ok_and(|p| p > 1);
        if predictor {
            // Measured above; the loader's decoder undoes the predictor (never larger).
            let _ = stream.decompress();
        } else {
            stream.set_plain_content(data);
        }
    }
    Ok(())
}

/// Every page's `/Parent` chain ends, within [`MAX_NESTING`] levels, without passing an
/// object twice. The text extraction looks up a page's inherited attributes (resources,
/// media box) by recursing up that chain: a page that is its own ancestor would recurse
/// until the stack overflows, which no `catch_unwind` can catch and which ends the process.
fn check_page_tree(doc: &Document, page_ids: &[ObjectId]) -> Result<(), FormatErrorKind> {
    for (i, &page) in page_ids.iter().enumerate() {
        let mut seen = HashSet::from([page]);
        let mut node = page;
        for depth in 0.. {
            let parent = doc
                .get_dictionary(node)
                .ok()
                .and_then(|d| d.get(b"Parent").ok())
                .and_then(|p| p.as_reference().ok());
            let Some(parent) = parent else {
                break;
            };
            if !seen.insert(parent) {
                return Err(FormatErrorKind::CorruptPdf(format!(
                    "its page tree loops: page {} is its own ancestor (object {} {} comes back in its /Parent chain)",
                    i + 1,
                    parent.0,
                    parent.1
                )));
            }
            if depth >= MAX_NESTING {
                return Err(FormatErrorKind::CorruptPdf(format!(
                    "its page tree is more than {MAX_NESTING} levels deep above page {}",
                    i + 1
                )));
            }
            node = parent;
        }
    }
    Ok(())
}

/// What drawing one page takes: operators (forms drawn on it included, each time drawn),
/// and how deep forms and saved graphics states nest; its operators also count towards the
/// document's. Counted on the plain bytes, before
/// the extraction builds the page's operators.
struct PageCost<'d> {
    doc: &'d Document,
    budget: &'d Budget,
    page: usize,
    operators: u64,
    /// The forms being drawn, outermost first.
    forms: Vec<ObjectId>,
}

impl<'d> PageCost<'d> {
    fn measure(
        doc: &'d Document,
        budget: &'d Budget,
        page_id: ObjectId,
        page: usize,
    ) -> Result<u64, OverBudget> {
        let mut cost = PageCost {
            doc,
            budget,
            page,
            operators: 0,
            forms: Vec::new(),
        };
        let resources = cost.page_resources(page_id);
        for id in doc.get_page_contents(page_id) {
            if let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) {
                cost.walk(&stream.content, resources)?;
            }
        }
        Ok(cost.operators)
    }

    fn over(&self, limit: Limit) -> OverBudget {
        self.budget.over(limit, format!("on page {} ", self.page))
    }

    fn dict(&self, object: &'d Object) -> Option<&'d Dictionary> {
        self.doc.dereference(object).ok()?.1.as_dict().ok()
    }

    /// The page's resources, its own or inherited from the page tree.
    fn page_resources(&self, page_id: ObjectId) -> Option<&'d Dictionary> {
        let mut node = self.doc.get_dictionary(page_id).ok()?;
        for _ in 0..MAX_NESTING {
            if let Some(resources) = node.get(b"Resources").ok().and_then(|r| self.dict(r)) {
                return Some(resources);
            }
            node = node.get(b"Parent").ok().and_then(|p| self.dict(p))?;
        }
        None
    }

    /// Counts the operators of one content stream, following the forms it draws.
    fn walk(
        &mut self,
        content: &'d [u8],
        resources: Option<&'d Dictionary>,
    ) -> Result<(), OverBudget> {
        let mut tokens = Tokens {
            bytes: content,
            at: 0,
            depth: 0,
            string_depth: 0,
        };
        let (mut saved, mut marked) = (0usize, 0usize);
        let mut last_name: Option<&'d [u8]> = None;
        while let Some(token) = tokens.next() {
            if tokens.depth > MAX_OBJECT_NESTING || tokens.string_depth > MAX_OBJECT_NESTING {
                return Err(self.over(Limit::ObjectNesting));
            }
            let operator = match token {
                Token::Name(name) => {
                    last_name = Some(name);
                    continue;
                }
                Token::Operand => continue,
                Token::Operator(op) => op,
            };
            self.operators += 1;
            if self.operators > MAX_OPERATORS_PER_PAGE {
                return Err(self.over(Limit::OperatorsPerPage));
            }
            match operator {
                b"q" => saved += 1,
                b"Q" => saved = saved.saturating_sub(1),
                b"BMC" | b"BDC" => marked += 1,
                b"EMC" => marked = marked.saturating_sub(1),
                b"BI" => tokens.skip_inline_image(),
                b"Do" => {
                    if let Some(name) = last_name {
                        self.draw_form(name, resources)?;
                    }
                }
                _ => {}
            }
            if saved > MAX_NESTING || marked > MAX_NESTING {
                return Err(self.over(Limit::Nesting));
            }
            last_name = None;
        }
        Ok(())
    }

    /// `Do` of a form: its operators count on this page; a form that draws itself, or forms
    /// nested deeper than the budget, are refused (the extraction would recurse without end).
    fn draw_form(
        &mut self,
        name: &[u8],
        resources: Option<&'d Dictionary>,
    ) -> Result<(), OverBudget> {
        let Some(xobjects) = resources
            .and_then(|r| r.get(b"XObject").ok())
            .and_then(|x| self.dict(x))
        else {
            return Ok(());
        };
        let Ok(id) = xobjects.get(name).and_then(Object::as_reference) else {
            return Ok(());
        };
        let Ok(form) = self.doc.get_object(id).and_then(Object::as_stream) else {
            return Ok(());
        };
        if form.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Image") {
            return Ok(());
        }
        if self.forms.contains(&id) || self.forms.len() >= MAX_NESTING {
            return Err(self.over(Limit::Nesting));
        }
        let own = form.dict.get(b"Resources").ok().and_then(|r| self.dict(r));
        self.forms.push(id);
        self.walk(&form.content, own.or(resources))?;
        self.forms.pop();
        Ok(())
    }
}

/// A token of a content stream, as far as counting needs.
enum Token<'a> {
    /// `/Name`.
    Name(&'a [u8]),
    /// A number, string, array or dictionary delimiter, `true`, `false`, `null`.
    Operand,
    /// An operator (`q`, `Tj`, `Do`, ...).
    Operator(&'a [u8]),
}

/// The tokens of a content stream (PDF 32000-1, 7.2 and 7.8.2).
struct Tokens<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Arrays and dictionaries open (operands of `TJ`, `BDC`, inline images).
    depth: usize,
    /// The deepest a literal string's parentheses went.
    string_depth: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0C' | b'\0')
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<Token<'a>> {
        let bytes = self.bytes;
        loop {
            let b = *bytes.get(self.at)?;
            match b {
                b if is_space(b) => self.at += 1,
                b'%' => {
                    while self.at < bytes.len() && !matches!(bytes[self.at], b'\n' | b'\r') {
                        self.at += 1;
                    }
                }
                b'/' => {
                    let start = self.at + 1;
                    self.at = start;
                    self.regular();
                    return Some(Token::Name(&bytes[start..self.at]));
                }
                b'(' => {
                    self.string();
                    return Some(Token::Operand);
                }
                b'<' => {
                    if bytes.get(self.at + 1) == Some(&b'<') {
                        self.at += 2;
                        self.depth += 1;
                    } else {
                        while self.at < bytes.len() && bytes[self.at] != b'>' {
                            self.at += 1;
                        }
                        self.at += 1;
                    }
                    return Some(Token::Operand);
                }
                b'>' | b'[' | b']' | b'{' | b'}' | b')' => {
                    match b {
                        b'[' => self.depth += 1,
                        b']' => self.depth = self.depth.saturating_sub(1),
                        b'>' if bytes.get(self.at + 1) == Some(&b'>') => {
                            self.at += 1;
                            self.depth = self.depth.saturating_sub(1);
                        }
                        _ => {}
                    }
                    self.at += 1;
                    return Some(Token::Operand);
                }
                _ => {
                    let start = self.at;
                    self.regular();
                    let word = &bytes[start..self.at];
                    let operand = matches!(word[0], b'0'..=b'9' | b'+' | b'-' | b'.')
                        || matches!(word, b"true" | b"false" | b"null");
                    return Some(if operand {
                        Token::Operand
                    } else {
                        Token::Operator(word)
                    });
                }
            }
        }
    }

    /// Moves past a run of regular characters (at least one).
    fn regular(&mut self) {
        let start = self.at;
        while self.at < self.bytes.len()
            && !is_space(self.bytes[self.at])
            && !is_delimiter(self.bytes[self.at])
        {
            self.at += 1;
        }
        if self.at == start && start < self.bytes.len() && self.bytes[start] != b'/' {
            self.at += 1;
        }
    }

    /// Moves past a literal string: balanced parentheses, `\` escapes.
    fn string(&mut self) {
        let mut depth = 0usize;
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => self.at += 1,
                b'(' => {
                    depth += 1;
                    self.string_depth = self.string_depth.max(depth);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    /// After `BI`: moves past the image's dictionary, `ID`, its data and `EI`.
    fn skip_inline_image(&mut self) {
        let bytes = self.bytes;
        match find(&bytes[self.at.min(bytes.len())..], b"ID") {
            Some(i) => self.at += i + 2,
            None => {
                self.at = bytes.len();
                return;
            }
        }
        while self.at + 2 <= bytes.len() {
            if &bytes[self.at..self.at + 2] == b"EI"
                && self.at > 0
                && is_space(bytes[self.at - 1])
                && bytes.get(self.at + 2).is_none_or(|&b| is_space(b))
            {
                self.at += 2;
                return;
            }
            self.at += 1;
        }
        self.at = bytes.len();
    }
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
mod tests;
