//! Contract files as `review`, `parse` and the console read them: PDF and Word (`.docx`)
//! bytes through `text_from_bytes`, then the text parser.
//!
//! Input: byte 0 picks the name the bytes come under (even: `contract.pdf`, odd:
//! `contract.docx`; the bytes' own header decides how they are read), the rest is the file.
//! Beyond "no panic" (and no abort: the run's memory limit, `-rss_limit_mb`, catches reading
//! that runs away), each run checks what the readers promise:
//! - a refusal is an error, never a crash, and names no Rust internals; a refusal for size or
//!   cost (`is_over_limit`) says which limit;
//! - the PDF libraries (`lopdf`, `pdf-extract`) panic on some malformed files; the reader runs
//!   them under `catch_unwind` and reports "corrupt PDF". libFuzzer's panic hook would abort
//!   on those caught panics too, so the target lets through a panic raised inside those two
//!   libraries (where the reader catches it) and aborts on any other;
//! - text that is read stays within the document budget's line limit, and its clause tree is
//!   consistent: `total_clauses` counts it, every clause is found by its id, the outline
//!   lists every clause.

#![no_main]

mod common;

use std::path::Path;
use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use clausewright_skills::document::formats::{budget, text_from_bytes};
use clausewright_skills::document::parse_text;

/// Source paths of the libraries whose panics the PDF reader catches.
const GUARDED: [&str; 2] = ["/lopdf-", "/pdf-extract-"];

/// Wraps libFuzzer's panic hook (print, then abort) so that a panic raised inside a guarded
/// library passes silently: the reader catches it and answers with an error, checked below.
fn let_guarded_panics_through() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let guarded = info
                .location()
                .is_some_and(|at| GUARDED.iter().any(|lib| at.file().contains(lib)));
            if !guarded {
                abort(info);
            }
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    let_guarded_panics_through();
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let name = if pick & 1 == 0 {
        "contract.pdf"
    } else {
        "contract.docx"
    };
    match text_from_bytes(Path::new(name), bytes) {
        Ok((text, _format)) => {
            assert!(
                text.lines().count() <= budget::MAX_LINES,
                "{} lines read, over the budget's {}",
                text.lines().count(),
                budget::MAX_LINES
            );
            let doc = parse_text("fuzz", &text);
            assert_eq!(doc.total_clauses, doc.iter_clauses().count());
            for clause in doc.iter_clauses() {
                assert!(
                    doc.find_clause(&clause.clause_id).is_some(),
                    "clause `{}` is not found by its id",
                    clause.clause_id
                );
            }
            assert_eq!(doc.outline().clauses.len(), doc.total_clauses);
        }
        Err(err) => {
            let message = err.to_string();
            common::assert_no_internals(&message, "");
            if err.kind.is_over_limit() {
                assert!(
                    message.contains("limit") || message.contains("budget"),
                    "a refusal for size names no limit: {message}"
                );
            }
        }
    }
});
