//! Checks that need the network beyond the crawl itself, run after the crawl and
//! handed to the site rules as plain values (so the rules crate stays free of I/O).

pub mod links;
pub mod tls;
