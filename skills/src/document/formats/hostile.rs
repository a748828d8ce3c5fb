//! Hostile documents against the document budget: each is built here (small on disk, large
//! once inflated), at the size it was found and at ten times that size, and must be refused
//! with the limit it crosses, never read until memory runs out.

use std::io::Write;
use std::path::Path;

use flate2::{Compress, Compression, FlushCompress};

use super::budget::{Budget, Limit, MAX_LINES, MAX_OBJECT_NESTING, MIN_INFLATED_BYTES};
use super::{text_from_bytes, FormatErrorKind};

const MIB: usize = 1 << 20;

/// Raw deflate data of `unit` repeated to `mib` MiB: one MiB compressed once (a full flush
/// makes it independent of what precedes it) and repeated, then a final empty block.
fn deflate_repeated(unit: &[u8], mib: usize) -> Vec<u8> {
    let chunk: Vec<u8> = unit.iter().copied().cycle().take(MIB).collect();
    let mut compress = Compress::new(Compression::best(), false);
    let mut one = Vec::with_capacity(MIB);
    compress
        .compress_vec(&chunk, &mut one, FlushCompress::Full)
        .unwrap();
    assert_eq!(compress.total_in(), MIB as u64, "one chunk in one call");
    let mut out = Vec::with_capacity(one.len() * mib + 16);
    for _ in 0..mib {
        out.extend_from_slice(&one);
    }
    let mut end = Vec::with_capacity(64);
    Compress::new(Compression::best(), false)
        .compress_vec(&[], &mut end, FlushCompress::Finish)
        .unwrap();
    out.extend_from_slice(&end);
    out
}

/// `deflate_repeated` as zlib data, with its checksum.
pub(super) fn zlib_repeated(unit: &[u8], mib: usize) -> Vec<u8> {
    const MOD: u64 = 65_521;
    let chunk: Vec<u8> = unit.iter().copied().cycle().take(MIB).collect();
    let (mut a, mut b) = (1u64, 0u64);
    for &byte in &chunk {
        a = (a + byte as u64) % MOD;
        b = (b + a) % MOD;
    }
    let (chunk_a, chunk_b) = (a, b);
    let (mut a, mut b) = (1u64, 0u64);
    for _ in 0..mib {
        // Adler-32 of two pieces combined (zlib's adler32_combine).
        let len = MIB as u64 % MOD;
        b = (b + chunk_b + len * (a + MOD - 1)) % MOD;
        a = (a + chunk_a + MOD - 1) % MOD;
    }
    let mut out = vec![0x78, 0xDA];
    out.extend(deflate_repeated(unit, mib));
    out.extend_from_slice(&(((b << 16) | a) as u32).to_be_bytes());
    out
}

/// A one-page PDF: `content` is the page's content stream (`/FlateDecode` when
/// `compressed`), `extra` more objects numbered from 6.
fn pdf(content: &[u8], compressed: bool, extra: &[Vec<u8>], xobjects: &str) -> Vec<u8> {
    let mut stream = format!(
        "<< /Length {}{} >>\nstream\n",
        content.len(),
        if compressed {
            " /Filter /FlateDecode"
        } else {
            ""
        }
    )
    .into_bytes();
    stream.extend_from_slice(content);
    stream.extend_from_slice(b"\nendstream");
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << {xobjects} >> >> /Contents 4 0 R >>").into_bytes(),
        stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    objects.extend(extra.iter().cloned());
    pdf_of(&objects)
}

/// A PDF of `objects`, numbered from 1 (the first is the catalog), with its cross-reference
/// table.
fn pdf_of(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).unwrap();
    for offset in offsets {
        writeln!(out, "{offset:010} 00000 n ").unwrap();
    }
    write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .unwrap();
    out
}

/// A form XObject drawing `content`.
fn form(content: &str, resources: &str) -> Vec<u8> {
    format!(
        "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << {resources} >> >> /Length {} >>\nstream\n{content}\nendstream",
        content.len()
    )
    .into_bytes()
}

const TEXT: &[u8] = b"BT /F1 12 Tf 72 720 Td (1. Definitions) Tj ET";

fn read(name: &str, bytes: &[u8]) -> Result<String, FormatErrorKind> {
    text_from_bytes(Path::new(name), bytes)
        .map(|(text, _)| text)
        .map_err(|e| e.kind)
}

/// The limit a refusal names (and that it is a refusal for cost, with a message naming it).
fn refused(result: Result<String, FormatErrorKind>) -> Limit {
    match result {
        Err(FormatErrorKind::OverBudget(over)) => {
            let kind = FormatErrorKind::OverBudget(over.clone());
            assert!(kind.is_over_limit());
            assert!(
                kind.to_string().contains("over the document budget"),
                "{kind}"
            );
            over.limit
        }
        other => panic!("expected a refusal over the budget, got {other:?}"),
    }
}

