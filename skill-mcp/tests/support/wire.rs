//! Minimal JSON-RPC clients that record and schema-check everything the server sends: one
//! over an in-memory duplex (the stdio framing), one over streamable HTTP.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

use super::schema::{check_server_message, Era};

const WAIT: Duration = Duration::from_secs(10);

/// The `_meta` a 2026 request carries; `capabilities` are the client's.
pub fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "skill-mcp-tests", "version": "0"},
    })
}

/// A client on the newline-delimited JSON-RPC framing of stdio, over a duplex.
pub struct LineClient {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: i64,
    pub era: Era,
    capabilities: Value,
    methods: HashMap<String, String>,
    /// Notifications and server requests received while waiting for responses.
    pub inbox: Vec<Value>,
}

impl LineClient {
    /// Starts `server` on a duplex and connects; `capabilities` are declared per era.
    pub async fn connect(server: toolwright_mcp::McpServer, era: Era, capabilities: Value) -> Self {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(async move {
            if let Err(err) = toolwright_mcp::serve_io(server, server_read, server_write).await {
                eprintln!("server ended: {err}");
            }
        });
        Self::over(client_end, era, capabilities).await
    }

    /// Connects over the client end of a duplex whose other end a server already serves.
    #[allow(dead_code)]
    pub async fn over(client_end: DuplexStream, era: Era, capabilities: Value) -> Self {
        let (read, writer) = tokio::io::split(client_end);
        let mut client = Self {
            writer,
            lines: BufReader::new(read).lines(),
            next_id: 0,
            era,
            capabilities,
            methods: HashMap::new(),
            inbox: Vec::new(),
        };
        if era == Era::Legacy {
            let init = client
                .request(
                    "initialize",
                    json!({
                        "protocolVersion": "2025-11-25",
                        "capabilities": client.capabilities.clone(),
                        "clientInfo": {"name": "skill-mcp-tests", "version": "0"},
                    }),
                )
                .await;
            assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
            client.notify("notifications/initialized", json!({})).await;
        }
        client
    }

