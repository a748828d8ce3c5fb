//! The lenient argument parser against every registered skill's catalog.
//!
//! Input: byte 0 picks the skill (and whether it is named by id or wire name), the rest is
//! the argument text as a model would send it. Beyond "no panic", each run checks:
//! - every warning and error names a path that exists in the input or in the skill's schema;
//! - arguments that needed no fix come back unchanged;
//! - parsing is a fixed point: the parsed arguments parse again with no error, no warning
//!   and the same value;
//! - the size and depth limits refuse exactly the texts over them, before parsing;
//! - no message carries a Rust path or a panic.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwright::args::{parse_arguments, ArgumentParse};
use toolwright::limits::{ArgumentLimits, LimitError};
use toolwright::{CallArgs, Dispatcher};

toolwright::link_skills!(clausewright_skills, toolwright_packs);

/// Small limits so that the fuzzer reaches them.
const LIMITS: ArgumentLimits = ArgumentLimits {
    max_bytes: 4096,
    max_depth: 6,
};

fn dispatcher() -> &'static Dispatcher {
    static DISPATCHER: OnceLock<Dispatcher> = OnceLock::new();
    DISPATCHER.get_or_init(|| {
        let dispatcher = Dispatcher::builder()
            .with_inventory()
            .argument_limits(LIMITS)
            .build()
            .expect("the registered skills form a valid registry");
        assert!(
            dispatcher.len() >= 16,
            "clausewright-skills is linked: {} skills",
            dispatcher.len()
        );
        dispatcher
    })
}

fn check_paths(parse: &ArgumentParse, input: Option<&Value>, tool: &str) {
    let descriptor = dispatcher().catalog().get(tool).expect("known tool");
    let tree = &descriptor.shape;
    let places = parse
        .errors
        .iter()
        .map(|e| (&e.code, &e.path, &e.message))
        .chain(
            parse
                .warnings
                .iter()
                .map(|w| (&w.code, &w.path, &w.message)),
        );
    for (code, path, message) in places {
        let steps = common::parse_path(path)
            .unwrap_or_else(|| panic!("`{code}` names `{path}`, which is not a JSON path"));
        let found = input.is_some_and(|v| common::in_value(v, &steps))
            || common::in_shape(tree, &tree.root, &steps, 64);
        assert!(
            found,
            "`{code}` at `{path}` ({message}) names a place in neither the input nor the schema of `{tool}`"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let dispatcher = dispatcher();
    let tools = dispatcher.catalog().tools();
    let tool = &tools[usize::from(pick >> 1) % tools.len()];
    let name = if pick & 1 == 0 {
        tool.id
    } else {
        tool.wire_name
    };

    // The limits: refused before parsing exactly when over them.
    let limited = dispatcher.parse_arguments(name, text);
    let input: Option<Value> = serde_json::from_str(text).ok();
    match LIMITS.check_text(text) {
        Err(LimitError::TooLarge { .. }) => {
            assert!(text.len() > LIMITS.max_bytes);
            assert_eq!(limited.errors.len(), 1);
            assert_eq!(limited.errors[0].code, "arguments_too_large");
            return;
        }
        Err(LimitError::TooDeep { .. }) => {
            if let Some(value) = &input {
                // For valid JSON the bracket count is the value's depth.
                assert!(
                    common::depth(value) > LIMITS.max_depth,
                    "refused a shallow value"
                );
            }
            assert_eq!(limited.errors.len(), 1);
            assert_eq!(limited.errors[0].code, "arguments_too_deep");
            return;
        }
        Ok(()) => {
            if let Some(value) = &input {
                assert!(
                    common::depth(value) <= LIMITS.max_depth,
                    "let a deep value through"
                );
            }
        }
    }

    let parse = parse_arguments(dispatcher.catalog(), name, CallArgs::Text(text));
    assert_eq!(parse.skill_id, Some(tool.id));
    assert_eq!(
        parse.errors, limited.errors,
        "the dispatcher parses as the catalog does"
    );
    assert_eq!(parse.warnings, limited.warnings);
    assert!(
        parse.arguments.is_object(),
        "parsed arguments are an object"
    );
    check_paths(&parse, input.as_ref(), name);
    for message in parse
        .errors
        .iter()
        .map(|e| &e.message)
        .chain(parse.warnings.iter().map(|w| &w.message))
    {
        common::assert_no_internals(message, text);
    }

    if !parse.errors.is_empty() {
        return;
    }
    if parse.warnings.is_empty() {
        if let Some(value @ Value::Object(_)) = &input {
            assert_eq!(
                &parse.arguments, value,
                "arguments that needed no fix come back unchanged"
            );
        }
    }
    // A fixed point: what the parser returns is accepted as it is.
    let again = parse_arguments(
        dispatcher.catalog(),
        name,
        CallArgs::Value(&parse.arguments),
    );
    assert!(
        again.errors.is_empty(),
        "parsed arguments are refused on a second reading: {:?} (first warnings {:?}, arguments {})",
        again.errors,
        parse.warnings,
        parse.arguments
    );
    assert!(
        again.warnings.is_empty(),
        "parsed arguments need a fix on a second reading: {:?} (arguments {})",
        again.warnings,
        parse.arguments
    );
    assert_eq!(again.arguments, parse.arguments);
});
