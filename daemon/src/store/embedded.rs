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
/// Ready jobs: order key (priority rank << 56 | sequence) -> scan id.
pub(crate) const QUEUE_READY: TableDefinition<u64, &str> = TableDefinition::new("queue_ready");
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

/// The interruptions of one scan, as [`Store::charge_interruption`] counts them.
#[derive(Debug, Default, Serialize, serde::Deserialize)]
struct CrashRecord {
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
struct AnalysisFile {
    file: std::fs::File,
    len: usize,
}

impl AnalysisFile {
    fn write(&mut self, mut text: Vec<u8>) -> std::io::Result<()> {
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
            txn.open_table(QUEUE_READY).map_err(Error::storage)?;
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
        }
        txn.commit().map_err(Error::storage)?;
        let analysis_dir = data_dir.join("analysis");
        std::fs::create_dir_all(&analysis_dir)?;
        Ok(Embedded {
            db: Arc::new(db),
            analysis_dir: Arc::new(analysis_dir),
            analysis_files: Arc::default(),
            wake: Arc::new(Notify::new()),
        })
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

    /// Starts (`count`: attempts + 1) or resumes a scan that is not terminal.
    async fn start_or_resume(
        &self,
        id: &str,
        at: DateTime<Utc>,
        count: bool,
    ) -> Result<Option<Scan>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
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
                write_event(&txn, scan, at)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(started)
        })
        .await
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

/// The outbox key of a pending delivery: sorts by due time.
fn due_key(d: &Delivery) -> Option<String> {
    match (d.status, d.next_attempt_at) {
        (DeliveryStatus::Pending, Some(at)) => {
            Some(format!("{:020}/{}", at.timestamp_micros().max(0), d.id))
        }
        _ => None,
    }
}

/// Saves deliveries (new or updated) in `txn`, with their delivery-log index
/// entry and their outbox entry (kept only while pending).
fn put_deliveries(txn: &redb::WriteTransaction, deliveries: &[Delivery]) -> Result<()> {
    let mut t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
    let mut index = txn.open_table(WEBHOOK_DELIVERIES).map_err(Error::storage)?;
    let mut due = txn.open_table(OUTBOX_DUE).map_err(Error::storage)?;
    for d in deliveries {
        let old: Option<Delivery> = get(&t, &d.id)?;
        if let Some(k) = old.as_ref().and_then(due_key) {
            due.remove(k.as_str()).map_err(Error::storage)?;
        }
        if let Some(k) = due_key(d) {
            due.insert(k.as_str(), ()).map_err(Error::storage)?;
        }
        t.insert(d.id.as_str(), encode(d)?.as_slice())
            .map_err(Error::storage)?;
        index
            .insert(format!("{}/{}", d.webhook_id, d.id).as_str(), ())
            .map_err(Error::storage)?;
    }
    Ok(())
}

/// The outbox half of a scan transition, inside the transition's own write
/// transaction: one pending delivery of the event "`scan` reached its status"
/// at `at` for each webhook of the account that wants it. Both commit
/// together or not at all, so a visible status always has its event.
fn write_event(txn: &redb::WriteTransaction, scan: &Scan, at: DateTime<Utc>) -> Result<()> {
    let hooks = {
        let index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
        let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
        let mut hooks = Vec::new();
        for id in children(&index, &scan.account_id)? {
            match get::<Webhook>(&t, &id) {
                Ok(Some(w)) => hooks.push(w),
                Ok(None) => {}
                // Undeliverable anyway: it must not block the scan's transition.
                Err(Error::Corrupt(e)) => {
                    tracing::warn!(webhook = %id, error = %e, "skipping a corrupt webhook record")
                }
                Err(e) => return Err(e),
            }
        }
        hooks
    };
    if hooks.is_empty() {
        return Ok(());
    }
    let event_id = new_id("evt")?;
    let deliveries = crate::webhooks::event_deliveries(&hooks, scan, &event_id, at)?;
    put_deliveries(txn, &deliveries)
}

