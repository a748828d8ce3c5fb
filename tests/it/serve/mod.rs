//! `clausewright serve`: the library skills over MCP give what `clausewright call` gives.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::http_server::HttpServer;

mod console;
mod tool_search;

const CONTRACT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/fidic");

/// `clausewright call` of the time-bar skill on the FIDIC sample: the data the MCP call must give.
fn call_output() -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["call", "fidic_calculate_time_bar", "--contract", CONTRACT])
        .args(["--args", r#"{"clause_id": "20.1"}"#])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    result["data"].clone()
}

fn line(message: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap();
    line.push(b'\n');
    line
}

#[test]
fn stdio_serves_the_contract_skills_like_call() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args([
            "serve",
            "--stdio",
            "--contract",
            CONTRACT,
            "--domain",
            "fidic",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut read = || {
        let mut text = String::new();
        stdout.read_line(&mut text).unwrap();
        serde_json::from_str::<Value>(&text)
            .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC ({e}): {text:?}"))
    };
    stdin
        .write_all(&line(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "cli-test", "version": "0"}}}),
        ))
        .unwrap();
    let init = read();
    assert_eq!(init["result"]["serverInfo"]["name"], "toolwright", "{init}");
    stdin
        .write_all(&line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ))
        .unwrap();
    stdin
        .write_all(&line(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ))
        .unwrap();
    let list = read();
    let tools: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"fidic_calculate_time_bar"), "{tools:?}");
    assert!(
        !tools.iter().any(|t| t.starts_with("sha_")),
        "domain filter: {tools:?}"
    );
    stdin
        .write_all(&line(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "fidic_calculate_time_bar", "arguments": {"clause_id": "20.1"}}}),
        ))
        .unwrap();
    let call = read();
    assert_eq!(call["result"]["isError"], false, "{call}");
    assert_eq!(call["result"]["structuredContent"], call_output());
    drop(stdin);
    assert!(
        child.wait().unwrap().success(),
        "the server ends when stdin closes"
    );
}

/// One raw HTTP/1.1 POST; returns the status and the body.
fn post(addr: &str, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn http_serves_with_a_token_from_the_environment() {
    let server = HttpServer::start(CONTRACT, &[("TOOLWRIGHT_TOKEN", "cli-token-0123456789")]);
    let addr = &server.addr;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "fidic_calculate_time_bar", "arguments": {"clause_id": "20.1"}, "_meta": meta}});
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "fidic_calculate_time_bar"),
    ];
    let (status, _) = post(addr, &headers, &call);
    assert_eq!(status, 401, "no token");
    let mut with_token = headers.to_vec();
    with_token.push(("Authorization", "Bearer cli-token-0123456789"));
    let (status, body) = post(addr, &with_token, &call);
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer["result"]["structuredContent"],
        call_output(),
        "{answer}"
    );
}

#[test]
fn an_unknown_pack_is_refused_with_the_packs_there_are() {
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["serve", "--stdio", "--pack", "no_such_pack"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--pack no_such_pack: no such pack; packs in this build:"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", out.stdout);
}

/// One raw HTTP/1.1 GET; returns the status and the whole response (headers and body).
pub(crate) fn get(addr: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    (response[9..12].parse().unwrap(), response)
}

#[test]
fn http_serves_the_console_behind_its_printed_token() {
    let server = HttpServer::start(CONTRACT, &[]);
    let console = server
        .console
        .clone()
        .expect("the console address is printed");
    let token = console
        .split("?token=")
        .nth(1)
        .expect("the address carries the token");
    assert_eq!(console, format!("http://{}/?token={token}", server.addr));
    assert!(token.len() >= 32, "{token}");

    let (status, _) = get(&server.addr, "/", &[]);
    assert_eq!(status, 401, "no token, no console");
    let (status, response) = get(&server.addr, &format!("/?token={token}"), &[]);
    assert_eq!(status, 303, "{response}");
    assert!(response.contains("HttpOnly; SameSite=Strict"), "{response}");
    assert!(
        response.contains(&format!(
            "toolwright_console_{}=",
            server.addr.rsplit(':').next().unwrap()
        )),
        "one cookie per port: {response}"
    );
    let cookie = console_cookie(&server);
    let (status, page) = get(
        &server.addr,
        "/skills/fidic_calculate_time_bar",
        &[("Cookie", &cookie)],
    );
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("id=\"call-form\""), "{page}");
    // MCP is at /mcp on the same port, behind the same launch token.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let (status, _) = post(&server.addr, &[], &ping);
    assert_eq!(status, 401, "no token, no MCP");
    let bearer = format!("bearer {token}");
    let (status, body) = post(&server.addr, &[("Authorization", &bearer)], &ping);
    assert_ne!(status, 401, "{body}");
    assert_ne!(status, 404, "{body}");
}

