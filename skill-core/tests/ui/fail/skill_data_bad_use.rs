use toolwright::prelude::*;

#[skill_data(krate = "::toolwright")]
pub struct Misspelt {
    pub a: u32,
}

#[skill_data]
fn not_a_type() {}

fn main() {}
