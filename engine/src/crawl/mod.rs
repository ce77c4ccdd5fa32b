//! The crawler's parts: URL normalization and scope ([`scope`]), the SSRF guard
//! ([`ssrf`]), per-host politeness ([`host_limits`]), fetching with hop-by-hop
//! redirects, retries and a body cap ([`fetch`]), robots.txt ([`robots`]) and
//! sitemaps ([`sitemap`]). The crawl loop that ties them together is in
//! the private `scan` module, behind [`crate::Scanner`].

pub mod credentials;
pub mod fetch;
pub mod host_limits;
pub mod robots;
pub mod scope;
pub mod sitemap;
pub mod ssrf;
