use toolwright::prelude::*;

/// How much a page says.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub enum Detail {
    /// Titles only.
    Brief,
    /// Everything.
    Full,
}

/// Pages through results.
#[skill(id = "page")]
fn page(
    /// How much to say.
    #[arg(default = "full")]
    detail: Detail,
    /// Page number.
    #[arg(default = 1.5)]
    number: u32,
) -> u32 {
    match detail {
        Detail::Brief => 0,
        Detail::Full => number,
    }
}

fn main() {}
