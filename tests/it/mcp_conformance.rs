//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the
//! fixture server `fixtures/mcp-conformance` (skills served by toolwright-mcp, plus the suite's
//! fixed-name resources and prompts), for the scenarios required by the 2025-11-25 and
//! 2026-07-28 revisions, and the unscored ones the suite runs with them. A failing scenario
//! outside the documented expected failures (`fixtures/mcp-conformance/expected-failures.yaml`,
//! see docs/MCP-CONFORMANCE.md) fails the test, and so does an expected failure that passes.
//!
//! Needs the peers of `.ci/mcp-peers.sh` (which also builds the fixture binary next to
//! `clausewright`); without them the test says so and passes, unless `CI=true`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::mcp_peers::Peers;

const EXPECTED_FAILURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/mcp-conformance/expected-failures.yaml"
);

/// The spec revisions whose frozen requirement sets are run.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The fixture server binary (built by `cargo build -p mcp-conformance`).
pub(crate) fn fixture_binary() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_BIN_EXE_clausewright")).with_file_name("mcp-conformance");
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "conformance fixture {} not built (cargo build -p mcp-conformance, or .ci/mcp-peers.sh)",
        path.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; CI=true needs it");
    }
    eprintln!("skipped: {why}");
    None
}

/// The fixture on a free loopback port, stopped on drop.
pub(crate) struct Fixture {
    child: Child,
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
}

impl Fixture {
    /// Starts the fixture on a free loopback port.
    pub(crate) fn start(binary: &Path) -> Self {
        let mut child = Command::new(binary)
            .args(["--addr", "127.0.0.1:0"])
            // The suite probes unknown tools and methods on purpose: only errors are news.
            .env("TOOLWRIGHT_LOG", "error")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", binary.display()));
        let mut banner = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut banner)
            .unwrap();
        let url = banner
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("no address in {banner:?}"))
            .to_string();
        Self { child, url }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// The scenario names of the expected-failures file (`server:` entries, one `- name` a line).
fn expected_failures() -> Vec<String> {
    let text = std::fs::read_to_string(EXPECTED_FAILURES)
        .unwrap_or_else(|e| panic!("{EXPECTED_FAILURES}: {e}"));
    text.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("- "))
        .map(|name| name.trim().to_string())
        .collect()
}

/// The per-scenario lines of the suite's summary (`✓ name: N passed, 0 failed`).
fn summary(stdout: &str) -> Vec<&str> {
    stdout
        .split("=== SUMMARY ===")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Total:"))
        .filter(|l| l.starts_with('✓') || l.starts_with('✗'))
        .collect()
}

#[test]
fn conformance_suite_passes_for_both_revisions() {
    let Some(peers) = Peers::find() else { return };
    let Some(binary) = fixture_binary() else {
        return;
    };
    let fixture = Fixture::start(&binary);
    let suite = peers.script("@modelcontextprotocol/conformance", "conformance");
    let expected = expected_failures();
    let mut failures = Vec::new();
    for revision in REVISIONS {
        let out = peers
            .command(&suite)
            .args(["server", "--url", &fixture.url])
            .args(["--requirements", revision])
            .args(["--expected-failures", EXPECTED_FAILURES])
            .args(["--timeout", "15000"])
            .env("NO_COLOR", "1")
            .output()
            .expect("conformance suite runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines = summary(&stdout);
        let passed = lines.iter().filter(|l| l.starts_with('✓')).count();
        eprintln!(
            "conformance {revision}: {passed} of {} scenarios pass",
            lines.len()
        );
        for line in &lines {
            eprintln!("  {line}");
        }
        assert!(
            !lines.is_empty(),
            "{revision}: no summary from the suite\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        // The suite's own baseline check covers the scored scenarios; this one also holds
        // the unscored ones (pending, added after the release) to what they achieve today.
        for line in &lines {
            let name = line
                .trim_start_matches(['✓', '✗'])
                .trim()
                .split(':')
                .next()
                .unwrap_or_default();
            let expected = expected.iter().any(|e| e == name);
            if line.starts_with('✗') && !expected {
                failures.push(format!("{revision}: `{name}` fails: {line}"));
            } else if line.starts_with('✓') && expected {
                failures.push(format!(
                    "{revision}: `{name}` passes now: remove it from {EXPECTED_FAILURES}"
                ));
            }
        }
        if !out.status.success() {
            failures.push(format!(
                "{revision}: suite exited with {} (an unexpected failure or a stale expected \
                 failure)\nstdout:\n{stdout}\nstderr:\n{stderr}",
                out.status
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
