//! The reviews page with a runner of its own: start, progress without blocking, report,
//! downloads, errors.

use std::sync::{Arc, Condvar, Mutex};

use crate::support::*;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use toolwright::agent::orchestrate::{Budget, BudgetUsage};
use toolwright::agent::TokenUsage;
use toolwright::runs::{MemoryRunStore, RunEnd, RunRecord, RunStatus, RunStore, RunUnit};
use toolwright_console::report::{
    ClausePlan, ClauseReview, CrossClauseFinding, DeepRun, Domain, Finding, Orchestration,
    PlanDepth, Priority, ReviewMode as ClauseMode, ReviewReport, ReviewSummary, Risk, RiskKind,
    RiskLevel, Subject,
};
use toolwright_console::{
    router, ConsoleOptions, ConsoleState, FinishedReview, ReviewError, ReviewMode, ReviewRequest,
    ReviewRun, ReviewRunner, ReviewSample, ReviewSource,
};

mod uploads;

/// Reviews one clause per line of the contract; a line with "risk" is a high risk (in the
/// orchestrate mode, quoted and sent to a deep review by a planner). Records
/// its first clause, then waits for the test to open its gate (or for a stop request)
/// before recording the others, so the test sees the review running. Offers the agent mode
/// when it has a `model`.
#[derive(Default)]
pub(crate) struct LineRunner {
    pub(crate) gate: Mutex<bool>,
    pub(crate) opened: Condvar,
    pub(crate) seen: Mutex<Vec<ReviewRequest>>,
    pub(crate) model: Option<String>,
}

impl LineRunner {
    pub(crate) fn open(&self) {
        *self.gate.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Waits for the gate; `false` when the run was asked to stop first.
    fn wait(&self, journal: &toolwright::runs::RunJournal) -> bool {
        let mut gate = self.gate.lock().unwrap();
        while !*gate {
            if journal.stop_requested() {
                return false;
            }
            gate = self
                .opened
                .wait_timeout(gate, std::time::Duration::from_millis(20))
                .unwrap()
                .0;
        }
        true
    }
}

pub(crate) fn clause(i: usize) -> RunUnit {
    RunUnit {
        kind: "clause".into(),
        key: (i + 1).to_string(),
        counts: true,
        body: "{}".into(),
    }
}

impl ReviewRunner for LineRunner {
    fn samples(&self) -> Vec<ReviewSample> {
        vec![ReviewSample {
            id: "demo".into(),
            title: "Demo contract".into(),
        }]
    }

    fn domains(&self) -> Vec<String> {
        vec!["fidic".into(), "sha_spa".into()]
    }

    fn agent_model(&self) -> Option<String> {
        self.model.clone()
    }

    fn run(&self, run: ReviewRun) -> Result<(), ReviewError> {
        let request = &run.request;
        self.seen.lock().unwrap().push(request.clone());
        let text = match &request.source {
            ReviewSource::Sample(_) => "1 fine\n2 a risk <script>x</script>\n3 fine".to_string(),
            ReviewSource::Upload(upload) => {
                std::fs::read_to_string(&upload.files()[0].path).expect("the upload is on disk")
            }
        };
        if text.contains("unreadable") {
            // As a library would say it: naming the file by where it lies.
            let place = match &request.source {
                ReviewSource::Upload(upload) => format!("{}: ", upload.review_path().display()),
                ReviewSource::Sample(_) => String::new(),
            };
            return Err(ReviewError(format!("{place}the contract has no clauses")));
        }
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let handle = tokio::runtime::Handle::current();
        let journal = handle.block_on(run.journal(lines.len() as u64))?;
        if journal.recorded_units().is_empty() {
            journal.record_unit(clause(0));
        }
        let store_error = |e: toolwright::runs::RunStoreError| ReviewError(e.to_string());
        handle.block_on(journal.flush()).map_err(store_error)?;
        let end = if self.wait(&journal) {
            (1..lines.len()).for_each(|i| journal.record_unit(clause(i)));
            let result = serde_json::json!({"lines": lines, "mode": request.mode.as_str()});
            RunEnd {
                status: RunStatus::Succeeded,
                result: Some(result.to_string()),
                error: None,
            }
        } else {
            RunEnd {
                status: RunStatus::Cancelled,
                result: None,
                error: Some("stopped on request".into()),
            }
        };
        handle.block_on(journal.finish(&end)).map_err(store_error)
    }

