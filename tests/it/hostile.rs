//! The hostile corpus (`sitescan_fixtures::hostile`), scanned with every budget
//! at its default: once by the `sitescan` binary per case, and by groups through
//! a `sitescan serve` process (two workers) while a second tenant scans an
//! ordinary site alongside.
//!
//! For each case: the scan finishes (90 s is only a hang guard), the hostile
//! page shows what its [`Expect`] says (an `analysis-incomplete` finding, the
//! truncation note, an `unreachable-page` failure), the normal page beside it
//! has exactly the page-rule findings it has in a site without the hostile
//! neighbour, and through `serve`: `/healthz` answers throughout, the scan
//! took one attempt (no crash restarted it), the process is alive, and the
//! other tenant's scan completed with its normal findings.
//!
//! The wall time and peak RSS of each case are measured by
//! `scripts/hostile-bench`, never asserted here.

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sitescan_fixtures::hostile::{case, Case, Expect, HostileServer, NORMAL_PAGE};

use crate::api_support::{admin, sitescan, KeyedApi};

/// Longer than any case may take with the default budget: only a hang guard.
const HANG_GUARD: Duration = Duration::from_secs(90);

/// One finding, without its page URL: rule, outcome, selector, message.
type Key = (String, String, String, String);

/// Page rules that judge how fast the server answered: their findings depend
/// on the machine's load (a hostile page next door is load), not on the page.
const TIMING_RULES: &[&str] = &["server-response-time", "download-time"];

/// Ids of the page rules but the timing ones (site rules judge the whole
/// crawl, so their findings on the normal page may rightly change with a
/// hostile neighbour).
fn page_rule_ids() -> BTreeSet<&'static str> {
    sitescan::rules::registry::page_rules()
        .iter()
        .map(|r| r.meta().id)
        .filter(|id| !TIMING_RULES.contains(id))
        .collect()
}

