//! Render mode's pictures of a scan, beside its report: one hash per scan
//! (`screenshots:{scan}`), a field per picture holding the encoded image. The
//! scan's caps bound it (`render_options.screenshots`: at most 20 MB by
//! default).
//!
//! Their lifetime is the report's. They are uploaded, like the report, to a
//! key of their own (`screenshots:{scan}:upload:{random}`) that expires after
//! [`UPLOAD_TTL_SECS`], and the `finish` script that completes the scan
//! renames it into place (replacing what was there) and makes it permanent,
//! as it does the report. A scan that fails or was already finished
//! (canceled meanwhile, completed by a reclaimed job's other worker) drops
//! the upload; a failed scan's pictures are deleted. An upload whose
//! `finish` never ran (the worker died, Redis went away) expires.

use super::*;

impl RedisBackend {
    pub(super) fn screenshots_key(&self, scan_id: &str) -> String {
        self.key_name(&["screenshots", scan_id])
    }
}

/// Uploads the scan's pictures to `key` (a fresh upload key), one command
/// per picture (one in memory at a time on the wire), in one transaction
/// that also sets its expiry. Nothing is written when there are none.
pub(super) async fn upload_screenshots(
    this: &RedisBackend,
    key: &str,
    shots: &sitescan_engine::report::Screenshots,
) -> Result<()> {
    if shots.is_empty() {
        return Ok(());
    }
    let mut pipe = redis::pipe();
    pipe.atomic();
    for shot in &shots.shots {
        pipe.hset(key, &shot.id, shot.bytes.as_ref()).ignore();
    }
    pipe.expire(key, UPLOAD_TTL_SECS).ignore();
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
