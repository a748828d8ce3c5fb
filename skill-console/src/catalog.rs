//! The catalog (every skill, filtered on the server) and the page of one skill: parameters
//! from the [`ToolCatalog`](toolwright::catalog::ToolCatalog), the call form, the output
//! schema, lint findings and the tool definition in every dialect.

use std::collections::BTreeSet;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup};
use serde::Deserialize;
use toolwright::catalog::{Cardinality, ToolDescriptor};
use toolwright::lint::{lint_skill, LintSeverity};
use toolwright::{Dialect, SkillRegistration};

use crate::call::{call_form, CallOutcome, FormValues};
use crate::layout::{error_page, page, pretty, Section};
use crate::ConsoleState;

/// The catalog's filters, as GET query parameters (empty means no filter).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CatalogQuery {
    #[serde(default)]
    domain: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    q: String,
    /// Most skills answered (the JSON API; the page shows every match).
    #[serde(default)]
    limit: Option<usize>,
}

impl CatalogQuery {
    /// Whether `skill` is in the chosen domain, category and status.
    fn keeps(&self, skill: &SkillRegistration) -> bool {
        (self.domain.is_empty() || skill.domain == self.domain)
            && (self.category.is_empty() || skill.category == self.category)
            && (self.status.is_empty() || skill.status.as_str() == self.status)
    }
}

/// A skill the catalog shows, with its relevance when a search text was given.
struct Shown {
    skill: &'static SkillRegistration,
    score: Option<f32>,
}

/// The skills the console shows that pass `query`'s filters. With a search text, ranked as
/// MCP's `search_tools`, `clausewright search` and the agent loop rank them (the dispatcher's
/// [`ToolSearch`](toolwright::search::ToolSearch)), best first; then, unranked, the others
/// whose id, name or description contain the text (an id typed in part).
fn matching(state: &ConsoleState, query: &CatalogQuery, limit: usize) -> Vec<Shown> {
    let all = state.inner.dispatcher.list_skills();
    let kept = |skill: &SkillRegistration| state.inner.filter.selects(skill) && query.keeps(skill);
    let text = query.q.trim();
    if text.is_empty() {
        return all
            .iter()
            .filter(|s| kept(s))
            .take(limit)
            .map(|&skill| Shown { skill, score: None })
            .collect();
    }
    // Tool `i` of the index is the dispatcher's `i`-th skill.
    let mut shown: Vec<Shown> = state
        .inner
        .search
        .index()
        .search_where(text, limit, |i| kept(all[i]))
        .into_iter()
        .map(|hit| Shown {
            skill: all[hit.index],
            score: Some(hit.score),
        })
        .collect();
    let needle = text.to_lowercase();
    for &skill in all {
        if shown.len() >= limit {
            break;
        }
        let contains = contains_lowercase(skill.id, &needle)
            || contains_lowercase(skill.name, &needle)
            || contains_lowercase(skill.description, &needle);
        if contains && kept(skill) && !shown.iter().any(|s| s.skill.id == skill.id) {
            shown.push(Shown { skill, score: None });
        }
    }
    shown
}

