//! The console behind `serve`: uploads, its reviews of the library in each mode, the
//! limits its flags set, a stop in the middle of a request.

use super::*;

/// The upload folders in `dir`, by name.
#[cfg(unix)]
fn upload_folders(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("toolwright-uploads-"))
        .collect();
    names.sort();
    names
}

/// Uploads the shareholders' agreement and waits for its review to finish.
#[cfg(unix)]
fn review_an_upload(server: &HttpServer) {
    let cookie = console_cookie(server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    let csrf = csrf_of(&form);
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("files", Some("sha.md"), &sha_contract()),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let page = finished_review(&server.addr, &cookie, &location_of(&response));
    assert!(page.contains("id=\"risks\""), "{page}");
}

#[cfg(unix)]
#[test]
fn uploads_are_private_and_gone_after_a_stop_or_at_the_start_after_a_crash() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = std::env::temp_dir().join(format!("toolwright-serve-uploads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp).unwrap();
    let tmp_text = tmp.to_string_lossy().into_owned();
    let env = [("TMPDIR", tmp_text.as_str())];

    let mut server = HttpServer::start(CONTRACT, &env);
    review_an_upload(&server);
    let folders = upload_folders(&tmp);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let root = tmp.join(&folders[0]);
    let mode = std::fs::metadata(&root).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "private to the server's user");
    let left: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    assert!(
        left.is_empty(),
        "the finished review's files are removed: {left:?}"
    );
    // SIGTERM: the server stops within its grace period and takes its uploads along.
    let sent = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = server
        .wait_for_exit(std::time::Duration::from_secs(30))
        .expect("the server stops after SIGTERM");
    assert!(status.success(), "{status:?}");
    assert!(
        upload_folders(&tmp).is_empty(),
        "{:?}",
        upload_folders(&tmp)
    );

    // A crash leaves the folder; the next start removes it.
    let mut crashed = HttpServer::start(CONTRACT, &env);
    review_an_upload(&crashed);
    let sent = Command::new("kill")
        .args(["-KILL", &crashed.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    crashed
        .wait_for_exit(std::time::Duration::from_secs(30))
        .expect("killed");
    let stale = upload_folders(&tmp);
    assert_eq!(stale.len(), 1, "{stale:?}");
    let next = HttpServer::start(CONTRACT, &env);
    let now = upload_folders(&tmp);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(
        now, stale,
        "the dead server's folder is gone, the new one's is there"
    );
    drop(next);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_within_its_grace_period_despite_a_half_sent_request() {
    let mut server = HttpServer::start_with(
        &[
            "--contract",
            CONTRACT,
            "--shutdown-grace",
            "1",
            "--idle-timeout",
            "3600",
        ],
        &[],
    );
    let token = server
        .banner
        .split("Bearer ")
        .nth(1)
        .and_then(|t| t.split(')').next())
        .unwrap_or_else(|| panic!("a drawn token is printed: {}", server.banner))
        .to_string();
    // A client (with the token, so the server reads on) that sent half a request and went
    // quiet.
    let mut half = std::net::TcpStream::connect(&server.addr).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{",
        server.addr
    );
    half.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = server
        .wait_for_exit(std::time::Duration::from_secs(20))
        .expect("the server stops after its grace period, not when the client finishes");
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_console_reviews_an_uploaded_contract_with_the_library() {
    let server = HttpServer::start(CONTRACT, &[]);
    let cookie = console_cookie(&server);
    let (status, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    assert_eq!(status, 200, "{form}");
    assert!(
        form.contains("samples/fidic"),
        "the bundled samples are offered"
    );
    let csrf = csrf_of(&form);
    let contract = sha_contract();
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("sample", None, ""),
            ("domain", None, "sha_spa"),
            ("files", Some("sha.md"), &contract),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let run = location_of(&response);
    assert!(run.starts_with("/reviews/r"), "{response}");
    let page = finished_review(&server.addr, &cookie, &run);
    assert!(page.contains("id=\"risks\""), "{page}");
    let (status, markdown) = get(
        &server.addr,
        &format!("{run}/report.md"),
        &[("Cookie", &cookie)],
    );
    assert_eq!(status, 200);
    assert!(markdown.contains("# Review of"), "{markdown}");
    let (status, json) = get(
        &server.addr,
        &format!("{run}/report.json"),
        &[("Cookie", &cookie)],
    );
    assert_eq!(status, 200);
    let body = json.split_once("\r\n\r\n").unwrap().1;
    let report: Value = serde_json::from_str(body).unwrap();
    assert_eq!(report["domain_id"], "sha_spa", "{report}");
}

/// Two contracts uploaded together are refused before anything is saved or started, naming
/// both and what to upload instead; one contract with its annexes is reviewed.
#[test]
fn the_console_refuses_an_upload_of_several_contracts_by_name() {
    let server = HttpServer::start(CONTRACT, &[]);
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    let csrf = csrf_of(&form);
    let contract = sha_contract();
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("files", Some("sha.md"), &contract),
            ("files", Some("side letter.md"), &contract),
            ("files", Some("checklist.json"), "[]"),
        ],
    );
    assert_eq!(status, 400, "{response}");
    assert!(
        response.contains(
            "the upload holds several contracts (sha.md, side_letter.md) and a review reads one: \
             upload one contract with the files that go with it"
        ),
        "{response}"
    );
    let (_, list) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    assert!(!list.contains("/reviews/r"), "nothing started: {list}");

    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("files", Some("sha.md"), &contract),
            ("files", Some("particular conditions.md"), &contract),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let page = finished_review(&server.addr, &cookie, &location_of(&response));
    assert!(page.contains("id=\"risks\""), "{page}");
}

/// `--max-reviews`, `--keep-reviews` and `--keep-reviews-for` reach the console: a second
/// review while one runs is answered 429 under `--max-reviews 1`; a finished review is
/// dropped at the next start under `--keep-reviews 0`, or once older than
/// `--keep-reviews-for`. Bad values stop `serve` with exit 2 naming the flag.
#[test]
fn serve_flags_set_the_console_review_limits() {
    for (flag, value, expected) in [
        ("--max-reviews", "0", "0 is not in 1..=64"),
        ("--max-reviews", "65", "65 is not in 1..=64"),
        ("--keep-reviews", "10001", "10001 is not in 0..=10000"),
        ("--keep-reviews", "many", "invalid digit"),
        ("--keep-reviews-for", "0", "0 is not in 1..=3153600000"),
        ("--keep-reviews-for", "1h", "invalid digit"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
            .args(["serve", "--http", "127.0.0.1:0", flag, value])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(
            err.contains(flag) && err.contains(expected),
            "{flag} {value}: {err}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_clausewright"))
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--no-console",
            "--max-reviews",
            "3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));

    // A contract whose review takes seconds in a debug build.
    let mut long = String::from("# Agreement\n\n");
    for i in 1..=3000 {
        long.push_str(&format!(
            "## {i}. Clause {i}\nThe Contractor shall give notice within 28 days under Sub-Clause {}. The Employer shall pay USD {i},000 within 56 days.\n\n",
            i.max(2) - 1
        ));
    }
    let server = HttpServer::start_with(
        &[
            "--contract",
            CONTRACT,
            "--max-reviews",
            "1",
            "--keep-reviews",
            "0",
        ],
        &[],
    );
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    let csrf = csrf_of(&form);
    let upload = |name: &str, text: &str| {
        post_multipart(
            &server.addr,
            "/reviews",
            &cookie,
            &[("csrf", None, &csrf), ("files", Some(name), text)],
        )
    };
    let (status, response) = upload("long.md", &long);
    assert_eq!(status, 303, "{response}");
    let first_run = location_of(&response);
    let (status, response) = upload("sha.md", &sha_contract());
    let first = get(&server.addr, &first_run, &[("Cookie", &cookie)]).1;
    assert!(
        !first.contains("review-summary"),
        "the first review must still run for this test to mean anything"
    );
    assert_eq!(status, 429, "{response}");
    assert!(
        response.contains("the most this console runs at once (1)"),
        "{response}"
    );
    let first = finished_review(&server.addr, &cookie, &first_run);
    assert!(first.contains("review-summary"), "{first}");
    // The first review's place is given back just after its run is recorded as ended.
    let (status, response) = (0..100)
        .map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            upload("sha.md", &sha_contract())
        })
        .find(|(status, _)| *status != 429)
        .expect("a place once the first review ended");
    assert_eq!(status, 303, "{response}");
    assert_ne!(location_of(&response), first_run, "{response}");
    let (status, _) = get(&server.addr, &first_run, &[("Cookie", &cookie)]);
    assert_eq!(
        status, 404,
        "kept none: the finished review went at the next start"
    );
    drop(server);

    let server = HttpServer::start_with(&["--contract", CONTRACT, "--keep-reviews-for", "1"], &[]);
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    let csrf = csrf_of(&form);
    let upload = || {
        post_multipart(
            &server.addr,
            "/reviews",
            &cookie,
            &[
                ("csrf", None, &csrf),
                ("files", Some("sha.md"), &sha_contract()),
            ],
        )
    };
    let (status, response) = upload();
    assert_eq!(status, 303, "{response}");
    let first_run = location_of(&response);
    assert!(finished_review(&server.addr, &cookie, &first_run).contains("review-summary"));
    assert_eq!(get(&server.addr, &first_run, &[("Cookie", &cookie)]).0, 200);
    std::thread::sleep(std::time::Duration::from_millis(1_200));
    assert_eq!(upload().0, 303);
    let (status, _) = get(&server.addr, &first_run, &[("Cookie", &cookie)]);
    assert_eq!(
        status, 404,
        "older than its second: dropped at the next start"
    );
}

/// With a model configured in the environment (here a local mock of an OpenAI-compatible
/// server), the console offers the agent mode; a review in that mode asks the model, and the
/// report says the model judged the clauses.
#[test]
fn the_console_reviews_with_the_agent_when_a_model_is_configured() {
    use toolwright::agent::mock::MockModel;

    let answer = r#"[{"risk_level": "high", "risk_type": "mock_model_risk", "description": "Risk the mock model found", "reason": "scripted", "analysis": "scripted", "original_text": ""}]"#;
    let model = MockModel::react(
        std::time::Duration::from_millis(5),
        1,
        "get_clause_context",
        answer,
    )
    .unwrap();
    let base_url = model.base_url();
    let server = HttpServer::start(
        CONTRACT,
        &[
            ("OPENAI_BASE_URL", base_url.as_str()),
            ("OPENAI_MODEL", "mock-model"),
            ("USE_REACT_AGENT", "false"),
        ],
    );
    let cookie = console_cookie(&server);
    let (status, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    assert_eq!(status, 200, "{form}");
    assert!(
        form.contains(
            r#"<option value="agent">agent (the model chooses the skills: mock-model)</option>"#
        ),
        "{form}"
    );
    let csrf = csrf_of(&form);
    let contract = sha_contract();
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("mode", None, "agent"),
            ("files", Some("sha.md"), &contract),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let run = location_of(&response);
    let page = finished_review(&server.addr, &cookie, &run);
    assert!(page.contains("Risk the mock model found"), "{page}");
    assert!(page.contains("Agent mode (mock-model)"), "{page}");
    assert!(!page.contains("by the checklist after"), "{page}");
    assert!(model.requests() > 0);
    let (_, json) = get(
        &server.addr,
        &format!("{run}/report.json"),
        &[("Cookie", &cookie)],
    );
    let report: Value = serde_json::from_str(json.split_once("\r\n\r\n").unwrap().1).unwrap();
    let clauses = report["clauses"].as_array().unwrap();
    assert!(!clauses.is_empty());
    // Findings about the agreement as a whole (absences) are not a clause the model judged.
    assert!(
        clauses
            .iter()
            .filter(|c| c["clause_id"] != "document")
            .all(|c| c["mode"] == "react"),
        "every clause judged by the model: {report}"
    );
}

/// The console's orchestrated mode: a planner (a local mock) sends the outline's first
/// clause to a deep review and the second to the rules, within the budget the form gives;
/// the review page shows the plan, the budget used and the planner's summary.
#[test]
fn the_console_runs_an_orchestrated_review_within_the_form_budget() {
    use toolwright::agent::mock::{MockAnswer, MockModel, MockReply};
    use toolwright::ToolCall;

    let model = MockModel::start(|req| {
        let messages = req.body["messages"].as_array().cloned().unwrap_or_default();
        let text = |role: &str| -> String {
            messages
                .iter()
                .filter(|m| m["role"] == role)
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let answer = if text("system").contains("You organise the legal review") {
            let ids: Vec<String> = text("user")
                .lines()
                .filter_map(|l| l.strip_prefix("- "))
                .filter_map(|l| l.split(" | ").next())
                .map(str::to_string)
                .collect();
            if req.tool_results() == 0 {
                MockAnswer::ToolCalls(vec![
                    ToolCall {
                        id: "d1".into(),
                        name: "review_deep".into(),
                        arguments: json!({"clause_id": ids[0], "focus": "first clause"}).to_string(),
                    },
                    ToolCall {
                        id: "q1".into(),
                        name: "review_quick".into(),
                        arguments: json!({"clause_ids": [ids[1]], "reason": "routine"}).to_string(),
                    },
                ])
            } else {
                MockAnswer::Text(
                    json!({"summary": "Planner summary for the client.", "risks": [], "cross_clause": []})
                        .to_string(),
                )
            }
        } else {
            MockAnswer::Text(r#"[{"risk_level": "high", "risk_type": "deep", "description": "Deep review finding"}]"#.into())
        };
        MockReply {
            delay: std::time::Duration::from_millis(5),
            answer,
            usage: None,
        }
    })
    .unwrap();
    let base_url = model.base_url();
    let server = HttpServer::start(
        CONTRACT,
        &[
            ("OPENAI_BASE_URL", base_url.as_str()),
            ("OPENAI_MODEL", "mock-model"),
            ("USE_REACT_AGENT", "false"),
        ],
    );
    let cookie = console_cookie(&server);
    let (_, form) = get(&server.addr, "/reviews", &[("Cookie", &cookie)]);
    assert!(form.contains(r#"<option value="orchestrate">"#), "{form}");
    let csrf = csrf_of(&form);
    let contract = sha_contract();
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("mode", None, "orchestrate"),
            ("budget_requests", None, "0"),
            ("files", Some("sha.md"), &contract),
        ],
    );
    assert_eq!(status, 400, "a budget of 0 is refused: {response}");
    let (status, response) = post_multipart(
        &server.addr,
        "/reviews",
        &cookie,
        &[
            ("csrf", None, &csrf),
            ("domain", None, "sha_spa"),
            ("mode", None, "orchestrate"),
            ("budget_requests", None, "10"),
            ("files", Some("sha.md"), &contract),
        ],
    );
    assert_eq!(status, 303, "{response}");
    let page = finished_review(&server.addr, &cookie, &location_of(&response));
    assert!(page.contains("id=\"review-plan\""), "{page}");
    assert!(page.contains("Planner summary for the client."), "{page}");
    assert!(page.contains("3 of 10 model requests"), "{page}");
    assert!(page.contains("Deep review finding"), "{page}");
    assert!(page.contains("Orchestrated (mock-model)"), "{page}");
    assert_eq!(model.requests(), 3);
}

/// The console shows the skills MCP serves: `--domain sha_spa` leaves the FIDIC skills out of
/// both.
#[test]
fn the_console_shows_the_set_mcp_serves() {
    let server = HttpServer::start_with(&["--domain", "sha_spa"], &[]);
    let cookie = console_cookie(&server);
    let (status, catalog) = get(&server.addr, "/", &[("Cookie", &cookie)]);
    assert_eq!(status, 200, "{catalog}");
    assert!(catalog.contains("sha_"), "{catalog}");
    assert!(!catalog.contains("fidic_calculate_time_bar"), "{catalog}");
    let (status, _) = get(
        &server.addr,
        "/skills/fidic_calculate_time_bar",
        &[("Cookie", &cookie)],
    );
    assert_eq!(status, 404);
}
