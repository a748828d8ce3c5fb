//! The Python peers of the MCP tests (`tests/it/peers/*.py`, on the official MCP Python SDK):
//! whether they can run here, and running one for its one-line JSON report.

use std::process::Command;

use serde_json::Value;

/// Whether python3 can import `modules` (`"mcp"`, `"mcp, yaml"`); without them the test is
/// skipped, except under CI=true, where `install` says what is missing.
pub fn available(modules: &str, install: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("python3 cannot import {modules}: {install}; CI=true needs them");
        }
        eprintln!("skipped: python3 cannot import {modules} ({install})");
    }
    ok
}

/// Runs `tests/it/peers/SCRIPT MODE TARGET...` (with `TOOLWRIGHT_TOKEN` when given) and
/// returns the report it prints last.
pub fn run(script: &str, mode: &str, target: &[&str], token: Option<&str>) -> Value {
    let path = format!("{}/tests/it/peers/{script}", env!("CARGO_MANIFEST_DIR"));
    let mut command = Command::new("python3");
    command.arg(&path).arg(mode).args(target);
    if let Some(token) = token {
        command.env("TOOLWRIGHT_TOKEN", token);
    }
    let output = command.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} ({mode}, {target:?}) failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report from {script} ({e}): {stdout}"))
}
