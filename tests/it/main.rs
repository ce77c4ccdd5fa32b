//! End-to-end tests, all in one binary (as ripgrep and omniqueue do).
//!
//! - `cli`: the `sitescan` binary's commands, exit codes and messages.
//! - `crawl`: the crawler over real HTTP against the fixture server (politeness,
//!   limits, redirects, SSRF guard, sitemaps, the library API).
//! - `conformance`: the ACT conformance floor (`conformance/floor.json`).
//! - `site_checks`: link/resource checks over the network and the security grade.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod cli;
mod conformance;
mod crawl;
mod site_checks;
