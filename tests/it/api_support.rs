//! Helpers of the API tests: a `sitescan serve` equivalent in-process on
//! 127.0.0.1:0 (embedded store in a temp dir, the real engine), records made
//! directly in its store (as `sitescan admin` does), and a reqwest client.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use reqwest::{Method, RequestBuilder, Response};
use serde_json::Value;
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::executor::EngineExecutor;
use sitescan_daemon::service::Service;
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{new_id, Account, Plan, Site, Store};
use sitescan_daemon::worker::WorkerSettings;
use tokio::sync::oneshot;

pub struct TestApi {
    pub base: String,
    pub client: reqwest::Client,
    pub store: Arc<Embedded>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    /// The database's directory when the harness made it (removed on drop).
    _dir: Option<tempfile::TempDir>,
}

impl TestApi {
    pub async fn start() -> TestApi {
        Self::start_with(10_000, 2).await
    }

    pub async fn start_with(rate_per_minute: u32, workers: usize) -> TestApi {
        let dir = tempfile::tempdir().unwrap();
        let mut api = Self::launch(
            dir.path(),
            rate_per_minute,
            WorkerSettings {
                workers,
                allow_private: true,
                page_budget: sitescan::PageBudget::DEFAULT,
                rate_per_host: sitescan_engine::config::DEFAULT_RATE_PER_HOST,
                render: false,
                secret_key: None,
            },
            sitescan_daemon::webhooks::DeliverySettings::new(true),
        )
        .await;
        api._dir = Some(dir);
        api
    }

    /// A service whose workers render (`serve` with a browser installed):
    /// one worker, Chromium's sandbox off (the tests run as root in a
    /// container; see `render.rs`).
    pub async fn start_rendering() -> TestApi {
        sitescan::browser::configure(sitescan::browser::LaunchOptions {
            sandbox: false,
            ..sitescan::browser::LaunchOptions::from_env()
        });
        // The check `serve` makes at start-up, on the options in force: a
        // missing browser fails the test here, it never skips it.
        sitescan::browser::launch::configured_binary()
            .expect("render tests need Debian's chromium");
        let dir = tempfile::tempdir().unwrap();
        let mut api = Self::launch(
            dir.path(),
            10_000,
            WorkerSettings {
                workers: 1,
                allow_private: true,
                page_budget: sitescan::PageBudget::DEFAULT,
                rate_per_host: 200.0,
                render: true,
                secret_key: None,
            },
            sitescan_daemon::webhooks::DeliverySettings::new(true),
        )
        .await;
        api._dir = Some(dir);
        api
    }

    /// One worker on the database in `dir` (kept after a stop, so a second
    /// service can start on it), delivering webhooks with `webhooks`.
    pub async fn start_on(
        dir: &std::path::Path,
        allow_private: bool,
        webhooks: sitescan_daemon::webhooks::DeliverySettings,
    ) -> TestApi {
        let workers = WorkerSettings {
            workers: 1,
            allow_private,
            page_budget: sitescan::PageBudget::DEFAULT,
            rate_per_host: sitescan_engine::config::DEFAULT_RATE_PER_HOST,
            render: false,
            secret_key: None,
        };
        Self::launch(dir, 10_000, workers, webhooks).await
    }

    /// One worker on the database in `dir`, private targets allowed, site
    /// credentials sealed with `secret_key` (`None`: refused, as by a
    /// `serve` started without `SITESCAN_SECRET_KEY`).
    pub async fn start_on_with_key(
        dir: &std::path::Path,
        secret_key: Option<sitescan_daemon::secret_key::SecretKey>,
    ) -> TestApi {
        let workers = WorkerSettings {
            workers: 1,
            allow_private: true,
            page_budget: sitescan::PageBudget::DEFAULT,
            rate_per_host: 200.0,
            render: false,
            secret_key,
        };
        let webhooks = sitescan_daemon::webhooks::DeliverySettings::new(true);
        Self::launch(dir, 10_000, workers, webhooks).await
    }

