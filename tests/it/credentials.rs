//! Site credentials in the service: `PUT/GET/DELETE
//! /api/v1/sites/{siteId}/credentials` on both backends (names only ever
//! come back), sealing at rest (the raw stored bytes hold no secret; a
//! sealed record moved to another site, or read with another key, does not
//! open), the start-up check of `sitescan serve` without a key, tenancy, and
//! a scan of a loopback site behind basic auth through the API whose secret
//! appears in no answer, report or log line.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use chrono::Utc;
use reqwest::Method;
use serde_json::{json, Value};
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::ops::credentials::{scan_credentials, set_credentials};
use sitescan_daemon::secret_key::SecretKey;
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{fixture, Plan, Store};
use sitescan_daemon::Error;

use crate::api_support::{admin_ok, sitescan, KeyedApi, ServeProcess, TestApi};
use crate::fleet_support::{backend, shared_redis, PrefixGuard};

/// The secret values of [`full_credentials`]: none may ever come back.
const SECRETS: [&str; 5] = [
    "hdr-S3cret-Zq81",
    "ck-S3cret-Zq82",
    "pw-S3cret-Zq83",
    "form-S3cret-Zq84",
    "step-S3cret-Zq85",
];

/// Every kind of credential, with the values of [`SECRETS`].
fn full_credentials() -> Value {
    json!({
        "headers": [{"name": "X-Api-Token", "value": SECRETS[0]}],
        "cookies": [{"name": "session", "value": SECRETS[1]}],
        "basic": {"username": "ann", "password": SECRETS[2]},
        "login_form": {"page": "/login", "action": "/login",
            "fields": {"user": "ann", "password": SECRETS[3]},
            "success": {"cookie": "session"}},
        "login_steps": [{"step": "goto", "url": "/login"},
            {"step": "fill", "selector": "#pw", "value": SECRETS[4]},
            {"step": "click", "selector": "button"}]
    })
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} holds {secret}: {text}");
    }
}

/// A key of a fresh enterprise account, made in `store`.
async fn api_key(store: &dyn Store, account: &str) -> String {
    let (key, secret, hash) =
        new_key(account, "test", None, chrono::Duration::days(1), Utc::now()).unwrap();
    store.create_key(key, &hash).await.unwrap();
    secret
}