#[test]
fn an_ordinary_pdf_is_read_through_the_budget() {
    let plain = pdf(TEXT, false, &[], "");
    assert!(read("a.pdf", &plain).unwrap().contains("1. Definitions"));
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), Compression::best());
    e.write_all(TEXT).unwrap();
    let flate = pdf(&e.finish().unwrap(), true, &[], "");
    assert!(read("a.pdf", &flate).unwrap().contains("1. Definitions"));
}

#[test]
fn nested_saved_graphics_states_are_refused() {
    // As found: three million `q`, plain (6 MB) and compressed (12 KB).
    let mut deep = b"q ".repeat(3_000_000);
    deep.extend_from_slice(TEXT);
    deep.extend(b" Q".repeat(3_000_000));
    assert_eq!(
        refused(read("deepq.pdf", &pdf(&deep, false, &[], ""))),
        Limit::Nesting
    );
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), Compression::fast());
    e.write_all(&deep).unwrap();
    let small = pdf(&e.finish().unwrap(), true, &[], "");
    assert!(small.len() < 200_000, "{}", small.len());
    assert_eq!(refused(read("deepq.pdf", &small)), Limit::Nesting);
    // Ten times as deep (60 MiB of `q` from 60 KB): the inflation stops first.
    let ten = pdf(&zlib_repeated(b"q ", 60), true, &[], "");
    assert!(ten.len() < 1 << 20, "{}", ten.len());
    assert_eq!(refused(read("deepq10.pdf", &ten)), Limit::InflatedBytes);
}

#[test]
fn stream_bombs_are_refused() {
    for gib in [1, 10] {
        let bomb = pdf(&zlib_repeated(b" ", gib * 1024), true, &[], "");
        assert!(bomb.len() < 12 * MIB, "{}", bomb.len());
        assert_eq!(refused(read("bomb.pdf", &bomb)), Limit::InflatedBytes);
    }
}

#[test]
fn too_many_operators_on_a_page_are_refused() {
    // 600,000 operators, plain; then ten times as many, compressed.
    let ops = b"0 0 m ".repeat(600_000);
    assert_eq!(
        refused(read("ops.pdf", &pdf(&ops, false, &[], ""))),
        Limit::OperatorsPerPage
    );
    let ten = pdf(&zlib_repeated(b"0 0 m ", 34), true, &[], "");
    let limit = refused(read("ops10.pdf", &ten));
    assert!(
        matches!(limit, Limit::OperatorsPerPage | Limit::InflatedBytes),
        "{limit:?}"
    );
}

/// A PDF of `pages` pages that all draw one content stream.
fn pdf_sharing_one_page(content: &[u8], pages: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 4 + i)).collect();
    let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    stream.extend_from_slice(content);
    stream.extend_from_slice(b"\nendstream");
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .into_bytes(),
        stream,
    ];
    for _ in 0..pages {
        objects.push(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>".to_vec(),
        );
    }
    pdf_of(&objects)
}

#[test]
fn one_busy_page_drawn_on_many_pages_is_refused() {
    // Each page is within its limit; together 101 of them pass the document's.
    let busy = b"0 0 m ".repeat(499_999);
    let doc = pdf_sharing_one_page(&busy, 101);
    assert!(doc.len() < 4 * MIB, "{}", doc.len());
    assert_eq!(refused(read("pages.pdf", &doc)), Limit::Operators);
}

#[test]
fn forms_drawing_themselves_or_each_other_exponentially_are_refused() {
    // Object 6 draws itself.
    let looping = pdf(
        b"/Fm Do",
        false,
        &[form("/Fm Do", "/Fm 6 0 R")],
        "/Fm 6 0 R",
    );
    assert_eq!(refused(read("loop.pdf", &looping)), Limit::Nesting);
    // Twenty forms, each drawing the next twice: a million draws of the last, from 2 KB;
    // then forty (ten times... and more: 2^40).
    for depth in [20usize, 40] {
        let forms: Vec<Vec<u8>> = (0..depth)
            .map(|i| {
                let next = 6 + i + 1;
                if i + 1 == depth {
                    form("0 0 m", "")
                } else {
                    form("/Fm Do /Fm Do", &format!("/Fm {next} 0 R"))
                }
            })
            .collect();
        let doc = pdf(b"/Fm Do", false, &forms, "/Fm 6 0 R");
        assert_eq!(
            refused(read("forms.pdf", &doc)),
            Limit::OperatorsPerPage,
            "{depth}"
        );
    }
}

