//! [`Store`] on Redis, for the fleet: the API processes and the `sitescan worker`
//! daemons share one Redis and see the same records.
//!
//! Every key lives under a configurable prefix (`{prefix}:...`), so several
//! deployments (or tests) share a server without seeing each other. The layout:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `account:{id}` | string | the account (JSON) |
//! | `key:{id}` | hash | `json` (the key at creation), `account_id`, `revoked_at`, `last_used_at` |
//! | `key:{id}:usage` | hash | `YYYY-MM-DD` -> requests |
//! | `keyhash:{sha256}` | string | the key id |
//! | `keys`, `account:{id}:keys` | sorted set (lex) | key ids |
//! | `site:{id}` | hash | `json`, `account_id` |
//! | `account:{id}:sites` | sorted set (lex) | site ids |
//! | `scan:{id}` | hash | `json` (the scan as created), `account_id`, `status`, `attempts`, `started_at`, `finished_at`, `error`, `summary`, `refunded`, `p_done`/`p_queued`/`p_errors`/`p_phase`/`p_links_checked`/`p_links_total` |
//! | `scan:{id}:analysis` | set | URLs of the scan's pages in analysis now (a crash is charged to them) |
//! | `scan:{id}:crashes` | hash | `p:{url}` -> interruptions the page was in analysis at, `unattributed` -> those with none |
//! | `site:{id}:scans` | sorted set (lex) | scan ids (they sort by creation time) |
//! | `quota:{account}:{day}` | string | scans created that UTC day |
//! | `unfinished`, `running` | set | scan ids queued or running / running |
//! | `report:{id}` | list | the JSON report in chunks of [`REPORT_CHUNK`] bytes |
//! | `report:{id}:upload:{random}` | list | a report being appended chunk by chunk, renamed to `report:{id}` by the `finish` script (expires after an hour when its worker died) |
//! | `screenshots:{id}` | hash | render mode's pictures of the scan's report: picture id (`shot-N`, `thumb-N`) -> the encoded PNG or JPEG, kept as long as the report (written and deleted by the same `finish` script) |
//! | `screenshots:{id}:upload:{random}` | hash | pictures being uploaded, renamed to `screenshots:{id}` by the `finish` script that completes the scan, dropped by one that does not (expire after an hour when their worker died) |
//! | `stats` | hash | `completed`, `failed`, `canceled`, `pages` counters |
//! | `webhook:{id}` | string | the webhook (JSON) |
//! | `account:{id}:webhooks` | sorted set (lex) | webhook ids |
//! | `delivery:{id}` | string | the delivery (JSON; as written by a transition, the scan's fields instead of the body) |
//! | `webhook:{id}:deliveries` | sorted set (lex) | delivery ids (they sort by creation time) |
//! | `outbox` | sorted set | pending delivery ids scored by due time (µs since the epoch) |
//! | `user:{id}` | hash | `json` (the user at creation), `account_id`, `password_hash`, `password_set_at` |
//! | `useremail:{email}` | string | the user id (uniqueness of lowercase e-mails) |
//! | `users`, `account:{id}:users` | sorted set (lex) | user ids |
//! | `pwtoken:{sha256}` | string | the password-setting token (JSON), expiring with it |
//! | `session:{sha256}` | string | the dashboard session (JSON), expiring with it |
//! | `session:{sha256}:flash` | hash | the session's one-time flashes (name -> value), expiring with it |
//! | `user:{id}:sessions` | set | hashes of the user's signed-in sessions (ended when a password is set) |
//! | `idem:{account}` | sorted set | the account's `Idempotency-Key` hashes scored by first use (µs), expiring with the newest |
//! | `idem:{account}:{sha256}` | hash | `record` (JSON), `done` (0/1), `lease` (µs): one key, expiring 24 h after its first use |
//! | `schedule:{id}` | hash | `json` (its settings), `account_id`, `next` (µs; empty while disabled), `last_run` (µs), `outcome` (JSON) |
//! | `site:{id}:schedules` | sorted set (lex) | schedule ids |
//! | `credentials:{site}` | string | the site's credentials (JSON: their description and the sealed `SiteAuth`) |
//! | `credentials` | set | ids of the sites with credentials |
//! | `schedules:due` | sorted set | enabled schedule ids scored by their next run (µs) |
//! | `site:{id}:marks` | hash | fingerprint -> the triage mark (JSON) |
//!
//! Mutable scan fields are separate hash fields rather than one JSON value so
//! that each transition is a small Lua script comparing and setting plain
//! strings: `start`, `progress`, `finish` and `cancel` each run atomically on
//! the server, as does "count the quota and create the scan" — which is what
//! makes the per-day quota hold with several API processes on one Redis. The
//! same scripts write the webhook outbox entries of the transition
//! ([`OUTBOX_LUA`]), so a status change and its event are one atomic write.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sitescan_engine::Phase;

