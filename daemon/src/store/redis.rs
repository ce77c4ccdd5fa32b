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
    /// Starts (`count`: attempts + 1) or resumes a queued or running scan.
    async fn start_or_resume(
        &self,
        id: &str,
        at: DateTime<Utc>,
        count: bool,
    ) -> Result<Option<Scan>> {
        let event = self.event_args(at)?;
        let mut conn = self.c();
        let fields: Option<Vec<String>> = START_SCAN
            .key(self.k(&format!("scan:{id}")))
            .key(self.k("running"))
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

    /// `{prefix}:{rest}`.
    pub(crate) fn k(&self, rest: &str) -> String {
        format!("{}:{rest}", self.settings.prefix)
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
            .hget(self.k("stats"), "completed")
            .hget(self.k("stats"), "failed")
            .hget(self.k("stats"), "canceled")
            .hget(self.k("stats"), "pages")
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        let running: u64 = conn.scard(self.k("running")).await.map_err(redis_err)?;
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

fn key_from_fields(fields: &[String], usage: Vec<(String, u64)>) -> Result<ApiKey> {
    let get = |name: &str| {
        fields
            .chunks(2)
            .find(|kv| kv.first().map(String::as_str) == Some(name))
            .and_then(|kv| kv.get(1))
            .filter(|v| !v.is_empty())
    };
    let base = get("json").ok_or_else(|| Error::Corrupt("key without its record".into()))?;
    let mut key: ApiKey = parse(base)?;
    if let Some(s) = get("revoked_at") {
        key.revoked_at = Some(parse(s)?);
    }
    if let Some(s) = get("last_used_at") {
        key.last_used_at = Some(parse(s)?);
    }
    for (day, n) in usage {
        key.usage.insert(day, n);
    }
    Ok(key)
}

// ---- Lua scripts: one per transition, each atomic on the server.

/// The webhook outbox of the transition scripts: `emit_event` (see the file).
const OUTBOX_LUA: &str = include_str!("redis/lua/outbox.lua");

/// A transition script: [`OUTBOX_LUA`] followed by `parts`.
fn transition(parts: &[&str]) -> Script {
    Script::new(&format!("{OUTBOX_LUA}{}", parts.concat()))
}

static CREATE_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("redis/lua/create_scan.lua")]));

static START_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("redis/lua/start_scan.lua")]));

static SET_ANALYSIS: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/set_analysis.lua")));

static CHARGE_INTERRUPTION: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/charge_interruption.lua")));

static PROGRESS: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/progress.lua")));

/// Gives a scan back to its day's quota: `refund` (see the file).
const REFUND_LUA: &str = include_str!("redis/lua/refund.lua");

static FINISH_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[REFUND_LUA, include_str!("redis/lua/finish_scan.lua")]));

static CANCEL_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[REFUND_LUA, include_str!("redis/lua/cancel_scan.lua")]));

static CREATE_KEY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/create_key.lua")));

static REVOKE_KEY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/revoke_key.lua")));

static RECORD_USE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/record_use.lua")));

static CREATE_SITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/create_site.lua")));

static DELETE_SITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/delete_site.lua")));

static REQUEUE_SCAN: LazyLock<Script> =
    LazyLock::new(|| transition(&[include_str!("redis/lua/requeue_scan.lua")]));

static CLAIM_IDEMPOTENCY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/claim_idempotency.lua")));

static COMPLETE_IDEMPOTENCY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/complete_idempotency.lua")));

