//! Report formats, baselines and gates through the `sitescan` binary.
//!
//! The reports come from the real accessibility rules run over the pages of a
//! small site, in two versions: between them the home page got its title
//! (fixed) and the about page lost its `lang` (broke).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sitescan::report::score::summarize;
use sitescan::rules::{analyze, registry, Outcome, Page};
use sitescan::{CrawlStats, PageReport, Report, RuleSummary, ScanConfig, SCHEMA_VERSION};

fn sitescan() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sitescan"))
}

/// A fresh directory for one test's files.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sitescan-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A report of the given pages, as a scan with the accessibility rules makes it.
fn scan(pages: &[(&str, &str)]) -> Report {
    let rules = registry::select(&["accessibility"]).unwrap();
    let mut findings = Vec::new();
    let mut summaries: Vec<RuleSummary> = Vec::new();
    let mut page_reports = Vec::new();
    for (url, html) in pages {
        let analysis = analyze(&Page::from_html(url, html), &rules.page);
        for t in &analysis.tallies {
            let pos = match summaries.iter().position(|s| s.rule_id == t.rule_id) {
                Some(p) => p,
                None => {
                    summaries.push(RuleSummary {
                        rule_id: t.rule_id.clone(),
                        category: registry::meta(&t.rule_id).map(|m| m.category),
                        ..Default::default()
                    });
                    summaries.len() - 1
                }
            };
            let s = &mut summaries[pos];
            if t.passed > 0 || t.failed > 0 {
                s.pages_applicable += 1;
            }
            if t.failed > 0 {
                s.pages_failed += 1;
            }
            s.passed += u64::from(t.passed);
            s.failed += u64::from(t.failed);
            s.cant_tell += u64::from(t.cant_tell);
        }
        page_reports.push(PageReport {
            url: url.to_string(),
            final_url: url.to_string(),
            status: 200,
            findings: analysis
                .findings
                .iter()
                .filter(|f| f.outcome == Outcome::Failed)
                .count() as u64,
            ..Default::default()
        });
        findings.extend(analysis.findings);
    }
    Report {
        schema_version: SCHEMA_VERSION,
        scan_id: None,
        site: "https://fixture.example/".into(),
        started_at: chrono::Utc::now(),
        finished_at: chrono::Utc::now(),
        config: ScanConfig::default(),
        stats: CrawlStats {
            pages_fetched: pages.len() as u64,
            ..Default::default()
        },
        summary: summarize(&summaries, &findings),
        pages: page_reports,
        findings,
        rules: summaries,
        notes: Vec::new(),
        fixed: None,
        baseline: None,
        screenshots: Default::default(),
    }
}

const HOME_V1: &str = r#"<!doctype html><html lang="en"><head></head><body><main><h1>Fixture shop</h1><p>Welcome.</p></main></body></html>"#;
const HOME_V2: &str = r#"<!doctype html><html lang="en"><head><title>Fixture shop</title></head><body><main><h1>Fixture shop</h1><p>Welcome.</p></main></body></html>"#;
const ABOUT_V1: &str = r#"<!doctype html><html lang="en"><head><title>About us</title></head><body><main><h1>About us</h1></main></body></html>"#;
const ABOUT_V2: &str = r#"<!doctype html><html><head><title>About us</title></head><body><main><h1>About us</h1></main></body></html>"#;

/// Writes both versions' reports as JSON and returns (before, after) paths.
fn two_scans(dir: &Path) -> (PathBuf, PathBuf) {
    let before = scan(&[
        ("https://fixture.example/", HOME_V1),
        ("https://fixture.example/about", ABOUT_V1),
    ]);
    let after = scan(&[
        ("https://fixture.example/", HOME_V2),
        ("https://fixture.example/about", ABOUT_V2),
    ]);
    let (b, a) = (dir.join("before.json"), dir.join("after.json"));
    std::fs::write(&b, serde_json::to_vec_pretty(&before).unwrap()).unwrap();
    std::fs::write(&a, serde_json::to_vec_pretty(&after).unwrap()).unwrap();
    (b, a)
}