use super::{
    day_key, new_id, Account, ApiKey, Delivery, DeliveryStatus, Interruption, Page, Progress,
    ReportFile, Scan, ScanOutcome, ScanStatus, Site, Store, Webhook,
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
mod webhooks;

pub use super::REPORT_CHUNK;

/// Seconds a report upload (`report:{id}:upload:{n}`) is kept when its
/// worker dies before the `finish` script takes it.
const UPLOAD_TTL_SECS: i64 = 3600;

/// Days a per-day quota counter is kept.
const QUOTA_TTL_SECS: i64 = 40 * 24 * 3600;

/// How the Redis backend connects and behaves.
#[derive(Debug, Clone)]
pub struct RedisSettings {
    /// `redis://host:port/db` (or `rediss://`, `unix://`).
    pub url: String,
    /// Every key starts with `{prefix}:`.
    pub prefix: String,
    /// A delivered job not heartbeated for this long is reclaimed by another worker.
    pub visibility_timeout: Duration,
    /// Deliveries of a job before it goes to the dead-letter stream.
    pub max_attempts: u32,
    /// This process's consumer name in the stream consumer group.
    pub consumer: String,
}

impl RedisSettings {
    /// Settings with the defaults: prefix `sitescan`, visibility timeout
    /// [`DEFAULT_VISIBILITY_TIMEOUT`], [`DEFAULT_MAX_ATTEMPTS`] attempts, and a
    /// consumer name made of the host name, the process id and random digits.
    pub fn new(url: impl Into<String>) -> Result<Self> {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".to_string());
        let mut random = [0u8; 4];
        getrandom::getrandom(&mut random).map_err(Error::storage)?;
        Ok(RedisSettings {
            url: url.into(),
            prefix: "sitescan".to_string(),
            visibility_timeout: DEFAULT_VISIBILITY_TIMEOUT,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            consumer: format!("{host}-{}-{}", std::process::id(), hex::encode(random)),
        })
    }
}

/// Default visibility timeout of a delivered job (heartbeats renew it).
pub const DEFAULT_VISIBILITY_TIMEOUT: Duration = Duration::from_secs(300);
/// Default deliveries of a job before it is dead-lettered.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// The Redis backend of [`Store`] and [`crate::queue::Queue`]. Cheap to clone
/// (the connection manager is shared and reconnects by itself after an outage).
#[derive(Clone)]
pub struct RedisBackend {
    pub(crate) conn: ConnectionManager,
    pub(crate) settings: Arc<RedisSettings>,
    /// Opens the dedicated connections of blocking reads.
    pub(crate) client: redis::Client,
    /// Idle dedicated connections for blocking reads (`XREADGROUP BLOCK`
    /// would stall every command queued behind it on the shared one).
    pub(crate) blocking_conns: Arc<std::sync::Mutex<Vec<redis::aio::MultiplexedConnection>>>,
}

impl std::fmt::Debug for RedisBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBackend")
            .field("prefix", &self.settings.prefix)
            .field("consumer", &self.settings.consumer)
            .finish_non_exhaustive()
    }
}

/// Maps a Redis error to the daemon's error: `Unavailable` when Redis cannot
/// be reached (refused, dropped, timed out: worth retrying, the API answers
/// 503), `Storage` otherwise.
pub(crate) fn redis_err(e: redis::RedisError) -> Error {
    if e.is_io_error()
        || e.is_connection_refusal()
        || e.is_connection_dropped()
        || e.is_timeout()
        || e.is_unrecoverable_error()
    {
        Error::Unavailable(format!("redis: {e}"))
    } else {
        Error::Storage(format!("redis: {e}"))
    }
}

