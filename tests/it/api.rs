//! The REST API over real HTTP (reqwest against a server on 127.0.0.1:0),
//! scanning fixture sites with the real engine.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};
use sitescan_daemon::store::Plan;
use sitescan_fixtures::{site_dir, FixtureServer};

use crate::api_support::{assert_error, call, json_of, slow_site, TestApi};

const CATEGORIES: [&str; 5] = ["accessibility", "seo", "performance", "security", "quality"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sites_are_created_listed_read_and_deleted_in_envelopes() {
    let api = TestApi::start().await;
    let (_, key) = api.tenant(Plan::Professional).await;

    let resp = api
        .req(Method::POST, "/api/v1/sites", Some(&key))
        .json(&json!({"url": "http://127.0.0.1:9/shop", "name": "Shop"}))
        .send()
        .await
        .unwrap();
    let request_id = resp.headers()["x-request-id"].to_str().unwrap().to_string();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["meta"]["request_id"], request_id.as_str());
    assert!(body["meta"]["timestamp"].is_string());
    let site = &body["data"];
    assert_eq!(site["url"], "http://127.0.0.1:9/shop");
    assert_eq!(site["name"], "Shop");
    let id = site["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("site_"));

    let (status, list) = api.get("/api/v1/sites", &key).await;
    assert_eq!(status, 200);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["id"], id.as_str());
    assert_eq!(list["meta"]["count"], 1);

    let (status, one) = api.get(&format!("/api/v1/sites/{id}"), &key).await;
    assert_eq!(status, 200);
    assert_eq!(one["data"], *site);

    let (status, gone) =
        call(api.req(Method::DELETE, &format!("/api/v1/sites/{id}"), Some(&key))).await;
    assert_eq!(status, 200);
    assert_eq!(gone["data"], json!({"id": id, "deleted": true}));
    let (status, body) = api.get(&format!("/api/v1/sites/{id}"), &key).await;
    assert_error(status, &body, 404, "site_not_found");
    let (status, body) =
        call(api.req(Method::DELETE, &format!("/api/v1/sites/{id}"), Some(&key))).await;
    assert_error(status, &body, 404, "site_not_found");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_runs_from_post_to_report_with_the_real_engine() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, &fixture.url()).await;

    let resp = api
        .req(
            Method::POST,
            &format!("/api/v1/sites/{site}/scans"),
            Some(&key),
        )
        .json(&json!({"config": {"rules": ["wcag-aa"], "priority": "high"}}))
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 202, "{body}");
    let scan = &body["data"];
    let id = scan["id"].as_str().unwrap().to_string();
    assert_eq!(location, format!("{}/api/v1/scans/{id}", api.base));
    assert_eq!(scan["status"], "queued");
    assert_eq!(scan["site_id"], site.as_str());
    assert_eq!(scan["config"]["rules"], json!(["wcag-aa"]));
    assert_eq!(scan["config"]["priority"], "high");
    assert_eq!(scan["config"]["max_pages"], 100);
    assert_eq!(scan["config"]["plan_max_pages"], 100);
    assert_eq!(
        scan["links"]["report"],
        format!("/api/v1/scans/{id}/report")
    );

    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done["started_at"].is_string() && done["finished_at"].is_string());
    assert_eq!(done["attempts"], 1);
    let summary = &done["summary"];
    let pages = summary["pages_fetched"].as_u64().unwrap();
    assert!(pages >= 2, "{summary}");
    assert!(
        summary["categories"]["accessibility"].is_object(),
        "{summary}"
    );

    let (status, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_eq!(status, 200);
    let report = &report["data"];
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["scan_id"], id.as_str());
    assert_eq!(report["site"], fixture.url().as_str());
    assert_eq!(report["stats"]["pages_fetched"], pages);
    assert_eq!(report["config"]["rules"], json!(["wcag-aa"]));
    assert_eq!(
        report["findings"].as_array().unwrap().len() as u64,
        summary["findings"].as_u64().unwrap()
    );
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["category"] == "accessibility"));
    assert_eq!(
        fixture.count("/"),
        1,
        "one fetch per URL: {:?}",
        fixture.paths()
    );

    // Finished: cannot be canceled.
    let (status, body) = api
        .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
        .await;
    assert_error(status, &body, 409, "scan_not_cancelable");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn type_specific_endpoints_default_and_restrict_their_rules() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    // Nothing listens on port 9: the scans fail fast.
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    for cat in CATEGORIES {
        let resp = api
            .req(
                Method::POST,
                &format!("/api/v1/sites/{site}/{cat}/scans"),
                Some(&key),
            )
            .send()
            .await
            .unwrap();
        let has_rules = !sitescan::rules::registry::select(&[cat])
            .unwrap()
            .is_empty();
        if !has_rules {
            // A category without rules in this build cannot run: said up front.
            let (status, body) = json_of(resp).await;
            assert_error(status, &body, 422, "validation_failed");
            continue;
        }
        assert!(resp.headers().contains_key("location"));
        let (status, body) = json_of(resp).await;
        assert_eq!(status, 202, "{cat}: {body}");
        let want = if cat == "accessibility" {
            "wcag-aa"
        } else {
            cat
        };
        assert_eq!(body["data"]["config"]["rules"], json!([want]));
        assert_eq!(body["data"]["config"]["priority"], "normal");
        assert_eq!(body["data"]["config"]["plan_max_pages"], Value::Null);
    }
    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site}/seo/scans"),
            &key,
            json!({"config": {"rules": ["seo"], "priority": "low", "max_pages": 5}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["data"]["config"]["max_pages"], 5);
    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site}/seo/scans"),
            &key,
            json!({"config": {"rules": ["seo", "wcag-aa"]}}),
        )
        .await;
    assert_error(status, &body, 422, "validation_failed");
    assert_eq!(body["error"]["details"][0]["field"], "config.rules[1]");
    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site}/accessibility/scans"),
            &key,
            json!({"config": {"rules": ["all"]}}),
        )
        .await;
    assert_error(status, &body, 422, "validation_failed");
    let id = {
        let (_, body) = api
            .post(
                &format!("/api/v1/sites/{site}/scans"),
                &key,
                json!({"config": {"rules": ["wcag-aa"]}}),
            )
            .await;
        body["data"]["id"].as_str().unwrap().to_string()
    };
    let failed = api.wait_terminal(&id, &key, 30).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(
        failed["error"].as_str().unwrap().contains("127.0.0.1:9"),
        "{failed}"
    );
    let (status, body) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_error(status, &body, 409, "report_not_ready");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_code_is_produced_for_real() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    // A site that answers after 30 s: its scans neither finish nor fail
    // during the test (a scan that failed before its first page would be
    // given back to the quota).
    let (_dir, stalled) = slow_site(1, 30_000).await;
    let site = api.site(&acc, &stalled.url()).await;

    let (s, b) = call(api.req(Method::GET, "/api/v1/sites", None)).await;
    assert_error(s, &b, 401, "missing_api_key");
    let (s, b) = api
        .get("/api/v1/sites", "key_0123456789abcdef0123456789abcdef")
        .await;
    assert_error(s, &b, 401, "invalid_api_key");
    let (s, b) = api.get("/api/v1/sites", "not-a-key").await;
    assert_error(s, &b, 401, "invalid_api_key");

    let expired = api.key_with(&acc, chrono::Duration::seconds(-1)).await;
    let (s, b) = api.get("/api/v1/sites", &expired).await;
    assert_error(s, &b, 401, "api_key_expired");

    let (_, starter) = api.tenant(Plan::Starter).await;
    let (s, b) = api.get("/api/v1/sites", &starter).await;
    assert_error(s, &b, 403, "plan_not_allowed");

    let (s, b) = api.get("/api/v1/sites/site_nope", &key).await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api
        .post(
            "/api/v1/sites/site_nope/scans",
            &key,
            json!({"config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api.get("/api/v1/scans/scan_nope", &key).await;
    assert_error(s, &b, 404, "scan_not_found");
    let (s, b) = api.get("/api/v1/scans/scan_nope/report", &key).await;
    assert_error(s, &b, 404, "scan_not_found");

    let (s, b) = call(api.req(Method::GET, "/api/v1/nothing-here", Some(&key))).await;
    assert_error(s, &b, 404, "not_found");
    // `/` is the dashboard now; other unknown paths still answer the envelope.
    let (s, b) = call(api.req(Method::GET, "/nothing-here", None)).await;
    assert_error(s, &b, 404, "not_found");
    let resp = api
        .req(Method::PUT, "/api/v1/sites", Some(&key))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["allow"], "GET,HEAD,POST");
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 405, "method_not_allowed");

    let scans = format!("/api/v1/sites/{site}/scans");
    let (s, b) = api
        .post(&scans, &key, json!({"config": {"rules": ["wcag-aaa"]}}))
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "config.rules[0]");
    assert!(b["error"]["details"][0]["problem"]
        .as_str()
        .unwrap()
        .contains("wcag-aaa"));
    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {"rules": ["wcag-aa"], "priority": "urgent"}}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "config.priority");
    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {"rules": ["wcag-aa"], "colour": "red"}}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let (s, b) = api.post(&scans, &key, json!({})).await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "config");
    let (s, b) = api.post(&scans, &key, json!({"config": {}})).await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "config.rules");
    let (s, b) = api
        .post("/api/v1/sites", &key, json!({"url": "ftp://example.com/"}))
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "url");
    let (s, b) = api.get(&format!("{scans}?limit=0"), &key).await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(b["error"]["details"][0]["field"], "limit");

    let (s, b) = call(
        api.req(Method::POST, &scans, Some(&key))
            .header("content-type", "application/json")
            .body("{\"config\": {\"rules\": [\"wcag-aa\"]"),
    )
    .await;
    assert_error(s, &b, 400, "invalid_json");
    let (s, b) = call(
        api.req(Method::POST, &scans, Some(&key))
            .header("content-type", "text/plain")
            .body("{\"config\": {\"rules\": [\"wcag-aa\"]}}"),
    )
    .await;
    assert_error(s, &b, 415, "unsupported_media_type");
    let big = json!({"config": {"rules": vec!["wcag-aa"; 10_000]}});
    let (s, b) = api.post(&scans, &key, big).await;
    assert_error(s, &b, 413, "payload_too_large");

    // The professional plan's 2 scans a day, then 429 until next UTC midnight.
    for _ in 0..2 {
        let (s, b) = api
            .post(&scans, &key, json!({"config": {"rules": ["wcag-aa"]}}))
            .await;
        assert_eq!(s, 202, "{b}");
    }
    let resp = api
        .req(Method::POST, &scans, Some(&key))
        .json(&json!({"config": {"rules": ["wcag-aa"]}}))
        .send()
        .await
        .unwrap();
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 429, "scan_limit_exceeded");
    let now = chrono::Utc::now();
    let midnight = (now.date_naive() + chrono::Days::new(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let want = (midnight - now).num_seconds() as u64;
    assert!(
        retry.abs_diff(want) <= 5,
        "retry-after {retry}, want about {want}"
    );

    let (s, b) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(s, 200);
    assert_eq!(b["data"]["account"]["scans_today"], 2);
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_rate_limited_with_headers() {
    let api = TestApi::start_with(3, 1).await;
    let (_, key) = api.tenant(Plan::Enterprise).await;
    let (_, other) = api.tenant(Plan::Enterprise).await;
    for remaining in [2, 1, 0] {
        let resp = api
            .req(Method::GET, "/api/v1/sites", Some(&key))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["ratelimit-limit"], "3");
        assert_eq!(
            resp.headers()["ratelimit-remaining"],
            remaining.to_string().as_str()
        );
        assert!(resp.headers().contains_key("ratelimit-reset"));
    }
    let resp = api
        .req(Method::GET, "/api/v1/sites", Some(&key))
        .send()
        .await
        .unwrap();
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=20).contains(&retry), "{retry}");
    assert_eq!(resp.headers()["ratelimit-remaining"], "0");
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 429, "rate_limited");
    // Another key has its own bucket.
    let (s, _) = api.get("/api/v1/sites", &other).await;
    assert_eq!(s, 200);
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_racing_scan_requests_on_a_fresh_professional_account_make_exactly_two_scans() {
    let api = Arc::new(TestApi::start().await);
    let (acc, key) = api.tenant(Plan::Professional).await;
    // Scans of it never fail during the test (a failed one would be given
    // back to the quota mid-race).
    let (_dir, stalled) = slow_site(1, 30_000).await;
    let site = api.site(&acc, &stalled.url()).await;
    let calls = (0..20).map(|_| {
        let (api, key, site) = (api.clone(), key.clone(), site.clone());
        async move {
            api.post(
                &format!("/api/v1/sites/{site}/scans"),
                &key,
                json!({"config": {"rules": ["wcag-aa"]}}),
            )
            .await
        }
    });
    let results = join_all(calls.map(tokio::spawn)).await;
    let mut statuses: Vec<u16> = results.into_iter().map(|r| r.unwrap().0).collect();
    statuses.sort();
    assert_eq!(statuses, [vec![202; 2], vec![429; 18]].concat());
    let (_, list) = api.get(&format!("/api/v1/sites/{site}/scans"), &key).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_sites_and_scans_are_404() {
    let api = TestApi::start().await;
    let (a, key_a) = api.tenant(Plan::Enterprise).await;
    let (_, key_b) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&a, "http://127.0.0.1:9/").await;
    let (_, body) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key_a,
            json!({"config": {"rules": ["seo"]}}),
        )
        .await;
    let scan = body["data"]["id"].as_str().unwrap().to_string();

    let (s, b) = api.get("/api/v1/sites", &key_b).await;
    assert_eq!(s, 200);
    assert_eq!(b["data"], json!([]));
    let (s, b) = api.get(&format!("/api/v1/sites/{site}"), &key_b).await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api
        .get(&format!("/api/v1/sites/{site}/scans"), &key_b)
        .await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key_b,
            json!({"config": {"rules": ["seo"]}}),
        )
        .await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/seo/scans"),
            &key_b,
            json!({}),
        )
        .await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = call(api.req(
        Method::DELETE,
        &format!("/api/v1/sites/{site}"),
        Some(&key_b),
    ))
    .await;
    assert_error(s, &b, 404, "site_not_found");
    let (s, b) = api.get(&format!("/api/v1/scans/{scan}"), &key_b).await;
    assert_error(s, &b, 404, "scan_not_found");
    let (s, b) = api
        .get(&format!("/api/v1/scans/{scan}/report"), &key_b)
        .await;
    assert_error(s, &b, 404, "scan_not_found");
    let (s, b) = api
        .post(&format!("/api/v1/scans/{scan}/cancel"), &key_b, json!({}))
        .await;
    assert_error(s, &b, 404, "scan_not_found");
    // The owner still sees both.
    let (s, _) = api.get(&format!("/api/v1/scans/{scan}"), &key_a).await;
    assert_eq!(s, 200);
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_history_pages_newest_first_and_cancel_works() {
    let (_dir, slow) = slow_site(3, 1500).await;
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &slow.url()).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let (s, b) = api
            .post(
                &format!("/api/v1/sites/{site}/seo/scans"),
                &key,
                json!({"config": {"priority": "low"}}),
            )
            .await;
        assert_eq!(s, 202, "{b}");
        let id = b["data"]["id"].as_str().unwrap().to_string();
        let (s, c) = api
            .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
            .await;
        assert_eq!(s, 200, "{c}");
        assert_eq!(c["data"]["status"], "canceled");
        // Canceling again is harmless.
        let (s, c) = api
            .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
            .await;
        assert_eq!((s, &c["data"]["status"]), (200, &json!("canceled")));
        ids.push(id);
    }
    ids.reverse();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let q = match &cursor {
            Some(c) => format!("?limit=2&cursor={c}"),
            None => "?limit=2".into(),
        };
        let (s, b) = api
            .get(&format!("/api/v1/sites/{site}/scans{q}"), &key)
            .await;
        assert_eq!(s, 200, "{b}");
        pages += 1;
        seen.extend(
            b["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["id"].as_str().unwrap().to_string()),
        );
        match b["meta"]["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ids);
    let (_, b) = api.get(&format!("/api/v1/scans/{}", ids[0]), &key).await;
    assert_eq!(b["data"]["status"], "canceled");
    let (s, b) = api
        .get(&format!("/api/v1/scans/{}/report", ids[0]), &key)
        .await;
    assert_error(s, &b, 409, "report_not_ready");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_current_key_shows_its_usage_and_plan() {
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    for _ in 0..3 {
        api.get("/api/v1/sites", &key).await;
    }
    let (s, b) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(s, 200, "{b}");
    let k = &b["data"];
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(k["usage"][&today], 4);
    assert!(k["last_used_at"].is_string());
    assert!(k["prefix"].as_str().unwrap().starts_with("key_"));
    assert!(
        !b.to_string().contains(&key),
        "the secret is never shown again"
    );
    assert_eq!(k["account"]["id"], acc.as_str());
    assert_eq!(k["account"]["plan"], "professional");
    assert_eq!(k["account"]["scans_per_day"], 2);
    assert_eq!(k["account"]["max_pages_per_scan"], 100);
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_the_openapi_document() {
    let api = TestApi::start().await;
    for path in ["/healthz", "/readyz"] {
        let (s, b) = call(api.req(Method::GET, path, None)).await;
        assert_eq!(s, 200);
        assert_eq!(b["data"]["status"], "ok");
        assert!(b["meta"]["request_id"].is_string());
    }
    let (s, doc) = call(api.req(Method::GET, "/api/v1/openapi.json", None)).await;
    assert_eq!(s, 200);
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.0"),
        "{}",
        doc["openapi"]
    );
    let ops: BTreeSet<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(p, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |m| format!("{} {p}", m.to_uppercase()))
        })
        .collect();
    let mut want: BTreeSet<String> = [
        "GET /api/v1/sites",
        "POST /api/v1/sites",
        "GET /api/v1/sites/{siteId}",
        "DELETE /api/v1/sites/{siteId}",
        "POST /api/v1/sites/{siteId}/scans",
        "GET /api/v1/sites/{siteId}/scans",
        "GET /api/v1/scans/{scanId}",
        "POST /api/v1/scans/{scanId}/cancel",
        "GET /api/v1/scans/{scanId}/report",
        "GET /api/v1/scans/{scanId}/compare",
        "GET /api/v1/keys/current",
        "GET /api/v1/webhooks",
        "POST /api/v1/webhooks",
        "GET /api/v1/webhooks/{webhookId}",
        "PATCH /api/v1/webhooks/{webhookId}",
        "DELETE /api/v1/webhooks/{webhookId}",
        "POST /api/v1/webhooks/{webhookId}/rotate-secret",
        "GET /api/v1/webhooks/{webhookId}/deliveries",
        "POST /api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
        "POST /api/v1/sites/{siteId}/schedules",
        "GET /api/v1/sites/{siteId}/schedules",
        "GET /api/v1/schedules/{scheduleId}",
        "PATCH /api/v1/schedules/{scheduleId}",
        "PATCH /api/v1/sites/{siteId}",
        "DELETE /api/v1/schedules/{scheduleId}",
        "PUT /api/v1/sites/{siteId}/credentials",
        "GET /api/v1/sites/{siteId}/credentials",
        "DELETE /api/v1/sites/{siteId}/credentials",
        "PUT /api/v1/sites/{siteId}/marks/{fingerprint}",
        "GET /api/v1/sites/{siteId}/marks",
        "GET /api/v1/sites/{siteId}/marks/{fingerprint}",
        "DELETE /api/v1/sites/{siteId}/marks/{fingerprint}",
        "GET /api/v1/scans/{scanId}/screenshots/{screenshotId}",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    for cat in CATEGORIES {
        want.insert(format!("POST /api/v1/sites/{{siteId}}/{cat}/scans"));
    }
    assert_eq!(ops, want);
    assert!(doc["components"]["securitySchemes"]["api_key"].is_object());
    let codes = doc["components"]["schemas"]["ErrorObject"]["properties"]["code"]["enum"]
        .as_array()
        .unwrap()
        .clone();
    let want: Vec<Value> = sitescan_daemon::api::error::ErrorCode::ALL
        .iter()
        .map(|c| Value::from(c.as_str()))
        .collect();
    assert_eq!(codes, want);
    api.stop().await;
}

/// Real responses validated against the served OpenAPI document: for each, the
/// operation documents the status, and the body matches the schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_responses_match_the_openapi_document() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let (_, doc) = call(api.req(Method::GET, "/api/v1/openapi.json", None)).await;
    let site = api.site(&acc, &fixture.url()).await;

    let mut checked = Vec::new();
    let mut check = |method: &str, template: &str, status: u16, body: &Value| {
        let op = &doc["paths"][template][method];
        assert!(op.is_object(), "{method} {template} not documented");
        let resp = &op["responses"][status.to_string()];
        assert!(
            resp.is_object(),
            "{method} {template} {status} not documented"
        );
        let schema = &resp["content"]["application/json"]["schema"];
        if let Err(e) = crate::api_support::schema::validate(&doc, schema, body, "$") {
            panic!("{method} {template} {status}: {e}\n{body}");
        }
        checked.push(format!("{method} {template} {status}"));
    };

    let (s, b) = api
        .post("/api/v1/sites", &key, json!({"url": "http://127.0.0.1:9/"}))
        .await;
    check("post", "/api/v1/sites", s, &b);
    let other = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api.get("/api/v1/sites", &key).await;
    check("get", "/api/v1/sites", s, &b);
    let (s, b) = api.get(&format!("/api/v1/sites/{site}"), &key).await;
    check("get", "/api/v1/sites/{siteId}", s, &b);
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa", "seo"]}}),
        )
        .await;
    check("post", "/api/v1/sites/{siteId}/scans", s, &b);
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
    check("get", "/api/v1/scans/{scanId}", s, &b);
    let (s, b) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    if s == 409 {
        check("get", "/api/v1/scans/{scanId}/report", s, &b);
    }
    api.wait_terminal(&id, &key, 60).await;
    let (s, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
    check("get", "/api/v1/scans/{scanId}", s, &b);
    let (s, b) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    check("get", "/api/v1/scans/{scanId}/report", s, &b);
    let (s, b) = api
        .post(&format!("/api/v1/scans/{id}/cancel"), &key, json!({}))
        .await;
    check("post", "/api/v1/scans/{scanId}/cancel", s, &b);
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{other}/accessibility/scans"),
            &key,
            json!({}),
        )
        .await;
    check("post", "/api/v1/sites/{siteId}/accessibility/scans", s, &b);
    let queued = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api
        .post(&format!("/api/v1/scans/{queued}/cancel"), &key, json!({}))
        .await;
    check("post", "/api/v1/scans/{scanId}/cancel", s, &b);
    let (s, b) = api
        .post(&format!("/api/v1/sites/{other}/seo/scans"), &key, json!({}))
        .await;
    check("post", "/api/v1/sites/{siteId}/seo/scans", s, &b);
    let (s, b) = api
        .get(&format!("/api/v1/sites/{site}/scans?limit=1"), &key)
        .await;
    check("get", "/api/v1/sites/{siteId}/scans", s, &b);
    let (s, b) = api.get("/api/v1/keys/current", &key).await;
    check("get", "/api/v1/keys/current", s, &b);
    let (s, b) = call(api.req(
        Method::DELETE,
        &format!("/api/v1/sites/{other}"),
        Some(&key),
    ))
    .await;
    check("delete", "/api/v1/sites/{siteId}", s, &b);
    let (s, b) = api.get("/api/v1/scans/scan_nope", &key).await;
    check("get", "/api/v1/scans/{scanId}", s, &b);
    let (s, b) = call(api.req(Method::GET, "/api/v1/sites", None)).await;
    check("get", "/api/v1/sites", s, &b);
    let (s, b) = api.post("/api/v1/sites", &key, json!({"nope": 1})).await;
    check("post", "/api/v1/sites", s, &b);

    let (s, b) = api
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": "http://127.0.0.1:9/hook", "events": ["scan.completed"], "description": "ci"}),
        )
        .await;
    check("post", "/api/v1/webhooks", s, &b);
    let hook = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": "ftp://x/", "events": ["scan.completed"]}),
        )
        .await;
    check("post", "/api/v1/webhooks", s, &b);
    let (s, b) = api.get("/api/v1/webhooks", &key).await;
    check("get", "/api/v1/webhooks", s, &b);
    let (s, b) = api.get(&format!("/api/v1/webhooks/{hook}"), &key).await;
    check("get", "/api/v1/webhooks/{webhookId}", s, &b);
    let (s, b) = call(
        api.req(
            Method::PATCH,
            &format!("/api/v1/webhooks/{hook}"),
            Some(&key),
        )
        .json(&json!({"enabled": false})),
    )
    .await;
    check("patch", "/api/v1/webhooks/{webhookId}", s, &b);
    let (s, b) = api
        .post(
            &format!("/api/v1/webhooks/{hook}/rotate-secret"),
            &key,
            json!({}),
        )
        .await;
    check("post", "/api/v1/webhooks/{webhookId}/rotate-secret", s, &b);
    let (s, b) = api
        .get(&format!("/api/v1/webhooks/{hook}/deliveries"), &key)
        .await;
    check("get", "/api/v1/webhooks/{webhookId}/deliveries", s, &b);
    let (s, b) = api
        .post(
            &format!("/api/v1/webhooks/{hook}/deliveries/dlv_nope/redeliver"),
            &key,
            json!({}),
        )
        .await;
    check(
        "post",
        "/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
        s,
        &b,
    );
    let (s, b) = call(api.req(
        Method::DELETE,
        &format!("/api/v1/webhooks/{hook}"),
        Some(&key),
    ))
    .await;
    check("delete", "/api/v1/webhooks/{webhookId}", s, &b);
    let (s, b) = api.get(&format!("/api/v1/webhooks/{hook}"), &key).await;
    check("get", "/api/v1/webhooks/{webhookId}", s, &b);
    assert!(checked.len() >= 28, "{checked:?}");
    api.stop().await;
}

