//! The README's quickstart as a program: one documented fn becomes a tool a model can read
//! and call.
//!
//! ```text
//! cargo run --example quickstart
//! ```

use toolwright::prelude::*;

/// How often words occur in a text.
#[skill_data]
#[derive(Debug)]
pub struct WordStats {
    /// Number of words counted.
    pub words: usize,
    /// The longest word.
    pub longest: String,
    /// One line for the model.
    pub summary: String,
}

/// Count the words of a text and find the longest one.
///
/// Words shorter than `min_len` characters are ignored.
#[skill(id = "text.word_stats", category = "stats")]
async fn count_words(
    /// The text to analyse.
    text: String,
    /// Ignore words shorter than this many characters.
    #[arg(default = 1)]
    min_len: usize,
) -> Result<WordStats, SkillError> {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().count() >= min_len)
        .collect();
    let longest = words
        .iter()
        .max_by_key(|w| w.chars().count())
        .copied()
        .unwrap_or("");
    Ok(WordStats {
        words: words.len(),
        longest: longest.to_string(),
        summary: format!("{} words, longest `{longest}`", words.len()),
    })
}

#[tokio::main]
async fn main() {
    let dispatcher = Dispatcher::from_inventory().expect("valid registry");

    // What the model sees (OpenAI function-tool shape; `.` in ids goes on the wire as `_`).
    let tools = dispatcher.tools(&ToolFilter::all());
    assert_eq!(tools[0]["function"]["name"], "text_word_stats");
    assert_eq!(tools[0]["function"]["parameters"]["required"][0], "text");

    // What the model asked for, as it arrives: a name and JSON text.
    let args = r#"{"text": "one three eleven"}"#;
    let result = dispatcher
        .call("text_word_stats", args, &SkillContext::new())
        .await;
    let stats: WordStats = result.data_as().unwrap();
    assert_eq!(stats.longest, "eleven");

    // Bad arguments become an error the model can fix, never a crash.
    let bad = r#"{"min_len": "x"}"#;
    let result = dispatcher
        .call("text.word_stats", bad, &SkillContext::new())
        .await;
    assert_eq!(result.error_code(), Some("invalid_arguments"));
    println!("longest word: {}", stats.longest);
}
