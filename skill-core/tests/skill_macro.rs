//! The `#[skill]` macro end to end: generated input struct, schema, registration, typed
//! marker and calls through the dispatcher.
//!
//! A binary of its own: its skills join the link-time registry, which it reads and compares
//! with the generated registrations.

use serde_json::{json, Value};
use toolwright::prelude::*;
use toolwright::{codes, CallArgs, Dispatcher, Skill, ToolFilter};

/// Reference passages the host makes available.
#[derive(Debug)]
pub struct ReferenceDocs {
    passages: Vec<(String, String)>,
}

/// The clause the host is reviewing.
#[derive(Debug)]
pub struct CurrentClause(String);

/// Hits of a search.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SearchHits {
    /// The clause searched for.
    pub clause_id: String,
    /// The query used.
    pub query: String,
    /// Matching passage ids, best first.
    pub hits: Vec<String>,
}

fn query_from_clause(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<CurrentClause>()
        .map(|c| c.0.clone())
        .ok_or_else(|| SkillError::not_found("no current clause"))
}

/// Search the reference documents for passages relevant to a clause.
///
/// Passages are matched on every query word; the longer help stays in `long_help`.
#[skill(id = "search_reference_doc", domain = "*", category = "retrieval")]
pub async fn search_reference_doc(
    /// Clause number to search for, for example "4.1".
    clause_id: String,
    /// Free-text query; prepared from the clause text when the model leaves it out.
    #[arg(prepare = query_from_clause)]
    query: String,
    /// How many passages to return.
    #[arg(default = 5)]
    top_k: u32,
    docs: Inject<ReferenceDocs>,
) -> Result<SearchHits, SkillError> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let hits = docs
        .passages
        .iter()
        .filter(|(_, text)| words.iter().any(|w| text.to_lowercase().contains(w)))
        .take(top_k as usize)
        .map(|(id, _)| id.clone())
        .collect();
    Ok(SearchHits {
        clause_id,
        query,
        hits,
    })
}

/// Fails on purpose, to test error paths.
#[skill(id = "test.explode", category = "query")]
fn explode(
    /// What to do: "panic", "error" or "sleep".
    mode: String,
) -> Result<String, SkillError> {
    match mode.as_str() {
        "panic" => panic!("boom in skill"),
        "error" => Err(SkillError::new("custom_code", "it failed")
            .with_source(std::io::Error::other("disk on fire"))),
        _ => Ok(mode),
    }
}

