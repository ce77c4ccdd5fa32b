//! What a scan learns of the site besides its pages: robots.txt (per origin,
//! obeyed by the crawl and kept as facts for the site rules), the sitemaps,
//! the TLS handshake of the https origin, and the one-off CORS and http:
//! probes of the start page, each gathered only when a selected rule needs it.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use sitescan_rules::site::{
    CorsProbe, HttpProbe, RobotsFacts, SitemapFile, SitemapSource, TlsFacts,
};
use sitescan_rules::Need;
use url::Url;

use super::start::{lock, origin_key, Shared};
use crate::crawl::fetch::{BodyPolicy, FetchError};
use crate::crawl::robots::{agent_token, robots_url, Robots};
use crate::crawl::scope::{normalize, Scope};
use crate::crawl::sitemap;
use crate::error::{Error, Result};

/// Largest robots.txt read, decoded (Google reads 500 KiB and ignores the
/// rest); a longer file is read up to its last whole line within the cap.
const MAX_ROBOTS_BYTES: u64 = 500 * 1024;
/// Sitemap files fetched at most per scan (indexes included); children of an
/// index past it are counted in a note, not queued.
const MAX_SITEMAP_FILES: usize = 50;
/// Nesting of sitemap indexes followed.
const MAX_SITEMAP_DEPTH: u32 = 3;
/// Sitemap page URLs kept beyond `max_pages`: some turn out to be duplicates,
/// out of scope or disallowed. Past `max_pages` plus this (or twice
/// `max_pages`, when larger) entries are counted, not kept: the crawl could not
/// fetch them anyway.
const SITEMAP_URL_SLACK: usize = 1000;
/// Whether robots.txt of the start host lets the scan run at all: a 5xx or a
/// refusal of the start URL stops it (RFC 9309), an unreachable host too.
/// The rules are kept for the crawl.
pub(super) async fn start_robots(shared: &Shared, start_url: &Url) -> Result<()> {
    let robots = load_robots(shared, start_url).await;
    match robots {
        Err(FetchError::Private(p)) => {
            return Err(Error::PrivateAddress {
                url: start_url.to_string(),
                addr: p.addr.to_string(),
            })
        }
        Err(e) => {
            return Err(Error::Unreachable {
                url: start_url.to_string(),
                reason: format!("{e}; check the URL, your network and that the site is up"),
            })
        }
        Ok(r) if r.status >= 500 => {
            return Err(Error::Unreachable {
                url: start_url.to_string(),
                reason: format!(
                    "its robots.txt answered HTTP {}, and RFC 9309 says to crawl nothing until it answers; try again later",
                    r.status
                ),
            })
        }
        Ok(r) if !r.allowed(start_url) => {
            return Err(Error::RobotsDisallowed {
                host: start_url.host_str().unwrap_or("").to_string(),
                url: start_url.to_string(),
                agent: agent_token(&shared.config.user_agent),
            })
        }
        Ok(r) => {
            lock(&shared.robots).insert(origin_key(start_url), Arc::new(r));
        }
    }
    Ok(())
}

/// The site facts the site rules read, gathered once the start page is in.
pub(super) struct SiteFacts {
    /// Page URLs the sitemaps list (all hosts, in document order).
    pub(super) sitemap_urls: Vec<String>,
    pub(super) sitemap_files: Vec<SitemapFile>,
    pub(super) tls: Option<TlsFacts>,
    pub(super) cors_probe: Option<CorsProbe>,
    pub(super) http_probe: Option<HttpProbe>,
    /// Notes for the report (sitemaps that could not be read, …).
    pub(super) notes: Vec<String>,
}

