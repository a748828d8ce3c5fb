//! The one HTTP guard in front of every endpoint that serves skills (the MCP endpoint, the
//! web console): `Host` and `Origin` allow-lists against DNS rebinding and cross-site
//! requests, secret comparison without early exit, the bearer token, and the readers the
//! console's launch token and CSRF field need (query, cookie, form and multipart fields).
//!
//! [`serve`] is the listener both run on: a connection cap, header-read and idle time-outs,
//! a bounded shutdown ([`ConnectionLimits`]).
//!
//! Serving policy lives here and only here, so both servers refuse the same requests for the
//! same reasons. Each server keeps only how it words a refusal (a JSON-RPC client reads plain
//! text, a browser an HTML page).
//!
//! A crate of its own so that only the servers link axum and hyper: the runtime crate a
//! skill author compiles (`toolwright`) holds no server code.

#![warn(missing_docs)]
#![warn(unreachable_pub)]

mod listener;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

pub use listener::{serve, ConnectionLimits};

/// Which `Host` and `Origin` values a server answers. The default is this machine only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpGuard {
    /// `Host` values accepted (names or `host:port`); anything else is refused (403).
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s accepted (`scheme://host:port`, `:*` for any port); a request with
    /// another `Origin` is refused (403), one without `Origin` (not a browser) passes.
    pub allowed_origins: Vec<String>,
}

impl Default for HttpGuard {
    fn default() -> Self {
        Self::loopback()
    }
}

/// A name given to [`HttpGuard::allow_host`] or [`HttpGuard::allow_origin`] that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BadAllowance {
    /// Not a host name or `name:port`.
    #[error("`{0}` is not a host; expected a name or address with an optional port, like `example.com` or `203.0.113.5:8765`")]
    Host(String),
    /// Not an origin.
    #[error("`{0}` is not an origin; expected `http://` or `https://`, a host and an optional port (`:*` for any), like `https://example.com:8443`")]
    Origin(String),
}

/// Why the guard refused a request (each is a 403).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// No `Host` header.
    #[error("the request has no Host header")]
    NoHost,
    /// A header the guard reads is not text.
    #[error("the {0} header is not text")]
    NotText(&'static str),
    /// `Host` is not on the allow-list.
    #[error("Host `{host}` is not allowed (allowed: {allowed})")]
    HostNotAllowed {
        /// The `Host` sent.
        host: String,
        /// The allow-list, comma-separated.
        allowed: String,
    },
    /// `Origin` is not on the allow-list.
    #[error("Origin `{0}` is not allowed")]
    OriginNotAllowed(String),
}

impl HttpGuard {
    /// `localhost`, `127.0.0.1` and `::1`, with their `http://` origins on any port.
    pub fn loopback() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
        }
    }

    /// Also answers `host`, a name or `name:port` this server is reached by (a public
    /// bind's DNS name or address).
    pub fn allow_host(&mut self, host: &str) -> Result<(), BadAllowance> {
        let host = host.trim();
        let plain = !host.is_empty()
            && !host.contains("://")
            && !host.contains(['/', '?', '#', '@', ','])
            && !host.chars().any(char::is_whitespace);
        if !plain {
            return Err(BadAllowance::Host(host.to_string()));
        }
        self.allowed_hosts.push(host.to_string());
        Ok(())
    }

    /// Also accepts browser requests from `origin` (`https://name`, `https://name:8443`,
    /// `http://name:*` for any port).
    pub fn allow_origin(&mut self, origin: &str) -> Result<(), BadAllowance> {
        let origin = origin.trim().trim_end_matches('/');
        let rest = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        let ok = rest.is_some_and(|rest| {
            !rest.is_empty()
                && !rest.contains(['/', '?', '#', '@', ','])
                && !rest.chars().any(char::is_whitespace)
        });
        if !ok {
            return Err(BadAllowance::Origin(origin.to_string()));
        }
        self.allowed_origins.push(origin.to_string());
        Ok(())
    }

    /// Checks `Host`, then `Origin`.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_host(headers)?;
        self.check_origin(headers)
    }

    /// The `Host` header is on the allow-list (by name, or name and port).
    pub fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .ok_or(Refusal::NoHost)?
            .to_str()
            .map_err(|_| Refusal::NotText("Host"))?;
        let name = host_name(host);
        let allowed = self
            .allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host) || a.eq_ignore_ascii_case(name));
        if allowed {
            Ok(())
        } else {
            Err(Refusal::HostNotAllowed {
                host: host.to_string(),
                allowed: self.allowed_hosts.join(", "),
            })
        }
    }

    /// The `Origin` header, when there is one, is on the allow-list.
    pub fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let origin = origin.to_str().map_err(|_| Refusal::NotText("Origin"))?;
        if self
            .allowed_origins
            .iter()
            .any(|pattern| origin_matches(pattern, origin))
        {
            Ok(())
        } else {
            Err(Refusal::OriginNotAllowed(origin.to_string()))
        }
    }
}

