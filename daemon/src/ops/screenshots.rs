//! Render mode's pictures of a scan's report (see
//! `sitescan_engine::report::screenshots`): read with the report's tenancy.

use crate::error::{Error, Result};
use crate::store::Store;

/// A picture of a completed scan of the account: its content type and bytes.
/// A scan of another account, an id of the wrong shape and an id the report
/// does not have are all `NotFound`.
pub async fn screenshot(
    store: &dyn Store,
    account_id: &str,
    scan_id: &str,
    shot_id: &str,
) -> Result<(&'static str, Vec<u8>)> {
    // The scan first: another account's scan is not found, whatever the id.
    super::scans::scan(store, account_id, scan_id).await?;
    if !sitescan_engine::report::screenshots::valid_id(shot_id) {
        return Err(Error::not_found("screenshot", shot_id));
    }
    let bytes = store
        .screenshot(scan_id, shot_id)
        .await?
        .ok_or_else(|| Error::not_found("screenshot", shot_id))?;
    Ok((sitescan_engine::report::Screenshot::sniff(&bytes), bytes))
}

/// Puts the pictures `report` names (its findings' `screenshot`, its pages'
/// `thumbnail`) beside it, read from the store, so the HTML renderer embeds
/// them. A picture the store does not have is left out (the finding shows
/// without it). The scan's caps bound how many there are.
pub async fn attach(
    store: &dyn Store,
    scan_id: &str,
    report: &mut sitescan_engine::Report,
) -> Result<()> {
    let mut ids: Vec<String> = report
        .findings
        .iter()
        .filter_map(|f| f.screenshot.clone())
        .chain(report.pages.iter().filter_map(|p| p.thumbnail.clone()))
        .filter(|id| sitescan_engine::report::screenshots::valid_id(id))
        .collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        if let Some(bytes) = store.screenshot(scan_id, &id).await? {
            report
                .screenshots
                .shots
                .push(sitescan_engine::report::Screenshot {
                    content_type: sitescan_engine::report::Screenshot::sniff(&bytes),
                    id,
                    bytes: bytes.into(),
                });
        }
    }
    Ok(())
}
