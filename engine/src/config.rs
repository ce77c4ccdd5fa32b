//! What a scan does: [`ScanConfig`] and its defaults.
//!
//! Defaults are `pub const`s so the CLI help, the API docs and the library show
//! the same numbers.

use serde::{Deserialize, Serialize};

pub use sitescan_rules::budget::{
    PageBudget, DEFAULT_MAX_CSS_RULES, DEFAULT_MAX_LINKS, DEFAULT_MAX_SELECTORS,
    DEFAULT_MAX_STYLESHEETS, DEFAULT_PAGE_TIME,
};

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
///
/// 20 s, as lychee: a page still trickling in after that is a failed fetch
/// (`timeout`), and a trickling page cannot hold a scan longer than this.
pub const DEFAULT_TIMEOUT_MS: u64 = 20_000;
/// Bodies are cut at this many bytes while streaming.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 10 * 1024 * 1024;
/// Redirect hops followed at most.
pub const DEFAULT_MAX_REDIRECTS: u32 = 10;
/// Retries of a transient failure (connection reset, 502/503/504, 429).
pub const DEFAULT_RETRIES: u32 = 2;
/// Rules run when none are named.
pub const DEFAULT_RULES: &[&str] = &["all"];
/// Final statuses of link and resource checks that count as working, when
/// nothing else is said (lychee accepts 100–103 and 2xx; redirects are followed
/// here, so a final 3xx only comes from a redirect that could not be followed).
pub const DEFAULT_ACCEPT: &str = "100..=399";

/// A range of HTTP status codes, inclusive: one entry of `accept`.
///
/// Written as lychee writes them: `403` (one code), `200..=299` (inclusive),
/// `200..300` (end excluded), `..=299` or `500..` (open ends run to 100 and
/// 999). Serialized in the same syntax, so reports and the API show what a
/// user would type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatusRange {
    /// First accepted status.
    pub start: u16,
    /// Last accepted status (inclusive).
    pub end: u16,
}

/// Smallest status code a range may name.
pub const MIN_STATUS: u16 = 100;
/// Largest status code a range may name.
pub const MAX_STATUS: u16 = 999;

impl StatusRange {
    /// Whether `status` is in the range.
    pub fn contains(&self, status: u16) -> bool {
        (self.start..=self.end).contains(&status)
    }

    /// Parses a comma-separated list (`200..=299,403`); blanks between entries
    /// are ignored, an empty list is an error.
    pub fn parse_list(s: &str) -> Result<Vec<StatusRange>, String> {
        let ranges: Vec<StatusRange> = s
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        if ranges.is_empty() {
            return Err(format!(
                "no status codes given: write codes and ranges such as {DEFAULT_ACCEPT} or 200..=299,403"
            ));
        }
        Ok(ranges)
    }
}

/// The default accepted statuses ([`DEFAULT_ACCEPT`]).
pub fn default_accept() -> Vec<StatusRange> {
    vec![StatusRange {
        start: 100,
        end: 399,
    }]
}

impl std::str::FromStr for StatusRange {
    type Err = String;
    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let s = raw.trim();
        let bad = |why: &str| {
            format!(
                "`{raw}` is not a status code or range ({why}): write 403, 200..=299, 200..300, ..=299 or 500.."
            )
        };
        let code = |t: &str| -> Result<u16, String> {
            let n: u16 = t
                .parse()
                .map_err(|_| bad(&format!("`{t}` is not a number")))?;
            if (MIN_STATUS..=MAX_STATUS).contains(&n) {
                Ok(n)
            } else {
                Err(bad(&format!("{n} is outside {MIN_STATUS}..={MAX_STATUS}")))
            }
        };
        let (start, end) = match s.split_once("..") {
            None => {
                let c = code(s)?;
                (c, c)
            }
            Some((a, b)) => {
                let start = if a.is_empty() { MIN_STATUS } else { code(a)? };
                let end = match b.strip_prefix('=') {
                    Some(inclusive) => code(inclusive)?,
                    None if b.is_empty() => MAX_STATUS,
                    None => code(b)?
                        .checked_sub(1)
                        .ok_or_else(|| bad("the range is empty"))?,
                };
                (start, end)
            }
        };
        if start > end {
            return Err(bad("the range is empty: its start is after its end"));
        }
        Ok(StatusRange { start, end })
    }
}

