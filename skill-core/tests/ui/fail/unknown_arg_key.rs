use toolwright::prelude::*;

/// Limits results.
#[skill(id = "limit")]
fn limit(
    /// Maximum number of results.
    #[arg(defualt = 10)]
    max: u32,
) -> u32 {
    max
}

fn main() {}
