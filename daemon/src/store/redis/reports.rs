//! Reports: lists of chunks of [`REPORT_CHUNK`] bytes, appended one chunk at a time from the worker's [`ReportFile`] and renamed into place by the `finish` script.

use super::*;

impl RedisBackend {
    /// Appends the report's chunks to the list `key`, one command (and one
    /// chunk in memory) at a time; the list expires unless the `finish`
    /// script takes it.
    pub(super) async fn upload_report(&self, key: &str, report: ReportFile) -> Result<()> {
        let mut conn = self.c();
        let mut index = 0;
        loop {
            // The file is read off the async threads, one chunk a time.
            let file = report.clone();
            let chunk = tokio::task::spawn_blocking(move || file.chunk(index))
                .await
                .map_err(|e| Error::Storage(format!("reading the report: {e}")))??;
            let Some(chunk) = chunk else { break };
            let mut pipe = redis::pipe();
            pipe.rpush(key, chunk).ignore();
            if index == 0 {
                pipe.expire(key, UPLOAD_TTL_SECS).ignore();
            }
            let () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
            index += 1;
        }
        Ok(())
    }
}

pub(super) async fn report_chunk(
    this: &RedisBackend,
    scan_id: &str,
    index: u64,
) -> Result<Option<Vec<u8>>> {
    let Ok(index) = isize::try_from(index) else {
        return Ok(None);
    };
    let mut conn = this.c();
    let chunk: Option<Vec<u8>> = conn
        .lindex(this.key_name(&["report", scan_id]), index)
        .await
        .map_err(redis_err)?;
    Ok(chunk)
}

/// The whole report in one round trip (`LRANGE`), where the trait's default
/// would ask for each chunk in turn.
pub(super) async fn report(this: &RedisBackend, scan_id: &str) -> Result<Option<Vec<u8>>> {
    let mut conn = this.c();
    let chunks: Vec<Vec<u8>> = conn
        .lrange(this.key_name(&["report", scan_id]), 0, -1)
        .await
        .map_err(redis_err)?;
    if chunks.is_empty() {
        return Ok(None);
    }
    Ok(Some(chunks.concat()))
}
