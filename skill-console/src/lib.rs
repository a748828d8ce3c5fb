//! # toolwright-console
//!
//! A web console for a toolwright [`Dispatcher`]: the catalog of skills with their parameters,
//! output schemas, lint findings and tool definitions in every dialect; call forms generated
//! from the parameter metadata; the calls waiting for a person's confirmation; the gateway's
//! audit log. Pages are rendered on the server (maud) and work without JavaScript.
//!
//! [`router`] returns an axum router to mount at `/`, next to the MCP endpoint at `/mcp`:
//!
//! ```no_run
//! use toolwright_console::{router, ConsoleOptions, ConsoleState};
//! use toolwright::Dispatcher;
//!
//! let dispatcher = Dispatcher::from_inventory()?;
//! let options = ConsoleOptions::new(ConsoleOptions::random_token());
//! println!("console at http://127.0.0.1:8765/?token={}", options.token);
//! let app: axum::Router = router(ConsoleState::builder(dispatcher).options(options).build());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The console knows no business domain: a host plugs contract reviews in through the
//! [`ReviewRunner`] trait object.
//!
//! Security (see [`ConsoleOptions`]): every page needs the per-launch token, given once in
//! the URL (`?token=…`), after which an `HttpOnly`, `SameSite=Strict` cookie holds a random
//! session value (never the token); `Host` and
//! `Origin` are checked against allow-lists (loopback by default); every `POST` carries the
//! per-launch CSRF token in a hidden field; request bodies are limited; all text is escaped
//! by the templates; a strict Content-Security-Policy forbids inline scripts.
//!

#![warn(missing_docs)]
#![warn(unreachable_pub)]

mod approvals;
mod audit;
mod call;
mod catalog;
mod layout;
mod review_report;
mod review_runs;
mod review_spec;
mod reviews;
mod security;
mod uploads;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use toolwright::{Dispatcher, SkillContext, SkillRegistration, ToolFilter};
use toolwright_http::HttpGuard;
use toolwright_packs::AuditLog;

/// The review library's report types, which [`FinishedReview`] holds: a host names them
/// here to build one at the version the console reads.
pub use clausewright_report as report;
pub use review_runs::{ReviewRun, REVIEW_KIND};
pub use reviews::{
    FinishedReview, ReviewError, ReviewMode, ReviewRequest, ReviewRunner, ReviewSample,
    ReviewSource,
};
pub use uploads::{UploadedFile, UploadedFiles};

/// Start of the name of the cookie that carries the session after the token was presented
/// once; see [`session_cookie_name`].
pub const SESSION_COOKIE: &str = "toolwright_console";

