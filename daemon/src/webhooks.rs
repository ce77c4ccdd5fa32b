//! Webhooks: scan events signed and delivered at least once to registered
//! endpoints.
//!
//! - [`emit`] is called where a scan changes state (the API for `scan.queued`
//!   and `scan.canceled`, the workers for `scan.started`, `scan.completed` and
//!   `scan.failed`): it writes one [`Delivery`] per matching enabled webhook into
//!   the store's durable outbox.
//! - [`spawn_delivery_task`] runs in `serve` (and in fleet workers): it claims
//!   due deliveries with a lease (so a crash leaves them due again: nothing is
//!   lost), POSTs them signed, and records every attempt; failures retry with
//!   exponential backoff and jitter, `410 Gone` disables the endpoint, and an
//!   endpoint failing for longer than [`DeliverySettings::disable_after`] is
//!   disabled with the reason.
//! - [`sign`] and [`verify_signature`] are the `Sitescan-Signature` scheme:
//!   `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (one `v1` per valid
//!   secret while a rotated one is still honoured).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::api::views::ScanView;
use crate::error::{Error, Result};
use crate::store::{
    new_id, Delivery, DeliveryAttempt, DeliveryStatus, Scan, ScanStatus, Store, Webhook,
};

/// Header carrying the signature.
pub const SIGNATURE_HEADER: &str = "Sitescan-Signature";
/// Header carrying the event id (the same on retries: receivers dedupe on it).
pub const EVENT_ID_HEADER: &str = "Sitescan-Event-Id";
/// Header carrying the event type.
pub const EVENT_TYPE_HEADER: &str = "Sitescan-Event-Type";
/// The event types, in a scan's life order.
pub const EVENT_TYPES: &[&str] = &[
    "scan.queued",
    "scan.started",
    "scan.completed",
    "scan.failed",
    "scan.canceled",
];
/// How long the secret before a rotation keeps signing deliveries.
pub const ROTATION_OVERLAP: Duration = Duration::from_secs(24 * 3600);
/// Response bytes read at most per attempt.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;
/// Response bytes kept in the delivery log per attempt.
pub const LOGGED_RESPONSE_BYTES: usize = 1024;

type HmacSha256 = Hmac<Sha256>;

/// The event type sent when a scan reaches `status`.
pub fn event_type_for(status: ScanStatus) -> &'static str {
    match status {
        ScanStatus::Queued => "scan.queued",
        ScanStatus::Running => "scan.started",
        ScanStatus::Completed => "scan.completed",
        ScanStatus::Failed => "scan.failed",
        ScanStatus::Canceled => "scan.canceled",
    }
}

/// A new signing secret: `whsec_` + 32 bytes from the OS RNG, hex.
pub fn new_secret() -> Result<String> {
    let mut random = [0u8; 32];
    getrandom::getrandom(&mut random).map_err(|e| Error::Storage(e.to_string()))?;
    Ok(format!("whsec_{}", hex::encode(random)))
}

fn hmac_hex(secret: &str, t: i64, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so new_from_slice cannot fail here.
    let mut mac = match HmacSha256::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        Err(_) => return String::new(),
    };
    mac.update(format!("{t}.").as_bytes());
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// The `Sitescan-Signature` value for `body` at unix time `t`, one `v1` per secret.
pub fn sign(secrets: &[&str], t: i64, body: &[u8]) -> String {
    let mut out = format!("t={t}");
    for s in secrets {
        out.push_str(",v1=");
        out.push_str(&hmac_hex(s, t, body));
    }
    out
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The header has no `t=` or no `v1=`, or a part is malformed.
    #[error("malformed Sitescan-Signature header")]
    Malformed,
    /// `t` is further from now than the tolerance (a replay, or a skewed clock).
    #[error("timestamp outside the tolerance (replayed or delayed)")]
    Expired,
    /// No `v1` matches the body under this secret.
    #[error("no signature matches")]
    Mismatch,
}