    async fn launch(
        dir: &std::path::Path,
        rate_per_minute: u32,
        workers: WorkerSettings,
        webhooks: sitescan_daemon::webhooks::DeliverySettings,
    ) -> TestApi {
        let store = Arc::new(Embedded::open(dir).unwrap());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let service = Service {
            store: store.clone(),
            queue: store.clone(),
            executor: Arc::new(EngineExecutor),
            workers,
            rate_per_minute,
            grace: Duration::from_secs(2),
            webhooks,
            // Scheduled-scan tests run schedules every second or two.
            schedules: sitescan_daemon::scheduler::SchedulerSettings {
                min_interval: Duration::from_secs(1),
                tick: Duration::from_millis(200),
            },
        };
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            service
                .run(listener, async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        TestApi {
            base,
            client: reqwest::Client::new(),
            store,
            stop: Some(tx),
            task: Some(task),
            _dir: None,
        }
    }

    /// Stops the server and waits for it.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }

    /// Stops the server and asserts that it stopped cleanly within 10 s, its
    /// database file released.
    pub async fn stop_cleanly(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(10), task)
                .await
                .unwrap()
                .unwrap();
        }
        // The service has returned; a store call it started on the blocking
        // pool (a redb commit) may still be finishing on a busy machine and
        // hold the database until it does. The file is released once this
        // harness holds the last handle.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let held = |s: &Arc<Embedded>| (Arc::strong_count(s) - 1) + (s.open_handles() - 1);
        while held(&self.store) > 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the store is still held {} time(s) 10 s after the service stopped",
                held(&self.store)
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn account(&self, plan: Plan) -> String {
        let acc = Account {
            id: new_id("acc").unwrap(),
            name: Some("Test".into()),
            plan,
            created_at: Utc::now(),
        };
        self.store.create_account(acc).await.unwrap().id
    }

    /// A key of `account` valid for `lifetime`.
    pub async fn key_with(&self, account: &str, lifetime: chrono::Duration) -> String {
        let (key, secret, hash) = new_key(account, "test", None, lifetime, Utc::now()).unwrap();
        self.store.create_key(key, &hash).await.unwrap();
        secret
    }

    pub async fn key(&self, account: &str) -> String {
        self.key_with(account, chrono::Duration::days(90)).await
    }

    /// A fresh account of `plan` and a key for it.
    pub async fn tenant(&self, plan: Plan) -> (String, String) {
        let acc = self.account(plan).await;
        let key = self.key(&acc).await;
        (acc, key)
    }

    pub async fn site(&self, account: &str, url: &str) -> String {
        let site = Site {
            id: new_id("site").unwrap(),
            account_id: account.into(),
            url: url.into(),
            name: "fixture".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        };
        self.store.create_site(site).await.unwrap().id
    }

    pub fn req(&self, method: Method, path: &str, key: Option<&str>) -> RequestBuilder {
        let b = self.client.request(method, format!("{}{path}", self.base));
        match key {
            Some(k) => b.header("X-API-Key", k),
            None => b,
        }
    }

    pub async fn get(&self, path: &str, key: &str) -> (u16, Value) {
        call(self.req(Method::GET, path, Some(key))).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> (u16, Value) {
        call(self.req(Method::POST, path, Some(key)).json(&body)).await
    }

    /// Polls a scan until it is terminal (or panics after `secs`).
    pub async fn wait_terminal(&self, scan_id: &str, key: &str, secs: u64) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let (status, body) = self.get(&format!("/api/v1/scans/{scan_id}"), key).await;
            assert_eq!(status, 200, "{body}");
            let s = body["data"]["status"].as_str().unwrap().to_string();
            if ["completed", "failed", "canceled"].contains(&s.as_str()) {
                return body["data"].clone();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "scan {scan_id} still {s}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for TestApi {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Sends and returns status and JSON body.
pub async fn call(b: RequestBuilder) -> (u16, Value) {
    let resp = b.send().await.unwrap();
    json_of(resp).await
}

pub async fn json_of(resp: Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, body)
}

/// Asserts an error envelope with `code` and returns it.
pub fn assert_error(status: u16, body: &Value, want_status: u16, code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["error"]["details"].is_array(), "{body}");
}

/// A small validator of JSON values against OpenAPI 3.0 schemas ($ref, allOf,
/// oneOf/anyOf, nullable, type, enum, required, properties,
/// additionalProperties, items) — enough for the document utoipa generates.
pub mod schema {
    use serde_json::Value;

    fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/components/schemas/");
                let target = &doc["components"]["schemas"][name];
                assert!(target.is_object(), "dangling $ref {r}");
                resolve(doc, target)
            }
            None => schema,
        }
    }

    pub fn validate(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
        let schema = resolve(doc, schema);
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return Ok(());
        }
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for s in all {
                validate(doc, s, value, at)?;
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(any) = schema.get(key).and_then(Value::as_array) {
                if !any.iter().any(|s| validate(doc, s, value, at).is_ok()) {
                    return Err(format!("{at}: matches none of {key}"));
                }
            }
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            if !values.contains(value) {
                return Err(format!("{at}: {value} not in enum {values:?}"));
            }
        }
        let Some(ty) = schema.get("type").and_then(Value::as_str) else {
            return Ok(());
        };
        let ok = match ty {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => true,
        };
        if !ok {
            return Err(format!("{at}: {value} is not {ty}"));
        }
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if value.as_f64().is_some_and(|v| v < min) {
                return Err(format!("{at}: {value} below minimum {min}"));
            }
        }
        if let Some(obj) = value.as_object() {
            for req in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = req.as_str().unwrap_or_default();
                if !obj.contains_key(name) {
                    return Err(format!("{at}: required property `{name}` missing"));
                }
            }
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, v) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => validate(doc, s, v, &format!("{at}.{k}"))?,
                    None => match schema.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            return Err(format!("{at}: property `{k}` not in the schema"))
                        }
                        Some(s @ Value::Object(_)) => validate(doc, s, v, &format!("{at}.{k}"))?,
                        _ => {}
                    },
                }
            }
        }
        if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
            for (i, v) in arr.iter().enumerate() {
                validate(doc, items, v, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }
}

/// A site of `pages` HTML pages chained by links (`/`, `/p1.html`, ...), each
/// answered after `delay_ms`: scans of it take a while, for cancel and restart
/// tests. Keep the returned folder alive as long as the server.
pub async fn slow_site(
    pages: usize,
    delay_ms: u64,
) -> (tempfile::TempDir, sitescan_fixtures::FixtureServer) {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..pages {
        let name = if i == 0 {
            "index.html".to_string()
        } else {
            format!("p{i}.html")
        };
        let next = if i + 1 < pages {
            format!("<a href=\"/p{}.html\">next page</a>", i + 1)
        } else {
            String::new()
        };
        std::fs::write(
            dir.path().join(name),
            format!("<!doctype html><html lang=\"en\"><head><title>Page {i}</title></head><body><main><h1>Page {i}</h1><p>Slow page.</p>{next}</main></body></html>"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("_headers"),
        format!("/*\n  Delay-Ms: {delay_ms}\n"),
    )
    .unwrap();
    let server = sitescan_fixtures::FixtureServer::start(dir.path())
        .await
        .unwrap();
    (dir, server)
}

/// The `sitescan` binary under test.
pub fn sitescan() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
}

/// Runs `sitescan admin --data-dir DIR ARGS...` (without a public URL from the
/// environment, so links use the default); returns exit code, stdout JSON
/// (`null` when it is not JSON) and stderr.
pub fn admin(dir: &std::path::Path, args: &[&str]) -> (i32, Value, String) {
    let out = sitescan()
        .arg("admin")
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("SITESCAN_PUBLIC_URL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        value,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// [`admin`] that must succeed: its JSON output.
pub fn admin_ok(dir: &std::path::Path, args: &[&str]) -> Value {
    let (code, value, stderr) = admin(dir, args);
    assert_eq!(code, 0, "sitescan admin {args:?}: {stderr}");
    value
}

/// A `sitescan serve` process on `dir` (one worker, private targets allowed,
/// `extra` arguments appended) on 127.0.0.1:0; killed on drop.
pub struct ServeProcess {
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub base: String,
}

impl ServeProcess {
    pub fn start(dir: &std::path::Path, extra: &[&str]) -> ServeProcess {
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
        .arg(dir)
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
        Self::spawn(cmd)
    }

    /// Runs `cmd` (a `sitescan serve` with its stdout piped) and reads the
    /// address it listens on.
    pub fn spawn(mut cmd: std::process::Command) -> ServeProcess {
        use std::io::BufRead;
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        ServeProcess {
            child,
            base: v["listening"].as_str().unwrap().to_string(),
        }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Calls to an API at some base URL with an API key, for the harnesses that
/// are not a [`TestApi`] (an in-process service with its own settings, a
/// `sitescan serve` process).
pub trait KeyedApi {
    /// `http://127.0.0.1:PORT`.
    fn base(&self) -> &str;

    /// `method path` with `key` and an optional JSON body: status and JSON body.
    async fn send(
        &self,
        method: Method,
        path: &str,
        key: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut b = reqwest::Client::new()
            .request(method, format!("{}{path}", self.base()))
            .header("X-API-Key", key);
        if let Some(body) = body {
            b = b.json(&body);
        }
        call(b).await
    }

    async fn get(&self, path: &str, key: &str) -> (u16, Value) {
        self.send(Method::GET, path, key, None).await
    }

    async fn post(&self, path: &str, key: &str, body: Value) -> (u16, Value) {
        self.send(Method::POST, path, key, Some(body)).await
    }
}

impl KeyedApi for TestApi {
    fn base(&self) -> &str {
        &self.base
    }
}

impl KeyedApi for ServeProcess {
    fn base(&self) -> &str {
        &self.base
    }
}
