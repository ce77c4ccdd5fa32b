//! # sitescan-engine
//!
//! The crawler, the scan pipeline (pages -> rules on rayon -> site rules), the
//! report model with its scores, and the renderers. It knows nothing of Redis or
//! the API.
//!
//! Build a [`Scanner`] once (it validates the configuration), then scan as many
//! sites as you like, from as many tasks as you like:
//!
//! ```no_run
//! use sitescan_engine::{Scanner, ScanEvent};
//! use futures::StreamExt;
//!
//! # async fn demo() -> Result<(), sitescan_engine::Error> {
//! let scanner = Scanner::builder()
//!     .rules(&["wcag-aa", "seo"])
//!     .max_pages(50)
//!     .rate_per_host(2.0)
//!     .build()?;
//!
//! // The whole report at once.
//! let report = scanner.scan("https://example.com/").await?;
//! println!("{} pages, {} findings", report.pages.len(), report.findings.len());
//! println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
//!
//! // Or page by page; dropping the stream cancels the scan.
//! let mut events = Box::pin(scanner.scan_stream("https://example.com/"));
//! while let Some(event) = events.next().await {
//!     match event {
//!         ScanEvent::Progress(p) => eprintln!("{} done, {} queued", p.pages_done, p.pages_queued),
//!         ScanEvent::Page(page) => println!("{} {}", page.page.status, page.page.url),
//!         ScanEvent::Finished(report) => println!("score: {:?}", report.summary),
//!         ScanEvent::Failed(error) => eprintln!("scan failed: {error}"),
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! Pages behind a login: hand the scanner a [`auth::SiteAuth`] (headers,
//! cookies, basic authentication, a sign-in form, or sign-in steps for render
//! mode). The credentials go only to the origin of the URL scanned, the sign-in
//! runs before the crawl (a failed one fails the scan with
//! [`Error::Login`]), sign-out links are never requested, and the report
//! carries no secret:
//!
//! ```no_run
//! use std::collections::BTreeMap;
//! use sitescan_engine::auth::{LoginCheck, LoginForm, SiteAuth};
//! use sitescan_engine::Scanner;
//!
//! # async fn demo() -> Result<(), sitescan_engine::Error> {
//! let auth = SiteAuth {
//!     login_form: Some(LoginForm {
//!         page: Some("/login".into()),
//!         action: "/login".into(),
//!         fields: BTreeMap::from([
//!             ("email".to_string(), "qa@example.com".to_string()),
//!             ("password".to_string(), std::env::var("QA_PASSWORD").unwrap_or_default()),
//!         ]),
//!         success: LoginCheck { cookie: Some("session".into()), ..LoginCheck::default() },
//!     }),
//!     ..SiteAuth::default()
//! };
//! let report = Scanner::builder().auth(auth).build()?.scan("https://app.example.com/").await?;
//! println!("{} pages signed in", report.pages.len());
//! # Ok(()) }
//! ```
//!
//! Politeness is built in: robots.txt (RFC 9309), a per-host rate limit raised
//! by `Crawl-delay`, `Retry-After`, bounded retries, a body-size cap, and an SSRF
//! guard that refuses private and local addresses unless
//! [`ScannerBuilder::allow_private`] is set.
#![deny(missing_docs)]

pub mod auth;
pub mod baseline;
pub mod browser;
pub mod checks;
pub mod config;
pub mod conformance;
pub mod crawl;
pub mod error;
pub mod gate;
pub mod marks;
pub mod render;
pub mod report;
mod scan;
mod scanner;
pub mod spelling;

pub use config::{
    LinkScope, PageBudget, Priority, RenderOptions, RenderWait, ScanConfig, ScreenshotOptions,
    Throttle, ViewportSize, DEFAULT_VIEWPORT, VIEWPORT_SIDE,
};
pub use error::{Error, Result};
pub use marks::Marks;
pub use report::{
    CategorySummary, CrawlStats, PageReport, Report, ReportSource, RuleSummary, Skipped,
    SpooledReport, SCHEMA_VERSION,
};
pub use scanner::{
    AnalysisWatch, PageResult, Phase, Progress, ScanEvent, Scanner, ScannerBuilder,
    MAX_REDIRECTS_LIMIT, MAX_RETRIES,
};