/// Verifies a `Sitescan-Signature` header for `body` with `secret`, refusing a
/// timestamp more than `tolerance` away from `now` (unix seconds). The HMAC is
/// compared in constant time (`hmac`'s `verify_slice`). For receivers in Rust.
pub fn verify_signature(
    secret: &str,
    header: &str,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> std::result::Result<(), SignatureError> {
    let mut t: Option<i64> = None;
    let mut sigs: Vec<Vec<u8>> = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => t = Some(v.parse().map_err(|_| SignatureError::Malformed)?),
            Some(("v1", v)) => sigs.push(hex::decode(v).map_err(|_| SignatureError::Malformed)?),
            Some(_) => {}
            None => return Err(SignatureError::Malformed),
        }
    }
    let t = t.ok_or(SignatureError::Malformed)?;
    if sigs.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if now.abs_diff(t) > tolerance.as_secs() {
        return Err(SignatureError::Expired);
    }
    for sig in sigs {
        let mut mac =
            HmacSha256::new_from_slice(secret.as_bytes()).map_err(|_| SignatureError::Mismatch)?;
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        if mac.verify_slice(&sig).is_ok() {
            return Ok(());
        }
    }
    Err(SignatureError::Mismatch)
}

/// The JSON body of an event.
#[derive(Debug, Clone, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct EventPayload {
    /// `evt_...`; the same on every retry and redelivery.
    pub id: String,
    /// `scan.queued`, `scan.started`, `scan.completed`, `scan.failed` or `scan.canceled`.
    #[serde(rename = "type")]
    pub type_: String,
    /// When the event happened.
    pub created: DateTime<Utc>,
    /// The scan as `GET /api/v1/scans/{id}` returns it.
    pub data: ScanView,
}

/// Writes one delivery of the event "`scan` reached its status" for each
/// enabled webhook of the scan's account that subscribes to it (and whose
/// `site_id` filter, if any, is the scan's site). Returns how many.
pub async fn emit(store: &dyn Store, scan: &Scan) -> Result<usize> {
    let event_type = event_type_for(scan.status);
    let hooks: Vec<Webhook> = store
        .list_webhooks(&scan.account_id)
        .await?
        .into_iter()
        .filter(|w| {
            w.enabled
                && w.events.iter().any(|e| e == event_type)
                && w.site_id.as_ref().is_none_or(|s| *s == scan.site_id)
        })
        .collect();
    if hooks.is_empty() {
        return Ok(0);
    }
    let now = Utc::now();
    let payload = EventPayload {
        id: new_id("evt")?,
        type_: event_type.to_string(),
        created: now,
        data: ScanView::from(scan.clone()),
    };
    let body = serde_json::to_string(&payload).map_err(|e| Error::Corrupt(e.to_string()))?;
    let mut deliveries = Vec::with_capacity(hooks.len());
    for w in hooks {
        deliveries.push(Delivery {
            id: new_id("dlv")?,
            webhook_id: w.id,
            account_id: w.account_id,
            event_id: payload.id.clone(),
            event_type: event_type.to_string(),
            payload: body.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(now),
            created_at: now,
            attempt_log: Vec::new(),
        });
    }
    let n = deliveries.len();
    store.save_deliveries(deliveries).await?;
    Ok(n)
}

/// [`emit`], logging instead of failing: a state change must not fail because
/// its event could not be written.
pub async fn emit_logged(store: &dyn Store, scan: &Scan) {
    if let Err(e) = emit(store, scan).await {
        warn!(scan = %scan.id, error = %e, "could not write the scan's webhook event");
    }
}

/// How deliveries are made.
#[derive(Debug, Clone)]
pub struct DeliverySettings {
    /// Allow http and loopback/private targets (`serve --allow-private`).
    pub allow_private: bool,
    /// Time limit of one attempt.
    pub timeout: Duration,
    /// Wait before attempt 2, 3, ...: attempts at most = len + 1. Each wait is
    /// varied by up to ±20% (jitter) so endpoints are not hit in waves.
    pub retry_delays: Vec<Duration>,
    /// An endpoint failing without a success for this long is disabled.
    pub disable_after: Duration,
    /// How often the outbox is polled for due deliveries.
    pub poll_every: Duration,
}

