//! `GET /api/v1/scans/{scanId}/screenshots/{id}`: a picture a render-mode
//! report names (a finding's `screenshot`, a page's `thumbnail`).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use utoipa::ToSchema;

use super::auth::Auth;
use super::error::{ApiError, ErrorCode};
use super::webhooks::ApiPath2;
use crate::error::Error;
use crate::ops::screenshots;
use crate::state::AppState;
use crate::views::picture::PictureFile;

pub use crate::views::picture::CACHE_CONTROL;

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new().route(
        "/api/v1/scans/{scanId}/screenshots/{screenshotId}",
        get(get_screenshot),
    )
}

/// An encoded picture.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct Picture(pub Vec<u8>);

/// A picture of a render-mode scan's report: the clipped, highlighted
/// screenshot a finding names in `screenshot` (PNG) or a page's thumbnail
/// named in `thumbnail` (JPEG).
#[utoipa::path(get, path = "/api/v1/scans/{scanId}/screenshots/{screenshotId}", tag = "scans",
    security(("api_key" = [])),
    params(
        ("scanId" = String, Path, description = "Scan id"),
        ("screenshotId" = String, Path, description = "Picture id, as the report names it"),
    ),
    responses(
        (status = 200, description = "The picture, cacheable (Cache-Control: private, max-age=86400, immutable)",
            content(("image/png" = Picture), ("image/jpeg" = Picture))),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found or screenshot_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_screenshot(
    State(state): State<AppState>,
    auth: Auth,
    ApiPath2(scan_id, shot_id): ApiPath2,
) -> Result<Response, ApiError> {
    let (content_type, bytes) =
        screenshots::screenshot(state.store.as_ref(), &auth.account.id, &scan_id, &shot_id)
            .await
            .map_err(|e| match e {
                Error::NotFound {
                    kind: "screenshot", ..
                } => ApiError::new(
                    ErrorCode::ScreenshotNotFound,
                    format!(
                        "scan `{scan_id}` has no picture `{shot_id}`; its report names its pictures"
                    ),
                ),
                other => other.into(),
            })?;
    Ok(PictureFile {
        content_type,
        bytes,
    }
    .into_response())
}