/// A one-page PDF whose page tree carries `value` under `/Deep` (the page tree, so a loader
/// that drops the object finds no pages).
fn pdf_with_deep_value(value: &[u8]) -> Vec<u8> {
    let mut pages = b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Deep ".to_vec();
    pages.extend_from_slice(value);
    pages.extend_from_slice(b" >>");
    let mut stream = format!("<< /Length {} >>\nstream\n", TEXT.len()).into_bytes();
    stream.extend_from_slice(TEXT);
    stream.extend_from_slice(b"\nendstream");
    pdf_of(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        pages,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_vec(),
        stream,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ])
}

/// `open` `depth` times, then `close` as many times.
fn nested(open: &str, close: &str, depth: usize) -> Vec<u8> {
    let mut out = open.repeat(depth).into_bytes();
    out.extend(close.repeat(depth).into_bytes());
    out
}

/// Dictionaries `depth` deep, each the value of the one around it.
fn nested_dictionaries(depth: usize) -> Vec<u8> {
    let mut out = "<< /A ".repeat(depth).into_bytes();
    out.push(b'1');
    out.extend(" >>".repeat(depth).into_bytes());
    out
}

#[test]
fn objects_nested_past_the_budget_are_refused_not_read_as_pageless() {
    // As found (arrays 10,000 deep in the page tree), and ten times as deep; dictionaries
    // and parentheses in a string likewise.
    for depth in [10_000, 100_000] {
        for value in [
            nested("[", "]", depth),
            nested_dictionaries(depth),
            nested("(", ")", depth),
        ] {
            let doc = pdf_with_deep_value(&value);
            match read("deep.pdf", &doc) {
                Err(FormatErrorKind::OverBudget(over)) => {
                    assert_eq!(over.limit, Limit::ObjectNesting);
                    let text = over.to_string();
                    assert!(
                        text.contains("more than 64 levels of nesting in one PDF object")
                            && text.contains("at byte "),
                        "{text}"
                    );
                }
                other => panic!("{depth}: expected a refusal over the budget, got {other:?}"),
            }
        }
    }
    // A name spelt like the keyword `stream` does not make the scan skip what follows.
    let mut hidden = b"[/stream ".to_vec();
    hidden.extend(nested("[", "]", 10_000));
    hidden.extend_from_slice(b" (endstream)]");
    assert_eq!(
        refused(read("hidden.pdf", &pdf_with_deep_value(&hidden))),
        Limit::ObjectNesting
    );
    // Just past the budget, still below the loader's own limit.
    let doc = pdf_with_deep_value(&nested("[", "]", MAX_OBJECT_NESTING));
    assert_eq!(refused(read("deep.pdf", &doc)), Limit::ObjectNesting);
    // At the budget (the page tree's own dictionary is one level): read, whatever the
    // brackets in strings, comments and stream data.
    let mut fine = b"[(a [[[[ string \\( with [ brackets) % [[[[[[ a comment\n <5B5B5B> ".to_vec();
    fine.extend(nested("[", "]", MAX_OBJECT_NESTING - 2));
    fine.extend_from_slice(b" ]");
    for value in [fine, nested_dictionaries(MAX_OBJECT_NESTING - 1)] {
        let doc = pdf_with_deep_value(&value);
        assert!(read("fine.pdf", &doc).unwrap().contains("1. Definitions"));
    }
    let mut content = b"[".repeat(MAX_OBJECT_NESTING * 2);
    content.extend_from_slice(b" 0 0 m ");
    let binary = pdf(
        TEXT,
        false,
        &[form(&String::from_utf8(content).unwrap(), "")],
        "",
    );
    assert!(read("binary.pdf", &binary)
        .unwrap()
        .contains("1. Definitions"));
}

#[test]
fn objects_nested_past_the_budget_in_an_object_stream_or_a_page_are_refused() {
    let mut objects = b"6 0 ".to_vec();
    objects.extend(nested("[", "]", 1_000_000));
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), Compression::best());
    e.write_all(&objects).unwrap();
    let data = e.finish().unwrap();
    let mut stream = format!(
        "<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length {} >>\nstream\n",
        data.len()
    )
    .into_bytes();
    stream.extend_from_slice(&data);
    stream.extend_from_slice(b"\nendstream");
    let doc = pdf(TEXT, false, &[stream], "");
    assert!(doc.len() < 20_000, "{}", doc.len());
    match read("objstm.pdf", &doc) {
        Err(FormatErrorKind::OverBudget(over)) => {
            assert_eq!(over.limit, Limit::ObjectNesting);
            assert!(over.to_string().contains("in the object stream"), "{over}");
        }
        other => panic!("expected a refusal over the budget, got {other:?}"),
    }
    // A page's content stream: an operand nested past the budget.
    for content in [
        nested("[", "]", 10_000),
        nested_dictionaries(10_000),
        nested("(", ")", 10_000),
    ] {
        let mut page = content;
        page.extend_from_slice(b" TJ ");
        page.extend_from_slice(TEXT);
        let doc = pdf(&page, false, &[], "");
        match read("page.pdf", &doc) {
            Err(FormatErrorKind::OverBudget(over)) => {
                assert_eq!(over.limit, Limit::ObjectNesting);
                assert!(over.to_string().contains("on page 1"), "{over}");
            }
            other => panic!("expected a refusal over the budget, got {other:?}"),
        }
    }
}

