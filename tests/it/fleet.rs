//! The fleet on a real Redis: the store/queue contract on the Redis backend,
//! and real `sitescan worker` processes under faults (kill -9, SIGTERM, a Redis
//! restart, a job that always fails), scanning fixture sites on loopback.
//!
//! Isolation: every test uses its own random key prefix, deleted by a `Drop`
//! guard; the fault tests that stop Redis start their own `redis-server` on a
//! free port (`SITESCAN_TEST_REDIS_BIN`, else `redis-server` on PATH). Nothing
//! is mocked. Waits poll with deadlines.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use sitescan_daemon::queue::{Capabilities, Job, Queue};
use sitescan_daemon::store::redis::RedisBackend;
use sitescan_daemon::store::{fixture, new_id, Plan, Scan, ScanStatus, Site, Store};
use sitescan_engine::Priority;
use sitescan_fixtures::FixtureServer;

use crate::contract;
// The dashboard's fleet test reaches these through this module.
pub use crate::fleet_support::{backend, shared_redis, PrefixGuard};
use crate::fleet_support::{free_port, signal, tenant, wait_for, wait_scans, RedisServer, Worker};
use crate::webhook_support::test_webhook;

// ---- the contract on Redis

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_backend_meets_the_store_and_queue_contract() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let b = Arc::new(backend(&url, &guard.prefix, Duration::from_secs(300), 3).await);
    contract::accounts_and_keys(b.clone()).await;
    contract::sites(b.clone()).await;
    contract::quota_is_atomic(b.clone()).await;
    contract::scan_lifecycle(b.clone()).await;
    contract::reports_in_chunks(b.clone()).await;
    contract::queue_contract(b.clone()).await;
    // Two processes: a plain worker and one that renders.
    let renderer = Arc::new(backend(&url, &guard.prefix, Duration::from_secs(300), 3).await);
    contract::render_lane(b.clone(), renderer).await;
    contract::webhooks_and_outbox(b.clone()).await;
    contract::users_and_sessions(b.clone()).await;
    contract::transitions_write_their_events(b.clone()).await;
    contract::quota_refunds(b.clone()).await;
    contract::idempotency_keys(b.clone()).await;
    contract::schedules(b.clone()).await;
    // Everything lives under the prefix, and the guard's clean-up finds it.
    assert!(b.delete_all().await.unwrap() > 0);
}

/// [`contract::pictures_follow_the_report`] on Redis: the one pictures key
/// under the prefix is the completed scan's hash, holding its two pictures,
/// kept like its report (no expiry); no upload of the dropped completions
/// is left behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_pictures_follow_the_report() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let b = Arc::new(backend(&url, &guard.prefix, Duration::from_secs(300), 3).await);
    let left = contract::pictures_follow_the_report(b.clone()).await;
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let mut keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:screenshots:*", guard.prefix))
        .query(&mut conn)
        .unwrap();
    keys.sort();
    let pictures = format!("{}:screenshots:{}", guard.prefix, left.scan_id);
    assert_eq!(keys, std::slice::from_ref(&pictures));
    let mut fields: Vec<String> = redis::cmd("HKEYS").arg(&pictures).query(&mut conn).unwrap();
    fields.sort();
    assert_eq!(fields, left.ids);
    let ttl = |key: String, conn: &mut redis::Connection| -> i64 {
        redis::cmd("TTL").arg(key).query(conn).unwrap()
    };
    assert_eq!(ttl(pictures, &mut conn), -1);
    let report = format!("{}:report:{}", guard.prefix, left.scan_id);
    assert_eq!(ttl(report, &mut conn), -1, "kept as the report is");
    let uploads: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:*:upload:*", guard.prefix))
        .query(&mut conn)
        .unwrap();
    assert_eq!(uploads, Vec::<String>::new());
}

/// Two API processes are two Redis clients: the per-day quota still holds
/// under a race (20 concurrent creations, professional plan: exactly 2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_holds_across_two_redis_clients() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let a = backend(&url, &guard.prefix, Duration::from_secs(300), 3).await;
    let b = backend(&url, &guard.prefix, Duration::from_secs(300), 3).await;
    let (acc, site) = tenant(&a, "https://example.com/").await;
    let day = Utc::now().date_naive();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let scan = contract::scan(&site);
        tasks.push(tokio::spawn(async move {
            store
                .create_scan_if_quota(scan, day, Plan::Professional.scans_per_day())
                .await
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(sitescan_daemon::Error::QuotaExceeded { limit: 2 }) => {}
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!(ok, 2);
    assert_eq!(b.scans_created_on(&acc.id, day).await.unwrap(), 2);
}

/// A render job whose renderer died is reclaimed only by another renderer:
/// a plain worker's reclaimer leaves the render lane alone (it would hold
/// the job where its own take never looks), and its depth is counted apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_render_jobs_are_reclaimed_by_renderers_only() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let vis = Duration::from_millis(300);
    let dead_renderer = backend(&url, &guard.prefix, vis, 3).await;
    let plain = backend(&url, &guard.prefix, vis, 3).await;
    let renderer = backend(&url, &guard.prefix, vis, 3).await;
    plain
        .enqueue(Job {
            scan_id: "scan_r".into(),
            priority: Priority::Low,
            render: true,
        })
        .await
        .unwrap();
    let d = plain.depths().await.unwrap();
    assert_eq!((d.low, d.render, d.in_flight), (1, 1, 0));
    let first = dead_renderer
        .dequeue(Duration::from_millis(50), Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (first.job.scan_id.as_str(), first.job.render),
        ("scan_r", true)
    );
    // It never heartbeats: past the timeout, the plain worker reclaims nothing.
    tokio::time::sleep(vis + Duration::from_millis(150)).await;
    assert_eq!(plain.reclaim(Capabilities::STATIC).await.unwrap(), 0);
    assert_eq!(
        plain
            .dequeue(Duration::from_millis(50), Capabilities::STATIC)
            .await
            .unwrap(),
        None
    );
    assert_eq!(renderer.reclaim(Capabilities::RENDER).await.unwrap(), 1);
    let d = renderer
        .dequeue(Duration::from_millis(50), Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (d.job.scan_id.as_str(), d.job.render, d.attempt),
        ("scan_r", true, 2)
    );
    renderer.ack(&d.lease).await.unwrap();
    let d = plain.depths().await.unwrap();
    assert_eq!((d.low, d.render, d.in_flight), (0, 0, 0));
}

/// A delivered job not heartbeated is reclaimed by another consumer after the
/// visibility timeout (attempt 2, a new lease); heartbeats keep it; the first
/// holder's lease is dead once it is reclaimed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_queue_reclaims_heartbeats_and_dead_letters() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let vis = Duration::from_millis(400);
    let a = backend(&url, &guard.prefix, vis, 2).await;
    let b = backend(&url, &guard.prefix, vis, 2).await;
    let job = |id: &str| Job {
        scan_id: id.into(),
        priority: Priority::Normal,
        render: false,
    };
    a.enqueue(job("scan_x")).await.unwrap();
    let first = a
        .dequeue(Duration::from_millis(50), Capabilities::STATIC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((first.job.scan_id.as_str(), first.attempt), ("scan_x", 1));
    // Heartbeats keep it from b for well past the timeout.
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        a.heartbeat(&first.lease).await.unwrap();
        assert_eq!(b.reclaim(Capabilities::STATIC).await.unwrap(), 0);
        assert_eq!(
            b.dequeue(Duration::ZERO, Capabilities::STATIC)
                .await
                .unwrap(),
            None
        );
    }
    // a stops beating (it "died"): b's reclaimer takes it after the timeout.
    tokio::time::sleep(vis + Duration::from_millis(100)).await;
    assert_eq!(b.reclaim(Capabilities::STATIC).await.unwrap(), 1);
    let d = b
        .dequeue(Duration::from_millis(50), Capabilities::STATIC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((d.job.scan_id.as_str(), d.attempt), ("scan_x", 2));
    assert_ne!(d.lease, first.lease);
    assert!(
        matches!(
            a.heartbeat(&first.lease).await,
            Err(sitescan_daemon::Error::LeaseLost { .. })
        ),
        "a lost it"
    );
    b.heartbeat(&d.lease).await.unwrap();
    // Dead-lettered with its attempts and reason; a's ack after that is refused.
    b.dead_letter(&d.lease, "gave up").await.unwrap();
    assert!(matches!(
        a.ack(&first.lease).await,
        Err(sitescan_daemon::Error::LeaseLost { .. })
    ));
    let dead = a.dead_jobs().await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(
        (
            dead[0].scan_id.as_str(),
            dead[0].attempts,
            dead[0].reason.as_str()
        ),
        ("scan_x", 2, "gave up")
    );
    let depths = a.depths().await.unwrap();
    assert_eq!((depths.normal, depths.in_flight, depths.dead), (0, 0, 1));
    // Weighted rounds: with every priority backed up, low still gets taken.
    for i in 0..16 {
        a.enqueue(Job {
            scan_id: format!("h{i}"),
            priority: Priority::High,
            render: false,
        })
        .await
        .unwrap();
        a.enqueue(Job {
            scan_id: format!("l{i}"),
            priority: Priority::Low,
            render: false,
        })
        .await
        .unwrap();
    }
    let mut lows = 0;
    for _ in 0..16 {
        let d = a
            .dequeue(Duration::ZERO, Capabilities::STATIC)
            .await
            .unwrap()
            .unwrap();
        if d.job.priority == Priority::Low {
            lows += 1;
        }
        a.ack(&d.lease).await.unwrap();
    }
    assert_eq!(lows, 2, "1 take in 8 starts with low");
}

// ---- fleet processes

/// Creates and enqueues `n` scans of `site` (3 pages at most each).
async fn submit(store: &RedisBackend, site: &Site, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let mut scan: Scan = contract::scan(site);
        scan.config.max_pages = 3;
        scan.config.rules = vec!["seo".into()];
        let scan = store
            .create_scan_if_quota(scan, Utc::now().date_naive(), None)
            .await
            .unwrap();
        store
            .enqueue(Job {
                scan_id: scan.id.clone(),
                priority: Priority::Normal,
                render: false,
            })
            .await
            .unwrap();
        ids.push(scan.id);
    }
    ids
}

