//! Long clauses and long contracts: the analyses read each once (no step grows with the
//! square of a clause's length), and clause numbers of five digits and more in sequence are
//! headings. The sizes the problem was found at (a one-line contract of 1-8 MiB, 100,000
//! clauses) run here in debug builds; ten times them runs with
//! `cargo test --release -p clausewright-skills --test it -- --ignored linear_analyses`, and the time
//! against length is in the `time_bar` bench (BENCHMARKS.md, "Linear analyses").

use clausewright_skills::document::parse_text;
use clausewright_skills::fidic::time_bar::{analyse, TimeBarReport};
use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
use serde_json::json;

use crate::samples_common::{ctx, run};

/// The sentence of the one-line contract that made the time-bar analysis quadratic.
const SENTENCE: &str =
    "The Contractor shall give notice within 28 days of the event, failing which the claim is barred. ";

/// `SENTENCE` repeated to `bytes` bytes, without a line break.
fn one_line(bytes: usize) -> String {
    SENTENCE.repeat(bytes / SENTENCE.len())
}

/// A Markdown contract of `count` clauses numbered from `first` (`## 10000. Clause 10000`),
/// each citing the one before it.
fn numbered(first: usize, count: usize) -> String {
    let mut out = String::from("# Contract\n\n");
    for i in first..first + count {
        out.push_str(&format!(
            "## {i}. Clause {i}\nThe Contractor shall give notice under Sub-Clause {} within 28 days.\n\n",
            i.saturating_sub(1).max(1)
        ));
    }
    out
}

fn check_one_line(bytes: usize) {
    let text = one_line(bytes);
    let count = bytes / SENTENCE.len();
    let report = analyse("20.1", &text, &text, "gc", "Contractor");
    assert_eq!(report.time_limit_count, count);
    let first = &report.time_limits[0];
    assert_eq!(first.requirement, "within");
    assert_eq!(first.party.as_deref(), Some("Contractor"));
    assert_eq!(first.trigger.as_deref(), Some("of the event"));
    assert_eq!(first.sentence, SENTENCE.trim());
    assert!(report.time_limits.iter().all(|l| l == first));
}

#[test]
fn a_one_line_contract_of_a_mebibyte_is_read_limit_by_limit() {
    check_one_line(1 << 20);
}

#[tokio::test]
async fn the_time_bar_skill_reads_a_long_clause_given_as_text() {
    let text = one_line(256 << 10);
    let state = ReviewState {
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "contract.txt".into(),
            structure: parse_text("contract", &text).into(),
        }],
        ..Default::default()
    };
    let report: TimeBarReport = run(
        "fidic_calculate_time_bar",
        &ctx(state, "P1"),
        json!({"clause_id": "20.1", "clause_text": text}),
    )
    .await;
    assert_eq!(report.text_source, "given_text");
    assert_eq!(report.time_limit_count, (256 << 10) / SENTENCE.len());
}

#[test]
fn a_hundred_thousand_clauses_parse_as_a_hundred_thousand() {
    let doc = parse_text("contract", &numbered(1, 100_000));
    assert_eq!(doc.total_clauses, 100_000);
    let last = doc.find_clause("100000").expect("the last clause");
    assert_eq!(last.title, "Clause 100000");
    assert_eq!(
        last.text,
        "The Contractor shall give notice under Sub-Clause 99999 within 28 days."
    );
    assert_eq!(doc.find_clause("10000").unwrap().title, "Clause 10000");
    // References to five-digit clauses are found and resolved.
    assert!(doc
        .cross_references
        .iter()
        .any(|r| r.source_clause_id == "100000" && r.target_clause_id == "99999" && r.is_valid));
}

#[test]
fn five_and_six_digit_numbers_in_sequence_are_headings_with_their_sub_clauses() {
    let mut text = String::new();
    for n in [9_998, 9_999, 10_000, 10_001] {
        text.push_str(&format!("{n} Heading {n}\nText of clause {n}.\n"));
    }
    text.push_str("10001.1 Sub Heading\nText of the sub-clause.\n");
    for n in [99_999, 100_000] {
        // A contract may also jump ahead a little (a reserved clause).
        let n = n - 89_997;
        text.push_str(&format!("{n} Heading {n}\nText of clause {n}.\n"));
    }
    let doc = parse_text("long", &text);
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(
        ids,
        ["9998", "9999", "10000", "10001", "10001.1", "10002", "10003"]
    );
    assert_eq!(doc.parent_of("10001.1").unwrap().clause_id, "10001");
    let doc = parse_text("six", &numbered(99_998, 4));
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["99998", "99999", "100000", "100001"]);
}

#[test]
fn five_digit_numbers_out_of_sequence_are_not_headings() {
    // An amount, an address and a reference number starting a line, in a short contract.
    let text = "1 Price\nThe price is payable as follows:\n25000 Euro\non signing.\n2 Notices\nNotices go to\n12345 Main Street\nSpringfield.\n3 Reference\nQuote the number\n10000.50 Total\nin every invoice.\n";
    let doc = parse_text("amounts", text);
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
    assert!(doc.find_clause("1").unwrap().text.contains("25000 Euro"));
    assert!(doc
        .find_clause("2")
        .unwrap()
        .text
        .contains("12345 Main Street"));
    assert!(doc
        .find_clause("3")
        .unwrap()
        .text
        .contains("10000.50 Total"));

    // A five-digit number never starts a document's numbering: it is an amount.
    let doc = parse_text(
        "first",
        "12345 Main Street\nSpringfield.\n1 Term\nText.\n2 Price\nText.",
    );
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["1", "2"]);

    // A number out of sequence among five-digit clauses, and one with a letter.
    let mut text = numbered(10_000, 3);
    text.push_str("54321 Amount Due\nText.\n12345A Extra\nText.\n");
    text.push_str(&numbered(10_003, 1).replace("# Contract\n\n", ""));
    let doc = parse_text("gap", &text);
    let ids: Vec<&str> = doc.iter_clauses().map(|c| c.clause_id.as_str()).collect();
    assert_eq!(ids, ["10000", "10001", "10002", "10003"]);
    assert!(doc
        .find_clause("10002")
        .unwrap()
        .text
        .contains("54321 Amount Due"));

    // Ten digits are more than any clause number.
    let doc = parse_text(
        "ten",
        "1 Term\nText.\n2 Price\nText.\n1234567890 Heading\nText.",
    );
    assert_eq!(doc.total_clauses, 2);
}

#[test]
#[ignore = "ten times the reported sizes (80 MiB, a million clauses): run in release builds"]
fn linear_analyses_at_ten_times_the_reported_sizes() {
    for mib in [10, 40, 80] {
        check_one_line(mib << 20);
    }
    let doc = parse_text("contract", &numbered(1, 1_000_000));
    assert_eq!(doc.total_clauses, 1_000_000);
    assert_eq!(doc.find_clause("1000000").unwrap().title, "Clause 1000000");
}
