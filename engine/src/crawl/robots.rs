//! robots.txt, as RFC 9309 says: the group for our user agent token (else `*`),
//! Allow/Disallow with `*` and `$`, the longest match wins, `Crawl-delay`,
//! `Sitemap:` lines. A 4xx robots.txt means allow all; a 5xx or an unreachable
//! one means crawl nothing on that host.
//!
//! The file is read by [`sitescan_rules::support::robots`], the matcher the
//! `robots-txt` and `sitemap-non-indexable` rules use too, so the crawler and
//! the rules agree on every file (and both stay bounded by its size). Here the
//! HTTP answer the pipeline fetched becomes the crawler's [`Policy`].

use sitescan_rules::support::robots::{ParsedRobots, RuleSet};
use url::Url;

/// What robots.txt allows on one host.
pub enum Policy {
    /// No usable robots.txt (4xx): everything.
    AllowAll,
    /// 5xx or unreachable: nothing (RFC 9309 2.3.1.4).
    DisallowAll,
    /// The rules of the group that applies to us.
    Rules(Box<RuleSet>),
}

/// robots.txt of one host, as understood for our user agent.
pub struct Robots {
    /// What it allows.
    pub policy: Policy,
    /// `Crawl-delay` of our group, seconds.
    pub crawl_delay: Option<f32>,
    /// `Sitemap:` URLs, resolved.
    pub sitemaps: Vec<Url>,
    /// HTTP status of robots.txt (0 when unreachable).
    pub status: u16,
}

impl std::fmt::Debug for Robots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let policy = match self.policy {
            Policy::AllowAll => "allow-all",
            Policy::DisallowAll => "disallow-all",
            Policy::Rules(_) => "rules",
        };
        f.debug_struct("Robots")
            .field("policy", &policy)
            .field("crawl_delay", &self.crawl_delay)
            .field("sitemaps", &self.sitemaps)
            .field("status", &self.status)
            .finish()
    }
}

/// The product token robots.txt groups are matched against: `sitescan` for
/// `sitescan/0.1.0 (+https://...)`.
pub fn agent_token(user_agent: &str) -> String {
    user_agent
        .split(|c: char| c == '/' || c.is_whitespace())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// `scheme://host[:port]/robots.txt` of a URL.
pub fn robots_url(url: &Url) -> Option<Url> {
    url.join("/robots.txt").ok()
}

impl Robots {
    /// Allows everything (robots.txt not honored, or none there).
    pub fn allow_all(status: u16) -> Robots {
        Robots {
            policy: Policy::AllowAll,
            crawl_delay: None,
            sitemaps: Vec::new(),
            status,
        }
    }

    /// Interprets a robots.txt response (`status` 0: unreachable). The caller
    /// caps the body (search engines read 500 KiB); only the groups that apply
    /// to `agent` are kept.
    pub fn from_response(agent: &str, robots_url: &Url, status: u16, body: &[u8]) -> Robots {
        match status {
            200..=299 => {
                let parsed = ParsedRobots::parse(agent, body);
                Robots {
                    crawl_delay: parsed.crawl_delay,
                    sitemaps: parsed
                        .sitemaps
                        .iter()
                        .filter_map(|s| robots_url.join(s.trim()).ok())
                        .collect(),
                    policy: Policy::Rules(Box::new(parsed.rules)),
                    status,
                }
            }
            400..=499 => Robots::allow_all(status),
            _ => Robots {
                policy: Policy::DisallowAll,
                crawl_delay: None,
                sitemaps: Vec::new(),
                status,
            },
        }
    }

    /// Whether our agent may fetch the URL.
    pub fn allowed(&self, url: &Url) -> bool {
        match &self.policy {
            Policy::AllowAll => true,
            Policy::DisallowAll => false,
            Policy::Rules(rules) => rules.allowed(url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TXT: &str = "User-agent: *\nDisallow: /\n\nUser-agent: sitescan\nAllow: /private/open$\nDisallow: /private/\nDisallow: /*.pdf$\nCrawl-delay: 0.5\nSitemap: /s.xml\n";

    #[test]
    fn our_group_longest_match_and_wildcards() {
        let base = Url::parse("https://example.com/robots.txt").unwrap();
        let r = Robots::from_response(
            &agent_token("sitescan/0.1 (+x)"),
            &base,
            200,
            TXT.as_bytes(),
        );
        let ok = |p: &str| r.allowed(&base.join(p).unwrap());
        assert!(ok("/public"));
        assert!(!ok("/private/x"));
        assert!(ok("/private/open"));
        assert!(!ok("/private/open/more"));
        assert!(!ok("/a.pdf"));
        assert!(ok("/a.pdf?x=1"));
        assert_eq!(r.crawl_delay, Some(0.5));
        assert_eq!(r.sitemaps[0].as_str(), "https://example.com/s.xml");
        let other = Robots::from_response("otherbot", &base, 200, TXT.as_bytes());
        assert!(!other.allowed(&base.join("/public").unwrap()));
    }

    #[test]
    fn status_codes_per_rfc_9309() {
        let base = Url::parse("https://example.com/robots.txt").unwrap();
        let page = base.join("/x").unwrap();
        assert!(Robots::from_response("sitescan", &base, 404, b"").allowed(&page));
        assert!(!Robots::from_response("sitescan", &base, 503, b"").allowed(&page));
        assert!(!Robots::from_response("sitescan", &base, 0, b"").allowed(&page));
        assert_eq!(agent_token("SiteScan/1.0"), "sitescan");
    }
}