/// `GET /api/tools`: the catalog's skills as JSON, with the catalog's filters (`q`,
/// `domain`, `category`, `status`) and `limit`; with `q`, ranked best first, each with its
/// score.
pub(crate) async fn tools_api(
    State(state): State<ConsoleState>,
    Query(query): Query<CatalogQuery>,
) -> Response {
    let limit = query.limit.unwrap_or(usize::MAX).max(1);
    let tools: Vec<serde_json::Value> = matching(&state, &query, limit)
        .iter()
        .map(|s| {
            serde_json::json!({
                "id": s.skill.id,
                "wire_name": s.skill.wire_name,
                "description": s.skill.description,
                "domain": s.skill.domain,
                "category": s.skill.category,
                "status": s.skill.status.as_str(),
                "score": s.score,
            })
        })
        .collect();
    let body = serde_json::json!({ "query": query.q.trim(), "tools": tools });
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Whether `text` contains the already lower-cased `needle`, ignoring case.
fn contains_lowercase(text: &str, needle: &str) -> bool {
    if text.is_ascii() && needle.is_ascii() {
        text.as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    } else {
        text.to_lowercase().contains(needle)
    }
}

/// `GET /`: every skill, filtered by domain, category, status and a search text.
pub(crate) async fn catalog_page(
    State(state): State<ConsoleState>,
    Query(query): Query<CatalogQuery>,
) -> Html<String> {
    render_catalog(&state, &query)
}

fn render_catalog(state: &ConsoleState, query: &CatalogQuery) -> Html<String> {
    let skills: Vec<&SkillRegistration> = state
        .inner
        .dispatcher
        .list_skills()
        .iter()
        .copied()
        .filter(|s| state.inner.filter.selects(s))
        .collect();
    let domains: BTreeSet<&str> = skills.iter().map(|s| s.domain).collect();
    let categories: BTreeSet<&str> = skills.iter().map(|s| s.category).collect();
    let shown = matching(state, query, usize::MAX);
    let ranked = shown.iter().any(|s| s.score.is_some());
    let select =
        |name: &str, label: &str, values: &mut dyn Iterator<Item = &str>, current: &str| {
            html! {
                div {
                    label for=(name) { (label) }
                    select id=(name) name=(name) {
                        option value="" { "all" }
                        @for v in values {
                            option value=(v) selected[v == current] { (v) }
                        }
                    }
                }
            }
        };
    let body = html! {
        h1 { "Catalog " span.count { (shown.len()) " of " (skills.len()) " skills" } }
        form.filters method="get" action="/" {
            (select("domain", "Domain", &mut domains.iter().copied(), &query.domain))
            (select("category", "Category", &mut categories.iter().copied(), &query.category))
            (select("status", "Status", &mut ["active", "deprecated", "disabled"].into_iter(), &query.status))
            div {
                label for="q" { "Search" }
                input type="search" id="q" name="q" value=(query.q) placeholder="a task in plain words, or an id";
            }
            div { button type="submit" { "Filter" } }
            div { a href="/" { "clear" } }
        }
        table #catalog {
            thead { tr { th { "Skill" } th { "Domain" } th { "Category" } th { "Status" } th { "Version" } th { "Description" } } }
            tbody {
                @for shown in &shown {
                    @let s = shown.skill;
                    tr {
                        td { a.mono href={ "/skills/" (s.id) } { (s.id) } }
                        td { (s.domain) }
                        td { (s.category) }
                        td class={ "status-" (s.status.as_str()) } { (s.status.as_str()) }
                        td { (s.version) }
                        td { (s.description) }
                    }
                }
            }
        }
        @if shown.is_empty() {
            p.hint { "No skill matches these filters." }
        } @else if ranked {
            p.hint #ranking { "Best match first, ranked as MCP's search_tools ranks them." }
        }
    };
    page(state, Section::Catalog, "Catalog", body)
}

/// `GET /skills/{id}`: one skill and its call form.
pub(crate) async fn skill_page(
    State(state): State<ConsoleState>,
    Path(id): Path<String>,
) -> Response {
    match render_skill(&state, &id, &FormValues::default(), None) {
        Some(page) => page.into_response(),
        None => unknown_skill(&id),
    }
}

/// The 404 of a skill id nobody registered.
pub(crate) fn unknown_skill(id: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        error_page(
            "Unknown skill",
            &format!("no skill has the id `{id}`; the catalog at / lists them all"),
        ),
    )
        .into_response()
}

