//! [`Queue`] on the embedded backend: jobs live in the same redb file as the
//! store, so a queued scan survives a restart. Ready jobs are ordered by a key
//! `rank << 56 | sequence` (high priority first, FIFO within a priority); every
//! unacknowledged job also has a state record, which makes `enqueue` idempotent,
//! lets [`Queue::recover`] put in-flight jobs back at start-up, and holds the
//! token of the job's current delivery: every transition of a job in hand
//! checks it inside its write transaction (see the lease section of
//! [`crate::queue`]). Render jobs are ready in a table of their own
//! (`queue_ready_render`, keyed the same way), read only by consumers that
//! render. A waiting `dequeue` sleeps on a notification that `enqueue`,
//! `release` and `recover` send to every waiter (a consumer woken for a job
//! it cannot take must not swallow the wake-up of one that can); it never
//! polls.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use redb::{ReadableTable, ReadableTableMetadata, WriteTransaction};
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;

use super::{Capabilities, Delivery, Job, Lease, Queue, RENDER_PRESENCE_TTL};
use crate::error::{Error, Result};
use crate::store::embedded::{
    decode, encode, Embedded, COUNTERS, QUEUE_DEAD, QUEUE_JOBS, QUEUE_READY, QUEUE_READY_RENDER,
};

/// State of one unacknowledged job.
#[derive(Debug, Serialize, Deserialize)]
struct JobState {
    job: Job,
    /// Its key in the ready table while ready; `None` while in flight.
    ready_key: Option<u64>,
    deliveries: u32,
    /// The token of the delivery holding the job; `None` while ready.
    #[serde(default)]
    lease: Option<u64>,
    /// The last failure recorded by a `release`.
    #[serde(default)]
    last_error: Option<String>,
}

/// A dead-lettered job.
#[derive(Debug, Serialize, Deserialize)]
struct DeadRecord {
    attempts: u32,
    reason: String,
    at: DateTime<Utc>,
}

fn rank(priority: Priority) -> u64 {
    match priority {
        Priority::High => 0,
        Priority::Normal => 1,
        Priority::Low => 2,
    }
}

/// Adds one to the counter `name` and returns it.
fn bump(txn: &WriteTransaction, name: &str) -> Result<u64> {
    let mut counters = txn.open_table(COUNTERS).map_err(Error::storage)?;
    let n = counters
        .get(name)
        .map_err(Error::storage)?
        .map(|v| v.value())
        .unwrap_or(0)
        + 1;
    counters.insert(name, n).map_err(Error::storage)?;
    Ok(n)
}

fn load(txn: &WriteTransaction, scan_id: &str) -> Result<Option<JobState>> {
    txn.open_table(QUEUE_JOBS)
        .map_err(Error::storage)?
        .get(scan_id)
        .map_err(Error::storage)?
        .map(|v| decode::<JobState>(v.value()))
        .transpose()
}

fn save(txn: &WriteTransaction, scan_id: &str, state: &JobState) -> Result<()> {
    txn.open_table(QUEUE_JOBS)
        .map_err(Error::storage)?
        .insert(scan_id, encode(state)?.as_slice())
        .map_err(Error::storage)?;
    Ok(())
}

/// The ready table of a job's lane.
fn lane(job: &Job) -> redb::TableDefinition<'static, u64, &'static str> {
    if job.render {
        QUEUE_READY_RENDER
    } else {
        QUEUE_READY
    }
}

/// Puts `state` in its lane's ready table (at the end of its priority),
/// ending its lease.
fn make_ready(txn: &WriteTransaction, scan_id: &str, state: &mut JobState) -> Result<()> {
    let seq = bump(txn, "queue_seq")?;
    let key = (rank(state.job.priority) << 56) | (seq & ((1 << 56) - 1));
    state.ready_key = Some(key);
    state.lease = None;
    txn.open_table(lane(&state.job))
        .map_err(Error::storage)?
        .insert(key, scan_id)
        .map_err(Error::storage)?;
    save(txn, scan_id, state)
}

