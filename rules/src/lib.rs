//! # sitescan-rules
//!
//! The checks of sitescan and everything they stand on: the [`Page`] model, the
//! [`Rule`] trait and its metadata, the registry of rules and rule sets, and the
//! single-traversal runner that evaluates every selected rule over one parsed page.
//!
//! This crate does no I/O. It knows nothing of HTTP clients, Redis or the API: the
//! engine fetches pages and hands them here; what comes back are plain values
//! ([`PageAnalysis`], [`Finding`]) that any front end can render.
//!
//! ```
//! use sitescan_rules::{analyze, registry, Page};
//!
//! let page = Page::from_html("https://example.com/", "<html lang=en><head></head><body></body></html>");
//! let rules = registry::select(&["document-title".to_string()]).unwrap();
//! let analysis = analyze(&page, &rules.page);
//! assert_eq!(analysis.findings.len(), 1);
//! assert_eq!(analysis.findings[0].rule_id, "document-title");
//! ```
#![deny(missing_docs)]

/// Declares each rule's module and lists its rule in the category's `RULES`, so
/// a rule is named in one place: `rule_modules! { page: file_name::TypeName, … }`
/// in the category's `mod.rs` (`site:` for site rules). The registry chains the
/// categories' lists.
macro_rules! rule_modules {
    (page: $($module:ident :: $rule:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every page rule of this category, in report order.
        pub(crate) static RULES: &[&dyn $crate::Rule] = &[$(&$module::$rule),*];
    };
    (site: $($module:ident :: $rule:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every site rule of this category, in report order.
        pub(crate) static RULES: &[&dyn $crate::site::SiteRule] = &[$(&$module::$rule),*];
    };
}
pub(crate) use rule_modules;

mod boxes;
mod context;
mod meta;
mod page;
mod run;

pub mod a11y;
pub mod aria;
pub mod budget;
pub mod css;
pub mod docs;
pub mod dom;
pub mod interaction;
pub mod langtag;
pub mod links;
pub mod narrow;
pub mod performance;
pub mod quality;
pub mod registry;
pub mod rendered;
pub mod repeated;
pub mod resources;
pub mod security;
pub mod seo;
pub mod site;
pub mod structure;
pub mod support;
pub mod table;
pub mod testing;
pub mod vitals;

pub use budget::{Cancel, Limit, Overrun, PageBudget};
pub use context::{
    Check, Finding, Occurrence, Outcome, PageAnalysis, PageContext, RuleError, RuleTally,
    IDREF_ATTRS, MAX_OCCURRENCES,
};
pub use meta::{Category, Impact, Level, Measured, Need, RuleMeta, Scope};
pub use page::{Header, Hop, MissingStylesheet, Page, Stylesheet};
pub use run::{analyze, analyze_parsed, analyze_with, panic_message, Rule, Visits};

pub use context::{BaselineState, Mark, MarkStatus};
