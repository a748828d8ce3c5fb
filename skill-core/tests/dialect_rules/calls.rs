//! Calls and results in every dialect.

use super::*;

#[tokio::test]
async fn calls_are_read_and_answered_in_every_dialect() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let args = json!({"keyword": "cit", "limit": "1"});
    let payloads = [
        (
            Dialect::OpenAi,
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "crm_search_client", "arguments": args.to_string()}}]}}]}),
        ),
        (
            Dialect::Responses,
            json!({"output": [
            {"type": "reasoning", "id": "rs_1"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "crm_search_client", "arguments": args.to_string()}]}),
        ),
        (
            Dialect::Anthropic,
            json!({"role": "assistant", "content": [
            {"type": "text", "text": "Searching."},
            {"type": "tool_use", "id": "call_1", "name": "crm_search_client", "input": args}]}),
        ),
        (
            Dialect::Gemini,
            json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"id": "call_1", "name": "crm_search_client", "args": args}, "thoughtSignature": "c2ln"}]}}]}),
        ),
        (
            Dialect::Mcp,
            json!({"jsonrpc": "2.0", "id": "call_1", "method": "tools/call", "params": {"name": "crm_search_client", "arguments": args}}),
        ),
    ];
    for (dialect, payload) in payloads {
        let calls = dialect.parse_calls(&payload).unwrap();
        assert_eq!(calls.len(), 1, "{dialect}");
        let call = &calls[0];
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("call_1", "crm_search_client"),
            "{dialect}"
        );
        let result = d.dispatch(&call.to_parsed_call(), &ctx).await;
        assert!(result.success, "{dialect}: {:?}", result.error);
        assert_eq!(
            result.skill_id, "crm.search_client",
            "{dialect}: wire name mapped back"
        );
        assert_eq!(
            result.warnings[0].code, "string_to_integer",
            "{dialect}: lenient parse"
        );
        let answer = dialect.render_result(call, &result, d.registration(&call.name));
        let history = call.render();
        let (again, rendered) = d.answer_call(call, &ctx).await;
        assert!(again.success);
        assert_eq!(
            rendered, answer,
            "{dialect}: answer_call renders the same answer"
        );
        match dialect {
            Dialect::OpenAi => {
                assert_eq!(answer["role"], "tool");
                assert_eq!(answer["tool_call_id"], "call_1");
                assert!(answer["content"].as_str().unwrap().contains("CITIC Press"));
                assert_eq!(history["function"]["arguments"], args.to_string());
            }
            Dialect::Responses => {
                assert_eq!(answer["type"], "function_call_output");
                assert_eq!(answer["call_id"], "call_1");
                assert!(answer["output"].is_string());
            }
            Dialect::Anthropic => {
                assert_eq!(answer["type"], "tool_result");
                assert_eq!(answer["tool_use_id"], "call_1");
                assert!(answer.get("is_error").is_none());
                assert_eq!(history["input"], args);
            }
            Dialect::Gemini => {
                assert_eq!(call.thought_signature.as_deref(), Some("c2ln"));
                assert_eq!(
                    history["thoughtSignature"], "c2ln",
                    "signature echoed in history"
                );
                assert_eq!(answer["functionResponse"]["name"], "crm_search_client");
                assert_eq!(answer["functionResponse"]["id"], "call_1");
                assert_eq!(answer["functionResponse"]["response"]["output"]["total"], 1);
            }
            Dialect::Mcp => {
                assert_eq!(answer["isError"], false);
                assert_eq!(answer["structuredContent"]["total"], 1);
                assert_eq!(history["params"]["name"], "crm_search_client");
            }
            _ => unreachable!(),
        }
    }
}

#[tokio::test]
async fn errors_are_flagged_the_way_each_dialect_expects() {
    let d = dispatcher();
    let ctx = SkillContext::new();
    let result = d
        .call("crm.search_client", r#"{"limit": "lots"}"#, &ctx)
        .await;
    assert!(!result.success);
    let call = |dialect| toolwright::ProviderCall {
        dialect,
        id: "call_9".into(),
        name: "crm_search_client".into(),
        arguments: toolwright::WireArguments::Text(r#"{"limit": "lots"}"#.into()),
        thought_signature: None,
    };
    let anthropic = Dialect::Anthropic.render_result(&call(Dialect::Anthropic), &result, None);
    assert_eq!(anthropic["is_error"], true);
    assert!(anthropic["content"]
        .as_str()
        .unwrap()
        .contains("Correct these arguments"));
    let gemini = Dialect::Gemini.render_result(&call(Dialect::Gemini), &result, None);
    assert_eq!(
        gemini["functionResponse"]["response"]["error"]["code"],
        "invalid_arguments"
    );
    assert!(gemini["functionResponse"].get("id").is_some());
    let mcp = Dialect::Mcp.render_result(&call(Dialect::Mcp), &result, None);
    assert_eq!(mcp["isError"], true);
    assert!(mcp["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("invalid_arguments: "));
    let openai = Dialect::OpenAi.render_result(&call(Dialect::OpenAi), &result, None);
    assert!(openai["content"]
        .as_str()
        .unwrap()
        .contains("\"success\":false"));
}

#[test]
fn malformed_calls_are_reported_with_their_location() {
    let err = Dialect::OpenAi
        .parse_calls(&json!({"tool_calls": [{"id": "x", "function": {}}]}))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "malformed openai tool call at tool_calls[0].function: no `name`"
    );
    let err = Dialect::Anthropic
        .parse_calls(&json!([{"type": "tool_use", "name": "a"}]))
        .unwrap_err();
    assert!(err.to_string().contains("content[0]: no `id`"));
    let err = Dialect::Mcp
        .parse_calls(&json!({"method": "tools/list"}))
        .unwrap_err();
    assert!(err.to_string().contains("`tools/list` is not `tools/call`"));
    assert!(Dialect::Gemini
        .parse_calls(&json!({"parts": [{"text": "hi"}]}))
        .unwrap()
        .is_empty());
    let calls = Dialect::OpenAi
        .parse_calls(&json!([{"id": "c", "function": {"name": "n", "arguments": {"a": 1}}}]))
        .unwrap();
    assert_eq!(
        calls[0].arguments.to_text(),
        r#"{"a":1}"#,
        "object arguments tolerated"
    );
}
