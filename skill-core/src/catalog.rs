//! Typed parameter metadata (seed 003 `ToolCatalog`): for every argument a skill takes, its
//! value kind, cardinality, whether it is required, its description, enum constraint, example
//! and default — what a planner, a UI or the lenient argument parser reads.
//!
//! The catalog is derived from each skill's canonical input schema (so `#[input]` skills are
//! covered too) and refined by the macro's [`ParamInfo`](crate::ParamInfo) overrides
//! (`#[arg(kind, case_sensitive, example)]`). Besides the flat parameter list it keeps a
//! compiled [`Shape`] tree of the whole input, which the coercion walks.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::registration::SkillRegistration;

/// What kind of value a parameter holds (seed 003 `ToolParameterValueKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ValueKind {
    /// Text, kept as the model wrote it.
    String,
    /// `true` / `false`.
    Boolean,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// A JSON object (nested struct or free-form object).
    JsonObject,
    /// A JSON array whose items have no single kind.
    JsonArray,
    /// An ISO-8601 / RFC 3339 timestamp.
    Timestamp,
    /// An absolute URI.
    Uri,
    /// One of a fixed set of tokens.
    EnumToken,
    /// A reference to an attachment (treated as text).
    AttachmentReference,
}

impl ValueKind {
    /// The name used in `#[arg(kind = "...")]` and in error messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            ValueKind::String => "string",
            ValueKind::Boolean => "boolean",
            ValueKind::Integer => "integer",
            ValueKind::Number => "number",
            ValueKind::JsonObject => "object",
            ValueKind::JsonArray => "array",
            ValueKind::Timestamp => "timestamp",
            ValueKind::Uri => "uri",
            ValueKind::EnumToken => "enum",
            ValueKind::AttachmentReference => "attachment",
        }
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ValueKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(
            match s.to_ascii_lowercase().replace(['_', '-'], "").as_str() {
                "string" | "text" => ValueKind::String,
                "boolean" | "bool" => ValueKind::Boolean,
                "integer" | "int" => ValueKind::Integer,
                "number" | "float" => ValueKind::Number,
                "object" | "jsonobject" => ValueKind::JsonObject,
                "array" | "jsonarray" => ValueKind::JsonArray,
                "timestamp" | "datetime" => ValueKind::Timestamp,
                "uri" | "url" => ValueKind::Uri,
                "enum" | "enumtoken" => ValueKind::EnumToken,
                "attachment" | "attachmentreference" => ValueKind::AttachmentReference,
                _ => return Err(format!("unknown value kind `{s}`")),
            },
        )
    }
}

/// How many values a parameter holds (seed 003 `ToolParameterCardinality`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Cardinality {
    /// Exactly one value, which the model must give (or the host fills in).
    Single,
    /// At most one value; may be left out.
    Optional,
    /// An array of values; a lone scalar is wrapped into a one-element list.
    List,
    /// A JSON object of name → value.
    Map,
}

/// The allowed tokens of an enum parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnumConstraint {
    /// Allowed values, as text.
    pub allowed_values: Vec<String>,
    /// Whether `"Red"` differs from `"red"`; when false the parser normalises the case.
    pub case_sensitive: bool,
}

/// One argument the model fills in (seed 003 `ToolParameter`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolParameter {
    /// Name on the wire.
    pub name: String,
    /// Kind of the value (of each item for lists, of each value for maps).
    pub value_kind: ValueKind,
    /// Single, optional, list or map.
    pub cardinality: Cardinality,
    /// The model must supply it.
    pub required: bool,
    /// What the parameter means, for the model and for people.
    pub description: String,
    /// Allowed tokens, for enum parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enum_constraint: Option<EnumConstraint>,
    /// An example value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// The value used when the model leaves it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Filled from the host's state when the model leaves it out.
    pub prepared: bool,
}

/// Everything a planner needs to know about one tool.
#[derive(Debug, Serialize)]
pub struct ToolDescriptor {
    /// Skill id (`crm.search_client`).
    pub id: &'static str,
    /// Name on the wire (`crm_search_client`).
    pub wire_name: &'static str,
    /// Display name.
    pub name: &'static str,
    /// What the tool does.
    pub description: &'static str,
    /// Business domain.
    pub domain: &'static str,
    /// Category (`query`, `stats`, `create`, ...).
    pub category: &'static str,
    /// Whether calls wait for the host's confirmation.
    pub requires_confirmation: bool,
    /// Arguments in schema order.
    pub parameters: Vec<ToolParameter>,
    /// The compiled shape of the whole input, used for lenient parsing.
    #[serde(skip)]
    pub shape: Arc<ShapeTree>,
}

impl ToolDescriptor {
    /// Builds the descriptor of one registration.
    pub fn from_registration(reg: &'static SkillRegistration) -> Self {
        let schema = (reg.input_schema)();
        let mut tree = ShapeTree::compile(schema);
        apply_overrides(&mut tree, reg);
        let parameters = parameters_of(reg, schema, &tree);
        ToolDescriptor {
            id: reg.id,
            wire_name: reg.wire_name,
            name: reg.name,
            description: reg.description,
            domain: reg.domain,
            category: reg.category,
            requires_confirmation: reg.needs_confirmation(),
            parameters,
            shape: Arc::new(tree),
        }
    }

