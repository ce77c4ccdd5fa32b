//! # sitescan-daemon
//!
//! Everything that runs sitescan as a program, in layers (the docs' page
//! "Architecture: the layers"; `tests/layers.rs` fails on any import cycle):
//!
//! - adapters: the command line ([`cli`]), the REST API ([`api`]) and the
//!   dashboard ([`dashboard`]), with [`service`] composing the served app
//!   and [`scheduler`] firing scheduled scans;
//! - the domain operations ([`ops`]): every rule about keys, sites, scans,
//!   schedules, webhooks and users, returning the one [`Error`];
//! - what they share: the request state ([`state`]), the wire views
//!   ([`views`]), webhook delivery ([`webhooks`]), secrets ([`secrets`]);
//! - the machinery: the store ([`store`]) and job queue ([`queue`]) with their
//!   embedded and Redis backends, the workers ([`worker`], [`fleet`],
//!   [`executor`]) and logging ([`telemetry`]).
//!
//! The `sitescan` binary is a few lines calling [`cli::main`].
#![deny(missing_docs)]

pub mod api;
pub mod cli;
pub mod dashboard;
pub mod error;
pub mod executor;
pub mod fleet;
pub mod ops;
pub mod queue;
pub mod render_gate;
pub mod scheduler;
pub mod secret_key;
pub mod secrets;
pub mod service;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod views;
pub mod webhooks;
pub mod worker;

pub use error::{Error, Result};
