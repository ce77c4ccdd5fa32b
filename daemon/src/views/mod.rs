//! What the service sends and accepts beyond the stored records: the scan as
//! shown (with links), the calling key's view, request bodies, webhook
//! resources ([`webhooks`]), report downloads ([`download`]) and render
//! mode's pictures ([`picture`]). Every type here but [`download`] and
//! [`picture`] is in the OpenAPI document. Below the API, the
//! dashboard and webhook delivery (which sends [`ScanView`]s), so none of
//! them imports another for its types.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;
use utoipa::ToSchema;

pub mod download;
pub mod marks;
pub mod picture;
pub mod schedules;
pub mod webhooks;

use crate::store::{ApiKey, AppliedConfig, Plan, Progress, Scan, ScanStatus, ScanSummary};

/// Links of a scan.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScanLinks {
    /// This scan.
    #[serde(rename = "self")]
    pub self_: String,
    /// Its report (409 `report_not_ready` until completed).
    pub report: String,
    /// Cancels it.
    pub cancel: String,
    /// The scanned site.
    pub site: String,
}

/// A scan as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScanView {
    /// `scan_...`.
    pub id: String,
    /// The scanned site.
    pub site_id: String,
    /// The start URL.
    pub url: String,
    /// `queued` -> `running` -> `completed` | `failed` | `canceled`.
    pub status: ScanStatus,
    /// Configuration as applied, plan caps included.
    pub config: AppliedConfig,
    /// Where the scan is (while running; the last values once finished):
    /// its phase, pages done and queued, links checked of links to check.
    pub progress: Option<Progress>,
    /// Why it failed.
    pub error: Option<String>,
    /// Times a worker started it.
    pub attempts: u32,
    /// When it was requested.
    pub created_at: DateTime<Utc>,
    /// When a worker (last) started it.
    pub started_at: Option<DateTime<Utc>>,
    /// When it reached a terminal status.
    pub finished_at: Option<DateTime<Utc>>,
    /// Counts by category and impact and scores, once completed.
    pub summary: Option<ScanSummary>,
    /// True when this scan no longer counts against the day's quota: it was
    /// canceled while still queued, or failed before its first page was
    /// checked (the site unreachable, its address refused, ...). A scan that
    /// checked a page, completed, or was canceled while running keeps
    /// counting.
    pub quota_refunded: bool,
    /// The schedule that started it (`sch_...`); absent for a scan asked
    /// for through the API or the dashboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_id: Option<String>,
    /// The time (UTC) of the schedule's run that started it; absent for a
    /// scan not started by a schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_for: Option<DateTime<Utc>>,
    /// Why a queued scan is not being taken, when no worker able to run it
    /// is alive (a render scan while no `sitescan worker --render` runs);
    /// absent otherwise. It waits, and starts once such a worker runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_reason: Option<WaitingReason>,
    /// Where to go next.
    pub links: ScanLinks,
}

impl From<Scan> for ScanView {
    fn from(s: Scan) -> Self {
        let base = format!("/api/v1/scans/{}", s.id);
        ScanView {
            links: ScanLinks {
                report: format!("{base}/report"),
                cancel: format!("{base}/cancel"),
                site: format!("/api/v1/sites/{}", s.site_id),
                self_: base,
            },
            id: s.id,
            site_id: s.site_id,
            url: s.url,
            status: s.status,
            config: s.config,
            progress: s.progress,
            error: s.error,
            attempts: s.attempts,
            created_at: s.created_at,
            started_at: s.started_at,
            finished_at: s.finished_at,
            summary: s.summary,
            quota_refunded: s.quota_refunded,
            schedule_id: s.schedule_id,
            scheduled_for: s.scheduled_for,
            waiting_reason: None,
        }
    }
}

/// Why a queued scan waits: a stable `code` to branch on and a `message`
/// for a person, as in the error envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WaitingReason {
    /// `no_render_worker`: a render scan, and no worker that can render
    /// (`sitescan worker --render`) was heard from in the last 15 seconds
    /// (`queue::RENDER_PRESENCE_TTL`).
    #[schema(example = "no_render_worker")]
    pub code: String,
    /// What is going on and what would end the wait.
    #[schema(
        example = "no worker that can render (sitescan worker --render) is running; the scan waits in the queue and starts once one does"
    )]
    pub message: String,
}

