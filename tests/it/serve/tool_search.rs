//! `--tool-search` with the official MCP Python SDK as the client, and HTTP options
//! refused on stdio.

use super::*;

/// Whether the MCP Python SDK is importable; without it the test is skipped, except on CI.
fn python_sdk_available() -> bool {
    crate::python_peer::available("mcp", "pip install 'mcp==2.3.0'")
}

/// Runs `tests/it/peers/tool_search_client.py MODE TARGET...`; its one-line report.
fn tool_search_client(mode: &str, target: &[&str], token: Option<&str>) -> Value {
    crate::python_peer::run("tool_search_client.py", mode, target, token)
}

fn assert_searched(report: &Value, transport: &str) {
    assert_eq!(report["transport"], transport, "{report}");
    assert_eq!(
        report["listed"],
        json!(["search_tools", "call_tool"]),
        "{report}"
    );
    assert!(
        report["invalid"]
            .as_str()
            .is_some_and(|t| t.starts_with("invalid_arguments")),
        "{report}"
    );
}

#[test]
fn python_sdk_lists_two_tools_searches_and_calls_through_the_proxy() {
    if !python_sdk_available() {
        return;
    }
    let toolwright = env!("CARGO_BIN_EXE_clausewright");
    for mode in ["auto", "legacy"] {
        let report = tool_search_client(
            mode,
            &[
                toolwright,
                "serve",
                "--stdio",
                "--tool-search",
                "--no-review-tool",
                "--contract",
                CONTRACT,
            ],
            None,
        );
        assert_searched(&report, "stdio");
    }
    let token = "search-token-0123456789";
    let server = HttpServer::start_with(
        &[
            "--contract",
            CONTRACT,
            "--tool-search",
            "--no-review-tool",
            "--no-console",
            "--token",
            token,
        ],
        &[],
    );
    assert!(
        server.banner.contains("behind search_tools and call_tool"),
        "{}",
        server.banner
    );
    for mode in ["auto", "legacy"] {
        let report = tool_search_client(mode, &[&server.url], Some(token));
        assert_searched(&report, "http");
    }
}

#[test]
fn http_options_are_refused_on_stdio() {
    for flag in [
        &["--max-sessions", "3"][..],
        &["--allow-host", "contracts.example"],
        &["--no-auth"],
        &["--header-timeout", "5"],
    ] {
        let mut args = vec!["serve", "--stdio"];
        args.extend_from_slice(flag);
        let out = crate::cli::clausewright(&args);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let err = crate::cli::stderr(&out);
        assert!(
            err.contains("--stdio") && err.contains(flag[0]),
            "{flag:?}: {err}"
        );
    }
}