impl RedisBackend {
    /// Appends the report's chunks to the list `key`, one command (and one
    /// chunk in memory) at a time; the list expires unless the `finish`
    /// script takes it.
    async fn upload_report(&self, key: &str, report: ReportFile) -> Result<()> {
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

impl RedisBackend {
    /// The index and record keys of an account's idempotency key.
    fn idempotency_keys(&self, account_id: &str, key_hash: &str) -> (String, String, String) {
        let prefix = self.k(&format!("idem:{account_id}:"));
        (
            self.k(&format!("idem:{account_id}")),
            format!("{prefix}{key_hash}"),
            prefix,
        )
    }

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

    fn quota_key(&self, account_id: &str, day: NaiveDate) -> String {
        self.k(&format!("quota:{account_id}:{}", day.format("%Y-%m-%d")))
    }

    async fn load_key(&self, id: &str) -> Result<Option<ApiKey>> {
        let mut conn = self.c();
        let (fields, usage): (Vec<String>, Vec<(String, u64)>) = redis::pipe()
            .hgetall(self.k(&format!("key:{id}")))
            .hgetall(self.k(&format!("key:{id}:usage")))
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if fields.is_empty() {
            return Ok(None);
        }
        key_from_fields(&fields, usage).map(Some)
    }

    async fn load_site(&self, id: &str) -> Result<Option<Site>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .hget(self.k(&format!("site:{id}")), "json")
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(parse).transpose()
    }

    /// The keys of `ids` (and their usage), in one pipelined round trip.
    async fn load_keys(&self, ids: &[String]) -> Result<Vec<ApiKey>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.k(&format!("key:{id}")))
                .hgetall(self.k(&format!("key:{id}:usage")));
        }
        let mut conn = self.c();
        let replies: Vec<redis::Value> = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        let mut out = Vec::new();
        for pair in replies.chunks(2) {
            let bad = |e: redis::ParsingError| Error::Storage(format!("redis: {e}"));
            let fields: Vec<String> = redis::from_redis_value_ref(&pair[0]).map_err(bad)?;
            let usage: Vec<(String, u64)> = redis::from_redis_value_ref(&pair[1]).map_err(bad)?;
            if !fields.is_empty() {
                out.push(key_from_fields(&fields, usage)?);
            }
        }
        Ok(out)
    }

    /// The sites of `ids` that exist, in one pipelined round trip.
    async fn load_sites(&self, ids: &[String]) -> Result<Vec<Site>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hget(self.k(&format!("site:{id}")), "json");
        }
        let mut conn = self.c();
        let raws: Vec<Option<String>> = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        raws.iter().flatten().map(|raw| parse(raw)).collect()
    }

    /// The scans of `ids` (`None` where one is gone), in one pipelined round trip.
    async fn load_scans(&self, ids: &[String]) -> Result<Vec<Option<Scan>>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.k(&format!("scan:{id}")));
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

    async fn ids_of(&self, index: &str) -> Result<Vec<String>> {
        let mut conn = self.c();
        conn.zrangebylex(self.k(index), "-", "+")
            .await
            .map_err(redis_err)
    }
}

static CLAIM_DUE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/claim_due.lua")));

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

/// Decodes a stored delivery. One written by a transition script carries the
/// scan's hash fields (`scan_fields`) instead of a body: the body is rendered
/// from them here with [`crate::webhooks::event_body`] (deterministic, so every
/// read gives the same bytes), and stored as such the first time the delivery
/// is saved after an attempt.
fn delivery_from_stored(raw: &str) -> Result<Delivery> {
    let corrupt = |e: serde_json::Error| Error::Corrupt(format!("delivery: {e}"));
    let mut value: serde_json::Value = serde_json::from_str(raw).map_err(corrupt)?;
    if let Some(record) = value.as_object_mut() {
        if let Some(fields) = record.remove("scan_fields") {
            let fields: std::collections::BTreeMap<String, String> =
                serde_json::from_value(fields).map_err(corrupt)?;
            let flat: Vec<String> = fields.into_iter().flat_map(|(k, v)| [k, v]).collect();
            let scan = scan_from_fields(&flat)?;
            let event_id = record
                .get("event_id")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| Error::Corrupt("delivery without its event id".into()))?;
            let created: DateTime<Utc> = record
                .get("created_at")
                .cloned()
                .map(serde_json::from_value)
                .transpose()
                .map_err(corrupt)?
                .ok_or_else(|| Error::Corrupt("delivery without its time".into()))?;
            let body = crate::webhooks::event_body(event_id, created, &scan)?;
            record.insert("payload".into(), serde_json::Value::String(body));
        }
    }
    serde_json::from_value(value).map_err(corrupt)
}

impl RedisBackend {
    async fn load_delivery(&self, id: &str) -> Result<Option<Delivery>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .get(self.k(&format!("delivery:{id}")))
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(delivery_from_stored).transpose()
    }
}

