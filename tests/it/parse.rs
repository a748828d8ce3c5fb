//! `clausewright parse`: the clause tree a review uses, as a table and as JSON, and the errors a
//! user gets for a missing or empty file.

use std::process::{Command, Output};

use serde_json::Value;

use crate::binary::in_repo as clausewright;

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toolwright-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();

    path
}

const CONTRACT: &str = "SUPPLY AGREEMENT\n\nTABLE OF CONTENTS\nARTICLE I Definitions 1\nARTICLE II Supply 2\n\nThis Agreement is made between Seller and Buyer.\n\nARTICLE I\nDEFINITIONS\nSection 1.1 Terms. \"Products\" means the goods listed in Schedule A.\nARTICLE II\nSUPPLY\nSection 2.1 Delivery. The Seller delivers as set out in Section 1.1 and Article I.\nSection 2.2 Price. See Section 9.\nPage 2 of 2\n";

#[test]
fn parse_prints_the_clause_tree_as_json() {
    let path = write("supply.txt", CONTRACT);
    let out = clausewright(&["parse", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let clauses = json["clauses"].as_array().unwrap();
    let rows: Vec<(&str, u64)> = clauses
        .iter()
        .map(|c| {
            (
                c["clause_id"].as_str().unwrap(),
                c["level"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [("1", 1), ("1.1", 2), ("2", 1), ("2.1", 2), ("2.2", 2)]
    );
    assert_eq!(clauses[0]["title"], "DEFINITIONS");
    assert_eq!(clauses[1]["defined_terms"][0], "Products");
    let refs = clauses[3]["references"].as_array().unwrap();
    assert_eq!(refs.len(), 2);
    assert!(refs.iter().all(|r| r["is_valid"] == true));
    assert_eq!(clauses[4]["references"][0]["is_valid"], false);
    assert_eq!(json["broken_references"], 1);
    assert_eq!(json["skipped"]["table_of_contents"], 3);
    assert_eq!(json["preamble_length"], 65);
    assert_eq!(json["skipped"]["page_furniture"], 1);
}

#[test]
fn parse_prints_a_table_by_default() {
    let path = write("supply.md", CONTRACT);
    let out = clausewright(&["parse", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("number") && text.contains("references"),
        "{text}"
    );
    assert!(text.contains("Section 9 (broken)"), "{text}");
    assert!(text.contains("Article I -> 1"), "{text}");
    assert!(text.contains("5 clauses (article numbering)"), "{text}");
}

#[test]
fn parse_errors_name_the_file() {
    let out = clausewright(&["parse", "/nonexistent/contract.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/contract.txt"));
    let empty = write("empty.txt", "  \n\n");
    let out = clausewright(&["parse", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
}

/// Runs the binary, killing it if it has not ended within `limit` (a hang is a failure,
/// not a stuck test run).
#[cfg(unix)]
fn clausewright_within(args: &[&str], limit: std::time::Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "toolwright {args:?} still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A named pipe that nobody writes to is refused at once, by name, by `parse` and `review`
/// (given alone or inside a contract folder), instead of waiting for ever.
#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("contract.md");
    let made = Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success());
    let limit = std::time::Duration::from_secs(20);
    let pipe_arg = pipe.to_str().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    for args in [
        vec!["parse", pipe_arg],
        vec!["review", pipe_arg],
        vec!["review", dir_arg],
    ] {
        let out = clausewright_within(&args, limit);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(pipe_arg)
                && stderr.contains(
                    "it is a named pipe (FIFO), not a regular file; expected a contract file"
                ),
            "{args:?}: {stderr}"
        );
    }
}

/// A document's terminal escape sequences (a window title, colours, a carriage return, a
/// right-to-left override) are shown escaped by `parse` and `review`, never sent to the
/// terminal; JSON keeps them as JSON escapes.
#[test]
fn terminal_escapes_in_a_document_are_shown_escaped() {
    let path = write(
        "escapes\u{1b}[2J.md",
        "# Lease\n\n## 1. Rent \u{1b}]2;owned\u{7}\u{1b}[32mGREEN\u{1b}[0m\r\u{202e}txt.exe\n\nThe Tenant pays rent monthly.\n\n## 2. Term\nTwelve months.\n",
    );
    // Wide enough that the title is not wrapped.
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["parse", path.to_str().unwrap()])
        .env("COLUMNS", "250")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains(['\u{1b}', '\u{7}', '\r', '\u{202e}']),
        "a control character reached the terminal: {text:?}"
    );
    assert!(
        text.contains(r"Rent \u{1b}]2;owned\u{7}\u{1b}[32mGREEN\u{1b}[0m\u{d}\u{202e}txt.exe"),
        "{text}"
    );
    assert!(text.contains(r"escapes\u{1b}[2J: 3 clauses"), "{text}");

    let json = clausewright(&["parse", path.to_str().unwrap(), "--json"]);
    let value: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        value["clauses"][1]["title"],
        "Rent \u{1b}]2;owned\u{7}\u{1b}[32mGREEN\u{1b}[0m\r\u{202e}txt.exe"
    );
    assert!(!String::from_utf8_lossy(&json.stdout).contains('\u{1b}'));

    for format in ["table", "markdown"] {
        let out = clausewright(&["review", path.to_str().unwrap(), "--format", format]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\r']),
            "{format}: {text:?}"
        );
    }
    let md = clausewright(&["review", path.to_str().unwrap(), "--format", "markdown"]);
    assert!(
        String::from_utf8_lossy(&md.stdout).contains(r"# Review of escapes\u{1b}[2J"),
        "{}",
        String::from_utf8_lossy(&md.stdout)
    );
}
