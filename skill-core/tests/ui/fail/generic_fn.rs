use toolwright::prelude::*;

/// Echoes a value.
#[skill(id = "echo")]
fn echo<T: Clone>(
    /// The value.
    value: T,
) -> T {
    value
}

fn main() {}
