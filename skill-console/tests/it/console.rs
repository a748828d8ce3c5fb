//! Handler tests of the console through `oneshot`: security, catalog, skill page, calls.

use crate::support::*;
use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use toolwright_console::{router, ConsoleOptions, ConsoleState};

fn bare_get(path: &str) -> axum::http::request::Builder {
    Request::get(path).header(header::HOST, HOST)
}

// ---- security ----

#[tokio::test]
async fn pages_need_the_token() {
    let app = app(&state());
    let answer = send(&app, bare_get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(answer.body.contains("per-launch token"), "{}", answer.body);
    assert!(!answer.body.contains("demo.search"));

    let wrong = send(
        &app,
        bare_get("/")
            .header(header::COOKIE, "toolwright_console_8765=guess")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);

    // The session of a console on another port of the same host does not count here.
    let other_port = send(
        &app,
        bare_get("/")
            .header(header::COOKIE, format!("toolwright_console_9999={TOKEN}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(other_port.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_token_in_the_url_becomes_a_strict_http_only_cookie() {
    let app = app(&state());
    let answer = send(
        &app,
        bare_get(&format!("/?token={TOKEN}&domain=x"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(answer.headers[header::LOCATION], "/?domain=x");
    let cookie = answer.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.starts_with("toolwright_console_8765="), "{cookie}");
    assert!(
        !cookie.contains(TOKEN),
        "the cookie holds a session value, not the launch token: {cookie}"
    );
    let value = cookie.split(';').next().unwrap().split('=').nth(1).unwrap();
    assert!(value.len() >= 32, "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    // The session value signs in; the token as a cookie does not.
    let session = send(
        &app,
        bare_get("/")
            .header(header::COOKIE, format!("toolwright_console_8765={value}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(session.status, StatusCode::OK);
    let token_cookie = send(
        &app,
        bare_get("/")
            .header(header::COOKIE, format!("toolwright_console_8765={TOKEN}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(token_cookie.status, StatusCode::UNAUTHORIZED);

    let wrong = send(&app, bare_get("/?token=nope").body(Body::empty()).unwrap()).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.headers.get(header::SET_COOKIE).is_none());
}

#[tokio::test]
async fn the_token_redirect_never_leaves_the_site() {
    let app = app(&state());
    for path in ["//evil.example/", "/\\evil.example/", "///evil.example"] {
        let answer = send(
            &app,
            bare_get(&format!("{path}?token={TOKEN}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{path}");
        let location = answer.headers[header::LOCATION].to_str().unwrap();
        assert!(
            location.starts_with('/')
                && !location.starts_with("//")
                && !location.starts_with("/\\"),
            "{path} -> {location}"
        );
    }
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused() {
    let app = app(&state());
    let rebinding = send(
        &app,
        Request::get("/")
            .header(header::HOST, "evil.example:8765")
            .header(header::COOKIE, cookie(&app).await)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(rebinding.status, StatusCode::FORBIDDEN);
    assert!(
        rebinding.body.contains("evil.example"),
        "{}",
        rebinding.body
    );

    let cross_site = send(
        &app,
        bare_get("/")
            .header(header::COOKIE, cookie(&app).await)
            .header(header::ORIGIN, "http://evil.example")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(cross_site.status, StatusCode::FORBIDDEN);

    let ipv6 = send(
        &app,
        Request::get("/")
            .header(header::HOST, "[::1]:8765")
            .header(header::COOKIE, cookie(&app).await)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(ipv6.status, StatusCode::OK);
}

#[tokio::test]
async fn a_post_without_the_csrf_field_is_refused_and_does_not_call() {
    let state = state();
    let app = app(&state);
    let refused = post(
        &app,
        "/skills/demo.delete_note/call",
        &[("mode", "form"), ("arg.id", "7")],
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.body.contains("CSRF"), "{}", refused.body);

    let forged = post(
        &app,
        "/skills/demo.delete_note/call",
        &[
            ("csrf", "0123456789abcdef0123456789abcdef"),
            ("arg.id", "7"),
        ],
    )
    .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(state.dispatcher().pending_confirmations().is_empty());

    let accepted = post(
        &app,
        "/skills/demo.delete_note/call",
        &[("csrf", state.csrf_token()), ("arg.id", "7")],
    )
    .await;
    assert_eq!(accepted.status, StatusCode::OK);
    assert_eq!(state.dispatcher().pending_confirmations().len(), 1);
}

#[tokio::test]
async fn bodies_over_the_limit_get_413() {
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN).max_body_bytes(1024))
        .build();
    let app = router(state.clone());
    let big = "x".repeat(4096);
    let answer = post(
        &app,
        "/skills/demo.echo/call",
        &[("csrf", state.csrf_token()), ("arg.text", &big)],
    )
    .await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn answers_carry_a_strict_content_security_policy() {
    let app = app(&state());
    let answer = get(&app, "/").await;
    let csp = answer.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(answer.headers[header::REFERRER_POLICY], "same-origin");
    // The stylesheet needs no token.
    let css = send(
        &app,
        bare_get("/assets/console.css").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(css.status, StatusCode::OK);
    assert!(css.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/css"));
}

#[tokio::test]
async fn markup_in_descriptions_and_results_is_escaped() {
    let state = state();
    let app = app(&state);
    let catalog = get(&app, "/").await;
    assert!(
        !catalog.body.contains("<script>"),
        "raw script tag in the catalog"
    );
    assert!(catalog
        .body
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;"));

    let page = get(&app, "/skills/demo.echo").await;
    assert!(!page.body.contains("<script>"));

    let called = post(
        &app,
        "/skills/demo.echo/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "form"),
            ("arg.text", "<script>alert('x')</script>"),
        ],
    )
    .await;
    assert_eq!(called.status, StatusCode::OK);
    assert!(!called.body.contains("<script>"), "{}", called.body);
    assert!(called.body.contains("&lt;script&gt;"));
}

#[tokio::test]
async fn unknown_pages_and_skills_are_404_with_the_name_escaped() {
    let app = app(&state());
    let page = get(&app, "/skills/%3Cb%3Enope").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.body.contains("&lt;b&gt;nope"), "{}", page.body);
    assert_eq!(get(&app, "/nowhere").await.status, StatusCode::NOT_FOUND);
}

// ---- catalog ----

#[tokio::test]
async fn the_catalog_lists_every_skill() {
    let app = app(&state());
    let page = get(&app, "/").await;
    assert_eq!(page.status, StatusCode::OK);
    insta::assert_snapshot!("catalog", outline(&page.body));
}

#[tokio::test]
async fn the_catalog_filters_on_the_server() {
    let app = app(&state());
    let deletes = get(&app, "/?category=delete").await;
    assert!(deletes.body.contains("demo.delete_note"));
    assert!(!deletes.body.contains("/skills/demo.search"));
    assert!(deletes.body.contains("1 of 4 skills"), "{}", deletes.body);

    let search = get(&app, "/?q=NOTES").await;
    assert!(search.body.contains("/skills/demo.search"));
    assert!(!search.body.contains("/skills/demo.fail"));

    let none = get(&app, "/?status=disabled").await;
    assert!(none.body.contains("No skill matches"));
    assert!(none.body.contains("0 of 4 skills"));
}

#[tokio::test]
async fn a_skill_page_shows_parameters_schema_lint_and_dialects() {
    let app = app(&state());
    let page = get(&app, "/skills/demo.search").await;
    assert_eq!(page.status, StatusCode::OK);
    let body = &page.body;
    for dialect in toolwright::Dialect::ALL {
        assert!(
            body.contains(&format!("dialect-{}", dialect.as_str())),
            "{dialect:?}"
        );
    }
    assert!(body.contains("fast, deep"), "enum values listed");
    assert!(body.contains("&quot;indemnity&quot;"), "example shown");
    insta::assert_snapshot!("skill_page", outline(body));
}

// ---- calls ----

#[tokio::test]
async fn the_form_is_generated_from_the_parameter_metadata() {
    let app = app(&state());
    let page = get(&app, "/skills/demo.search").await;
    let body = &page.body;
    assert!(
        body.contains(r#"<input type="text" id="arg-query" name="arg.query""#),
        "{body}"
    );
    assert!(
        body.contains(r#"<input type="number" id="arg-top_k" name="arg.top_k" step="1" value="5""#)
    );
    assert!(body.contains(r#"<textarea id="arg-tags" name="arg.tags""#));
    assert!(body.contains(r#"<select id="arg-depth" name="arg.depth">"#));
    assert!(body.contains(r#"<option value="fast" selected>fast</option>"#));
    assert!(body.contains(
        r#"<input type="checkbox" id="arg-whole_words" name="arg.whole_words" value="true">"#
    ));
}

#[tokio::test]
async fn a_submitted_form_calls_the_skill_and_shows_the_result() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.search/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "form"),
            ("arg.query", "indemnity"),
            ("arg.top_k", "2"),
            ("arg.tags", "a\n\nb\n"),
            ("arg.depth", "deep"),
            ("arg.whole_words", "true"),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    let body = &answer.body;
    assert!(body.contains("Result: ok"), "{body}");
    assert!(
        body.contains(r#"<p class="summary" id="summary">2 hits for 'indemnity' (Deep)</p>"#),
        "{body}"
    );
    assert!(body.contains("indemnity#1 tags=a+b whole=true"));
    // Summary before data.
    assert!(body.find("id=\"summary\"").unwrap() < body.find("id=\"data\"").unwrap());
    // The form keeps what was entered.
    assert!(body.contains(r#"value="indemnity""#));
    assert!(body.contains(r#"<option value="deep" selected>deep</option>"#));
    insta::assert_snapshot!("call_result", outline(body));
}

#[tokio::test]
async fn unreadable_fields_are_named_and_nothing_is_called() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.search/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "form"),
            ("arg.query", "x"),
            ("arg.top_k", "many"),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        answer
            .body
            .contains("top_k: expected a whole number, got `many`"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Result: ok"));
}

#[tokio::test]
async fn argument_problems_are_listed_with_their_paths() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.search/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "json"),
            ("raw", r#"{"query": "x", "top_k": "many"}"#),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.contains("Result: failed"), "{}", answer.body);
    let table = &answer.body[answer
        .body
        .find(r#"id="problems""#)
        .expect("a problems table")..];
    assert!(table.contains("$.top_k"), "{table}");
    assert!(table.contains("&quot;many&quot;"), "{table}");
}

#[tokio::test]
async fn raw_json_mode_shows_parse_warnings() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.search/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "json"),
            ("raw", r#"{"query": "x", "top_k": "2"}"#),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.contains("Result: ok"), "{}", answer.body);
    assert!(answer.body.contains("id=\"warnings\""), "{}", answer.body);
    assert!(answer.body.contains("$.top_k"));
}

#[tokio::test]
async fn a_failing_skill_shows_its_code_and_details() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.fail/call",
        &[
            ("csrf", state.csrf_token()),
            ("mode", "form"),
            ("arg.reason", "testing"),
        ],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    let body = &answer.body;
    assert!(body.contains("Result: failed"));
    assert!(
        body.contains(r#"<code id="error-code">demo_failure</code>"#),
        "{body}"
    );
    assert!(body.contains("failed on purpose: testing"));
    assert!(
        body.contains("&quot;reason&quot;: &quot;testing&quot;"),
        "details shown"
    );
}

#[tokio::test]
async fn a_missing_required_argument_is_reported_by_the_dispatcher() {
    let state = state();
    let app = app(&state);
    let answer = post(
        &app,
        "/skills/demo.echo/call",
        &[("csrf", state.csrf_token()), ("mode", "form")],
    )
    .await;
    assert!(answer.body.contains("Result: failed"));
    assert!(answer.body.contains("invalid_arguments"), "{}", answer.body);
}

#[tokio::test]
async fn a_filtered_console_shows_and_calls_only_its_skills() {
    let state = ConsoleState::builder(dispatcher())
        .options(ConsoleOptions::new(TOKEN))
        .filter(toolwright::ToolFilter::all().category("query"))
        .build();
    let app = router(state.clone());
    let catalog = get(&app, "/").await;
    assert!(catalog.body.contains("demo.search"), "{}", catalog.body);
    assert!(
        !catalog.body.contains("demo.delete_note"),
        "{}",
        catalog.body
    );
    assert_eq!(
        get(&app, "/skills/demo.delete_note").await.status,
        StatusCode::NOT_FOUND
    );
    let call = post(
        &app,
        "/skills/demo.delete_note/call",
        &[("csrf", state.csrf_token()), ("arg.id", "7")],
    )
    .await;
    assert_eq!(call.status, StatusCode::NOT_FOUND);
    assert!(state.dispatcher().pending_confirmations().is_empty());
    assert_eq!(get(&app, "/skills/demo.echo").await.status, StatusCode::OK);
}
