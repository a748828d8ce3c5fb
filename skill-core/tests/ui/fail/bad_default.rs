use skill_core::prelude::*;

/// Pages through results.
#[skill(id = "page")]
fn page(
    /// Page size.
    #[arg(default = "ten")]
    size: u32,
    /// Page number.
    #[arg(default = 1.5)]
    number: u32,
) -> u32 {
    size * number
}

fn main() {}
