//! Parsing and the full rule-based review of a generated 20,000-clause contract: linear
//! parsing, and a review with no step that grows with the square of the clause count.
//!
//! Run: `cargo bench -p clausewright-skills --bench parse -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use clausewright_skills::document::parse_text;
use clausewright_skills::review::{run_checklist_review, ReviewOptions};
use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use toolwright::Dispatcher;

#[path = "common/contract.rs"]
mod generated;
use generated::contract;

fn state(text: &str) -> ReviewState {
    ReviewState {
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        documents: vec![ReviewDocument {
            role: DocumentRole::Primary,
            filename: "contract.md".into(),
            structure: parse_text("contract", text).into(),
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
