//! Checks over everything linked into one binary: the example packs alone, and two skills
//! whose wire names clash. A binary of its own, since the gateway tests link more packs and
//! no dispatcher could be built over the clashing skills.

#[path = "../../examples/packs/astro.rs"]
#[allow(dead_code)]
mod astro;
#[path = "../../examples/packs/jungastro.rs"]
#[allow(dead_code)]
mod jungastro;
#[path = "it/manifests.rs"]
#[allow(dead_code)]
mod manifests;
#[path = "../../examples/packs/zodiac.rs"]
#[allow(dead_code)]
mod zodiac;

use toolwright::prelude::*;
use toolwright_packs::{check_manifests, check_packs, ExportedTool, PackManifest, PackProblem};

use manifests::{kinds, manifest, today};

/// Alpha's first tool.
#[skill(id = "alpha.one")]
fn alpha_one() -> u8 {
    1
}

/// Beta's tool.
#[skill(id = "beta.one")]
fn beta_one() -> u8 {
    1
}

mod flat {
    use toolwright::prelude::*;

    /// A tool of pack `beta_one`, named without a namespace: on the wire it is `beta_one`,
    /// like `beta.one`.
    #[skill(id = "beta_one")]
    pub fn beta_one_flat() -> u8 {
        1
    }
}

#[test]
fn the_linked_packs_are_consistent_and_acyclic() {
    let problems = check_packs();
    assert!(problems.is_empty(), "{problems:#?}");
    let ids: Vec<&str> = toolwright_packs::linked_packs()
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["jungastro", "zodiac"]);
    toolwright_packs::assert_packs_valid();
}

#[test]
fn wire_name_clashes_and_foreign_exports_are_reported() {
    // `beta.one` and `beta_one` both go on the wire as `beta_one`.
    static BETA: PackManifest = manifest("beta", "1.0.0", &[ExportedTool::of::<BetaOne>()], &[]);
    static FLAT: PackManifest = manifest(
        "beta_one",
        "1.0.0",
        &[ExportedTool::of::<flat::BetaOneFlat>()],
        &[],
    );
    let problems = check_manifests(&[&BETA, &FLAT], today());
    assert_eq!(kinds(&problems), ["foreign_export", "wire_name_clash"]);
    assert_eq!(
        problems[1].to_string(),
        "tools `beta.one` (pack `beta`) and `beta_one` (pack `beta_one`) both go on the wire as `beta_one`"
    );
    // Exporting another pack's skill.
    static THIEF: PackManifest = manifest("gamma", "1.0.0", &[ExportedTool::of::<AlphaOne>()], &[]);
    assert_eq!(
        check_manifests(&[&THIEF], today()),
        [PackProblem::ForeignExport {
            pack: "gamma".into(),
            tool: "alpha.one".into()
        }]
    );
}
