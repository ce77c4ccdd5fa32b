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

use super::error::{ApiError, ErrorCode, LoggedError};

/// The id of the request being served (a request extension).
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

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

    use super::super::views::{KeyView, ScanView, SiteDeleted, Status};
    use super::super::webhooks::{DeliveryView, WebhookDeleted, WebhookView};
    use super::Meta;
    use crate::store::Site;

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

/// Names the request, runs it inside a `request` span and logs its outcome.
pub async fn request_id(mut req: Request, next: Next) -> Response {
    let mut random = [0u8; 8];
    let id = match getrandom::getrandom(&mut random) {
        Ok(()) => format!("req_{}", hex::encode(random)),
        Err(_) => format!("req_{:016x}", Utc::now().timestamp_nanos_opt().unwrap_or(0)),
    };
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.uri().path(),
    );
    let started = std::time::Instant::now();
    async move {
        let mut resp = next.run(req).await;
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

/// Parses JSON, telling syntax errors (`invalid_json`) from wrong data
/// (`validation_failed` with the path of the field).
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut *de) {
        // One JSON value and nothing after it but whitespace: `{...} xyz` or
        // two concatenated objects are malformed, not "the first object".
        Ok(v) => match de.end() {
            Ok(()) => Ok(v),
            Err(e) => Err(ApiError::new(
                ErrorCode::InvalidJson,
                format!("the body is not well-formed JSON: {e}"),
            )),
        },
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            match inner.classify() {
                serde_json::error::Category::Data => {
                    let field = if path == "." {
                        "body".to_string()
                    } else {
                        path
                    };
                    Err(ApiError::validation(
                        field,
                        strip_position(&inner.to_string()),
                    ))
                }
                _ => Err(ApiError::new(
                    ErrorCode::InvalidJson,
                    format!("the body is not well-formed JSON: {inner}"),
                )),
            }
        }
    }
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