/// The page-rule findings of the report on `page_url`, sorted, with the
/// origin of the case server written as `{origin}`.
fn page_findings(report: &Value, page_url: &str, origin: &str) -> Vec<Key> {
    let ids = page_rule_ids();
    let text = |f: &Value, k: &str| f[k].as_str().unwrap_or("").replace(origin, "{origin}");
    let mut out: Vec<Key> = report["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings array: {report}"))
        .iter()
        .filter(|f| f["page_url"] == page_url)
        .filter(|f| f["rule_id"].as_str().is_some_and(|id| ids.contains(id)))
        .map(|f| {
            (
                text(f, "rule_id"),
                text(f, "outcome"),
                text(f, "selector"),
                text(f, "message"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Every finding of the report on `page_url`: (rule, outcome, message).
fn all_findings_on(report: &Value, page_url: &str) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings array: {report}"))
        .iter()
        .filter(|f| f["page_url"] == page_url)
        .map(|f| {
            (
                f["rule_id"].as_str().unwrap_or("").to_string(),
                f["outcome"].as_str().unwrap_or("").to_string(),
                f["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The page report of `url`.
fn page_report<'a>(report: &'a Value, url: &str) -> &'a Value {
    report["pages"]
        .as_array()
        .unwrap_or_else(|| panic!("no pages array: {report}"))
        .iter()
        .find(|p| p["url"] == url)
        .unwrap_or_else(|| panic!("{url} was not crawled: {}", report["pages"]))
}

/// `sitescan scan URL` with every budget at its default (`--rate 100` only
/// spares the test the default politeness delay), killed after the hang guard:
/// the JSON report.
async fn cli_scan(url: String) -> Value {
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let out_path = dir.path().join("report.json");
        let err_path = dir.path().join("stderr.txt");
        let mut child = sitescan()
            .args(["scan", &url, "--rate", "100"])
            .env_remove("RUST_LOG")
            .stdout(std::fs::File::create(&out_path).unwrap())
            .stderr(std::fs::File::create(&err_path).unwrap())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > HANG_GUARD {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "sitescan scan {url} still running after {HANG_GUARD:?}: {}",
                    std::fs::read_to_string(&err_path).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        assert_eq!(
            status.code(),
            Some(0),
            "sitescan scan {url}: {status}\n{stderr}"
        );
        let stdout = std::fs::read(&out_path).unwrap();
        serde_json::from_slice(&stdout)
            .unwrap_or_else(|e| panic!("report of {url} is not JSON ({e}): {stderr}"))
    })
    .await
    .unwrap()
}

/// The normal page's page-rule findings in a site without a hostile page
/// (the `control` case), scanned once per test binary by the CLI.
fn control_findings() -> &'static [Key] {
    static CONTROL: OnceLock<Vec<Key>> = OnceLock::new();
    CONTROL.get_or_init(|| {
        // Its own runtime on its own thread: callers are inside a runtime.
        std::thread::spawn(|| {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let server = HostileServer::start(case("control").unwrap())
                    .await
                    .unwrap();
                let report = cli_scan(server.url()).await;
                let found = page_findings(&report, &server.url_for(NORMAL_PAGE), server.origin());
                // What makes the comparison worth something: the known failures.
                for rule in ["document-title", "image-alt"] {
                    assert_eq!(
                        found
                            .iter()
                            .filter(|k| k.0 == rule && k.1 == "failed")
                            .count(),
                        1,
                        "{rule} on the control's normal page: {found:?}"
                    );
                }
                assert!(
                    !found.iter().any(|k| k.0 == "analysis-incomplete"),
                    "{found:?}"
                );
                found
            })
        })
        .join()
        .unwrap()
    })
}

/// What every scan of a case must show: the normal page analysed exactly as
/// without the hostile neighbour, and the hostile page as its case expects.
fn check_report(case: &Case, server: &HostileServer, report: &Value) {
    let normal_url = server.url_for(NORMAL_PAGE);
    let normal = page_report(report, &normal_url);
    assert_eq!(normal["status"], 200, "{normal}");
    assert_eq!(normal["error"], Value::Null, "{normal}");
    assert_eq!(
        page_findings(report, &normal_url, server.origin()),
        control_findings(),
        "{}: the normal page's findings changed beside the hostile one",
        case.name
    );
    let start = page_report(report, &server.url());
    assert_eq!(start["status"], 200, "{start}");

    let Some(judged) = case.judged_page else {
        return;
    };
    let url = server.url_for(judged);
    let found = all_findings_on(report, &url);
    let has = |rule: &str, outcome: &str| found.iter().any(|f| f.0 == rule && f.1 == outcome);
    let page = page_report(report, &url);
    match case.expect {
        Expect::Analysed => {
            assert_eq!(page["status"], 200, "{}: {page}", case.name);
            assert_eq!(page["error"], Value::Null, "{}: {page}", case.name);
            assert!(
                has("document-title", "failed") || has("analysis-incomplete", "cant-tell"),
                "{}: the hostile page was not analysed: {found:?}",
                case.name
            );
        }
        Expect::AnalysisIncomplete => {
            assert_eq!(page["status"], 200, "{}: {page}", case.name);
            let incomplete: Vec<_> = found
                .iter()
                .filter(|f| f.0 == "analysis-incomplete")
                .collect();
            assert!(
                !incomplete.is_empty(),
                "{}: no analysis-incomplete finding on the hostile page: {found:?}",
                case.name
            );
            for f in &incomplete {
                assert_eq!(f.1, "cant-tell", "{incomplete:?}");
                assert!(
                    !f.2.is_empty(),
                    "the finding names no limit: {incomplete:?}"
                );
            }
        }
        Expect::BodyCapped => {
            let noted = page["error"]
                .as_str()
                .is_some_and(|e| e.contains("larger than"));
            assert!(
                noted || has("unreachable-page", "failed"),
                "{}: neither the truncation note nor unreachable-page: {page} {found:?}",
                case.name
            );
        }
        Expect::Unreachable => {
            assert!(
                has("unreachable-page", "failed"),
                "{}: the hostile page is not failed by unreachable-page: {page} {found:?}",
                case.name
            );
            assert!(page["error"].is_string(), "{}: {page}", case.name);
        }
        Expect::SiteResource => {}
    }
}

/// What the case server saw that every scan must have done.
fn check_requests(case: &Case, server: &HostileServer) {
    let paths = server.paths();
    assert!(
        paths.iter().any(|p| p == NORMAL_PAGE),
        "{}: {paths:?}",
        case.name
    );
    if let Some(judged) = case.judged_page {
        assert!(
            paths.iter().any(|p| p == judged),
            "{}: {paths:?}",
            case.name
        );
    }
    // robots.txt disallows /u/: the sitemap URLs are counted, never fetched.
    assert!(
        !paths.iter().any(|p| p.starts_with("/u/")),
        "{}: fetched a URL robots.txt disallows",
        case.name
    );
}

async fn cli_case(name: &str) {
    let case = case(name).unwrap();
    let server = HostileServer::start(case).await.unwrap();
    let report = cli_scan(server.url()).await;
    check_report(case, &server, &report);
    check_requests(case, &server);
}

macro_rules! cli_cases {
    ($($test:ident => $name:literal,)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            cli_case($name).await;
        }
    )*};
}

