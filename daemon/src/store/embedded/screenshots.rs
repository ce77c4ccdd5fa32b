//! Render mode's pictures of a scan, beside its report: one row per picture,
//! keyed `(scan, picture id)`, holding the encoded image (its content type
//! is read from its signature).
//!
//! Their lifetime is the report's: they are written in the write
//! transaction that completes the scan and stores its report (replacing
//! any rows the scan had), never before, so a scan that fails, is canceled
//! or was already finished has none; a failed scan's rows are deleted.

use super::*;

/// Replaces the scan's pictures with `shots`, inside the caller's write
/// transaction (the one that completes the scan).
pub(super) fn write_screenshots(
    txn: &redb::WriteTransaction,
    scan_id: &str,
    shots: &sitescan_engine::report::Screenshots,
) -> Result<()> {
    delete_screenshots(txn, scan_id)?;
    let mut table = txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
    for shot in &shots.shots {
        table
            .insert((scan_id, shot.id.as_str()), shot.bytes.as_ref())
            .map_err(Error::storage)?;
    }
    Ok(())
}

/// Deletes the scan's pictures, inside the caller's write transaction.
pub(super) fn delete_screenshots(txn: &redb::WriteTransaction, scan_id: &str) -> Result<()> {
    let mut table = txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
    // The scan's rows are the keys from `(scan, "")` on while the scan is
    // this one; the caps bound how many.
    let mut ids: Vec<String> = Vec::new();
    for row in table.range((scan_id, "")..).map_err(Error::storage)? {
        let (key, _) = row.map_err(Error::storage)?;
        let (scan, shot) = key.value();
        if scan != scan_id {
            break;
        }
        ids.push(shot.to_string());
    }
    for id in ids {
        table
            .remove((scan_id, id.as_str()))
            .map_err(Error::storage)?;
    }
    Ok(())
}

/// How many pictures the store holds, of every scan (for operators and
/// tests: each belongs to a completed scan's report).
pub(super) async fn count(this: &Embedded) -> Result<u64> {
    this.read(move |txn| {
        let table = txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
        table.len().map_err(Error::storage)
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
