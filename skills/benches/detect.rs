//! Cost of provision detection: loading the embedded model, and classifying every clause of
//! the generated 2,000- and 20,000-clause contracts of the `parse` bench (the same text), to
//! set against the rule-based review of the same contracts measured there.
//!
//! Run: `cargo bench -p skills --bench detect -- --warm-up-time 1 --measurement-time 5`

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use skills::detect::model::ProvisionModel;
use skills::document::parse_text;

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

/// The `parse` bench's contract of `clauses` clauses (same generator, same seed).
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
