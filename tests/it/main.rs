//! End-to-end tests, all in one binary (as ripgrep and omniqueue do).
//!
//! - `cli`: the `sitescan` binary's commands, exit codes and messages.
//! - `conformance`: the ACT conformance floor (`conformance/floor.json`).
//! - `reports`: report formats, baselines and gates (`sitescan report`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod cli;
mod conformance;
mod reports;
