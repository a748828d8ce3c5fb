//! The official Python SDK as a peer, over stdio and HTTP, in both modes.

use super::*;

/// Whether the Python SDK is importable; without it the peer test is skipped, except on CI.
pub(crate) fn python_sdk_available() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("the MCP Python SDK is not installed: pip install 'mcp==2.3.0'");
        }
        eprintln!("skipped: the MCP Python SDK is not installed (pip install 'mcp==2.3.0')");
    }
    ok
}

/// The `peer_server` example, which `cargo test -p toolwright-mcp` builds next to the tests
/// (`--test mcp` alone does not: then the peer test is skipped, except on CI).
pub(crate) fn peer_server() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|p| p.parent()).unwrap();
    let path = dir
        .join("examples")
        .join(format!("peer_server{}", std::env::consts::EXE_SUFFIX));
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{} is missing: run `cargo test -p toolwright-mcp` or `cargo build -p toolwright-mcp --example peer_server`",
        path.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("skipped: {message}");
    None
}

fn run_python_client(mode: &str, target: &[&str], token: Option<&str>) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/python_client.py");
    let mut command = std::process::Command::new("python3");
    command.arg(script).arg(mode).args(target);
    if let Some(token) = token {
        command.env("TOOLWRIGHT_TOKEN", token);
    }
    let output = command.output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "Python SDK client ({mode}, {target:?}) failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stderr.contains("Session termination failed"),
        "the client could not end its session cleanly:\n{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report from the Python client ({e}): {stdout}"));
    report
}

#[test]
fn python_sdk_client_over_stdio_and_http_in_both_modes() {
    if !python_sdk_available() {
        return;
    }
    let Some(server) = peer_server() else {
        return;
    };
    let server = server.to_str().unwrap();
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let report = run_python_client(mode, &[server, "--stdio"], None);
        assert_eq!(report["protocol_version"], version, "{report}");
        assert_eq!(report["tools"], ALL_TOOLS.len(), "{report}");
        assert_eq!(report["unknown_tool"], -32602, "{report}");
        assert!(report["consent"].is_string(), "{report}");
    }

    use std::io::BufRead;
    let mut child = std::process::Command::new(server)
        .args(["--http", "127.0.0.1:0", "--token", "peer-token-0123456789"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("peer server starts");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {first}"))
        .to_string();
    let outcome = std::panic::catch_unwind(|| {
        for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
            let report = run_python_client(mode, &[&url], Some("peer-token-0123456789"));
            assert_eq!(report["transport"], "http");
            assert_eq!(report["protocol_version"], version, "{report}");
            assert_eq!(report["unknown_tool"], -32602, "{report}");
            assert!(report["consent"].is_string(), "{report}");
        }
    });
    child.kill().ok();
    child.wait().ok();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
