//! The embedded backend: store and queue in ONE local redb file
//! (`<data-dir>/sitescan.redb`). redb is crash-safe (copy-on-write B-trees,
//! every commit durable), so a killed server loses nothing committed; and its
//! write transactions are serialized, which makes each multi-step trait method
//! atomic simply by running it in one write transaction.
//!
//! Records are stored as JSON values keyed by id; secondary indexes are
//! composite string keys `parent/child` (ids never contain `/`), scanned by range.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::Notify;

use super::{
    day_key, new_id, Account, ApiKey, Delivery, DeliveryStatus, Interruption, Page, Progress, Scan,
    ScanOutcome, ScanStatus, Site, Store, Webhook, REPORT_CHUNK,
};
use super::{IdempotencyClaim, IdempotencyRecord, IDEMPOTENCY_TTL, MAX_IDEMPOTENCY_KEYS};
use super::{PasswordToken, Session, User};
use crate::error::{Error, Result};

mod credentials;
mod idempotency;
mod keys;
mod marks;
mod reports;
mod scans;
mod schedules;
mod screenshots;
mod sites;
mod users;

use scans::AnalysisFile;
mod webhooks;

pub(crate) const ACCOUNTS: TableDefinition<&str, &[u8]> = TableDefinition::new("accounts");
pub(crate) const KEYS: TableDefinition<&str, &[u8]> = TableDefinition::new("keys");
pub(crate) const KEY_HASHES: TableDefinition<&str, &str> = TableDefinition::new("key_hashes");
pub(crate) const SITES: TableDefinition<&str, &[u8]> = TableDefinition::new("sites");
/// `account/site` -> ().
pub(crate) const ACCOUNT_SITES: TableDefinition<&str, ()> = TableDefinition::new("account_sites");
pub(crate) const SCANS: TableDefinition<&str, &[u8]> = TableDefinition::new("scans");
/// `site/scan` -> ().
pub(crate) const SITE_SCANS: TableDefinition<&str, ()> = TableDefinition::new("site_scans");
/// `account/YYYY-MM-DD` -> scans created that day.
pub(crate) const QUOTAS: TableDefinition<&str, u32> = TableDefinition::new("quotas");
/// Whole reports, as data directories before chunked reports kept them (read only).
pub(crate) const REPORTS: TableDefinition<&str, &[u8]> = TableDefinition::new("reports");
/// `(scan, chunk number)` -> a chunk of its JSON report ([`REPORT_CHUNK`] bytes).
pub(crate) const REPORT_CHUNKS: TableDefinition<(&str, u64), &[u8]> =
    TableDefinition::new("report_chunks");
/// `(scan, picture id)` -> a picture of its report (render mode's screenshots).
pub(crate) const SCREENSHOTS: TableDefinition<(&str, &str), &[u8]> =
    TableDefinition::new("screenshots");
/// Ready jobs: order key (priority rank << 56 | sequence) -> scan id.
pub(crate) const QUEUE_READY: TableDefinition<u64, &str> = TableDefinition::new("queue_ready");
/// Ready render jobs, keyed like [`QUEUE_READY`] (one sequence for both, so
/// a consumer of both lanes takes them in one order).
pub(crate) const QUEUE_READY_RENDER: TableDefinition<u64, &str> =
    TableDefinition::new("queue_ready_render");
/// Every job not acknowledged: scan id -> JSON of its queue state.
pub(crate) const QUEUE_JOBS: TableDefinition<&str, &[u8]> = TableDefinition::new("queue_jobs");
/// Dead-lettered jobs by scan id: attempts, reason, time.
pub(crate) const QUEUE_DEAD: TableDefinition<&str, &[u8]> = TableDefinition::new("queue_dead");
pub(crate) const WEBHOOKS: TableDefinition<&str, &[u8]> = TableDefinition::new("webhooks");
/// `account/webhook` -> ().
pub(crate) const ACCOUNT_WEBHOOKS: TableDefinition<&str, ()> =
    TableDefinition::new("account_webhooks");