impl RedisBackend {
    /// Connects (waiting up to a few seconds for the first connection) and
    /// creates the queue's consumer group if it does not exist yet.
    pub async fn connect(settings: RedisSettings) -> Result<Self> {
        if settings.prefix.is_empty() || settings.prefix.contains(char::is_whitespace) {
            return Err(Error::Config(format!(
                "the Redis key prefix `{}` must be non-empty and without spaces",
                settings.prefix
            )));
        }
        if settings.max_attempts == 0 {
            return Err(Error::Config("max attempts must be at least 1".to_string()));
        }
        let client = redis::Client::open(settings.url.as_str())
            .map_err(|e| Error::Config(format!("invalid Redis URL `{}`: {e}", settings.url)))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(3)
            .set_max_delay(Duration::from_secs(2));
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|e| {
                Error::Unavailable(format!("cannot connect to Redis at {}: {e}", settings.url))
            })?;
        let backend = RedisBackend {
            conn,
            settings: Arc::new(settings),
            client,
            blocking_conns: Arc::default(),
        };
        backend.ensure_groups().await?;
        Ok(backend)
    }

    /// The settings it was made with.
    pub fn settings(&self) -> &RedisSettings {
        &self.settings
    }

    /// The name of a key: the deployment's prefix and `parts`, joined with
    /// `:` (`["scan", id, "analysis"]` is `{prefix}:scan:{id}:analysis`). The
    /// one place key names are built (the layout is the table above); the
    /// Lua scripts that build keys themselves take the prefix as an argument.
    pub(crate) fn key_name(&self, parts: &[&str]) -> String {
        let mut name = self.settings.prefix.clone();
        for part in parts {
            name.push(':');
            name.push_str(part);
        }
        name
    }

    /// A connection handle (clones share one multiplexed connection).
    pub(crate) fn c(&self) -> ConnectionManager {
        self.conn.clone()
    }

    /// Deletes every key under the prefix (tests' clean-up, `admin` resets).
    /// Returns how many keys were deleted.
    pub async fn delete_all(&self) -> Result<usize> {
        let mut conn = self.c();
        let pattern = format!("{}:*", self.settings.prefix);
        let mut keys: Vec<String> = Vec::new();
        {
            let mut iter: redis::AsyncIter<'_, String> =
                conn.scan_match(&pattern).await.map_err(redis_err)?;
            use futures::StreamExt;
            while let Some(k) = iter.next().await {
                keys.push(k.map_err(redis_err)?);
            }
        }
        let mut conn = self.c();
        for batch in keys.chunks(500) {
            let _: () = conn.del(batch).await.map_err(redis_err)?;
        }
        Ok(keys.len())
    }

    /// Counters of finished scans: completed, failed, canceled, and pages
    /// fetched by completed scans.
    pub async fn stats(&self) -> Result<StoreStats> {
        let mut conn = self.c();
        let (completed, failed, canceled, pages): (
            Option<u64>,
            Option<u64>,
            Option<u64>,
            Option<u64>,
        ) = redis::pipe()
            .hget(self.key_name(&["stats"]), "completed")
            .hget(self.key_name(&["stats"]), "failed")
            .hget(self.key_name(&["stats"]), "canceled")
            .hget(self.key_name(&["stats"]), "pages")
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        let running: u64 = conn
            .scard(self.key_name(&["running"]))
            .await
            .map_err(redis_err)?;
        Ok(StoreStats {
            running,
            completed: completed.unwrap_or(0),
            failed: failed.unwrap_or(0),
            canceled: canceled.unwrap_or(0),
            pages: pages.unwrap_or(0),
        })
    }
}

/// Counts of scans by outcome, for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Scans running now.
    pub running: u64,
    /// Scans completed (ever).
    pub completed: u64,
    /// Scans failed (ever).
    pub failed: u64,
    /// Scans canceled (ever).
    pub canceled: u64,
    /// Pages fetched by completed scans (ever).
    pub pages: u64,
}

fn json<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Corrupt(e.to_string()))
}

fn parse<T: DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::Corrupt(e.to_string()))
}

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        id: id.to_string(),
    }
}

fn status_from(s: &str) -> Result<ScanStatus> {
    Ok(match s {
        "queued" => ScanStatus::Queued,
        "running" => ScanStatus::Running,
        "completed" => ScanStatus::Completed,
        "failed" => ScanStatus::Failed,
        "canceled" => ScanStatus::Canceled,
        other => return Err(Error::Corrupt(format!("unknown scan status `{other}`"))),
    })
}

/// The `p_phase` field's value (the phase's wire name).
fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Crawl => "crawl",
        Phase::Links => "links",
        Phase::Finish => "finish",
    }
}

