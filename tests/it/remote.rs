//! `sitescan remote scan` (the binary) against an in-process `serve` on
//! 127.0.0.1:0 that scans a small fixture site with the real engine.

use std::process::Output;

use serde_json::Value;
use sitescan_daemon::store::Plan;
use sitescan_fixtures::FixtureServer;

use crate::api_support::TestApi;

/// A one-page site whose page has no title and no `lang` (serious findings).
async fn broken_site() -> (tempfile::TempDir, FixtureServer) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><html><head></head><body><main><h1>Home</h1><p>Text.</p></main></body></html>",
    )
    .unwrap();
    let server = FixtureServer::start(dir.path()).await.unwrap();
    (dir, server)
}

/// Runs `sitescan remote scan` with `args` (off the runtime's threads).
async fn remote(api: &TestApi, key: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args(["remote", "scan"])
        .args(args)
        .env("SITESCAN_API_URL", &api.base)
        .env("SITESCAN_API_KEY", key)
        .env_remove("SITESCAN_FORMAT")
        .env_remove("SITESCAN_OUTPUT")
        .env_remove("SITESCAN_FAIL_ON");
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_writes_sarif_and_the_gate_fails_with_exit_1() {
    let (_dir, fixture) = broken_site().await;
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, &fixture.url()).await;
    let out_dir = tempfile::tempdir().unwrap();
    let sarif = out_dir.path().join("report.sarif");
    let sarif_arg = sarif.to_str().unwrap();

    let o = remote(
        &api,
        &key,
        &[
            "--site",
            &site,
            "--rules",
            "wcag-aa",
            "--priority",
            "high",
            "--wait",
            "--format",
            "sarif",
            "--output",
            sarif_arg,
            "--fail-on",
            "serious",
        ],
    )
    .await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("gate failed"), "{err}");
    // Not a terminal: progress comes as log lines, ending with the final status.
    assert!(err.contains(": completed"), "{err}");
    assert!(!err.contains(&key), "the key must never be printed: {err}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let rules: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"document-title"), "{rules:?}");
    assert!(rules.contains(&"html-has-lang"), "{rules:?}");

    // The same scan without a gate passes, with the JSON report on stdout.
    let o = remote(
        &api,
        &key,
        &["--site", &site, "--rules", "wcag-aa", "--wait"],
    )
    .await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        report["pages"].as_array().is_some_and(|p| p.len() == 1),
        "{report}"
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_key_and_an_unknown_site_exit_2_with_the_api_code() {
    let api = TestApi::start().await;
    let (_acc, key) = api.tenant(Plan::Professional).await;

    let o = remote(&api, "sk_wrong_key", &["--site", "site_nope", "--wait"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("API 401: invalid_api_key"), "{err}");
    assert!(!err.contains("sk_wrong_key"), "{err}");

    let o = remote(&api, &key, &["--site", "site_nope", "--wait"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("API 404: site_not_found"), "{err}");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_wait_it_prints_the_started_scan() {
    let (_dir, fixture) = broken_site().await;
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, &fixture.url()).await;

    let o = remote(&api, &key, &["--site", &site, "--rules", "seo"]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let started: Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = started["id"].as_str().unwrap();
    assert!(id.starts_with("scan_"), "{started}");
    assert_eq!(started["status"], "queued");
    let done = api.wait_terminal(id, &key, 60).await;
    assert_eq!(done["config"]["rules"], serde_json::json!(["seo"]));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_api_exits_3() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args([
            "remote",
            "scan",
            "--site",
            "site_x",
            "--api-url",
            "http://127.0.0.1:9",
            "--api-key",
            "k",
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot reach the API"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_scan_exits_3_with_its_error() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    // Nothing listens on port 9: the scan fails.
    let site = api.site(&acc, "http://127.0.0.1:9/").await;

    let o = remote(&api, &key, &["--site", &site, "--rules", "seo", "--wait"]).await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("failed") && err.contains("127.0.0.1:9"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    api.stop().await;
}
