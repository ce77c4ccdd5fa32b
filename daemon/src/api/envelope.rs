//! The success envelope `{"data": ..., "meta": {"request_id", "timestamp", ...}}`,
//! the request-id middleware that names every request (header `x-request-id`,
//! tracing span `request{request_id}`, one log line per request), and the body
//! and path extractors whose rejections are our error envelope.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::{header, request::Parts, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tracing::Instrument;
use utoipa::ToSchema;

use serde_path_to_error::Segment;

use super::error::{ApiError, ErrorCode, LoggedError, Problems};

/// The id of the request being served (a request extension).
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

pub use super::context::{public_base, RequestContext};

/// Request metadata sent with every success.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Meta {
    /// Same as the `x-request-id` header; quote it when reporting a problem.
    pub request_id: String,
    /// When the response was made.
    pub timestamp: DateTime<Utc>,
    /// Lists: pass as `cursor` to get the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Lists: number of items in `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
}

pub use aliases::*;

/// The generic envelope and its named instances for the OpenAPI document
/// (utoipa's `aliases` makes undocumented `pub type`s, hence the allow).
#[allow(missing_docs)]
mod aliases {
    use serde::{Deserialize, Serialize};
    use utoipa::ToSchema;

    use super::Meta;
    use crate::store::Site;
    use crate::views::webhooks::{DeliveryView, WebhookDeleted, WebhookView};
    use crate::views::{KeyView, ScanView, SiteDeleted, Status};

    /// Every success body.
    #[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
    #[aliases(
        SiteEnvelope = Envelope<Site>,
        SiteListEnvelope = Envelope<Vec<Site>>,
        SiteDeletedEnvelope = Envelope<SiteDeleted>,
        ScanEnvelope = Envelope<ScanView>,
        ScanListEnvelope = Envelope<Vec<ScanView>>,
        KeyEnvelope = Envelope<KeyView>,
        StatusEnvelope = Envelope<Status>,
        WebhookEnvelope = Envelope<WebhookView>,
        WebhookListEnvelope = Envelope<Vec<WebhookView>>,
        WebhookDeletedEnvelope = Envelope<WebhookDeleted>,
        DeliveryEnvelope = Envelope<DeliveryView>,
        DeliveryListEnvelope = Envelope<Vec<DeliveryView>>
    )]
    pub struct Envelope<T> {
        /// The result.
        pub data: T,
        /// Request metadata.
        pub meta: Meta,
    }
}

impl Meta {
    /// Metadata for the request `id`, stamped now.
    pub fn new(id: &RequestId) -> Self {
        Meta {
            request_id: id.0.clone(),
            timestamp: Utc::now(),
            next_cursor: None,
            count: None,
        }
    }
}

/// A success response: status, envelope, optional `Location`.
pub fn reply<T: Serialize>(status: StatusCode, meta: Meta, data: T) -> Response {
    (status, axum::Json(Envelope { data, meta })).into_response()
}

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<RequestId>()
            .cloned()
            .ok_or_else(|| ApiError::internal("request id middleware missing"))
    }
}

/// Names the request, runs it inside a `request` span (and its
/// [`RequestContext`]) and logs its outcome.
pub async fn request_id(
    axum::extract::State(state): axum::extract::State<crate::state::AppState>,
    req: Request,
    next: Next,
) -> Response {
    let mut random = [0u8; 8];
    let id = match getrandom::getrandom(&mut random) {
        Ok(()) => format!("req_{}", hex::encode(random)),
        Err(_) => format!("req_{:016x}", Utc::now().timestamp_nanos_opt().unwrap_or(0)),
    };
    let (parts, body) = req.into_parts();
    let ctx = RequestContext {
        id: id.clone(),
        base: public_base(state.settings.public_url.as_ref(), &parts),
    };
    let mut req = Request::from_parts(parts, body);
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.uri().path(),
    );
    let started = std::time::Instant::now();
    async move {
        let mut resp = ctx.scope(next.run(req)).await;
        if let Ok(v) = HeaderValue::from_str(&id) {
            resp.headers_mut().insert("x-request-id", v);
        }
        let status = resp.status().as_u16();
        let ms = started.elapsed().as_millis() as u64;
        match resp.extensions().get::<LoggedError>() {
            Some(LoggedError {
                code,
                internal: Some(cause),
            }) => tracing::error!(status, ms, code, cause = %cause, "request failed"),
            Some(LoggedError { code, .. }) => tracing::info!(status, ms, code, "request refused"),
            None => tracing::info!(status, ms, "request served"),
        }
        resp
    }
    .instrument(span)
    .await
}

/// A JSON body parsed into `T`, with our errors: `unsupported_media_type`
/// without a JSON content type, `invalid_json` for malformed JSON,
/// `validation_failed` (naming the field) for wrong fields and values,
/// `payload_too_large` past the body limit.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

/// Like [`ApiJson`], but an empty body (with or without a content type) is `None`.
#[derive(Debug)]
pub struct OptionalJson<T>(pub Option<T>);

