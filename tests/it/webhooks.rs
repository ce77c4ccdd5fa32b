//! Webhooks end to end: a real receiver (axum on 127.0.0.1:0) gets signed
//! events of real scans; retries, restarts, 410 and registration rules.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::json;
use sha2::Sha256;
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{new_id, Account, Plan, Store};
use sitescan_daemon::webhooks::DeliverySettings;
use sitescan_fixtures::{site_dir, FixtureServer};

use crate::api_support::{admin_ok, assert_error, KeyedApi, ServeProcess, TestApi};
use crate::webhook_support::{
    events_of, eventually, own_hmac_matches, signed_event, start_receiver, test_webhook, HookCalls,
};

fn settings(delays_ms: &[u64], allow_private: bool) -> DeliverySettings {
    let mut s = DeliverySettings::new(allow_private);
    s.retry_delays = delays_ms
        .iter()
        .map(|&m| Duration::from_millis(m))
        .collect();
    s.poll_every = Duration::from_millis(20);
    s.timeout = Duration::from_secs(2);
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_scan_sends_signed_events_for_every_state_change() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), true, settings(&[50], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;

    let all = json!([
        "scan.queued",
        "scan.started",
        "scan.completed",
        "scan.failed",
        "scan.canceled"
    ]);
    let (hook, secret) = server
        .create_hook(
            &key,
            json!({"url": hook_url, "events": all, "description": "test"}),
        )
        .await;
    assert!(
        secret.starts_with("whsec_") && secret.len() > 40,
        "{secret}"
    );
    let (s, b) = server.hook(&hook, &key).await;
    assert_eq!(s, 200);
    assert!(
        b["data"].get("secret").is_none(),
        "the secret is shown once: {b}"
    );

    let (s, b) = server
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"], "max_pages": 3}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let scan = b["data"]["id"].as_str().unwrap().to_string();
    eventually(60, "queued, started and completed events", || async {
        let types: Vec<String> = events_of(&receiver)
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_string())
            .collect();
        types.contains(&"scan.completed".to_string()) && types.len() >= 3
    })
    .await;

    let got = receiver.got.lock().unwrap().clone();
    let mut types: Vec<String> = Vec::new();
    for (headers, body) in &got {
        let event = signed_event(&secret, headers, body);
        assert!(event["id"].as_str().unwrap().starts_with("evt_"));
        assert!(event["created"].is_string());
        assert_eq!(event["data"]["id"], scan.as_str());
        assert_eq!(
            event["data"]["links"]["self"],
            format!("/api/v1/scans/{scan}")
        );
        let want_status = match event["type"].as_str().unwrap() {
            "scan.queued" => "queued",
            "scan.started" => "running",
            "scan.completed" => "completed",
            other => panic!("unexpected event {other}"),
        };
        assert_eq!(event["data"]["status"], want_status, "{event}");
        types.push(event["type"].as_str().unwrap().to_string());
    }
    // One endpoint's events are sent one after the other, in event order.
    assert_eq!(types, ["scan.queued", "scan.started", "scan.completed"]);
    let created: Vec<String> = events_of(&receiver)
        .iter()
        .map(|e| e["created"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = created.clone();
    sorted.sort();
    assert_eq!(created, sorted);
    let completed = events_of(&receiver)
        .into_iter()
        .find(|e| e["type"] == "scan.completed")
        .unwrap();
    assert!(
        completed["data"]["summary"]["pages_fetched"]
            .as_u64()
            .unwrap()
            >= 1
    );

    // Rotation: the new secret is returned once; both sign for 24 hours.
    let before = Utc::now();
    let (s, b) = server
        .send(
            Method::POST,
            &format!("/api/v1/webhooks/{hook}/rotate-secret"),
            &key,
            None,
        )
        .await;
    let after = Utc::now();
    assert_eq!(s, 200, "{b}");
    let fresh = b["data"]["secret"].as_str().unwrap().to_string();
    assert_ne!(fresh, secret);
    assert!(fresh.starts_with("whsec_"));
    let until: chrono::DateTime<Utc> =
        serde_json::from_value(b["data"]["previous_secret_expires_at"].clone()).unwrap();
    let day = chrono::Duration::hours(24);
    assert!(
        until >= before + day && until <= after + day,
        "the old secret signs for 24 hours: {until}"
    );
    let (_, b) = server.hook(&hook, &key).await;
    assert!(b["data"].get("secret").is_none(), "shown once: {b}");

    // A cancel is an event too (queued, then canceled).
    receiver.got.lock().unwrap().clear();
    let (s, b) = server
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let second = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = server
        .send(
            Method::POST,
            &format!("/api/v1/scans/{second}/cancel"),
            &key,
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    eventually(30, "the canceled event", || async {
        events_of(&receiver)
            .iter()
            .any(|e| e["type"] == "scan.canceled" && e["data"]["id"] == second.as_str())
    })
    .await;
    for (headers, body) in receiver.got.lock().unwrap().iter() {
        let sig = headers["sitescan-signature"].to_str().unwrap();
        assert_eq!(sig.matches("v1=").count(), 2, "{sig}");
        assert!(own_hmac_matches(&fresh, sig, body));
        assert!(own_hmac_matches(&secret, sig, body));
    }
    // Every delivery is in the log, succeeded with one attempt.
    let log = server.deliveries(&hook, &key).await;
    assert!(log.len() >= 5, "{log:?}");
    for d in &log {
        if d["status"] == "succeeded" {
            assert_eq!(d["response_status"], 200);
            assert!(d["latency_ms"].is_u64());
            assert!(d["next_attempt_at"].is_null());
        }
    }
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_retried_with_growing_gaps_and_redelivery_works() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[500, 500]).await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), true, settings(&[200, 800, 800], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (hook, _) = server
        .create_hook(
            &key,
            json!({"url": hook_url, "events": ["scan.queued"], "site_id": site}),
        )
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(20, "the third attempt to succeed", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] == "succeeded"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    let d = &log[0];
    assert_eq!(d["attempts"], 3, "{d}");
    assert_eq!(d["response_status"], 200);
    let attempts = d["attempt_log"].as_array().unwrap();
    let codes: Vec<u64> = attempts
        .iter()
        .map(|a| a["response_status"].as_u64().unwrap())
        .collect();
    assert_eq!(codes, [500, 500, 200]);
    let at = |i: usize| {
        chrono::DateTime::parse_from_rfc3339(attempts[i]["at"].as_str().unwrap()).unwrap()
    };
    let (gap1, gap2) = (at(1) - at(0), at(2) - at(1));
    assert!(gap1 >= chrono::Duration::milliseconds(160), "{gap1}");
    assert!(gap2 > gap1, "gaps must grow: {gap1} then {gap2}");
    assert_eq!(receiver.got.lock().unwrap().len(), 3);
    let ids: Vec<String> = receiver
        .got
        .lock()
        .unwrap()
        .iter()
        .map(|(h, _)| h["sitescan-event-id"].to_str().unwrap().to_string())
        .collect();
    assert!(
        ids.iter().all(|i| *i == ids[0]),
        "retries keep the event id"
    );

    // Redeliver: a new delivery of the same event.
    let dlv = d["id"].as_str().unwrap();
    let (s, b) = server
        .send(
            Method::POST,
            &format!("/api/v1/webhooks/{hook}/deliveries/{dlv}/redeliver"),
            &key,
            None,
        )
        .await;
    assert_eq!(s, 202, "{b}");
    assert_eq!(b["data"]["event_id"], d["event_id"]);
    eventually(10, "the redelivery", || async {
        receiver.got.lock().unwrap().len() == 4
    })
    .await;
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_retries_still_delivers() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[503]).await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), true, settings(&[1500], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (hook, _) = server
        .create_hook(&key, json!({"url": hook_url, "events": ["scan.queued"]}))
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(10, "the first, failed attempt", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["attempts"] == 1
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(log[0]["status"], "pending");
    assert!(log[0]["next_attempt_at"].is_string());
    assert_eq!(log[0]["response_status"], 503);
    server.stop_cleanly().await;

    let server = TestApi::start_on(dir.path(), true, settings(&[1500], true)).await;
    eventually(20, "delivery after the restart", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] == "succeeded"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(log[0]["attempts"], 2);
    assert_eq!(receiver.got.lock().unwrap().len(), 2);
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gone_disables_the_endpoint_with_its_reason() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[410]).await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), true, settings(&[50, 50], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (hook, _) = server
        .create_hook(&key, json!({"url": hook_url, "events": ["scan.queued"]}))
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(10, "the endpoint to be disabled", || async {
        let (_, b) = server.hook(&hook, &key).await;
        b["data"]["enabled"] == false
    })
    .await;
    let (_, b) = server.hook(&hook, &key).await;
    assert!(
        b["data"]["disabled_reason"]
            .as_str()
            .unwrap()
            .contains("410"),
        "{b}"
    );
    // The 410 was the only request: nothing is sent to a disabled endpoint.
    server.scan_one_page(&key, &site).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
    // Enabling clears the reason.
    let (s, b) = server
        .send(
            Method::PATCH,
            &format!("/api/v1/webhooks/{hook}"),
            &key,
            Some(json!({"enabled": true})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["enabled"], true);
    assert!(b["data"]["disabled_reason"].is_null());
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_refuses_private_targets_and_keeps_tenants_apart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), false, settings(&[50], false)).await;
    let (_, key) = server.tenant(Plan::Enterprise).await;
    let (_, other) = server.tenant(Plan::Enterprise).await;
    for url in [
        "https://127.0.0.1/hook",
        "https://10.1.2.3/hook",
        "https://169.254.169.254/latest",
        "https://localhost/hook",
        "http://hooks.example.com/hook",
        "not a url",
    ] {
        let (s, b) = server
            .post(
                "/api/v1/webhooks",
                &key,
                json!({"url": url, "events": ["scan.completed"]}),
            )
            .await;
        assert_error(s, &b, 422, "validation_failed");
        assert_eq!(b["error"]["details"][0]["field"], "url", "{url}: {b}");
    }
    let (s, b) = server
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": "https://hooks.example.com/x", "events": ["scan.done"]}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "events[0]");
    let (hook, _) = server
        .create_hook(
            &key,
            json!({"url": "https://hooks.example.com/x", "events": ["scan.completed"]}),
        )
        .await;
    for (method, path) in [
        (Method::GET, format!("/api/v1/webhooks/{hook}")),
        (Method::DELETE, format!("/api/v1/webhooks/{hook}")),
        (
            Method::POST,
            format!("/api/v1/webhooks/{hook}/rotate-secret"),
        ),
        (Method::GET, format!("/api/v1/webhooks/{hook}/deliveries")),
    ] {
        let (s, b) = server.send(method, &path, &other, None).await;
        assert_error(s, &b, 404, "webhook_not_found");
    }
    let (s, b) = server.get("/api/v1/webhooks", &other).await;
    assert_eq!(s, 200);
    assert_eq!(b["data"], json!([]));
    let (s, b) = server
        .send(
            Method::PATCH,
            &format!("/api/v1/webhooks/{hook}"),
            &key,
            Some(json!({"events": ["scan.failed", "scan.failed"], "enabled": false})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["events"], json!(["scan.failed"]));
    assert_eq!(b["data"]["enabled"], false);
    let (s, _) = server
        .send(
            Method::DELETE,
            &format!("/api/v1/webhooks/{hook}"),
            &key,
            None,
        )
        .await;
    assert_eq!(s, 200);
    let (s, b) = server.hook(&hook, &key).await;
    assert_error(s, &b, 404, "webhook_not_found");
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_not_followed_and_an_endpoint_failing_too_long_is_disabled() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[302]).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&[50, 50], true);
    s.disable_after = Duration::ZERO;
    let server = TestApi::start_on(dir.path(), true, s).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (hook, _) = server
        .create_hook(&key, json!({"url": hook_url, "events": ["scan.queued"]}))
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(10, "the delivery to fail", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] == "failed"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(log[0]["attempts"], 1);
    assert_eq!(log[0]["response_status"], 302);
    let kept = log[0]["attempt_log"][0]["response_body"].as_str().unwrap();
    assert_eq!(kept.len(), 1024, "1 KiB of the answer is kept");
    // One request: the redirect to /elsewhere was not followed.
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
    let (_, b) = server.hook(&hook, &key).await;
    assert_eq!(b["data"]["enabled"], false, "{b}");
    assert!(
        b["data"]["disabled_reason"]
            .as_str()
            .unwrap()
            .contains("failed"),
        "{b}"
    );
    server.stop_cleanly().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_first_64_kib_of_an_answer_are_read() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[]).await;
    let endless_url = hook_url.replace("/hook", "/endless");
    let dir = tempfile::tempdir().unwrap();
    // 2 s per attempt: reading the endless answer to its end would time out.
    let server = TestApi::start_on(dir.path(), true, settings(&[50], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (hook, _) = server
        .create_hook(&key, json!({"url": endless_url, "events": ["scan.queued"]}))
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(20, "the delivery to finish", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] != "pending"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    let d = &log[0];
    assert_eq!(d["status"], "succeeded", "{d}");
    assert_eq!(d["attempts"], 1);
    let attempt = &d["attempt_log"][0];
    assert_eq!(attempt["response_status"], 200);
    assert!(attempt["error"].is_null(), "{attempt}");
    assert_eq!(attempt["response_body"].as_str().unwrap().len(), 1024);
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
    server.stop_cleanly().await;
}

// ---- the `sitescan serve` binary, killed with SIGKILL in the middle of retries

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_in_the_middle_of_retries_delivers_after_restart() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[503]).await;
    let dir = tempfile::tempdir().unwrap();
    let admin = |args: &[&str], field: &str| {
        admin_ok(dir.path(), args)[field]
            .as_str()
            .unwrap()
            .to_string()
    };
    let acc = admin(&["account", "create", "--plan", "enterprise"], "id");
    let key = admin(&["key", "create", "--account", &acc, "--name", "ci"], "key");
    let site = admin(&["site", "add", "--account", &acc, &fixture.url()], "id");
    let delays = ["--webhook-retry-delays", "2"];
    let mut server = ServeProcess::start(dir.path(), &delays);
    let (hook, _) = server
        .create_hook(&key, json!({"url": hook_url, "events": ["scan.queued"]}))
        .await;
    server.scan_one_page(&key, &site).await;
    eventually(20, "the first, failed attempt", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["attempts"] == 1
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(log[0]["status"], "pending");
    assert_eq!(log[0]["response_status"], 503);
    // SIGKILL: no clean-up at all, the retry is due in about 2 s.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let server = ServeProcess::start(dir.path(), &delays);
    eventually(30, "delivery after the restart", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] == "succeeded"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(log[0]["attempts"], 2);
    let got = receiver.got.lock().unwrap().clone();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0["sitescan-event-id"], got[1].0["sitescan-event-id"]);
    assert_eq!(got[0].1, got[1].1, "the same body on the retry");
}