    fn outcome(&self, _: &RunRecord, result: &str) -> Result<FinishedReview, ReviewError> {
        let value: serde_json::Value =
            serde_json::from_str(result).map_err(|e| ReviewError(e.to_string()))?;
        let lines: Vec<String> = serde_json::from_value(value["lines"].clone())
            .map_err(|e| ReviewError(e.to_string()))?;
        let orchestrate = value["mode"] == "orchestrate";
        let clauses: Vec<ClauseReview> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| line_review(i, l, orchestrate))
            .collect();
        let risks = clauses.iter().map(|c| c.risks.len()).sum::<usize>();
        let report = ReviewReport {
            document_id: "demo".into(),
            domain: Domain::Generic,
            our_party: String::new(),
            checklist_generated: false,
            incomplete: false,
            summary: ReviewSummary::of(&clauses),
            clauses,
            orchestration: orchestrate.then(|| plan(&lines)),
        };
        Ok(FinishedReview {
            report,
            markdown: format!("# Review\n\n{risks} risks\n"),
            json: format!("{{\"risks\": {risks}}}"),
            method: format!("judged in {} mode", value["mode"].as_str().unwrap_or("?")),
        })
    }
}

/// The review of line `i` of a contract: a high risk when it says "risk", one that the
/// contract lacks a provision when it also says "missing"; `quoted`, the line is quoted.
fn line_review(i: usize, line: &str, quoted: bool) -> ClauseReview {
    let clause_id = (i + 1).to_string();
    let risks = line
        .contains("risk")
        .then(|| {
            let kind = RiskKind::Named("demo_risk".into());
            let mut finding = Finding::new(
                kind.clone(),
                RiskLevel::High,
                format!("clause says: {line}"),
            );
            if line.contains("missing") {
                finding.subject = Subject::Absence(kind);
            }
            finding.reason = "the word risk".into();
            finding.analysis = format!("original text: {line}");
            if quoted {
                finding.quote = line.to_string();
            }
            Risk::new(clause_id.clone(), finding)
        })
        .into_iter()
        .collect();
    ClauseReview {
        clause_id,
        clause_name: String::new(),
        priority: Priority::Medium,
        skills: Vec::new(),
        skipped_skills: Vec::new(),
        risks,
        mode: ClauseMode::Checklist,
        tools_chosen: Vec::new(),
        agent_messages: Vec::new(),
        fallback_reason: None,
        agent_warnings: Vec::new(),
        model_turns: 0,
        usage: Default::default(),
    }
}

