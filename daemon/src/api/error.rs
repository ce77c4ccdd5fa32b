//! Every error the API answers with: one documented table of codes and HTTP
//! statuses ([`ErrorCode`]), and [`ApiError`], the value handlers return, which
//! renders the `{"error": {"code", "message", "details"}}` envelope. Internal
//! failures answer `internal_error` with a generic message; what really happened
//! rides in a response extension and is logged by the request middleware.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{Error, FieldProblem};

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = ($code:literal, $status:ident, $summary:literal),)*) => {
        /// The error codes of the API, each with its HTTP status. Stable: clients
        /// branch on `code`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in table order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The wire value of `error.code`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// The HTTP status it is sent with.
            pub fn status(self) -> StatusCode {
                match self { $(ErrorCode::$variant => StatusCode::$status,)* }
            }

            /// When a client gets it, in one line (the README's table).
            pub fn summary(self) -> &'static str {
                match self { $(ErrorCode::$variant => $summary,)* }
            }
        }
    };
}

codes! {
    /// No `X-API-Key` (or `Authorization: Bearer`) header.
    MissingApiKey = ("missing_api_key", UNAUTHORIZED, "Neither X-API-Key nor Authorization: Bearer carries a key."),
    /// The key is unknown or revoked.
    InvalidApiKey = ("invalid_api_key", UNAUTHORIZED, "The key is unknown or was revoked (or Authorization uses a scheme other than Bearer)."),
    /// `X-API-Key` and `Authorization: Bearer` name two different keys.
    ConflictingApiKeys = ("conflicting_api_keys", BAD_REQUEST, "X-API-Key and Authorization: Bearer carry different keys; send one."),
    /// The key is past its expiry.
    ApiKeyExpired = ("api_key_expired", UNAUTHORIZED, "The key is past its expiry date; create a new one."),
    /// The account's plan has no API access.
    PlanNotAllowed = ("plan_not_allowed", FORBIDDEN, "The account's plan (starter) has no API access."),
    /// No such route.
    NotFound = ("not_found", NOT_FOUND, "No such route."),
    /// No such site in the caller's account.
    SiteNotFound = ("site_not_found", NOT_FOUND, "No site with this id in the caller's account."),
    /// No such scan in the caller's account.
    ScanNotFound = ("scan_not_found", NOT_FOUND, "No scan with this id in the caller's account."),
    /// No such webhook in the caller's account.
    WebhookNotFound = ("webhook_not_found", NOT_FOUND, "No webhook with this id in the caller's account."),
    /// No such schedule in the caller's account.
    ScheduleNotFound = ("schedule_not_found", NOT_FOUND, "No schedule with this id in the caller's account."),
    /// The site has no credentials.
    CredentialsNotFound = ("credentials_not_found", NOT_FOUND, "The site has no credentials (PUT /api/v1/sites/{siteId}/credentials sets them)."),
    /// The fingerprint is not marked on this site.
    MarkNotFound = ("mark_not_found", NOT_FOUND, "No mark of this finding fingerprint on this site."),
    /// No such delivery of this webhook.
    DeliveryNotFound = ("delivery_not_found", NOT_FOUND, "No delivery with this id for this webhook."),
    /// No such picture in the scan's report.
    ScreenshotNotFound = ("screenshot_not_found", NOT_FOUND, "No picture with this id in the scan's report (render mode's screenshots)."),
    /// The route exists, not with this method.
    MethodNotAllowed = ("method_not_allowed", METHOD_NOT_ALLOWED, "The route exists but not with this HTTP method."),
    /// The scan has no report (yet).
    ReportNotReady = ("report_not_ready", CONFLICT, "The scan has not completed (or failed or was canceled): no report."),
    /// The scan is finished and cannot be canceled.
    ScanNotCancelable = ("scan_not_cancelable", CONFLICT, "The scan already completed or failed."),
    /// Malformed JSON body.
    InvalidJson = ("invalid_json", BAD_REQUEST, "The body is not well-formed JSON."),
    /// Body over the size limit.
    PayloadTooLarge = ("payload_too_large", PAYLOAD_TOO_LARGE, "The body is over the size limit (64 KiB)."),
    /// A body sent without `Content-Type: application/json`.
    UnsupportedMediaType = ("unsupported_media_type", UNSUPPORTED_MEDIA_TYPE, "A body was sent without Content-Type: application/json."),
    /// Well-formed input with wrong fields or values.
    ValidationFailed = ("validation_failed", UNPROCESSABLE_ENTITY, "A field is missing, unknown or has a wrong value; details name each."),
    /// An `Idempotency-Key` was used before with a different request.
    IdempotencyKeyReused = ("idempotency_key_reused", UNPROCESSABLE_ENTITY, "This Idempotency-Key was used in the last 24 hours with a different method, path or body; use a new key."),
    /// A request with the same `Idempotency-Key` is still being served.
    IdempotencyKeyInUse = ("idempotency_key_in_use", CONFLICT, "A request with this Idempotency-Key is still in progress; retry after Retry-After seconds."),
    /// The plan's scans for today are used up.
    ScanLimitExceeded = ("scan_limit_exceeded", TOO_MANY_REQUESTS, "The plan's scans for this UTC day are used up; Retry-After gives the seconds to the next UTC midnight."),
    /// Too many requests with this key.
    RateLimited = ("rate_limited", TOO_MANY_REQUESTS, "Too many requests with this key; wait Retry-After seconds."),
    /// Credentials were sent and the server has no secret key to seal them with.
    SecretKeyMissing = ("secret_key_missing", SERVICE_UNAVAILABLE, "The server was started without a secret key (SITESCAN_SECRET_KEY), so it cannot keep site credentials; its operator must set one."),
    /// Something broke on our side.
    InternalError = ("internal_error", INTERNAL_SERVER_ERROR, "Something failed on the server; the request id in the response helps us find it."),
    /// The service cannot serve now (storage unreachable).
    ServiceUnavailable = ("service_unavailable", SERVICE_UNAVAILABLE, "The service is starting, stopping or its storage is unreachable."),
}

