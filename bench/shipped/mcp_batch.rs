//! A batch of MCP `tools/call` round trips against a server process, timed: the client of
//! `bench/shipped/run.sh`, the same for every server it measures. One request at a time
//! (write the request, read its whole response), after the 2025-11-25 handshake; every
//! response is checked to be the answer to its request and not an error.
//!
//! ```sh
//! # a server the client starts and talks to over its stdin and stdout:
//! mcp_batch stdio CALLS TOOL ARGUMENTS_JSON -- clausewright serve --stdio --contract c.md
//! # a streamable HTTP endpoint already listening (JSON or event-stream responses):
//! mcp_batch http CALLS TOOL ARGUMENTS_JSON http://127.0.0.1:8765/mcp
//! ```
//! Prints one line: calls, total seconds, mean and median microseconds per call.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// Calls made before timing starts (connections, caches and thread pools warmed).
const WARM_UP: usize = 200;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let usage = "usage: mcp_batch (stdio|http) CALLS TOOL ARGUMENTS_JSON (-- COMMAND... | URL)";
    let [mode, calls, tool, arguments, rest @ ..] = args else {
        return Err(usage.into());
    };
    let calls: usize = calls
        .parse()
        .map_err(|_| format!("CALLS must be a whole number, got {calls:?}"))?;
    let arguments: Value = serde_json::from_str(arguments)
        .map_err(|e| format!("ARGUMENTS_JSON is not JSON ({e}): {arguments}"))?;
    let mut transport: Box<dyn Transport> = match (mode.as_str(), rest) {
        ("stdio", [dashes, command, command_args @ ..]) if dashes == "--" => {
            Box::new(Pipe::start(command, command_args)?)
        }
        ("http", [url]) => Box::new(Http::connect(url)?),
        _ => return Err(usage.into()),
    };
    let init = transport.request(&request(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcp-batch", "version": "0"},
        }),
    ))?;
    answer_of(&init, 0)?;
    transport.notify(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let params = json!({"name": tool, "arguments": arguments});
    let mut times = Vec::with_capacity(calls);
    for id in 1..=(WARM_UP + calls) as u64 {
        let call = Instant::now();
        let response = transport.request(&request(id, "tools/call", params.clone()))?;
        if id as usize > WARM_UP {
            times.push(call.elapsed());
        }
        let result = answer_of(&response, id)?;
        if result["isError"] == json!(true) {
            return Err(format!("the tool answered an error: {result}"));
        }
    }
    let total: Duration = times.iter().sum();
    times.sort_unstable();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let mean = total.checked_div(calls.max(1) as u32).unwrap_or_default();
    Ok(format!(
        "calls {calls} total {:.3} s mean {:.1} us median {:.1} us",
        total.as_secs_f64(),
        mean.as_secs_f64() * 1e6,
        median.as_secs_f64() * 1e6
    ))
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The `result` of the response to request `id`; an error response or another id is an error.
fn answer_of(response: &Value, id: u64) -> Result<Value, String> {
    if response["id"] != json!(id) {
        return Err(format!(
            "expected the answer to request {id}, got {response}"
        ));
    }
    match response.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(format!("request {id} failed: {response}")),
    }
}

/// One way of carrying JSON-RPC messages.
trait Transport {
    /// Sends a request and reads its response.
    fn request(&mut self, message: &Value) -> Result<Value, String>;
    /// Sends a notification (no response).
    fn notify(&mut self, message: &Value) -> Result<(), String>;
}

/// A server process on the other end of its stdin and stdout, one message a line.
struct Pipe {
    child: Child,
    /// Closed (dropped) at the end, so the server ends on its own and a wrapper such as
    /// `perf stat` or `/usr/bin/time` around it can report.
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: String,
}

