//! What the HTTP client tests share: two small skills, a fast retry policy, canned responses
//! and the requests the mock server received. Each client suite uses a different subset.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::{json, Value};
use toolwright::agent::{extract_json, ChatMessage, RetryPolicy};
use toolwright::prelude::*;
use toolwright::Skill;
use wiremock::{MockServer, ResponseTemplate};

/// Compare a clause with the baseline.
#[skill(id = "compare_with_baseline")]
pub fn compare_with_baseline(
    /// Clause number.
    clause_id: String,
) -> Value {
    json!({"clause_id": clause_id, "modification_type": "modified"})
}

/// Extract financial terms.
#[skill(id = "extract_financial_terms")]
pub fn extract_financial_terms(
    /// Clause number.
    clause_id: String,
) -> Result<Value, SkillError> {
    Err(SkillError::new(
        "no_terms",
        format!("clause {clause_id} has no financial terms"),
    ))
}

/// A dispatcher with both skills: one that succeeds, one that fails.
pub fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(CompareWithBaseline::registration())
        .skill(ExtractFinancialTerms::registration())
        .build()
        .unwrap()
}

/// Retries with millisecond backoff, so retry tests stay fast.
pub fn tiny_retry(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        ..RetryPolicy::default()
    }
}

/// A JSON response with the given status and body.
pub fn json_response(status: u16, body: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body.as_bytes().to_vec(), "application/json")
}

/// A two-message conversation to send.
pub fn convo() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("review"),
        ChatMessage::user("clause 4.1"),
    ]
}

/// The JSON bodies the mock server received, in order.
pub async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| r.body_json::<Value>().unwrap())
        .collect()
}

/// Reads a final answer as the JSON list of objects the model wrote.
pub fn read_list(text: &str) -> Result<Vec<Value>, String> {
    match extract_json(text) {
        Some(Value::Array(items)) => Ok(items.into_iter().filter(Value::is_object).collect()),
        Some(other) => Err(format!("the final answer's JSON is not a list: {other}")),
        None => Err("the final answer contains no JSON list".into()),
    }
}
