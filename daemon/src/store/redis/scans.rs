//! Scans: the per-day quota and the status transitions (each one Lua script that also writes the webhook outbox), progress, the pages in analysis and the crashes charged to them.

use super::*;

pub(super) static CREATE_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("lua/create_scan.lua")]));

pub(super) static START_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("lua/start_scan.lua")]));

pub(super) static SET_ANALYSIS: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/set_analysis.lua")));

pub(super) static CHARGE_INTERRUPTION: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/charge_interruption.lua")));

pub(super) static PROGRESS: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/progress.lua")));

/// Gives a scan back to its day's quota: `refund` (see the file).
pub(super) const REFUND_LUA: &str = include_str!("lua/refund.lua");

pub(super) static FINISH_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[REFUND_LUA, include_str!("lua/finish_scan.lua")]));

pub(super) static CANCEL_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[REFUND_LUA, include_str!("lua/cancel_scan.lua")]));

pub(super) static REQUEUE_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("lua/requeue_scan.lua")]));

pub(super) async fn create_scan_if_quota(
    this: &RedisBackend,
    scan: Scan,
    day: NaiveDate,
    limit: Option<u32>,
) -> Result<Scan> {
    let event = this.event_args(scan.created_at)?;
    let mut conn = this.c();
    let used: i64 = CREATE_SCAN
        .key(this.quota_key(&scan.account_id, day))
        .key(this.key_name(&["scan", &scan.id]))
        .key(this.key_name(&["site", &scan.site_id, "scans"]))
        .key(this.key_name(&["unfinished"]))
        .arg(limit.map_or(-1, i64::from))
        .arg(QUOTA_TTL_SECS)
        .arg(&scan.id)
        .arg(&scan.account_id)
        .arg(json(&scan)?)
        .arg(&event.prefix)
        .arg(&event.digits)
        .arg(&event.at)
        .arg(event.at_us)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    match (used, limit) {
        (-1, Some(limit)) => Err(Error::QuotaExceeded { limit }),
        _ => Ok(scan),
    }
}

pub(super) async fn scans_created_on(
    this: &RedisBackend,
    account_id: &str,
    day: NaiveDate,
) -> Result<u32> {
    let mut conn = this.c();
    let n: Option<u32> = conn
        .get(this.quota_key(account_id, day))
        .await
        .map_err(redis_err)?;
    Ok(n.unwrap_or(0))
}

pub(super) async fn scan(this: &RedisBackend, account_id: &str, id: &str) -> Result<Option<Scan>> {
    Ok(this
        .scan_by_id(id)
        .await?
        .filter(|s| s.account_id == account_id))
}

pub(super) async fn scan_by_id(this: &RedisBackend, id: &str) -> Result<Option<Scan>> {
    let mut conn = this.c();
    let fields: Vec<String> = conn
        .hgetall(this.key_name(&["scan", id]))
        .await
        .map_err(redis_err)?;
    if fields.is_empty() {
        return Ok(None);
    }
    scan_from_fields(&fields).map(Some)
}

pub(super) async fn list_scans(
    this: &RedisBackend,
    account_id: &str,
    site_id: &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<Scan>> {
    let limit = limit.max(1);
    let index = this.key_name(&["site", site_id, "scans"]);
    let mut conn = this.c();
    let mut max = match cursor {
        Some(c) => format!("({c}"),
        None => "+".to_string(),
    };
    let mut items = Vec::new();
    let mut more = false;
    'pages: loop {
        let batch = limit + 1;
        let ids: Vec<String> = conn
            .zrevrangebylex_limit(&index, &max, "-", 0, batch as isize)
            .await
            .map_err(redis_err)?;
        let exhausted = ids.len() < batch;
        // One round trip for the page, not one per scan.
        let scans = this.load_scans(&ids).await?;
        for (id, scan) in ids.iter().zip(scans) {
            max = format!("({id}");
            let Some(scan) = scan else {
                continue;
            };
            if scan.account_id != account_id {
                continue;
            }
            if items.len() == limit {
                more = true;
                break 'pages;
            }
            items.push(scan);
        }
        if exhausted {
            break;
        }
    }
    let next_cursor = if more {
        items.last().map(|s: &Scan| s.id.clone())
    } else {
        None
    };
    Ok(Page { items, next_cursor })
}

