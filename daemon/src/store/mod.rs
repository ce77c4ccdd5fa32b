//! Where the service keeps its records: accounts, API keys, sites, scans and
//! reports. [`Store`] is the trait the routes and workers talk to; it has an
//! embedded backend ([`embedded::Embedded`], one redb file) and, in the fleet, a
//! Redis backend implementing the same trait.
//!
//! Every multi-step transition (count a quota and create a scan, move a scan
//! from `queued` to `running`, finish it unless canceled) is ONE trait method so
//! that each backend can make it atomic (a redb write transaction, a Redis Lua
//! script). The contract every backend must meet is tested once, in
//! `tests/it/contract.rs`, with functions taking `Arc<dyn Store>`.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sitescan_engine::Priority;
use utoipa::ToSchema;

use crate::error::Result;

pub mod embedded;
pub mod fixture;
pub mod redis;
mod report;

pub use report::{ReportFile, REPORT_CHUNK};

/// A customer's plan: what it may do through the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// No API access.
    Starter,
    /// 2 scans per UTC day, 100 pages per scan.
    Professional,
    /// No limits.
    Enterprise,
}

impl Plan {
    /// Whether keys of this plan may call the API.
    pub fn api_access(self) -> bool {
        !matches!(self, Plan::Starter)
    }

    /// Scans allowed per UTC day (`None`: unlimited).
    pub fn scans_per_day(self) -> Option<u32> {
        match self {
            Plan::Starter => Some(0),
            Plan::Professional => Some(2),
            Plan::Enterprise => None,
        }
    }

    /// Pages fetched at most per scan (`None`: unlimited).
    pub fn max_pages(self) -> Option<usize> {
        match self {
            Plan::Starter => Some(0),
            Plan::Professional => Some(100),
            Plan::Enterprise => None,
        }
    }

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Starter => "starter",
            Plan::Professional => "professional",
            Plan::Enterprise => "enterprise",
        }
    }
}

impl std::str::FromStr for Plan {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "starter" => Ok(Plan::Starter),
            "professional" => Ok(Plan::Professional),
            "enterprise" => Ok(Plan::Enterprise),
            other => Err(format!(
                "unknown plan `{other}`: use starter, professional or enterprise"
            )),
        }
    }
}

/// A customer account: owns keys, sites and scans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Account {
    /// `acc_...`.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// The plan.
    pub plan: Plan,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// An API key's record. The key itself is never stored: only its SHA-256 hash,
/// which the backend indexes to find the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApiKey {
    /// `kid_...`: names the key in lists and logs (never the secret).
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// Name given at creation.
    pub name: String,
    /// Description given at creation.
    #[serde(default)]
    pub description: Option<String>,
    /// The first characters of the key (`key_ab12`), to recognise it.
    pub prefix: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it stops working; `None` (`null` on the wire): never. This is the
    /// one representation of a key that does not expire, in the store, the API,
    /// the admin CLI (`--expires-in never`) and the dashboard.
    #[serde(default)]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    #[serde(default)]
    pub revoked_at: Option<DateTime<Utc>>,
    /// Last authenticated request.
    #[serde(default)]
    pub last_used_at: Option<DateTime<Utc>>,
    /// Authenticated requests per UTC day (`YYYY-MM-DD` -> count).
    #[serde(default)]
    pub usage: BTreeMap<String, u64>,
}

/// A registered website.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Site {
    /// `site_...`.
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// Start URL of its scans.
    pub url: String,
    /// Display name (defaults to the host).
    pub name: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// The least impact of a new failed finding that sends `scan.regressed`
    /// (sites registered before the setting existed read as `serious`).
    #[serde(default)]
    pub regression_threshold: RegressionThreshold,
    /// Whether the site has credentials its scans sign in with (`GET
    /// /sites/{siteId}/credentials` describes them). Filled in when read
    /// through `ops::sites`; never read from the stored record.
    #[serde(default, skip_deserializing)]
    pub has_credentials: bool,
}

/// The least impact of a new failed finding that makes a scan a regression
/// (`scan.regressed`): `minor`, `moderate`, `serious` (the default) or `critical`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RegressionThreshold {
    /// Any new failed finding.
    Minor,
    /// New failed findings of moderate impact or more.
    Moderate,
    /// New failed findings of serious or critical impact.
    #[default]
    Serious,
    /// New failed findings of critical impact only.
    Critical,
}

impl RegressionThreshold {
    /// The engine's impact this threshold starts at.
    pub fn impact(self) -> sitescan_rules::Impact {
        use sitescan_rules::Impact;
        match self {
            Self::Minor => Impact::Minor,
            Self::Moderate => Impact::Moderate,
            Self::Serious => Impact::Serious,
            Self::Critical => Impact::Critical,
        }
    }
}

/// Where a scan is in its life: `queued` -> `running` -> `completed` | `failed` | `canceled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScanStatus {
    /// Waiting for a worker.
    Queued,
    /// A worker is crawling and checking.
    Running,
    /// Finished; the report is available.
    Completed,
    /// Could not run (unreachable site, refused address, ...); see `error`.
    Failed,
    /// Canceled by the caller.
    Canceled,
}

impl ScanStatus {
    /// Completed, failed or canceled: nothing will change any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ScanStatus::Completed | ScanStatus::Failed | ScanStatus::Canceled
        )
    }

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScanStatus::Queued => "queued",
            ScanStatus::Running => "running",
            ScanStatus::Completed => "completed",
            ScanStatus::Failed => "failed",
            ScanStatus::Canceled => "canceled",
        }
    }
}

