use toolwright::prelude::*;

/// Limits results.
#[skill(id = "limit")]
fn limit(
    /// Maximum number of results.
    #[arg(default = 10)]
    max: Option<u32>,
) -> u32 {
    max.unwrap_or(1)
}

fn main() {}
