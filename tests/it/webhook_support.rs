//! Harness of the webhook tests: a real receiver (axum on 127.0.0.1:0) that
//! records what it gets and answers as scripted, the test's own signature
//! check, and the webhook calls the tests repeat.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use chrono::Utc;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use sitescan_daemon::store::{new_id, Webhook};
use sitescan_daemon::webhooks::verify_signature;

use crate::api_support::KeyedApi;

/// What the receiver got: headers and body of each request.
#[derive(Default)]
pub(crate) struct Receiver {
    pub(crate) got: Mutex<Vec<(HeaderMap, Bytes)>>,
    /// Statuses to answer, in order; 200 once empty.
    script: Mutex<VecDeque<u16>>,
}

async fn receive(
    State(r): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, [(&'static str, &'static str); 1], String) {
    r.got.lock().unwrap().push((headers, body));
    let code = r.script.lock().unwrap().pop_front().unwrap_or(200);
    // A redirect points elsewhere (never followed); other answers are big
    // (only the first 64 KiB are read).
    (
        StatusCode::from_u16(code).unwrap(),
        [("location", "/elsewhere")],
        "x".repeat(200 * 1024),
    )
}

/// Answers 200 with a body that never ends.
async fn endless(State(r): State<Arc<Receiver>>, headers: HeaderMap, body: Bytes) -> Response {
    r.got.lock().unwrap().push((headers, body));
    let chunk = Bytes::from(vec![b'x'; 8192]);
    let stream =
        futures::stream::repeat_with(move || Ok::<_, std::convert::Infallible>(chunk.clone()));
    Response::new(Body::from_stream(stream))
}

/// Answers 200 after half a second.
async fn slow(State(r): State<Arc<Receiver>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    r.got.lock().unwrap().push((headers, body));
    tokio::time::sleep(Duration::from_millis(500)).await;
    StatusCode::OK
}

/// A receiver on 127.0.0.1:0 answering `script` then 200: its `/hook` URL.
pub(crate) async fn start_receiver(script: &[u16]) -> (String, Arc<Receiver>) {
    let r = Arc::new(Receiver::default());
    r.script.lock().unwrap().extend(script.iter().copied());
    let app = Router::new()
        .route("/hook", post(receive))
        .route("/endless", post(endless))
        .route("/slow", post(slow))
        .route("/elsewhere", post(receive))
        .with_state(r.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, r)
}

/// Polls `f` every 20 ms until it is true, panicking after `secs`.
pub(crate) async fn eventually<F, Fut>(secs: u64, what: &str, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The test's own check of `Sitescan-Signature`, independent of the crate's.
pub(crate) fn own_hmac_matches(secret: &str, header: &str, body: &[u8]) -> bool {
    let t = header
        .split(',')
        .find_map(|p| p.strip_prefix("t="))
        .expect("t=");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    let want = hex::encode(mac.finalize().into_bytes());
    header
        .split(',')
        .filter_map(|p| p.strip_prefix("v1="))
        .any(|v| v == want)
}

/// Checks a delivery's `Sitescan-Signature` for `secret` twice (the test's
/// own HMAC and the crate's `verify_signature`, 5 minutes tolerance) and its
/// `Sitescan-Event-Id` against the body: the event.
pub(crate) fn signed_event(secret: &str, headers: &HeaderMap, body: &[u8]) -> Value {
    let sig = headers["sitescan-signature"].to_str().unwrap();
    assert!(own_hmac_matches(secret, sig, body), "bad signature {sig}");
    verify_signature(
        secret,
        sig,
        body,
        Utc::now().timestamp(),
        Duration::from_secs(300),
    )
    .unwrap();
    let event: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(headers["sitescan-event-id"].to_str().unwrap(), event["id"]);
    event
}

pub(crate) fn events_of(r: &Receiver) -> Vec<Value> {
    r.got
        .lock()
        .unwrap()
        .iter()
        .map(|(_, b)| serde_json::from_slice(b).unwrap())
        .collect()
}

/// An enabled webhook of `account` for `events`, made directly in a store,
/// with the secret `whsec_test`.
pub(crate) fn test_webhook(account: &str, url: &str, events: &[&str]) -> Webhook {
    let now = Utc::now();
    Webhook {
        id: new_id("wh").unwrap(),
        account_id: account.into(),
        url: url.into(),
        events: events.iter().map(|e| e.to_string()).collect(),
        site_id: None,
        description: None,
        enabled: true,
        disabled_reason: None,
        secret: "whsec_test".into(),
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now,
        updated_at: now,
    }
}

/// The webhook calls the tests repeat, on any API harness.
pub(crate) trait HookCalls: KeyedApi {
    /// Registers a webhook (`body` as the API takes it), which must answer
    /// 201: its id and its secret (shown this once).
    async fn create_hook(&self, key: &str, body: Value) -> (String, String) {
        let (s, b) = self.post("/api/v1/webhooks", key, body).await;
        assert_eq!(s, 201, "{b}");
        let field = |name: &str| b["data"][name].as_str().unwrap().to_string();
        (field("id"), field("secret"))
    }

    /// The webhook `hook` as the API shows it: status and body.
    async fn hook(&self, hook: &str, key: &str) -> (u16, Value) {
        self.get(&format!("/api/v1/webhooks/{hook}"), key).await
    }

    /// Starts a one-page WCAG AA scan of `site`, which must be accepted (202).
    async fn scan_one_page(&self, key: &str, site: &str) {
        let (s, b) = self
            .post(
                &format!("/api/v1/sites/{site}/scans"),
                key,
                json!({"config": {"rules": ["wcag-aa"], "max_pages": 1}}),
            )
            .await;
        assert_eq!(s, 202, "{b}");
    }

    /// The delivery log of `hook`.
    async fn deliveries(&self, hook: &str, key: &str) -> Vec<Value> {
        let (s, b) = self
            .get(&format!("/api/v1/webhooks/{hook}/deliveries"), key)
            .await;
        assert_eq!(s, 200, "{b}");
        b["data"].as_array().unwrap().clone()
    }
}

impl<T: KeyedApi> HookCalls for T {}
