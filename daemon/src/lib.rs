//! # sitescan-daemon
//!
//! Everything that runs sitescan as a program: the command line ([`cli`]), the
//! REST API ([`api`]), the dashboard ([`dashboard`]), the store ([`store`]) and job queue ([`queue`]) with their
//! embedded backend, the in-process workers ([`worker`]) and logging
//! ([`telemetry`]). The `sitescan` binary is a few lines calling [`cli::main`].
#![deny(missing_docs)]

pub mod api;
pub mod cli;
pub mod dashboard;
pub mod error;
pub mod executor;
pub mod fleet;
pub mod queue;
pub mod store;
pub mod telemetry;
pub mod webhooks;
pub mod worker;

pub use error::{Error, Result};
