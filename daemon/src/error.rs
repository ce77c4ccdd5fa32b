//! The daemon's one error type: what the domain operations (`ops`), the store,
//! the queue, the workers and the service setup can fail with. The API maps
//! it to its documented code table (`api::error`), the dashboard to a form's
//! field errors or an error page, the CLI to exit codes.

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
    /// The request breaks a rule of the operation; every problem is named.
    #[error("{0}")]
    Invalid(Problems),
    /// A record the operation needs does not exist (or is another account's).
    #[error("{kind} `{id}` not found")]
    NotFound {
        /// What was looked for (`account`, `site`, `scan`, `key`, `webhook`,
        /// `delivery`, `user`).
        kind: &'static str,
        /// Its id.
        id: String,
    },
    /// The operation does not fit the record's current state (e.g. canceling a
    /// finished scan).
    #[error("{0}")]
    Conflict(String),
    /// What was asked for does not exist yet (a report of a scan that has not
    /// completed).
    #[error("{0}")]
    NotReady(String),
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
    /// Site credentials were to be saved, and the service has no secret key
    /// to seal them with (`SITESCAN_SECRET_KEY`). The API answers 503
    /// `secret_key_missing`.
    #[error("the server has no secret key, so it cannot keep credentials: start it with SITESCAN_SECRET_KEY or SITESCAN_SECRET_KEY_FILE set (see the Authenticated scans docs)")]
    SecretKeyMissing,
    /// Stored credentials do not open with the service's secret key (another
    /// key, a record copied from another site, or tampering).
    #[error("{0}")]
    Unsealable(String),
    /// Reading or writing a file or socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The scan engine refused to run.
    #[error(transparent)]
    Engine(#[from] sitescan_engine::Error),
    /// A webhook receiver refused a `Sitescan-Signature` header
    /// (`webhooks::verify_signature`); the reason says why.
    #[error("webhook signature refused: {0}")]
    Signature(SignatureProblem),
}

/// Result with the daemon's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A storage failure from any displayable backend error.
    pub fn storage(e: impl std::fmt::Display) -> Self {
        Error::Storage(e.to_string())
    }

    /// [`Error::Invalid`] naming one field.
    pub fn invalid(field: impl Into<String>, problem: impl Into<String>) -> Self {
        let mut p = Problems::default();
        p.add(field, problem);
        Error::Invalid(p)
    }

    /// [`Error::NotFound`].
    pub fn not_found(kind: &'static str, id: impl Into<String>) -> Self {
        Error::NotFound {
            kind,
            id: id.into(),
        }
    }
}

/// One problem with a request: which field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// The field, as a path into the request (`config.rules[0]`, `name`).
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

/// Every problem of one request, gathered so the answer names them all at
/// once (a client fixes its request in one round trip, not one per field).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems(Vec<FieldProblem>);

impl Problems {
    /// Adds a problem with `field`.
    pub fn add(&mut self, field: impl Into<String>, problem: impl Into<String>) {
        self.0.push(FieldProblem {
            field: field.into(),
            problem: problem.into(),
        });
    }

    /// The value of `result`, or `None` after keeping its problems: an
    /// [`Error::Invalid`]'s are kept as they are, any other error as one
    /// problem of `field`.
    pub fn take<T>(&mut self, field: &str, result: Result<T>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(Error::Invalid(p)) if !p.is_empty() => {
                self.0.extend(p.0);
                None
            }
            Err(e) => {
                self.add(field, e.to_string());
                None
            }
        }
    }

    /// Whether a problem with `field` was found.
    pub fn names(&self, field: &str) -> bool {
        self.0.iter().any(|d| d.field == field)
    }

    /// Whether none was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The problems, in the order found.
    pub fn list(&self) -> &[FieldProblem] {
        &self.0
    }

    /// `Ok` when none was found, else [`Error::Invalid`] naming them all.
    pub fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(self))
        }
    }
}

impl From<Problems> for Vec<FieldProblem> {
    fn from(p: Problems) -> Self {
        p.0
    }
}

/// One problem `invalid request: field: problem`; several: `invalid request:
/// n problems (fields); details names each` (the API's message too).
impl std::fmt::Display for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.as_slice() {
            [] => f.write_str("invalid request"),
            [one] => write!(f, "invalid request: {}: {}", one.field, one.problem),
            many => {
                let fields: Vec<&str> = many.iter().map(|d| d.field.as_str()).collect();
                write!(
                    f,
                    "invalid request: {} problems ({}); details names each",
                    many.len(),
                    fields.join(", ")
                )
            }
        }
    }
}

/// Why a `Sitescan-Signature` header was refused (for a receiver's logs, for
/// example to log replays apart from forgeries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureProblem {
    /// The header has no `t=` or no `v1=`, or a part is malformed.
    Malformed,
    /// `t` is further from now than the tolerance (a replay, or a skewed clock).
    Expired,
    /// No `v1` matches the body under this secret.
    Mismatch,
}

impl std::fmt::Display for SignatureProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SignatureProblem::Malformed => "malformed Sitescan-Signature header",
            SignatureProblem::Expired => "timestamp outside the tolerance (replayed or delayed)",
            SignatureProblem::Mismatch => "no signature matches",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_gathered_and_said_as_the_api_says_them() {
        let mut p = Problems::default();
        assert_eq!(p.take("a", Ok::<u8, Error>(1)), Some(1));
        assert_eq!(p.take::<u8>("b", Err(Error::invalid("b[0]", "bad"))), None);
        assert_eq!(
            p.take::<u8>("c", Err(Error::Config("no".to_string()))),
            None
        );
        let fields: Vec<&str> = p.list().iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["b[0]", "c"]);
        assert_eq!(
            p.to_string(),
            "invalid request: 2 problems (b[0], c); details names each"
        );
        assert_eq!(
            Error::invalid("url", "the URL has no host").to_string(),
            "invalid request: url: the URL has no host"
        );
        assert!(Problems::default().finish().is_ok());
        assert!(matches!(p.finish(), Err(Error::Invalid(_))));
    }
}