#[test]
fn weak_tokens_and_bad_names_are_refused_at_start() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let short = run(&["--token", "x"], &[]);
    assert!(
        short.contains("--token: the token has 1 characters; it needs at least 16"),
        "{short}"
    );
    let blank = run(&[], &[("TOOLWRIGHT_TOKEN", "  ")]);
    assert!(
        blank.contains("TOOLWRIGHT_TOKEN: the token is blank"),
        "{blank}"
    );
    let host = run(&["--allow-host", "https://x.example/"], &[]);
    assert!(
        host.contains("--allow-host: `https://x.example/` is not a host"),
        "{host}"
    );
    let origin = run(&["--allow-origin", "x.example"], &[]);
    assert!(
        origin.contains("--allow-origin: `x.example` is not an origin"),
        "{origin}"
    );
    let cap = run(&["--max-connections", "0"], &[]);
    assert!(cap.contains("--max-connections"), "{cap}");
    // A public bind without a token stays refused.
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args(["serve", "--http", "0.0.0.0:0", "--no-auth"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a token"));
}

#[test]
fn mcp_takes_the_drawn_token_or_none_with_no_auth_and_public_names() {
    let server = HttpServer::start_with(&["--contract", CONTRACT, "--no-console"], &[]);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "serve-tests", "version": "0"}}});
    let (status, _) = post(&server.addr, &[], &ping);
    assert_eq!(status, 401, "a token is required by default");
    let token = server
        .banner
        .split("Bearer ")
        .nth(1)
        .and_then(|t| t.split(')').next())
        .unwrap_or_else(|| panic!("a drawn token is printed: {}", server.banner));
    assert!(token.len() >= 32, "{token}");
    let bearer = format!("Bearer {token}");
    let (status, body) = post(&server.addr, &[("Authorization", &bearer)], &ping);
    assert_eq!(status, 200, "{body}");
    drop(server);

    let open = HttpServer::start_with(
        &[
            "--contract",
            CONTRACT,
            "--no-console",
            "--no-auth",
            "--allow-host",
            "mcp.example.com",
        ],
        &[],
    );
    let (status, body) = post(&open.addr, &[], &ping);
    assert_eq!(status, 200, "{body}");
    // The public name is answered, others are not.
    let body = ping.to_string();
    for (host, expected) in [("mcp.example.com:8765", "200"), ("evil.example", "403")] {
        let mut stream_for = std::net::TcpStream::connect(&open.addr).unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream_for.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream_for.read_to_string(&mut response).unwrap();
        assert_eq!(&response[9..12], expected, "{host}: {response}");
    }
}

#[test]
fn no_console_serves_mcp_only() {
    let server = HttpServer::start_with(&["--contract", CONTRACT, "--no-console"], &[]);
    assert!(server.console.is_none());
    let token = server
        .banner
        .split("Bearer ")
        .nth(1)
        .and_then(|t| t.split(')').next())
        .unwrap_or_else(|| panic!("a drawn token is printed: {}", server.banner));
    let (status, _) = get(&server.addr, "/", &[]);
    assert_eq!(
        status, 401,
        "without a console every path is MCP's, behind its token"
    );
    let bearer = format!("Bearer {token}");
    let (status, _) = get(&server.addr, "/", &[("Authorization", &bearer)]);
    assert_eq!(status, 404);
}

/// One raw multipart POST to the console; returns the status and the whole response.
pub(crate) fn post_multipart(
    addr: &str,
    path: &str,
    cookie: &str,
    fields: &[(&str, Option<&str>, &str)],
) -> (u16, String) {
    let boundary = "CLIBOUNDARY";
    let mut body = String::new();
    for (name, file, value) in fields {
        body.push_str(&format!("--{boundary}\r\n"));
        match file {
            Some(f) => body.push_str(&format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: text/markdown\r\n\r\n")),
            None => body.push_str(&format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")),
        }
        body.push_str(value);
        body.push_str("\r\n");
    }
    body.push_str(&format!("--{boundary}--\r\n"));
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nCookie: {cookie}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    (response[9..12].parse().unwrap(), response)
}

/// The cookie a browser keeps after opening the console's printed address.
pub(crate) fn console_cookie(server: &HttpServer) -> String {
    let console = server
        .console
        .as_deref()
        .expect("the console address is printed");
    let token = console
        .split("?token=")
        .nth(1)
        .expect("the address has a token");
    let (status, response) = get(&server.addr, &format!("/?token={token}"), &[]);
    assert_eq!(status, 303, "{response}");
    let cookie = response
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next())
        .unwrap_or_else(|| panic!("no cookie in {response}"))
        .to_string();
    assert!(
        !cookie.contains(token),
        "the cookie is not the token: {cookie}"
    );
    cookie
}

/// The CSRF field of a console form.
pub(crate) fn csrf_of(form: &str) -> String {
    form.split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no CSRF field in {form}"))
        .to_string()
}

/// The bundled shareholders' agreement, as uploaded.
pub(crate) fn sha_contract() -> String {
    std::fs::read_to_string(format!(
        "{}/samples/sha/shareholders_agreement.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Where a start sent the browser (the run's page), from a raw response.
pub(crate) fn location_of(response: &str) -> String {
    response
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .unwrap_or_else(|| panic!("no location in {response}"))
        .trim()
        .to_string()
}

/// Polls a review's page until it shows the report or the failure (no time limit asserted;
/// gives up after four minutes of a stuck review and returns the last page).
pub(crate) fn finished_review(addr: &str, cookie: &str, path: &str) -> String {
    let mut page = String::new();
    for _ in 0..1200 {
        page = get(addr, path, &[("Cookie", cookie)]).1;
        if page.contains("review-summary") || page.contains("review-error") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    page
}