cli_cases! {
    cli_survives_deep_span => "deep-span",
    cli_survives_deep_div => "deep-div",
    cli_survives_deep_li => "deep-li",
    cli_survives_deep_table => "deep-table",
    cli_survives_deep_svg_g => "deep-svg-g",
    cli_survives_deep_a => "deep-a",
    cli_survives_links_1k => "links-1k",
    cli_survives_links_10k => "links-10k",
    cli_survives_links_100k => "links-100k",
    cli_survives_bomb_page => "bomb-page",
    cli_survives_bomb_sitemap => "bomb-sitemap",
    cli_survives_bomb_sitemap_gz => "bomb-sitemap-gz",
    cli_survives_bomb_robots => "bomb-robots",
    cli_survives_bomb_stylesheet => "bomb-stylesheet",
    cli_survives_sitemap_index_huge => "sitemap-index-huge",
    cli_survives_robots_512k => "robots-512k",
    cli_survives_selector_bomb => "selector-bomb",
    cli_survives_css_60k_rules => "css-60k-rules",
    cli_survives_css_deep => "css-deep",
    cli_survives_jsonld_deep => "jsonld-deep",
    cli_survives_trickle => "trickle",
    cli_survives_cut_short => "cut-short",
}

#[test]
fn every_case_of_the_corpus_has_a_cli_test() {
    let source = include_str!("hostile.rs");
    for c in sitescan_fixtures::hostile::CASES {
        if c.name != "control" {
            assert!(
                source.contains(&format!("=> \"{}\",", c.name)),
                "no CLI test for {}",
                c.name
            );
        }
    }
}

// ---- through `sitescan serve` ----

/// A `sitescan serve` process with two workers (so two tenants' scans run at
/// once), private targets allowed; killed on drop.
struct Serve {
    child: std::process::Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl KeyedApi for Serve {
    fn base(&self) -> &str {
        &self.base
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Two tenants on a fresh `serve`: (server, key of A, key of B).
fn serve_with_two_tenants() -> (Serve, String, String) {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut keys = Vec::new();
    for name in ["hostile", "bystander"] {
        let (code, acc, err) = admin(dir.path(), &["account", "create", "--plan", "enterprise"]);
        assert_eq!(code, 0, "{err}");
        let acc = acc["id"].as_str().unwrap().to_string();
        let (code, key, err) = admin(
            dir.path(),
            &["key", "create", "--account", &acc, "--name", name],
        );
        assert_eq!(code, 0, "{err}");
        keys.push(key["key"].as_str().unwrap().to_string());
    }
    let mut child = sitescan()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--workers",
            "2",
            "--allow-private",
        ])
        .arg("--data-dir")
        .arg(dir.path())
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    let base = v["listening"].as_str().unwrap().to_string();
    let bystander = keys.pop().unwrap();
    let hostile = keys.pop().unwrap();
    (
        Serve {
            child,
            base,
            _dir: dir,
        },
        hostile,
        bystander,
    )
}

impl Serve {
    async fn healthz(&self) -> u16 {
        reqwest::get(format!("{}/healthz", self.base))
            .await
            .map(|r| r.status().as_u16())
            .unwrap_or(0)
    }

    async fn site(&self, key: &str, url: &str) -> String {
        let (s, body) = self
            .post(
                "/api/v1/sites",
                key,
                json!({"url": url, "name": "hostile corpus"}),
            )
            .await;
        assert_eq!(s, 201, "{body}");
        body["data"]["id"].as_str().unwrap().to_string()
    }

