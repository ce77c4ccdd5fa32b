//! `sitescan remote scan` (the binary) against an in-process `serve` on
//! 127.0.0.1:0 that scans a small fixture site with the real engine.

use std::process::Output;

use serde_json::Value;
use sitescan_daemon::store::{Plan, Store};
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

/// A reverse proxy on 127.0.0.1:0 in front of an API that keeps every
/// request it forwards (method and path, JSON body or `null`): what
/// `remote scan` really sent.
struct Recorder {
    base: String,
    bodies: std::sync::Arc<std::sync::Mutex<Vec<(String, Value)>>>,
}

impl Recorder {
    async fn start(target: &str) -> Recorder {
        use axum::body::{Body, Bytes};
        use axum::http::{HeaderMap, Method, Uri};
        let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = bodies.clone();
        let target = target.to_string();
        let client = reqwest::Client::new();
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let (kept, target, client) = (kept.clone(), target.clone(), client.clone());
                async move {
                    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
                    let json = serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null);
                    kept.lock()
                        .unwrap()
                        .push((format!("{method} {path}"), json));
                    let method = reqwest::Method::from_bytes(method.as_str().as_bytes()).unwrap();
                    let mut req = client.request(method, format!("{target}{path}"));
                    for (name, value) in &headers {
                        if name != "host" && name != "content-length" {
                            req = req.header(name.as_str(), value.as_bytes());
                        }
                    }
                    let resp = req.body(body.to_vec()).send().await.unwrap();
                    let mut out = axum::http::Response::builder().status(resp.status().as_u16());
                    if let Some(ct) = resp.headers().get("content-type") {
                        out = out.header("content-type", ct.as_bytes());
                    }
                    out.body(Body::from(resp.bytes().await.unwrap())).unwrap()
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Recorder {
            base: format!("http://{addr}"),
            bodies,
        }
    }

    fn bodies(&self) -> Vec<(String, Value)> {
        self.bodies.lock().unwrap().clone()
    }
}

/// Runs `sitescan remote scan` with `args` against the API at `base`.
async fn remote_at(base: &str, key: &str, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args(["remote", "scan"])
        .args(args)
        .env("SITESCAN_API_URL", base)
        .env("SITESCAN_API_KEY", key);
    for var in [
        "SITESCAN_FORMAT",
        "SITESCAN_OUTPUT",
        "SITESCAN_FAIL_ON",
        "SITESCAN_WAIT_UNTIL",
        "SITESCAN_WAIT_SELECTOR",
        "SITESCAN_MAX_WAIT",
        "SITESCAN_THROTTLE",
        "SITESCAN_MAX_SCREENSHOTS",
    ] {
        cmd.env_remove(var);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// `--render` with the render options of `scan`: the API receives exactly
/// those options as `config.render_options`, applies them, and the render
/// scan runs in the service's browser (the image its script adds is judged).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_options_are_sent_as_config_render_options_and_the_scan_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(tmp.path()).await;
    let api = TestApi::start_rendering().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &app.url()).await;
    let proxy = Recorder::start(&api.base).await;

    let o = remote_at(
        &proxy.base,
        &key,
        &[
            "--site",
            &site,
            "--rules",
            "image-alt,page-has-heading-one",
            "--render",
            "--wait-selector",
            "#hero",
            "--max-wait",
            "7.5",
            "--throttle",
            "desktop",
            "--viewport",
            "1024x768",
            "--max-screenshots",
            "3",
            "--wait",
        ],
    )
    .await;
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let bodies = proxy.bodies();
    assert_eq!(
        bodies[0],
        (
            format!("POST /api/v1/sites/{site}/scans"),
            serde_json::json!({"config": {
                "rules": ["image-alt", "page-has-heading-one"],
                "render": true,
                "render_options": {
                    "wait": {"selector": "#hero"},
                    "max_wait_ms": 7500,
                    "throttle": "desktop",
                    "viewport": {"width": 1024, "height": 768},
                    "screenshots": {"enabled": true, "max": 3}
                }
            }})
        ),
        "{bodies:?}"
    );
    // Applied as asked (the defaults fill the rest) ...
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = report["scan_id"].as_str().unwrap();
    let scan = api.store.scan(&acc, id).await.unwrap().unwrap();
    assert!(scan.config.render);
    assert_eq!(
        scan.config.render_options,
        Some(sitescan_engine::RenderOptions {
            wait: sitescan_engine::RenderWait::Selector("#hero".into()),
            quiet_ms: 500,
            max_wait_ms: 7500,
            screenshots: sitescan_engine::ScreenshotOptions {
                enabled: true,
                max: 3,
                max_bytes: 20 * 1024 * 1024,
            },
            throttle: sitescan_engine::Throttle::Desktop,
            viewport: Some(sitescan_engine::ViewportSize {
                width: 1024,
                height: 768,
            }),
        })
    );
    // ... and run in the browser: the script's image, without alt text.
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
    assert_eq!(failed, vec![("image-alt", "#hero")], "{report}");
    assert_eq!(app.count("/api/hero.json"), 1, "only a browser fetches it");
    api.stop().await;
}

/// Bad render options are usage errors (exit 2) that say what is wrong,
/// checked before anything is sent: the API sees no request, no scan starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_render_options_are_usage_errors_and_start_nothing() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let proxy = Recorder::start(&api.base).await;
    let cases: [(&[&str], &str); 8] = [
        (
            &["--viewport", "800x600"],
            "error: --viewport only applies with --render (it says how the browser loads each page): add --render, or leave it out",
        ),
        (
            &["--render", "--viewport", "800x100"],
            "error: invalid value '800x100' for '--viewport <WIDTHxHEIGHT>': a viewport height of 100 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)",
        ),
        (
            &["--throttle", "mobile"],
            "error: --throttle only applies with --render (it says how the browser loads each page): add --render, or leave it out",
        ),
        (
            &["--max-wait", "5", "--max-screenshots", "0"],
            "error: --max-wait, --max-screenshots only apply with --render (they say how the browser loads each page): add --render, or leave them out",
        ),
        (
            &["--render", "--max-wait", "90"],
            "error: invalid value '90' for '--max-wait <SECS>': give 0.1 to 60 seconds (e.g. 15 or 0.5)",
        ),
        (
            &["--render", "--wait-selector", "a["],
            "error: invalid value 'a[' for '--wait-selector <CSS>': `a[` is not a CSS selector",
        ),
        (
            &["--render", "--throttle", "3g"],
            "error: invalid value '3g' for '--throttle <PRESET>'",
        ),
        (
            &["--render", "--wait-until", "load", "--wait-selector", "#app"],
            "error: the argument '--wait-until <EVENT>' cannot be used with '--wait-selector <CSS>'",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["--site", site.as_str()];
        args.extend_from_slice(extra);
        let o = remote_at(&proxy.base, &key, &args).await;
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.starts_with(message), "{extra:?}: {err}");
        assert!(o.stdout.is_empty(), "{extra:?}");
    }
    assert_eq!(proxy.bodies(), Vec::new());
    assert!(api
        .store
        .list_scans(&acc, &site, None, 10)
        .await
        .unwrap()
        .items
        .is_empty());
    api.stop().await;
}
