//! Word and PDF documents built by the tests themselves: `.docx` packages from XML parts
//! (automatic numbering, tracked changes, comments, tables) and PDFs drawn with `lopdf`
//! (running headers and footers, page numbers, hyphenated line breaks, a password, a scan).
//! Shared with the command-line tests and the benches through `#[path]`.
#![allow(dead_code)]

use std::io::Write;

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// A `.docx` package: the given parts plus content types and relationships.
pub fn docx(document_body: &str, styles: &str, numbering: &str, comments: Option<&str>) -> Vec<u8> {
    let content_types = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"#;
    let rels = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>"#;
    let doc_rels = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>
</Relationships>"#;
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="{W}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>{document_body}<w:sectPr/></w:body></w:document>"#
    );
    let styles = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{W}">{styles}</w:styles>"#
    );
    let numbering = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><w:numbering xmlns:w="{W}">{numbering}</w:numbering>"#
    );
    let mut parts = vec![
        ("[Content_Types].xml", content_types.to_string()),
        ("_rels/.rels", rels.to_string()),
        ("word/_rels/document.xml.rels", doc_rels.to_string()),
        ("word/document.xml", document),
        ("word/styles.xml", styles),
        ("word/numbering.xml", numbering),
    ];
    if let Some(comments) = comments {
        parts.push((
            "word/comments.xml",
            format!(r#"<?xml version="1.0" encoding="UTF-8"?><w:comments xmlns:w="{W}">{comments}</w:comments>"#),
        ));
    }
    zip_parts(&parts)
}

/// A zip archive of named parts (deflated).
pub fn zip_parts(parts: &[(&str, String)]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, text) in parts {
            zip.start_file(*name, options).expect("zip entry");
            zip.write_all(text.as_bytes()).expect("zip write");
        }
        zip.finish().expect("zip finish");
    }
    out.into_inner()
}

