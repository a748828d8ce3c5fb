//! Typed parameter metadata (seed 003 `ToolCatalog`): for every argument a skill takes, its
//! value kind, cardinality, whether it is required, its description, enum constraint, example
//! and default — what a planner, a UI or the lenient argument parser reads.
//!
//! The catalog is derived from each skill's canonical input schema (so `#[input]` skills are
//! covered too) and refined by the macro's [`ParamInfo`](crate::ParamInfo) overrides
//! (`#[arg(kind, case_sensitive, example)]`). Besides the flat parameter list it keeps a
//! compiled [`Shape`] tree of the whole input, which the coercion walks
//! (the grammar lives next to the coercion, in `args`).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::args::shape::{apply_overrides, ref_name, Shape, ShapeTree};
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