impl WaitingReason {
    /// The code of [`WaitingReason::no_render_worker`].
    pub const NO_RENDER_WORKER: &'static str = "no_render_worker";

    /// A render scan with no render-capable worker alive.
    pub fn no_render_worker() -> Self {
        WaitingReason {
            code: Self::NO_RENDER_WORKER.to_string(),
            message: "no worker that can render (sitescan worker --render) is running; the scan waits in the queue and starts once one does".to_string(),
        }
    }
}

/// Answer of `DELETE /sites/{siteId}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SiteDeleted {
    /// The removed site.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}

/// Answer of `/healthz` and `/readyz`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Status {
    /// `ok`.
    pub status: String,
    /// On `/readyz`: whether render scans (`config.render: true`) can run
    /// now. The service stays ready without them (static scans run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderReadiness>,
}

/// What `/readyz` says of render scans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RenderReadiness {
    /// Whether a render scan started now can run: this service's workers
    /// render and their browser starts (or has not been needed yet), or, on a
    /// fleet, a `sitescan worker --render` is alive.
    pub available: bool,
    /// Why not, saying what to install or start; absent when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// After the browser failed to start: seconds until the next render scan
    /// tries to start it again (0: the next one does). Render scans fail at
    /// once, with `problem`, until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_in_s: Option<u64>,
}

/// The account a key belongs to, and its plan limits today.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccountView {
    /// `acc_...`.
    pub id: String,
    /// Display name.
    pub name: Option<String>,
    /// Plan.
    pub plan: Plan,
    /// Scans allowed per UTC day (`null`: unlimited).
    pub scans_per_day: Option<u32>,
    /// Scans created today (UTC).
    pub scans_today: u32,
    /// Pages per scan at most (`null`: unlimited).
    pub max_pages_per_scan: Option<usize>,
}

/// The calling key's record (never its secret) and usage.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct KeyView {
    /// `kid_...`.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// First characters of the key.
    pub prefix: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it stops working (`null`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// Last authenticated request (before this one).
    pub last_used_at: Option<DateTime<Utc>>,
    /// Authenticated requests per UTC day (`YYYY-MM-DD`).
    pub usage: BTreeMap<String, u64>,
    /// Its account.
    pub account: AccountView,
}

impl KeyView {
    /// The view of `key` with its account's limits.
    pub fn new(key: ApiKey, account: AccountView) -> Self {
        KeyView {
            id: key.id,
            name: key.name,
            description: key.description,
            prefix: key.prefix,
            created_at: key.created_at,
            expires_at: key.expires_at,
            last_used_at: key.last_used_at,
            usage: key.usage,
            account,
        }
    }
}

/// Body of `POST /sites`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSite {
    /// Absolute http(s) URL where scans start.
    #[schema(
        pattern = "^https?://[a-z0-9.-]+(:[0-9]{1,5})?/",
        max_length = 2048,
        example = "https://example.com/"
    )]
    pub url: String,
    /// Display name, 1 to 200 characters (defaults to the host).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, example = "Example shop")]
    pub name: Option<String>,
}

/// Body of `PATCH /sites/{siteId}`: the settings to change (others are kept).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSite {
    /// Display name, 1 to 200 characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, example = "Example shop")]
    pub name: Option<String>,
    /// The least impact of a new failed finding that sends `scan.regressed`:
    /// `minor`, `moderate`, `serious` (the default) or `critical`.
    #[serde(default)]
    #[schema(example = "serious")]
    pub regression_threshold: Option<String>,
}

/// Which link and resource URLs a scan requests to check their status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinksParam {
    /// Every link and resource, on any host (the default).
    All,
    /// Only those on the scanned site's hosts; others are left unchecked
    /// (a verdict that does not depend on other people's servers).
    Internal,
    /// Nothing beyond what the crawl fetches anyway.
    #[serde(rename = "none")]
    Off,
}

impl From<LinksParam> for sitescan_engine::LinkScope {
    fn from(p: LinksParam) -> Self {
        match p {
            LinksParam::All => sitescan_engine::LinkScope::All,
            LinksParam::Internal => sitescan_engine::LinkScope::Internal,
            LinksParam::Off => sitescan_engine::LinkScope::None,
        }
    }
}