impl DeliverySettings {
    /// The defaults: 10 s per attempt, 8 attempts over about 28 hours
    /// (1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), disabled after 3 days of
    /// failures, outbox polled every second.
    pub fn new(allow_private: bool) -> Self {
        let m = |mins: u64| Duration::from_secs(mins * 60);
        DeliverySettings {
            allow_private,
            timeout: Duration::from_secs(10),
            retry_delays: vec![m(1), m(5), m(30), m(120), m(300), m(600), m(600)],
            disable_after: Duration::from_secs(3 * 24 * 3600),
            poll_every: Duration::from_secs(1),
        }
    }

    /// Attempts made at most per delivery.
    pub fn max_attempts(&self) -> u32 {
        self.retry_delays.len() as u32 + 1
    }

    /// The wait after failed attempt number `attempts` (1-based), with jitter.
    pub fn backoff(&self, attempts: u32) -> Duration {
        let base = self
            .retry_delays
            .get(attempts.saturating_sub(1) as usize)
            .or(self.retry_delays.last())
            .copied()
            .unwrap_or(Duration::from_secs(60));
        let mut r = [0u8; 2];
        let unit = match getrandom::getrandom(&mut r) {
            Ok(()) => u16::from_le_bytes(r) as f64 / u16::MAX as f64,
            Err(_) => 0.5,
        };
        base.mul_f64(0.8 + 0.4 * unit)
    }
}

/// Checks a webhook target: absolute https (http too when private targets are
/// allowed), a host, and not an IP literal the crawler's SSRF guard refuses.
/// Host names are checked again after DNS at each attempt.
pub fn check_target(raw: &str, allow_private: bool) -> std::result::Result<url::Url, String> {
    if raw.len() > 2048 {
        return Err("longer than 2048 characters".to_string());
    }
    let url = url::Url::parse(raw.trim()).map_err(|e| format!("not an absolute URL: {e}"))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        "http" => return Err("the scheme must be https".to_string()),
        _ => return Err("the scheme must be https".to_string()),
    }
    let Some(host) = url.host_str() else {
        return Err("the URL has no host".to_string());
    };
    if !allow_private {
        let h = host.trim_end_matches('.').to_ascii_lowercase();
        if h == "localhost" || h.ends_with(".localhost") {
            return Err("loopback, private and link-local addresses are refused".to_string());
        }
        sitescan_engine::crawl::ssrf::check_literal(&url)
            .map_err(|e| format!("{e}: loopback, private and link-local addresses are refused"))?;
    }
    Ok(url)
}

/// The HTTP client of deliveries: no redirects, the attempt timeout, and the
/// SSRF guard as resolver unless private targets are allowed.
pub fn client(settings: &DeliverySettings) -> Result<reqwest::Client> {
    let mut b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(settings.timeout)
        .user_agent(concat!("sitescan-webhooks/", env!("CARGO_PKG_VERSION")));
    if !settings.allow_private {
        b = b.dns_resolver(Arc::new(sitescan_engine::crawl::ssrf::GuardedResolver));
    }
    b.build()
        .map_err(|e| Error::Config(format!("webhook HTTP client: {e}")))
}

/// Spawns [`run_deliveries`] (after checking the HTTP client can be built).
pub fn spawn_delivery_task(
    store: Arc<dyn Store>,
    settings: DeliverySettings,
    shutdown: watch::Receiver<bool>,
) -> Result<tokio::task::JoinHandle<()>> {
    client(&settings)?;
    Ok(tokio::spawn(run_deliveries(store, settings, shutdown)))
}

