//! Reading Word and PDF contracts: the text a reader sees (Word's automatic numbering
//! resolved, tracked changes accepted, page furniture dropped, hyphenation joined) and a
//! clear error for every file that cannot be read.

use std::path::{Path, PathBuf};

use clausewright_skills::document::formats::{
    read_document_text, read_text, text_from_bytes, DocumentFormat, FormatErrorKind,
    MAX_DOCUMENT_BYTES,
};
use clausewright_skills::document::load_document;

use crate::format_fixtures::*;

/// A scratch folder of its own for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skills-formats-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn read(name: &str, bytes: &[u8]) -> Result<String, FormatErrorKind> {
    text_from_bytes(Path::new(name), bytes)
        .map(|(text, _)| text)
        .map_err(|e| e.kind)
}

#[test]
fn docx_text_is_what_a_reader_sees() {
    let text = read("contract.docx", &contract_docx()).unwrap();
    assert_eq!(text, CONTRACT_DOCX_TEXT);
    for hidden in ["COMMENT TEXT", "thirty", "HIDDEN", "PAGEREF", "struck out"] {
        assert!(!text.contains(hidden), "{hidden} leaked into:\n{text}");
    }
}

#[test]
fn docx_is_parsed_into_numbered_clauses() {
    let path = scratch("docx-clauses").join("supply.docx");
    std::fs::write(&path, contract_docx()).unwrap();
    let doc = load_document(&path).unwrap();
    assert_eq!(doc.document_id, "supply");
    let delivery = doc.find_clause("2.1").expect("clause 2.1");
    assert!(delivery.text.contains("ten (10) days"), "{}", delivery.text);
    assert!(doc.find_clause("3.1").is_some() && doc.find_clause("7.1").is_some());
    let (_, format) = read_document_text(&path).unwrap();
    assert_eq!(format, DocumentFormat::Docx);
}

#[test]
fn pdf_furniture_is_dropped_and_hyphens_joined() {
    let text = read("contract.pdf", &contract_pdf(3)).unwrap();
    for furniture in ["Execution Version", "Page 1 of 3", "Page 3", "- 2 -"] {
        assert!(!text.contains(furniture), "{furniture} kept in:\n{text}");
    }
    assert!(
        text.starts_with("1. Clause 1\n1.1 The Contractor shall perform"),
        "{text}"
    );
    assert!(
        text.contains("complete the delivery of the Goods"),
        "{text}"
    );
    assert!(text.contains("a well-known standard applied"), "{text}");
    assert!(!text.contains("deliv-"), "{text}");
    // Every body line is kept: 120 drawn, two joins per clause of six lines.
    assert_eq!(text.lines().count(), 120 - 2 * 20, "{text}");
}

#[test]
fn pdf_is_parsed_into_clauses() {
    let path = scratch("pdf-clauses").join("supply.pdf");
    std::fs::write(&path, contract_pdf(2)).unwrap();
    let doc = load_document(&path).unwrap();
    let clause = doc.find_clause("3.1").expect("clause 3.1");
    assert!(
        clause.text.contains("delivery of the Goods"),
        "{}",
        clause.text
    );
}

#[test]
fn encrypted_and_scanned_pdfs_say_so() {
    let err = read("locked.pdf", &encrypted_pdf()).unwrap_err();
    assert!(matches!(err, FormatErrorKind::EncryptedPdf), "{err}");
    assert!(err.to_string().contains("password"));
    let err = read("scan.pdf", &scanned_pdf()).unwrap_err();
    assert!(
        matches!(err, FormatErrorKind::ScannedPdf { pages: 2 }),
        "{err}"
    );
    assert!(err.to_string().contains("no text layer"));
}

#[test]
fn a_pdf_protected_only_by_an_owner_password_is_read() {
    let text = read("protected.pdf", &encrypted_pdf_with("")).unwrap();
    assert!(text.contains("1. Clause 1\n1.1 The Contractor"), "{text}");
}

#[test]
fn a_pdf_without_any_text_or_image_is_empty() {
    let err = read("blank.pdf", &pdf(&[vec![], vec![]])).unwrap_err();
    assert!(matches!(err, FormatErrorKind::Empty), "{err}");
}

#[test]
fn corrupt_and_foreign_packages_are_errors() {
    let good = contract_docx();
    let truncated = &good[..good.len() / 2];
    assert!(matches!(
        read("a.docx", truncated),
        Err(FormatErrorKind::CorruptDocx(_))
    ));
    let no_document = zip_parts(&[("hello.txt", "hi".into())]);
    assert!(matches!(
        read("a.docx", &no_document),
        Err(FormatErrorKind::CorruptDocx(_))
    ));
    let workbook = zip_parts(&[("xl/workbook.xml", "<workbook/>".into())]);
    let err = read("a.docx", &workbook).unwrap_err();
    assert!(err.to_string().contains("Excel"), "{err}");
    let broken = docx("<w:p><w:r><w:t>open", STYLES, NUMBERING, None);
    let err = read("a.docx", &broken).unwrap_err();
    assert!(matches!(err, FormatErrorKind::CorruptDocx(_)), "{err}");
    let empty = docx("<w:p/>", STYLES, NUMBERING, None);
    assert!(matches!(
        read("a.docx", &empty),
        Err(FormatErrorKind::Empty)
    ));
    assert!(matches!(
        read("a.pdf", b"%PDF-1.7\ngarbage"),
        Err(FormatErrorKind::CorruptPdf(_))
    ));
}

/// Damaged files of every kind give an error or text, never a panic.
#[test]
fn damaged_files_never_panic() {
    let inputs = [
        contract_docx(),
        contract_pdf(2),
        encrypted_pdf(),
        scanned_pdf(),
    ];
    for (n, good) in inputs.iter().enumerate() {
        let name = if n == 0 { "x.docx" } else { "x.pdf" };
        for cut in (1..20).map(|k| good.len() * k / 20) {
            let _ = read(name, &good[..cut]);
        }
        for step in 1..40 {
            let mut bad = good.clone();
            let mut i = step * 7919 % bad.len();
            while i < bad.len() {
                bad[i] = bad[i].wrapping_add(31);
                i += bad.len() / 5 + 1;
            }
            let _ = read(name, &bad);
        }
    }
}

#[test]
fn file_errors_name_the_file_and_the_problem() {
    let dir = scratch("file-errors");
    let empty = dir.join("empty.md");
    std::fs::write(&empty, "").unwrap();
    let err = read_text(&empty).unwrap_err();
    assert!(matches!(err.kind, FormatErrorKind::Empty));
    assert!(err.to_string().contains("empty.md") && err.to_string().contains("empty document"));

    let big = dir.join("big.pdf");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(MAX_DOCUMENT_BYTES + 1).unwrap();
    let err = read_text(&big).unwrap_err();
    assert!(
        matches!(err.kind, FormatErrorKind::TooLarge { .. }),
        "{err}"
    );

    let binary = dir.join("photo.jpg");
    std::fs::write(
        &binary,
        [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F', 0],
    )
    .unwrap();
    let err = load_document(&binary).unwrap_err();
    assert!(
        err.to_string().contains("photo.jpg") && err.to_string().contains("binary"),
        "{err}"
    );
}
