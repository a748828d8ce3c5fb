use toolwright::prelude::*;

/// The host's task store.
pub struct Store;

/// Adds a task.
#[skill(id = "add_task")]
fn add_task(
    /// Title of the task.
    title: String,
    store: Store,
) -> String {
    let _ = store;
    title
}

fn main() {
    // The generated types still exist, so this adds no error of its own.
    let _ = AddTask;
    let _ = AddTaskInput {
        title: String::new(),
        store: Store,
    };
}