impl std::fmt::Display for StatusRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}..={}", self.start, self.end)
        }
    }
}

impl Serialize for StatusRange {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for StatusRange {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Which link and resource URLs a scan requests to check them (the
/// `broken-links` and `broken-resources` statuses, and the subresource facts of
/// the performance rules). Pages the crawl fetches and their stylesheets are
/// fetched whatever this says, so broken pages of the site are always found.
///
/// URLs left out are not requested at all (no DNS look-up either), never count
/// as passing, and are counted in the report's `stats.skipped.links`. Like
/// lychee's `--offline`, `internal` keeps a pipeline's verdict independent of
/// other people's servers.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum LinkScope {
    /// Every link and resource URL found is checked, on any host (the default).
    #[default]
    All,
    /// Only URLs on the scanned site (the crawl's hosts) are checked; links
    /// and resources on other hosts are left unchecked.
    Internal,
    /// Nothing is requested beyond the crawl: only the statuses of the pages and
    /// stylesheets it fetched anyway are known.
    None,
}

/// The default [`LinkScope`] as written on the command line.
pub const DEFAULT_LINKS: &str = "all";

impl LinkScope {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkScope::All => "all",
            LinkScope::Internal => "internal",
            LinkScope::None => "none",
        }
    }
}

impl std::fmt::Display for LinkScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for LinkScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(LinkScope::All),
            "internal" => Ok(LinkScope::Internal),
            "none" => Ok(LinkScope::None),
            other => Err(format!(
                "unknown link scope `{other}`: use all, internal or none"
            )),
        }
    }
}

/// Quiet period of render mode, milliseconds: the page's network must be idle
/// this long (or, for the other waits, the page is given this long after its
/// condition holds) before its DOM is taken.
pub const DEFAULT_RENDER_QUIET_MS: u64 = 500;
/// Longest a rendered page is waited for, from its navigation, milliseconds;
/// past it the DOM is taken as it is.
pub const DEFAULT_RENDER_MAX_WAIT_MS: u64 = 10_000;

/// What render mode waits for after the page's `load` event before it takes
/// the DOM. Written `"load"`, `"network-idle"` or `{"selector": "#app"}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RenderWait {
    /// The load event, then the quiet period.
    Load,
    /// No request of the page in flight for the quiet period (the default).
    #[default]
    NetworkIdle,
    /// An element matching this CSS selector, then the quiet period.
    Selector(String),
}

/// Throttling preset of render mode: the network and CPU a rendered page is
/// loaded with (see `browser::metrics`). *Applied* throttling, as
/// Lighthouse's devtools mode, not its default simulated mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Throttle {
    /// No throttling (the default, fastest).
    #[default]
    None,
    /// A mid-range phone on slow 4G: 562.5 ms latency, 1.6 Mbit/s down, 4×
    /// slower CPU, a 412 × 823 viewport.
    Mobile,
    /// A desktop on a fast connection: 40 ms latency, 10 Mbit/s, a 1350 ×
    /// 940 viewport.
    Desktop,
}

impl Throttle {
    /// `none`, `mobile` or `desktop`.
    pub fn as_str(self) -> &'static str {
        match self {
            Throttle::None => "none",
            Throttle::Mobile => "mobile",
            Throttle::Desktop => "desktop",
        }
    }
}

impl std::fmt::Display for Throttle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Throttle {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Throttle::None),
            "mobile" => Ok(Throttle::Mobile),
            "desktop" => Ok(Throttle::Desktop),
            other => Err(format!(
                "unknown throttling preset `{other}`: use none, mobile or desktop"
            )),
        }
    }
}

/// Width and height of render mode's viewport when neither `--viewport`
/// nor a throttling preset says otherwise: a desktop window, as Playwright's
/// default (1280 × 720), so axe in Playwright and sitescan judge the same
/// layout.
pub const DEFAULT_VIEWPORT: ViewportSize = ViewportSize {
    width: 1280,
    height: 720,
};

