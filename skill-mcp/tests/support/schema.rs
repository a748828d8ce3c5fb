//! Every message the server sends, validated against the official MCP schemas of its era.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

/// The protocol era a client speaks, and with it the schema its messages follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize` handshake, 2025-11-25.
    Legacy,
    /// Stateless 2026-07-28.
    Modern,
}

impl Era {
    pub fn version(self) -> &'static str {
        match self {
            Era::Legacy => "2025-11-25",
            Era::Modern => "2026-07-28",
        }
    }
}

struct Schemas {
    docs: HashMap<Era, Value>,
    compiled: Mutex<HashMap<(Era, String), Arc<jsonschema::Validator>>>,
}

/// The schema folder: `TOOLWRIGHT_MCP_SCHEMA_DIR`, else the copy in the repository
/// (`skill-mcp/tests/schema`, see its README), found from any crate that includes this file.
fn schema_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("TOOLWRIGHT_MCP_SCHEMA_DIR") {
        return Some(PathBuf::from(dir)).filter(|p| p.is_dir());
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("skill-mcp/tests/schema"))
        .find(|p| p.is_dir())
}

fn schemas() -> &'static Schemas {
    static SCHEMAS: OnceLock<Schemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
            let dir = schema_dir().expect(
                "MCP schema folder skill-mcp/tests/schema not found (or TOOLWRIGHT_MCP_SCHEMA_DIR is not a folder)",
            );
            let mut docs = HashMap::new();
            for era in [Era::Legacy, Era::Modern] {
                let path = dir.join(format!("{}.schema.json", era.version()));
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                docs.insert(era, serde_json::from_str(&text).expect("schema is JSON"));
            }
            Schemas {
                docs,
                compiled: Mutex::new(HashMap::new()),
            }
    })
}

fn validator(schemas: &Schemas, era: Era, definition: &str) -> Arc<jsonschema::Validator> {
    let mut compiled = schemas.compiled.lock().unwrap();
    Arc::clone(
        compiled
            .entry((era, definition.to_string()))
            .or_insert_with(|| {
                let doc = &schemas.docs[&era];
                assert!(
                    doc["$defs"].get(definition).is_some(),
                    "{} has no $defs/{definition}",
                    era.version()
                );
                let root = json!({
                    "$schema": doc["$schema"],
                    "$defs": doc["$defs"],
                    "$ref": format!("#/$defs/{definition}"),
                });
                Arc::new(jsonschema::validator_for(&root).expect("MCP schema compiles"))
            }),
    )
}

fn assert_valid(era: Era, definition: &str, instance: &Value) {
    let errors: Vec<String> = validator(schemas(), era, definition)
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "server message is not a valid {definition} ({}): {errors:?}\n{instance}",
        era.version()
    );
}

/// Checks one message the server sent; `method` is the method of the request it answers.
pub fn check_server_message(era: Era, method: Option<&str>, message: &Value) {
    assert_valid(era, "JSONRPCMessage", message);
    if message.get("error").is_some() {
        assert_valid(era, "JSONRPCErrorResponse", message);
        return;
    }
    if let Some(result) = message.get("result") {
        let definition = match (era, method) {
            (_, Some("tools/list")) => "ListToolsResult",
            (Era::Legacy, Some("tools/call")) => "CallToolResult",
            (Era::Modern, Some("tools/call")) if result["resultType"] == "task" => {
                check_task(result, "task");
                return;
            }
            (Era::Modern, Some("tools/call")) => {
                assert_valid(era, "CallToolResultResponse", message);
                return;
            }
            // The tasks extension's results are not in the base schema: checked against the
            // extension's shapes (SEP-2663) here.
            (Era::Modern, Some("tasks/get")) => {
                check_task(result, "complete");
                if result["status"] == "completed" {
                    assert_valid(era, "CallToolResult", &result["result"]);
                }
                return;
            }
            (Era::Modern, Some("tasks/cancel" | "tasks/update")) => {
                assert_eq!(result, &json!({"resultType": "complete"}), "an empty ack");
                return;
            }
            (_, Some("initialize")) => "InitializeResult",
            (_, Some("server/discover")) => "DiscoverResult",
            (_, Some("ping")) => "EmptyResult",
            (_, Some("resources/list" | "resources/directory/read")) => "ListResourcesResult",
            (_, Some("resources/read")) => "ReadResourceResult",
            // The skills extension's results are not in the base schema: the skills tests
            // check them against the extension's shapes.
            (_, Some("skills/list" | "skills/get")) => return,
            (_, other) => panic!("a result to an unexpected request {other:?}: {message}"),
        };
        assert_valid(era, definition, result);
        return;
    }
    match (message.get("method"), message.get("id")) {
        (Some(_), Some(_)) => {
            assert_eq!(era, Era::Legacy, "2026 servers send no requests: {message}");
            assert_valid(era, "ServerRequest", message);
        }
        (Some(_), None) => assert_valid(era, "ServerNotification", message),
        _ => panic!("neither result, error, request nor notification: {message}"),
    }
}

/// Checks a tool definition on its own (for lists assembled from pages).
pub fn check_tool(era: Era, tool: &Value) {
    assert_valid(era, "Tool", tool);
}

/// Checks a task as the tasks extension (SEP-2663) shapes it: `CreateTaskResult`
/// (`resultType` `task`) or `GetTaskResult` (`complete`, a `DetailedTask`).
pub fn check_task(task: &Value, result_type: &str) {
    assert_eq!(task["resultType"], result_type, "resultType: {task}");
    assert!(
        task["taskId"].as_str().is_some_and(|t| !t.is_empty()),
        "taskId: {task}"
    );
    let status = task["status"].as_str().unwrap_or_default();
    assert!(
        [
            "working",
            "input_required",
            "completed",
            "failed",
            "cancelled"
        ]
        .contains(&status),
        "status: {task}"
    );
    for stamp in ["createdAt", "lastUpdatedAt"] {
        let text = task[stamp].as_str().unwrap_or_default();
        assert!(
            chrono::DateTime::parse_from_rfc3339(text).is_ok(),
            "{stamp} is ISO 8601: {task}"
        );
    }
    let ttl = task
        .get("ttlMs")
        .unwrap_or_else(|| panic!("ttlMs is required: {task}"));
    assert!(ttl.is_null() || ttl.as_u64().is_some(), "ttlMs: {task}");
    if let Some(poll) = task.get("pollIntervalMs") {
        assert!(poll.as_u64().is_some(), "pollIntervalMs: {task}");
    }
    if let Some(message) = task.get("statusMessage") {
        assert!(message.is_string(), "statusMessage: {task}");
    }
    match status {
        "completed" => assert!(
            task["result"].is_object(),
            "a completed task has its result: {task}"
        ),
        "failed" => {
            assert!(
                task["error"]["code"].is_i64(),
                "a failed task has its error: {task}"
            );
            assert!(task["error"]["message"].is_string(), "{task}");
        }
        "input_required" => assert!(task["inputRequests"].is_object(), "{task}"),
        _ => assert!(
            task.get("result").is_none() && task.get("error").is_none(),
            "no payload while {status}: {task}"
        ),
    }
}
