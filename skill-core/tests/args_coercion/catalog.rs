//! The catalog: what each skill declares of its arguments.

use super::*;

/// Attach a file to a client record.
#[skill(
    id = "files.attach",
    domain = "files",
    category = "update",
    requires_confirmation = false
)]
fn attach(
    /// Attachment reference of the uploaded file.
    #[arg(kind = "attachment_reference")]
    file: String,
    /// Exact status token (case matters here).
    #[arg(case_sensitive = true)]
    status: examples::ClientStatus,
    /// When the file was received.
    received: DateTime<Utc>,
    /// Related record ids.
    ids: Vec<i64>,
    /// Free-form labels.
    labels: std::collections::HashMap<String, String>,
    /// Score between 0 and 1.
    score: Option<f64>,
) -> String {
    format!(
        "{file} {status:?} {received} {} {} {score:?}",
        ids.len(),
        labels.len()
    )
}

/// Input of an `#[input]` skill.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RenameInput {
    /// The record to rename.
    pub id: String,
    /// Whether to keep the old name as an alias.
    #[serde(default)]
    pub keep_alias: bool,
}

/// Rename a record.
#[skill(
    id = "files.rename",
    category = "update",
    requires_confirmation = false
)]
fn rename(#[input] input: RenameInput) -> String {
    format!("{} {}", input.id, input.keep_alias)
}

#[test]
fn catalog_derives_kind_cardinality_and_constraints_from_types() {
    let d = dispatcher();
    let search = d.catalog().get("crm_search_client").expect("by wire name");
    assert_eq!(search.id, "crm.search_client");
    let keyword = search.parameter("keyword").unwrap();
    assert_eq!(
        (keyword.value_kind, keyword.cardinality, keyword.required),
        (ValueKind::String, Cardinality::Single, true)
    );
    assert!(keyword.description.starts_with("Search keyword"));
    let limit = search.parameter("limit").unwrap();
    assert_eq!(
        (limit.value_kind, limit.cardinality, limit.required),
        (ValueKind::Integer, Cardinality::Optional, false)
    );
    assert_eq!(limit.default, Some(json!(10)));
    assert_eq!(limit.example, Some(json!(25)));
    let status = search.parameter("status").unwrap();
    assert_eq!(
        (status.value_kind, status.cardinality),
        (ValueKind::EnumToken, Cardinality::Optional)
    );
    let constraint = status.enum_constraint.as_ref().unwrap();
    assert_eq!(constraint.allowed_values, ["active", "dormant", "archived"]);
    assert!(!constraint.case_sensitive);
    assert_eq!(
        search.parameter("include_archived").unwrap().default,
        Some(json!(false))
    );

    let attach = d.catalog().get("files.attach").unwrap();
    let kinds: Vec<(&str, ValueKind, Cardinality)> = attach
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.value_kind, p.cardinality))
        .collect();
    assert!(kinds.contains(&("file", ValueKind::AttachmentReference, Cardinality::Single)));
    assert!(kinds.contains(&("received", ValueKind::Timestamp, Cardinality::Single)));
    assert!(kinds.contains(&("ids", ValueKind::Integer, Cardinality::List)));
    assert!(kinds.contains(&("labels", ValueKind::String, Cardinality::Map)));
    assert!(kinds.contains(&("score", ValueKind::Number, Cardinality::Optional)));
    assert!(
        attach
            .parameter("status")
            .unwrap()
            .enum_constraint
            .as_ref()
            .unwrap()
            .case_sensitive
    );

    let create = d.catalog().get("crm.create_client").unwrap();
    assert!(create.requires_confirmation);
    assert_eq!(
        create.parameter("website").unwrap().value_kind,
        ValueKind::Uri
    );
    assert_eq!(
        create.parameter("tags").unwrap().cardinality,
        Cardinality::List
    );
    let stats = d.catalog().get("crm.contact_stats").unwrap();
    let range = stats.parameter("date_range").unwrap();
    assert_eq!(
        (range.value_kind, range.cardinality),
        (ValueKind::JsonObject, Cardinality::Optional)
    );
    assert_eq!(range.description, "Only projects in this period.");
    assert_eq!(
        stats.parameter("weights").unwrap().cardinality,
        Cardinality::Map
    );

    // `#[input]` skills have no ParamInfo; the catalog comes from the schema alone.
    let rename = d.catalog().get("files.rename").unwrap();
    assert_eq!(rename.parameters.len(), 2);
    assert_eq!(
        rename.parameter("id").unwrap().description,
        "The record to rename."
    );
    assert_eq!(
        rename.parameter("keep_alias").unwrap().value_kind,
        ValueKind::Boolean
    );

    // The catalog serializes for a planner or UI.
    let json = serde_json::to_value(&**search).unwrap();
    assert_eq!(json["parameters"][0]["value_kind"], "Boolean");
}

#[test]
fn case_sensitive_override_reaches_the_parser() {
    let d = dispatcher();
    let args = json!({"file": "att-1", "status": "Active", "received": "2024-05-01", "ids": 5, "labels": {}});
    let parse = d.parse_arguments("files.attach", &args);
    assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
    assert_eq!(parse.errors[0].path, "$.status");
    let args = json!({"file": "att-1", "status": "active", "received": "2024-05-01", "ids": "5", "labels": "{\"a\": \"b\"}"});
    let parse = d.parse_arguments("files.attach", &args);
    assert!(parse.errors.is_empty(), "{:?}", parse.errors);
    assert_eq!(parse.arguments["ids"], json!([5]));
    assert_eq!(parse.arguments["labels"], json!({"a": "b"}));
    assert_eq!(parse.arguments["received"], json!("2024-05-01T00:00:00Z"));
}

#[test]
fn unknown_tools_are_read_permissively_with_a_warning() {
    let d = dispatcher();
    let parse = d.parse_arguments("crm.nope", r#"{"a": "1"}"#);
    assert_eq!(parse.skill_id, None);
    assert_eq!(
        parse.arguments,
        json!({"a": "1"}),
        "no type guidance: nothing coerced"
    );
    assert_eq!(parse.warnings[0].code, "tool_definition_missing");
    assert_eq!(parse.raw.as_str(), r#"{"a": "1"}"#);
    let parse = d.parse_arguments("crm.nope", "not json");
    assert_eq!(parse.errors[0].code, "invalid_json");
}

#[test]
fn raw_arguments_are_kept_and_whole_call_problems_are_reported_at_root() {
    let d = dispatcher();
    let raw = r#"{"keyword": "cit", "limit": "3", "surprise": 1}"#;
    let parse = d.parse_arguments("crm.search_client", raw);
    assert_eq!(parse.raw.as_str(), raw);
    assert_eq!(parse.arguments["limit"], json!(3));
    let codes: Vec<&str> = parse.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["unknown_argument", "string_to_integer"]);
    let parse = d.parse_arguments("crm.search_client", "[1, 2]");
    assert_eq!(
        (parse.errors[0].code.as_str(), parse.errors[0].path.as_str()),
        ("arguments_not_object", "$")
    );
    let parse = d.parse_arguments("crm.search_client", r#""{\"keyword\": \"x\"}""#);
    assert!(parse.errors.is_empty());
    assert_eq!(parse.warnings[0].code, "json_string_decoded");
}