/// The sides a viewport may have, CSS pixels (both width and height): below
/// 200 no page lays out as a user sees it, above 4000 the pictures and
/// layouts grow for nothing.
pub const VIEWPORT_SIDE: std::ops::RangeInclusive<u32> = 200..=4000;

/// Render mode's viewport, CSS pixels: each tab is emulated at this size
/// (device scale factor 1, not a mobile device). Written
/// `{"width": 1280, "height": 720}`; read from `1280x720` on the command line
/// ([`std::str::FromStr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewportSize {
    /// Width, CSS pixels ([`VIEWPORT_SIDE`]).
    pub width: u32,
    /// Height, CSS pixels ([`VIEWPORT_SIDE`]).
    pub height: u32,
}

impl ViewportSize {
    /// What to give instead when a side is out of [`VIEWPORT_SIDE`].
    pub fn bounds() -> String {
        format!(
            "give {} to {} pixels",
            VIEWPORT_SIDE.start(),
            VIEWPORT_SIDE.end()
        )
    }

    /// `Err` says which side is out of [`VIEWPORT_SIDE`] and what to give.
    pub fn check(self) -> Result<(), String> {
        for (name, side) in [("width", self.width), ("height", self.height)] {
            if !VIEWPORT_SIDE.contains(&side) {
                return Err(format!(
                    "a viewport {name} of {side} pixels is out of bounds: {} (e.g. 1280x720)",
                    Self::bounds()
                ));
            }
        }
        Ok(())
    }
}

impl Default for ViewportSize {
    fn default() -> Self {
        DEFAULT_VIEWPORT
    }
}

impl std::fmt::Display for ViewportSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl std::str::FromStr for ViewportSize {
    type Err = String;
    /// `WIDTHxHEIGHT` (`1280x720`; `X` or `×` also read), both sides within
    /// [`VIEWPORT_SIDE`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let shape = || {
            format!(
                "`{s}` is not a viewport: give WIDTHxHEIGHT in CSS pixels, each {} to {} (e.g. 1280x720)",
                VIEWPORT_SIDE.start(),
                VIEWPORT_SIDE.end()
            )
        };
        let (w, h) = s.trim().split_once(['x', 'X', '×']).ok_or_else(shape)?;
        let side = |v: &str| {
            let v = v.trim();
            // Digits only: `+1280` or `1e3` are not what anyone means.
            if v.is_empty() || v.len() > 9 || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(shape());
            }
            v.parse::<u32>().map_err(|_| shape())
        };
        let size = ViewportSize {
            width: side(w)?,
            height: side(h)?,
        };
        size.check()?;
        Ok(size)
    }
}

/// How render mode waits for a page (see [`ScanConfig::render`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderOptions {
    /// What to wait for after load (default network idle).
    pub wait: RenderWait,
    /// Quiet period, milliseconds ([`DEFAULT_RENDER_QUIET_MS`]).
    pub quiet_ms: u64,
    /// Longest wait from the navigation, milliseconds
    /// ([`DEFAULT_RENDER_MAX_WAIT_MS`]).
    pub max_wait_ms: u64,
    /// Pictures of failing elements and of each page (see
    /// [`crate::browser::screenshot`]).
    #[serde(skip_serializing_if = "ScreenshotOptions::is_default")]
    pub screenshots: ScreenshotOptions,
    /// Throttling preset (default none).
    #[serde(skip_serializing_if = "is_no_throttle")]
    pub throttle: Throttle,
    /// The viewport each tab is emulated at. `None` (the default): the
    /// throttling preset's own (a phone's for `mobile`, 1350 × 940 for
    /// `desktop`), else [`DEFAULT_VIEWPORT`]. Given, it wins over the
    /// preset's, at device scale factor 1 and not as a mobile device (see
    /// `browser::metrics::DeviceMetrics`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viewport: Option<ViewportSize>,
}