/// Gathers the site facts the selection needs: robots.txt facts of the site's
/// origin (`site_root`: the start page's final URL), the sitemaps (unless the
/// scan is one page without site rules), the TLS handshake, and the CORS and
/// http: probes (when the start page answered: `start_answered`).
pub(super) async fn gather(
    shared: &Arc<Shared>,
    selection: &sitescan_rules::registry::Selection,
    scope: &Scope,
    start_url: &Url,
    site_root: &Url,
    start_answered: bool,
) -> SiteFacts {
    let config = &shared.config;
    let needs = |need: Need| selection.needs(need);
    let mut notes = Vec::new();
    // robots.txt facts for the site rules, fetched even when the crawl ignores
    // robots.txt (then only read, never obeyed).
    if needs(Need::Robots) {
        let known = lock(&shared.robots_facts).contains_key(&origin_key(site_root));
        if !known {
            let _ = load_robots(shared, site_root).await;
        }
    }
    let (sitemap_urls, sitemap_files) = if config.max_pages > 1 || !selection.site.is_empty() {
        let (urls, files, found) = collect_sitemaps(shared, scope, site_root).await;
        notes.extend(found);
        (urls, files)
    } else {
        (Vec::new(), Vec::new())
    };
    // Once per scan: the TLS handshake of the site's https origin and one request
    // with a foreign Origin, when their rules are selected.
    let tls = if needs(Need::Tls) {
        check_tls(shared, start_url, site_root).await
    } else {
        None
    };
    let cors_probe = if needs(Need::CorsProbe) && start_answered {
        Some(probe_cors(shared, site_root).await)
    } else {
        None
    };
    // The http: twin of an HTTPS start page, unless the scan itself came from http:
    // (then the crawl's own first fetch shows the redirect).
    let http_probe = match HttpProbe::twin(site_root) {
        Some(twin) if needs(Need::HttpProbe) && start_url.scheme() == "https" && start_answered => {
            Some(probe_http(shared, &twin).await)
        }
        _ => None,
    };
    SiteFacts {
        sitemap_urls,
        sitemap_files,
        tls,
        cors_probe,
        http_probe,
        notes,
    }
}

/// Fetches robots.txt of the URL's origin.
pub(super) async fn load_robots(
    shared: &Shared,
    url: &Url,
) -> std::result::Result<Robots, FetchError> {
    let Some(robots) = robots_url(url) else {
        return Ok(Robots::allow_all(0));
    };
    let fetched = shared
        .fetcher
        .get(&robots, BodyPolicy::Always, MAX_ROBOTS_BYTES, &|_: &Url| {
            None
        })
        .await;
    // Over the cap: the rest is ignored, as search engines do, and so is the
    // line the cap cut through (half a `Disallow: /private` is `/priv`).
    let body = if fetched.truncated {
        let end = fetched
            .body
            .iter()
            .rposition(|b| matches!(b, b'\n' | b'\r'))
            .map_or(0, |i| i + 1);
        &fetched.body[..end]
    } else {
        &fetched.body[..]
    };
    let origin = origin_key(url);
    lock(&shared.robots_facts)
        .entry(origin)
        .or_insert_with(|| RobotsFacts {
            url: robots.to_string(),
            status: fetched.status,
            error: fetched.error.as_ref().map(|e| e.to_string()),
            body: String::from_utf8_lossy(body).into_owned(),
        });
    let agent = agent_token(&shared.config.user_agent);
    let parsed = match fetched.error {
        // A robots.txt behind broken redirects is unavailable, which RFC 9309
        // treats like a 4xx: allow all.
        Some(
            FetchError::RedirectLoop | FetchError::TooManyRedirects | FetchError::BadRedirect(_),
        ) => Robots::allow_all(fetched.status),
        Some(e) => return Err(e),
        None => Robots::from_response(&agent, &robots, fetched.status, body),
    };
    if let Some(delay) = parsed.crawl_delay.filter(|_| shared.config.respect_robots) {
        shared.fetcher.hosts().set_crawl_delay(url, delay);
    }
    tracing::debug!(url = %robots, robots = ?parsed, "robots.txt loaded");
    Ok(parsed)
}

