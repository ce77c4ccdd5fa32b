//! Render mode: the page as headless Chromium shows it, through the same rules.
//!
//! Debian's `chromium` is driven over the DevTools protocol on a pipe
//! ([`cdp`]). One browser per process, launched on first use and recycled after
//! [`LaunchOptions::recycle_after`] pages or after a crash ([`pool`]; a
//! browser that cannot start is retried with a backoff, and [`health`] says
//! so; [`crashes`] counts the browsers that died in use, and
//! [`launch::probe`] checks that a fresh browser renders a page); each scan
//! gets a browser context of its own (no cookies or storage shared between
//! scans) and a pool of tabs sized by its concurrency ([`RenderSession`]).
//!
//! Every request a rendered page makes is ours to allow ([`intercept`]): the
//! browser never touches the network itself. Requests are paused by the
//! protocol's `Fetch` domain and either refused or fetched by us, through the
//! same SSRF guard, scope, robots.txt and per-host rate as the static crawl,
//! then handed back to the page. Whatever is not paused (WebSocket, WebRTC,
//! the browser's own background traffic) goes to a proxy that
//! answers nothing ([`launch`]'s sink), so it fails closed.
//!
//! The page's own document is not fetched twice: the static fetcher fetched it
//! (with its redirects, body cap and politeness) and the browser is served that
//! answer. After load and the configured wait the DOM is serialized
//! ([`snapshot`]) and replaces the fetched body, so the rules, the stylesheet
//! loading and the link extraction run unchanged on what a visitor sees.
//!
//! Before serializing, one `DOMSnapshot` takes the browser's computed styles,
//! boxes and blended backgrounds ([`facts`]) onto `rules::Page::rendered`,
//! which the layout rules prefer over the cascade's estimates. When a selected
//! rule needs it, the page's keyboard is then walked ([`interact`]): Tab and
//! Shift+Tab pressed in the browser, for the keyboard trap and visible focus
//! rules; then, with its requests refused, its character key shortcuts are
//! looked for ([`shortcuts`]), printable keys sent to it and its controls
//! tried for a way to turn them off, for the character key shortcuts rule
//! (style and ARIA attributes its clicks changed to no visible effect are
//! put back, `restyle`, so that the page is not loaded again for its
//! pictures);
//! then its scripted controls are activated ([`activate`]), for the bypass
//! rules. When a selected rule needs it,
//! the page is also laid out at 320 and
//! 640 CSS pixels wide ([`reflow`]) for the reflow and zoomed text rules,
//! and the backdrop of text over images and gradients is measured in
//! screenshots ([`backdrop`]) for the contrast rule.
//!
//! When the scan takes screenshots, the tab stays on the page while its rules
//! run, and then pictures each failing element and the page ([`screenshot`]).
//!
//! Every rendered page's lab Web Vitals (FCP, LCP, CLS, TBT, INP after a
//! keyboard walk, requests and bytes by type) are observed in the page and
//! read with the facts ([`metrics`]), under the scan's throttling preset.

pub mod activate;
pub mod backdrop;
pub mod cdp;
pub(crate) mod exit_keys;
pub mod facts;
pub mod interact;
pub mod intercept;
pub mod launch;
pub mod metrics;
pub(crate) mod picture;
pub mod pool;
pub mod reflow;
pub(crate) mod restyle;
pub mod screenshot;
pub mod shortcuts;
pub mod sign_in;
pub mod snapshot;
pub(crate) mod states;

pub use launch::{configure, sink_requests, LaunchOptions, DEFAULT_RECYCLE_AFTER};
pub use pool::{crashes, health, BrowserHealth, RenderSession};

/// Deepest element path (child indexes from the root) a page script may
/// answer; the watchers stop descending there.
pub(crate) const MAX_ELEMENT_PATH: usize = 256;

/// Reads an element path a page script answered: child indexes from the
/// document element, at most [`MAX_ELEMENT_PATH`] deep; `None` when it is
/// not one.
pub(crate) fn element_path(v: &serde_json::Value) -> Option<Vec<u32>> {
    let a = v.as_array()?;
    if a.len() > MAX_ELEMENT_PATH {
        return None;
    }
    a.iter()
        .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
        .collect()
}

/// What went wrong in the browser. Page-level failures (a hung tab, a
/// navigation refused) are values the scan records on the page; a browser that
/// cannot start fails the scan.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BrowserError {
    /// No browser binary was found.
    #[error("render mode needs Chromium: install Debian's `chromium` package (apt-get install chromium) or set SITESCAN_CHROMIUM to the browser's path{0}")]
    Missing(String),
    /// The browser started but did not answer.
    #[error("chromium did not start: {0}")]
    Launch(String),
    /// The browser exited or crashed while in use.
    #[error("the browser exited or crashed")]
    Crashed,
    /// A protocol call got no answer in time (a hung tab or browser).
    #[error("the browser did not answer {method} within {ms} ms")]
    Timeout {
        /// The protocol method.
        method: String,
        /// The timeout, milliseconds.
        ms: u64,
    },
    /// The browser answered with a protocol error.
    #[error("browser protocol error: {0}")]
    Protocol(String),
    /// A message from the browser was over [`cdp::MAX_MESSAGE_BYTES`].
    #[error(
        "the browser's answer was larger than {} bytes",
        cdp::MAX_MESSAGE_BYTES
    )]
    TooLarge,
    /// A script the engine ran in the page threw (the page replaced or
    /// broke what it relies on, or the document went away under it).
    #[error("a script in the page failed: {0}")]
    Script(String),
    /// The browser did not load the page.
    #[error("the browser could not load the page: {0}")]
    Navigation(String),
    /// The browser failed to start lately ([`Missing`](Self::Missing) or
    /// [`Launch`](Self::Launch)), and its next start is not due yet
    /// ([`pool::FIRST_RESTART_BACKOFF`]).
    #[error("{error} (it failed to start {failures} time(s) in a row; the next start is tried in {retry_in_s} s)")]
    Unavailable {
        /// The last start's error.
        error: String,
        /// Starts that failed in a row.
        failures: u32,
        /// Seconds until the next start may be tried.
        retry_in_s: u64,
    },
}

impl BrowserError {
    /// Whether the browser could not be started at all (missing, failing
    /// to start, or waiting before the next start): no page can be rendered
    /// until that changes, so a scan stops rather than failing page after page.
    pub fn is_start_failure(&self) -> bool {
        matches!(
            self,
            BrowserError::Missing(_) | BrowserError::Launch(_) | BrowserError::Unavailable { .. }
        )
    }
}