fn small_site(dir: &Path, delay_ms: Option<u64>) -> PathBuf {
    sitescan_fixtures::generate_site(3, 11, dir).unwrap();
    if let Some(ms) = delay_ms {
        std::fs::write(dir.join("_headers"), format!("/*\n  Delay-Ms: {ms}\n")).unwrap();
    }
    dir.to_path_buf()
}

async fn statuses(store: &RedisBackend, ids: &[String]) -> Vec<Scan> {
    let mut out = Vec::new();
    for id in ids {
        out.push(store.scan_by_id(id).await.unwrap().unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_complete_thirty_scans_exactly_once() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), None);
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let ids = submit(&store, &site, 30).await;
    let workers: Vec<Worker> = (0..3)
        .map(|i| {
            Worker::start(
                &url,
                &guard.prefix,
                &["--concurrency", "2"],
                &tmp.path().join(format!("w{i}.log")),
            )
        })
        .collect();
    let scans = wait_scans(&store, &ids, Duration::from_secs(90), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    for s in &scans {
        assert_eq!(s.attempts, 1, "scan {} ran more than once", s.id);
        assert!(store.report(&s.id).await.unwrap().is_some());
        assert_eq!(s.summary.as_ref().unwrap().pages_fetched, 3);
    }
    let stats = store.stats().await.unwrap();
    assert_eq!(
        (stats.completed, stats.failed, stats.running, stats.pages),
        (30, 0, 0, 90)
    );
    let depths = store.depths().await.unwrap();
    assert_eq!(
        (
            depths.high,
            depths.normal,
            depths.low,
            depths.in_flight,
            depths.dead
        ),
        (0, 0, 0, 0, 0)
    );
    drop(workers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_worker_scan_is_completed_by_another_after_the_visibility_timeout() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), Some(700));
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(2), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let ids = submit(&store, &site, 1).await;
    let vis = ["--visibility-timeout", "2", "--concurrency", "1"];
    let mut first = Worker::start(&url, &guard.prefix, &vis, &tmp.path().join("a.log"));
    wait_scans(&store, &ids, Duration::from_secs(20), |s| {
        s.status == ScanStatus::Running
    })
    .await;
    first.child.kill().unwrap(); // SIGKILL: no clean-up at all
    first.child.wait().unwrap();
    let killed_at = Instant::now();
    let _second = Worker::start(&url, &guard.prefix, &vis, &tmp.path().join("b.log"));
    let scans = wait_scans(&store, &ids, Duration::from_secs(40), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    assert!(
        killed_at.elapsed() >= Duration::from_millis(1500),
        "reclaimed before the visibility timeout"
    );
    // Killed while fetching (pages answer after 700 ms), no page in analysis:
    // the crash is not the scan's, so it resumes with its attempt uncharged.
    assert_eq!(scans[0].attempts, 1);
    assert_eq!(store.stats().await.unwrap().completed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_the_scan_in_hand_or_hands_it_back_and_exits_0() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), Some(500));
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(60), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;

    // Grace long enough: the scan finishes, then the worker exits 0.
    let ids = submit(&store, &site, 1).await;
    let mut w = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "1", "--grace-period", "30"],
        &tmp.path().join("a.log"),
    );
    wait_scans(&store, &ids, Duration::from_secs(20), |s| {
        s.status == ScanStatus::Running
    })
    .await;
    signal(w.child.id(), "TERM");
    let more = submit(&store, &site, 1).await; // not taken: the worker is draining
    assert!(w.wait_exit(Duration::from_secs(40)).success());
    assert_eq!(
        statuses(&store, &ids).await[0].status,
        ScanStatus::Completed
    );
    assert_eq!(statuses(&store, &more).await[0].status, ScanStatus::Queued);
    assert_eq!(store.depths().await.unwrap().normal, 1);

    // No grace: the scan in hand goes back to the queue at once, exit 0.
    let mut w = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "1", "--grace-period", "0"],
        &tmp.path().join("b.log"),
    );
    wait_scans(&store, &more, Duration::from_secs(20), |s| {
        s.status == ScanStatus::Running
    })
    .await;
    signal(w.child.id(), "TERM");
    assert!(w.wait_exit(Duration::from_secs(20)).success());
    let depths = store.depths().await.unwrap();
    assert_eq!(
        (depths.normal, depths.in_flight),
        (1, 0),
        "handed back, not left in flight"
    );
    assert_eq!(statuses(&store, &more).await[0].status, ScanStatus::Queued);
    assert_eq!(store.stats().await.unwrap().running, 0);
    // The next worker completes it.
    let _w = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "1"],
        &tmp.path().join("c.log"),
    );
    let scans = wait_scans(&store, &more, Duration::from_secs(30), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    assert_eq!(scans[0].attempts, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_always_fails_is_dead_lettered_with_its_scan_failed() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 2).await;
    // Nothing listens there: every attempt fails to connect.
    let dead_url = format!("http://127.0.0.1:{}/", free_port());
    let (acc, site) = tenant(&store, &dead_url).await;
    // A webhook for every event: the failure path writes its events too.
    let hook = test_webhook(&acc.id, &dead_url, sitescan_daemon::webhooks::EVENT_TYPES);
    store.create_webhook(hook.clone()).await.unwrap();
    let ids = submit(&store, &site, 1).await;
    let _w = Worker::start(
        &url,
        &guard.prefix,
        &["--max-attempts", "2"],
        &tmp.path().join("a.log"),
    );
    let scans = wait_scans(&store, &ids, Duration::from_secs(60), |s| {
        s.status == ScanStatus::Failed
    })
    .await;
    let error = scans[0].error.clone().unwrap();
    assert!(error.starts_with("gave up after 2 attempts: "), "{error}");
    assert_eq!(scans[0].attempts, 2);
    let dead = store.dead_jobs().await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(
        (dead[0].scan_id.as_str(), dead[0].attempts),
        (ids[0].as_str(), 2)
    );
    assert_eq!(dead[0].reason, error);
    let depths = store.depths().await.unwrap();
    assert_eq!((depths.normal, depths.in_flight, depths.dead), (0, 0, 1));
    // Every status change has its event: the failed attempt put the scan
    // back in the queue, the last one failed it.
    let mut log = store.list_deliveries(&hook.id, 20).await.unwrap();
    log.reverse();
    let types: Vec<&str> = log.iter().map(|d| d.event_type.as_str()).collect();
    assert_eq!(
        types,
        [
            "scan.queued",
            "scan.started",
            "scan.queued",
            "scan.started",
            "scan.failed"
        ]
    );
    let failed: serde_json::Value = serde_json::from_str(&log[4].payload).unwrap();
    assert_eq!(failed["data"]["status"], "failed");
    assert_eq!(failed["data"]["error"], error.as_str());
    assert_eq!(failed["data"]["attempts"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_reconnect_after_a_redis_restart_and_every_scan_completes() {
    let mut server = RedisServer::start();
    let url = server.url();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), Some(150));
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(5), 5).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let ids = submit(&store, &site, 10).await;
    let _workers: Vec<Worker> = (0..2)
        .map(|i| {
            Worker::start(
                &url,
                &guard.prefix,
                &["--concurrency", "2", "--visibility-timeout", "5"],
                &tmp.path().join(format!("w{i}.log")),
            )
        })
        .collect();
    wait_scans(&store, &ids, Duration::from_secs(30), |s| {
        s.status != ScanStatus::Queued
    })
    .await;
    let done_before = statuses(&store, &ids)
        .await
        .iter()
        .filter(|s| s.status == ScanStatus::Completed)
        .count();
    assert!(done_before < 10, "the outage must come under load");
    server.stop();
    assert!(store.ping().await.is_err());
    std::thread::sleep(Duration::from_millis(1500));
    server.restart();
    let scans = wait_scans(&store, &ids, Duration::from_secs(90), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    assert_eq!(scans.len(), 10);
    let stats = store.stats().await.unwrap();
    assert_eq!(stats.completed, 10, "each scan completed once");
    assert!(store.report(&ids[0]).await.unwrap().is_some());
}

/// `serve --redis` answers the API and `/metrics` from the shared Redis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_with_redis_serves_metrics() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (_acc, site) = tenant(&store, "https://example.com/").await;
    submit(&store, &site, 2).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--redis",
            &url,
            "--redis-prefix",
            &guard.prefix,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let base = v["listening"].as_str().unwrap().to_string();
    let body = metrics_text(&base).await;
    assert!(
        body.contains("sitescan_queue_depth{priority=\"normal\"} 2\n"),
        "{body}"
    );
    assert!(body.contains("sitescan_queue_depth{priority=\"high\"} 0\n"));
    assert!(body.contains("sitescan_dead_letter_size 0\n"));
    assert!(body.contains("sitescan_scans_total{status=\"completed\"} 0\n"));
    assert!(body.contains("# TYPE sitescan_pages_per_second gauge\n"));
    let ready = reqwest::get(format!("{base}/readyz")).await.unwrap();
    assert_eq!(ready.status().as_u16(), 200);
    signal(child.id(), "TERM");
    let status = child.wait().unwrap();
    assert!(status.success());
}

