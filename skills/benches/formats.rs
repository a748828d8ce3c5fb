//! Reading contracts from Word and PDF: a generated 200-page PDF (8,000 body lines with a
//! running header, two page numbers a page and hyphenated line breaks) and a generated
//! Word document of 2,000 automatically numbered clauses, each read into text.
//!
//! Run: `cargo bench -p clausewright-skills --bench formats -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;
use std::path::Path;

use clausewright_skills::document::formats::text_from_bytes;
use criterion::{criterion_group, criterion_main, Criterion};

#[path = "../tests/it/format_fixtures.rs"]
mod format_fixtures;

use format_fixtures::{contract_pdf, docx, numbered, styled, NUMBERING, STYLES};

/// A Word contract of `clauses` numbered headings, each with two numbered sub-clauses and
/// two lettered items.
fn contract_docx(clauses: usize) -> Vec<u8> {
    let mut body = String::new();
    for c in 0..clauses {
        body.push_str(&styled("Heading1", &format!("Clause title {c}")));
        for _ in 0..2 {
            body.push_str(&styled(
                "Heading2",
                "The Contractor shall carry out the Works in accordance with the Contract.",
            ));
            body.push_str(&numbered(1, 2, "an item of the sub-clause;"));
        }
    }
    docx(&body, STYLES, NUMBERING, None)
}

fn bench(c: &mut Criterion) {
    let pdf = contract_pdf(200);
    let word = contract_docx(2_000);
    let mut group = c.benchmark_group("formats");
    group.sample_size(10);
    group.bench_function("pdf_200_pages", |b| {
        b.iter(|| {
            let (text, _) = text_from_bytes(Path::new("contract.pdf"), black_box(&pdf)).unwrap();
            assert!(text.len() > 100_000);
            text
        })
    });
    group.bench_function("docx_2000_clauses", |b| {
        b.iter(|| {
            let (text, _) = text_from_bytes(Path::new("contract.docx"), black_box(&word)).unwrap();
            assert!(text.contains("2000.2"));
            text
        })
    });
    group.finish();
    println!("inputs: PDF {} bytes, Word {} bytes", pdf.len(), word.len());
}

criterion_group!(benches, bench);
criterion_main!(benches);