pub(super) async fn start_scan(
    this: &RedisBackend,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Option<Scan>> {
    this.start_or_resume(id, at, true).await
}

pub(super) async fn resume_scan(
    this: &RedisBackend,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Option<Scan>> {
    this.start_or_resume(id, at, false).await
}

/// `running` to `queued`; with `refund` the attempt its start charged is
/// given back (a hand-back that is not the scan's fault).
pub(super) async fn requeue_scan(this: &RedisBackend, id: &str, refund: bool) -> Result<bool> {
    let event = this.event_args(Utc::now())?;
    let mut conn = this.c();
    let done: i64 = REQUEUE_SCAN
        .key(this.key_name(&["scan", id]))
        .key(this.key_name(&["running"]))
        .arg(id)
        .arg(&event.prefix)
        .arg(&event.digits)
        .arg(&event.at)
        .arg(event.at_us)
        .arg(if refund { "1" } else { "0" })
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(done == 1)
}

pub(super) async fn set_pages_in_analysis(
    this: &RedisBackend,
    id: &str,
    pages: &[String],
) -> Result<()> {
    let mut conn = this.c();
    let mut script = SET_ANALYSIS.prepare_invoke();
    script.key(this.key_name(&["scan", id, "analysis"]));
    for p in pages {
        script.arg(p);
    }
    let _: i64 = script.invoke_async(&mut conn).await.map_err(redis_err)?;
    Ok(())
}

pub(super) async fn charge_interruption(this: &RedisBackend, id: &str) -> Result<Interruption> {
    let mut conn = this.c();
    let out: Vec<String> = CHARGE_INTERRUPTION
        .key(this.key_name(&["scan", id, "analysis"]))
        .key(this.key_name(&["scan", id, "crashes"]))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    let number = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| Error::Corrupt(format!("scan {id}: crash count `{s}`")))
    };
    let mut it = out.iter();
    let unattributed = match it.next() {
        Some(u) => number(u)?,
        None => 0,
    };
    let mut pages = Vec::new();
    while let (Some(page), Some(n)) = (it.next(), it.next()) {
        pages.push((page.clone(), number(n)?));
    }
    Ok(Interruption {
        pages,
        unattributed,
    })
}

pub(super) async fn update_progress(
    this: &RedisBackend,
    id: &str,
    progress: Progress,
) -> Result<ScanStatus> {
    let mut conn = this.c();
    let status: Option<String> = PROGRESS
        .key(this.key_name(&["scan", id]))
        .arg(progress.pages_done)
        .arg(progress.pages_queued)
        .arg(progress.errors)
        .arg(phase_name(progress.phase))
        .arg(progress.links_checked)
        .arg(progress.links_total)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    status_from(&status.ok_or_else(|| not_found("scan", id))?)
}

pub(super) async fn finish_scan(
    this: &RedisBackend,
    id: &str,
    outcome: ScanOutcome,
    at: DateTime<Utc>,
) -> Result<Scan> {
    // The quota counter of the day the scan was created (its creation
    // time never changes, so reading it apart from the script is safe).
    let scan = this
        .scan_by_id(id)
        .await?
        .ok_or_else(|| not_found("scan", id))?;
    let quota = this.quota_key(&scan.account_id, scan.created_at.date_naive());
    let mut random = [0u8; 8];
    getrandom::getrandom(&mut random).map_err(Error::storage)?;
    let upload = this.key_name(&["report", id, "upload", &hex::encode(random)]);
    let shots_upload = this.key_name(&["screenshots", id, "upload", &hex::encode(random)]);
    let (kind, detail, pages, report) = match outcome {
        ScanOutcome::Completed {
            summary,
            report,
            screenshots,
        } => (
            "completed",
            json(&summary)?,
            summary.pages_fetched,
            Some((report, screenshots)),
        ),
        ScanOutcome::Failed { error } => ("failed", error, 0, None),
    };
    // A scan already terminal keeps its status: no upload then (the
    // script checks again, atomically).
    if let Some((report, shots)) = report.filter(|_| !scan.status.is_terminal()) {
        let uploaded = async {
            this.upload_report(&upload, report).await?;
            screenshots::upload_screenshots(this, &shots_upload, &shots).await
        }
        .await;
        if let Err(e) = uploaded {
            // Both uploads expire anyway; dropped now, they cost nothing
            // while the caller retries with fresh ones.
            drop_uploads(this, &upload, &shots_upload).await;
            return Err(e);
        }
    }
    let mut conn = this.c();
    let mut script = FINISH_SCAN.prepare_invoke();
    script
        .key(this.key_name(&["scan", id]))
        .key(this.key_name(&["report", id]))
        .key(this.key_name(&["running"]))
        .key(this.key_name(&["unfinished"]))
        .key(this.key_name(&["stats"]))
        .key(quota)
        .key(&upload)
        .key(this.screenshots_key(id))
        .key(&shots_upload)
        .arg(id);
    let event = this.event_args(at)?;
    script
        .arg(kind)
        .arg(json(&at)?)
        .arg(detail)
        .arg(pages)
        .arg(&event.prefix)
        .arg(&event.digits)
        .arg(&event.at)
        .arg(event.at_us);
    let fields: Option<Vec<String>> = match script.invoke_async(&mut conn).await {
        Ok(fields) => fields,
        Err(e) => {
            drop_uploads(this, &upload, &shots_upload).await;
            return Err(redis_err(e));
        }
    };
    scan_from_fields(&fields.ok_or_else(|| not_found("scan", id))?)
}

