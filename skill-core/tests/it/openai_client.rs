//! The OpenAI-compatible client against a local mock server with recorded-shape responses.

use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::{
    react_agent_loop, LlmClient, LlmError, OpenAiClient, OpenAiConfig, ReactOptions, StopReason,
};
use toolwright::prelude::*;
use toolwright::{Skill, ToolCall};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer};

use crate::http_common::*;

const PARALLEL: &str = include_str!("../fixtures/openai/chat_parallel_tool_calls.json");
const FINAL: &str = include_str!("../fixtures/openai/chat_final_text.json");
const DEEPSEEK: &str = include_str!("../fixtures/openai/deepseek_tool_call.json");

fn client(server: &MockServer, retries: u32) -> OpenAiClient {
    OpenAiClient::new(
        OpenAiConfig::new(format!("{}/v1/", server.uri()), "gpt-4o")
            .with_api_key("sk-test")
            .with_timeout(Duration::from_secs(5))
            .with_retry(tiny_retry(retries)),
    )
    .unwrap()
}

fn tools() -> Vec<Value> {
    Dispatcher::builder()
        .skill(CompareWithBaseline::registration())
        .build()
        .unwrap()
        .tools(&ToolFilter::all())
        .to_vec()
}

#[tokio::test]
async fn parallel_tool_calls_come_back_in_neutral_form() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_partial_json(json!({"model": "gpt-4o"})))
        .respond_with(json_response(200, PARALLEL))
        .expect(1)
        .mount(&server)
        .await;
    let answer = client(&server, 0)
        .chat_with_tools(&convo(), &tools(), 0.1)
        .await
        .unwrap();
    assert_eq!(answer.text, "");
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall {
                id: "call_q0zSWG7lXQ4bDeK1j4tQ2Wvy".into(),
                name: "compare_with_baseline".into(),
                arguments: r#"{"clause_id":"4.1"}"#.into(),
            },
            ToolCall {
                id: "call_8mK3ZsT2pYbq1uN7vRcXh0Ld".into(),
                name: "extract_financial_terms".into(),
                arguments: r#"{"clause_id":"4.1"}"#.into(),
            },
        ]
    );
    let sent = &bodies(&server).await[0];
    assert_eq!(
        sent["messages"],
        json!([{"role": "system", "content": "review"}, {"role": "user", "content": "clause 4.1"}])
    );
    assert_eq!(sent["tools"][0]["type"], "function");
    assert!(
        sent.get("tool_choice").is_none(),
        "auto is the default; some servers reject it spelled out"
    );
    assert_eq!(
        sent["tools"][0]["function"]["name"],
        "compare_with_baseline"
    );
    assert!((sent["temperature"].as_f64().unwrap() - 0.1).abs() < 1e-6);
}

#[tokio::test]
async fn deepseek_text_alongside_a_call_and_no_tools_field_without_tools() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(200, DEEPSEEK))
        .mount(&server)
        .await;
    let answer = client(&server, 0)
        .chat_with_tools(&convo(), &[], 0.0)
        .await
        .unwrap();
    assert_eq!(answer.text, "我先获取条款上下文。");
    assert_eq!(answer.tool_calls[0].name, "get_clause_context");
    let sent = &bodies(&server).await[0];
    assert!(sent.get("tools").is_none());
}

#[tokio::test]
async fn full_loop_over_http_keeps_ids_and_marks_errors() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(200, PARALLEL))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(json_response(200, FINAL))
        .mount(&server)
        .await;
    let dispatcher = dispatcher();
    let outcome = react_agent_loop(
        &client(&server, 0),
        &dispatcher,
        convo(),
        &SkillContext::new(),
        &ReactOptions::default(),
        read_list,
    )
    .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answer = outcome.answer.as_deref().unwrap();
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0]["risk_type"], "义务范围");
    assert_eq!(
        outcome.skill_context["compare_with_baseline"]["modification_type"],
        "modified"
    );

    let second = &bodies(&server).await[1]["messages"];
    assert_eq!(second[2]["role"], "assistant");
    assert_eq!(second[2]["content"], Value::Null);
    assert_eq!(
        second[2]["tool_calls"][1]["id"],
        "call_8mK3ZsT2pYbq1uN7vRcXh0Ld"
    );
    assert_eq!(second[3]["tool_call_id"], "call_q0zSWG7lXQ4bDeK1j4tQ2Wvy");
    assert_eq!(second[4]["tool_call_id"], "call_8mK3ZsT2pYbq1uN7vRcXh0Ld");
    assert!(
        second[4].get("is_error").is_none(),
        "OpenAI has no is_error field"
    );
    let content = second[4]["content"].as_str().unwrap();
    let body = toolwright::fence::fenced_body(toolwright::fence::TOOL_OUTPUT_TAG, content)
        .expect("tool results go back fenced as data");
    let error: Value = serde_json::from_str(body).unwrap();
    assert_eq!(error["error"]["code"], "no_terms");
}

#[tokio::test]
async fn local_server_without_key_sends_no_authorization() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(json_response(200, FINAL))
        .mount(&server)
        .await;
    let client = OpenAiClient::new(
        OpenAiConfig::new(format!("{}/v1", server.uri()), "qwen2.5").with_max_tokens(256),
    )
    .unwrap();
    client.chat_with_tools(&convo(), &[], 0.1).await.unwrap();
    let requests = server.received_requests().await.unwrap();
    assert!(requests[0].headers.get("authorization").is_none());
    assert_eq!(requests[0].body_json::<Value>().unwrap()["max_tokens"], 256);
}

#[test]
fn missing_key_variable_is_named() {
    let err = OpenAiConfig::new("http://127.0.0.1:1/v1", "m")
        .with_api_key_from_env("TOOLWRIGHT_TEST_SURELY_UNSET_KEY")
        .unwrap_err();
    assert!(
        err.to_string().contains("TOOLWRIGHT_TEST_SURELY_UNSET_KEY"),
        "{err}"
    );
    assert!(matches!(
        OpenAiClient::new(OpenAiConfig::new("http://127.0.0.1:1/v1", " ")),
        Err(LlmError::Config(_))
    ));
}
