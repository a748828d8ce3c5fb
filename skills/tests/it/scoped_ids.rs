//! Every clause can be named: a number repeated in another part of the agreement gets a
//! scoped id, and a number read inside a schedule, exhibit or part names that part's clause
//! before the main body's.

use std::ptr;

use clausewright_skills::document::{
    parse_json, parse_text, ClauseIndex, DocumentStructure, Index,
};
use clausewright_skills::{DocumentRole, ReviewState};
use serde_json::{json, Value};

use crate::generic_fixture::{call_with, document, ok};

/// A note purchase agreement of three clauses whose operative terms sit in an exhibit
/// numbered from 1 again; `{reference}` is what the exhibit's discount clause cites.
fn note_agreement(reference: &str) -> String {
    format!(
        "\
1. Definitions
\"Notes\" means the convertible notes described in Exhibit A.
2. Purchase
2.1 Closing
The Investor pays the purchase price at the closing.
2.2 Deliveries
The Company delivers the signed Notes at the closing, as Section 2.1 provides.
3. Governing Law
This agreement is governed by the laws of Delaware.

EXHIBIT A

1. Principal
Each Note bears the principal amount written on its face.
2. Conversion
2.1 Automatic Conversion
The Notes convert at the next equity financing.
2.2 Conversion Price
2.2.1 Discount
The price is eighty percent of what the new investors pay per share, subject to {reference}.
2.2.3 Valuation Cap
The price is never more than the cap divided by the shares outstanding.
"
    )
}

fn state_of(text: &str) -> ReviewState {
    ReviewState {
        documents: vec![document(DocumentRole::Primary, "notes.md", text)],
        ..Default::default()
    }
}

fn references_of(doc: &DocumentStructure, source: &str) -> Vec<(String, bool)> {
    doc.cross_references
        .iter()
        .filter(|r| r.source_clause_id == source)
        .map(|r| (r.target_clause_id.clone(), r.is_valid))
        .collect()
}

#[tokio::test]
async fn a_reference_inside_an_exhibit_names_the_exhibits_own_section() {
    let text = note_agreement("Section 2.2.3 and Section 2.1");
    let doc = parse_text("notes", &text);
    let source = "Exhibit A para 2.2.1";
    assert_eq!(
        references_of(&doc, source),
        [
            ("Exhibit A para 2.2.3".to_string(), true),
            // The body has a 2.1 too; read from the exhibit, the exhibit's is meant.
            ("Exhibit A para 2.1".to_string(), true),
        ],
        "{:#?}",
        doc.cross_references
    );
    // Read from the body, the same number is the body's clause.
    assert_eq!(references_of(&doc, "2.2"), [("2.1".to_string(), true)]);

    let out = ok(call_with(state_of(&text), "cross_reference_check", source, None).await);
    assert_eq!(out["broken_count"], 0, "{out:#}");
    assert_eq!(
        out["references"][0],
        json!({"reference_text": "Section 2.2.3", "target_clause_id": "2.2.3",
               "status": "resolved", "target_title": "Valuation Cap"})
    );
    assert_eq!(out["references"][1]["target_title"], "Automatic Conversion");
    let context = ok(call_with(state_of(&text), "get_clause_context", source, None).await);
    assert_eq!(
        context["referenced_clauses"],
        json!(["Exhibit A para 2.2.3", "Exhibit A para 2.1"])
    );
}

#[tokio::test]
async fn a_reference_inside_an_exhibit_to_no_section_anywhere_stays_broken() {
    let text = note_agreement("Section 2.4");
    let doc = parse_text("notes", &text);
    assert_eq!(
        references_of(&doc, "Exhibit A para 2.2.1"),
        [("2.4".to_string(), false)]
    );
    let out = ok(call_with(
        state_of(&text),
        "cross_reference_check",
        "Exhibit A para 2.2.1",
        None,
    )
    .await);
    assert_eq!(out["broken_count"], 1, "{out:#}");
    assert_eq!(out["references"][0]["status"], "broken");
}

/// General and particular conditions, each a part numbered from 1.
const TWO_PARTS: &str = "\
PART 1 GENERAL CONDITIONS
1. Payment
1.1 Invoices
The Supplier sends an invoice at the end of every month.
1.2 Late Payment
Interest runs on any sum unpaid under clause 1.1.
PART 2 PARTICULAR CONDITIONS
1. Payment
1.1 Invoices
The Supplier sends an invoice when each batch is delivered.
1.2 Late Payment
No interest runs on a sum disputed in good faith under clause 1.1.
";

fn indexed(doc: &DocumentStructure, test: impl FnOnce(Index<'_>)) {
    let tables = ClauseIndex::build(doc);
    test(Index::new(doc, &tables));
}

#[test]
fn a_repeated_number_is_reached_by_its_scoped_id() {
    let doc = parse_text("conditions", TWO_PARTS);
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "Part 1",
            "1",
            "1.1",
            "1.2",
            "Part 2",
            "Part 2 para 1",
            "Part 2 para 1.1",
            "Part 2 para 1.2"
        ]
    );
    let later = "The Supplier sends an invoice when each batch is delivered.";
    assert_eq!(doc.find_clause("Part 2 para 1.1").unwrap().text, later);
    assert_eq!(doc.find_clause("Part II, clause 1.1").unwrap().text, later);
    assert_eq!(
        doc.find_clause("1.1").unwrap().text,
        "The Supplier sends an invoice at the end of every month.",
        "the first clause keeps its plain number"
    );
}

