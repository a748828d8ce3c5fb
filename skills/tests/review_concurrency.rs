//! Agent reviews against a local model server with a fixed latency and a request log
//! (`toolwright::agent::mock`): clauses overlap up to the limit and never beyond it, results
//! keep clause order whatever order they finish in, and a dropped review leaves nothing
//! running.
//!
//! A binary of its own: it measures how many clauses overlap against a model with a fixed
//! latency, which the other suites' load on the same cores would blur.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use clausewright_skills::review::{
    review_with_agent, AgentSettings, ProgressHook, ReviewAgent, ReviewMode, ReviewOptions,
    ReviewReport,
};
use toolwright::agent::mock::{react_answer, MockModel, MockReply, MockUsage};
use toolwright::agent::{LlmClient, OpenAiClient, OpenAiConfig, RetryPolicy};
use toolwright::Dispatcher;

mod support;

use support::{answer_for, clause_of, contract};

fn agent_for(model: &MockModel) -> ReviewAgent {
    let client = OpenAiClient::new(
        OpenAiConfig::new(model.base_url(), "mock-model").with_retry(RetryPolicy::none()),
    )
    .expect("client");
    ReviewAgent::new(
        Arc::new(client) as Arc<dyn LlmClient>,
        AgentSettings {
            use_react_agent: true,
            ..AgentSettings::default()
        },
    )
}

/// One tool round then an answer naming the clause; `delay` per request from the clause it
/// is about.
fn model(delay: impl Fn(&str) -> Duration + Send + Sync + 'static) -> MockModel {
    MockModel::start(move |req| {
        let clause = clause_of(&req.user_text());
        MockReply {
            delay: delay(&clause),
            answer: react_answer(req, 1, "get_clause_context", &answer_for(&clause)),
            usage: Some(MockUsage {
                prompt: 100,
                completion: 10,
                cached: Some(40),
            }),
        }
    })
    .expect("mock model starts")
}

fn options(concurrency: usize, progress: Option<ProgressHook>) -> ReviewOptions {
    ReviewOptions {
        progress,
        ..support::options(concurrency)
    }
}

