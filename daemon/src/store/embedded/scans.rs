//! Scans: the per-day quota, the status transitions (each one write transaction with its webhook event), progress, the pages in analysis and the crashes charged to them.

use super::reports;
use super::screenshots;
use super::webhooks::write_event;
use super::*;

/// Gives a scan back to its account's quota of the day it was created (in
/// the caller's transaction): canceled while queued, or failed before its
/// first page. Marks it so that it is never given back twice.
pub(super) fn refund_quota(txn: &redb::WriteTransaction, scan: &mut Scan) -> Result<()> {
    if scan.quota_refunded {
        return Ok(());
    }
    let key = format!(
        "{}/{}",
        scan.account_id,
        scan.created_at.date_naive().format("%Y-%m-%d")
    );
    let mut quotas = txn.open_table(QUOTAS).map_err(Error::storage)?;
    let used = quotas
        .get(key.as_str())
        .map_err(Error::storage)?
        .map(|v| v.value())
        .unwrap_or(0);
    if used > 0 {
        quotas
            .insert(key.as_str(), used - 1)
            .map_err(Error::storage)?;
    }
    scan.quota_refunded = true;
    Ok(())
}

/// The interruptions of one scan, as [`Store::charge_interruption`] counts them.
#[derive(Debug, Default, Serialize, serde::Deserialize)]
pub(super) struct CrashRecord {
    /// Page URL -> interruptions it was in analysis at.
    pages: std::collections::BTreeMap<String, u32>,
    /// Interruptions with no page in analysis.
    unattributed: u32,
}

/// One scan's record of pages in analysis, kept open while it runs.
///
/// Rewritten in place with one `write` at offset 0, the new text padded with
/// newlines (blank lines are ignored) to the old length, then shortened: a
/// process killed between the two leaves only trailing blank lines, and a
/// single small `write` is not torn by a kill. Opening, writing aside and
/// renaming cost about 2 ms a time on the sandbox this was measured on, this
/// about 20 µs; it happens twice per page.
#[derive(Debug)]
pub(super) struct AnalysisFile {
    file: std::fs::File,
    len: usize,
}

impl AnalysisFile {
    pub(super) fn write(&mut self, mut text: Vec<u8>) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom, Write};
        let len = text.len();
        if len < self.len {
            text.resize(self.len, b'\n');
        }
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(&text)?;
        if len < self.len {
            self.file.set_len(len as u64)?;
        }
        self.len = len;
        Ok(())
    }
}

pub(super) async fn create_scan_if_quota(
    this: &Embedded,
    scan: Scan,
    day: NaiveDate,
    limit: Option<u32>,
) -> Result<Scan> {
    this.write(move |txn| {
        {
            let quota_key = format!("{}/{}", scan.account_id, day.format("%Y-%m-%d"));
            let mut quotas = txn.open_table(QUOTAS).map_err(Error::storage)?;
            let used = quotas
                .get(quota_key.as_str())
                .map_err(Error::storage)?
                .map(|v| v.value())
                .unwrap_or(0);
            if let Some(limit) = limit {
                if used >= limit {
                    return Err(Error::QuotaExceeded { limit });
                }
            }
            quotas
                .insert(quota_key.as_str(), used + 1)
                .map_err(Error::storage)?;
            let mut scans = txn.open_table(SCANS).map_err(Error::storage)?;
            scans
                .insert(scan.id.as_str(), encode(&scan)?.as_slice())
                .map_err(Error::storage)?;
            let mut index = txn.open_table(SITE_SCANS).map_err(Error::storage)?;
            index
                .insert(format!("{}/{}", scan.site_id, scan.id).as_str(), ())
                .map_err(Error::storage)?;
        }
        write_event(txn, &scan, scan.created_at)?;
        Ok(scan)
    })
    .await
}

pub(super) async fn scans_created_on(
    this: &Embedded,
    account_id: &str,
    day: NaiveDate,
) -> Result<u32> {
    let key = format!("{account_id}/{}", day.format("%Y-%m-%d"));
    this.read(move |txn| {
        let t = txn.open_table(QUOTAS).map_err(Error::storage)?;
        Ok(t.get(key.as_str())
            .map_err(Error::storage)?
            .map(|v| v.value())
            .unwrap_or(0))
    })
    .await
}

pub(super) async fn scan(this: &Embedded, account_id: &str, id: &str) -> Result<Option<Scan>> {
    let account_id = account_id.to_string();
    Ok(this
        .scan_by_id(id)
        .await?
        .filter(|s| s.account_id == account_id))
}

