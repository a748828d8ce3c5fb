//! Skills over MCP (SEP-2640): a client of the extension lists the skills, reads a
//! `SKILL.md` and a supporting file, verifies each against the digest and size of the
//! skill's entry and its front matter against the entry's, then calls a tool the skill
//! names; over stdio and HTTP, in both protocol eras. Bad requests get errors that say what
//! was expected.

use crate::{schema, skills, wire};

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use toolwright::{Dispatcher, SkillContext, ToolFilter};
use toolwright_mcp::{HttpOptions, McpServer, ServeError, SkillFile, SkillSpec};

use schema::Era;
use skills::{DropProbe, Notes};
use wire::{HttpClient, LineClient};

toolwright::link_skills!(toolwright);

const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];
const PLAYBOOK: &str = "{\"levels\": {\"check_clause\": \"high\"}}\n";

fn context() -> SkillContext {
    let mut context = SkillContext::new();
    context.insert_arc(Arc::new(Notes::default()));
    context.insert_arc(Arc::new(DropProbe::default()));
    context
}

/// The demo domain's skill: its tools, a playbook and a nested guide.
fn demo_skill() -> SkillSpec {
    SkillSpec::new("demo-review", "Review a demo contract clause by clause.")
        .instructions("Check every clause number with `check_clause` first.")
        .tools(ToolFilter::all().domain("demo"))
        .names_tools(["check_clause"])
        .metadata("domain", "demo")
        .file(SkillFile::new(
            "playbook.json",
            "application/json",
            "How serious each finding is.",
            PLAYBOOK,
        ))
        .file(SkillFile::new(
            "references/guide.md",
            "text/markdown",
            "A longer guide.",
            "# Guide\n",
        ))
}

fn builder() -> toolwright_mcp::McpServerBuilder {
    McpServer::builder(Dispatcher::from_inventory().expect("test registry is valid"))
        .context(context())
        .skill(demo_skill())
        // Names a tool no registry has: never offered.
        .skill(SkillSpec::new("ghost", "Names a missing tool.").names_tools(["no_such_tool"]))
}

fn server() -> McpServer {
    builder().build().expect("server builds")
}

/// Hex SHA-256 in the extension's `sha256:` form.
fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The front matter of a `SKILL.md`, parsed as YAML into JSON.
fn front_matter(text: &str) -> Value {
    let rest = text.strip_prefix("---\n").expect("SKILL.md opens with ---");
    let (yaml, _) = rest
        .split_once("\n---\n")
        .expect("front matter closes with ---");
    yaml_serde::from_str(yaml).expect("front matter is YAML")
}

/// Checks an entry against the extension's rules on its shape.
fn check_entry(entry: &Value) {
    let uri = entry["uri"].as_str().expect("uri");
    let name = entry["frontmatter"]["name"].as_str().expect("name");
    assert!(entry["frontmatter"]["description"].is_string(), "{entry}");
    assert_eq!(
        uri,
        format!("skill://{name}/SKILL.md"),
        "the path ends in the name"
    );
    let files = entry["resources"].as_array().expect("a manifest");
    assert!(files.iter().any(|f| f["uri"] == uri), "SKILL.md is listed");
    for file in files {
        let d = file["digest"].as_str().unwrap();
        assert!(
            d.len() == 71 && d.starts_with("sha256:"),
            "digest form: {d}"
        );
        assert!(file["size"].is_u64(), "{file}");
        assert!(file["uri"]
            .as_str()
            .unwrap()
            .starts_with(&format!("skill://{name}/")));
    }
}

