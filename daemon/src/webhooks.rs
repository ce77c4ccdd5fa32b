//! Webhooks: scan events signed and delivered at least once to registered
//! endpoints.
//!
//! - **Transactional outbox.** Events are not written by the callers of the
//!   store: each scan transition of the [`Store`] (`create_scan_if_quota`,
//!   `start_scan`, `finish_scan`, `cancel_scan`, and the Redis backend's
//!   `requeue_scan`) writes the scan AND one pending [`Delivery`] per matching
//!   webhook ([`Webhook::wants`]) in the same atomic write (one redb write
//!   transaction; one Lua script on Redis). A status that is visible therefore
//!   always has its event in the outbox, and a crash can lose neither alone.
//!   The event id and its `created` time are fixed at the transition; the body
//!   is [`event_body`] of the scan as the transition left it (the embedded
//!   store renders it inside its transaction; the Redis script stores the
//!   scan's fields and the body is rendered from them when the delivery is
//!   first read, which gives the same bytes).
//! - [`spawn_delivery_task`] runs in `serve` (and in fleet workers): it claims
//!   due deliveries with a lease (so a crash leaves them due again: nothing is
//!   lost), POSTs them signed, and records every attempt; failures retry with
//!   exponential backoff and jitter, `410 Gone` disables the endpoint, and an
//!   endpoint failing for longer than [`DeliverySettings::disable_after`] is
//!   disabled with the reason. One endpoint's deliveries of a batch are sent
//!   one after the other in event order; different endpoints in parallel.
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

use crate::error::{Error, Result};
use crate::store::{Delivery, DeliveryAttempt, DeliveryStatus, Scan, ScanStatus, Store, Webhook};
use crate::views::ScanView;

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
    "scan.regressed",
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
    crate::secrets::new_token("whsec_", 32)
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

/// Why a `Sitescan-Signature` header was refused: a plain reason, not an
/// error type of its own (the crate has one error type, and
/// [`verify_signature`] fails with [`Error::Signature`] carrying it). It
/// lives with the error, below this module.
pub use crate::error::SignatureProblem;

/// Verifies a `Sitescan-Signature` header for `body` with `secret`, refusing a
/// timestamp more than `tolerance` away from `now` (unix seconds). The HMAC is
/// compared in constant time (`hmac`'s `verify_slice`). For receivers in Rust;
/// a refusal is [`Error::Signature`] with the reason.
pub fn verify_signature(
    secret: &str,
    header: &str,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> Result<()> {
    let refuse = |p: SignatureProblem| Error::Signature(p);
    let mut t: Option<i64> = None;
    let mut sigs: Vec<Vec<u8>> = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => t = Some(v.parse().map_err(|_| refuse(SignatureProblem::Malformed))?),
            Some(("v1", v)) => {
                sigs.push(hex::decode(v).map_err(|_| refuse(SignatureProblem::Malformed))?)
            }
            Some(_) => {}
            None => return Err(refuse(SignatureProblem::Malformed)),
        }
    }
    let t = t.ok_or_else(|| refuse(SignatureProblem::Malformed))?;
    if sigs.is_empty() {
        return Err(refuse(SignatureProblem::Malformed));
    }
    if now.abs_diff(t) > tolerance.as_secs() {
        return Err(refuse(SignatureProblem::Expired));
    }
    for sig in sigs {
        let mut mac = HmacSha256::new_from_slice(secret.as_bytes())
            .map_err(|_| refuse(SignatureProblem::Mismatch))?;
        mac.update(format!("{t}.").as_bytes());
        mac.update(body);
        if mac.verify_slice(&sig).is_ok() {
            return Ok(());
        }
    }
    Err(refuse(SignatureProblem::Mismatch))
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

/// The exact JSON body of the event "`scan` reached its status", with the
/// event's id and time fixed by the transition. Deterministic: the same inputs
/// give the same bytes, which is what lets the Redis backend render it from
/// the scan snapshot its transition script stored.
pub fn event_body(event_id: &str, created: DateTime<Utc>, scan: &Scan) -> Result<String> {
    let payload = EventPayload {
        id: event_id.to_string(),
        type_: event_type_for(scan.status).to_string(),
        created,
        data: ScanView::from(scan.clone()),
    };
    serde_json::to_string(&payload).map_err(|e| Error::Corrupt(e.to_string()))
}

/// The id of the `n`-th delivery (1-based) of event `event_id`: the event id's
/// time-ordered digits followed by `n` as two hex digits. Deliveries of one
/// event then need no random ids of their own (the Redis transition script
/// builds the same ids from the event id), and they still sort by creation
/// time among all deliveries, which the delivery log's newest-first order
/// relies on.
pub fn delivery_id(event_id: &str, n: usize) -> String {
    let digits = event_id.strip_prefix("evt_").unwrap_or(event_id);
    format!("dlv_{digits}{n:02x}")
}

