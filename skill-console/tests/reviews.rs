//! The reviews page with a runner of its own: start, progress without blocking, report,
//! downloads, errors.

mod support;

use std::sync::{Arc, Condvar, Mutex};

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use skill_console::{
    router, ConsoleOptions, ConsoleState, ProgressFn, ReviewError, ReviewLevel, ReviewOutcome,
    ReviewRequest, ReviewRisk, ReviewRunner, ReviewSample, ReviewSource,
};
use support::*;

/// Reviews one clause per line of the contract; a line with "risk" is a high risk. Waits for
/// the test to open its gate before finishing, so the test sees the review running.
#[derive(Default)]
struct LineRunner {
    gate: Mutex<bool>,
    opened: Condvar,
    seen: Mutex<Vec<ReviewRequest>>,
}

impl LineRunner {
    fn open(&self) {
        *self.gate.lock().unwrap() = true;
        self.opened.notify_all();
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

    fn run(
        &self,
        request: &ReviewRequest,
        progress: ProgressFn<'_>,
    ) -> Result<ReviewOutcome, ReviewError> {
        self.seen.lock().unwrap().push(request.clone());
        let text = match &request.source {
            ReviewSource::Sample(_) => "1 fine\n2 a risk <script>x</script>\n3 fine".to_string(),
            ReviewSource::Upload(files) => String::from_utf8_lossy(&files[0].1).into_owned(),
        };
        if text.contains("unreadable") {
            return Err(ReviewError("the contract has no clauses".into()));
        }
        let lines: Vec<&str> = text.lines().collect();
        progress(1, lines.len());
        let mut gate = self.gate.lock().unwrap();
        while !*gate {
            gate = self.opened.wait(gate).unwrap();
        }
        let risks = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains("risk"))
            .map(|(i, l)| ReviewRisk {
                clause_id: (i + 1).to_string(),
                level: ReviewLevel::High,
                risk_type: "demo_risk".into(),
                description: format!("clause says: {l}"),
                reason: "the word risk".into(),
                evidence: format!("original text: {l}"),
            })
            .collect::<Vec<_>>();
        progress(lines.len(), lines.len());
        Ok(ReviewOutcome {
            title: "demo".into(),
            clauses: lines.len(),
            markdown: format!("# Review\n\n{} risks\n", risks.len()),
            json: format!("{{\"risks\": {}}}", risks.len()),
            risks,
        })
    }
}

fn console(runner: Arc<LineRunner>) -> (ConsoleState, axum::Router) {
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN))
        .reviews(runner)
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

async fn start(app: &axum::Router, fields: &[(&str, Option<&str>, &str)]) -> Answer {
    let (kind, body) = multipart(fields);
    send(
        app,
        Request::post("/reviews")
            .header(header::HOST, HOST)
            .header(header::COOKIE, cookie())
            .header(header::CONTENT_TYPE, kind)
            .body(Body::from(body))
            .unwrap(),
    )
    .await
}

/// Polls the review's page until it shows `marker` (gives up after a minute, so a broken
/// review fails the test instead of hanging it).
async fn page_once(app: &axum::Router, path: &str, marker: &str) -> String {
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
    assert_eq!(started.headers[header::LOCATION], "/reviews/1");

    // The review waits at its gate: the page answers meanwhile, with the progress bar.
    let running = page_once(&app, "/reviews/1", "1 of 3 clauses").await;
    assert!(
        running.contains(r#"<progress id="progress" max="3" value="1">"#),
        "{running}"
    );
    assert!(running.contains(r#"http-equiv="refresh""#));
    let early = get(&app, "/reviews/1/report.md").await;
    assert_eq!(early.status, StatusCode::CONFLICT);

    runner.open();
    let done = page_once(&app, "/reviews/1", "id=\"risks\"").await;
    assert!(done.contains("1 high"), "{done}");
    assert!(done.contains(r#"<td class="level-high">high</td>"#));
    assert!(done.contains("&lt;script&gt;x&lt;/script&gt;"), "escaped");
    assert!(!done.contains("<script>"));
    assert!(!done.contains("http-equiv"), "no refresh once done");
    insta::assert_snapshot!("review_report", outline(&done));

    let md = get(&app, "/reviews/1/report.md").await;
    assert_eq!(md.status, StatusCode::OK);
    assert!(md.headers[header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .contains("review-1.md"));
    assert_eq!(md.body, "# Review\n\n1 risks\n");
    let json = get(&app, "/reviews/1/report.json").await;
    assert_eq!(json.headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(json.body, "{\"risks\": 1}");

    let seen = runner.seen.lock().unwrap()[0].clone();
    assert_eq!(seen.source, ReviewSource::Sample("demo".into()));
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
            ("files", Some("c.md"), "risk one\nfine"),
        ],
    )
    .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    let done = page_once(&app, "/reviews/1", "id=\"risks\"").await;
    assert!(done.contains("clause says: risk one"));
    assert!(
        matches!(&runner.seen.lock().unwrap()[0].source, ReviewSource::Upload(files) if files[0].0 == "c.md")
    );

    let bad = start(
        &app,
        &[
            ("csrf", None, state.csrf_token()),
            ("files", Some("u.txt"), "unreadable"),
        ],
    )
    .await;
    assert_eq!(bad.status, StatusCode::SEE_OTHER);
    let failed = page_once(&app, "/reviews/2", "review-error").await;
    assert!(failed.contains("The review failed: the contract has no clauses"));
    let list = get(&app, "/reviews").await;
    assert!(
        list.body.contains("done: 1 risks")
            && list.body.contains("failed: the contract has no clauses")
    );
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
    let no_csrf = start(&app, &[("sample", None, "demo")]).await;
    assert_eq!(no_csrf.status, StatusCode::FORBIDDEN);
    assert_eq!(get(&app, "/reviews/9").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn without_a_runner_the_page_says_so() {
    let app = app(&state());
    let page = get(&app, "/reviews").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.body.contains("no-reviews"));
}