#[async_trait]
impl Store for RedisBackend {
    async fn create_account(&self, account: Account) -> Result<Account> {
        let mut conn = self.c();
        let _: () = conn
            .set(self.k(&format!("account:{}", account.id)), json(&account)?)
            .await
            .map_err(redis_err)?;
        Ok(account)
    }

    async fn account(&self, id: &str) -> Result<Option<Account>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .get(self.k(&format!("account:{id}")))
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(parse).transpose()
    }

    async fn create_key(&self, key: ApiKey, secret_hash: &str) -> Result<ApiKey> {
        let mut conn = self.c();
        let created: i64 = CREATE_KEY
            .key(self.k(&format!("account:{}", key.account_id)))
            .key(self.k(&format!("key:{}", key.id)))
            .key(self.k(&format!("keyhash:{secret_hash}")))
            .key(self.k("keys"))
            .key(self.k(&format!("account:{}:keys", key.account_id)))
            .arg(&key.id)
            .arg(&key.account_id)
            .arg(json(&key)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if created == 0 {
            return Err(not_found("account", &key.account_id));
        }
        Ok(key)
    }

    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<ApiKey>> {
        let mut conn = self.c();
        let id: Option<String> = conn
            .get(self.k(&format!("keyhash:{secret_hash}")))
            .await
            .map_err(redis_err)?;
        match id {
            Some(id) => self.load_key(&id).await,
            None => Ok(None),
        }
    }

    async fn key(&self, id: &str) -> Result<Option<ApiKey>> {
        self.load_key(id).await
    }

    async fn list_keys(&self, account_id: Option<&str>) -> Result<Vec<ApiKey>> {
        let index = match account_id {
            Some(acc) => format!("account:{acc}:keys"),
            None => "keys".to_string(),
        };
        let ids = self.ids_of(&index).await?;
        self.load_keys(&ids).await
    }

    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> Result<ApiKey> {
        let mut conn = self.c();
        let found: i64 = REVOKE_KEY
            .key(self.k(&format!("key:{id}")))
            .arg(json(&at)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if found == 0 {
            return Err(not_found("key", id));
        }
        self.load_key(id).await?.ok_or_else(|| not_found("key", id))
    }

    async fn record_key_use(&self, id: &str, at: DateTime<Utc>) -> Result<()> {
        let mut conn = self.c();
        let found: i64 = RECORD_USE
            .key(self.k(&format!("key:{id}")))
            .key(self.k(&format!("key:{id}:usage")))
            .arg(json(&at)?)
            .arg(day_key(at))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if found == 0 {
            return Err(not_found("key", id));
        }
        Ok(())
    }

    async fn create_site(&self, site: Site) -> Result<Site> {
        let mut conn = self.c();
        let created: i64 = CREATE_SITE
            .key(self.k(&format!("account:{}", site.account_id)))
            .key(self.k(&format!("site:{}", site.id)))
            .key(self.k(&format!("account:{}:sites", site.account_id)))
            .arg(&site.id)
            .arg(&site.account_id)
            .arg(json(&site)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if created == 0 {
            return Err(not_found("account", &site.account_id));
        }
        Ok(site)
    }

    async fn site(&self, account_id: &str, id: &str) -> Result<Option<Site>> {
        Ok(self
            .load_site(id)
            .await?
            .filter(|s| s.account_id == account_id))
    }

    async fn list_sites(&self, account_id: &str) -> Result<Vec<Site>> {
        let ids = self.ids_of(&format!("account:{account_id}:sites")).await?;
        self.load_sites(&ids).await
    }

    async fn delete_site(&self, account_id: &str, id: &str) -> Result<bool> {
        let mut conn = self.c();
        let deleted: i64 = DELETE_SITE
            .key(self.k(&format!("site:{id}")))
            .key(self.k(&format!("account:{account_id}:sites")))
            .arg(id)
            .arg(account_id)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(deleted == 1)
    }

    async fn create_scan_if_quota(
        &self,
        scan: Scan,
        day: NaiveDate,
        limit: Option<u32>,
    ) -> Result<Scan> {
        let event = self.event_args(scan.created_at)?;
        let mut conn = self.c();
        let used: i64 = CREATE_SCAN
            .key(self.quota_key(&scan.account_id, day))
            .key(self.k(&format!("scan:{}", scan.id)))
            .key(self.k(&format!("site:{}:scans", scan.site_id)))
            .key(self.k("unfinished"))
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

    async fn scans_created_on(&self, account_id: &str, day: NaiveDate) -> Result<u32> {
        let mut conn = self.c();
        let n: Option<u32> = conn
            .get(self.quota_key(account_id, day))
            .await
            .map_err(redis_err)?;
        Ok(n.unwrap_or(0))
    }

    async fn scan(&self, account_id: &str, id: &str) -> Result<Option<Scan>> {
        Ok(self
            .scan_by_id(id)
            .await?
            .filter(|s| s.account_id == account_id))
    }

    async fn scan_by_id(&self, id: &str) -> Result<Option<Scan>> {
        let mut conn = self.c();
        let fields: Vec<String> = conn
            .hgetall(self.k(&format!("scan:{id}")))
            .await
            .map_err(redis_err)?;
        if fields.is_empty() {
            return Ok(None);
        }
        scan_from_fields(&fields).map(Some)
    }

    async fn list_scans(
        &self,
        account_id: &str,
        site_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<Scan>> {
        let limit = limit.max(1);
        let index = self.k(&format!("site:{site_id}:scans"));
        let mut conn = self.c();
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
            let scans = self.load_scans(&ids).await?;
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

    async fn start_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        self.start_or_resume(id, at, true).await
    }

    async fn resume_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>> {
        self.start_or_resume(id, at, false).await
    }

    async fn requeue_scan(&self, id: &str) -> Result<bool> {
        let event = self.event_args(Utc::now())?;
        let mut conn = self.c();
        let done: i64 = REQUEUE_SCAN
            .key(self.k(&format!("scan:{id}")))
            .key(self.k("running"))
            .arg(id)
            .arg(&event.prefix)
            .arg(&event.digits)
            .arg(&event.at)
            .arg(event.at_us)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(done == 1)
    }

    async fn set_pages_in_analysis(&self, id: &str, pages: &[String]) -> Result<()> {
        let mut conn = self.c();
        let mut script = SET_ANALYSIS.prepare_invoke();
        script.key(self.k(&format!("scan:{id}:analysis")));
        for p in pages {
            script.arg(p);
        }
        let _: i64 = script.invoke_async(&mut conn).await.map_err(redis_err)?;
        Ok(())
    }

    async fn charge_interruption(&self, id: &str) -> Result<Interruption> {
        let mut conn = self.c();
        let out: Vec<String> = CHARGE_INTERRUPTION
            .key(self.k(&format!("scan:{id}:analysis")))
            .key(self.k(&format!("scan:{id}:crashes")))
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

    async fn update_progress(&self, id: &str, progress: Progress) -> Result<ScanStatus> {
        let mut conn = self.c();
        let status: Option<String> = PROGRESS
            .key(self.k(&format!("scan:{id}")))
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

    async fn finish_scan(&self, id: &str, outcome: ScanOutcome, at: DateTime<Utc>) -> Result<Scan> {
        // The quota counter of the day the scan was created (its creation
        // time never changes, so reading it apart from the script is safe).
        let scan = self
            .scan_by_id(id)
            .await?
            .ok_or_else(|| not_found("scan", id))?;
        let quota = self.quota_key(&scan.account_id, scan.created_at.date_naive());
        let mut random = [0u8; 8];
        getrandom::getrandom(&mut random).map_err(Error::storage)?;
        let upload = self.k(&format!("report:{id}:upload:{}", hex::encode(random)));
        let (kind, detail, pages, report) = match outcome {
            ScanOutcome::Completed { summary, report } => (
                "completed",
                json(&summary)?,
                summary.pages_fetched,
                Some(report),
            ),
            ScanOutcome::Failed { error } => ("failed", error, 0, None),
        };
        // A scan already terminal keeps its status: no upload then (the
        // script checks again, atomically).
        if let Some(report) = report.filter(|_| !scan.status.is_terminal()) {
            self.upload_report(&upload, report).await?;
        }
        let mut conn = self.c();
        let mut script = FINISH_SCAN.prepare_invoke();
        script
            .key(self.k(&format!("scan:{id}")))
            .key(self.k(&format!("report:{id}")))
            .key(self.k("running"))
            .key(self.k("unfinished"))
            .key(self.k("stats"))
            .key(quota)
            .key(&upload)
            .arg(id);
        let event = self.event_args(at)?;
        script
            .arg(kind)
            .arg(json(&at)?)
            .arg(detail)
            .arg(pages)
            .arg(&event.prefix)
            .arg(&event.digits)
            .arg(&event.at)
            .arg(event.at_us);
        let fields: Option<Vec<String>> =
            script.invoke_async(&mut conn).await.map_err(redis_err)?;
        scan_from_fields(&fields.ok_or_else(|| not_found("scan", id))?)
    }

    async fn cancel_scan(&self, account_id: &str, id: &str, at: DateTime<Utc>) -> Result<Scan> {
        let Some(scan) = self.scan(account_id, id).await? else {
            return Err(not_found("scan", id));
        };
        let quota = self.quota_key(account_id, scan.created_at.date_naive());
        let event = self.event_args(at)?;
        let mut conn = self.c();
        let reply: Vec<String> = CANCEL_SCAN
            .key(self.k(&format!("scan:{id}")))
            .key(self.k("running"))
            .key(self.k("unfinished"))
            .key(self.k("stats"))
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

    async fn report_chunk(&self, scan_id: &str, index: u64) -> Result<Option<Vec<u8>>> {
        let Ok(index) = isize::try_from(index) else {
            return Ok(None);
        };
        let mut conn = self.c();
        let chunk: Option<Vec<u8>> = conn
            .lindex(self.k(&format!("report:{scan_id}")), index)
            .await
            .map_err(redis_err)?;
        Ok(chunk)
    }

    async fn unfinished_scans(&self) -> Result<Vec<Scan>> {
        let mut conn = self.c();
        let mut ids: Vec<String> = conn
            .smembers(self.k("unfinished"))
            .await
            .map_err(redis_err)?;
        ids.sort();
        let mut out = Vec::new();
        for id in ids {
            if let Some(scan) = self.scan_by_id(&id).await? {
                if !scan.status.is_terminal() {
                    out.push(scan);
                }
            }
        }
        Ok(out)
    }

    async fn ping(&self) -> Result<()> {
        let mut conn = self.c();
        let _: String = redis::cmd("PING")
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn create_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        if self.account(&webhook.account_id).await?.is_none() {
            return Err(not_found("account", &webhook.account_id));
        }
        let mut conn = self.c();
        let _: () = redis::pipe()
            .atomic()
            .set(self.k(&format!("webhook:{}", webhook.id)), json(&webhook)?)
            .zadd(
                self.k(&format!("account:{}:webhooks", webhook.account_id)),
                &webhook.id,
                0,
            )
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(webhook)
    }

    async fn webhook(&self, account_id: &str, id: &str) -> Result<Option<Webhook>> {
        Ok(self
            .webhook_by_id(id)
            .await?
            .filter(|w| w.account_id == account_id))
    }

    async fn webhook_by_id(&self, id: &str) -> Result<Option<Webhook>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .get(self.k(&format!("webhook:{id}")))
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(parse).transpose()
    }

    async fn list_webhooks(&self, account_id: &str) -> Result<Vec<Webhook>> {
        let mut out = Vec::new();
        for id in self
            .ids_of(&format!("account:{account_id}:webhooks"))
            .await?
        {
            if let Some(w) = self.webhook_by_id(&id).await? {
                out.push(w);
            }
        }
        Ok(out)
    }

    async fn save_webhook(&self, webhook: Webhook) -> Result<Webhook> {
        let mut conn = self.c();
        // SET XX: only replaces an existing webhook.
        let done: Option<String> = redis::cmd("SET")
            .arg(self.k(&format!("webhook:{}", webhook.id)))
            .arg(json(&webhook)?)
            .arg("XX")
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if done.is_none() {
            return Err(not_found("webhook", &webhook.id));
        }
        Ok(webhook)
    }

    async fn delete_webhook(&self, account_id: &str, id: &str) -> Result<bool> {
        if self.webhook(account_id, id).await?.is_none() {
            return Ok(false);
        }
        let mut conn = self.c();
        let _: () = redis::pipe()
            .atomic()
            .del(self.k(&format!("webhook:{id}")))
            .zrem(self.k(&format!("account:{account_id}:webhooks")), id)
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(true)
    }

    async fn save_deliveries(&self, deliveries: Vec<Delivery>) -> Result<()> {
        if deliveries.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        pipe.atomic();
        for d in &deliveries {
            pipe.set(self.k(&format!("delivery:{}", d.id)), json(d)?)
                .ignore()
                .zadd(
                    self.k(&format!("webhook:{}:deliveries", d.webhook_id)),
                    &d.id,
                    0,
                )
                .ignore();
            match (d.status, d.next_attempt_at) {
                (DeliveryStatus::Pending, Some(at)) => pipe
                    .zadd(self.k("outbox"), &d.id, at.timestamp_micros())
                    .ignore(),
                _ => pipe.zrem(self.k("outbox"), &d.id).ignore(),
            };
        }
        let mut conn = self.c();
        let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        Ok(())
    }

    async fn delivery(&self, webhook_id: &str, id: &str) -> Result<Option<Delivery>> {
        Ok(self
            .load_delivery(id)
            .await?
            .filter(|d| d.webhook_id == webhook_id))
    }

    async fn list_deliveries(&self, webhook_id: &str, limit: usize) -> Result<Vec<Delivery>> {
        let mut conn = self.c();
        let ids: Vec<String> = conn
            .zrevrangebylex_limit(
                self.k(&format!("webhook:{webhook_id}:deliveries")),
                "+",
                "-",
                0,
                limit as isize,
            )
            .await
            .map_err(redis_err)?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(d) = self.load_delivery(&id).await? {
                out.push(d);
            }
        }
        Ok(out)
    }

    async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        let mut conn = self.c();
        let ids: Vec<String> = CLAIM_DUE
            .key(self.k("outbox"))
            .arg(now.timestamp_micros())
            .arg(lease_until.timestamp_micros())
            .arg(limit)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        let mut out = Vec::new();
        for id in ids {
            match self.load_delivery(&id).await? {
                Some(mut d) => {
                    d.next_attempt_at = Some(lease_until);
                    out.push(d);
                }
                None => {
                    let _: () = conn.zrem(self.k("outbox"), &id).await.map_err(redis_err)?;
                }
            }
        }
        Ok(out)
    }

    // ---- users and sessions (the dashboard)

    async fn claim_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
        at: DateTime<Utc>,
    ) -> Result<IdempotencyClaim> {
        let (index, key, prefix) = self.idempotency_keys(account_id, key_hash);
        let ttl = IDEMPOTENCY_TTL;
        let mut conn = self.c();
        let found: Option<String> = CLAIM_IDEMPOTENCY
            .key(index)
            .key(key)
            .arg(at.timestamp_micros())
            .arg(ttl.num_microseconds().unwrap_or(i64::MAX))
            .arg(MAX_IDEMPOTENCY_KEYS)
            .arg(json(&record)?)
            .arg(key_hash)
            .arg(ttl.num_milliseconds())
            .arg(prefix)
            .arg(record.lease_until.timestamp_micros())
            .arg(json(&record.created_at)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        match found {
            Some(raw) => Ok(IdempotencyClaim::Existing(parse(&raw)?)),
            None => Ok(IdempotencyClaim::Claimed),
        }
    }

    async fn complete_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
    ) -> Result<()> {
        let (_, key, _) = self.idempotency_keys(account_id, key_hash);
        let mut conn = self.c();
        let _: i64 = COMPLETE_IDEMPOTENCY
            .key(key)
            .arg(json(&record)?)
            .arg(json(&record.created_at)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn release_idempotency_key(&self, account_id: &str, key_hash: &str) -> Result<()> {
        let (index, key, _) = self.idempotency_keys(account_id, key_hash);
        let mut conn = self.c();
        let _: () = redis::pipe()
            .atomic()
            .del(&key)
            .ignore()
            .zrem(&index, key_hash)
            .ignore()
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn create_user(&self, user: User) -> Result<User> {
        let mut conn = self.c();
        let email = user.email.to_lowercase();
        let created: i64 = CREATE_USER
            .key(self.k(&format!("account:{}", user.account_id)))
            .key(self.k(&format!("user:{}", user.id)))
            .key(self.k(&format!("useremail:{email}")))
            .key(self.k("users"))
            .key(self.k(&format!("account:{}:users", user.account_id)))
            .arg(&user.id)
            .arg(&user.account_id)
            .arg(json(&user)?)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        match created {
            0 => Err(not_found("account", &user.account_id)),
            -1 => Err(Error::Conflict(format!(
                "a user with the e-mail `{email}` already exists"
            ))),
            _ => Ok(user),
        }
    }

    async fn user(&self, id: &str) -> Result<Option<User>> {
        self.load_user(id).await
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<User>> {
        let mut conn = self.c();
        let email = email.trim().to_lowercase();
        let id: Option<String> = conn
            .get(self.k(&format!("useremail:{email}")))
            .await
            .map_err(redis_err)?;
        match id {
            Some(id) => self.load_user(&id).await,
            None => Ok(None),
        }
    }

    async fn list_users(&self, account_id: Option<&str>) -> Result<Vec<User>> {
        let index = match account_id {
            Some(acc) => format!("account:{acc}:users"),
            None => "users".to_string(),
        };
        let mut out = Vec::new();
        for id in self.ids_of(&index).await? {
            if let Some(user) = self.load_user(&id).await? {
                out.push(user);
            }
        }
        Ok(out)
    }

    async fn create_password_token(&self, token_hash: &str, token: PasswordToken) -> Result<()> {
        let mut conn = self.c();
        let created: i64 = CREATE_TOKEN
            .key(self.k(&format!("user:{}", token.user_id)))
            .key(self.k(&format!("pwtoken:{token_hash}")))
            .arg(json(&token)?)
            .arg(token.expires_at.timestamp_millis().max(1))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if created == 0 {
            return Err(not_found("user", &token.user_id));
        }
        Ok(())
    }

    async fn set_password_with_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<User>> {
        let mut conn = self.c();
        let token_key = self.k(&format!("pwtoken:{token_hash}"));
        let raw: Option<String> = conn.get(&token_key).await.map_err(redis_err)?;
        let Some(raw) = raw else {
            return Ok(None);
        };
        let token: PasswordToken = parse(&raw)?;
        // The script deletes the token only if it is still the one read here,
        // so two uses racing each other set the password once.
        let set: i64 = SET_PASSWORD
            .key(&token_key)
            .key(self.k(&format!("user:{}", token.user_id)))
            .key(self.k(&format!("user:{}:sessions", token.user_id)))
            .arg(&raw)
            .arg(i64::from(token.expires_at > at))
            .arg(password_hash)
            .arg(json(&at)?)
            .arg(self.k("session:"))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if set != 1 {
            return Ok(None);
        }
        self.load_user(&token.user_id).await
    }

    async fn create_session(&self, session_hash: &str, session: Session) -> Result<()> {
        let mut conn = self.c();
        let expires = session.expires_at.timestamp_millis().max(1);
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("SET")
            .arg(self.k(&format!("session:{session_hash}")))
            .arg(json(&session)?)
            .arg("PXAT")
            .arg(expires)
            .ignore();
        if let Some(user_id) = &session.user_id {
            // The index lives as long as the user's newest session.
            let index = self.k(&format!("user:{user_id}:sessions"));
            pipe.sadd(&index, session_hash)
                .ignore()
                .cmd("PEXPIREAT")
                .arg(&index)
                .arg(expires)
                .arg("GT")
                .ignore()
                .cmd("PEXPIREAT")
                .arg(&index)
                .arg(expires)
                .arg("NX")
                .ignore();
        }
        let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        Ok(())
    }

    async fn session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<Option<Session>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .get(self.k(&format!("session:{session_hash}")))
            .await
            .map_err(redis_err)?;
        let session: Option<Session> = raw.as_deref().map(parse).transpose()?;
        Ok(session.filter(|s| s.expires_at > at))
    }

    async fn touch_session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<()> {
        let key = self.k(&format!("session:{session_hash}"));
        let Some(mut session) = self.session(session_hash, at).await? else {
            return Ok(());
        };
        session.last_seen_at = at;
        let mut conn = self.c();
        // XX: a session deleted meanwhile (sign-out) stays deleted.
        let _: Option<String> = redis::cmd("SET")
            .arg(key)
            .arg(json(&session)?)
            .arg("XX")
            .arg("PXAT")
            .arg(session.expires_at.timestamp_millis().max(1))
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn delete_session(&self, session_hash: &str) -> Result<()> {
        let mut conn = self.c();
        let key = self.k(&format!("session:{session_hash}"));
        let raw: Option<String> = conn.get(&key).await.map_err(redis_err)?;
        let mut pipe = redis::pipe();
        pipe.atomic()
            .del(&key)
            .ignore()
            .del(format!("{key}:flash"))
            .ignore();
        if let Some(user_id) = raw
            .as_deref()
            .and_then(|r| parse::<Session>(r).ok())
            .and_then(|s| s.user_id)
        {
            pipe.srem(self.k(&format!("user:{user_id}:sessions")), session_hash)
                .ignore();
        }
        let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        Ok(())
    }

    async fn put_flash(
        &self,
        session_hash: &str,
        name: &str,
        value: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let Some(session) = self.session(session_hash, at).await? else {
            return Ok(false);
        };
        let key = self.k(&format!("session:{session_hash}"));
        let mut conn = self.c();
        let kept: i64 = PUT_FLASH
            .key(&key)
            .key(format!("{key}:flash"))
            .arg(name)
            .arg(value)
            .arg(session.expires_at.timestamp_millis().max(1))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(kept == 1)
    }

    async fn take_flash(
        &self,
        session_hash: &str,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<String>> {
        let key = self.k(&format!("session:{session_hash}"));
        let mut conn = self.c();
        let (session, value): (Option<String>, Option<String>) = TAKE_FLASH
            .key(&key)
            .key(format!("{key}:flash"))
            .arg(name)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        let Some(session) = session else {
            return Ok(None);
        };
        let session: Session = parse(&session)?;
        Ok(value.filter(|_| session.expires_at > at))
    }
}

static PUT_FLASH: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/put_flash.lua")));

static TAKE_FLASH: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/take_flash.lua")));

static CREATE_USER: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/create_user.lua")));

static CREATE_TOKEN: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/create_token.lua")));

static SET_PASSWORD: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("redis/lua/set_password.lua")));

impl RedisBackend {
    async fn load_user(&self, id: &str) -> Result<Option<User>> {
        let mut conn = self.c();
        let fields: Vec<String> = conn
            .hgetall(self.k(&format!("user:{id}")))
            .await
            .map_err(redis_err)?;
        if fields.is_empty() {
            return Ok(None);
        }
        let get = |name: &str| {
            fields
                .chunks(2)
                .find(|kv| kv.first().map(String::as_str) == Some(name))
                .and_then(|kv| kv.get(1))
                .filter(|v| !v.is_empty())
        };
        let base = get("json").ok_or_else(|| Error::Corrupt("user without its record".into()))?;
        let mut user: User = parse(base)?;
        if let Some(h) = get("password_hash") {
            user.password_hash = Some(h.clone());
        }
        if let Some(at) = get("password_set_at") {
            user.password_set_at = Some(parse(at)?);
        }
        Ok(Some(user))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{AppliedConfig, ScanSummary};
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
        let base = Scan {
            id: "scan_1".into(),
            site_id: "site_1".into(),
            account_id: "acc_1".into(),
            url: "https://example.com/".into(),
            status: ScanStatus::Queued,
            config: AppliedConfig {
                rules: vec!["seo".into()],
                priority: Priority::Low,
                max_pages: 5,
                max_depth: 2,
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
            created_at: at,
            started_at: None,
            finished_at: None,
            summary: None,
            quota_refunded: false,
        };
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