/// robots.txt of the URL's origin, loading it on first use (unreachable means
/// disallow all, as RFC 9309 says).
pub(super) async fn ensure_robots(shared: &Arc<Shared>, url: &Url) -> Arc<Robots> {
    if let Some(r) = shared.robots_for(url) {
        return r;
    }
    let robots = Arc::new(
        load_robots(shared, url)
            .await
            .unwrap_or_else(|_| Robots::from_response("", url, 0, b"")),
    );
    lock(&shared.robots).insert(origin_key(url), Arc::clone(&robots));
    robots
}

/// What a sitemap may list ([`sitescan_rules::site::inside_sitemap_scope`]'s rule), its own URL
/// parsed once: a file of 50,000 entries is checked with one parse per entry.
struct SitemapFolder {
    origin: url::Origin,
    folder: String,
    /// `scheme://host[:port]` + folder, as the URL parser writes it: an entry
    /// spelled so (nearly all) is inside without being parsed.
    prefix: String,
}

impl SitemapFolder {
    fn of(sitemap: &Url) -> SitemapFolder {
        let path = sitemap.path();
        let folder = path.rfind('/').map_or("/", |i| &path[..=i]).to_string();
        let origin = sitemap.origin();
        SitemapFolder {
            prefix: format!("{}{folder}", origin.ascii_serialization()),
            origin,
            folder,
        }
    }

    /// Same scheme, host and port, and a path inside the sitemap's folder.
    fn contains(&self, loc: &str) -> bool {
        // The fast path only where parsing could not move the path out of
        // the folder: no dot segments (plain or escaped), backslashes or
        // whitespace after the prefix.
        if let Some(rest) = loc.strip_prefix(&self.prefix) {
            let movable = rest.starts_with('.')
                || rest.contains("/.")
                || rest.contains("%2e")
                || rest.contains("%2E")
                || rest.contains(['\\', '\t', '\n', '\r']);
            if !movable {
                return true;
            }
        }
        Url::parse(loc)
            .is_ok_and(|u| u.origin() == self.origin && u.path().starts_with(&self.folder))
    }
}

/// Most entries outside a sitemap's scope kept as examples per file.
const MAX_OUTSIDE_EXAMPLES: usize = 5;