fn run(args: &[&str]) -> Output {
    sitescan().args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn baseline_marks_new_and_fixed_and_fail_on_new_gates_only_new_findings() {
    let dir = workdir("baseline");
    let (before, after) = two_scans(&dir);
    let out = run(&[
        "report",
        s(&after),
        "--baseline",
        s(&before),
        "--fail-on-new",
        "serious",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("sitescan: gate failed: 1 new finding at or above serious impact (--fail-on-new serious)"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let new: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["baseline"] == "new")
        .map(|f| {
            (
                f["rule_id"].as_str().unwrap().to_string(),
                f["page_url"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        new,
        vec![(
            "html-has-lang".to_string(),
            "https://fixture.example/about".to_string()
        )]
    );
    let fixed: Vec<(&str, &str)> = v["fixed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule_id"].as_str().unwrap(),
                f["page_url"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(fixed, vec![("document-title", "https://fixture.example/")]);
    assert_eq!(v["baseline"]["fixed"], 1);
    assert_eq!(v["baseline"]["new"], 1);
    assert_eq!(v["summary"]["accessibility"]["fixed"], 1);

    // The same comparison against itself: nothing new, the gate passes.
    let out = run(&[
        "report",
        s(&after),
        "--baseline",
        s(&after),
        "--fail-on-new",
        "minor",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_format_is_written_from_one_saved_report() {
    let dir = workdir("formats");
    let (before, after) = two_scans(&dir);
    for (file, check) in [
        ("r.html", "<!DOCTYPE html>"),
        ("r.sarif", "\"version\": \"2.1.0\""),
        ("r.xml", "<testsuites"),
        ("r.csv", "rule_id,category,outcome"),
        ("r.md", "## sitescan report"),
        ("r.json", "\"schema_version\": 1"),
    ] {
        let path = dir.join(file);
        let out = run(&[
            "report",
            s(&after),
            "--baseline",
            s(&before),
            "--output",
            s(&path),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{file}: report went to stdout too");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(check), "{file} does not contain {check}");
    }
    // An explicit --format wins over the extension.
    let out = run(&["report", s(&after), "--format", "markdown"]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("## sitescan report"));
}

#[test]
fn thresholds_give_exit_codes() {
    let dir = workdir("gates");
    let (_, after) = two_scans(&dir);
    let findings = |args: &[&str]| {
        let mut all = vec!["report", s(&after), "--output", "/dev/null"];
        all.extend_from_slice(args);
        let out = run(&all);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(findings(&[]).0, Some(0));
    let (code, err) = findings(&["--fail-on", "serious"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--fail-on serious"), "{err}");
    assert_eq!(findings(&["--max-findings", "1000"]).0, Some(0));
    let (code, err) = findings(&["--max-findings", "0"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("more than the 0 allowed"), "{err}");
    let (code, err) = findings(&["--min-score", "accessibility=100"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("accessibility scored"), "{err}");
    assert_eq!(findings(&["--min-score", "accessibility=0"]).0, Some(0));
    // Usage errors are exit 2.
    let (code, err) = findings(&["--min-score", "speed=9"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown category `speed`"), "{err}");
    let (code, err) = findings(&["--fail-on", "blocker"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("critical, serious, moderate or minor"),
        "{err}"
    );
    let (code, err) = findings(&["--format", "pdf"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown report format"), "{err}");
}

#[test]
fn bad_inputs_are_usage_errors() {
    let dir = workdir("bad");
    let (_, after) = two_scans(&dir);
    let sarif = dir.join("x.sarif");
    std::fs::write(&sarif, r#"{"version": "2.1.0", "runs": []}"#).unwrap();
    let out = run(&["report", s(&after), "--baseline", s(&sarif)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a sitescan JSON report"), "{err}");
    let out = run(&["report", s(&dir.join("missing.json"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the report"));
}

// ---- the same through `sitescan scan` against a fixture site ----

use sitescan_fixtures::FixtureServer;

fn write_site(dir: &Path, about: &str, contact: &str) {
    std::fs::write(
        dir.join("index.html"),
        r#"<!doctype html><html lang="en"><head><title>Home</title></head><body><main><h1>Home</h1><a href="/about.html">About</a> <a href="/contact.html">Contact</a></main></body></html>"#,
    )
    .unwrap();
    std::fs::write(dir.join("about.html"), about).unwrap();
    std::fs::write(dir.join("contact.html"), contact).unwrap();
}

async fn run_async(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        sitescan()
            .args(&args)
            .env_remove("RUST_LOG")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_with_baseline_after_one_page_was_fixed_and_another_broke() {
    let dir = workdir("scan-baseline");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    write_site(&site, ABOUT_NO_TITLE, CONTACT_OK);
    let server = FixtureServer::start(&site).await.unwrap();
    let before = dir.join("before.json");
    let scan_args = |extra: &[&str]| {
        let mut v: Vec<String> = [
            "scan",
            &server.url(),
            "--rules",
            "accessibility",
            "--rate",
            "100",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let out = run_async(scan_args(&["--output", s(&before)])).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The about page gets its title; the contact page loses its language.
    write_site(&site, ABOUT_OK, CONTACT_NO_LANG);
    let sarif = dir.join("after.sarif");
    let out = run_async(scan_args(&[
        "--baseline",
        s(&before),
        "--fail-on-new",
        "serious",
        "--output",
        s(&sarif),
    ]))
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("against the baseline: 1 new, "), "{stderr}");
    assert!(stderr.contains(" unchanged, 1 fixed"), "{stderr}");
    assert!(
        stderr.contains("gate failed: 1 new finding at or above serious impact"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    let results: Vec<&serde_json::Value> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["baselineState"] == "new")
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "html-has-lang");
    assert_eq!(results[0]["baselineState"], "new");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        server.url_for("/contact.html")
    );

    // Gating on serious findings regardless of the baseline also fails; on
    // critical ones it passes (html-has-lang is serious).
    let out = run_async(scan_args(&[
        "--baseline",
        s(&before),
        "--fail-on-new",
        "critical",
        "--format",
        "markdown",
    ]))
    .await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("**1 new**, ") && md.contains(" unchanged, **1 fixed**"),
        "{md}"
    );

    // A baseline that is not a report stops the scan before it starts.
    let out = run_async(scan_args(&["--baseline", s(&sarif)])).await;
    assert_eq!(out.status.code(), Some(2));
}

const ABOUT_NO_TITLE: &str = r#"<!doctype html><html lang="en"><head></head><body><main><h1>About</h1><a href="/">Home</a></main></body></html>"#;
const ABOUT_OK: &str = r#"<!doctype html><html lang="en"><head><title>About</title></head><body><main><h1>About</h1><a href="/">Home</a></main></body></html>"#;
const CONTACT_OK: &str = r#"<!doctype html><html lang="en"><head><title>Contact</title></head><body><main><h1>Contact</h1><a href="/">Home</a></main></body></html>"#;
const CONTACT_NO_LANG: &str = r#"<!doctype html><html><head><title>Contact</title></head><body><main><h1>Contact</h1><a href="/">Home</a></main></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_scan_reports_match_the_published_schema() {
    let server = FixtureServer::start(sitescan_fixtures::site_dir("basic"))
        .await
        .unwrap();
    let dir = workdir("schema");
    let first = dir.join("first.json");
    let second = dir.join("second.json");
    for (out, extra) in [(&first, vec![]), (&second, vec!["--baseline", s(&first)])] {
        let mut args = vec![
            "scan".to_string(),
            server.url(),
            "--rate".into(),
            "100".into(),
        ];
        args.extend(["--output".to_string(), s(out).to_string()]);
        args.extend(extra.iter().map(|a| a.to_string()));
        let run = run_async(args).await;
        assert!(
            matches!(run.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    for file in [&first, &second] {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        assert!(!report["findings"].as_array().unwrap().is_empty());
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: {}",
            file.display(),
            errors.join("\n")
        );
    }
    let second: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&second).unwrap()).unwrap();
    assert_eq!(second["baseline"]["new"], 0);
    assert_eq!(second["fixed"], serde_json::json!([]));
}

// ---- the API: `?format=` on the report and `/compare` ----

use crate::api_support::{assert_error, TestApi};
use sitescan_daemon::store::Plan;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_serves_every_format_and_compares_two_scans() {
    let dir = workdir("api");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    write_site(&site, ABOUT_NO_TITLE, CONTACT_OK);
    let fixture = FixtureServer::start(&site).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site_id = api.site(&acc, &fixture.url()).await;
    let start = || async {
        let (s, b) = api
            .post(
                &format!("/api/v1/sites/{site_id}/scans"),
                &key,
                serde_json::json!({"config": {"rules": ["accessibility"]}}),
            )
            .await;
        assert_eq!(s, 202, "{b}");
        let id = b["data"]["id"].as_str().unwrap().to_string();
        let done = api.wait_terminal(&id, &key, 60).await;
        assert_eq!(done["status"], "completed", "{done}");
        id
    };
    let first = start().await;
    write_site(&site, ABOUT_OK, CONTACT_NO_LANG);
    let second = start().await;

    // Rendered formats: the file itself with its content type.
    for (format, content_type, check) in [
        ("sarif", "application/sarif+json", "\"version\": \"2.1.0\""),
        ("html", "text/html; charset=utf-8", "<!DOCTYPE html>"),
        ("junit", "application/xml", "<testsuites"),
        ("csv", "text/csv; charset=utf-8", "rule_id,category"),
        (
            "markdown",
            "text/markdown; charset=utf-8",
            "## sitescan report",
        ),
    ] {
        let resp = api
            .req(
                reqwest::Method::GET,
                &format!("/api/v1/scans/{second}/report?format={format}"),
                Some(&key),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{format}");
        assert_eq!(resp.headers()["content-type"], content_type);
        let disposition = resp.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(
            disposition.starts_with("attachment; filename=\"sitescan-"),
            "{disposition}"
        );
        let body = resp.text().await.unwrap();
        assert!(body.contains(check), "{format}: {body}");
    }
    // json (or no format) keeps the envelope.
    let (s, b) = api
        .get(&format!("/api/v1/scans/{second}/report?format=json"), &key)
        .await;
    assert_eq!(s, 200);
    assert_eq!(b["data"]["schema_version"], 1);
    let (s, b) = api
        .get(&format!("/api/v1/scans/{second}/report?format=pdf"), &key)
        .await;
    assert_error(s, &b, 422, "validation_failed");

    // Compare: one page fixed, one broke.
    let (s, b) = api
        .get(
            &format!("/api/v1/scans/{second}/compare?with={first}"),
            &key,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["summary"]["new"], 1, "{b}");
    assert_eq!(b["data"]["summary"]["fixed"], 1, "{b}");
    assert_eq!(b["data"]["new"][0]["rule_id"], "html-has-lang");
    assert_eq!(
        b["data"]["new"][0]["page_url"],
        fixture.url_for("/contact.html")
    );
    assert_eq!(b["data"]["fixed"][0]["rule_id"], "document-title");
    assert_eq!(
        b["data"]["fixed"][0]["page_url"],
        fixture.url_for("/about.html")
    );
    assert_eq!(
        b["data"]["unchanged"].as_array().unwrap().len() as u64,
        b["data"]["summary"]["unchanged"].as_u64().unwrap()
    );
    let resp = api
        .req(
            reqwest::Method::GET,
            &format!("/api/v1/scans/{second}/compare?with={first}&format=markdown"),
            Some(&key),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let md = resp.text().await.unwrap();
    assert!(
        md.contains("**1 new**") && md.contains("**1 fixed**"),
        "{md}"
    );

    // Errors: no `with`, a scan of another account, an unknown scan.
    let (s, b) = api
        .get(&format!("/api/v1/scans/{second}/compare"), &key)
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let (_, other_key) = api.tenant(Plan::Enterprise).await;
    let (s, b) = api
        .get(
            &format!("/api/v1/scans/{second}/compare?with={first}"),
            &other_key,
        )
        .await;
    assert_error(s, &b, 404, "scan_not_found");
    let (s, b) = api
        .get(
            &format!("/api/v1/scans/{second}/compare?with=scan_nope"),
            &key,
        )
        .await;
    assert_error(s, &b, 404, "scan_not_found");
    api.stop().await;
}