/// Kills the docs' receiver when the test ends.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Python receiver of the book's Webhooks page, run as printed (only its secret and port
/// filled in): it accepts real deliveries, and refuses a replay older than 5
/// minutes, a tampered body and a missing signature.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_receiver_accepts_deliveries_and_refuses_replays() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/service/webhooks.md"
    ))
    .unwrap();
    let from = readme
        .find("A receiver that verifies the signature")
        .expect("the Webhooks page's receiver example");
    let code_start = from + readme[from..].find("```python\n").unwrap() + "```python\n".len();
    let code = &readme[code_start..code_start + readme[code_start..].find("```").unwrap()];

    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(dir.path(), true, settings(&[200], true)).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (hook, secret) = server
        .create_hook(
            &key,
            json!({"url": format!("http://127.0.0.1:{port}/hook"), "events": ["scan.queued"]}),
        )
        .await;
    let script = code
        .replace(r#"b"whsec_...""#, &format!(r#"b"{secret}""#))
        .replace(r#"("0.0.0.0", 8000)"#, &format!(r#"("127.0.0.1", {port})"#));
    assert!(
        script.contains(&secret) && script.contains(&port.to_string()),
        "{code}"
    );
    let path = dir.path().join("receiver.py");
    std::fs::write(&path, script).unwrap();
    let _python = KillOnDrop(
        std::process::Command::new("python3")
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 runs the docs' receiver example"),
    );
    eventually(20, "the Python receiver to listen", || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
    })
    .await;

    // A real delivery is accepted (204).
    server.scan_one_page(&key, &site).await;
    eventually(20, "the delivery to be accepted", || async {
        let log = server.deliveries(&hook, &key).await;
        log.len() == 1 && log[0]["status"] == "succeeded"
    })
    .await;
    let log = server.deliveries(&hook, &key).await;
    assert_eq!(
        (
            log[0]["response_status"].as_u64(),
            log[0]["attempts"].as_u64()
        ),
        (Some(204), Some(1))
    );

    // Requests the test signs itself: fresh, replayed, tampered, unsigned.
    let body = br#"{"id":"evt_test","type":"scan.queued"}"#;
    let signed = |t: i64, body: &[u8]| {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
    };
    let post = |header: Option<String>, body: &'static [u8]| {
        let mut req = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{port}/hook"))
            .body(body);
        if let Some(h) = header {
            req = req.header("Sitescan-Signature", h);
        }
        async move { req.send().await.unwrap().status().as_u16() }
    };
    let now = Utc::now().timestamp();
    assert_eq!(post(Some(signed(now, body)), body).await, 204);
    assert_eq!(
        post(Some(signed(now - 301, body)), body).await,
        400,
        "a replay"
    );
    assert_eq!(
        post(
            Some(signed(now, body)),
            br#"{"id":"evt_test","type":"scan.failed"}"#
        )
        .await,
        400,
        "a tampered body"
    );
    assert_eq!(post(None, body).await, 400, "no signature");
    server.stop_cleanly().await;
}

