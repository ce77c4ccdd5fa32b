//! [`Queue`] on Redis Streams, for the fleet of `sitescan worker` daemons.
//!
//! - One stream per priority (`{prefix}:q:high`, `:q:normal`, `:q:low`), each
//!   with the consumer group `workers`; every process is one consumer.
//! - Each unacknowledged job has a hash `{prefix}:job:{scan_id}`: its stream,
//!   its current entry id, its priority, its attempt count and the last failure.
//!   It makes `enqueue` idempotent and lets `ack` find the entry to XACK/XDEL.
//! - **Priorities without starvation:** jobs are taken in weighted rounds of 8:
//!   5 rounds look at `high` first, 2 at `normal` first and 1 at `low` first
//!   (then the others in order). With every stream backed up, `high` gets 5/8
//!   of the takes, `normal` 2/8 and `low` 1/8 — never zero. The round counter
//!   advances only when a job is taken.
//! - **Reclaim:** every take first runs XAUTOCLAIM on each stream for entries
//!   idle longer than the visibility timeout (their worker died); a live worker
//!   heartbeats (XCLAIM ... JUSTID on its own entry, which resets the idle time)
//!   so its job is never reclaimed.
//! - **Attempts:** counted in the job hash at each delivery. The worker sends a
//!   job over its limit to the dead-letter stream `{prefix}:q:dead` with the
//!   reason ([`RedisBackend::dead_letter`]).
//! - Every transition (take, ack, heartbeat, release, dead-letter) is one Lua
//!   script, atomic on the server. Scripts never block: `dequeue` polls every
//!   [`POLL_EVERY`] until its wait is over.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use redis::{AsyncCommands, Script};
use sitescan_engine::Priority;

use super::{Delivery, Job, Queue};
use crate::error::Result;
use crate::store::redis::{redis_err, RedisBackend};

/// The consumer group of the workers.
pub const GROUP: &str = "workers";
/// How often a waiting `dequeue` looks again.
pub const POLL_EVERY: Duration = Duration::from_millis(100);

fn priority_name(p: Priority) -> &'static str {
    match p {
        Priority::High => "high",
        Priority::Normal => "normal",
        Priority::Low => "low",
    }
}

fn priority_from(s: &str) -> Priority {
    match s {
        "high" => Priority::High,
        "low" => Priority::Low,
        _ => Priority::Normal,
    }
}

/// Jobs waiting per priority, and the dead-letter stream's length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDepths {
    /// Waiting in `high`.
    pub high: u64,
    /// Waiting in `normal`.
    pub normal: u64,
    /// Waiting in `low`.
    pub low: u64,
    /// Delivered and not acknowledged (running, or held by a dead worker).
    pub in_flight: u64,
    /// Entries in the dead-letter stream.
    pub dead: u64,
}

/// One entry of the dead-letter stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadJob {
    /// The scan.
    pub scan_id: String,
    /// Deliveries it had.
    pub attempts: u32,
    /// Why it was given up.
    pub reason: String,
}

/// KEYS: high, normal, low, round. ARGV: group, consumer, min idle ms, prefix.
/// Returns {scan_id, priority, attempt} or false.
static DEQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local group, consumer, idle, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local function take(stream, entry)
  if type(entry) ~= 'table' or type(entry[2]) ~= 'table' then return nil end
  local id, f = entry[1], entry[2]
  local scan_id
  for i = 1, #f, 2 do if f[i] == 'scan_id' then scan_id = f[i + 1] end end
  local jk = prefix .. ':job:' .. (scan_id or '')
  if not scan_id or redis.call('HGET', jk, 'entry') ~= id then
    -- A stale entry (its job was acknowledged or moved): drop it.
    redis.call('XACK', stream, group, id)
    redis.call('XDEL', stream, id)
    return nil
  end
  local n = redis.call('HINCRBY', jk, 'attempts', 1)
  return {scan_id, redis.call('HGET', jk, 'priority'), n}
end
for i = 1, 3 do
  local r = redis.call('XAUTOCLAIM', KEYS[i], group, consumer, idle, '0-0', 'COUNT', 1)
  for _, e in ipairs(r[2]) do
    local t = take(KEYS[i], e)
    if t then return t end
  end
end
local round = tonumber(redis.call('GET', KEYS[4]) or '0') % 8
local order = {1, 2, 3}
if round == 7 then order = {3, 1, 2} elseif round >= 5 then order = {2, 1, 3} end
for _, i in ipairs(order) do
  local res = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', 1, 'STREAMS', KEYS[i], '>')
  if res then
    for _, s in ipairs(res) do
      for _, e in ipairs(s[2]) do
        local t = take(KEYS[i], e)
        if t then
          redis.call('INCR', KEYS[4])
          return t
        end
      end
    end
  end
end
return false
",
    )
});

/// KEYS: stream, job. ARGV: scan id, priority.
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local id = redis.call('XADD', KEYS[1], '*', 'scan_id', ARGV[1], 'priority', ARGV[2])
redis.call('HSET', KEYS[2], 'stream', KEYS[1], 'entry', id, 'attempts', 0, 'priority', ARGV[2])
return 1
",
    )
});