/// The configuration of a scan as applied: what was asked, with the plan's caps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AppliedConfig {
    /// Rule sets and rule ids run.
    pub rules: Vec<String>,
    /// Queue priority.
    #[schema(value_type = String, example = "normal")]
    pub priority: Priority,
    /// Pages fetched at most (the plan's cap when the request asked for more).
    pub max_pages: usize,
    /// Link depth followed at most.
    pub max_depth: u32,
    /// The plan's page cap, when it has one.
    #[serde(default)]
    pub plan_max_pages: Option<usize>,
    /// Accepted final statuses of link and resource checks, as requested
    /// (`["200..=299", "403"]`); absent: the engine's default (`100..=399`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = json!(["200..=299", "403"]))]
    pub accept: Option<Vec<String>>,
    /// Each page's analysis budget as applied: what was asked, each limit held
    /// under the service's ceiling, defaults for the rest. Scans stored before
    /// budgets existed read as the defaults.
    #[serde(default)]
    #[schema(value_type = Object, example = json!({"time_ms": 5000, "max_nodes": 200000, "max_depth": 512, "max_links": 10000, "max_css_rules": 20000, "max_selectors": 50000, "max_stylesheets": 100}))]
    pub budget: sitescan_engine::PageBudget,
    /// Which link and resource URLs are requested to check them: `all`
    /// (default), `internal` (only the scanned site's hosts) or `none`
    /// (nothing beyond what the crawl fetches). Scans stored before this
    /// option existed read as `all`.
    #[serde(default)]
    #[schema(value_type = String, example = "internal")]
    pub links: sitescan_engine::LinkScope,
    /// Only URLs matching one of these regular expressions were crawled
    /// (empty: all within the site).
    #[serde(default)]
    #[schema(example = json!(["^https://example\\.com/docs/"]))]
    pub include: Vec<String>,
    /// URLs matching any of these regular expressions were not crawled.
    #[serde(default)]
    #[schema(example = json!(["/archive/", "\\.pdf$"]))]
    pub exclude: Vec<String>,
    /// Render mode: each page loaded in headless Chromium, its scripts run,
    /// the rules judging the DOM it shows (`false`: the HTML the server
    /// sends). Only workers started with `--render` take these scans. Scans
    /// stored before this option existed read as `false`.
    #[serde(default)]
    pub render: bool,
    /// How each page is waited for in render mode, as applied (defaults filled
    /// in); present only when `render` is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>, example = json!({"wait": "network-idle", "quiet_ms": 500, "max_wait_ms": 10000}))]
    pub render_options: Option<sitescan_engine::config::RenderOptions>,
}

/// How far a running scan is: the engine's own type, stored as it is.
pub use sitescan_engine::Progress;

/// Score and failure counts of one category in a finished scan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CategoryResult {
    /// 0-100; `null` when no rule of the category ran.
    #[serde(default)]
    pub score: Option<u8>,
    /// Failed findings of critical impact.
    pub critical: u64,
    /// Failed findings of serious impact.
    pub serious: u64,
    /// Failed findings of moderate impact.
    pub moderate: u64,
    /// Failed findings of minor impact.
    pub minor: u64,
    /// Findings needing a person's review.
    pub cant_tell: u64,
    /// Findings marked `ignored` or `false_positive` when the scan ran: in
    /// none of the counts above nor in the score. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub marked: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a finished scan found, in short (the report has the details).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScanSummary {
    /// Pages fetched.
    pub pages_fetched: u64,
    /// Failed and cant-tell findings, marked ones left out.
    pub findings: u64,
    /// True when a limit cut the crawl short.
    pub truncated: bool,
    /// Per category (`accessibility`, `seo`, ...): score and counts by impact.
    pub categories: BTreeMap<String, CategoryResult>,
    /// The comparison with the previous completed scan of the same site and
    /// configuration (see the Regressions docs page); absent on scans that
    /// completed before comparisons existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regressions: Option<Regressions>,
}

/// What changed since the previous completed scan of the same site and the
/// same configuration, by finding fingerprint (the CLI baseline's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Regressions {
    /// The scan compared with; `null` for the first such scan (then nothing is
    /// new nor fixed).
    pub compared_with: Option<String>,
    /// Findings whose fingerprint the previous scan did not have.
    pub new: FindingChanges,
    /// Findings of the previous scan whose fingerprint this scan does not have.
    pub fixed: FindingChanges,
}

/// A count of changed findings and the first of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FindingChanges {
    /// How many, exactly.
    pub count: u64,
    /// Of them, the failed ones (not `cant-tell`) by impact, exactly.
    #[serde(default)]
    pub failed_by_impact: ImpactCounts,
    /// The first of them, in report order, at most 100.
    pub items: Vec<ChangedFinding>,
}

/// Counts of findings by impact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImpactCounts {
    /// Critical.
    pub critical: u64,
    /// Serious.
    pub serious: u64,
    /// Moderate.
    pub moderate: u64,
    /// Minor.
    pub minor: u64,
}

impl ImpactCounts {
    /// Counts one finding of `impact`.
    pub fn add(&mut self, impact: sitescan_rules::Impact) {
        use sitescan_rules::Impact;
        match impact {
            Impact::Critical => self.critical += 1,
            Impact::Serious => self.serious += 1,
            Impact::Moderate => self.moderate += 1,
            Impact::Minor => self.minor += 1,
        }
    }
}

