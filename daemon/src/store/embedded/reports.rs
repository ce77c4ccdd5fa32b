//! Reports, stored in chunks of [`REPORT_CHUNK`] bytes (see [`crate::store::ReportFile`]).

use super::*;
use crate::store::ReportFile;

/// Copies `report` into the scan's chunks inside the caller's transaction,
/// chunk by chunk from its file: one chunk in memory at a time (redb's own
/// buffer of dirty pages is bounded by the cache size, see `CACHE_BYTES`).
pub(super) fn write_report(
    txn: &redb::WriteTransaction,
    id: &str,
    report: &ReportFile,
) -> Result<()> {
    let mut chunks = txn.open_table(REPORT_CHUNKS).map_err(Error::storage)?;
    let mut index = 0;
    while let Some(chunk) = report.chunk(index)? {
        chunks
            .insert((id, index), chunk.as_slice())
            .map_err(Error::storage)?;
        index += 1;
    }
    Ok(())
}

pub(super) async fn report_chunk(
    this: &Embedded,
    scan_id: &str,
    index: u64,
) -> Result<Option<Vec<u8>>> {
    let id = scan_id.to_string();
    this.read(move |txn| {
        let chunks = txn.open_table(REPORT_CHUNKS).map_err(Error::storage)?;
        if let Some(chunk) = chunks.get((id.as_str(), index)).map_err(Error::storage)? {
            return Ok(Some(chunk.value().to_vec()));
        }
        // A report stored whole by an earlier version: cut the same way.
        let whole = txn.open_table(REPORTS).map_err(Error::storage)?;
        let Some(value) = whole.get(id.as_str()).map_err(Error::storage)? else {
            return Ok(None);
        };
        let bytes = value.value();
        let start = usize::try_from(index)
            .ok()
            .and_then(|i| i.checked_mul(REPORT_CHUNK))
            .filter(|&s| s < bytes.len() || s == 0);
        Ok(start.map(|s| bytes[s..bytes.len().min(s + REPORT_CHUNK)].to_vec()))
    })
    .await
}
