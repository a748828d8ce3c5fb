//! Snapshots of every dialect for the example skills: any change to what providers receive
//! shows up as a reviewed diff.

#[path = "../common/dialect_examples.rs"]
mod examples;

use serde_json::Value;
use toolwright::{Dialect, Dispatcher, ToolFilter};

fn dispatcher() -> Dispatcher {
    Dispatcher::builder()
        .skills(examples::example_registrations())
        .build()
        .expect("examples register")
}

fn rendered(dialect: Dialect, filter: &ToolFilter) -> Value {
    let set = dispatcher().tools_in(dialect, filter).expect("renders");
    dialect.request_tools(set.definitions())
}

#[test]
fn openai_chat() {
    insta::assert_json_snapshot!(rendered(Dialect::OpenAi, &ToolFilter::all()));
}

#[test]
fn openai_strict() {
    insta::assert_json_snapshot!(rendered(Dialect::OpenAiStrict, &ToolFilter::all()));
}

#[test]
fn responses() {
    insta::assert_json_snapshot!(rendered(Dialect::Responses, &ToolFilter::all()));
}

#[test]
fn anthropic() {
    insta::assert_json_snapshot!(rendered(Dialect::Anthropic, &ToolFilter::all()));
}

#[test]
fn anthropic_strict_without_recursive_tools() {
    insta::assert_json_snapshot!(rendered(
        Dialect::AnthropicStrict,
        &ToolFilter::all().domain("crm")
    ));
}

#[test]
fn gemini() {
    insta::assert_json_snapshot!(rendered(Dialect::Gemini, &ToolFilter::all()));
}

#[test]
fn gemini_json_schema() {
    insta::assert_json_snapshot!(rendered(Dialect::GeminiJsonSchema, &ToolFilter::all()));
}

#[test]
fn mcp() {
    insta::assert_json_snapshot!(rendered(Dialect::Mcp, &ToolFilter::all()));
}
