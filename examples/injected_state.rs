//! Skills over the application's own state: a to-do list the host owns, handed to skills by
//! type, a value prepared from the host's state when the model leaves it out, and a delete
//! that waits for a person's consent.
//!
//! ```text
//! cargo run --example injected_state
//! ```

use std::sync::{Arc, Mutex};

use toolwright::prelude::*;
use toolwright::{codes, Dispatcher};

/// The host's state: tasks, and the list the user is looking at.
#[derive(Debug, Default)]
struct TodoStore {
    tasks: Mutex<Vec<Task>>,
}

/// The list the user has open in the host's UI.
#[derive(Debug, Clone)]
struct OpenList(String);

/// One task.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Stable id.
    pub id: u32,
    /// The list it belongs to.
    pub list: String,
    /// What to do.
    pub title: String,
}

/// What `todo.add` returns.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Added {
    /// The new task.
    pub task: Task,
    /// One line for the model.
    pub summary: String,
}

/// The list the user has open, for a model that did not name one.
fn open_list(ctx: &SkillContext) -> Result<String, SkillError> {
    ctx.get::<OpenList>()
        .map(|l| l.0.clone())
        .ok_or_else(|| SkillError::new(codes::PREPARE_FAILED, "no list is open; name one"))
}

/// Add a task to a to-do list.
#[skill(id = "todo.add", category = "create", requires_confirmation = false)]
async fn add_task(
    /// What to do, in a few words.
    title: String,
    /// The list to add it to; the list the user has open when left out.
    #[arg(prepare = open_list)]
    list: String,
    store: Inject<TodoStore>,
) -> Result<Added, SkillError> {
    if title.trim().is_empty() {
        return Err(SkillError::invalid_arguments("`title` is empty"));
    }
    let mut tasks = store.tasks.lock().unwrap_or_else(|p| p.into_inner());
    let id = tasks.iter().map(|t| t.id).max().unwrap_or(0) + 1;
    let task = Task { id, list, title };
    tasks.push(task.clone());
    Ok(Added {
        summary: format!("added #{} to `{}`", task.id, task.list),
        task,
    })
}

/// List the tasks of a to-do list.
#[skill(id = "todo.list", category = "query")]
async fn list_tasks(
    /// The list to show; the list the user has open when left out.
    #[arg(prepare = open_list)]
    list: String,
    store: Inject<TodoStore>,
) -> Vec<Task> {
    let tasks = store.tasks.lock().unwrap_or_else(|p| p.into_inner());
    tasks.iter().filter(|t| t.list == list).cloned().collect()
}

/// Delete a task for good.
#[skill(id = "todo.delete", category = "delete", confirm = "Delete task #{id}")]
async fn delete_task(
    /// Id of the task.
    id: u32,
    store: Inject<TodoStore>,
) -> Result<Task, SkillError> {
    let mut tasks = store.tasks.lock().unwrap_or_else(|p| p.into_inner());
    let at = tasks
        .iter()
        .position(|t| t.id == id)
        .ok_or_else(|| SkillError::new(codes::NOT_FOUND, format!("there is no task #{id}")))?;
    Ok(tasks.remove(at))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dispatcher = Dispatcher::from_inventory()?;
    // The host's values, found by type. `with_arc` shares a value the host keeps too.
    let store = Arc::new(TodoStore::default());
    let ctx = SkillContext::new()
        .with_arc(Arc::clone(&store))
        .with(OpenList("groceries".into()));

    // The model left `list` out: it is prepared from the list the user has open.
    let added = dispatcher
        .call("todo_add", r#"{"title": "oat milk"}"#, &ctx)
        .await;
    println!("{}", added.data_as::<Added>()?.summary);
    let listed = dispatcher.call("todo_list", "{}", &ctx).await;
    println!("groceries: {}", listed.data_value());

    // A delete waits for consent: the model is told so, the host asks a person.
    let asked = dispatcher.call("todo_delete", r#"{"id": 1}"#, &ctx).await;
    let pending = asked
        .pending_confirmation()
        .ok_or("a delete should wait for confirmation")?;
    println!("asks the user: {} ({})", pending.summary, pending.id);
    let done = dispatcher.confirm(&pending.id, &ctx).await?;
    println!("confirmed: {}", done.data_value());
    println!("tasks left: {}", store.tasks.lock().unwrap().len());
    Ok(())
}
