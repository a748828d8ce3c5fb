//! Tables of contents are recognised by their shape and dropped without taking the body
//! with them; schedules whose numbering restarts are scopes of their own.

use clausewright_skills::document::{parse_text, ClauseIndex, DocumentStructure, Index};

fn ids(doc: &DocumentStructure) -> Vec<&str> {
    doc.iter_clauses().map(|c| c.clause_id.as_str()).collect()
}

fn text<'a>(doc: &'a DocumentStructure, id: &str) -> &'a str {
    &doc.find_clause(id)
        .unwrap_or_else(|| panic!("no clause {id} in {:?}", ids(doc)))
        .text
}

/// A licence with five clauses, each with a line of prose.
const BODY: &str = "\
1. Definitions
\"Software\" means the licensed programs and their manuals.
2. Licence
The Licensor grants a non-transferable licence to run the Software.
3. Fees
The Licensee pays the yearly fee set out in the order form.
4. Termination
Either party may end this licence on ninety days' written notice.
5. Governing Law
This licence is governed by the laws of Ruritania.
";

fn assert_body_kept(doc: &DocumentStructure) {
    assert_eq!(ids(doc), ["1", "2", "3", "4", "5"], "{doc:#?}");
    assert_eq!(
        text(doc, "4"),
        "Either party may end this licence on ninety days' written notice."
    );
    assert_eq!(doc.find_clause("5").unwrap().title, "Governing Law");
}

#[test]
fn dotted_contents_before_the_body_are_dropped_and_the_body_kept() {
    let contents = "\
SOFTWARE LICENCE

CONTENTS
1. Definitions .................... 2
2. Licence ........................ 2
3. Fees ........................... 3
4. Termination .................... 4
5. Governing Law .................. 5

";
    let doc = parse_text("licence", &format!("{contents}{BODY}"));
    assert_body_kept(&doc);
    assert_eq!(doc.skipped.table_of_contents, 6);
    assert_eq!(doc.preamble, "SOFTWARE LICENCE");

    // The same table without its title.
    let untitled = contents.replace("CONTENTS\n", "");
    let doc = parse_text("licence", &format!("{untitled}{BODY}"));
    assert_body_kept(&doc);
    assert_eq!(doc.skipped.table_of_contents, 5);
}

#[test]
fn contents_with_page_numbers_only_are_dropped() {
    // Page numbers after one space, after a run of spaces (a PDF's columns) and after a dash.
    for contents in [
        "Table of Contents\n1. Definitions 2\n2. Licence 2\n3. Fees 3\n4. Termination 4\n5. Governing Law 5\n\n",
        "1 Definitions   2\n2 Licence   2\n3 Fees   3\n4 Termination   4\n5 Governing Law   5\n\n",
        "1. Definitions 2\n2. Licence 2\n3. Fees 3\n4. Termination 4\n5. Governing Law 5\n\n",
    ] {
        let doc = parse_text("licence", &format!("{contents}{BODY}"));
        assert_body_kept(&doc);
        assert!(doc.skipped.table_of_contents >= 5, "{contents}: {doc:#?}");
    }
}

#[test]
fn a_contents_title_never_swallows_a_body_with_restarted_schedules() {
    // The title is followed by the body itself (no entries): the schedule's `1.` repeats a
    // number of the body, which must not make the body a table of contents.
    let text = format!(
        "CONTENTS\n\n{BODY}\nSCHEDULE 1\n1. Fees\nThe fee is EUR 100 a seat.\n2. Support\nSupport is included.\n"
    );
    let doc = parse_text("licence", &text);
    assert_eq!(doc.skipped.table_of_contents, 0);
    assert_eq!(
        ids(&doc),
        [
            "1",
            "2",
            "3",
            "4",
            "5",
            "Schedule 1",
            "Schedule 1 para 1",
            "Schedule 1 para 2"
        ]
    );
    assert_eq!(
        text_of(&doc, "4"),
        "Either party may end this licence on ninety days' written notice."
    );
}

fn text_of<'a>(doc: &'a DocumentStructure, id: &str) -> &'a str {
    text(doc, id)
}

