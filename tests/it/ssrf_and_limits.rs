//! Hostile input at the service's edges: IPv6 transition forms and
//! credentials at site registration (the one SSRF predicate of the engine),
//! JSON with trailing garbage, key lifetimes out of range, and a redirect from
//! an allowed address to a refused one (a scan in its own network namespace).

use reqwest::Method;
use serde_json::{json, Value};
use sitescan_daemon::ops::sites::{CREDENTIALS_REFUSED, PRIVATE_REFUSED};
use sitescan_daemon::store::Plan;
use sitescan_daemon::webhooks::DeliverySettings;

use crate::api_support::{admin, admin_ok, assert_error, call, TestApi};
use crate::netns::{self, Host};

/// The exact `422 validation_failed` body for a refused `url`.
fn refused_url(base: &str, problem: &str) -> Value {
    json!({"error": {
        "code": "validation_failed",
        "message": format!("invalid request: url: {problem}"),
        "details": [{"field": "url", "problem": problem}],
        "doc_url": format!("{base}/docs/errors#validation_failed"),
    }})
}

/// The error body without its (random) request id, which must be there.
fn without_request_id(mut body: Value) -> Value {
    let id = body["error"]
        .as_object_mut()
        .and_then(|e| e.remove("request_id"));
    assert!(
        id.as_ref()
            .and_then(Value::as_str)
            .is_some_and(|i| i.starts_with("req_")),
        "{body}"
    );
    body
}

/// Each IPv6 form that embeds an IPv4 address is judged by that address at
/// registration: refused around a private one (exact 422 body), registered
/// around a public one; the ambiguous local-use NAT64 prefix is refused whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn site_registration_judges_ipv6_transition_forms_by_their_ipv4_address() {
    let dir = tempfile::tempdir().unwrap();
    let api = TestApi::start_on(dir.path(), false, DeliverySettings::new(false)).await;
    let (_, key) = api.tenant(Plan::Professional).await;
    let cases = [
        // (form, around a private IPv4, around a public IPv4)
        ("mapped", "[::ffff:10.0.0.1]", Some("[::ffff:8.8.8.8]")),
        ("SIIT", "[::ffff:0:10.0.0.1]", Some("[::ffff:0:8.8.8.8]")),
        ("compatible", "[::127.0.0.1]", Some("[::8.8.8.8]")),
        (
            "NAT64",
            "[64:ff9b::169.254.169.254]",
            Some("[64:ff9b::8.8.8.8]"),
        ),
        ("local NAT64", "[64:ff9b:1::a00:1]", None),
        ("local NAT64 (public inside)", "[64:ff9b:1:808:808::]", None),
        ("6to4", "[2002:a00:1::1]", Some("[2002:808:808::1]")),
        // Teredo: server 10.0.0.1 / client 8.8.8.8; server 8.8.8.8 / client
        // 192.168.1.1 (inverted 3f57:fefe); both public: 8.8.8.8 / 1.1.1.1.
        ("Teredo server", "[2001:0:a00:1::f7f7:f7f7]", None),
        (
            "Teredo client",
            "[2001:0:808:808::3f57:fefe]",
            Some("[2001:0:808:808::fefe:fefe]"),
        ),
    ];
    for (form, private, public) in cases {
        let url = format!("http://{private}/");
        let (s, b) = api.post("/api/v1/sites", &key, json!({ "url": url })).await;
        assert_eq!(
            (s, &without_request_id(b)),
            (422, &refused_url(&api.base, PRIVATE_REFUSED)),
            "{form}: {url}"
        );
        if let Some(public) = public {
            let url = format!("http://{public}/");
            let (s, b) = api.post("/api/v1/sites", &key, json!({ "url": url })).await;
            assert_eq!(s, 201, "{form}: {url}: {b}");
            assert_eq!(b["data"]["url"], url::Url::parse(&url).unwrap().as_str());
        }
    }
    // Nothing refused was stored.
    let (_, list) = api.get("/api/v1/sites", &key).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 6);
    api.stop().await;
}

/// A site URL with `user:pass@` is refused (never stored or echoed), through
/// the API and `admin site add`, saying where credentials do not belong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_a_site_url_are_refused_and_never_echoed() {
    let api = TestApi::start().await;
    let (account, key) = api.tenant(Plan::Professional).await;
    for url in [
        "https://alice:s3cret-pw@example.com/",
        "https://alice@example.com/",
        "https://:s3cret-pw@example.com/",
    ] {
        let (s, b) = api.post("/api/v1/sites", &key, json!({ "url": url })).await;
        assert!(!b.to_string().contains("s3cret"));
        assert_eq!(
            (s, &without_request_id(b)),
            (422, &refused_url(&api.base, CREDENTIALS_REFUSED)),
            "{url}"
        );
    }
    let (_, list) = api.get("/api/v1/sites", &key).await;
    assert_eq!(list["data"], json!([]));
    assert!(CREDENTIALS_REFUSED.contains("PUT /api/v1/sites/{siteId}/credentials"));
    api.stop().await;

    let dir = tempfile::tempdir().unwrap();
    let acc = admin_ok(dir.path(), &["account", "create", "--plan", "professional"]);
    let acc = acc["id"].as_str().unwrap();
    let (code, out, stderr) = admin(
        dir.path(),
        &[
            "site",
            "add",
            "--account",
            acc,
            "https://alice:s3cret-pw@example.com/",
        ],
    );
    assert_eq!((code, out), (2, Value::Null), "{stderr}");
    assert!(stderr.contains(CREDENTIALS_REFUSED), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
    let _ = account;
}

