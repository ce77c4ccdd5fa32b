//! The request being served, as every answer may need it: its id and the
//! public base of absolute URLs. Set by the request middleware
//! (`envelope::request_id`), read by success and error envelopes alike (so
//! it sits below both).

use axum::http::{header, request::Parts};

/// What every answer to one request may need to know about it: its id and
/// the service's public base URL (scheme and authority, and the path prefix
/// of `--public-url` if it has one; no trailing slash). Set by
/// `envelope::request_id` for the whole request (a task-local, so an error made
/// anywhere in the request's handling carries it).
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The request id (`req_...`).
    pub id: String,
    /// `https://scan.example.com` (the configured public URL) or
    /// `http://<Host header>`; empty when neither is known (URLs then stay
    /// relative).
    pub base: String,
}

tokio::task_local! {
    static CONTEXT: RequestContext;
}

impl RequestContext {
    /// Runs `fut` (the rest of the request's handling) with this context.
    pub async fn scope<F: std::future::Future>(self, fut: F) -> F::Output {
        CONTEXT.scope(self, fut).await
    }

    /// The context of the request being served, if any.
    pub fn current() -> Option<RequestContext> {
        CONTEXT.try_with(Clone::clone).ok()
    }

    /// `path` (starting with `/`) as an absolute URL on the service's public
    /// base (see [`public_base`]).
    pub fn absolute(path: &str) -> String {
        match RequestContext::current() {
            Some(c) => format!("{}{path}", c.base),
            None => path.to_string(),
        }
    }
}

/// The base of the absolute URLs the API sends (`Location`, `doc_url`):
/// - the service's public URL (`serve --public-url`) when it has one: behind
///   a proxy only the operator knows the address clients use;
/// - else `http://` and the request's `Host` (or HTTP/2 `:authority`): the
///   server itself speaks plain HTTP, and the client reached it at that name.
///   A `Host` that is not a plain `host[:port]` is ignored (URLs then stay
///   relative). `Forwarded`/`X-Forwarded-*` are not trusted: any client can
///   send them; a proxy's operator sets `--public-url` instead.
pub fn public_base(public_url: Option<&url::Url>, parts: &Parts) -> String {
    if let Some(u) = public_url {
        return u.as_str().trim_end_matches('/').to_string();
    }
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| parts.uri.authority().map(|a| a.as_str().to_string()));
    match host {
        Some(h) if is_plain_authority(&h) => format!("http://{h}"),
        _ => String::new(),
    }
}

/// `host[:port]` with nothing else (no user info, path, spaces).
fn is_plain_authority(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 255
        && !h.contains('@')
        && h.parse::<axum::http::uri::Authority>().is_ok()
        && h.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
}