async fn body_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    let json_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_media_type);
    let bytes = Bytes::from_request(req, state).await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                "the body is over the 64 KiB limit",
            )
        } else {
            ApiError::new(
                ErrorCode::InvalidJson,
                format!("the body could not be read: {e}"),
            )
        }
    })?;
    if !bytes.is_empty() && !json_type {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "send the body with Content-Type: application/json",
        ));
    }
    Ok(bytes)
}

/// `application/json` or `application/<x>+json`, with any parameters.
fn is_json_media_type(value: &str) -> bool {
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Most field problems one body is checked for (each costs one more pass
/// of deserialization over at most 64 KiB).
const MAX_BODY_PROBLEMS: usize = 20;

/// Parses a JSON object body, telling syntax errors (`invalid_json`) from
/// wrong data (`validation_failed`). Wrong data is reported field by field,
/// every problem at once: after each problem the offending member is set
/// aside and the rest is checked again (up to [`MAX_BODY_PROBLEMS`]). Serde's
/// wording, which names Rust types (`u64`, `struct ScanRequest`), is put in
/// JSON terms.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // One JSON value and nothing after it but whitespace: `{...} xyz` or two
    // concatenated objects are malformed, not "the first object".
    let mut value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidJson,
            format!("the body is not well-formed JSON: {e}"),
        )
    })?;
    if !value.is_object() {
        return Err(ApiError::validation(
            "body",
            format!(
                "must be a JSON object (`{{...}}`), not {}",
                json_kind(&value)
            ),
        ));
    }
    let mut problems = Problems::default();
    let mut set_aside_names: Vec<String> = Vec::new();
    for _ in 0..MAX_BODY_PROBLEMS {
        let err = match serde_path_to_error::deserialize::<_, T>(&value) {
            Ok(v) if problems.is_empty() => return Ok(v),
            Ok(_) => break,
            Err(e) => e,
        };
        let path: Vec<Segment> = err.path().iter().cloned().collect();
        let message = strip_position(&err.into_inner().to_string());
        let unknown = quoted_after(&message, "unknown field `");
        let missing = quoted_after(&message, "missing field `");
        let mut field = field_name(&path);
        if let Some(key) = missing.or(unknown) {
            if !field.ends_with(&format!(".{key}")) && field != key {
                field = if field.is_empty() {
                    key.to_string()
                } else {
                    format!("{field}.{key}")
                };
            }
        }
        let field = if field.is_empty() { "body" } else { &field };
        // A member set aside (for its own problem, or because a member of it
        // was missing) then reads as missing: it is named once, for what was
        // wrong with it.
        let known = problems.names(field) || set_aside_names.iter().any(|f| f == field);
        if missing.is_none() || !known {
            problems.add(field, json_wording(&message));
        }
        // What was wrong is set aside and the rest read again. For a missing
        // member that is the object lacking it (it cannot be read whole), so
        // its siblings still get checked; at the top level nothing is left.
        let aside = match missing {
            Some(_) => None,
            None => unknown,
        };
        if let Some(i) = path.iter().rposition(|s| matches!(s, Segment::Map { .. })) {
            if aside.is_none() {
                set_aside_names.push(field_name(&path[..=i]));
            }
        }
        if !set_aside(&mut value, &path, aside) {
            break;
        }
    }
    match problems.finish() {
        Err(e) => Err(e.into()),
        Ok(()) => Err(ApiError::internal("body problems vanished")),
    }
}

/// "an array", "a string", ... for messages.
fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// The text between `prefix` and the next backtick in `message`.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &message[message.find(prefix)? + prefix.len()..];
    rest.split('`').next()
}

/// `config.rules[0]` from a path (empty for the root).
fn field_name(path: &[Segment]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Removes what the problem at `path` was about, so the next pass checks the
/// rest: the unknown member `unknown`, else the innermost object member on
/// the path (a whole array when one element is wrong). False when nothing
/// could be removed.
fn set_aside(value: &mut serde_json::Value, path: &[Segment], unknown: Option<&str>) -> bool {
    fn at<'v>(
        mut v: &'v mut serde_json::Value,
        path: &[Segment],
    ) -> Option<&'v mut serde_json::Value> {
        for seg in path {
            v = match seg {
                Segment::Map { key } => v.get_mut(key.as_str())?,
                Segment::Seq { index } => v.get_mut(*index)?,
                Segment::Enum { .. } | Segment::Unknown => v,
            };
        }
        Some(v)
    }
    if let Some(key) = unknown {
        for end in [path.len(), path.len().saturating_sub(1)] {
            if let Some(obj) = at(value, &path[..end]).and_then(|v| v.as_object_mut()) {
                if obj.remove(key).is_some() {
                    return true;
                }
            }
        }
    }
    let Some(i) = path.iter().rposition(|s| matches!(s, Segment::Map { .. })) else {
        return false;
    };
    let Segment::Map { key } = &path[i] else {
        return false;
    };
    at(value, &path[..i])
        .and_then(|v| v.as_object_mut())
        .is_some_and(|o| o.remove(key.as_str()).is_some())
}

