//! The scan job queue between the API (which enqueues) and the workers (which
//! take jobs). [`Queue`] is the trait; the embedded backend keeps jobs in the
//! same redb file as the store (`store::embedded`), the fleet's Redis backend in
//! streams. Delivery is at-least-once: a job taken and not acknowledged (its
//! worker crashed, the server was killed) is delivered again — after
//! [`Queue::recover`] on the embedded service, after the visibility timeout on
//! Redis — and the store's `start_scan` / `finish_scan` make a second delivery
//! harmless.
//!
//! **Leases (fencing).** Every delivery carries a [`Lease`]: the scan id and a
//! token unique to that delivery, drawn from a counter that only grows. The
//! queue remembers the token of the job's current delivery; `ack`,
//! `heartbeat`, `release` and `dead_letter` compare it atomically (inside the
//! redb write transaction, inside the Redis Lua script) and fail with
//! [`Error::LeaseLost`](crate::Error::LeaseLost) when the job was delivered
//! again since (reclaimed by another worker, recovered at a restart) or is
//! gone. A worker that stalled past its visibility timeout can therefore no
//! longer acknowledge, re-queue or dead-letter the job its successor runs.
//!
//! **Render jobs (capabilities).** A render scan needs a browser, which not
//! every worker has. Render jobs wait in a lane of their own — a second ready
//! table on the embedded backend, a second set of priority streams on Redis —
//! and a consumer reads the render lane only when its [`Capabilities`] say it
//! renders. A plain worker therefore never receives a render job: nothing is
//! delivered to it and handed back (which would count attempts, churn the
//! streams and wake plain workers for jobs they cannot run), and a render job
//! cannot be starved by a plain worker holding it. Consumers that render
//! announce themselves ([`Queue::announce_render`]) so the API can say when a
//! render scan waits because none is alive ([`Queue::render_available`]).

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;

use crate::error::Result;

mod embedded;
pub mod redis;

/// How often a worker confirms it still holds its job when the backend has no
/// visibility timeout (the embedded service).
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);

/// How often a consumer that renders announces itself.
pub const RENDER_PRESENCE_EVERY: Duration = Duration::from_secs(5);
/// How long an announcement counts: a render worker not heard from for this
/// long is taken for gone (three announcements missed).
pub const RENDER_PRESENCE_TTL: Duration = Duration::from_secs(15);

/// One scan to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The scan's id.
    pub scan_id: String,
    /// Higher priorities are taken first; FIFO within a priority.
    pub priority: Priority,
    /// A render scan: only a consumer that renders takes it. Jobs queued
    /// before render mode existed read as `false`.
    #[serde(default)]
    pub render: bool,
}

impl Job {
    /// The job of `scan` (its priority and render mode).
    pub fn of(scan: &crate::store::Scan) -> Job {
        Job {
            scan_id: scan.id.clone(),
            priority: scan.config.priority,
            render: scan.config.render,
        }
    }
}

/// What a consumer can run: it is only handed jobs it can.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// It has a browser: it takes render jobs as well as static ones.
    pub render: bool,
}

impl Capabilities {
    /// A plain consumer: static jobs only.
    pub const STATIC: Capabilities = Capabilities { render: false };
    /// A consumer with a browser: every job.
    pub const RENDER: Capabilities = Capabilities { render: true };
}

/// The hold of one delivery on its job: what `ack`, `heartbeat`, `release`
/// and `dead_letter` present. Only the job's latest delivery's lease is
/// honoured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The scan the job runs.
    pub scan_id: String,
    /// The delivery's token (unique per delivery, increasing).
    pub token: u64,
}

/// A job handed to a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The job.
    pub job: Job,
    /// How many times it was delivered, this one included.
    pub attempt: u32,
    /// This delivery's hold on the job.
    pub lease: Lease,
}

/// The job queue. Object-safe: held as `Arc<dyn Queue>`.
#[async_trait]
pub trait Queue: Send + Sync + 'static {
    /// Adds a job. Idempotent: a scan already queued or in flight is not added twice.
    async fn enqueue(&self, job: Job) -> Result<()>;
    /// Takes the next job this consumer `can` run (highest priority, oldest
    /// first; a render job only when `can.render`), waiting up to `wait` for
    /// one without polling (the embedded backend waits on a notification,
    /// Redis on a blocking stream read). The job stays in flight, under the
    /// returned lease, until it is acknowledged, released or dead-lettered.
    async fn dequeue(&self, wait: Duration, can: Capabilities) -> Result<Option<Delivery>>;
    /// Marks a job done and forgets it. `LeaseLost` when `lease` is not the
    /// job's current delivery (or the job is gone).
    async fn ack(&self, lease: &Lease) -> Result<()>;
    /// Tells the queue the worker holding this job is alive, so a backend with a
    /// visibility timeout (Redis) does not hand it to another worker. Workers call
    /// it every [`Queue::heartbeat_every`] during a scan. `LeaseLost` when the
    /// lease moved on: the worker must stop working on the job.
    async fn heartbeat(&self, lease: &Lease) -> Result<()>;
    /// Gives a job in hand back: it is ready again at once (at the end of its
    /// priority), for this or another worker; a non-empty `reason` is kept as
    /// its last failure. `LeaseLost` when the lease moved on.
    async fn release(&self, lease: &Lease, reason: &str) -> Result<()>;
    /// Gives a job in hand back through no fault of its own (its worker's
    /// browser broke): as [`Queue::release`] with no reason, and this
    /// delivery is not counted (its attempt number is what it was before it
    /// was taken), so a broken worker cannot use a job's attempts up.
    /// `LeaseLost` when the lease moved on.
    async fn hand_back(&self, lease: &Lease) -> Result<()>;
    /// Gives a job up: it leaves the queue for the dead-letter record with its
    /// attempt count and `reason`. `LeaseLost` when the lease moved on.
    async fn dead_letter(&self, lease: &Lease, reason: &str) -> Result<()>;
    /// The last failure recorded for a job (a `release` reason), if any.
    async fn last_failure(&self, scan_id: &str) -> Result<Option<String>>;
    /// Puts in-flight jobs back in the queue, ending their leases: on the
    /// embedded service every one (at start-up, when no worker can hold one);
    /// on Redis only the ones this process holds. Returns how many.
    async fn recover(&self) -> Result<usize>;
    /// Jobs waiting (not in flight).
    async fn ready_len(&self) -> Result<usize>;
    /// Says that this process runs consumers that render, for
    /// [`RENDER_PRESENCE_TTL`]; repeated every [`RENDER_PRESENCE_EVERY`] while
    /// they run.
    async fn announce_render(&self) -> Result<()>;
    /// Withdraws this process's announcement (its render consumers stopped).
    async fn withdraw_render(&self) -> Result<()>;
    /// Whether any process announced render consumers within
    /// [`RENDER_PRESENCE_TTL`]: when not, a render job waits for nobody.
    async fn render_available(&self) -> Result<bool>;
    /// How often a worker must heartbeat its job to keep it.
    fn heartbeat_every(&self) -> Duration {
        HEARTBEAT_EVERY
    }
}
