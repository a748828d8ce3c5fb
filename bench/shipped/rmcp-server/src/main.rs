//! One trivial tool (`count_words`) served over stdio by rmcp's own router, on the
//! multi-threaded runtime `#[tokio::main]` gives, as rmcp's example servers do and as
//! `clausewright serve` runs: the round trip rmcp gives a tool with no work in it.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{schemars, tool, tool_router, ServiceExt};

/// The tool's arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct CountWords {
    /// The text whose words are counted.
    text: String,
}

/// A server with one tool.
#[derive(Debug, Clone, Default)]
struct WordCounter;

#[tool_router(server_handler)]
impl WordCounter {
    /// Counts the whitespace-separated words of a text.
    #[tool(description = "Count the words of a text")]
    fn count_words(&self, Parameters(CountWords { text }): Parameters<CountWords>) -> String {
        text.split_whitespace().count().to_string()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = WordCounter.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
