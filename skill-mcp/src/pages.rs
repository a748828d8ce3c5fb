//! `tools/list` pages written as pre-rendered JSON.
//!
//! rmcp answers with typed results that it serializes per response; for a list of 1,000
//! tools that is most of the time a `tools/list` takes. The transports of this crate let the
//! handler answer with a result whose `tools` array is empty and whose `_meta` holds a page
//! token; on the way out, [`Splicer`] replaces that token and the empty array with the
//! page's JSON text, written once per list. Everything else in the response (the id,
//! `nextCursor`, the cache hints, the era's `resultType`) is rmcp's own serialization.
//!
//! The token carries a random per-process nonce, so no skill output can forge one; a token
//! that names no known list leaves the message unchanged.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{ready, Context, Poll};

use bytes::{Bytes, BytesMut};
use memchr::memmem;
use rmcp::model::{MetaObject, NumberOrString, RequestId};
use serde_json::Value;
use tokio::io::AsyncWrite;

use crate::registry::ToolList;

/// `_meta` key of the page token.
const PAGE_KEY: &str = "toolwright/page";

/// How far into a message the page token may start: it follows the JSON-RPC id, and
/// requests with longer ids get typed answers (see [`token_fits`]).
const TOKEN_WINDOW: usize = 1024;

/// Longest request id (as JSON) answered through the page writer.
const MAX_ID_LEN: usize = 256;

/// Lists served recently, kept so a page token issued just before the served list changed
/// still finds its list.
const RECENT_LISTS: usize = 8;

fn nonce() -> &'static str {
    static NONCE: OnceLock<String> = OnceLock::new();
    NONCE.get_or_init(|| uuid::Uuid::new_v4().simple().to_string())
}

/// `"_meta":{"toolwright/page":"<nonce>:` — how a token starts in a serialized result.
fn token_prefix() -> &'static [u8] {
    static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
    PREFIX.get_or_init(|| format!("\"_meta\":{{\"{PAGE_KEY}\":\"{}:", nonce()).into_bytes())
}

/// Whether a response to request `id` can carry a page token within [`TOKEN_WINDOW`]: the id
/// is measured as written in JSON (escapes included).
pub(crate) fn token_fits(id: &RequestId) -> bool {
    match id {
        NumberOrString::Number(_) => true,
        NumberOrString::String(s) => {
            serde_json::to_string(s.as_ref()).is_ok_and(|json| json.len() <= MAX_ID_LEN)
        }
    }
}

/// The `_meta` that stands for page `page` of `list` until the splicer writes it.
pub(crate) fn token_meta(list: &ToolList, page: usize) -> MetaObject {
    let mut meta = MetaObject::new();
    meta.insert(
        PAGE_KEY.into(),
        Value::String(format!("{}:{:x}:{:x}", nonce(), list.id, page)),
    );
    meta
}

/// Finds the lists page tokens name and writes their pages into outgoing messages.
#[derive(Debug, Clone, Default)]
pub(crate) struct Splicer {
    recent: Arc<Mutex<VecDeque<Arc<ToolList>>>>,
}

impl Splicer {
    /// Remembers `list` as served, so its tokens resolve.
    pub(crate) fn serve(&self, list: &Arc<ToolList>) {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        if recent.iter().any(|l| Arc::ptr_eq(l, list)) {
            return;
        }
        if recent.len() == RECENT_LISTS {
            recent.pop_back();
        }
        recent.push_front(Arc::clone(list));
    }

    fn page(&self, list_id: u64, page: usize) -> Option<Bytes> {
        let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.iter().find(|l| l.id == list_id)?.page(page)
    }

    /// The message with its page written in, as pieces to send in order; `None` when the
    /// message carries no token of this process.
    pub(crate) fn splice(&self, message: &[u8]) -> Option<[Bytes; 3]> {
        let window = &message[..message.len().min(TOKEN_WINDOW)];
        let prefix = token_prefix();
        let at = memmem::find(window, prefix)?;
        // Only the result's own `_meta` is a page token: between `"result":{` and the token
        // stand only scalar fields (`resultType`, `nextCursor`). The same bytes anywhere
        // else (nested in a skill's output) are left alone.
        let result = memmem::find(&message[..at], b"\"result\":{")? + b"\"result\":{".len();
        if message[result..at].iter().any(|b| matches!(b, b'{' | b'[')) {
            return None;
        }
        let rest = &message[at + prefix.len()..];
        let close = memchr::memchr(b'"', rest)?;
        let (list, page) = std::str::from_utf8(&rest[..close]).ok()?.split_once(':')?;
        let list = u64::from_str_radix(list, 16).ok()?;
        let page = usize::from_str_radix(page, 16).ok()?;
        let Some(json) = self.page(list, page) else {
            tracing::error!(list, page, "page token names no served list");
            return None;
        };
        // rmcp writes the token as the only `_meta` entry, then the other fields, `tools`
        // last: `..."_meta":{"toolwright/page":"…"},…,"tools":[]}}` and a line end.
        let meta_end = at + prefix.len() + close;
        let exact = rest.get(close..close + 3) == Some(b"\"},".as_slice());
        let tools = memmem::rfind(message, b"\"tools\":[]");
        match (exact, tools) {
            (true, Some(tools)) if tools > meta_end => {
                let array_start = tools + b"\"tools\":".len();
                let mut head = BytesMut::with_capacity(array_start);
                head.extend_from_slice(&message[..at]);
                head.extend_from_slice(&message[meta_end + 3..array_start]);
                let tail = Bytes::copy_from_slice(&message[array_start + 2..]);
                Some([head.freeze(), json, tail])
            }
            _ => Self::splice_parsed(message, json),
        }
    }