/// The session cookie's name for a console reached at `host` (the `Host` header):
/// `toolwright_console_8765` for `127.0.0.1:8765`, `toolwright_console` without a port. Browsers
/// share cookies between the ports of one host; one name per port keeps two consoles on one
/// machine from replacing each other's session.
pub fn session_cookie_name(host: &str) -> String {
    match host.rsplit_once(':') {
        Some((_, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{SESSION_COOKIE}_{port}")
        }
        _ => SESSION_COOKIE.to_string(),
    }
}

/// Settings of the console. The defaults accept loopback hosts and origins only and 1 MiB
/// bodies. How long calls wait for a confirmation is the dispatcher's
/// ([`toolwright::DispatcherBuilder::confirmation_ttl`]).
#[derive(Debug, Clone)]
pub struct ConsoleOptions {
    /// The per-launch secret: required once as `?token=` (then kept in a cookie).
    pub token: String,
    /// The `Host` and `Origin` allow-lists (anything else gets 403; a request without
    /// `Origin` passes, the token and the CSRF field still apply): the same guard an MCP
    /// endpoint next to the console uses.
    pub guard: HttpGuard,
    /// Largest request body accepted (else 413), uploads of contracts excepted.
    pub max_body_bytes: usize,
    /// Largest upload of contracts for a review (the whole form; else 413). A host sets it
    /// to the contract size its review library accepts.
    pub max_upload_bytes: usize,
    /// Where the console makes its private upload folder (the temporary directory by
    /// default); folders there of consoles that stopped are removed at start.
    pub upload_parent: std::path::PathBuf,
    /// Reviews running at once (default 2); another start is refused with 429 until one
    /// ends, so reviews cannot take every core and all memory.
    pub max_running_reviews: usize,
    /// Finished runs kept in the run store (default 100): at each review start the oldest
    /// beyond it are deleted from the store (any kind of run, whichever process recorded
    /// it; running ones stay) and their pages answer 404.
    pub max_kept_reviews: usize,
    /// How long a finished run is kept in the run store (default 30 days): at each review
    /// start older ones are deleted.
    pub review_ttl: std::time::Duration,
}

impl ConsoleOptions {
    /// Loopback defaults with this token.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            guard: HttpGuard::loopback(),
            max_body_bytes: 1 << 20,
            max_upload_bytes: 16 << 20,
            upload_parent: std::env::temp_dir(),
            max_running_reviews: 2,
            max_kept_reviews: 100,
            review_ttl: std::time::Duration::from_secs(30 * 24 * 3600),
        }
    }

    /// A fresh random token (122 random bits, hex).
    pub fn random_token() -> String {
        uuid::Uuid::new_v4().simple().to_string()
    }

    /// Sets the request body limit.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the limit of a review's upload.
    #[must_use]
    pub fn max_upload_bytes(mut self, bytes: usize) -> Self {
        self.max_upload_bytes = bytes;
        self
    }

    /// Sets how many reviews run at once (at least one) and how many finished runs the
    /// run store keeps, for how long.
    #[must_use]
    pub fn review_limits(mut self, running: usize, kept: usize, ttl: std::time::Duration) -> Self {
        self.max_running_reviews = running.max(1);
        self.max_kept_reviews = kept;
        self.review_ttl = ttl;
        self
    }
}

/// Everything the console's pages read: the dispatcher, the state calls run with, the audit
/// log, the review runner. Cheap to clone.
#[derive(Clone)]
pub struct ConsoleState {
    inner: Arc<Inner>,
}

struct Inner {
    dispatcher: Dispatcher,
    pack: Option<(toolwright_packs::Gateway, toolwright_packs::Caller)>,
    filter: ToolFilter,
    context: SkillContext,
    options: ConsoleOptions,
    /// The session cookie's value (random per launch, never the token).
    session: String,
    csrf: String,
    audit: Option<Arc<dyn AuditLog>>,
    approvals: approvals::Book,
    /// Where calls waiting for consent are kept when several servers share them.
    confirmations: Option<toolwright::SharedConfirmations>,
    reviews: Option<Arc<dyn ReviewRunner>>,
    /// Where reviews are recorded and listed from.
    runs: Arc<dyn toolwright::runs::RunStore>,
    /// Reviews this console runs now.
    running: std::sync::atomic::AtomicUsize,
    /// The private folder of uploads (with a review runner only); `Err` says why there is
    /// none.
    uploads: Result<uploads::Root, String>,
    /// The search index of the dispatcher's skills (the catalog's search text).
    search: toolwright::search::ToolSearch,
}

impl std::fmt::Debug for ConsoleState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleState")
            .field("skills", &self.inner.dispatcher.len())
            .field("audit", &self.inner.audit.is_some())
            .field("reviews", &self.inner.reviews.is_some())
            .finish_non_exhaustive()
    }
}

impl ConsoleState {
    /// Starts the state of a console over `dispatcher`.
    pub fn builder(dispatcher: Dispatcher) -> ConsoleBuilder {
        ConsoleBuilder {
            dispatcher,
            pack: None,
            filter: ToolFilter::all(),
            context: SkillContext::new(),
            options: ConsoleOptions::new(ConsoleOptions::random_token()),
            audit: None,
            confirmations: None,
            reviews: None,
            runs: None,
        }
    }