/// A planner's plan of the lines: a deep review (one turn, 21 tokens) of each line that says
/// "risk", a quick one of the others, the risky lines together as one finding across
/// clauses, two of ten model requests spent.
fn plan(lines: &[String]) -> Orchestration {
    let risky: Vec<String> = (1..=lines.len())
        .filter(|&n| lines[n - 1].contains("risk"))
        .map(|n| n.to_string())
        .collect();
    Orchestration {
        plan: lines
            .iter()
            .enumerate()
            .map(|(i, l)| ClausePlan {
                clause_id: (i + 1).to_string(),
                depth: if l.contains("risk") {
                    PlanDepth::Deep
                } else {
                    PlanDepth::Quick
                },
                reason: if l.contains("risk") {
                    "says risk"
                } else {
                    "fine"
                }
                .into(),
            })
            .collect(),
        summary: Some(format!("{} clause(s) carry risk.", risky.len())),
        risks: Vec::new(),
        cross_clause: vec![CrossClauseFinding {
            clause_ids: risky.clone(),
            risk_level: RiskLevel::Medium,
            risk_type: String::new(),
            description: "the risks add up".into(),
        }],
        budget: Budget {
            model_requests: Some(10),
            ..Budget::default()
        },
        spent: BudgetUsage {
            model_requests: 2,
            input_tokens: 30,
            output_tokens: 12,
            tool_calls: 0,
        },
        planner_turns: 1,
        planner_usage: TokenUsage::default(),
        deep: risky
            .iter()
            .map(|id| DeepRun {
                clause_id: id.clone(),
                status: "complete".into(),
                reason: None,
                turns: 1,
                tool_calls: 0,
                usage: TokenUsage {
                    prompt_tokens: 15,
                    completion_tokens: 6,
                    cached_tokens: 0,
                },
                elapsed_ms: 1.0,
            })
            .collect(),
        fallback_reason: None,
        repairs: Vec::new(),
        warnings: Vec::new(),
        elapsed_ms: 2.0,
    }
}

/// Where a start sent the browser: the run's page.
pub(crate) fn location(answer: &Answer) -> String {
    answer.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string()
}

/// `page` with the run id and the times masked, for a snapshot.
fn masked(page: &str, id: &str) -> String {
    let mut out = page.replace(id, "RUN");
    while let Some(at) = out.find(" UTC") {
        let start = at.saturating_sub(19);
        out.replace_range(start..at + 4, "TIME");
    }
    out
}

fn console(runner: Arc<LineRunner>) -> (ConsoleState, axum::Router) {
    console_on(runner, Arc::new(MemoryRunStore::new()))
}

pub(crate) fn console_on(
    runner: Arc<LineRunner>,
    store: Arc<dyn RunStore>,
) -> (ConsoleState, axum::Router) {
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN))
        .reviews(runner)
        .runs(store)
        .build();
    let app = router(state.clone());
    (state, app)
}