    async fn write(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.writer.write_all(&line).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// Adds the 2026 `_meta` to request params.
    fn with_meta(&self, mut params: Value) -> Value {
        if self.era == Era::Modern {
            let meta = params
                .as_object_mut()
                .expect("params are an object")
                .entry("_meta")
                .or_insert_with(|| json!({}));
            for (k, v) in modern_meta(self.capabilities.clone()).as_object().unwrap() {
                meta[k] = v.clone();
            }
        }
        params
    }

    /// Sends a request and returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> String {
        self.next_id += 1;
        let id = self.next_id;
        let params = self.with_meta(params);
        self.methods.insert(id.to_string(), method.to_string());
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id.to_string()
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Answers a request the server sent.
    pub async fn respond(&mut self, id: &Value, result: Value) {
        self.write(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
            .await;
    }

    /// The next message from the server, schema-checked.
    pub async fn next_message(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("server answered in time")
            .expect("transport readable")
            .expect("server still connected");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("server wrote a line that is not JSON ({e}): {line}"));
        let method = message
            .get("id")
            .filter(|_| message.get("method").is_none())
            .and_then(|id| self.methods.get(id.to_string().trim_matches('"')))
            .cloned();
        check_server_message(self.era, method.as_deref(), &message);
        message
    }

    /// The response to request `id`; other messages go to the inbox.
    pub async fn response(&mut self, id: &str) -> Value {
        loop {
            let message = self.next_message().await;
            let is_response = message.get("method").is_none()
                && message
                    .get("id")
                    .map(|i| i.to_string().trim_matches('"').to_string())
                    == Some(id.to_string());
            if is_response {
                return message;
            }
            self.inbox.push(message);
        }
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(&id).await
    }

    /// `tools/call` of `name` with `arguments`.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

/// A client of the streamable HTTP endpoint.
pub struct HttpClient {
    pub url: String,
    pub http: reqwest::Client,
    pub era: Era,
    pub token: Option<String>,
    session: Option<String>,
    next_id: i64,
}

/// One HTTP exchange: status, headers of interest and the JSON-RPC messages in the body.
#[derive(Debug)]
pub struct Exchange {
    pub status: u16,
    pub session: Option<String>,
    pub messages: Vec<Value>,
    pub body: String,
}

impl Exchange {
    /// The message that answers the request (the last one).
    pub fn response(&self) -> &Value {
        self.messages
            .iter()
            .rev()
            .find(|m| m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response in {:?}", self.body))
    }
}

impl HttpClient {
    pub fn new(url: String, era: Era, token: Option<String>) -> Self {
        Self {
            url,
            http: reqwest::Client::builder().timeout(WAIT).build().unwrap(),
            era,
            token,
            session: None,
            next_id: 0,
        }
    }

    /// A request builder with the headers every MCP POST carries.
    pub fn post(&self, method: &str, name: Option<&str>) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json");
        if let Some(token) = &self.token {
            req = req.bearer_auth(token);
        }
        if let Some(session) = &self.session {
            req = req.header("Mcp-Session-Id", session);
        }
        match self.era {
            Era::Modern => {
                req = req
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", method);
                if let Some(name) = name {
                    req = req.header("Mcp-Name", name);
                }
            }
            Era::Legacy if self.session.is_some() => {
                req = req.header("MCP-Protocol-Version", "2025-11-25");
            }
            Era::Legacy => {}
        }
        req
    }

    /// Sends a built request and reads (and schema-checks) what comes back.
    pub async fn exchange(&self, req: reqwest::RequestBuilder, method: &str) -> Exchange {
        let resp = req.send().await.expect("HTTP request sent");
        let status = resp.status().as_u16();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let body = resp.text().await.expect("body readable");
        let mut messages = Vec::new();
        if sse {
            for line in body.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    let data = data.trim();
                    if data.is_empty() {
                        continue;
                    }
                    messages.push(
                        serde_json::from_str::<Value>(data)
                            .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data}")),
                    );
                }
            }
        } else if let Ok(v) = serde_json::from_str::<Value>(&body) {
            messages.push(v);
        }
        for m in &messages {
            let answers = m.get("method").is_none();
            check_server_message(self.era, answers.then_some(method), m);
        }
        Exchange {
            status,
            session,
            messages,
            body,
        }
    }

    /// The JSON-RPC body of a request.
    pub fn body(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let params = match self.era {
            Era::Modern => {
                // Keys the caller put in `_meta` (a trace context) stay.
                let mut params = params;
                let meta = params
                    .as_object_mut()
                    .expect("params are an object")
                    .entry("_meta")
                    .or_insert_with(|| json!({}));
                for (k, v) in modern_meta(json!({})).as_object().unwrap() {
                    meta[k] = v.clone();
                }
                params
            }
            Era::Legacy => params,
        };
        json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
    }

    /// Sends a request and returns the exchange.
    pub async fn request(&mut self, method: &str, params: Value) -> Exchange {
        // `Mcp-Name` carries the tool name, or the URI of a resource read.
        let key = if method.starts_with("resources/") {
            "uri"
        } else {
            "name"
        };
        let name = params.get(key).and_then(Value::as_str).map(str::to_string);
        let body = self.body(method, params);
        let req = self.post(method, name.as_deref()).json(&body);
        self.exchange(req, method).await
    }

    /// Ends a legacy session with `DELETE`; returns the status.
    pub async fn end_session(&mut self) -> u16 {
        let session = self.session.take().expect("a session to end");
        let mut req = self
            .http
            .delete(&self.url)
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25");
        if let Some(token) = &self.token {
            req = req.bearer_auth(token);
        }
        req.send().await.unwrap().status().as_u16()
    }

    /// Legacy handshake: `initialize` (keeping the session id) and `initialized`.
    pub async fn initialize(&mut self) {
        assert_eq!(self.era, Era::Legacy);
        let init = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "skill-mcp-tests", "version": "0"},
                }),
            )
            .await;
        assert_eq!(init.status, 200, "{}", init.body);
        assert_eq!(init.response()["result"]["protocolVersion"], "2025-11-25");
        self.session = init.session.clone();
        assert!(self.session.is_some(), "legacy sessions carry an id");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let resp = self
            .post("notifications/initialized", None)
            .json(&note)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 202);
    }
}