/// What one client saw: requests sent through `ask`.
async fn walk<F, Fut>(era: Era, mut ask: F)
where
    F: FnMut(&'static str, Value) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let listed = ask("skills/list", json!({})).await;
    let result = &listed["result"];
    let entries = result["skills"].as_array().expect("skills listed");
    assert_eq!(entries.len(), 1, "the ghost skill is not offered: {listed}");
    let entry = &entries[0];
    check_entry(entry);
    assert_eq!(entry["uri"], "skill://demo-review/SKILL.md");
    if era == Era::Modern {
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["ttlMs"], 300_000);
        assert_eq!(result["cacheScope"], "public");
    }

    // Every listed file reads back with the size and digest of the entry.
    let mut skill_md = String::new();
    for file in entry["resources"].as_array().unwrap() {
        let uri = file["uri"].as_str().unwrap();
        let read = ask("resources/read", json!({"uri": uri})).await;
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], uri, "{read}");
        let text = contents["text"].as_str().expect("text contents");
        assert_eq!(text.len() as u64, file["size"].as_u64().unwrap(), "{uri}");
        assert_eq!(digest(text.as_bytes()), file["digest"], "{uri}");
        if uri.ends_with("/SKILL.md") {
            assert_eq!(contents["mimeType"], "text/markdown");
            skill_md = text.to_string();
        }
        if uri.ends_with("/playbook.json") {
            assert_eq!(text, PLAYBOOK);
        }
    }
    assert_eq!(
        front_matter(&skill_md),
        entry["frontmatter"],
        "the entry carries the front matter verbatim"
    );
    assert!(skill_md.contains("Check every clause number"), "{skill_md}");

    // The tools the skill names are served: call one.
    let named = entry["frontmatter"]["metadata"]["tools"].as_str().unwrap();
    assert_eq!(
        named, "check_clause delete_note echo_upper math_add too_slow wait_long",
        "the demo domain's tools and the universal ones, as served"
    );
    assert!(
        skill_md.contains("Changes data: runs only after the user consents."),
        "the write tool says it asks: {skill_md}"
    );
    for tool in named.split(' ') {
        assert!(
            skill_md.contains(&format!("| `{tool}` |")),
            "{tool} in the table"
        );
    }
    let called = ask(
        "tools/call",
        json!({"name": "check_clause", "arguments": {"clause_id": "20.1"}}),
    )
    .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(
        called["result"]["structuredContent"],
        json!({"result": true})
    );

    let got = ask("skills/get", json!({"uri": "skill://demo-review/SKILL.md"})).await;
    assert_eq!(
        &got["result"]["skill"], entry,
        "skills/get matches the listing"
    );

    let dir = ask(
        "resources/directory/read",
        json!({"uri": "skill://demo-review"}),
    )
    .await;
    let children: Vec<(&str, &str)> = dir["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("SKILL.md", "text/markdown"),
            ("playbook.json", "application/json"),
            ("references", "inode/directory")
        ]
    );
}

fn modern_capabilities() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/skills": {}}})
}

#[tokio::test]
async fn a_client_lists_reads_verifies_and_calls_over_stdio() {
    for era in ERAS {
        let client = LineClient::connect(server(), era, modern_capabilities()).await;
        let client = Arc::new(tokio::sync::Mutex::new(client));
        walk(era, |method, params| {
            let client = Arc::clone(&client);
            async move { client.lock().await.request(method, params).await }
        })
        .await;
    }
}

async fn http_server(server: McpServer) -> (String, toolwright_mcp::CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let options = HttpOptions::default();
    let shutdown = options.shutdown.clone();
    tokio::spawn(toolwright_mcp::serve_listener(
        listener,
        server,
        options,
        std::future::pending(),
    ));
    (format!("http://{addr}/mcp"), shutdown)
}

#[tokio::test]
async fn a_client_lists_reads_verifies_and_calls_over_http() {
    let (url, shutdown) = http_server(server()).await;
    for era in ERAS {
        let mut client = HttpClient::new(url.clone(), era, None);
        if era == Era::Legacy {
            client.initialize().await;
        }
        let client = Arc::new(tokio::sync::Mutex::new(client));
        walk(era, |method, params| {
            let client = Arc::clone(&client);
            async move {
                let exchange = client.lock().await.request(method, params).await;
                assert_eq!(exchange.status, 200, "{method}: {}", exchange.body);
                exchange.response().clone()
            }
        })
        .await;
    }
    shutdown.cancel();
}

#[tokio::test]
async fn capabilities_declare_the_extension_over_resources() {
    let mut client = LineClient::connect(server(), Era::Modern, json!({})).await;
    let found = client.request("server/discover", json!({})).await;
    let capabilities = &found["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{found}"
    );
    assert!(capabilities["resources"].is_object(), "{found}");

    let plain = McpServer::builder(Dispatcher::from_inventory().unwrap())
        .context(context())
        .build()
        .unwrap();
    let mut client = LineClient::connect(plain, Era::Modern, json!({})).await;
    let found = client.request("server/discover", json!({})).await;
    let capabilities = &found["result"]["capabilities"];
    assert!(capabilities.get("extensions").is_none(), "{found}");
    assert!(capabilities.get("resources").is_none(), "{found}");
    let refused = client.request("skills/list", json!({})).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
}

