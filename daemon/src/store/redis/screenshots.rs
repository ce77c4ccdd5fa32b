//! Render mode's pictures of a scan, beside its report: one hash per scan
//! (`screenshots:{scan}`), a field per picture holding the encoded image. The
//! scan's caps bound it (`render_options.screenshots`: at most 20 MB by
//! default); like the report it is kept as long as the scan's record.

use super::*;

impl RedisBackend {
    fn screenshots_key(&self, scan_id: &str) -> String {
        self.key_name(&["screenshots", scan_id])
    }
}

/// Stores the scan's pictures, one command per picture (one in memory at a
/// time on the wire), in one transaction.
pub(super) async fn save_screenshots(
    this: &RedisBackend,
    scan_id: &str,
    shots: &sitescan_engine::report::Screenshots,
) -> Result<()> {
    if shots.is_empty() {
        return Ok(());
    }
    let key = this.screenshots_key(scan_id);
    let mut pipe = redis::pipe();
    pipe.atomic();
    for shot in &shots.shots {
        pipe.hset(&key, &shot.id, shot.bytes.as_ref()).ignore();
    }
    let mut conn = this.c();
    let () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
    Ok(())
}

/// One picture of a scan.
pub(super) async fn screenshot(
    this: &RedisBackend,
    scan_id: &str,
    shot_id: &str,
) -> Result<Option<Vec<u8>>> {
    let mut conn = this.c();
    let bytes: Option<Vec<u8>> = conn
        .hget(this.screenshots_key(scan_id), shot_id)
        .await
        .map_err(redis_err)?;
    Ok(bytes)
}
