//! The scan job queue between the API (which enqueues) and the workers (which
//! take jobs). [`Queue`] is the trait; the embedded backend keeps jobs in the
//! same redb file as the store (`store::embedded`), the fleet's Redis backend in
//! streams. Delivery is at-least-once: a job taken and not acknowledged (its
//! worker crashed, the server was killed) is delivered again after
//! [`Queue::recover`] — the store's `start_scan` / `finish_scan` make a second
//! delivery harmless.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;

use crate::error::Result;

mod embedded;
pub mod redis;

/// How often a worker confirms it still holds its job.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);

/// One scan to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The scan's id.
    pub scan_id: String,
    /// Higher priorities are taken first; FIFO within a priority.
    pub priority: Priority,
}

/// A job handed to a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The job.
    pub job: Job,
    /// How many times it was delivered, this one included.
    pub attempt: u32,
}

/// The job queue. Object-safe: held as `Arc<dyn Queue>`.
#[async_trait]
pub trait Queue: Send + Sync + 'static {
    /// Adds a job. Idempotent: a scan already queued or in flight is not added twice.
    async fn enqueue(&self, job: Job) -> Result<()>;
    /// Takes the next job (highest priority, oldest first), waiting up to `wait`
    /// for one. The job stays in flight until [`Queue::ack`].
    async fn dequeue(&self, wait: Duration) -> Result<Option<Delivery>>;
    /// Marks a job done (idempotent).
    async fn ack(&self, scan_id: &str) -> Result<()>;
    /// Tells the queue the worker holding this job is alive, so a backend with a
    /// visibility timeout (Redis) does not hand it to another worker. Workers call
    /// it every [`HEARTBEAT_EVERY`] during a scan. The embedded backend has no
    /// timeout: there it only checks the job exists.
    async fn heartbeat(&self, scan_id: &str) -> Result<()>;
    /// Gives a job in hand back (a worker stopping before it finished): it is
    /// ready again at once, for this or another worker. Idempotent.
    async fn release(&self, scan_id: &str) -> Result<()>;
    /// Puts every in-flight job back in the queue (at start-up of the embedded
    /// service, when no worker can hold one). Returns how many.
    async fn recover(&self) -> Result<usize>;
    /// Jobs waiting (not in flight).
    async fn ready_len(&self) -> Result<usize>;
}