fn is_no_throttle(t: &Throttle) -> bool {
    *t == Throttle::None
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            wait: RenderWait::NetworkIdle,
            quiet_ms: DEFAULT_RENDER_QUIET_MS,
            max_wait_ms: DEFAULT_RENDER_MAX_WAIT_MS,
            screenshots: ScreenshotOptions::default(),
            throttle: Throttle::None,
            viewport: None,
        }
    }
}

/// Most pictures one scan takes by default ([`ScreenshotOptions::max`]).
pub const DEFAULT_MAX_SCREENSHOTS: usize = 200;
/// Most bytes of pictures one scan keeps by default
/// ([`ScreenshotOptions::max_bytes`]).
pub const DEFAULT_MAX_SCREENSHOT_BYTES: u64 = 20 * 1024 * 1024;

/// Render mode's pictures: a clipped, highlighted screenshot of each failing
/// element and a thumbnail of each page, bounded per scan. Written
/// `{"enabled": true, "max": 200, "max_bytes": 20971520}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScreenshotOptions {
    /// Whether pictures are taken at all (default yes, in render mode).
    pub enabled: bool,
    /// Most pictures per scan, element shots and thumbnails together
    /// ([`DEFAULT_MAX_SCREENSHOTS`]).
    pub max: usize,
    /// Most bytes of pictures per scan ([`DEFAULT_MAX_SCREENSHOT_BYTES`]).
    pub max_bytes: u64,
}

impl Default for ScreenshotOptions {
    fn default() -> Self {
        ScreenshotOptions {
            enabled: true,
            max: DEFAULT_MAX_SCREENSHOTS,
            max_bytes: DEFAULT_MAX_SCREENSHOT_BYTES,
        }
    }
}

impl ScreenshotOptions {
    fn is_default(&self) -> bool {
        *self == ScreenshotOptions::default()
    }

    /// Whether any picture can be taken.
    pub fn on(&self) -> bool {
        self.enabled && self.max > 0 && self.max_bytes > 0
    }
}

impl RenderOptions {
    fn is_default(&self) -> bool {
        *self == RenderOptions::default()
    }
}

