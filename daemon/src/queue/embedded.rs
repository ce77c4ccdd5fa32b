//! [`Queue`] on the embedded backend: jobs live in the same redb file as the
//! store, so a queued scan survives a restart. Ready jobs are ordered by a key
//! `rank << 56 | sequence` (high priority first, FIFO within a priority); every
//! unacknowledged job also has a state record, which makes `enqueue` idempotent
//! and lets [`Queue::recover`] put in-flight jobs back at start-up.

use std::time::Duration;

use async_trait::async_trait;
use redb::{ReadableTable, ReadableTableMetadata};
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;

use super::{Delivery, Job, Queue};
use crate::error::{Error, Result};
use crate::store::embedded::{decode, encode, Embedded, COUNTERS, QUEUE_JOBS, QUEUE_READY};

/// State of one unacknowledged job.
#[derive(Debug, Serialize, Deserialize)]
struct JobState {
    job: Job,
    /// Its key in the ready table while ready; `None` while in flight.
    ready_key: Option<u64>,
    deliveries: u32,
}

fn rank(priority: Priority) -> u64 {
    match priority {
        Priority::High => 0,
        Priority::Normal => 1,
        Priority::Low => 2,
    }
}

fn next_key(txn: &redb::WriteTransaction, priority: Priority) -> Result<u64> {
    let mut counters = txn.open_table(COUNTERS).map_err(Error::storage)?;
    let seq = counters
        .get("queue_seq")
        .map_err(Error::storage)?
        .map(|v| v.value())
        .unwrap_or(0)
        + 1;
    counters.insert("queue_seq", seq).map_err(Error::storage)?;
    Ok((rank(priority) << 56) | (seq & ((1 << 56) - 1)))
}