/// The delivery loop: attempts due deliveries until `shutdown` turns true.
pub async fn run_deliveries(
    store: Arc<dyn Store>,
    settings: DeliverySettings,
    mut shutdown: watch::Receiver<bool>,
) {
    let http = match client(&settings) {
        Ok(c) => c,
        Err(e) => {
            warn!(error = %e, "webhook deliveries cannot run");
            return;
        }
    };
    {
        loop {
            if *shutdown.borrow() {
                return;
            }
            match deliver_due(&*store, &http, &settings).await {
                Ok(n) if n > 0 => continue,
                Ok(_) => {}
                Err(e) => warn!(error = %e, "webhook outbox unavailable"),
            }
            tokio::select! {
                _ = tokio::time::sleep(settings.poll_every) => {}
                _ = shutdown.changed() => {}
            }
        }
    }
}

/// Claims due deliveries and attempts each once (concurrently); returns how
/// many were attempted.
pub async fn deliver_due(
    store: &dyn Store,
    http: &reqwest::Client,
    settings: &DeliverySettings,
) -> Result<usize> {
    let now = Utc::now();
    let lease = chrono::Duration::from_std(settings.timeout + Duration::from_secs(30))
        .unwrap_or(chrono::Duration::seconds(60));
    let due = store.claim_due_deliveries(now, now + lease, 16).await?;
    let n = due.len();
    let attempts = due.into_iter().map(|d| attempt(store, http, settings, d));
    for r in futures::future::join_all(attempts).await {
        if let Err(e) = r {
            warn!(error = %e, "could not record a webhook attempt; it is retried after its lease");
        }
    }
    Ok(n)
}

enum Answer {
    Status(u16, String),
    Error(String),
}

