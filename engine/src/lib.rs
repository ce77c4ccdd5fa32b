//! # sitescan-engine
//!
//! The crawler, the scan pipeline (pages -> rules on rayon -> site rules), the
//! report model with its scores, and the renderers. It knows nothing of Redis or
//! the API.
#![deny(missing_docs)]

pub mod config;
pub mod conformance;
pub mod error;
pub mod report;
pub mod spelling;

pub use config::{Priority, ScanConfig};
pub use error::{Error, Result};
pub use report::{
    CategorySummary, CrawlStats, PageReport, Report, RuleSummary, Skipped, SCHEMA_VERSION,
};
