//! Render mode's pictures across the fleet: a render scan run by a separate
//! `sitescan worker --render` process (real Chromium, sandbox off as the
//! tests run as root) on a Redis under a unique prefix, and a
//! `sitescan serve --redis` process (no workers of its own) on the same
//! prefix serving the finding's screenshot and the page's thumbnail that the
//! worker stored beside the report.

use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::store::Store;
use sitescan_fixtures::FixtureServer;

use crate::api_support::{call, sitescan, ServeProcess};
use crate::fleet_support::{backend, shared_redis, tenant, PrefixGuard, Worker};

/// The viewport the fixture page's script wrote into `#a` (`data-vp="WxH"`).
fn viewport(report: &Value) -> (u32, u32) {
    let snippet = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["selector"] == "#a")
        .unwrap()["snippet"]
        .as_str()
        .unwrap();
    let vp = snippet
        .split("data-vp=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no viewport in {snippet}"));
    let (w, h) = vp.split_once('x').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_render_workers_pictures_are_served_by_the_api_process() {
    let (url, _own) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = tmp.path().join("site");
    std::fs::create_dir(&site_dir).unwrap();
    crate::screenshots::site_dir(&site_dir);
    let server = FixtureServer::start(&site_dir).await.unwrap();

    let store = backend(&url, &guard.prefix, Duration::from_secs(60), 3).await;
    let (account, site) = tenant(&store, &server.url()).await;
    let (record, key, hash) = new_key(
        &account.id,
        "fleet",
        None,
        chrono::Duration::days(1),
        Utc::now(),
    )
    .unwrap();
    store.create_key(record, &hash).await.unwrap();

    // The API: `serve --redis` runs no workers of its own.
    let mut cmd = sitescan();
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--allow-private"])
        .args(["--redis", &url, "--redis-prefix", &guard.prefix])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let api = ServeProcess::spawn(cmd);
    let client = reqwest::Client::new();
    let get = |path: String| {
        client
            .get(format!("{}{path}", api.base))
            .header("X-API-Key", &key)
    };

    // The render worker, in its own process.
    let log = tmp.path().join("render.log");
    let _worker = Worker::start_with_env(
        &url,
        &guard.prefix,
        &["--concurrency", "1", "--render"],
        &[("SITESCAN_CHROMIUM_NO_SANDBOX", "1")],
        &log,
    );

    let (status, body) = call(
        client
            .post(format!("{}/api/v1/sites/{}/scans", api.base, site.id))
            .header("X-API-Key", &key)
            .json(
                &json!({"config": {"rules": ["image-alt"], "max_pages": 1, "render": true,
                "render_options": {"wait": "load", "quiet_ms": 0}}}),
            ),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (status, scan) = call(get(format!("/api/v1/scans/{id}"))).await;
        assert_eq!(status, 200, "{scan}");
        let s = scan["data"]["status"].as_str().unwrap().to_string();
        if s == "completed" {
            break;
        }
        assert!(s != "failed" && s != "canceled", "{scan}");
        assert!(std::time::Instant::now() < deadline, "scan still {s}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let worker_log = std::fs::read_to_string(&log).unwrap();
    assert!(
        worker_log.contains(&id),
        "the worker ran the scan: {worker_log}"
    );

    let (status, report) = call(get(format!("/api/v1/scans/{id}/report"))).await;
    assert_eq!(status, 200, "{report}");
    let report = &report["data"];
    let shot = |selector: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["selector"] == selector)
            .unwrap_or_else(|| panic!("no finding about {selector}: {report}"))["screenshot"]
            .as_str()
            .unwrap_or_else(|| panic!("{selector} names no picture: {report}"))
            .to_string()
    };
    let a = shot("#a");
    let b = shot("#b");
    assert_ne!(a, b);
    let thumb = report["pages"][0]["thumbnail"]
        .as_str()
        .expect("the page names its thumbnail")
        .to_string();

    // The finding's picture, from the API process.
    let resp = get(format!("/api/v1/scans/{id}/screenshots/{a}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/png"));
    assert_eq!(
        header(&resp, "cache-control").as_deref(),
        Some("private, max-age=86400, immutable")
    );
    let png = resp.bytes().await.unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    crate::screenshots::assert_picture_of_a(&png);
    // The bytes the worker stored in the shared Redis.
    assert_eq!(
        store.screenshot(&id, &a).await.unwrap().as_deref(),
        Some(&png[..])
    );
    let resp = get(format!("/api/v1/scans/{id}/screenshots/{b}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/png"));

    // The page's thumbnail: the first screen at a quarter of its size.
    let resp = get(format!("/api/v1/scans/{id}/screenshots/{thumb}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/jpeg"));
    let jpeg = resp.bytes().await.unwrap();
    let (w, h) = viewport(report);
    assert_eq!(crate::screenshots::jpeg_size(&jpeg), (w / 4, h / 4));

    // Kept as long as the report: neither key expires.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    for key in [
        format!("{}:report:{id}", guard.prefix),
        format!("{}:screenshots:{id}", guard.prefix),
    ] {
        let ttl: i64 = redis::cmd("TTL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(ttl, -1, "{key} exists without an expiry");
    }
    let fields: Vec<String> = redis::cmd("HKEYS")
        .arg(format!("{}:screenshots:{id}", guard.prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    let mut fields = fields;
    fields.sort();
    let mut named = vec![a, b, thumb];
    named.sort();
    assert_eq!(fields, named, "exactly the pictures the report names");
}
