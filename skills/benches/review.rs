//! End-to-end offline review of a generated 2,000-clause contract with a standard form and
//! ~5 MB of reference documents.
//!
//! Run: `cargo bench -p clausewright-skills --bench review -- --warm-up-time 1 --measurement-time 2`

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use clausewright_skills::document::parse_text;
use clausewright_skills::index::Bm25Index;
use clausewright_skills::review::{run_checklist_review, ReviewOptions};
use clausewright_skills::{DocumentRole, ReviewDocument, ReviewState};
use criterion::{criterion_group, criterion_main, Criterion};
use toolwright::Dispatcher;

const WORDS: [&str; 48] = [
    "contractor",
    "employer",
    "engineer",
    "works",
    "design",
    "plant",
    "materials",
    "site",
    "access",
    "programme",
    "completion",
    "tests",
    "defects",
    "variation",
    "valuation",
    "payment",
    "statement",
    "certificate",
    "notice",
    "claim",
    "delay",
    "suspension",
    "termination",
    "insurance",
    "indemnity",
    "liability",
    "risk",
    "care",
    "security",
    "guarantee",
    "bank",
    "approval",
    "specification",
    "drawings",
    "samples",
    "inspection",
    "quality",
    "environment",
    "safety",
    "personnel",
    "equipment",
    "subcontractor",
    "nominated",
    "provisional",
    "sum",
    "cost",
    "profit",
    "schedule",
];

/// Deterministic pseudo-random numbers (no dependency, same text every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }

    /// A word: mostly one of the common contract words, otherwise one of 4,000 rarer
    /// made-up words with a skewed (Zipf-like) frequency, as in real documents.
    fn word(&mut self) -> String {
        if self.next().is_multiple_of(2) {
            return WORDS[self.next() % WORDS.len()].to_string();
        }
        let u = (self.next() % 10_000) as f64 / 10_000.0;
        let rank = (4000.0 * u * u * u) as usize;
        const SYLLABLES: [&str; 16] = [
            "ka", "lo", "mi", "ren", "tu", "sa", "vel", "do", "pri", "na", "gor", "e", "st", "ul",
            "fa", "xi",
        ];
        let mut w = String::new();
        let mut r = rank + 17;
        while r > 0 {
            w.push_str(SYLLABLES[r % 16]);
            r /= 16;
        }
        w
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut s = String::from("The ");
        for i in 0..words {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&self.word());
        }
        s.push('.');
        s
    }
}

/// A FIDIC-style contract: `clauses / 10` clauses of 10 sub-clauses each, with figures,
/// references and definitions; `variant` changes some wording (the contract vs its standard form).
fn contract(clauses: usize, variant: u64) -> String {
    let mut rng = Lcg(42);
    let mut out = String::from("1 General Provisions\n1.1 Definitions\n\"Contract Price\" means the accepted sum.\n\"Works\" means the permanent works.\n");
    for top in 2..=clauses / 10 + 1 {
        let _ = writeln!(out, "{top} {}", capitalise(WORDS[rng.next() % WORDS.len()]));
        for sub in 1..=10 {
            if top == clauses / 10 + 1 && sub > 10 - 1 {
                break;
            }
            let _ = writeln!(
                out,
                "{top}.{sub} {} {}",
                capitalise(WORDS[rng.next() % WORDS.len()]),
                capitalise(WORDS[rng.next() % WORDS.len()])
            );
            let mut body = String::new();
            for _ in 0..3 {
                body.push_str(&rng.sentence(12));
                body.push(' ');
            }
            let days = [14, 28, 42, 56, 84][rng.next() % 5];
            // Draw the number in both variants so the two texts stay aligned.
            let changed = rng.next().is_multiple_of(3) && variant == 1;
            let days = if changed { days / 2 } else { days };
            let _ = write!(
                body,
                "The Employer shall pay within {days} days under Sub-Clause {}.{}. Retention shall be {}% of the Contract Price.",
                rng.next() % (clauses / 10) + 1,
                rng.next() % 12 + 1,
                if changed { 10 } else { 5 }
            );
            if changed {
                body.push_str(" The Works shall be fit for purpose.");
            }
            let _ = writeln!(out, "{body}");
        }
    }
    out
}