/// The outbox entries of the event "`scan` reached its status" at `at`: one
/// pending delivery, due at once, for each of `hooks` that
/// [`Webhook::wants`] it. The embedded store calls this inside the
/// transition's write transaction.
pub fn event_deliveries(
    hooks: &[Webhook],
    scan: &Scan,
    event_id: &str,
    at: DateTime<Utc>,
) -> Result<Vec<Delivery>> {
    let event_type = event_type_for(scan.status);
    let wanting: Vec<&Webhook> = hooks
        .iter()
        .filter(|w| w.account_id == scan.account_id && w.wants(event_type, &scan.site_id))
        .collect();
    if wanting.is_empty() {
        return Ok(Vec::new());
    }
    let body = event_body(event_id, at, scan)?;
    Ok(wanting
        .into_iter()
        .enumerate()
        .map(|(i, w)| Delivery {
            id: delivery_id(event_id, i + 1),
            webhook_id: w.id.clone(),
            account_id: w.account_id.clone(),
            event_id: event_id.to_string(),
            event_type: event_type.to_string(),
            payload: body.clone(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(at),
            created_at: at,
            attempt_log: Vec::new(),
        })
        .collect())
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

/// What a webhook target on a private address is told.
const PRIVATE_TARGET: &str = "loopback, private and link-local addresses are refused";

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
    let Some(host) = url.host() else {
        return Err("the URL has no host".to_string());
    };
    if !allow_private && sitescan_engine::crawl::ssrf::is_private_host(&host) {
        return Err(match host {
            url::Host::Domain(_) => PRIVATE_TARGET.to_string(),
            ip => format!("{ip} is a private or local address: {PRIVATE_TARGET}"),
        });
    }
    Ok(url)
}

/// The HTTP client of deliveries: no redirects, the attempt timeout, the SSRF
/// guard as resolver unless private targets are allowed, and no proxy.
///
/// Proxy environment variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) are
/// ignored: through a proxy the target name is resolved by the proxy, so the
/// guard (a resolver here) would never see the address a webhook reaches, and
/// a target resolving to a private address would be tunnelled to it.
pub fn client(settings: &DeliverySettings) -> Result<reqwest::Client> {
    let mut b = reqwest::Client::builder()
        .no_proxy()
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
            match deliver_due(&*store, &http, &settings, &shutdown).await {
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

/// Deliveries claimed per round.
const CLAIM_BATCH: usize = 16;

/// Claims due deliveries and attempts each once; returns how many were
/// attempted. One endpoint's deliveries go one after the other, oldest event
/// first (delivery ids sort by event time), so a receiver that answers sees
/// a scan's events in the order they happened; different endpoints are served
/// in parallel. The lease covers the whole batch of one endpoint; when
/// `shutdown` turns true, the deliveries not attempted yet are handed back
/// (due at once) instead of waiting for their lease to end.
pub async fn deliver_due(
    store: &dyn Store,
    http: &reqwest::Client,
    settings: &DeliverySettings,
    shutdown: &watch::Receiver<bool>,
) -> Result<usize> {
    let now = Utc::now();
    let lease = chrono::Duration::from_std(
        (settings.timeout + Duration::from_secs(5)) * CLAIM_BATCH as u32 + Duration::from_secs(30),
    )
    .unwrap_or(chrono::Duration::minutes(10));
    let mut due = store
        .claim_due_deliveries(now, now + lease, CLAIM_BATCH)
        .await?;
    let n = due.len();
    due.sort_by(|a, b| (&a.webhook_id, &a.id).cmp(&(&b.webhook_id, &b.id)));
    let mut by_hook: Vec<Vec<Delivery>> = Vec::new();
    for d in due {
        match by_hook.last_mut() {
            Some(group) if group[0].webhook_id == d.webhook_id => group.push(d),
            _ => by_hook.push(vec![d]),
        }
    }
    let rounds = by_hook.into_iter().map(|group| async move {
        let mut group = group.into_iter();
        for d in group.by_ref() {
            if let Err(e) = attempt(store, http, settings, d).await {
                warn!(error = %e, "could not record a webhook attempt; it is retried after its lease");
            }
            if *shutdown.borrow() {
                break;
            }
        }
        let rest: Vec<Delivery> = group
            .map(|mut d| {
                d.next_attempt_at = Some(Utc::now());
                d
            })
            .collect();
        if !rest.is_empty() {
            if let Err(e) = store.save_deliveries(rest).await {
                warn!(error = %e, "could not hand back webhook deliveries; they are due after their lease");
            }
        }
    });
    futures::future::join_all(rounds).await;
    Ok(n)
}

/// The secrets that sign a delivery made at `now`: the current one, and the
/// one before the last rotation until its overlap ([`ROTATION_OVERLAP`]) ends.
pub fn signing_secrets(hook: &Webhook, now: DateTime<Utc>) -> Vec<&str> {
    let mut secrets = vec![hook.secret.as_str()];
    if let (Some(old), Some(until)) = (&hook.previous_secret, hook.previous_secret_expires_at) {
        if until > now {
            secrets.push(old.as_str());
        }
    }
    secrets
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
    let signature = sign(
        &signing_secrets(hook, now),
        now.timestamp(),
        d.payload.as_bytes(),
    );
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

    fn refused(r: Result<()>) -> Option<SignatureProblem> {
        match r {
            Err(Error::Signature(p)) => Some(p),
            Ok(()) => None,
            Err(other) => panic!("unexpected error {other}"),
        }
    }

    #[test]
    fn signatures_verify_and_refuse_tampering_and_replays() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(&["whsec_a", "whsec_b"], 1_000, body);
        let tol = Duration::from_secs(300);
        let check = |secret: &str, header: &str, body: &[u8], now: i64| {
            refused(verify_signature(secret, header, body, now, tol))
        };
        assert_eq!(check("whsec_a", &header, body, 1_100), None);
        assert_eq!(check("whsec_b", &header, body, 1_100), None);
        assert_eq!(check("whsec_a", &header, body, 700), None, "skew both ways");
        assert_eq!(
            check("whsec_c", &header, body, 1_100),
            Some(SignatureProblem::Mismatch)
        );
        assert_eq!(
            check("whsec_a", &header, b"{}", 1_100),
            Some(SignatureProblem::Mismatch)
        );
        assert_eq!(
            check("whsec_a", &header, body, 1_301),
            Some(SignatureProblem::Expired)
        );
        assert_eq!(
            check("whsec_a", "t=x,v1=00", body, 0),
            Some(SignatureProblem::Malformed)
        );
        assert_eq!(
            check("whsec_a", "t=1000", body, 1_000),
            Some(SignatureProblem::Malformed)
        );
        assert_eq!(
            check("whsec_a", "t=1000,v1=zz", body, 1_000),
            Some(SignatureProblem::Malformed)
        );
        let e = verify_signature("whsec_a", "garbage", body, 0, tol).unwrap_err();
        assert_eq!(
            e.to_string(),
            "webhook signature refused: malformed Sitescan-Signature header"
        );
    }

    fn hook(id: &str, events: &[&str], site: Option<&str>, enabled: bool) -> Webhook {
        let now = Utc::now();
        Webhook {
            id: id.into(),
            account_id: "acc_1".into(),
            url: "https://hooks.example.com/".into(),
            events: events.iter().map(|e| e.to_string()).collect(),
            site_id: site.map(str::to_string),
            description: None,
            enabled,
            disabled_reason: None,
            secret: "whsec_new".into(),
            previous_secret: None,
            previous_secret_expires_at: None,
            failing_since: None,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn a_rotated_secret_signs_until_its_overlap_ends() {
        let now = Utc::now();
        let mut h = hook("wh_1", &["scan.queued"], None, true);
        assert_eq!(signing_secrets(&h, now), ["whsec_new"]);
        h.previous_secret = Some("whsec_old".into());
        h.previous_secret_expires_at = Some(now + chrono::Duration::hours(24));
        assert_eq!(signing_secrets(&h, now), ["whsec_new", "whsec_old"]);
        let later = now + chrono::Duration::hours(24) + chrono::Duration::seconds(1);
        assert_eq!(signing_secrets(&h, later), ["whsec_new"]);
    }

    #[test]
    fn an_event_goes_to_the_enabled_subscribed_hooks_of_its_site() {
        let at = Utc::now();
        let mut scan =
            crate::store::fixture::scan("scan_1", "site_1", "acc_1", "https://example.com/");
        scan.config.rules = vec!["seo".into()];
        scan.created_at = at;
        let mut foreign = hook("wh_f", &["scan.queued"], None, true);
        foreign.account_id = "acc_2".into();
        let hooks = [
            hook("wh_all", EVENT_TYPES, None, true),
            hook("wh_done", &["scan.completed"], None, true),
            hook("wh_off", &["scan.queued"], None, false),
            hook("wh_site", &["scan.queued"], Some("site_1"), true),
            hook("wh_other", &["scan.queued"], Some("site_2"), true),
            foreign,
        ];
        let out =
            event_deliveries(&hooks, &scan, "evt_0123456789abcd0011223344556677", at).unwrap();
        let ids: Vec<(&str, &str)> = out
            .iter()
            .map(|d| (d.id.as_str(), d.webhook_id.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("dlv_0123456789abcd001122334455667701", "wh_all"),
                ("dlv_0123456789abcd001122334455667702", "wh_site"),
            ]
        );
        let body: serde_json::Value = serde_json::from_str(&out[0].payload).unwrap();
        assert_eq!(body["id"], "evt_0123456789abcd0011223344556677");
        assert_eq!(body["type"], "scan.queued");
        assert_eq!(body["data"]["status"], "queued");
        assert_eq!(body["data"]["links"]["self"], "/api/v1/scans/scan_1");
        let created: DateTime<Utc> = serde_json::from_value(body["created"].clone()).unwrap();
        assert_eq!(created, at);
        assert!(out.iter().all(|d| d.status == DeliveryStatus::Pending
            && d.next_attempt_at == Some(at)
            && d.created_at == at
            && d.event_type == "scan.queued"));
        assert_eq!(
            event_body("evt_0123456789abcd0011223344556677", at, &scan).unwrap(),
            out[0].payload,
            "the body is deterministic"
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
