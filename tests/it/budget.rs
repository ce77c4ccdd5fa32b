//! The page budget: a page over any limit gets exactly one
//! `analysis-incomplete` finding naming it while the other pages of the scan
//! are analyzed as without the limit (library, CLI), the API holds a scan's
//! budget under the service's ceiling, and a canceled scan stops burning CPU
//! (`sitescan serve`, measured from the server's own CPU time).

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{json, Value};
use sitescan::rules::Outcome;
use sitescan::{Report, Scanner, ScannerBuilder};
use sitescan_daemon::store::Plan;
use sitescan_fixtures::FixtureServer;

use crate::api_support::{admin, assert_error, sitescan, KeyedApi, ServeProcess, TestApi};

/// A page the cascade takes long over (seconds in a debug build, however
/// fast the rules): `divs` elements with distinct ids, so no two share a
/// style, each matched against `rules` rules keyed on its tag.
fn css_heavy_page(divs: usize, rules: usize) -> String {
    let sheet: String = (0..rules)
        .map(|i| format!("div:not(#x{i}) {{ color: #{:06x} }}\n", i * 7919 % 0xffffff))
        .collect();
    let body: String = (0..divs)
        .map(|i| format!("<div id=d{i}>Text {i}</div>"))
        .collect();
    page("Heavy", &format!("<style>{sheet}</style>"), &body)
}

fn page(title: &str, head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title>{head}</head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    )
}

/// A site of three pages: `/` links to `/heavy.html` (whose markup is given)
/// and `/light.html`. Keep the folder alive as long as the server.
async fn site(heavy: &str) -> (tempfile::TempDir, FixtureServer) {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, html: &str| std::fs::write(dir.path().join(name), html).unwrap();
    write(
        "index.html",
        &page(
            "Home",
            "",
            "<p><a href=\"/heavy.html\">Heavy</a> <a href=\"/light.html\">Light</a></p>",
        ),
    );
    write(
        "light.html",
        &page(
            "Light",
            "",
            "<p style=\"color:#777\">Faint text.</p><img src=\"a.png\"><a href=\"/\">Home</a>",
        ),
    );
    write("heavy.html", heavy);
    let server = FixtureServer::start(dir.path()).await.unwrap();
    (dir, server)
}

fn scanner() -> ScannerBuilder {
    Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["wcag-aa", "seo"])
}

/// The findings of one page, as comparable lines.
fn findings_of(report: &Report, url: &str) -> Vec<String> {
    let mut out: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.page_url == url)
        .map(|f| format!("{} {:?} {} {}", f.rule_id, f.outcome, f.selector, f.message))
        .collect();
    out.sort();
    out
}

fn incomplete(report: &Report) -> Vec<&sitescan::rules::Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.rule_id == "analysis-incomplete")
        .collect()
}

/// Scans the site once without and once with `tight`: the heavy page gets
/// exactly one `analysis-incomplete` finding, whose message is returned; the
/// other pages' findings are the same in both scans.
async fn over_one_limit(heavy: &str, tight: ScannerBuilder) -> String {
    let (_dir, server) = site(heavy).await;
    // The control has time enough for the heavy page in a debug build on a
    // loaded machine.
    let control = scanner()
        .page_time(Duration::from_secs(600))
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert!(
        incomplete(&control).is_empty(),
        "{:?}",
        incomplete(&control)
    );
    let report = tight.build().unwrap().scan(&server.url()).await.unwrap();
    assert_eq!(report.pages.len(), 3);
    let heavy_url = server.url_for("/heavy.html");
    let own = incomplete(&report);
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0].page_url, heavy_url);
    assert_eq!(own[0].outcome, Outcome::CantTell);
    let heavy_page = report.pages.iter().find(|p| p.url == heavy_url).unwrap();
    assert_eq!(
        heavy_page.incomplete.as_deref(),
        Some(own[0].message.as_str())
    );
    assert!(
        report
            .notes
            .contains(&"1 page(s) went over the page budget or could not load all their stylesheets, and were analyzed in part: see their analysis-incomplete findings".to_string()),
        "{:?}",
        report.notes
    );
    for path in ["/", "/light.html"] {
        let url = server.url_for(path);
        assert_eq!(
            findings_of(&report, &url),
            findings_of(&control, &url),
            "{path}"
        );
        assert!(!findings_of(&report, &url).is_empty() || path == "/");
    }
    own[0].message.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_over_its_links_cap_is_noted_and_the_others_are_not() {
    let heavy = page("Links", "", &"<a href=\"/\">Home</a> ".repeat(5));
    let message = over_one_limit(&heavy, scanner().max_page_links(3)).await;
    assert_eq!(
        message,
        "The page has 5 links, more than 3 (the page budget, --max-page-links or config budget.max_links): links past the first 3 were not crawled or checked"
    );
}

