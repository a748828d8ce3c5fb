//! Test skills, a console over them, requests through `oneshot`, and an outline of a page's
//! HTML structure for snapshots.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolwright::prelude::*;
use toolwright_console::{router, ConsoleOptions, ConsoleState, SESSION_COOKIE};
use tower::ServiceExt;

pub const TOKEN: &str = "test-token-0123456789";
pub const HOST: &str = "127.0.0.1:8765";

/// How thorough a search is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    /// Titles only.
    Fast,
    /// Full text.
    Deep,
}

/// What a search found.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Found {
    /// One sentence.
    pub summary: String,
    /// The hits.
    pub hits: Vec<String>,
}

/// Search the demo notes.
#[skill(id = "demo.search", category = "query", version = "1.2.0")]
pub fn demo_search(
    /// Words to look for.
    #[arg(example = "indemnity")]
    query: String,
    /// How many hits at most.
    #[arg(default = 5)]
    top_k: u32,
    /// Only notes with these tags.
    #[arg(default)]
    tags: Vec<String>,
    /// How thorough to be.
    #[arg(default = Depth::Fast)]
    depth: Depth,
    /// Match whole words only.
    #[arg(default)]
    whole_words: bool,
) -> Found {
    let hits: Vec<String> = (1..=top_k.min(3))
        .map(|i| format!("{query}#{i} tags={} whole={whole_words}", tags.join("+")))
        .collect();
    Found {
        summary: format!("{} hits for '{query}' ({depth:?})", hits.len()),
        hits,
    }
}

/// Delete a demo note.
#[skill(
    id = "demo.delete_note",
    category = "delete",
    confirm = "Delete note {id}"
)]
pub fn demo_delete_note(
    /// The note to delete.
    id: u32,
) -> String {
    format!("note {id} deleted")
}

/// Shows <script>alert(1)</script> as plain text.
#[skill(id = "demo.echo", category = "query")]
pub fn demo_echo(
    /// The text to echo back.
    text: String,
) -> String {
    text
}

/// Always fails, with details.
#[skill(id = "demo.fail", category = "query")]
pub fn demo_fail(
    /// Why it fails.
    reason: String,
) -> Result<String, SkillError> {
    Err(
        SkillError::new("demo_failure", format!("failed on purpose: {reason}"))
            .with_details(json!({ "reason": reason })),
    )
}

/// The test skills.
pub fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skills(toolwright::linked_skills().filter(|r| r.id.starts_with("demo.")))
        .build()
        .expect("test skills register")
}

pub fn state() -> ConsoleState {
    ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN))
        .build()
}

pub fn app(state: &ConsoleState) -> axum::Router {
    router(state.clone())
}

/// A finished response: status, headers, body text.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

pub async fn send(app: &axum::Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.expect("router answers");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body reads")
        .to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// The session cookie a browser gets for opening the console's address with its token.
pub async fn cookie(app: &axum::Router) -> String {
    let answer = send(
        app,
        Request::get(format!("/?token={TOKEN}"))
            .header(header::HOST, HOST)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let set = answer.headers[header::SET_COOKIE].to_str().unwrap();
    let pair = set.split(';').next().unwrap().to_string();
    assert!(
        pair.starts_with(&format!("{SESSION_COOKIE}_8765=")),
        "{set}"
    );
    pair
}

/// A signed-in GET.
pub async fn get(app: &axum::Router, path: &str) -> Answer {
    send(
        app,
        Request::get(path)
            .header(header::HOST, HOST)
            .header(header::COOKIE, cookie(app).await)
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

/// A signed-in form POST.
pub async fn post(app: &axum::Router, path: &str, fields: &[(&str, &str)]) -> Answer {
    let body = serde_urlencoded::to_string(fields).unwrap();
    send(
        app,
        Request::post(path)
            .header(header::HOST, HOST)
            .header(header::COOKIE, cookie(app).await)
            .header(header::ORIGIN, "http://127.0.0.1:8765")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

/// The page's elements as an indented outline (`tag#id.class`, attributes that matter for
/// forms, short text), with the per-launch CSRF token and timings masked.
pub fn outline(html: &str) -> String {
    const VOID: &[&str] = &["meta", "link", "input", "br", "hr", "img"];
    let mut out = String::new();
    let mut depth = 0usize;
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let text = rest[..start].trim();
        if !text.is_empty() && !text.starts_with("!") {
            let short: String = text.chars().take(48).collect();
            out.push_str(&format!("{}\"{}\"\n", "  ".repeat(depth), mask(&short)));
        }
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let tag = &rest[start + 1..start + end];
        rest = &rest[start + end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(_closing) = tag.strip_prefix('/') {
            depth = depth.saturating_sub(1);
            continue;
        }
        let name = tag.split_whitespace().next().unwrap_or_default();
        let attr = |a: &str| -> Option<String> {
            let key = format!(" {a}=\"");
            let at = tag.find(&key)? + key.len();
            let len = tag[at..].find('"')?;
            Some(tag[at..at + len].to_string())
        };
        let mut line = name.to_string();
        if let Some(id) = attr("id") {
            line.push_str(&format!("#{id}"));
        }
        if let Some(class) = attr("class") {
            for c in class.split_whitespace() {
                line.push_str(&format!(".{c}"));
            }
        }
        for a in ["name", "type", "value", "href", "action", "method"] {
            if let Some(v) = attr(a) {
                line.push_str(&format!(" {a}={}", mask(&v)));
            }
        }
        for flag in [" checked", " selected", " required", " open"] {
            if tag.contains(flag) {
                line.push_str(flag);
            }
        }
        out.push_str(&format!("{}{}\n", "  ".repeat(depth), line));
        // Skip the contents of <pre> and <textarea>: a line of text each.
        if matches!(name, "pre" | "textarea" | "style" | "script") {
            if let Some(close) = rest.find(&format!("</{name}>")) {
                let inner = rest[..close].trim();
                if !inner.is_empty() {
                    let first: String = inner
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .chars()
                        .take(48)
                        .collect();
                    out.push_str(&format!(
                        "{}\"{}…\"\n",
                        "  ".repeat(depth + 1),
                        mask(&first)
                    ));
                }
                rest = &rest[close + name.len() + 3..];
            }
            continue;
        }
        if !VOID.contains(&name) {
            depth += 1;
        }
    }
    out
}

/// Masks what changes between runs: CSRF tokens (32 hex digits) and timings.
fn mask(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(' ') {
        if !out.is_empty() {
            out.push(' ');
        }
        let bare = word.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '.');
        if bare.len() == 32 && bare.bytes().all(|b| b.is_ascii_hexdigit()) {
            out.push_str("[token]");
        } else if bare.contains('.')
            && bare.split('.').count() == 2
            && bare
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            && !word.contains('#')
        {
            out.push_str("[n]");
        } else {
            out.push_str(word);
        }
    }
    out
}
