//! The author's own types named `Inject` and `SkillContext` are model arguments when written
//! with a path (`model::Inject<T>`, `crate::SkillContext`) or, for `SkillContext`, by value:
//! only toolwright's own paths (`Inject<T>` as the prelude imports it, `toolwright::Inject<T>`,
//! `&SkillContext`) are injected.

use toolwright::prelude::*;

mod model {
    use toolwright::prelude::*;

    /// The author's own wrapper, named like toolwright's extractor.
    #[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
    pub struct Inject<T> {
        /// The wrapped value.
        pub value: T,
    }
}

/// The author's own type named like toolwright's context; shadows the prelude's.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SkillContext {
    /// A note.
    pub note: String,
}

/// Host state, injected.
#[derive(Clone, Copy)]
pub struct Store(u32);

/// Takes the author's own types as arguments.
#[skill(id = "own_types")]
fn own_types(
    /// A wrapped number.
    wrapped: model::Inject<u32>,
    /// The author's context, by value.
    context: SkillContext,
    /// The same type, named by path.
    again: crate::SkillContext,
    store: toolwright::Inject<Store>,
    host: &toolwright::SkillContext,
) -> String {
    let _ = host;
    let Store(count) = *store;
    format!("{} {} {} {count}", wrapped.value, context.note, again.note)
}

fn main() {
    let reg = toolwright::linked_skills()
        .find(|r| r.id == "own_types")
        .unwrap();
    let names: Vec<&str> = reg.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["wrapped", "context", "again"]);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let ctx = toolwright::SkillContext::new().with(Store(4));
    let result = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(dispatcher.call(
            "own_types",
            r#"{"wrapped": {"value": 1}, "context": {"note": "a"}, "again": {"note": "b"}}"#,
            &ctx,
        ));
    assert_eq!(result.data_as::<String>().unwrap(), "1 a b 4");
}