pub(super) async fn scan_by_id(this: &Embedded, id: &str) -> Result<Option<Scan>> {
    let id = id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(SCANS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn list_scans(
    this: &Embedded,
    account_id: &str,
    site_id: &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<Scan>> {
    let (account_id, site_id) = (account_id.to_string(), site_id.to_string());
    let cursor = cursor.map(str::to_string);
    let limit = limit.max(1);
    this.read(move |txn| {
        let index = txn.open_table(SITE_SCANS).map_err(Error::storage)?;
        let scans = txn.open_table(SCANS).map_err(Error::storage)?;
        let start = format!("{site_id}/");
        let end = match &cursor {
            Some(c) => format!("{site_id}/{c}"),
            None => format!("{site_id}0"),
        };
        let mut items = Vec::new();
        let mut more = false;
        for entry in index
            .range::<&str>(start.as_str()..end.as_str())
            .map_err(Error::storage)?
            .rev()
        {
            let (k, _) = entry.map_err(Error::storage)?;
            let Some((_, scan_id)) = k.value().split_once('/') else {
                continue;
            };
            let Some(scan) = get::<Scan>(&scans, scan_id)? else {
                continue;
            };
            if scan.account_id != account_id {
                continue;
            }
            if items.len() == limit {
                more = true;
                break;
            }
            items.push(scan);
        }
        let next_cursor = if more {
            items.last().map(|s: &Scan| s.id.clone())
        } else {
            None
        };
        Ok(Page { items, next_cursor })
    })
    .await
}

pub(super) async fn start_scan(
    this: &Embedded,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Option<Scan>> {
    this.start_or_resume(id, at, true).await
}

pub(super) async fn resume_scan(
    this: &Embedded,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Option<Scan>> {
    this.start_or_resume(id, at, false).await
}

/// `running` to `queued`; with `refund` the attempt its start charged is
/// given back (a hand-back that is not the scan's fault).
pub(super) async fn requeue_scan(this: &Embedded, id: &str, refund: bool) -> Result<bool> {
    let id = id.to_string();
    this.write(move |txn| {
        let mut scan = {
            let t = txn.open_table(SCANS).map_err(Error::storage)?;
            match get::<Scan>(&t, &id)? {
                Some(scan) if scan.status == ScanStatus::Running => scan,
                _ => return Ok(false),
            }
        };
        scan.status = ScanStatus::Queued;
        if refund {
            scan.attempts = scan.attempts.saturating_sub(1);
        }
        txn.open_table(SCANS)
            .map_err(Error::storage)?
            .insert(id.as_str(), encode(&scan)?.as_slice())
            .map_err(Error::storage)?;
        write_event(txn, &scan, Utc::now())?;
        Ok(true)
    })
    .await
}

pub(super) async fn set_pages_in_analysis(
    this: &Embedded,
    id: &str,
    pages: &[String],
) -> Result<()> {
    let path = this.analysis_file(id)?;
    let text: String = pages.iter().flat_map(|p| [p.as_str(), "\n"]).collect();
    let mut files = this
        .analysis_files
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if text.is_empty() {
        files.remove(id);
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        };
    }
    let record = match files.entry(id.to_string()) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(true)
                .open(&path)?;
            e.insert(AnalysisFile { file, len: 0 })
        }
    };
    record.write(text.into_bytes())?;
    Ok(())
}

pub(super) async fn charge_interruption(this: &Embedded, id: &str) -> Result<Interruption> {
    let path = this.analysis_file(id)?;
    // A record still open here belongs to a run of this process that
    // ended without clearing it; the file is read and removed below.
    this.analysis_files
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(id);
    let id = id.to_string();
    this.blocking(move |db| {
        let pages: Vec<String> = match std::fs::read_to_string(&path) {
            Ok(text) => text
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let txn = db.begin_write().map_err(Error::storage)?;
        let out = {
            let mut t = txn.open_table(CRASHES).map_err(Error::storage)?;
            let mut record: CrashRecord = get(&t, &id)?.unwrap_or_default();
            let mut out = Interruption::default();
            if pages.is_empty() {
                record.unattributed += 1;
            }
            for page in pages {
                let n = record.pages.entry(page.clone()).or_insert(0);
                *n += 1;
                out.pages.push((page, *n));
            }
            out.unattributed = record.unattributed;
            t.insert(id.as_str(), encode(&record)?.as_slice())
                .map_err(Error::storage)?;
            out
        };
        txn.commit().map_err(Error::storage)?;
        // After the commit: a kill in between charges this crash again at
        // the next start, which errs towards stopping a crash loop.
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
        Ok(out)
    })
    .await
}

pub(super) async fn update_progress(
    this: &Embedded,
    id: &str,
    progress: Progress,
) -> Result<ScanStatus> {
    let id = id.to_string();
    this.write(move |txn| {
        let status = {
            let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
            let mut scan: Scan = get(&t, &id)?.ok_or_else(|| not_found("scan", &id))?;
            if scan.status == ScanStatus::Running {
                scan.progress = Some(progress);
                t.insert(id.as_str(), encode(&scan)?.as_slice())
                    .map_err(Error::storage)?;
            }
            scan.status
        };
        Ok(status)
    })
    .await
}

pub(super) async fn finish_scan(
    this: &Embedded,
    id: &str,
    outcome: ScanOutcome,
    at: DateTime<Utc>,
) -> Result<Scan> {
    let id = id.to_string();
    this.write(move |txn| {
        let (scan, changed) = {
            let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
            let mut scan: Scan = get(&t, &id)?.ok_or_else(|| not_found("scan", &id))?;
            let changed = !scan.status.is_terminal();
            if changed {
                match outcome {
                    ScanOutcome::Completed {
                        summary,
                        report,
                        screenshots,
                    } => {
                        scan.status = ScanStatus::Completed;
                        if let Some(p) = scan.progress.as_mut() {
                            p.pages_done = summary.pages_fetched;
                            p.pages_queued = 0;
                        }
                        scan.summary = Some(summary);
                        reports::write_report(txn, &id, &report)?;
                        screenshots::write_screenshots(txn, &id, &screenshots)?;
                    }
                    ScanOutcome::Failed { error } => {
                        scan.status = ScanStatus::Failed;
                        scan.error = Some(error);
                        screenshots::delete_screenshots(txn, &id)?;
                        if scan.progress.is_none_or(|p| p.pages_done == 0) {
                            refund_quota(txn, &mut scan)?;
                        }
                    }
                }
                scan.finished_at = Some(at);
                t.insert(id.as_str(), encode(&scan)?.as_slice())
                    .map_err(Error::storage)?;
            }
            (scan, changed)
        };
        if changed {
            write_event(txn, &scan, at)?;
        }
        Ok(scan)
    })
    .await
}

pub(super) async fn cancel_scan(
    this: &Embedded,
    account_id: &str,
    id: &str,
    at: DateTime<Utc>,
) -> Result<Scan> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.write(move |txn| {
        let (scan, changed) = {
            let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
            let mut scan: Scan = get::<Scan>(&t, &id)?
                .filter(|s| s.account_id == account_id)
                .ok_or_else(|| not_found("scan", &id))?;
            let changed = matches!(scan.status, ScanStatus::Queued | ScanStatus::Running);
            match scan.status {
                ScanStatus::Queued | ScanStatus::Running => {
                    if scan.status == ScanStatus::Queued {
                        refund_quota(txn, &mut scan)?;
                    }
                    scan.status = ScanStatus::Canceled;
                    scan.finished_at = Some(at);
                    t.insert(id.as_str(), encode(&scan)?.as_slice())
                        .map_err(Error::storage)?;
                }
                ScanStatus::Canceled => {}
                done => {
                    return Err(Error::Conflict(format!(
                        "scan `{id}` is already {}; only queued or running scans can be canceled",
                        done.as_str()
                    )))
                }
            }
            (scan, changed)
        };
        if changed {
            write_event(txn, &scan, at)?;
        }
        Ok(scan)
    })
    .await
}

pub(super) async fn unfinished_scans(this: &Embedded) -> Result<Vec<Scan>> {
    this.read(move |txn| {
        let t = txn.open_table(SCANS).map_err(Error::storage)?;
        let mut out = Vec::new();
        for entry in t.iter().map_err(Error::storage)? {
            let (_, v) = entry.map_err(Error::storage)?;
            let scan: Scan = decode(v.value())?;
            if !scan.status.is_terminal() {
                out.push(scan);
            }
        }
        Ok(out)
    })
    .await
}

impl Embedded {
    /// Starts (`count`: attempts + 1) or resumes a scan that is not terminal.
    pub(super) async fn start_or_resume(
        &self,
        id: &str,
        at: DateTime<Utc>,
        count: bool,
    ) -> Result<Option<Scan>> {
        let id = id.to_string();
        self.write(move |txn| {
            let started = {
                let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
                let scan: Option<Scan> = get(&t, &id)?;
                match scan {
                    Some(mut scan) if !scan.status.is_terminal() => {
                        scan.status = ScanStatus::Running;
                        if count {
                            scan.attempts += 1;
                        }
                        scan.started_at = Some(at);
                        scan.progress = Some(Progress::default());
                        t.insert(id.as_str(), encode(&scan)?.as_slice())
                            .map_err(Error::storage)?;
                        Some(scan)
                    }
                    _ => None,
                }
            };
            if let Some(scan) = &started {
                write_event(txn, scan, at)?;
            }
            Ok(started)
        })
        .await
    }
}
