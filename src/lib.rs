//! # sitescan
//!
//! Scan websites for accessibility (WCAG 2.1 A/AA), SEO, security, performance and
//! content quality. This facade re-exports the engine (crawler, scanner, report)
//! and the rules; the `sitescan` binary is built from the same crates.
#![deny(missing_docs)]

pub use sitescan_engine::*;
pub use sitescan_rules as rules;