    /// The dispatcher calls go through.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.inner.dispatcher
    }

    /// Whether the console shows and calls `id` (a registered skill the filter selects).
    pub(crate) fn shows(&self, id: &str) -> Option<&'static SkillRegistration> {
        self.inner
            .dispatcher
            .registration(id)
            .filter(|reg| self.inner.filter.selects(reg))
    }

    /// Runs a call of `skill` with the model-style argument text `arguments`: through the
    /// pack's gateway when one was given, else the dispatcher; either way leniently parsed
    /// and prepared from the console's context.
    pub(crate) async fn run_call(
        &self,
        skill: &'static SkillRegistration,
        arguments: &str,
    ) -> toolwright::SkillResult {
        let ctx = &self.inner.context;
        match &self.inner.pack {
            None => self.inner.dispatcher.call(skill.id, arguments, ctx).await,
            Some((gateway, caller)) => {
                let call = toolwright::ParsedCall::from_tool_call(toolwright::ToolCall {
                    id: "console".into(),
                    name: skill.wire_name.into(),
                    arguments: arguments.into(),
                });
                // Text that is no JSON object is refused here, as the dispatcher's `call`
                // refuses it, instead of running the tool without arguments.
                if let Some(err) = call.unreadable_arguments() {
                    return toolwright::SkillResult::err(skill.id, err, 0.0);
                }
                gateway.dispatch(caller, &call, ctx).await
            }
        }
    }

    /// The settings.
    pub fn options(&self) -> &ConsoleOptions {
        &self.inner.options
    }

    /// The per-launch CSRF token every `POST` must carry in its `csrf` field.
    pub fn csrf_token(&self) -> &str {
        &self.inner.csrf
    }

    /// The console's private upload folder, when it has one (with a review runner).
    pub fn upload_folder(&self) -> Option<&std::path::Path> {
        self.inner.uploads.as_ref().ok().map(uploads::Root::path)
    }

    /// Removes the upload folder and every upload in it now, even while clones of the state
    /// live on (a review still running): for a host that is about to exit.
    pub fn remove_uploads(&self) {
        if let Ok(root) = &self.inner.uploads {
            root.remove();
        }
    }
}

/// Builds a [`ConsoleState`].
pub struct ConsoleBuilder {
    dispatcher: Dispatcher,
    pack: Option<(toolwright_packs::Gateway, toolwright_packs::Caller)>,
    filter: ToolFilter,
    context: SkillContext,
    options: ConsoleOptions,
    audit: Option<Arc<dyn AuditLog>>,
    confirmations: Option<toolwright::SharedConfirmations>,
    reviews: Option<Arc<dyn ReviewRunner>>,
    runs: Option<Arc<dyn toolwright::runs::RunStore>>,
}

impl std::fmt::Debug for ConsoleBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleBuilder").finish_non_exhaustive()
    }
}

impl ConsoleBuilder {
    /// Runs the console's calls through a pack's gateway in the name of `caller` (its pack,
    /// its user), as an MCP endpoint serving that pack does: calls into other packs are
    /// checked (import, subscription, rate limit) and audited. The gateway's dispatcher
    /// replaces the one the console was started with, and its audit log is the audit page's
    /// unless [`audit`](Self::audit) names another.
    #[must_use]
    pub fn pack(
        mut self,
        gateway: toolwright_packs::Gateway,
        caller: toolwright_packs::Caller,
    ) -> Self {
        self.dispatcher = gateway.dispatcher().clone();
        self.pack = Some((gateway, caller));
        self
    }

    /// Shows and calls only the skills `filter` selects (its domain, category and ids; the
    /// status shown, not filtered): the set an MCP server next to the console serves.
    #[must_use]
    pub fn filter(mut self, filter: ToolFilter) -> Self {
        self.filter = filter;
        self
    }

    /// The state calls are prepared from (for example a loaded contract).
    #[must_use]
    pub fn context(mut self, context: SkillContext) -> Self {
        self.context = context;
        self
    }

    /// The settings (token, allow-lists, limits).
    #[must_use]
    pub fn options(mut self, options: ConsoleOptions) -> Self {
        self.options = options;
        self
    }

    /// The log the gateway writes its cross-pack call records to (the audit page).
    #[must_use]
    pub fn audit(mut self, log: Arc<dyn AuditLog>) -> Self {
        self.audit = Some(log);
        self
    }

