//! Status handling, retries and unreadable answers of both HTTP clients, as one table: each
//! row is a provider, what the mock server answers (in order), the retry budget and what the
//! caller must see.

use std::time::{Duration, Instant};

use toolwright::agent::{
    AnthropicClient, AnthropicConfig, LlmClient, LlmError, OpenAiClient, OpenAiConfig,
};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::http_common::*;

const OPENAI_FINAL: &str = include_str!("../fixtures/openai/chat_final_text.json");
const OPENAI_400: &str = include_str!("../fixtures/openai/error_invalid_request_400.json");
const OPENAI_429: &str = include_str!("../fixtures/openai/error_rate_limit_429.json");
const OPENAI_500: &str = include_str!("../fixtures/openai/error_server_500.json");
const ANTHROPIC_FINAL: &str = include_str!("../fixtures/anthropic/messages_final_text.json");
const ANTHROPIC_400: &str = include_str!("../fixtures/anthropic/error_invalid_request_400.json");
const ANTHROPIC_429: &str = include_str!("../fixtures/anthropic/error_rate_limit_429.json");
const ANTHROPIC_529: &str = include_str!("../fixtures/anthropic/error_overloaded_529.json");

#[derive(Debug, Clone, Copy)]
enum Provider {
    OpenAi,
    Anthropic,
}

impl Provider {
    /// A client of this provider at `base` (`None`: a port nobody listens on).
    fn client(self, base: Option<&str>, retries: u32, timeout: Duration) -> Box<dyn LlmClient> {
        let refused = || {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port())
        };
        let base = base.map_or_else(refused, str::to_string);
        match self {
            Provider::OpenAi => Box::new(
                OpenAiClient::new(
                    OpenAiConfig::new(format!("{base}/v1/"), "gpt-4o")
                        .with_api_key("sk-test")
                        .with_timeout(timeout)
                        .with_retry(tiny_retry(retries)),
                )
                .unwrap(),
            ),
            Provider::Anthropic => Box::new(
                AnthropicClient::new(
                    AnthropicConfig::new("claude-sonnet-4-5", "ak-test")
                        .with_base_url(base)
                        .with_timeout(timeout)
                        .with_max_tokens(1024)
                        .with_retry(tiny_retry(retries)),
                )
                .unwrap(),
            ),
        }
    }
}

/// One answer of the mock server, given `times` times (`None`: for every request left).
struct Reply {
    response: fn() -> ResponseTemplate,
    times: Option<u64>,
}

const fn once(response: fn() -> ResponseTemplate) -> Reply {
    Reply {
        response,
        times: Some(1),
    }
}

const fn always(response: fn() -> ResponseTemplate) -> Reply {
    Reply {
        response,
        times: None,
    }
}

enum Expect {
    /// The turn succeeds after `requests` requests, its text containing `text`, not sooner
    /// than `min_elapsed` (the server's retry hint).
    Answer {
        text: &'static str,
        min_elapsed: Duration,
    },
    /// The turn fails with an error `check` accepts whose message contains `message`.
    Error {
        check: fn(&LlmError) -> bool,
        message: &'static str,
    },
}

struct Case {
    name: &'static str,
    provider: Provider,
    /// `None`: nothing listens (connection refused).
    replies: Option<Vec<Reply>>,
    retries: u32,
    timeout: Duration,
    /// Requests the server must have received.
    requests: usize,
    expect: Expect,
}

