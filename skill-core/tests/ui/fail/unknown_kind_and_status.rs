use toolwright::prelude::*;

/// Counts.
#[skill(id = "count", status = "actve")]
fn count(
    /// How many.
    #[arg(kind = "integr")]
    n: u32,
) -> u32 {
    n
}

fn main() {}