    /// The parameter with this wire name.
    pub fn parameter(&self, name: &str) -> Option<&ToolParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }
}

/// Typed metadata of a set of tools, looked up by id or wire name (seed 003 `ToolCatalog`).
#[derive(Debug, Default)]
pub struct ToolCatalog {
    tools: Vec<Arc<ToolDescriptor>>,
    by_name: HashMap<&'static str, usize>,
}

impl ToolCatalog {
    /// Builds the catalog of `skills`.
    pub fn new<'a>(skills: impl IntoIterator<Item = &'a &'static SkillRegistration>) -> Self {
        let mut catalog = ToolCatalog::default();
        for reg in skills {
            let index = catalog.tools.len();
            catalog
                .tools
                .push(Arc::new(ToolDescriptor::from_registration(reg)));
            catalog.by_name.insert(reg.id, index);
            catalog.by_name.insert(reg.wire_name, index);
        }
        catalog
    }

    /// The tool with this id or wire name.
    pub fn get(&self, name: &str) -> Option<&Arc<ToolDescriptor>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// All tools, sorted as given.
    pub fn tools(&self) -> &[Arc<ToolDescriptor>] {
        &self.tools
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the catalog is empty.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

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
fn apply_overrides(tree: &mut ShapeTree, reg: &SkillRegistration) {
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

/// The flat parameter list of one registration.
fn parameters_of(reg: &SkillRegistration, schema: &Value, tree: &ShapeTree) -> Vec<ToolParameter> {
    let Shape::Object {
        properties,
        required,
    } = &tree.root
    else {
        return Vec::new();
    };
    let props = schema.get("properties").and_then(Value::as_object);
    properties
        .iter()
        .map(|(name, shape)| {
            let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
            let info = reg.param(name);
            let is_required = required.iter().any(|r| r == name);
            let (value_kind, cardinality, enum_constraint) = classify(shape, tree, is_required);
            let value_kind = info
                .and_then(|p| p.kind)
                .and_then(|k| k.parse().ok())
                .unwrap_or(value_kind);
            let description = prop
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| resolved_description(prop, schema))
                .or_else(|| info.map(|p| p.description.to_string()))
                .unwrap_or_default();
            let example = info
                .and_then(|p| p.example)
                .and_then(|text| serde_json::from_str(text).ok())
                .or_else(|| prop.get("examples").and_then(|e| e.get(0)).cloned());
            ToolParameter {
                name: name.clone(),
                value_kind,
                cardinality,
                required: is_required,
                description,
                enum_constraint,
                example,
                default: prop.get("default").cloned(),
                prepared: info.is_some_and(|p| p.prepared),
            }
        })
        .collect()
}

fn resolved_description(prop: &Value, schema: &Value) -> Option<String> {
    let name = ref_name(prop.get("$ref")?.as_str()?)?;
    let def = schema.get("$defs")?.get(name)?;
    def.get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Value kind, cardinality and enum constraint of a top-level property.
fn classify(
    shape: &Shape,
    tree: &ShapeTree,
    required: bool,
) -> (ValueKind, Cardinality, Option<EnumConstraint>) {
    let single = if required {
        Cardinality::Single
    } else {
        Cardinality::Optional
    };
    match tree.resolve(shape) {
        Shape::Nullable(inner) => {
            let (kind, card, constraint) = classify(inner, tree, required);
            let card = if card == Cardinality::Single {
                Cardinality::Optional
            } else {
                card
            };
            (kind, card, constraint)
        }
        Shape::Array(item) => {
            let (kind, _, constraint) = classify(item, tree, true);
            let kind = match tree.resolve(item) {
                Shape::Any | Shape::Union(_) | Shape::Array(_) => ValueKind::JsonArray,
                _ => kind,
            };
            (kind, Cardinality::List, constraint)
        }
        Shape::Map(value) => {
            let (kind, _, constraint) = classify(value, tree, true);
            let kind = match tree.resolve(value) {
                Shape::Any => ValueKind::JsonObject,
                _ => kind,
            };
            (kind, Cardinality::Map, constraint)
        }
        Shape::Enum {
            values,
            case_sensitive,
        } => (
            ValueKind::EnumToken,
            single,
            Some(EnumConstraint {
                allowed_values: values
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect(),
                case_sensitive: *case_sensitive,
            }),
        ),
        Shape::Boolean => (ValueKind::Boolean, single, None),
        Shape::Bounded { inner, .. } => classify(inner, tree, required),
        Shape::Integer => (ValueKind::Integer, single, None),
        Shape::Number => (ValueKind::Number, single, None),
        Shape::String { kind } => (*kind, single, None),
        Shape::Object { .. } | Shape::Any | Shape::Union(_) | Shape::Ref(_) => {
            (ValueKind::JsonObject, single, None)
        }
        Shape::Null => (ValueKind::String, Cardinality::Optional, None),
    }
}
