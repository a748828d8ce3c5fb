//! The pitfall `link_skills!` exists for: a skill crate that is a dependency but that nothing
//! in the binary names is not linked, and its skills are silently missing. If this test
//! starts failing, the toolchain links unused crates and the macro is merely harmless.
//!
//! A binary of its own: what is linked into the binary is what it tests.

use toolwright::Dispatcher;

#[test]
fn an_unnamed_dependency_contributes_no_skills() {
    let d = Dispatcher::from_inventory().unwrap();
    assert!(
        !d.skill_ids().any(|id| id.starts_with("fixture.")),
        "renamed-dep is a dev-dependency but not named here, so it is not linked"
    );
}