/// A `.docx` whose document part is `mib` MiB of `paragraph` repeated, written by hand
/// (the part compressed once per MiB, as in [`deflate_repeated`]).
fn docx_bomb(paragraph: &[u8], mib: usize) -> Vec<u8> {
    let data = deflate_repeated(paragraph, mib);
    let chunk: Vec<u8> = paragraph.iter().copied().cycle().take(MIB).collect();
    let mut one = flate2::Crc::new();
    one.update(&chunk);
    let mut crc = flate2::Crc::new();
    for _ in 0..mib {
        crc.combine(&one);
    }
    let crc = crc.sum().to_le_bytes();
    let name = b"word/document.xml";
    let size = (mib * MIB) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"PK\x03\x04");
    out.extend_from_slice(&20u16.to_le_bytes()); // version needed
    out.extend_from_slice(&0u16.to_le_bytes()); // flags
    out.extend_from_slice(&8u16.to_le_bytes()); // deflate
    out.extend_from_slice(&[0; 4]); // time, date
    out.extend_from_slice(&crc);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(&data);
    let central = out.len();
    out.extend_from_slice(b"PK\x01\x02");
    out.extend_from_slice(&20u16.to_le_bytes()); // made by
    out.extend_from_slice(&20u16.to_le_bytes()); // needed
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&8u16.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&crc);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0; 12]); // extra, comment, disk, attributes
    out.extend_from_slice(&0u32.to_le_bytes()); // local header offset
    out.extend_from_slice(name);
    let central_len = out.len() - central;
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(central_len as u32).to_le_bytes());
    out.extend_from_slice(&(central as u32).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A `.docx` of `count` paragraphs, written with the zip crate (checksums and all).
fn docx_paragraphs(count: usize) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("word/document.xml", options).unwrap();
    zip.write_all(br#"<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>"#).unwrap();
    for _ in 0..count {
        zip.write_all(
            b"<w:p><w:r><w:t>The Contractor shall give notice within 28 days.</w:t></w:r></w:p>",
        )
        .unwrap();
    }
    zip.write_all(b"</w:body></w:document>").unwrap();
    zip.finish().unwrap().into_inner()
}

const PARAGRAPH: &[u8] = b"<w:p><w:r><w:t xml:space=\"preserve\">The Contractor shall give notice within 28 days. </w:t></w:r></w:p>";

#[test]
fn word_part_bombs_are_refused() {
    // As found: one 250 MiB part in a 0.9 MB file; then ten times that.
    for mib in [250, 2500] {
        let bomb = docx_bomb(PARAGRAPH, mib);
        assert!(bomb.len() < 12 * MIB, "{}", bomb.len());
        assert_eq!(refused(read("bomb.docx", &bomb)), Limit::InflatedBytes);
    }
}

#[test]
fn word_paragraphs_are_read_within_the_budget_and_capped() {
    // 50,000 paragraphs (as found) are read: 5 MiB, within a small file's allowance.
    let text = read("paras.docx", &docx_paragraphs(50_000)).unwrap();
    assert_eq!(text.matches("28 days").count(), 50_000);
    // Ten times as many from a file that small inflate past its allowance.
    let ten = docx_bomb(PARAGRAPH, 50);
    assert_eq!(refused(read("paras10.docx", &ten)), Limit::InflatedBytes);
    // With the largest allowance, more paragraphs than the line limit stop the reader.
    let many = docx_bomb(b"<w:p><w:r><w:t>a</w:t></w:r></w:p>", 40);
    let mut budget = Budget::for_input(super::MAX_DOCUMENT_BYTES);
    match super::docx::docx_text(&many, &mut budget) {
        Err(FormatErrorKind::OverBudget(over)) => assert_eq!(over.limit, Limit::Lines),
        other => panic!("expected the line limit, got {other:?}"),
    }
}

#[test]
fn text_over_the_line_limit_is_refused() {
    assert!(read("ok.txt", &b"a\n".repeat(MAX_LINES)).is_ok());
    for lines in [MAX_LINES + 1, 10 * MAX_LINES] {
        assert_eq!(
            refused(read("lines.txt", &b"a\n".repeat(lines))),
            Limit::Lines
        );
    }
}

#[test]
fn the_generated_zlib_data_is_valid() {
    use std::io::Read;
    let data = zlib_repeated(b"ab", 3);
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out.len(), 3 * MIB);
    assert!(out.chunks(2).all(|c| c == b"ab"));
    assert!(MIN_INFLATED_BYTES < 60 * MIB as u64);
}