/// Serde's words for Rust types, said in JSON terms.
fn json_wording(message: &str) -> String {
    let mut out = message.to_string();
    // `expected struct ScanRequestConfig`, `expected enum Priority`
    for (prefix, said) in [
        ("expected struct ", "expected an object"),
        ("expected enum ", "expected one of the documented values"),
    ] {
        if let Some(i) = out.find(prefix) {
            let rest = &out[i + prefix.len()..];
            let name_len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out = format!("{}{said}{}", &out[..i], &rest[name_len..]);
        }
    }
    for (from, to) in [
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected an object"),
        ("invalid type: sequence", "invalid type: array"),
        ("invalid type: map", "invalid type: object"),
        ("invalid type: unit value", "invalid type: null"),
        ("expected usize", "expected a whole number (0 or more)"),
        ("expected u64", "expected a whole number (0 or more)"),
        ("expected u32", "expected a whole number (0 or more)"),
        ("expected u16", "expected a whole number (0 or more)"),
        ("expected u8", "expected a whole number (0 or more)"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
    ] {
        out = out.replace(from, to);
    }
    out
}

/// serde_json appends " at line 1 column 12"; the field path says more.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = body_bytes(req, state).await?;
        if bytes.is_empty() {
            return Err(ApiError::validation("body", "a JSON object is required"));
        }
        parse_json(&bytes).map(ApiJson)
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = body_bytes(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(None));
        }
        parse_json(&bytes).map(|v| OptionalJson(Some(v)))
    }
}

/// One path parameter, as a string; a malformed one is `validation_failed`.
#[derive(Debug)]
pub struct ApiPath(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ApiPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(p)| ApiPath(p))
            .map_err(|e| ApiError::validation("path", e.body_text()))
    }
}

/// Success body of `GET /scans/{scanId}/report`: `data` is the JSON report
/// (DESIGN.md, "The JSON report").
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ReportEnvelope {
    /// The report: schema_version, site, started_at, finished_at, config, stats,
    /// summary, pages, findings, rules, notes.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    /// Request metadata.
    pub meta: Meta,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        n: u64,
        #[serde(default)]
        tags: Vec<String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        inner: Inner,
        #[serde(default)]
        flag: bool,
    }

    fn problems(body: &str) -> Vec<(String, String)> {
        let err = parse_json::<Outer>(body.as_bytes()).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationFailed, "{}", err.message);
        let mut out: Vec<(String, String)> = err
            .details
            .into_iter()
            .map(|d| (d.field, d.problem))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn every_field_problem_is_found_in_one_parse() {
        let got = problems(
            r#"{"name": 5, "inner": {"n": "x", "tags": [1], "odd": 1}, "flag": "yes", "extra": null}"#,
        );
        let want = [
            (
                "extra",
                "unknown field `extra`, expected one of `name`, `inner`, `flag`",
            ),
            ("flag", "invalid type: string \"yes\", expected a boolean"),
            (
                "inner.n",
                "invalid type: string \"x\", expected a whole number (0 or more)",
            ),
            ("inner.odd", "unknown field `odd`, expected `n` or `tags`"),
            (
                "inner.tags[0]",
                "invalid type: integer `1`, expected a string",
            ),
            ("name", "invalid type: integer `5`, expected a string"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(f, p)| (f.to_string(), p.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn missing_members_and_wrong_shapes_are_named() {
        assert_eq!(
            problems(r#"{"inner": {"n": 1}}"#),
            [("name".to_string(), "missing field `name`".to_string())]
        );
        assert_eq!(
            problems("[1, 2]"),
            [(
                "body".to_string(),
                "must be a JSON object (`{...}`), not an array".to_string()
            )]
        );
        let syntax = parse_json::<Outer>(b"{\"name\": ").unwrap_err();
        assert_eq!(syntax.code, ErrorCode::InvalidJson);
        let trailing = parse_json::<Outer>(br#"{"name": "a", "inner": {"n": 1}} x"#).unwrap_err();
        assert_eq!(trailing.code, ErrorCode::InvalidJson);
    }

    #[test]
    fn the_public_base_is_the_configured_url_else_a_plain_host() {
        let parts = |host: Option<&str>| {
            let mut b = axum::http::Request::builder().uri("/api/v1/sites");
            if let Some(h) = host {
                b = b.header(header::HOST, h);
            }
            b.body(()).unwrap().into_parts().0
        };
        let public: url::Url = "https://scan.example.com/sitescan/".parse().unwrap();
        assert_eq!(
            public_base(Some(&public), &parts(Some("evil.example"))),
            "https://scan.example.com/sitescan"
        );
        assert_eq!(
            public_base(None, &parts(Some("127.0.0.1:8080"))),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            public_base(None, &parts(Some("[::1]:80"))),
            "http://[::1]:80"
        );
        for bad in ["user@evil.example", "evil.example/path", "a b", ""] {
            assert_eq!(public_base(None, &parts(Some(bad))), "", "{bad}");
        }
        assert_eq!(public_base(None, &parts(None)), "");
    }
}
