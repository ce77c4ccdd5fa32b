//! Render mode through the service (`config.render`): a render scan run by
//! the embedded service's browser-equipped worker, the request's validation
//! with its exact answers, and a service without a browser refusing render
//! scans at creation. The fleet's routing of render jobs is in `fleet.rs`.
//!
//! The site is a fixture folder on 127.0.0.1 whose page is built by its
//! script from JSON it fetches: the server's request log shows whether a
//! browser ran it (`/api/hero.json` is only ever requested by the script).

use std::path::Path;

use serde_json::{json, Value};
use sitescan_daemon::store::Plan;
use sitescan_fixtures::FixtureServer;

use crate::api_support::TestApi;

/// The app shell: an empty `<main>` and a script.
const APP_SHELL: &str = r#"<!doctype html>
<html lang="en"><head><title>Shop</title></head>
<body><main id="root"></main><script src="/app.js"></script></body></html>"#;

/// Builds the page from JSON it fetches: a heading and an image without a
/// text alternative (`image-alt` fails on `#hero` in the rendered page only).
const APP_JS: &str = r#"
const root = document.getElementById('root');
fetch('/api/hero.json').then(r => r.json()).then(d => {
  const h = document.createElement('h1');
  h.textContent = d.title;
  root.appendChild(h);
  const img = document.createElement('img');
  img.id = 'hero';
  img.src = d.src;
  root.appendChild(img);
});
"#;

/// Writes the app site into `dir` and serves it.
pub async fn app_site(dir: &Path) -> FixtureServer {
    std::fs::create_dir_all(dir.join("api")).unwrap();
    std::fs::write(dir.join("index.html"), APP_SHELL).unwrap();
    std::fs::write(dir.join("app.js"), APP_JS).unwrap();
    std::fs::write(
        dir.join("api/hero.json"),
        r#"{"title": "Welcome", "src": "/hero.png"}"#,
    )
    .unwrap();
    std::fs::write(dir.join("hero.png"), "png").unwrap();
    std::fs::write(dir.join("robots.txt"), "User-agent: *\nAllow: /\n").unwrap();
    FixtureServer::start(dir).await.unwrap()
}

/// The rules whose verdicts differ between the shell and the rendered page.
pub const APP_RULES: [&str; 2] = ["image-alt", "page-has-heading-one"];