/// One JSON value per body: anything but whitespace after it is
/// `400 invalid_json`, on every endpoint that reads a JSON body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_bodies_with_trailing_garbage_are_invalid_json() {
    let api = TestApi::start().await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&account, "https://example.com/").await;
    let (s, hook) = api
        .post(
            "/api/v1/webhooks",
            &key,
            json!({"url": "http://127.0.0.1:9/hook", "events": ["scan.completed"]}),
        )
        .await;
    assert_eq!(s, 201, "{hook}");
    let hook = hook["data"]["id"].as_str().unwrap().to_string();
    let scans = format!("/api/v1/sites/{site}/scans");
    let endpoints = [
        (
            Method::POST,
            "/api/v1/sites".to_string(),
            r#"{"url": "https://example.org/"}"#,
        ),
        (
            Method::POST,
            scans.clone(),
            r#"{"config": {"rules": ["wcag-aa"]}}"#,
        ),
        (
            Method::POST,
            "/api/v1/webhooks".to_string(),
            r#"{"url": "http://127.0.0.1:9/other", "events": ["scan.failed"]}"#,
        ),
        (
            Method::PATCH,
            format!("/api/v1/webhooks/{hook}"),
            r#"{"enabled": false}"#,
        ),
    ];
    for (method, path, good) in &endpoints {
        for tail in [" xyz", "{}", " {\"url\": 1}", "]", "\u{0}"] {
            let (s, b) = call(
                api.req(method.clone(), path, Some(&key))
                    .header("content-type", "application/json")
                    .body(format!("{good}{tail}")),
            )
            .await;
            assert_error(s, &b, 400, "invalid_json");
            assert!(
                b["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("trailing characters"),
                "{method} {path} + {tail:?}: {b}"
            );
        }
    }
    // Trailing whitespace is fine, and nothing above was created.
    let (s, b) = call(
        api.req(Method::POST, "/api/v1/sites", Some(&key))
            .header("content-type", "application/json")
            .body("{\"url\": \"https://example.org/\"} \n\t"),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let (_, list) = api.get("/api/v1/sites", &key).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
    let (_, hooks) = api.get("/api/v1/webhooks", &key).await;
    assert_eq!(hooks["data"].as_array().unwrap().len(), 1);
    assert_eq!(hooks["data"][0]["enabled"], true);
    let (_, list) = api.get(&scans, &key).await;
    assert_eq!(list["data"], json!([]));
    api.stop().await;
}

/// `admin key create --expires-in` past ten years is a usage error (exit 2,
/// a message naming the longest lifetime), never a panic; ten years works.
#[test]
fn key_lifetimes_out_of_range_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let acc = admin_ok(dir.path(), &["account", "create", "--plan", "professional"]);
    let acc = acc["id"].as_str().unwrap();
    for lifetime in ["315360000d", "3651d", "87601h", "9223372036854775807s"] {
        let (code, out, stderr) = admin(
            dir.path(),
            &[
                "key",
                "create",
                "--account",
                acc,
                "--name",
                "ci",
                "--expires-in",
                lifetime,
            ],
        );
        assert_eq!((code, out), (2, Value::Null), "{lifetime}: {stderr}");
        assert!(
            stderr.contains("longer than the longest key lifetime, 3650d (ten years)"),
            "{lifetime}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let (code, _, stderr) = admin(
        dir.path(),
        &[
            "key",
            "create",
            "--account",
            acc,
            "--name",
            "ci",
            "--expires-in",
            "99999999999999999999d",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a lifetime"), "{stderr}");
    let ok = admin_ok(
        dir.path(),
        &[
            "key",
            "create",
            "--account",
            acc,
            "--name",
            "ci",
            "--expires-in",
            "3650d",
        ],
    );
    assert!(ok["key"].as_str().unwrap().starts_with("key_"));
    let listed = admin_ok(dir.path(), &["key", "list", "--account", acc]);
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

/// A start page on an allowed address that redirects to loopback: the guard
/// refuses the hop (exit 3, the refused address named) and the loopback URL is
/// never requested, although the same server answers there. With private
/// addresses allowed the very same scan follows the hop, so it is the guard,
/// not scope or a dead port, that stopped it.
#[test]
fn a_redirect_from_an_allowed_address_to_a_refused_one_is_not_followed() {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(
        site.path().join("_headers"),
        "/start\n  Status: 302\n  Location: {{origin}}/secret.html\n",
    )
    .unwrap();
    std::fs::write(
        site.path().join("secret.html"),
        "<!doctype html><html lang=en><head><title>Secret</title></head><body><main><h1>Secret</h1></main></body></html>",
    )
    .unwrap();

    let refused = netns::scan(
        site.path(),
        Host::Public,
        "/start",
        "--no-private --max-pages 3",
    );
    assert_eq!(refused.exit, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("127.0.0.1"),
        "the refusal names the address: {}",
        refused.stderr
    );
    assert!(
        refused.served.iter().any(|l| l == "GET /start"),
        "{:?}",
        refused.served
    );
    assert!(
        !refused.served.iter().any(|l| l.ends_with("/secret.html")),
        "the refused hop reached the server: {:?}",
        refused.served
    );

    let allowed = netns::scan(site.path(), Host::Public, "/start", "--max-pages 3");
    assert_eq!(allowed.exit, 0, "{}", allowed.stderr);
    assert!(
        allowed.served.iter().any(|l| l == "GET /secret.html"),
        "{:?}",
        allowed.served
    );
}