/// One new or fixed finding, as its report has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ChangedFinding {
    /// The finding's fingerprint (`sitescanFingerprint/v1`, 32 hex digits).
    pub fingerprint: String,
    /// The rule id.
    pub rule: String,
    /// `minor`, `moderate`, `serious` or `critical`.
    pub impact: String,
    /// `failed` or `cant-tell`.
    pub outcome: String,
    /// The page.
    pub page_url: String,
    /// CSS selector; empty for page- or header-level findings.
    pub selector: String,
    /// What is wrong.
    pub message: String,
}

/// One scan of a site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scan {
    /// `scan_...`; ids sort by creation time.
    pub id: String,
    /// The scanned site.
    pub site_id: String,
    /// Owning account.
    pub account_id: String,
    /// Start URL (copied from the site, so a deleted site's scans still run).
    pub url: String,
    /// Where it is.
    pub status: ScanStatus,
    /// Configuration as applied.
    pub config: AppliedConfig,
    /// Progress while running (and the last progress once finished).
    #[serde(default)]
    pub progress: Option<Progress>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Times a worker started it (more than one after a restart or crash).
    #[serde(default)]
    pub attempts: u32,
    /// When it was requested.
    pub created_at: DateTime<Utc>,
    /// When a worker (last) started it.
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    /// When it reached a terminal status.
    #[serde(default)]
    pub finished_at: Option<DateTime<Utc>>,
    /// What it found, once completed.
    #[serde(default)]
    pub summary: Option<ScanSummary>,
    /// True when the scan was given back to the day's quota: canceled while
    /// still queued, or failed before its first page was checked. Set by the
    /// same atomic write as the status.
    #[serde(default)]
    pub quota_refunded: bool,
    /// The schedule that started it (`sch_...`); `None` for a scan asked for
    /// by a person or client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_id: Option<String>,
    /// The time of the schedule's run that started it (UTC): each run of a
    /// schedule starts at most one scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_for: Option<DateTime<Utc>>,
}

/// What [`Store::charge_interruption`] found about a scan's last interruption.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interruption {
    /// The pages that were in analysis when the process died, each with the
    /// number of interruptions it was in analysis at (this one included).
    /// Empty when none was: the scan was merely interrupted.
    pub pages: Vec<(String, u32)>,
    /// Interruptions so far with no page of this scan in analysis.
    pub unattributed: u32,
}

/// How a worker's run of a scan ended.
#[derive(Debug, Clone)]
// One value per finished run, moved a handful of times: boxing the summary
// would only change every place that builds one.
#[allow(clippy::large_enum_variant)]
pub enum ScanOutcome {
    /// Completed with this summary and the JSON report.
    Completed {
        /// Short results.
        summary: ScanSummary,
        /// The report, serialized as JSON, in a temporary file the store
        /// copies in chunks.
        report: ReportFile,
        /// Render mode's pictures the report names (a finding's
        /// `screenshot`, a page's `thumbnail`). They are stored with the
        /// report, in the same step that completes the scan, and only then:
        /// a scan that fails, is canceled, or was already finished keeps
        /// none of them (see [`Store::finish_scan`]).
        screenshots: sitescan_engine::report::Screenshots,
    },
    /// Could not run.
    Failed {
        /// Why, said for the caller.
        error: String,
    },
}

/// A site's credentials as stored: sealed with the service's secret key
/// (`crate::secret_key`, the site id bound in), beside the description of
/// what they hold, which is no secret and reads without the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredCredentials {
    /// The site.
    pub site_id: String,
    /// Owning account (the site's).
    pub account_id: String,
    /// `v1:` + base64 of nonce, ciphertext and tag of the `SiteAuth` JSON.
    pub sealed: String,
    /// What is set, names only.
    pub description: CredentialsDescription,
}

/// What a site's credentials hold, without a single secret value: the kinds
/// set, header and cookie names, the basic-auth user name, the login form's
/// action and field names, the login steps' kinds and targets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CredentialsDescription {
    /// The site.
    pub site_id: String,
    /// The kinds set, in this order: `headers`, `cookies`, `basic`,
    /// `login_form`, `login_steps`.
    #[schema(example = json!(["headers", "basic"]))]
    pub kinds: Vec<String>,
    /// Names of the extra request headers.
    #[schema(example = json!(["Authorization"]))]
    pub headers: Vec<String>,
    /// Names of the cookies.
    pub cookies: Vec<String>,
    /// HTTP basic authentication's user name, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_username: Option<String>,
    /// The sign-in form, when set (field names, never their values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_form: Option<LoginFormDescription>,
    /// The browser sign-in steps.
    pub login_steps: Vec<LoginStepDescription>,
    /// The URL patterns never requested (`null`: the documented default list).
    #[serde(default)]
    pub sign_out_exclude: Option<Vec<String>>,
    /// When they were last saved.
    pub updated_at: DateTime<Utc>,
}

/// A sign-in form, described.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoginFormDescription {
    /// The page showing the form, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// Where the form posts.
    pub action: String,
    /// Names of the fields posted.
    #[schema(example = json!(["password", "user"]))]
    pub fields: Vec<String>,
    /// The success check: cookie name, page and text (none of them secret).
    #[schema(value_type = Object, example = json!({"cookie": "session"}))]
    pub success: sitescan_engine::auth::LoginCheck,
}

/// A browser sign-in step, described.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoginStepDescription {
    /// `goto`, `fill`, `click` or `wait_for`.
    pub step: String,
    /// The CSS selector (`fill`, `click`, `wait_for`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The URL (`goto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A registered webhook endpoint. Its signing secrets are stored (they are
