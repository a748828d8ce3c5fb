//! The Anthropic Messages client against a local mock server with recorded-shape responses.

use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::{
    react_agent_loop, AnthropicClient, AnthropicConfig, LlmClient, ReactOptions, StopReason,
    ANTHROPIC_VERSION,
};
use toolwright::prelude::*;
use toolwright::Dialect;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer};

use crate::http_common::*;

const PARALLEL: &str = include_str!("../fixtures/anthropic/messages_parallel_tool_use.json");
const FINAL: &str = include_str!("../fixtures/anthropic/messages_final_text.json");

fn client(server: &MockServer, retries: u32) -> AnthropicClient {
    AnthropicClient::new(
        AnthropicConfig::new("claude-sonnet-4-5", "ak-test")
            .with_base_url(server.uri())
            .with_timeout(Duration::from_secs(5))
            .with_max_tokens(1024)
            .with_retry(tiny_retry(retries)),
    )
    .unwrap()
}

#[tokio::test]
async fn tool_use_blocks_come_back_in_neutral_form_and_tools_go_in_anthropic_dialect() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "ak-test"))
        .and(header("anthropic-version", ANTHROPIC_VERSION))
        .respond_with(json_response(200, PARALLEL))
        .expect(1)
        .mount(&server)
        .await;
    let tools = dispatcher()
        .tools_in(Dialect::Anthropic, &ToolFilter::all())
        .unwrap();
    let answer = client(&server, 0)
        .chat_with_tools(&convo(), &tools, 0.1)
        .await
        .unwrap();
    assert_eq!(
        answer.text,
        "I'll compare the clause with the baseline and extract its financial terms."
    );
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!(answer.tool_calls[0].id, "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(answer.tool_calls[1].name, "extract_financial_terms");
    assert_eq!(
        serde_json::from_str::<Value>(&answer.tool_calls[1].arguments).unwrap(),
        json!({"clause_id": "4.1"})
    );

    let sent = &bodies(&server).await[0];
    assert_eq!(sent["model"], "claude-sonnet-4-5");
    assert_eq!(sent["max_tokens"], 1024);
    assert_eq!(sent["system"], "review");
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "clause 4.1"}]}])
    );
    let tool = &sent["tools"][0];
    assert_eq!(tool["name"], "compare_with_baseline");
    assert_eq!(tool["description"], "Compare a clause with the baseline.");
    assert_eq!(tool["input_schema"]["type"], "object");
    assert!(tool["input_schema"]["properties"]["clause_id"].is_object());
    assert!(tool.get("function").is_none() && tool.get("type").is_none());
}

#[tokio::test]
async fn full_loop_sends_tool_results_with_is_error() {
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
    let outcome = react_agent_loop(
        &client(&server, 0),
        &dispatcher(),
        convo(),
        &SkillContext::new(),
        &ReactOptions::default(),
        read_list,
    )
    .await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let answer = outcome.answer.as_deref().unwrap();
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0]["original_text"], "within 84 days");

    let second = &bodies(&server).await[1]["messages"];
    assert_eq!(
        second.as_array().unwrap().len(),
        3,
        "user, assistant, user(tool results)"
    );
    let assistant = &second[1]["content"];
    assert_eq!(assistant[0]["type"], "text");
    assert_eq!(
        assistant[1],
        json!({"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "compare_with_baseline", "input": {"clause_id": "4.1"}})
    );
    let results = &second[2]["content"];
    assert_eq!(results[0]["type"], "tool_result");
    assert_eq!(results[0]["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert!(results[0].get("is_error").is_none());
    assert_eq!(results[1]["tool_use_id"], "toolu_01B7nCk3yVv5Y2ZqPjL4mX8w");
    assert_eq!(results[1]["is_error"], true);
    assert!(results[1]["content"]
        .as_str()
        .unwrap()
        .contains("no financial terms"));
}

#[test]
fn empty_key_is_a_config_error() {
    let err = AnthropicClient::new(AnthropicConfig::new("m", "")).unwrap_err();
    assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
}
