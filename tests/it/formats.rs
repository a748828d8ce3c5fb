//! `review`, `call --contract` and `serve --contract` read Word and PDF contracts, and
//! every file that cannot be read (empty, binary, corrupt, encrypted, scanned, too large)
//! stops the command with a message naming the file and the problem, and a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::binary::in_repo as clausewright;
use crate::format_fixtures::{contract_docx, contract_pdf, encrypted_pdf, scanned_pdf};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch folder of its own for one test.
fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toolwright-formats-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path.display().to_string()
}

fn review_json(path: &str) -> Value {
    let out = clausewright(&["review", path, "--our-party", "Buyer", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

fn clause_ids(report: &Value) -> Vec<String> {
    report["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .filter_map(|c| c["clause_id"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn review_reads_word_and_pdf() {
    let dir = scratch("review");
    let report = review_json(&write(&dir, "supply.docx", &contract_docx()));
    let ids = clause_ids(&report);
    for id in ["1.1", "2.1", "3.1"] {
        assert!(ids.iter().any(|c| c == id), "{id} not in {ids:?}");
    }
    let report = review_json(&write(&dir, "works.pdf", &contract_pdf(3)));
    let ids = clause_ids(&report);
    assert!(ids.iter().any(|c| c == "5.1"), "{ids:?}");
}

#[test]
fn review_of_a_folder_finds_a_word_contract() {
    let dir = scratch("folder");
    write(&dir, "supply.docx", &contract_docx());
    // Word's lock file beside an open document: 162 bytes that are no document.
    write(&dir, "~$supply.docx", &[0x0b; 162]);
    let report = review_json(&dir.display().to_string());
    assert!(clause_ids(&report).iter().any(|c| c == "2.1"));
}

#[test]
fn call_reads_a_word_contract() {
    let dir = scratch("call");
    let path = write(&dir, "supply.docx", &contract_docx());
    let out = clausewright(&[
        "call",
        "get_clause_context",
        "--contract",
        &path,
        "--args",
        r#"{"clause_id": "2.1"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ten (10) days"), "{text}");
}

#[test]
fn unreadable_files_fail_with_the_file_and_the_reason() {
    let dir = scratch("bad");
    let good = contract_docx();
    let cases: Vec<(String, &str)> = vec![
        (write(&dir, "empty.md", b""), "empty document"),
        (
            write(
                &dir,
                "blank.docx",
                &crate::format_fixtures::docx("<w:p/>", "", "", None),
            ),
            "empty document",
        ),
        (write(&dir, "scan.pdf", &scanned_pdf()), "scanned PDF"),
        (write(&dir, "locked.pdf", &encrypted_pdf()), "encrypted PDF"),
        (
            write(&dir, "broken.docx", &good[..good.len() / 2]),
            "corrupt Word document",
        ),
        (
            write(&dir, "photo.md", &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0, 0]),
            "binary file",
        ),
        (write(&dir, "fake.pdf", b"not a pdf at all"), "not a PDF"),
    ];
    let big = dir.join("huge.txt");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(50 * 1024 * 1024 + 1))
        .expect("sparse file");
    let mut cases = cases;
    cases.push((big.display().to_string(), "over the limit"));
    for (path, reason) in &cases {
        for args in [
            vec!["review", path.as_str(), "--our-party", "Buyer"],
            vec![
                "call",
                "get_clause_context",
                "--contract",
                path.as_str(),
                "--args",
                r#"{"clause_id": "1"}"#,
            ],
        ] {
            let out = clausewright(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(path.as_str()) && err.contains(reason),
                "{args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains("No risks"),
                "{args:?}"
            );
        }
    }
}