/// Page URLs of the site's sitemaps (robots.txt `Sitemap:` lines, then
/// `/sitemap.xml` of the site root), in scope, in file order, deduplicated; what
/// was found about each file, for the sitemap rules; and notes on what was
/// counted but not kept.
///
/// Bounded whatever the site lists: at most [`MAX_SITEMAP_FILES`] files, index
/// nesting [`MAX_SITEMAP_DEPTH`] (a queue, no recursion), each file parsed as a
/// stream of entries, and at most `max_pages` plus [`SITEMAP_URL_SLACK`] page
/// URLs kept for the whole scan (the crawl cannot fetch more); entries past that
/// are counted.
pub(super) async fn collect_sitemaps(
    shared: &Arc<Shared>,
    scope: &Scope,
    site_root: &Url,
) -> (Vec<String>, Vec<SitemapFile>, Vec<String>) {
    let max_pages = shared.config.max_pages;
    let keep = max_pages
        .saturating_mul(2)
        .max(max_pages.saturating_add(SITEMAP_URL_SLACK));
    let mut not_kept: u64 = 0;
    let mut children_dropped: u64 = 0;
    let mut queue: VecDeque<(Url, u32, SitemapSource, Option<String>)> = VecDeque::new();
    if let Some(robots) = shared.robots_for(site_root) {
        queue.extend(
            robots
                .sitemaps
                .iter()
                .map(|u| (u.clone(), 0, SitemapSource::Robots, None)),
        );
    } else if let Some(facts) = lock(&shared.robots_facts).get(&origin_key(site_root)) {
        // robots.txt read but not obeyed: its `Sitemap:` lines still count.
        if facts.found() {
            let agent = agent_token(&shared.config.user_agent);
            if let Ok(robots_url) = Url::parse(&facts.url) {
                let r =
                    Robots::from_response(&agent, &robots_url, facts.status, facts.body.as_bytes());
                queue.extend(
                    r.sitemaps
                        .into_iter()
                        .map(|u| (u, 0, SitemapSource::Robots, None)),
                );
            }
        }
    }
    if let Ok(conventional) = site_root.join("/sitemap.xml") {
        if !queue.iter().any(|(q, ..)| *q == conventional) {
            queue.push_back((conventional, 0, SitemapSource::Conventional, None));
        }
    }
    let mut fetched_files: HashSet<String> = HashSet::new();
    let mut files: Vec<SitemapFile> = Vec::new();
    let mut urls: Vec<String> = Vec::new();
    let mut seen_urls: HashSet<String> = HashSet::new();
    while let Some((url, depth, source, parent)) = queue.pop_front() {
        if fetched_files.len() >= MAX_SITEMAP_FILES || !fetched_files.insert(url.to_string()) {
            continue;
        }
        let mut file = SitemapFile {
            url: url.to_string(),
            source,
            parent,
            ..SitemapFile::default()
        };
        if !scope.host_in_scope(&url) {
            file.skipped = Some("on another host than the scan".into());
            files.push(file);
            continue;
        }
        if !shared.robots_allow(&url) {
            file.skipped = Some("robots.txt disallows it".into());
            files.push(file);
            continue;
        }
        let got = shared
            .fetcher
            .get(
                &url,
                BodyPolicy::Always,
                sitemap::MAX_SITEMAP_BYTES + 1,
                &|_: &Url| None,
            )
            .await;
        file.status = got.status;
        if got.final_url != url {
            file.redirected_to = Some(got.final_url.to_string());
        }
        if let Some(e) = &got.error {
            file.error = Some(e.to_string());
            files.push(file);
            continue;
        }
        if !(200..300).contains(&got.status) {
            tracing::debug!(url = %url, status = got.status, "no sitemap here");
            files.push(file);
            continue;
        }
        let location = SitemapFolder::of(&got.final_url);
        let mut children: Vec<String> = Vec::new();
        let room_for_children = if depth < MAX_SITEMAP_DEPTH {
            MAX_SITEMAP_FILES.saturating_sub(fetched_files.len() + queue.len())
        } else {
            0
        };
        let map = sitemap::parse_each(&got.body, &mut |entry| {
            let loc = match entry {
                sitemap::Entry::Page(loc) | sitemap::Entry::Child(loc) => loc,
            };
            if !location.contains(loc) {
                file.outside_count += 1;
                if file.outside.len() < MAX_OUTSIDE_EXAMPLES {
                    file.outside.push(loc.to_string());
                }
            }
            match entry {
                sitemap::Entry::Child(_) if children.len() < room_for_children => {
                    children.push(loc.to_string())
                }
                // Deeper than followed: not fetched, not counted as dropped.
                sitemap::Entry::Child(_) if depth >= MAX_SITEMAP_DEPTH => {}
                sitemap::Entry::Child(_) => children_dropped += 1,
                sitemap::Entry::Page(_) if urls.len() >= keep => not_kept += 1,
                sitemap::Entry::Page(loc) => {
                    if let Ok(parsed) = url.join(loc) {
                        let n = normalize(&parsed).to_string();
                        if !seen_urls.contains(&n) {
                            seen_urls.insert(n.clone());
                            urls.push(n);
                        }
                    }
                }
            }
        });
        file.kind = map.kind.map(str::to_string);
        file.loc_count = map.loc_count;
        file.bytes = if got.truncated {
            sitemap::MAX_SITEMAP_BYTES + 1
        } else {
            map.bytes
        };
        file.error = map.error.clone();
        if let Some(e) = &map.error {
            tracing::warn!(url = %url, error = %e, "sitemap is not valid");
        }
        for child in children {
            if let Ok(c) = url.join(&child) {
                queue.push_back((c, depth + 1, SitemapSource::Index, Some(url.to_string())));
            }
        }
        files.push(file);
    }
    let mut notes = Vec::new();
    if not_kept > 0 {
        notes.push(format!(
            "{not_kept} sitemap URLs were counted but not kept: with max_pages = {max_pages} the scan keeps the first {keep} (the crawl could not fetch more)"
        ));
    }
    if children_dropped > 0 {
        notes.push(format!(
            "{children_dropped} sitemaps listed by sitemap indexes were not fetched: the scan reads at most {MAX_SITEMAP_FILES} sitemap files"
        ));
    }
    (urls, files, notes)
}

