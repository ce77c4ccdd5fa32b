//! [`Queue`] on Redis Streams, for the fleet of `sitescan worker` daemons.
//!
//! - One stream per priority (`{prefix}:q:high`, `:q:normal`, `:q:low`), each
//!   with the consumer group `workers`; every process is one consumer.
//! - Each unacknowledged job has a hash `{prefix}:job:{scan_id}`: its stream,
//!   its current entry id, its priority, its attempt count, the last failure
//!   and, while a delivery holds it, that delivery's lease token (drawn from
//!   the counter `{prefix}:q:lease`). It makes `enqueue` idempotent and lets
//!   `ack` find the entry to XACK/XDEL.
//! - **Leases:** `ack`, `heartbeat`, `release` and `dead_letter` run only
//!   when the hash still holds the caller's token — checked inside their Lua
//!   script, so the check and the change are one atomic step on the server.
//!   Otherwise they change nothing and fail with `LeaseLost`.
//! - **Priorities without starvation:** jobs are taken in weighted rounds of 8:
//!   5 rounds look at `high` first, 2 at `normal` first and 1 at `low` first
//!   (then the others in order). With every stream backed up, `high` gets 5/8
//!   of the takes, `normal` 2/8 and `low` 1/8 — never zero. The round counter
//!   advances only when a job is taken.
//! - **Blocking reads:** when nothing is ready, `dequeue` waits in
//!   `XREADGROUP ... BLOCK` on a dedicated connection (one per waiting slot,
//!   kept for reuse) instead of polling; what it reads lands in this
//!   consumer's pending list, where the take script (`lua/take.lua`) hands it
//!   out under a lease.
//! - **Reclaim:** a background task ([`RedisBackend::run_reclaimer`], started
//!   with the worker slots) looks every third of the visibility timeout for
//!   entries of other consumers idle longer than the timeout (their worker
//!   stopped heartbeating: died, froze, lost Redis) — `XPENDING ... IDLE` then
//!   `XCLAIM`, see `lua/reclaim.lua` for why not `XAUTOCLAIM` — moves them to
//!   this consumer with their lease ended, and the next take hands them out
//!   again. A live worker heartbeats (XCLAIM ... JUSTID on its own entry,
//!   which resets the idle time) so its job is never reclaimed.
//! - **Attempts:** counted in the job hash at each delivery. The worker sends a
//!   job over its limit to the dead-letter stream `{prefix}:q:dead` with the
//!   reason ([`Queue::dead_letter`]).
//! - **Render lane:** render jobs go to streams of their own
//!   (`{prefix}:q:render:high`, `:normal`, `:low`, same group). A plain
//!   worker never reads, blocks on or reclaims them, so it is never handed a
//!   render job; a worker with `--render` reads both lanes, the render lane
//!   first within a priority (only it can run those). Render workers announce
//!   themselves in the sorted set `{prefix}:workers:render` (member: the
//!   consumer, score: the server's time of its last announcement), so the
//!   API can say a render scan waits because none is alive.
//! - Every transition is one Lua script (`lua/*.lua`, loaded with
//!   `include_str!`), atomic on the server.

use std::sync::LazyLock;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use redis::{AsyncCommands, Script};
use sitescan_engine::Priority;
use tokio::sync::watch;
use tracing::{info, warn};

use super::{Capabilities, Delivery, Job, Lease, Queue, RENDER_PRESENCE_TTL};
use crate::error::{Error, Result};
use crate::store::redis::{redis_err, RedisBackend};

/// The consumer group of the workers.
pub const GROUP: &str = "workers";
/// The longest one blocking read waits before the take script looks again
/// (bounds how late a job reclaimed by this process's reclaimer is taken).
pub const BLOCK_AT_MOST: Duration = Duration::from_secs(1);

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

/// Jobs waiting per priority (both lanes), and the dead-letter stream's length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueueDepths {
    /// Render jobs waiting (of every priority; counted in the priorities too).
    pub render: u64,
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

static TAKE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/take.lua")));
static RECLAIM: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/reclaim.lua")));
static ENQUEUE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/enqueue.lua")));
static ACK: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/ack.lua")));
static HEARTBEAT: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/heartbeat.lua")));
static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/release.lua")));
static DEAD_LETTER: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/dead_letter.lua")));
static RECOVER: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/recover.lua")));
static ANNOUNCE_RENDER: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/announce_render.lua")));
static RENDER_AVAILABLE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/render_available.lua")));

