//! `clausewright serve` offers the review packs as MCP skills (the skills extension): a
//! client on the official MCP Python SDK lists them, reads the FIDIC review's SKILL.md and
//! playbook, verifies each against its digest, size and front matter, and calls a tool the
//! skill names; over stdio and HTTP, in both protocol eras. `--skills DIR` serves a folder
//! of hand-written skills, one of which replaces a generated skill of the same name.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::http_server::HttpServer;
use crate::python_peer;

const CONTRACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fidic");

/// Whether the MCP Python SDK (and PyYAML, for front matter) can be imported; without them
/// the test is skipped, except on CI.
fn python_client_available() -> bool {
    python_peer::available("mcp, yaml", "pip install 'mcp==2.3.0' pyyaml")
}

/// Runs `tests/it/peers/skills_client.py MODE TARGET...`; its one-line report.
fn skills_client(mode: &str, target: &[&str], token: Option<&str>) -> Value {
    python_peer::run("skills_client.py", mode, target, token)
}

fn assert_report(report: &Value, transport: &str, mode: &str) {
    let version = if mode == "auto" {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    assert_eq!(report["transport"], transport, "{report}");
    assert_eq!(report["protocol_version"], version, "{report}");
    assert_eq!(
        report["skills"],
        json!(["contract-review", "fidic-review", "sha-spa-review"]),
        "{report}"
    );
    assert_eq!(
        report["verified"],
        json!(["SKILL.md", "playbook.json"]),
        "{report}"
    );
    assert_eq!(report["called"], "fidic_calculate_time_bar", "{report}");
    assert_eq!(report["unknown_skill"], -32602, "{report}");
}

#[test]
fn python_sdk_lists_reads_verifies_and_calls_over_stdio() {
    if !python_client_available() {
        return;
    }
    let clausewright = env!("CARGO_BIN_EXE_clausewright");
    for mode in ["auto", "legacy"] {
        let report = skills_client(
            mode,
            &[clausewright, "serve", "--stdio", "--contract", CONTRACT],
            None,
        );
        assert_report(&report, "stdio", mode);
    }
}

#[test]
fn python_sdk_lists_reads_verifies_and_calls_over_http() {
    if !python_client_available() {
        return;
    }
    let token = "skills-token-0123456789";
    let server = HttpServer::start_with(
        &["--contract", CONTRACT, "--no-console", "--token", token],
        &[],
    );
    for mode in ["auto", "legacy"] {
        let report = skills_client(mode, &[&server.url], Some(token));
        assert_report(&report, "http", mode);
    }
}

/// `clausewright serve --stdio ARGS`, asked `requests` in the 2026-07-28 era; the answers.
fn stdio_answers(args: &[&str], requests: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["serve", "--stdio"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("clausewright serve starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answers = Vec::new();
    for (id, (method, params)) in requests.iter().enumerate() {
        let mut params = params.clone();
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{message}").unwrap();
        let line = lines.next().expect("an answer").expect("readable");
        answers.push(serde_json::from_str(&line).expect("JSON"));
    }
    drop(stdin);
    let _ = child.wait();
    answers
}

#[test]
fn a_folder_of_hand_written_skills_is_served_beside_the_review_skills() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-skills");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fidic-review")).unwrap();
    let own = "---\nname: fidic-review\ndescription: Our firm's FIDIC method.\n---\n\nStart with `fidic_calculate_time_bar`.\n";
    std::fs::write(dir.join("fidic-review/SKILL.md"), own).unwrap();
    let dir_arg = dir.to_str().unwrap();
    let answers = stdio_answers(
        &["--contract", CONTRACT, "--skills", dir_arg],
        &[
            ("skills/list", json!({})),
            (
                "resources/read",
                json!({"uri": "skill://fidic-review/SKILL.md"}),
            ),
            (
                "resources/read",
                json!({"uri": "skill://fidic-review/playbook.json"}),
            ),
        ],
    );
    let skills = answers[0]["result"]["skills"].as_array().unwrap();
    let names: Vec<&str> = skills
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["contract-review", "fidic-review", "sha-spa-review"],
        "{}",
        answers[0]
    );
    assert_eq!(
        skills[1]["frontmatter"]["description"],
        "Our firm's FIDIC method."
    );
    assert_eq!(answers[1]["result"]["contents"][0]["text"], own);
    // The hand-written skill has no playbook: the generated one's files went with it.
    assert_eq!(answers[2]["error"]["code"], -32602, "{}", answers[2]);

    let missing = dir.join("nowhere");
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["serve", "--stdio", "--skills", missing.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nowhere"), "names the folder: {stderr}");
}

#[test]
fn narrowing_the_tools_narrows_the_skills() {
    // `--domain sha_spa`: the FIDIC tools are not served, so the FIDIC review is not offered.
    let answers = stdio_answers(
        &["--contract", CONTRACT, "--domain", "sha_spa"],
        &[("skills/list", json!({}))],
    );
    let names: Vec<&str> = answers[0]["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["contract-review", "sha-spa-review"],
        "{}",
        answers[0]
    );
}
