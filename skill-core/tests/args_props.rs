//! Property tests of lenient parsing: it never panics, whatever the model sends; well-typed
//! arguments pass unchanged and without warnings; stringly-typed ones come back to the same
//! typed value.
//!
//! A binary of its own: its skill joins the link-time registry it reads
//! (`Dispatcher::from_inventory`), which the suites in `tests/it` must not see.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use serde_json::{json, Value};
use toolwright::prelude::*;

/// Alert level.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Low.
    Low,
    /// High.
    High,
}

/// A nested filter.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Filter {
    /// Field to filter on.
    pub field: String,
    /// Accepted values.
    pub values: Vec<i64>,
}

/// Take one argument of every kind.
#[skill(id = "props.typed", category = "query")]
#[allow(clippy::too_many_arguments)]
fn typed(
    /// A flag.
    flag: bool,
    /// A count.
    count: i64,
    /// A ratio.
    ratio: f64,
    /// A moment.
    when: DateTime<Utc>,
    /// Labels.
    tags: Vec<String>,
    /// Scores by name.
    scores: BTreeMap<String, i32>,
    /// Optional level.
    level: Option<Level>,
    /// Optional nested filter.
    filter: Option<Filter>,
    /// A web address.
    link: Option<url::Url>,
) -> usize {
    let _ = (flag, count, ratio, when, &scores, level, filter, link);
    tags.len()
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry is valid")
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| json!(x)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("true"),
            Just("yes"),
            Just("1_000"),
            Just(" 42 "),
            Just("4.5"),
            Just("[1,2]"),
            Just("{\"field\":\"a\",\"values\":[1]}"),
            Just("2024-05-01"),
            Just("https://x.y"),
            Just("HIGH"),
            Just("nan"),
            Just("1e400"),
            Just("{"),
            Just("[")
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("flag".to_string()),
                    Just("count".to_string()),
                    Just("ratio".to_string()),
                    Just("when".to_string()),
                    Just("tags".to_string()),
                    Just("scores".to_string()),
                    Just("level".to_string()),
                    Just("filter".to_string()),
                    Just("link".to_string()),
                    Just("field".to_string()),
                    Just("values".to_string()),
                    "[a-z]{1,4}",
                ],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn well_typed() -> impl Strategy<Value = Value> {
    (
        any::<bool>(),
        any::<i64>(),
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        0i64..4_000_000_000,
        prop::collection::vec(".{0,8}", 0..4),
        prop::collection::btree_map("[a-z]{1,5}", any::<i32>(), 0..4),
        prop::option::of(prop_oneof![Just(Level::Low), Just(Level::High)]),
        prop::option::of(("[a-z]{1,6}", prop::collection::vec(any::<i64>(), 0..4))),
        prop::option::of("[a-z]{1,10}"),
    )
        .prop_map(
            |(flag, count, ratio, secs, tags, scores, level, filter, host)| {
                let when = DateTime::<Utc>::from_timestamp(secs, 0).unwrap();
                let mut v = json!({
                    "flag": flag, "count": count, "ratio": ratio, "when": when,
                    "tags": tags, "scores": scores,
                });
                if let Some(level) = level {
                    v["level"] = serde_json::to_value(level).unwrap();
                }
                if let Some((field, values)) = filter {
                    v["filter"] = json!({"field": field, "values": values});
                }
                if let Some(host) = host {
                    v["link"] =
                        json!(url::Url::parse(&format!("https://{host}.example/p")).unwrap());
                }
                v
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parsing_never_panics_on_arbitrary_json(value in arbitrary_json()) {
        let d = dispatcher();
        for tool in ["props.typed", "unknown.tool"] {
            let parse = d.parse_arguments(tool, &value);
            prop_assert!(parse.arguments.is_object());
            for w in &parse.warnings {
                prop_assert!(w.path.starts_with('$'));
            }
            for e in &parse.errors {
                prop_assert!(e.path.starts_with('$'));
            }
            let text = value.to_string();
            let _ = d.parse_arguments(tool, text.as_str());
        }
    }

    #[test]
    fn parsing_never_panics_on_arbitrary_text(text in ".{0,64}") {
        let parse = dispatcher().parse_arguments("props.typed", text.as_str());
        prop_assert!(parse.arguments.is_object());
        prop_assert_eq!(parse.raw.as_str(), text.as_str());
    }

    #[test]
    fn well_typed_arguments_pass_unchanged_without_warnings(value in well_typed()) {
        let parse = dispatcher().parse_arguments("props.typed", &value);
        prop_assert!(parse.errors.is_empty(), "errors: {:?}", parse.errors);
        prop_assert!(parse.warnings.is_empty(), "warnings: {:?}", parse.warnings);
        prop_assert_eq!(&parse.arguments, &value);
        let input: TypedInput = serde_json::from_value(parse.arguments).unwrap();
        prop_assert_eq!(input.flag, value["flag"].as_bool().unwrap());
    }

    #[test]
    fn stringly_typed_scalars_come_back_typed(value in well_typed()) {
        let mut stringly = value.clone();
        for key in ["flag", "count"] {
            stringly[key] = Value::String(value[key].to_string());
        }
        let parse = dispatcher().parse_arguments("props.typed", &stringly);
        prop_assert!(parse.errors.is_empty(), "errors: {:?}", parse.errors);
        prop_assert_eq!(parse.warnings.len(), 2);
        prop_assert_eq!(&parse.arguments, &value);
    }
}