/// Rebuilds a scan from the flat field/value list of its hash.
fn scan_from_fields(fields: &[String]) -> Result<Scan> {
    let get = |name: &str| {
        fields
            .chunks(2)
            .find(|kv| kv.first().map(String::as_str) == Some(name))
            .and_then(|kv| kv.get(1))
            .filter(|v| !v.is_empty())
    };
    let base = get("json").ok_or_else(|| Error::Corrupt("scan without its record".into()))?;
    let mut scan: Scan = parse(base)?;
    if let Some(s) = get("status") {
        scan.status = status_from(s)?;
    }
    if let Some(a) = get("attempts") {
        scan.attempts = a
            .parse()
            .map_err(|_| Error::Corrupt(format!("bad attempts `{a}`")))?;
    }
    if let Some(s) = get("started_at") {
        scan.started_at = Some(parse(s)?);
    }
    if let Some(s) = get("finished_at") {
        scan.finished_at = Some(parse(s)?);
    }
    if let Some(s) = get("error") {
        scan.error = Some(s.clone());
    }
    if let Some(s) = get("summary") {
        scan.summary = Some(parse(s)?);
    }
    if get("refunded").is_some_and(|r| r == "1") {
        scan.quota_refunded = true;
    }
    if let Some(done) = get("p_done") {
        let num = |name: &str| -> Result<u64> {
            get(name)
                .map(|v| {
                    v.parse()
                        .map_err(|_| Error::Corrupt(format!("bad {name} `{v}`")))
                })
                .transpose()
                .map(|v| v.unwrap_or(0))
        };
        let phase = match get("p_phase").map(String::as_str) {
            None | Some("crawl") => Phase::Crawl,
            Some("links") => Phase::Links,
            Some("finish") => Phase::Finish,
            Some(other) => return Err(Error::Corrupt(format!("bad p_phase `{other}`"))),
        };
        scan.progress = Some(Progress {
            pages_done: done
                .parse()
                .map_err(|_| Error::Corrupt(format!("bad p_done `{done}`")))?,
            pages_queued: num("p_queued")?,
            errors: num("p_errors")?,
            phase,
            links_checked: num("p_links_checked")?,
            links_total: num("p_links_total")?,
        });
    }
    Ok(scan)
}

// ---- Lua scripts: one per transition, each atomic on the server.

/// The webhook outbox of the transition scripts: `emit_event` (see the file).
const OUTBOX_LUA: &str = include_str!("lua/outbox.lua");

/// A transition script: [`OUTBOX_LUA`] followed by `parts`.
fn transition(parts: &[&str]) -> Script {
    Script::new(&format!("{OUTBOX_LUA}{}", parts.concat()))
}

impl RedisBackend {
    /// The outbox arguments of a transition at `at`, with a fresh event id.
    fn event_args(&self, at: DateTime<Utc>) -> Result<EventArgs> {
        let event_id = new_id("evt")?;
        Ok(EventArgs {
            prefix: self.settings.prefix.clone(),
            digits: event_id
                .strip_prefix("evt_")
                .unwrap_or(&event_id)
                .to_string(),
            at: at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            at_us: at.timestamp_micros(),
        })
    }

    /// The string values of `keys` (`None` where a key is gone), read with
    /// one `MGET`: lists are read in one round trip, not one per item.
    async fn strings(&self, keys: &[String]) -> Result<Vec<Option<String>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        redis::cmd("MGET")
            .arg(keys)
            .query_async(&mut self.c())
            .await
            .map_err(redis_err)
    }

    /// The members of a sorted-set index (its key's parts), in order.
    async fn ids_of(&self, index: &[&str]) -> Result<Vec<String>> {
        let mut conn = self.c();
        conn.zrangebylex(self.key_name(index), "-", "+")
            .await
            .map_err(redis_err)
    }
}

/// The outbox arguments a transition script takes (see [`OUTBOX_LUA`]).
struct EventArgs {
    /// The key prefix (the script builds the webhook and delivery keys).
    prefix: String,
    /// The event id without `evt_`; delivery ids extend it.
    digits: String,
    /// The transition time, RFC 3339: the event's `created`.
    at: String,
    /// The transition time in µs since the epoch: the outbox score.
    at_us: i64,
}

#[async_trait]
impl Store for RedisBackend {
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