impl Pipe {
    fn start(command: &str, args: &[String]) -> Result<Self, String> {
        let mut child = Command::new(command)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {command}: {e}"))?;
        let input = child.stdin.take().ok_or("no stdin")?;
        let output = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            input: Some(input),
            output,
            line: String::new(),
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut text = message.to_string();
        text.push('\n');
        let input = self.input.as_mut().ok_or("the server's input is closed")?;
        input
            .write_all(text.as_bytes())
            .and_then(|()| input.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }
}

impl Transport for Pipe {
    fn request(&mut self, message: &Value) -> Result<Value, String> {
        self.send(message)?;
        loop {
            self.line.clear();
            let read = self
                .output
                .read_line(&mut self.line)
                .map_err(|e| format!("cannot read from the server: {e}"))?;
            if read == 0 {
                return Err("the server closed its output".into());
            }
            let value: Value = serde_json::from_str(&self.line)
                .map_err(|e| format!("the server wrote a line that is not JSON ({e})"))?;
            // Notifications (logs, progress) are skipped; the answer has the request's id.
            if value.get("id").is_some() {
                return Ok(value);
            }
        }
    }

    fn notify(&mut self, message: &Value) -> Result<(), String> {
        self.send(message)
    }
}

impl Drop for Pipe {
    /// Closes the server's input and gives it 5 s to end on its own; then kills it.
    fn drop(&mut self) {
        drop(self.input.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A streamable HTTP endpoint on one kept-alive connection; the answer is read from a JSON
/// body or from an event stream's last `data:` line.
struct Http {
    stream: BufReader<TcpStream>,
    host: String,
    path: String,
    session: Option<String>,
}

impl Http {
    fn connect(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("expected an http:// URL, got {url}"))?;
        let (host, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        let stream =
            TcpStream::connect(host).map_err(|e| format!("cannot connect to {host}: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("cannot set TCP_NODELAY: {e}"))?;
        Ok(Self {
            stream: BufReader::new(stream),
            host: host.into(),
            path: path.into(),
            session: None,
        })
    }

    /// POSTs `message`; the status and the body.
    fn post(&mut self, message: &Value) -> Result<(u16, String), String> {
        let body = message.to_string();
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.path,
            self.host,
            body.len()
        );
        if let Some(session) = &self.session {
            head.push_str(&format!(
                "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            ));
        }
        // `serve --http` wants its launch token (TOOLWRIGHT_TOKEN names it for both ends).
        if let Ok(token) = std::env::var("TOOLWRIGHT_TOKEN") {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(&body);
        let io = |e: std::io::Error| format!("HTTP exchange failed: {e}");
        self.stream
            .get_mut()
            .write_all(head.as_bytes())
            .map_err(io)?;
        let mut line = String::new();
        self.stream.read_line(&mut line).map_err(io)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
        let (mut length, mut chunked) = (0usize, false);
        loop {
            line.clear();
            self.stream.read_line(&mut line).map_err(io)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "mcp-session-id" => self.session = Some(value.to_string()),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.stream.read_line(&mut line).map_err(io)?;
                let size = usize::from_str_radix(line.trim(), 16)
                    .map_err(|_| format!("bad chunk size {line:?}"))?;
                let mut chunk = vec![0; size + 2];
                self.stream.read_exact(&mut chunk).map_err(io)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            body.resize(length, 0);
            self.stream.read_exact(&mut body).map_err(io)?;
        }
        let body = String::from_utf8(body).map_err(|_| "the body is not UTF-8".to_string())?;
        Ok((status, body))
    }
}

impl Transport for Http {
    fn request(&mut self, message: &Value) -> Result<Value, String> {
        let (status, body) = self.post(message)?;
        if status != 200 {
            return Err(format!("HTTP {status}: {body}"));
        }
        // A JSON body, or an event stream whose `data:` line carries the answer.
        let answer = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|data| !data.is_empty())
            .unwrap_or(&body);
        serde_json::from_str(answer).map_err(|e| format!("the body is not JSON ({e}): {body}"))
    }

    fn notify(&mut self, message: &Value) -> Result<(), String> {
        let (status, body) = self.post(message)?;
        match status {
            200..=299 => Ok(()),
            _ => Err(format!("HTTP {status} for a notification: {body}")),
        }
    }
}
