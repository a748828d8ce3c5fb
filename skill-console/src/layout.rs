//! The page shell (head, navigation), error pages and the stylesheet.

use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use crate::ConsoleState;

/// The stylesheet, embedded in the binary.
const CSS: &str = include_str!("../assets/console.css");

/// The sections of the navigation bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Catalog,
    Approvals,
    Audit,
    Reviews,
}

/// A full page: head, navigation with the current section marked, and `body`.
pub(crate) fn page(
    state: &ConsoleState,
    section: Section,
    title: &str,
    body: Markup,
) -> Html<String> {
    let pending = state.inner.dispatcher.pending_confirmations().len();
    let link = |href: &str, label: &str, this: Section| {
        html! {
            a href=(href) class=[(section == this).then_some("current")] { (label) }
        }
    };
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                (head(title, true))
                body {
                    header.top {
                        span.brand { "toolwright console" }
                        nav {
                            (link("/", "Catalog", Section::Catalog)) " "
                            a href="/approvals" class=[(section == Section::Approvals).then_some("current")] {
                                "Approvals"
                                @if pending > 0 { " " span.badge #pending-count { (pending) } }
                            } " "
                            (link("/audit", "Audit", Section::Audit)) " "
                            (link("/reviews", "Reviews", Section::Reviews))
                        }
                    }
                    main { (body) }
                }
            }
        }
        .into_string(),
    )
}

/// A page for a refused or failed request (no navigation: the visitor may not be signed in).
pub(crate) fn error_page(title: &str, message: &str) -> Html<String> {
    Html(
        html! {
            (DOCTYPE)
            html lang="en" {
                (head(title, false))
                body {
                    main {
                        h1 { (title) }
                        p.error-text { (message) }
                    }
                }
            }
        }
        .into_string(),
    )
}

/// A page's head: its title and the stylesheet; `viewport` for the pages laid out for
/// small screens.
fn head(title: &str, viewport: bool) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            @if viewport {
                meta name="viewport" content="width=device-width, initial-scale=1";
            }
            title { (title) " · toolwright console" }
            link rel="stylesheet" href="/assets/console.css";
        }
    }
}

/// `GET /assets/console.css`.
pub(crate) async fn stylesheet() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "max-age=3600"),
        ],
        CSS,
    )
        .into_response()
}

/// Anything not routed.
pub(crate) async fn not_found(uri: axum::http::Uri) -> Response {
    (
        StatusCode::NOT_FOUND,
        error_page(
            "Not found",
            &format!("nothing at `{}`; the catalog is at /", uri.path()),
        ),
    )
        .into_response()
}

/// A hidden field carrying the CSRF token, for every form that posts.
pub(crate) fn csrf_field(state: &ConsoleState) -> Markup {
    html! { input type="hidden" name="csrf" value=(state.inner.csrf); }
}

/// Pretty JSON text of a value.
pub(crate) fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}
