//! The fleet's scale-out figure: N scans of a generated fixture site with 1, 2
//! and 4 `sitescan worker` processes (one scan at a time each) on one Redis,
//! printing scans/minute and pages/second for each. `scripts/fleet-scale` runs
//! it (`cargo bench --bench fleet_scale`); `SITESCAN_SCALE_SCANS` and
//! `SITESCAN_SCALE_PAGES` set the load (12 scans of 20 pages by default).
//!
//! A measurement, not a test: it drives the same harness as the fleet tests
//! (`tests/it/fleet_support.rs`: the built binary, Redis servers, tenants), and
//! stops with an error if a scan does not complete or no pages were fetched,
//! since the figure would then not time the work. Under `cargo test --benches`
//! (no `--bench` argument) it only says how to run it: it takes minutes.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

// The fleet tests' scan of a site (the contract's); the rest of that module,
// the contract itself, is unused here.
#[path = "../tests/it/contract.rs"]
#[allow(dead_code, unreachable_pub, unused_imports)]
mod contract;
#[path = "../tests/it/fleet_support.rs"]
#[allow(dead_code, unreachable_pub)]
mod fleet_support;

use std::time::{Duration, Instant};

use chrono::Utc;
use sitescan_daemon::queue::{Job, Queue};
use sitescan_daemon::store::{Scan, ScanStatus, Store};
use sitescan_engine::Priority;
use sitescan_fixtures::FixtureServer;

use fleet_support::{backend, shared_redis, tenant, wait_scans, PrefixGuard, Worker};

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("fleet-scale: a measurement of minutes; run it with scripts/fleet-scale or cargo bench --bench fleet_scale");
        return;
    }
    let env_num = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let scans = env_num("SITESCAN_SCALE_SCANS", 12);
    let pages = env_num("SITESCAN_SCALE_PAGES", 20);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(measure(scans, pages));
}

async fn measure(scans: usize, pages: usize) {
    let (url, _server) = shared_redis();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    sitescan_fixtures::generate_site(pages, 5, &dir).unwrap();
    let fixture = FixtureServer::start(&dir).await.unwrap();
    println!("fleet-scale: {scans} scans of a {pages}-page generated site, Redis {url}");
    println!(
        "{:>7} {:>10} {:>12} {:>10}",
        "workers", "seconds", "scans/min", "pages/s"
    );
    for workers in [1usize, 2, 4] {
        let guard = PrefixGuard::new(&url);
        let store = backend(&url, &guard.prefix, Duration::from_secs(60), 3).await;
        let (_acc, site) = tenant(&store, &fixture.url()).await;
        let mut ids = Vec::new();
        for _ in 0..scans {
            let mut scan: Scan = contract::scan(&site);
            scan.config.max_pages = pages;
            let scan = store
                .create_scan_if_quota(scan, Utc::now().date_naive(), None)
                .await
                .unwrap();
            ids.push(scan.id);
        }
        let procs: Vec<Worker> = (0..workers)
            .map(|i| {
                Worker::start(
                    &url,
                    &guard.prefix,
                    &["--concurrency", "1"],
                    &tmp.path().join(format!("scale-{workers}-{i}.log")),
                )
            })
            .collect();
        let started = Instant::now();
        for id in &ids {
            store
                .enqueue(Job {
                    scan_id: id.clone(),
                    priority: Priority::Normal,
                    render: false,
                })
                .await
                .unwrap();
        }
        let done = wait_scans(&store, &ids, Duration::from_secs(1800), |s| {
            s.status == ScanStatus::Completed
        })
        .await;
        let secs = started.elapsed().as_secs_f64();
        let fetched = store.stats().await.unwrap().pages;
        // Without these the figure would time something other than the scans.
        assert_eq!(done.len(), scans);
        assert!(
            fetched as usize >= scans,
            "{workers} workers fetched {fetched} pages for {scans} scans"
        );
        println!(
            "{workers:>7} {secs:>10.2} {:>12.1} {:>10.1}",
            scans as f64 * 60.0 / secs,
            fetched as f64 / secs
        );
        drop(procs);
    }
}
