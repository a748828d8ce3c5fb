//! `fidic_calculate_time_bar` on one clause of 1, 4 and 8 MiB: the time grows with the
//! length (linear), not with its square. The clause is one sentence repeated without a line
//! break, as a one-line contract gives it, read against itself as its General Conditions (a
//! clause the Particular Conditions leave unchanged), and the same length as one sentence
//! (no full stop), where every limit shares one long sentence; and with every other limit
//! changed by the Particular Conditions, where each changed limit is compared with the
//! General Conditions limits around it.
//!
//! Run: `cargo bench -p clausewright-skills --bench time_bar -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use clausewright_skills::fidic::time_bar::analyse;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const SENTENCE: &str =
    "The Contractor shall give notice within 28 days of the event, failing which the claim is barred. ";

/// `sentence` repeated to `mib` MiB.
fn clause(sentence: &str, mib: usize) -> String {
    sentence.repeat((mib << 20) / sentence.len())
}

fn bench(c: &mut Criterion) {
    let one_sentence = SENTENCE.replace(". ", ", ");
    for (name, sentence) in [
        ("time_bar_sentences", SENTENCE),
        ("time_bar_one_sentence", one_sentence.as_str()),
    ] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for mib in [1, 4, 8] {
            let text = clause(sentence, mib);
            let report = analyse("20.1", &text, &text, "gc", "Contractor");
            assert_eq!(report.time_limit_count, (mib << 20) / sentence.len());
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new("MiB", mib), &text, |b, text| {
                b.iter(|| black_box(analyse("20.1", text, text, "gc", "Contractor")))
            });
        }
        group.finish();
    }
    // The Particular Conditions changed every other limit: each changed one is compared with
    // the General Conditions limits around it (the most work the comparison does).
    let mut group = c.benchmark_group("time_bar_pc_changed");
    group.sample_size(10);
    for mib in [1, 4, 8] {
        let gc = clause(SENTENCE, mib);
        let pc = clause(&format!("{SENTENCE}{}", SENTENCE.replace("28", "14")), mib);
        let report = analyse("20.1", &pc, &gc, "gc_with_pc", "Contractor");
        assert_eq!(report.shortened_count, report.time_limit_count / 2);
        group.throughput(Throughput::Bytes(pc.len() as u64));
        group.bench_with_input(BenchmarkId::new("MiB", mib), &pc, |b, pc| {
            b.iter(|| black_box(analyse("20.1", pc, &gc, "gc_with_pc", "Contractor")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
