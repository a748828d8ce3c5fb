//! The coercion grammar: the expected shape of a JSON value, compiled once from a skill's
//! canonical input schema (`$ref`s kept as references into the definitions), refined by the
//! macro's per-argument overrides, and walked by the lenient coercion.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::catalog::ValueKind;
use crate::registration::SkillRegistration;

/// The expected shape of a JSON value, compiled from a JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Anything goes (untyped schema).
    Any,
    /// JSON `null` only.
    Null,
    /// A boolean.
    Boolean,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// Text; `kind` says whether it is a timestamp, a URI or plain text.
    String {
        /// `String`, `Timestamp`, `Uri` or `AttachmentReference`.
        kind: ValueKind,
    },
    /// One of fixed values.
    Enum {
        /// The allowed values.
        values: Vec<Value>,
        /// Whether string tokens compare case-sensitively.
        case_sensitive: bool,
    },
    /// An array of items.
    Array(Box<Shape>),
    /// A map of name → value.
    Map(Box<Shape>),
    /// A struct: named properties, some required.
    Object {
        /// Properties in schema order.
        properties: Vec<(String, Shape)>,
        /// Names that must be present.
        required: Vec<String>,
    },
    /// A value or `null`.
    Nullable(Box<Shape>),
    /// One of several shapes.
    Union(Vec<Shape>),
    /// A named definition of the schema's `$defs` (possibly recursive).
    Ref(String),
    /// A number with inclusive bounds (`minimum` / `maximum`, as schemars writes for
    /// unsigned and small integer types).
    Bounded {
        /// The number shape.
        inner: Box<Shape>,
        /// Smallest allowed value.
        min: Option<f64>,
        /// Largest allowed value.
        max: Option<f64>,
    },
}

impl Shape {
    /// The kind name for messages (`integer`, `list of string`, ...).
    pub fn expected(&self, tree: &ShapeTree) -> String {
        self.expected_depth(tree, 0)
    }

    fn expected_depth(&self, tree: &ShapeTree, depth: usize) -> String {
        if depth > 4 {
            return "value".into();
        }
        match self {
            Shape::Any => "any value".into(),
            Shape::Null => "null".into(),
            Shape::Boolean => "boolean".into(),
            Shape::Integer => "integer".into(),
            Shape::Number => "number".into(),
            Shape::String { kind } => match kind {
                ValueKind::Timestamp => "timestamp (ISO-8601)".into(),
                ValueKind::Uri => "absolute URI".into(),
                _ => "string".into(),
            },
            Shape::Enum { values, .. } => {
                let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                format!("one of {}", list.join(", "))
            }
            Shape::Array(item) => format!("list of {}", item.expected_depth(tree, depth + 1)),
            Shape::Map(value) => format!("object of {}", value.expected_depth(tree, depth + 1)),
            Shape::Object { .. } => "object".into(),
            Shape::Nullable(inner) => format!("{} or null", inner.expected_depth(tree, depth + 1)),
            Shape::Union(options) => {
                let list: Vec<String> = options
                    .iter()
                    .map(|o| o.expected_depth(tree, depth + 1))
                    .collect();
                list.join(" or ")
            }
            Shape::Ref(name) => match tree.definition(name) {
                Some(shape) => shape.expected_depth(tree, depth + 1),
                None => "value".into(),
            },
            Shape::Bounded { inner, min, max } => {
                let base = inner.expected_depth(tree, depth + 1);
                match (min, max) {
                    (Some(lo), Some(hi)) => format!("{base} between {lo} and {hi}"),
                    (Some(lo), None) => format!("{base} >= {lo}"),
                    (None, Some(hi)) => format!("{base} <= {hi}"),
                    (None, None) => base,
                }
            }
        }
    }
}

/// A compiled input schema: the root shape plus the named definitions it refers to.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeTree {
    /// Shape of the whole input (an object).
    pub root: Shape,
    /// `$defs` by name.
    pub definitions: HashMap<String, Shape>,
}

impl ShapeTree {
    /// Compiles a JSON Schema (2020-12, as schemars writes it).
    pub fn compile(schema: &Value) -> Self {
        let mut definitions = HashMap::new();
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = schema.get(key) {
                for (name, def) in defs {
                    definitions.insert(name.clone(), compile(def));
                }
            }
        }
        ShapeTree {
            root: compile(schema),
            definitions,
        }
    }

    /// A named definition.
    pub fn definition(&self, name: &str) -> Option<&Shape> {
        self.definitions.get(name)
    }

    /// Follows `Ref`s (at most a few hops) to the shape they name.
    pub fn resolve<'a>(&'a self, mut shape: &'a Shape) -> &'a Shape {
        for _ in 0..8 {
            match shape {
                Shape::Ref(name) => match self.definitions.get(name) {
                    Some(next) => shape = next,
                    None => return &Shape::Any,
                },
                _ => return shape,
            }
        }
        shape
    }
}

/// Name of the definition a `$ref` points to (`#/$defs/Name`).
pub(crate) fn ref_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

