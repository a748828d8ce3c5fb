//! Inputs the fuzz targets (`fuzz/`) found, kept as tests of the code they broke.

use clausewright_skills::document::parse_text;

/// A Markdown heading whose text ends with a full stop becomes a clause whose id ends with
/// one; looking that id up trimmed the stop and found neither the clause nor its parent.
#[test]
fn a_heading_id_ending_in_a_full_stop_is_found_with_its_parent() {
    let input = include_bytes!("../../../fuzz/seeds/document/heading-id-with-full-stop");
    // Byte 0 is the fuzz target's reader choice; the rest is the document.
    let text = String::from_utf8_lossy(&input[1..]);
    let doc = parse_text("fuzz", &text);
    let mut checked = 0;
    for clause in doc.iter_clauses() {
        let found = doc
            .find_clause(&clause.clause_id)
            .unwrap_or_else(|| panic!("`{}` not found by its own id", clause.clause_id));
        assert_eq!(found.clause_id, clause.clause_id);
        if clause.level > 1 {
            let parent = doc
                .parent_of(&clause.clause_id)
                .unwrap_or_else(|| panic!("no parent found for `{}`", clause.clause_id));
            assert!(parent
                .children
                .iter()
                .any(|c| c.clause_id == clause.clause_id));
        }
        checked += 1;
    }
    assert!(
        doc.iter_clauses().any(|c| c.clause_id.ends_with('.')),
        "the input still yields an id ending in a full stop"
    );
    assert!(checked > 10, "{checked} clauses");
}

/// A PDF page that is its own `/Parent` (and lacks its resources, so the text extraction
/// looks them up the chain) made the extraction recurse until the stack overflowed, ending
/// the process — `parse`, or a server reading an upload. It is refused as corrupt.
#[test]
fn a_pdf_page_that_is_its_own_parent_is_refused_not_recursed_into() {
    let input = include_bytes!("../../../fuzz/seeds/document_file/page-is-its-own-parent");
    // Byte 0 is the fuzz target's choice of file name; the rest is the file.
    let err = clausewright_skills::document::formats::text_from_bytes(
        std::path::Path::new("contract.pdf"),
        &input[1..],
    )
    .expect_err("a looping page tree is refused");
    let message = err.to_string();
    assert!(
        message.contains("page tree loops: page 1 is its own ancestor"),
        "{message}"
    );
}

/// A FIDIC excerpt with a Chinese contract pasted into it: `第三条` after the sub-clause `2.3`
/// nested under it, and the article's id (`3`, also `Clause 3`'s) then had no parent where
/// the first `3` was looked up. An article now starts at the top after a numbered clause, and
/// the first clause of every repeated id is found with its parent.
#[test]
fn an_article_after_a_numbered_sub_clause_starts_at_the_top() {
    let input = include_bytes!("../../../fuzz/seeds/document/mixed-numbering-styles");
    let text = String::from_utf8_lossy(&input[1..]);
    let doc = parse_text("fuzz", &text);
    for clause in doc.iter_clauses() {
        for child in &clause.children {
            let first = doc.find_clause(&child.clause_id).expect("found by its id");
            if std::ptr::eq(first, child) {
                let parent = doc
                    .parent_of(&child.clause_id)
                    .unwrap_or_else(|| panic!("no parent found for `{}`", child.clause_id));
                assert!(parent.children.iter().any(|c| std::ptr::eq(c, child)));
            }
        }
    }
    let articles: Vec<u32> = doc
        .iter_clauses()
        .filter(|c| c.title.starts_with("工期") || c.title.starts_with("索赔"))
        .map(|c| c.level)
        .collect();
    assert_eq!(articles, [1, 1], "第三条 and 第五条 are top-level articles");
}
