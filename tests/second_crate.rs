//! Skills defined in other crates of the workspace are found by the dispatcher with no
//! registration code: naming the crate once is enough to link it.
//!
//! A binary of its own: what is linked into the binary is what it tests (the shared binary
//! `tests/it` links the review library's skills).

toolwright::link_skills!(renamed_dep);

use toolwright::{Dispatcher, SkillContext};

#[tokio::test]
async fn skills_of_a_linked_crate_are_found() {
    let d = Dispatcher::from_inventory().unwrap();
    let ids: Vec<&str> = d.skill_ids().collect();
    for id in ["fixture.add", "fixture.greet", "fixture.reverse"] {
        assert!(ids.contains(&id), "{id} not found in {ids:?}");
    }
    let r = d
        .call("fixture.greet", r#"{"name": "Ada"}"#, &SkillContext::new())
        .await;
    assert_eq!(
        r.data_as::<renamed_dep::Greeting>().unwrap().text,
        "Hello, Ada!"
    );
}