/// `config` of a scan request.
#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanRequestConfig {
    /// Rule sets (`wcag-a`, `wcag-aa`, `best-practice`, `review`, `accessibility`, `seo`,
    /// `security`, `performance`, `quality`, `all`) and rule ids. Required on the
    /// generic endpoint; on a type-specific one it defaults to that type and must
    /// stay within it.
    #[serde(default)]
    #[schema(min_items = 1, max_items = 50, example = json!(["wcag-aa"]))]
    pub rules: Option<Vec<String>>,
    /// `low`, `normal` (default) or `high`.
    #[serde(default)]
    pub priority: Option<Priority>,
    /// Pages fetched at most (1..=100000; capped by the plan).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 100000)]
    pub max_pages: Option<u64>,
    /// Link depth followed at most (0..=50; default 10).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 50)]
    pub max_depth: Option<u64>,
    /// Final statuses of link and resource checks that count as working
    /// (`broken-links`, `broken-resources`), lychee's syntax: `403`, `200..=299`,
    /// `200..300`, `..=299`, `500..`; codes 100..=999. Default `["100..=399"]`.
    #[serde(default)]
    #[schema(min_items = 1, max_items = 50, example = json!(["200..=299", "403"]))]
    pub accept: Option<Vec<String>>,
    /// Each page's analysis budget. Every limit may be lowered from the
    /// service's ceiling (its operator's `serve`/`worker` budget flags; the
    /// defaults unless raised), never raised past it; limits not given take
    /// the default held under the ceiling. A page over any limit gets an
    /// `analysis-incomplete` finding naming it, and the scan goes on.
    #[serde(default, deserialize_with = "object_only")]
    pub budget: Option<BudgetParam>,
    /// Which link and resource URLs are requested to check them
    /// (`broken-links`, `broken-resources`): `all` (default), `internal` or
    /// `none`; the CLI's `--links`. The scan's `progress` shows the link
    /// phase (`phase: "links"`, `links_checked` of `links_total`).
    #[serde(default)]
    pub links: Option<LinksParam>,
    /// Only URLs matching at least one of these regular expressions are
    /// crawled (the CLI's `--include`): Rust `regex` syntax, matched against
    /// the whole absolute URL, anywhere in it unless anchored with `^`/`$`.
    /// At most 20 patterns of 1 to 500 characters. Default: every URL of the
    /// site.
    #[serde(default)]
    #[schema(max_items = 20, example = json!(["^https://example\\.com/docs/"]))]
    pub include: Option<Vec<String>>,
    /// URLs matching any of these regular expressions are not crawled (the
    /// CLI's `--exclude`); same syntax and limits as `include`. Exclusion
    /// wins over inclusion.
    #[serde(default)]
    #[schema(max_items = 20, example = json!(["/archive/", "\\.pdf$"]))]
    pub exclude: Option<Vec<String>>,
    /// Render mode (the CLI's `--render`): each page is loaded in headless
    /// Chromium, its scripts run, and the rules judge the DOM it shows.
    /// Default `false`: the HTML the server sends. Run by workers started
    /// with `--render` only; see the scan's `waiting_reason` while none runs.
    #[serde(default)]
    pub render: Option<bool>,
    /// How render mode waits for each page (only with `render: true`).
    #[serde(default, deserialize_with = "object_only")]
    pub render_options: Option<RenderOptionsParam>,
}

