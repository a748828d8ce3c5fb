//! Reads contracts written as plain text or Markdown into a [`DocumentStructure`].
//!
//! Headings are recognised line by line: `Sub-Clause 20.1 Title`, `Clause 14 Title`,
//! `Article 5`, `Section 3`, `4.1.2 Title`, `1. Title`, `第一条 标题`, `第4.1条`, with Markdown
//! decoration (`#`, `**`) removed. A clause becomes the child of the nearest earlier clause
//! whose number is a prefix of its own (`4.1` under `4`). Text that has no heading at all is
//! split into paragraphs `P1`, `P2`, ... so reference material stays searchable.
//!
//! One module per step: [`numbering`] recognises headings (one recogniser per numbering
//! style), [`lines`] cleans and reflows lines, [`tree`] nests clauses, [`definitions`] and
//! [`references`] read definitions and cross references from the text, and [`json`]
//! completes documents given as JSON.

mod definitions;
mod json;
mod lines;
mod numbering;
mod references;
mod tree;

pub(crate) use definitions::{extract_definitions, quoted_terms};
pub(crate) use json::finalize_json_document;
pub use references::{find_references, FoundReference};

use super::model::DocumentStructure;
use lines::clean_line;
use numbering::{parse_heading, structure_type_of, Heading};
use references::collect_cross_references;
use tree::{build_tree, paragraphs, set_levels};

/// Parses plain text or Markdown into a clause tree with definitions and cross references.
pub fn parse_text(document_id: &str, text: &str) -> DocumentStructure {
    let mut flat: Vec<(Heading, Vec<&str>)> = Vec::new();
    let mut preamble_seen = false;
    for raw_line in text.lines() {
        let line = clean_line(raw_line);
        if let Some(heading) = parse_heading(line) {
            flat.push((heading, Vec::new()));
            continue;
        }
        match flat.last_mut() {
            Some((_, body)) => body.push(line),
            None => preamble_seen |= !line.is_empty(),
        }
    }
    let mut structure_type = structure_type_of(&flat);
    let mut clauses = if flat.is_empty() && preamble_seen {
        structure_type = "paragraphs";
        paragraphs(text)
    } else {
        build_tree(flat)
    };
    if clauses.is_empty() {
        structure_type = "empty";
    }
    set_levels(&mut clauses, 1);
    let mut doc = DocumentStructure {
        document_id: document_id.to_string(),
        structure_type: structure_type.to_string(),
        clauses,
        definitions: extract_definitions(text),
        cross_references: Vec::new(),
        total_clauses: 0,
    };
    doc.cross_references = collect_cross_references(&doc);
    doc.recount();
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIDIC: &str = "\
# Conditions of Contract

1 General Provisions

1.1 Definitions

\"Contract Price\" means the price defined in Sub-Clause 14.1.
\"Employer\" means the person named as employer in the Contract Data.

4 The Contractor

4.1 Contractor's General Obligations

The Contractor shall design and execute the Works in accordance with Clause 14.
Sub-Clause 4.2 Performance Security
The Contractor shall obtain a Performance Security within 28 days. See Sub-Clauses 4.1 and 20.1.
4.2.1 Amount
The amount shall be 10% of the Contract Price.
";

    #[test]
    fn english_numbering_nests_and_finds_titles() {
        let doc = parse_text("gc", FIDIC);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "1.1", "4", "4.1", "4.2", "4.2.1"]);
        assert_eq!(doc.find_clause("4").unwrap().title, "The Contractor");
        assert_eq!(
            doc.find_clause("4.2").unwrap().title,
            "Performance Security"
        );
        assert_eq!(doc.find_clause("4.2.1").unwrap().level, 3);
        assert_eq!(doc.parent_of("4.2.1").unwrap().clause_id, "4.2");
        assert_eq!(doc.total_clauses, 6);
        assert_eq!(doc.structure_type, "fidic");
        assert_eq!(
            doc.definitions["Contract Price"],
            "the price defined in Sub-Clause 14.1"
        );
        assert_eq!(doc.definitions.len(), 2);
    }

    #[test]
    fn cross_references_are_resolved_or_broken() {
        let doc = parse_text("gc", FIDIC);
        let refs: Vec<(&str, &str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| {
                (
                    r.source_clause_id.as_str(),
                    r.target_clause_id.as_str(),
                    r.is_valid,
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("1.1", "14.1", false),
                ("4.1", "14", false),
                ("4.2", "4.1", true),
                ("4.2", "20.1", false)
            ]
        );
    }

    #[test]
    fn chinese_numbering_and_definitions() {
        let text = "第一条 定义\n“合同价格”是指本合同第4.1条约定的价格。\n第二条 付款\n发包人应按第一条支付。\n第2.1条 预付款\n预付款为合同价格的10%。";
        let doc = parse_text("cn", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2", "2.1"]);
        assert_eq!(doc.structure_type, "chinese");
        assert_eq!(doc.find_clause("第一条").unwrap().title, "定义");
        assert_eq!(doc.definitions["合同价格"], "本合同第4.1条约定的价格");
        let targets: Vec<(&str, bool)> = doc
            .cross_references
            .iter()
            .map(|r| (r.target_clause_id.as_str(), r.is_valid))
            .collect();
        assert_eq!(targets, [("4.1", false), ("1", true)]);
    }

    #[test]
    fn article_headings_and_sentences_are_not_headings() {
        let text = "Article 1 Scope\nThe parties agree.\n14 days after signing the Buyer pays.\nArticle 2\nPrice.";
        let doc = parse_text("a", text);
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["1", "2"]);
        assert_eq!(
            doc.find_clause("1").unwrap().text,
            "The parties agree. 14 days after signing the Buyer pays."
        );
        assert_eq!(doc.structure_type, "article");
    }

    #[test]
    fn unnumbered_text_becomes_paragraphs() {
        let doc = parse_text(
            "er",
            "The plant shall be designed.\n\nThe pumps shall be tested.",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["P1", "P2"]);
        assert_eq!(doc.structure_type, "paragraphs");
        assert_eq!(parse_text("x", "  \n").structure_type, "empty");
    }

    #[test]
    fn list_items_stay_in_the_clause() {
        let doc = parse_text(
            "x",
            "2 Payment\n1. The Employer shall pay monthly.\n2. Interest accrues.\n3. Title",
        );
        let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
        assert_eq!(ids, ["2", "3"]);
        assert_eq!(
            doc.find_clause("2").unwrap().text,
            "1. The Employer shall pay monthly. 2. Interest accrues."
        );
    }

    #[test]
    fn inline_body_on_heading_line() {
        let doc = parse_text(
            "x",
            "1.1 The Contractor shall pay the Employer within 14 days of demand.",
        );
        let clause = doc.find_clause("1.1").unwrap();
        assert_eq!(clause.title, "");
        assert_eq!(
            clause.text,
            "The Contractor shall pay the Employer within 14 days of demand."
        );
    }

    #[test]
    fn list_items_and_definitions_keep_their_lines_while_prose_is_reflowed() {
        let doc = parse_text(
            "t",
            "4.1 Conditions\nCompletion is conditional on\nthe following:\n(a) clearance by the\nauthority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff.\n",
        );
        let text = &doc.find_clause("4.1").unwrap().text;
        assert_eq!(
            text,
            "Completion is conditional on the following:\n(a) clearance by the authority;\n(b) shareholder approval;\n\"Cost\" means money spent.\n\"Key Personnel\" means staff."
        );
    }
}
