//! Parsing and the full rule-based review of a generated 20,000-clause contract: linear
//! parsing, and a review with no step that grows with the square of the clause count.
//!
//! Run: `cargo bench -p skills --bench parse -- --warm-up-time 1 --measurement-time 5`

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skill_core::Dispatcher;
use skills::document::parse_text;
use skills::review::{run_checklist_review, ReviewOptions};
use skills::{DocumentRole, ReviewDocument, ReviewState};

const TOPICS: [&str; 12] = [
    "Payment",
    "Variations",
    "Insurance",
    "Termination",
    "Delay Damages",
    "Claims",
    "Site Data",
    "Assignment",
    "Confidentiality",
    "Notices",
    "Liability",
    "Disputes",
];

/// A contract of `clauses` clauses: numbered articles of ten sub-clauses each (so article
/// numbers pass 1,000 for large contracts), with a title page, a preamble, figures, time
/// limits, definitions and references to other clauses (some of them broken).
fn contract(clauses: usize) -> String {
    let articles = clauses.div_ceil(11);
    let mut out = String::from("CONSTRUCTION CONTRACT\n\nThis Contract is made between the Employer and the Contractor.\n\n");
    let mut seed: u64 = 7;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n
    };
    let mut written = 0;
    for article in 1..=articles {
        let topic = TOPICS[next(TOPICS.len())];
        let _ = writeln!(out, "{article} {topic}\n");
        written += 1;
        for sub in 1..=10 {
            if written >= clauses {
                break;
            }
            let days = [7, 14, 28, 42, 56][next(5)];
            let target = next(articles + 5) + 1;
            let _ = writeln!(
                out,
                "{article}.{sub} {topic} Provision\n\"{topic} {article}.{sub}\" means the obligation of this Sub-Clause. The Contractor shall give notice within {days} days, failing which the claim is barred. The Employer shall pay {} per cent of the Contract Price under Clause {target}.{}. The liability of the Contractor shall not exceed the Contract Price.\n",
                next(20) + 1,
                next(12) + 1
            );
            written += 1;
        }
    }
    out
}

fn state(text: &str) -> ReviewState {
    ReviewState {
        domain_id: "fidic".into(),
        our_party: "Contractor".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "contract.md".into(),
            structure: parse_text("contract", text),
        }],
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let mut parse = c.benchmark_group("parse");
    parse.sample_size(10);
    for clauses in [2_000, 20_000] {
        let text = contract(clauses);
        let doc = parse_text("contract", &text);
        assert_eq!(
            doc.total_clauses, clauses,
            "generated numbering not recovered"
        );
        parse.bench_with_input(BenchmarkId::new("clauses", clauses), &text, |b, text| {
            b.iter(|| black_box(parse_text("contract", text)))
        });
    }
    parse.finish();

    let dispatcher = Dispatcher::from_inventory().expect("registry");
    let options = ReviewOptions::default();
    let mut review = c.benchmark_group("rule_review");
    review.sample_size(10);
    for clauses in [2_000, 20_000] {
        let state = state(&contract(clauses));
        let report = run_checklist_review(&dispatcher, &state, &options);
        eprintln!(
            "{clauses} clauses: {} items reviewed, {} skill calls, {} failed, {} risks",
            report.summary.clauses_reviewed,
            report.summary.skill_calls,
            report.summary.skill_failures,
            report.summary.total_risks
        );
        review.bench_with_input(BenchmarkId::new("clauses", clauses), &state, |b, state| {
            b.iter(|| black_box(run_checklist_review(&dispatcher, state, &options)))
        });
    }
    review.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
