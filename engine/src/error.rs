//! The engine's one error type.

use thiserror::Error;

/// Why a scan could not run at all. Failures of single pages are not errors:
/// they are recorded in the report.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// The start URL did not parse or is not http(s).
    #[error("invalid URL `{url}`: {reason}; give an absolute http:// or https:// URL")]
    InvalidUrl {
        /// What was given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// The configuration is inconsistent (bad pattern, zero concurrency, unknown rule).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// The start URL resolves to an address the private-address guard refuses.
    #[error("{url} resolves to a private or local address ({addr}); allow private addresses to scan it (the CLI does so unless --no-private)")]
    PrivateAddress {
        /// The URL.
        url: String,
        /// The refused address.
        addr: String,
    },
    /// The start page could not be fetched.
    #[error("could not fetch {url}: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// What went wrong, including what to check.
        reason: String,
    },
    /// The start page answered, but not with a 2xx HTML page (a 404, a 503, a
    /// redirect loop, a PDF): the scan stops before crawling anything else.
    #[error("{problem}")]
    StartPage {
        /// What the start page answered and what to check.
        problem: String,
    },
    /// robots.txt forbids the start URL for our user agent.
    #[error("robots.txt of {host} disallows {url} for user agent `{agent}`; ask the site owner, or if you own the site scan with robots.txt ignored (--ignore-robots, or respect_robots = false)")]
    RobotsDisallowed {
        /// The host.
        host: String,
        /// The URL.
        url: String,
        /// The user agent token matched.
        agent: String,
    },
    /// Render mode could not start its browser (not installed, or it did not
    /// answer).
    #[error("{0}")]
    Browser(String),
    /// The sign-in before the crawl failed (the login form's check did not
    /// hold, or a browser sign-in step found nothing): the scan would only
    /// see what a visitor who is not signed in sees. The message names the
    /// check or step and never contains a secret.
    #[error("sign-in failed: {0}")]
    Login(String),
    /// The HTTP client could not be built.
    #[error("HTTP client setup failed: {0}")]
    Client(String),
    /// A report could not be rendered in the asked format.
    #[error("could not render the report as {format}: {reason}")]
    Render {
        /// The format's name.
        format: &'static str,
        /// What failed.
        reason: String,
    },
    /// A report given as input (e.g. a baseline) is not a sitescan JSON report.
    #[error("not a usable sitescan report: {0}; give a report written with --format json")]
    InvalidReport(String),
    /// A gate threshold does not parse.
    #[error("invalid threshold: {0}")]
    Threshold(String),
    /// The temporary file that holds a scan's findings could not be created,
    /// written or read back.
    #[error("temporary file for the findings in {dir}: {reason}; set TMPDIR to a writable directory with free space")]
    Spool {
        /// The directory of the temporary file.
        dir: String,
        /// What failed.
        reason: String,
    },
    /// A report format name that does not exist.
    #[error("unknown report format `{0}`: use one of json, html, sarif, junit, csv, markdown")]
    UnknownFormat(String),
    /// An ACT conformance folder could not be read (missing or malformed file).
    #[error("ACT conformance data {path}: {reason}")]
    ConformanceData {
        /// The file.
        path: String,
        /// What was wrong with it.
        reason: String,
    },
}

/// Result with the engine's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
