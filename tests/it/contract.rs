//! The contract every Store and Queue backend meets, as functions over
//! `Arc<dyn Store>` / `Arc<dyn Queue>`: the embedded backend runs them here; the
//! Redis backend calls the same functions with its own instance.

use std::sync::Arc;
use std::time::Duration;

use chrono::{Days, NaiveDate, SubsecRound, Utc};
use serde_json::Value;
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::api::views::ScanView;
use sitescan_daemon::queue::{Capabilities, Job, Queue};
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{
    fixture, new_id, Account, Delivery, DeliveryStatus, Plan, Progress, ReportFile, RunOutcome,
    RunStatus, Scan, ScanOutcome, ScanStatus, ScanSummary, Schedule, Site, Store, Webhook,
};
use sitescan_daemon::webhooks::EVENT_TYPES;
use sitescan_daemon::Error;
use sitescan_engine::Priority;

fn account(plan: Plan) -> Account {
    Account {
        id: new_id("acc").unwrap(),
        name: Some("test".into()),
        plan,
        created_at: Utc::now(),
    }
}

/// A new account of `plan` (see [`account`]), as `store` created it.
async fn new_account(store: &Arc<dyn Store>, plan: Plan) -> Account {
    store.create_account(account(plan)).await.unwrap()
}

fn site(account_id: &str) -> Site {
    Site {
        id: new_id("site").unwrap(),
        account_id: account_id.into(),
        url: "https://example.com/".into(),
        name: "example.com".into(),
        created_at: Utc::now(),
        regression_threshold: Default::default(),
        has_credentials: false,
    }
}

/// A queued scan of `site`: `wcag-aa`, 10 pages, depth 3, a plan cap of 100.
pub fn scan(site: &Site) -> Scan {
    let id = new_id("scan").unwrap();
    let mut scan = fixture::scan(&id, &site.id, &site.account_id, &site.url);
    scan.config.rules = vec!["wcag-aa".into()];
    scan.config.max_pages = 10;
    scan.config.max_depth = 3;
    scan.config.plan_max_pages = Some(100);
    scan
}

