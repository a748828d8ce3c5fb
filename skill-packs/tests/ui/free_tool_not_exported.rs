use toolwright::prelude::*;

/// The first tool.
#[skill(id = "alpha.one")]
fn alpha_one() -> u8 {
    1
}

/// The second tool.
#[skill(id = "alpha.two")]
fn alpha_two() -> u8 {
    2
}

toolwright_packs::pack! {
    pub struct Alpha {
        id: "alpha",
        name: "Alpha",
        version: "1.0.0",
        exports: {
            api_version: "1.0.0",
            tools: [AlphaOne],
            access: {
                requires_subscription: true,
                free_tools: [AlphaTwo],
            },
        },
    }
}

fn main() {}
