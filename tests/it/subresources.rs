//! Subresources end to end: each script, stylesheet, image and font fetched once
//! per scan however many pages load it, and the rules over those facts
//! (text-compression, total-byte-weight, long-cache-ttl, oversized-images,
//! broken-resources); accepted statuses from the library and the CLI.

use std::process::Command;

use sitescan::config::StatusRange;
use sitescan::rules::{Finding, Outcome};
use sitescan::{Report, Scanner};
use sitescan_fixtures::{site_dir, FixtureServer};

const RULES: &[&str] = &[
    "text-compression",
    "total-byte-weight",
    "long-cache-ttl",
    "oversized-images",
    "broken-resources",
    "broken-links",
];

async fn scan(server: &FixtureServer, accept: Option<&str>) -> Report {
    let mut builder = Scanner::builder()
        .allow_private(true)
        .rate_per_host(500.0)
        .rules(RULES);
    if let Some(a) = accept {
        builder = builder.accept(StatusRange::parse_list(a).unwrap());
    }
    builder.build().unwrap().scan(&server.url()).await.unwrap()
}

/// `(page path, rule id, message)` of every finding, sorted.
fn findings(report: &Report, origin: &str) -> Vec<(String, String, String)> {
    let mut got: Vec<(String, String, String)> = report
        .findings
        .iter()
        .map(|f: &Finding| {
            assert_eq!(f.outcome, Outcome::Failed, "{f:?}");
            (
                f.page_url.trim_start_matches(origin).to_string(),
                f.rule_id.clone(),
                f.message.clone(),
            )
        })
        .collect();
    got.sort();
    got
}

fn finding<'r>(report: &'r Report, page: &str, rule: &str) -> &'r Finding {
    report
        .findings
        .iter()
        .find(|f| f.page_url.ends_with(page) && f.rule_id == rule)
        .unwrap_or_else(|| panic!("no {rule} finding on {page}"))
}

#[tokio::test]
async fn subresources_are_fetched_once_and_judged_on_every_page() {
    let server = FixtureServer::start(site_dir("resources")).await.unwrap();
    let report = scan(&server, None).await;
    let o = server.origin();
    assert!(
        report.notes.iter().all(|n| !n.contains("not checked")),
        "{:?}",
        report.notes
    );

    // site.css is sent uncompressed: its size is the file's, the saving what gzip
    // made of it (recorded in the finding's data).
    let css_bytes = std::fs::metadata(site_dir("resources").join("css/site.css"))
        .unwrap()
        .len();
    let css = finding(&report, "/", "text-compression");
    let data = css.data.as_ref().unwrap();
    assert_eq!(data["bytes"], css_bytes);
    let gzip = data["gzip_bytes"].as_u64().unwrap();
    assert!(gzip * 4 < css_bytes, "site.css compresses well: {gzip}");
    assert_eq!(
        css.snippet,
        r#"<link href="/css/site.css" rel="stylesheet">"#
    );
    let css_message = format!(
        "The stylesheet {o}/css/site.css ({} bytes) is not compressed; gzip would save {} bytes.",
        sitescan::rules::resources::bytes(css_bytes),
        sitescan::rules::resources::bytes(css_bytes - gzip)
    );

    // The gallery weighs more than 2,667 KiB, mostly huge.png.
    let weight = finding(&report, "/gallery.html", "total-byte-weight");
    let w = weight.data.as_ref().unwrap();
    assert_eq!(w["requests"], 7);
    assert_eq!(w["resources"]["image"]["count"], 2);
    assert_eq!(w["resources"]["image"]["bytes"], 3_000_000 + 133);
    assert_eq!(w["resources"]["font"]["count"], 1);
    assert_eq!(w["resources"]["font"]["bytes"], 1028);
    assert_eq!(w["resources"]["stylesheet"]["bytes"], css_bytes);
    let weight_message = format!(
        "The page and its 6 subresource(s) transfer {} bytes, more than 2,731,008 (2,667 KiB).",
        sitescan::rules::resources::bytes(w["bytes"].as_u64().unwrap())
    );

    let no_policy = |page: &str| {
        (
            page.to_string(),
            "long-cache-ttl".to_string(),
            format!("The image {o}/img/logo.png has no cache policy (no Cache-Control max-age, no Expires); static assets should be cached for at least 30 days."),
        )
    };
    let css_finding = |page: &str| {
        (
            page.to_string(),
            "text-compression".to_string(),
            css_message.clone(),
        )
    };
    let mut expected = vec![
        css_finding("/"),
        no_policy("/"),
        (
            "/".into(),
            "oversized-images".into(),
            format!("The image {o}/img/hero.png is 2000×1500 px but displayed at 100×75: about 39,600 bytes are wasted even on 2× screens."),
        ),
        (
            "/".into(),
            "broken-links".into(),
            format!("The link to {o}/members is broken: it answers 403."),
        ),
        // site.css and logo.png on /gallery.html and /blog.html are the same
        // files: one finding each, those pages listed as occurrences (below).
        (
            "/gallery.html".into(),
            "long-cache-ttl".into(),
            format!("The script {o}/js/short.js is cached for only 10 minutes; static assets should be cached for at least 30 days."),
        ),
        (
            "/gallery.html".into(),
            "oversized-images".into(),
            format!("The image {o}/img/huge.png weighs 3,000,000 bytes, more than 500,000."),
        ),
        ("/gallery.html".into(), "total-byte-weight".into(), weight_message),
        (
            "/blog.html".into(),
            "broken-resources".into(),
            format!("The resource {o}/img/missing.png is broken: it answers 404."),
        ),
    ];
    expected.sort();
    assert_eq!(findings(&report, &o), expected);
    let pages = |rule: &str, resource: &str| -> Vec<String> {
        let f = report
            .findings
            .iter()
            .find(|f| f.rule_id == rule && f.resource.as_deref() == Some(resource))
            .unwrap_or_else(|| panic!("no {rule} finding on {resource}"));
        assert_eq!(f.scope, sitescan::rules::Scope::Resource);
        assert_eq!(f.occurrences_total, None);
        f.occurrences
            .iter()
            .map(|oc| oc.page_url.trim_start_matches(&o).to_string())
            .collect()
    };
    // Report order: the start page, then depth 1 by URL.
    assert_eq!(
        pages("text-compression", &format!("{o}/css/site.css")),
        ["/", "/blog.html", "/gallery.html"]
    );
    assert_eq!(
        pages("long-cache-ttl", &format!("{o}/img/logo.png")),
        ["/", "/gallery.html"]
    );

    // The clean page loads compressed, long-cached, well-sized resources.
    assert!(
        report
            .findings
            .iter()
            .all(|f| !f.page_url.ends_with("/clean.html")),
        "the clean page has findings"
    );
    let clean = report
        .pages
        .iter()
        .find(|p| p.url.ends_with("/clean.html"))
        .unwrap();
    assert_eq!(clean.status, 200);

    // Every subresource was requested exactly once, with GET, however many
    // pages load it; nothing inside a script's text was fetched.
    for path in [
        "/css/site.css",
        "/css/clean.css",
        "/js/app.js",
        "/js/short.js",
        "/img/hero.png",
        "/img/logo.png",
        "/img/huge.png",
        "/img/icon.png",
        "/img/missing.png",
        "/fonts/brand.woff2",
        "/members",
    ] {
        assert_eq!(server.count(path), 1, "{path}");
    }
    assert_eq!(server.count("/img/not-a-tag.png"), 0);
    let heads: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.method != "GET")
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert!(heads.is_empty(), "{heads:?}");
    // Compression was asked for, as a browser does.
    let js = server
        .requests()
        .into_iter()
        .find(|r| r.path == "/js/app.js")
        .unwrap();
    assert_eq!(
        js.header("accept-encoding"),
        Some("gzip, deflate, br, zstd")
    );
}