/// Accounts and keys: hashes find keys, revocation and usage are recorded.
pub async fn accounts_and_keys(store: Arc<dyn Store>) {
    let acc = new_account(&store, Plan::Professional).await;
    assert_eq!(store.account(&acc.id).await.unwrap(), Some(acc.clone()));
    assert_eq!(store.account("acc_missing").await.unwrap(), None);

    let (key, secret, hash) = new_key(
        &acc.id,
        "ci",
        Some("deploys".into()),
        chrono::Duration::days(90),
        Utc::now(),
    )
    .unwrap();
    assert!(secret.starts_with("key_") && secret.len() >= 36);
    assert!(!hash.contains(&secret));
    let key = store.create_key(key, &hash).await.unwrap();
    assert_eq!(store.key_by_hash(&hash).await.unwrap().unwrap().id, key.id);
    assert_eq!(store.key_by_hash("0000").await.unwrap(), None);

    let (orphan, _, orphan_hash) = new_key(
        "acc_missing",
        "x",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    assert!(matches!(
        store.create_key(orphan, &orphan_hash).await,
        Err(Error::NotFound {
            kind: "account",
            ..
        })
    ));

    let now = Utc::now();
    store.record_key_use(&key.id, now).await.unwrap();
    store.record_key_use(&key.id, now).await.unwrap();
    let used = store.key(&key.id).await.unwrap().unwrap();
    assert_eq!(
        used.usage.get(&now.format("%Y-%m-%d").to_string()),
        Some(&2)
    );
    assert_eq!(used.last_used_at, Some(now));

    let revoked = store.revoke_key(&key.id, now).await.unwrap();
    assert_eq!(revoked.revoked_at, Some(now));
    let again = store
        .revoke_key(&key.id, now + chrono::Duration::seconds(5))
        .await
        .unwrap();
    assert_eq!(
        again.revoked_at,
        Some(now),
        "revoking twice keeps the first time"
    );
    assert!(matches!(
        store.revoke_key("kid_missing", now).await,
        Err(Error::NotFound { .. })
    ));

    let listed = store.list_keys(Some(&acc.id)).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(store
        .list_keys(None)
        .await
        .unwrap()
        .iter()
        .any(|k| k.id == key.id));
}

/// Sites: tenancy on every lookup, deletion.
pub async fn sites(store: Arc<dyn Store>) {
    let a = new_account(&store, Plan::Enterprise).await;
    let b = new_account(&store, Plan::Enterprise).await;
    let s1 = store.create_site(site(&a.id)).await.unwrap();
    let s2 = store.create_site(site(&a.id)).await.unwrap();
    assert!(matches!(
        store.create_site(site("acc_missing")).await,
        Err(Error::NotFound { .. })
    ));
    let ids: Vec<String> = store
        .list_sites(&a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(ids, vec![s1.id.clone(), s2.id.clone()]);
    assert!(store.list_sites(&b.id).await.unwrap().is_empty());
    assert_eq!(
        store.site(&b.id, &s1.id).await.unwrap(),
        None,
        "another account's site is invisible"
    );
    // Settings: saved for the owner only, a missing site is `None`.
    assert_eq!(
        s1.regression_threshold,
        sitescan_daemon::store::RegressionThreshold::Serious
    );
    let changed = Site {
        name: "renamed".into(),
        regression_threshold: sitescan_daemon::store::RegressionThreshold::Minor,
        ..s1.clone()
    };
    assert_eq!(
        store
            .update_site(Site {
                account_id: b.id.clone(),
                ..changed.clone()
            })
            .await
            .unwrap(),
        None,
        "another account's site is not changed"
    );
    assert_eq!(
        store.update_site(changed.clone()).await.unwrap(),
        Some(changed.clone())
    );
    assert_eq!(
        store.site(&a.id, &s1.id).await.unwrap(),
        Some(changed.clone())
    );
    assert_eq!(
        store
            .update_site(Site {
                id: "site_missing".into(),
                ..changed.clone()
            })
            .await
            .unwrap(),
        None
    );
    assert!(!store.delete_site(&b.id, &s1.id).await.unwrap());
    assert!(store.delete_site(&a.id, &s1.id).await.unwrap());
    assert_eq!(store.update_site(changed).await.unwrap(), None);
    assert_eq!(store.site(&a.id, &s1.id).await.unwrap(), None);
    assert!(!store.delete_site(&a.id, &s1.id).await.unwrap());
}

/// The daily quota holds under concurrency: 20 racing creations, limit 2.
pub async fn quota_is_atomic(store: Arc<dyn Store>) {
    let a = new_account(&store, Plan::Professional).await;
    let s = store.create_site(site(&a.id)).await.unwrap();
    let day = Utc::now().date_naive();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let (store, scan) = (store.clone(), scan(&s));
        tasks.push(tokio::spawn(async move {
            store.create_scan_if_quota(scan, day, Some(2)).await
        }));
    }
    let mut ok = 0;
    let mut refused = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(Error::QuotaExceeded { limit: 2 }) => refused += 1,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    assert_eq!((ok, refused), (2, 18));
    assert_eq!(store.scans_created_on(&a.id, day).await.unwrap(), 2);
    let tomorrow = day.checked_add_days(Days::new(1)).unwrap();
    assert_eq!(store.scans_created_on(&a.id, tomorrow).await.unwrap(), 0);
    store
        .create_scan_if_quota(scan(&s), tomorrow, Some(2))
        .await
        .unwrap();
    store
        .create_scan_if_quota(scan(&s), day, None)
        .await
        .unwrap();
}

/// A scan's life: queued -> running -> completed, cancel rules, report,
/// re-delivery, listing newest first with a cursor.
pub async fn scan_lifecycle(store: Arc<dyn Store>) {
    let a = new_account(&store, Plan::Enterprise).await;
    let b = new_account(&store, Plan::Enterprise).await;
    let s = store.create_site(site(&a.id)).await.unwrap();
    let day = Utc::now().date_naive();
    let first = store
        .create_scan_if_quota(scan(&s), day, None)
        .await
        .unwrap();
    assert_eq!(
        store.scan(&a.id, &first.id).await.unwrap().unwrap().status,
        ScanStatus::Queued
    );
    assert_eq!(store.scan(&b.id, &first.id).await.unwrap(), None);

    let running = store
        .start_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((running.status, running.attempts), (ScanStatus::Running, 1));
    let progress = Progress {
        pages_done: 3,
        pages_queued: 4,
        errors: 0,
        phase: sitescan::Phase::Links,
        links_checked: 17,
        links_total: 40,
    };
    assert_eq!(
        store.update_progress(&first.id, progress).await.unwrap(),
        ScanStatus::Running
    );
    assert_eq!(
        store.scan_by_id(&first.id).await.unwrap().unwrap().progress,
        Some(progress)
    );
    // Re-delivered after a crash: running again, attempts counted.
    assert_eq!(
        store
            .start_scan(&first.id, Utc::now())
            .await
            .unwrap()
            .unwrap()
            .attempts,
        2
    );
    // Resumed after someone else's crash: running again, attempts unchanged.
    let resumed = store
        .resume_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((resumed.status, resumed.attempts), (ScanStatus::Running, 2));
    assert_eq!(
        store.scan_by_id(&first.id).await.unwrap().unwrap().attempts,
        2
    );
    // Handed back to the queue: queued again (attempts kept), and only from
    // running; the next start runs it.
    assert!(store.requeue_scan(&first.id).await.unwrap());
    let requeued = store.scan_by_id(&first.id).await.unwrap().unwrap();
    assert_eq!(
        (requeued.status, requeued.attempts),
        (ScanStatus::Queued, 2)
    );
    assert!(!store.requeue_scan(&first.id).await.unwrap());
    assert!(!store.requeue_scan("scan_missing").await.unwrap());
    // Handed back through no fault of its own (its worker's browser broke):
    // queued again with the attempt its start charged given back; a
    // hand-back that does not refund keeps it; only from running.
    let charged = store
        .start_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((charged.status, charged.attempts), (ScanStatus::Running, 3));
    assert!(store.hand_back_scan(&first.id, true).await.unwrap());
    let refunded = store.scan_by_id(&first.id).await.unwrap().unwrap();
    assert_eq!(
        (refunded.status, refunded.attempts),
        (ScanStatus::Queued, 2)
    );
    assert!(!store.hand_back_scan(&first.id, true).await.unwrap());
    assert!(!store.hand_back_scan("scan_missing", true).await.unwrap());
    store
        .resume_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert!(store.hand_back_scan(&first.id, false).await.unwrap());
    assert_eq!(
        store.scan_by_id(&first.id).await.unwrap().unwrap().attempts,
        2
    );
    let restarted = store
        .resume_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (restarted.status, restarted.attempts),
        (ScanStatus::Running, 2)
    );

    // Crash bookkeeping: the pages in analysis at each interruption.
    let (a_page, b_page) = (
        "https://example.com/a?x=1#f".to_string(),
        "https://example.com/b c".to_string(),
    );
    store
        .set_pages_in_analysis(&first.id, &[a_page.clone(), b_page.clone()])
        .await
        .unwrap();
    store
        .set_pages_in_analysis(&first.id, std::slice::from_ref(&b_page))
        .await
        .unwrap();
    let charged = store.charge_interruption(&first.id).await.unwrap();
    assert_eq!(charged.pages, vec![(b_page.clone(), 1)]);
    assert_eq!(charged.unattributed, 0);
    // Charged once: the record is gone, so the next restart finds no page.
    let merely = store.charge_interruption(&first.id).await.unwrap();
    assert_eq!((merely.pages.len(), merely.unattributed), (0, 1));
    store
        .set_pages_in_analysis(&first.id, &[b_page.clone(), a_page.clone()])
        .await
        .unwrap();
    let mut again = store.charge_interruption(&first.id).await.unwrap();
    again.pages.sort();
    assert_eq!(again.pages, vec![(a_page.clone(), 1), (b_page.clone(), 2)]);
    assert_eq!(again.unattributed, 1);
    // Cleared (the scan stopped without a crash): nothing to charge.
    store
        .set_pages_in_analysis(&first.id, std::slice::from_ref(&a_page))
        .await
        .unwrap();
    store.set_pages_in_analysis(&first.id, &[]).await.unwrap();
    let cleared = store.charge_interruption(&first.id).await.unwrap();
    assert_eq!((cleared.pages.len(), cleared.unattributed), (0, 2));
    assert!(store
        .unfinished_scans()
        .await
        .unwrap()
        .iter()
        .any(|x| x.id == first.id));

    // The comparison with the previous scan is kept with the summary.
    let changed = sitescan_daemon::store::ChangedFinding {
        fingerprint: "0123456789abcdef0123456789abcdef".into(),
        rule: "image-alt".into(),
        impact: "critical".into(),
        outcome: "failed".into(),
        page_url: "https://example.com/".into(),
        selector: "#two".into(),
        message: "no alt".into(),
    };
    let mut new = sitescan_daemon::store::FindingChanges {
        count: 7,
        items: vec![changed],
        ..Default::default()
    };
    new.failed_by_impact.critical = 7;
    let summary = ScanSummary {
        pages_fetched: 3,
        findings: 1,
        regressions: Some(sitescan_daemon::store::Regressions {
            compared_with: Some("scan_previous".into()),
            new,
            fixed: Default::default(),
        }),
        ..Default::default()
    };
    let done = store
        .finish_scan(
            &first.id,
            ScanOutcome::Completed {
                summary: summary.clone(),
                report: ReportFile::from_bytes(b"{\"ok\":1}").unwrap(),
                screenshots: Default::default(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    assert_eq!(done.status, ScanStatus::Completed);
    assert_eq!(done.summary, Some(summary));
    assert_eq!(
        store.report(&first.id).await.unwrap().unwrap(),
        b"{\"ok\":1}"
    );
    // Finishing twice changes nothing; starting a finished scan is refused.
    let again = fail_scan(&store, &first.id, "late").await;
    assert_eq!(again.status, ScanStatus::Completed);
    assert_eq!(store.start_scan(&first.id, Utc::now()).await.unwrap(), None);
    assert!(matches!(
        store.cancel_scan(&a.id, &first.id, Utc::now()).await,
        Err(Error::Conflict(_))
    ));
    assert!(!store
        .unfinished_scans()
        .await
        .unwrap()
        .iter()
        .any(|x| x.id == first.id));

    // Canceled while queued: the worker's start is refused; cancel is idempotent.
    let second = store
        .create_scan_if_quota(scan(&s), day, None)
        .await
        .unwrap();
    assert!(matches!(
        store.cancel_scan(&b.id, &second.id, Utc::now()).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        store
            .cancel_scan(&a.id, &second.id, Utc::now())
            .await
            .unwrap()
            .status,
        ScanStatus::Canceled
    );
    assert_eq!(
        store
            .cancel_scan(&a.id, &second.id, Utc::now())
            .await
            .unwrap()
            .status,
        ScanStatus::Canceled
    );
    assert_eq!(
        store.start_scan(&second.id, Utc::now()).await.unwrap(),
        None
    );

    // Canceled while running: progress reports it, the outcome is dropped.
    let third = started_scan(&store, &s, day).await;
    store
        .cancel_scan(&a.id, &third.id, Utc::now())
        .await
        .unwrap();
    assert_eq!(
        store.update_progress(&third.id, progress).await.unwrap(),
        ScanStatus::Canceled
    );
    let kept = fail_scan(&store, &third.id, "x").await;
    assert_eq!(kept.status, ScanStatus::Canceled);
    assert_eq!(store.report(&third.id).await.unwrap(), None);

    // Newest first, with a cursor; other accounts see nothing.
    let mut created = vec![first.id.clone(), second.id.clone(), third.id.clone()];
    for _ in 0..2 {
        created.push(
            store
                .create_scan_if_quota(scan(&s), day, None)
                .await
                .unwrap()
                .id,
        );
    }
    created.reverse();
    let p1 = store.list_scans(&a.id, &s.id, None, 2).await.unwrap();
    let p2 = store
        .list_scans(&a.id, &s.id, p1.next_cursor.as_deref(), 2)
        .await
        .unwrap();
    let p3 = store
        .list_scans(&a.id, &s.id, p2.next_cursor.as_deref(), 2)
        .await
        .unwrap();
    let seen: Vec<String> = [p1.items, p2.items, p3.items.clone()]
        .concat()
        .into_iter()
        .map(|x| x.id)
        .collect();
    assert_eq!(seen, created);
    assert_eq!(p3.items.len(), 1);
    assert_eq!(p3.next_cursor, None);
    assert!(store
        .list_scans(&b.id, &s.id, None, 10)
        .await
        .unwrap()
        .items
        .is_empty());
    store.ping().await.unwrap();
}

/// The queue: priority then FIFO, idempotent enqueue, in flight until acked,
/// recovery re-delivers, a waiting dequeue wakes on enqueue, and every
/// transition of a job in hand is fenced by its delivery's lease.
pub async fn queue_contract(queue: Arc<dyn Queue>) {
    let job = |id: &str, p: Priority| Job {
        scan_id: id.to_string(),
        priority: p,
        render: false,
    };
    let take = |queue: Arc<dyn Queue>| async move {
        queue
            .dequeue(Duration::from_millis(50), Capabilities::STATIC)
            .await
            .unwrap()
            .expect("a job is ready")
    };
    assert_eq!(
        queue
            .dequeue(Duration::from_millis(50), Capabilities::STATIC)
            .await
            .unwrap(),
        None
    );
    queue
        .enqueue(job("scan_a", Priority::Normal))
        .await
        .unwrap();
    queue.enqueue(job("scan_b", Priority::Low)).await.unwrap();
    queue.enqueue(job("scan_c", Priority::High)).await.unwrap();
    queue
        .enqueue(job("scan_d", Priority::Normal))
        .await
        .unwrap();
    queue
        .enqueue(job("scan_a", Priority::Normal))
        .await
        .unwrap(); // duplicate: ignored
    assert_eq!(queue.ready_len().await.unwrap(), 4);
    let mut taken = Vec::new();
    while let Some(d) = queue
        .dequeue(Duration::from_millis(50), Capabilities::STATIC)
        .await
        .unwrap()
    {
        assert_eq!(d.attempt, 1);
        assert_eq!(d.lease.scan_id, d.job.scan_id);
        taken.push(d);
    }
    let order: Vec<&str> = taken.iter().map(|d| d.job.scan_id.as_str()).collect();
    assert_eq!(order, ["scan_c", "scan_a", "scan_d", "scan_b"]);
    let mut tokens: Vec<u64> = taken.iter().map(|d| d.lease.token).collect();
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(tokens.len(), 4, "every delivery has its own lease");
    let [c1, a1, _d1, b1] = <[_; 4]>::try_from(taken).unwrap();
    // In flight: enqueueing again does not duplicate it.
    queue
        .enqueue(job("scan_a", Priority::Normal))
        .await
        .unwrap();
    assert_eq!(queue.ready_len().await.unwrap(), 0);
    queue.ack(&a1.lease).await.unwrap();
    // Acknowledged: its lease is spent.
    assert!(matches!(
        queue.ack(&a1.lease).await,
        Err(Error::LeaseLost { scan_id }) if scan_id == "scan_a"
    ));
    queue.ack(&b1.lease).await.unwrap();
    // The unacknowledged ones come back after recovery, attempt 2, under new leases.
    assert_eq!(queue.recover().await.unwrap(), 2);
    let c2 = take(queue.clone()).await;
    assert_eq!((c2.job.scan_id.as_str(), c2.attempt), ("scan_c", 2));
    assert!(c2.lease.token > c1.lease.token);
    // The stale holder of scan_c (its first delivery) can neither heartbeat,
    // acknowledge, re-queue nor dead-letter it; the current holder still can.
    let lost = |r: sitescan_daemon::Result<()>| matches!(r, Err(Error::LeaseLost { scan_id }) if scan_id == "scan_c");
    assert!(lost(queue.heartbeat(&c1.lease).await), "stale heartbeat");
    assert!(lost(queue.ack(&c1.lease).await), "stale ack");
    assert!(
        lost(queue.release(&c1.lease, "stale").await),
        "stale release"
    );
    assert!(
        lost(queue.dead_letter(&c1.lease, "stale").await),
        "stale dead-letter"
    );
    assert_eq!(queue.ready_len().await.unwrap(), 1, "only scan_d is ready");
    assert_eq!(queue.last_failure("scan_c").await.unwrap(), None);
    queue.heartbeat(&c2.lease).await.unwrap();
    queue.ack(&c2.lease).await.unwrap();
    let d2 = take(queue.clone()).await;
    assert_eq!(d2.job.scan_id, "scan_d");
    // Heartbeats keep a job in hand; a released job is ready again at once,
    // with the reason kept, and the release ends the lease.
    queue.heartbeat(&d2.lease).await.unwrap();
    queue.release(&d2.lease, "host unreachable").await.unwrap();
    assert!(matches!(
        queue.release(&d2.lease, "again").await,
        Err(Error::LeaseLost { .. })
    ));
    assert!(matches!(
        queue.heartbeat(&d2.lease).await,
        Err(Error::LeaseLost { .. })
    ));
    assert_eq!(queue.ready_len().await.unwrap(), 1);
    assert_eq!(
        queue.last_failure("scan_d").await.unwrap().as_deref(),
        Some("host unreachable")
    );
    let d3 = take(queue.clone()).await;
    assert_eq!((d3.job.scan_id.as_str(), d3.attempt), ("scan_d", 3));
    // Handed back through no fault of its own: ready again at once, the
    // lease ended, this delivery not counted and the last failure kept.
    queue.hand_back(&d3.lease).await.unwrap();
    assert!(matches!(
        queue.hand_back(&d3.lease).await,
        Err(Error::LeaseLost { .. })
    ));
    assert_eq!(queue.ready_len().await.unwrap(), 1);
    assert_eq!(
        queue.last_failure("scan_d").await.unwrap().as_deref(),
        Some("host unreachable")
    );
    let d3 = take(queue.clone()).await;
    assert_eq!((d3.job.scan_id.as_str(), d3.attempt), ("scan_d", 3));
    // Dead-lettered: gone from the queue, and its lease with it.
    queue.dead_letter(&d3.lease, "gave up").await.unwrap();
    assert!(matches!(
        queue.ack(&d3.lease).await,
        Err(Error::LeaseLost { .. })
    ));
    assert_eq!(queue.ready_len().await.unwrap(), 0);
    assert_eq!(queue.recover().await.unwrap(), 0);
    // A dead-lettered scan can be queued again as a new job.
    queue
        .enqueue(job("scan_d", Priority::Normal))
        .await
        .unwrap();
    let d4 = take(queue.clone()).await;
    assert_eq!((d4.job.scan_id.as_str(), d4.attempt), ("scan_d", 1));
    assert!(
        matches!(queue.ack(&d3.lease).await, Err(Error::LeaseLost { .. })),
        "a lease of the job's earlier life does not touch the new one"
    );
    queue.ack(&d4.lease).await.unwrap();
    // A waiting worker wakes when a job arrives.
    let waiter = {
        let queue = queue.clone();
        tokio::spawn(async move {
            queue
                .dequeue(Duration::from_secs(10), Capabilities::STATIC)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = std::time::Instant::now();
    queue
        .enqueue(job("scan_e", Priority::Normal))
        .await
        .unwrap();
    let got = waiter.await.unwrap().unwrap().unwrap();
    assert_eq!(got.job.scan_id, "scan_e");
    assert!(started.elapsed() < Duration::from_secs(5));
    queue.ack(&got.lease).await.unwrap();
}

/// Render jobs reach only consumers that render: `plain` (a worker without
/// a browser) is never handed one — not when it asks, not while it waits, not
/// after a render job is released — while `renderer` takes render jobs
/// (priority first) and static ones alike; and the render presence a
/// renderer announces is seen, then withdrawn. `plain` and `renderer` may be
/// one queue (the embedded service) or two consumers of one (Redis).
pub async fn render_lane(plain: Arc<dyn Queue>, renderer: Arc<dyn Queue>) {
    let job = |id: &str, p: Priority, render: bool| Job {
        scan_id: id.to_string(),
        priority: p,
        render,
    };
    let short = Duration::from_millis(50);
    assert!(!renderer.render_available().await.unwrap());
    plain
        .enqueue(job("r_normal", Priority::Normal, true))
        .await
        .unwrap();
    plain
        .enqueue(job("s_normal", Priority::Normal, false))
        .await
        .unwrap();
    plain
        .enqueue(job("r_high", Priority::High, true))
        .await
        .unwrap();
    assert_eq!(plain.ready_len().await.unwrap(), 3);
    // The plain consumer gets the static job, then nothing: two render jobs
    // wait, one of them of a higher priority.
    let s = plain
        .dequeue(short, Capabilities::STATIC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((s.job.scan_id.as_str(), s.job.render), ("s_normal", false));
    assert_eq!(
        plain.dequeue(short, Capabilities::STATIC).await.unwrap(),
        None
    );
    assert_eq!(plain.ready_len().await.unwrap(), 2);
    plain.ack(&s.lease).await.unwrap();
    // The renderer: high before normal, each marked render.
    let rh = renderer
        .dequeue(short, Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (rh.job.scan_id.as_str(), rh.job.render, rh.attempt),
        ("r_high", true, 1)
    );
    let rn = renderer
        .dequeue(short, Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((rn.job.scan_id.as_str(), rn.job.render), ("r_normal", true));
    // A released render job goes back to the render lane: still not the
    // plain consumer's; the renderer gets it again, its attempt counted.
    renderer.release(&rn.lease, "browser hiccup").await.unwrap();
    assert_eq!(
        plain.dequeue(short, Capabilities::STATIC).await.unwrap(),
        None
    );
    let again = renderer
        .dequeue(short, Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.job.scan_id.as_str(), again.attempt), ("r_normal", 2));
    renderer.ack(&again.lease).await.unwrap();
    renderer.ack(&rh.lease).await.unwrap();
    // Waiting consumers: a render job wakes the renderer, never the plain
    // one (which times out empty-handed); a static job after it goes to
    // whoever asks.
    let plain_waiter = {
        let q = plain.clone();
        tokio::spawn(async move {
            q.dequeue(Duration::from_secs(2), Capabilities::STATIC)
                .await
        })
    };
    let render_waiter = {
        let q = renderer.clone();
        tokio::spawn(async move {
            q.dequeue(Duration::from_secs(10), Capabilities::RENDER)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    plain
        .enqueue(job("r_late", Priority::Low, true))
        .await
        .unwrap();
    let got = render_waiter.await.unwrap().unwrap().unwrap();
    assert_eq!((got.job.scan_id.as_str(), got.job.render), ("r_late", true));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the renderer was not woken"
    );
    assert_eq!(plain_waiter.await.unwrap().unwrap(), None);
    renderer.ack(&got.lease).await.unwrap();
    // A renderer takes static jobs too.
    plain
        .enqueue(job("s_late", Priority::Normal, false))
        .await
        .unwrap();
    let st = renderer
        .dequeue(short, Capabilities::RENDER)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((st.job.scan_id.as_str(), st.job.render), ("s_late", false));
    renderer.ack(&st.lease).await.unwrap();
    assert_eq!(plain.ready_len().await.unwrap(), 0);
    // Presence: announced, seen by any consumer; withdrawn, gone.
    renderer.announce_render().await.unwrap();
    assert!(plain.render_available().await.unwrap());
    renderer.withdraw_render().await.unwrap();
    assert!(!plain.render_available().await.unwrap());
}

/// Webhooks (tenancy, replace, delete) and the delivery outbox (claims take
/// due deliveries once, a lease ends, finished deliveries leave the outbox).
pub async fn webhooks_and_outbox(store: Arc<dyn Store>) {
    let acc = new_account(&store, Plan::Enterprise).await;
    let other = new_account(&store, Plan::Enterprise).await;
    let now = Utc::now();
    let hook = Webhook {
        id: new_id("wh").unwrap(),
        account_id: acc.id.clone(),
        url: "https://hooks.example.com/".into(),
        events: vec!["scan.completed".into()],
        site_id: None,
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
    let mut orphan = hook.clone();
    orphan.account_id = "acc_missing".into();
    assert!(matches!(
        store.create_webhook(orphan).await,
        Err(Error::NotFound {
            kind: "account",
            ..
        })
    ));
    store.create_webhook(hook.clone()).await.unwrap();
    assert_eq!(
        store.webhook(&acc.id, &hook.id).await.unwrap(),
        Some(hook.clone())
    );
    assert_eq!(store.webhook(&other.id, &hook.id).await.unwrap(), None);
    assert_eq!(
        store.list_webhooks(&acc.id).await.unwrap(),
        vec![hook.clone()]
    );
    assert!(store.list_webhooks(&other.id).await.unwrap().is_empty());
    let mut changed = hook.clone();
    changed.enabled = false;
    store.save_webhook(changed.clone()).await.unwrap();
    assert_eq!(store.webhook_by_id(&hook.id).await.unwrap(), Some(changed));
    let mut ghost = hook.clone();
    ghost.id = new_id("wh").unwrap();
    assert!(matches!(
        store.save_webhook(ghost).await,
        Err(Error::NotFound { .. })
    ));

    let delivery = |due: chrono::DateTime<Utc>| Delivery {
        id: new_id("dlv").unwrap(),
        webhook_id: hook.id.clone(),
        account_id: acc.id.clone(),
        event_id: "evt_1".into(),
        event_type: "scan.completed".into(),
        payload: "{}".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(due),
        created_at: Utc::now(),
        attempt_log: Vec::new(),
    };
    let due = delivery(now - chrono::Duration::seconds(1));
    let later = delivery(now + chrono::Duration::hours(1));
    store
        .save_deliveries(vec![due.clone(), later.clone()])
        .await
        .unwrap();
    let lease = now + chrono::Duration::seconds(60);
    let claimed = store.claim_due_deliveries(now, lease, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, due.id);
    assert!(
        store
            .claim_due_deliveries(now, lease, 10)
            .await
            .unwrap()
            .is_empty(),
        "a claimed delivery is leased"
    );
    // The lease ends: due again (a taker that died loses nothing).
    let after = lease + chrono::Duration::seconds(1);
    let again = store
        .claim_due_deliveries(after, after + chrono::Duration::seconds(60), 10)
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    let mut done = again[0].clone();
    done.status = DeliveryStatus::Succeeded;
    done.next_attempt_at = None;
    done.attempts = 1;
    store.save_deliveries(vec![done.clone()]).await.unwrap();
    let far = now + chrono::Duration::days(1);
    let rest = store.claim_due_deliveries(far, far, 10).await.unwrap();
    assert_eq!(rest.len(), 1, "only the later pending one");
    assert_eq!(rest[0].id, later.id);
    let log = store.list_deliveries(&hook.id, 10).await.unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].id, later.id, "newest first");
    assert_eq!(log[1], done);
    assert_eq!(
        store.delivery(&hook.id, &done.id).await.unwrap(),
        Some(done.clone())
    );
    assert_eq!(store.delivery("wh_other", &done.id).await.unwrap(), None);
    assert_eq!(store.list_deliveries(&hook.id, 1).await.unwrap().len(), 1);

    assert!(!store.delete_webhook(&other.id, &hook.id).await.unwrap());
    assert!(store.delete_webhook(&acc.id, &hook.id).await.unwrap());
    assert_eq!(store.webhook_by_id(&hook.id).await.unwrap(), None);
    assert!(store.list_webhooks(&acc.id).await.unwrap().is_empty());
}

/// Users, password tokens and sessions (the dashboard): unique lowercase
/// e-mails, tenancy of the account, single-use unexpired tokens, session
/// expiry, touch and deletion.
pub async fn users_and_sessions(store: Arc<dyn Store>) {
    use sitescan_daemon::store::{PasswordToken, Session, User};
    let acc = new_account(&store, Plan::Professional).await;
    let now = Utc::now();
    let email = format!("{}@Example.com", new_id("ann").unwrap());
    let user = User {
        id: new_id("usr").unwrap(),
        account_id: acc.id.clone(),
        email: email.to_lowercase(),
        password_hash: None,
        created_at: now,
        password_set_at: None,
    };
    let user = store.create_user(user).await.unwrap();
    assert_eq!(store.user(&user.id).await.unwrap(), Some(user.clone()));
    assert_eq!(
        store.user_by_email(&email.to_uppercase()).await.unwrap(),
        Some(user.clone()),
        "e-mails compare lowercase"
    );
    assert_eq!(
        store.user_by_email("nobody@example.com").await.unwrap(),
        None
    );
    let twin = User {
        id: new_id("usr").unwrap(),
        ..user.clone()
    };
    assert!(matches!(
        store.create_user(twin).await,
        Err(Error::Conflict(_))
    ));
    let orphan = User {
        id: new_id("usr").unwrap(),
        account_id: "acc_missing".into(),
        email: format!("{}@example.com", new_id("x").unwrap()),
        ..user.clone()
    };
    assert!(matches!(
        store.create_user(orphan).await,
        Err(Error::NotFound {
            kind: "account",
            ..
        })
    ));
    let listed = store.list_users(Some(&acc.id)).await.unwrap();
    assert_eq!(listed, vec![user.clone()]);
    assert!(store
        .list_users(None)
        .await
        .unwrap()
        .iter()
        .any(|u| u.id == user.id));

    // Tokens: used once, only before they expire.
    let token = |expires_in: chrono::Duration| PasswordToken {
        user_id: user.id.clone(),
        created_at: now,
        expires_at: now + expires_in,
    };
    let hash_a = new_id("tok").unwrap();
    store
        .create_password_token(&hash_a, token(chrono::Duration::hours(24)))
        .await
        .unwrap();
    // Sessions before the password changes: the user's end, a visitor's stays.
    let before = |user_id: Option<String>| Session {
        user_id,
        csrf_token: "csrf-0".into(),
        created_at: now,
        expires_at: now + chrono::Duration::hours(12),
        last_seen_at: now,
    };
    let (old_a, old_b, anon) = (
        new_id("sess").unwrap(),
        new_id("sess").unwrap(),
        new_id("sess").unwrap(),
    );
    store
        .create_session(&old_a, before(Some(user.id.clone())))
        .await
        .unwrap();
    store
        .create_session(&old_b, before(Some(user.id.clone())))
        .await
        .unwrap();
    store.create_session(&anon, before(None)).await.unwrap();
    assert!(store.session(&old_a, now).await.unwrap().is_some());
    let set = store
        .set_password_with_token(&hash_a, "$argon2id$hash-1", now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(set.password_hash.as_deref(), Some("$argon2id$hash-1"));
    assert_eq!(set.password_set_at, Some(now));
    assert_eq!(store.user(&user.id).await.unwrap(), Some(set.clone()));
    assert_eq!(
        store.session(&old_a, now).await.unwrap(),
        None,
        "signed out"
    );
    assert_eq!(
        store.session(&old_b, now).await.unwrap(),
        None,
        "signed out"
    );
    assert!(store.session(&anon, now).await.unwrap().is_some());
    assert_eq!(
        store
            .set_password_with_token(&hash_a, "$argon2id$hash-2", now)
            .await
            .unwrap(),
        None,
        "a token works once"
    );
    let hash_b = new_id("tok").unwrap();
    store
        .create_password_token(&hash_b, token(chrono::Duration::hours(24)))
        .await
        .unwrap();
    assert_eq!(
        store
            .set_password_with_token(&hash_b, "$argon2id$late", now + chrono::Duration::hours(25))
            .await
            .unwrap(),
        None,
        "an expired token sets nothing"
    );
    assert_eq!(
        store
            .user(&user.id)
            .await
            .unwrap()
            .unwrap()
            .password_hash
            .as_deref(),
        Some("$argon2id$hash-1")
    );
    assert!(matches!(
        store
            .create_password_token(
                &new_id("tok").unwrap(),
                PasswordToken {
                    user_id: "usr_missing".into(),
                    ..token(chrono::Duration::hours(1))
                }
            )
            .await,
        Err(Error::NotFound { kind: "user", .. })
    ));

    // Sessions: found until they expire, touched, deleted.
    let session = Session {
        user_id: Some(user.id.clone()),
        csrf_token: "csrf-1".into(),
        created_at: now,
        expires_at: now + chrono::Duration::hours(12),
        last_seen_at: now,
    };
    let sh = new_id("sess").unwrap();
    store.create_session(&sh, session.clone()).await.unwrap();
    assert_eq!(
        store.session(&sh, now).await.unwrap(),
        Some(session.clone())
    );
    assert_eq!(
        store
            .session(&sh, now + chrono::Duration::hours(13))
            .await
            .unwrap(),
        None,
        "expired"
    );
    let later = now + chrono::Duration::minutes(5);
    store.touch_session(&sh, later).await.unwrap();
    assert_eq!(
        store
            .session(&sh, later)
            .await
            .unwrap()
            .unwrap()
            .last_seen_at,
        later
    );
    // Flashes: kept in a live session, taken once, gone with the session.
    assert!(store
        .put_flash(&sh, "key:kid_1", "key_secret_1", later)
        .await
        .unwrap());
    assert!(store
        .put_flash(&sh, "key:kid_2", "key_secret_2", later)
        .await
        .unwrap());
    assert_eq!(
        store
            .take_flash(&sh, "key:kid_1", now + chrono::Duration::hours(13))
            .await
            .unwrap(),
        None,
        "not from an expired session"
    );
    assert_eq!(
        store.take_flash(&sh, "key:kid_1", later).await.unwrap(),
        None,
        "taken by the expired look"
    );
    assert_eq!(
        store.take_flash(&sh, "key:kid_2", later).await.unwrap(),
        Some("key_secret_2".to_string())
    );
    assert_eq!(
        store.take_flash(&sh, "key:kid_2", later).await.unwrap(),
        None,
        "once"
    );
    assert!(
        !store
            .put_flash(&sh, "key:kid_3", "x", now + chrono::Duration::hours(13))
            .await
            .unwrap(),
        "not into an expired session"
    );
    assert!(store.put_flash(&sh, "key:kid_4", "x", later).await.unwrap());
    store.delete_session(&sh).await.unwrap();
    assert_eq!(store.session(&sh, now).await.unwrap(), None);
    assert_eq!(
        store.take_flash(&sh, "key:kid_4", later).await.unwrap(),
        None,
        "gone with the session"
    );
    assert!(!store.put_flash(&sh, "key:kid_5", "x", later).await.unwrap());
    store.delete_session(&sh).await.unwrap();
    store.touch_session(&sh, later).await.unwrap();
    assert_eq!(
        store.session(&sh, later).await.unwrap(),
        None,
        "a touch does not revive it"
    );
    let visitor = Session {
        user_id: None,
        ..session
    };
    let vh = new_id("sess").unwrap();
    store.create_session(&vh, visitor.clone()).await.unwrap();
    assert_eq!(store.session(&vh, now).await.unwrap(), Some(visitor));
}

/// A webhook of `account` for `events` (all of them when empty).
fn hook(account: &str, events: &[&str], site: Option<&str>, enabled: bool) -> Webhook {
    let now = Utc::now();
    let events = if events.is_empty() {
        EVENT_TYPES.to_vec()
    } else {
        events.to_vec()
    };
    Webhook {
        id: new_id("wh").unwrap(),
        account_id: account.into(),
        url: "https://hooks.example.com/".into(),
        events: events.iter().map(|e| e.to_string()).collect(),
        site_id: site.map(str::to_string),
        description: None,
        enabled,
        disabled_reason: None,
        secret: "whsec_1".into(),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now,
        updated_at: now,
    }
}

/// A webhook's deliveries, oldest first, with their parsed bodies.
async fn events_of(store: &Arc<dyn Store>, hook: &Webhook) -> Vec<(Delivery, Value)> {
    let mut log = store.list_deliveries(&hook.id, 100).await.unwrap();
    log.reverse();
    log.into_iter()
        .map(|d| {
            let body: Value = serde_json::from_str(&d.payload).unwrap();
            (d, body)
        })
        .collect()
}

/// Checks the newest event of `hook`: its type, the delivery's outbox fields,
/// and that its body is the scan exactly as `GET /scans/{id}` shows `scan`.
async fn assert_last_event(store: &Arc<dyn Store>, hook: &Webhook, want_type: &str, scan: &Scan) {
    let events = events_of(store, hook).await;
    let (d, body) = events.last().expect("an event");
    assert_eq!(d.event_type, want_type);
    assert_eq!(body["type"], want_type);
    assert_eq!(body["id"], d.event_id.as_str());
    assert!(d.event_id.starts_with("evt_"), "{}", d.event_id);
    assert_eq!(
        body["data"],
        serde_json::to_value(ScanView::from(scan.clone())).unwrap(),
        "the body is the scan as the API shows it"
    );
    let created: chrono::DateTime<Utc> = serde_json::from_value(body["created"].clone()).unwrap();
    assert_eq!(created, d.created_at, "the event time is the transition's");
    assert_eq!(d.webhook_id, hook.id);
    assert_eq!(d.account_id, hook.account_id);
    assert_eq!(d.status, DeliveryStatus::Pending);
    assert_eq!(d.attempts, 0);
    assert_eq!(d.next_attempt_at, Some(d.created_at), "due at once");
    assert!(d.attempt_log.is_empty());
}

fn types(events: &[(Delivery, Value)]) -> Vec<String> {
    events.iter().map(|(d, _)| d.event_type.clone()).collect()
}

/// The transactional outbox: every status change writes its event's
/// deliveries in the same atomic write, for the enabled, subscribed webhooks
/// of the scan's account and site only; a call that changes nothing writes
/// nothing; the body is the scan as the API shows it, with the event's id and
/// time fixed at the transition. Run after `webhooks_and_outbox` (it claims
/// the whole outbox).
pub async fn transitions_write_their_events(store: Arc<dyn Store>) {
    let acc = new_account(&store, Plan::Enterprise).await;
    let other = new_account(&store, Plan::Enterprise).await;
    let s = store.create_site(site(&acc.id)).await.unwrap();
    let s2 = store.create_site(site(&acc.id)).await.unwrap();
    let all = hook(&acc.id, &[], None, true);
    let done_only = hook(&acc.id, &["scan.completed"], None, true);
    let off = hook(&acc.id, &[], None, false);
    let site2_only = hook(&acc.id, &[], Some(&s2.id), true);
    let foreign = hook(&other.id, &[], None, true);
    for h in [&all, &done_only, &off, &site2_only, &foreign] {
        store.create_webhook(h.clone()).await.unwrap();
    }
    let day = Utc::now().date_naive();

    // queued -> running -> completed, each with its event at once.
    let first = store
        .create_scan_if_quota(scan(&s), day, None)
        .await
        .unwrap();
    assert_last_event(&store, &all, "scan.queued", &first).await;
    let running = store
        .start_scan(&first.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_last_event(&store, &all, "scan.started", &running).await;
    let summary = ScanSummary {
        pages_fetched: 2,
        findings: 1,
        ..Default::default()
    };
    let done = store
        .finish_scan(
            &first.id,
            ScanOutcome::Completed {
                summary,
                report: ReportFile::from_bytes(b"{}").unwrap(),
                screenshots: Default::default(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    assert_last_event(&store, &all, "scan.completed", &done).await;
    assert_last_event(&store, &done_only, "scan.completed", &done).await;
    assert_eq!(
        types(&events_of(&store, &all).await),
        ["scan.queued", "scan.started", "scan.completed"]
    );
    // Calls that change nothing write no event.
    fail_scan(&store, &first.id, "x").await;
    assert_eq!(store.start_scan(&first.id, Utc::now()).await.unwrap(), None);
    assert!(store
        .cancel_scan(&acc.id, &first.id, Utc::now())
        .await
        .is_err());
    assert!(matches!(
        store.create_scan_if_quota(scan(&s), day, Some(0)).await,
        Err(Error::QuotaExceeded { limit: 0 })
    ));
    assert_eq!(events_of(&store, &all).await.len(), 3);

    // Canceled (once), and failed.
    let second = store
        .create_scan_if_quota(scan(&s), day, None)
        .await
        .unwrap();
    let canceled = store
        .cancel_scan(&acc.id, &second.id, Utc::now())
        .await
        .unwrap();
    assert_last_event(&store, &all, "scan.canceled", &canceled).await;
    store
        .cancel_scan(&acc.id, &second.id, Utc::now())
        .await
        .unwrap();
    let third = started_scan(&store, &s, day).await;
    let failed = fail_scan(&store, &third.id, "host unreachable").await;
    assert_last_event(&store, &all, "scan.failed", &failed).await;
    assert_eq!(
        events_of(&store, &all).await.last().unwrap().1["data"]["error"],
        "host unreachable"
    );
    assert_eq!(
        types(&events_of(&store, &all).await),
        [
            "scan.queued",
            "scan.started",
            "scan.completed",
            "scan.queued",
            "scan.canceled",
            "scan.queued",
            "scan.started",
            "scan.failed"
        ]
    );
    // Filters: one completed event for `done_only`; nothing for the disabled
    // hook, the other site's hook or the other account's.
    assert_eq!(
        types(&events_of(&store, &done_only).await),
        ["scan.completed"]
    );
    assert!(events_of(&store, &off).await.is_empty());
    assert!(events_of(&store, &site2_only).await.is_empty());
    assert!(events_of(&store, &foreign).await.is_empty());
    let on_s2 = store
        .create_scan_if_quota(scan(&s2), day, None)
        .await
        .unwrap();
    assert_last_event(&store, &site2_only, "scan.queued", &on_s2).await;
    assert_last_event(&store, &all, "scan.queued", &on_s2).await;
    // Event ids are unique; each delivery of one event has the same body.
    let all_events = events_of(&store, &all).await;
    let mut ids: Vec<&str> = all_events
        .iter()
        .map(|(d, _)| d.event_id.as_str())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 9);
    let twin = events_of(&store, &site2_only).await;
    assert_eq!(twin[0].0.event_id, all_events[8].0.event_id);
    assert_eq!(twin[0].0.payload, all_events[8].0.payload);
    assert_ne!(twin[0].0.id, all_events[8].0.id);

    // The events are in the outbox: due now, claimed like any delivery.
    let now = Utc::now() + chrono::Duration::seconds(1);
    let mine = [all.id.clone(), done_only.id.clone(), site2_only.id.clone()];
    let claimed: Vec<Delivery> = store
        .claim_due_deliveries(now, now + chrono::Duration::seconds(60), 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|d| mine.contains(&d.webhook_id))
        .collect();
    assert_eq!(claimed.len(), 9 + 1 + 1);
    let redelivered = claimed
        .iter()
        .find(|d| d.id == twin[0].0.id)
        .expect("claimed");
    assert_eq!(
        redelivered.payload, twin[0].0.payload,
        "same body when claimed"
    );

    // A status is never visible before its event: a watcher that sees a scan
    // running finds its `scan.started` delivery already there.
    let mut scans = Vec::new();
    for _ in 0..10 {
        scans.push(
            store
                .create_scan_if_quota(scan(&s), day, None)
                .await
                .unwrap(),
        );
    }
    let watcher = {
        let (store, all, ids) = (
            store.clone(),
            all.clone(),
            scans.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
        );
        tokio::spawn(async move {
            for id in ids {
                loop {
                    let status = store.scan_by_id(&id).await.unwrap().unwrap().status;
                    if status == ScanStatus::Running {
                        break;
                    }
                    tokio::task::yield_now().await;
                }
                let started = events_of(&store, &all).await.into_iter().any(|(d, body)| {
                    d.event_type == "scan.started" && body["data"]["id"] == id.as_str()
                });
                assert!(
                    started,
                    "{id} is running but its scan.started event is missing"
                );
            }
        })
    };
    for sc in &scans {
        store.start_scan(&sc.id, Utc::now()).await.unwrap().unwrap();
    }
    watcher.await.unwrap();
}

/// Quota refunds: a scan canceled while queued, or failed before its first
/// page, is given back to its day's count (once); one that worked is not.
pub async fn quota_refunds(store: Arc<dyn Store>) {
    use sitescan_daemon::store::ScanOutcome;
    let a = new_account(&store, Plan::Professional).await;
    let s = store.create_site(site(&a.id)).await.unwrap();
    let day = Utc::now().date_naive();
    let used = || {
        let store = store.clone();
        let id = a.id.clone();
        async move { store.scans_created_on(&id, day).await.unwrap() }
    };
    let create = || {
        let store = store.clone();
        let scan = scan(&s);
        async move { store.create_scan_if_quota(scan, day, Some(2)).await }
    };
    let failed = |error: &str| ScanOutcome::Failed {
        error: error.to_string(),
    };

    // Canceled while queued: given back, once.
    let queued = create().await.unwrap();
    assert_eq!(used().await, 1);
    let canceled = store
        .cancel_scan(&a.id, &queued.id, Utc::now())
        .await
        .unwrap();
    assert!(canceled.quota_refunded);
    assert_eq!(used().await, 0);
    let again = store
        .cancel_scan(&a.id, &queued.id, Utc::now())
        .await
        .unwrap();
    assert!(again.quota_refunded);
    assert_eq!(used().await, 0, "a second cancel gives nothing back");

    // Failed before its first page: given back.
    let unreachable = create().await.unwrap();
    store
        .start_scan(&unreachable.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    let no_pages = Progress {
        errors: 1,
        ..Progress::default()
    };
    store
        .update_progress(&unreachable.id, no_pages)
        .await
        .unwrap();
    let done = store
        .finish_scan(&unreachable.id, failed("connection refused"), Utc::now())
        .await
        .unwrap();
    assert_eq!(done.status, ScanStatus::Failed);
    assert!(done.quota_refunded);
    assert_eq!(used().await, 0);

    // Failed after checking a page: counts.
    let worked = create().await.unwrap();
    store.start_scan(&worked.id, Utc::now()).await.unwrap();
    let one_page = Progress {
        pages_done: 1,
        ..Progress::default()
    };
    store.update_progress(&worked.id, one_page).await.unwrap();
    let done = store
        .finish_scan(&worked.id, failed("crash loop"), Utc::now())
        .await
        .unwrap();
    assert!(!done.quota_refunded);
    assert_eq!(used().await, 1);

    // Canceled while running: counts; the quota is then used up.
    let running = create().await.unwrap();
    store.start_scan(&running.id, Utc::now()).await.unwrap();
    let canceled = store
        .cancel_scan(&a.id, &running.id, Utc::now())
        .await
        .unwrap();
    assert!(!canceled.quota_refunded);
    assert_eq!(used().await, 2);
    assert!(matches!(
        create().await,
        Err(Error::QuotaExceeded { limit: 2 })
    ));
    // The flags are stored, not only returned.
    for (id, refunded) in [
        (&queued.id, true),
        (&unreachable.id, true),
        (&worked.id, false),
        (&running.id, false),
    ] {
        let s = store.scan_by_id(id).await.unwrap().unwrap();
        assert_eq!(s.quota_refunded, refunded, "{id}");
    }
}

/// `Idempotency-Key` records: claimed once, held while unfinished, kept once
/// answered, freed on release or when the lease passes, forgotten after 24 h
/// and past the per-account cap (the oldest first), separate per account.
pub async fn idempotency_keys(store: Arc<dyn Store>) {
    use sitescan_daemon::store::{
        IdempotencyClaim, IdempotencyRecord, KeptResponse, IDEMPOTENCY_LEASE, MAX_IDEMPOTENCY_KEYS,
    };
    let a = new_account(&store, Plan::Enterprise).await.id;
    let b = new_account(&store, Plan::Enterprise).await.id;
    let t0 = Utc::now();
    let rec = |fingerprint: &str, at: chrono::DateTime<Utc>| IdempotencyRecord {
        fingerprint: fingerprint.to_string(),
        created_at: at,
        lease_until: at + IDEMPOTENCY_LEASE,
        response: None,
    };
    let claim = |account: &str, key: &str, record: IdempotencyRecord, at| {
        let (store, account, key) = (store.clone(), account.to_string(), key.to_string());
        async move {
            store
                .claim_idempotency_key(&account, &key, record, at)
                .await
                .unwrap()
        }
    };

    assert_eq!(
        claim(&a, "k1", rec("f1", t0), t0).await,
        IdempotencyClaim::Claimed
    );
    assert_eq!(
        claim(&a, "k1", rec("f1", t0), t0).await,
        IdempotencyClaim::Existing(rec("f1", t0)),
        "held while unfinished"
    );
    assert_eq!(
        claim(&b, "k1", rec("other", t0), t0).await,
        IdempotencyClaim::Claimed,
        "keys are per account"
    );
    let answered = IdempotencyRecord {
        response: Some(KeptResponse {
            status: 202,
            location: Some("http://127.0.0.1/api/v1/scans/scan_1".into()),
            body: r#"{"data":{"id":"scan_1"}}"#.into(),
        }),
        ..rec("f1", t0)
    };
    store
        .complete_idempotency_key(&a, "k1", answered.clone())
        .await
        .unwrap();
    let later = t0 + chrono::Duration::hours(1);
    assert_eq!(
        claim(&a, "k1", rec("f2", later), later).await,
        IdempotencyClaim::Existing(answered.clone()),
        "kept once answered, whatever the lease"
    );

    // Released: free again at once.
    assert_eq!(
        claim(&a, "k2", rec("f", t0), t0).await,
        IdempotencyClaim::Claimed
    );
    store.release_idempotency_key(&a, "k2").await.unwrap();
    assert_eq!(
        claim(&a, "k2", rec("g", t0), t0).await,
        IdempotencyClaim::Claimed
    );
    // Unfinished past its lease (its process died): free again; the late
    // answer of the dead claim does not overwrite the new one.
    let after_lease = t0 + IDEMPOTENCY_LEASE + chrono::Duration::seconds(1);
    assert_eq!(
        claim(&a, "k2", rec("h", after_lease), after_lease).await,
        IdempotencyClaim::Claimed
    );
    store
        .complete_idempotency_key(
            &a,
            "k2",
            IdempotencyRecord {
                response: answered.response.clone(),
                ..rec("g", t0)
            },
        )
        .await
        .unwrap();
    assert_eq!(
        claim(&a, "k2", rec("h", after_lease), after_lease).await,
        IdempotencyClaim::Existing(rec("h", after_lease))
    );

    // Forgotten 24 h after the first use.
    let next_day = t0 + chrono::Duration::hours(25);
    assert_eq!(
        claim(&a, "k1", rec("f3", next_day), next_day).await,
        IdempotencyClaim::Claimed
    );

    // The cap: the oldest keys go first; the account's other keys stay.
    let c = new_account(&store, Plan::Enterprise).await.id;
    let at = |i: usize| t0 + chrono::Duration::milliseconds(i as i64);
    for i in 0..MAX_IDEMPOTENCY_KEYS + 5 {
        let key = format!("c{i}");
        assert_eq!(
            claim(&c, &key, rec(&key, at(i)), at(i)).await,
            IdempotencyClaim::Claimed
        );
    }
    let now = at(MAX_IDEMPOTENCY_KEYS + 5);
    let newest = format!("c{}", MAX_IDEMPOTENCY_KEYS + 4);
    assert_eq!(
        claim(&c, &newest, rec("x", now), now).await,
        IdempotencyClaim::Existing(rec(&newest, at(MAX_IDEMPOTENCY_KEYS + 4)))
    );
    assert_eq!(
        claim(&c, "c4", rec("x", now), now).await,
        IdempotencyClaim::Claimed,
        "c0..c4 were forgotten"
    );
    assert_eq!(
        claim(&c, "c6", rec("x", now), now).await,
        IdempotencyClaim::Existing(rec("c6", at(6)))
    );
    assert_eq!(
        claim(&c, "c5", rec("x", now), now).await,
        IdempotencyClaim::Claimed,
        "claiming c4 again made room by forgetting c5"
    );
    assert_eq!(
        claim(&b, "k1", rec("other", t0), t0).await,
        IdempotencyClaim::Existing(rec("other", t0)),
        "another account's keys are untouched"
    );
}

/// Reports larger than one chunk: stored from the worker's file chunk by
/// chunk and read back the same way, byte for byte; a report handed to a scan
/// already terminal is dropped (nothing stored, nothing left behind); a retried
/// write (the same file again) stores the report once.
pub async fn reports_in_chunks(store: Arc<dyn Store>) {
    use sitescan_daemon::store::REPORT_CHUNK;
    let a = new_account(&store, Plan::Enterprise).await;
    let s = store.create_site(site(&a.id)).await.unwrap();
    let day = Utc::now().date_naive();
    let bytes: Vec<u8> = (0..REPORT_CHUNK * 2 + 17)
        .map(|i| b'a' + (i % 26) as u8)
        .collect();
    let file = ReportFile::from_bytes(&bytes).unwrap();
    let done = started_scan(&store, &s, day).await;
    let summary = ScanSummary {
        pages_fetched: 2,
        ..Default::default()
    };
    let completed = || ScanOutcome::Completed {
        summary: summary.clone(),
        report: file.clone(),
        screenshots: Default::default(),
    };
    for _ in 0..2 {
        let finished = store
            .finish_scan(&done.id, completed(), Utc::now())
            .await
            .unwrap();
        assert_eq!(finished.status, ScanStatus::Completed);
    }
    let mut sizes = Vec::new();
    let mut index = 0;
    while let Some(chunk) = store.report_chunk(&done.id, index).await.unwrap() {
        sizes.push(chunk.len());
        index += 1;
    }
    assert_eq!(sizes, [REPORT_CHUNK, REPORT_CHUNK, 17]);
    assert_eq!(store.report(&done.id).await.unwrap().unwrap(), bytes);
    assert_eq!(store.report_chunk(&done.id, u64::MAX).await.unwrap(), None);
    assert_eq!(store.report_chunk("scan_missing", 0).await.unwrap(), None);

    // Canceled while running: the report that comes after is dropped.
    let canceled = started_scan(&store, &s, day).await;
    store
        .cancel_scan(&a.id, &canceled.id, Utc::now())
        .await
        .unwrap();
    let kept = store
        .finish_scan(&canceled.id, completed(), Utc::now())
        .await
        .unwrap();
    assert_eq!(kept.status, ScanStatus::Canceled);
    assert_eq!(store.report(&canceled.id).await.unwrap(), None);
    assert_eq!(store.report_chunk(&canceled.id, 0).await.unwrap(), None);

    // An empty report is one empty chunk, not a missing report.
    let empty = started_scan(&store, &s, day).await;
    store
        .finish_scan(
            &empty.id,
            ScanOutcome::Completed {
                summary: summary.clone(),
                report: ReportFile::from_bytes(b"").unwrap(),
                screenshots: Default::default(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    assert_eq!(store.report(&empty.id).await.unwrap(), Some(Vec::new()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_backend_meets_the_store_and_queue_contract() {
    let dir = tempfile::tempdir().unwrap();
    let backend = Arc::new(Embedded::open(dir.path()).unwrap());
    accounts_and_keys(backend.clone()).await;
    sites(backend.clone()).await;
    quota_is_atomic(backend.clone()).await;
    scan_lifecycle(backend.clone()).await;
    reports_in_chunks(backend.clone()).await;
    queue_contract(backend.clone()).await;
    render_lane(backend.clone(), backend.clone()).await;
    webhooks_and_outbox(backend.clone()).await;
    users_and_sessions(backend.clone()).await;
    transitions_write_their_events(backend.clone()).await;
    quota_refunds(backend.clone()).await;
    idempotency_keys(backend.clone()).await;
    schedules(backend.clone()).await;
}

#[tokio::test]
async fn embedded_backend_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let (acc_id, scan_id) = {
        let backend = Embedded::open(dir.path()).unwrap();
        let a = backend
            .create_account(account(Plan::Professional))
            .await
            .unwrap();
        let s = backend.create_site(site(&a.id)).await.unwrap();
        let sc = backend
            .create_scan_if_quota(scan(&s), Utc::now().date_naive(), Some(2))
            .await
            .unwrap();
        backend
            .enqueue(Job {
                scan_id: sc.id.clone(),
                priority: Priority::High,
                render: false,
            })
            .await
            .unwrap();
        let d = backend
            .dequeue(Duration::from_millis(50), Capabilities::STATIC)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(d.job.scan_id, sc.id);
        backend.start_scan(&sc.id, Utc::now()).await.unwrap();
        (a.id, sc.id)
    };
    let backend = Embedded::open(dir.path()).unwrap();
    let sc = backend.scan(&acc_id, &scan_id).await.unwrap().unwrap();
    assert_eq!(sc.status, ScanStatus::Running);
    assert_eq!(backend.ready_len().await.unwrap(), 0);
    assert_eq!(backend.recover().await.unwrap(), 1);
    let d = backend
        .dequeue(Duration::from_millis(50), Capabilities::STATIC)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((d.job.scan_id, d.attempt), (scan_id, 2));
}

// ---- schedules

fn schedule(acc: &str, site: &str, next: Option<chrono::DateTime<Utc>>) -> Schedule {
    let now = Utc::now().trunc_subsecs(3);
    Schedule {
        id: new_id("sch").unwrap(),
        account_id: acc.into(),
        site_id: site.into(),
        cron: "*/5 * * * *".into(),
        timezone: "Europe/Berlin".into(),
        config: serde_json::json!({"rules": ["wcag-aa"], "max_pages": 3}),
        enabled: next.is_some(),
        next_run_at: next,
        last_run_at: None,
        last_outcome: None,
        created_at: now,
        updated_at: now,
    }
}

/// Schedules: tenancy, the due index, the claim of a run (one winner among
/// racers, none after the run moved), outcomes of stale runs dropped, updates
/// that keep the run record, removal.
pub async fn schedules(store: Arc<dyn Store>) {
    let a = new_account(&store, Plan::Enterprise).await;
    let b = new_account(&store, Plan::Enterprise).await;
    let site_a = store.create_site(site(&a.id)).await.unwrap();
    let site_b = store.create_site(site(&b.id)).await.unwrap();
    let now = Utc::now().trunc_subsecs(3);
    let past = now - chrono::Duration::seconds(30);
    let future = now + chrono::Duration::hours(1);

    // A missing account is refused.
    let err = store
        .create_schedule(schedule("acc_missing", &site_a.id, Some(past)))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                kind: "account",
                ..
            }
        ),
        "{err:?}"
    );

    let due = store
        .create_schedule(schedule(&a.id, &site_a.id, Some(past)))
        .await
        .unwrap();
    let later = store
        .create_schedule(schedule(&a.id, &site_a.id, Some(future)))
        .await
        .unwrap();
    let off = store
        .create_schedule(schedule(&a.id, &site_a.id, None))
        .await
        .unwrap();
    let other = store
        .create_schedule(schedule(&b.id, &site_b.id, Some(past)))
        .await
        .unwrap();

    // Tenancy: another account's schedule is none, as a missing one.
    assert_eq!(
        store.schedule(&a.id, &due.id).await.unwrap().as_ref(),
        Some(&due)
    );
    assert_eq!(store.schedule(&b.id, &due.id).await.unwrap(), None);
    assert_eq!(store.schedule(&a.id, "sch_missing").await.unwrap(), None);
    let listed: Vec<String> = store
        .list_schedules(&a.id, &site_a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [due.id.clone(), later.id.clone(), off.id.clone()]);
    assert!(store
        .list_schedules(&b.id, &site_a.id)
        .await
        .unwrap()
        .is_empty());

    // Due: enabled, next run at or before now; earliest first.
    let due_ids = |v: Vec<Schedule>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    let mut got = due_ids(store.due_schedules(now, 100).await.unwrap());
    got.sort();
    let mut want = vec![due.id.clone(), other.id.clone()];
    want.sort();
    assert_eq!(got, want);
    assert_eq!(store.due_schedules(now, 1).await.unwrap().len(), 1);
    assert!(due_ids(store.due_schedules(past, 100).await.unwrap()).contains(&due.id));
    assert!(!due_ids(
        store
            .due_schedules(past - chrono::Duration::milliseconds(1), 100)
            .await
            .unwrap()
    )
    .contains(&due.id));

    // Ten racers claim the same run: exactly one wins.
    let next = now + chrono::Duration::minutes(5);
    let claims = futures::future::join_all((0..10).map(|_| {
        let store = store.clone();
        let id = due.id.clone();
        async move {
            store
                .claim_schedule_run(&id, past, Some(next), now)
                .await
                .unwrap()
        }
    }))
    .await;
    let won: Vec<Schedule> = claims.into_iter().flatten().collect();
    assert_eq!(won.len(), 1, "{won:?}");
    assert_eq!(won[0].next_run_at, Some(next));
    assert_eq!(won[0].last_run_at, Some(now));
    assert_eq!(won[0].last_outcome, None);
    // The run moved: claiming it again gets nothing, and it is no longer due.
    assert_eq!(
        store
            .claim_schedule_run(&due.id, past, Some(next), now)
            .await
            .unwrap(),
        None
    );
    assert!(!due_ids(store.due_schedules(now, 100).await.unwrap()).contains(&due.id));
    // A disabled schedule, or a missing one, cannot be claimed.
    assert_eq!(
        store
            .claim_schedule_run(&off.id, past, Some(next), now)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .claim_schedule_run("sch_missing", past, None, now)
            .await
            .unwrap(),
        None
    );

    // The outcome of the run is recorded; one of a stale run is dropped.
    let started = RunOutcome {
        status: RunStatus::Started,
        scan_id: Some("scan_1".into()),
        error: None,
    };
    store
        .record_schedule_outcome(&due.id, now, started.clone())
        .await
        .unwrap();
    let stale = RunOutcome {
        status: RunStatus::SkippedQuota,
        scan_id: None,
        error: Some("old".into()),
    };
    store
        .record_schedule_outcome(&due.id, past, stale)
        .await
        .unwrap();
    store
        .record_schedule_outcome("sch_missing", now, started.clone())
        .await
        .unwrap();
    let read = store.schedule(&a.id, &due.id).await.unwrap().unwrap();
    assert_eq!(read.last_outcome, Some(started.clone()));
    assert_eq!(read.last_run_at, Some(now));

    // An update changes the settings and keeps the run record, even when
    // it was read before the run (a PATCH racing the scheduler).
    let mut changed = due.clone();
    changed.cron = "0 6 * * *".into();
    changed.enabled = false;
    changed.next_run_at = None;
    changed.account_id = b.id.clone(); // never moves
    let saved = store.update_schedule(changed).await.unwrap();
    assert_eq!(saved.cron, "0 6 * * *");
    assert!(!saved.enabled);
    assert_eq!(saved.next_run_at, None);
    assert_eq!(saved.account_id, a.id);
    assert_eq!(saved.last_run_at, Some(now));
    assert_eq!(saved.last_outcome, Some(started));
    assert_eq!(
        store.schedule(&a.id, &due.id).await.unwrap(),
        Some(saved.clone())
    );
    // Enabled again with a run due: it is due again.
    let mut again = saved.clone();
    again.enabled = true;
    again.next_run_at = Some(past);
    store.update_schedule(again).await.unwrap();
    assert!(due_ids(store.due_schedules(now, 100).await.unwrap()).contains(&due.id));
    let mut gone = due.clone();
    gone.id = "sch_missing".into();
    let err = store.update_schedule(gone).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotFound {
                kind: "schedule",
                ..
            }
        ),
        "{err:?}"
    );

    // Removal: another account's is refused; the owner's goes from every index.
    assert!(!store.delete_schedule(&b.id, &due.id).await.unwrap());
    assert!(store.delete_schedule(&a.id, &due.id).await.unwrap());
    assert!(!store.delete_schedule(&a.id, &due.id).await.unwrap());
    assert_eq!(store.schedule(&a.id, &due.id).await.unwrap(), None);
    assert!(!due_ids(store.due_schedules(now, 100).await.unwrap()).contains(&due.id));
    let listed: Vec<String> = store
        .list_schedules(&a.id, &site_a.id)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [later.id, off.id]);
    assert!(store.delete_schedule(&b.id, &other.id).await.unwrap());
}

/// A scan of `site` created on `day` (no daily limit) and started at once,
/// as it was created (queued).
async fn started_scan(store: &Arc<dyn Store>, site: &Site, day: NaiveDate) -> Scan {
    let created = store
        .create_scan_if_quota(scan(site), day, None)
        .await
        .unwrap();
    store
        .start_scan(&created.id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    created
}

/// Finishes scan `id` as failed with `error`: the scan as the store then
/// has it (still finished as before, or canceled, when the failure came
/// late).
async fn fail_scan(store: &Arc<dyn Store>, id: &str, error: &str) -> Scan {
    store
        .finish_scan(
            id,
            ScanOutcome::Failed {
                error: error.into(),
            },
            Utc::now(),
        )
        .await
        .unwrap()
}

/// Pictures of a render scan whose lifetime [`pictures_follow_the_report`]
/// checks: `(id, bytes)`.
fn pictures(shots: &[(&str, &[u8])]) -> sitescan_engine::report::Screenshots {
    sitescan_engine::report::Screenshots {
        shots: shots
            .iter()
            .map(|(id, bytes)| sitescan_engine::report::Screenshot {
                id: id.to_string(),
                content_type: sitescan_engine::report::Screenshot::sniff(bytes),
                bytes: bytes.to_vec().into(),
            })
            .collect(),
    }
}

/// What [`pictures_follow_the_report`] left: the one scan with pictures and
/// their ids, for the backend's own count of what it stores.
pub struct PicturesLeft {
    /// The completed scan.
    pub scan_id: String,
    /// Its pictures' ids, sorted.
    pub ids: Vec<String>,
}

/// Render mode's pictures live exactly as long as the report: stored in the
/// step that completes the scan; a second completion (a reclaimed job run
/// twice) neither adds nor replaces any; a failed scan, and a scan canceled
/// before its worker finished, keep none. The caller then counts what its
/// backend holds: the pictures of the completed scan and nothing else.
pub async fn pictures_follow_the_report(store: Arc<dyn Store>) -> PicturesLeft {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\nelement";
    const JPEG: &[u8] = b"\xFF\xD8\xFFthumbnail";
    let a = new_account(&store, Plan::Enterprise).await;
    let s = store.create_site(site(&a.id)).await.unwrap();
    let day = Utc::now().date_naive();
    let completed = |shots: &[(&str, &[u8])]| ScanOutcome::Completed {
        summary: ScanSummary {
            pages_fetched: 1,
            ..Default::default()
        },
        report: ReportFile::from_bytes(b"{\"schema_version\":1}").unwrap(),
        screenshots: pictures(shots),
    };

    // Completed: the pictures are there with the report.
    let done = started_scan(&store, &s, day).await.id;
    let first = completed(&[("shot-1", PNG), ("thumb-2", JPEG)]);
    let scan = store.finish_scan(&done, first, Utc::now()).await.unwrap();
    assert_eq!(scan.status, ScanStatus::Completed);
    assert_eq!(
        store.screenshot(&done, "shot-1").await.unwrap().as_deref(),
        Some(PNG)
    );
    assert_eq!(
        store.screenshot(&done, "thumb-2").await.unwrap().as_deref(),
        Some(JPEG)
    );
    // Completed again by a second run with other pictures: dropped whole.
    let again = completed(&[("shot-1", JPEG), ("shot-7", PNG)]);
    store.finish_scan(&done, again, Utc::now()).await.unwrap();
    assert_eq!(
        store.screenshot(&done, "shot-1").await.unwrap().as_deref(),
        Some(PNG)
    );
    assert_eq!(store.screenshot(&done, "shot-7").await.unwrap(), None);

    // Failed: no pictures (a failed outcome carries none, and a failure
    // leaves none behind).
    let failed = started_scan(&store, &s, day).await.id;
    let scan = fail_scan(&store, &failed, "the browser could not start").await;
    assert_eq!(scan.status, ScanStatus::Failed);
    // A late completion of the failed scan (its worker's lease was lost):
    // dropped, pictures and all.
    store
        .finish_scan(&failed, completed(&[("shot-1", PNG)]), Utc::now())
        .await
        .unwrap();
    assert_eq!(store.screenshot(&failed, "shot-1").await.unwrap(), None);
    assert_eq!(store.report(&failed).await.unwrap(), None);

    // Canceled while its worker finished: the completion is dropped with
    // its pictures.
    let canceled = started_scan(&store, &s, day).await.id;
    store
        .cancel_scan(&a.id, &canceled, Utc::now())
        .await
        .unwrap();
    let scan = store
        .finish_scan(&canceled, completed(&[("shot-1", PNG)]), Utc::now())
        .await
        .unwrap();
    assert_eq!(scan.status, ScanStatus::Canceled);
    assert_eq!(store.screenshot(&canceled, "shot-1").await.unwrap(), None);
    assert_eq!(store.report(&canceled).await.unwrap(), None);

    PicturesLeft {
        scan_id: done,
        ids: vec!["shot-1".into(), "thumb-2".into()],
    }
}

/// [`pictures_follow_the_report`] on the embedded backend: the store's
/// rows are the completed scan's two pictures and nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_pictures_follow_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Embedded::open(dir.path()).unwrap());
    let left = pictures_follow_the_report(store.clone()).await;
    assert_eq!(left.ids.len(), 2);
    assert_eq!(store.screenshot_count().await.unwrap(), 2);
}
