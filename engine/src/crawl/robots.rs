//! robots.txt, as RFC 9309 says: the group for our user agent token (else `*`),
//! Allow/Disallow with `*` and `$`, the longest match wins, `Crawl-delay`,
//! `Sitemap:` lines. A 4xx robots.txt means allow all; a 5xx or an unreachable
//! one means crawl nothing on that host.
//!
//! The matcher is ours ([`RuleSet`]), not texting_robots': that crate compiles
//! every pattern holding `$` into a `regex::Regex` (several KiB each, plus a
//! lazy-DFA cache per regex once matched), so a 512 KiB file of `Disallow: /a$`
//! lines cost 229–460 MB. Here only the lines of the groups that apply to us are
//! kept, as plain bytes (the file's size, at most), and `*`/`$` are matched
//! greedily with `memmem`, which is exact for robots.txt patterns (`*` matches
//! any run of bytes, `$` only ends a pattern): a part found at its leftmost
//! place leaves the most room for the parts after it.

use memchr::memmem;
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
                let parsed = RuleSet::parse(agent, body);
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

/// The Allow/Disallow rules of the groups that apply to one agent, longest
/// pattern first.
#[derive(Debug, Default)]
pub struct RuleSet {
    /// `(pattern, allow)`, sorted by pattern length, longest first, Allow
    /// before Disallow of the same length (RFC 9309 2.2.2: the least
    /// restrictive wins a tie). Patterns are percent-encoded as URLs are, `*`
    /// runs collapsed; a trailing `$` is kept and means "ends here".
    rules: Vec<(Box<[u8]>, bool)>,
}

/// What [`RuleSet::parse`] reads from a file.
struct Parsed {
    rules: RuleSet,
    crawl_delay: Option<f32>,
    sitemaps: Vec<String>,
}