/// Queue priority of a scan in the service.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub enum Priority {
    /// After normal and high.
    Low,
    /// The default.
    #[default]
    Normal,
    /// First.
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
    /// Final statuses of link and resource checks that count as working
    /// (`broken-links`, `broken-resources`); default [`DEFAULT_ACCEPT`].
    pub accept: Vec<StatusRange>,
    /// Which link and resource URLs are requested to check them (default
    /// [`LinkScope::All`]).
    pub links: LinkScope,
    /// What each page's analysis may spend: wall time (`time_ms`), nodes,
    /// nesting depth, links, CSS rules, selectors and stylesheets (defaults
    /// [`PageBudget::DEFAULT`]). A page over any of them gets an
    /// `analysis-incomplete` finding naming it; the scan goes on.
    pub budget: PageBudget,
    /// Render mode: each page is loaded in headless Chromium, its scripts run,
    /// and the rules judge the DOM it shows (default off: the HTML the server
    /// sends). Needs Debian's `chromium` (see `crate::browser`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub render: bool,
    /// How render mode waits for each page.
    #[serde(skip_serializing_if = "RenderOptions::is_default")]
    pub render_options: RenderOptions,
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
            accept: default_accept(),
            links: LinkScope::All,
            budget: PageBudget::DEFAULT,
            render: false,
            render_options: RenderOptions::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_ranges_parse_like_lychee() {
        let got = StatusRange::parse_list("200..=299, 403,..=103,500..,300..304").unwrap();
        let shown: Vec<String> = got.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            ["200..=299", "403", "100..=103", "500..=999", "300..=303"]
        );
        assert!(got[1].contains(403) && !got[1].contains(404));
        for (input, why) in [
            ("", "no status codes given"),
            ("2xx", "`2xx` is not a number"),
            ("99", "99 is outside 100..=999"),
            ("300..=200", "its start is after its end"),
            ("200..200", "its start is after its end"),
            (
                "1000",
                "`1000` is not a status code or range (1000 is outside",
            ),
        ] {
            let err = StatusRange::parse_list(input).unwrap_err();
            assert!(err.contains(why), "{input}: {err}");
        }
    }

    #[test]
    fn accept_round_trips_through_json() {
        let config = ScanConfig {
            accept: StatusRange::parse_list("200..=299,403").unwrap(),
            ..ScanConfig::default()
        };
        let json = serde_json::to_value(&config).unwrap();
        assert_eq!(json["accept"], serde_json::json!(["200..=299", "403"]));
        let back: ScanConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, config);
        let default: ScanConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(default.accept, default_accept());
        let bad = serde_json::from_str::<ScanConfig>(r#"{"accept": ["2xx"]}"#).unwrap_err();
        assert!(bad.to_string().contains("`2xx` is not a number"), "{bad}");
    }

    #[test]
    fn viewports_are_read_as_width_x_height_within_the_bounds() {
        let v = |width, height| ViewportSize { width, height };
        assert_eq!("1280x720".parse(), Ok(v(1280, 720)));
        assert_eq!(" 800X600 ".parse(), Ok(v(800, 600)));
        assert_eq!("1024×768".parse(), Ok(v(1024, 768)));
        assert_eq!("200x4000".parse(), Ok(v(200, 4000)));
        assert_eq!(v(1280, 720).to_string(), "1280x720");
        assert_eq!(ViewportSize::default(), DEFAULT_VIEWPORT);
        let shape = |s: &str| {
            format!("`{s}` is not a viewport: give WIDTHxHEIGHT in CSS pixels, each 200 to 4000 (e.g. 1280x720)")
        };
        for bad in [
            "",
            "1280",
            "1280x",
            "x720",
            "1280x720x1",
            "wide",
            "-1x720",
            "+1280x720",
            "1e3x720",
            "1280.5x720",
            "99999999999x720",
        ] {
            assert_eq!(bad.parse::<ViewportSize>(), Err(shape(bad)), "{bad:?}");
        }
        assert_eq!(
            "199x720".parse::<ViewportSize>(),
            Err("a viewport width of 199 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)".into())
        );
        assert_eq!(
            "1280x4001".parse::<ViewportSize>(),
            Err("a viewport height of 4001 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)".into())
        );
        assert_eq!(
            "0x0".parse::<ViewportSize>().unwrap_err(),
            "a viewport width of 0 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)"
        );
    }

    #[test]
    fn render_options_write_a_viewport_only_when_given() {
        let default = serde_json::to_value(RenderOptions::default()).unwrap();
        assert!(default.get("viewport").is_none(), "{default}");
        let given = RenderOptions {
            viewport: Some(ViewportSize {
                width: 800,
                height: 600,
            }),
            ..RenderOptions::default()
        };
        let json = serde_json::to_value(&given).unwrap();
        assert_eq!(
            json["viewport"],
            serde_json::json!({"width": 800, "height": 600})
        );
        let back: RenderOptions = serde_json::from_value(json).unwrap();
        assert_eq!(back, given);
        let old: RenderOptions = serde_json::from_str(r#"{"throttle": "mobile"}"#).unwrap();
        assert_eq!(old.viewport, None);
        assert!(serde_json::from_str::<RenderOptions>(
            r#"{"viewport": {"width": 800, "height": 600, "scale": 2}}"#
        )
        .is_err());
    }

    #[test]
    fn link_scope_reads_and_writes_its_lowercase_name() {
        for scope in [LinkScope::All, LinkScope::Internal, LinkScope::None] {
            assert_eq!(scope.as_str().parse::<LinkScope>(), Ok(scope));
            assert_eq!(
                serde_json::to_value(scope).unwrap(),
                serde_json::json!(scope.as_str())
            );
        }
        assert_eq!(DEFAULT_LINKS.parse::<LinkScope>(), Ok(LinkScope::default()));
        let config: ScanConfig = serde_json::from_str(r#"{"links": "internal"}"#).unwrap();
        assert_eq!(config.links, LinkScope::Internal);
        assert_eq!(ScanConfig::default().links, LinkScope::All);
        let bad = "external".parse::<LinkScope>().unwrap_err();
        assert!(bad.contains("use all, internal or none"), "{bad}");
    }
}
