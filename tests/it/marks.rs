//! Triage marks end to end: the API (exact answers, errors, pagination,
//! tenancy) on the embedded service and on a `sitescan serve --redis`
//! process; the Store methods on both backends (the per-site cap); a marked
//! finding leaving the score of the next scan of a loopback fixture site
//! while staying in its report with its `mark`, and never counting as new;
//! `sitescan remote marks export` read back by `sitescan scan --baseline`,
//! and `remote marks import` marking every finding of a baseline file.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use chrono::Utc;
use reqwest::Method;
use serde_json::{json, Value};
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{fixture, MarkPut, Plan, SiteMark, Store};
use sitescan_engine::baseline::fingerprint;
use sitescan_fixtures::FixtureServer;
use sitescan_rules::{Finding, MarkStatus};

use crate::api_support::{call, TestApi};
use crate::fleet_support::{backend, shared_redis, PrefixGuard};

const FP_A: &str = "0123456789abcdef0123456789abcdef";
const FP_B: &str = "fedcba9876543210fedcba9876543210";

/// Sends `method path` with `key` (and a JSON body) to the API at `base`.
async fn send(
    client: &reqwest::Client,
    base: &str,
    method: Method,
    path: &str,
    key: &str,
    body: Option<Value>,
) -> (u16, Value, Option<String>) {
    let mut req = client
        .request(method, format!("{base}{path}"))
        .header("X-API-Key", key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let location = resp
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let (status, body) = crate::api_support::json_of(resp).await;
    (status, body, location)
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

/// A mark's `data` without its time (checked to be RFC 3339 and recent).
fn without_time(data: &Value) -> Value {
    let at = data["at"].as_str().unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(at).unwrap();
    assert!((Utc::now() - at.with_timezone(&Utc)).num_minutes().abs() < 10);
    let mut d = data.clone();
    d.as_object_mut().unwrap().remove("at");
    d
}

/// The API's answers to the mark routes, the same on every backend: `key`
/// owns `site`; `other_key` is another account's, owning `other_site`.
async fn round_trip(base: &str, key: &str, site: &str, other_key: &str, other_site: &str) {
    let c = reqwest::Client::new();
    let marks = format!("/api/v1/sites/{site}/marks");

    // Create: 201 with Location, the mark as stored.
    let (s, b, loc) = send(
        &c,
        base,
        Method::PUT,
        &format!("{marks}/{FP_A}"),
        key,
        Some(json!({"status": "ignored", "note": "decorative, alt=\"\" is right"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(loc.unwrap(), format!("{base}{marks}/{FP_A}"));
    assert_eq!(
        without_time(&b["data"]),
        json!({
            "fingerprint": FP_A, "site_id": site, "status": "ignored",
            "note": "decorative, alt=\"\" is right", "by": "key test",
            "links": {"self": format!("{marks}/{FP_A}"), "site": format!("/api/v1/sites/{site}")}
        })
    );
    // Replace: 200, no Location; the note defaults to empty.
    let (s, b, loc) = send(
        &c,
        base,
        Method::PUT,
        &format!("{marks}/{FP_A}"),
        key,
        Some(json!({"status": "false_positive"})),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(loc, None);
    assert_eq!(b["data"]["status"], "false_positive");
    assert_eq!(b["data"]["note"], "");
    let (s, got, _) = send(&c, base, Method::GET, &format!("{marks}/{FP_A}"), key, None).await;
    assert_eq!(s, 200, "{got}");
    assert_eq!(got["data"], b["data"]);
    let (s, b, _) = send(
        &c,
        base,
        Method::PUT,
        &format!("{marks}/{FP_B}"),
        key,
        Some(json!({"status": "ignored", "note": "n"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");

    // The list, by fingerprint, one a page.
    let (s, page1, _) = send(
        &c,
        base,
        Method::GET,
        &format!("{marks}?limit=1"),
        key,
        None,
    )
    .await;
    assert_eq!(s, 200, "{page1}");
    assert_eq!(page1["meta"]["count"], 1);
    assert_eq!(page1["data"][0]["fingerprint"], FP_A);
    assert_eq!(page1["meta"]["next_cursor"], FP_A);
    let (s, page2, _) = send(
        &c,
        base,
        Method::GET,
        &format!("{marks}?limit=1&cursor={FP_A}"),
        key,
        None,
    )
    .await;
    assert_eq!(s, 200, "{page2}");
    assert_eq!(page2["data"][0]["fingerprint"], FP_B);
    assert!(
        page2["meta"].get("next_cursor").is_none_or(Value::is_null),
        "{page2}"
    );
    let (s, all, _) = send(&c, base, Method::GET, &marks, key, None).await;
    assert_eq!(s, 200);
    assert_eq!(all["meta"]["count"], 2);

    // Every problem of a PUT named at once.
    let (s, b, _) = send(
        &c,
        base,
        Method::PUT,
        &format!("{marks}/NOT-A-FINGERPRINT"),
        key,
        Some(json!({"status": "wontfix", "note": "x".repeat(2001)})),
    )
    .await;
    assert_eq!(
        problems(s, &b),
        [
            (
                "fingerprint".to_string(),
                sitescan_daemon::ops::marks::BAD_FINGERPRINT.to_string()
            ),
            (
                "status".to_string(),
                "unknown status `wontfix`: give ignored or false_positive".to_string()
            ),
            ("note".to_string(), "at most 2000 characters".to_string()),
        ]
    );
    // 2000 characters (not bytes) are accepted.
    let (s, b, _) = send(
        &c,
        base,
        Method::PUT,
        &format!("{marks}/{FP_B}"),
        key,
        Some(json!({"status": "ignored", "note": "é".repeat(2000)})),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    for method in [Method::GET, Method::DELETE] {
        let (s, b, _) = send(&c, base, method, &format!("{marks}/ABC"), key, None).await;
        assert_eq!(
            problems(s, &b),
            [(
                "fingerprint".to_string(),
                sitescan_daemon::ops::marks::BAD_FINGERPRINT.to_string()
            )]
        );
    }
    let (s, b, _) = send(
        &c,
        base,
        Method::GET,
        &format!("{marks}?limit=0&cursor=zz"),
        key,
        None,
    )
    .await;
    assert_eq!(
        problems(s, &b),
        [
            (
                "limit".to_string(),
                "give a number from 1 to 1000".to_string()
            ),
            (
                "cursor".to_string(),
                sitescan_daemon::ops::marks::BAD_MARK_CURSOR.to_string()
            ),
        ]
    );

    // Another account sees no site: 404 on every route, nothing changed.
    for (method, path, body) in [
        (Method::GET, marks.clone(), None),
        (Method::GET, format!("{marks}/{FP_A}"), None),
        (
            Method::PUT,
            format!("{marks}/{FP_A}"),
            Some(json!({"status": "ignored"})),
        ),
        (Method::DELETE, format!("{marks}/{FP_A}"), None),
    ] {
        let (s, b, _) = send(&c, base, method, &path, other_key, body).await;
        assert_eq!(s, 404, "{path}: {b}");
        assert_eq!(b["error"]["code"], "site_not_found", "{b}");
    }
    let (s, b, _) = send(
        &c,
        base,
        Method::GET,
        &format!("/api/v1/sites/{other_site}/marks"),
        key,
        None,
    )
    .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (404, Some("site_not_found"))
    );
    let (_, b, _) = send(&c, base, Method::GET, &format!("{marks}/{FP_A}"), key, None).await;
    assert_eq!(b["data"]["status"], "false_positive");

    // Remove: 200, then 404 mark_not_found.
    let (s, b, _) = send(
        &c,
        base,
        Method::DELETE,
        &format!("{marks}/{FP_A}"),
        key,
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"], json!({"fingerprint": FP_A, "deleted": true}));
    for method in [Method::DELETE, Method::GET] {
        let (s, b, _) = send(&c, base, method, &format!("{marks}/{FP_A}"), key, None).await;
        assert_eq!(s, 404, "{b}");
        assert_eq!(b["error"]["code"], "mark_not_found", "{b}");
    }
    let (_, all, _) = send(&c, base, Method::GET, &marks, key, None).await;
    assert_eq!(all["meta"]["count"], 1);
    assert_eq!(all["data"][0]["fingerprint"], FP_B);
}

/// A `sitescan serve --redis` process; killed on drop.
struct ApiProcess {
    child: Child,
    base: String,
}

impl ApiProcess {
    fn start(url: &str, prefix: &str) -> ApiProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(["--redis", url, "--redis-prefix", prefix])
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

/// An enterprise account with a site and a key named `test`, in `store`.
async fn tenant(store: &dyn Store) -> (String, String) {
    let (account, site) = fixture::tenant(store, Plan::Enterprise, "https://shop.example/")
        .await
        .unwrap();
    let (key, secret, hash) = new_key(
        &account.id,
        "test",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    store.create_key(key, &hash).await.unwrap();
    (secret, site.id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_marks_api_answers_the_same_on_both_backends() {
    let api = TestApi::start().await;
    let (key, site) = tenant(api.store.as_ref()).await;
    let (other_key, other_site) = tenant(api.store.as_ref()).await;
    round_trip(&api.base, &key, &site, &other_key, &other_site).await;
    api.stop().await;

    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let redis = backend(&url, &guard.prefix, Duration::from_secs(300), 3).await;
    let (key, site) = tenant(&redis).await;
    let (other_key, other_site) = tenant(&redis).await;
    let process = tokio::task::spawn_blocking({
        let (url, prefix) = (url.clone(), guard.prefix.clone());
        move || ApiProcess::start(&url, &prefix)
    })
    .await
    .unwrap();
    round_trip(&process.base, &key, &site, &other_key, &other_site).await;
    drop(process);
}

fn site_mark(account: &str, site: &str, fp: &str, status: MarkStatus) -> SiteMark {
    SiteMark {
        account_id: account.into(),
        site_id: site.into(),
        fingerprint: fp.into(),
        status,
        note: String::new(),
        by: None,
        at: Utc::now(),
    }
}

/// The Store methods: create, replace, the cap (atomic per site), tenancy.
async fn store_contract(store: &dyn Store) {
    let (account, site) = fixture::tenant(store, Plan::Enterprise, "https://a.example/")
        .await
        .unwrap();
    let (other, other_site) = fixture::tenant(store, Plan::Enterprise, "https://b.example/")
        .await
        .unwrap();
    let (a, s) = (account.id.as_str(), site.id.as_str());
    let put = |fp: &str, status| store.put_mark(site_mark(a, s, fp, status), 2);
    assert_eq!(
        put(FP_A, MarkStatus::Ignored).await.unwrap(),
        MarkPut::Created
    );
    assert_eq!(
        put(FP_A, MarkStatus::FalsePositive).await.unwrap(),
        MarkPut::Updated
    );
    assert_eq!(
        put(FP_B, MarkStatus::Ignored).await.unwrap(),
        MarkPut::Created
    );
    // The cap: a third fingerprint is refused, a replacement is not.
    let third = "11111111111111111111111111111111";
    assert_eq!(
        put(third, MarkStatus::Ignored).await.unwrap(),
        MarkPut::Full
    );
    assert_eq!(
        put(FP_B, MarkStatus::FalsePositive).await.unwrap(),
        MarkPut::Updated
    );
    // Another site has its own room.
    assert_eq!(
        store
            .put_mark(
                site_mark(&other.id, &other_site.id, third, MarkStatus::Ignored),
                2
            )
            .await
            .unwrap(),
        MarkPut::Created
    );
    let listed: Vec<(String, MarkStatus)> = store
        .list_marks(a, s)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.fingerprint, m.status))
        .collect();
    assert_eq!(
        listed,
        [
            (FP_A.to_string(), MarkStatus::FalsePositive),
            (FP_B.to_string(), MarkStatus::FalsePositive)
        ]
    );
    // Tenancy: another account reads, lists and deletes nothing of it.
    assert_eq!(store.mark(&other.id, s, FP_A).await.unwrap(), None);
    assert!(store.list_marks(&other.id, s).await.unwrap().is_empty());
    assert!(!store.delete_mark(&other.id, s, FP_A).await.unwrap());
    assert!(store.delete_mark(a, s, FP_A).await.unwrap());
    assert!(!store.delete_mark(a, s, FP_A).await.unwrap());
    assert_eq!(store.mark(a, s, FP_A).await.unwrap(), None);
    assert_eq!(
        store.mark(a, s, FP_B).await.unwrap().unwrap().status,
        MarkStatus::FalsePositive
    );
    // Removing the site removes its marks, and only its marks.
    sitescan_daemon::ops::sites::remove_site(store, a, s)
        .await
        .unwrap();
    assert!(store.list_marks(a, s).await.unwrap().is_empty());
    assert_eq!(
        store
            .list_marks(&other.id, &other_site.id)
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mark_store_holds_its_cap_and_tenancy_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    store_contract(&Embedded::open(dir.path()).unwrap()).await;
    let (url, _server) = shared_redis();
    let guard = PrefixGuard::new(&url);
    store_contract(&backend(&url, &guard.prefix, Duration::from_secs(300), 3).await).await;
}

fn page(body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Shop</title></head>\
         <body><main><h1>Shop</h1>{body}</main></body></html>"
    )
}

const RULES: [&str; 2] = ["image-alt", "outdated-copyright"];

/// Scans `site` and waits for it to complete: the scan's JSON and its report.
async fn scan(api: &TestApi, key: &str, site: &str) -> (Value, Value) {
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            key,
            json!({"config": {"rules": RULES, "max_pages": 1, "links": "none"}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    let (s, report) = api.get(&format!("/api/v1/scans/{id}/report"), key).await;
    assert_eq!(s, 200, "{report}");
    (done, report["data"].clone())
}

fn findings(report: &Value) -> Vec<Finding> {
    serde_json::from_value(report["findings"].clone()).unwrap()
}

/// The fingerprint of the report's finding of `rule` on `selector`.
fn fp_of(report: &Value, rule: &str, selector: &str) -> String {
    let all = findings(report);
    let f = all
        .iter()
        .find(|f| f.rule_id == rule && f.selector == selector)
        .unwrap_or_else(|| panic!("no {rule} on {selector}: {report}"));
    fingerprint(f)
}

/// The report's findings as (rule, selector, mark status or "").
fn marked(report: &Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = findings(report)
        .into_iter()
        .map(|f| {
            (
                f.rule_id,
                f.selector,
                f.mark
                    .map(|m| m.status.as_str().to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Runs the `sitescan` binary with `args` (off the runtime's threads).
async fn sitescan(args: Vec<String>, env: Vec<(&'static str, String)>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args(args)
        .env_remove("SITESCAN_FORMAT")
        .env_remove("SITESCAN_OUTPUT")
        .env_remove("SITESCAN_FAIL_ON")
        .env_remove("SITESCAN_BASELINE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_marked_finding_leaves_the_score_stays_in_the_report_and_is_never_new() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index.html");
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png"><p>© 2019 Shop</p>"#),
    )
    .unwrap();
    let fixture = FixtureServer::start(dir.path()).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &fixture.url()).await;
    let marks = format!("/api/v1/sites/{site}/marks");

    // Unmarked: image-alt (critical) fails on the one page: 50.
    let (first, report) = scan(&api, &key, &site).await;
    let acc_summary = &first["summary"]["categories"]["accessibility"];
    assert_eq!(acc_summary["score"], 50, "{first}");
    assert_eq!(acc_summary["critical"], 1);
    assert!(acc_summary.get("marked").is_none(), "{first}");
    assert_eq!(first["summary"]["categories"]["quality"]["score"], 95);
    assert_eq!(first["summary"]["findings"], 2);
    let one = fp_of(&report, "image-alt", "#one");

    // #one marked; a second image appears on the page, marked before any
    // scan of the service saw it (its fingerprint from a library scan).
    let (s, b) = call(
        api.req(Method::PUT, &format!("{marks}/{one}"), Some(&key))
            .json(&json!({"status": "false_positive", "note": "a spacer"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png"><img id="two" src="b.png"><p>© 2019 Shop</p>"#),
    )
    .unwrap();
    let local = sitescan::Scanner::builder()
        .rules(&RULES)
        .max_pages(1)
        .allow_private(true)
        .build()
        .unwrap()
        .scan(&fixture.url())
        .await
        .unwrap();
    let two_finding = local
        .findings
        .iter()
        .find(|f| f.selector == "#two")
        .unwrap();
    let two = fingerprint(two_finding);
    let (s, b) = call(
        api.req(Method::PUT, &format!("{marks}/{two}"), Some(&key))
            .json(&json!({"status": "ignored"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");

    // Both images marked: accessibility back to 100 (exactly the critical
    // deduction of 50 gone), quality untouched; both findings still in the
    // report with their marks; nothing new (#two would be, unmarked).
    let (second, report) = scan(&api, &key, &site).await;
    let cats = &second["summary"]["categories"];
    assert_eq!(cats["accessibility"]["score"], 100, "{second}");
    assert_eq!(cats["accessibility"]["critical"], 0);
    assert_eq!(cats["accessibility"]["marked"], 2);
    assert_eq!(cats["quality"], first["summary"]["categories"]["quality"]);
    assert_eq!(second["summary"]["findings"], 1);
    assert_eq!(
        marked(&report),
        [
            ("image-alt".into(), "#one".into(), "false_positive".into()),
            ("image-alt".into(), "#two".into(), "ignored".into()),
            ("outdated-copyright".into(), String::new(), String::new()),
        ]
    );
    let mark_one = findings(&report)
        .into_iter()
        .find(|f| f.selector == "#one")
        .unwrap()
        .mark
        .unwrap();
    assert_eq!(mark_one.note, "a spacer");
    assert_eq!(mark_one.by.as_deref(), Some("key test"));
    assert_eq!(report["summary"]["accessibility"]["marked"], 2);
    assert_eq!(report["summary"]["accessibility"]["score"], 100);
    let r = &second["summary"]["regressions"];
    assert_eq!(r["compared_with"], first["id"], "{r}");
    assert_eq!(r["new"]["count"], 0, "{r}");
    assert_eq!(r["fixed"]["count"], 0, "{r}");
    // The HTML report lists them apart, as marked.
    let html = api
        .req(
            Method::GET,
            &format!(
                "/api/v1/scans/{}/report?format=html",
                second["id"].as_str().unwrap()
            ),
            Some(&key),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("Marked (2)"), "{html}");
    assert!(html.contains("False positive") && html.contains("a spacer"));

    // The CLI's baseline from the marks: `scan --baseline` finds exactly the
    // marked findings unchanged, everything else new.
    let out = tempfile::tempdir().unwrap();
    let baseline = out.path().join("baseline.json");
    let env = vec![
        ("SITESCAN_API_URL", api.base.clone()),
        ("SITESCAN_API_KEY", key.clone()),
    ];
    let o = sitescan(
        strings(&[
            "remote",
            "marks",
            "export",
            "--site",
            &site,
            "--output",
            baseline.to_str().unwrap(),
        ]),
        env.clone(),
    )
    .await;
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("2 marked findings of scan_"), "{err}");
    let exported: Value = serde_json::from_slice(&std::fs::read(&baseline).unwrap()).unwrap();
    let exported_fps: BTreeSet<String> = findings(&exported).iter().map(fingerprint).collect();
    assert_eq!(exported_fps, BTreeSet::from([one.clone(), two.clone()]));
    let o = sitescan(
        strings(&[
            "scan",
            &fixture.url(),
            "--rules",
            "image-alt,outdated-copyright",
            "--max-pages",
            "1",
            "--links",
            "none",
            "--format",
            "json",
            "--baseline",
            baseline.to_str().unwrap(),
            "--fail-on-new",
            "minor",
        ]),
        vec![],
    )
    .await;
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut states: Vec<(String, String)> = findings(&cli)
        .into_iter()
        .map(|f| {
            (
                f.selector,
                serde_json::to_value(f.baseline)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    states.sort();
    assert_eq!(
        states,
        [
            (String::new(), "new".into()),
            ("#one".into(), "unchanged".into()),
            ("#two".into(), "unchanged".into()),
        ]
    );
    assert_eq!(cli["baseline"]["new"], 1);
    assert_eq!(cli["baseline"]["unchanged"], 2);

    // Import: a baseline file (the CLI's own report) marks every finding
    // of it on another site, each fingerprint once; again, all replaced.
    let full = out.path().join("full.json");
    let o = sitescan(
        strings(&[
            "scan",
            &fixture.url(),
            "--rules",
            "image-alt,outdated-copyright",
            "--max-pages",
            "1",
            "--links",
            "none",
            "--format",
            "json",
            "--output",
            full.to_str().unwrap(),
        ]),
        vec![],
    )
    .await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let file_fps: BTreeSet<String> =
        findings(&serde_json::from_slice(&std::fs::read(&full).unwrap()).unwrap())
            .iter()
            .map(fingerprint)
            .collect();
    assert_eq!(file_fps.len(), 3);
    let other_site = api.site(&acc, &fixture.url()).await;
    let import = strings(&[
        "remote",
        "marks",
        "import",
        "--site",
        &other_site,
        full.to_str().unwrap(),
        "--status",
        "ignored",
        "--note",
        "accepted in CI",
    ]);
    let o = sitescan(import.clone(), env.clone()).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary, json!({"marked": 3, "created": 3, "updated": 0}));
    let (s, listed) = api
        .get(&format!("/api/v1/sites/{other_site}/marks"), &key)
        .await;
    assert_eq!(s, 200, "{listed}");
    let listed_fps: BTreeSet<String> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["status"], "ignored");
            assert_eq!(m["note"], "accepted in CI");
            assert_eq!(m["by"], "key test");
            m["fingerprint"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(listed_fps, file_fps);
    let o = sitescan(import, env.clone()).await;
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary, json!({"marked": 3, "created": 0, "updated": 3}));
    // A file that is no report is a usage error, nothing marked.
    let junk = out.path().join("junk.json");
    std::fs::write(&junk, "{\"findings\": []}").unwrap();
    let o = sitescan(
        strings(&[
            "remote",
            "marks",
            "import",
            "--site",
            &site,
            junk.to_str().unwrap(),
            "--status",
            "ignored",
        ]),
        env.clone(),
    )
    .await;
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("schema_version"));

    // Unmarked again: the next scan counts #one (50), and it is not new
    // (the previous scan had it, marked).
    let (s, _) = call(api.req(Method::DELETE, &format!("{marks}/{one}"), Some(&key))).await;
    assert_eq!(s, 200);
    let (third, report) = scan(&api, &key, &site).await;
    let cats = &third["summary"]["categories"];
    assert_eq!(cats["accessibility"]["score"], 50, "{third}");
    assert_eq!(cats["accessibility"]["critical"], 1);
    assert_eq!(cats["accessibility"]["marked"], 1);
    assert_eq!(third["summary"]["regressions"]["new"]["count"], 0);
    assert_eq!(
        marked(&report),
        [
            ("image-alt".into(), "#one".into(), String::new()),
            ("image-alt".into(), "#two".into(), "ignored".into()),
            ("outdated-copyright".into(), String::new(), String::new()),
        ]
    );
    // A finished scan's report stays as it completed.
    let (_, again) = api
        .get(
            &format!("/api/v1/scans/{}/report", second["id"].as_str().unwrap()),
            &key,
        )
        .await;
    assert_eq!(marked(&again["data"]).len(), 3);
    assert_eq!(again["data"]["summary"]["accessibility"]["score"], 100);
    api.stop().await;
}
