//! Helpers shared by the fuzz targets: reading the JSON paths the argument parser reports and
//! checking that they exist.

#![allow(dead_code)]

use serde_json::Value;
use toolwright::args::{Shape, ShapeTree};

/// One step of a JSON path: a property name or an array index.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `.name` or `["name"]`.
    Key(String),
    /// `[3]`.
    Index(usize),
}

/// Reads a path as the parser writes it: `$`, then `.name`, `["any name"]` or `[3]` steps.
/// `None` when the text is not such a path.
pub fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            if after.starts_with('"') {
                let mut stream = serde_json::Deserializer::from_str(after).into_iter::<String>();
                let key = stream.next()?.ok()?;
                let used = stream.byte_offset();
                steps.push(Step::Key(key));
                rest = after[used..].strip_prefix(']')?;
            } else {
                let end = after.find(']')?;
                steps.push(Step::Index(after[..end].parse().ok()?));
                rest = &after[end + 1..];
            }
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Whether `steps` lead somewhere inside `value`.
pub fn in_value(value: &Value, steps: &[Step]) -> bool {
    let Some((first, rest)) = steps.split_first() else {
        return true;
    };
    match (first, value) {
        (Step::Key(key), Value::Object(map)) => map.get(key).is_some_and(|v| in_value(v, rest)),
        (Step::Index(i), Value::Array(items)) => items.get(*i).is_some_and(|v| in_value(v, rest)),
        // A string holding JSON is decoded by the parser (with a warning).
        (_, Value::String(text)) => serde_json::from_str::<Value>(text)
            .ok()
            .filter(|inner| !inner.is_string())
            .is_some_and(|inner| in_value(&inner, steps)),
        _ => false,
    }
}

/// Whether `steps` name a place the schema describes.
pub fn in_shape(tree: &ShapeTree, shape: &Shape, steps: &[Step], budget: usize) -> bool {
    if budget == 0 {
        return false;
    }
    let Some((first, rest)) = steps.split_first() else {
        return true;
    };
    match shape {
        Shape::Any => true,
        Shape::Ref(name) => tree
            .definition(name)
            .is_some_and(|inner| in_shape(tree, inner, steps, budget - 1)),
        Shape::Nullable(inner) | Shape::Bounded { inner, .. } => {
            in_shape(tree, inner, steps, budget - 1)
        }
        Shape::Union(options) => options
            .iter()
            .any(|option| in_shape(tree, option, steps, budget - 1)),
        Shape::Object { properties, .. } => match first {
            Step::Key(key) => properties
                .iter()
                .find(|(name, _)| name == key)
                .is_some_and(|(_, inner)| in_shape(tree, inner, rest, budget - 1)),
            Step::Index(_) => false,
        },
        Shape::Map(inner) => match first {
            Step::Key(_) => in_shape(tree, inner, rest, budget - 1),
            Step::Index(_) => false,
        },
        Shape::Array(inner) => match first {
            Step::Index(_) => in_shape(tree, inner, rest, budget - 1),
            Step::Key(_) => false,
        },
        _ => false,
    }
}

/// Nesting depth of arrays and objects (the top-level object is 1, a scalar 0).
pub fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Rust paths that must never reach a model (unless the model wrote them itself).
pub const INTERNAL_MARKERS: [&str; 7] = [
    "std::",
    "core::",
    "alloc::",
    "serde_json::",
    "toolwright::",
    "clausewright_skills::",
    "panicked at",
];

/// Panics when `message` carries an internal marker that `input` does not.
pub fn assert_no_internals(message: &str, input: &str) {
    for marker in INTERNAL_MARKERS {
        assert!(
            !message.contains(marker) || input.contains(marker),
            "internal detail `{marker}` in a message for the model: {message}"
        );
    }
}

/// Places in `text` where a reader could see `tag` open or close: a `<`, optional spaces, an
/// optional `/`, optional spaces, then the tag name in any case.
pub fn tag_marks(text: &str, tag: &str) -> usize {
    text.match_indices('<')
        .filter(|(at, _)| {
            let rest = text[at + 1..].trim_start();
            let rest = rest.strip_prefix('/').unwrap_or(rest).trim_start();
            rest.get(..tag.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(tag))
        })
        .count()
}

/// Checks a fenced text: one opening tag with a quoted attribute nothing breaks out of, a
/// body with no tag in it, one closing tag at the end.
pub fn assert_fenced(text: &str, tag: &str) {
    let open = format!("<{tag} ");
    let rest = text
        .strip_prefix(&open)
        .unwrap_or_else(|| panic!("not fenced as {tag}: {text}"));
    let (name, attr_value) = rest.split_once("=\"").expect("an attribute");
    assert!(!name.contains(['<', '>', '"']), "attribute name: {text}");
    let end = attr_value.find('"').expect("a closed attribute value");
    assert!(
        !attr_value[..end].contains('<'),
        "`<` inside an attribute value: {text}"
    );
    let body = attr_value[end..]
        .strip_prefix("\">\n")
        .unwrap_or_else(|| panic!("the opening tag ends with `\">\\n`: {text}"));
    let body = body
        .strip_suffix(&format!("\n</{tag}>"))
        .unwrap_or_else(|| panic!("the fence closes at the end: {text}"));
    assert_eq!(
        tag_marks(body, tag),
        0,
        "a tag inside the fenced body: {text}"
    );
}