/// The API calls of the round trip, the same on both backends: set, read,
/// list, refuse bad fields without echoing values, tenancy, replace, remove.
async fn round_trip(api: &impl KeyedApi, key: &str, site: &str, other_key: &str) {
    let doc: Value = reqwest::get(format!("{}/api/v1/openapi.json", api.base()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // Every answer below is documented, and its body matches the schema.
    let check = |method: &str, status: u16, body: &Value| {
        let template = "/api/v1/sites/{siteId}/credentials";
        let resp = &doc["paths"][template][method]["responses"][status.to_string()];
        assert!(
            resp.is_object(),
            "{method} {template} {status} not documented"
        );
        let schema = &resp["content"]["application/json"]["schema"];
        if let Err(e) = crate::api_support::schema::validate(&doc, schema, body, "$") {
            panic!("{method} {template} {status}: {e}\n{body}");
        }
    };
    let path = format!("/api/v1/sites/{site}/credentials");
    let (s, b) = api.get(&path, key).await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (404, &json!("credentials_not_found")),
        "{b}"
    );
    check("get", s, &b);
    let (_, b) = api.get(&format!("/api/v1/sites/{site}"), key).await;
    assert_eq!(b["data"]["has_credentials"], false, "{b}");

    let (s, put) = api
        .send(Method::PUT, &path, key, Some(full_credentials()))
        .await;
    assert_eq!(s, 200, "{put}");
    check("put", s, &put);
    assert_no_secret("the PUT answer", &put.to_string());
    let updated_at = put["data"]["updated_at"].clone();
    assert!(updated_at.is_string(), "{put}");
    assert_eq!(
        put["data"],
        json!({
            "site_id": site,
            "kinds": ["headers", "cookies", "basic", "login_form", "login_steps"],
            "headers": ["X-Api-Token"],
            "cookies": ["session"],
            "basic_username": "ann",
            "login_form": {"page": "/login", "action": "/login",
                "fields": ["password", "user"], "success": {"cookie": "session"}},
            "login_steps": [{"step": "goto", "url": "/login"},
                {"step": "fill", "selector": "#pw"}, {"step": "click", "selector": "button"}],
            "sign_out_exclude": null,
            "updated_at": updated_at,
        })
    );
    let (s, got) = api.get(&path, key).await;
    assert_eq!((s, &got["data"]), (200, &put["data"]), "{got}");
    check("get", s, &got);
    let (_, b) = api.get(&format!("/api/v1/sites/{site}"), key).await;
    assert_eq!(b["data"]["has_credentials"], true, "{b}");
    let (_, b) = api.get("/api/v1/sites", key).await;
    assert_eq!(b["data"][0]["has_credentials"], true, "{b}");

    // Bad fields: each named, no value echoed (not even one of a wrong type).
    let (s, b) = api
        .send(
            Method::PUT,
            &path,
            key,
            Some(json!({
                "headers": [{"name": "Bad Name", "value": "v-S3cret-Zq86\r\nX: 1"}],
                "basic": {"username": "a:b", "password": "pw-S3cret-Zq87"},
                "login_form": {"action": "http://elsewhere.example/login", "fields": {"u": "x"}},
            })),
        )
        .await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (422, &json!("validation_failed")),
        "{b}"
    );
    check("put", s, &b);
    let fields: Vec<&str> = b["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "headers[0].name",
            "headers[0].value",
            "basic.username",
            "login_form.action"
        ],
        "{b}"
    );
    assert!(!b.to_string().contains("S3cret-Zq8"), "{b}");
    let (s, b) = api
        .send(
            Method::PUT,
            &path,
            key,
            Some(json!({"basic": {"username": "ann", "password": 12345678}})),
        )
        .await;
    assert_eq!(s, 422, "{b}");
    assert_eq!(b["error"]["details"][0]["field"], "basic.password", "{b}");
    assert!(!b.to_string().contains("12345678"), "{b}");
    let (s, b) = api
        .send(
            Method::PUT,
            &path,
            key,
            Some(json!({"basic": "ann:pw-S3cret-Zq88"})),
        )
        .await;
    assert_eq!(s, 422, "{b}");
    assert!(!b.to_string().contains("Zq88"), "{b}");
    // The refused requests left the stored credentials alone.
    let (_, got) = api.get(&path, key).await;
    assert_eq!(got["data"], put["data"]);

    // Another account sees no such site, whatever the method.
    for method in [Method::GET, Method::PUT, Method::DELETE] {
        let body = (method == Method::PUT).then(full_credentials);
        let (s, b) = api.send(method.clone(), &path, other_key, body).await;
        assert_eq!(
            (s, &b["error"]["code"]),
            (404, &json!("site_not_found")),
            "{method} {b}"
        );
        check(&method.as_str().to_ascii_lowercase(), s, &b);
    }

    // Replacing drops what is not given again.
    let (s, b) = api
        .send(
            Method::PUT,
            &path,
            key,
            Some(json!({"cookies": [{"name": "sid", "value": SECRETS[1]}]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["kinds"], json!(["cookies"]));
    assert_eq!(b["data"]["cookies"], json!(["sid"]));
    assert_eq!(b["data"]["headers"], json!([]));
    assert!(b["data"].get("basic_username").is_none(), "{b}");

    let (s, b) = api.send(Method::DELETE, &path, key, None).await;
    assert_eq!(
        (s, &b["data"]),
        (200, &json!({"site_id": site, "deleted": true})),
        "{b}"
    );
    check("delete", s, &b);
    let (s, b) = api.send(Method::DELETE, &path, key, None).await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (404, &json!("credentials_not_found")),
        "{b}"
    );
    check("delete", s, &b);
    let (_, b) = api.get(&format!("/api/v1/sites/{site}"), key).await;
    assert_eq!(b["data"]["has_credentials"], false, "{b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_round_trip_on_the_embedded_store_and_are_sealed_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let api = TestApi::start_on_with_key(dir.path(), Some(SecretKey::generate().unwrap())).await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&account, "https://example.com/").await;
    let (_, other_key) = api.tenant(Plan::Enterprise).await;
    round_trip(&api, &key, &site, &other_key).await;
    // Set again and leave them, to look at what the store holds.
    let path = format!("/api/v1/sites/{site}/credentials");
    let (s, _) = api
        .send(Method::PUT, &path, &key, Some(full_credentials()))
        .await;
    assert_eq!(s, 200);
    let stored = api.store.credentials(&site).await.unwrap().unwrap();
    assert!(stored.sealed.starts_with("v1:"), "{}", stored.sealed);
    assert_no_secret("the sealed value", &stored.sealed);
    api.stop_cleanly().await;
    // The database file itself, every byte of it: names yes, secrets no
    // (not the replaced ones either).
    let raw = std::fs::read(dir.path().join(Embedded::FILE_NAME)).unwrap();
    let raw = String::from_utf8_lossy(&raw);
    assert!(raw.contains("X-Api-Token") && raw.contains(&stored.sealed));
    assert_no_secret("the redb file", &raw);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_round_trip_on_redis_and_are_sealed_there() {
    let (url, _own) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let store = backend(&url, &guard.prefix, Duration::from_secs(30), 3).await;
    let (account, site) = fixture::tenant(&store, Plan::Enterprise, "https://example.com/")
        .await
        .unwrap();
    let key = api_key(&store, &account.id).await;
    let (other, _) = fixture::tenant(&store, Plan::Enterprise, "https://example.org/")
        .await
        .unwrap();
    let other_key = api_key(&store, &other.id).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(sitescan_daemon::fleet::serve_api_with(
        store.clone(),
        listener,
        10_000,
        true,
        sitescan::PageBudget::DEFAULT,
        sitescan_daemon::dashboard::DashboardSettings::new(addr, None),
        Default::default(),
        Some(SecretKey::generate().unwrap()),
        async {
            let _ = stopped.await;
        },
    ));
    let api = RedisApi(format!("http://{addr}"));
    round_trip(&api, &key, &site.id, &other_key).await;
    let path = format!("/api/v1/sites/{}/credentials", site.id);
    let (s, _) = api
        .send(Method::PUT, &path, &key, Some(full_credentials()))
        .await;
    assert_eq!(s, 200);
    // The raw value under the documented key.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let raw: String = redis::cmd("GET")
        .arg(format!("{}:credentials:{}", guard.prefix, site.id))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(
        raw.contains("X-Api-Token") && raw.contains("\"sealed\":\"v1:"),
        "{raw}"
    );
    assert_no_secret("the Redis value", &raw);
    let members: Vec<String> = redis::cmd("SMEMBERS")
        .arg(format!("{}:credentials", guard.prefix))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(members, [site.id.as_str()]);
    // Removing the site removes its credentials.
    let (s, _) = api
        .send(
            Method::DELETE,
            &format!("/api/v1/sites/{}", site.id),
            &key,
            None,
        )
        .await;
    assert_eq!(s, 200);
    assert!(!store.any_credentials().await.unwrap());
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

struct RedisApi(String);

impl KeyedApi for RedisApi {
    fn base(&self) -> &str {
        &self.0
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_credentials_open_only_on_their_site_with_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = Embedded::open(dir.path()).unwrap();
    let (account, a) = fixture::tenant(&store, Plan::Enterprise, "https://a.example/")
        .await
        .unwrap();
    let b = sitescan_daemon::ops::sites::register_site(
        &store,
        false,
        &account.id,
        "https://b.example/",
        None,
    )
    .await
    .unwrap();
    let key = SecretKey::generate().unwrap();
    let auth: sitescan::auth::SiteAuth = serde_json::from_value(full_credentials()).unwrap();
    set_credentials(&store, Some(&key), &account.id, &a.id, auth.clone())
        .await
        .unwrap();
    assert_eq!(
        scan_credentials(&store, Some(&key), &a.id).await.unwrap(),
        Some(auth.clone())
    );
    assert_eq!(
        scan_credentials(&store, Some(&key), &b.id).await.unwrap(),
        None
    );

    // The ciphertext of site a, moved onto site b's record.
    let mut moved = store.credentials(&a.id).await.unwrap().unwrap();
    moved.site_id = b.id.clone();
    assert!(store.put_credentials(moved).await.unwrap());
    let err = scan_credentials(&store, Some(&key), &b.id)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unsealable(_)), "{err}");
    assert!(
        err.to_string().contains(&format!(
            "the stored credentials of site `{}` do not open with this secret key",
            b.id
        )),
        "{err}"
    );

    // Another key: a clear error, never a panic; no key at all: said so.
    let other = SecretKey::generate().unwrap();
    let err = scan_credentials(&store, Some(&other), &a.id)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unsealable(_)), "{err}");
    assert_no_secret("the error", &err.to_string());
    let err = scan_credentials(&store, None, &a.id).await.unwrap_err();
    assert!(matches!(err, Error::SecretKeyMissing), "{err}");
    assert!(err.to_string().contains("SITESCAN_SECRET_KEY"), "{err}");

    // Credentials of a site of another account are refused like the site.
    let (stranger, _) = fixture::tenant(&store, Plan::Enterprise, "https://c.example/")
        .await
        .unwrap();
    let err = set_credentials(&store, Some(&key), &stranger.id, &a.id, auth)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { kind: "site", .. }), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_a_key_refuses_credentials_with_503() {
    let dir = tempfile::tempdir().unwrap();
    let api = TestApi::start_on_with_key(dir.path(), None).await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site = api.site(&account, "https://example.com/").await;
    let path = format!("/api/v1/sites/{site}/credentials");
    let (s, b) = api
        .send(Method::PUT, &path, &key, Some(full_credentials()))
        .await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (503, &json!("secret_key_missing")),
        "{b}"
    );
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the server has no secret key, so it cannot keep credentials"),
        "{b}"
    );
    assert_no_secret("the 503 answer", &b.to_string());
    let (s, b) = api.get(&path, &key).await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (404, &json!("credentials_not_found")),
        "{b}"
    );
    api.stop().await;
}

