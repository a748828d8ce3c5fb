//! Deferred tools in the ReAct loop: a scripted model starts with a core set and
//! `search_tools`, searches, finds and calls a deferred tool; the set sent only grows at its
//! end.

use serde_json::{json, Value};
use toolwright::agent::{
    react_agent_loop, ChatMessage, DeferredTools, LlmResponse, ReactOptions, ScriptedClient,
    StopReason,
};
use toolwright::prelude::*;
use toolwright::search::tool::SEARCH_TOOLS;
use toolwright::search::ToolSearch;
use toolwright::{Skill, ToolCall};

/// Say hello.
#[skill(id = "greet", category = "query")]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("hello {name}")
}

/// Convert an amount of money from one currency to another at a fixed rate.
#[skill(id = "convert_currency", category = "query")]
fn convert_currency(
    /// The amount to convert.
    amount: f64,
    /// ISO code of the currency converted from, e.g. USD.
    from: String,
    /// ISO code of the currency converted to, e.g. EUR.
    to: String,
) -> Value {
    json!({"amount": amount * 0.5, "from": from, "to": to})
}

/// Get the weather forecast for a city.
#[skill(id = "weather_forecast", category = "query")]
fn weather_forecast(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Convert currencies for the finance desk only.
#[skill(
    id = "finance.convert_currency_desk",
    domain = "finance",
    category = "query"
)]
fn convert_currency_desk(
    /// The amount of money.
    amount: f64,
) -> f64 {
    amount
}

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skill(Greet::registration())
        .skill(ConvertCurrency::registration())
        .skill(WeatherForecast::registration())
        .skill(ConvertCurrencyDesk::registration())
        .build()
        .expect("valid registry")
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

fn calls(calls: Vec<ToolCall>) -> LlmResponse {
    LlmResponse {
        tool_calls: calls,
        ..LlmResponse::default()
    }
}

fn answer(text: &str) -> LlmResponse {
    LlmResponse {
        text: text.into(),
        ..LlmResponse::default()
    }
}

fn options(dispatcher: &Dispatcher) -> ReactOptions {
    ReactOptions::default()
        .tool_filter(ToolFilter::all().domain("general"))
        .deferred_tools(DeferredTools::new(ToolSearch::new(dispatcher), ["greet"]).per_search(2))
}

async fn run(
    model: &ScriptedClient,
    dispatcher: &Dispatcher,
    options: &ReactOptions,
) -> toolwright::agent::ReactOutcome<String> {
    let messages = vec![
        ChatMessage::system("test"),
        ChatMessage::user("convert 10 USD to EUR"),
    ];
    react_agent_loop(
        model,
        dispatcher,
        messages,
        &SkillContext::new(),
        options,
        |t| Ok::<_, String>(t.to_string()),
    )
    .await
}

#[tokio::test]
async fn the_model_searches_finds_and_calls_a_deferred_tool() {
    let dispatcher = dispatcher();
    let model = ScriptedClient::from_responses([
        calls(vec![call(
            "c1",
            SEARCH_TOOLS,
            json!({"query": "convert an amount of money between currencies"}),
        )]),
        calls(vec![call(
            "c2",
            "convert_currency",
            json!({"amount": 10, "from": "USD", "to": "EUR"}),
        )]),
        answer("5 EUR"),
    ]);
    let outcome = run(&model, &dispatcher, &options(&dispatcher)).await;
    assert_eq!(
        outcome.stop_reason,
        StopReason::FinalAnswer,
        "{:?}",
        outcome.warnings
    );
    assert_eq!(outcome.answer.as_deref(), Some("5 EUR"));

    let requests = model.requests();
    assert_eq!(requests[0].tool_names, ["greet", SEARCH_TOOLS]);
    // The found tool is appended; what was sent before keeps its place.
    let second = &requests[1].tool_names;
    assert_eq!(&second[..2], &requests[0].tool_names[..]);
    assert_eq!(second[2], "convert_currency");
    assert!(
        !second.iter().any(|n| n.contains("desk")),
        "a tool outside the filter is never loaded: {second:?}"
    );
    assert_eq!(outcome.loaded_tools[0], "convert_currency");
    assert_eq!(&requests[2].tool_names[..second.len()], &second[..]);

    // The search answered with the tools found; the deferred tool then ran.
    let runs: Vec<(&str, bool)> = outcome
        .tool_runs
        .iter()
        .map(|r| (r.skill_id.as_str(), r.success))
        .collect();
    assert_eq!(runs, [(SEARCH_TOOLS, true), ("convert_currency", true)]);
    assert_eq!(
        outcome.skill_context["convert_currency"],
        json!({"amount": 5.0, "from": "USD", "to": "EUR"})
    );
    assert!(
        !outcome.skill_context.contains_key(SEARCH_TOOLS),
        "search results are not skill output"
    );
    let search_result = outcome
        .final_messages
        .iter()
        .find_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
                ..
            } if tool_call_id == "c1" => Some(content.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        search_result.contains("convert_currency"),
        "{search_result}"
    );
}

#[tokio::test]
async fn a_deferred_tool_cannot_be_called_before_it_is_found() {
    let dispatcher = dispatcher();
    let model = ScriptedClient::from_responses([
        calls(vec![call(
            "c1",
            "weather_forecast",
            json!({"city": "Oslo"}),
        )]),
        calls(vec![call("c2", SEARCH_TOOLS, json!({}))]),
        answer("done"),
    ]);
    let outcome = run(&model, &dispatcher, &options(&dispatcher)).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    let runs: Vec<(&str, bool)> = outcome
        .tool_runs
        .iter()
        .map(|r| (r.skill_id.as_str(), r.success))
        .collect();
    // Not loaded yet: unknown to the model. A search without a query is an error it reads.
    assert_eq!(runs, [("weather_forecast", false), (SEARCH_TOOLS, false)]);
    assert!(outcome.loaded_tools.is_empty());
    let requests = model.requests();
    assert_eq!(requests[2].tool_names, ["greet", SEARCH_TOOLS]);
}

#[tokio::test]
async fn without_the_option_every_tool_is_sent() {
    let dispatcher = dispatcher();
    let model = ScriptedClient::from_responses([answer("done")]);
    let options = ReactOptions::default().tool_filter(ToolFilter::all().domain("general"));
    let outcome = run(&model, &dispatcher, &options).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        model.requests()[0].tool_names,
        ["convert_currency", "greet", "weather_forecast"]
    );
}

#[test]
fn tool_search_ranks_a_dispatcher_s_skills_under_a_filter() {
    let dispatcher = dispatcher();
    let search = ToolSearch::new(&dispatcher);
    let ids = |filter: &ToolFilter| -> Vec<&str> {
        search
            .search("convert currency", filter, 10)
            .iter()
            .map(|h| h.skill.id)
            .collect()
    };
    let finance = ids(&ToolFilter::all().domain("finance"));
    assert!(
        finance.contains(&"convert_currency") && finance.contains(&"finance.convert_currency_desk"),
        "{finance:?}"
    );
    assert_eq!(
        ids(&ToolFilter::all().domain("general")),
        ["convert_currency"]
    );
    assert_eq!(
        ids(&ToolFilter::all().ids(["finance.convert_currency_desk"])),
        ["finance.convert_currency_desk"]
    );
    assert!(ids(&ToolFilter::all().category("nothing")).is_empty());
    assert_eq!(search.index().len(), dispatcher.len());
}