fn compile(schema: &Value) -> Shape {
    let Value::Object(map) = schema else {
        return Shape::Any; // `true` / `false` schemas
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        return match ref_name(reference) {
            Some(name) => Shape::Ref(name.to_string()),
            None => Shape::Any,
        };
    }
    if let Some(value) = map.get("const") {
        return Shape::Enum {
            values: vec![value.clone()],
            case_sensitive: false,
        };
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        let nullable = values.iter().any(Value::is_null);
        let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        let shape = Shape::Enum {
            values,
            case_sensitive: false,
        };
        return if nullable {
            Shape::Nullable(Box::new(shape))
        } else {
            shape
        };
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            return union_of(options.iter().map(compile).collect());
        }
    }
    if let Some(Value::Array(all)) = map.get("allOf") {
        if all.len() == 1 {
            return compile(&all[0]);
        }
        return Shape::Any;
    }
    match map.get("type") {
        Some(Value::String(t)) => compile_typed(t, map),
        Some(Value::Array(types)) => {
            let shapes = types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| compile_typed(t, map))
                .collect();
            union_of(shapes)
        }
        _ if map.contains_key("properties") => compile_typed("object", map),
        _ => Shape::Any,
    }
}

fn union_of(mut shapes: Vec<Shape>) -> Shape {
    let nullable = shapes.contains(&Shape::Null);
    shapes.retain(|s| *s != Shape::Null);
    // A union of single-value enums (`oneOf` of `const`s) is one enum.
    if shapes.len() > 1 && shapes.iter().all(|s| matches!(s, Shape::Enum { .. })) {
        let mut values = Vec::new();
        for shape in &shapes {
            if let Shape::Enum { values: v, .. } = shape {
                values.extend(v.iter().cloned());
            }
        }
        shapes = vec![Shape::Enum {
            values,
            case_sensitive: false,
        }];
    }
    let inner = match shapes.len() {
        0 => return Shape::Null,
        1 => shapes.pop().unwrap_or(Shape::Any),
        _ => Shape::Union(shapes),
    };
    if nullable {
        Shape::Nullable(Box::new(inner))
    } else {
        inner
    }
}

fn bounded(inner: Shape, map: &Map<String, Value>) -> Shape {
    let min = map.get("minimum").and_then(Value::as_f64);
    let max = map.get("maximum").and_then(Value::as_f64);
    if min.is_none() && max.is_none() {
        return inner;
    }
    Shape::Bounded {
        inner: Box::new(inner),
        min,
        max,
    }
}

fn compile_typed(t: &str, map: &Map<String, Value>) -> Shape {
    match t {
        "null" => Shape::Null,
        "boolean" => Shape::Boolean,
        "integer" => bounded(Shape::Integer, map),
        "number" => bounded(Shape::Number, map),
        "string" => Shape::String {
            kind: match map.get("format").and_then(Value::as_str) {
                Some("date-time") => ValueKind::Timestamp,
                Some("uri") | Some("url") => ValueKind::Uri,
                _ => ValueKind::String,
            },
        },
        "array" => Shape::Array(Box::new(map.get("items").map_or(Shape::Any, compile))),
        "object" => {
            let properties: Vec<(String, Shape)> = match map.get("properties") {
                Some(Value::Object(props)) => {
                    props.iter().map(|(k, v)| (k.clone(), compile(v))).collect()
                }
                _ => Vec::new(),
            };
            let extra = map.get("additionalProperties");
            if properties.is_empty() && !matches!(extra, Some(Value::Bool(false))) {
                let value = match extra {
                    Some(schema @ Value::Object(_)) => compile(schema),
                    _ => Shape::Any,
                };
                return Shape::Map(Box::new(value));
            }
            let required = match map.get("required") {
                Some(Value::Array(names)) => names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect(),
                _ => Vec::new(),
            };
            Shape::Object {
                properties,
                required,
            }
        }
        _ => Shape::Any,
    }
}

/// Applies `#[arg(kind, case_sensitive)]` to the compiled top-level properties.
pub(crate) fn apply_overrides(tree: &mut ShapeTree, reg: &SkillRegistration) {
    let Shape::Object { properties, .. } = &mut tree.root else {
        return;
    };
    for param in reg.params {
        let Some((_, shape)) = properties.iter_mut().find(|(n, _)| n == param.name) else {
            continue;
        };
        if let Some(case_sensitive) = param.case_sensitive {
            set_case_sensitivity(shape, &mut tree.definitions, case_sensitive);
        }
        if let Some(kind) = param.kind.and_then(|k| k.parse::<ValueKind>().ok()) {
            override_kind(shape, kind);
        }
    }
}

fn set_case_sensitivity(shape: &mut Shape, defs: &mut HashMap<String, Shape>, value: bool) {
    match shape {
        Shape::Enum { case_sensitive, .. } => *case_sensitive = value,
        Shape::Nullable(inner) | Shape::Array(inner) | Shape::Map(inner) => {
            set_case_sensitivity(inner, defs, value)
        }
        Shape::Union(options) => options
            .iter_mut()
            .for_each(|o| set_case_sensitivity(o, defs, value)),
        Shape::Ref(name) => {
            // Copy the definition inline so the override stays local to this parameter.
            if let Some(mut def) = defs.get(name.as_str()).cloned() {
                if matches!(def, Shape::Enum { .. }) {
                    set_case_sensitivity(&mut def, defs, value);
                    *shape = def;
                }
            }
        }
        _ => {}
    }
}

fn override_kind(shape: &mut Shape, kind: ValueKind) {
    match shape {
        Shape::Nullable(inner) | Shape::Array(inner) | Shape::Map(inner) => {
            override_kind(inner, kind)
        }
        Shape::String { kind: k }
            if matches!(
                kind,
                ValueKind::String
                    | ValueKind::Timestamp
                    | ValueKind::Uri
                    | ValueKind::AttachmentReference
            ) =>
        {
            *k = kind;
        }
        _ => {}
    }
}
