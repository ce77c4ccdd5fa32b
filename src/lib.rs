//! # sitescan
//!
//! Scan websites for accessibility (WCAG 2.1 A/AA), SEO, security, performance and
//! content quality. This facade re-exports the engine (crawler, scanner, report)
//! and the rules; the `sitescan` binary is built from the same crates.
//!
//! ```no_run
//! use futures::StreamExt;
//! use sitescan::{ScanEvent, Scanner};
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Validates rule names, patterns and limits once.
//!     let scanner = Scanner::builder()
//!         .rules(&["wcag-aa", "seo"])
//!         .max_pages(200)
//!         .max_depth(5)
//!         .rate_per_host(2.0)
//!         .exclude(&[r"/logout", r"\.zip$"])
//!         .build()?;
//!
//!     // The whole report; failed pages are values inside it, `Err` only when
//!     // the scan cannot run (bad URL, unreachable or private host, robots.txt).
//!     let report = scanner.scan("https://example.com/").await?;
//!     for finding in &report.findings {
//!         println!("{} {} {}", finding.impact, finding.rule_id, finding.page_url);
//!     }
//!     std::fs::write("report.json", serde_json::to_vec_pretty(&report)?)?;
//!
//!     // Or as a stream of events (progress, pages, then the report).
//!     // `Scanner` is a cheap `Clone + Send + Sync` handle; dropping the
//!     // stream cancels the scan.
//!     let mut events = Box::pin(scanner.clone().scan_stream("https://example.org/"));
//!     while let Some(event) = events.next().await {
//!         match event {
//!             ScanEvent::Progress(p) => eprintln!("{}/{} pages", p.pages_done, p.pages_done + p.pages_queued),
//!             ScanEvent::Page(page) => println!("{} {}", page.page.status, page.page.url),
//!             ScanEvent::Finished(report) => println!("{} pages", report.pages.len()),
//!             ScanEvent::Failed(error) => eprintln!("{error}"),
//!         }
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Analyzing HTML you already have, without a crawl, goes through the rules crate:
//!
//! ```
//! use sitescan::rules::{analyze, registry, Page};
//!
//! let page = Page::from_html("https://example.com/", "<html lang=en><title>Hi</title></html>");
//! let selection = registry::select(&["document-title"]).unwrap();
//! assert!(analyze(&page, &selection.page).findings.is_empty());
//! ```
#![deny(missing_docs)]

pub use sitescan_engine::*;
pub use sitescan_rules as rules;
