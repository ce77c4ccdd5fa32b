//! What a scan does: [`ScanConfig`] and its defaults.
//!
//! Defaults are `pub const`s so the CLI help, the API docs and the library show
//! the same numbers.

use serde::{Deserialize, Serialize};

/// Pages fetched at most when nothing else is said.
pub const DEFAULT_MAX_PAGES: usize = 100;
/// Link depth from the start page followed at most.
pub const DEFAULT_MAX_DEPTH: u32 = 10;
/// Requests per second per host (raised by a robots.txt `Crawl-delay`, never lowered).
pub const DEFAULT_RATE_PER_HOST: f64 = 4.0;
/// Requests in flight at once across all hosts.
pub const DEFAULT_CONCURRENCY: usize = 8;
/// The user agent sent, and matched against robots.txt groups (`sitescan`).
pub const DEFAULT_USER_AGENT: &str = concat!(
    "sitescan/",
    env!("CARGO_PKG_VERSION"),
    " (+https://crates.io/crates/sitescan)"
);
/// Connect timeout, milliseconds.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 10_000;
/// Whole-request timeout including the body, milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Bodies are cut at this many bytes while streaming.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
/// Redirect hops followed at most.
pub const DEFAULT_MAX_REDIRECTS: u32 = 10;
/// Retries of a transient failure (connection reset, 502/503/504, 429).
pub const DEFAULT_RETRIES: u32 = 2;
/// Rules run when none are named.
pub const DEFAULT_RULES: &[&str] = &["all"];

/// Queue priority of a scan in the service.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Taken after normal and high.
    Low,
    /// The default.
    #[default]
    Normal,
    /// Taken first.
    High,
}

impl Priority {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
        }
    }
}

impl std::str::FromStr for Priority {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "low" => Ok(Priority::Low),
            "normal" => Ok(Priority::Normal),
            "high" => Ok(Priority::High),
            other => Err(format!(
                "unknown priority `{other}`: use low, normal or high"
            )),
        }
    }
}

/// Everything that shapes one scan, as applied (plan caps included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScanConfig {
    /// Rule sets and rule ids (`wcag-aa`, `seo`, `image-alt`, ...).
    pub rules: Vec<String>,
    /// Queue priority (service only).
    pub priority: Priority,
    /// Pages fetched at most; the crawl stops exactly there.
    pub max_pages: usize,
    /// Link depth followed at most (start page is depth 0).
    pub max_depth: u32,
    /// Only URLs matching one of these regular expressions are crawled (empty: all).
    pub include: Vec<String>,
    /// URLs matching any of these regular expressions are skipped.
    pub exclude: Vec<String>,
    /// Follow links to subdomains of the start host.
    pub subdomains: bool,
    /// Requests per second per host.
    pub rate_per_host: f64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Honor robots.txt (default true).
    pub respect_robots: bool,
    /// User agent sent and matched against robots.txt.
    pub user_agent: String,
    /// Connect timeout, milliseconds.
    pub connect_timeout_ms: u64,
    /// Request timeout, milliseconds.
    pub timeout_ms: u64,
    /// Body size cap, bytes.
    pub max_body_bytes: u64,
    /// Redirect hops followed at most.
    pub max_redirects: u32,
    /// Retries of transient failures.
    pub retries: u32,
    /// Allow fetching loopback, private and link-local addresses.
    pub allow_private: bool,
    /// Accept any TLS certificate in the crawl (self-signed or expired staging
    /// sites). The `tls-certificate` rule still reports what is wrong with it.
    pub tls_insecure: bool,
    /// Extra trusted root certificates, PEM text (one or more certificates per
    /// entry), for sites behind a private CA; the crawl and the TLS check both
    /// trust them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ca_certs: Vec<String>,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            rules: DEFAULT_RULES.iter().map(|s| s.to_string()).collect(),
            priority: Priority::Normal,
            max_pages: DEFAULT_MAX_PAGES,
            max_depth: DEFAULT_MAX_DEPTH,
            include: Vec::new(),
            exclude: Vec::new(),
            subdomains: false,
            rate_per_host: DEFAULT_RATE_PER_HOST,
            concurrency: DEFAULT_CONCURRENCY,
            respect_robots: true,
            user_agent: DEFAULT_USER_AGENT.to_string(),
            connect_timeout_ms: DEFAULT_CONNECT_TIMEOUT_MS,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
            retries: DEFAULT_RETRIES,
            allow_private: false,
            tls_insecure: false,
            ca_certs: Vec::new(),
        }
    }
}
