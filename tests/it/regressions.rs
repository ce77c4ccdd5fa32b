//! Regressions end to end: scans of a fixture site (a temporary folder served
//! on 127.0.0.1, its page rewritten between scans) compared by fingerprint,
//! the site's threshold set through PATCH, and `scan.regressed` received
//! signed by a real webhook receiver only when a finding at or above it
//! appears.

use std::time::Duration;

use serde_json::{json, Value};
use sitescan_daemon::store::Plan;
use sitescan_fixtures::FixtureServer;

use crate::api_support::{assert_error, KeyedApi, TestApi};
use crate::webhook_support::{eventually, signed_event, start_receiver, HookCalls};

fn settings() -> sitescan_daemon::webhooks::DeliverySettings {
    let mut s = sitescan_daemon::webhooks::DeliverySettings::new(true);
    s.retry_delays = vec![Duration::from_millis(50)];
    s.poll_every = Duration::from_millis(20);
    s.timeout = Duration::from_secs(2);
    s
}

fn page(body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Shop</title></head>\
         <body><main><h1>Shop</h1>{body}</main></body></html>"
    )
}

/// Scans `site` with `rules` and waits for it to complete: the scan's JSON.
async fn scan(server: &TestApi, key: &str, site: &str, rules: &[&str]) -> Value {
    let (s, b) = server
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            key,
            json!({"config": {"rules": rules, "max_pages": 1, "links": "none"}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = server.wait_terminal(&id, key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    done
}

fn items(changes: &Value) -> Vec<(String, String, String)> {
    changes["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert_eq!(i["fingerprint"].as_str().unwrap().len(), 32, "{i}");
            (
                i["rule"].as_str().unwrap().to_string(),
                i["impact"].as_str().unwrap().to_string(),
                i["selector"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_are_compared_with_the_previous_one_and_regressions_are_announced() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index.html");
    std::fs::write(&index, page(r#"<img id="one" src="a.png"><p>hello</p>"#)).unwrap();
    let fixture = FixtureServer::start(dir.path()).await.unwrap();
    let (hook_url, receiver) = start_receiver(&[]).await;
    let db = tempfile::tempdir().unwrap();
    let server = TestApi::start_on(db.path(), true, settings()).await;
    let (acc, key) = server.tenant(Plan::Enterprise).await;
    let site = server.site(&acc, &fixture.url()).await;
    let (_hook, secret) = server
        .create_hook(
            &key,
            json!({"url": hook_url, "events": ["scan.regressed"], "description": "regressions"}),
        )
        .await;
    let rules = ["image-alt", "outdated-copyright"];

    // The threshold is a site setting, validated.
    let (s, b) = server.get(&format!("/api/v1/sites/{site}"), &key).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["regression_threshold"], "serious");
    let (s, b) = server
        .send(
            reqwest::Method::PATCH,
            &format!("/api/v1/sites/{site}"),
            &key,
            Some(json!({"regression_threshold": "severe"})),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let (s, b) = server
        .send(
            reqwest::Method::PATCH,
            "/api/v1/sites/site_nope",
            &key,
            Some(json!({"regression_threshold": "minor"})),
        )
        .await;
    assert_error(s, &b, 404, "site_not_found");

    // First scan: nothing to compare with, no event.
    let first = scan(&server, &key, &site, &rules).await;
    let first_id = first["id"].as_str().unwrap().to_string();
    let r = &first["summary"]["regressions"];
    assert!(r["compared_with"].is_null(), "{first}");
    assert_eq!(r["new"]["count"], 0);
    assert_eq!(r["fixed"]["count"], 0);

    // Second scan: the first image fixed, a second one without alt (critical).
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png" alt="A"><img id="two" src="b.png"><p>hello</p>"#),
    )
    .unwrap();
    let second = scan(&server, &key, &site, &rules).await;
    let second_id = second["id"].as_str().unwrap().to_string();
    let r = &second["summary"]["regressions"];
    assert_eq!(r["compared_with"], first_id.as_str(), "{second}");
    assert_eq!(r["new"]["count"], 1, "{r}");
    assert_eq!(r["fixed"]["count"], 1, "{r}");
    assert_eq!(r["new"]["failed_by_impact"]["critical"], 1, "{r}");
    assert_eq!(
        items(&r["new"]),
        [("image-alt".into(), "critical".into(), "#two".into())]
    );
    assert_eq!(
        items(&r["fixed"]),
        [("image-alt".into(), "critical".into(), "#one".into())]
    );
    assert_eq!(r["new"]["items"][0]["page_url"], fixture.url());

    eventually(30, "the scan.regressed delivery", || async {
        !receiver.got.lock().unwrap().is_empty()
    })
    .await;
    let got = receiver.got.lock().unwrap().clone();
    assert_eq!(got.len(), 1);
    let event = signed_event(&secret, &got[0].0, &got[0].1);
    assert_eq!(event["type"], "scan.regressed");
    assert_eq!(got[0].0["sitescan-event-type"], "scan.regressed");
    let data = &event["data"];
    assert_eq!(data["scan_id"], second_id.as_str());
    assert_eq!(data["site_id"], site.as_str());
    assert_eq!(data["compared_with"], first_id.as_str());
    assert_eq!(data["threshold"], "serious");
    assert_eq!(data["new_at_threshold"], 1);
    assert_eq!(data["fixed_count"], 1);
    assert_eq!(data["new"], r["new"]);

    // Third scan: only a minor finding appears (an old copyright year):
    // new and counted, but under the threshold, so no event.
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png" alt="A"><img id="two" src="b.png"><p>© 2019 Shop</p>"#),
    )
    .unwrap();
    let third = scan(&server, &key, &site, &rules).await;
    let r = &third["summary"]["regressions"];
    assert_eq!(r["compared_with"], second_id.as_str(), "{third}");
    assert_eq!(r["new"]["count"], 1, "{r}");
    assert_eq!(r["fixed"]["count"], 0, "{r}");
    assert_eq!(items(&r["new"])[0].0, "outdated-copyright");
    assert_eq!(items(&r["new"])[0].1, "minor");

    // A scan with another rule selection is not compared with these.
    let other = scan(&server, &key, &site, &["image-alt"]).await;
    assert!(other["summary"]["regressions"]["compared_with"].is_null());

    // With the threshold at minor, the same kind of change is announced.
    let (s, b) = server
        .send(
            reqwest::Method::PATCH,
            &format!("/api/v1/sites/{site}"),
            &key,
            Some(json!({"regression_threshold": "minor"})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["regression_threshold"], "minor");
    // The notice removed: fixed only, nothing new, no event.
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png" alt="A"><img id="two" src="b.png"><p>hello</p>"#),
    )
    .unwrap();
    let fourth = scan(&server, &key, &site, &rules).await;
    let r = &fourth["summary"]["regressions"];
    assert_eq!(r["compared_with"], third["id"], "{fourth}");
    assert_eq!(r["new"]["count"], 0, "{r}");
    assert_eq!(r["fixed"]["count"], 1, "{r}");
    assert_eq!(items(&r["fixed"])[0].0, "outdated-copyright");
    // Back again: a new minor finding, now at the threshold.
    std::fs::write(
        &index,
        page(r#"<img id="one" src="a.png" alt="A"><img id="two" src="b.png"><p>© 2018 Shop</p>"#),
    )
    .unwrap();
    let fifth = scan(&server, &key, &site, &rules).await;
    let r = &fifth["summary"]["regressions"];
    assert_eq!(r["compared_with"], fourth["id"], "{fifth}");
    assert_eq!(r["new"]["count"], 1, "{r}");
    assert_eq!(r["fixed"]["count"], 0, "{r}");
    assert_eq!(r["new"]["failed_by_impact"]["minor"], 1, "{r}");
    eventually(30, "the second scan.regressed delivery", || async {
        receiver.got.lock().unwrap().len() >= 2
    })
    .await;
    // Only the two regressions were sent: the minor-only one under `serious` was not.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got = receiver.got.lock().unwrap().clone();
    assert_eq!(got.len(), 2);
    let event = signed_event(&secret, &got[1].0, &got[1].1);
    assert_eq!(event["data"]["scan_id"], fifth["id"]);
    assert_eq!(event["data"]["threshold"], "minor");
    server.stop_cleanly().await;
}