/// One problem with the request: which field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ErrorDetail {
    /// The field, as a path into the body or a parameter name (`config.rules[0]`, `limit`).
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

/// The `error` object of an error response.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorObject {
    /// One of the documented codes.
    pub code: String,
    /// What went wrong, for a person.
    pub message: String,
    /// Problems with single fields, every one found (may be empty).
    pub details: Vec<ErrorDetail>,
    /// The request's id, the same as the `x-request-id` header: quote it
    /// when asking about an error (the server's logs carry it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "req_5f0c2a1b9e8d7c6a")]
    pub request_id: Option<String>,
    /// Where this code is documented: the service's error reference
    /// (`GET /docs/errors`, one anchor per code), on the service's public URL
    /// when it has one, else on the host the request was sent to.
    #[schema(example = "https://scan.example.com/docs/errors#validation_failed")]
    pub doc_url: String,
}

/// Every error response: `{"error": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorObject,
}

/// An error answer of the API.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// Its code (and so status).
    pub code: ErrorCode,
    /// The message sent.
    pub message: String,
    /// Field problems sent.
    pub details: Vec<ErrorDetail>,
    /// Seconds for `Retry-After`.
    pub retry_after: Option<u64>,
    /// What really happened, logged, never sent.
    pub internal: Option<String>,
}

/// Put on every error response so the request middleware can log it.
#[derive(Debug, Clone)]
pub struct LoggedError {
    /// The code sent.
    pub code: &'static str,
    /// The internal cause, when there is one.
    pub internal: Option<String>,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            details: Vec::new(),
            retry_after: None,
            internal: None,
        }
    }

    /// `validation_failed` naming every problem in `details`, or `None` when
    /// there is none.
    pub fn validations(details: Vec<ErrorDetail>) -> Option<Self> {
        match details.len() {
            0 => None,
            1 => {
                let d = &details[0];
                Some(ApiError::validation(d.field.clone(), d.problem.clone()))
            }
            n => {
                let fields: Vec<&str> = details.iter().map(|d| d.field.as_str()).collect();
                let mut e = ApiError::new(
                    ErrorCode::ValidationFailed,
                    format!(
                        "invalid request: {n} problems ({}); details names each",
                        fields.join(", ")
                    ),
                );
                e.details = details;
                Some(e)
            }
        }
    }

    /// `validation_failed` naming one field.
    pub fn validation(field: impl Into<String>, problem: impl Into<String>) -> Self {
        let (field, problem) = (field.into(), problem.into());
        ApiError::new(
            ErrorCode::ValidationFailed,
            format!("invalid request: {field}: {problem}"),
        )
        .detail(field, problem)
    }

    /// Adds a field problem.
    pub fn detail(mut self, field: impl Into<String>, problem: impl Into<String>) -> Self {
        self.details.push(ErrorDetail {
            field: field.into(),
            problem: problem.into(),
        });
        self
    }

    /// Sets `Retry-After`.
    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }

    /// `internal_error`, logging `cause` but never sending it.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let mut e = ApiError::new(
            ErrorCode::InternalError,
            "internal error; retry later, and quote the x-request-id header if it persists",
        );
        e.internal = Some(cause.to_string());
        e
    }

    /// `site_not_found` for an id.
    pub fn site_not_found(id: &str) -> Self {
        ApiError::new(
            ErrorCode::SiteNotFound,
            format!("no site `{id}` in this account; GET /api/v1/sites lists them"),
        )
    }

    /// `webhook_not_found` for an id.
    pub fn webhook_not_found(id: &str) -> Self {
        ApiError::new(
            ErrorCode::WebhookNotFound,
            format!("no webhook `{id}` in this account; GET /api/v1/webhooks lists them"),
        )
    }

    /// `scan_not_found` for an id.
    pub fn scan_not_found(id: &str) -> Self {
        ApiError::new(
            ErrorCode::ScanNotFound,
            format!("no scan `{id}` in this account"),
        )
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::Invalid(problems) => ApiError::from(problems),
            Error::QuotaExceeded { .. } => {
                ApiError::new(ErrorCode::ScanLimitExceeded, e.to_string())
                    .retry_after(seconds_to_next_utc_midnight(chrono::Utc::now()))
            }
            Error::NotFound { kind: "site", id } => ApiError::site_not_found(&id),
            Error::NotFound { kind: "scan", id } => ApiError::scan_not_found(&id),
            Error::NotFound {
                kind: "webhook",
                id,
            } => ApiError::webhook_not_found(&id),
            Error::NotFound {
                kind: "schedule",
                id,
            } => ApiError::new(
                ErrorCode::ScheduleNotFound,
                format!("no schedule `{id}` in this account; GET /api/v1/sites/{{siteId}}/schedules lists a site's"),
            ),
            Error::NotFound { kind: "mark", id } => ApiError::new(
                ErrorCode::MarkNotFound,
                format!("the finding `{id}` is not marked on this site; GET /api/v1/sites/{{siteId}}/marks lists its marks"),
            ),
            Error::NotFound {
                kind: "account",
                id,
            } => ApiError::new(ErrorCode::NotFound, format!("no account `{id}`")),
            Error::NotFound {
                kind: "credentials",
                id,
            } => ApiError::new(
                ErrorCode::CredentialsNotFound,
                format!("site `{id}` has no credentials; PUT /api/v1/sites/{id}/credentials sets them"),
            ),
            Error::NotFound { kind: "key", id } => ApiError::new(
                ErrorCode::NotFound,
                format!("no key `{id}` in this account"),
            ),
            e @ Error::SecretKeyMissing => ApiError::new(ErrorCode::SecretKeyMissing, e.to_string()),
            Error::Conflict(m) => ApiError::new(ErrorCode::ScanNotCancelable, m),
            Error::NotReady(m) => ApiError::new(ErrorCode::ReportNotReady, m),
            Error::Unavailable(m) => {
                let mut err = ApiError::new(
                    ErrorCode::ServiceUnavailable,
                    "the storage backend does not answer; retry shortly",
                );
                err.internal = Some(m);
                err
            }
            other => ApiError::internal(other),
        }
    }
}

