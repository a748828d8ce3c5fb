//! The oldest protocol version served: a 2025-06-18 client's `initialize` is answered in
//! 2025-06-18, and it lists and calls tools and skills as later clients do.
//!
//! A binary of its own: its skill joins the link-time registry, and the shared binary
//! (`tests/it`) asserts the exact tool list of the test skills alone.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolwright::prelude::*;
use toolwright::{Dispatcher, SkillContext, ToolFilter};
use toolwright_mcp::{McpServer, SkillSpec};

toolwright::link_skills!(toolwright);

/// Says hello.
#[skill(id = "say_hello", category = "query", domain = "eras")]
pub fn say_hello(
    /// Who to greet.
    name: String,
) -> String {
    format!("hello {name}")
}

#[tokio::test]
async fn a_2025_06_18_client_is_served_in_its_version() {
    let server = McpServer::builder(Dispatcher::from_inventory().unwrap())
        .context(SkillContext::new())
        .filter(ToolFilter::all().ids(["say_hello"]))
        .skill(
            SkillSpec::new("greeting", "Greet people.")
                .tools(ToolFilter::all().domain("eras"))
                .names_tools(["say_hello"]),
        )
        .build()
        .unwrap();
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(toolwright_mcp::serve_io(server, read, write));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = BufReader::new(read).lines();
    let mut ask = async |id: u64, method: &str, params: Value| -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        let line = lines.next_line().await.unwrap().expect("an answer");
        serde_json::from_str(&line).unwrap()
    };
    let init = ask(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "0"}}),
    )
    .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    let listed = ask(2, "tools/list", json!({})).await;
    assert_eq!(
        listed["result"]["tools"][0]["name"], "say_hello",
        "{listed}"
    );
    let called = ask(
        3,
        "tools/call",
        json!({"name": "say_hello", "arguments": {"name": "ann"}}),
    )
    .await;
    assert_eq!(
        called["result"]["structuredContent"],
        json!({"result": "hello ann"}),
        "{called}"
    );
    let skills = ask(4, "skills/list", json!({})).await;
    assert_eq!(
        skills["result"]["skills"][0]["uri"], "skill://greeting/SKILL.md",
        "{skills}"
    );
}