/// The TLS handshake of the site's https origin: the start page's final URL
/// when it is https, else the start URL when it is.
pub(super) async fn check_tls(
    shared: &Arc<Shared>,
    start_url: &Url,
    site_root: &Url,
) -> Option<TlsFacts> {
    let target = [site_root, start_url]
        .into_iter()
        .find(|u| u.scheme() == "https")?;
    let config = &shared.config;
    let check = match crate::checks::tls::TlsCheck::new(
        &config.ca_certs,
        config.allow_private,
        std::time::Duration::from_millis(config.connect_timeout_ms),
        std::time::Duration::from_millis(config.timeout_ms),
    ) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "TLS check skipped");
            return None;
        }
    };
    check.check(target, shared.fetcher.hosts()).await
}

/// One GET of the start page with a foreign `Origin`, for `cors-reflected-origin`.
pub(super) async fn probe_cors(shared: &Arc<Shared>, page: &Url) -> CorsProbe {
    use sitescan_rules::site::cors_reflected_origin::PROBE_ORIGIN;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::ORIGIN,
        reqwest::header::HeaderValue::from_static(PROBE_ORIGIN),
    );
    let got = shared.fetcher.probe(page, headers).await;
    CorsProbe {
        url: page.to_string(),
        origin: PROBE_ORIGIN.to_string(),
        status: got.status,
        allow_origin: got
            .header("access-control-allow-origin")
            .map(str::to_string),
        allow_credentials: got
            .header("access-control-allow-credentials")
            .map(str::to_string),
        error: got.error.as_ref().map(|e| e.to_string()),
    }
}

/// One GET of the `http:` twin of the start page, redirects not followed, for
/// `redirects-http`.
pub(super) async fn probe_http(shared: &Arc<Shared>, twin: &Url) -> HttpProbe {
    let got = shared
        .fetcher
        .probe(twin, reqwest::header::HeaderMap::new())
        .await;
    HttpProbe {
        url: twin.to_string(),
        status: got.status,
        location: got
            .header("location")
            .and_then(|l| twin.join(l.trim()).ok())
            .map(|u| u.to_string()),
        error: got.error.as_ref().map(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemap_folders_take_the_fast_path_only_where_parsing_agrees() {
        let folder = SitemapFolder::of(&Url::parse("https://e.com/shop/sitemap.xml").unwrap());
        let inside = |loc: &str| folder.contains(loc);
        assert!(inside("https://e.com/shop/a.html"));
        assert!(inside("HTTPS://E.COM:443/shop/a.html"));
        assert!(!inside("https://e.com/shop/../admin.html"));
        assert!(!inside("https://e.com/shop/%2e%2e/admin.html"));
        assert!(!inside("https://e.com/shop\\..\\admin.html"));
        assert!(!inside("https://e.com/other/a.html"));
        assert!(!inside("http://e.com/shop/a.html"));
        assert!(!inside("https://e.com.evil.net/shop/a.html"));
        assert!(!inside("https://e.com:8443/shop/a.html"));
        for loc in [
            "https://e.com/shop/a.html",
            "https://e.com/shop/./b/../c",
            "https://e.com/shop/%2E%2E/x",
            "not a url",
        ] {
            assert_eq!(
                inside(loc),
                sitescan_rules::site::inside_sitemap_scope("https://e.com/shop/sitemap.xml", loc),
                "{loc}"
            );
        }
    }
}