/// The page of skill `id`, with the form filled with `values` and the outcome of a call.
pub(crate) fn render_skill(
    state: &ConsoleState,
    id: &str,
    values: &FormValues,
    outcome: Option<&CallOutcome>,
) -> Option<Html<String>> {
    let dispatcher = &state.inner.dispatcher;
    let reg = state.shows(id)?;
    let tool = dispatcher.catalog().get(reg.id)?;
    let findings = lint_skill(reg);
    let body = html! {
        p { a href="/" { "← Catalog" } }
        h1.mono #skill-id { (reg.id) }
        p { (reg.description) }
        table.meta {
            tr { th { "Domain" } td { (reg.domain) } th { "Category" } td { (reg.category) } }
            tr { th { "Status" } td class={ "status-" (reg.status.as_str()) } { (reg.status.as_str()) }
                 th { "Version" } td { @if reg.version.is_empty() { span.hint { "—" } } @else { (reg.version) } } }
            tr { th { "Wire name" } td.mono { (reg.wire_name) }
                 th { "Confirmation" } td { @if tool.requires_confirmation { "required: calls wait in Approvals" } @else { "not required" } } }
        }
        @if reg.long_help.trim() != reg.description.trim() && !reg.long_help.trim().is_empty() {
            details { summary { "Full description" } pre { (reg.long_help) } }
        }
        @if let Some(outcome) = outcome { (outcome.render()) }
        h2 { "Call" }
        (call_form(state, reg, tool, values))
        h2 { "Parameters" }
        (parameters(tool))
        h2 { "Output schema" }
        pre #output-schema { (pretty((reg.output_schema)())) }
        h2 { "Lint " span.count { (findings.len()) " finding" @if findings.len() != 1 { "s" } } }
        @if findings.is_empty() {
            p.hint #lint { "Meets the tool checklist." }
        } @else {
            ul #lint {
                @for f in &findings {
                    li class=(if f.severity == LintSeverity::Error { "lint-error" } else { "lint-warning" }) {
                        strong { (if f.is_error() { "error" } else { "warning" }) } " "
                        code { (f.rule) } ": " (f.message)
                    }
                }
            }
        }
        h2 { "Tool definition by dialect" }
        (dialect_tabs(reg))
    };
    Some(page(state, Section::Catalog, reg.id, body))
}

fn cardinality(c: Cardinality) -> &'static str {
    match c {
        Cardinality::Single => "single",
        Cardinality::Optional => "optional",
        Cardinality::List => "list",
        Cardinality::Map => "map",
    }
}

fn parameters(tool: &ToolDescriptor) -> Markup {
    html! {
        @if tool.parameters.is_empty() {
            p.hint { "No parameters." }
        } @else {
            table #parameters {
                thead { tr { th { "Name" } th { "Kind" } th { "Cardinality" } th { "Required" } th { "Default" } th { "Allowed values" } th { "Example" } th { "Description" } } }
                tbody {
                    @for p in &tool.parameters {
                        tr {
                            td.mono { (p.name) }
                            td { (p.value_kind.as_str()) }
                            td { (cardinality(p.cardinality)) }
                            td { @if p.required { "yes" } @else if p.prepared { "no (from state)" } @else { "no" } }
                            td.mono { @if let Some(d) = &p.default { (d.to_string()) } }
                            td.mono { @if let Some(e) = &p.enum_constraint { (e.allowed_values.join(", ")) } }
                            td.mono { @if let Some(x) = &p.example { (x.to_string()) } }
                            td { (p.description) }
                        }
                    }
                }
            }
        }
    }
}

/// One tab per dialect (radio buttons and CSS, no script).
fn dialect_tabs(reg: &SkillRegistration) -> Markup {
    html! {
        div.tabs #dialects {
            @for (i, d) in Dialect::ALL.iter().enumerate() {
                input type="radio" name="dialect" id={ "dialect-" (d.as_str()) } checked[i == 0];
                label for={ "dialect-" (d.as_str()) } { (d.as_str()) }
            }
            @for d in Dialect::ALL {
                div.panel {
                    @match d.render_tool(reg, &[]) {
                        Ok(def) => pre { (pretty(&def)) },
                        Err(err) => p.error-text { "Not expressible in " (d.as_str()) ": " (err.to_string()) },
                    }
                }
            }
        }
    }
}