/// A `sitescan serve --redis` process; killed on drop.
struct ApiProcess {
    child: Child,
    base: String,
}

impl ApiProcess {
    fn start(url: &str, prefix: &str) -> ApiProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
            .args(["serve", "--bind", "127.0.0.1:0", "--allow-private"])
            .args(["--redis", url, "--redis-prefix", prefix])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let base = v["listening"].as_str().unwrap().to_string();
        ApiProcess { child, base }
    }
}

impl Drop for ApiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A key of `account` (the `ci` key, valid for a day) stored in `store`: its
/// secret, for the `X-API-Key` header.
async fn ci_key(store: &RedisBackend, account: &str) -> String {
    let (key, secret, hash) = sitescan_daemon::api::auth::new_key(
        account,
        "ci",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    store.create_key(key, &hash).await.unwrap();
    secret
}

/// The `data` of `GET /api/v1/scans/{id}` on the API at `base`, which must
/// answer 200.
async fn scan_view(
    client: &reqwest::Client,
    base: &str,
    secret: &str,
    id: String,
) -> serde_json::Value {
    let r = client
        .get(format!("{base}/api/v1/scans/{id}"))
        .header("X-API-Key", secret)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r.json::<serde_json::Value>().await.unwrap()["data"].clone()
}

/// The text of the `/metrics` of the process at `base`.
async fn metrics_text(base: &str) -> String {
    reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The `waiting_reason` the API gives a render scan while no render worker
/// runs.
fn no_render_worker() -> serde_json::Value {
    serde_json::json!({
        "code": "no_render_worker",
        "message": "no worker that can render (sitescan worker --render) is running; the scan waits in the queue and starts once one does"
    })
}

/// A fleet with a plain worker and, later, a `worker --render`, behind a
/// `serve --redis`: the plain worker runs the static scan and never the
/// render scan, which waits (the API says why: `waiting_reason`
/// `no_render_worker`) until the render worker comes and runs it in a
/// browser — the render site's log shows the JSON only its script requests.
/// Once the render worker has stopped, a new render scan waits again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_scans_go_only_to_render_workers_and_wait_visibly_for_one() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let static_dir = small_site(&tmp.path().join("static"), None);
    let static_site = FixtureServer::start(&static_dir).await.unwrap();
    let app = crate::api_render::app_site(&tmp.path().join("app")).await;
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, &static_site.url()).await;
    let app_site = store
        .create_site(Site {
            id: new_id("site").unwrap(),
            account_id: acc.id.clone(),
            url: app.url(),
            name: "app".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await
        .unwrap();
    let secret = ci_key(&store, &acc.id).await;
    let api = ApiProcess::start(&url, &guard.prefix);
    let client = reqwest::Client::new();
    let post = |site_id: String, config: serde_json::Value| {
        let (client, secret, base) = (client.clone(), secret.clone(), api.base.clone());
        async move {
            let r = client
                .post(format!("{base}/api/v1/sites/{site_id}/scans"))
                .header("X-API-Key", secret)
                .json(&serde_json::json!({ "config": config }))
                .send()
                .await
                .unwrap();
            (
                r.status().as_u16(),
                r.json::<serde_json::Value>().await.unwrap(),
            )
        }
    };
    let get = |id: String| scan_view(&client, &api.base, &secret, id);
    let metrics = || metrics_text(&api.base);
    let waiting = no_render_worker();

    let plain = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "2"],
        &tmp.path().join("plain.log"),
    );
    let (status, render_scan) = post(
        app_site.id.clone(),
        serde_json::json!({"rules": crate::api_render::APP_RULES, "max_pages": 1, "render": true}),
    )
    .await;
    assert_eq!(status, 202, "{render_scan}");
    assert_eq!(render_scan["data"]["waiting_reason"], waiting);
    let render_id = render_scan["data"]["id"].as_str().unwrap().to_string();
    let (status, static_scan) = post(
        site.id.clone(),
        serde_json::json!({"rules": ["seo"], "max_pages": 3}),
    )
    .await;
    assert_eq!(status, 202, "{static_scan}");
    assert!(static_scan["data"].get("waiting_reason").is_none());
    let static_id = static_scan["data"]["id"].as_str().unwrap().to_string();

    // The plain worker runs the static scan, queued after the render scan.
    wait_scans(
        &store,
        std::slice::from_ref(&static_id),
        Duration::from_secs(60),
        |s| s.status == ScanStatus::Completed,
    )
    .await;
    // More than a blocking read's time later, the render scan was never
    // delivered: still queued, no attempt, and the API says why.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let queued = get(render_id.clone()).await;
    assert_eq!(
        (
            &queued["status"],
            &queued["attempts"],
            &queued["waiting_reason"]
        ),
        (
            &serde_json::json!("queued"),
            &serde_json::json!(0),
            &waiting
        )
    );
    // The site's scan list says it too (the queue asked once per page).
    let list: serde_json::Value = client
        .get(format!("{}/api/v1/sites/{}/scans", api.base, app_site.id))
        .header("X-API-Key", secret.clone())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["data"][0]["id"], render_id.as_str());
    assert_eq!(list["data"][0]["waiting_reason"], waiting);
    let m = metrics().await;
    assert!(m.contains("sitescan_render_queue_depth 1\n"), "{m}");
    assert!(m.contains("sitescan_render_workers 0\n"), "{m}");
    assert!(
        m.contains("sitescan_queue_depth{priority=\"normal\"} 1\n"),
        "{m}"
    );
    assert_eq!(app.count("/"), 0, "nobody fetched the render site yet");

    // A worker that renders comes: it runs the render scan in its browser.
    let mut renderer = render_worker(&url, &guard.prefix, None, &tmp.path().join("render.log"));
    let done = wait_completed(&store, &render_id, Duration::from_secs(90)).await;
    assert_eq!(done.attempts, 1);
    let shown = get(render_id.clone()).await;
    assert!(shown.get("waiting_reason").is_none(), "{shown}");
    assert_eq!(shown["config"]["render"], true);
    assert_eq!(
        app.count("/api/hero.json"),
        1,
        "only a browser requests it: {:?}",
        app.paths()
    );
    assert_eq!(static_site.count("/"), 1);
    let report: serde_json::Value =
        serde_json::from_slice(&store.report(&render_id).await.unwrap().unwrap()).unwrap();
    let failed: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["outcome"] == "failed")
        .map(|f| {
            (
                f["rule_id"].as_str().unwrap(),
                f["selector"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [("image-alt", "#hero")],
        "the rendered page was judged"
    );
    // Who ran what: each worker's log names the scans it ran.
    let plain_log = std::fs::read_to_string(tmp.path().join("plain.log")).unwrap();
    let render_log = std::fs::read_to_string(tmp.path().join("render.log")).unwrap();
    assert!(
        plain_log.contains(&static_id),
        "the plain worker ran the static scan"
    );
    assert!(
        !plain_log.contains(&render_id),
        "the plain worker never took the render scan"
    );
    assert!(
        render_log.contains(&render_id),
        "the render worker ran the render scan"
    );
    assert!(!render_log.contains(&static_id));
    assert!(metrics().await.contains("sitescan_render_workers 1\n"));

    // It stops (withdrawing itself): a new render scan waits again, at once.
    signal(renderer.child.id(), "TERM");
    assert!(renderer.wait_exit(Duration::from_secs(30)).success());
    let (status, again) = post(
        app_site.id.clone(),
        serde_json::json!({"rules": ["seo"], "render": true}),
    )
    .await;
    assert_eq!(status, 202);
    assert_eq!(again["data"]["waiting_reason"], waiting);
    assert!(metrics().await.contains("sitescan_render_workers 0\n"));
    drop(plain);
}

/// Writes an executable `chromium` stand-in at `path`: it says why it fails
/// on stderr and exits 1, except while `works_once` exists, when it deletes
/// it and runs the real browser (a browser that starts once, then never).
fn fake_chromium(path: &Path, works_once: Option<&Path>) {
    use std::os::unix::fs::PermissionsExt;
    let once = works_once.map_or(String::new(), |m| {
        format!(
            "if [ -e '{m}' ]; then rm -f '{m}'; exec /usr/bin/chromium \"$@\"; fi\n",
            m = m.display()
        )
    });
    std::fs::write(
        path,
        format!("#!/bin/sh\n{once}echo 'chromium: broken on purpose' >&2\nexit 1\n"),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `worker --render` taking one scan at a time, logging to `log`: with the
/// real browser (no sandbox: the tests may run as root), or with the
/// executable `chromium` in its place.
fn render_worker(url: &str, prefix: &str, chromium: Option<&Path>, log: &Path) -> Worker {
    let mut env = vec![("SITESCAN_CHROMIUM_NO_SANDBOX", "1")];
    if let Some(bin) = chromium {
        env.insert(0, ("SITESCAN_CHROMIUM", bin.to_str().unwrap()));
    }
    Worker::start_with_env(url, prefix, &["--concurrency", "1", "--render"], &env, log)
}

/// Waits up to `within` for scan `id` to end, asserts that it completed
/// (showing its error when not), and returns it.
async fn wait_completed(store: &RedisBackend, id: &str, within: Duration) -> Scan {
    let done = wait_scans(store, &[id.to_string()], within, |s| s.status.is_terminal()).await;
    let done = done.into_iter().next().unwrap();
    assert_eq!(done.status, ScanStatus::Completed, "{:?}", done.error);
    done
}

/// Render workers whose browser fails leave render scans to the healthy
/// ones. A `worker --render` whose browser cannot start at all (a
/// `SITESCAN_CHROMIUM` that exits 1) never announces itself nor takes a
/// render scan: the scan waits with no attempt spent, and the API says it
/// waits for a render worker. A worker whose browser starts once (its
/// start-up probe) and then never again announces itself, takes the scan,
/// and on the browser's failure stops taking render scans, withdraws, and
/// hands the scan back (queued, its attempt given back, waiting again). A
/// healthy render worker then runs it to completion, on its first attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_workers_whose_browser_fails_leave_render_scans_to_healthy_ones() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(&tmp.path().join("app")).await;
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, &app.url()).await;
    let secret = ci_key(&store, &acc.id).await;
    let api = ApiProcess::start(&url, &guard.prefix);
    let client = reqwest::Client::new();
    let get = |id: String| scan_view(&client, &api.base, &secret, id);
    let render_workers = || {
        let base = api.base.clone();
        async move {
            let m = metrics_text(&base).await;
            m.lines()
                .find_map(|l| l.strip_prefix("sitescan_render_workers "))
                .unwrap_or_else(|| panic!("no render worker gauge in {m}"))
                .to_string()
        }
    };
    let waiting = no_render_worker();
    let log = |name: &str| std::fs::read_to_string(tmp.path().join(name)).unwrap_or_default();

    // A render worker whose browser cannot start.
    let broken_bin = tmp.path().join("broken-chromium");
    fake_chromium(&broken_bin, None);
    let _broken = render_worker(
        &url,
        &guard.prefix,
        Some(&broken_bin),
        &tmp.path().join("broken.log"),
    );
    wait_for("the broken worker's probe", Duration::from_secs(30), || {
        log("broken.log").contains("cannot start")
    });
    let broken_said = log("broken.log");
    assert!(
        broken_said.contains("this worker's browser cannot start: it takes no render scans"),
        "{broken_said}"
    );
    assert!(
        broken_said.contains("chromium: broken on purpose"),
        "{broken_said}"
    );
    let r = client
        .post(format!("{}/api/v1/sites/{}/scans", api.base, site.id))
        .header("X-API-Key", secret.clone())
        .json(&serde_json::json!({"config": {
            "rules": crate::api_render::APP_RULES, "max_pages": 1, "render": true
        }}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let created: serde_json::Value = r.json().await.unwrap();
    assert_eq!(created["data"]["waiting_reason"], waiting);
    let id = created["data"]["id"].as_str().unwrap().to_string();
    // Well past a blocking read and an announcement period: never taken.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let queued = get(id.clone()).await;
    assert_eq!(
        (
            &queued["status"],
            &queued["attempts"],
            &queued["waiting_reason"]
        ),
        (
            &serde_json::json!("queued"),
            &serde_json::json!(0),
            &waiting
        ),
        "{queued}"
    );
    assert_eq!(render_workers().await, "0");
    assert!(!log("broken.log").contains(&id));
    assert_eq!(app.count("/"), 0);

    // A worker whose browser starts once (its probe), then never again.
    let marker = tmp.path().join("starts-once");
    std::fs::write(&marker, "").unwrap();
    let flaky_bin = tmp.path().join("flaky-chromium");
    fake_chromium(&flaky_bin, Some(&marker));
    let _flaky = render_worker(
        &url,
        &guard.prefix,
        Some(&flaky_bin),
        &tmp.path().join("flaky.log"),
    );
    wait_for(
        "the flaky worker to give the scan back",
        Duration::from_secs(60),
        || log("flaky.log").contains("stops taking render scans"),
    );
    let handed_back = wait_scans(
        &store,
        std::slice::from_ref(&id),
        Duration::from_secs(30),
        |s| s.status == ScanStatus::Queued,
    )
    .await;
    assert_eq!(
        handed_back[0].attempts, 0,
        "the flaky worker's attempt is given back"
    );
    let flaky_said = log("flaky.log");
    assert!(flaky_said.contains(&id), "{flaky_said}");
    assert!(
        flaky_said.contains("this worker's browser does not work: it stops taking render scans"),
        "{flaky_said}"
    );
    assert!(!marker.exists(), "the probe used the one start");
    // Withdrawn: nobody renders, and the API says so again.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let shown = get(id.clone()).await;
        if shown["waiting_reason"] == waiting {
            assert_eq!(shown["status"], "queued");
            break;
        }
        assert!(Instant::now() < deadline, "still announced: {shown}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(render_workers().await, "0");

    // A healthy render worker runs it.
    let _healthy = render_worker(&url, &guard.prefix, None, &tmp.path().join("healthy.log"));
    let done = wait_completed(&store, &id, Duration::from_secs(120)).await;
    assert_eq!(done.attempts, 1, "only the healthy worker's attempt counts");
    assert!(log("healthy.log").contains(&id));
    assert!(
        !log("broken.log").contains(&id),
        "the broken worker never took it"
    );
    assert_eq!(
        app.count("/api/hero.json"),
        1,
        "rendered once, by the healthy worker"
    );
    assert!(get(id.clone()).await.get("waiting_reason").is_none());
}

/// Writes an executable `chromium` stand-in at `path` that runs the real
/// browser while `works_once` exists (it deletes it: the worker's start-up
/// probe gets a browser that works), and after that a real browser that
/// starts and answers its version, but crashes as soon as it is asked for
/// the protocol `method` (`Target.createBrowserContext`: every scan's first
/// step; `Target.createTarget`: every page's tab): the script sits between
/// the worker's pipe and the browser's, and kills the browser (`kill -9`)
/// when the request goes by. Each crash adds a line to `crashes`.
fn crashing_chromium(path: &Path, works_once: &Path, crashes: &Path, method: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(
        path,
        format!(
            r#"#!/bin/bash
if [ -e '{m}' ]; then rm -f '{m}'; exec /usr/bin/chromium "$@"; fi
dir=$(mktemp -d) || exit 1
mkfifo "$dir/in" || exit 1
/usr/bin/chromium "$@" 3<"$dir/in" &
browser=$!
exec 5>"$dir/in"
rm -rf "$dir"
while IFS= read -r -d '' message <&3; do
  case "$message" in
    *'"{method}"'*)
      echo crash >> '{c}'
      echo 'chromium: crashed on purpose' >&2
      kill -9 "$browser"
      exit 1;;
  esac
  printf '%s\0' "$message" >&5
done
kill "$browser"
"#,
            m = works_once.display(),
            c = crashes.display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `worker --render` whose browser starts and answers (so it never shows
/// as failing to start) but crashes on every browser context: its start-up
/// probe worked, so it announces itself and takes the render scan; the
/// browser dies twice under the scan (the engine restarts it once), which
/// is a crash loop; a fresh browser fails the probe too, so the worker
/// closes its render gate, withdraws, and hands the scan back: queued,
/// waiting for a render worker (`no_render_worker` through the API), with
/// no attempt spent, neither the scan's nor the queue's. A healthy render
/// worker then completes it on its first attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_worker_whose_browser_crashes_on_every_context_hands_the_scan_back_uncharged() {
    crashing_worker_hands_the_scan_back("Target.createBrowserContext", 3).await;
}

/// As above with a browser that crashes on every page's tab: the scan's one
/// page fails to render (the scan would complete with it unrendered), its
/// browser crashed once, and a fresh browser fails the probe (it crashes on
/// the probe's tab too): handed back at no cost, completed by a healthy
/// worker on its first attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_worker_whose_browser_crashes_on_every_page_hands_the_scan_back_uncharged() {
    crashing_worker_hands_the_scan_back("Target.createTarget", 2).await;
}

/// The two tests above: a worker whose browser is killed at `method`, and
/// at least `min_crashes` browsers killed before the scan is handed back.
async fn crashing_worker_hands_the_scan_back(method: &str, min_crashes: usize) {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(&tmp.path().join("app")).await;
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, &app.url()).await;
    let (key, secret, hash) = sitescan_daemon::api::auth::new_key(
        &acc.id,
        "ci",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    store.create_key(key, &hash).await.unwrap();
    let api = ApiProcess::start(&url, &guard.prefix);
    let client = reqwest::Client::new();
    let get = |id: String| {
        let (client, secret, base) = (client.clone(), secret.clone(), api.base.clone());
        async move {
            let r = client
                .get(format!("{base}/api/v1/scans/{id}"))
                .header("X-API-Key", secret)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            r.json::<serde_json::Value>().await.unwrap()["data"].clone()
        }
    };
    let render_workers = || {
        let base = api.base.clone();
        async move {
            let m = reqwest::get(format!("{base}/metrics"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            m.lines()
                .find_map(|l| l.strip_prefix("sitescan_render_workers "))
                .unwrap_or_else(|| panic!("no render worker gauge in {m}"))
                .to_string()
        }
    };
    let waiting = serde_json::json!({
        "code": "no_render_worker",
        "message": "no worker that can render (sitescan worker --render) is running; the scan waits in the queue and starts once one does"
    });
    let log = |name: &str| std::fs::read_to_string(tmp.path().join(name)).unwrap_or_default();
    // The queue's own count of the job's deliveries.
    let redis_client = redis::Client::open(url.as_str()).unwrap();
    let job_attempts = |id: &str| -> Option<String> {
        let mut conn = redis_client
            .get_connection_with_timeout(Duration::from_secs(5))
            .unwrap();
        redis::cmd("HGET")
            .arg(format!("{}:job:{id}", guard.prefix))
            .arg("attempts")
            .query(&mut conn)
            .unwrap()
    };

    let marker = tmp.path().join("starts-once");
    std::fs::write(&marker, "").unwrap();
    let crash_log = tmp.path().join("crashes");
    let crashing_bin = tmp.path().join("crashing-chromium");
    crashing_chromium(&crashing_bin, &marker, &crash_log, method);
    let _crashing = render_worker(
        &url,
        &guard.prefix,
        Some(&crashing_bin),
        &tmp.path().join("crashing.log"),
    );
    wait_for(
        "the crashing worker's start-up probe",
        Duration::from_secs(60),
        || log("crashing.log").contains("this worker's browser starts: it takes render scans"),
    );
    assert!(!marker.exists(), "the probe used the one working start");
    // Announced (the gate opened): the scan is not waiting for a worker.
    let deadline = Instant::now() + Duration::from_secs(20);
    while render_workers().await != "1" {
        assert!(Instant::now() < deadline, "never announced");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let r = client
        .post(format!("{}/api/v1/sites/{}/scans", api.base, site.id))
        .header("X-API-Key", secret.clone())
        .json(&serde_json::json!({"config": {
            "rules": crate::api_render::APP_RULES, "max_pages": 1, "render": true
        }}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let created: serde_json::Value = r.json().await.unwrap();
    assert!(created["data"].get("waiting_reason").is_none(), "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_string();

    wait_for(
        "the crashing worker to close its gate",
        Duration::from_secs(120),
        || log("crashing.log").contains("stops taking render scans"),
    );
    // Withdrawn, and the scan back in the queue at no cost: the API says it
    // waits for a render worker.
    let deadline = Instant::now() + Duration::from_secs(30);
    let shown = loop {
        let shown = get(id.clone()).await;
        if shown["waiting_reason"] == waiting && shown["status"] == "queued" {
            break shown;
        }
        assert!(Instant::now() < deadline, "not handed back: {shown}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(shown["attempts"], 0, "{shown}");
    let stored = store.scan_by_id(&id).await.unwrap().unwrap();
    assert_eq!((stored.status, stored.attempts), (ScanStatus::Queued, 0));
    assert_eq!(stored.error, None);
    assert_eq!(
        job_attempts(&id).as_deref(),
        Some("0"),
        "no delivery counted"
    );
    assert_eq!(render_workers().await, "0");
    let said = log("crashing.log");
    assert!(said.contains(&id), "{said}");
    assert!(
        said.contains("this worker's browser keeps crashing: probing a fresh one"),
        "{said}"
    );
    assert!(
        said.contains("this worker's browser does not work: it stops taking render scans"),
        "{said}"
    );
    assert!(
        said.contains("a fresh one fails too: the browser exited or crashed"),
        "{said}"
    );
    assert!(
        said.contains("it goes back to the queue, its attempt given back"),
        "{said}"
    );
    // The browsers that died under the scan, and the probe's fresh one.
    let crashes = std::fs::read_to_string(&crash_log).unwrap().lines().count();
    assert!(crashes >= min_crashes, "{crashes} crashes");
    assert_eq!(app.count("/api/hero.json"), 0, "no page was rendered");

    // A healthy render worker runs it, on its first attempt.
    let _healthy = render_worker(&url, &guard.prefix, None, &tmp.path().join("healthy.log"));
    let done = wait_completed(&store, &id, Duration::from_secs(120)).await;
    assert_eq!(done.attempts, 1, "only the healthy worker's attempt counts");
    assert!(log("healthy.log").contains(&id));
    assert_eq!(
        app.count("/api/hero.json"),
        1,
        "rendered once, by the healthy worker"
    );
    let shown = get(id.clone()).await;
    assert_eq!(shown["attempts"], 1);
    assert!(shown.get("waiting_reason").is_none(), "{shown}");
    // The crashing worker took it once, and never again.
    assert_eq!(
        log("crashing.log")
            .lines()
            .filter(|l| l.contains("\"scan started\"") && l.contains("sitescan_daemon::worker"))
            .count(),
        1,
        "{}",
        log("crashing.log")
    );
}

/// Two API processes on one Redis: 20 racing scan requests of a professional
/// account make exactly 2 scans. Then Redis goes away: the API answers 503
/// `service_unavailable`, and serves again once Redis is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_api_processes_share_the_quota_and_answer_503_while_redis_is_down() {
    let mut server = RedisServer::start();
    let url = server.url();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = fixture::tenant(&store, Plan::Professional, "http://127.0.0.1:9/")
        .await
        .unwrap();
    let secret = ci_key(&store, &acc.id).await;
    let apis = [
        ApiProcess::start(&url, &guard.prefix),
        ApiProcess::start(&url, &guard.prefix),
    ];
    let client = reqwest::Client::new();
    let calls = (0..20).map(|i| {
        let url = format!("{}/api/v1/sites/{}/scans", apis[i % 2].base, site.id);
        let (client, secret) = (client.clone(), secret.clone());
        tokio::spawn(async move {
            client
                .post(url)
                .header("X-API-Key", secret)
                .json(&serde_json::json!({"config": {"rules": ["seo"]}}))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        })
    });
    let mut statuses = Vec::new();
    for c in calls {
        statuses.push(c.await.unwrap());
    }
    statuses.sort();
    assert_eq!(statuses, [vec![202; 2], vec![429; 18]].concat());
    assert_eq!(
        store
            .scans_created_on(&acc.id, Utc::now().date_naive())
            .await
            .unwrap(),
        2
    );
    assert_eq!(store.depths().await.unwrap().normal, 2, "both queued once");

    let list = format!("{}/api/v1/sites/{}/scans", apis[0].base, site.id);
    let get = |client: reqwest::Client, url: String, secret: String| async move {
        let resp = client
            .get(url)
            .header("X-API-Key", secret)
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let body: serde_json::Value = resp.json().await.unwrap_or_default();
        (status, body)
    };
    let (status, _) = get(client.clone(), list.clone(), secret.clone()).await;
    assert_eq!(status, 200);
    server.stop();
    let (status, body) = get(client.clone(), list.clone(), secret.clone()).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "service_unavailable");
    let ready = client
        .get(format!("{}/readyz", apis[1].base))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status().as_u16(), 503);
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, body) = get(client.clone(), list.clone(), secret.clone()).await;
        if status == 200 {
            assert_eq!(body["data"].as_array().unwrap().len(), 2);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "API did not recover: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A worker's `/metrics` shows the fleet's counters as scans complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_metrics_count_completed_scans_and_pages() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), None);
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["worker", "--redis", &url, "--redis-prefix", &guard.prefix])
        .args(["--allow-private", "--metrics-bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let metrics = format!("{}/metrics", v["metrics"].as_str().unwrap());
    let body = reqwest::get(&metrics).await.unwrap().text().await.unwrap();
    assert!(
        body.contains("sitescan_scans_total{status=\"completed\"} 0\n"),
        "{body}"
    );
    let ids = submit(&store, &site, 2).await;
    wait_scans(&store, &ids, Duration::from_secs(30), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    let resp = reqwest::get(&metrics).await.unwrap();
    assert_eq!(
        resp.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let body = resp.text().await.unwrap();
    for want in [
        "sitescan_scans_total{status=\"completed\"} 2\n",
        "sitescan_scans_total{status=\"failed\"} 0\n",
        "sitescan_scans_running 0\n",
        "sitescan_pages_total 6\n",
        "sitescan_queue_depth{priority=\"normal\"} 0\n",
        "sitescan_jobs_in_flight 0\n",
    ] {
        assert!(body.contains(want), "missing {want:?} in\n{body}");
    }
    signal(child.id(), "TERM");
    assert!(child.wait().unwrap().success());
}

/// Reports are stored in chunks, never as one giant value, and read back whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_reports_are_stored_in_chunks() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (_acc, site) = tenant(&store, "https://example.com/").await;
    let ids = submit(&store, &site, 1).await;
    store
        .start_scan(&ids[0], Utc::now())
        .await
        .unwrap()
        .unwrap();
    let report: Vec<u8> = (0..sitescan_daemon::store::REPORT_CHUNK * 3 + 17)
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    let outcome = sitescan_daemon::store::ScanOutcome::Completed {
        summary: Default::default(),
        report: sitescan_daemon::store::ReportFile::from_bytes(&report).unwrap(),
        screenshots: Default::default(),
    };
    store
        .finish_scan(&ids[0], outcome.clone(), Utc::now())
        .await
        .unwrap();
    // Finishing twice (a reclaimed job) writes one result.
    store
        .finish_scan(&ids[0], outcome, Utc::now())
        .await
        .unwrap();
    assert_eq!(store.report(&ids[0]).await.unwrap().unwrap(), report);
    assert_eq!(store.stats().await.unwrap().completed, 1);
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let chunks: usize = redis::cmd("LLEN")
        .arg(format!("{}:report:{}", guard.prefix, ids[0]))
        .query(&mut conn)
        .unwrap();
    assert_eq!(chunks, 4);
    // The second finish's upload was not made (the scan was terminal) and the
    // first's was renamed to the report: no upload list is left behind.
    let uploads: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:report:{}:upload:*", guard.prefix, ids[0]))
        .query(&mut conn)
        .unwrap();
    assert_eq!(uploads, Vec::<String>::new());
}

/// A worker started before Redis waits for it, then works (no crash loop).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_started_before_redis_waits_for_it() {
    let port = free_port();
    let url = format!("redis://127.0.0.1:{port}/");
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["worker", "--redis", &url, "--redis-prefix", &guard.prefix])
        .arg("--allow-private")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(tmp.path().join("w.log")).unwrap())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    assert!(child.try_wait().unwrap().is_none(), "the worker gave up");
    let _server = RedisServer::start_on(port);
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"worker\""), "{line}");
    let site_dir = small_site(&tmp.path().join("site"), None);
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let ids = submit(&store, &site, 1).await;
    wait_scans(&store, &ids, Duration::from_secs(30), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    signal(child.id(), "TERM");
    assert!(child.wait().unwrap().success());
}

/// A worker frozen (SIGSTOP) past the visibility timeout loses its job (and
/// its lease) to another; when it thaws (SIGCONT) it sees the lease moved on
/// and leaves the job alone: the scan is completed once, with exactly one
/// `scan.completed` webhook delivery.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_worker_and_its_replacement_write_one_result() {
    use crate::webhook_support::{events_of, start_receiver};

    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), Some(600));
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(1), 3).await;
    let (acc, site) = tenant(&store, &fixture.url()).await;
    let (hook_url, receiver) = start_receiver(&[]).await;
    let hook = test_webhook(&acc.id, &hook_url, &["scan.completed"]);
    store.create_webhook(hook.clone()).await.unwrap();
    let ids = submit(&store, &site, 1).await;
    let opts = ["--visibility-timeout", "1", "--concurrency", "1"];
    let frozen_log = tmp.path().join("a.log");
    let frozen = Worker::start(&url, &guard.prefix, &opts, &frozen_log);
    wait_scans(&store, &ids, Duration::from_secs(20), |s| {
        s.status == ScanStatus::Running
    })
    .await;
    let first_start = statuses(&store, &ids).await[0].started_at;
    signal(frozen.child.id(), "STOP");
    let _other = Worker::start(&url, &guard.prefix, &opts, &tmp.path().join("b.log"));
    // Taken over: started again. Frozen while fetching (pages answer after
    // 600 ms), no page in analysis: the attempt is not charged.
    wait_scans(&store, &ids, Duration::from_secs(20), |s| {
        s.started_at != first_start
    })
    .await;
    signal(frozen.child.id(), "CONT");
    // The thawed worker finds its lease gone and stops working on the job.
    wait_for(
        "the thawed worker to see its lease lost",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(&frozen_log)
                .unwrap_or_default()
                .contains("lease lost")
        },
    );
    let scans = wait_scans(&store, &ids, Duration::from_secs(30), |s| {
        s.status == ScanStatus::Completed
    })
    .await;
    assert_eq!(scans[0].attempts, 1);
    // One result is written, the job is gone.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = store.depths().await.unwrap();
        if (d.normal, d.in_flight) == (0, 0) {
            break;
        }
        assert!(Instant::now() < deadline, "job left behind: {d:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stats = store.stats().await.unwrap();
    assert_eq!((stats.completed, stats.running), (1, 0));
    assert!(store.report(&ids[0]).await.unwrap().is_some());
    // Every delivery of the hook is settled (the outbox holds no pending
    // one), and the receiver got `scan.completed` exactly once.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let outbox = store.list_deliveries(&hook.id, 10).await.unwrap();
        if !outbox.is_empty()
            && outbox
                .iter()
                .all(|d| d.status != sitescan_daemon::store::DeliveryStatus::Pending)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "deliveries left pending: {outbox:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let completed: Vec<_> = events_of(&receiver)
        .into_iter()
        .filter(|e| e["type"] == "scan.completed")
        .collect();
    assert_eq!(completed.len(), 1, "{completed:?}");
    assert_eq!(completed[0]["data"]["id"], ids[0].as_str());
}

/// Canceling a scan a worker is running stops it and drops its job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canceling_a_running_scan_stops_the_worker_on_it() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), Some(1000));
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, &fixture.url()).await;
    let ids = submit(&store, &site, 1).await;
    let _w = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "1"],
        &tmp.path().join("a.log"),
    );
    wait_scans(&store, &ids, Duration::from_secs(20), |s| {
        s.status == ScanStatus::Running
    })
    .await;
    let canceled = store
        .cancel_scan(&acc.id, &ids[0], Utc::now())
        .await
        .unwrap();
    assert_eq!(canceled.status, ScanStatus::Canceled);
    let deadline = Instant::now() + Duration::from_secs(10);
    while store.depths().await.unwrap().in_flight > 0 {
        assert!(
            Instant::now() < deadline,
            "the worker kept the canceled job"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let scan = store.scan_by_id(&ids[0]).await.unwrap().unwrap();
    assert_eq!(scan.status, ScanStatus::Canceled);
    assert!(store.report(&ids[0]).await.unwrap().is_none());
    let stats = store.stats().await.unwrap();
    assert_eq!((stats.canceled, stats.completed, stats.running), (1, 0, 0));
}

/// Webhooks in fleet mode: the API process (`serve --redis`) and a worker
/// process share the Redis outbox. A real scan's events arrive signed and in
/// order queued -> started -> completed (the queued one written by the API
/// before any worker ran, delivered by the worker), the completed event's
/// `data` is what `GET /scans/{id}` answers, and a receiver failing twice
/// gets the event a third time, logged with its answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_events_of_a_fleet_scan_arrive_signed_in_order_and_retried() {
    use crate::webhook_support::{events_of, eventually, signed_event, start_receiver};
    use serde_json::{json, Value};

    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = small_site(&tmp.path().join("site"), None);
    let fixture = FixtureServer::start(&site_dir).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, &fixture.url()).await;
    let secret = ci_key(&store, &acc.id).await;
    let api = ApiProcess::start(&url, &guard.prefix);
    let client = reqwest::Client::new();
    let call = |method: reqwest::Method, path: String, body: Option<Value>| {
        let mut b = client
            .request(method, format!("{}{path}", api.base))
            .header("X-API-Key", &secret);
        if let Some(body) = body {
            b = b.json(&body);
        }
        async move {
            let resp = b.send().await.unwrap();
            let status = resp.status().as_u16();
            (status, resp.json::<Value>().await.unwrap())
        }
    };
    let (every_url, every) = start_receiver(&[]).await;
    let (flaky_url, flaky) = start_receiver(&[500, 500]).await;
    let mut hooks = Vec::new();
    for (target, events) in [
        (&every_url, json!(sitescan_daemon::webhooks::EVENT_TYPES)),
        (&flaky_url, json!(["scan.completed"])),
    ] {
        let (s, b) = call(
            reqwest::Method::POST,
            "/api/v1/webhooks".into(),
            Some(json!({"url": target, "events": events})),
        )
        .await;
        assert_eq!(s, 201, "{b}");
        hooks.push((
            b["data"]["id"].as_str().unwrap().to_string(),
            b["data"]["secret"].as_str().unwrap().to_string(),
        ));
    }
    let (s, b) = call(
        reqwest::Method::POST,
        format!("/api/v1/sites/{}/scans", site.id),
        Some(json!({"config": {"rules": ["seo"], "max_pages": 3}})),
    )
    .await;
    assert_eq!(s, 202, "{b}");
    let scan = b["data"]["id"].as_str().unwrap().to_string();
    // The queued event waits in the outbox: only workers deliver.
    let outbox: Vec<sitescan_daemon::store::Delivery> =
        store.list_deliveries(&hooks[0].0, 10).await.unwrap();
    assert_eq!(outbox.len(), 1);
    assert_eq!(outbox[0].event_type, "scan.queued");
    assert!(every.got.lock().unwrap().is_empty());

    let _worker = Worker::start(
        &url,
        &guard.prefix,
        &["--concurrency", "1", "--webhook-retry-delays", "0.2,0.8"],
        &tmp.path().join("w.log"),
    );
    eventually(
        60,
        "the three events and the third try of the flaky receiver",
        || async { every.got.lock().unwrap().len() >= 3 && flaky.got.lock().unwrap().len() >= 3 },
    )
    .await;

    let events = events_of(&every);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["scan.queued", "scan.started", "scan.completed"]);
    for (e, want) in events.iter().zip(["queued", "running", "completed"]) {
        assert_eq!(e["data"]["id"], scan.as_str());
        assert_eq!(e["data"]["status"], want, "{e}");
    }
    let (s, now) = call(reqwest::Method::GET, format!("/api/v1/scans/{scan}"), None).await;
    assert_eq!(s, 200);
    assert_eq!(now["data"]["status"], "completed");
    assert_eq!(
        events[2]["data"], now["data"],
        "the event carries the scan as the API shows it"
    );
    assert_eq!(events[2]["data"]["summary"]["pages_fetched"], 3);
    for (receiver, (_, hook_secret)) in [(&every, &hooks[0]), (&flaky, &hooks[1])] {
        for (headers, body) in receiver.got.lock().unwrap().iter() {
            let event = signed_event(hook_secret, headers, body);
            assert_eq!(
                headers["sitescan-event-type"].to_str().unwrap(),
                event["type"]
            );
        }
    }

    // The flaky receiver: one event, three attempts, the same id and body.
    let got = flaky.got.lock().unwrap().clone();
    assert_eq!(got.len(), 3);
    assert!(got
        .iter()
        .all(|(h, b)| h["sitescan-event-id"] == got[0].0["sitescan-event-id"] && *b == got[0].1));
    let completed: Value = serde_json::from_slice(&got[0].1).unwrap();
    assert_eq!(completed["id"], events[2]["id"], "one event, two endpoints");
    let (s, b) = call(
        reqwest::Method::GET,
        format!("/api/v1/webhooks/{}/deliveries", hooks[1].0),
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    let log = b["data"].as_array().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["status"], "succeeded");
    assert_eq!(log[0]["attempts"], 3);
    let attempts = log[0]["attempt_log"].as_array().unwrap();
    let codes: Vec<u64> = attempts
        .iter()
        .map(|a| a["response_status"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, [500, 500, 200]);
    let at = |i: usize| {
        chrono::DateTime::parse_from_rfc3339(attempts[i]["at"].as_str().unwrap()).unwrap()
    };
    assert!(
        at(1) - at(0) >= chrono::Duration::milliseconds(160),
        "first wait"
    );
    assert!(
        at(2) - at(1) >= chrono::Duration::milliseconds(640),
        "second wait"
    );
    // Every delivery of the first endpoint succeeded at its first attempt.
    let (_, b) = call(
        reqwest::Method::GET,
        format!("/api/v1/webhooks/{}/deliveries", hooks[0].0),
        None,
    )
    .await;
    let log = b["data"].as_array().unwrap();
    assert_eq!(log.len(), 3);
    assert!(
        log.iter()
            .all(|d| d["status"] == "succeeded" && d["attempts"] == 1),
        "{log:?}"
    );
}

/// A webhook record that no longer decodes must not break a transition
/// script halfway (Redis does not roll a failed script back): the scan is
/// created and the account's other webhook gets the event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_webhook_record_does_not_break_a_transition_script() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (acc, site) = tenant(&store, "https://example.com/").await;
    let now = Utc::now();
    let good = sitescan_daemon::store::Webhook {
        id: new_id("wh").unwrap(),
        account_id: acc.id.clone(),
        url: "https://hooks.example.com/".into(),
        events: vec!["scan.queued".into()],
        site_id: Some(site.id.clone()),
        description: None,
        enabled: true,
        disabled_reason: None,
        secret: "whsec_1".into(),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now,
        updated_at: now,
    };
    let mut bad = good.clone();
    bad.id = new_id("wh").unwrap();
    store.create_webhook(bad.clone()).await.unwrap();
    store.create_webhook(good.clone()).await.unwrap();
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("{}:webhook:{}", guard.prefix, bad.id))
        .arg("{not json")
        .query(&mut conn)
        .unwrap();
    let ids = submit(&store, &site, 1).await;
    assert_eq!(
        store.scan_by_id(&ids[0]).await.unwrap().unwrap().status,
        ScanStatus::Queued
    );
    let log = store.list_deliveries(&good.id, 10).await.unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].event_type, "scan.queued");
    assert!(store.list_deliveries(&bad.id, 10).await.unwrap().is_empty());
}