fn capitalise(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Reference text of about `bytes` bytes in numbered sections.
fn reference(bytes: usize, seed: u64) -> String {
    let mut rng = Lcg(seed);
    let mut out = String::new();
    let mut section = 0;
    while out.len() < bytes {
        section += 1;
        let _ = writeln!(
            out,
            "{section} {}",
            capitalise(WORDS[rng.next() % WORDS.len()])
        );
        for _ in 0..8 {
            out.push_str(&rng.sentence(14));
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

struct Inputs {
    contract: String,
    baseline: String,
    references: Vec<String>,
}

fn inputs() -> Inputs {
    Inputs {
        contract: contract(2000, 1),
        baseline: contract(2000, 0),
        references: vec![reference(3_000_000, 7), reference(2_000_000, 9)],
    }
}

fn state(inputs: &Inputs, reference_tag: usize) -> ReviewState {
    let doc = |role, name: &str, text: &str| ReviewDocument {
        role,
        filename: name.into(),
        structure: parse_text(name, text).into(),
    };
    let mut documents = vec![
        doc(DocumentRole::Primary, "PC.md", &inputs.contract),
        doc(DocumentRole::Baseline, "GC.md", &inputs.baseline),
    ];
    for (i, text) in inputs.references.iter().enumerate() {
        let mut d = doc(DocumentRole::Reference, &format!("REF{i}.md"), text);
        // A new id makes the document new to the index cache: every iteration indexes afresh.
        std::sync::Arc::make_mut(&mut d.structure).document_id = format!("ref{i}-{reference_tag}");
        documents.push(d);
    }
    ReviewState {
        domain: clausewright_skills::review::Domain::Fidic,
        our_party: "Contractor".into(),
        documents,
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    let dispatcher = Dispatcher::from_inventory().expect("registry");
    let warm_state = state(&inputs, 0);
    let options = ReviewOptions::default();
    let report = run_checklist_review(&dispatcher, &warm_state, &options);
    let reference_bytes: usize = inputs.references.iter().map(String::len).sum();
    eprintln!(
        "contract: {} clauses ({} bytes), references: {} bytes; review: {} items, {} skill calls, {} failed, {} risks ({} high)",
        warm_state.primary().unwrap().total_clauses,
        inputs.contract.len(),
        reference_bytes,
        report.summary.clauses_reviewed,
        report.summary.skill_calls,
        report.summary.skill_failures,
        report.summary.total_risks,
        report.summary.high
    );

    let mut per_skill: std::collections::BTreeMap<&str, (usize, f64)> = Default::default();
    for run in report.clauses.iter().flat_map(|c| c.skills.iter()) {
        let entry = per_skill.entry(run.skill_id.as_ref()).or_default();
        entry.0 += 1;
        entry.1 += run.elapsed_ms;
    }
    for (skill, (calls, ms)) in per_skill {
        eprintln!("  {skill:<28} {calls:>5} calls {ms:>9.1} ms in total");
    }

    let mut group = c.benchmark_group("offline_review");
    group.sample_size(10);
    group.bench_function("review_2000_clauses_indexed", |b| {
        b.iter(|| black_box(run_checklist_review(&dispatcher, &warm_state, &options)))
    });
    let tag = AtomicUsize::new(1);
    group.bench_function("parse_index_and_review_2000_clauses_cold", |b| {
        b.iter(|| {
            let state = state(&inputs, tag.fetch_add(1, Ordering::Relaxed));
            black_box(run_checklist_review(&dispatcher, &state, &options))
        })
    });
    group.bench_function("parse_documents", |b| {
        b.iter(|| black_box(state(&inputs, 0)))
    });
    let reference_doc = &warm_state.documents[2];
    group.bench_function("bm25_index_3mb", |b| {
        b.iter(|| black_box(Bm25Index::build(reference_doc)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