const FIVE_S: Duration = Duration::from_secs(5);
const SHORT: Duration = Duration::from_millis(100);

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "openai: rate limit, then success, honouring retry-after-ms",
            provider: Provider::OpenAi,
            replies: Some(vec![
                once(|| json_response(429, OPENAI_429).insert_header("retry-after-ms", "20")),
                always(|| json_response(200, OPENAI_FINAL)),
            ]),
            retries: 2,
            timeout: FIVE_S,
            requests: 2,
            expect: Expect::Answer {
                text: "risk_level",
                min_elapsed: Duration::from_millis(20),
            },
        },
        Case {
            name: "openai: server error after retries reports the provider's message",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| json_response(500, OPENAI_500))]),
            retries: 2,
            timeout: FIVE_S,
            requests: 3,
            expect: Expect::Error {
                check: |e| {
                    matches!(e, LlmError::Http { status: 500, attempts: 3, provider: "openai", message }
                        if message.starts_with("The server had an error"))
                },
                message: "openai returned HTTP 500",
            },
        },
        Case {
            name: "openai: a client error is not retried and is clear",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| json_response(400, OPENAI_400))]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::Http {
                            status: 400,
                            attempts: 1,
                            ..
                        }
                    )
                },
                message: "Invalid 'messages[3].tool_call_id'",
            },
        },
        Case {
            name: "openai: a non-JSON error body is quoted",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| {
                ResponseTemplate::new(404).set_body_string("404 page not found")
            })]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| matches!(e, LlmError::Http { status: 404, .. }),
                message: "HTTP 404: 404 page not found",
            },
        },
        Case {
            name: "openai: a retry-after beyond the limit is not waited for",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| {
                json_response(429, OPENAI_429).insert_header("retry-after", "3600")
            })]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::Http {
                            status: 429,
                            attempts: 1,
                            ..
                        }
                    )
                },
                message: "Rate limit reached",
            },
        },
        Case {
            name: "openai: malformed JSON is an invalid response",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| {
                ResponseTemplate::new(200).set_body_raw(
                    b"{\"id\": \"chatcmpl-1\", \"choices\": [".to_vec(),
                    "application/json",
                )
            })]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::InvalidResponse {
                            provider: "openai",
                            ..
                        }
                    )
                },
                message: "not JSON",
            },
        },
        Case {
            name: "openai: the wrong shape is an invalid response",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| {
                json_response(200, r#"{"object": "chat.completion", "choices": []}"#)
            })]),
            retries: 0,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::InvalidResponse {
                            provider: "openai",
                            ..
                        }
                    )
                },
                message: "choices[0].message",
            },
        },
        Case {
            name: "openai: a timeout is retried, then reported",
            provider: Provider::OpenAi,
            replies: Some(vec![always(|| {
                json_response(200, OPENAI_FINAL).set_delay(Duration::from_secs(3))
            })]),
            retries: 1,
            timeout: SHORT,
            requests: 2,
            expect: Expect::Error {
                check: |e| matches!(e, LlmError::Timeout { attempts: 2, .. }),
                message: "no response within",
            },
        },
        Case {
            name: "openai: a refused connection is retried, then reported",
            provider: Provider::OpenAi,
            replies: None,
            retries: 2,
            timeout: FIVE_S,
            requests: 0,
            expect: Expect::Error {
                check: |e| matches!(e, LlmError::Connection { attempts: 3, .. }),
                message: "connection failed after 3 attempt(s)",
            },
        },
        Case {
            name: "anthropic: overloaded and rate limited, then success",
            provider: Provider::Anthropic,
            replies: Some(vec![
                once(|| json_response(529, ANTHROPIC_529)),
                once(|| json_response(429, ANTHROPIC_429).insert_header("retry-after", "0")),
                always(|| json_response(200, ANTHROPIC_FINAL)),
            ]),
            retries: 3,
            timeout: FIVE_S,
            requests: 3,
            expect: Expect::Answer {
                text: "84 days",
                min_elapsed: Duration::ZERO,
            },
        },
        Case {
            name: "anthropic: overloaded after retries",
            provider: Provider::Anthropic,
            replies: Some(vec![always(|| json_response(529, ANTHROPIC_529))]),
            retries: 1,
            timeout: FIVE_S,
            requests: 2,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::Http {
                            status: 529,
                            attempts: 2,
                            ..
                        }
                    )
                },
                message: "anthropic returned HTTP 529: Overloaded",
            },
        },
        Case {
            name: "anthropic: an invalid request is clear and not retried",
            provider: Provider::Anthropic,
            replies: Some(vec![always(|| json_response(400, ANTHROPIC_400))]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::Http {
                            status: 400,
                            attempts: 1,
                            ..
                        }
                    )
                },
                message: "unexpected `tool_use_id`",
            },
        },
        Case {
            name: "anthropic: malformed JSON is an invalid response",
            provider: Provider::Anthropic,
            replies: Some(vec![always(|| {
                ResponseTemplate::new(200).set_body_raw(
                    b"{\"type\": \"message\", \"content\": [".to_vec(),
                    "application/json",
                )
            })]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::InvalidResponse {
                            provider: "anthropic",
                            ..
                        }
                    )
                },
                message: "not JSON",
            },
        },
        Case {
            name: "anthropic: a tool_use without a name is an invalid response",
            provider: Provider::Anthropic,
            replies: Some(vec![always(|| {
                json_response(
                    200,
                    r#"{"type": "message", "content": [{"type": "tool_use", "id": "t", "input": {}}]}"#,
                )
            })]),
            retries: 3,
            timeout: FIVE_S,
            requests: 1,
            expect: Expect::Error {
                check: |e| {
                    matches!(
                        e,
                        LlmError::InvalidResponse {
                            provider: "anthropic",
                            ..
                        }
                    )
                },
                message: "tool_use without `name`",
            },
        },
        Case {
            name: "anthropic: a timeout without retries is reported with its limit",
            provider: Provider::Anthropic,
            replies: Some(vec![always(|| {
                json_response(200, ANTHROPIC_FINAL).set_delay(Duration::from_secs(3))
            })]),
            retries: 0,
            timeout: SHORT,
            requests: 1,
            expect: Expect::Error {
                check: |e| matches!(e, LlmError::Timeout { attempts: 1, .. }),
                message: "100ms",
            },
        },
    ]
}

#[tokio::test]
async fn status_retries_and_unreadable_answers() {
    for case in cases() {
        let name = case.name;
        let server = match &case.replies {
            Some(replies) => {
                let server = MockServer::start().await;
                for reply in replies {
                    let mock = Mock::given(method("POST")).respond_with((reply.response)());
                    let mock = match reply.times {
                        Some(n) => mock.up_to_n_times(n),
                        None => mock,
                    };
                    mock.mount(&server).await;
                }
                Some(server)
            }
            None => None,
        };
        let client = case.provider.client(
            server.as_ref().map(|s| s.uri()).as_deref(),
            case.retries,
            case.timeout,
        );
        let started = Instant::now();
        let outcome = client.chat_with_tools(&convo(), &[], 0.1).await;
        match (&case.expect, outcome) {
            (Expect::Answer { text, min_elapsed }, Ok(answer)) => {
                assert!(answer.text.contains(text), "{name}: {}", answer.text);
                assert!(
                    started.elapsed() >= *min_elapsed,
                    "{name}: waited as the server asked"
                );
            }
            (Expect::Error { check, message }, Err(err)) => {
                assert!(check(&err), "{name}: unexpected {err:?}");
                assert!(err.to_string().contains(message), "{name}: {err}");
            }
            (_, other) => panic!("{name}: unexpected outcome {other:?}"),
        }
        if let Some(server) = server {
            let received = server.received_requests().await.unwrap().len();
            assert_eq!(received, case.requests, "{name}: requests received");
        }
    }
}
