//! The report of a scan: the model every renderer reads ([`model`]) and the
//! category scores ([`score`]), and where a running scan keeps its findings
//! ([`spool`]), and how findings about a whole host or one subresource become one
//! finding per problem ([`group`]), and the site's lab Web Vitals in render
//! mode ([`vitals`]).

pub(crate) mod group;
pub mod model;
pub mod score;
pub mod screenshots;
pub mod spool;
pub mod vitals;

pub use model::*;
pub use screenshots::{Screenshot, Screenshots};
pub use spool::{CategoryCounts, FindingCounts, ReportSource, SpooledReport};