/// `validation_failed` naming every problem.
impl From<Problems> for ApiError {
    fn from(p: Problems) -> Self {
        let details: Vec<ErrorDetail> = Vec::<FieldProblem>::from(p)
            .into_iter()
            .map(|d| ErrorDetail {
                field: d.field,
                problem: d.problem,
            })
            .collect();
        ApiError::validations(details)
            .unwrap_or_else(|| ApiError::new(ErrorCode::ValidationFailed, "invalid request"))
    }
}

/// Seconds from `now` to the next UTC midnight (at least 1).
pub fn seconds_to_next_utc_midnight(now: chrono::DateTime<chrono::Utc>) -> u64 {
    let tomorrow = now.date_naive() + chrono::Days::new(1);
    let midnight = tomorrow.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    midnight
        .map(|m| (m - now).num_seconds().max(1) as u64)
        .unwrap_or(86_400)
}

/// Every validation problem of one request: the domain's list
/// ([`crate::error::Problems`]), answered as `validation_failed`.
pub use crate::error::Problems;

/// The base of `doc_url`s: the service's public URL, without a trailing
/// slash (see [`crate::api::context::RequestContext`]).
pub fn doc_url(base: &str, code: ErrorCode) -> String {
    format!("{base}{ERRORS_PAGE}#{}", code.as_str())
}

/// Where the service serves its error reference (one anchor per code).
pub const ERRORS_PAGE: &str = "/docs/errors";

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // The request's id and public base come from the request middleware
        // (a task-local, so every error made anywhere in the request carries
        // them); outside a request the URL is relative.
        let ctx = super::context::RequestContext::current();
        let base = ctx.as_ref().map(|c| c.base.as_str()).unwrap_or("");
        let body = ErrorBody {
            error: ErrorObject {
                code: self.code.as_str().to_string(),
                message: self.message,
                details: self.details,
                request_id: ctx.as_ref().map(|c| c.id.clone()),
                doc_url: doc_url(base, self.code),
            },
        };
        let mut resp = (self.code.status(), axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.code.status() == StatusCode::UNAUTHORIZED {
            // RFC 6750 / RFC 9110: a 401 names the scheme that would work.
            resp.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"sitescan\""),
            );
        }
        resp.extensions_mut().insert(LoggedError {
            code: self.code.as_str(),
            internal: self.internal,
        });
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn codes_are_unique_and_statuses_are_errors() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{} twice", code.as_str());
            assert!(code.status().is_client_error() || code.status().is_server_error());
        }
    }

    #[test]
    fn retry_after_counts_to_next_utc_midnight() {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 3, 1, 23, 59, 0)
            .single()
            .unwrap();
        assert_eq!(seconds_to_next_utc_midnight(now), 60);
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let resp = ApiError::internal("disk /secret/path full").into_response();
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let logged = resp.extensions().get::<LoggedError>().unwrap();
        assert_eq!(logged.internal.as_deref(), Some("disk /secret/path full"));
    }
}
