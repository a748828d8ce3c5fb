//! The console's search text ranks skills as MCP's `search_tools` and `clausewright search` do
//! (the dispatcher's `ToolSearch`): the catalog page and its JSON at `/api/tools`.

use crate::support::*;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use serde_json::Value;
use toolwright::search::ToolSearch;
use toolwright::ToolFilter;

async fn api(app: &axum::Router, query: &str) -> Value {
    let answer = get(app, &format!("/api/tools?{query}")).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.headers[header::CONTENT_TYPE], "application/json");
    serde_json::from_str(&answer.body).expect("the answer is JSON")
}

fn ids(answer: &Value) -> Vec<&str> {
    answer["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_api_ranks_as_the_tool_search_does() {
    let app = app(&state());
    let search = ToolSearch::new(&dispatcher());
    for request in ["delete a note", "search the notes", "echo text back"] {
        let answer = api(&app, &format!("q={}", request.replace(' ', "+"))).await;
        assert_eq!(answer["query"], request);
        let expected: Vec<&str> = search
            .search(request, &ToolFilter::all(), 10)
            .iter()
            .map(|hit| hit.skill.id)
            .collect();
        assert!(!expected.is_empty(), "{request}");
        let ranked: Vec<&str> = ids(&answer).into_iter().take(expected.len()).collect();
        assert_eq!(ranked, expected, "{request}: {answer}");
        let scores: Vec<f64> = answer["tools"].as_array().unwrap()[..expected.len()]
            .iter()
            .map(|t| t["score"].as_f64().expect("ranked tools carry a score"))
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }
    assert_eq!(
        ids(&api(&app, "q=delete+a+note").await)[0],
        "demo.delete_note"
    );
}

#[tokio::test]
async fn the_api_keeps_the_catalog_filters_and_a_limit() {
    let app = app(&state());
    let all = api(&app, "").await;
    assert_eq!(ids(&all).len(), 4);
    assert!(all["tools"][0]["score"].is_null(), "no text, no ranking");
    let deletes = api(&app, "q=notes&category=delete").await;
    assert_eq!(ids(&deletes), ["demo.delete_note"]);
    let one = api(&app, "q=notes&limit=1").await;
    assert_eq!(ids(&one).len(), 1);
    // Part of an id, which no word matches, is still found.
    let part = api(&app, "q=delete_no").await;
    assert_eq!(ids(&part), ["demo.delete_note"]);
    let none = api(&app, "q=zzyzx").await;
    assert_eq!(none["tools"], serde_json::json!([]));
}

#[tokio::test]
async fn the_api_needs_the_token_like_every_page() {
    let app = app(&state());
    let answer = send(
        &app,
        Request::get("/api/tools?q=notes")
            .header(header::HOST, HOST)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(!answer.body.contains("demo.search"));
}

#[tokio::test]
async fn the_catalog_page_shows_the_ranking() {
    let app = app(&state());
    let page = get(&app, "/?q=delete+a+note").await;
    assert_eq!(page.status, StatusCode::OK);
    let first = page.body.find("/skills/demo.delete_note").expect("found");
    if let Some(other) = page.body.find("/skills/demo.search") {
        assert!(first < other, "best match first");
    }
    assert!(page.body.contains("ranked"), "{}", page.body);
}