#[tokio::test]
async fn accepted_statuses_turn_a_403_link_into_a_working_one() {
    let server = FixtureServer::start(site_dir("resources")).await.unwrap();
    let o = server.origin();
    let broken = |r: &Report| -> Vec<String> {
        r.findings
            .iter()
            .filter(|f| f.rule_id == "broken-links")
            .map(|f| f.message.clone())
            .collect()
    };
    let strict = scan(&server, None).await;
    assert_eq!(
        broken(&strict),
        vec![format!(
            "The link to {o}/members is broken: it answers 403."
        )]
    );
    let lenient = scan(&server, Some("200..=299,403")).await;
    assert_eq!(broken(&lenient), Vec::<String>::new());
    assert_eq!(
        serde_json::to_value(&lenient.config).unwrap()["accept"],
        serde_json::json!(["200..=299", "403"])
    );
}

#[test]
fn cli_accept_is_validated_with_a_clear_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", "http://127.0.0.1:9/", "--accept", "200..=299,2xx"])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid value '200..=299,2xx' for '--accept <CODES>'")
            && stderr.contains("`2xx` is not a status code or range (`2xx` is not a number)"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["scan", "http://127.0.0.1:9/", "--accept", "300..=200"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("its start is after its end"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_config_accept_is_validated_recorded_and_applied() {
    use crate::api_support::{assert_error, TestApi};
    use serde_json::json;
    use sitescan_daemon::store::Plan;

    let fixture = FixtureServer::start(site_dir("resources")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &fixture.url()).await;
    let scans = format!("/api/v1/sites/{site}/scans");

    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {"rules": ["broken-links"], "accept": ["200..=299", "2xx", "300..=200"]}}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let details = &b["error"]["details"];
    assert_eq!(details[0]["field"], "config.accept[1]");
    assert!(details[0]["problem"]
        .as_str()
        .unwrap()
        .contains("`2xx` is not a number"));
    assert_eq!(details[1]["field"], "config.accept[2]");
    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {"rules": ["broken-links"], "accept": []}}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "config.accept");

    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {"rules": ["broken-links"], "accept": ["200..300", " 403 "]}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    assert_eq!(b["data"]["config"]["accept"], json!(["200..=299", "403"]));
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    let (s, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_eq!(s, 200);
    let report = &report["data"];
    assert_eq!(report["config"]["accept"], json!(["200..=299", "403"]));
    // The 403 link is accepted: no broken-links finding.
    assert_eq!(report["findings"], json!([]), "{}", report["findings"]);
    api.stop().await;
}