/// needed to sign) but never shown after creation or rotation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Webhook {
    /// `wh_...`.
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// Where events are POSTed.
    pub url: String,
    /// Event types sent (`scan.completed`, ...).
    pub events: Vec<String>,
    /// Only events of this site's scans, when set.
    #[serde(default)]
    pub site_id: Option<String>,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether events are delivered.
    pub enabled: bool,
    /// Why the service disabled it (410 Gone, failing for days).
    #[serde(default)]
    pub disabled_reason: Option<String>,
    /// The current signing secret (`whsec_...`).
    pub secret: String,
    /// The secret before the last rotation, valid until `previous_secret_expires_at`.
    #[serde(default)]
    pub previous_secret: Option<String>,
    /// When the previous secret stops being used.
    #[serde(default)]
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    /// First failed attempt since the last success.
    #[serde(default)]
    pub failing_since: Option<DateTime<Utc>>,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

impl Webhook {
    /// Whether the event `event_type` about a scan of `site_id` is sent here:
    /// enabled, subscribed to the type, and no site filter or that site. The
    /// stores apply it inside each scan transition (the Redis backend's Lua
    /// transcription is `store/redis/lua/outbox.lua`; the contract suite
    /// checks both agree).
    pub fn wants(&self, event_type: &str, site_id: &str) -> bool {
        self.enabled
            && self.events.iter().any(|e| e == event_type)
            && self.site_id.as_deref().is_none_or(|s| s == site_id)
    }
}

/// Where a delivery is: `pending` (waiting for its next attempt) ->
/// `succeeded` | `failed` (attempts used up, endpoint gone or disabled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatus {
    /// Will be attempted at `next_attempt_at`.
    Pending,
    /// A 2xx answer was received.
    Succeeded,
    /// Given up.
    Failed,
}

/// One HTTP attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeliveryAttempt {
    /// When it started.
    pub at: DateTime<Utc>,
    /// The HTTP status answered, if any.
    #[serde(default)]
    pub response_status: Option<u16>,
    /// Milliseconds until the answer (or the error).
    pub latency_ms: u64,
    /// The network error or timeout, if any.
    #[serde(default)]
    pub error: Option<String>,
    /// The first bytes of the answer's body (at most 1 KiB kept, 64 KiB read).
    #[serde(default)]
    pub response_body: Option<String>,
}

/// One event to send to one webhook: the durable outbox entry and its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Delivery {
    /// `dlv_...`.
    pub id: String,
    /// The endpoint.
    pub webhook_id: String,
    /// Owning account.
    pub account_id: String,
    /// The event's id (`evt_...`), the same on redeliveries.
    pub event_id: String,
    /// The event's type.
    pub event_type: String,
    /// The exact JSON body sent.
    pub payload: String,
    /// Where it is.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// When the next attempt is due (pending only).
    #[serde(default)]
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Every attempt, oldest first.
    #[serde(default)]
    pub attempt_log: Vec<DeliveryAttempt>,
}

/// A person who signs in to the dashboard; belongs to one account. Created by
/// `sitescan admin user create`, which prints a one-time link to set the
/// password (no mail server needed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// `usr_...`.
    pub id: String,
    /// The account whose keys, sites and scans the user manages.
    pub account_id: String,
    /// Lowercase e-mail address, unique across the service: the sign-in name.
    pub email: String,
    /// The argon2id hash of the password (PHC string); `None` until the user
    /// sets one through the link.
    #[serde(default)]
    pub password_hash: Option<String>,
    /// When the user was created.
    pub created_at: DateTime<Utc>,
    /// When the password was last set.
    #[serde(default)]
    pub password_set_at: Option<DateTime<Utc>>,
}

/// A one-time password-setting token. Stored under the SHA-256 of the token
/// (the token itself is only in the link), valid until `expires_at`, used once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PasswordToken {
    /// Whose password it sets.
    pub user_id: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

/// A dashboard session. Stored under the SHA-256 of the session id (the id is
/// only in the visitor's cookie). A session without a user belongs to a
/// signed-out visitor: it carries the CSRF token of the sign-in and
/// set-password forms, and is replaced by a new session on sign-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The signed-in user, if any.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The synchronizer token every POST form of this session must carry.
    pub csrf_token: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stops working (absolute, not sliding).
    pub expires_at: DateTime<Utc>,
    /// Last request seen with it.
    pub last_seen_at: DateTime<Utc>,
}

/// How long an `Idempotency-Key` is remembered after its first use.
pub const IDEMPOTENCY_TTL: chrono::Duration = chrono::Duration::hours(24);
/// How long an unfinished request holds its `Idempotency-Key` (a process that
/// dies while serving it leaves the key free again after this).
pub const IDEMPOTENCY_LEASE: chrono::Duration = chrono::Duration::seconds(60);
/// `Idempotency-Key`s remembered per account at most: past it, the oldest is
/// forgotten first, so one account cannot fill the store.
pub const MAX_IDEMPOTENCY_KEYS: usize = 1000;

/// The answer kept for an `Idempotency-Key`, replayed byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptResponse {
    /// HTTP status.
    pub status: u16,
    /// The `Location` header, if it had one.
    #[serde(default)]
    pub location: Option<String>,
    /// The JSON body.
    pub body: String,
}