/// The [`IDEMPOTENCY_ORDER`] key of a record.
fn idempotency_order_key(account_id: &str, key_hash: &str, record: &IdempotencyRecord) -> String {
    let us = record.created_at.timestamp_micros().max(0) as u64;
    format!("{account_id}/{us:016x}/{key_hash}")
}

/// Gives a scan back to its account's quota of the day it was created (in
/// the caller's transaction): canceled while queued, or failed before its
/// first page. Marks it so that it is never given back twice.
fn refund_quota(txn: &redb::WriteTransaction, scan: &mut Scan) -> Result<()> {
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

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        id: id.to_string(),
    }
}

#[async_trait]
impl Store for Embedded {
    async fn create_account(&self, account: Account) -> Result<Account> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut t = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
                t.insert(account.id.as_str(), encode(&account)?.as_slice())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(account)
        })
        .await
    }

    async fn account(&self, id: &str) -> Result<Option<Account>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn create_key(&self, key: ApiKey, secret_hash: &str) -> Result<ApiKey> {
        let hash = secret_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
                if accounts
                    .get(key.account_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("account", &key.account_id));
                }
                let mut keys = txn.open_table(KEYS).map_err(Error::storage)?;
                keys.insert(key.id.as_str(), encode(&key)?.as_slice())
                    .map_err(Error::storage)?;
                let mut hashes = txn.open_table(KEY_HASHES).map_err(Error::storage)?;
                hashes
                    .insert(hash.as_str(), key.id.as_str())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(key)
        })
        .await
    }

    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<ApiKey>> {
        let hash = secret_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let hashes = txn.open_table(KEY_HASHES).map_err(Error::storage)?;
            let Some(id) = hashes.get(hash.as_str()).map_err(Error::storage)? else {
                return Ok(None);
            };
            let keys = txn.open_table(KEYS).map_err(Error::storage)?;
            get(&keys, id.value())
        })
        .await
    }

    async fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(KEYS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn list_keys(&self, account_id: Option<&str>) -> Result<Vec<ApiKey>> {
        let account_id = account_id.map(str::to_string);
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(KEYS).map_err(Error::storage)?;
            let mut out = Vec::new();
            for entry in t.iter().map_err(Error::storage)? {
                let (_, v) = entry.map_err(Error::storage)?;
                let key: ApiKey = decode(v.value())?;
                if account_id.as_deref().is_none_or(|a| a == key.account_id) {
                    out.push(key);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> Result<ApiKey> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let key = {
                let mut t = txn.open_table(KEYS).map_err(Error::storage)?;
                let mut key: ApiKey = get(&t, &id)?.ok_or_else(|| not_found("key", &id))?;
                if key.revoked_at.is_none() {
                    key.revoked_at = Some(at);
                    t.insert(id.as_str(), encode(&key)?.as_slice())
                        .map_err(Error::storage)?;
                }
                key
            };
            txn.commit().map_err(Error::storage)?;
            Ok(key)
        })
        .await
    }

    async fn record_key_use(&self, id: &str, at: DateTime<Utc>) -> Result<()> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut t = txn.open_table(KEYS).map_err(Error::storage)?;
                let mut key: ApiKey = get(&t, &id)?.ok_or_else(|| not_found("key", &id))?;
                key.last_used_at = Some(at);
                *key.usage.entry(day_key(at)).or_insert(0) += 1;
                t.insert(id.as_str(), encode(&key)?.as_slice())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn create_site(&self, site: Site) -> Result<Site> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
                if accounts
                    .get(site.account_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("account", &site.account_id));
                }
                let mut sites = txn.open_table(SITES).map_err(Error::storage)?;
                sites
                    .insert(site.id.as_str(), encode(&site)?.as_slice())
                    .map_err(Error::storage)?;
                let mut index = txn.open_table(ACCOUNT_SITES).map_err(Error::storage)?;
                index
                    .insert(format!("{}/{}", site.account_id, site.id).as_str(), ())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(site)
        })
        .await
    }

    async fn site(&self, account_id: &str, id: &str) -> Result<Option<Site>> {
        let (account_id, id) = (account_id.to_string(), id.to_string());
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(SITES).map_err(Error::storage)?;
            let site: Option<Site> = get(&t, &id)?;
            Ok(site.filter(|s| s.account_id == account_id))
        })
        .await
    }

    async fn list_sites(&self, account_id: &str) -> Result<Vec<Site>> {
        let account_id = account_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let index = txn.open_table(ACCOUNT_SITES).map_err(Error::storage)?;
            let sites = txn.open_table(SITES).map_err(Error::storage)?;
            let mut out = Vec::new();
            for id in children(&index, &account_id)? {
                if let Some(site) = get::<Site>(&sites, &id)? {
                    out.push(site);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn delete_site(&self, account_id: &str, id: &str) -> Result<bool> {
        let (account_id, id) = (account_id.to_string(), id.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let found = remove_owned(&txn, SITES, ACCOUNT_SITES, &account_id, &id, |s: &Site| {
                &s.account_id
            })?;
            txn.commit().map_err(Error::storage)?;
            Ok(found)
        })
        .await
    }

    async fn create_scan_if_quota(
        &self,
        scan: Scan,
        day: NaiveDate,
        limit: Option<u32>,
    ) -> Result<Scan> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
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
            write_event(&txn, &scan, scan.created_at)?;
            txn.commit().map_err(Error::storage)?;
            Ok(scan)
        })
        .await
    }

    async fn scans_created_on(&self, account_id: &str, day: NaiveDate) -> Result<u32> {
        let key = format!("{account_id}/{}", day.format("%Y-%m-%d"));
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(QUOTAS).map_err(Error::storage)?;
            Ok(t.get(key.as_str())
                .map_err(Error::storage)?
                .map(|v| v.value())
                .unwrap_or(0))
        })
        .await
    }

    async fn scan(&self, account_id: &str, id: &str) -> Result<Option<Scan>> {
        let account_id = account_id.to_string();
        Ok(self
            .scan_by_id(id)
            .await?
            .filter(|s| s.account_id == account_id))
    }

    async fn scan_by_id(&self, id: &str) -> Result<Option<Scan>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(SCANS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn list_scans(
        &self,
        account_id: &str,
        site_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<Scan>> {
        let (account_id, site_id) = (account_id.to_string(), site_id.to_string());
        let cursor = cursor.map(str::to_string);
        let limit = limit.max(1);
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
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

    async fn start_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        self.start_or_resume(id, at, true).await
    }

    async fn resume_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        self.start_or_resume(id, at, false).await
    }

    async fn requeue_scan(&self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.write(move |txn| {
            let mut scan = {
                let t = txn.open_table(SCANS).map_err(Error::storage)?;
                match get::<Scan>(&t, &id)? {
                    Some(scan) if scan.status == ScanStatus::Running => scan,
                    _ => return Ok(false),
                }
            };
            scan.status = ScanStatus::Queued;
            txn.open_table(SCANS)
                .map_err(Error::storage)?
                .insert(id.as_str(), encode(&scan)?.as_slice())
                .map_err(Error::storage)?;
            write_event(txn, &scan, Utc::now())?;
            Ok(true)
        })
        .await
    }

    async fn set_pages_in_analysis(&self, id: &str, pages: &[String]) -> Result<()> {
        let path = self.analysis_file(id)?;
        let text: String = pages.iter().flat_map(|p| [p.as_str(), "\n"]).collect();
        let mut files = self
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

    async fn charge_interruption(&self, id: &str) -> Result<Interruption> {
        let path = self.analysis_file(id)?;
        // A record still open here belongs to a run of this process that
        // ended without clearing it; the file is read and removed below.
        self.analysis_files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
        let id = id.to_string();
        self.blocking(move |db| {
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

    async fn update_progress(&self, id: &str, progress: Progress) -> Result<ScanStatus> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
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
            txn.commit().map_err(Error::storage)?;
            Ok(status)
        })
        .await
    }

    async fn finish_scan(&self, id: &str, outcome: ScanOutcome, at: DateTime<Utc>) -> Result<Scan> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let (scan, changed) = {
                let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
                let mut scan: Scan = get(&t, &id)?.ok_or_else(|| not_found("scan", &id))?;
                let changed = !scan.status.is_terminal();
                if changed {
                    match outcome {
                        ScanOutcome::Completed { summary, report } => {
                            scan.status = ScanStatus::Completed;
                            if let Some(p) = scan.progress.as_mut() {
                                p.pages_done = summary.pages_fetched;
                                p.pages_queued = 0;
                            }
                            scan.summary = Some(summary);
                            // Chunk by chunk from the file: one chunk in memory.
                            let mut chunks =
                                txn.open_table(REPORT_CHUNKS).map_err(Error::storage)?;
                            let mut index = 0;
                            while let Some(chunk) = report.chunk(index)? {
                                chunks
                                    .insert((id.as_str(), index), chunk.as_slice())
                                    .map_err(Error::storage)?;
                                index += 1;
                            }
                        }
                        ScanOutcome::Failed { error } => {
                            scan.status = ScanStatus::Failed;
                            scan.error = Some(error);
                            if scan.progress.is_none_or(|p| p.pages_done == 0) {
                                refund_quota(&txn, &mut scan)?;
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
                write_event(&txn, &scan, at)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(scan)
        })
        .await
    }

    async fn cancel_scan(&self, account_id: &str, id: &str, at: DateTime<Utc>) -> Result<Scan> {
        let (account_id, id) = (account_id.to_string(), id.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let (scan, changed) = {
                let mut t = txn.open_table(SCANS).map_err(Error::storage)?;
                let mut scan: Scan = get::<Scan>(&t, &id)?
                    .filter(|s| s.account_id == account_id)
                    .ok_or_else(|| not_found("scan", &id))?;
                let changed = matches!(scan.status, ScanStatus::Queued | ScanStatus::Running);
                match scan.status {
                    ScanStatus::Queued | ScanStatus::Running => {
                        if scan.status == ScanStatus::Queued {
                            refund_quota(&txn, &mut scan)?;
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
                write_event(&txn, &scan, at)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(scan)
        })
        .await
    }

    async fn report_chunk(&self, scan_id: &str, index: u64) -> Result<Option<Vec<u8>>> {
        let id = scan_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
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

    async fn unfinished_scans(&self) -> Result<Vec<Scan>> {
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
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

    async fn ping(&self) -> Result<()> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(COUNTERS).map_err(Error::storage)?;
            t.len().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn create_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
                if accounts
                    .get(webhook.account_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("account", &webhook.account_id));
                }
                let mut t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
                t.insert(webhook.id.as_str(), encode(&webhook)?.as_slice())
                    .map_err(Error::storage)?;
                let mut index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
                index
                    .insert(
                        format!("{}/{}", webhook.account_id, webhook.id).as_str(),
                        (),
                    )
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(webhook)
        })
        .await
    }

    async fn webhook(&self, account_id: &str, id: &str) -> Result<Option<Webhook>> {
        let account_id = account_id.to_string();
        Ok(self
            .webhook_by_id(id)
            .await?
            .filter(|w| w.account_id == account_id))
    }

    async fn webhook_by_id(&self, id: &str) -> Result<Option<Webhook>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn list_webhooks(&self, account_id: &str) -> Result<Vec<Webhook>> {
        let account_id = account_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
            let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
            let mut out = Vec::new();
            for id in children(&index, &account_id)? {
                if let Some(w) = get::<Webhook>(&t, &id)? {
                    out.push(w);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn save_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
                if t.get(webhook.id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("webhook", &webhook.id));
                }
                t.insert(webhook.id.as_str(), encode(&webhook)?.as_slice())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(webhook)
        })
        .await
    }

    async fn delete_webhook(&self, account_id: &str, id: &str) -> Result<bool> {
        let (account_id, id) = (account_id.to_string(), id.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let found = remove_owned(
                &txn,
                WEBHOOKS,
                ACCOUNT_WEBHOOKS,
                &account_id,
                &id,
                |w: &Webhook| &w.account_id,
            )?;
            txn.commit().map_err(Error::storage)?;
            Ok(found)
        })
        .await
    }

    async fn save_deliveries(&self, deliveries: Vec<Delivery>) -> Result<()> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            put_deliveries(&txn, &deliveries)?;
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn delivery(&self, webhook_id: &str, id: &str) -> Result<Option<Delivery>> {
        let (webhook_id, id) = (webhook_id.to_string(), id.to_string());
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
            let d: Option<Delivery> = get(&t, &id)?;
            Ok(d.filter(|d| d.webhook_id == webhook_id))
        })
        .await
    }

    async fn list_deliveries(&self, webhook_id: &str, limit: usize) -> Result<Vec<Delivery>> {
        let webhook_id = webhook_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let index = txn.open_table(WEBHOOK_DELIVERIES).map_err(Error::storage)?;
            let t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
            let mut out = Vec::new();
            for id in children(&index, &webhook_id)?.iter().rev().take(limit) {
                if let Some(d) = get::<Delivery>(&t, id)? {
                    out.push(d);
                }
            }
            Ok(out)
        })
        .await
    }

    async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let mut claimed = Vec::new();
            {
                let mut t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
                let mut due = txn.open_table(OUTBOX_DUE).map_err(Error::storage)?;
                let end = format!("{:020}0", now.timestamp_micros().max(0));
                let mut keys = Vec::new();
                for entry in due.range::<&str>(..end.as_str()).map_err(Error::storage)? {
                    let (k, _) = entry.map_err(Error::storage)?;
                    keys.push(k.value().to_string());
                    if keys.len() >= limit {
                        break;
                    }
                }
                for k in keys {
                    due.remove(k.as_str()).map_err(Error::storage)?;
                    let Some((_, id)) = k.split_once('/') else {
                        continue;
                    };
                    let Some(mut d) = get::<Delivery>(&t, id)? else {
                        continue;
                    };
                    d.next_attempt_at = Some(lease_until);
                    if let Some(nk) = due_key(&d) {
                        due.insert(nk.as_str(), ()).map_err(Error::storage)?;
                    }
                    t.insert(d.id.as_str(), encode(&d)?.as_slice())
                        .map_err(Error::storage)?;
                    claimed.push(d);
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(claimed)
        })
        .await
    }

    async fn claim_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
        at: DateTime<Utc>,
    ) -> Result<IdempotencyClaim> {
        let (account_id, key_hash) = (account_id.to_string(), key_hash.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let claim = {
                let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
                let mut order = txn.open_table(IDEMPOTENCY_ORDER).map_err(Error::storage)?;
                // The account's keys, oldest first (at most the cap plus one).
                let (start, end) = (format!("{account_id}/"), format!("{account_id}0"));
                let mut kept: Vec<(String, i64)> = Vec::new();
                for entry in order
                    .range::<&str>(start.as_str()..end.as_str())
                    .map_err(Error::storage)?
                {
                    let (k, _) = entry.map_err(Error::storage)?;
                    let k = k.value().to_string();
                    let us = k
                        .split('/')
                        .nth(1)
                        .and_then(|h| i64::from_str_radix(h, 16).ok())
                        .unwrap_or(0);
                    kept.push((k, us));
                }
                let cutoff = (at - IDEMPOTENCY_TTL).timestamp_micros();
                let expired = kept.iter().take_while(|(_, us)| *us < cutoff).count();
                fn forget(
                    order: &mut redb::Table<&str, ()>,
                    records: &mut redb::Table<&str, &[u8]>,
                    account_id: &str,
                    k: &str,
                ) -> Result<()> {
                    order.remove(k).map_err(Error::storage)?;
                    if let Some(hash) = k.rsplit('/').next() {
                        records
                            .remove(format!("{account_id}/{hash}").as_str())
                            .map_err(Error::storage)?;
                    }
                    Ok(())
                }
                for (k, _) in &kept[..expired] {
                    forget(&mut order, &mut records, &account_id, k)?;
                }
                let kept = &kept[expired..];
                let id = format!("{account_id}/{key_hash}");
                let existing: Option<IdempotencyRecord> = get(&records, &id)?;
                match existing {
                    Some(r) if r.response.is_some() || r.lease_until > at => {
                        IdempotencyClaim::Existing(r)
                    }
                    stale => {
                        let stale_key =
                            stale.map(|r| idempotency_order_key(&account_id, &key_hash, &r));
                        let others: Vec<&String> = kept
                            .iter()
                            .map(|(k, _)| k)
                            .filter(|k| Some(*k) != stale_key.as_ref())
                            .collect();
                        if let Some(k) = &stale_key {
                            forget(&mut order, &mut records, &account_id, k)?;
                        }
                        // Room for this one under the cap: the oldest go.
                        let over = (others.len() + 1).saturating_sub(MAX_IDEMPOTENCY_KEYS);
                        for k in others.iter().take(over) {
                            forget(&mut order, &mut records, &account_id, k)?;
                        }
                        records
                            .insert(id.as_str(), encode(&record)?.as_slice())
                            .map_err(Error::storage)?;
                        order
                            .insert(
                                idempotency_order_key(&account_id, &key_hash, &record).as_str(),
                                (),
                            )
                            .map_err(Error::storage)?;
                        IdempotencyClaim::Claimed
                    }
                }
            };
            txn.commit().map_err(Error::storage)?;
            Ok(claim)
        })
        .await
    }

    async fn complete_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
    ) -> Result<()> {
        let id = format!("{account_id}/{key_hash}");
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
                let held: Option<IdempotencyRecord> = get(&records, &id)?;
                // Only the claim it answers (same first use), never one that
                // replaced it after the lease passed.
                if held.is_some_and(|h| h.created_at == record.created_at) {
                    records
                        .insert(id.as_str(), encode(&record)?.as_slice())
                        .map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn release_idempotency_key(&self, account_id: &str, key_hash: &str) -> Result<()> {
        let (account_id, key_hash) = (account_id.to_string(), key_hash.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
                let id = format!("{account_id}/{key_hash}");
                let held: Option<IdempotencyRecord> = get(&records, &id)?;
                if let Some(r) = held {
                    records.remove(id.as_str()).map_err(Error::storage)?;
                    let mut order = txn.open_table(IDEMPOTENCY_ORDER).map_err(Error::storage)?;
                    order
                        .remove(idempotency_order_key(&account_id, &key_hash, &r).as_str())
                        .map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    // ---- users and sessions (the dashboard)

    async fn create_user(&self, user: User) -> Result<User> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
                if accounts
                    .get(user.account_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("account", &user.account_id));
                }
                let mut emails = txn.open_table(USER_EMAILS).map_err(Error::storage)?;
                let email = user.email.to_lowercase();
                if emails
                    .get(email.as_str())
                    .map_err(Error::storage)?
                    .is_some()
                {
                    return Err(Error::Conflict(format!(
                        "a user with the e-mail `{email}` already exists"
                    )));
                }
                emails
                    .insert(email.as_str(), user.id.as_str())
                    .map_err(Error::storage)?;
                let mut users = txn.open_table(USERS).map_err(Error::storage)?;
                users
                    .insert(user.id.as_str(), encode(&user)?.as_slice())
                    .map_err(Error::storage)?;
                let mut index = txn.open_table(ACCOUNT_USERS).map_err(Error::storage)?;
                index
                    .insert(format!("{}/{}", user.account_id, user.id).as_str(), ())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(user)
        })
        .await
    }

    async fn user(&self, id: &str) -> Result<Option<User>> {
        let id = id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(USERS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let email = email.trim().to_lowercase();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let emails = txn.open_table(USER_EMAILS).map_err(Error::storage)?;
            let Some(id) = emails
                .get(email.as_str())
                .map_err(Error::storage)?
                .map(|v| v.value().to_string())
            else {
                return Ok(None);
            };
            let t = txn.open_table(USERS).map_err(Error::storage)?;
            get(&t, &id)
        })
        .await
    }

    async fn list_users(&self, account_id: Option<&str>) -> Result<Vec<User>> {
        let account_id = account_id.map(str::to_string);
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(USERS).map_err(Error::storage)?;
            let mut out: Vec<User> = match &account_id {
                Some(acc) => {
                    let index = txn.open_table(ACCOUNT_USERS).map_err(Error::storage)?;
                    let mut out = Vec::new();
                    for id in children(&index, acc)? {
                        if let Some(u) = get::<User>(&t, &id)? {
                            out.push(u);
                        }
                    }
                    out
                }
                None => {
                    let mut out = Vec::new();
                    for entry in t.iter().map_err(Error::storage)? {
                        let (_, v) = entry.map_err(Error::storage)?;
                        out.push(decode::<User>(v.value())?);
                    }
                    out
                }
            };
            // Ids sort by creation time.
            out.sort_by(|a, b| a.id.cmp(&b.id));
            Ok(out)
        })
        .await
    }

    async fn create_password_token(&self, token_hash: &str, token: PasswordToken) -> Result<()> {
        let token_hash = token_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let users = txn.open_table(USERS).map_err(Error::storage)?;
                if users
                    .get(token.user_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    return Err(not_found("user", &token.user_id));
                }
                let mut t = txn.open_table(PASSWORD_TOKENS).map_err(Error::storage)?;
                t.insert(token_hash.as_str(), encode(&token)?.as_slice())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn set_password_with_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<User>> {
        let (token_hash, password_hash) = (token_hash.to_string(), password_hash.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let user = {
                let mut tokens = txn.open_table(PASSWORD_TOKENS).map_err(Error::storage)?;
                let token: Option<PasswordToken> = get(&tokens, &token_hash)?;
                let Some(token) = token else {
                    return Ok(None);
                };
                // Used once, valid or not: an expired token is cleaned up too.
                tokens.remove(token_hash.as_str()).map_err(Error::storage)?;
                let mut users = txn.open_table(USERS).map_err(Error::storage)?;
                let user: Option<User> = get(&users, &token.user_id)?;
                match user {
                    Some(mut user) if token.expires_at > at => {
                        user.password_hash = Some(password_hash);
                        user.password_set_at = Some(at);
                        users
                            .insert(user.id.as_str(), encode(&user)?.as_slice())
                            .map_err(Error::storage)?;
                        let signed_in = {
                            let index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
                            children(&index, &user.id)?
                        };
                        for hash in signed_in {
                            remove_session(&txn, &hash)?;
                        }
                        Some(user)
                    }
                    _ => None,
                }
            };
            txn.commit().map_err(Error::storage)?;
            Ok(user)
        })
        .await
    }

    async fn create_session(&self, session_hash: &str, session: Session) -> Result<()> {
        let session_hash = session_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                // Purge what expired, a bounded number per call.
                let now = format!("{:020}0", Utc::now().timestamp_micros().max(0));
                let mut gone = Vec::new();
                {
                    let expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
                    for entry in expiry
                        .range::<&str>(..now.as_str())
                        .map_err(Error::storage)?
                        .take(100)
                    {
                        let (k, _) = entry.map_err(Error::storage)?;
                        gone.push(k.value().to_string());
                    }
                }
                for k in gone {
                    if let Some((_, hash)) = k.split_once('/') {
                        remove_session(&txn, hash)?;
                    }
                }
                let mut sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
                let mut expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
                sessions
                    .insert(session_hash.as_str(), encode(&session)?.as_slice())
                    .map_err(Error::storage)?;
                expiry
                    .insert(session_expiry_key(&session, &session_hash).as_str(), ())
                    .map_err(Error::storage)?;
                if let Some(user_id) = &session.user_id {
                    let mut index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
                    index
                        .insert(format!("{user_id}/{session_hash}").as_str(), ())
                        .map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<Option<Session>> {
        let session_hash = session_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let t = txn.open_table(SESSIONS).map_err(Error::storage)?;
            let session: Option<Session> = get(&t, &session_hash)?;
            Ok(session.filter(|s| s.expires_at > at))
        })
        .await
    }

    async fn touch_session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<()> {
        let session_hash = session_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut t = txn.open_table(SESSIONS).map_err(Error::storage)?;
                let session: Option<Session> = get(&t, &session_hash)?;
                if let Some(mut session) = session {
                    session.last_seen_at = at;
                    t.insert(session_hash.as_str(), encode(&session)?.as_slice())
                        .map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn delete_session(&self, session_hash: &str) -> Result<()> {
        let session_hash = session_hash.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            remove_session(&txn, &session_hash)?;
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn put_flash(
        &self,
        session_hash: &str,
        name: &str,
        value: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let key = format!("{session_hash}/{name}");
        let (session_hash, value) = (session_hash.to_string(), value.to_string());
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let live = {
                let sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
                let session: Option<Session> = get(&sessions, &session_hash)?;
                session.is_some_and(|s| s.expires_at > at)
            };
            if live {
                let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
                flashes
                    .insert(key.as_str(), value.as_str())
                    .map_err(Error::storage)?;
            }
            txn.commit().map_err(Error::storage)?;
            Ok(live)
        })
        .await
    }

    async fn take_flash(
        &self,
        session_hash: &str,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<String>> {
        let key = format!("{session_hash}/{name}");
        let session_hash = session_hash.to_string();
        // One write transaction at a time: the read-and-remove is atomic.
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            let taken = {
                let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
                let value = flashes
                    .remove(key.as_str())
                    .map_err(Error::storage)?
                    .map(|v| v.value().to_string());
                value
            };
            let live = {
                let sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
                let session: Option<Session> = get(&sessions, &session_hash)?;
                session.is_some_and(|s| s.expires_at > at)
            };
            txn.commit().map_err(Error::storage)?;
            Ok(taken.filter(|_| live))
        })
        .await
    }
}