const PRIORITIES: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

/// What the take script returns: scan id, priority, attempt, lease token,
/// and 1 when the job came from the render lane.
type Taken = (String, String, u32, u64, u8);

/// `Ok(())` when a fenced script ran (1), `LeaseLost` when it refused (0).
fn fenced(ran: i64, lease: &Lease) -> Result<()> {
    if ran == 1 {
        Ok(())
    } else {
        Err(Error::LeaseLost {
            scan_id: lease.scan_id.clone(),
        })
    }
}

impl RedisBackend {
    fn stream(&self, p: Priority) -> String {
        self.key_name(&["q", priority_name(p)])
    }

    /// The stream of a job's lane and priority.
    fn lane_stream(&self, render: bool, p: Priority) -> String {
        if render {
            self.key_name(&["q", "render", priority_name(p)])
        } else {
            self.stream(p)
        }
    }

    /// The streams a consumer that `can` reads, by priority and within a
    /// priority by lane (render first).
    fn streams_for(&self, can: Capabilities) -> Vec<String> {
        let mut out = Vec::with_capacity(6);
        for p in PRIORITIES {
            if can.render {
                out.push(self.lane_stream(true, p));
            }
            out.push(self.lane_stream(false, p));
        }
        out
    }

    fn render_workers_key(&self) -> String {
        self.key_name(&["workers", "render"])
    }