    async fn start_scan(&self, key: &str, site: &str) -> String {
        let (s, body) = self
            .post(
                &format!("/api/v1/sites/{site}/scans"),
                key,
                json!({"config": {"rules": ["all"]}}),
            )
            .await;
        assert_eq!(s, 202, "{body}");
        body["data"]["id"].as_str().unwrap().to_string()
    }

    /// Waits for both scans to end, asking `/healthz` every round (it must
    /// answer 200 throughout) and checking the process is alive.
    async fn wait_both(&mut self, a: (&str, &str), b: (&str, &str)) -> (Value, Value) {
        let deadline = Instant::now() + HANG_GUARD;
        let mut done: [Option<Value>; 2] = [None, None];
        loop {
            assert_eq!(self.healthz().await, 200, "/healthz during the scans");
            assert!(
                self.child.try_wait().unwrap().is_none(),
                "sitescan serve exited during a hostile scan"
            );
            for (i, (scan, key)) in [a, b].into_iter().enumerate() {
                if done[i].is_some() {
                    continue;
                }
                let (s, body) = self.get(&format!("/api/v1/scans/{scan}"), key).await;
                assert_eq!(s, 200, "{body}");
                let status = body["data"]["status"].as_str().unwrap_or("");
                if ["completed", "failed", "canceled"].contains(&status) {
                    done[i] = Some(body["data"].clone());
                }
            }
            if let [Some(x), Some(y)] = &done {
                return (x.clone(), y.clone());
            }
            assert!(
                Instant::now() < deadline,
                "scans still running after {HANG_GUARD:?}: {done:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn report(&self, scan: &str, key: &str) -> Value {
        let (s, body) = self.get(&format!("/api/v1/scans/{scan}/report"), key).await;
        assert_eq!(s, 200, "{body}");
        body["data"].clone()
    }
}

/// Scans each case as tenant A through one `serve`, while tenant B scans the
/// control site at the same time, one case after the other.
async fn serve_cases(names: &[&str]) {
    let (mut serve, hostile_key, bystander_key) = serve_with_two_tenants();
    let control = HostileServer::start(case("control").unwrap())
        .await
        .unwrap();
    let control_site = serve.site(&bystander_key, &control.url()).await;
    for name in names {
        let case = case(name).unwrap();
        let server = HostileServer::start(case).await.unwrap();
        let site = serve.site(&hostile_key, &server.url()).await;
        let a = serve.start_scan(&hostile_key, &site).await;
        let b = serve.start_scan(&bystander_key, &control_site).await;
        let (done_a, done_b) = serve
            .wait_both((&a, &hostile_key), (&b, &bystander_key))
            .await;
        for done in [&done_a, &done_b] {
            assert_eq!(done["status"], "completed", "{name}: {done}");
            assert_eq!(done["attempts"], 1, "{name}: a crash restarted it: {done}");
        }
        assert_eq!(serve.healthz().await, 200, "/healthz after {name}");
        let report = serve.report(&a, &hostile_key).await;
        check_report(case, &server, &report);
        check_requests(case, &server);
        // The bystander's scan saw nothing of it.
        let bystander = serve.report(&b, &bystander_key).await;
        assert_eq!(
            page_findings(&bystander, &control.url_for(NORMAL_PAGE), control.origin()),
            control_findings(),
            "{name}: the other tenant's scan changed"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_deep_nesting_beside_another_tenant() {
    serve_cases(&[
        "deep-span",
        "deep-div",
        "deep-li",
        "deep-table",
        "deep-svg-g",
        "deep-a",
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_huge_link_lists_beside_another_tenant() {
    serve_cases(&["links-1k", "links-10k", "links-100k"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_gzip_bombs_beside_another_tenant() {
    serve_cases(&[
        "bomb-page",
        "bomb-sitemap",
        "bomb-sitemap-gz",
        "bomb-robots",
        "bomb-stylesheet",
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_huge_sitemaps_and_robots_beside_another_tenant() {
    serve_cases(&["sitemap-index-huge", "robots-512k"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_css_and_json_ld_bombs_beside_another_tenant() {
    serve_cases(&["selector-bomb", "css-60k-rules", "css-deep", "jsonld-deep"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_survives_trickling_and_cut_short_bodies_beside_another_tenant() {
    serve_cases(&["trickle", "cut-short"]).await;
}