    async fn report(&self, scan_id: &str) -> Result<Option<Vec<u8>>> {
        reports::report(self, scan_id).await
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
        let mut conn = self.c();
        let _: String = redis::cmd("PING")
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
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
    use super::webhooks::delivery_from_stored;
    use super::*;
    use crate::store::{fixture, ScanSummary};
    use sitescan_engine::Priority;

    fn fields(pairs: &[(&str, String)]) -> Vec<String> {
        pairs
            .iter()
            .flat_map(|(k, v)| [k.to_string(), v.clone()])
            .collect()
    }

    #[test]
    fn a_scan_is_rebuilt_from_its_hash_fields() {
        let at = Utc::now();
        let mut base = fixture::scan("scan_1", "site_1", "acc_1", "https://example.com/");
        base.config.rules = vec!["seo".into()];
        base.config.priority = Priority::Low;
        base.created_at = at;
        let queued = scan_from_fields(&fields(&[("json", json(&base).unwrap())])).unwrap();
        assert_eq!(queued, base);
        let summary = ScanSummary {
            pages_fetched: 4,
            ..Default::default()
        };
        let done = scan_from_fields(&fields(&[
            ("json", json(&base).unwrap()),
            ("status", "completed".into()),
            ("attempts", "2".into()),
            ("started_at", json(&at).unwrap()),
            ("finished_at", json(&at).unwrap()),
            ("summary", json(&summary).unwrap()),
            ("p_done", "4".into()),
            ("p_queued", "0".into()),
            ("p_errors", "1".into()),
        ]))
        .unwrap();
        assert_eq!(done.status, ScanStatus::Completed);
        assert_eq!(done.attempts, 2);
        assert_eq!(done.started_at, Some(at));
        assert_eq!(done.summary, Some(summary));
        assert_eq!(
            done.progress,
            Some(Progress {
                pages_done: 4,
                pages_queued: 0,
                errors: 1,
                ..Progress::default()
            })
        );
    }

    #[test]
    fn corrupt_fields_are_errors_not_panics() {
        assert!(matches!(scan_from_fields(&[]), Err(Error::Corrupt(_))));
        let bad = fields(&[("json", "{".into())]);
        assert!(matches!(scan_from_fields(&bad), Err(Error::Corrupt(_))));
        let odd = vec!["json".to_string()];
        assert!(matches!(scan_from_fields(&odd), Err(Error::Corrupt(_))));
        assert!(matches!(status_from("paused"), Err(Error::Corrupt(_))));
    }

    #[test]
    fn a_delivery_written_by_a_script_gets_its_body_and_corrupt_ones_are_errors() {
        let at = "2026-01-02T03:04:05.123456Z";
        let scan = serde_json::json!({
            "id": "scan_1", "site_id": "site_1", "account_id": "acc_1",
            "url": "https://example.com/", "status": "queued",
            "config": {"rules": ["seo"], "priority": "normal", "max_pages": 5, "max_depth": 2},
            "created_at": at
        });
        let stored = serde_json::json!({
            "id": "dlv_0101", "webhook_id": "wh_1", "account_id": "acc_1",
            "event_id": "evt_01", "event_type": "scan.started", "status": "pending",
            "attempts": 0, "next_attempt_at": at, "created_at": at,
            "scan_fields": {"json": scan.to_string(), "status": "running", "attempts": "1",
                            "started_at": format!("\"{at}\""), "p_done": "0"}
        });
        let d = delivery_from_stored(&stored.to_string()).unwrap();
        let body: serde_json::Value = serde_json::from_str(&d.payload).unwrap();
        assert_eq!(body["id"], "evt_01");
        assert_eq!(body["type"], "scan.started");
        assert_eq!(body["created"], at);
        assert_eq!(body["data"]["status"], "running");
        assert_eq!(body["data"]["attempts"], 1);
        assert_eq!(body["data"]["links"]["self"], "/api/v1/scans/scan_1");
        assert!(d.attempt_log.is_empty());
        // Rendered once, stored as such: reading that back changes nothing.
        let again = delivery_from_stored(&json(&d).unwrap()).unwrap();
        assert_eq!(again, d);
        for bad in [
            "{".to_string(),
            stored.to_string().replace("\"event_id\":\"evt_01\",", ""),
            stored
                .to_string()
                .replace(&scan.to_string().replace('"', "\\\""), "{"),
        ] {
            assert!(
                matches!(delivery_from_stored(&bad), Err(Error::Corrupt(_))),
                "{bad}"
            );
        }
    }
}