/// The first key of a ready table, if any.
fn first_key(
    txn: &WriteTransaction,
    table: redb::TableDefinition<'static, u64, &'static str>,
) -> Result<Option<u64>> {
    Ok(txn
        .open_table(table)
        .map_err(Error::storage)?
        .first()
        .map_err(Error::storage)?
        .map(|(k, _)| k.value()))
}

/// The job held under `lease`, or `LeaseLost` (inside the caller's transaction,
/// so the check and the change that follows are one atomic step).
fn held(txn: &WriteTransaction, lease: &Lease) -> Result<JobState> {
    match load(txn, &lease.scan_id)? {
        Some(state) if state.ready_key.is_none() && state.lease == Some(lease.token) => Ok(state),
        _ => Err(Error::LeaseLost {
            scan_id: lease.scan_id.clone(),
        }),
    }
}

/// Takes the first ready job `can` run, if any, under a new lease: from the
/// static lane, or for a consumer that renders from whichever lane's first
/// job comes first (priority, then age).
fn take(txn: &WriteTransaction, can: Capabilities) -> Result<Option<Delivery>> {
    loop {
        let table = if can.render {
            match (
                first_key(txn, QUEUE_READY)?,
                first_key(txn, QUEUE_READY_RENDER)?,
            ) {
                (Some(plain), Some(render)) if render < plain => QUEUE_READY_RENDER,
                (None, Some(_)) => QUEUE_READY_RENDER,
                _ => QUEUE_READY,
            }
        } else {
            QUEUE_READY
        };
        let first = txn
            .open_table(table)
            .map_err(Error::storage)?
            .pop_first()
            .map_err(Error::storage)?
            .map(|(_, v)| v.value().to_string());
        let Some(scan_id) = first else {
            return Ok(None);
        };
        // A ready entry without its state was acknowledged meanwhile: skip it.
        let Some(mut state) = load(txn, &scan_id)? else {
            continue;
        };
        let token = bump(txn, "queue_lease")?;
        state.ready_key = None;
        state.deliveries += 1;
        state.lease = Some(token);
        save(txn, &scan_id, &state)?;
        return Ok(Some(Delivery {
            job: state.job,
            attempt: state.deliveries,
            lease: Lease { scan_id, token },
        }));
    }
}

#[async_trait]
impl Queue for Embedded {
    async fn enqueue(&self, job: Job) -> Result<()> {
        self.write(move |txn| {
            if load(txn, &job.scan_id)?.is_none() {
                let mut state = JobState {
                    job: job.clone(),
                    ready_key: None,
                    deliveries: 0,
                    lease: None,
                    last_error: None,
                };
                make_ready(txn, &job.scan_id, &mut state)?;
            }
            Ok(())
        })
        .await?;
        self.wake.notify_waiters();
        Ok(())
    }