/// Deletes a finish's uploads (report and pictures) whose `finish` script
/// did not run, best effort: they expire after [`UPLOAD_TTL_SECS`] anyway.
async fn drop_uploads(this: &RedisBackend, report: &str, shots: &str) {
    let mut conn = this.c();
    let dropped: redis::RedisResult<()> = conn.del(&[report, shots]).await;
    if let Err(e) = dropped {
        tracing::debug!(error = %e, "could not drop a finish's uploads; they expire");
    }
}

pub(super) async fn cancel_scan(
    this: &RedisBackend,
    account_id: &str,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Scan> {
    let Some(scan) = this.scan(account_id, id).await? else {
        return Err(not_found("scan", id));
    };
    let quota = this.quota_key(account_id, scan.created_at.date_naive());
    let event = this.event_args(at)?;
    let mut conn = this.c();
    let reply: Vec<String> = CANCEL_SCAN
        .key(this.key_name(&["scan", id]))
        .key(this.key_name(&["running"]))
        .key(this.key_name(&["unfinished"]))
        .key(this.key_name(&["stats"]))
        .key(quota)
        .arg(id)
        .arg(account_id)
        .arg(json(&at)?)
        .arg(&event.prefix)
        .arg(&event.digits)
        .arg(&event.at)
        .arg(event.at_us)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    match reply.split_first() {
        Some((tag, fields)) if tag == "ok" => scan_from_fields(fields),
        Some((tag, rest)) if tag == "conflict" => Err(Error::Conflict(format!(
            "scan `{id}` is already {}; only queued or running scans can be canceled",
            rest.first().map(String::as_str).unwrap_or("finished")
        ))),
        _ => Err(not_found("scan", id)),
    }
}

pub(super) async fn unfinished_scans(this: &RedisBackend) -> Result<Vec<Scan>> {
    let mut conn = this.c();
    let mut ids: Vec<String> = conn
        .smembers(this.key_name(&["unfinished"]))
        .await
        .map_err(redis_err)?;
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        if let Some(scan) = this.scan_by_id(&id).await? {
            if !scan.status.is_terminal() {
                out.push(scan);
            }
        }
    }
    Ok(out)
}

impl RedisBackend {
    /// Starts (`count`: attempts + 1) or resumes a queued or running scan.
    pub(super) async fn start_or_resume(
        &self,
        id: &str,
        at: DateTime<Utc>,
        count: bool,
    ) -> Result<Option<Scan>> {
        let event = self.event_args(at)?;
        let mut conn = self.c();
        let fields: Option<Vec<String>> = START_SCAN
            .key(self.key_name(&["scan", id]))
            .key(self.key_name(&["running"]))
            .arg(id)
            .arg(json(&at)?)
            .arg(&event.prefix)
            .arg(&event.digits)
            .arg(&event.at)
            .arg(event.at_us)
            .arg(if count { "1" } else { "0" })
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fields.map(|f| scan_from_fields(&f)).transpose()
    }
}

impl RedisBackend {
    /// The scans of `ids` (`None` where one is gone), in one pipelined round trip.
    pub(super) async fn load_scans(&self, ids: &[String]) -> Result<Vec<Option<Scan>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.key_name(&["scan", id]));
        }
        let mut conn = self.c();
        let all: Vec<Vec<String>> = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        all.iter()
            .map(|fields| {
                if fields.is_empty() {
                    Ok(None)
                } else {
                    scan_from_fields(fields).map(Some)
                }
            })
            .collect()
    }
}

impl RedisBackend {
    pub(super) fn quota_key(&self, account_id: &str, day: NaiveDate) -> String {
        self.key_name(&["quota", account_id, &day.format("%Y-%m-%d").to_string()])
    }
}
