use skill_core::prelude::*;

/// Pages through results.
#[skill(id = "page")]
fn page(
    /// Whether to say more.
    #[arg(default = "yes")]
    verbose: bool,
    /// Page number.
    #[arg(default = 1.5)]
    number: u32,
) -> u32 {
    if verbose {
        number
    } else {
        0
    }
}

fn main() {}