    /// Render workers that announced themselves within
    /// [`RENDER_PRESENCE_TTL`].
    pub async fn render_workers(&self) -> Result<u64> {
        let mut conn = self.c();
        RENDER_AVAILABLE
            .key(self.render_workers_key())
            .arg(u64::try_from(RENDER_PRESENCE_TTL.as_millis()).unwrap_or(u64::MAX))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)
    }

    fn job_key(&self, scan_id: &str) -> String {
        self.key_name(&["job", scan_id])
    }

    /// Creates the consumer group of each priority stream (and the stream)
    /// when missing. Run at connect; safe to run again.
    pub(crate) async fn ensure_groups(&self) -> Result<()> {
        let mut conn = self.c();
        for stream in self.streams_for(Capabilities::RENDER) {
            let created: redis::RedisResult<()> =
                conn.xgroup_create_mkstream(stream, GROUP, "0").await;
            match created {
                Ok(()) => {}
                Err(e) if e.code() == Some("BUSYGROUP") => {}
                Err(e) => return Err(redis_err(e)),
            }
        }
        Ok(())
    }

    /// Runs the take script once: a job for this consumer, or `None`.
    async fn take(&self, can: Capabilities) -> Result<Option<Delivery>> {
        loop {
            let mut conn = self.c();
            let mut script = TAKE.prepare_invoke();
            for stream in self.streams_for(can) {
                script.key(stream);
            }
            let taken: redis::RedisResult<Option<Taken>> = script
                .key(self.key_name(&["q", "round"]))
                .key(self.key_name(&["q", "lease"]))
                .arg(GROUP)
                .arg(&self.settings.consumer)
                .arg(&self.settings.prefix)
                .arg(if can.render { 2 } else { 1 })
                .invoke_async(&mut conn)
                .await;
            return match taken {
                // The group disappears with its streams (a flushed or
                // restarted-without-persistence server): recreate it.
                Err(e) if e.code() == Some("NOGROUP") => {
                    self.ensure_groups().await?;
                    continue;
                }
                Err(e) => Err(redis_err(e)),
                Ok(None) => Ok(None),
                Ok(Some((scan_id, priority, attempt, token, render))) => Ok(Some(Delivery {
                    job: Job {
                        scan_id: scan_id.clone(),
                        priority: priority_from(&priority),
                        render: render == 1,
                    },
                    attempt,
                    lease: Lease { scan_id, token },
                })),
            };
        }
    }

    /// Waits up to `wait` in `XREADGROUP BLOCK` on the three streams, on a
    /// dedicated connection. What it reads lands in this consumer's pending
    /// list; the take script hands it out. Returns whether anything came.
    async fn block_for_entries(&self, wait: Duration, can: Capabilities) -> Result<bool> {
        let pooled = self.blocking_conns.lock().ok().and_then(|mut p| p.pop());
        let mut conn = match pooled {
            Some(conn) => conn,
            None => {
                let config = redis::AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(2)))
                    // The read blocks for up to `BLOCK_AT_MOST`; anything much
                    // longer is a lost connection.
                    .set_response_timeout(Some(BLOCK_AT_MOST + Duration::from_secs(5)));
                self.client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map_err(redis_err)?
            }
        };
        let ms = u64::try_from(wait.min(BLOCK_AT_MOST).as_millis())
            .unwrap_or(1000)
            .max(1);
        let streams = self.streams_for(can);
        let read: redis::RedisResult<redis::Value> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(&self.settings.consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(ms)
            .arg("STREAMS")
            .arg(&streams)
            .arg(vec![">"; streams.len()])
            .query_async(&mut conn)
            .await;
        match read {
            Ok(value) => {
                if let Ok(mut pool) = self.blocking_conns.lock() {
                    pool.push(conn);
                }
                Ok(!matches!(value, redis::Value::Nil))
            }
            Err(e) if e.code() == Some("NOGROUP") => {
                self.ensure_groups().await?;
                Ok(true)
            }
            // The connection is dropped: it may be broken.
            Err(e) => Err(redis_err(e)),
        }
    }

    /// Reclaims, once, the jobs idle past the visibility timeout on every
    /// stream a consumer that `can` reads (their leases end; see
    /// `lua/reclaim.lua`): a plain worker never takes render jobs into its
    /// pending list, where its take would never look. Returns how many.
    pub async fn reclaim(&self, can: Capabilities) -> Result<usize> {
        let idle_ms =
            u64::try_from(self.settings.visibility_timeout.as_millis()).unwrap_or(u64::MAX);
        let mut n = 0;
        for stream in self.streams_for(can) {
            let mut conn = self.c();
            let got: redis::RedisResult<usize> = RECLAIM
                .key(stream)
                .arg(GROUP)
                .arg(&self.settings.consumer)
                .arg(idle_ms)
                .arg(&self.settings.prefix)
                .invoke_async(&mut conn)
                .await;
            n += match got {
                Err(e) if e.code() == Some("NOGROUP") => {
                    self.ensure_groups().await?;
                    0
                }
                other => other.map_err(redis_err)?,
            };
        }
        Ok(n)
    }

    /// The background reclaimer of a worker process: [`RedisBackend::reclaim`]
    /// every third of the visibility timeout until `shutdown` turns true.
    /// `can` says what this worker can run at each round (a render worker
    /// whose browser stopped working reclaims no render jobs).
    pub async fn run_reclaimer(
        self,
        can: impl Fn() -> Capabilities + Send + 'static,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let every = (self.settings.visibility_timeout / 3).max(Duration::from_millis(50));
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                changed = shutdown.changed() => {
                    if changed.is_err() || *shutdown.borrow() {
                        return;
                    }
                    continue;
                }
            }
            match self.reclaim(can()).await {
                Ok(0) => {}
                Ok(n) => info!(
                    jobs = n,
                    "reclaimed jobs of workers past their visibility timeout"
                ),
                Err(e) => warn!(error = %e, "could not reclaim jobs; retrying"),
            }
        }
    }

    /// Waiting jobs per priority, jobs in flight, dead-letter size.
    pub async fn depths(&self) -> Result<QueueDepths> {
        let mut conn = self.c();
        let mut d = QueueDepths::default();
        for (p, render) in PRIORITIES.iter().flat_map(|p| [(*p, false), (*p, true)]) {
            let stream = self.lane_stream(render, p);
            let (len, pending): (u64, redis::Value) = redis::pipe()
                .xlen(&stream)
                .cmd("XPENDING")
                .arg(&stream)
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
            if render {
                d.render += waiting;
            }
            match p {
                Priority::High => d.high += waiting,
                Priority::Normal => d.normal += waiting,
                Priority::Low => d.low += waiting,
            }
        }
        d.dead = conn
            .xlen(self.key_name(&["q", "dead"]))
            .await
            .map_err(redis_err)?;
        Ok(d)
    }

    /// The dead-letter stream's entries, oldest first.
    pub async fn dead_jobs(&self) -> Result<Vec<DeadJob>> {
        let mut conn = self.c();
        let reply: redis::streams::StreamRangeReply = conn
            .xrange_all(self.key_name(&["q", "dead"]))
            .await
            .map_err(redis_err)?;
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
}

