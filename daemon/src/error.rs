//! The daemon's one error type: what the store, the queue, the workers and the
//! service setup can fail with. The API maps it to its documented code table
//! (`api::error`); the CLI maps it to exit codes.

use thiserror::Error;

/// A failure of the service's own machinery (never a finding of a scan).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The account's scans for this UTC day are used up.
    #[error("the plan allows {limit} scans per UTC day and they are used up; try again after the next UTC midnight or upgrade the plan")]
    QuotaExceeded {
        /// Scans allowed per UTC day.
        limit: u32,
    },
    /// A record the operation needs does not exist.
    #[error("{kind} `{id}` not found")]
    NotFound {
        /// What was looked for (`account`, `site`, `scan`, `key`).
        kind: &'static str,
        /// Its id.
        id: String,
    },
    /// The operation does not fit the record's current state (e.g. canceling a
    /// finished scan).
    #[error("{0}")]
    Conflict(String),
    /// The storage backend failed (disk, database file, Redis).
    #[error("storage failure: {0}; check the data directory (or Redis) is reachable and writable")]
    Storage(String),
    /// The storage backend cannot be reached right now (Redis down, connection
    /// lost, timeout): retrying later may work. The API answers 503.
    #[error("storage unreachable: {0}; retry shortly")]
    Unavailable(String),
    /// A worker presented a job lease that is no longer the job's current
    /// delivery (the job was reclaimed by another worker, recovered at a
    /// restart, or finished): it must leave the job alone.
    #[error("the job of scan `{scan_id}` is no longer held by this worker (its lease moved on: reclaimed by another worker, recovered or finished)")]
    LeaseLost {
        /// The job's scan.
        scan_id: String,
    },
    /// A stored record could not be decoded.
    #[error("stored record is corrupt: {0}")]
    Corrupt(String),
    /// The service configuration is unusable.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Reading or writing a file or socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The scan engine refused to run.
    #[error(transparent)]
    Engine(#[from] sitescan_engine::Error),
    /// A webhook receiver refused a `Sitescan-Signature` header
    /// ([`crate::webhooks::verify_signature`]); the reason says why.
    #[error("webhook signature refused: {0}")]
    Signature(crate::webhooks::SignatureProblem),
}

/// Result with the daemon's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A storage failure from any displayable backend error.
    pub fn storage(e: impl std::fmt::Display) -> Self {
        Error::Storage(e.to_string())
    }
}
