//! Provider-native deferral: the request's `tools` with the provider's search tool and
//! `defer_loading` on every definition not named core, checked against the documented shapes
//! (restated here from the provider reference, `provider-dialects.md` §A.2 and §A.3, and the
//! providers' tool-search guides), and refused where a dialect has no such search.
//!
//! A binary of its own: its skills join the link-time registry it reads
//! (`Dispatcher::from_inventory`), which the suites in `tests/it` must not see.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::search::NativeToolSearch;
use toolwright::{Dialect, DialectError, Dispatcher, SkillRegistration};

/// Convert an amount between two currencies.
#[skill(id = "fx.convert", domain = "finance", category = "query")]
fn convert(
    /// The amount.
    amount: f64,
    /// ISO code of the currency to convert from.
    from: String,
    /// ISO code of the currency to convert to.
    to: String,
) -> f64 {
    let _ = (from, to);
    amount
}

/// Look up the weather of a city.
#[skill(id = "weather.lookup", domain = "travel", category = "query")]
fn weather(
    /// The city.
    city: String,
) -> String {
    city
}

/// Show a text to the user.
#[skill(id = "ui.show", category = "ui")]
fn show(
    /// The text.
    text: String,
) -> String {
    text
}

/// Keys an Anthropic Messages tool definition may carry (§A.3).
const ANTHROPIC_KEYS: [&str; 9] = [
    "name",
    "description",
    "input_schema",
    "strict",
    "input_examples",
    "cache_control",
    "defer_loading",
    "eager_input_streaming",
    "type",
];

/// Keys an OpenAI Responses function tool may carry (§A.2).
const RESPONSES_KEYS: [&str; 8] = [
    "type",
    "name",
    "parameters",
    "strict",
    "description",
    "defer_loading",
    "allowed_callers",
    "output_schema",
];

fn skills() -> Vec<&'static SkillRegistration> {
    let d = Dispatcher::from_inventory().expect("registry is valid");
    let mut skills: Vec<_> = d
        .list_skills()
        .iter()
        .copied()
        .filter(|s| s.is_active())
        .collect();
    skills.sort_by_key(|s| s.id);
    skills
}

fn keys(def: &Value) -> BTreeSet<&str> {
    def.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// Asserts the documented shape: the search tool first, exactly as documented; then each
/// definition as rendered, `defer_loading: true` on all but the core ones.
fn assert_deferred(dialect: Dialect, search: NativeToolSearch, allowed: &[&str]) {
    let skills = skills();
    let defs = dialect.render_tools(&skills, &[]).unwrap();
    let tools = dialect
        .deferred_request_tools(&defs, &["ui_show"], search)
        .unwrap_or_else(|e| panic!("{dialect} {search}: {e}"));
    let tools = tools.as_array().unwrap();
    assert_eq!(tools.len(), defs.len() + 1);
    let expected_search = match search {
        NativeToolSearch::AnthropicRegex => {
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        }
        NativeToolSearch::AnthropicBm25 => {
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        }
        NativeToolSearch::OpenAi => json!({"type": "tool_search"}),
    };
    assert_eq!(
        tools[0], expected_search,
        "the search tool is never deferred"
    );
    for (def, rendered) in tools[1..].iter().zip(&defs) {
        let name = def["name"].as_str().unwrap();
        for key in keys(def) {
            assert!(
                allowed.contains(&key),
                "{dialect}: `{key}` of {name} is documented"
            );
        }
        let mut without = def.clone();
        let deferred = without.as_object_mut().unwrap().remove("defer_loading");
        assert_eq!(
            &without, rendered,
            "{name}: the definition itself is unchanged"
        );
        if name == "ui_show" {
            assert_eq!(deferred, None, "core tools stay loaded");
        } else {
            assert_eq!(deferred, Some(json!(true)), "{name} deferred");
        }
    }
}

#[test]
fn anthropic_defers_with_either_search_variant() {
    for dialect in [Dialect::Anthropic, Dialect::AnthropicStrict] {
        for search in [
            NativeToolSearch::AnthropicRegex,
            NativeToolSearch::AnthropicBm25,
        ] {
            assert_deferred(dialect, search, &ANTHROPIC_KEYS);
        }
    }
}

#[test]
fn openai_responses_defers_with_its_hosted_search() {
    assert_deferred(
        Dialect::Responses,
        NativeToolSearch::OpenAi,
        &RESPONSES_KEYS,
    );
}

#[test]
fn dialects_without_a_native_search_are_refused() {
    let skills = skills();
    for dialect in Dialect::ALL {
        let defs = dialect.render_tools(&skills, &[]).unwrap();
        for search in NativeToolSearch::ALL {
            let result = dialect.deferred_request_tools(&defs, &[], search);
            if search.fits(dialect) {
                assert!(result.is_ok(), "{dialect} {search}");
                continue;
            }
            let err = result.unwrap_err();
            assert!(
                matches!(err, DialectError::NativeSearch { .. }),
                "{dialect} {search}: {err}"
            );
            let text = err.to_string();
            assert!(
                text.contains("not available") && text.contains("use the"),
                "{text}"
            );
        }
    }
}

#[test]
fn foreign_or_clashing_definitions_are_refused_with_the_place() {
    let skills = skills();
    let chat = Dialect::OpenAi.render_tools(&skills, &[]).unwrap();
    let err = Dialect::Responses
        .deferred_request_tools(&chat, &[], NativeToolSearch::OpenAi)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("definition 0") && err.contains("responses"),
        "{err}"
    );

    let mut defs = Dialect::Anthropic.render_tools(&skills, &[]).unwrap();
    defs.push(defs[0].clone());
    let err = Dialect::Anthropic
        .deferred_request_tools(&defs, &[], NativeToolSearch::AnthropicBm25)
        .unwrap_err()
        .to_string();
    assert!(err.contains("defined twice"), "{err}");

    let clash = json!({"name": "tool_search_tool_regex", "input_schema": {"type": "object"}});
    let err = Dialect::Anthropic
        .deferred_request_tools(&[clash], &[], NativeToolSearch::AnthropicRegex)
        .unwrap_err()
        .to_string();
    assert!(err.contains("search tool's name"), "{err}");
}

#[test]
fn the_choice_is_named_and_never_implied() {
    for search in NativeToolSearch::ALL {
        assert_eq!(search.as_str().parse::<NativeToolSearch>().unwrap(), search);
    }
    let err = "bm25".parse::<NativeToolSearch>().unwrap_err().to_string();
    assert!(err.contains("anthropic-bm25"), "{err}");
    // Rendering a tool never defers it: only a request that asks does.
    for dialect in [Dialect::Anthropic, Dialect::Responses] {
        for def in dialect.render_tools(&skills(), &[]).unwrap() {
            assert!(def.get("defer_loading").is_none(), "{dialect}: {def}");
        }
    }
}