/// KEYS: job. ARGV: group.
static ACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local s = redis.call('HGET', KEYS[1], 'stream')
if not s then return 0 end
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
redis.call('DEL', KEYS[1])
return 1
",
    )
});

/// KEYS: job. ARGV: group, consumer. Returns 1 while this consumer holds it.
static HEARTBEAT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local s = redis.call('HGET', KEYS[1], 'stream')
if not s then return 0 end
local id = redis.call('HGET', KEYS[1], 'entry')
local p = redis.call('XPENDING', s, ARGV[1], id, id, 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', s, ARGV[1], ARGV[2], 0, id, 'JUSTID')
return 1
",
    )
});

/// KEYS: job. ARGV: group, scan id, reason. Puts the job back at the end of
/// its stream (attempts kept).
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local s = redis.call('HGET', KEYS[1], 'stream')
if not s then return 0 end
local id = redis.call('HGET', KEYS[1], 'entry')
redis.call('XACK', s, ARGV[1], id)
redis.call('XDEL', s, id)
local nid = redis.call('XADD', s, '*', 'scan_id', ARGV[2], 'priority', redis.call('HGET', KEYS[1], 'priority'))
redis.call('HSET', KEYS[1], 'entry', nid)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'last_error', ARGV[3]) end
return 1
",
    )
});

/// KEYS: job, dead stream. ARGV: group, scan id, reason, at.
static DEAD_LETTER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local s = redis.call('HGET', KEYS[1], 'stream')
if s then
  local id = redis.call('HGET', KEYS[1], 'entry')
  redis.call('XACK', s, ARGV[1], id)
  redis.call('XDEL', s, id)
end
local attempts = redis.call('HGET', KEYS[1], 'attempts') or '0'
redis.call('XADD', KEYS[2], '*', 'scan_id', ARGV[2], 'attempts', attempts, 'reason', ARGV[3], 'at', ARGV[4])
redis.call('DEL', KEYS[1])
return 1
",
    )
});

impl RedisBackend {
    fn stream(&self, p: Priority) -> String {
        self.k(&format!("q:{}", priority_name(p)))
    }

    fn job_key(&self, scan_id: &str) -> String {
        self.k(&format!("job:{scan_id}"))
    }

    /// Creates the consumer group of each priority stream (and the stream)
    /// when missing. Run at connect; safe to run again.
    pub(crate) async fn ensure_groups(&self) -> Result<()> {
        let mut conn = self.c();
        for p in [Priority::High, Priority::Normal, Priority::Low] {
            let created: redis::RedisResult<()> = conn
                .xgroup_create_mkstream(self.stream(p), GROUP, "0")
                .await;
            match created {
                Ok(()) => {}
                Err(e) if e.code() == Some("BUSYGROUP") => {}
                Err(e) => return Err(redis_err(e)),
            }
        }
        Ok(())
    }

    /// Moves a job to the dead-letter stream with `reason` (its attempt count
    /// recorded) and forgets it. The caller marks the scan `failed`.
    pub async fn dead_letter(&self, scan_id: &str, reason: &str) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = DEAD_LETTER
            .key(self.job_key(scan_id))
            .key(self.k("q:dead"))
            .arg(GROUP)
            .arg(scan_id)
            .arg(reason)
            .arg(Utc::now().to_rfc3339())
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    /// Puts a job this worker holds back at the end of its stream, now, so
    /// another worker takes it; `reason` (if not empty) is kept as its last failure.
    pub async fn release_job(&self, scan_id: &str, reason: &str) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = RELEASE
            .key(self.job_key(scan_id))
            .arg(GROUP)
            .arg(scan_id)
            .arg(reason)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    /// Renews this worker's hold on a job (resets its idle time). False when
    /// the job is no longer this worker's (reclaimed by another, or done).
    pub async fn heartbeat(&self, scan_id: &str) -> Result<bool> {
        let mut conn = self.c();
        let held: i64 = HEARTBEAT
            .key(self.job_key(scan_id))
            .arg(GROUP)
            .arg(&self.settings.consumer)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(held == 1)
    }

    /// The last failure recorded for a job, if any.
    pub async fn last_failure(&self, scan_id: &str) -> Result<Option<String>> {
        let mut conn = self.c();
        conn.hget(self.job_key(scan_id), "last_error")
            .await
            .map_err(redis_err)
    }

    /// Waiting jobs per priority, jobs in flight, dead-letter size.
    pub async fn depths(&self) -> Result<QueueDepths> {
        let mut conn = self.c();
        let mut d = QueueDepths::default();
        for p in [Priority::High, Priority::Normal, Priority::Low] {
            let (len, pending): (u64, redis::Value) = redis::pipe()
                .xlen(self.stream(p))
                .cmd("XPENDING")
                .arg(self.stream(p))
                .arg(GROUP)
                .query_async(&mut conn)
                .await
                .map_err(redis_err)?;
            let pending = match pending {
                redis::Value::Array(items) => match items.first() {
                    Some(redis::Value::Int(n)) => u64::try_from(*n).unwrap_or(0),
                    _ => 0,
                },
                _ => 0,
            };
            let waiting = len.saturating_sub(pending);
            d.in_flight += pending;
            match p {
                Priority::High => d.high = waiting,
                Priority::Normal => d.normal = waiting,
                Priority::Low => d.low = waiting,
            }
        }
        d.dead = conn.xlen(self.k("q:dead")).await.map_err(redis_err)?;
        Ok(d)
    }