/// What the store keeps for one `Idempotency-Key` of an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdempotencyRecord {
    /// SHA-256 (hex) of the request's method, path and body: a reuse of the
    /// key with another request is refused.
    pub fingerprint: String,
    /// When the key was first used; forgotten [`IDEMPOTENCY_TTL`] later.
    pub created_at: DateTime<Utc>,
    /// Until when an unfinished request holds the key.
    pub lease_until: DateTime<Utc>,
    /// The answer, once the first request finished with a success; `None`
    /// while it is being served.
    #[serde(default)]
    pub response: Option<KeptResponse>,
}

/// What [`Store::claim_idempotency_key`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// The key was free (new, forgotten, or its holder's lease had passed):
    /// it is now held by this request.
    Claimed,
    /// The key is held: answered already, or still being served.
    Existing(IdempotencyRecord),
}

/// How a schedule's last run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A scan was created (`scan_id`).
    Started,
    /// The plan's daily scan quota was used up: no scan was created.
    SkippedQuota,
    /// No scan was created for another reason (`error` says which: the site
    /// was removed, the store failed, ...).
    Error,
}

/// What a schedule's last run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RunOutcome {
    /// `started`, `skipped_quota` or `error`.
    pub status: RunStatus,
    /// The scan created, when one was.
    #[serde(default)]
    pub scan_id: Option<String>,
    /// Why no scan was created, said for the caller.
    #[serde(default)]
    pub error: Option<String>,
}

/// A scheduled scan of a site: a cron expression read in an IANA time zone,
/// and the `config` each of its scans is started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// `sch_...`; ids sort by creation time.
    pub id: String,
    /// Owning account.
    pub account_id: String,
    /// The site scanned.
    pub site_id: String,
    /// The cron expression as given (or `hourly`, `daily`, `weekly`).
    pub cron: String,
    /// IANA time zone the expression is read in (`Europe/Berlin`, `UTC`).
    pub timezone: String,
    /// The scan request's `config` (as `POST /sites/{siteId}/scans` takes it),
    /// validated when saved and again at each run.
    pub config: serde_json::Value,
    /// Whether it runs.
    pub enabled: bool,
    /// When it runs next; `None` while disabled.
    #[serde(default)]
    pub next_run_at: Option<DateTime<Utc>>,
    /// When it last ran (claimed a run), whatever came of it.
    #[serde(default)]
    pub last_run_at: Option<DateTime<Utc>>,
    /// What its last run did; `None` before the first run, and while a run
    /// is being made.
    #[serde(default)]
    pub last_outcome: Option<RunOutcome>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its settings last changed.
    pub updated_at: DateTime<Utc>,
}

/// A triage mark of one finding fingerprint on a site (see
/// `crate::ops::marks`): findings with this fingerprint leave the scores and
/// gates of the site's later scans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteMark {
    /// Owning account.
    pub account_id: String,
    /// The site it applies to.
    pub site_id: String,
    /// The finding fingerprint (32 lowercase hex digits, as
    /// `sitescan_engine::baseline::fingerprint` computes it).
    pub fingerprint: String,
    /// `ignored` or `false_positive`.
    pub status: sitescan_rules::MarkStatus,
    /// Why (may be empty).
    #[serde(default)]
    pub note: String,
    /// Who set it: the API key's name or the dashboard user's e-mail.
    #[serde(default)]
    pub by: Option<String>,
    /// When it was last set.
    pub at: DateTime<Utc>,
}

/// What [`Store::put_mark`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkPut {
    /// The fingerprint was not marked; it is now.
    Created,
    /// The fingerprint's mark was replaced.
    Updated,
    /// The site already has the most marks allowed: nothing was written.
    Full,
}

/// A page of a list, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items.
    pub items: Vec<T>,
    /// Pass back to get the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// The records of the service. Object-safe: the routes and workers hold an