/// On shutdown the delivery task finishes the attempt in hand and hands the
/// rest of its batch back (due at once), rather than leaving it leased.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_hands_back_the_deliveries_not_yet_attempted() {
    use sitescan_daemon::store::{Delivery, DeliveryStatus};
    let (hook_url, receiver) = start_receiver(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Embedded::open(dir.path()).unwrap());
    let now = Utc::now();
    let acc = store
        .create_account(Account {
            id: new_id("acc").unwrap(),
            name: None,
            plan: Plan::Enterprise,
            created_at: now,
        })
        .await
        .unwrap();
    let hook = test_webhook(
        &acc.id,
        &hook_url.replace("/hook", "/slow"),
        &["scan.queued"],
    );
    store.create_webhook(hook.clone()).await.unwrap();
    let delivery = |n: u8| Delivery {
        id: format!("dlv_{n:032x}"),
        webhook_id: hook.id.clone(),
        account_id: acc.id.clone(),
        event_id: format!("evt_{n}"),
        event_type: "scan.queued".into(),
        payload: "{}".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(now),
        created_at: now,
        attempt_log: Vec::new(),
    };
    store
        .save_deliveries(vec![delivery(1), delivery(2)])
        .await
        .unwrap();
    let (stop, rx) = tokio::sync::watch::channel(false);
    let task = tokio::spawn(sitescan_daemon::webhooks::run_deliveries(
        store.clone(),
        settings(&[50], true),
        rx,
    ));
    eventually(10, "the first attempt to start", || async {
        !receiver.got.lock().unwrap().is_empty()
    })
    .await;
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    let first = store
        .delivery(&hook.id, &delivery(1).id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (first.status, first.attempts),
        (DeliveryStatus::Succeeded, 1)
    );
    let second = store
        .delivery(&hook.id, &delivery(2).id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (second.status, second.attempts),
        (DeliveryStatus::Pending, 0)
    );
    let due = second.next_attempt_at.unwrap();
    assert!(due <= Utc::now(), "handed back, not leased until {due}");
    assert_eq!(receiver.got.lock().unwrap().len(), 1);
}