/// Removes a session and its index entries (no-op when gone).
fn remove_session(txn: &redb::WriteTransaction, hash: &str) -> Result<()> {
    let mut sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
    let session: Option<Session> = get(&sessions, hash)?;
    let Some(session) = session else {
        return Ok(());
    };
    sessions.remove(hash).map_err(Error::storage)?;
    let mut expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
    expiry
        .remove(session_expiry_key(&session, hash).as_str())
        .map_err(Error::storage)?;
    if let Some(user_id) = &session.user_id {
        let mut index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
        index
            .remove(format!("{user_id}/{hash}").as_str())
            .map_err(Error::storage)?;
    }
    let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
    let (start, end) = (format!("{hash}/"), format!("{hash}0")); // '0' sorts right after '/'
    flashes
        .retain_in::<&str, _>(start.as_str()..end.as_str(), |_, _| false)
        .map_err(Error::storage)?;
    Ok(())
}

/// The [`SESSION_EXPIRY`] key of a session: sorts by expiry time.
fn session_expiry_key(session: &Session, hash: &str) -> String {
    format!(
        "{:020}/{hash}",
        session.expires_at.timestamp_micros().max(0)
    )
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
            },
            progress: None,
            error: None,
            attempts: 0,
            created_at: now,
            started_at: None,
            finished_at: None,
            summary: None,
            quota_refunded: false,
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