/// `config.render_options` of a scan request: what render mode waits for
/// before it takes a page's DOM. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderOptionsParam {
    /// After the page's load event: `"network-idle"` (default: no request
    /// of the page in flight for `quiet_ms`), `"load"` (then `quiet_ms`), or
    /// `{"selector": "#app"}` (an element matching this CSS selector, 1 to
    /// 200 characters, then `quiet_ms`).
    #[serde(default)]
    #[schema(value_type = Option<Object>, example = json!({"selector": "#app"}))]
    pub wait: Option<sitescan_engine::RenderWait>,
    /// Quiet period, milliseconds (0..=10000; default 500).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10000, example = 500)]
    pub quiet_ms: Option<u64>,
    /// Longest wait for one page from its navigation, milliseconds
    /// (100..=60000; default 10000); past it the DOM is taken as it is.
    #[serde(default)]
    #[schema(minimum = 100, maximum = 60000, example = 10000)]
    pub max_wait_ms: Option<u64>,
    /// Throttling preset pages are loaded with, for their Web Vitals:
    /// `"none"` (default), `"mobile"` (slow 4G, 4× slower CPU, a phone's
    /// viewport) or `"desktop"`. Applied throttling, as Lighthouse's
    /// devtools mode.
    #[serde(default)]
    #[schema(example = "mobile")]
    pub throttle: Option<String>,
    /// The viewport pages are laid out and judged in, CSS pixels (each side
    /// 200..=4000). Default: the throttling preset's (`"mobile"`: 412 × 823
    /// as a phone, `"desktop"`: 1350 × 940), else 1280 × 720; given, it wins
    /// over the preset's (device scale factor 1, not a mobile device).
    #[serde(default)]
    pub viewport: Option<ViewportParam>,
    /// Pictures of failing elements and page thumbnails (default: on, at
    /// most 200 pictures and 20 MB per scan), served by
    /// `GET /api/v1/scans/{scanId}/screenshots/{screenshotId}`.
    #[serde(default)]
    pub screenshots: Option<ScreenshotsParam>,
}

/// `config.render_options.viewport` of a scan request: the viewport pages
/// are laid out and judged in, CSS pixels, both sides needed (each
/// 200..=4000; another is a 422 naming `config.render_options.viewport.width`
/// or `.height`). Default: the throttling preset's (`"mobile"`: 412 × 823 as
/// a phone, `"desktop"`: 1350 × 940), else 1280 × 720; given, it wins over
/// the preset's (device scale factor 1, not a mobile device).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewportParam {
    /// Width, CSS pixels (200..=4000).
    #[schema(minimum = 200, maximum = 4000, example = 1280)]
    pub width: u64,
    /// Height, CSS pixels (200..=4000).
    #[schema(minimum = 200, maximum = 4000, example = 720)]
    pub height: u64,
}

/// `config.render_options.screenshots` of a scan request. Every field is
/// optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenshotsParam {
    /// Whether pictures are taken (default true).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Most pictures per scan (0..=1000; default 200).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1000, example = 200)]
    pub max: Option<usize>,
    /// Most bytes of pictures per scan (0..=104857600; default 20971520).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 104857600, example = 20971520)]
    pub max_bytes: Option<u64>,
}

/// `config.budget` of a scan request, and the budget a scan record shows as
/// applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetParam {
    /// Wall time of one page's analysis, milliseconds (default 5000; 0 stops
    /// every page's analysis at once).
    #[serde(default)]
    #[schema(minimum = 0, example = 5000)]
    pub time_ms: Option<u64>,
    /// Nodes kept per page (default 200000).
    #[serde(default)]
    #[schema(minimum = 1, example = 200000)]
    pub max_nodes: Option<u64>,
    /// Nesting depth kept per page; deeper elements are flattened (default 512).
    #[serde(default)]
    #[schema(minimum = 1, example = 512)]
    pub max_depth: Option<u64>,
    /// Links one page contributes to the crawl and link checks (default 10000).
    #[serde(default)]
    #[schema(minimum = 0, example = 10000)]
    pub max_links: Option<u64>,
    /// Style rules parsed per page over all its stylesheets (default 20000).
    #[serde(default)]
    #[schema(minimum = 0, example = 20000)]
    pub max_css_rules: Option<u64>,
    /// Selectors compiled per page over all its stylesheets (default 50000).
    #[serde(default)]
    #[schema(minimum = 0, example = 50000)]
    pub max_selectors: Option<u64>,
    /// Stylesheets applied per page (default 100).
    #[serde(default)]
    #[schema(minimum = 0, example = 100)]
    pub max_stylesheets: Option<u64>,
}

/// Body of the scan endpoints.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanRequest {
    /// What to scan and how.
    #[serde(default, deserialize_with = "object_only")]
    pub config: Option<ScanRequestConfig>,
}

/// An optional struct read from a JSON object (or `null`) only: serde's
/// derive would also take an array of the fields in declaration order, so
/// `"config": []` would silently mean "all defaults". The object's members
/// are read through the same `MapAccess`, so a problem inside still names
/// its full path.
fn object_only<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct ObjectVisitor<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ObjectVisitor<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
}
