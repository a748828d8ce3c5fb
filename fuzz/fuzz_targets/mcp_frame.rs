//! The MCP server's message handling: one raw JSON-RPC frame in, the server's answer out,
//! over the same stdio transport `clausewright serve` uses (an in-memory pipe instead of the
//! process's stdin and stdout).
//!
//! Each run does the handshake, sends the fuzzed frame as one line, then a `ping`, and reads
//! until the ping is answered. Beyond "no panic" and "no hang", it checks: every line the
//! server writes is a JSON-RPC 2.0 message; a request gets exactly one answer (with its id,
//! or a `null` id when it could not be read); no message carries a Rust path or a panic.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use toolwright::{Dispatcher, SkillContext};
use toolwright_mcp::McpServer;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

toolwright::link_skills!(clausewright_skills, toolwright_packs);

const END_ID: &str = "fuzz-end-ping";

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        // Multi-threaded as in `clausewright serve`: the server spawns tasks of its own.
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fn server() -> &'static McpServer {
    static SERVER: OnceLock<McpServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        let dispatcher = Dispatcher::builder()
            .with_inventory()
            .default_timeout(Duration::from_secs(2))
            .build()
            .expect("valid registry");
        McpServer::new(dispatcher, SkillContext::new()).expect("a server")
    })
}

/// The id of `frame` when it is a JSON-RPC request (an object with a method and a non-null
/// id), as JSON.
fn request_id(frame: &Value) -> Option<Value> {
    let object = frame.as_object()?;
    object.get("method")?.as_str()?;
    match object.get("id")? {
        Value::Null => None,
        id => Some(id.clone()),
    }
}

fn initialize() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": "fuzz-init",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "fuzz", "version": "0" }
        }
    })
    .to_string()
}

async fn exchange(frame: String) -> Vec<Value> {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serve = toolwright_mcp::serve_io(server().clone(), server_read, server_write);
    let drive = async move {
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        let mut seen = Vec::new();
        let send = |text: String| {
            let mut line = text;
            line.push('\n');
            line
        };
        let mut out = send(initialize());
        out.push_str(&send(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        ));
        out.push_str(&send(frame));
        out.push_str(&send(
            json!({"jsonrpc": "2.0", "id": END_ID, "method": "ping"}).to_string(),
        ));
        client_write.write_all(out.as_bytes()).await.expect("write");
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the server wrote a line that is not JSON ({e}): {line}")
            });
            assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
            common::assert_no_internals(&line, "");
            // A request from the server (elicitation, sampling): refused.
            if message.get("method").is_some() {
                if let Some(id) = message.get("id") {
                    let answer = json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "not supported"}});
                    let _ = client_write
                        .write_all(format!("{answer}\n").as_bytes())
                        .await;
                }
                continue;
            }
            let done = message["id"] == END_ID;
            seen.push(message);
            if done {
                break;
            }
        }
        // End of input. Dropping the write half would not do: a split stream stays open
        // while its read half lives, so the server would wait for more forever.
        let _ = client_write.shutdown().await;
        drop(client_write);
        // Whatever else the server writes before it sees the end of input.
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                seen.push(message);
            }
        }
        seen
    };
    let (served, seen) = tokio::join!(serve, drive);
    let _ = served;
    seen
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let frame = text.replace(['\n', '\r'], " ");
    let parsed: Option<Value> = serde_json::from_str(&frame).ok();
    let seen = runtime().block_on(async {
        tokio::time::timeout(Duration::from_secs(30), exchange(frame.clone()))
            .await
            .unwrap_or_else(|_| panic!("the server did not answer within 30 s: {frame}"))
    });
    let responses = |id: &Value| seen.iter().filter(|m| &m["id"] == id).count();
    assert_eq!(
        responses(&json!("fuzz-init")),
        1,
        "one answer to initialize: {seen:?}"
    );
    let ended = responses(&json!(END_ID));
    if let Some(id) = parsed.as_ref().and_then(request_id) {
        if id != json!(END_ID) && id != json!("fuzz-init") {
            let answered = responses(&id);
            assert!(
                answered <= 1,
                "request {id} answered {answered} times: {seen:?}"
            );
            assert!(
                answered == 1 || responses(&Value::Null) >= 1 || ended == 0,
                "request {id} was not answered: {frame} -> {seen:?}"
            );
        }
    }
});
