//! Cost of provision detection: loading the embedded model, and classifying every clause of
//! the generated 2,000- and 20,000-clause contracts of the `parse` bench (the same text), to
//! set against the rule-based review of the same contracts measured there.
//!
//! Run: `cargo bench -p clausewright-skills --bench detect -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use clausewright_skills::detect::model::ProvisionModel;
use clausewright_skills::document::parse_text;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

#[path = "common/contract.rs"]
mod generated;
use generated::contract;

fn bench(c: &mut Criterion) {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/provisions.bin"
    ))
    .expect("model file");
    let mut load = c.benchmark_group("detect_load");
    load.bench_function("model_from_bytes", |b| {
        b.iter(|| black_box(ProvisionModel::from_bytes(black_box(&bytes)).expect("model")))
    });
    load.finish();

    let model = ProvisionModel::embedded().expect("embedded model");
    let mut classify = c.benchmark_group("detect_classify");
    classify.sample_size(10);
    for clauses in [2_000, 20_000] {
        let doc = parse_text("contract", &contract(clauses));
        assert_eq!(
            doc.total_clauses, clauses,
            "generated numbering not recovered"
        );
        classify.bench_with_input(BenchmarkId::new("clauses", clauses), &doc, |b, doc| {
            b.iter(|| black_box(model.classify(doc)))
        });
    }
    classify.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