pub(crate) const DELIVERIES: TableDefinition<&str, &[u8]> = TableDefinition::new("deliveries");
/// `webhook/delivery` -> ().
pub(crate) const WEBHOOK_DELIVERIES: TableDefinition<&str, ()> =
    TableDefinition::new("webhook_deliveries");
/// The outbox: `{due micros, 20 digits}/{delivery}` -> () for pending deliveries.
pub(crate) const OUTBOX_DUE: TableDefinition<&str, ()> = TableDefinition::new("outbox_due");
/// Named counters (`queue_seq`).
pub(crate) const COUNTERS: TableDefinition<&str, u64> = TableDefinition::new("counters");
// ---- users and sessions (the dashboard)
pub(crate) const USERS: TableDefinition<&str, &[u8]> = TableDefinition::new("users");
/// Lowercase e-mail -> user id (the uniqueness index).
pub(crate) const USER_EMAILS: TableDefinition<&str, &str> = TableDefinition::new("user_emails");
/// `account/user` -> ().
pub(crate) const ACCOUNT_USERS: TableDefinition<&str, ()> = TableDefinition::new("account_users");
/// SHA-256 of a password-setting token -> the token record.
pub(crate) const PASSWORD_TOKENS: TableDefinition<&str, &[u8]> =
    TableDefinition::new("password_tokens");
/// SHA-256 of a session id -> the session record.
pub(crate) const SESSIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("sessions");
/// `{expires micros, 20 digits}/{session hash}` -> (): expired sessions are
/// purged from the front of this index whenever a session is created.
pub(crate) const SESSION_EXPIRY: TableDefinition<&str, ()> = TableDefinition::new("session_expiry");
/// `user/session hash` -> (): a user's signed-in sessions.
pub(crate) const USER_SESSIONS: TableDefinition<&str, ()> = TableDefinition::new("user_sessions");
/// `{session hash}/{name}` -> value: a session's one-time flashes (removed
/// with the session).
pub(crate) const SESSION_FLASHES: TableDefinition<&str, &str> =
    TableDefinition::new("session_flashes");
/// Scan id -> JSON [`CrashRecord`]: the interruptions charged to its pages.
pub(crate) const CRASHES: TableDefinition<&str, &[u8]> = TableDefinition::new("crashes");
/// `{account}/{key hash}` -> [`IdempotencyRecord`] (JSON).
pub(crate) const IDEMPOTENCY: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency");
/// `{account}/{created µs, 16 hex}/{key hash}`: an account's keys oldest
/// first, to forget expired ones and the oldest past the cap.
pub(crate) const IDEMPOTENCY_ORDER: TableDefinition<&str, ()> =
    TableDefinition::new("idempotency_order");

/// redb's page cache (reads and the write buffer). Its default (1 GiB) let a
/// long-running service grow with every report stored; the records the
/// service reads often (keys, scans, queue) fit in far less.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

/// The embedded store and queue, over one redb database file.
///
/// The pages each scan is analysing are recorded beside it, one small file per
/// running scan in `<data-dir>/analysis/`, not in the database: they change
/// twice per page, and a redb commit syncs to disk (milliseconds) where a
/// write to an open file costs microseconds (see [`AnalysisFile`]). What
/// matters is surviving the process being killed (the OS keeps the file), not
/// a power loss.
#[derive(Clone)]
pub struct Embedded {
    pub(crate) db: Arc<Database>,
    /// `<data-dir>/analysis`: the pages in analysis per running scan.
    analysis_dir: Arc<PathBuf>,
    /// The open record of each scan analysing pages in this process.
    analysis_files: Arc<std::sync::Mutex<std::collections::HashMap<String, AnalysisFile>>>,
    /// Wakes a waiting `dequeue` when a job is enqueued.
    pub(crate) wake: Arc<Notify>,
    /// When this process last announced consumers that render (in memory:
    /// the API and the workers of the embedded service are one process).
    pub(crate) render_seen: Arc<std::sync::Mutex<Option<std::time::Instant>>>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded").finish_non_exhaustive()
    }
}

