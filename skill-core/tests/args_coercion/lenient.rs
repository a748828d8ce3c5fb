//! The dispatcher's lenient path: fixable errors fixed and reported.

use super::*;

/// Serializes the tests that count runs of `crm.search_client` (the counter is global).
static SEARCH_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn well_typed_calls_take_the_fast_path_without_warnings() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit", "limit": 1}"#,
            &SkillContext::new(),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    assert!(r.warnings.is_empty());
    assert_eq!(r.data_value()["total"], 1);
}

#[tokio::test]
async fn coerced_calls_run_once_and_carry_warnings() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let before = examples::SEARCH_RUNS.load(Ordering::SeqCst);
    let r = d
        .call(
            "crm_search_client",
            r#"{"keyword": "cit", "limit": "1", "include_archived": "yes", "status": "ACTIVE"}"#,
            &SkillContext::new(),
        )
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(
        examples::SEARCH_RUNS.load(Ordering::SeqCst) - before,
        1,
        "the body ran exactly once"
    );
    let codes: Vec<&str> = r.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(
        codes,
        ["string_to_boolean", "string_to_integer", "enum_normalized"]
    );
    assert_eq!(r.data_value()["items"][0]["name"], "CITIC Press");
    assert!(
        r.to_json().contains("string_to_integer"),
        "warnings travel with the result"
    );
}

#[tokio::test]
async fn unusable_arguments_return_a_retry_message_and_do_not_run() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let before = examples::SEARCH_RUNS.load(Ordering::SeqCst);
    let r = d
        .call(
            "crm.search_client",
            r#"{"limit": "many", "include_archived": "perhaps"}"#,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(
        examples::SEARCH_RUNS.load(Ordering::SeqCst),
        before,
        "not executed"
    );
    let err = r.error.as_ref().unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    let msg = &err.message;
    assert!(
        msg.starts_with("3 problems with the arguments of `crm_search_client`"),
        "{msg}"
    );
    assert!(msg.contains("- `include_archived` (at $.include_archived): expected boolean, got string \"perhaps\""), "{msg}");
    assert!(
        msg.contains("- `keyword` (at $.keyword): expected string, got nothing"),
        "{msg}"
    );
    assert!(
        msg.contains("- `limit` (at $.limit): expected integer, got string \"many\""),
        "{msg}"
    );
    assert!(
        msg.ends_with("Correct these arguments and call `crm_search_client` again."),
        "{msg}"
    );
    let problems = r.outcome().expect("a typed outcome").problems();
    assert_eq!(problems.len(), 3);
    assert_eq!(problems[0].raw, "perhaps");
    // On the wire the problems stay where JSON consumers read them.
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let errors = wire["error"]["details"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0]["raw"], "perhaps");
    assert_eq!(wire["error"]["details"]["path"], problems[0].path.as_str());
    assert!(r.to_model_json().contains("Correct these arguments"));
}

#[tokio::test]
async fn negative_values_for_unsigned_parameters_are_listed_for_the_model() {
    let _serial = SEARCH_LOCK.lock().await;
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit", "limit": "-3"}"#,
            &SkillContext::new(),
        )
        .await;
    let err = r.error.unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    assert!(
        err.message
            .contains("- `limit` (at $.limit): expected integer >= 0, got number -3"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn invalid_json_is_answered_with_a_fixable_error() {
    let d = dispatcher();
    let r = d
        .call(
            "crm.search_client",
            r#"{"keyword": "cit""#,
            &SkillContext::new(),
        )
        .await;
    let err = r.error.unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    assert!(
        err.message.contains("$: expected JSON object"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn nested_strict_mode_nulls_are_read_as_absent() {
    let d = dispatcher();
    let args = json!({"outline": {"title": "A", "children": [{"title": "B", "children": null}]}});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.data_as::<usize>().unwrap(), 2);
    assert_eq!(r.warnings[0].code, "null_as_absent");
    assert_eq!(r.warnings[0].path, "$.outline.children[0].children");
}

#[tokio::test]
async fn json_text_for_an_object_is_decoded_and_validated() {
    let d = dispatcher();
    let args = json!({"outline": "{\"title\": \"A\", \"children\": [{\"title\": \"B\"}]}"});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.data_as::<usize>().unwrap(), 2);
    let args = json!({"outline": "{\"name\": \"A\"}"});
    let r = d
        .call("doc.outline_size", &args, &SkillContext::new())
        .await;
    assert_eq!(r.error_code(), Some(codes::INVALID_ARGUMENTS));
}
