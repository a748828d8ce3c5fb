//! Server-side rendering time of the console's pages, through the whole router (token
//! cookie check, Host check, handler, headers):
//!
//! - `catalog/1000`: the catalog page listing 1,000 skills.
//! - `catalog/1000_filtered`: the same catalog with a domain filter and a search text.
//! - `skill_page`: one skill's page (parameters, form, lint, eight dialect definitions).

use std::hint::black_box;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::BodyExt;
use toolwright::prelude::*;
use toolwright::SkillRegistration;
use toolwright_console::{router, ConsoleOptions, ConsoleState, SESSION_COOKIE};
use tower::ServiceExt;

/// Passages found for a query.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hits {
    /// One sentence.
    pub summary: String,
    /// Passage ids.
    pub hits: Vec<String>,
}

/// Search the reference documents for passages relevant to a clause.
#[skill(
    id = "bench.search_reference_doc",
    category = "query",
    version = "1.0.0"
)]
pub fn search_reference_doc(
    /// The clause the passages are for.
    clause_id: String,
    /// Free-text query.
    query: String,
    /// How many passages to return.
    #[arg(default = 5)]
    top_k: u32,
) -> Hits {
    Hits {
        summary: format!("top {top_k} passages for '{query}' in {clause_id}"),
        hits: Vec::new(),
    }
}

const TOKEN: &str = "bench-token";
const DOMAINS: [&str; 4] = ["fidic", "sha_spa", "crm", "*"];
const CATEGORIES: [&str; 5] = ["query", "analysis", "stats", "create", "ui"];

/// The skill and `n - 1` copies with distinct ids, spread over domains and categories.
fn registrations(n: usize) -> Vec<&'static SkillRegistration> {
    let template = toolwright::linked_skills()
        .find(|r| r.id == "bench.search_reference_doc")
        .expect("the bench skill is linked");
    let copies = (1..n).map(|i| {
        let id: &'static str = Box::leak(format!("bench.search_{i:04}").into_boxed_str());
        &*Box::leak(Box::new(SkillRegistration {
            id,
            wire_name: Box::leak(id.replace('.', "_").into_boxed_str()),
            domain: DOMAINS[i % DOMAINS.len()],
            category: CATEGORIES[i % CATEGORIES.len()],
            ..*template
        }))
    });
    std::iter::once(template).chain(copies).collect()
}

fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .header(header::HOST, "127.0.0.1:8765")
        .header(header::COOKIE, format!("{SESSION_COOKIE}_8765={TOKEN}"))
        .body(Body::empty())
        .unwrap()
}

async fn render(app: &axum::Router, path: &str) -> usize {
    let response = app.clone().oneshot(get(path)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .len()
}

fn pages(c: &mut Criterion) {
    let dispatcher = Dispatcher::builder()
        .skills(registrations(1000))
        .build()
        .expect("dispatcher builds");
    assert_eq!(dispatcher.len(), 1000);
    let state = ConsoleState::builder(dispatcher)
        .options(ConsoleOptions::new(TOKEN))
        .build();
    let app = router(state);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let size = rt.block_on(render(&app, "/"));
    assert!(size > 100_000, "the page lists 1,000 skills ({size} bytes)");

    let mut group = c.benchmark_group("console");
    group.bench_function("catalog/1000", |b| {
        b.iter(|| black_box(rt.block_on(render(&app, "/"))));
    });
    group.bench_function("catalog/1000_filtered", |b| {
        b.iter(|| black_box(rt.block_on(render(&app, "/?domain=fidic&q=search_01"))));
    });
    group.bench_function("skill_page", |b| {
        b.iter(|| black_box(rt.block_on(render(&app, "/skills/bench.search_0042"))));
    });
    group.finish();
}

criterion_group!(benches, pages);
criterion_main!(benches);
