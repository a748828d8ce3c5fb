use toolwright::prelude::*;

/// Deletes a task.
#[skill(id = "delete_task", category = "delete", confirm = "Delete task {task}")]
fn delete_task(
    /// Id of the task.
    task_id: String,
) -> String {
    task_id
}

fn main() {}
