//! The scan pipeline: the crawl loop ([`pipeline`]) fetching pages politely on
//! the async runtime, and the hand-off of each page to a rayon worker that parses
//! it once, runs the page rules, summarizes it and extracts its links
//! ([`dispatch`]).

pub(crate) mod dispatch;
pub(crate) mod events;
pub(crate) mod intern;
pub(crate) mod pages;
pub(crate) mod pipeline;
pub(crate) mod places;
