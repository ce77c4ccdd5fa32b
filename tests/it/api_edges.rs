//! What a user of Stripe's or GitHub's API expects of ours: every validation
//! problem at once and in JSON terms, a refused unknown cursor, truthful
//! `RateLimit-*` headers, `Authorization: Bearer`, `Idempotency-Key`, quota
//! refunds, absolute `Location`, `request_id` and `doc_url` on errors; and the
//! scan options `config.links`/`include`/`exclude` with link-phase progress.

use std::sync::Arc;

use chrono::Utc;
use reqwest::Method;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sitescan_daemon::store::{IdempotencyRecord, Plan, Progress, Store, IDEMPOTENCY_LEASE};
use sitescan_fixtures::{site_dir, FixtureServer};

use crate::api_support::{assert_error, call, json_of, slow_site, TestApi};

/// The details of a 422, sorted by field.
fn details(body: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = body["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {body}"))
        .iter()
        .map(|d| {
            (
                d["field"].as_str().unwrap().to_string(),
                d["problem"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = list
        .iter()
        .map(|(f, p)| (f.to_string(), p.to_string()))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_validation_problem_is_reported_at_once() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let scans = format!("/api/v1/sites/{site}/scans");

    // Wrong types and unknown members: each named, in JSON terms.
    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {
                "rules": "wcag-aa",
                "priority": "urgent",
                "links": "external",
                "colour": "red",
                "max_pages": -1,
            }, "dry_run": true}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(
        details(&b),
        pairs(&[
            ("config.rules", "invalid type: string \"wcag-aa\", expected an array"),
            ("config.priority", "unknown variant `urgent`, expected one of `low`, `normal`, `high`"),
            ("config.links", "unknown variant `external`, expected one of `all`, `internal`, `none`"),
            ("config.colour", "unknown field `colour`, expected one of `rules`, `priority`, `max_pages`, `max_depth`, `accept`, `budget`, `links`, `include`, `exclude`, `render`, `render_options`"),
            ("config.max_pages", "invalid value: integer `-1`, expected a whole number (0 or more)"),
            ("dry_run", "unknown field `dry_run`, expected `config`"),
        ])
    );
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid request: 6 problems ("),
        "{b}"
    );

    // Well-typed values out of range: each named too.
    let (s, b) = api
        .post(
            &scans,
            &key,
            json!({"config": {
                "rules": ["wcag-aaa", "seo"],
                "max_pages": 0,
                "max_depth": 99,
                "accept": ["2xx"],
                "budget": {"max_nodes": 0, "max_selectors": 1_000_000_000u64},
                "include": ["(", "^https://"],
                "exclude": [""],
            }}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let got = details(&b);
    let fields: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        [
            "config.accept[0]",
            "config.budget.max_nodes",
            "config.budget.max_selectors",
            "config.exclude[0]",
            "config.include[0]",
            "config.max_depth",
            "config.max_pages",
            "config.rules[0]",
        ]
    );
    let problem = |field: &str| got.iter().find(|(f, _)| f == field).unwrap().1.clone();
    assert_eq!(problem("config.max_pages"), "give 1 to 100000");
    assert_eq!(problem("config.max_depth"), "give 0 to 50");
    assert_eq!(
        problem("config.budget.max_nodes"),
        "give 1 to 200000 (this service's ceiling)"
    );
    assert_eq!(
        problem("config.exclude[0]"),
        "give a regular expression of 1 to 500 characters"
    );
    assert!(problem("config.include[0]").contains("is not a valid regular expression"));
    assert!(problem("config.rules[0]").contains("wcag-aaa"));
    assert!(problem("config.accept[0]").contains("`2xx` is not a number"));

    // Missing rules on the generic endpoint are one problem among others.
    let (s, b) = api
        .post(&scans, &key, json!({"config": {"max_depth": 99}}))
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let fields: Vec<String> = details(&b).into_iter().map(|(f, _)| f).collect();
    assert_eq!(fields, ["config.max_depth", "config.rules"]);

    // Nothing was created by any of them.
    let (_, list) = api.get(&scans, &key).await;
    assert_eq!(list["data"], json!([]));

    // A webhook with three bad fields: all three named.
    let (s, b) = api
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": "ftp://example.com/hook", "events": ["scan.completed", "scan.exploded", "nope"], "description": "d".repeat(501)}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let fields: Vec<String> = details(&b).into_iter().map(|(f, _)| f).collect();
    assert_eq!(fields, ["description", "events[1]", "events[2]", "url"]);
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_of_the_wrong_shape_is_named_in_json_terms() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let scans = format!("/api/v1/sites/{site}/scans");
    for (body, field, problem) in [
        (
            json!([]),
            "body",
            "must be a JSON object (`{...}`), not an array",
        ),
        (
            json!("wcag-aa"),
            "body",
            "must be a JSON object (`{...}`), not a string",
        ),
        (
            json!(42),
            "body",
            "must be a JSON object (`{...}`), not a number",
        ),
        (
            json!({"config": []}),
            "config",
            "invalid type: array, expected an object",
        ),
        (
            json!({"config": {"budget": 5}}),
            "config.budget",
            "invalid type: integer `5`, expected an object",
        ),
        (
            json!({"config": {"rules": [1]}}),
            "config.rules[0]",
            "invalid type: integer `1`, expected a string",
        ),
        (
            json!({"config": {"max_depth": "ten"}}),
            "config.max_depth",
            "invalid type: string \"ten\", expected a whole number (0 or more)",
        ),
    ] {
        let (s, b) = api.post(&scans, &key, body.clone()).await;
        assert_error(s, &b, 422, "validation_failed");
        assert_eq!(details(&b), pairs(&[(field, problem)]), "{body}");
        let text = b.to_string();
        for rust in ["struct", "Scan", "u64", "sequence", "Option"] {
            assert!(!text.contains(rust), "{rust} in {text}");
        }
    }
    let (s, b) = api
        .post(
            "/api/v1/sites",
            &key,
            json!([{"url": "https://example.com/"}]),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(
        details(&b),
        pairs(&[("body", "must be a JSON object (`{...}`), not an array")])
    );
    // Two problems with a site: both named.
    let (s, b) = api
        .post(
            "/api/v1/sites",
            &key,
            json!({"url": "ftp://example.com/", "name": ""}),
        )
        .await;
    assert_error(s, &b, 422, "validation_failed");
    let fields: Vec<String> = details(&b).into_iter().map(|(f, _)| f).collect();
    assert_eq!(fields, ["name", "url"]);
    // A missing required member is named by its path.
    let (s, b) = api.post("/api/v1/sites", &key, json!({"name": "x"})).await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(details(&b), pairs(&[("url", "missing field `url`")]));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_this_endpoint_did_not_return_is_422() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let other_site = api.site(&acc, "http://127.0.0.1:9/other").await;
    let (other_acc, other_key) = api.tenant(Plan::Enterprise).await;
    let foreign_site = api.site(&other_acc, "http://127.0.0.1:9/").await;
    let mut ids = Vec::new();
    for s in [&site, &site, &site, &other_site] {
        let (st, b) = api
            .post(&format!("/api/v1/sites/{s}/seo/scans"), &key, json!({}))
            .await;
        assert_eq!(st, 202, "{b}");
        ids.push(b["data"]["id"].as_str().unwrap().to_string());
    }
    let (st, b) = api
        .post(
            &format!("/api/v1/sites/{foreign_site}/seo/scans"),
            &other_key,
            json!({}),
        )
        .await;
    assert_eq!(st, 202, "{b}");
    let foreign_scan = b["data"]["id"].as_str().unwrap().to_string();

    let list = format!("/api/v1/sites/{site}/scans");
    let (s, b) = api.get(&format!("{list}?limit=2"), &key).await;
    assert_eq!(s, 200, "{b}");
    let next = b["meta"]["next_cursor"].as_str().unwrap().to_string();
    assert_eq!(next, ids[1]);
    let (s, b) = api
        .get(&format!("{list}?limit=2&cursor={next}"), &key)
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"][0]["id"], ids[0].as_str());
    assert!(b["meta"]["next_cursor"].is_null());

    let problem = "not a cursor this endpoint returned for this site; pass meta.next_cursor of the previous page, or leave cursor out for the first page";
    for bad in [
        "scan_zzzz".to_string(), // no such scan (once read as "from the start")
        "garbage".to_string(),
        ids[3].clone(),       // a scan of another site
        foreign_scan.clone(), // a scan of another account
        "a/b".to_string(),
    ] {
        let (s, b) = api.get(&format!("{list}?cursor={bad}"), &key).await;
        assert_error(s, &b, 422, "validation_failed");
        assert_eq!(details(&b), pairs(&[("cursor", problem)]), "{bad}");
    }
    // A bad limit and a bad cursor: both named.
    let (s, b) = api.get(&format!("{list}?limit=0&cursor="), &key).await;
    assert_error(s, &b, 422, "validation_failed");
    assert_eq!(
        details(&b),
        pairs(&[
            ("cursor", problem),
            ("limit", "give a number from 1 to 100")
        ])
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_headers_say_what_the_bucket_does() {
    // 3 a minute: the bucket holds 3 and gains one back every 20 s.
    let api = TestApi::start_with(3, 1).await;
    let (_, key) = api.tenant(Plan::Enterprise).await;
    for (remaining, reset) in [(2, 20), (1, 40), (0, 60)] {
        let resp = api
            .req(Method::GET, "/api/v1/sites", Some(&key))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let h = resp.headers();
        assert_eq!(h["ratelimit-limit"], "3");
        assert_eq!(h["ratelimit-remaining"], remaining.to_string().as_str());
        // Seconds until the bucket is full again (not until the next request).
        assert_eq!(h["ratelimit-reset"], reset.to_string().as_str());
        assert_eq!(h["ratelimit-policy"], "3;w=60");
    }
    let resp = api
        .req(Method::GET, "/api/v1/sites", Some(&key))
        .send()
        .await
        .unwrap();
    let num = |name: &str| -> u64 { resp.headers()[name].to_str().unwrap().parse().unwrap() };
    let (retry, reset) = (num("retry-after"), num("ratelimit-reset"));
    assert!((1..=20).contains(&retry), "{retry}");
    // Empty now: one request back after Retry-After, all three 40 s later.
    assert_eq!(reset, retry + 40);
    assert_eq!(resp.headers()["ratelimit-remaining"], "0");
    assert_eq!(resp.headers()["ratelimit-policy"], "3;w=60");
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 429, "rate_limited");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_key_is_checked_like_x_api_key() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let (_, other) = api.tenant(Plan::Professional).await;
    let bearer = |value: &str| {
        api.client
            .get(format!("{}/api/v1/keys/current", api.base))
            .header("authorization", value)
    };
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let (s, b) = call(bearer(&format!("{scheme} {key}"))).await;
        assert_eq!(s, 200, "{scheme}: {b}");
        assert_eq!(b["data"]["account"]["id"], acc.as_str());
    }
    let (s, b) = call(bearer("Bearer key_0123456789abcdef0123456789abcdef")).await;
    assert_error(s, &b, 401, "invalid_api_key");
    let expired = api.key_with(&acc, chrono::Duration::seconds(-1)).await;
    let (s, b) = call(bearer(&format!("Bearer {expired}"))).await;
    assert_error(s, &b, 401, "api_key_expired");
    let resp = bearer(&format!("Basic {key}")).send().await.unwrap();
    assert_eq!(
        resp.headers()["www-authenticate"],
        "Bearer realm=\"sitescan\""
    );
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 401, "invalid_api_key");
    assert_eq!(
        b["error"]["message"],
        "the Authorization header must be `Bearer key_...` (or send the key in X-API-Key)"
    );
    // Both headers: fine when they agree, 400 when they do not.
    let (s, _) = call(bearer(&format!("Bearer {key}")).header("x-api-key", &key)).await;
    assert_eq!(s, 200);
    let (s, b) = call(bearer(&format!("Bearer {key}")).header("x-api-key", &other)).await;
    assert_error(s, &b, 400, "conflicting_api_keys");
    let resp = api
        .client
        .get(format!("{}/api/v1/sites", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        resp.headers()["www-authenticate"],
        "Bearer realm=\"sitescan\""
    );
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 401, "missing_api_key");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_replays_the_first_answer_without_a_second_scan() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    // Its scans neither finish nor fail during the test: quota counts are exact.
    let (_dir, stalled) = slow_site(1, 30_000).await;
    let site = api.site(&acc, &stalled.url()).await;
    let scans = format!("/api/v1/sites/{site}/scans");
    let body = r#"{"config": {"rules": ["wcag-aa"]}}"#;
    let post = |path: &str, idem: &str, body: &str| {
        api.req(Method::POST, path, Some(&key))
            .header("content-type", "application/json")
            .header("idempotency-key", idem)
            .body(body.to_string())
    };

    let first = post(&scans, "retry-1", body).send().await.unwrap();
    assert_eq!(first.status(), 202);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let location = first.headers()["location"].to_str().unwrap().to_string();
    let first_body = first.text().await.unwrap();
    for _ in 0..2 {
        let again = post(&scans, "retry-1", body).send().await.unwrap();
        assert_eq!(again.status(), 202);
        assert_eq!(again.headers()["idempotent-replayed"], "true");
        assert_eq!(again.headers()["location"], location.as_str());
        assert!(again.headers().contains_key("ratelimit-remaining"));
        assert_eq!(
            again.text().await.unwrap(),
            first_body,
            "replayed byte for byte"
        );
    }
    let (_, list) = api.get(&scans, &key).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "one scan");
    let (_, me) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(me["data"]["account"]["scans_today"], 1, "charged once");

    // The same key with another body or path: refused, nothing created.
    let (s, b) = call(post(&scans, "retry-1", r#"{"config": {"rules": ["seo"]}}"#)).await;
    assert_error(s, &b, 422, "idempotency_key_reused");
    let (s, b) = call(post(
        &format!("/api/v1/sites/{site}/seo/scans"),
        "retry-1",
        body,
    ))
    .await;
    assert_error(s, &b, 422, "idempotency_key_reused");
    // Another key is another request: the day's second scan, then the quota.
    let (s, _) = call(post(&scans, "retry-2", body)).await;
    assert_eq!(s, 202);
    for _ in 0..2 {
        // An error answer is not kept: the same key runs again (and is refused again).
        let (s, b) = call(post(&scans, "retry-3", body)).await;
        assert_error(s, &b, 429, "scan_limit_exceeded");
    }
    let (_, me) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(me["data"]["account"]["scans_today"], 2);
    // Keys belong to an account: another account's `retry-1` is its own.
    let (acc2, key2) = api.tenant(Plan::Professional).await;
    let site2 = api.site(&acc2, &stalled.url()).await;
    let resp = api
        .req(
            Method::POST,
            &format!("/api/v1/sites/{site2}/scans"),
            Some(&key2),
        )
        .header("content-type", "application/json")
        .header("idempotency-key", "retry-1")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
    assert!(resp.headers().get("idempotent-replayed").is_none());

    // A key still held by a request in flight: 409, retry in a second.
    let path = format!("/api/v1/sites/{site}/seo/scans");
    let mut hasher = Sha256::new();
    hasher.update(format!("POST {path}\n{{}}").as_bytes());
    let now = Utc::now();
    api.store
        .claim_idempotency_key(
            &acc,
            &hex::encode(Sha256::digest(b"in-flight")),
            IdempotencyRecord {
                fingerprint: hex::encode(hasher.finalize()),
                created_at: now,
                lease_until: now + IDEMPOTENCY_LEASE,
                response: None,
            },
            now,
        )
        .await
        .unwrap();
    let resp = post(&path, "in-flight", "{}").send().await.unwrap();
    assert_eq!(resp.headers()["retry-after"], "1");
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 409, "idempotency_key_in_use");

    // Keys are 1 to 255 visible ASCII characters.
    for bad in ["has space", &"k".repeat(256)] {
        let (s, b) = call(post(&scans, bad, body)).await;
        assert_error(s, &b, 422, "validation_failed");
        assert_eq!(b["error"]["details"][0]["field"], "Idempotency-Key");
    }
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scans_that_did_no_work_are_given_back_to_the_quota() {
    // A scan of a closed port fails before its first page: given back.
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let closed = api.site(&acc, "http://127.0.0.1:9/").await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{closed}/seo/scans"),
            &key,
            json!({}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    assert_eq!(b["data"]["quota_refunded"], false);
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["quota_refunded"], true, "{done}");
    let (_, me) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(me["data"]["account"]["scans_today"], 0);

    // A scan that checked pages counts, even canceled while running.
    let (_dir, slow) = slow_site(5, 400).await;
    let slow_site_id = api.site(&acc, &slow.url()).await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{slow_site_id}/seo/scans"),
            &key,
            json!({}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let running = b["data"]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, b) = api.get(&format!("/api/v1/scans/{running}"), &key).await;
        if b["data"]["progress"]["pages_done"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{b}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (s, b) = api
        .post(&format!("/api/v1/scans/{running}/cancel"), &key, json!({}))
        .await;
    assert_eq!((s, &b["data"]["status"]), (200, &json!("canceled")), "{b}");
    assert_eq!(b["data"]["quota_refunded"], false);
    let (_, me) = api.get("/api/v1/keys/current", &key).await;
    assert_eq!(me["data"]["account"]["scans_today"], 1);
    api.stop().await;

    // Canceled while still queued: given back. The one worker is busy with
    // a scan of a site that answers after 30 s, so the second stays queued.
    let idle = TestApi::start_with(10_000, 1).await;
    let (acc, key) = idle.tenant(Plan::Professional).await;
    let (_dir2, stalled) = slow_site(1, 30_000).await;
    let site = idle.site(&acc, &stalled.url()).await;
    let mut ids = Vec::new();
    for wait_until_running in [true, false] {
        let (s, b) = idle
            .post(&format!("/api/v1/sites/{site}/seo/scans"), &key, json!({}))
            .await;
        assert_eq!(s, 202, "{b}");
        let id = b["data"]["id"].as_str().unwrap().to_string();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        if wait_until_running {
            loop {
                let (_, b) = idle.get(&format!("/api/v1/scans/{id}"), &key).await;
                if b["data"]["status"] == "running" {
                    break;
                }
                assert!(std::time::Instant::now() < deadline, "{b}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
        ids.push(id);
    }
    let (_, b) = idle.get(&format!("/api/v1/scans/{}", ids[1]), &key).await;
    assert_eq!(b["data"]["status"], "queued");
    let (s, b) = idle
        .post(&format!("/api/v1/sites/{site}/seo/scans"), &key, json!({}))
        .await;
    assert_error(s, &b, 429, "scan_limit_exceeded");
    let (s, b) = idle
        .post(&format!("/api/v1/scans/{}/cancel", ids[1]), &key, json!({}))
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["quota_refunded"], true, "{b}");
    let (s, b) = idle
        .post(&format!("/api/v1/sites/{site}/seo/scans"), &key, json!({}))
        .await;
    assert_eq!(s, 202, "the refunded slot is usable: {b}");
    idle.stop().await;
}

/// A server on `router` with a public URL configured (as `serve --public-url`).
async fn serve_with_public_url(
    public_url: &str,
) -> (
    String,
    Arc<sitescan_daemon::store::embedded::Embedded>,
    tempfile::TempDir,
) {
    use sitescan_daemon::api::{auth, router, ApiSettings, AppState};
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(sitescan_daemon::store::embedded::Embedded::open(dir.path()).unwrap());
    let state = AppState {
        store: store.clone(),
        queue: store.clone(),
        rate_limit: auth::RateLimit::per_minute(auth::non_zero(1000)),
        settings: ApiSettings {
            allow_private: true,
            page_budget: sitescan::PageBudget::DEFAULT,
            public_url: Some(public_url.parse().unwrap()),
            schedule_min_interval: std::time::Duration::from_secs(60),
            render_workers: sitescan_daemon::state::RenderWorkers::InProcess { render: false },
            secret_key: None,
        },
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router(state)).await.unwrap() });
    (base, store, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn location_and_doc_url_are_absolute_on_the_public_url_or_the_host() {
    // Without a public URL: the request's Host.
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let resp = api
        .req(
            Method::POST,
            &format!("/api/v1/sites/{site}/seo/scans"),
            Some(&key),
        )
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    let (s, b) = json_of(resp).await;
    assert_eq!(s, 202);
    assert_eq!(
        location,
        format!(
            "{}/api/v1/scans/{}",
            api.base,
            b["data"]["id"].as_str().unwrap()
        )
    );
    let resp = api
        .req(
            Method::POST,
            &format!("/api/v1/sites/{site}/seo/scans"),
            Some(&key),
        )
        .header("host", "scanner.internal:8080")
        .send()
        .await
        .unwrap();
    assert!(resp.headers()["location"]
        .to_str()
        .unwrap()
        .starts_with("http://scanner.internal:8080/api/v1/scans/scan_"));

    // Errors carry the request id and their code's documentation.
    let resp = api
        .req(Method::GET, "/api/v1/scans/scan_nope", Some(&key))
        .send()
        .await
        .unwrap();
    let request_id = resp.headers()["x-request-id"].to_str().unwrap().to_string();
    let (s, b) = json_of(resp).await;
    assert_error(s, &b, 404, "scan_not_found");
    assert_eq!(
        b,
        json!({"error": {
            "code": "scan_not_found",
            "message": "no scan `scan_nope` in this account",
            "details": [],
            "request_id": request_id,
            "doc_url": format!("{}/docs/errors#scan_not_found", api.base),
        }})
    );
    // Unauthenticated errors and unknown routes too.
    let (_, b) = call(api.req(Method::GET, "/api/v1/sites", None)).await;
    assert_eq!(
        b["error"]["doc_url"],
        format!("{}/docs/errors#missing_api_key", api.base)
    );
    assert!(b["error"]["request_id"]
        .as_str()
        .unwrap()
        .starts_with("req_"));
    let (_, b) = call(api.req(Method::GET, "/api/v1/nowhere", Some(&key))).await;
    assert_eq!(
        b["error"]["doc_url"],
        format!("{}/docs/errors#not_found", api.base)
    );

    // The page doc_url points at: one anchor per code, open to anyone.
    let resp = api
        .client
        .get(format!("{}/docs/errors", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let page = resp.text().await.unwrap();
    for code in sitescan_daemon::api::error::ErrorCode::ALL {
        let row = format!(
            "<tr id=\"{0}\"><th scope=\"row\"><code>{0}</code></th><td class=\"n\">{1}</td>",
            code.as_str(),
            code.status().as_u16()
        );
        assert!(page.contains(&row), "no row {row}");
    }
    api.stop().await;

    // With a public URL (behind a proxy, with a path prefix): that base, whatever the Host.
    let (base, store, _dir) = serve_with_public_url("https://scan.example.com/sitescan/").await;
    let acc = sitescan_daemon::store::Account {
        id: sitescan_daemon::store::new_id("acc").unwrap(),
        name: None,
        plan: Plan::Enterprise,
        created_at: Utc::now(),
    };
    let acc = store.create_account(acc).await.unwrap().id;
    let (k, secret, hash) =
        sitescan_daemon::api::auth::new_key(&acc, "t", None, chrono::Duration::days(1), Utc::now())
            .unwrap();
    store.create_key(k, &hash).await.unwrap();
    let client = reqwest::Client::new();
    let (s, b) = call(
        client
            .post(format!("{base}/api/v1/sites"))
            .header("x-api-key", &secret)
            .json(&json!({"url": "http://127.0.0.1:9/"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let site = b["data"]["id"].as_str().unwrap().to_string();
    let resp = client
        .post(format!("{base}/api/v1/sites/{site}/seo/scans"))
        .header("x-api-key", &secret)
        .header("host", "attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
    assert!(resp.headers()["location"]
        .to_str()
        .unwrap()
        .starts_with("https://scan.example.com/sitescan/api/v1/scans/scan_"));
    let (_, b) = call(
        client
            .get(format!("{base}/api/v1/scans/nope"))
            .header("x-api-key", &secret),
    )
    .await;
    assert_eq!(
        b["error"]["doc_url"],
        "https://scan.example.com/sitescan/docs/errors#scan_not_found"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_options_are_applied_and_the_link_phase_shows_in_progress() {
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, "http://127.0.0.1:9/").await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {
                "rules": ["seo"],
                "links": "internal",
                "include": ["^http://127\\.0\\.0\\.1:9/docs/"],
                "exclude": ["\\.pdf$", "/archive/"],
            }}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let config = &b["data"]["config"];
    assert_eq!(config["links"], "internal");
    assert_eq!(
        config["include"],
        json!(["^http://127\\.0\\.0\\.1:9/docs/"])
    );
    assert_eq!(config["exclude"], json!(["\\.pdf$", "/archive/"]));
    let id = b["data"]["id"].as_str().unwrap().to_string();
    // The defaults, as applied.
    let (_, d) = api
        .post(&format!("/api/v1/sites/{site}/seo/scans"), &key, json!({}))
        .await;
    assert_eq!(d["data"]["config"]["links"], "all");
    assert_eq!(d["data"]["config"]["include"], json!([]));
    let (_, n) = api
        .post(
            &format!("/api/v1/sites/{site}/seo/scans"),
            &key,
            json!({"config": {"links": "none"}}),
        )
        .await;
    assert_eq!(n["data"]["config"]["links"], "none");

    // A worker's progress in the link phase, as the store keeps it, is what
    // the API shows.
    api.store
        .start_scan(&id, Utc::now())
        .await
        .unwrap()
        .unwrap();
    api.store
        .update_progress(
            &id,
            Progress {
                pages_done: 12,
                pages_queued: 0,
                errors: 1,
                phase: sitescan::Phase::Links,
                links_checked: 17,
                links_total: 40,
            },
        )
        .await
        .unwrap();
    let (s, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
    assert_eq!(s, 200);
    assert_eq!(
        b["data"]["progress"],
        json!({"pages_done": 12, "pages_queued": 0, "errors": 1,
               "phase": "links", "links_checked": 17, "links_total": 40})
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_none_checks_nothing_beyond_the_crawl() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start_with(10_000, 1).await;
    let (acc, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&acc, &fixture.url()).await;
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            &key,
            json!({"config": {"rules": ["all"], "links": "none", "max_pages": 3}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, &key, 120).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["progress"]["links_checked"], 0, "{done}");
    let (s, report) = api.get(&format!("/api/v1/scans/{id}/report"), &key).await;
    assert_eq!(s, 200);
    assert_eq!(
        report["data"]["config"]["links"], "none",
        "{}",
        report["data"]["config"]
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reference_in_the_openapi_document_resolves() {
    let api = TestApi::start().await;
    let (s, doc) = call(api.req(Method::GET, "/api/v1/openapi.json", None)).await;
    assert_eq!(s, 200);
    // Walked with a stack, not recursion.
    let mut stack = vec![&doc];
    let mut refs = 0;
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    let name = r.trim_start_matches("#/components/schemas/");
                    assert!(
                        doc["components"]["schemas"][name].is_object(),
                        "dangling {r}"
                    );
                    refs += 1;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    assert!(refs > 50, "{refs}");
    // What every POST shares: Idempotency-Key, its 409 and 422, and Bearer.
    let post = &doc["paths"]["/api/v1/sites/{siteId}/scans"]["post"];
    let param = post["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Idempotency-Key")
        .unwrap();
    assert_eq!(
        (&param["in"], &param["required"]),
        (&json!("header"), &json!(false))
    );
    assert_eq!(param["schema"]["maxLength"], 255);
    for status in ["400", "409", "422"] {
        assert!(post["responses"][status].is_object(), "{status}");
    }
    assert!(post["responses"]["409"]["description"]
        .as_str()
        .unwrap()
        .contains("idempotency_key_in_use"));
    assert_eq!(post["security"], json!([{"api_key": []}, {"bearer": []}]));
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"],
        json!({"type": "http", "scheme": "bearer", "description": "The same key as `X-API-Key`, as `Authorization: Bearer key_...`."})
    );
    assert!(doc["paths"]["/api/v1/scans/{scanId}"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["name"] != "Idempotency-Key"));
    assert_eq!(
        doc["components"]["schemas"]["LinksParam"]["enum"],
        json!(["all", "internal", "none"])
    );
    let progress = &doc["components"]["schemas"]["Progress"]["properties"];
    for field in ["phase", "links_checked", "links_total"] {
        assert!(progress[field].is_object(), "{field}");
    }
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_url_that_answers_404_fails_the_scan_before_anything_else_is_crawled() {
    let server = FixtureServer::start(site_dir("start-page")).await.unwrap();
    let api = TestApi::start().await;
    let (acc, key) = api.tenant(Plan::Professional).await;
    let site = api.site(&acc, &server.url_for("/missing")).await;
    let (s, b) = api
        .post(&format!("/api/v1/sites/{site}/seo/scans"), &key, json!({}))
        .await;
    assert_eq!(s, 202, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, &key, 60).await;
    assert_eq!(done["status"], "failed", "{done}");
    let origin = server.url_for("");
    let origin = origin.trim_end_matches('/');
    assert_eq!(
        done["error"],
        format!("the start URL {origin}/missing answered HTTP 404 Not Found: check the URL (the scan needs a start page that answers 2xx)"),
        "{done}"
    );
    // No page was analyzed into the report: the scan did no work.
    assert_eq!(done["quota_refunded"], true, "{done}");
    // The 404 page links to / and /about.html; neither was fetched.
    assert_eq!(server.count("/missing"), 1);
    assert_eq!(server.count("/about.html"), 0);
    assert_eq!(server.count("/"), 0);
    api.stop().await;
}