impl Embedded {
    /// The database file's name inside the data directory.
    pub const FILE_NAME: &'static str = "sitescan.redb";

    /// Opens (or creates) the store in `data_dir`, creating the directory too.
    /// Fails when another process holds the file.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir)?;
        let path = data_dir.join(Self::FILE_NAME);
        let db = redb::Builder::new()
            .set_cache_size(CACHE_BYTES)
            .create(&path)
            .map_err(|e| {
                Error::Storage(format!(
                    "cannot open {}: {e} (is another sitescan process using this data directory?)",
                    path.display()
                ))
            })?;
        let txn = db.begin_write().map_err(Error::storage)?;
        {
            txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            txn.open_table(KEYS).map_err(Error::storage)?;
            txn.open_table(KEY_HASHES).map_err(Error::storage)?;
            txn.open_table(SITES).map_err(Error::storage)?;
            txn.open_table(ACCOUNT_SITES).map_err(Error::storage)?;
            txn.open_table(SCANS).map_err(Error::storage)?;
            txn.open_table(SITE_SCANS).map_err(Error::storage)?;
            txn.open_table(QUOTAS).map_err(Error::storage)?;
            txn.open_table(REPORTS).map_err(Error::storage)?;
            txn.open_table(REPORT_CHUNKS).map_err(Error::storage)?;
            txn.open_table(SCREENSHOTS).map_err(Error::storage)?;
            txn.open_table(QUEUE_READY).map_err(Error::storage)?;
            txn.open_table(QUEUE_READY_RENDER).map_err(Error::storage)?;
            txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
            txn.open_table(QUEUE_DEAD).map_err(Error::storage)?;
            txn.open_table(COUNTERS).map_err(Error::storage)?;
            txn.open_table(WEBHOOKS).map_err(Error::storage)?;
            txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
            txn.open_table(DELIVERIES).map_err(Error::storage)?;
            txn.open_table(WEBHOOK_DELIVERIES).map_err(Error::storage)?;
            txn.open_table(OUTBOX_DUE).map_err(Error::storage)?;
            for table in [USERS, PASSWORD_TOKENS, SESSIONS] {
                txn.open_table(table).map_err(Error::storage)?;
            }
            txn.open_table(USER_EMAILS).map_err(Error::storage)?;
            txn.open_table(ACCOUNT_USERS).map_err(Error::storage)?;
            txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
            txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
            txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
            txn.open_table(CRASHES).map_err(Error::storage)?;
            txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
            txn.open_table(IDEMPOTENCY_ORDER).map_err(Error::storage)?;
            schedules::create_tables(&txn)?;
            credentials::create_tables(&txn)?;
            marks::create_tables(&txn)?;
        }
        txn.commit().map_err(Error::storage)?;
        let analysis_dir = data_dir.join("analysis");
        std::fs::create_dir_all(&analysis_dir)?;
        Ok(Embedded {
            db: Arc::new(db),
            analysis_dir: Arc::new(analysis_dir),
            analysis_files: Arc::default(),
            wake: Arc::new(Notify::new()),
            render_seen: Arc::default(),
        })
    }

    /// How many handles hold the database file open: each clone of this
    /// store, and each store call still running on the blocking pool. The
    /// file is released (another process, or a new [`Embedded::open`] in
    /// this one, may open it) once the last is dropped; a call whose caller
    /// was cancelled still runs to its end first.
    pub fn open_handles(&self) -> usize {
        Arc::strong_count(&self.db)
    }

    /// How many pictures (render mode's screenshots) the store holds, of all
    /// scans: each belongs to a completed scan's report (see
    /// [`Store::finish_scan`]).
    pub async fn screenshot_count(&self) -> Result<u64> {
        screenshots::count(self).await
    }

    /// Runs `f` on the blocking pool: redb calls block on disk I/O and fsync.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T> + Send + 'static,
    {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| Error::Storage(format!("storage task failed: {e}")))?
    }

    /// Runs `f` in one write transaction on the blocking pool and commits it
    /// when `f` succeeds (an error aborts it: nothing `f` wrote is kept).
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&redb::WriteTransaction) -> Result<T> + Send + 'static,
    {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let value = f(&txn)?;
            txn.commit().map_err(Error::storage)?;
            Ok(value)
        })
        .await
    }

    /// Runs `f` in one read transaction on the blocking pool.
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&redb::ReadTransaction) -> Result<T> + Send + 'static,
    {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            f(&txn)
        })
        .await
    }

    /// The file recording the pages of scan `id` in analysis.
    fn analysis_file(&self, id: &str) -> Result<PathBuf> {
        // Ids are ours (`new_id`), but a path is built from this one: refuse
        // anything that is not a plain file name.
        if id.is_empty()
            || !id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(not_found("scan", id));
        }
        Ok(self.analysis_dir.join(id))
    }
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::Corrupt(e.to_string()))
}

pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::Corrupt(e.to_string()))
}

/// Reads and decodes one JSON record.
fn get<T: DeserializeOwned>(
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<T>> {
    match table.get(id).map_err(Error::storage)? {
        Some(v) => decode(v.value()).map(Some),
        None => Ok(None),
    }
}

/// Removes record `id` from `table`, and its `account/id` entry from `index`,
/// when it belongs to `account_id` (read through `owner`). False when it is
/// missing or another account's: tenancy makes both a 404.
fn remove_owned<T: DeserializeOwned>(
    txn: &redb::WriteTransaction,
    table: TableDefinition<&str, &[u8]>,
    index: TableDefinition<&str, ()>,
    account_id: &str,
    id: &str,
    owner: impl Fn(&T) -> &str,
) -> Result<bool> {
    let mut records = txn.open_table(table).map_err(Error::storage)?;
    let record: Option<T> = get(&records, id)?;
    if record.is_none_or(|r| owner(&r) != account_id) {
        return Ok(false);
    }
    records.remove(id).map_err(Error::storage)?;
    let mut index = txn.open_table(index).map_err(Error::storage)?;
    index
        .remove(format!("{account_id}/{id}").as_str())
        .map_err(Error::storage)?;
    Ok(true)
}

/// Ids under `parent/` in an index table, in key order.
fn children(table: &impl ReadableTable<&'static str, ()>, parent: &str) -> Result<Vec<String>> {
    let start = format!("{parent}/");
    let end = format!("{parent}0"); // '0' sorts right after '/'
    let mut out = Vec::new();
    for entry in table
        .range::<&str>(start.as_str()..end.as_str())
        .map_err(Error::storage)?
    {
        let (k, _) = entry.map_err(Error::storage)?;
        if let Some((_, child)) = k.value().split_once('/') {
            out.push(child.to_string());
        }
    }
    Ok(out)
}

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        id: id.to_string(),
    }
}

#[async_trait]
impl Store for Embedded {
    // ---- keys

    async fn create_account(&self, account: Account) -> Result<Account> {
        keys::create_account(self, account).await
    }

    async fn account(&self, id: &str) -> Result<Option<Account>> {
        keys::account(self, id).await
    }

    async fn create_key(&self, key: ApiKey, secret_hash: &str) -> Result<ApiKey> {
        keys::create_key(self, key, secret_hash).await
    }

    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<ApiKey>> {
        keys::key_by_hash(self, secret_hash).await
    }

