//! What a scan tells its caller as it runs ([`ScanEvent`]: progress, pages,
//! the end), what it asks of a service ([`AnalysisWatch`]), and the
//! configured scanner's state the pipeline runs with. Below both the library
//! API (`crate::scanner`, which re-exports the public types) and the crawl
//! loop (`scan::pipeline`), so neither imports the other for them.

use std::sync::Arc;

use sitescan_rules::registry::Selection;
use sitescan_rules::Finding;
use tokio::sync::mpsc;

use crate::config::ScanConfig;
use crate::error::Error;
use crate::report::{PageReport, Report};

/// Told when each page's analysis starts and ends, so a service can record
/// durably which pages a scan is analysing: a page that aborts the process
/// (stack overflow, out-of-memory kill) is then known at the restart, and only
/// its scan is charged for the crash.
///
/// Analysis of the page waits for the future [`AnalysisWatch::starting`]
/// returns, so what it records is in place before any rule runs.
pub trait AnalysisWatch: Send + Sync + std::fmt::Debug + 'static {
    /// The page `url` (as in [`PageReport::url`]) is about to be analysed.
    fn starting(&self, url: &str) -> futures::future::BoxFuture<'static, ()>;
    /// The analysis of `url` ended (with or without findings, within budget or
    /// not). Not called when the scan is dropped meanwhile.
    fn finished(&self, url: &str);
}

/// A configured scanner's state, shared by its scans.
pub(crate) struct Inner {
    pub(crate) config: ScanConfig,
    pub(crate) selection: Selection,
    pub(crate) watch: Option<Arc<dyn AnalysisWatch>>,
    /// Credentials for the site (see [`crate::auth`]).
    pub(crate) auth: Option<crate::auth::SiteAuth>,
    /// The triage marks the scan applies (see [`crate::marks`]).
    pub(crate) marks: Arc<crate::marks::Marks>,
}

/// One page as it is done: its report entry and its findings.
#[derive(Debug, Clone)]
pub struct PageResult {
    /// The page's entry of [`Report::pages`].
    pub page: PageReport,
    /// Its failed and cant-tell findings.
    pub findings: Vec<Finding>,
}

/// How far a running scan is: what the CLI's progress bar shows, and what
/// the service stores with a running scan and shows in the API.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Progress {
    /// Pages fetched and checked.
    pub pages_done: u64,
    /// Pages known and waiting (queued or in flight).
    pub pages_queued: u64,
    /// Pages that failed to fetch.
    pub errors: u64,
    /// What the scan is doing: `crawl` (fetching and checking pages), `links`
    /// (checking the status of the links and resources the pages name) or
    /// `finish` (site-wide rules and the report). Records written before
    /// phases existed read as `crawl`.
    #[serde(default)]
    #[cfg_attr(feature = "utoipa", schema(value_type = String, example = "links"))]
    pub phase: Phase,
    /// Link and resource URLs checked so far in the `links` phase.
    #[serde(default)]
    pub links_checked: u64,
    /// Link and resource URLs the `links` phase checks in all (0 until it
    /// starts, and with `config.links: "none"`).
    #[serde(default)]
    pub links_total: u64,
}

/// The phase a running scan is in, for progress displays.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Fetching and analysing pages.
    #[default]
    Crawl,
    /// Checking the status of links and resources found on the pages.
    Links,
    /// Site-level rules and the report.
    Finish,
}

/// What [`crate::Scanner::scan_stream`] yields.
// `Page` is the event of every page and the large one: boxing it would cost
// an allocation per page to save bytes on the rare progress and end events.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum ScanEvent {
    /// Counters, after every page.
    Progress(Progress),
    /// A page is done.
    Page(PageResult),
    /// The scan finished; always the last event of a successful scan.
    Finished(Box<Report>),
    /// The scan could not run; always the last event then.
    Failed(Error),
}

/// Who hears of a running scan: page and progress events go to `events`, progress
/// alone to `progress`, when given.
#[derive(Clone, Copy, Default)]
pub(crate) struct Observer<'a> {
    /// Every page result and progress event (the library's stream).
    pub(crate) events: Option<&'a mpsc::UnboundedSender<ScanEvent>>,
    /// Progress only (the CLI's progress bar), without copies of the findings.
    pub(crate) progress: Option<&'a (dyn Fn(Progress) + Send + Sync)>,
}

/// Sends a progress event to whoever listens.
pub(crate) fn emit_progress(observer: Observer<'_>, progress: Progress) {
    if let Some(tx) = observer.events {
        let _ = tx.send(ScanEvent::Progress(progress));
    }
    if let Some(report) = observer.progress {
        report(progress);
    }
}