/// Middleware: refuses (403, plain text) a request the guard does not let through.
pub async fn enforce(
    State(guard): State<Arc<HttpGuard>>,
    request: Request,
    next: Next,
) -> Response {
    match guard.check(request.headers()) {
        Ok(()) => next.run(request).await,
        Err(why) => {
            tracing::warn!(%why, "request refused");
            (StatusCode::FORBIDDEN, format!("{why}\n")).into_response()
        }
    }
}

/// Middleware: refuses (401, with `WWW-Authenticate`) a request without
/// `Authorization: Bearer <token>`.
pub async fn require_bearer(
    State(token): State<Arc<str>>,
    request: Request,
    next: Next,
) -> Response {
    match bearer_token(request.headers()) {
        Some(presented) if secrets_match(presented, &token) => next.run(request).await,
        _ => {
            tracing::warn!("request without a valid bearer token");
            let mut response =
                (StatusCode::UNAUTHORIZED, "missing or wrong bearer token\n").into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"toolwright\""),
            );
            response
        }
    }
}

/// Compares a presented secret with the real one without an early exit, so the time taken
/// does not reveal the matching prefix.
pub fn secrets_match(presented: &str, secret: &str) -> bool {
    let (a, b) = (presented.as_bytes(), secret.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case, as
/// RFC 9110 has it).
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Fewest characters of a token guarding an endpoint.
pub const MIN_TOKEN_CHARS: usize = 16;

/// Why a token is refused as an endpoint's secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WeakToken {
    /// Empty or only white space.
    #[error("the token is blank; give one of at least {MIN_TOKEN_CHARS} characters")]
    Blank,
    /// Too short to resist guessing.
    #[error("the token has {0} characters; it needs at least {MIN_TOKEN_CHARS} (a random one: `openssl rand -hex 16`)")]
    TooShort(usize),
    /// White space inside cannot travel in an `Authorization` header.
    #[error(
        "the token contains white space or control characters; use letters, digits and punctuation"
    )]
    NotPrintable,
}

/// Refuses a token that is blank, shorter than [`MIN_TOKEN_CHARS`] or not sendable in a
/// header.
pub fn check_token(token: &str) -> Result<(), WeakToken> {
    if token.trim().is_empty() {
        return Err(WeakToken::Blank);
    }
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(WeakToken::NotPrintable);
    }
    let chars = token.chars().count();
    if chars < MIN_TOKEN_CHARS {
        return Err(WeakToken::TooShort(chars));
    }
    Ok(())
}

/// A site-relative redirect target for `path`: leading slashes and backslashes collapse to
/// one, so `//evil.example/` (which a browser reads as another site) stays on this one.
pub fn local_path(path: &str) -> String {
    format!("/{}", path.trim_start_matches(['/', '\\']))
}

/// The value of cookie `name`.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The (decoded) value of `name` in a URL query.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_field(query?.as_bytes(), name)
}

/// The query without its `name` parameter (to keep a secret out of the address bar).
pub fn query_without(query: &str, name: &str) -> String {
    let prefix = format!("{name}=");
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with(&prefix) && *pair != name)
        .collect::<Vec<_>>()
        .join("&")
}

/// The value of `name` in a URL-encoded form body.
pub fn form_field(body: &[u8], name: &str) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// The value of the text part `name` in a `multipart/form-data` body (read without
/// buffering the parts: the field is expected before any file).
pub fn multipart_field(body: &[u8], name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\"");
    let at = find(body, marker.as_bytes())?;
    let rest = &body[at + marker.len()..];
    let start = find(rest, b"\r\n\r\n")? + 4;
    let value = &rest[start..];
    let end = find(value, b"\r\n")?;
    String::from_utf8(value[..end].to_vec()).ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The host part of a `Host` value (`[::1]:8765` → `::1`, `localhost:80` → `localhost`).
