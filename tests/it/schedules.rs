//! Scheduled scans: the API (validation with exact answers, CRUD, pagination,
//! tenancy), runs firing on time with the real clock on the embedded service,
//! a quota skip recorded on the schedule, a missed run after downtime firing
//! once (the scheduler's pass driven with a chosen time, on both backends),
//! and exactly one scan per run with two `sitescan serve --redis` processes.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{json, Value};
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::ops::schedules::{create_schedule, run_due};
use sitescan_daemon::state::{non_zero, ApiSettings, AppState, RateLimit};
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{fixture, Plan, RunStatus, Store};
use sitescan_daemon::views::schedules::CreateSchedule;
use sitescan_daemon::views::ScanRequestConfig;
use sitescan_fixtures::{site_dir, FixtureServer};

use crate::api_support::{call, TestApi};
use crate::fleet_support::{backend, shared_redis, PrefixGuard};

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// The `details` of a 422 as (field, problem) pairs, after checking the code.
fn problems(status: u16, body: &Value) -> Vec<(String, String)> {
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["code"], "validation_failed", "{body}");
    body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["field"].as_str().unwrap().to_string(),
                d["problem"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn fields(status: u16, body: &Value) -> Vec<String> {
    problems(status, body).into_iter().map(|(f, _)| f).collect()
}

async fn patch(api: &TestApi, path: &str, key: &str, body: Value) -> (u16, Value) {
    call(api.req(Method::PATCH, path, Some(key)).json(&body)).await
}

async fn delete(api: &TestApi, path: &str, key: &str) -> (u16, Value) {
    call(api.req(Method::DELETE, path, Some(key))).await
}

/// The scans of a site that schedule `id` started (all pages).
async fn scheduled_scans(api: &TestApi, key: &str, site: &str, id: &str) -> Vec<Value> {
    let (s, b) = api
        .get(&format!("/api/v1/sites/{site}/scans?limit=100"), key)
        .await;
    assert_eq!(s, 200, "{b}");
    b["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|scan| scan["schedule_id"] == id)
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedules_are_validated_listed_changed_and_removed_per_tenant() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let (_, other_key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, "https://example.com/").await;
    let path = format!("/api/v1/sites/{site}/schedules");

    // Invalid cron and zone: both named, with what to give.
    let (s, b) = api
        .post(
            &path,
            &key,
            json!({"cron": "61 * * * *", "timezone": "Mars/Olympus", "config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    let p = problems(s, &b);
    assert_eq!(p.len(), 2, "{b}");
    assert_eq!(p[0].0, "cron");
    assert!(p[0].1.starts_with("not a cron expression ("), "{}", p[0].1);
    assert_eq!(
        p[1],
        (
            "timezone".to_string(),
            "unknown time zone `Mars/Olympus`: give an IANA name such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\"".to_string()
        )
    );
    // A cron expression that never comes.
    let (s, b) = api
        .post(
            &path,
            &key,
            json!({"cron": "0 0 30 2 *", "config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(
        problems(s, &b),
        [(
            "cron".to_string(),
            "never runs: the expression names no date that comes (e.g. 30 February)".to_string()
        )]
    );
    // The scan config is checked as a scan start checks it, every field named.
    let (s, b) = api
        .post(
            &path,
            &key,
            json!({"cron": "daily", "config": {"rules": ["no-such-set"], "max_pages": 0, "include": ["("]}}),
        )
        .await;
    assert_eq!(
        fields(s, &b),
        ["config.rules[0]", "config.max_pages", "config.include[0]"]
    );
    let (s, b) = api
        .post(&path, &key, json!({"cron": "daily", "config": {}}))
        .await;
    assert_eq!(fields(s, &b), ["config.rules"]);
    // Missing and unknown members, as everywhere in the API.
    let (s, b) = api.post(&path, &key, json!({"cron": "daily"})).await;
    assert_eq!(fields(s, &b), ["config"]);
    let (s, b) = api
        .post(
            &path,
            &key,
            json!({"cron": "daily", "config": {"rules": ["wcag-aa"]}, "every": 3}),
        )
        .await;
    assert_eq!(fields(s, &b), ["every"]);
    // Unknown site.
    let (s, b) = api
        .post(
            "/api/v1/sites/site_missing/schedules",
            &key,
            json!({"cron": "daily", "config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(s, 404, "{b}");
    assert_eq!(b["error"]["code"], "site_not_found");

    // Created: 201, Location, the next run computed in the zone.
    let resp = api
        .req(Method::POST, &path, Some(&key))
        .json(&json!({"cron": "weekly", "timezone": "Europe/Berlin", "config": {"rules": ["wcag-aa"], "max_pages": 5}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    let created: Value = resp.json().await.unwrap();
    let d = &created["data"];
    let id = d["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("sch_"), "{id}");
    assert_eq!(location, format!("{}/api/v1/schedules/{id}", api.base));
    assert_eq!(d["site_id"], site.as_str());
    assert_eq!(d["cron"], "weekly");
    assert_eq!(d["timezone"], "Europe/Berlin");
    assert_eq!(d["config"], json!({"rules": ["wcag-aa"], "max_pages": 5}));
    assert_eq!(d["enabled"], true);
    assert_eq!(d["last_run_at"], Value::Null);
    assert_eq!(d["last_outcome"], Value::Null);
    assert_eq!(d["links"]["self"], format!("/api/v1/schedules/{id}"));
    assert_eq!(d["links"]["scans"], format!("/api/v1/sites/{site}/scans"));
    // `weekly` is Monday 00:00 in the zone: 22:00 or 23:00 UTC on a Sunday.
    let next = at(d["next_run_at"].as_str().unwrap());
    assert!(next > Utc::now() && next < Utc::now() + chrono::Duration::days(7));
    let local = next.with_timezone(&chrono_tz::Europe::Berlin);
    assert_eq!(local.format("%a %H:%M:%S").to_string(), "Mon 00:00:00");

    // Read, list with pagination, change, disable.
    let (s, b) = api.get(&format!("/api/v1/schedules/{id}"), &key).await;
    assert_eq!(s, 200);
    assert_eq!(b["data"], created["data"]);
    let (s, b2) = api
        .post(
            &path,
            &key,
            json!({"cron": "0 6 * * 1-5", "config": {"rules": ["seo"]}, "enabled": false}),
        )
        .await;
    assert_eq!(s, 201, "{b2}");
    assert_eq!(b2["data"]["next_run_at"], Value::Null);
    let second = b2["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api.get(&format!("{path}?limit=1"), &key).await;
    assert_eq!(s, 200);
    assert_eq!(b["data"][0]["id"], second.as_str(), "newest first");
    assert_eq!(b["meta"]["count"], 1);
    assert_eq!(b["meta"]["next_cursor"], second.as_str());
    let (s, b) = api
        .get(&format!("{path}?limit=1&cursor={second}"), &key)
        .await;
    assert_eq!(s, 200);
    assert_eq!(b["data"][0]["id"], id.as_str());
    assert_eq!(b["meta"]["next_cursor"], Value::Null);
    let (s, b) = api.get(&format!("{path}?limit=0"), &key).await;
    assert_eq!(
        problems(s, &b),
        [(
            "limit".to_string(),
            "give a number from 1 to 100".to_string()
        )]
    );
    let (s, b) = api.get(&format!("{path}?cursor=sch_nope"), &key).await;
    assert_eq!(
        problems(s, &b),
        [(
            "cursor".to_string(),
            sitescan_daemon::ops::schedules::BAD_SCHEDULE_CURSOR.to_string()
        )]
    );

    let (s, b) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        &key,
        json!({"timezone": "Nowhere/Town"}),
    )
    .await;
    assert_eq!(fields(s, &b), ["timezone"]);
    let (s, b) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        &key,
        json!({"config": {"rules": []}}),
    )
    .await;
    assert_eq!(fields(s, &b), ["config.rules"]);
    let (s, b) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        &key,
        json!({"cron": "30 2 * * *", "timezone": "America/New_York"}),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["cron"], "30 2 * * *");
    assert_eq!(
        b["data"]["config"],
        json!({"rules": ["wcag-aa"], "max_pages": 5})
    );
    let local =
        at(b["data"]["next_run_at"].as_str().unwrap()).with_timezone(&chrono_tz::America::New_York);
    assert_eq!(local.format("%H:%M:%S").to_string(), "02:30:00");
    let (s, b) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        &key,
        json!({"enabled": false}),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["enabled"], false);
    assert_eq!(b["data"]["next_run_at"], Value::Null);

    // Tenancy: another account's key gets 404 for every route.
    for (s, b) in [
        api.get(&format!("/api/v1/schedules/{id}"), &other_key)
            .await,
        patch(
            &api,
            &format!("/api/v1/schedules/{id}"),
            &other_key,
            json!({"enabled": true}),
        )
        .await,
        delete(&api, &format!("/api/v1/schedules/{id}"), &other_key).await,
    ] {
        assert_eq!(s, 404, "{b}");
        assert_eq!(b["error"]["code"], "schedule_not_found", "{b}");
    }
    for (s, b) in [
        api.get(&path, &other_key).await,
        api.post(
            &path,
            &other_key,
            json!({"cron": "daily", "config": {"rules": ["wcag-aa"]}}),
        )
        .await,
    ] {
        assert_eq!(s, 404, "{b}");
        assert_eq!(b["error"]["code"], "site_not_found", "{b}");
    }
    let (s, b) = api.get(&format!("/api/v1/schedules/{id}"), &key).await;
    assert_eq!(
        (s, &b["data"]["enabled"]),
        (200, &json!(false)),
        "untouched: {b}"
    );

    // Removed.
    let (s, b) = delete(&api, &format!("/api/v1/schedules/{id}"), &key).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"], json!({"id": id, "deleted": true}));
    let (s, b) = api.get(&format!("/api/v1/schedules/{id}"), &key).await;
    assert_eq!(s, 404);
    assert_eq!(b["error"]["code"], "schedule_not_found");
    assert_eq!(
        b["error"]["message"],
        format!("no schedule `{id}` in this account; GET /api/v1/sites/{{siteId}}/schedules lists a site's")
    );
    api.stop().await;
}

/// With the real clock: a schedule every 2 seconds starts a scan at each
/// run, within a fraction of a second of it, and the scans carry its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schedule_fires_on_time_on_the_embedded_service() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &fixture.url()).await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/schedules"),
            &key,
            json!({"cron": "*/2 * * * * *", "config": {"rules": ["wcag-aa"], "max_pages": 1}}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let first = at(b["data"]["next_run_at"].as_str().unwrap());
    // Wait for three runs.
    tokio::time::sleep_until(
        tokio::time::Instant::now()
            + (first - Utc::now()).to_std().unwrap_or_default()
            + Duration::from_millis(4_900),
    )
    .await;
    let scans = scheduled_scans(&api, &key, &site, &id).await;
    assert!(
        (3..=4).contains(&scans.len()),
        "{} scans: {scans:?}",
        scans.len()
    );
    let mut runs = Vec::new();
    for scan in &scans {
        let created = at(scan["created_at"].as_str().unwrap());
        let run = at(scan["scheduled_for"].as_str().unwrap());
        // Each run is an even second, and its scan was made right after it
        // (the scheduler looks every 200 ms here).
        assert_eq!(run.timestamp() % 2, 0, "{scan}");
        let late = (created - run).num_milliseconds();
        assert!((0..1500).contains(&late), "{late} ms late: {scan}");
        runs.push(run);
    }
    runs.dedup();
    assert_eq!(runs.len(), scans.len(), "two scans for one run: {scans:?}");
    let (_, b) = api.get(&format!("/api/v1/schedules/{id}"), &key).await;
    let d = &b["data"];
    assert_eq!(d["last_outcome"]["status"], "started", "{b}");
    let newest = scheduled_scans(&api, &key, &site, &id).await;
    assert!(
        newest
            .iter()
            .any(|s| s["id"] == d["last_outcome"]["scan_id"]),
        "{b}"
    );
    assert!(at(d["next_run_at"].as_str().unwrap()) > at(d["last_run_at"].as_str().unwrap()));
    // A scheduled scan runs like any other.
    let done = api
        .wait_terminal(scans[0]["id"].as_str().unwrap(), &key, 60)
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["schedule_id"], id.as_str());
    // Disabled: no more runs.
    let (s, _) = patch(
        &api,
        &format!("/api/v1/schedules/{id}"),
        &key,
        json!({"enabled": false}),
    )
    .await;
    assert_eq!(s, 200);
    let before = scheduled_scans(&api, &key, &site, &id).await.len();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(scheduled_scans(&api, &key, &site, &id).await.len(), before);
    api.stop().await;
}

/// A professional plan has 2 scans a day: a schedule every second makes two
/// scans, then records `skipped_quota` for its next run, visible in the API,
/// and makes no third scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_over_the_quota_is_skipped_and_recorded() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, &fixture.url()).await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/schedules"),
            &key,
            json!({"cron": "* * * * * *", "config": {"rules": ["wcag-aa"], "max_pages": 1}}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let outcome = loop {
        let (_, b) = api.get(&format!("/api/v1/schedules/{id}"), &key).await;
        if b["data"]["last_outcome"]["status"] == "skipped_quota" {
            break b["data"]["last_outcome"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "no quota skip: {b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        outcome,
        json!({
            "status": "skipped_quota",
            "scan_id": null,
            "error": "the plan allows 2 scans per UTC day and they are used up; try again after the next UTC midnight or upgrade the plan"
        })
    );
    let scans = scheduled_scans(&api, &key, &site, &id).await;
    assert_eq!(scans.len(), 2, "{scans:?}");
    // The quota the API reports counts them like any other scan.
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(s, 429, "{b}");
    assert_eq!(b["error"]["code"], "scan_limit_exceeded");
    api.stop().await;
}

/// The state a scheduler pass needs, over `store`.
fn state(store: Arc<dyn Store>, queue: Arc<dyn sitescan_daemon::queue::Queue>) -> AppState {
    AppState {
        store,
        queue,
        rate_limit: RateLimit::per_minute(non_zero(600)),
        settings: ApiSettings {
            allow_private: true,
            page_budget: sitescan_engine::PageBudget::DEFAULT,
            public_url: None,
            schedule_min_interval: Duration::from_secs(60),
            render_workers: sitescan_daemon::state::RenderWorkers::InProcess { render: false },
            secret_key: None,
        },
    }
}

/// Every 5 minutes, and the service down for an hour: the pass after the
/// downtime fires ONE run (not the 12 missed), the next run is the first
/// one after now, and a second pass at the same time fires nothing.
async fn missed_runs_fire_once(state: AppState) {
    let (account, site) = fixture::tenant(
        state.store.as_ref(),
        Plan::Enterprise,
        "https://example.com/",
    )
    .await
    .unwrap();
    let schedule = create_schedule(
        state.store.as_ref(),
        &state.settings,
        &account,
        &site.id,
        CreateSchedule {
            cron: "*/5 * * * *".into(),
            timezone: Some("Asia/Kolkata".into()),
            config: ScanRequestConfig {
                rules: Some(vec!["wcag-aa".into()]),
                ..Default::default()
            },
            enabled: None,
        },
    )
    .await
    .unwrap();
    let first = schedule.next_run_at.unwrap();
    // Before the first run: nothing is due.
    assert_eq!(
        run_due(&state, first - chrono::Duration::seconds(1))
            .await
            .unwrap(),
        0
    );
    // An hour of downtime after the first run time.
    let back = first + chrono::Duration::minutes(61) + chrono::Duration::seconds(7);
    assert_eq!(run_due(&state, back).await.unwrap(), 1);
    assert_eq!(run_due(&state, back).await.unwrap(), 0);
    let after = state
        .store
        .schedule(&account.id, &schedule.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.last_run_at, Some(back));
    // The next run is the next 5-minute mark after `back`, not a missed one.
    assert_eq!(
        after.next_run_at,
        Some(first + chrono::Duration::minutes(65))
    );
    let outcome = after.last_outcome.unwrap();
    assert_eq!(outcome.status, RunStatus::Started);
    let scans = state
        .store
        .list_scans(&account.id, &site.id, None, 100)
        .await
        .unwrap()
        .items;
    assert_eq!(scans.len(), 1, "{scans:?}");
    assert_eq!(scans[0].schedule_id.as_deref(), Some(schedule.id.as_str()));
    // The run fired is the first one missed.
    assert_eq!(scans[0].scheduled_for, Some(first));
    assert_eq!(outcome.scan_id.as_deref(), Some(scans[0].id.as_str()));
    // The next run fires at its time, once.
    let next = first + chrono::Duration::minutes(65);
    assert_eq!(run_due(&state, next).await.unwrap(), 1);
    assert_eq!(
        run_due(&state, next + chrono::Duration::seconds(1))
            .await
            .unwrap(),
        0
    );
    // A removed site stops its schedule, and says why.
    assert!(state
        .store
        .delete_site(&account.id, &site.id)
        .await
        .unwrap());
    let later = next + chrono::Duration::minutes(5);
    assert_eq!(run_due(&state, later).await.unwrap(), 1);
    let stopped = state
        .store
        .schedule(&account.id, &schedule.id)
        .await
        .unwrap()
        .unwrap();
    assert!(!stopped.enabled);
    assert_eq!(stopped.next_run_at, None);
    let outcome = stopped.last_outcome.unwrap();
    assert_eq!(outcome.status, RunStatus::Error);
    assert_eq!(
        outcome.error.unwrap(),
        format!("site `{}` was removed; the schedule is disabled", site.id)
    );
    assert_eq!(
        run_due(&state, later + chrono::Duration::hours(1))
            .await
            .unwrap(),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_run_fires_once_after_downtime_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let embedded = Arc::new(Embedded::open(dir.path()).unwrap());
    missed_runs_fire_once(state(embedded.clone(), embedded)).await;

    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let redis = Arc::new(backend(&url, &guard.prefix, Duration::from_secs(300), 3).await);
    missed_runs_fire_once(state(redis.clone(), redis)).await;
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
            .args(["--schedule-min-interval", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
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

/// The runs (`scheduled_for`, even seconds) of the scans each schedule
/// started, per schedule, read through every page of the sites' scans;
/// checks no run of a schedule has two scans, and each scan was made after
/// its run (within 10 s: the machine may be loaded).
async fn slots_by_schedule(
    store: &dyn Store,
    account: &str,
    sites: &[String],
) -> std::collections::BTreeMap<String, Vec<i64>> {
    let mut out: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    for site in sites {
        let mut cursor: Option<String> = None;
        loop {
            let page = store
                .list_scans(account, site, cursor.as_deref(), 100)
                .await
                .unwrap();
            for scan in &page.items {
                let Some(schedule) = &scan.schedule_id else {
                    continue;
                };
                let run = scan
                    .scheduled_for
                    .expect("a scheduled scan has its run time");
                assert_eq!(run.timestamp() % 2, 0, "scan {}", scan.id);
                let late = (scan.created_at - run).num_milliseconds();
                assert!(
                    (0..10_000).contains(&late),
                    "scan {} {late} ms late",
                    scan.id
                );
                out.entry(schedule.clone())
                    .or_default()
                    .push(run.timestamp());
            }
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
    }
    for (schedule, slots) in out.iter_mut() {
        slots.sort_unstable();
        let mut distinct = slots.clone();
        distinct.dedup();
        assert_eq!(&distinct, slots, "a run of {schedule} fired twice");
    }
    out
}

/// Two API processes on one Redis, both running their scheduler, with 40
/// schedules every 2 seconds (so the processes' passes overlap and race for
/// the same runs): each run of each schedule makes exactly one scan, and
/// when one process is killed the other keeps firing them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exactly_one_scan_per_run_with_two_api_processes_on_redis() {
    const PER_SITE: usize = sitescan_daemon::ops::schedules::MAX_SCHEDULES_PER_SITE;
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(300), 3).await;
    let (account, site) = fixture::tenant(&store, Plan::Enterprise, "https://example.com/")
        .await
        .unwrap();
    let second = store
        .create_site(sitescan_daemon::store::Site {
            id: sitescan_daemon::store::new_id("site").unwrap(),
            name: "second".into(),
            ..site.clone()
        })
        .await
        .unwrap();
    let sites = [site.id.clone(), second.id.clone()];
    let (key, secret, hash) = new_key(
        &account.id,
        "test",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    store.create_key(key, &hash).await.unwrap();
    let a = ApiProcess::start(&url, &guard.prefix);
    let b = ApiProcess::start(&url, &guard.prefix);
    let client = reqwest::Client::new();
    let mut ids = Vec::new();
    for (i, site) in sites.iter().cycle().take(2 * PER_SITE).enumerate() {
        // Half created through each process.
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let (s, body) = call(
            client
                .post(format!("{base}/api/v1/sites/{site}/schedules"))
                .header("X-API-Key", &secret)
                .json(&json!({"cron": "*/2 * * * * *", "config": {"rules": ["wcag-aa"]}})),
        )
        .await;
        assert_eq!(s, 201, "{body}");
        ids.push(body["data"]["id"].as_str().unwrap().to_string());
    }
    tokio::time::sleep(Duration::from_secs(9)).await;
    let before = slots_by_schedule(&store, &account.id, &sites).await;
    assert_eq!(before.len(), ids.len(), "every schedule ran");
    for (schedule, slots) in &before {
        assert!(slots.len() >= 3, "{schedule}: {slots:?}");
    }
    // One process gone: the other keeps every schedule running, once per run.
    drop(a);
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = slots_by_schedule(&store, &account.id, &sites).await;
    for id in &ids {
        assert!(
            after[id].len() >= before[id].len() + 2,
            "{id}: {:?} then {:?}",
            before[id],
            after[id]
        );
    }
    drop(b);
}

/// Every schedule endpoint's answers, successes and errors, match the
/// OpenAPI document's schema for their status; a scheduled scan too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_answers_match_the_openapi_document() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let (_, doc) = call(api.req(Method::GET, "/api/v1/openapi.json", None)).await;
    let mut checked = Vec::new();
    let mut check = |method: &str, template: &str, status: u16, body: &Value| {
        let resp = &doc["paths"][template][method]["responses"][status.to_string()];
        assert!(
            resp.is_object(),
            "{method} {template} {status} not documented"
        );
        let schema = &resp["content"]["application/json"]["schema"];
        if let Err(e) = crate::api_support::schema::validate(&doc, schema, body, "$") {
            panic!("{method} {template} {status}: {e}\n{body}");
        }
        checked.push(format!("{method} {template} {status}"));
    };
    let list = format!("/api/v1/sites/{site}/schedules");
    let (s, b) = api
        .post(
            &list,
            &key,
            json!({"cron": "nope", "config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    check("post", "/api/v1/sites/{siteId}/schedules", s, &b);
    let (s, b) = api
        .post(&list, &key, json!({"cron": "* * * * * *", "timezone": "Asia/Tokyo", "config": {"rules": ["wcag-aa"], "priority": "low", "links": "internal", "budget": {"time_ms": 100}}}))
        .await;
    check("post", "/api/v1/sites/{siteId}/schedules", s, &b);
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let one = format!("/api/v1/schedules/{id}");
    let (s, b) = api.get(&list, &key).await;
    check("get", "/api/v1/sites/{siteId}/schedules", s, &b);
    let (s, b) = api.get("/api/v1/sites/site_nope/schedules", &key).await;
    check("get", "/api/v1/sites/{siteId}/schedules", s, &b);
    // Wait for a run, so the answer has a last outcome and a scheduled scan.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let b = loop {
        let (s, b) = api.get(&one, &key).await;
        if !b["data"]["last_outcome"].is_null() {
            check("get", "/api/v1/schedules/{scheduleId}", s, &b);
            break b;
        }
        assert!(std::time::Instant::now() < deadline, "no run: {b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let scan = b["data"]["last_outcome"]["scan_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (s, b) = api.get(&format!("/api/v1/scans/{scan}"), &key).await;
    check("get", "/api/v1/scans/{scanId}", s, &b);
    assert_eq!(b["data"]["schedule_id"], id.as_str());
    assert!(b["data"]["scheduled_for"].is_string(), "{b}");
    assert_eq!(b["data"]["config"]["priority"], "low");
    assert_eq!(b["data"]["config"]["budget"]["time_ms"], 100);
    let (s, b) = patch(&api, &one, &key, json!({"enabled": false})).await;
    check("patch", "/api/v1/schedules/{scheduleId}", s, &b);
    let (s, b) = patch(&api, &one, &key, json!({"cron": 5})).await;
    check("patch", "/api/v1/schedules/{scheduleId}", s, &b);
    let (s, b) = delete(&api, &one, &key).await;
    check("delete", "/api/v1/schedules/{scheduleId}", s, &b);
    let (s, b) = api.get(&one, &key).await;
    check("get", "/api/v1/schedules/{scheduleId}", s, &b);
    let (s, b) = delete(&api, &one, &key).await;
    check("delete", "/api/v1/schedules/{scheduleId}", s, &b);
    assert_eq!(checked.len(), 11, "{checked:?}");
    api.stop().await;
}