/// A store whose disk is gone: every call fails with a storage error whose
/// text must never reach a client; with `panics`, `ping` panics instead.
struct BrokenStore {
    panics: bool,
}

fn broken<T>() -> sitescan_daemon::Result<T> {
    Err(sitescan_daemon::Error::Storage(
        "disk /var/secret/sitescan.redb is on fire".into(),
    ))
}

#[async_trait::async_trait]
impl sitescan_daemon::store::Store for BrokenStore {
    async fn create_account(
        &self,
        _: sitescan_daemon::store::Account,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Account> {
        broken()
    }
    async fn account(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Account>> {
        broken()
    }
    async fn create_key(
        &self,
        _: sitescan_daemon::store::ApiKey,
        _: &str,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::ApiKey> {
        broken()
    }
    async fn key_by_hash(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::ApiKey>> {
        broken()
    }
    async fn key(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::ApiKey>> {
        broken()
    }
    async fn list_keys(
        &self,
        _: Option<&str>,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::ApiKey>> {
        broken()
    }
    async fn revoke_key(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::ApiKey> {
        broken()
    }
    async fn record_key_use(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn create_site(
        &self,
        _: sitescan_daemon::store::Site,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Site> {
        broken()
    }
    async fn site(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Site>> {
        broken()
    }
    async fn list_sites(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Site>> {
        broken()
    }
    async fn delete_site(&self, _: &str, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn update_site(
        &self,
        _: sitescan_daemon::store::Site,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Site>> {
        broken()
    }
    async fn create_scan_if_quota(
        &self,
        _: sitescan_daemon::store::Scan,
        _: chrono::NaiveDate,
        _: Option<u32>,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Scan> {
        broken()
    }
    async fn scans_created_on(
        &self,
        _: &str,
        _: chrono::NaiveDate,
    ) -> sitescan_daemon::Result<u32> {
        broken()
    }
    async fn scan(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn scan_by_id(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn list_scans(
        &self,
        _: &str,
        _: &str,
        _: Option<&str>,
        _: usize,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Page<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn start_scan(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn resume_scan(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn requeue_scan(&self, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn hand_back_scan(&self, _: &str, _: bool) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn set_pages_in_analysis(&self, _: &str, _: &[String]) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn charge_interruption(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Interruption> {
        broken()
    }
    async fn update_progress(
        &self,
        _: &str,
        _: sitescan_daemon::store::Progress,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::ScanStatus> {
        broken()
    }
    async fn finish_scan(
        &self,
        _: &str,
        _: sitescan_daemon::store::ScanOutcome,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Scan> {
        broken()
    }
    async fn cancel_scan(
        &self,
        _: &str,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Scan> {
        broken()
    }
    async fn report_chunk(&self, _: &str, _: u64) -> sitescan_daemon::Result<Option<Vec<u8>>> {
        broken()
    }
    async fn screenshot(&self, _: &str, _: &str) -> sitescan_daemon::Result<Option<Vec<u8>>> {
        broken()
    }
    async fn unfinished_scans(&self) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Scan>> {
        broken()
    }
    async fn ping(&self) -> sitescan_daemon::Result<()> {
        if self.panics {
            panic!("secret invariant broken at /var/secret");
        }
        broken()
    }
    async fn create_webhook(
        &self,
        _: sitescan_daemon::store::Webhook,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Webhook> {
        broken()
    }
    async fn webhook(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Webhook>> {
        broken()
    }
    async fn webhook_by_id(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Webhook>> {
        broken()
    }
    async fn list_webhooks(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Webhook>> {
        broken()
    }
    async fn save_webhook(
        &self,
        _: sitescan_daemon::store::Webhook,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Webhook> {
        broken()
    }
    async fn delete_webhook(&self, _: &str, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn save_deliveries(
        &self,
        _: Vec<sitescan_daemon::store::Delivery>,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn delivery(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Delivery>> {
        broken()
    }
    async fn list_deliveries(
        &self,
        _: &str,
        _: usize,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Delivery>> {
        broken()
    }
    async fn claim_due_deliveries(
        &self,
        _: chrono::DateTime<chrono::Utc>,
        _: chrono::DateTime<chrono::Utc>,
        _: usize,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Delivery>> {
        broken()
    }

    async fn create_user(
        &self,
        _: sitescan_daemon::store::User,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::User> {
        broken()
    }
    async fn user(&self, _: &str) -> sitescan_daemon::Result<Option<sitescan_daemon::store::User>> {
        broken()
    }
    async fn user_by_email(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::User>> {
        broken()
    }
    async fn list_users(
        &self,
        _: Option<&str>,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::User>> {
        broken()
    }
    async fn create_password_token(
        &self,
        _: &str,
        _: sitescan_daemon::store::PasswordToken,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn set_password_with_token(
        &self,
        _: &str,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::User>> {
        broken()
    }
    async fn create_session(
        &self,
        _: &str,
        _: sitescan_daemon::store::Session,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn session(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Session>> {
        broken()
    }
    async fn touch_session(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn delete_session(&self, _: &str) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn put_flash(
        &self,
        _: &str,
        _: &str,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn take_flash(
        &self,
        _: &str,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<String>> {
        broken()
    }
    async fn put_credentials(
        &self,
        _: sitescan_daemon::store::StoredCredentials,
    ) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn credentials(
        &self,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::StoredCredentials>> {
        broken()
    }
    async fn delete_credentials(&self, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn any_credentials(&self) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn create_schedule(
        &self,
        _: sitescan_daemon::store::Schedule,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Schedule> {
        broken()
    }
    async fn schedule(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Schedule>> {
        broken()
    }
    async fn list_schedules(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Schedule>> {
        broken()
    }
    async fn update_schedule(
        &self,
        _: sitescan_daemon::store::Schedule,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::Schedule> {
        broken()
    }
    async fn delete_schedule(&self, _: &str, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn put_mark(
        &self,
        _: sitescan_daemon::store::SiteMark,
        _: usize,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::MarkPut> {
        broken()
    }
    async fn mark(
        &self,
        _: &str,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::SiteMark>> {
        broken()
    }
    async fn list_marks(
        &self,
        _: &str,
        _: &str,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::SiteMark>> {
        broken()
    }
    async fn delete_mark(&self, _: &str, _: &str, _: &str) -> sitescan_daemon::Result<bool> {
        broken()
    }
    async fn delete_site_marks(&self, _: &str) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn due_schedules(
        &self,
        _: chrono::DateTime<chrono::Utc>,
        _: usize,
    ) -> sitescan_daemon::Result<Vec<sitescan_daemon::store::Schedule>> {
        broken()
    }
    async fn claim_schedule_run(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
        _: Option<chrono::DateTime<chrono::Utc>>,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<Option<sitescan_daemon::store::Schedule>> {
        broken()
    }
    async fn record_schedule_outcome(
        &self,
        _: &str,
        _: chrono::DateTime<chrono::Utc>,
        _: sitescan_daemon::store::RunOutcome,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn claim_idempotency_key(
        &self,
        _: &str,
        _: &str,
        _: sitescan_daemon::store::IdempotencyRecord,
        _: chrono::DateTime<chrono::Utc>,
    ) -> sitescan_daemon::Result<sitescan_daemon::store::IdempotencyClaim> {
        broken()
    }
    async fn complete_idempotency_key(
        &self,
        _: &str,
        _: &str,
        _: sitescan_daemon::store::IdempotencyRecord,
    ) -> sitescan_daemon::Result<()> {
        broken()
    }
    async fn release_idempotency_key(&self, _: &str, _: &str) -> sitescan_daemon::Result<()> {
        broken()
    }
}

async fn serve_broken(panics: bool) -> String {
    use sitescan_daemon::api::{auth, router, ApiSettings, AppState};
    let dir = tempfile::tempdir().unwrap();
    let queue = Arc::new(sitescan_daemon::store::embedded::Embedded::open(dir.path()).unwrap());
    let state = AppState {
        store: Arc::new(BrokenStore { panics }),
        queue,
        rate_limit: auth::RateLimit::per_minute(auth::non_zero(100)),
        settings: ApiSettings {
            allow_private: true,
            page_budget: sitescan::PageBudget::DEFAULT,
            public_url: None,
            schedule_min_interval: std::time::Duration::from_secs(60),
            render_workers: sitescan_daemon::state::RenderWorkers::InProcess { render: false },
            secret_key: None,
        },
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _dir = dir;
        axum::serve(listener, router(state)).await.unwrap()
    });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storage_failure_is_a_500_internal_error_without_internals() {
    let base = serve_broken(false).await;
    let client = reqwest::Client::new();
    let resp = client
        .get(format!("{base}/api/v1/sites"))
        .header(
            "X-API-Key",
            "key_0123456789abcdef0123456789abcdef0123456789abcdef",
        )
        .send()
        .await
        .unwrap();
    assert!(resp.headers().contains_key("x-request-id"));
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 500, "internal_error");
    let text = b.to_string();
    assert!(
        !text.contains("secret") && !text.contains("fire") && !text.contains("redb"),
        "{text}"
    );
    let (s, b) = call(client.get(format!("{base}/readyz"))).await;
    assert_error(s, &b, 503, "service_unavailable");
    assert!(!b.to_string().contains("fire"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_a_500_internal_error_and_the_server_lives_on() {
    let base = serve_broken(true).await;
    let client = reqwest::Client::new();
    let (s, b) = call(client.get(format!("{base}/readyz"))).await;
    assert_error(s, &b, 500, "internal_error");
    assert!(!b.to_string().contains("secret"), "{b}");
    let (s, _) = call(client.get(format!("{base}/healthz"))).await;
    assert_eq!(s, 200);
}

#[test]
fn the_api_reference_documents_every_error_code_with_its_status() {
    let page = include_str!("../../docs/src/service/api.md");
    for code in sitescan_daemon::api::error::ErrorCode::ALL {
        let row = format!("| `{}` | {} |", code.as_str(), code.status().as_u16());
        assert!(
            page.contains(&row),
            "docs/src/service/api.md lacks the row {row}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_works_until_it_expires_or_is_revoked() {
    use sitescan_daemon::store::Store;
    let api = TestApi::start().await;
    let acc = api.account(Plan::Professional).await;
    let short = api
        .key_with(&acc, chrono::Duration::milliseconds(800))
        .await;
    let (s, _) = api.get("/api/v1/sites", &short).await;
    assert_eq!(s, 200);
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let (s, b) = api.get("/api/v1/sites", &short).await;
    assert_error(s, &b, 401, "api_key_expired");

    let key = api.key(&acc).await;
    let (s, b) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(s, 200);
    let id = b["data"]["id"].as_str().unwrap().to_string();
    api.store.revoke_key(&id, chrono::Utc::now()).await.unwrap();
    let (s, b) = api.get("/api/v1/sites", &key).await;
    assert_error(s, &b, 401, "invalid_api_key");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_per_scan_are_capped_by_the_plan() {
    let api = TestApi::start().await;
    let body = json!({"config": {"rules": ["wcag-aa"], "max_pages": 500, "max_depth": 3}});
    for (plan, want, cap) in [
        (Plan::Professional, 100, json!(100)),
        (Plan::Enterprise, 500, Value::Null),
    ] {
        let (acc, key) = api.tenant(plan).await;
        let site = api.site(&acc, "http://127.0.0.1:9/").await;
        let (s, b) = api
            .post(&format!("/api/v1/sites/{site}/scans"), &key, body.clone())
            .await;
        assert_eq!(s, 202, "{b}");
        let config = &b["data"]["config"];
        assert_eq!(config["max_pages"], want, "{config}");
        assert_eq!(config["plan_max_pages"], cap);
        assert_eq!(config["max_depth"], 3);
    }
    api.stop().await;
}
