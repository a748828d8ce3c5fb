//! Every accepted form compiles, including under `#![deny(missing_docs)]`.
#![deny(missing_docs)]

use toolwright::prelude::*;

/// Host database.
pub struct Db;

/// Whole-input struct shared between skills.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
pub struct Query {
    /// Text to look for.
    pub text: String,
    /// Filters.
    #[serde(default)]
    pub filters: Vec<Filter>,
}

/// A filter.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    /// Only open items.
    Open,
    /// Only closed items.
    Closed,
}

fn default_text(_ctx: &SkillContext) -> Result<String, SkillError> {
    Ok("x".into())
}

fn scoped(_ctx: &SkillContext, scope: &PrepareScope) -> Result<Option<String>, SkillError> {
    Ok(scope.str_argument("name"))
}

/// An async skill with every argument form.
#[skill(
    id = "crm.search_client",
    name = "Search clients",
    domain = "crm",
    category = "query",
    status = "active",
    version = "1.2.0",
    timeout_ms = 5000,
    requires_confirmation = false,
    idempotent = true,
    open_world = false
)]
pub async fn search_client(
    /// Client name.
    #[arg(rename = "clientName", example = "ACME")]
    name: String,
    /// Page size.
    #[arg(default = 10, example = 20)]
    limit: u32,
    /// Include closed.
    #[arg(default)]
    include_closed: bool,
    /// Optional note.
    note: Option<String>,
    /// Prepared text.
    #[arg(prepare = default_text, kind = "string")]
    text: String,
    /// Prepared optional from the other arguments.
    #[arg(prepare = scoped, case_sensitive = true)]
    echo: Option<String>,
    db: Inject<Db>,
    maybe: Option<Inject<u32>>,
    ctx: &SkillContext,
) -> Result<Vec<String>, SkillError> {
    let _ = (db, maybe, ctx, include_closed, note, echo);
    Ok(vec![name; limit as usize].into_iter().map(|n| n + &text).collect())
}

/// A sync skill in a module, private.
mod inner {
    use super::*;

    /// Private skill.
    #[skill(id = "inner.private")]
    fn private_skill() -> u8 {
        1
    }

    /// Crate-visible skill with a whole-input struct.
    #[skill(id = "inner.whole", category = "stats")]
    pub(crate) fn whole(#[input] query: Query) -> usize {
        query.filters.len() + query.text.len()
    }
}

fn main() {
    let d = Dispatcher::from_inventory().unwrap();
    assert_eq!(d.len(), 4);
    let _ = (ListClients, ListClientsSkill);
    let _: Option<SearchClientInput> = None;
    let _: Option<inner::WholeInput> = None;
    let _ = SearchClient;
    assert_eq!(<SearchClient as Skill>::ID, "crm.search_client");
}

/// The user's own type named like the skill; `marker` renames the generated one.
pub struct ListClients;

/// Lists clients.
#[skill(id = "list_clients", marker = "ListClientsSkill")]
pub fn list_clients() -> Vec<String> {
    Vec::new()
}