/// A paragraph of plain runs.
pub fn p(text: &str) -> String {
    format!(r#"<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
}

/// A paragraph with a style.
pub fn styled(style: &str, text: &str) -> String {
    format!(r#"<w:p><w:pPr><w:pStyle w:val="{style}"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#)
}

/// A paragraph numbered with `numId` at `ilvl`.
pub fn numbered(num: u32, ilvl: u32, text: &str) -> String {
    format!(
        r#"<w:p><w:pPr><w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num}"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"#
    )
}

/// Styles: Heading 1 and 2 numbered through list 1 (levels tied by `pStyle`).
pub const STYLES: &str = r#"
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>
  <w:pPr><w:numPr><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/>
  <w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>"#;

/// Lists: 1 = `1.` / `1.1` / `(a)` (level 2 restarts only after level 0), 2 = list 1's
/// definition restarted at 7, 3 = `第一条` in Chinese counting, 4 = `(i)` roman with a
/// start of 3.
pub const NUMBERING: &str = r#"
<w:abstractNum w:abstractNumId="10">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading1"/><w:lvlText w:val="%1."/></w:lvl>
  <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading2"/><w:lvlText w:val="%1.%2"/></w:lvl>
  <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/><w:lvlRestart w:val="1"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="20">
  <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:lvlText w:val="第%1条"/><w:suff w:val="nothing"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="30">
  <w:lvl w:ilvl="0"><w:start w:val="3"/><w:numFmt w:val="lowerRoman"/><w:lvlText w:val="(%1)"/></w:lvl>
</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="10"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="10"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/></w:lvlOverride></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="20"/></w:num>
<w:num w:numId="4"><w:abstractNumId w:val="30"/></w:num>"#;

/// A contract using every feature the reader handles.
pub fn contract_docx() -> Vec<u8> {
    let body = [
        styled("Title", "SUPPLY AGREEMENT"),
        p("This Agreement is made between Alpha Ltd (the &quot;Buyer&quot;) and Beta GmbH (the &quot;Supplier&quot;)."),
        styled("Heading1", "Definitions"),
        styled("Heading2", "&quot;Goods&quot; means the goods listed in Schedule 1."),
        numbered(1, 2, "first item;"),
        numbered(1, 2, "second item;"),
        styled("Heading2", "&quot;Price&quot; means the price in the table below."),
        numbered(1, 2, "continues after a level-1 paragraph, so it is (c);"),
        // A table with a numbered paragraph in a cell.
        r#"<w:tbl><w:tblPr/><w:tr><w:tc><w:p><w:r><w:t>Item</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Price</w:t></w:r></w:p></w:tc></w:tr>
           <w:tr><w:tc><w:p><w:r><w:t>Widgets</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>EUR 10</w:t></w:r></w:p><w:p><w:r><w:t>per unit</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"#.to_string(),
        styled("Heading1", "Delivery"),
        // Tracked changes: an insertion kept, a deletion dropped; a comment ignored; a
        // field code left out; hidden text left out.
        r#"<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t xml:space="preserve">The Supplier shall deliver within </w:t></w:r><w:del w:id="1" w:author="A"><w:r><w:delText>thirty (30)</w:delText></w:r></w:del><w:ins w:id="2" w:author="A"><w:r><w:t>ten (10)</w:t></w:r></w:ins><w:r><w:t xml:space="preserve"> days</w:t></w:r><w:commentRangeStart w:id="5"/><w:r><w:t xml:space="preserve"> of the order</w:t></w:r><w:commentRangeEnd w:id="5"/><w:r><w:commentReference w:id="5"/></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>HIDDEN NOTE</w:t></w:r><w:r><w:t>.</w:t></w:r></w:p>"#.to_string(),
        // A paragraph whose mark was deleted joins the next one.
        r#"<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:rPr><w:del w:id="3" w:author="A"/></w:rPr></w:pPr><w:r><w:t xml:space="preserve">Risk passes on delivery </w:t></w:r></w:p>"#.to_string(),
        r#"<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>and title on payment (see page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGEREF _Ref1 \h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>2</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:r><w:t>).</w:t></w:r></w:p>"#.to_string(),
        // A deleted paragraph, mark and all.
        r#"<w:p><w:pPr><w:pStyle w:val="Heading2"/><w:rPr><w:del w:id="4" w:author="A"/></w:rPr></w:pPr><w:del w:id="6" w:author="A"><w:r><w:delText>A clause the parties struck out.</w:delText></w:r></w:del></w:p>"#.to_string(),
        styled("Heading1", "Payment"),
        styled("Heading2", "The Buyer shall pay within 30 days."),
        // List 2 shares list 1's counters but restarts level 0 at 7.
        numbered(2, 0, "Termination"),
        numbered(2, 1, "Either party may terminate on notice."),
        numbered(4, 0, "roman item starting at three"),
        numbered(4, 0, "next roman item"),
        numbered(3, 0, "定义"),
        numbered(3, 0, "付款"),
    ]
    .concat();
    let comments = r#"<w:comment w:id="5" w:author="Reviewer"><w:p><w:r><w:t>COMMENT TEXT must not appear</w:t></w:r></w:p></w:comment>"#;
    docx(&body, STYLES, NUMBERING, Some(comments))
}

/// The text the reader gives for [`contract_docx`].
pub const CONTRACT_DOCX_TEXT: &str = "SUPPLY AGREEMENT

This Agreement is made between Alpha Ltd (the \"Buyer\") and Beta GmbH (the \"Supplier\").

# 1. Definitions

## 1.1 \"Goods\" means the goods listed in Schedule 1.

(a) first item;

(b) second item;

## 1.2 \"Price\" means the price in the table below.

(c) continues after a level-1 paragraph, so it is (c);

| Item | Price |

| Widgets | EUR 10 per unit |

# 2. Delivery

## 2.1 The Supplier shall deliver within ten (10) days of the order.

## 2.2 Risk passes on delivery and title on payment (see page 2).

# 3. Payment

## 3.1 The Buyer shall pay within 30 days.

7. Termination

7.1 Either party may terminate on notice.

(iii) roman item starting at three

(iv) next roman item

第一条定义

第二条付款";

/// One line drawn on a PDF page: `(x, y from the top, font size, text)`.
pub type PdfLine = (f64, f64, f64, String);

/// A PDF of US Letter pages (612 x 792) with the given lines in Helvetica.
pub fn pdf(pages: &[Vec<PdfLine>]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
    });
    let mut kids = Vec::new();
    for lines in pages {
        let mut operations = Vec::new();
        for (x, y, size, text) in lines {
            operations.push(Operation::new("BT", vec![]));
            operations.push(Operation::new("Tf", vec!["F1".into(), (*size).into()]));
            operations.push(Operation::new("Td", vec![(*x).into(), (792.0 - *y).into()]));
            operations.push(Operation::new(
                "Tj",
                vec![Object::string_literal(text.as_str())],
            ));
            operations.push(Operation::new("ET", vec![]));
        }
        let content = Content { operations };
        let content_id = doc.add_object(Stream::new(
            dictionary! {},
            content.encode().expect("content"),
        ));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal(b"0123456789abcdef".to_vec()),
            Object::string_literal(b"0123456789abcdef".to_vec()),
        ]),
    );
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("save pdf");
    out
}