/// The parser's caps, end to end: nesting past the depth cap is flattened and
/// counted, nodes past the node cap are dropped; either is the page's one
/// `analysis-incomplete` finding, and the other pages are judged as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_over_its_parse_caps_is_noted_and_the_others_are_not() {
    // html 1, body 2, main 3, then 20 divs: the 5th is at depth 8, 15 deeper.
    let deep = page(
        "Deep",
        "",
        &format!("{}Text{}", "<div>".repeat(20), "</div>".repeat(20)),
    );
    let message = over_one_limit(&deep, scanner().max_page_depth(8)).await;
    assert_eq!(
        message,
        "15 elements are nested deeper than 8 levels (the page budget, --max-page-depth or config budget.max_depth): they were analyzed as children of the element at that depth, as browsers flatten them"
    );

    let wide = page("Wide", "", &"<p>Text</p>".repeat(100));
    let message = over_one_limit(&wide, scanner().max_page_nodes(60)).await;
    assert_eq!(
        message,
        "The page has more than 60 nodes (the page budget, --max-page-nodes or config budget.max_nodes): nodes past the first 60 were dropped and not analyzed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_over_its_css_caps_is_noted_and_the_others_are_not() {
    let rules = page(
        "Rules",
        "<style>p { color: #222 } h1 { color: #111 } a { color: #00e }</style>",
        "<p>Text</p>",
    );
    let message = over_one_limit(&rules, scanner().max_css_rules(2)).await;
    assert_eq!(
        message,
        "The page's stylesheets have more than 2 style rules (the page budget, --max-css-rules or config budget.max_css_rules): rules past the first 2 were not applied, so styles (contrast, visibility, sizes) may be judged wrongly"
    );

    let selectors = page(
        "Selectors",
        "<style>p, h1, a { color: #222 }</style>",
        "<p>Text</p>",
    );
    let message = over_one_limit(&selectors, scanner().max_selectors(2)).await;
    assert!(
        message.starts_with("The page's stylesheets have more than 2 selectors (the page budget, --max-selectors or config budget.max_selectors)"),
        "{message}"
    );

    let sheets = page(
        "Sheets",
        "<style>p { color: #222 }</style><style>h1 { color: #111 }</style><style>a { color: #00e }</style>",
        "<p>Text</p>",
    );
    let message = over_one_limit(&sheets, scanner().max_stylesheets(2)).await;
    assert!(
        message.starts_with("The page has more than 2 stylesheets (the page budget, --max-stylesheets or config budget.max_stylesheets)"),
        "{message}"
    );
}

