//! A ReAct agent over your own skills, against any OpenAI-compatible Chat Completions server
//! (Ollama, vLLM, llama.cpp's server, OpenAI itself).
//!
//! ```text
//! # a local server, no key needed
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5 cargo run --example agent
//! # or OpenAI
//! OPENAI_API_KEY=... OPENAI_MODEL=gpt-4o-mini cargo run --example agent -- "How long is 'Ozymandias'?"
//! ```
//!
//! The model chooses which skills to call; their calls of one turn run concurrently, their
//! results go back to it, and its final text is the answer.

use toolwright::agent::{react_agent_loop, ChatMessage, OpenAiClient, OpenAiConfig, ReactOptions};
use toolwright::prelude::*;

/// How a text is built: words, lines and the longest word.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TextShape {
    /// Words in the text.
    pub words: usize,
    /// Lines in the text.
    pub lines: usize,
    /// The longest word.
    pub longest_word: String,
}

/// Measure a text: count its words and lines and find its longest word.
#[skill(id = "text.measure", category = "analysis")]
fn measure(
    /// The text to measure.
    text: String,
) -> TextShape {
    TextShape {
        words: text.split_whitespace().count(),
        lines: text.lines().count(),
        longest_word: text
            .split_whitespace()
            .max_by_key(|w| w.chars().count())
            .unwrap_or_default()
            .to_string(),
    }
}

/// Reverse the order of the words of a text.
#[skill(id = "text.reverse_words", category = "analysis")]
fn reverse_words(
    /// The text whose words to reverse.
    text: String,
) -> String {
    text.split_whitespace().rev().collect::<Vec<_>>().join(" ")
}

const POEM: &str = "I met a traveller from an antique land,\n\
Who said: Two vast and trunkless legs of stone\n\
Stand in the desert. Near them, on the sand,\n\
Half sunk a shattered visage lies";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    // OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY (optional for local servers).
    let model = OpenAiClient::new(OpenAiConfig::from_env())?;
    let dispatcher = Dispatcher::from_inventory()?;
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "How many words and lines does this text have?".into());
    let messages = vec![
        ChatMessage::system("Answer with the tools you are given; be brief."),
        ChatMessage::user(format!("{question}\n\n{POEM}")),
    ];
    let outcome = react_agent_loop(
        &model,
        &dispatcher,
        messages,
        &SkillContext::new(),
        &ReactOptions::default().max_iterations(4),
        // The final answer is plain text here; a reader may also parse JSON and refuse.
        |text: &str| Ok::<_, std::convert::Infallible>(text.trim().to_string()),
    )
    .await;
    for warning in &outcome.warnings {
        eprintln!("warning: {warning}");
    }
    println!(
        "tools used: {:?}",
        outcome.skill_context.keys().collect::<Vec<_>>()
    );
    match outcome.answer {
        Some(answer) => println!("{answer}"),
        None => return Err(format!("no answer ({:?})", outcome.stop_reason).into()),
    }
    Ok(())
}
