//! Example skills shared by the argument and dialect tests (included with `#[path]`): one per
//! seed 004 category, plus the awkward shapes (nested structs, enums, timestamps, URIs,
//! lists, maps, recursion).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use toolwright::prelude::*;
use toolwright::SkillError;

/// Lifecycle state of a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClientStatus {
    /// Currently under contract.
    Active,
    /// No contract in the last year.
    Dormant,
    /// Closed.
    Archived,
}

/// One client found.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ClientHit {
    /// Client id.
    pub id: String,
    /// Client name.
    pub name: String,
    /// Its status.
    pub status: ClientStatus,
}

/// Clients matching a search.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ClientList {
    /// The matches, best first.
    pub items: Vec<ClientHit>,
    /// Number of matches.
    pub total: usize,
}

/// Counts the calls that really ran a skill body (to prove the body never runs twice).
pub static SEARCH_RUNS: AtomicUsize = AtomicUsize::new(0);

const CLIENTS: &[(&str, &str, ClientStatus)] = &[
    ("c1", "CITIC Press", ClientStatus::Active),
    ("c2", "Citadel Build", ClientStatus::Dormant),
    ("c3", "Harbor Works", ClientStatus::Archived),
];

/// Search clients by keyword and return the matching list.
#[skill(
    id = "crm.search_client",
    name = "Search clients",
    domain = "crm",
    category = "query"
)]
pub fn search_client(
    /// Search keyword, matched case-insensitively against the client name.
    keyword: String,
    /// Maximum number of clients to return.
    #[arg(default = 10, example = 25)]
    limit: u32,
    /// Only clients in this status.
    status: Option<ClientStatus>,
    /// Include archived clients.
    #[arg(default)]
    include_archived: bool,
) -> ClientList {
    SEARCH_RUNS.fetch_add(1, Ordering::SeqCst);
    let keyword = keyword.to_lowercase();
    let items: Vec<ClientHit> = CLIENTS
        .iter()
        .filter(|(_, name, st)| {
            name.to_lowercase().contains(&keyword)
                && status.is_none_or(|s| s == *st)
                && (include_archived || *st != ClientStatus::Archived)
        })
        .take(limit as usize)
        .map(|(id, name, st)| ClientHit {
            id: (*id).into(),
            name: (*name).into(),
            status: *st,
        })
        .collect();
    ClientList {
        total: items.len(),
        items,
    }
}

/// A period of time.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DateRange {
    /// First moment included.
    pub start: DateTime<Utc>,
    /// Last moment included; open-ended when missing.
    pub end: Option<DateTime<Utc>>,
}

/// Per-contact figures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ContactFigure {
    /// Contact name.
    pub name: String,
    /// Projects with this contact.
    pub project_count: u32,
    /// Total amount over those projects.
    pub total_amount: f64,
}

/// The precomputed conclusion of a stats call.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StatsSummary {
    /// Number of contacts.
    pub total: usize,
    /// Contact with the most projects, e.g. "Ding (2 projects)".
    pub top_by_count: String,
}

/// Contact statistics of a client.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ContactStats {
    /// One entry per contact.
    pub contacts: Vec<ContactFigure>,
    /// The conclusion.
    pub summary: StatsSummary,
}

/// Count projects and amounts per contact of one client.
#[skill(id = "crm.contact_stats", domain = "crm", category = "stats")]
pub fn count_contacts(
    /// Client name (fuzzy match).
    client_name: String,
    /// Include amounts in the figures.
    #[arg(default = false)]
    include_amount: bool,
    /// Only projects in this period.
    date_range: Option<DateRange>,
    /// Weight per project kind, e.g. {"design": 1.5}.
    #[arg(default)]
    weights: BTreeMap<String, f64>,
) -> ContactStats {
    let projects = [("Ding", 30000.0), ("Ding", 20000.0), ("Li", 15000.0)];
    let mut figures: Vec<ContactFigure> = Vec::new();
    for (name, amount) in projects {
        let weight = weights.values().copied().next().unwrap_or(1.0);
        let amount = if include_amount { amount * weight } else { 0.0 };
        match figures.iter_mut().find(|f| f.name == name) {
            Some(f) => {
                f.project_count += 1;
                f.total_amount += amount;
            }
            None => figures.push(ContactFigure {
                name: name.into(),
                project_count: 1,
                total_amount: amount,
            }),
        }
    }
    let _ = (client_name, date_range);
    let top = figures
        .iter()
        .max_by_key(|f| f.project_count)
        .map_or_else(String::new, |f| {
            format!("{} ({} projects)", f.name, f.project_count)
        });
    ContactStats {
        summary: StatsSummary {
            total: figures.len(),
            top_by_count: top,
        },
        contacts: figures,
    }
}

/// Counts created clients (proves a pending call did not run).
pub static CREATED: AtomicUsize = AtomicUsize::new(0);

/// Create a client record.
#[skill(id = "crm.create_client", domain = "crm", category = "create")]
pub fn create_client(
    /// Client name.
    name: String,
    /// Postal address.
    address: Option<String>,
    /// Web site of the client.
    website: Option<url::Url>,
    /// Tags to file the client under.
    #[arg(default)]
    tags: Vec<String>,
) -> Result<String, SkillError> {
    if name.trim().is_empty() {
        return Err(SkillError::invalid_arguments("name must not be empty"));
    }
    CREATED.fetch_add(1, Ordering::SeqCst);
    let _ = (address, website, tags);
    Ok(format!("created {name}"))
}

/// Delete a client record.
#[skill(
    id = "crm.delete_client",
    domain = "crm",
    category = "delete",
    idempotent = true
)]
pub fn delete_client(
    /// Id of the client to delete.
    client_id: String,
) -> bool {
    !client_id.is_empty()
}

/// A section of an outline; sections nest.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Section {
    /// Heading text.
    pub title: String,
    /// Sub-sections.
    #[serde(default)]
    pub children: Vec<Section>,
}

/// Count the sections of an outline.
#[skill(id = "doc.outline_size", domain = "doc", category = "analysis")]
pub fn outline_size(
    /// The outline to measure.
    outline: Section,
) -> usize {
    fn count(s: &Section) -> usize {
        1 + s.children.iter().map(count).sum::<usize>()
    }
    count(&outline)
}

/// Open a form in the user interface.
#[skill(id = "ui.open_form", domain = "*", category = "ui")]
pub fn open_form(
    /// Which form to open.
    form: String,
    /// Values to fill in (field name to value).
    prefill: Option<BTreeMap<String, String>>,
) -> String {
    format!(
        "opened {form} with {} values",
        prefill.map_or(0, |p| p.len())
    )
}

/// Every example skill, in id order.
pub fn example_registrations() -> Vec<&'static toolwright::SkillRegistration> {
    use toolwright::Skill;
    vec![
        CountContacts::registration(),
        CreateClient::registration(),
        DeleteClient::registration(),
        SearchClient::registration(),
        OutlineSize::registration(),
        OpenForm::registration(),
    ]
}