/// The page budget's cap on stylesheets bounds the fetches too: the first 20
/// are fetched (the server sees exactly those), the rest are named with their
/// count in the page's one `analysis-incomplete` finding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_stylesheets_past_the_fetchers_bound_are_not_fetched_and_are_counted() {
    let links: String = (0..23)
        .map(|i| format!("<link rel=stylesheet href=\"/s{i}.css\">"))
        .collect();
    let heavy = page("Sheets", &links, "<p>Text</p>");
    let (dir, server) = site(&heavy).await;
    for i in 0..23 {
        std::fs::write(dir.path().join(format!("s{i}.css")), "p { color: #222 }").unwrap();
    }
    let report = scanner()
        .max_stylesheets(20)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let mut sheets: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with(".css"))
        .map(|r| r.path)
        .collect();
    sheets.sort();
    sheets.dedup();
    let mut expected: Vec<String> = (0..20).map(|i| format!("/s{i}.css")).collect();
    expected.sort();
    assert_eq!(sheets, expected);
    let own = incomplete(&report);
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0].page_url, server.url_for("/heavy.html"));
    assert_eq!(
        own[0].message,
        "The page links or imports 3 stylesheets more than the 20 a page may use (the page budget, --max-stylesheets or config budget.max_stylesheets): they were not fetched or applied, so styles (contrast, visibility, sizes) may be judged wrongly"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_over_its_time_stops_and_the_next_is_analyzed_in_full() {
    // 8,000 elements under 1,600 rules: 12.8 million selector matches, far
    // more than one second's work in a debug build (2,000 x 400 was not, once
    // findings' selectors stopped counting siblings).
    let heavy = css_heavy_page(8000, 1600);
    let tight = scanner().page_time(Duration::from_secs(1));
    let message = over_one_limit(&heavy, tight).await;
    let rules = scanner().build().unwrap().config().rules.clone();
    let selected = sitescan::rules::registry::select(&rules)
        .unwrap()
        .page
        .len();
    assert!(
        message.starts_with(
            "Analysis stopped after 1 s (the page budget, --page-time or config budget.time_ms): "
        ),
        "{message}"
    );
    assert!(
        message.ends_with(&format!(
            " of {selected} rules did not run; their results for this page are missing"
        )),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_time_at_all_stops_every_page_at_once_with_the_note() {
    let (_dir, server) = site(&page("Plain", "", "<p>Text</p>")).await;
    let report = scanner()
        .page_time(Duration::ZERO)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(report.pages.len(), 3, "the crawl still follows the links");
    let page_rules = sitescan::rules::registry::select(&["wcag-aa", "seo"])
        .unwrap()
        .page
        .len();
    let want = format!("Analysis stopped after 0 ms (the page budget, --page-time or config budget.time_ms): {page_rules} of {page_rules} rules did not run; their results for this page are missing");
    let mut pages: Vec<&str> = Vec::new();
    let is_page_rule = |id: &str| {
        sitescan::rules::registry::page_rules()
            .iter()
            .any(|r| r.meta().id == id)
    };
    // Site rules run over the pages' summaries as usual; page rules did not.
    for f in report.findings.iter().filter(|f| is_page_rule(&f.rule_id)) {
        assert_eq!(f.rule_id, "analysis-incomplete");
        assert_eq!(f.message, want);
        pages.push(&f.page_url);
    }
    pages.sort();
    let mut urls: Vec<String> = ["/", "/heavy.html", "/light.html"]
        .iter()
        .map(|p| server.url_for(p))
        .collect();
    urls.sort();
    assert_eq!(pages, urls);
    // No page rule was counted as passed.
    for rule in &report.rules {
        if is_page_rule(&rule.rule_id) {
            assert_eq!(
                (rule.passed, rule.pages_applicable),
                (0, 0),
                "{}",
                rule.rule_id
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_takes_the_budget_from_flags_and_the_environment() {
    let heavy = page(
        "Rules",
        "<style>p { color: #222 } h1 { color: #111 }</style><style>a { color: #00e }</style>",
        "<p>Text</p>",
    );
    let (_dir, server) = site(&heavy).await;
    let url = server.url();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let url = url.clone();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        async move {
            tokio::task::spawn_blocking(move || {
                let out = sitescan()
                    .args(["scan", &url, "--rules", "wcag-aa", "--format", "json"])
                    .args(&args)
                    .envs(env)
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr).to_string();
                let report: Value =
                    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
                report["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|f| f["rule_id"] == "analysis-incomplete")
                    .map(|f| {
                        (
                            f["page_url"].as_str().unwrap().to_string(),
                            f["message"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap()
        }
    };
    let heavy_url = server.url_for("/heavy.html");
    let by_flag = run(&["--max-css-rules", "2"], &[]).await;
    assert_eq!(by_flag.len(), 1, "{by_flag:?}");
    assert_eq!(by_flag[0].0, heavy_url);
    assert!(
        by_flag[0].1.contains("more than 2 style rules"),
        "{by_flag:?}"
    );
    let by_env = run(&[], &[("SITESCAN_MAX_STYLESHEETS", "1")]).await;
    assert_eq!(by_env.len(), 1, "{by_env:?}");
    assert!(
        by_env[0]
            .1
            .starts_with("The page has more than 1 stylesheets"),
        "{by_env:?}"
    );
    assert!(run(&[], &[]).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_holds_a_scans_budget_under_the_service_ceiling() {
    let (_dir, server) = site(&page("Plain", "", "<p>Text</p>")).await;
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site_id = api.site(&acc, &server.url()).await;
    let path = format!("/api/v1/sites/{site_id}/scans");

    // The ceiling is the defaults here: more time is refused, naming the field.
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["seo"], "budget": {"time_ms": 60000}}}),
        )
        .await;
    assert_error(status, &body, 422, "validation_failed");
    assert_eq!(
        body["error"]["details"][0]["field"],
        "config.budget.time_ms"
    );
    assert_eq!(
        body["error"]["details"][0]["problem"],
        "give 0 to 5000 (this service's ceiling)"
    );
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["seo"], "budget": {"max_nodes": 0}}}),
        )
        .await;
    assert_error(status, &body, 422, "validation_failed");
    assert_eq!(
        body["error"]["details"][0]["field"],
        "config.budget.max_nodes"
    );
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["seo"], "budget": {"max_link": 3}}}),
        )
        .await;
    assert_error(status, &body, 422, "validation_failed");

    // Lower is fine; what is not given is the default; the record shows it applied.
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["seo"], "budget": {"max_links": 1, "time_ms": 2500}}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["data"]["config"]["budget"],
        json!({"time_ms": 2500, "max_nodes": 200000, "max_depth": 512, "max_links": 1,
               "max_css_rules": 20000, "max_selectors": 50000, "max_stylesheets": 100})
    );
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    let (_, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    let own: Vec<&Value> = report["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] == "analysis-incomplete")
        .collect();
    // `/` has two links; `/light.html` one; `/heavy.html` (plain here) none.
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0]["page_url"], server.url().as_str());
    assert_eq!(report["data"]["config"]["budget"]["max_links"], 1);
    // Only `/` and its first link were crawled.
    assert_eq!(report["data"]["pages"].as_array().unwrap().len(), 2);
    api.stop().await;
}

