//! The guard in front of every page: toolwright's HTTP guard
//! ([`toolwright_http`]: `Host` and `Origin` allow-lists, secret comparison, the
//! query, cookie and form readers) applied the console's way: the per-launch token (once
//! in the URL, then a cookie), the CSRF field of every `POST`, refusals as HTML pages, and
//! the response headers (Content-Security-Policy and friends).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::layout::error_page;
use crate::{session_cookie_name, ConsoleState};

/// The query parameter that carries the per-launch token once.
const TOKEN_PARAM: &str = "token";

/// The form field every `POST` carries the CSRF token in.
const CSRF_FIELD: &str = "csrf";

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
    if let Err(why) = options.guard.check(request.headers()) {
        tracing::warn!(%why, "console request refused");
        return refuse(StatusCode::FORBIDDEN, "Forbidden", &why.to_string());
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
    if let Some(presented) = toolwright_http::query_param(request.uri().query(), TOKEN_PARAM) {
        if !toolwright_http::secrets_match(&presented, &options.token) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "Wrong token",
                "the token in the address is not this server's; open the address the server printed when it started",
            );
        }
        // Keep the token out of the address bar, the history and later requests' URLs.
        let rest =
            toolwright_http::query_without(request.uri().query().unwrap_or_default(), TOKEN_PARAM);
        // `//evil.example/` would send the browser (and the cookie just set) to another site.
        let path = toolwright_http::local_path(&path);
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
                // A session value of its own: the launch token never sits in a cookie,
                // which every port of this host could read.
                format!(
                    "{cookie_name}={}; Path=/; HttpOnly; SameSite=Strict",
                    state.inner.session
                ),
            )
            .body(Body::empty())
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    let authorised = toolwright_http::cookie(request.headers(), &cookie_name)
        .is_some_and(|c| toolwright_http::secrets_match(&c, &state.inner.session));
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
                    "the uploaded contract is larger than the limit of {} ({limit} bytes); upload a smaller file or review it with `clausewright review`",
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
        toolwright_http::form_field(&bytes, CSRF_FIELD)
    } else if kind.starts_with("multipart/form-data") {
        toolwright_http::multipart_field(&bytes, CSRF_FIELD)
    } else {
        None
    };
    let ok = presented.is_some_and(|p| toolwright_http::secrets_match(&p, &state.inner.csrf));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cookie_name_per_port() {
        assert_eq!(
            session_cookie_name("127.0.0.1:8765"),
            "toolwright_console_8765"
        );
        assert_eq!(session_cookie_name("[::1]:9000"), "toolwright_console_9000");
        assert_eq!(session_cookie_name("localhost"), "toolwright_console");
        assert_eq!(session_cookie_name("[::1]"), "toolwright_console");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(64 << 10), "64 KiB");
        assert_eq!(human_bytes(3 << 19), "1.5 MiB");
    }
}
