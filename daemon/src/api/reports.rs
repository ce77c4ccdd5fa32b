//! Reports in every format and scan comparisons, over the API.
//!
//! - `GET /api/v1/scans/{scanId}/report?format=json|html|sarif|junit|csv|markdown`:
//!   without `format` (or with `json`) the JSON report in the usual envelope;
//!   any other format is the rendered file itself, with its `Content-Type` and a
//!   `Content-Disposition` file name ([`Download`]).
//! - `GET /api/v1/scans/{scanId}/compare?with=<otherScanId>`: the scan's report
//!   compared with an earlier scan's as baseline (`sitescan_engine::baseline`):
//!   its new, unchanged and fixed findings; with `format` the compared report is
//!   rendered instead (new findings marked, fixed ones listed).

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use sitescan_engine::render::Format;
use sitescan_rules::BaselineState;
use utoipa::ToSchema;

use super::auth::Auth;
use super::envelope::{ApiPath, Meta, RequestId};
use super::error::ApiError;
use crate::ops::scans;
use crate::state::AppState;
use crate::views::download::Download;

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/scans/{scanId}/compare", get(compare))
}

/// The `format` query parameter: `None` when absent or `json` (the envelope).
pub(crate) fn format_param(query: Option<&str>) -> Result<Option<Format>, ApiError> {
    let mut format = None;
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if k == "format" {
            let f = v
                .parse::<Format>()
                .map_err(|e| ApiError::validation("format", e.to_string()))?;
            format = (f != Format::Json).then_some(f);
        }
    }
    Ok(format)
}

/// Success body of `GET /scans/{scanId}/compare`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CompareEnvelope {
    /// The comparison: `scan_id`, `with`, `summary` (`new`, `unchanged`, `fixed`
    /// counts) and the findings under `new`, `unchanged` and `fixed`.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
    /// Request metadata.
    pub meta: Meta,
}

/// Compares a completed scan with an earlier one of the same account.
#[utoipa::path(get, path = "/api/v1/scans/{scanId}/compare", tag = "scans",
    security(("api_key" = [])),
    params(
        ("scanId" = String, Path, description = "The scan to look at"),
        ("with" = String, Query, description = "The earlier scan to compare with (the baseline)"),
        ("format" = Option<String>, Query, description = "json (default, the envelope) or html, sarif, junit, csv, markdown: the compared report rendered"),
    ),
    responses(
        (status = 200, description = "New, unchanged and fixed findings", body = CompareEnvelope),
        (status = 422, description = "validation_failed: `with` missing or `format` unknown", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found (either scan)", body = ErrorBody),
        (status = 409, description = "report_not_ready: either scan has not completed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn compare(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let format = format_param(query.as_deref())?;
    let with = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "with")
        .map(|(_, v)| v.into_owned())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::validation("with", "give the id of the scan to compare with"))?;
    let report =
        scans::compare_reports(state.store.as_ref(), &auth.account.id, &scan_id, &with).await?;
    if let Some(format) = format {
        return Ok(
            Download::new_off_async(report, format, &format!("{scan_id}-vs-{with}"))
                .await?
                .into_response(),
        );
    }
    let with_state = |s: BaselineState| -> Vec<&sitescan_rules::Finding> {
        report
            .findings
            .iter()
            .filter(|f| f.baseline == Some(s))
            .collect()
    };
    let summary = report.baseline.clone().unwrap_or_default();
    let data = serde_json::json!({
        "scan_id": scan_id,
        "with": with,
        "summary": { "new": summary.new, "unchanged": summary.unchanged, "fixed": summary.fixed },
        "new": with_state(BaselineState::New),
        "unchanged": with_state(BaselineState::Unchanged),
        "fixed": report.fixed.clone().unwrap_or_default(),
    });
    Ok((
        StatusCode::OK,
        axum::Json(serde_json::json!({ "data": data, "meta": Meta::new(&id) })),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::error::ErrorCode;

    #[test]
    fn format_parameter() {
        assert_eq!(format_param(None).unwrap(), None);
        assert_eq!(format_param(Some("format=json")).unwrap(), None);
        assert_eq!(
            format_param(Some("a=1&format=sarif")).unwrap(),
            Some(Format::Sarif)
        );
        let err = format_param(Some("format=pdf")).unwrap_err();
        assert_eq!(err.code, ErrorCode::ValidationFailed);
    }
}