pub fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `http://127.0.0.1:*` matches `http://127.0.0.1` with any port (or none); other patterns
/// match exactly (ASCII case-insensitive).
fn origin_matches(pattern: &str, origin: &str) -> bool {
    if let Some(base) = pattern.strip_suffix(":*") {
        if origin.eq_ignore_ascii_case(base) {
            return true;
        }
        return origin.len() > base.len() + 1
            && origin.is_char_boundary(base.len())
            && origin[..base.len()].eq_ignore_ascii_case(base)
            && origin.as_bytes()[base.len()] == b':'
            && origin[base.len() + 1..].bytes().all(|b| b.is_ascii_digit());
    }
    pattern.eq_ignore_ascii_case(origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn host_names() {
        assert_eq!(host_name("127.0.0.1:8765"), "127.0.0.1");
        assert_eq!(host_name("[::1]:8765"), "::1");
        assert_eq!(host_name("localhost"), "localhost");
    }

    #[test]
    fn origin_patterns() {
        assert!(origin_matches(
            "http://127.0.0.1:*",
            "http://127.0.0.1:8765"
        ));
        assert!(origin_matches("http://127.0.0.1:*", "http://127.0.0.1"));
        assert!(!origin_matches(
            "http://127.0.0.1:*",
            "http://127.0.0.1.evil.com"
        ));
        assert!(!origin_matches(
            "http://127.0.0.1:*",
            "http://127.0.0.1:80x"
        ));
        assert!(!origin_matches("http://localhost:*", "https://localhost:1"));
        assert!(!origin_matches(
            "http://localhost:*",
            "http://localhos\u{e9}:1"
        ));
    }

    #[test]
    fn the_guard_checks_host_then_origin() {
        let guard = HttpGuard::loopback();
        assert_eq!(guard.check(&HeaderMap::new()), Err(Refusal::NoHost));
        assert!(guard
            .check(&headers(&[(header::HOST, "127.0.0.1:8765")]))
            .is_ok());
        assert!(matches!(
            guard.check(&headers(&[(header::HOST, "evil.example.com")])),
            Err(Refusal::HostNotAllowed { .. })
        ));
        assert_eq!(
            guard.check(&headers(&[
                (header::HOST, "localhost:1"),
                (header::ORIGIN, "http://evil.example.com"),
            ])),
            Err(Refusal::OriginNotAllowed("http://evil.example.com".into()))
        );
    }

    #[test]
    fn secrets_and_bearer_tokens() {
        assert!(secrets_match("secret", "secret"));
        assert!(!secrets_match("secret", "secreT"));
        assert!(!secrets_match("secret", "secret2"));
        let h = headers(&[(header::AUTHORIZATION, "Bearer s3cret")]);
        assert_eq!(bearer_token(&h), Some("s3cret"));
        assert_eq!(
            bearer_token(&headers(&[(header::AUTHORIZATION, "Basic x")])),
            None
        );
        for scheme in ["BEARER", "bearer", "BeArEr"] {
            let h = headers(&[(header::AUTHORIZATION, &format!("{scheme} s3cret"))]);
            assert_eq!(bearer_token(&h), Some("s3cret"), "{scheme}");
        }
        assert_eq!(
            bearer_token(&headers(&[(header::AUTHORIZATION, "Bearer ")])),
            None
        );
    }

    #[test]
    fn public_names_are_added_and_nonsense_refused() {
        let mut guard = HttpGuard::loopback();
        guard.allow_host("mcp.example.com").unwrap();
        guard.allow_origin("https://mcp.example.com/").unwrap();
        assert!(guard
            .check(&headers(&[
                (header::HOST, "mcp.example.com:8765"),
                (header::ORIGIN, "https://mcp.example.com"),
            ]))
            .is_ok());
        assert!(matches!(
            guard.allow_host("https://x.example"),
            Err(BadAllowance::Host(_))
        ));
        assert!(matches!(guard.allow_host(""), Err(BadAllowance::Host(_))));
        assert!(matches!(
            guard.allow_origin("mcp.example.com"),
            Err(BadAllowance::Origin(_))
        ));
        assert!(matches!(
            guard.allow_origin("https://x.example/path"),
            Err(BadAllowance::Origin(_))
        ));
    }

    #[test]
    fn weak_tokens_are_refused() {
        assert_eq!(check_token(""), Err(WeakToken::Blank));
        assert_eq!(check_token("   "), Err(WeakToken::Blank));
        assert_eq!(check_token("x"), Err(WeakToken::TooShort(1)));
        assert_eq!(check_token("0123456789abcde"), Err(WeakToken::TooShort(15)));
        assert_eq!(
            check_token("0123456789 abcdef"),
            Err(WeakToken::NotPrintable)
        );
        assert_eq!(check_token("0123456789abcdef"), Ok(()));
    }

    #[test]
    fn redirects_stay_on_this_site() {
        assert_eq!(local_path("//evil.example/"), "/evil.example/");
        assert_eq!(local_path("/\\evil.example"), "/evil.example");
        assert_eq!(local_path("/reviews"), "/reviews");
        assert_eq!(local_path(""), "/");
    }

    #[test]
    fn query_form_cookie_and_multipart_fields() {
        assert_eq!(
            query_param(Some("a=1&token=x%2By"), "token").as_deref(),
            Some("x+y")
        );
        assert_eq!(
            query_without("token=x&domain=fidic", "token"),
            "domain=fidic"
        );
        assert_eq!(query_without("token=x", "token"), "");
        assert_eq!(form_field(b"csrf=abc&x=1", "csrf").as_deref(), Some("abc"));
        let h = headers(&[(header::COOKIE, "a=1; session=xyz")]);
        assert_eq!(cookie(&h, "session").as_deref(), Some("xyz"));
        let body = b"--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n--b--\r\n";
        assert_eq!(multipart_field(body, "csrf").as_deref(), Some("abc"));
        assert_eq!(multipart_field(body, "other"), None);
    }
}
