//! The generated contract the `parse` and `detect` benches share (one generator, one seed),
//! so the classifier's cost is read against the review of the same text.

use std::fmt::Write as _;

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
pub fn contract(clauses: usize) -> String {
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
