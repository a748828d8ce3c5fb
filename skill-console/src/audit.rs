//! The gateway's cross-pack call records, read from the store the gateway writes: filtered
//! by consumer, provider, user (in the store) and outcome, newest first, paginated.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::html;
use serde::Deserialize;
use toolwright_packs::{AuditQuery, AuditRecord};

use crate::layout::{page, Section};
use crate::ConsoleState;

/// Records per page.
pub(crate) const PAGE_SIZE: usize = 50;

/// The audit page's filters and page number, as GET query parameters.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct AuditParams {
    #[serde(default)]
    consumer: String,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    user: String,
    /// `ok`, `failed`, or empty for all.
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    page: Option<usize>,
}

impl AuditParams {
    fn keeps(&self, record: &AuditRecord) -> bool {
        match self.outcome.as_str() {
            "ok" => record.outcome == "ok",
            "failed" => record.outcome != "ok",
            _ => true,
        }
    }

    /// The query string of these filters on another page.
    fn link(&self, page: usize) -> String {
        let pairs = [
            ("consumer", self.consumer.as_str()),
            ("provider", self.provider.as_str()),
            ("user", self.user.as_str()),
            ("outcome", self.outcome.as_str()),
        ];
        let mut query: Vec<(&str, String)> = pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (*k, (*v).to_string()))
            .collect();
        query.push(("page", page.to_string()));
        format!(
            "/audit?{}",
            serde_urlencoded::to_string(query).unwrap_or_default()
        )
    }
}

fn non_empty(text: &str) -> Option<String> {
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// `GET /audit`.
pub(crate) async fn audit_page(
    State(state): State<ConsoleState>,
    Query(params): Query<AuditParams>,
) -> Response {
    let Some(log) = state.inner.audit.clone() else {
        let body = html! {
            h1 { "Audit" }
            p #no-audit { "No audit log is attached: the gateway's records appear here when the server runs a pack (" code { "--pack" } ") or finds the packs database." }
        };
        return page(&state, Section::Audit, "Audit", body).into_response();
    };
    let page_no = params.page.unwrap_or(1).max(1);
    let filtered_in_memory = !params.outcome.is_empty();
    let query = AuditQuery {
        consumer: non_empty(&params.consumer),
        provider: non_empty(&params.provider),
        user: non_empty(&params.user),
        // One more than needed tells whether there is a next page.
        limit: (!filtered_in_memory).then(|| page_no * PAGE_SIZE + 1),
    };
    let records = match log.query(&query).await {
        Ok(records) => records,
        Err(err) => {
            tracing::warn!(%err, "audit log not read");
            let body = html! {
                h1 { "Audit" }
                p.error-text { "The audit log could not be read: " (err.to_string()) }
            };
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                page(&state, Section::Audit, "Audit", body),
            )
                .into_response();
        }
    };
    let kept: Vec<&AuditRecord> = records.iter().filter(|r| params.keeps(r)).collect();
    let start = (page_no - 1) * PAGE_SIZE;
    let shown = kept.iter().skip(start).take(PAGE_SIZE);
    let has_next = kept.len() > start + PAGE_SIZE;
    let text_filter = |name: &str, label: &str, value: &str| {
        html! {
            div {
                label for=(name) { (label) }
                input type="text" id=(name) name=(name) value=(value);
            }
        }
    };
    let body = html! {
        h1 { "Audit " span.count { "cross-pack calls, newest first" } }
        form.filters method="get" action="/audit" {
            (text_filter("consumer", "Consumer", &params.consumer))
            (text_filter("provider", "Provider", &params.provider))
            (text_filter("user", "User", &params.user))
            div {
                label for="outcome" { "Outcome" }
                select id="outcome" name="outcome" {
                    option value="" { "all" }
                    option value="ok" selected[params.outcome == "ok"] { "ok" }
                    option value="failed" selected[params.outcome == "failed"] { "failed" }
                }
            }
            div { button type="submit" { "Filter" } }
            div { a href="/audit" { "clear" } }
        }
        table #audit {
            thead { tr { th { "When (UTC)" } th { "Consumer" } th { "Provider" } th { "Tool" } th { "User" } th { "Outcome" } th { "Latency" } } }
            tbody {
                @for r in shown {
                    @if let Some(why) = &r.unreadable {
                        tr.unreadable {
                            td.error-text { "unreadable" }
                            td.mono { (r.consumer) }
                            td.mono { (r.provider) }
                            td.mono { (r.tool) }
                            td { (r.user) }
                            td.error-text colspan="2" { "This record could not be read: " (why) }
                        }
                    } @else {
                    tr {
                        td { (r.at.format("%Y-%m-%d %H:%M:%S")) }
                        td.mono { (r.consumer) }
                        td.mono { (r.provider) }
                        td.mono { (r.tool) }
                        td { (r.user) }
                        td class=(if r.outcome == "ok" { "verdict-ok" } else { "error-text" }) {
                            code { (r.outcome) }
                            @if let Some(m) = &r.message { " " span.hint { (m) } }
                        }
                        td { (format!("{:.1}", r.duration_ms)) " ms" }
                    }
                    }
                }
            }
        }
        @if kept.len() <= start {
            p.hint #no-records { "No record on this page." }
        }
        nav.pages {
            @if page_no > 1 { a #previous href=(params.link(page_no - 1)) { "← newer" } }
            span { "page " (page_no) }
            @if has_next { a #next href=(params.link(page_no + 1)) { "older →" } }
        }
    };
    page(&state, Section::Audit, "Audit", body).into_response()
}