fn assert_every_clause_reviewed_in_order(report: &ReviewReport, clauses: usize) {
    let ids: Vec<String> = report.clauses.iter().map(|c| c.clause_id.clone()).collect();
    let expected: Vec<String> = (1..=clauses).map(|n| n.to_string()).collect();
    assert_eq!(ids, expected, "the report keeps checklist order");
    for clause in &report.clauses {
        assert_eq!(clause.mode, ReviewMode::React, "{clause:#?}");
        assert_eq!(
            clause.risks[0].finding.description,
            format!("about clause {}", clause.clause_id),
            "each clause carries its own model answer"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clauses_overlap_up_to_the_limit_and_never_beyond() {
    let model = model(|_: &str| Duration::from_millis(120));
    let agent = agent_for(&model);
    let state = contract(12);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let report = review_with_agent(
        &dispatcher,
        &state,
        &options(3, None),
        Some(&agent),
        std::future::pending(),
    )
    .await;

    assert_every_clause_reviewed_in_order(&report, 12);
    let log = model.log();
    assert_eq!(log.len(), 24, "two turns per clause");
    assert!(log.iter().all(|e| e.status == 200 && e.finished.is_some()));
    assert_eq!(
        model.max_in_flight(),
        3,
        "three clauses wait on the model at once, never more"
    );
    // At no instant of the log were more than three requests open.
    for entry in &log {
        let open = log
            .iter()
            .filter(|o| o.started <= entry.started && o.finished.is_some_and(|f| f > entry.started))
            .count();
        assert!(open <= 3, "{open} requests open at {:?}", entry.started);
    }

    // Accounting: two turns and their tokens per clause, one timed tool run each.
    let first = &report.clauses[0];
    assert_eq!(first.model_turns, 2);
    assert_eq!(
        (
            first.usage.prompt_tokens,
            first.usage.completion_tokens,
            first.usage.cached_tokens
        ),
        (200, 20, 80)
    );
    assert_eq!(first.skills.len(), 1);
    assert!(first.skills[0].success, "{:?}", first.skills[0]);
    assert!(first.skills[0].elapsed_ms > 0.0, "the tool run is timed");
    assert_eq!(report.summary.model_turns, 24);
    assert_eq!(report.summary.usage.prompt_tokens, 2400);
    assert_eq!(report.summary.usage.cached_tokens, 960);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["summary"]["usage"]["completion_tokens"], 240);
    assert_eq!(json["clauses"][0]["model_turns"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_keep_clause_order_whatever_order_they_finish_in() {
    // The earlier the clause, the slower its model: with four in flight, clause 4 finishes
    // its two turns (2 x 150 ms) well before clause 1 (2 x 300 ms), on a loaded machine too.
    let model = model(|clause: &str| {
        let n: u64 = clause.parse().unwrap_or(1);
        Duration::from_millis(350u64.saturating_sub(n * 50).max(20))
    });
    let agent = agent_for(&model);
    let state = contract(8);
    let finished = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&finished);
    let hook = ProgressHook(Arc::new(move |clause, done, total| {
        log.lock()
            .unwrap()
            .push((clause.clause_id.clone(), done, total));
    }));
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let report = review_with_agent(
        &dispatcher,
        &state,
        &options(4, Some(hook)),
        Some(&agent),
        std::future::pending(),
    )
    .await;

    assert_every_clause_reviewed_in_order(&report, 8);
    let finished = finished.lock().unwrap().clone();
    let order: Vec<&str> = finished.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(order.len(), 8, "one progress report per clause");
    assert_ne!(
        order,
        ["1", "2", "3", "4", "5", "6", "7", "8"],
        "clauses finished out of order"
    );
    let counts: Vec<(usize, usize)> = finished.iter().map(|f| (f.1, f.2)).collect();
    assert_eq!(counts, (1..=8).map(|n| (n, 8)).collect::<Vec<_>>());
}

#[test]
fn a_dropped_review_leaves_no_task_running() {
    let model = model(|_: &str| Duration::from_millis(400));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let state = contract(16);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    runtime.block_on(async {
        let agent = agent_for(&model);
        let four = options(4, None);
        let run = review_with_agent(
            &dispatcher,
            &state,
            &four,
            Some(&agent),
            std::future::pending(),
        );
        let cut = tokio::time::timeout(Duration::from_millis(600), run).await;
        assert!(cut.is_err(), "the review was still running when dropped");
        // The agent (and its connection pool) goes too.
    });
    let asked = model.requests();
    assert!(asked >= 4, "the review had started: {asked} requests");
    // Nothing the review spawned is left on the runtime.
    let mut alive = runtime.metrics().num_alive_tasks();
    for _ in 0..200 {
        if alive == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        alive = runtime.metrics().num_alive_tasks();
    }
    assert_eq!(alive, 0, "tasks left running after the review was dropped");
    // No request is sent after the drop, and the open ones were abandoned.
    std::thread::sleep(Duration::from_millis(900));
    assert_eq!(model.requests(), asked, "no request after the drop");
    assert_eq!(model.in_flight(), 0);
    let dropped = model.log().iter().filter(|e| e.finished.is_none()).count();
    assert!(dropped > 0, "requests in flight at the drop were cut off");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_pauses_every_clause_of_the_client_and_one_probe_goes_first() {
    use toolwright::agent::mock::MockAnswer;
    const PAUSE: Duration = Duration::from_millis(600);
    // The fifth request is refused with a Retry-After; every other takes 80 ms.
    let model = MockModel::start(|req| {
        if req.index == 4 {
            return MockReply {
                delay: Duration::ZERO,
                answer: MockAnswer::Status {
                    status: 429,
                    retry_after: Some(PAUSE),
                },
                usage: None,
            };
        }
        let clause = clause_of(&req.user_text());
        MockReply {
            delay: Duration::from_millis(80),
            answer: react_answer(req, 1, "get_clause_context", &answer_for(&clause)),
            usage: None,
        }
    })
    .expect("mock model starts");
    let client = OpenAiClient::new(OpenAiConfig::new(model.base_url(), "mock-model")).unwrap();
    let agent = ReviewAgent::new(
        Arc::new(client) as Arc<dyn LlmClient>,
        AgentSettings {
            use_react_agent: true,
            ..AgentSettings::default()
        },
    );
    let state = contract(8);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let report = review_with_agent(
        &dispatcher,
        &state,
        &options(4, None),
        Some(&agent),
        std::future::pending(),
    )
    .await;
    assert_every_clause_reviewed_in_order(&report, 8);

    let log = model.log();
    assert_eq!(log.len(), 17, "16 turns and the refused one");
    let refused = log.iter().find(|e| e.status == 429).expect("a 429");
    let refused_at = refused.finished.unwrap();
    // A request the client sent before the 429 reached it (a few ms) is not held back;
    // every later one waits out the pause.
    let slack = Duration::from_millis(50);
    let inside: Vec<_> = log
        .iter()
        .filter(|e| e.started > refused_at + slack && e.started < refused_at + PAUSE)
        .collect();
    assert!(inside.is_empty(), "sent inside the pause: {inside:#?}");
    let after: Vec<_> = log
        .iter()
        .filter(|e| e.started >= refused_at + PAUSE)
        .collect();
    assert!(after.len() >= 2, "{log:#?}");
    // One probe first; the others follow its answer: no burst when the pause ends.
    let probe = after[0];
    let probe_done = probe.finished.unwrap();
    assert!(
        after[1..].iter().all(|e| e.started >= probe_done),
        "{after:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_review_reports_the_clauses_finished_and_marks_the_rest() {
    // Clauses 1 and 2 answer at once; every other request waits a minute.
    let model = MockModel::start(|req| {
        let clause = clause_of(&req.user_text());
        let quick = clause == "1" || clause == "2";
        MockReply {
            delay: if quick {
                Duration::ZERO
            } else {
                Duration::from_secs(60)
            },
            answer: react_answer(req, 1, "get_clause_context", &answer_for(&clause)),
            usage: None,
        }
    })
    .expect("mock model starts");
    let agent = agent_for(&model);
    let state = contract(6);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
    let watcher = {
        let in_flight = || model.in_flight();
        let finished = || model.log().iter().filter(|e| e.finished.is_some()).count();
        async move {
            // Cancel once both quick clauses are done (four answers) and the others wait.
            while !(finished() == 4 && in_flight() == 4) {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            // The model has sent the quick clauses' last answers; give the review a moment to
            // read them (the other clauses wait a minute, so this cannot let them finish).
            tokio::time::sleep(Duration::from_secs(1)).await;
            cancel.send(()).ok();
        }
    };
    let six = options(6, None);
    let run = review_with_agent(&dispatcher, &state, &six, Some(&agent), async {
        cancelled.await.ok();
    });
    let (report, ()) = tokio::join!(run, watcher);

    assert!(report.incomplete);
    let modes: Vec<ReviewMode> = report.clauses.iter().map(|c| c.mode).collect();
    assert_eq!(
        modes,
        [
            ReviewMode::React,
            ReviewMode::React,
            ReviewMode::NotRun,
            ReviewMode::NotRun,
            ReviewMode::NotRun,
            ReviewMode::NotRun
        ]
    );
    assert_eq!(report.summary.clauses_reviewed, 2);
    assert_eq!(report.summary.clauses_not_run, 4);
    assert_eq!(
        report.clauses[0].risks[0].finding.description,
        "about clause 1"
    );
    assert_eq!(
        report.clauses[2].skills[0].error_code.as_deref(),
        Some("cancelled")
    );
    let text = clausewright_skills::review::render_table(&report);
    assert!(
        text.contains("INCOMPLETE: the review was cancelled, 4 clause(s) not reviewed"),
        "{text}"
    );
    assert_eq!(model.requests(), 8, "no request after the cancel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_text_report_shows_turns_and_tokens_per_clause_and_in_all() {
    let model = model(|_: &str| Duration::from_millis(5));
    let agent = agent_for(&model);
    let state = contract(2);
    let dispatcher = Dispatcher::from_inventory().unwrap();
    let report = review_with_agent(
        &dispatcher,
        &state,
        &options(2, None),
        Some(&agent),
        std::future::pending(),
    )
    .await;
    let text = clausewright_skills::review::render_table(&report);
    let row = |first: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(first))
            .unwrap_or_else(|| panic!("no {first} row in\n{text}"))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    assert_eq!(
        row("CLAUSE")[..6],
        ["CLAUSE", "MODE", "TURNS", "PROMPT", "CACHED", "COMPLETION"]
    );
    // Two turns of 100 prompt tokens (40 cached) and 10 completion tokens per clause.
    let first = row("1");
    assert_eq!(first[..6], ["1", "react", "2", "200", "80", "20"]);
    assert_eq!(first.last().unwrap(), "get_clause_context");
    let total = row("TOTAL");
    assert_eq!(total[..5], ["TOTAL", "4", "400", "160", "40"]);
    assert!(
        text.contains("4 model turn(s), 440 token(s): 400 prompt (160 cached), 40 completion"),
        "{text}"
    );
    // The Markdown report carries the same table.
    let markdown = clausewright_skills::review::render_markdown(&report);
    assert!(
        markdown.contains(
            "## Model use per clause\n\n| CLAUSE | MODE | TURNS | PROMPT | CACHED | COMPLETION | TOOL MS | TOOLS |\n|---|---|---|---|---|---|---|---|\n"
        ),
        "{markdown}"
    );
    assert!(
        markdown
            .lines()
            .any(|l| l.starts_with("| 1 | react | 2 | 200 | 80 | 20 |")
                && l.ends_with("| get_clause_context |")),
        "{markdown}"
    );
    assert!(
        markdown.contains("| TOTAL |  | 4 | 400 | 160 | 40 |"),
        "{markdown}"
    );
}
