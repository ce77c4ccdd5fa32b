//! robots.txt rules as RFC 9309 reads them: the groups for one user agent
//! token (else `*`), Allow/Disallow with `*` and `$`, the longest match wins,
//! Allow wins a tie, `/robots.txt` is always allowed, an empty `Disallow:`
//! allows all. Pure text: the crawler (which fetches the file and decides what
//! a 4xx or 5xx means) and the `robots-txt` / `sitemap-non-indexable` rules
//! read the same file the same way.
//!
//! Bounded by construction: only the lines of the groups that apply to the
//! agent are kept, as plain bytes (the file's size, at most), and `*`/`$` are
//! matched greedily with `memmem`, which is exact for robots.txt patterns (`*`
//! matches any run of bytes, `$` only ends a pattern): a part found at its
//! leftmost place leaves the most room for the parts after it. (texting_robots,
//! used before, compiled every pattern holding `$` into a regex, several KiB
//! each: a 512 KiB file of `Disallow: /a$` lines cost 229-460 MB.)

use memchr::memmem;
use url::Url;

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

/// What one agent reads from a robots.txt file.
#[derive(Debug, Default)]
pub struct ParsedRobots {
    /// The Allow/Disallow rules of the groups that apply to the agent.
    pub rules: RuleSet,
    /// `Crawl-delay` of those groups (or one above every group), seconds.
    pub crawl_delay: Option<f32>,
    /// `Sitemap:` values as written (not resolved), of the whole file.
    pub sitemaps: Vec<String>,
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

impl ParsedRobots {
    /// Reads the groups of `body` that apply to `agent` (a lowercase product
    /// token such as `sitescan` or `googlebot`): those naming it, else those of
    /// `*`. Rules before any `User-agent` line apply only when the file has
    /// none at all. Never fails: lines it does not understand are skipped.
    pub fn parse(agent: &str, body: &[u8]) -> ParsedRobots {
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
        let mut out = ParsedRobots::default();
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
}

impl RuleSet {
    /// Whether the rules let the URL be fetched: the longest matching pattern
    /// decides, Allow wins a tie, no match allows. `/robots.txt` is always
    /// allowed.
    pub fn allowed(&self, url: &Url) -> bool {
        self.path_allowed(&url[url::Position::BeforePath..])
    }

    /// [`RuleSet::allowed`] for a URL given as text: an absolute URL is
    /// parsed (and so percent-encoded as the crawler would request it);
    /// anything else is taken as a path with its query, as written.
    pub fn allowed_str(&self, url: &str) -> bool {
        match Url::parse(url) {
            Ok(u) => self.allowed(&u),
            Err(_) => self.path_allowed(url),
        }
    }

    /// Whether the rules allow a path with its query (`/a/b?c`).
    fn path_allowed(&self, path: &str) -> bool {
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

    fn rules(agent: &str, txt: &str) -> ParsedRobots {
        ParsedRobots::parse(agent, txt.as_bytes())
    }

    fn ok(r: &ParsedRobots, path: &str) -> bool {
        r.rules.allowed(
            &Url::parse("https://example.com/")
                .unwrap()
                .join(path)
                .unwrap(),
        )
    }

    fn kept(r: &ParsedRobots) -> usize {
        r.rules.len()
    }

    #[test]
    fn urls_as_text_are_read_like_parsed_ones() {
        let r = rules(
            "googlebot",
            "User-agent: *\nDisallow: /caf\u{e9}\nDisallow: /q?x=1$\n",
        );
        assert!(!r.rules.allowed_str("https://example.com/caf\u{e9}/menu"));
        assert!(!r.rules.allowed_str("/caf%C3%A9"));
        assert!(!r.rules.allowed_str("https://example.com/q?x=1"));
        assert!(r.rules.allowed_str("https://example.com/q?x=12"));
        assert!(r.rules.allowed_str("https://example.com/robots.txt"));
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
