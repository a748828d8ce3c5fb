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
            tools: [AlphaOne, AlphaTwo],
        },
    }
}

toolwright_packs::pack! {
    pub struct Beta {
        id: "beta",
        name: "Beta",
        version: "1.0.0",
        imports: [
            { from: Alpha, tools: [AlphaOne], min_version: "1.0" },
        ],
    }
}

async fn run(gateway: toolwright_packs::Gateway) {
    let ctx = toolwright::SkillContext::new();
    let user = toolwright_packs::Caller::of::<Beta>("user");
    let _ = gateway.call::<Beta, AlphaOne>(&user, &AlphaOneInput {}, &ctx).await;
    let _ = gateway.call::<Beta, AlphaTwo>(&user, &AlphaTwoInput {}, &ctx).await;
}

fn main() {
    let _ = run;
}