    async fn dequeue(&self, wait: Duration, can: Capabilities) -> Result<Option<Delivery>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so an enqueue in between is not missed.
            let notified = self.wake.notified();
            // Look first with a read transaction: an empty queue then costs
            // no write (and no fsync).
            let empty = self
                .read(move |txn| {
                    let ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
                    let mut empty = ready.is_empty().map_err(Error::storage)?;
                    if empty && can.render {
                        let render = txn.open_table(QUEUE_READY_RENDER).map_err(Error::storage)?;
                        empty = render.is_empty().map_err(Error::storage)?;
                    }
                    Ok(empty)
                })
                .await?;
            let taken = if empty {
                None
            } else {
                self.write(move |txn| take(txn, can)).await?
            };
            if taken.is_some() {
                return Ok(taken);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    async fn ack(&self, lease: &Lease) -> Result<()> {
        let lease = lease.clone();
        self.write(move |txn| {
            held(txn, &lease)?;
            txn.open_table(QUEUE_JOBS)
                .map_err(Error::storage)?
                .remove(lease.scan_id.as_str())
                .map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn heartbeat(&self, lease: &Lease) -> Result<()> {
        let lease = lease.clone();
        // A write transaction only for the atomic check: the embedded backend
        // has no visibility timeout to renew.
        self.write(move |txn| held(txn, &lease).map(drop)).await
    }

    async fn release(&self, lease: &Lease, reason: &str) -> Result<()> {
        let (lease, reason) = (lease.clone(), reason.to_string());
        self.write(move |txn| {
            let mut state = held(txn, &lease)?;
            if !reason.is_empty() {
                state.last_error = Some(reason);
            }
            make_ready(txn, &lease.scan_id, &mut state)
        })
        .await?;
        self.wake.notify_waiters();
        Ok(())
    }

    async fn hand_back(&self, lease: &Lease) -> Result<()> {
        let lease = lease.clone();
        self.write(move |txn| {
            let mut state = held(txn, &lease)?;
            state.deliveries = state.deliveries.saturating_sub(1);
            make_ready(txn, &lease.scan_id, &mut state)
        })
        .await?;
        self.wake.notify_waiters();
        Ok(())
    }

    async fn dead_letter(&self, lease: &Lease, reason: &str) -> Result<()> {
        let (lease, reason) = (lease.clone(), reason.to_string());
        self.write(move |txn| {
            let state = held(txn, &lease)?;
            txn.open_table(QUEUE_JOBS)
                .map_err(Error::storage)?
                .remove(lease.scan_id.as_str())
                .map_err(Error::storage)?;
            let record = DeadRecord {
                attempts: state.deliveries,
                reason,
                at: Utc::now(),
            };
            txn.open_table(QUEUE_DEAD)
                .map_err(Error::storage)?
                .insert(lease.scan_id.as_str(), encode(&record)?.as_slice())
                .map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn last_failure(&self, scan_id: &str) -> Result<Option<String>> {
        let scan_id = scan_id.to_string();
        self.read(move |txn| {
            let jobs = txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
            let state = jobs
                .get(scan_id.as_str())
                .map_err(Error::storage)?
                .map(|v| decode::<JobState>(v.value()))
                .transpose()?;
            Ok(state.and_then(|s| s.last_error))
        })
        .await
    }

    async fn recover(&self) -> Result<usize> {
        let n = self
            .write(|txn| {
                let mut in_flight = Vec::new();
                for entry in txn
                    .open_table(QUEUE_JOBS)
                    .map_err(Error::storage)?
                    .iter()
                    .map_err(Error::storage)?
                {
                    let (k, v) = entry.map_err(Error::storage)?;
                    let state: JobState = decode(v.value())?;
                    if state.ready_key.is_none() {
                        in_flight.push((k.value().to_string(), state));
                    }
                }
                let n = in_flight.len();
                for (scan_id, mut state) in in_flight {
                    make_ready(txn, &scan_id, &mut state)?;
                }
                Ok(n)
            })
            .await?;
        if n > 0 {
            self.wake.notify_waiters();
        }
        Ok(n)
    }

    async fn ready_len(&self) -> Result<usize> {
        self.read(|txn| {
            let plain = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
            let render = txn.open_table(QUEUE_READY_RENDER).map_err(Error::storage)?;
            let n = plain.len().map_err(Error::storage)? + render.len().map_err(Error::storage)?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
        .await
    }

    async fn announce_render(&self) -> Result<()> {
        *self.render_seen.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(std::time::Instant::now());
        Ok(())
    }

    async fn withdraw_render(&self) -> Result<()> {
        *self.render_seen.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(())
    }

    async fn render_available(&self) -> Result<bool> {
        let seen = *self.render_seen.lock().unwrap_or_else(|p| p.into_inner());
        Ok(seen.is_some_and(|t| t.elapsed() < RENDER_PRESENCE_TTL))
    }
}
