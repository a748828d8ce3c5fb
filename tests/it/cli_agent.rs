//! `skillkit review --agent react` against a local OpenAI-compatible server: the model calls
//! tools in parallel, answers with risks, and the report shows which tools it chose.

use std::process::Command;

use serde_json::{json, Value};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn completion(message: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "mock-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

#[tokio::test]
async fn react_review_through_a_local_model_server() {
    let server = MockServer::start().await;
    // Second turn (the request carries tool results): the final answer.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("tool_call_id"))
        .respond_with(completion(json!({
            "role": "assistant",
            "content": "```json\n[{\"risk_level\": \"high\", \"risk_type\": \"fitness_for_purpose\", \"description\": \"PC adds a fitness-for-purpose duty relying on deleted 4.12\", \"reason\": \"strict liability\", \"analysis\": \"merge shows the added paragraph\", \"original_text\": \"fit for the purposes\"}]\n```"
        })))
        .with_priority(1)
        .mount(&server)
        .await;
    // First turn: two tools at once.
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(completion(json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_clause_context", "arguments": "{\"clause_id\": \"4.1\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "fidic_merge_gc_pc", "arguments": "{\"clause_id\": \"4.1\"}"}}
            ]
        })))
        .with_priority(2)
        .mount(&server)
        .await;

    let dir = std::env::temp_dir().join(format!("skillkit-agent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let checklist = dir.join("checklist.json");
    std::fs::write(
        &checklist,
        r#"[{"clause_id": "4.1", "clause_name": "Contractor's General Obligations", "priority": "critical",
             "required_skills": ["get_clause_context", "fidic_merge_gc_pc"], "description": "scope of obligations"}]"#,
    )
    .unwrap();

    let base_url = format!("{}/v1", server.uri());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_skillkit"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("OPENAI_API_KEY")
            .env_remove("USE_REACT_AGENT")
            .args([
                "review",
                "samples/fidic",
                "--our-party",
                "Contractor",
                "--agent",
                "react",
            ])
            .args([
                "--base-url",
                &base_url,
                "--model",
                "mock-model",
                "--format",
                "json",
            ])
            .arg("--checklist")
            .arg(&checklist)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let clause = &report["clauses"][0];
    assert_eq!(clause["mode"], "react");
    assert_eq!(
        clause["tools_chosen"],
        json!(["get_clause_context", "fidic_merge_gc_pc"])
    );
    assert_eq!(clause["risks"][0]["risk_level"], "high");
    assert_eq!(clause["risks"][0]["risk_type"], "fitness_for_purpose");
    let messages = clause["agent_messages"].as_array().unwrap();
    let tool_ids: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(
        tool_ids,
        ["call_1", "call_2"],
        "results in the order the model asked"
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["model"], "mock-model");
    let offered: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"fidic_merge_gc_pc") && !offered.contains(&"spa_extract_conditions"),
        "fidic tools only: {offered:?}"
    );
}
