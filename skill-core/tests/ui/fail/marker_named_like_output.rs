use toolwright::prelude::*;

/// How often words occur in a text.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WordStats {
    /// Number of words.
    pub words: usize,
}

/// Counts the words of a text.
#[skill(id = "text.word_stats")]
fn word_stats(
    /// The text.
    text: String,
) -> WordStats {
    WordStats {
        words: text.split_whitespace().count(),
    }
}

fn main() {}