/// `(rule, selector)` of the report's failed findings, sorted.
fn failures(report: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["outcome"] == "failed")
        .map(|f| {
            (
                f["rule_id"].as_str().unwrap().to_string(),
                f["selector"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_scan_runs_in_the_browser_and_echoes_its_config() {
    let tmp = tempfile::tempdir().unwrap();
    let site = app_site(tmp.path()).await;
    let api = TestApi::start_rendering().await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site_id = api.site(&account, &site.url()).await;

    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site_id}/scans"),
            &key,
            json!({"config": {"rules": APP_RULES, "max_pages": 1, "render": true,
                "render_options": {"wait": {"selector": "#hero"}, "max_wait_ms": 5000}}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let applied = json!({"wait": {"selector": "#hero"}, "quiet_ms": 500, "max_wait_ms": 5000});
    assert_eq!(body["data"]["config"]["render"], true);
    assert_eq!(body["data"]["config"]["render_options"], applied);
    // This service renders: nothing to wait for.
    assert!(body["data"].get("waiting_reason").is_none(), "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();

    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["config"]["render"], true);
    assert_eq!(done["config"]["render_options"], applied);
    let (status, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_eq!(status, 200);
    // The rendered page: its heading is there, its image lacks a text
    // alternative. (The shell the server sends has neither.)
    assert_eq!(
        failures(&report["data"]),
        vec![("image-alt".to_string(), "#hero".to_string())]
    );
    assert_eq!(report["data"]["config"]["render"], true);
    assert_eq!(site.count("/app.js"), 1, "{:?}", site.paths());
    assert_eq!(site.count("/api/hero.json"), 1, "only a browser fetches it");

    // A static scan of the same site on the same service: no browser, the
    // shell judged as sent; `render` echoed false, no render options.
    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site_id}/scans"),
            &key,
            json!({"config": {"rules": APP_RULES, "max_pages": 1}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["data"]["config"]["render"], false);
    assert!(body["data"]["config"].get("render_options").is_none());
    let id = body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        api.wait_terminal(&id, &key, 60).await["status"],
        "completed"
    );
    let (_, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_eq!(
        failures(&report["data"]),
        vec![("page-has-heading-one".to_string(), String::new())]
    );
    assert_eq!(
        site.count("/api/hero.json"),
        1,
        "the static scan ran no script"
    );
}

/// The `error` object of an answer without its per-request parts.
fn error_of(body: &Value) -> Value {
    let mut e = body["error"].clone();
    let o = e.as_object_mut().unwrap();
    o.remove("request_id");
    o.remove("doc_url");
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_requests_are_validated_with_exact_answers() {
    let api = TestApi::start_rendering().await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site_id = api.site(&account, "https://example.com/").await;
    let path = format!("/api/v1/sites/{site_id}/scans");
    let post = |config: Value| {
        let (api, key, path) = (&api, &key, &path);
        async move { api.post(path, key, json!({ "config": config })).await }
    };

    let (status, body) = post(json!({"rules": ["seo"], "render_options": {"quiet_ms": 0}})).await;
    assert_eq!(status, 422);
    assert_eq!(
        error_of(&body),
        json!({"code": "validation_failed",
            "message": "invalid request: config.render_options: only with \"render\": true (render options say how a browser waits for a page)",
            "details": [{"field": "config.render_options",
                "problem": "only with \"render\": true (render options say how a browser waits for a page)"}]})
    );

    let (status, body) = post(json!({"rules": ["seo"], "render": true,
        "render_options": {"quiet_ms": 10001, "max_wait_ms": 99, "wait": {"selector": "!app"}}}))
    .await;
    assert_eq!(status, 422);
    assert_eq!(
        error_of(&body),
        json!({"code": "validation_failed",
            "message": "invalid request: 3 problems (config.render_options.quiet_ms, config.render_options.max_wait_ms, config.render_options.wait.selector); details names each",
            "details": [
                {"field": "config.render_options.quiet_ms", "problem": "give 0 to 10000 milliseconds"},
                {"field": "config.render_options.max_wait_ms", "problem": "give 100 to 60000 milliseconds"},
                {"field": "config.render_options.wait.selector", "problem": "`!app` is not a CSS selector"}]})
    );

    // A viewport side out of 200..=4000 is named by its path, both at once.
    let (status, body) = post(json!({"rules": ["seo"], "render": true,
        "render_options": {"viewport": {"width": 199, "height": 4001}}}))
    .await;
    assert_eq!(status, 422);
    assert_eq!(
        error_of(&body),
        json!({"code": "validation_failed",
            "message": "invalid request: 2 problems (config.render_options.viewport.width, config.render_options.viewport.height); details names each",
            "details": [
                {"field": "config.render_options.viewport.width", "problem": "give 200 to 4000 pixels"},
                {"field": "config.render_options.viewport.height", "problem": "give 200 to 4000 pixels"}]})
    );
    let (status, body) = post(json!({"rules": ["seo"], "render": true,
        "render_options": {"viewport": {"width": 5_000_000_000u64, "height": 720}}}))
    .await;
    assert_eq!(status, 422);
    assert_eq!(
        body["error"]["details"],
        json!([{"field": "config.render_options.viewport.width", "problem": "give 200 to 4000 pixels"}])
    );

    let long = "#a".repeat(101);
    for selector in ["", "   ", long.as_str()] {
        let (status, body) = post(json!({"rules": ["seo"], "render": true,
            "render_options": {"wait": {"selector": selector}}}))
        .await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(
            body["error"]["details"],
            json!([{"field": "config.render_options.wait.selector",
                "problem": "give a CSS selector of 1 to 200 characters"}])
        );
    }

    // Wrong types and unknown values are named by their path.
    let one = |field: &str, problem: &str| {
        json!({"code": "validation_failed",
            "message": format!("invalid request: {field}: {problem}"),
            "details": [{"field": field, "problem": problem}]})
    };
    let cases = [
        (
            json!({"rules": ["seo"], "render": "yes"}),
            one(
                "config.render",
                "invalid type: string \"yes\", expected a boolean",
            ),
        ),
        (
            json!({"rules": ["seo"], "render": true, "render_options": {"wait": "soon"}}),
            one(
                "config.render_options.wait",
                "unknown variant `soon`, expected one of `load`, `network-idle`, `selector`",
            ),
        ),
        (
            json!({"rules": ["seo"], "render": true, "render_options": {"timeout": 5}}),
            one(
                "config.render_options.timeout",
                "unknown field `timeout`, expected one of `wait`, `quiet_ms`, `max_wait_ms`, `throttle`, `viewport`, `screenshots`",
            ),
        ),
        (
            json!({"rules": ["seo"], "render": true, "render_options": {"viewport": "800x600"}}),
            one(
                "config.render_options.viewport",
                "invalid type: string \"800x600\", expected an object",
            ),
        ),
        (
            json!({"rules": ["seo"], "render": true, "render_options": {"viewport": {"width": 800}}}),
            one("config.render_options.viewport.height", "missing field `height`"),
        ),
        (
            json!({"rules": ["seo"], "render": true, "render_options": [1]}),
            one(
                "config.render_options",
                "invalid type: array, expected an object",
            ),
        ),
    ];
    for (config, want) in cases {
        let (status, body) = post(config).await;
        assert_eq!((status, error_of(&body)), (422, want));
    }

    // Nothing was created by any of them.
    let (status, list) = api.get(&path, &key).await;
    assert_eq!(status, 200);
    assert_eq!(list["data"], json!([]));

    // The viewport's bounds are accepted, and kept as given.
    let (status, body) = post(json!({"rules": ["seo"], "render": true,
        "render_options": {"viewport": {"width": 200, "height": 4000}}}))
    .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["data"]["config"]["render_options"],
        json!({"wait": "network-idle", "quiet_ms": 500, "max_wait_ms": 10000,
            "viewport": {"width": 200, "height": 4000}})
    );
    let id = body["data"]["id"].as_str().unwrap();
    let (status, _) = api
        .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
        .await;
    assert_eq!(status, 200);

    // The bounds themselves are accepted, and `load` and `network-idle` too.
    for (wait, quiet, max_wait) in [("load", 0, 100), ("network-idle", 10000, 60000)] {
        let (status, body) = post(json!({"rules": ["seo"], "render": true,
            "render_options": {"wait": wait, "quiet_ms": quiet, "max_wait_ms": max_wait}}))
        .await;
        assert_eq!(status, 202, "{body}");
        assert_eq!(
            body["data"]["config"]["render_options"],
            json!({"wait": wait, "quiet_ms": quiet, "max_wait_ms": max_wait})
        );
        let id = body["data"]["id"].as_str().unwrap();
        let (status, _) = api
            .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
            .await;
        assert_eq!(status, 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_without_a_browser_refuses_render_scans_at_creation() {
    // `TestApi::start` is `serve` on a machine without a browser.
    let api = TestApi::start().await;
    let (account, key) = api.tenant(Plan::Professional).await;
    let site_id = api.site(&account, "https://example.com/").await;
    let path = format!("/api/v1/sites/{site_id}/scans");
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["seo"], "render": true}}),
        )
        .await;
    assert_eq!(status, 422);
    let problem = sitescan_daemon::ops::scans::CANNOT_RENDER;
    assert_eq!(
        error_of(&body),
        json!({"code": "validation_failed",
            "message": format!("invalid request: config.render: {problem}"),
            "details": [{"field": "config.render", "problem": problem}]})
    );
    assert!(problem.contains("chromium"), "it says what would fix it");
    // Refused before anything was created or counted against the quota.
    let (_, list) = api.get(&path, &key).await;
    assert_eq!(list["data"], json!([]));
    let (_, me) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(me["data"]["account"]["scans_today"], 0, "{me}");
}

/// The real `sitescan serve`: it looks for the browser at start-up the way a
/// render scan does. Pointed at a binary that is not there, it refuses render
/// scans at creation; with Debian's `chromium` found on the `PATH` it runs
/// them (the sandbox off only because the tests run as root).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_finds_the_browser_at_start_up_or_refuses_render_scans() {
    use crate::api_support::{admin_ok, sitescan, KeyedApi, ServeProcess};
    let tmp = tempfile::tempdir().unwrap();
    let site = app_site(&tmp.path().join("site")).await;
    let data = tmp.path().join("data");
    let acc = admin_ok(&data, &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let key = admin_ok(&data, &["key", "create", "--account", &acc, "--name", "ci"]);
    let key = key["key"].as_str().unwrap().to_string();
    let s = admin_ok(&data, &["site", "add", "--account", &acc, &site.url()]);
    let scans = format!("/api/v1/sites/{}/scans", s["id"].as_str().unwrap());
    let serve = |env: &[(&str, &str)]| {
        let mut cmd = sitescan();
        cmd.args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--workers",
            "1",
            "--allow-private",
        ])
        .arg("--data-dir")
        .arg(&data)
        .args(["--rate", "200"])
        .env_remove("SITESCAN_CHROMIUM")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
        ServeProcess::spawn(cmd)
    };
    let config = json!({"config": {"rules": APP_RULES, "max_pages": 1, "render": true}});

    let without = serve(&[("SITESCAN_CHROMIUM", "/nonexistent/chromium")]);
    let (status, body) = without.post(&scans, &key, config.clone()).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["error"]["details"],
        json!([{"field": "config.render", "problem": sitescan_daemon::ops::scans::CANNOT_RENDER}])
    );
    drop(without);

    let with = serve(&[("SITESCAN_CHROMIUM_NO_SANDBOX", "1")]);
    let (status, body) = with.post(&scans, &key, config).await;
    assert_eq!(status, 202, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, b) = with.get(&format!("/api/v1/scans/{id}"), &key).await;
        if b["data"]["status"] == "completed" {
            break;
        }
        assert_ne!(b["data"]["status"], "failed", "{b}");
        assert!(std::time::Instant::now() < deadline, "{b}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        site.count("/api/hero.json"),
        1,
        "the browser ran the page's script"
    );
}

/// `sitescan worker --render` on a machine without the browser does not
/// start (it would take render scans and fail each one): exit 2, saying what
/// to install.
#[test]
fn worker_render_without_a_browser_exits_2_with_the_install_hint() {
    let out = crate::api_support::sitescan()
        .args(["worker", "--redis", "redis://127.0.0.1:1/", "--render"])
        .env("SITESCAN_CHROMIUM", "/nonexistent/chromium")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("--render: render mode needs Chromium: install Debian's `chromium` package"),
        "{stderr}"
    );
    assert!(stderr.contains("/nonexistent/chromium"), "{stderr}");
}

/// `sitescan remote scan --render` asks the service for a render scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_scan_render_starts_a_render_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let site = app_site(tmp.path()).await;
    let api = TestApi::start_rendering().await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site_id = api.site(&account, &site.url()).await;
    let mut cmd = crate::api_support::sitescan();
    cmd.args([
        "remote",
        "scan",
        "--site",
        &site_id,
        "--rules",
        "image-alt",
        "--render",
    ])
    .env("SITESCAN_API_URL", &api.base)
    .env("SITESCAN_API_KEY", &key);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let started: Value = serde_json::from_slice(&out.stdout).unwrap();
    let done = api
        .wait_terminal(started["id"].as_str().unwrap(), &key, 60)
        .await;
    assert_eq!(
        (&done["status"], &done["config"]["render"]),
        (&json!("completed"), &json!(true))
    );
    assert_eq!(site.count("/api/hero.json"), 1);
}
