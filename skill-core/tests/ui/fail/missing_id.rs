use toolwright::prelude::*;

/// Says hello.
#[skill(category = "ui")]
fn hello() -> &'static str {
    "hello"
}

fn main() {}