/// One line of robots.txt, as far as the matcher cares.
enum Line<'a> {
    UserAgent(&'a [u8]),
    Rule(&'a [u8], bool),
    CrawlDelay(&'a [u8]),
    Sitemap(&'a [u8]),
    Other,
}

/// Splits `key: value # comment` (a space instead of the colon is accepted, as
/// texting_robots and Google do) and names the key; common misspellings of
/// `disallow` count (Google's parser accepts them).
fn classify_line(raw: &[u8]) -> Line<'_> {
    let line = match raw.iter().position(|b| *b == b'#') {
        Some(i) => &raw[..i],
        None => raw,
    }
    .trim_ascii();
    let split = line
        .iter()
        .position(|b| *b == b':')
        .or_else(|| line.iter().position(|b| b.is_ascii_whitespace()));
    let Some(at) = split else {
        return Line::Other;
    };
    let key = line[..at].trim_ascii().to_ascii_lowercase();
    let value = line[at + 1..].trim_ascii();
    match key.as_slice() {
        b"user-agent" | b"useragent" | b"user agent" => Line::UserAgent(value),
        b"allow" => Line::Rule(value, true),
        b"disallow" | b"dissallow" | b"dissalow" | b"disalow" | b"diasllow" | b"disallaw" => {
            Line::Rule(value, false)
        }
        b"crawl-delay" | b"crawldelay" | b"crawl delay" => Line::CrawlDelay(value),
        b"sitemap" | b"site-map" | b"site map" => Line::Sitemap(value),
        _ => Line::Other,
    }
}

/// Percent-encodes what a URL serializer would (controls, space, non-ASCII and
/// `"<>\``) and collapses runs of `*`, so patterns compare with URL paths byte
/// for byte.
fn encode_pattern(raw: &[u8]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(raw.len());
    for &b in raw {
        if b == b'*' && out.last() == Some(&b'*') {
            continue;
        }
        if b <= 0x20 || b >= 0x7f || matches!(b, b'"' | b'<' | b'>' | b'`') {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
    out.into_boxed_slice()
}

/// Whether a robots.txt pattern matches a path (with its query) from its start.
fn pattern_matches(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut parts = pattern.split(|b| *b == b'*');
    let first = parts.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut at = first.len();
    let mut parts = parts.peekable();
    if parts.peek().is_none() {
        return !anchored || at == path.len();
    }
    while let Some(part) = parts.next() {
        if anchored && parts.peek().is_none() {
            // The last part must end the path, after what matched so far.
            return path.len() >= at + part.len() && path.ends_with(part);
        }
        match memmem::find(&path[at..], part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

impl RuleSet {
    /// Reads the groups of `body` that apply to `agent` (a lowercase product
    /// token): those naming it, else those of `*`. Rules before any
    /// `User-agent` line apply only when the file has none at all.
    fn parse(agent: &str, body: &[u8]) -> Parsed {
        let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
        let lines = || {
            body.split(|b| matches!(b, b'\n' | b'\r' | 0))
                .map(classify_line)
        };
        // Pass 1: is there a group for us, for `*`, any group at all?
        let (mut named, mut any_agent) = (false, false);
        for line in lines() {
            if let Line::UserAgent(ua) = line {
                any_agent = true;
                named |= ua.eq_ignore_ascii_case(agent.as_bytes());
            }
        }
        let wanted: &[u8] = if named { agent.as_bytes() } else { b"*" };
        // Pass 2: keep the rules of the wanted groups only.
        let mut out = Parsed {
            rules: RuleSet::default(),
            crawl_delay: None,
            sitemaps: Vec::new(),
        };
        let mut early_delay = None;
        let mut capturing = !any_agent;
        let mut in_agents = false;
        let mut seen_agent = false;
        for line in lines() {
            match line {
                Line::UserAgent(ua) => {
                    seen_agent = true;
                    if !in_agents {
                        capturing = false;
                    }
                    in_agents = true;
                    capturing |= ua.eq_ignore_ascii_case(wanted);
                }
                Line::Other => {}
                Line::Sitemap(s) => {
                    if !s.is_empty() {
                        out.sitemaps.push(String::from_utf8_lossy(s).into_owned());
                    }
                }
                Line::Rule(pattern, allow) => {
                    in_agents = false;
                    // An empty pattern matches nothing (RFC 9309: `Disallow:`
                    // allows all).
                    if capturing && !pattern.is_empty() {
                        out.rules.rules.push((encode_pattern(pattern), allow));
                    }
                }
                Line::CrawlDelay(d) => {
                    in_agents = false;
                    let d = std::str::from_utf8(d)
                        .ok()
                        .and_then(|d| d.parse::<f32>().ok())
                        .filter(|d| d.is_finite() && *d >= 0.0);
                    if !seen_agent {
                        early_delay = d.or(early_delay);
                    } else if capturing && out.crawl_delay.is_none() {
                        out.crawl_delay = d;
                    }
                }
            }
        }
        // A `Crawl-delay` above every group applies to all (texting_robots'
        // reading, kept).
        if out.crawl_delay.is_none() {
            out.crawl_delay = early_delay;
        }
        out.rules
            .rules
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(b.1.cmp(&a.1)));
        out.rules.rules.dedup();
        out.rules.rules.shrink_to_fit();
        out
    }

    /// Whether the rules let the URL be fetched: the longest matching pattern
    /// decides, Allow wins a tie, no match allows. `/robots.txt` is always
    /// allowed.
    pub fn allowed(&self, url: &Url) -> bool {
        let path = &url[url::Position::BeforePath..];
        if path == "/robots.txt" {
            return true;
        }
        self.rules
            .iter()
            .find(|(pattern, _)| pattern_matches(pattern, path.as_bytes()))
            .is_none_or(|(_, allow)| *allow)
    }

    /// How many rules apply to us.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether no rule applies to us.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
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

    fn rules(agent: &str, txt: &str) -> Robots {
        let base = Url::parse("https://example.com/robots.txt").unwrap();
        Robots::from_response(agent, &base, 200, txt.as_bytes())
    }

    fn ok(r: &Robots, path: &str) -> bool {
        r.allowed(
            &Url::parse("https://example.com/")
                .unwrap()
                .join(path)
                .unwrap(),
        )
    }

    fn kept(r: &Robots) -> usize {
        match &r.policy {
            Policy::Rules(set) => set.len(),
            _ => usize::MAX,
        }
    }

    #[test]
    fn wildcards_anchors_and_ties() {
        let r = rules(
            "sitescan",
            "User-agent: *\nDisallow: /fish*.php\nDisallow: /*.gif$\nAllow: /a\nDisallow: /a\nDisallow: /x***y$\nDisallow: /exact$\n",
        );
        assert!(!ok(&r, "/fish.php"));
        assert!(!ok(&r, "/fishheads/catfish.php?p=1"));
        assert!(ok(&r, "/Fish.php"));
        assert!(!ok(&r, "/img/a.gif"));
        assert!(ok(&r, "/img/a.gif?v=1"));
        assert!(ok(&r, "/a/b"), "Allow wins a tie of equal length");
        assert!(!ok(&r, "/x-and-y"));
        assert!(!ok(&r, "/xy"));
        assert!(ok(&r, "/xyz"));
        assert!(!ok(&r, "/exact"));
        assert!(ok(&r, "/exact/more"));
        assert!(ok(&r, "/robots.txt"));
    }

    #[test]
    fn only_the_groups_that_apply_are_kept() {
        let txt = "User-agent: a\nUser-agent: sitescan\nDisallow: /one\n\nUser-agent: b\nDisallow: /two\n\nUser-agent: *\nDisallow: /three\n\nUser-agent: sitescan\nDisallow: /four\nCrawl-delay: 2\n";
        let r = rules("sitescan", txt);
        assert_eq!(kept(&r), 2);
        assert!(!ok(&r, "/one") && !ok(&r, "/four"));
        assert!(ok(&r, "/two") && ok(&r, "/three"));
        assert_eq!(r.crawl_delay, Some(2.0));
        let star = rules("otherbot", txt);
        assert_eq!(kept(&star), 1);
        assert!(!ok(&star, "/three") && ok(&star, "/one"));
        assert_eq!(star.crawl_delay, None);
    }

    #[test]
    fn files_without_groups_empty_rules_and_encoding() {
        let r = rules(
            "sitescan",
            "Crawl-delay: 3\nDisallow: /private\nSitemap: https://e.com/s.xml\n",
        );
        assert!(!ok(&r, "/private/x"));
        assert_eq!(r.crawl_delay, Some(3.0));
        assert_eq!(r.sitemaps.len(), 1);
        let open = rules("sitescan", "User-agent: *\nDisallow:\n");
        assert!(ok(&open, "/anything"));
        assert_eq!(kept(&open), 0);
        let accents = rules(
            "sitescan",
            "User-agent: *\nDisallow: /caf\u{e9}\nDissallow: /typo # comment\n",
        );
        assert!(!ok(&accents, "/caf\u{e9}/menu"));
        assert!(!ok(&accents, "/typo"));
        assert!(ok(&accents, "/cafe"));
    }

    #[test]
    fn a_file_of_anchored_rules_is_held_as_bytes() {
        // 500 KiB of `$` rules: texting_robots compiled one regex each
        // (229-460 MB). Here they are the file's bytes, and matching stays exact.
        let mut txt = String::from("User-agent: *\n");
        let mut n = 0;
        while txt.len() < 500 * 1024 {
            txt.push_str(&format!("Disallow: /p{n}*q$\n"));
            n += 1;
        }
        let r = rules("sitescan", &txt);
        assert_eq!(kept(&r), n);
        assert!(!ok(&r, "/p17/anything/q"));
        assert!(ok(&r, "/p17/anything/q/"));
        assert!(ok(&r, "/elsewhere"));
    }
}