/// Body lines of a contract, clause after clause, as long as asked; one line ends in a
/// hyphenated break (`deliv-` / `ery`), one breaks a word the text also writes hyphenated
/// (`well-` / `known`).
pub fn contract_lines(count: usize) -> Vec<String> {
    let mut lines = Vec::with_capacity(count);
    let mut clause = 1;
    while lines.len() < count {
        lines.push(format!("{clause}. Clause {clause}"));
        lines.push(format!(
            "{clause}.1 The Contractor shall perform the Works with the well-known care of a"
        ));
        lines.push("diligent contractor and shall complete the deliv-".to_string());
        lines.push("ery of the Goods within the Time for Completion, a well-".to_string());
        lines.push("known standard applied to every part of the Works.".to_string());
        lines.push(format!("{clause}.2 The Employer shall pay the Contract Price in accordance with Clause {clause}."));
        clause += 1;
    }
    lines.truncate(count);
    lines
}

/// A contract PDF of `pages` pages: a running header, a footer `Page n of N`, a centred
/// `- n -` page number, and [`contract_lines`] as body (40 lines a page).
pub fn contract_pdf(pages: usize) -> Vec<u8> {
    let per_page = 40;
    let body = contract_lines(pages * per_page);
    let drawn: Vec<Vec<PdfLine>> = body
        .chunks(per_page)
        .enumerate()
        .map(|(i, chunk)| {
            let mut lines = vec![(
                72.0,
                40.0,
                9.0,
                "Supply Agreement - Execution Version".to_string(),
            )];
            for (j, text) in chunk.iter().enumerate() {
                lines.push((72.0, 90.0 + 15.0 * j as f64, 11.0, text.clone()));
            }
            lines.push((290.0, 740.0, 9.0, format!("- {} -", i + 1)));
            lines.push((72.0, 760.0, 9.0, format!("Page {} of {pages}", i + 1)));
            lines
        })
        .collect();
    pdf(&drawn)
}

/// A PDF that opens only with the user password `secret` (RC4, 128 bits).
pub fn encrypted_pdf() -> Vec<u8> {
    encrypted_pdf_with("secret")
}

/// A one-page contract PDF encrypted with an owner password and this user password (empty:
/// anyone may open it, as most "protected" PDFs).
pub fn encrypted_pdf_with(user_password: &str) -> Vec<u8> {
    let plain = contract_pdf(1);
    let mut doc = Document::load_mem(&plain).expect("reload");
    let state = lopdf::EncryptionState::try_from(lopdf::EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password,
        key_length: 128,
        permissions: lopdf::Permissions::all(),
    })
    .expect("encryption state");
    doc.encrypt(&state).expect("encrypt");
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("save");
    out
}

/// A PDF whose two pages are each one image and no text: a scan.
pub fn scanned_pdf() -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let pixels = vec![0x80u8; 16 * 16];
    let image_id = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => 16,
            "Height" => 16,
            "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8,
        },
        pixels,
    ));
    let mut kids = Vec::new();
    for _ in 0..2 {
        let content = Content {
            operations: vec![
                Operation::new("q", vec![]),
                Operation::new(
                    "cm",
                    vec![
                        500.into(),
                        0.into(),
                        0.into(),
                        700.into(),
                        50.into(),
                        50.into(),
                    ],
                ),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(
            dictionary! {},
            content.encode().expect("content"),
        ));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
            "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image_id } },
        });
        kids.push(page_id.into());
    }
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => 2,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("save pdf");
    out
}
