use toolwright::prelude::*;

fn count_from_state(_ctx: &SkillContext) -> Result<String, SkillError> {
    Ok("three".into())
}

/// Counts.
#[skill(id = "count")]
fn count(
    /// How many.
    #[arg(prepare = count_from_state)]
    n: u32,
) -> u32 {
    n
}

fn main() {}
