//! A picture of a render-mode report (a finding's screenshot, a page's
//! thumbnail) as sent, the same over the API
//! (`GET /api/v1/scans/{scanId}/screenshots/{id}`) and in the dashboard
//! (`GET /scans/{scanId}/screenshots/{id}`, the explorer's pictures).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// How long a client may keep a picture: a report's pictures never change,
/// and only the caller's account may see them (`private`).
pub const CACHE_CONTROL: &str = "private, max-age=86400, immutable";

/// An encoded picture and its content type (`image/png` or `image/jpeg`, as
/// `ops::screenshots::screenshot` read it from the bytes' signature).
#[derive(Debug)]
pub struct PictureFile {
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// The encoded image.
    pub bytes: Vec<u8>,
}

/// 200 with the picture, cacheable by the caller's browser only, never
/// sniffed as anything else.
impl IntoResponse for PictureFile {
    fn into_response(self) -> Response {
        (
            StatusCode::OK,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.content_type),
                ),
                (
                    header::CACHE_CONTROL,
                    HeaderValue::from_static(CACHE_CONTROL),
                ),
                (
                    header::X_CONTENT_TYPE_OPTIONS,
                    HeaderValue::from_static("nosniff"),
                ),
            ],
            self.bytes,
        )
            .into_response()
    }
}
