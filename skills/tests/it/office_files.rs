//! `.docx` files written by pandoc and LibreOffice (`tests/fixtures/office`): the articles
//! are numbered as the reader sees them (1, 2, 3: a list interrupted by its nested levels
//! continues its count) and the nested numbered items are text of their article, not
//! clauses.

use std::path::{Path, PathBuf};

use clausewright_skills::document::formats::text_from_bytes;
use clausewright_skills::document::load_document;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/office")
        .join(name)
}

const MADE_BY: [&str; 2] = ["nested-lists.pandoc.docx", "nested-lists.libreoffice.docx"];

#[test]
fn articles_count_on_past_their_nested_lists() {
    for name in MADE_BY {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let (text, _) = text_from_bytes(Path::new(name), &bytes).unwrap();
        let articles: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
            .filter_map(|l| l.split_once(". ").map(|(n, _)| n))
            .collect();
        assert_eq!(articles, ["1", "2", "3"], "{name}:\n{text}");
        let nested: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix('\t')).collect();
        assert_eq!(nested.len(), 4, "{name}:\n{text}");
        assert!(
            nested[0].starts_with("1. ") && nested[1].starts_with("2. "),
            "{name}:\n{text}"
        );
        assert!(
            nested[2].starts_with("1. ") && nested[3].starts_with("2. "),
            "{name}:\n{text}"
        );
    }
}

#[test]
fn nested_items_are_text_of_their_article() {
    for name in MADE_BY {
        let doc = load_document(fixture(name)).unwrap();
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "3"], "{name}");
        let definitions = doc.find_clause("1").unwrap();
        assert!(
            definitions.text.contains("“Goods” means"),
            "{name}: {}",
            definitions.text
        );
        assert!(
            definitions.text.contains("“Order” means"),
            "{name}: {}",
            definitions.text
        );
        let delivery = doc.find_clause("2").unwrap();
        assert!(
            delivery.text.contains("Risk passes on delivery"),
            "{name}: {}",
            delivery.text
        );
        let termination = doc.find_clause("3").unwrap();
        assert!(
            termination.text.contains("ninety (90) days"),
            "{name}: {}",
            termination.text
        );
    }
}
