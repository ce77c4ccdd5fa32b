//! Records to start from in tests and benchmarks: an account with a site,
//! and a queued scan of it. One place for the set-up the daemon's unit tests
//! and the integration tests (`tests/it`) share; it goes through the
//! [`Store`] and [`Queue`] traits, so it serves both backends.

use chrono::Utc;
use sitescan_engine::Priority;

use super::{new_id, Account, AppliedConfig, Plan, Scan, ScanStatus, Site, Store};
use crate::error::Result;
use crate::queue::{Job, Queue};

/// Saves an account of `plan` and a site of it at `url`.
pub async fn tenant(store: &dyn Store, plan: Plan, url: &str) -> Result<(Account, Site)> {
    let account = store
        .create_account(Account {
            id: new_id("acc")?,
            name: None,
            plan,
            created_at: Utc::now(),
        })
        .await?;
    let site = store
        .create_site(Site {
            id: new_id("site")?,
            account_id: account.id.clone(),
            url: url.to_string(),
            name: "fixture".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await?;
    Ok((account, site))
}

/// A queued scan `id` of `site_id` (of `account_id`, at `url`) as a value,
/// not saved: all rules, 5 pages, depth 2, normal priority, created now.
pub fn scan(id: &str, site_id: &str, account_id: &str, url: &str) -> Scan {
    Scan {
        id: id.to_string(),
        site_id: site_id.to_string(),
        account_id: account_id.to_string(),
        url: url.to_string(),
        status: ScanStatus::Queued,
        config: AppliedConfig {
            rules: vec!["all".into()],
            priority: Priority::Normal,
            max_pages: 5,
            max_depth: 2,
            plan_max_pages: None,
            accept: None,
            budget: Default::default(),
            links: Default::default(),
            include: Vec::new(),
            exclude: Vec::new(),
            render: false,
            render_options: None,
        },
        progress: None,
        error: None,
        attempts: 0,
        created_at: Utc::now(),
        started_at: None,
        finished_at: None,
        summary: None,
        quota_refunded: false,
        schedule_id: None,
        scheduled_for: None,
    }
}

/// Saves a queued scan of `site` ([`scan`]) and enqueues its job.
pub async fn queued_scan(store: &dyn Store, queue: &dyn Queue, site: &Site) -> Result<Scan> {
    let scan = scan(&new_id("scan")?, &site.id, &site.account_id, &site.url);
    let scan = store
        .create_scan_if_quota(scan, Utc::now().date_naive(), None)
        .await?;
    queue
        .enqueue(Job {
            scan_id: scan.id.clone(),
            priority: Priority::Normal,
            render: false,
        })
        .await?;
    Ok(scan)
}
