//! Render mode's pictures of a scan, beside its report: one row per picture,
//! keyed `(scan, picture id)`, holding the encoded image (its content type
//! is read from its signature).

use super::*;

/// Stores the scan's pictures in one transaction.
pub(super) async fn save_screenshots(
    this: &Embedded,
    scan_id: &str,
    shots: &sitescan_engine::report::Screenshots,
) -> Result<()> {
    if shots.is_empty() {
        return Ok(());
    }
    let id = scan_id.to_string();
    let shots = shots.clone();
    this.write(move |txn| {
        let mut table = txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
        for shot in &shots.shots {
            table
                .insert((id.as_str(), shot.id.as_str()), shot.bytes.as_ref())
                .map_err(Error::storage)?;
        }
        Ok(())
    })
    .await
}

/// One picture of a scan.
pub(super) async fn screenshot(
    this: &Embedded,
    scan_id: &str,
    shot_id: &str,
) -> Result<Option<Vec<u8>>> {
    let (scan, shot) = (scan_id.to_string(), shot_id.to_string());
    this.read(move |txn| {
        let table = txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
        let value = table
            .get((scan.as_str(), shot.as_str()))
            .map_err(Error::storage)?;
        Ok(value.map(|v| v.value().to_vec()))
    })
    .await
}