/// User plus system CPU time of a process so far, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces), from field 3 on.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields[11].parse().unwrap();
    let stime: u64 = fields[12].parse().unwrap();
    utime + stime
}

/// CPU ticks per second (`getconf CLK_TCK`).
fn ticks_per_second() -> u64 {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_canceled_scan_stops_burning_cpu_in_the_page_it_was_analyzing() {
    // One page that takes minutes to analyze in this build, well past a minute.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), css_heavy_page(20_000, 5_000)).unwrap();
    let server = FixtureServer::start(dir.path()).await.unwrap();

    let data = tempfile::tempdir().unwrap();
    let (_, acc, _) = admin(data.path(), &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let (_, key, _) = admin(
        data.path(),
        &["key", "create", "--account", &acc, "--name", "ci"],
    );
    let key = key["key"].as_str().unwrap().to_string();
    let (_, s, _) = admin(
        data.path(),
        &["site", "add", "--account", &acc, &server.url()],
    );
    let site_id = s["id"].as_str().unwrap().to_string();

    let serve = ServeProcess::start(data.path(), &["--page-time", "60"]);
    let pid = serve.child.id();
    let (status, body) = serve
        .post(
            &format!("/api/v1/sites/{site_id}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"], "budget": {"time_ms": 60000}}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let scan_id = body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(body["data"]["config"]["budget"]["time_ms"], 60000);

    // Wait until the page was served, then until the server burns a core.
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.count("/") == 0 {
        assert!(Instant::now() < deadline, "the page was never fetched");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The machine may be shared (and the other tests run alongside): a busy
    // thread gets what the scheduler gives it. So "busy" is measured by how
    // long the server takes to burn a third of a second of CPU (a window that
    // stretches with the load, up to 40 s), and "idle" later over a window as
    // long: an analysis still running would burn about as much again.
    let hz = ticks_per_second();
    let want = (hz / 3).max(1);
    let before = cpu_ticks(pid);
    let started = Instant::now();
    let mut busy = 0;
    while busy < want {
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "the page should keep the server busy: {busy} ticks in 40 s (at {hz}/s)"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        busy = cpu_ticks(pid) - before;
    }
    let window = started.elapsed().max(Duration::from_secs(3));
    let busy = cpu_ticks(pid) - before;
    let (_, b) = serve.get(&format!("/api/v1/scans/{scan_id}"), &key).await;
    assert_eq!(b["data"]["status"], "running", "{b}");

    let (status, body) = serve
        .send(
            Method::POST,
            &format!("/api/v1/scans/{scan_id}/cancel"),
            &key,
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "canceled", "{body}");

    // Within about a second the analysis stops: measured over a window as
    // long as the busy one after that, the server is idle.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let after_cancel = cpu_ticks(pid);
    tokio::time::sleep(window).await;
    let idle = cpu_ticks(pid) - after_cancel;
    assert!(
        idle * 10 <= busy,
        "still burning CPU after the cancel: {idle} ticks in {window:?}, {busy} in as long before it (at {hz}/s)"
    );
    let (_, b) = serve.get(&format!("/api/v1/scans/{scan_id}"), &key).await;
    assert_eq!(b["data"]["status"], "canceled", "{b}");
    let health = reqwest::get(format!("{}/healthz", serve.base))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}