/// Sleeps longer than its time limit.
#[skill(id = "test.slow", timeout_ms = 20)]
async fn slow(
    /// Milliseconds to sleep.
    ms: u64,
) -> u64 {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

fn ctx() -> SkillContext {
    SkillContext::new()
        .with(ReferenceDocs {
            passages: vec![
                ("p1".into(), "The Contractor shall design the Works".into()),
                ("p2".into(), "Payment within 56 days".into()),
                ("p3".into(), "The Works shall be fit for purpose".into()),
            ],
        })
        .with(CurrentClause("payment".into()))
}

fn dispatcher() -> Dispatcher {
    Dispatcher::from_inventory().expect("registry is valid")
}

#[test]
fn generated_input_struct_is_usable_by_hand() {
    let input: SearchReferenceDocInput =
        serde_json::from_value(json!({"clause_id": "4.1", "query": "works"})).unwrap();
    assert_eq!(
        input.top_k, 5,
        "declared default applies when deserializing by hand"
    );
    let back = serde_json::to_value(&input).unwrap();
    assert_eq!(
        back,
        json!({"clause_id": "4.1", "query": "works", "top_k": 5})
    );
}

#[test]
fn registration_carries_docs_and_metadata() {
    let reg = SearchReferenceDoc::registration();
    assert_eq!(reg.id, "search_reference_doc");
    assert_eq!(
        reg.description,
        "Search the reference documents for passages relevant to a clause."
    );
    assert!(reg.long_help.contains("long_help"));
    assert_eq!(reg.category, "retrieval");
    assert_eq!(
        reg.params.len(),
        3,
        "the injected parameter is not an argument"
    );
    let query = reg.param("query").unwrap();
    assert!(query.prepared && !query.required);
    assert!(reg.param("top_k").unwrap().has_default);
    assert!(reg.param("clause_id").unwrap().required);
    assert!(reg.source.file.ends_with("skill_macro.rs"));
    assert!(
        reg.source.line > 30,
        "line of the fn, got {}",
        reg.source.line
    );
}

#[test]
fn tool_definition_has_spec_shape_without_injected_values() {
    let def = SearchReferenceDoc::registration().to_tool_definition();
    assert_eq!(def["type"], "function");
    assert_eq!(def["function"]["name"], "search_reference_doc");
    let params = &def["function"]["parameters"];
    assert_eq!(params["type"], "object");
    let props = params["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["clause_id", "query", "top_k"]
    );
    assert_eq!(params["required"], json!(["clause_id"]));
    assert_eq!(props["top_k"]["default"], 5);
    assert_eq!(
        props["clause_id"]["description"],
        "Clause number to search for, for example \"4.1\"."
    );
    assert!(
        props["top_k"].get("format").is_none(),
        "Rust numeric formats are stripped"
    );
}

#[tokio::test]
async fn prepare_and_call_prefers_llm_over_prepared_over_default() {
    let d = dispatcher();
    let ctx = ctx();
    let r = d
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"clause_id": "4.1"})),
        )
        .await;
    assert!(r.success, "{r:?}");
    let hits: SearchHits = r.data_as().unwrap();
    assert_eq!(hits.query, "payment", "prepared from the context");
    assert_eq!(hits.hits, ["p2"]);

    let r = d
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"clause_id": "4.1", "query": "works", "top_k": 1})),
        )
        .await;
    let hits: SearchHits = r.data_as().unwrap();
    assert_eq!(hits.query, "works", "the model's value wins");
    assert_eq!(hits.hits, ["p1"], "top_k from the model");
}

#[tokio::test]
async fn call_unprepared_does_not_prepare_from_state() {
    let r = dispatcher()
        .call_unprepared("search_reference_doc", r#"{"clause_id": "4.1"}"#, &ctx())
        .await;
    assert!(!r.success);
    assert_eq!(r.error_code(), Some(codes::INVALID_ARGUMENTS));
    assert!(r.error.unwrap().message.contains("`query`"));
}

#[tokio::test]
async fn call_prepares_what_the_model_left_out() {
    let r = dispatcher()
        .call("search_reference_doc", r#"{"clause_id": "4.1"}"#, &ctx())
        .await;
    assert!(r.success, "{}", r.to_json());
    let hits: SearchHits = r.data_as().unwrap();
    assert_eq!(
        hits.query, "payment",
        "prepared from the context, as `prepare_and_call` does"
    );
    assert_eq!(hits.hits, ["p2"]);
}

#[tokio::test]
async fn prepare_failure_without_default_is_reported() {
    let ctx = SkillContext::new().with(ReferenceDocs { passages: vec![] });
    let r = dispatcher()
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"clause_id": "4.1"})),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::PREPARE_FAILED));
    let msg = r.error.unwrap().message;
    assert!(
        msg.contains("query") && msg.contains("no current clause"),
        "{msg}"
    );
}

#[tokio::test]
async fn missing_injection_names_skill_and_type() {
    let ctx = SkillContext::new().with(CurrentClause("x".into()));
    let r = dispatcher()
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"clause_id": "4.1"})),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::MISSING_INJECTION));
    let error = r.error.unwrap();
    // The model reads which tool cannot run; the operator reads which type is missing.
    assert!(
        error.message.contains("search_reference_doc"),
        "{}",
        error.message
    );
    assert!(
        !error.message.contains("ReferenceDocs"),
        "{}",
        error.message
    );
    let details = error.details.unwrap();
    assert!(details["type"].as_str().unwrap().contains("ReferenceDocs"));
}