#[async_trait]
impl Queue for RedisBackend {
    async fn enqueue(&self, job: Job) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = ENQUEUE
            .key(self.lane_stream(job.render, job.priority))
            .key(self.job_key(&job.scan_id))
            .arg(&job.scan_id)
            .arg(priority_name(job.priority))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn dequeue(&self, wait: Duration, can: Capabilities) -> Result<Option<Delivery>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(delivery) = self.take(can).await? {
                return Ok(Some(delivery));
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            self.block_for_entries(deadline - now, can).await?;
        }
    }

    async fn ack(&self, lease: &Lease) -> Result<()> {
        let mut conn = self.c();
        let ran: i64 = ACK
            .key(self.job_key(&lease.scan_id))
            .arg(GROUP)
            .arg(lease.token)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fenced(ran, lease)
    }

    async fn heartbeat(&self, lease: &Lease) -> Result<()> {
        let mut conn = self.c();
        let ran: i64 = HEARTBEAT
            .key(self.job_key(&lease.scan_id))
            .arg(GROUP)
            .arg(&self.settings.consumer)
            .arg(lease.token)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fenced(ran, lease)
    }

    async fn release(&self, lease: &Lease, reason: &str) -> Result<()> {
        let mut conn = self.c();
        let ran: i64 = RELEASE
            .key(self.job_key(&lease.scan_id))
            .arg(GROUP)
            .arg(&lease.scan_id)
            .arg(reason)
            .arg(lease.token)
            .arg("0")
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fenced(ran, lease)
    }

    async fn hand_back(&self, lease: &Lease) -> Result<()> {
        let mut conn = self.c();
        let ran: i64 = RELEASE
            .key(self.job_key(&lease.scan_id))
            .arg(GROUP)
            .arg(&lease.scan_id)
            .arg("")
            .arg(lease.token)
            .arg("1")
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fenced(ran, lease)
    }

    async fn dead_letter(&self, lease: &Lease, reason: &str) -> Result<()> {
        let mut conn = self.c();
        let ran: i64 = DEAD_LETTER
            .key(self.job_key(&lease.scan_id))
            .key(self.key_name(&["q", "dead"]))
            .arg(GROUP)
            .arg(&lease.scan_id)
            .arg(reason)
            .arg(Utc::now().to_rfc3339())
            .arg(lease.token)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        fenced(ran, lease)
    }

    async fn last_failure(&self, scan_id: &str) -> Result<Option<String>> {
        let mut conn = self.c();
        conn.hget(self.job_key(scan_id), "last_error")
            .await
            .map_err(redis_err)
    }

    /// On Redis, jobs of dead workers come back by themselves (reclaimed after
    /// the visibility timeout), and jobs held by other live processes must not
    /// be touched. So this hands back only the jobs THIS process holds (its
    /// consumer), e.g. at shutdown. Returns how many.
    async fn recover(&self) -> Result<usize> {
        let mut conn = self.c();
        let mut script = RECOVER.prepare_invoke();
        for stream in self.streams_for(Capabilities::RENDER) {
            script.key(stream);
        }
        script
            .arg(GROUP)
            .arg(&self.settings.consumer)
            .arg(&self.settings.prefix)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)
    }

    async fn ready_len(&self) -> Result<usize> {
        let d = self.depths().await?;
        Ok(usize::try_from(d.high + d.normal + d.low).unwrap_or(usize::MAX))
    }

    async fn announce_render(&self) -> Result<()> {
        let mut conn = self.c();
        // Entries ten TTLs old are forgotten: workers killed without
        // withdrawing do not pile up.
        let forget_ms = u64::try_from((RENDER_PRESENCE_TTL * 10).as_millis()).unwrap_or(u64::MAX);
        let _: i64 = ANNOUNCE_RENDER
            .key(self.render_workers_key())
            .arg(&self.settings.consumer)
            .arg(forget_ms)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn withdraw_render(&self) -> Result<()> {
        let mut conn = self.c();
        let _: i64 = conn
            .zrem(self.render_workers_key(), &self.settings.consumer)
            .await
            .map_err(redis_err)?;
        Ok(())
    }

    async fn render_available(&self) -> Result<bool> {
        Ok(self.render_workers().await? > 0)
    }

    /// A third of the visibility timeout: two beats may be lost before another
    /// worker reclaims the job.
    fn heartbeat_every(&self) -> Duration {
        (self.settings.visibility_timeout / 3).max(Duration::from_millis(50))
    }
}