    async fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        keys::key(self, id).await
    }

    async fn list_keys(&self, account_id: Option<&str>) -> Result<Vec<ApiKey>> {
        keys::list_keys(self, account_id).await
    }

    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> Result<ApiKey> {
        keys::revoke_key(self, id, at).await
    }

    async fn record_key_use(&self, id: &str, at: DateTime<Utc>) -> Result<()> {
        keys::record_key_use(self, id, at).await
    }

    // ---- sites

    async fn create_site(&self, site: Site) -> Result<Site> {
        sites::create_site(self, site).await
    }

    async fn site(&self, account_id: &str, id: &str) -> Result<Option<Site>> {
        sites::site(self, account_id, id).await
    }

    async fn list_sites(&self, account_id: &str) -> Result<Vec<Site>> {
        sites::list_sites(self, account_id).await
    }

    async fn delete_site(&self, account_id: &str, id: &str) -> Result<bool> {
        sites::delete_site(self, account_id, id).await
    }

    async fn update_site(&self, site: Site) -> Result<Option<Site>> {
        sites::update_site(self, site).await
    }

    // ---- scans

    async fn create_scan_if_quota(
        &self,
        scan: Scan,
        day: NaiveDate,
        limit: Option<u32>,
    ) -> Result<Scan> {
        scans::create_scan_if_quota(self, scan, day, limit).await
    }

    async fn scans_created_on(&self, account_id: &str, day: NaiveDate) -> Result<u32> {
        scans::scans_created_on(self, account_id, day).await
    }

    async fn scan(&self, account_id: &str, id: &str) -> Result<Option<Scan>> {
        scans::scan(self, account_id, id).await
    }

    async fn scan_by_id(&self, id: &str) -> Result<Option<Scan>> {
        scans::scan_by_id(self, id).await
    }

    async fn list_scans(
        &self,
        account_id: &str,
        site_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<Scan>> {
        scans::list_scans(self, account_id, site_id, cursor, limit).await
    }

    async fn start_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        scans::start_scan(self, id, at).await
    }

    async fn resume_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        scans::resume_scan(self, id, at).await
    }

    async fn requeue_scan(&self, id: &str) -> Result<bool> {
        scans::requeue_scan(self, id, false).await
    }

    async fn hand_back_scan(&self, id: &str, refund: bool) -> Result<bool> {
        scans::requeue_scan(self, id, refund).await
    }

    async fn set_pages_in_analysis(&self, id: &str, pages: &[String]) -> Result<()> {
        scans::set_pages_in_analysis(self, id, pages).await
    }

    async fn charge_interruption(&self, id: &str) -> Result<Interruption> {
        scans::charge_interruption(self, id).await
    }

    async fn update_progress(&self, id: &str, progress: Progress) -> Result<ScanStatus> {
        scans::update_progress(self, id, progress).await
    }

    async fn finish_scan(&self, id: &str, outcome: ScanOutcome, at: DateTime<Utc>) -> Result<Scan> {
        scans::finish_scan(self, id, outcome, at).await
    }

    async fn cancel_scan(&self, account_id: &str, id: &str, at: DateTime<Utc>) -> Result<Scan> {
        scans::cancel_scan(self, account_id, id, at).await
    }

    // ---- reports

    async fn report_chunk(&self, scan_id: &str, index: u64) -> Result<Option<Vec<u8>>> {
        reports::report_chunk(self, scan_id, index).await
    }

    async fn screenshot(&self, scan_id: &str, shot_id: &str) -> Result<Option<Vec<u8>>> {
        screenshots::screenshot(self, scan_id, shot_id).await
    }

    // ---- scans

    async fn unfinished_scans(&self) -> Result<Vec<Scan>> {
        scans::unfinished_scans(self).await
    }

    // ---- mod

    async fn ping(&self) -> Result<()> {
        self.read(|txn| {
            let t = txn.open_table(COUNTERS).map_err(Error::storage)?;
            t.len().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    // ---- site credentials

    async fn put_credentials(&self, creds: super::StoredCredentials) -> Result<bool> {
        credentials::put_credentials(self, creds).await
    }

    async fn credentials(&self, site_id: &str) -> Result<Option<super::StoredCredentials>> {
        credentials::credentials(self, site_id).await
    }

    async fn delete_credentials(&self, site_id: &str) -> Result<bool> {
        credentials::delete_credentials(self, site_id).await
    }

    async fn any_credentials(&self) -> Result<bool> {
        credentials::any_credentials(self).await
    }

    // ---- triage marks

    async fn put_mark(&self, mark: super::SiteMark, max_per_site: usize) -> Result<super::MarkPut> {
        marks::put_mark(self, mark, max_per_site).await
    }

    async fn mark(
        &self,
        account_id: &str,
        site_id: &str,
        fingerprint: &str,
    ) -> Result<Option<super::SiteMark>> {
        marks::mark(self, account_id, site_id, fingerprint).await
    }

    async fn list_marks(&self, account_id: &str, site_id: &str) -> Result<Vec<super::SiteMark>> {
        marks::list_marks(self, account_id, site_id).await
    }

    async fn delete_mark(
        &self,
        account_id: &str,
        site_id: &str,
        fingerprint: &str,
    ) -> Result<bool> {
        marks::delete_mark(self, account_id, site_id, fingerprint).await
    }

    async fn delete_site_marks(&self, site_id: &str) -> Result<()> {
        marks::delete_site_marks(self, site_id).await
    }

    // ---- schedules

    async fn create_schedule(&self, schedule: super::Schedule) -> Result<super::Schedule> {
        schedules::create_schedule(self, schedule).await
    }

    async fn schedule(&self, account_id: &str, id: &str) -> Result<Option<super::Schedule>> {
        schedules::schedule(self, account_id, id).await
    }

    async fn list_schedules(
        &self,
        account_id: &str,
        site_id: &str,
    ) -> Result<Vec<super::Schedule>> {
        schedules::list_schedules(self, account_id, site_id).await
    }

    async fn update_schedule(&self, schedule: super::Schedule) -> Result<super::Schedule> {
        schedules::update_schedule(self, schedule).await
    }

    async fn delete_schedule(&self, account_id: &str, id: &str) -> Result<bool> {
        schedules::delete_schedule(self, account_id, id).await
    }

    async fn due_schedules(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<super::Schedule>> {
        schedules::due_schedules(self, now, limit).await
    }

    async fn claim_schedule_run(
        &self,
        id: &str,
        due_at: DateTime<Utc>,
        next_run_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) -> Result<Option<super::Schedule>> {
        schedules::claim_schedule_run(self, id, due_at, next_run_at, at).await
    }

    async fn record_schedule_outcome(
        &self,
        id: &str,
        run_at: DateTime<Utc>,
        outcome: super::RunOutcome,
    ) -> Result<()> {
        schedules::record_schedule_outcome(self, id, run_at, outcome).await
    }

    // ---- webhooks

    async fn create_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        webhooks::create_webhook(self, webhook).await
    }

    async fn webhook(&self, account_id: &str, id: &str) -> Result<Option<Webhook>> {
        webhooks::webhook(self, account_id, id).await
    }

    async fn webhook_by_id(&self, id: &str) -> Result<Option<Webhook>> {
        webhooks::webhook_by_id(self, id).await
    }

    async fn list_webhooks(&self, account_id: &str) -> Result<Vec<Webhook>> {
        webhooks::list_webhooks(self, account_id).await
    }

    async fn save_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        webhooks::save_webhook(self, webhook).await
    }

    async fn delete_webhook(&self, account_id: &str, id: &str) -> Result<bool> {
        webhooks::delete_webhook(self, account_id, id).await
    }

    async fn save_deliveries(&self, deliveries: Vec<Delivery>) -> Result<()> {
        webhooks::save_deliveries(self, deliveries).await
    }

    async fn delivery(&self, webhook_id: &str, id: &str) -> Result<Option<Delivery>> {
        webhooks::delivery(self, webhook_id, id).await
    }

    async fn list_deliveries(&self, webhook_id: &str, limit: usize) -> Result<Vec<Delivery>> {
        webhooks::list_deliveries(self, webhook_id, limit).await
    }

    async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        webhooks::claim_due_deliveries(self, now, lease_until, limit).await
    }

    // ---- idempotency

    async fn claim_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
        at: DateTime<Utc>,
    ) -> Result<IdempotencyClaim> {
        idempotency::claim_idempotency_key(self, account_id, key_hash, record, at).await
    }

    async fn complete_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
    ) -> Result<()> {
        idempotency::complete_idempotency_key(self, account_id, key_hash, record).await
    }

    async fn release_idempotency_key(&self, account_id: &str, key_hash: &str) -> Result<()> {
        idempotency::release_idempotency_key(self, account_id, key_hash).await
    }

    // ---- users

    async fn create_user(&self, user: User) -> Result<User> {
        users::create_user(self, user).await
    }

    async fn user(&self, id: &str) -> Result<Option<User>> {
        users::user(self, id).await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        users::user_by_email(self, email).await
    }

    async fn list_users(&self, account_id: Option<&str>) -> Result<Vec<User>> {
        users::list_users(self, account_id).await
    }

    async fn create_password_token(&self, token_hash: &str, token: PasswordToken) -> Result<()> {
        users::create_password_token(self, token_hash, token).await
    }

    async fn set_password_with_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<User>> {
        users::set_password_with_token(self, token_hash, password_hash, at).await
    }

    async fn create_session(&self, session_hash: &str, session: Session) -> Result<()> {
        users::create_session(self, session_hash, session).await
    }

    async fn session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<Option<Session>> {
        users::session(self, session_hash, at).await
    }

    async fn touch_session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<()> {
        users::touch_session(self, session_hash, at).await
    }

    async fn delete_session(&self, session_hash: &str) -> Result<()> {
        users::delete_session(self, session_hash).await
    }

    async fn put_flash(
        &self,
        session_hash: &str,
        name: &str,
        value: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        users::put_flash(self, session_hash, name, value, at).await
    }

    async fn take_flash(
        &self,
        session_hash: &str,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<String>> {
        users::take_flash(self, session_hash, name, at).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{AppliedConfig, Plan};

    /// A webhook record that no longer decodes must not block the scans of
    /// its account: the transition happens, the other webhooks get the event.
    #[tokio::test]
    async fn a_corrupt_webhook_record_does_not_block_a_transition() {
        let dir = tempfile::tempdir().unwrap();
        let store = Embedded::open(dir.path()).unwrap();
        let now = Utc::now();
        let acc = store
            .create_account(Account {
                id: new_id("acc").unwrap(),
                name: None,
                plan: Plan::Enterprise,
                created_at: now,
            })
            .await
            .unwrap();
        let good = Webhook {
            id: new_id("wh").unwrap(),
            account_id: acc.id.clone(),
            url: "https://hooks.example.com/".into(),
            events: vec!["scan.queued".into()],
            site_id: None,
            description: None,
            enabled: true,
            disabled_reason: None,
            secret: "whsec_1".into(),
            previous_secret: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        };
        let mut bad = good.clone();
        bad.id = new_id("wh").unwrap();
        store.create_webhook(bad.clone()).await.unwrap();
        store.create_webhook(good.clone()).await.unwrap();
        let bad_id = bad.id.clone();
        store
            .blocking(move |db| {
                let txn = db.begin_write().map_err(Error::storage)?;
                {
                    let mut t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
                    t.insert(bad_id.as_str(), b"{not json".as_slice())
                        .map_err(Error::storage)?;
                }
                txn.commit().map_err(Error::storage)
            })
            .await
            .unwrap();
        let scan = Scan {
            id: new_id("scan").unwrap(),
            site_id: "site_1".into(),
            account_id: acc.id.clone(),
            url: "https://example.com/".into(),
            status: ScanStatus::Queued,
            config: AppliedConfig {
                rules: vec!["seo".into()],
                priority: sitescan_engine::Priority::Normal,
                max_pages: 1,
                max_depth: 0,
                plan_max_pages: None,
                accept: None,
                budget: Default::default(),
                links: Default::default(),
                include: Vec::new(),
                exclude: Vec::new(),
                render: false,
                render_options: None,
            },
            progress: None,
            error: None,
            attempts: 0,
            created_at: now,
            started_at: None,
            finished_at: None,
            summary: None,
            quota_refunded: false,
            schedule_id: None,
            scheduled_for: None,
        };
        let created = store
            .create_scan_if_quota(scan, now.date_naive(), None)
            .await
            .unwrap();
        assert_eq!(created.status, ScanStatus::Queued);
        let log = store.list_deliveries(&good.id, 10).await.unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].event_type, "scan.queued");
        assert!(store.list_deliveries(&bad.id, 10).await.unwrap().is_empty());
    }
}