#[tokio::test]
async fn wrong_argument_type_names_the_path() {
    let r = dispatcher()
        .call(
            "search_reference_doc",
            r#"{"clause_id": "4.1", "query": "x", "top_k": "many"}"#,
            &ctx(),
        )
        .await;
    let problems = r.outcome().expect("a typed outcome").problems();
    assert_eq!(problems[0].path, "$.top_k");
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(
        wire["error"]["details"]["path"], "$.top_k",
        "the wire keeps the path"
    );
    let err = r.error.unwrap();
    assert_eq!(err.code, codes::INVALID_ARGUMENTS);
    assert!(err.message.contains("`top_k`"), "{}", err.message);
}

#[tokio::test]
async fn panics_errors_timeouts_and_unknown_skills_become_results() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let r = d.call("test.explode", r#"{"mode": "panic"}"#, &ctx).await;
    assert_eq!(r.error_code(), Some(codes::PANIC));
    let err = r.error.as_ref().unwrap();
    assert!(
        !err.message.contains("boom"),
        "panic payload is operator detail: {}",
        err.message
    );
    assert_eq!(err.details.as_ref().unwrap()["panic"], "boom in skill");
    assert!(!r.to_model_json().contains("boom"));

    let r = d.call("test.explode", r#"{"mode": "error"}"#, &ctx).await;
    assert_eq!(r.error_code(), Some("custom_code"));
    assert_eq!(
        r.error.as_ref().unwrap().details.as_ref().unwrap()["source_chain"][0],
        "disk on fire"
    );
    assert!(!r.to_model_json().contains("disk on fire"));

    let r = d.call("test_explode", r#"{"mode": "ok"}"#, &ctx).await;
    assert!(r.success, "wire name maps back to the id");
    assert_eq!(r.skill_id, "test.explode");

    let r = d.call("test.slow", r#"{"ms": 500}"#, &ctx).await;
    assert_eq!(r.error_code(), Some(codes::TIMEOUT));
    assert_eq!(
        r.outcome(),
        Some(&toolwright::Outcome::TimedOut { limit_ms: 20 }),
        "the time-out is typed"
    );
    let wire: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(
        wire["error"]["details"]["timeout_ms"], 20,
        "and on the wire as before"
    );
    let r = d.call("test.slow", r#"{"ms": 1}"#, &ctx).await;
    assert!(r.success);

    let r = d.call("no_such_tool", CallArgs::None, &ctx).await;
    assert_eq!(r.error_code(), Some(codes::UNKNOWN_SKILL));
    assert!(
        r.error.unwrap().message.contains("search_reference_doc"),
        "lists available tools"
    );
}

#[tokio::test]
async fn typed_calls_need_no_json() {
    let ctx = ctx();
    let input = SearchReferenceDoc::prepare_input(&ctx, Some(&json!({"clause_id": "1"}))).unwrap();
    assert_eq!(input.query, "payment");
    let out = SearchReferenceDoc::run(input, &ctx).await.unwrap();
    assert_eq!(out.hits, ["p2"]);
    let _: Value = serde_json::to_value(&out).unwrap();
}

/// Replaced by `search_reference_doc`; kept for existing callers.
#[skill(id = "old_search", status = "deprecated", version = "0.9.0")]
fn old_search(
    /// Query.
    query: String,
) -> String {
    query
}

#[tokio::test]
async fn deprecated_skills_are_callable_but_not_offered() {
    let d = dispatcher();
    let offered = d.tools(&ToolFilter::all());
    assert!(!offered
        .iter()
        .any(|t| t["function"]["name"] == "old_search"));
    let r = d
        .call("old_search", r#"{"query": "q"}"#, &SkillContext::new())
        .await;
    assert!(r.success);
    assert_eq!(d.registration("old_search").unwrap().version, "0.9.0");
}

#[tokio::test]
async fn value_arguments_and_prepare_scope() {
    let d = dispatcher();
    let args = json!({"clause_id": "9.9", "query": "works", "top_k": 1});
    let r = d.call("search_reference_doc", &args, &ctx()).await;
    let hits: SearchHits = r.data_as().unwrap();
    assert_eq!(
        hits.hits,
        ["p1"],
        "two passages match; top_k from a Value argument keeps one"
    );
    let scope = toolwright::PrepareScope::new("x", CallArgs::Value(&args));
    assert_eq!(scope.str_argument("clause_id").as_deref(), Some("9.9"));
    assert_eq!(scope.str_argument("top_k").as_deref(), Some("1"));
    assert!(scope.argument("missing").is_none());
}

/// Deletes a note.
#[skill(
    id = "test.delete_note",
    category = "delete",
    confirm = "Delete note {note_id} ({reason})"
)]
fn delete_note(
    /// Id of the note.
    note_id: u32,
    /// Why it goes.
    reason: Option<String>,
) -> u32 {
    let _ = reason;
    note_id
}

#[test]
fn confirmation_sentence_is_the_authors_with_arguments_filled_in() {
    let reg = <DeleteNote as Skill>::registration();
    assert_eq!(
        reg.confirm_summary,
        Some("Delete note {note_id} ({reason})")
    );
    assert!(reg.needs_confirmation());
    assert_eq!(
        reg.confirmation_summary(&json!({"note_id": 7, "reason": "stale"}))
            .as_deref(),
        Some("Delete note 7 (stale)")
    );
    assert_eq!(
        reg.confirmation_summary(&json!({"note_id": 7})).as_deref(),
        Some("Delete note 7 (?)")
    );
    let search = <SearchReferenceDoc as Skill>::registration();
    assert_eq!(search.confirmation_summary(&json!({})), None);
}

#[tokio::test]
async fn missing_injection_suggests_with_arc_for_an_arc_in_the_context() {
    let ctx = SkillContext::new()
        .with(std::sync::Arc::new(ReferenceDocs { passages: vec![] }))
        .with(CurrentClause("x".into()));
    let r = dispatcher()
        .prepare_and_call(
            "search_reference_doc",
            &ctx,
            Some(&json!({"clause_id": "4.1"})),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::MISSING_INJECTION));
    let details = r.error.unwrap().details.unwrap();
    assert!(details["hint"].as_str().unwrap().contains("with_arc"));
}

#[tokio::test]
async fn a_pending_confirmation_carries_the_authors_sentence() {
    let d = Dispatcher::builder()
        .skill(<DeleteNote as Skill>::registration())
        .build()
        .unwrap();
    let r = d
        .call(
            "test.delete_note",
            r#"{"note_id": 7, "reason": "stale"}"#,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.error_code(), Some(codes::CONFIRMATION_REQUIRED));
    let pending = r.pending_confirmation().expect("a pending confirmation");
    assert_eq!(pending.summary, "Delete note 7 (stale)");
    assert_eq!(
        d.pending_confirmations()[0].summary,
        "Delete note 7 (stale)"
    );
}

/// Echo a word (a tool one host offers in one place only).
#[skill(id = "test.unlisted_echo", register = false)]
fn unlisted_echo(
    /// The word.
    word: String,
) -> String {
    word
}

#[tokio::test]
async fn a_skill_with_register_false_is_only_where_a_host_adds_it() {
    let linked = Dispatcher::from_inventory().expect("registry is valid");
    assert!(linked.registration("test.unlisted_echo").is_none());
    assert!(linked.registration("test.delete_note").is_some());
    let d = Dispatcher::builder()
        .skill(<UnlistedEcho as Skill>::registration())
        .build()
        .unwrap();
    let r = d
        .call(
            "test.unlisted_echo",
            r#"{"word": "hi"}"#,
            &SkillContext::new(),
        )
        .await;
    assert_eq!(r.data_value(), json!("hi"));
}
