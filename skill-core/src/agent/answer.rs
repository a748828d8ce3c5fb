//! Finding the JSON in a model's answer, wherever it put it: bare, in a ```json fence, or
//! inside prose. Readers of final answers build on it.

use serde_json::Value;

/// Most `[`/`{` positions tried when looking for JSON inside prose.
const MAX_JSON_CANDIDATES: usize = 64;

/// Finds the JSON in a model answer: the whole text, then each fenced block, then the first
/// list or object embedded in prose (a list holding objects wins over `[]`-like noise).
pub fn extract_json(text: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return Some(value);
    }
    for block in fenced_blocks(text) {
        if let Ok(value) = serde_json::from_str::<Value>(block.trim()) {
            return Some(value);
        }
    }
    let mut fallback = None;
    for (start, _) in text.match_indices(['[', '{']).take(MAX_JSON_CANDIDATES) {
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value @ Value::Object(_))) => return Some(value),
            Some(Ok(Value::Array(items))) if items.iter().any(Value::is_object) => {
                return Some(Value::Array(items))
            }
            Some(Ok(value @ Value::Array(_)))
                if fallback.is_none() && value.as_array().is_some_and(Vec::is_empty) =>
            {
                fallback = Some(value);
            }
            _ => {}
        }
    }
    fallback
}

/// The contents of ``` fences (the language tag line is skipped).
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                blocks.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                blocks.push(body);
                break;
            }
        }
    }
    blocks
}