    /// Lists and decides the calls waiting for consent in a store several servers share (the
    /// MCP endpoint beside the console keeps its parked calls there too): the approvals page
    /// shows every server's waiting calls, and one approved here runs on this server.
    #[must_use]
    pub fn confirmations(mut self, shared: toolwright::SharedConfirmations) -> Self {
        self.confirmations = Some(shared);
        self
    }

    /// Runs reviews for the reviews page (without one the page says so).
    #[must_use]
    pub fn reviews(mut self, runner: Arc<dyn ReviewRunner>) -> Self {
        self.reviews = Some(runner);
        self
    }

    /// Records the reviews started here in `store` and lists the review runs it holds (also
    /// those another process recorded there). Without one, reviews are kept in memory for
    /// the life of the console.
    #[must_use]
    pub fn runs(mut self, store: Arc<dyn toolwright::runs::RunStore>) -> Self {
        self.runs = Some(store);
        self
    }

    /// The finished state.
    pub fn build(self) -> ConsoleState {
        // A pack's gateway brings its audit log unless another was given.
        let audit = self
            .audit
            .or_else(|| self.pack.as_ref().map(|(g, _)| g.audit_log().clone()));
        let uploads = match &self.reviews {
            None => Err("this console runs no reviews".to_string()),
            Some(_) => uploads::Root::create(&self.options.upload_parent).map_err(|err| {
                tracing::warn!(parent = %self.options.upload_parent.display(), %err, "no upload folder: uploads are refused");
                format!("the server has no folder for uploads ({err})")
            }),
        };
        ConsoleState {
            inner: Arc::new(Inner {
                pack: self.pack,
                filter: self.filter,
                context: self.context,
                options: self.options,
                session: ConsoleOptions::random_token(),
                csrf: ConsoleOptions::random_token(),
                audit,
                approvals: approvals::Book::default(),
                confirmations: self.confirmations,
                reviews: self.reviews,
                runs: self
                    .runs
                    .unwrap_or_else(|| Arc::new(toolwright::runs::MemoryRunStore::new())),
                running: std::sync::atomic::AtomicUsize::new(0),
                uploads,
                search: toolwright::search::ToolSearch::new(&self.dispatcher),
                dispatcher: self.dispatcher,
            }),
        }
    }
}

/// The console's routes, to mount at `/`: `GET /` (catalog; `?q=` ranks it), `GET
/// /api/tools` (the catalog as JSON), `/skills/{id}` (a skill, its
/// call form), `POST /skills/{id}/call`, `/approvals` and its `approve` / `reject` posts,
/// `/audit`, `/reviews` (form, start, the runs; a run's progress, report, downloads, its
/// `cancel` and `resume` posts) and `/assets/*`.
pub fn router(state: ConsoleState) -> axum::Router {
    // Each POST's own limit is applied when its CSRF field is read (`security::guard`).
    let max_body = state
        .inner
        .options
        .max_body_bytes
        .max(state.inner.options.max_upload_bytes);
    axum::Router::new()
        .route("/", get(catalog::catalog_page))
        .route("/api/tools", get(catalog::tools_api))
        .route("/skills/{id}", get(catalog::skill_page))
        .route("/skills/{id}/call", post(call::call_skill))
        .route("/approvals", get(approvals::approvals_page))
        .route("/approvals/{id}/approve", post(approvals::approve))
        .route("/approvals/{id}/reject", post(approvals::reject))
        .route("/audit", get(audit::audit_page))
        .route("/reviews", get(reviews::reviews_page).post(reviews::start))
        .route("/reviews/{id}", get(review_runs::run_page))
        .route("/reviews/{id}/cancel", post(review_runs::cancel))
        .route("/reviews/{id}/resume", post(review_runs::resume))
        .route(
            "/reviews/{id}/report.md",
            get(review_runs::download_markdown),
        )
        .route("/reviews/{id}/report.json", get(review_runs::download_json))
        .route("/assets/console.css", get(layout::stylesheet))
        .route(
            "/favicon.ico",
            get(|| async { axum::http::StatusCode::NO_CONTENT }),
        )
        .fallback(layout::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::guard,
        ))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(security::headers))
        .with_state(state)
}

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
