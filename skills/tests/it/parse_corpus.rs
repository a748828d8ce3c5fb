//! Every contract of the shared corpus (`../shared/corpus/`: PDF extractions of SEC filings,
//! Markdown venture forms, Chinese model forms) parses into the numbered clauses a reader
//! sees, never into the paragraph fallback, with counts in proportion to its length.

use std::path::{Path, PathBuf};

use clausewright_skills::document::load_document;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the shared corpus is missing at {} (required when CI=true)",
        dir.display()
    );
    eprintln!(
        "skipping: the shared corpus is not at {} (set up ../shared/corpus to run this test)",
        dir.display()
    );
    None
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["cuad/contracts", "en", "zh"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("txt" | "md")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_corpus_document_parses_into_numbered_clauses() {
    let Some(dir) = corpus() else { return };
    let files = files(&dir);
    assert!(
        files.len() >= 40,
        "corpus has only {} documents",
        files.len()
    );
    let mut problems = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let doc = load_document(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        // Words, counting each Chinese character as one.
        let cjk = text
            .chars()
            .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
            .count();
        let words = text.split_whitespace().count().max(cjk);
        // A clause per 2,000 words at the least, and at least five words per clause.
        let sane = doc.total_clauses >= (words / 2000).max(3) && doc.total_clauses <= words / 5;
        if doc.structure_type == "paragraphs" || doc.structure_type == "empty" || !sane {
            problems.push(format!(
                "{name}: {} ({} clauses, {words} words)",
                doc.structure_type, doc.total_clauses
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "not parsed into numbered clauses:\n{}",
        problems.join("\n")
    );
}

#[test]
fn chinese_model_forms_nest_articles_under_their_parts() {
    let Some(dir) = corpus() else { return };
    let doc = load_document(dir.join("zh/gf-91-0201-construction-contract-conditions.md")).unwrap();
    assert_eq!(doc.structure_type, "chinese");
    // 41 articles (第一条 … 第四十一条) in the conditions, each found.
    for n in 1..=41 {
        assert!(
            doc.find_clause(&n.to_string()).is_some(),
            "article {n} missing"
        );
    }
    assert!(
        doc.cross_references.iter().all(|r| r.is_valid),
        "{:?}",
        doc.cross_references
            .iter()
            .filter(|r| !r.is_valid)
            .collect::<Vec<_>>()
    );
}