/// `Arc<dyn Store>`. Lookups that take an account id enforce tenancy: another
/// account's record is `None`, exactly as a missing one.
///
/// Webhook outbox: every method that changes a scan's status
/// (`create_scan_if_quota`, `start_scan`, `finish_scan`, `cancel_scan`) also
/// writes, in the SAME atomic write, one pending [`Delivery`] of the matching
/// event for each webhook of the account that [`Webhook::wants`] it (see
/// [`crate::webhooks`]). No caller emits events; a call that changes nothing
/// (a scan already terminal) writes none.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    // ---- accounts and keys

    /// Saves a new account.
    async fn create_account(&self, account: Account) -> Result<Account>;
    /// An account by id.
    async fn account(&self, id: &str) -> Result<Option<Account>>;
    /// Saves a new key record under the SHA-256 hash (hex) of its secret.
    /// Fails with `NotFound` when the account does not exist.
    async fn create_key(&self, key: ApiKey, secret_hash: &str) -> Result<ApiKey>;
    /// The key whose secret hashes to `secret_hash`, revoked or expired included.
    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<ApiKey>>;
    /// A key by id.
    async fn key(&self, id: &str) -> Result<Option<ApiKey>>;
    /// Keys of one account, or of all accounts, oldest first.
    async fn list_keys(&self, account_id: Option<&str>) -> Result<Vec<ApiKey>>;
    /// Marks a key revoked (idempotent); `NotFound` when no such key.
    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> Result<ApiKey>;
    /// Records one authenticated request: last use and the day's usage count.
    async fn record_key_use(&self, id: &str, at: DateTime<Utc>) -> Result<()>;

    // ---- sites

    /// Saves a new site. Fails with `NotFound` when the account does not exist.
    async fn create_site(&self, site: Site) -> Result<Site>;
    /// A site of the account.
    async fn site(&self, account_id: &str, id: &str) -> Result<Option<Site>>;
    /// Every site of the account, oldest first.
    async fn list_sites(&self, account_id: &str) -> Result<Vec<Site>>;
    /// Removes a site of the account (its scans stay readable); false when none.
    async fn delete_site(&self, account_id: &str, id: &str) -> Result<bool>;
    /// Saves the settings of an existing site of `site.account_id` (its
    /// name and regression threshold); `None` when there is no such site.
    async fn update_site(&self, site: Site) -> Result<Option<Site>>;

    // ---- scans

    /// Atomically: counts the scans the account created on `day` (UTC) and, when
    /// fewer than `limit` (`None`: unlimited), saves `scan` (status `queued`) and
    /// counts it. Otherwise fails with `QuotaExceeded` and saves nothing.
    async fn create_scan_if_quota(
        &self,
        scan: Scan,
        day: NaiveDate,
        limit: Option<u32>,
    ) -> Result<Scan>;
    /// Scans the account created on `day` (UTC).
    async fn scans_created_on(&self, account_id: &str, day: NaiveDate) -> Result<u32>;
    /// A scan of the account.
    async fn scan(&self, account_id: &str, id: &str) -> Result<Option<Scan>>;
    /// A scan by id whatever its account (workers).
    async fn scan_by_id(&self, id: &str) -> Result<Option<Scan>>;
    /// Scans of one site of the account, newest first, `limit` per page, after
    /// the `cursor` a previous page returned.
    async fn list_scans(
        &self,
        account_id: &str,
        site_id: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Page<Scan>>;
    /// A worker takes the scan: `queued` (or `running`, when re-delivered after a
    /// crash) becomes `running`, attempts + 1. `None` when the scan is terminal
    /// (e.g. canceled while queued) or gone: the worker drops the job.
    async fn start_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>>;
    /// Like [`Store::start_scan`] for a scan interrupted through no fault of its
    /// own (another scan's page crashed the process, or a restart): `running`
    /// again, attempts unchanged.
    async fn resume_scan(&self, id: &str, at: DateTime<Utc>) -> Result<Option<Scan>>;
    /// A worker hands a running scan's job back to the queue (a failed attempt
    /// to retry, a shutdown past its grace period): `running` becomes `queued`
    /// (with its `scan.queued` event). False when it was not running
    /// (finished, canceled).
    async fn requeue_scan(&self, id: &str) -> Result<bool>;
    /// Like [`Store::requeue_scan`] for a run that ended through no fault of
    /// the scan's own (its worker's browser broke, and the worker gives the
    /// scan to another): `running` becomes `queued`, and with `refund` the
    /// attempt its start charged is given back (attempts - 1, never below
    /// 0), so a broken worker cannot use a scan's attempts up. False when it
    /// was not running.
    async fn hand_back_scan(&self, id: &str, refund: bool) -> Result<bool>;
    /// Records the pages of scan `id` in analysis now (empty: none), replacing
    /// the previous record. Kept so that it survives the process being killed
    /// (not necessarily a power loss): it is written before each page's rules
    /// run, so it must be cheap.
    async fn set_pages_in_analysis(&self, id: &str, pages: &[String]) -> Result<()>;
    /// At the restart of an interrupted scan: charges the crash to the pages
    /// that were in analysis (each page's crash count + 1) and clears the
    /// record, or, with none in analysis, counts an unattributed interruption.
    /// Returns the counts now (see [`Interruption`]).
    async fn charge_interruption(&self, id: &str) -> Result<Interruption>;
    /// Saves progress of a running scan and returns the scan's status now, so
    /// the worker sees a cancel.
    async fn update_progress(&self, id: &str, progress: Progress) -> Result<ScanStatus>;
    /// Ends a running scan with its outcome (and stores the report, read from
    /// its file in chunks: never whole in memory). Idempotent;
    /// a scan already terminal (canceled meanwhile) keeps its status and the
    /// outcome is dropped. Returns the scan as stored.
    ///
    /// The pictures of a completed outcome live exactly as long as its
    /// report: they become visible in the same atomic step as the report
    /// (replacing any a scan had), and a dropped or failed outcome leaves
    /// none behind (on Redis, what was uploaded before a write that failed
    /// expires like a report's upload). A failed scan has no pictures.
    async fn finish_scan(&self, id: &str, outcome: ScanOutcome, at: DateTime<Utc>) -> Result<Scan>;
    /// Cancels a queued or running scan of the account. `NotFound` when there is
    /// no such scan; `Conflict` when it already completed or failed; a scan
    /// already canceled is returned as is.
    async fn cancel_scan(&self, account_id: &str, id: &str, at: DateTime<Utc>) -> Result<Scan>;
    /// Chunk number `index` of the JSON report of a completed scan (chunks
    /// of [`REPORT_CHUNK`] bytes, the last one shorter, as
    /// [`ReportFile::chunk`] cut them); `None` past the last chunk or when
    /// the scan has no report. Reading a report chunk by chunk keeps at most
    /// one chunk in memory.
    async fn report_chunk(&self, scan_id: &str, index: u64) -> Result<Option<Vec<u8>>>;
    /// The whole JSON report of a completed scan (its chunks joined).
    async fn report(&self, scan_id: &str) -> Result<Option<Vec<u8>>> {
        let mut out: Option<Vec<u8>> = None;
        let mut index = 0;
        while let Some(chunk) = self.report_chunk(scan_id, index).await? {
            out.get_or_insert_with(Vec::new).extend_from_slice(&chunk);
            index += 1;
        }
        Ok(out)
    }
    /// One picture of a scan's report (its encoded bytes); `None` when the
    /// scan has no picture of that id.
    async fn screenshot(&self, scan_id: &str, shot_id: &str) -> Result<Option<Vec<u8>>>;
    /// Scans not yet terminal (queued or running), for recovery at start-up.
    async fn unfinished_scans(&self) -> Result<Vec<Scan>>;
    /// Whether the backend answers (for `/readyz`).
    async fn ping(&self) -> Result<()>;

    // ---- webhooks and their outbox

    /// Saves a new webhook. Fails with `NotFound` when the account does not exist.
    async fn create_webhook(&self, webhook: Webhook) -> Result<Webhook>;
    /// A webhook of the account.
    async fn webhook(&self, account_id: &str, id: &str) -> Result<Option<Webhook>>;
    /// A webhook by id whatever its account (the delivery task).
    async fn webhook_by_id(&self, id: &str) -> Result<Option<Webhook>>;
    /// Every webhook of the account, oldest first.
    async fn list_webhooks(&self, account_id: &str) -> Result<Vec<Webhook>>;
    /// Replaces a stored webhook; `NotFound` when it is gone.
    async fn save_webhook(&self, webhook: Webhook) -> Result<Webhook>;
    /// Removes a webhook of the account (its deliveries then fail); false when none.
    async fn delete_webhook(&self, account_id: &str, id: &str) -> Result<bool>;
    /// Saves deliveries (new or updated) in one atomic write; pending ones are
    /// due at their `next_attempt_at`.
    async fn save_deliveries(&self, deliveries: Vec<Delivery>) -> Result<()>;
    /// A delivery of a webhook.
    async fn delivery(&self, webhook_id: &str, id: &str) -> Result<Option<Delivery>>;
    /// The newest `limit` deliveries of a webhook, newest first.
    async fn list_deliveries(&self, webhook_id: &str, limit: usize) -> Result<Vec<Delivery>>;
    /// Atomically takes up to `limit` pending deliveries due at `now` and moves
    /// their due time to `lease_until`, so no other taker gets them meanwhile;
    /// a taker that dies leaves them due again at `lease_until` (at-least-once).
    async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Delivery>>;

    // ---- site credentials (sealed; `ops::credentials`)

    /// Saves the credentials of a site of `creds.account_id`, replacing any.
    /// False, and nothing saved, when there is no such site.
    async fn put_credentials(&self, creds: StoredCredentials) -> Result<bool>;
    /// The credentials of a site, whatever its account (workers; the domain
    /// layer checks the account).
    async fn credentials(&self, site_id: &str) -> Result<Option<StoredCredentials>>;
    /// Removes the credentials of a site; false when it had none.
    async fn delete_credentials(&self, site_id: &str) -> Result<bool>;
    /// Whether any site has credentials (start-up: they need the key).
    async fn any_credentials(&self) -> Result<bool>;

    // ---- schedules (scheduled scans)

    /// Saves a new schedule. Fails with `NotFound` when the account does not exist.
    async fn create_schedule(&self, schedule: Schedule) -> Result<Schedule>;
    /// A schedule of the account.
    async fn schedule(&self, account_id: &str, id: &str) -> Result<Option<Schedule>>;
    /// Every schedule of one site of the account, oldest first.
    async fn list_schedules(&self, account_id: &str, site_id: &str) -> Result<Vec<Schedule>>;
    /// Replaces a schedule's settings (`cron`, `timezone`, `config`,
    /// `enabled`, `next_run_at`, `updated_at`), keeping its run record
    /// (`last_run_at`, `last_outcome`) as stored, so a change racing a run
    /// never loses the run. Returns the schedule as stored; `NotFound` when
    /// it is gone.
    async fn update_schedule(&self, schedule: Schedule) -> Result<Schedule>;
    /// Removes a schedule of the account; false when none.
    async fn delete_schedule(&self, account_id: &str, id: &str) -> Result<bool>;
    /// Up to `limit` enabled schedules whose `next_run_at` is at or before
    /// `now`, earliest first.
    async fn due_schedules(&self, now: DateTime<Utc>, limit: usize) -> Result<Vec<Schedule>>;
    /// Atomically claims the run of schedule `id` due at `due_at`: when the
    /// stored `next_run_at` is still `due_at` (to the microsecond), moves it
    /// to `next_run_at`, sets `last_run_at` to `at`, clears `last_outcome`
    /// and returns the schedule as stored. `None` when another process
    /// claimed that run first (the stored `next_run_at` moved), or the
    /// schedule was disabled, changed or removed meanwhile. Of any number of
    /// processes racing for one run, exactly one gets it.
    async fn claim_schedule_run(
        &self,
        id: &str,
        due_at: DateTime<Utc>,
        next_run_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) -> Result<Option<Schedule>>;
    /// Records what the run claimed at `run_at` did, unless a later run was
    /// claimed meanwhile (or the schedule is gone): then nothing changes.
    async fn record_schedule_outcome(
        &self,
        id: &str,
        run_at: DateTime<Utc>,
        outcome: RunOutcome,
    ) -> Result<()>;

    // ---- triage marks

    /// Saves `mark` (replacing the site's mark of the same fingerprint)
    /// unless that adds one past `max_per_site` marks on the site: atomically,
    /// so racing writers cannot pass the cap.
    async fn put_mark(&self, mark: SiteMark, max_per_site: usize) -> Result<MarkPut>;
    /// The mark of `fingerprint` on a site of the account.
    async fn mark(
        &self,
        account_id: &str,
        site_id: &str,
        fingerprint: &str,
    ) -> Result<Option<SiteMark>>;
    /// Every mark on a site of the account, by fingerprint.
    async fn list_marks(&self, account_id: &str, site_id: &str) -> Result<Vec<SiteMark>>;
    /// Removes the mark of `fingerprint` on a site of the account; false when none.
    async fn delete_mark(&self, account_id: &str, site_id: &str, fingerprint: &str)
        -> Result<bool>;
    /// Removes every mark of a site (the site was removed).
    async fn delete_site_marks(&self, site_id: &str) -> Result<()>;

    // ---- idempotency keys (the API's `Idempotency-Key` header)

    /// Atomically: forgets the account's keys older than
    /// [`IDEMPOTENCY_TTL`] at `at` (and the oldest past
    /// [`MAX_IDEMPOTENCY_KEYS`]), then returns the record of `key_hash` when
    /// it is live (answered, or unfinished with its lease not passed at
    /// `at`), else saves `record` under it and returns `Claimed`. Of two
    /// requests racing with the same key, one claims it.
    async fn claim_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
        at: DateTime<Utc>,
    ) -> Result<IdempotencyClaim>;
    /// Saves the answer of a claimed key (no-op when it was forgotten
    /// meanwhile).
    async fn complete_idempotency_key(
        &self,
        account_id: &str,
        key_hash: &str,
        record: IdempotencyRecord,
    ) -> Result<()>;
    /// Frees a claimed key (the request failed: it may be retried with the
    /// same key); no-op when gone.
    async fn release_idempotency_key(&self, account_id: &str, key_hash: &str) -> Result<()>;

    // ---- users and sessions (the dashboard)

    /// Saves a new user. `NotFound` when the account does not exist;
    /// `Conflict` when another user has the same (lowercase) e-mail.
    async fn create_user(&self, user: User) -> Result<User>;
    /// A user by id.
    async fn user(&self, id: &str) -> Result<Option<User>>;
    /// The user with this e-mail (compared lowercase).
    async fn user_by_email(&self, email: &str) -> Result<Option<User>>;
    /// Users of one account, or of all accounts, oldest first.
    async fn list_users(&self, account_id: Option<&str>) -> Result<Vec<User>>;
    /// Saves a password-setting token under the SHA-256 (hex) of the token;
    /// `NotFound` when the user does not exist.
    async fn create_password_token(&self, token_hash: &str, token: PasswordToken) -> Result<()>;
    /// Atomically consumes the token (single use) and, when it was valid at
    /// `at`, sets the user's password hash and `password_set_at` and ends
    /// every session of the user (whoever was signed in with the old password
    /// is signed out). `None` when the token is unknown, used or expired
    /// (nothing else changes then).
    async fn set_password_with_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<User>>;
    /// Saves a session under the SHA-256 (hex) of its id.
    async fn create_session(&self, session_hash: &str, session: Session) -> Result<()>;
    /// The session, when it exists and has not expired at `at`.
    async fn session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<Option<Session>>;
    /// Records a request seen with the session (`last_seen_at`); no-op when gone.
    async fn touch_session(&self, session_hash: &str, at: DateTime<Utc>) -> Result<()>;
    /// Removes a session (sign-out, rotation) and its flashes; no-op when gone.
    async fn delete_session(&self, session_hash: &str) -> Result<()>;
    /// Keeps `value` under `name` in a live session until one request takes
    /// it ([`Store::take_flash`]): post/redirect/get of a secret that must be
    /// shown exactly once (a new API key) without putting it in a URL or a
    /// cookie. Replaces an earlier value of the same name. `false`, and
    /// nothing kept, when the session is gone or expired at `at`. The value
    /// lives at most as long as the session.
    async fn put_flash(
        &self,
        session_hash: &str,
        name: &str,
        value: &str,
        at: DateTime<Utc>,
    ) -> Result<bool>;
    /// Removes the session's value under `name` and returns it, atomically:
    /// of two requests racing for it, one gets it. `None` when there is none
    /// (never put, or already taken), or when the session is gone or expired
    /// at `at` (an expired session's value is dropped all the same).
    async fn take_flash(
        &self,
        session_hash: &str,
        name: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<String>>;
}

/// A fresh identifier: `prefix` + `_` + 14 hex digits of microseconds since
/// the epoch + 16 hex digits from the OS RNG. Within one process the time part
/// strictly increases (two ids in the same microsecond get consecutive values),
/// so ids of one prefix sort by creation order, which gives newest-first
/// pagination for free; across processes they sort by creation time.
pub fn new_id(prefix: &str) -> Result<String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let mut random = [0u8; 8];
    getrandom::getrandom(&mut random).map_err(|e| crate::Error::Storage(e.to_string()))?;
    let now = Utc::now().timestamp_micros().max(0) as u64;
    let mut prev = LAST.load(Ordering::Relaxed);
    let stamp = loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange_weak(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break next,
            Err(p) => prev = p,
        }
    };
    Ok(format!("{prefix}_{stamp:014x}{}", hex::encode(random)))
}

/// `YYYY-MM-DD` of a UTC instant: the key of per-day counters.
pub fn day_key(at: DateTime<Utc>) -> String {
    at.date_naive().format("%Y-%m-%d").to_string()
}
