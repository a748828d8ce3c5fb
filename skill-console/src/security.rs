//! The guard in front of every page: `Host` and `Origin` allow-lists, the per-launch token
//! (once in the URL, then a cookie), the CSRF field of every `POST`, and the response
//! headers (Content-Security-Policy and friends).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::layout::error_page;
use crate::{session_cookie_name, ConsoleOptions, ConsoleState};

/// Paths served without the token: static assets carry nothing secret.
fn is_public(path: &str) -> bool {
    path.starts_with("/assets/") || path == "/favicon.ico"
}

/// Checks `Host`, `Origin`, the token and (on `POST`) the CSRF field, in that order.
pub(crate) async fn guard(
    State(state): State<ConsoleState>,
    request: Request,
    next: Next,
) -> Response {
    let options = &state.inner.options;
    if let Err(why) = check_host(request.headers(), options) {
        tracing::warn!(%why, "console request refused");
        return refuse(StatusCode::FORBIDDEN, "Forbidden", &why);
    }
    if let Err(why) = check_origin(request.headers(), options) {
        tracing::warn!(%why, "console request refused");
        return refuse(StatusCode::FORBIDDEN, "Forbidden", &why);
    }
    let path = request.uri().path().to_string();
    let cookie_name = session_cookie_name(
        request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default(),
    );
    if is_public(&path) {
        return next.run(request).await;
    }
    if let Some(presented) = query_token(request.uri().query()) {
        if !constant_time_eq(presented.as_bytes(), options.token.as_bytes()) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "Wrong token",
                "the token in the address is not this server's; open the address the server printed when it started",
            );
        }
        // Keep the token out of the address bar, the history and later requests' URLs.
        let rest = query_without_token(request.uri().query().unwrap_or_default());
        let location = if rest.is_empty() {
            path
        } else {
            format!("{path}?{rest}")
        };
        return Response::builder()
            .status(StatusCode::SEE_OTHER)
            .header(header::LOCATION, location)
            .header(
                header::SET_COOKIE,
                format!(
                    "{cookie_name}={}; Path=/; HttpOnly; SameSite=Strict",
                    options.token
                ),
            )
            .body(Body::empty())
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    let authorised = session_cookie(request.headers(), &cookie_name)
        .is_some_and(|c| constant_time_eq(c.as_bytes(), options.token.as_bytes()));
    if !authorised {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Token required",
            "this console needs the per-launch token: open the address with ?token=… that the server printed when it started",
        );
    }
    if request.method() == Method::POST {
        return check_csrf(&state, request, next).await;
    }
    next.run(request).await
}

/// Reads the body (within the limit: a review's upload has its own), checks its `csrf`
/// field and hands the body on.
async fn check_csrf(state: &ConsoleState, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let upload = parts.uri.path() == "/reviews";
    let options = &state.inner.options;
    let limit = if upload {
        options.max_upload_bytes
    } else {
        options.max_body_bytes
    };
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) if upload => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Upload too large",
                &format!(
                    "the uploaded contract is larger than the limit of {} ({limit} bytes); upload a smaller file or review it with `skillkit review`",
                    human_bytes(limit)
                ),
            )
        }
        Err(_) => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Request too large",
                &format!(
                    "the request body is larger than the limit of {} ({limit} bytes)",
                    human_bytes(limit)
                ),
            )
        }
    };
    let kind = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let presented = if kind.starts_with("application/x-www-form-urlencoded") {
        form_field(&bytes, "csrf")
    } else if kind.starts_with("multipart/form-data") {
        multipart_field(&bytes, "csrf")
    } else {
        None
    };
    let ok = presented.is_some_and(|p| constant_time_eq(p.as_bytes(), state.inner.csrf.as_bytes()));
    if !ok {
        tracing::warn!(path = %parts.uri.path(), "console POST without a valid CSRF token");
        return refuse(
            StatusCode::FORBIDDEN,
            "Form expired",
            "the form did not carry this server's CSRF token (it may come from another site or an earlier launch); reload the page and submit again",
        );
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The value of `name` in a URL-encoded form body.
fn form_field(body: &[u8], name: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body).ok()?;
    pairs.into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The value of the text part `name` in a multipart body (the field precedes any file).
fn multipart_field(body: &[u8], name: &str) -> Option<String> {
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

fn query_token(query: Option<&str>) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query?).ok()?;
    pairs
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v)
}

fn query_without_token(query: &str) -> String {
    query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("token="))
        .collect::<Vec<_>>()
        .join("&")
}

fn session_cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// The host part of a `Host` value (`[::1]:8765` → `::1`, `localhost:80` → `localhost`).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn check_host(headers: &HeaderMap, options: &ConsoleOptions) -> Result<(), String> {
    let Some(host) = headers.get(header::HOST) else {
        return Err("the request has no Host header".into());
    };
    let host = host
        .to_str()
        .map_err(|_| "the Host header is not text".to_string())?;
    let name = host_name(host);
    let allowed = options
        .allowed_hosts
        .iter()
        .any(|a| a.eq_ignore_ascii_case(host) || a.eq_ignore_ascii_case(name));
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "Host `{host}` is not allowed (allowed: {})",
            options.allowed_hosts.join(", ")
        ))
    }
}

fn check_origin(headers: &HeaderMap, options: &ConsoleOptions) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin
        .to_str()
        .map_err(|_| "the Origin header is not text".to_string())?;
    if options
        .allowed_origins
        .iter()
        .any(|pattern| origin_matches(pattern, origin))
    {
        Ok(())
    } else {
        Err(format!("Origin `{origin}` is not allowed"))
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
            && origin[..base.len()].eq_ignore_ascii_case(base)
            && origin.as_bytes()[base.len()] == b':'
            && origin[base.len() + 1..].bytes().all(|b| b.is_ascii_digit());
    }
    pattern.eq_ignore_ascii_case(origin)
}

/// `512 bytes`, `64 KiB`, `1.5 MiB`.
pub(crate) fn human_bytes(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let n = bytes as f64;
    if n < KIB {
        format!("{bytes} bytes")
    } else if n < KIB * KIB {
        format!("{} KiB", trim(n / KIB))
    } else {
        format!("{} MiB", trim(n / KIB / KIB))
    }
}

fn trim(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}

fn refuse(status: StatusCode, title: &str, message: &str) -> Response {
    (status, error_page(title, message)).into_response()
}

/// Headers on every answer: no inline script or foreign resource, no framing, no referrer
/// to other sites (the first URL carries the token; with no referrer at all browsers send
/// `Origin: null` on form posts, which the origin check refuses), no MIME sniffing, no
/// caching of pages.
pub(crate) async fn headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Compares without an early exit, so the time taken does not reveal the matching prefix.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cookie_name_per_port() {
        assert_eq!(
            session_cookie_name("127.0.0.1:8765"),
            "skillkit_console_8765"
        );
        assert_eq!(session_cookie_name("[::1]:9000"), "skillkit_console_9000");
        assert_eq!(session_cookie_name("localhost"), "skillkit_console");
        assert_eq!(session_cookie_name("[::1]"), "skillkit_console");
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
    }

    #[test]
    fn multipart_csrf_field() {
        let body = b"--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n--b--\r\n";
        assert_eq!(multipart_field(body, "csrf").as_deref(), Some("abc"));
        assert_eq!(multipart_field(body, "other"), None);
    }

    #[test]
    fn token_is_dropped_from_the_query() {
        assert_eq!(query_without_token("token=x&domain=fidic"), "domain=fidic");
        assert_eq!(query_without_token("token=x"), "");
    }

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
    }
}