    /// The slow way for a message laid out otherwise: parse, replace, write again. What
    /// surrounds the JSON object (an SSE `data: ` field, the line end) is kept.
    fn splice_parsed(message: &[u8], page: Bytes) -> Option<[Bytes; 3]> {
        let start = memchr::memchr(b'{', message)?;
        let end = memchr::memrchr(b'}', message)? + 1;
        let mut value: Value = serde_json::from_slice(&message[start..end]).ok()?;
        let result = value.get_mut("result")?.as_object_mut()?;
        let Some(Value::Object(meta)) = result.get_mut("_meta") else {
            return None;
        };
        meta.remove(PAGE_KEY)?;
        if meta.is_empty() {
            result.remove("_meta");
        }
        result.insert("tools".into(), serde_json::from_slice(&page).ok()?);
        let mut out = message[..start].to_vec();
        serde_json::to_writer(&mut out, &value).ok()?;
        out.extend_from_slice(&message[end..]);
        Some([Bytes::from(out), Bytes::new(), Bytes::new()])
    }
}

/// The stdio writer: passes every line through, writing pages into `tools/list` answers.
pub(crate) struct SpliceWriter<W> {
    inner: W,
    splicer: Splicer,
    /// Bytes of a line not yet complete.
    line: BytesMut,
    /// Pieces waiting to be written to `inner`, in order.
    out: VecDeque<Bytes>,
}

impl<W> SpliceWriter<W> {
    pub(crate) fn new(inner: W, splicer: Splicer) -> Self {
        Self {
            inner,
            splicer,
            line: BytesMut::new(),
            out: VecDeque::new(),
        }
    }
}

impl<W: AsyncWrite + Unpin> SpliceWriter<W> {
    /// Writes the queued pieces out.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some(front) = self.out.front_mut() {
            if front.is_empty() {
                self.out.pop_front();
                continue;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, front))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            let _ = front.split_to(n);
        }
        Poll::Ready(Ok(()))
    }

    /// Queues the complete lines of `line`.
    fn take_lines(&mut self) {
        while let Some(end) = memchr::memchr(b'\n', &self.line) {
            let line = self.line.split_to(end + 1).freeze();
            match self.splicer.splice(&line) {
                Some(pieces) => self.out.extend(pieces),
                None => self.out.push_back(line),
            }
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for SpliceWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        this.line.extend_from_slice(buf);
        this.take_lines();
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if !this.line.is_empty() {
            let rest = this.line.split().freeze();
            this.out.push_back(rest);
        }
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use toolwright::{Dispatcher, ToolFilter};

    fn served() -> (Splicer, Arc<ToolList>) {
        let registry = Registry::new(Dispatcher::builder().build().unwrap(), 10);
        let list = registry.tools(&ToolFilter::all()).unwrap();
        let splicer = Splicer::default();
        splicer.serve(&list);
        (splicer, list)
    }

    fn token(list: &ToolList) -> String {
        serde_json::to_string(&token_meta(list, 0)).unwrap()
    }

    fn joined(pieces: [Bytes; 3]) -> Value {
        let bytes: Vec<u8> = pieces.iter().flat_map(|p| p.to_vec()).collect();
        let text = String::from_utf8(bytes).unwrap();
        let json = text.trim().trim_start_matches("data: ");
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_token_first_in_the_result_is_replaced_by_the_page() {
        let (splicer, list) = served();
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"_meta\":{},\"ttlMs\":5,\"tools\":[]}}}}\n",
            token(&list)
        );
        let out = joined(splicer.splice(line.as_bytes()).expect("spliced"));
        assert_eq!(out["result"]["tools"], serde_json::json!([]));
        assert!(out["result"].get("_meta").is_none(), "{out}");
        assert_eq!(out["result"]["ttlMs"], 5);
    }

    #[test]
    fn the_same_bytes_inside_a_skill_output_are_left_alone() {
        let (splicer, list) = served();
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"structuredContent\":{{\"_meta\":{}}},\"tools\":[]}}}}\n",
            token(&list)
        );
        assert!(splicer.splice(line.as_bytes()).is_none());
    }

    #[test]
    fn an_sse_event_laid_out_otherwise_is_parsed_and_keeps_its_framing() {
        let (splicer, list) = served();
        // `_meta` not followed by `},` (the fast path's layout), inside an SSE data field.
        let event = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"_meta\":{}}}}}\n\n",
            token(&list).trim_end_matches('}').to_owned() + ",\"other\":1}"
        );
        let pieces = splicer.splice(event.as_bytes()).expect("spliced");
        let bytes: Vec<u8> = pieces.iter().flat_map(|p| p.to_vec()).collect();
        assert!(bytes.starts_with(b"data: {") && bytes.ends_with(b"}\n\n"));
        let out = joined(pieces);
        assert_eq!(out["result"]["tools"], serde_json::json!([]));
        assert_eq!(out["result"]["_meta"], serde_json::json!({"other": 1}));
    }

    #[test]
    fn long_ids_are_measured_as_written() {
        let quotes = "\"".repeat(200);
        assert!(!token_fits(&NumberOrString::String(quotes.into())));
        assert!(token_fits(&NumberOrString::String("a".repeat(200).into())));
        assert!(token_fits(&NumberOrString::Number(7)));
    }
}