#[test]
fn short_clauses_ending_in_a_number_are_not_contents() {
    let text = "\
1. Payment
1.1 The fee is payable within 30
1.2 Notice period: 14
1.3 Late payment interest rate (percent):  8
2. Term
2.1 Initial term in months  12
2.2 Renewal term in months  12
2.3 Notice period: 14
";
    let doc = parse_text("terms", text);
    assert_eq!(
        ids(&doc),
        ["1", "1.1", "1.2", "1.3", "2", "2.1", "2.2", "2.3"],
        "{doc:#?}"
    );
    assert_eq!(doc.skipped.table_of_contents, 0);

    // One clause whose title ends in a run of spaces and a number keeps its text.
    let text = "1. Fees\nThe Licensee pays the fee.\n2. Notice period   14\n3. Term\nThe term is one year.";
    let doc = parse_text("one", text);
    assert_eq!(ids(&doc), ["1", "2", "3"]);
    assert_eq!(doc.skipped.table_of_contents, 0);

    // Prose ending in a number under a contents title is the body, not entries.
    let text = "CONTENTS\n1. Fees\nThe fee is payable within 30\ndays of the invoice, at the rate of 14\n2. Notice\nNotice period: 14\n";
    let doc = parse_text("prose", text);
    assert_eq!(ids(&doc), ["1", "2"]);
    assert_eq!(doc.skipped.table_of_contents, 0);
}

#[test]
fn contracts_without_contents_are_unchanged() {
    let doc = parse_text("licence", BODY);
    assert_body_kept(&doc);
    assert!(doc.skipped.is_empty());
    assert_eq!(doc.structure_type, "numbered");
}

const SCHEDULED: &str = "\
1. Supply
The Supplier supplies the pumps.
2. Price
The Buyer pays the price in Schedule 1.
3. Warranty
The pumps are warranted for two years.

SCHEDULE 1 – PRICES
1. Pumps
Each pump costs EUR 900.
2. Spares
Spares are sold at list price.

Schedule 2
SERVICE LEVELS
1. Response
The Supplier responds within four hours.
1.1 Urgent Calls
Urgent calls are answered within one hour.
2. Credits
A missed response earns a credit of EUR 50.
";

#[test]
fn schedules_with_restarted_numbering_are_their_own_scopes() {
    let doc = parse_text("supply", SCHEDULED);
    let levels: Vec<(&str, u32)> = doc
        .iter_clauses()
        .map(|c| (c.clause_id.as_str(), c.level))
        .collect();
    assert_eq!(
        levels,
        [
            ("1", 1),
            ("2", 1),
            ("3", 1),
            ("Schedule 1", 1),
            ("Schedule 1 para 1", 2),
            ("Schedule 1 para 2", 2),
            ("Schedule 2", 1),
            ("Schedule 2 para 1", 2),
            ("Schedule 2 para 1.1", 3),
            ("Schedule 2 para 2", 2),
        ]
    );
    assert_eq!(doc.find_clause("Schedule 1").unwrap().title, "PRICES");
    assert_eq!(
        doc.find_clause("Schedule 2").unwrap().title,
        "SERVICE LEVELS"
    );

    // A plain number is the main body's clause; the schedule's paragraphs are reached through
    // the schedule, by its id or as a reference writes it.
    assert_eq!(text(&doc, "1"), "The Supplier supplies the pumps.");
    assert_eq!(text(&doc, "2"), "The Buyer pays the price in Schedule 1.");
    assert_eq!(text(&doc, "Schedule 1 para 1"), "Each pump costs EUR 900.");
    assert_eq!(
        text(&doc, "paragraph 2 of Schedule 2"),
        "A missed response earns a credit of EUR 50."
    );
    assert_eq!(
        text(&doc, "SCHEDULE 2, paragraph 1.1"),
        "Urgent calls are answered within one hour."
    );
    let tables = ClauseIndex::build(&doc);
    let index = Index::new(&doc, &tables);
    let schedule = index.clause("Schedule 2").unwrap();
    let paragraphs: Vec<&str> = schedule
        .children
        .iter()
        .map(|c| c.clause_id.as_str())
        .collect();
    assert_eq!(paragraphs, ["Schedule 2 para 1", "Schedule 2 para 2"]);
    assert_eq!(
        index.parent("Schedule 2 para 1.1").unwrap().clause_id,
        "Schedule 2 para 1"
    );
    assert_eq!(
        index.article("Schedule 1 para 2").unwrap().clause_id,
        "Schedule 1"
    );
    assert_eq!(index.parent("1"), None);
    assert_eq!(doc.total_clauses, 10);
}