#[test]
fn a_lookup_from_inside_a_part_finds_the_parts_clause_and_from_the_body_the_bodys() {
    let doc = parse_text("conditions", TWO_PARTS);
    indexed(&doc, |index| {
        let from_part_2 = index.clause_from("Part 2 para 1.2", "Clause 1.1").unwrap();
        assert_eq!(from_part_2.clause_id, "Part 2 para 1.1");
        let from_part_1 = index.clause_from("1.2", "Clause 1.1").unwrap();
        assert_eq!(from_part_1.clause_id, "1.1");
        // A number the part does not have is the document's.
        assert!(index.clause_in_scope_of("Part 2 para 1.2", "7").is_none());
        assert!(index.clause_from("Part 2 para 1.2", "7").is_none());
    });
    assert_eq!(
        references_of(&doc, "Part 2 para 1.2"),
        [("Part 2 para 1.1".to_string(), true)]
    );
    assert_eq!(references_of(&doc, "1.2"), [("1.1".to_string(), true)]);
}

#[test]
fn a_schedule_number_read_in_the_schedule_is_the_schedules() {
    let text = "\
1. Services
1.1 Scope
The Provider runs the help desk.
2. Charges
2.1 Monthly Charge
The Customer pays the charge in Schedule 2.

SCHEDULE 2 CHARGES

1. Rates
2. Adjustment
2.1 Yearly Review
The rates rise with inflation once a year, as paragraph 1 allows.
";
    let doc = parse_text("services", text);
    indexed(&doc, |index| {
        let inside = "Schedule 2 para 2";
        assert_eq!(
            index.clause_from(inside, "2.1").unwrap().title,
            "Yearly Review"
        );
        assert_eq!(
            index.clause_from("1.1", "2.1").unwrap().title,
            "Monthly Charge"
        );
        assert_eq!(index.clause("2.1").unwrap().title, "Monthly Charge");
    });
    assert_eq!(
        references_of(&doc, "Schedule 2 para 2.1"),
        [("Schedule 2 para 1".to_string(), true)]
    );
}

#[test]
fn numbering_that_starts_over_without_a_heading_is_a_scope_of_its_own() {
    // Particular conditions after the general ones, under a line the parser reads as text.
    let text = "\
1 General
1.1 Works
The Contractor carries out the Works described in the specification.
2 Time
2.1 Completion
The Works are complete within the time for completion, or as Sub-Clause 1.1 extends it.
Particular conditions follow.
1.1 Works
The Contractor also designs the Works.
1.2 Access
Access follows Sub-Clause 1.1.
";
    let doc = parse_text("conditions", text);
    let later = doc.find_clause("1.1 #2").unwrap();
    assert_eq!(later.text, "The Contractor also designs the Works.");
    assert_eq!(
        references_of(&doc, "1.2"),
        [("1.1 #2".to_string(), true)],
        "{:#?}",
        doc.cross_references
    );
    assert_eq!(references_of(&doc, "2.1"), [("1.1".to_string(), true)]);
}

#[tokio::test]
async fn every_clause_is_addressable_and_a_skill_reads_the_later_clause() {
    for text in [TWO_PARTS.to_string(), note_agreement("Section 2.2.3")] {
        let doc = parse_text("doc", &text);
        for clause in doc.iter_clauses() {
            let found = doc.find_clause(&clause.clause_id).unwrap();
            assert!(
                ptr::eq(found, clause),
                "{} is another clause",
                clause.clause_id
            );
        }
    }
    let out = ok(call_with(
        state_of(TWO_PARTS),
        "get_clause_context",
        "Part 2 para 1.1",
        None,
    )
    .await);
    assert_eq!(
        out["text"],
        "The Supplier sends an invoice when each batch is delivered."
    );
    assert_eq!(out["parent"]["clause_id"], "Part 2 para 1");
    assert_eq!(out["referenced_clauses"], Value::Array(vec![]));
    // The clause's own number, read in its part, is no reference to another clause.
    let own = ok(call_with(
        state_of(&TWO_PARTS.replace("when each batch", "under clause 1.1 when each batch")),
        "cross_reference_check",
        "Part 2 para 1.1",
        None,
    )
    .await);
    assert_eq!(own["references"], json!([]), "{own:#}");
}

#[test]
fn repeated_ids_in_json_input_are_scoped_too() {
    let json = r#"{"clauses": [
        {"clause_id": "4", "children": [{"clause_id": "4.1", "text": "First duty."}]},
        {"clause_id": "4", "children": [{"clause_id": "4.1", "text": "Second duty, see Clause 4."}]}
    ]}"#;
    let doc = parse_json("j", json).unwrap();
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["4", "4.1", "4 #2", "4.1 #2"]);
    assert_eq!(
        doc.find_clause("4.1 #2").unwrap().text,
        "Second duty, see Clause 4."
    );
    assert_eq!(references_of(&doc, "4.1 #2"), [("4 #2".to_string(), true)]);
}
