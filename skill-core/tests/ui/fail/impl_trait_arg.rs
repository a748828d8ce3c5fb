use toolwright::prelude::*;

/// Shows a value.
#[skill(id = "show")]
fn show(
    /// The value.
    value: impl std::fmt::Display,
) -> String {
    value.to_string()
}

fn main() {}