async fn post(http: &reqwest::Client, hook: &Webhook, d: &Delivery, allow_private: bool) -> Answer {
    if let Err(e) = check_target(&hook.url, allow_private) {
        return Answer::Error(format!("target refused: {e}"));
    }
    let now = Utc::now();
    let mut secrets = vec![hook.secret.as_str()];
    if let (Some(old), Some(until)) = (&hook.previous_secret, hook.previous_secret_expires_at) {
        if until > now {
            secrets.push(old.as_str());
        }
    }
    let signature = sign(&secrets, now.timestamp(), d.payload.as_bytes());
    let sent = http
        .post(&hook.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(SIGNATURE_HEADER, signature)
        .header(EVENT_ID_HEADER, &d.event_id)
        .header(EVENT_TYPE_HEADER, &d.event_type)
        .body(d.payload.clone())
        .send()
        .await;
    let mut resp = match sent {
        Ok(r) => r,
        Err(e) => return Answer::Error(error_chain(&e)),
    };
    let status = resp.status().as_u16();
    let mut body = Vec::new();
    // Read at most MAX_RESPONSE_BYTES; the rest is never read.
    while body.len() < MAX_RESPONSE_BYTES {
        match resp.chunk().await {
            Ok(Some(c)) => {
                body.extend_from_slice(&c[..c.len().min(MAX_RESPONSE_BYTES - body.len())])
            }
            _ => break,
        }
    }
    body.truncate(LOGGED_RESPONSE_BYTES);
    Answer::Status(status, String::from_utf8_lossy(&body).into_owned())
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

/// One attempt of `d`: POST, log, then schedule a retry, finish, or disable.
async fn attempt(
    store: &dyn Store,
    http: &reqwest::Client,
    settings: &DeliverySettings,
    mut d: Delivery,
) -> Result<()> {
    let Some(mut hook) = store.webhook_by_id(&d.webhook_id).await? else {
        d.status = DeliveryStatus::Failed;
        d.next_attempt_at = None;
        return store.save_deliveries(vec![d]).await;
    };
    if !hook.enabled {
        d.status = DeliveryStatus::Failed;
        d.next_attempt_at = None;
        return store.save_deliveries(vec![d]).await;
    }
    let started = Utc::now();
    let clock = Instant::now();
    let answer = post(http, &hook, &d, settings.allow_private).await;
    let latency_ms = clock.elapsed().as_millis() as u64;
    d.attempts += 1;
    let (status, error, body) = match answer {
        Answer::Status(s, b) => (Some(s), None, Some(b)),
        Answer::Error(e) => (None, Some(e), None),
    };
    d.attempt_log.push(DeliveryAttempt {
        at: started,
        response_status: status,
        latency_ms,
        error,
        response_body: body,
    });
    let now = Utc::now();
    let mut hook_changed = false;
    match status {
        Some(s) if (200..300).contains(&s) => {
            d.status = DeliveryStatus::Succeeded;
            d.next_attempt_at = None;
            if hook.failing_since.take().is_some() {
                hook_changed = true;
            }
        }
        Some(410) => {
            d.status = DeliveryStatus::Failed;
            d.next_attempt_at = None;
            hook.enabled = false;
            hook.disabled_reason = Some("the endpoint answered 410 Gone".to_string());
            hook_changed = true;
            info!(webhook = %hook.id, "webhook disabled: 410 Gone");
        }
        _ => {
            let since = *hook.failing_since.get_or_insert(started);
            hook_changed = true;
            let failing_for = (now - since).to_std().unwrap_or_default();
            if failing_for >= settings.disable_after {
                hook.enabled = false;
                hook.disabled_reason = Some(format!(
                    "every delivery failed for {} hours (since {})",
                    failing_for.as_secs() / 3600,
                    since.to_rfc3339()
                ));
                info!(webhook = %hook.id, "webhook disabled: failing for too long");
            }
            if d.attempts >= settings.max_attempts() || !hook.enabled {
                d.status = DeliveryStatus::Failed;
                d.next_attempt_at = None;
            } else {
                let wait = chrono::Duration::from_std(settings.backoff(d.attempts))
                    .unwrap_or(chrono::Duration::hours(1));
                d.next_attempt_at = Some(now + wait);
            }
        }
    }
    store.save_deliveries(vec![d]).await?;
    if hook_changed {
        // Re-read so a concurrent update through the API is not overwritten
        // beyond the fields the delivery owns.
        if let Some(mut current) = store.webhook_by_id(&hook.id).await? {
            current.failing_since = hook.failing_since;
            if !hook.enabled {
                current.enabled = false;
                current.disabled_reason = hook.disabled_reason;
            }
            store.save_webhook(current).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_and_refuse_tampering_and_replays() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(&["whsec_a", "whsec_b"], 1_000, body);
        let tol = Duration::from_secs(300);
        assert_eq!(
            verify_signature("whsec_a", &header, body, 1_100, tol),
            Ok(())
        );
        assert_eq!(
            verify_signature("whsec_b", &header, body, 1_100, tol),
            Ok(())
        );
        assert_eq!(
            verify_signature("whsec_c", &header, body, 1_100, tol),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_signature("whsec_a", &header, b"{}", 1_100, tol),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_signature("whsec_a", &header, body, 1_301, tol),
            Err(SignatureError::Expired)
        );
        assert_eq!(
            verify_signature("whsec_a", "t=x,v1=00", body, 0, tol),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify_signature("whsec_a", "t=1000", body, 1_000, tol),
            Err(SignatureError::Malformed)
        );
    }

    #[test]
    fn targets_follow_the_service_mode() {
        assert!(check_target("https://hooks.example.com/x", false).is_ok());
        assert!(check_target("http://hooks.example.com/x", false).is_err());
        assert!(check_target("https://127.0.0.1/x", false).is_err());
        assert!(check_target("https://10.0.0.1/x", false).is_err());
        assert!(check_target("https://169.254.169.254/", false).is_err());
        assert!(check_target("https://localhost/", false).is_err());
        assert!(check_target("ftp://example.com/", true).is_err());
        assert!(check_target("http://127.0.0.1:8080/x", true).is_ok());
    }

    #[test]
    fn backoff_grows_with_bounded_jitter() {
        let s = DeliverySettings::new(false);
        assert_eq!(s.max_attempts(), 8);
        let total: Duration = s.retry_delays.iter().sum();
        assert!(total > Duration::from_secs(20 * 3600) && total < Duration::from_secs(30 * 3600));
        for a in 1..8 {
            let base = s.retry_delays[a as usize - 1];
            let d = s.backoff(a);
            assert!(
                d >= base.mul_f64(0.8) && d <= base.mul_f64(1.2),
                "{a}: {d:?}"
            );
        }
    }
}