/// With `HTTPS_PROXY`, `HTTP_PROXY` and `ALL_PROXY` (both cases) pointing at a
/// listening "proxy", `sitescan serve` still delivers directly: through a
/// proxy the target name would be resolved past the SSRF guard. The proxy
/// accepts no connection at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_ignore_proxy_environment_variables() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let proxy = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = proxy.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(conn);
        }
    });
    let (hook_url, receiver) = start_receiver(&[]).await;

    let dir = tempfile::tempdir().unwrap();
    let acc = admin_ok(dir.path(), &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let key = admin_ok(
        dir.path(),
        &["key", "create", "--account", &acc, "--name", "ci"],
    );
    let key = key["key"].as_str().unwrap().to_string();
    let site = admin_ok(
        dir.path(),
        &["site", "add", "--account", &acc, "http://127.0.0.1:9/"],
    );
    let site = site["id"].as_str().unwrap().to_string();

    let mut cmd = crate::api_support::sitescan();
    cmd.args([
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--allow-private",
    ])
    .arg("--data-dir")
    .arg(dir.path())
    .env("RUST_LOG", "warn")
    .env_remove("NO_PROXY")
    .env_remove("no_proxy")
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::null());
    for var in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        cmd.env(var, &proxy_url);
    }
    let server = ServeProcess::spawn(cmd);

    let (s, b) = server
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": hook_url, "events": ["scan.queued", "scan.started", "scan.failed"]}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    let (s, b) = server
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    eventually(30, "the three events, delivered directly", || async {
        receiver.got.lock().unwrap().len() >= 3
    })
    .await;
    let mut types: Vec<String> = events_of(&receiver)
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    types.sort();
    assert_eq!(types, ["scan.failed", "scan.queued", "scan.started"]);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "the proxy saw a connection"
    );
    let (_, hooks) = server.get("/api/v1/webhooks", &key).await;
    let hook = hooks["data"][0]["id"].as_str().unwrap().to_string();
    let (_, log) = server
        .get(&format!("/api/v1/webhooks/{hook}/deliveries"), &key)
        .await;
    for d in log["data"].as_array().unwrap() {
        assert_eq!(d["status"], "succeeded", "{d}");
        assert_eq!(d["response_status"], 200, "{d}");
    }
}
