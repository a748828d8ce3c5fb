use skill_core::prelude::*;

/// Says hello.
#[skill(category = "ui")]
fn hello() -> &'static str {
    "hello"
}

fn main() {}