#[async_trait]
impl Queue for Embedded {
    async fn enqueue(&self, job: Job) -> Result<()> {
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut jobs = txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
                if jobs
                    .get(job.scan_id.as_str())
                    .map_err(Error::storage)?
                    .is_none()
                {
                    let key = next_key(&txn, job.priority)?;
                    let mut ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
                    ready
                        .insert(key, job.scan_id.as_str())
                        .map_err(Error::storage)?;
                    let state = JobState {
                        job: job.clone(),
                        ready_key: Some(key),
                        deliveries: 0,
                    };
                    jobs.insert(job.scan_id.as_str(), encode(&state)?.as_slice())
                        .map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await?;
        self.wake.notify_one();
        Ok(())
    }

    async fn dequeue(&self, wait: Duration) -> Result<Option<Delivery>> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so an enqueue in between is not missed.
            let notified = self.wake.notified();
            let taken = self
                .blocking(|db| {
                    // Look first with a read transaction: an idle poll then
                    // costs no write (and no fsync).
                    {
                        let txn = db.begin_read().map_err(Error::storage)?;
                        let ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
                        if ready.is_empty().map_err(Error::storage)? {
                            return Ok(None);
                        }
                    }
                    let txn = db.begin_write().map_err(Error::storage)?;
                    let delivery = {
                        let mut ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
                        let first = ready
                            .pop_first()
                            .map_err(Error::storage)?
                            .map(|(_, v)| v.value().to_string());
                        match first {
                            None => None,
                            Some(scan_id) => {
                                let mut jobs =
                                    txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
                                let state = jobs
                                    .get(scan_id.as_str())
                                    .map_err(Error::storage)?
                                    .map(|v| decode::<JobState>(v.value()))
                                    .transpose()?;
                                match state {
                                    None => None,
                                    Some(mut state) => {
                                        state.ready_key = None;
                                        state.deliveries += 1;
                                        jobs.insert(scan_id.as_str(), encode(&state)?.as_slice())
                                            .map_err(Error::storage)?;
                                        Some(Delivery {
                                            job: state.job,
                                            attempt: state.deliveries,
                                        })
                                    }
                                }
                            }
                        }
                    };
                    txn.commit().map_err(Error::storage)?;
                    Ok(delivery)
                })
                .await?;
            if taken.is_some() {
                // Others may be waiting and more jobs may be ready.
                self.wake.notify_one();
                return Ok(taken);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(None);
            }
        }
    }

    async fn ack(&self, scan_id: &str) -> Result<()> {
        let scan_id = scan_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(Error::storage)?;
            {
                let mut jobs = txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
                let state = jobs
                    .remove(scan_id.as_str())
                    .map_err(Error::storage)?
                    .map(|v| decode::<JobState>(v.value()))
                    .transpose()?;
                if let Some(key) = state.and_then(|s| s.ready_key) {
                    let mut ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
                    ready.remove(key).map_err(Error::storage)?;
                }
            }
            txn.commit().map_err(Error::storage)?;
            Ok(())
        })
        .await
    }

    async fn heartbeat(&self, scan_id: &str) -> Result<()> {
        let scan_id = scan_id.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let jobs = txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
            match jobs.get(scan_id.as_str()).map_err(Error::storage)? {
                Some(_) => Ok(()),
                None => Err(Error::NotFound {
                    kind: "job",
                    id: scan_id,
                }),
            }
        })
        .await
    }

    async fn release(&self, scan_id: &str) -> Result<()> {
        let scan_id = scan_id.to_string();
        let released = self
            .blocking(move |db| {
                let txn = db.begin_write().map_err(Error::storage)?;
                let released = {
                    let state = txn
                        .open_table(QUEUE_JOBS)
                        .map_err(Error::storage)?
                        .get(scan_id.as_str())
                        .map_err(Error::storage)?
                        .map(|v| decode::<JobState>(v.value()))
                        .transpose()?;
                    match state {
                        Some(mut state) if state.ready_key.is_none() => {
                            let key = next_key(&txn, state.job.priority)?;
                            state.ready_key = Some(key);
                            txn.open_table(QUEUE_READY)
                                .map_err(Error::storage)?
                                .insert(key, scan_id.as_str())
                                .map_err(Error::storage)?;
                            txn.open_table(QUEUE_JOBS)
                                .map_err(Error::storage)?
                                .insert(scan_id.as_str(), encode(&state)?.as_slice())
                                .map_err(Error::storage)?;
                            true
                        }
                        _ => false,
                    }
                };
                txn.commit().map_err(Error::storage)?;
                Ok(released)
            })
            .await?;
        if released {
            self.wake.notify_one();
        }
        Ok(())
    }

    async fn recover(&self) -> Result<usize> {
        let n = self
            .blocking(|db| {
                let txn = db.begin_write().map_err(Error::storage)?;
                let mut n = 0;
                {
                    let mut in_flight = Vec::new();
                    {
                        let jobs = txn.open_table(QUEUE_JOBS).map_err(Error::storage)?;
                        for entry in jobs.iter().map_err(Error::storage)? {
                            let (k, v) = entry.map_err(Error::storage)?;
                            let state: JobState = decode(v.value())?;
                            if state.ready_key.is_none() {
                                in_flight.push((k.value().to_string(), state));
                            }
                        }
                    }
                    for (scan_id, mut state) in in_flight {
                        let key = next_key(&txn, state.job.priority)?;
                        state.ready_key = Some(key);
                        txn.open_table(QUEUE_READY)
                            .map_err(Error::storage)?
                            .insert(key, scan_id.as_str())
                            .map_err(Error::storage)?;
                        txn.open_table(QUEUE_JOBS)
                            .map_err(Error::storage)?
                            .insert(scan_id.as_str(), encode(&state)?.as_slice())
                            .map_err(Error::storage)?;
                        n += 1;
                    }
                }
                txn.commit().map_err(Error::storage)?;
                Ok(n)
            })
            .await?;
        if n > 0 {
            self.wake.notify_one();
        }
        Ok(n)
    }

    async fn ready_len(&self) -> Result<usize> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(Error::storage)?;
            let ready = txn.open_table(QUEUE_READY).map_err(Error::storage)?;
            Ok(usize::try_from(ready.len().map_err(Error::storage)?).unwrap_or(usize::MAX))
        })
        .await
    }
}
