//! The document parser: plain text and Markdown (English and Chinese numbering) and document
//! JSON.
//!
//! Input: byte 0 picks the reader (even: text, odd: JSON), the rest is the document. Beyond
//! "no panic", each run checks what the parser promises:
//! - `total_clauses` counts the tree, and levels go 1, 2, … from the roots down;
//! - every clause is found by its own id (`find_clause`), and the first clause of each id
//!   its parent by `parent_of`;
//! - every cross reference starts at a clause, and is valid exactly when its target is found;
//! - the text parser adds no words of its own: every word of a clause's text is in the input;
//! - the outline (what `clausewright parse` prints) lists every clause once.

#![no_main]

use libfuzzer_sys::fuzz_target;
use clausewright_skills::document::{parse_json, parse_text, Clause, DocumentStructure};

fn check_levels(clauses: &[Clause], level: u32) {
    for clause in clauses {
        assert_eq!(clause.level, level, "clause `{}`", clause.clause_id);
        check_levels(&clause.children, level + 1);
    }
}

/// `text` with full-width ASCII forms (U+FF01..U+FF5E) as ASCII.
fn fold_width(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            c => c,
        })
        .collect()
}

fn check(doc: &DocumentStructure, text: Option<&str>) {
    assert_eq!(doc.total_clauses, doc.iter_clauses().count());
    check_levels(&doc.clauses, 1);
    for clause in doc.iter_clauses() {
        let found = doc
            .find_clause(&clause.clause_id)
            .unwrap_or_else(|| panic!("clause `{}` is not found by its id", clause.clause_id));
        assert_eq!(found.clause_id, clause.clause_id);
        for child in &clause.children {
            // Ids may repeat (particular conditions renumber the general ones, schedules
            // restart): lookups name the first clause with an id, so only that one's
            // parent is what `parent_of` answers.
            let first = doc.find_clause(&child.clause_id).expect("found above");
            if !std::ptr::eq(first, child) {
                continue;
            }
            let parent = doc
                .parent_of(&child.clause_id)
                .unwrap_or_else(|| panic!("no parent found for `{}`", child.clause_id));
            assert!(
                parent
                    .children
                    .iter()
                    .any(|c| c.clause_id == child.clause_id),
                "parent_of(`{}`) is `{}`",
                child.clause_id,
                parent.clause_id
            );
        }
        if let Some(input) = text {
            // Lines are joined into one clause text, and Chinese lines join without a space:
            // a word may span a line break of the input.
            // Full-width digits and letters (１５) may be read as their ASCII forms (15):
            // both sides are compared folded.
            let input = fold_width(&input.split_whitespace().collect::<String>());
            for word in clause
                .text
                .split_whitespace()
                .chain(clause.title.split_whitespace())
            {
                assert!(
                    input.contains(&fold_width(word)),
                    "clause `{}` has the word `{word}`, which is not in the input",
                    clause.clause_id
                );
            }
        }
    }
    for reference in &doc.cross_references {
        assert!(
            doc.find_clause(&reference.source_clause_id).is_some(),
            "reference from unknown clause `{}`",
            reference.source_clause_id
        );
        assert_eq!(
            reference.is_valid,
            doc.find_clause(&reference.target_clause_id).is_some(),
            "reference `{}` -> `{}`",
            reference.source_clause_id,
            reference.target_clause_id
        );
    }
    let outline = doc.outline();
    assert_eq!(outline.total_clauses, doc.total_clauses);
    assert_eq!(outline.clauses.len(), doc.total_clauses);
    assert_eq!(
        outline.broken_references,
        doc.cross_references.iter().filter(|r| !r.is_valid).count()
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(input) = std::str::from_utf8(rest) else {
        return;
    };
    if pick & 1 == 0 {
        let doc = parse_text("fuzz", input);
        assert_eq!(doc.document_id, "fuzz");
        check(&doc, Some(input));
    } else if let Ok(doc) = parse_json("fuzz", input) {
        check(&doc, None);
    }
});