/// A data directory with an account, a key, a site at `url` and its
/// credentials (basic auth `ann` / `password`), sealed with `key`. Returns the
/// API key and the site id.
async fn data_dir_with_credentials(
    dir: &std::path::Path,
    url: &str,
    password: &str,
    key: &SecretKey,
) -> (String, String) {
    let acc = admin_ok(dir, &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let api_key = admin_ok(dir, &["key", "create", "--account", &acc, "--name", "ci"]);
    let api_key = api_key["key"].as_str().unwrap().to_string();
    let site = admin_ok(dir, &["site", "add", "--account", &acc, url]);
    let site = site["id"].as_str().unwrap().to_string();
    let store = Embedded::open(dir).unwrap();
    let auth = serde_json::from_value(json!({"basic": {"username": "ann", "password": password}}))
        .unwrap();
    set_credentials(&store, Some(key), &acc, &site, auth)
        .await
        .unwrap();
    drop(store);
    (api_key, site)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_will_not_start_without_the_key_when_credentials_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let key_hex = "a7".repeat(32);
    let key = SecretKey::parse(&key_hex).unwrap();
    let (api_key, site) =
        data_dir_with_credentials(dir.path(), "http://127.0.0.1:9/", SECRETS[2], &key).await;
    let serve = |env: Option<(&str, String)>| {
        let mut cmd = sitescan();
        cmd.args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--allow-private",
            "--data-dir",
        ])
        .arg(dir.path())
        .env_remove("SITESCAN_SECRET_KEY")
        .env_remove("SITESCAN_SECRET_KEY_FILE")
        .env("RUST_LOG", "warn");
        if let Some((name, value)) = env {
            cmd.env(name, value);
        }
        cmd
    };
    let out = serve(None).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "error: invalid configuration: the store holds site credentials and no secret key is \
         set: start with SITESCAN_SECRET_KEY (or SITESCAN_SECRET_KEY_FILE) set to the key they \
         were saved with"
    );
    assert!(out.stdout.is_empty(), "it never listened");

    let out = serve(Some(("SITESCAN_SECRET_KEY", "not-a-key".into())))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.trim().starts_with(
            "error: invalid configuration: SITESCAN_SECRET_KEY: the secret key must be 32 bytes"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("not-a-key"), "{stderr}");

    // The key from a file (hex), as documented: it starts and answers.
    let key_file = dir.path().join("secret.key");
    std::fs::write(&key_file, format!("{key_hex}\n")).unwrap();
    let mut cmd = serve(Some((
        "SITESCAN_SECRET_KEY_FILE",
        key_file.display().to_string(),
    )));
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let server = ServeProcess::spawn(cmd);
    let (s, b) = server
        .get(&format!("/api/v1/sites/{site}/credentials"), &api_key)
        .await;
    assert_eq!(
        (s, &b["data"]["basic_username"]),
        (200, &json!("ann")),
        "{b}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_behind_basic_auth_is_scanned_with_its_credentials_and_the_secret_shows_nowhere() {
    let password = "pw-S3cret-Zq83";
    let site = BasicAuthSite::start("ann", password).await;
    let dir = tempfile::tempdir().unwrap();
    let key_hex = "5e".repeat(32);
    let acc = admin_ok(dir.path(), &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let api_key = admin_ok(
        dir.path(),
        &["key", "create", "--account", &acc, "--name", "ci"],
    );
    let api_key = api_key["key"].as_str().unwrap().to_string();
    let s = admin_ok(dir.path(), &["site", "add", "--account", &acc, &site.url]);
    let site_id = s["id"].as_str().unwrap().to_string();

    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let mut cmd = sitescan();
    cmd.args([
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--allow-private",
        "--data-dir",
    ])
    .arg(dir.path())
    .env("SITESCAN_SECRET_KEY", &key_hex)
    .env_remove("SITESCAN_SECRET_KEY_FILE")
    .env("RUST_LOG", "debug")
    .stdout(std::process::Stdio::piped())
    .stderr(log);
    let server = ServeProcess::spawn(cmd);

    let mut answers = String::new();
    let (s, b) = server
        .send(
            Method::PUT,
            &format!("/api/v1/sites/{site_id}/credentials"),
            &api_key,
            Some(json!({"basic": {"username": "ann", "password": password}})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    answers.push_str(&b.to_string());
    let (s, b) = server
        .post(
            &format!("/api/v1/sites/{site_id}/scans"),
            &api_key,
            json!({"config": {"rules": ["wcag-aa"], "links": "none"}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    answers.push_str(&b.to_string());
    let scan_id = b["data"]["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    let scan = loop {
        let (_, b) = server
            .get(&format!("/api/v1/scans/{scan_id}"), &api_key)
            .await;
        let status = b["data"]["status"].as_str().unwrap_or("").to_string();
        if ["completed", "failed", "canceled"].contains(&status.as_str()) {
            break b;
        }
        assert!(Instant::now() < deadline, "{b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    answers.push_str(&scan.to_string());
    assert_eq!(scan["data"]["status"], "completed", "{scan}");
    // Both pages: the second is linked only from the signed-in first one.
    assert_eq!(scan["data"]["summary"]["pages_fetched"], 2, "{scan}");
    let (s, report) = server
        .get(&format!("/api/v1/scans/{scan_id}/report"), &api_key)
        .await;
    assert_eq!(s, 200);
    let pages: Vec<&str> = report["data"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        pages,
        [
            format!("{}/", site.base),
            format!("{}/inside.html", site.base)
        ],
        "{report}"
    );
    for (s, b) in [
        server
            .get(&format!("/api/v1/sites/{site_id}"), &api_key)
            .await,
        server
            .get(&format!("/api/v1/sites/{site_id}/credentials"), &api_key)
            .await,
        server
            .get(&format!("/api/v1/sites/{site_id}/scans"), &api_key)
            .await,
    ] {
        assert_eq!(s, 200, "{b}");
        answers.push_str(&b.to_string());
    }
    // What the site saw: every page request signed in.
    let seen = site.requests();
    let pages_seen: Vec<&(String, bool)> = seen
        .iter()
        .filter(|(p, _)| p == "/" || p == "/inside.html")
        .collect();
    assert!(
        pages_seen.iter().any(|(p, _)| p == "/inside.html"),
        "{seen:?}"
    );
    assert!(
        pages_seen.iter().all(|(_, signed_in)| *signed_in),
        "{seen:?}"
    );
    drop(server);

    let header = base64::engine::general_purpose::STANDARD.encode(format!("ann:{password}"));
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        log.contains("site credentials saved"),
        "the log was captured: {log}"
    );
    for (what, text) in [
        ("an API answer", answers.as_str()),
        ("the report", &report.to_string()),
        ("the service's log", log.as_str()),
    ] {
        assert!(!text.contains(password), "{what} holds the password");
        assert!(
            !text.contains(&header),
            "{what} holds the Authorization value"
        );
    }
    // And the stored report, as the store keeps it.
    let store = Embedded::open(dir.path()).unwrap();
    let stored = store.report(&scan_id).await.unwrap().unwrap();
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("inside.html"));
    assert!(!stored.contains(password) && !stored.contains(&header));
}

/// A loopback site whose two pages (`/`, linking to `/inside.html`) answer
/// only requests with HTTP basic auth `user:password` (401 otherwise), and
/// which records each request's path and whether it was signed in.
struct BasicAuthSite {
    url: String,
    base: String,
    log: Arc<Mutex<Vec<(String, bool)>>>,
    _task: tokio::task::JoinHandle<()>,
}

impl BasicAuthSite {
    async fn start(user: &str, password: &str) -> BasicAuthSite {
        use axum::http::{header, HeaderMap, StatusCode, Uri};
        use axum::response::IntoResponse;
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        );
        let log: Arc<Mutex<Vec<(String, bool)>>> = Arc::default();
        let seen = log.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap| {
            let signed_in = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                == Some(expected.as_str());
            seen.lock()
                .unwrap()
                .push((uri.path().to_string(), signed_in));
            async move {
                let page = |title: &str, body: &str| {
                    format!(
                        "<!doctype html><html lang=\"en\"><head><title>{title}</title></head>\
                         <body><main><h1>{title}</h1>{body}</main></body></html>"
                    )
                };
                let html = [(header::CONTENT_TYPE, "text/html; charset=utf-8")];
                match (uri.path(), signed_in) {
                    ("/" | "/inside.html", false) => (
                        StatusCode::UNAUTHORIZED,
                        [(header::WWW_AUTHENTICATE, "Basic realm=\"staging\"")],
                        "sign in",
                    )
                        .into_response(),
                    ("/", true) => (
                        html,
                        page(
                            "Home",
                            "<p><a href=\"/inside.html\">The inside page</a></p>",
                        ),
                    )
                        .into_response(),
                    ("/inside.html", true) => {
                        (html, page("Inside", "<p>Only for signed-in people.</p>")).into_response()
                    }
                    _ => StatusCode::NOT_FOUND.into_response(),
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        BasicAuthSite {
            url: format!("{base}/"),
            base,
            log,
            _task: task,
        }
    }

    fn requests(&self) -> Vec<(String, bool)> {
        self.log.lock().unwrap().clone()
    }
}
