//! Contract-review skills for skillkit.

/// Count the words of a text.
#[skill_core::skill(id = "word_count", category = "analysis")]
pub fn word_count(
    /// The text to count.
    text: String,
) -> usize {
    text.split_whitespace().count()
}
