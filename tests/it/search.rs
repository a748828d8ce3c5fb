//! `clausewright search`: the linked skills ranked against a request, a registry's requests
//! ranked as JSON lines, the scoring mode, and the errors a user gets for bad files.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::cli::{clausewright, stderr, stdout};

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolwright-search-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Twelve tools: one per topic, and two variants of the weather one.
fn registry() -> Value {
    let tool = |name: &str, description: &str, param: &str| {
        json!({"name": name, "description": description, "parameters": {
            "type": "object",
            "properties": {param: {"type": "string", "description": format!("The {param}.")}},
            "required": [param]}})
    };
    json!([
        tool(
            "get_current_weather",
            "Get the current weather in a city.",
            "location"
        ),
        tool(
            "get_current_weather__2",
            "Current weather conditions for a place.",
            "city"
        ),
        tool(
            "math.factorial",
            "Calculate the factorial of a number.",
            "number"
        ),
        tool(
            "send_email",
            "Send an email message to a recipient.",
            "recipient"
        ),
        tool(
            "book_flight",
            "Book a flight between two airports.",
            "destination"
        ),
        tool(
            "translate_text",
            "Translate text into another language.",
            "target_language"
        ),
        tool(
            "stock.get_price",
            "Get the latest price of a stock ticker.",
            "ticker"
        ),
        tool(
            "find_restaurant",
            "Find restaurants by cuisine near a location.",
            "cuisine"
        ),
        tool(
            "convertCurrency",
            "Convert an amount between currencies.",
            "amount"
        ),
        tool("play_song", "Play a song on the speaker.", "song_name"),
        tool("set_alarm", "Set an alarm clock for a time.", "time"),
        tool("get_news", "Latest news headlines on a topic.", "topic"),
    ])
}

fn write_inputs(test: &str, requests: &[Value]) -> (PathBuf, PathBuf) {
    let dir = scratch(test);
    let registry_path = dir.join("registry.json");
    std::fs::write(&registry_path, registry().to_string()).unwrap();
    let queries_path = dir.join("queries.jsonl");
    let lines: Vec<String> = requests.iter().map(Value::to_string).collect();
    std::fs::write(&queries_path, lines.join("\n") + "\n").unwrap();
    (registry_path, queries_path)
}

#[test]
fn search_ranks_the_linked_skills() {
    let out = clausewright(&[
        "search",
        "find the time limits for notices of claims",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits[0]["id"], "fidic_calculate_time_bar", "{hits:?}");
    assert!(hits.len() <= 10);
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {scores:?}"
    );

    // The table, under a filter: only the domain's skills (and universal ones) are ranked.
    let out = clausewright(&["search", "governance board seats", "--domain", "fidic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("sha_governance_check"),
        "{}",
        stdout(&out)
    );
    let out = clausewright(&["search", "zzzz qqqq"]);
    assert!(
        stdout(&out).contains("no skill matches"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_registry_s_requests_are_ranked_one_line_each() {
    let (registry, queries) = write_inputs(
        "rank",
        &[
            json!({"id": "q1", "query": "What's 7 factorial?"}),
            json!({"id": "q2", "query": "Is it raining in Oslo? What's the weather?"}),
        ],
    );
    let out = clausewright(&[
        "search",
        "--registry",
        registry.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "q1");
    let ranked = lines[0]["ranked"].as_array().unwrap();
    assert_eq!(ranked[0], "math.factorial");
    assert_eq!(
        ranked.len(),
        10,
        "at least 10 names, padded from the registry"
    );
    let unique: std::collections::HashSet<&str> =
        ranked.iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(unique.len(), 10, "no name twice");
    let weather: Vec<&str> = lines[1]["ranked"].as_array().unwrap()[..2]
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        weather.contains(&"get_current_weather") && weather.contains(&"get_current_weather__2"),
        "{weather:?}"
    );
}

#[test]
fn scoring_reports_recall_and_mrr() {
    let (registry, queries) = write_inputs(
        "score",
        &[
            json!({"id": "a", "query": "what is 7 factorial", "expected": ["math.factorial"]}),
            json!({"id": "b", "query": "send an email to Ana", "expected": ["send_email"]}),
            // Found, but not first: the variant is expected.
            json!({"id": "c", "query": "current weather in a city", "expected": ["get_current_weather__2"]}),
            // Not found by its words at all.
            json!({"id": "d", "query": "wake me up at seven", "expected": ["set_alarm"]}),
        ],
    );
    let out = clausewright(&[
        "search",
        "--registry",
        registry.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
        "--score",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let scores: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(scores["requests"], 4);
    let exact = &scores["exact"];
    assert_eq!(exact["recall_at_1"], 0.5, "{scores}");
    assert_eq!(exact["recall_at_3"], 0.75, "{scores}");
    // No word of "wake me up at seven" is in the registry: the ten names given are the
    // first ten tools, and set_alarm (the eleventh) is not among them.
    assert_eq!(exact["recall_at_10"], 0.75, "{scores}");
    assert_eq!(exact["mrr"], (1.0 + 1.0 + 0.5) / 4.0, "{scores}");
    assert_eq!(scores["variants_as_one"]["recall_at_1"], 0.75, "{scores}");

    let out = clausewright(&[
        "search",
        "--registry",
        registry.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
        "--score",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("recall@5")
            && text.contains("variants as one")
            && text.contains("4 requests"),
        "{text}"
    );
}

#[test]
fn bad_files_are_refused_with_what_and_where() {
    let (registry, queries) = write_inputs("bad", &[json!({"id": "q", "query": "x"})]);
    let dir = registry.parent().unwrap().to_path_buf();
    let run = |registry: &PathBuf, queries: &PathBuf, extra: &[&str]| {
        let mut args = vec![
            "search",
            "--registry",
            registry.to_str().unwrap(),
            "--queries",
            queries.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        clausewright(&args)
    };
    let not_array = dir.join("object.json");
    std::fs::write(&not_array, r#"{"name": "x"}"#).unwrap();
    let out = run(&not_array, &queries, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("object.json") && stderr(&out).contains("JSON array"),
        "{}",
        stderr(&out)
    );

    let nameless = dir.join("nameless.json");
    std::fs::write(&nameless, r#"[{"name": "a"}, {"description": "d"}]"#).unwrap();
    let out = run(&nameless, &queries, &[]);
    assert!(
        stderr(&out).contains("tool definition 1: no `name`"),
        "{}",
        stderr(&out)
    );

    let bad_lines = dir.join("bad.jsonl");
    std::fs::write(&bad_lines, "{\"id\": \"q\", \"query\": \"x\"}\nnot json\n").unwrap();
    let out = run(&registry, &bad_lines, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.jsonl line 2"),
        "{}",
        stderr(&out)
    );

    let out = run(&registry, &queries, &["--score"]);
    assert!(
        stderr(&out).contains("no `expected` names"),
        "{}",
        stderr(&out)
    );

    let out = run(&registry, &dir.join("missing.jsonl"), &[]);
    assert!(
        stderr(&out).contains("cannot read") && stderr(&out).contains("missing.jsonl"),
        "{}",
        stderr(&out)
    );

    // A registry needs its requests, and a request is not given twice.
    let out = clausewright(&["search", "--registry", registry.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = clausewright(&["search"]);
    assert_eq!(out.status.code(), Some(2));
}