fn multipart(fields: &[(&str, Option<&str>, &str)]) -> (String, Vec<u8>) {
    let boundary = "XBOUNDARYX";
    let mut body = Vec::new();
    for (name, file, value) in fields {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: text/markdown\r\n\r\n").as_bytes(),
            ),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(value.as_bytes());
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

pub(crate) async fn start(app: &axum::Router, fields: &[(&str, Option<&str>, &str)]) -> Answer {
    let (kind, body) = multipart(fields);
    send(
        app,
        Request::post("/reviews")
            .header(header::HOST, HOST)
            .header(header::COOKIE, cookie(app).await)
            .header(header::CONTENT_TYPE, kind)
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

/// Polls the review's page until it shows `marker` (gives up after a minute, so a broken
/// review fails the test instead of hanging it).
pub(crate) async fn page_once(app: &axum::Router, path: &str, marker: &str) -> String {
    for _ in 0..6000 {
        let page = get(app, path).await;
        if page.body.contains(marker) {
            return page.body;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("{path} never showed {marker:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sample_review_runs_in_the_background_and_reports_its_risks() {
    let runner = Arc::new(LineRunner::default());
    let (state, app) = console(runner.clone());
    let form = get(&app, "/reviews").await;
    assert!(form.body.contains("Demo contract"));
    assert!(form.body.contains(r#"enctype="multipart/form-data""#));

    let started = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("domain", None, "fidic"),
            ("our_party", None, "Contractor"),
            ("language", None, "en"),
        ],
    )
    .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.body);
    let path = location(&started);
    let id = path.strip_prefix("/reviews/").unwrap().to_string();
    assert!(id.starts_with('r') && id.len() == 23, "{id}");

    // The review waits at its gate: the page answers meanwhile, with the progress bar
    // read from the run store.
    let running = page_once(&app, &path, "1 of 3 clauses").await;
    assert!(
        running.contains(r#"<progress id="progress" max="3" value="1">"#),
        "{running}"
    );
    assert!(running.contains(r#"http-equiv="refresh""#));
    assert!(running.contains(r#"id="review-cancel""#), "{running}");
    let early = get(&app, &format!("{path}/report.md")).await;
    assert_eq!(early.status, StatusCode::CONFLICT);
    let list = get(&app, "/reviews").await.body;
    assert!(
        list.contains(&id) && list.contains("Demo contract") && list.contains(">running<"),
        "{list}"
    );

    runner.open();
    let done = page_once(&app, &path, "id=\"risks\"").await;
    assert!(done.contains("1 high"), "{done}");
    assert!(done.contains(r#"<td class="level-high">high</td>"#));
    assert!(done.contains("&lt;script&gt;x&lt;/script&gt;"), "escaped");
    assert!(!done.contains("<script>"));
    assert!(!done.contains("http-equiv"), "no refresh once done");
    insta::assert_snapshot!("review_report", outline(&masked(&done, &id)));

    let md = get(&app, &format!("{path}/report.md")).await;
    assert_eq!(md.status, StatusCode::OK);
    assert!(md.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains(&format!("review-{id}.md")));
    assert_eq!(md.body, "# Review\n\n1 risks\n");
    let json = get(&app, &format!("{path}/report.json")).await;
    assert_eq!(json.headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(json.body, "{\"risks\": 1}");
    let list = get(&app, "/reviews").await.body;
    assert!(
        list.contains(">succeeded<") && list.contains("3 of 3"),
        "{list}"
    );

    let seen = runner.seen.lock().unwrap()[0].clone();
    assert_eq!(seen.source, ReviewSource::Sample("demo".into()));
    assert_eq!(seen.mode, ReviewMode::Checklist);
    assert!(done.contains("judged in checklist mode"), "{done}");
    assert_eq!(
        (seen.domain.as_str(), seen.our_party.as_str()),
        ("fidic", "Contractor")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_contract_is_reviewed_and_failures_are_shown() {
    let runner = Arc::new(LineRunner::default());
    runner.open();
    let (state, app) = console(runner.clone());
    let ok = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, ""),
            ("files", Some("c.md"), "risk one\nfine\nrisk missing"),
        ],
    )
    .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    let done = page_once(&app, &location(&ok), "id=\"risks\"").await;
    assert!(done.contains("clause says: risk one"));
    // A provision the contract lacks is marked missing; a found one is not.
    assert_eq!(
        done.matches("<span class=\"missing\">missing</span>")
            .count(),
        1,
        "{done}"
    );
    assert!(
        matches!(&runner.seen.lock().unwrap()[0].source, ReviewSource::Upload(files) if files.files()[0].name == "c.md")
    );

    let bad = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("u.txt"), "unreadable"),
        ],
    )
    .await;
    // The review could not start: nothing is recorded, the reason is shown at once.
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.body);
    // The file is named as uploaded; the server's folder is not shown.
    assert!(
        bad.body.contains("u.txt: the contract has no clauses"),
        "{}",
        bad.body
    );
    let folder = state.upload_folder().unwrap().display().to_string();
    assert!(!bad.body.contains(&folder), "{}", bad.body);
    let list = get(&app, "/reviews").await;
    assert_eq!(list.body.matches("/reviews/r").count(), 1, "{}", list.body);
}

#[tokio::test]
async fn bad_review_forms_are_refused_with_the_reason() {
    let runner = Arc::new(LineRunner::default());
    let (state, app) = console(runner);
    let nothing = start(
        &app,
        &[("csrf", None, state.csrf_token()), ("sample", None, "")],
    )
    .await;
    assert_eq!(nothing.status, StatusCode::BAD_REQUEST);
    assert!(nothing
        .body
        .contains("choose a sample or upload a contract"));
    let domain = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("domain", None, "law"),
        ],
    )
    .await;
    assert_eq!(domain.status, StatusCode::BAD_REQUEST);
    assert!(domain
        .body
        .contains("unknown domain `law`; expected one of: fidic, sha_spa"));
    let agent = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("mode", None, "agent"),
        ],
    )
    .await;
    assert_eq!(agent.status, StatusCode::BAD_REQUEST);
    assert!(
        agent.body.contains("agent mode needs a model"),
        "{}",
        agent.body
    );
    let mode = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("mode", None, "oracle"),
        ],
    )
    .await;
    assert_eq!(mode.status, StatusCode::BAD_REQUEST);
    assert!(mode
        .body
        .contains("unknown mode `oracle`; expected `checklist`, `agent` or `orchestrate`"));
    let orchestrate = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("mode", None, "orchestrate"),
        ],
    )
    .await;
    assert_eq!(orchestrate.status, StatusCode::BAD_REQUEST);
    assert!(orchestrate.body.contains("orchestrate mode needs a model"));
    let no_csrf = start(&app, &[("sample", None, "demo")]).await;
    assert_eq!(no_csrf.status, StatusCode::FORBIDDEN);
    assert_eq!(get(&app, "/reviews/9").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_mode_is_offered_only_with_a_model_and_reaches_the_runner() {
    let plain = Arc::new(LineRunner::default());
    let (_, app) = console(plain);
    let form = get(&app, "/reviews").await.body;
    assert!(
        form.contains(r#"<option value="agent" disabled>agent (no model configured)</option>"#),
        "{form}"
    );

    let runner = Arc::new(LineRunner {
        model: Some("mock-model".into()),
        ..LineRunner::default()
    });
    runner.open();
    let (state, app) = console(runner.clone());
    let form = get(&app, "/reviews").await.body;
    assert!(
        form.contains(
            r#"<option value="agent">agent (the model chooses the skills: mock-model)</option>"#
        ),
        "{form}"
    );
    let started = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("sample", None, "demo"),
            ("mode", None, "agent"),
        ],
    )
    .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.body);
    let done = page_once(&app, &location(&started), "id=\"risks\"").await;
    assert!(done.contains("judged in agent mode"), "{done}");
    assert_eq!(runner.seen.lock().unwrap()[0].mode, ReviewMode::Agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_orchestrated_review_shows_its_plan_and_quoted_evidence() {
    let runner = Arc::new(LineRunner {
        model: Some("mock-model".into()),
        ..LineRunner::default()
    });
    runner.open();
    let (state, app) = console(runner.clone());
    let started = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("c.md"), "risk one\nfine\nrisk <b>two</b>"),
            ("mode", None, "orchestrate"),
            ("budget_requests", None, "10"),
        ],
    )
    .await;
    assert_eq!(started.status, StatusCode::SEE_OTHER, "{}", started.body);
    let done = page_once(&app, &location(&started), "id=\"risks\"").await;
    for part in [
        r#"<p id="plan-budget">Budget used: 2 of 10 model requests, 30 input tokens (no limit), 12 output tokens (no limit); planner 1 turn(s)</p>"#,
        r#"<p id="plan-summary">2 clause(s) carry risk.</p>"#,
        r#"<tr><td class="mono">1, 3</td><td class="level-medium">medium</td><td>the risks add up</td></tr>"#,
        r#"<tr><td class="mono">1</td><td>deep</td><td>1</td><td>21</td><td>says risk</td></tr>"#,
        r#"<tr><td class="mono">2</td><td>quick</td><td></td><td></td><td>fine</td></tr>"#,
        "<pre class=\"evidence\">original text: risk one\n\nContract text: risk one</pre>",
        "Contract text: risk &lt;b&gt;two&lt;/b&gt;</pre>",
        "judged in orchestrate mode",
    ] {
        assert!(done.contains(part), "{part} in {done}");
    }
    assert!(!done.contains("plan-fallback"), "{done}");
    assert_eq!(runner.seen.lock().unwrap()[0].mode, ReviewMode::Orchestrate);
}
