//! # sitescan-daemon
//!
//! Everything that runs sitescan as a program: the command line ([`cli`]), and —
//! as they land — the REST API, the store and queue backends, the workers and
//! webhooks. The `sitescan` binary is a few lines calling [`cli::main`].
#![deny(missing_docs)]

pub mod cli;
pub mod telemetry;
