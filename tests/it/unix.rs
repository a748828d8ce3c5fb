//! The binary as a Unix tool: a closed pipe ends it quietly, every failure is one line on
//! standard error naming the input and a non-zero status, tables fit the width asked for,
//! every listing has `--format json`, and oversized input is refused.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use clausewright_skills::document::formats::MAX_DOCUMENT_BYTES;
use serde_json::Value;

fn clausewright_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clausewright"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE")
        .env_remove("TOOLWRIGHT_LOG");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

fn clausewright(args: &[&str]) -> Output {
    clausewright_env(args, &[])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The command failed with exactly one line on standard error that contains `needle` (the
/// input it names) and nothing a user needs a backtrace for.
fn assert_one_line_failure(out: &Output, needle: &str) {
    let text = stderr(out);
    assert!(!out.status.success(), "succeeded: {text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "not one line: {text}");
    assert!(lines[0].starts_with("error: "), "{text}");
    assert!(lines[0].contains(needle), "`{needle}` not named: {text}");
    assert!(
        !text.contains("panicked") && !text.contains("RUST_BACKTRACE"),
        "{text}"
    );
}

/// Runs the binary with its standard output closed before it writes (a reader that went
/// away, as `| head -1` does once it has its line).
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    for args in [
        &["list"][..],
        &["list", "--format", "json"],
        &["tools"],
        &["check"],
        &["parse", "samples/sha/shareholders_agreement.md"],
        &["review", "samples/fidic", "--our-party", "Contractor"],
        &["call", "get_clause_context", "--args", "{}"],
    ] {
        let (code, err) = with_closed_stdout(args);
        assert_eq!(code, Some(141), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn failures_are_one_line_naming_the_input() {
    let dir = std::env::temp_dir().join(format!("toolwright-unix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let empty = empty.to_str().unwrap();
    assert_one_line_failure(&clausewright(&["review", empty]), empty);
    assert_one_line_failure(&clausewright(&["parse", empty]), empty);
    assert_one_line_failure(
        &clausewright(&["review", "no/such/contract.docx"]),
        "no/such/contract.docx",
    );
    assert_one_line_failure(
        &clausewright(&["call", "get_clause_context", "--args", "@no/such/args.json"]),
        "no/such/args.json",
    );
    assert_one_line_failure(
        &clausewright(&["call", "get_clause_context", "--args", "[1, 2]"]),
        "not a JSON object",
    );
    // A skill that fails: its result on stdout, one line on stderr naming the skill.
    let out = clausewright(&[
        "call",
        "get_clause_context",
        "--args",
        r#"{"clause_id": "4.1"}"#,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_one_line_failure(&out, "get_clause_context");
    let report = dir.join("report.md");
    std::fs::create_dir_all(&report).unwrap();
    let report = report.to_str().unwrap();
    assert_one_line_failure(
        &clausewright(&[
            "review",
            "samples/sha",
            "--format",
            "markdown",
            "--out",
            report,
        ]),
        report,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn argument_text_over_the_limit_is_refused_before_parsing() {
    let dir = std::env::temp_dir().join(format!("toolwright-args-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.json");
    // 4 MiB of a string: refused for its size, not read whole or parsed.
    let text = format!(r#"{{"clause_id": "{}"}}"#, "a".repeat(4 << 20));
    std::fs::write(&big, text).unwrap();
    let spec = format!("@{}", big.display());
    let out = clausewright(&["call", "get_clause_context", "--args", &spec]);
    assert_one_line_failure(&out, "1048576 bytes");
    assert_one_line_failure(&out, big.to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_argument_is_named_with_the_nearest_real_one() {
    let args = r#"{"clause_id": "1", "qeury": "payment"}"#;
    let out = clausewright(&[
        "call",
        "search_reference_doc",
        "--contract",
        "samples/fidic",
        "--args",
        args,
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("unknown argument `qeury`") && err.contains("did you mean `query`?"),
        "{err}"
    );
    let out = clausewright(&[
        "call",
        "search_reference_doc",
        "--contract",
        "samples/fidic",
        "--strict",
        "--args",
        args,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_one_line_failure(&out, "did you mean `query`?");
}

/// A sparse file one byte over the document limit (no disk is used).
fn oversized_contract(dir: &Path) -> String {
    let path = dir.join("huge.txt");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_DOCUMENT_BYTES + 1).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_contract_over_the_size_limit_is_refused_everywhere() {
    let dir = std::env::temp_dir().join(format!("toolwright-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = oversized_contract(&dir);
    for args in [
        vec!["review", huge.as_str()],
        vec!["parse", huge.as_str()],
        vec!["call", "get_clause_context", "--contract", huge.as_str()],
        vec!["serve", "--stdio", "--contract", huge.as_str()],
    ] {
        let out = clausewright(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_one_line_failure(&out, &huge);
        assert_one_line_failure(&out, "52428800");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tables_fit_the_width_asked_for() {
    for width in [60usize, 100] {
        let columns = width.to_string();
        let env = [("COLUMNS", columns.as_str())];
        let out = clausewright_env(&["list"], &env);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= width, "list at {width}: {widest} columns\n{text}");
        let out = clausewright_env(&["parse", "samples/sha/shareholders_agreement.md"], &env);
        let text = stdout(&out);
        let table: Vec<&str> = text
            .lines()
            .take_while(|l| !l.contains(" clauses ("))
            .collect();
        let widest = table.iter().map(|l| l.chars().count()).max().unwrap();
        assert!(
            widest <= width,
            "parse at {width}: {widest} columns\n{text}"
        );
    }
    // The review table: risk rows are cut to the width.
    let out = clausewright_env(
        &["review", "samples/fidic", "--our-party", "Contractor"],
        &[("COLUMNS", "90")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ID ") || l.starts_with('R'))
        .collect();
    assert!(rows.len() > 2, "{text}");
    for row in rows {
        assert!(row.chars().count() <= 90, "{row}");
    }
}

#[test]
fn every_listing_has_json() {
    let out = clausewright(&["list", "--format", "json"]);
    let listing: Value = serde_json::from_slice(&out.stdout).expect("list JSON");
    assert_eq!(listing["shown"], 17);
    assert!(listing["skills"][0]["id"].is_string());
    assert!(listing["skills"][0]["arguments"].is_array());
    let out = clausewright(&["check", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("check JSON");
    assert_eq!(report["errors"], 0);
    assert!(report["problems"].is_array());
    let out = clausewright(&[
        "parse",
        "samples/sha/shareholders_agreement.md",
        "--format",
        "json",
    ]);
    let outline: Value = serde_json::from_slice(&out.stdout).expect("parse JSON");
    assert!(outline["total_clauses"].as_u64().unwrap() > 0);
    let out = clausewright(&["list", "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
}
