//! `GET /scans/{scanId}/screenshots/{screenshotId}`: a picture of a render
//! scan's report (a finding's highlighted screenshot, a page's thumbnail)
//! for the signed-in user, with the tenancy of the dashboard's report pages:
//! a scan of another account, and a picture its report does not have, are
//! 404. The lookup is the API's (`ops::screenshots::screenshot`); the answer
//! is the same file ([`crate::views::picture::PictureFile`]), so the
//! explorer's `<img>` stays on the dashboard's origin (its policy allows
//! same-origin images only) and needs no API key.

use axum::extract::{Path, State};
use axum::response::IntoResponse;

use super::auth::SignedIn;
use super::{DashState, PageResult};
use crate::ops::screenshots;
use crate::views::picture::PictureFile;

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
    Ok(PictureFile {
        content_type,
        bytes,
    }
    .into_response())
}