/// The error of a request, with its code and message.
fn error(answer: &Value) -> (i64, String) {
    let error = &answer["error"];
    assert!(error.is_object(), "an error: {answer}");
    (
        error["code"].as_i64().unwrap(),
        error["message"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn bad_requests_say_what_was_expected() {
    for era in ERAS {
        let mut client = LineClient::connect(server(), era, json!({})).await;
        let (code, message) = error(
            &client
                .request("skills/get", json!({"uri": "skill://nope/SKILL.md"}))
                .await,
        );
        assert_eq!(code, -32602);
        assert!(
            message.contains("skill://nope/SKILL.md")
                && message.contains("skill://demo-review/SKILL.md"),
            "names the uri and the served skills: {message}"
        );
        let (code, message) = error(
            &client
                .request("skills/get", json!({"uri": "https://example.com/SKILL.md"}))
                .await,
        );
        assert_eq!(code, -32602);
        assert!(message.contains("expected skill://"), "{message}");
        let (code, message) = error(
            &client
                .request("skills/get", json!({"uri": "skill://demo-review/guide.md"}))
                .await,
        );
        assert_eq!(code, -32602);
        assert!(message.contains("SKILL.md"), "{message}");

        let (code, message) = error(
            &client
                .request(
                    "resources/read",
                    json!({"uri": "skill://demo-review/missing.md"}),
                )
                .await,
        );
        // Unknown resources: -32002 in the handshake era, -32602 from 2026-07-28.
        let expected = if era == Era::Legacy { -32002 } else { -32602 };
        assert_eq!(code, expected, "{message}");
        assert!(message.contains("missing.md"), "{message}");

        let (code, message) = error(
            &client
                .request(
                    "resources/directory/read",
                    json!({"uri": "skill://demo-review/SKILL.md"}),
                )
                .await,
        );
        assert_eq!(code, -32602);
        assert!(message.contains("not a directory"), "{message}");

        let (code, message) = error(
            &client
                .request("skills/list", json!({"cursor": "page-2"}))
                .await,
        );
        assert_eq!(code, -32602);
        assert!(message.contains("cursor"), "{message}");
    }
}

#[tokio::test]
async fn the_tool_table_follows_the_served_tools() {
    let server = server();
    assert_eq!(server.skill_count(), 1);
    // Serving only validation tools: `echo_upper` leaves the table, `check_clause` stays.
    server
        .set_filter(ToolFilter::all().category("validation"))
        .await
        .unwrap();
    let mut client = LineClient::connect(server.clone(), Era::Modern, json!({})).await;
    let listed = client.request("skills/list", json!({})).await;
    assert_eq!(
        listed["result"]["skills"][0]["frontmatter"]["metadata"]["tools"],
        "check_clause"
    );
    // Without `check_clause`, which its instructions name, the skill is not offered.
    server
        .set_filter(ToolFilter::all().category("analysis"))
        .await
        .unwrap();
    assert_eq!(server.skill_count(), 0);
    let listed = client.request("skills/list", json!({})).await;
    assert_eq!(listed["result"]["skills"], json!([]), "{listed}");
}

/// A fresh folder under the target directory, emptied first.
fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn hand_written_skills_are_served_and_replace_generated_ones() {
    let dir = folder("hand-written-skills");
    std::fs::create_dir_all(dir.join("demo-review")).unwrap();
    let own = "---\nname: demo-review\ndescription: Our firm's own demo review.\nlicense: MIT\n---\n\nUse `check_clause`.\n";
    std::fs::write(dir.join("demo-review/SKILL.md"), own).unwrap();
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(
        dir.join("notes/SKILL.md"),
        "---\nname: notes\ndescription: Keep notes.\n---\n\nWrite notes.\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes/template.md"), "# Note\n").unwrap();
    let server = builder().skills_dir(&dir).build().unwrap();
    let mut client = LineClient::connect(server, Era::Modern, json!({})).await;
    let listed = client.request("skills/list", json!({})).await;
    let entries = listed["result"]["skills"].as_array().unwrap();
    let uris: Vec<&str> = entries.iter().map(|e| e["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        ["skill://demo-review/SKILL.md", "skill://notes/SKILL.md"]
    );
    entries.iter().for_each(check_entry);
    assert_eq!(
        entries[0]["frontmatter"],
        json!({"name": "demo-review", "description": "Our firm's own demo review.", "license": "MIT"})
    );
    let read = client
        .request(
            "resources/read",
            json!({"uri": "skill://demo-review/SKILL.md"}),
        )
        .await;
    assert_eq!(read["result"]["contents"][0]["text"], own);
    let template = client
        .request(
            "resources/read",
            json!({"uri": "skill://notes/template.md"}),
        )
        .await;
    assert_eq!(template["result"]["contents"][0]["text"], "# Note\n");
}

#[test]
fn a_folder_without_skills_or_a_bad_skill_stops_the_build() {
    let empty = folder("no-skills");
    let err = builder().skills_dir(&empty).build().unwrap_err();
    assert!(matches!(err, ServeError::Config(_)), "{err}");
    assert!(err.to_string().contains("no skill found"), "{err}");

    let err = builder()
        .skill(SkillSpec::new("Not_A_Name", "Bad name."))
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, ServeError::Skill { skill, .. } if skill == "Not_A_Name"),
        "{err}"
    );
    let err = builder()
        .skill(SkillSpec::new("bad-file", "Bad file.").file(SkillFile::new(
            "../escape.md",
            "text/markdown",
            "",
            "x",
        )))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("../escape.md"), "{err}");
}
