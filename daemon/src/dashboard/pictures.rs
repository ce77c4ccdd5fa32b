//! `GET /scans/{scanId}/screenshots/{screenshotId}`: a picture of a render
//! scan's report (a finding's highlighted screenshot, a page's thumbnail)
//! for the signed-in user, with the tenancy of the dashboard's report pages:
//! a scan of another account, and a picture its report does not have, are
//! 404. The lookup is the API's (`ops::screenshots::screenshot`); the answer
//! is the same file ([`crate::views::picture::PictureFile`]), so the
//! explorer's `<img>` stays on the dashboard's origin (its policy allows
//! same-origin images only) and needs no API key.
//!
//! Opened on its own (the explorer links the full size), a picture is shown
//! in the browser's own image document, which styles itself inline: the
//! answer carries its own policy ([`PICTURE_CONTENT_SECURITY_POLICY`]), which
//! allows that and nothing else. The body is a PNG or JPEG sent with
//! `nosniff`, never markup, so no style or script of ours or of a scanned
//! site can come with it.

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;

use super::auth::SignedIn;
use super::{DashState, PageResult};
use crate::ops::screenshots;
use crate::views::picture::PictureFile;

/// The policy of a picture's answer: only the picture itself (same origin)
/// and the browser's inline styles of its image document; no script, no
/// framing, no forms.
pub const PICTURE_CONTENT_SECURITY_POLICY: &str =
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The dashboard address of picture `shot_id` of scan `scan_id`.
pub fn href(scan_id: &str, shot_id: &str) -> String {
    format!("/scans/{scan_id}/screenshots/{shot_id}")
}

/// `GET /scans/{scanId}/screenshots/{screenshotId}`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path((scan_id, shot_id)): Path<(String, String)>,
) -> PageResult {
    let (content_type, bytes) =
        screenshots::screenshot(state.app.store.as_ref(), &me.account.id, &scan_id, &shot_id)
            .await?;
    let mut resp = PictureFile {
        content_type,
        bytes,
    }
    .into_response();
    // Set here, so the dashboard's layer keeps it (see the module's docs).
    resp.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PICTURE_CONTENT_SECURITY_POLICY),
    );
    Ok(resp)
}
