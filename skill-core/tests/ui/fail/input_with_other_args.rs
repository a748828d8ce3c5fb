use toolwright::prelude::*;

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Query {
    /// Text.
    text: String,
}

/// Searches.
#[skill(id = "search")]
fn search(
    #[input] query: Query,
    /// Page size.
    limit: u32,
) -> u32 {
    let _ = query;
    limit
}

fn main() {}