#[test]
fn the_parse_outline_shows_the_schedules() {
    let outline = parse_text("supply", SCHEDULED).outline();
    let rows: Vec<(&str, &str, u32)> = outline
        .clauses
        .iter()
        .map(|c| (c.clause_id.as_str(), c.title.as_str(), c.level))
        .collect();
    assert_eq!(rows[3], ("Schedule 1", "PRICES", 1));
    assert_eq!(rows[4], ("Schedule 1 para 1", "Pumps", 2));
    assert_eq!(rows[6], ("Schedule 2", "SERVICE LEVELS", 1));
    assert_eq!(outline.total_clauses, 10);
}

#[test]
fn contents_listing_schedules_before_a_scheduled_body() {
    let contents = "\
TABLE OF CONTENTS
1. Supply ........ 1
2. Price ........ 1
3. Warranty ........ 2
Schedule 1 – Prices ........ 3
Schedule 2 – Service Levels ........ 4

";
    let plain = parse_text("supply", SCHEDULED);
    let doc = parse_text("supply", &format!("{contents}{SCHEDULED}"));
    assert_eq!(ids(&doc), ids(&plain));
    assert_eq!(doc.clauses, plain.clauses);
    assert_eq!(doc.skipped.table_of_contents, 6);
}

#[test]
fn a_list_of_schedules_on_the_cover_does_not_take_the_body() {
    // Schedule headings before any clause are cover text, not scopes.
    let text = "SUPPLY AGREEMENT\nSchedule 1 Prices\n\n1. Supply\nThe Supplier supplies.\n2. Price\nThe Buyer pays.\n3. Warranty\nTwo years.";
    let doc = parse_text("cover", text);
    assert_eq!(ids(&doc), ["1", "2", "3"]);
    assert!(
        doc.preamble.contains("Schedule 1 Prices"),
        "{}",
        doc.preamble
    );
    // A reference to a schedule in running text is no heading.
    let text = "1. Price\nSchedule 1 sets out the prices.\n2. Term\nOne year.";
    let doc = parse_text("ref", text);
    assert_eq!(ids(&doc), ["1", "2"]);
}

#[test]
fn a_list_of_exhibits_inside_the_body_does_not_take_the_clauses_after_it() {
    let text = "\
19. Entire Agreement
This agreement is the whole agreement.
20. Exhibits
The following exhibits form part of this agreement:
Exhibit A – Form of Order
Exhibit B – Price List
21. Notices
Notices are given in writing.
22. Counterparts
This agreement may be signed in counterparts.

EXHIBIT A
FORM OF ORDER
1. Order Details
The Buyer states the quantity.
";
    let doc = parse_text("exhibits", text);
    assert_eq!(
        ids(&doc),
        ["19", "20", "21", "22", "Exhibit A", "Exhibit A para 1"],
        "{doc:#?}"
    );
    assert!(text_of(&doc, "20").contains("Exhibit B – Price List"));
    assert_eq!(text_of(&doc, "21"), "Notices are given in writing.");
}

#[test]
fn a_schedule_line_whose_numbers_go_on_is_body_text() {
    // A running header naming a schedule, then the body's next sub-clause: no restart, so
    // no scope.
    let text = "\
6. Payment
6.1 Invoices
The Supplier invoices monthly.
Schedule B Price Adjustment
6.2 Interest
Late amounts bear interest.
7. Term
The term is one year.
";
    let doc = parse_text("header", text);
    assert_eq!(ids(&doc), ["6", "6.1", "6.2", "7"], "{doc:#?}");
    assert!(text_of(&doc, "6.1").contains("Schedule B Price Adjustment"));
}

#[test]
fn contents_then_recitals_then_body() {
    let text = format!(
        "TABLE OF CONTENTS\n1. Definitions 2\n2. Licence 2\n3. Fees 3\n4. Termination 4\n5. Governing Law 5\n\nTHIS LICENCE is made between the Licensor and the Licensee.\nWHEREAS the Licensee wishes to use the Software.\n\n{BODY}"
    );
    let doc = parse_text("licence", &text);
    assert_body_kept(&doc);
    assert_eq!(doc.skipped.table_of_contents, 6);
    assert!(
        doc.preamble.starts_with("THIS LICENCE is made"),
        "{}",
        doc.preamble
    );
}