/// On Redis a crash takes down one worker, and its jobs are reclaimed: a page
/// in analysis when its worker was killed, twice, fails its scan naming the
/// page (dead-lettered with that reason), without a third run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_kills_its_worker_twice_fails_its_scan() {
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let slow_dir = crate::crash_loop::slow_page_site();
    let fixture = FixtureServer::start(slow_dir.path()).await.unwrap();
    let store = backend(&url, &guard.prefix, Duration::from_secs(1), 3).await;
    let (_acc, site) = tenant(&store, &fixture.url()).await;
    let mut scan: Scan = contract::scan(&site);
    scan.config.rules = vec!["wcag-aa".into()];
    let scan = store
        .create_scan_if_quota(scan, Utc::now().date_naive(), None)
        .await
        .unwrap();
    store
        .enqueue(Job {
            scan_id: scan.id.clone(),
            priority: Priority::Normal,
            render: false,
        })
        .await
        .unwrap();
    let page = fixture.url();
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let analysis_key = format!("{}:scan:{}:analysis", guard.prefix, scan.id);
    let opts = ["--visibility-timeout", "1", "--concurrency", "1"];
    for kill in 1..=2usize {
        let mut w = Worker::start(
            &url,
            &guard.prefix,
            &opts,
            &tmp.path().join(format!("w{kill}.log")),
        );
        // Fetched at this attempt and recorded as in analysis: kill -9.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let members: Vec<String> = redis::cmd("SMEMBERS")
                .arg(&analysis_key)
                .query(&mut conn)
                .unwrap();
            if fixture.count("/") == kill && members == [page.clone()] {
                break;
            }
            assert!(Instant::now() < deadline, "the slow page never in analysis");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        w.child.kill().unwrap();
        w.child.wait().unwrap();
    }
    let _last = Worker::start(&url, &guard.prefix, &opts, &tmp.path().join("w3.log"));
    let ids = [scan.id.clone()];
    let done = wait_scans(&store, &ids, Duration::from_secs(60), |s| {
        s.status == ScanStatus::Failed
    })
    .await;
    let want = format!(
        "the page {page} crashed the scanner 2 times (the process died while analysing it); \
         the scan was stopped"
    );
    assert_eq!(done[0].error.as_deref(), Some(want.as_str()));
    assert_eq!(done[0].attempts, 2);
    assert_eq!(fixture.count("/"), 2, "not run a third time");
    let dead = store.dead_jobs().await.unwrap();
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].reason, want);
}