    /// The dead-letter stream's entries, oldest first.
    pub async fn dead_jobs(&self) -> Result<Vec<DeadJob>> {
        let mut conn = self.c();
        let reply: redis::streams::StreamRangeReply =
            conn.xrange_all(self.k("q:dead")).await.map_err(redis_err)?;
        Ok(reply
            .ids
            .into_iter()
            .map(|e| DeadJob {
                scan_id: e.get("scan_id").unwrap_or_default(),
                attempts: e.get("attempts").unwrap_or(0),
                reason: e.get("reason").unwrap_or_default(),
            })
            .collect())
    }

    /// Scan ids of the jobs this consumer holds.
    async fn held_by_me(&self) -> Result<Vec<String>> {
        let mut conn = self.c();
        let mut held = Vec::new();
        for p in [Priority::High, Priority::Normal, Priority::Low] {
            let reply: redis::streams::StreamPendingCountReply = conn
                .xpending_consumer_count(
                    self.stream(p),
                    GROUP,
                    "-",
                    "+",
                    10_000,
                    &self.settings.consumer,
                )
                .await
                .map_err(redis_err)?;
            let ids: Vec<String> = reply.ids.into_iter().map(|i| i.id).collect();
            if ids.is_empty() {
                continue;
            }
            for id in ids {
                let entries: redis::streams::StreamRangeReply = conn
                    .xrange(self.stream(p), &id, &id)
                    .await
                    .map_err(redis_err)?;
                if let Some(scan_id) = entries.ids.first().and_then(|e| e.get::<String>("scan_id"))
                {
                    held.push(scan_id);
                }
            }
        }
        Ok(held)
    }
}

#[async_trait]
impl Queue for RedisBackend {
    async fn enqueue(&self, job: Job) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = ENQUEUE
            .key(self.stream(job.priority))
            .key(self.job_key(&job.scan_id))
            .arg(&job.scan_id)
            .arg(priority_name(job.priority))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn dequeue(&self, wait: Duration) -> Result<Option<Delivery>> {
        let deadline = tokio::time::Instant::now() + wait;
        let idle_ms =
            u64::try_from(self.settings.visibility_timeout.as_millis()).unwrap_or(u64::MAX);
        loop {
            let mut conn = self.c();
            let taken: redis::RedisResult<Option<(String, String, u32)>> = DEQUEUE
                .key(self.stream(Priority::High))
                .key(self.stream(Priority::Normal))
                .key(self.stream(Priority::Low))
                .key(self.k("q:round"))
                .arg(GROUP)
                .arg(&self.settings.consumer)
                .arg(idle_ms)
                .arg(&self.settings.prefix)
                .invoke_async(&mut conn)
                .await;
            let taken = match taken {
                // The group disappears with its streams (a flushed or
                // restarted-without-persistence server): recreate it.
                Err(e) if e.code() == Some("NOGROUP") => {
                    self.ensure_groups().await?;
                    continue;
                }
                other => other.map_err(redis_err)?,
            };
            if let Some((scan_id, priority, attempt)) = taken {
                return Ok(Some(Delivery {
                    job: Job {
                        scan_id,
                        priority: priority_from(&priority),
                    },
                    attempt,
                }));
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(POLL_EVERY.min(deadline - now)).await;
        }
    }

    async fn ack(&self, scan_id: &str) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = ACK
            .key(self.job_key(scan_id))
            .arg(GROUP)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    /// Refreshes the job's visibility deadline. A job this worker no longer holds
    /// (reclaimed by another after a stall) is logged, not an error: the fleet's
    /// own loop (`fleet::run_job`) notices it through the inherent method and steps
    /// aside.
    async fn heartbeat(&self, scan_id: &str) -> Result<()> {
        if !RedisBackend::heartbeat(self, scan_id).await? {
            tracing::warn!(scan_id, "heartbeat for a job this worker no longer holds");
        }
        Ok(())
    }

    async fn release(&self, scan_id: &str) -> Result<()> {
        self.release_job(scan_id, "").await
    }

    /// On Redis, jobs of dead workers come back by themselves (XAUTOCLAIM after
    /// the visibility timeout), and jobs held by other live processes must not
    /// be touched. So this hands back only the jobs THIS process holds (its
    /// consumer), e.g. at shutdown. Returns how many.
    async fn recover(&self) -> Result<usize> {
        let held = self.held_by_me().await?;
        for scan_id in &held {
            self.release_job(scan_id, "").await?;
        }
        Ok(held.len())
    }

    async fn ready_len(&self) -> Result<usize> {
        let d = self.depths().await?;
        Ok(usize::try_from(d.high + d.normal + d.low).unwrap_or(usize::MAX))
    }
}
