//! Rule documentation generated from the registry, for the book under `docs/`:
//! one Markdown page per rule ([`RULE_DOCS_DIR`]`/<id>.md`), the rule index in
//! [`INDEX_PATH`] between [`INDEX_START`] and [`INDEX_END`], and the rules'
//! entries of the book's table of contents ([`SUMMARY_PATH`]) between
//! [`SUMMARY_START`] and [`SUMMARY_END`] (mdBook renders only the pages its
//! `SUMMARY.md` lists).
//!
//! The test `rules/tests/docs.rs` fails when the checked-in files differ from what
//! this module generates, so the docs cannot drift from the code; regenerate with
//! `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`.

use crate::registry;
use crate::{Category, RuleMeta};

/// Marker line opening the generated part of the rule index.
pub const INDEX_START: &str = "<!-- rules:start (generated from the registry; SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs) -->";
/// Marker line closing it.
pub const INDEX_END: &str = "<!-- rules:end -->";
/// Marker line opening the generated rule entries of the table of contents.
pub const SUMMARY_START: &str = "<!-- rules-summary:start (generated: SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs) -->";
/// Marker line closing them.
pub const SUMMARY_END: &str = "<!-- rules-summary:end -->";

/// Folder of the per-rule pages, relative to the repository root.
pub const RULE_DOCS_DIR: &str = "docs/src/rules";
/// The rule index page, relative to the repository root (beside [`RULE_DOCS_DIR`],
/// so its links are `rules/<id>.md`).
pub const INDEX_PATH: &str = "docs/src/rules.md";
/// The book's table of contents, relative to the repository root.
pub const SUMMARY_PATH: &str = "docs/src/SUMMARY.md";

/// The Markdown page of one rule.
pub fn rule_page(m: &RuleMeta) -> String {
    let mut out = format!("# `{}` — {}\n\n", m.id, md_text(m.title));
    out.push_str(&format!(
        "| | |\n|---|---|\n| Category | {} |\n| Impact | {} |\n",
        m.category, m.impact
    ));
    if !m.wcag.is_empty() {
        let level = m
            .level
            .map(|l| format!(" (level {l:?})"))
            .unwrap_or_default();
        out.push_str(&format!("| WCAG 2.1 | {}{level} |\n", m.wcag.join(", ")));
    }
    if !m.act.is_empty() {
        out.push_str(&format!("| ACT rules | {} |\n", m.act.join(", ")));
    }
    if m.best_practice {
        out.push_str("| Best practice | yes |\n");
    }
    if m.manual_review {
        out.push_str("| Review only | yes: every applicable element is for a person to judge; rule set `review`, not in `wcag-a`/`wcag-aa` |\n");
    }
    if m.scope == crate::Scope::Host {
        out.push_str("| Reported | once per host: a fact of the whole server, its pages listed as occurrences |\n");
    }
    if !m.defers_to.is_empty() {
        let owners: Vec<String> = m.defers_to.iter().map(|o| format!("`{o}`")).collect();
        out.push_str(&format!(
            "| Owned by | {}: where it reports the same element, this rule's finding is dropped |\n",
            owners.join(", ")
        ));
    }
    out.push_str(&format!("| Reference | <{}> |\n\n", m.help_url));
    out.push_str(&format!("**How to fix:** {}\n\n", m.help));
    // Rule docs use `##` sections; keep them as they are.
    out.push_str(m.docs.trim());
    out.push('\n');
    out
}

/// Plain text made safe for Markdown: a `<` would open an HTML tag (a title
/// such as "No render-blocking scripts in <head>").
fn md_text(text: &str) -> String {
    text.replace('<', "\\<")
}

fn category_heading(c: Category) -> &'static str {
    match c {
        Category::Accessibility => "Accessibility",
        Category::Seo => "SEO",
        Category::Security => "Security",
        Category::Performance => "Performance",
        Category::Quality => "Content quality",
    }
}

/// Every rule of a category, in registry order (page rules, then site rules).
fn rules_of(c: Category) -> Vec<&'static RuleMeta> {
    registry::all_meta().filter(|m| m.category == c).collect()
}

/// The rule index's generated part: per category a table of every rule (page
/// rules, then site rules) with a link to its page.
pub fn index_section() -> String {
    let mut out = String::new();
    out.push_str(INDEX_START);
    out.push('\n');
    let page_ids: Vec<&str> = registry::page_rules().iter().map(|r| r.meta().id).collect();
    for c in Category::ALL {
        let metas = rules_of(c);
        if metas.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n## {} ({} rules)\n\n| Rule | Checks | Impact | Scope |\n|---|---|---|---|\n",
            category_heading(c),
            metas.len()
        ));
        for m in metas {
            let scope = if page_ids.contains(&m.id) {
                "page"
            } else {
                "site"
            };
            let wcag = if m.wcag.is_empty() {
                String::new()
            } else {
                format!(" (WCAG {})", m.wcag.join(", "))
            };
            out.push_str(&format!(
                "| [`{id}`](rules/{id}.md) | {title}{wcag} | {impact} | {scope} |\n",
                id = m.id,
                title = md_text(m.title).replace('|', "\\|"),
                impact = m.impact,
            ));
        }
    }
    out.push('\n');
    out.push_str(INDEX_END);
    out
}

/// The rules' entries of the book's table of contents: one unlinked entry per
/// category (an mdBook draft chapter) holding a link to each of its rule pages,
/// indented to sit under the index's own entry.
pub fn summary_section() -> String {
    let mut out = String::new();
    out.push_str(SUMMARY_START);
    out.push('\n');
    for c in Category::ALL {
        let metas = rules_of(c);
        if metas.is_empty() {
            continue;
        }
        out.push_str(&format!("  - [{}]()\n", category_heading(c)));
        for m in metas {
            out.push_str(&format!("    - [`{id}`](rules/{id}.md)\n", id = m.id));
        }
    }
    out.push_str(SUMMARY_END);
    out
}

/// Replaces the text between `start` and `end` (markers included) with
/// `section`, or `None` when the markers are missing or out of order.
fn splice(text: &str, start: &str, end: &str, section: &str) -> Option<String> {
    let a = text.find(start)?;
    let b = text[a..].find(end)? + a;
    Some(format!(
        "{}{}{}",
        &text[..a],
        section,
        &text[b + end.len()..]
    ))
}

/// The rule index page with its generated part replaced, or `None` when it
/// lacks the markers.
pub fn splice_index(index: &str) -> Option<String> {
    splice(index, INDEX_START, INDEX_END, &index_section())
}

/// The table of contents with its generated rule entries replaced, or `None`
/// when it lacks the markers.
pub fn splice_summary(summary: &str) -> Option<String> {
    splice(summary, SUMMARY_START, SUMMARY_END, &summary_section())
}

/// The code blocks of one `## <heading>` section of a rule's docs (`Failing`,
/// `Passing`), in order.
pub fn examples<'d>(docs: &'d str, heading: &str) -> Vec<&'d str> {
    let marker = format!("## {heading}\n");
    let Some(start) = docs.find(&marker) else {
        return Vec::new();
    };
    let section = &docs[start + marker.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut blocks = Vec::new();
    let mut rest = section;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some(line_end) = after.find('\n') else {
            break;
        };
        let body = &after[line_end + 1..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    blocks
}

/// Why a doc example cannot be run as a single page: its context is prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described(pub String);

/// The page a rule's doc example shows, so the example can be run.
///
/// The example is the page's HTML, optionally led by comments that state the
/// response, one fact a line:
///
/// - `HTTP/2 200` or `HTTP/1.1 404 Not Found`: version and status;
/// - `https://example.com/path` or `fetched from http://example.com/`: the URL;
/// - `Name: value`: a response header (repeatable, e.g. `Set-Cookie`).
///
/// Any other comment line describes context a page cannot hold (timings, a
/// crawl path, other resources): the example is [`Described`], not runnable.
pub fn example_page(example: &str) -> Result<crate::Page, Described> {
    let mut facts = Vec::new();
    let mut rest = example.trim_start();
    while let Some(comment) = rest.strip_prefix("<!--") {
        let Some(end) = comment.find("-->") else {
            break;
        };
        facts.extend(
            comment[..end]
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty()),
        );
        rest = comment[end + 3..].trim_start();
    }
    page_of(&facts, rest)
}

/// The page serving `html` (a fragment is wrapped), with the response facts
/// of [`example_page`], one a line.
fn page_of(facts: &[&str], html: &str) -> Result<crate::Page, Described> {
    let mut url = "https://example.com/".to_string();
    let mut status = None;
    let mut version = None;
    let mut headers: Vec<(String, String)> = Vec::new();
    for &line in facts {
        let fetched = line.strip_prefix("fetched from ").unwrap_or(line);
        let first = fetched.split_whitespace().next().unwrap_or("");
        if let Some(v) = line.strip_prefix("HTTP/") {
            let mut parts = v.split_whitespace();
            version = parts.next().map(|v| format!("HTTP/{v}"));
            status = parts.next().and_then(|s| s.parse::<u16>().ok());
            if status.is_none() {
                return Err(Described(line.to_string()));
            }
        } else if (first.starts_with("https://") || first.starts_with("http://"))
            && (fetched == first || fetched == format!("{first} and not redirected"))
        {
            url = first.to_string();
        } else if line.starts_with("no ") && !line.contains(": ") {
            // An absence ("no X-Frame-Options"): the page has none to add.
        } else if let Some((name, value)) = line.split_once(": ").filter(|(n, _)| {
            !n.is_empty()
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && n.starts_with(|c: char| c.is_ascii_alphabetic())
        }) {
            headers.push((name.to_string(), value.to_string()));
        } else {
            return Err(Described(line.to_string()));
        }
    }
    let html = html.trim_start();
    let body = if html.contains("<html") || html.to_ascii_lowercase().contains("<!doctype") {
        html.to_string()
    } else if html.starts_with("<head") || html.starts_with("<body") || html.contains("<title") {
        // A fragment that shows the head (or body) element itself, or its own
        // title (the parser puts head and body content in place).
        format!("<!DOCTYPE html><html lang=\"en\">{html}</html>")
    } else {
        format!("<!DOCTYPE html><html lang=\"en\"><head><title>Example</title></head><body>{html}</body></html>")
    };
    if url::Url::parse(&url).is_err() {
        return Err(Described(url));
    }
    let mut page = crate::Page::from_html(&url, &body);
    if let Some(status) = status {
        page.status = status;
    }
    if let Some(version) = version {
        page.http_version = version;
    }
    for (name, value) in headers {
        page = page.with_header(&name, &value);
    }
    Ok(page)
}

/// Where site examples' paths are resolved, and the start page's host unless the
/// example names full URLs.
const EXAMPLE_ORIGIN: &str = "https://example.com/";

/// One part of a site example: a URL and what the example says it serves.
struct Part<'e> {
    url: url::Url,
    /// The header comment's lines after the URL: response facts.
    facts: Vec<&'e str>,
    /// What follows the header comment until the next part.
    body: &'e str,
}

/// What a part of a site example is, once read.
enum Served {
    /// A page the crawl fetched and analyzed.
    Page(Box<crate::Page>),
    /// A redirect (its 3xx status, and its `Location`) the crawl followed to
    /// the page at the location.
    Redirect(u16, url::Url),
    /// A URL the crawl requested and got no answer from.
    FetchError(String),
    /// A URL checked over the network but not crawled (a link or resource
    /// target): only its status is known.
    Checked(u16),
}

/// The site a site rule's doc example shows, so the example can be run: the
/// [`crate::site::SiteInput`] the engine would hand the site rules after
/// crawling it.
///
/// A site example is a sequence of parts, one per URL. Each part opens with a
/// comment whose first line is the URL, absolute or a path on
/// `https://example.com/`; its other lines state the response as in
/// [`example_page`] (`HTTP/1.1 301`, `Location: /new`, any header), plus
/// `fetch error: <reason>` for a URL that gave no answer. What follows the
/// comment, up to the next part, is what the URL serves:
///
/// - `/robots.txt`: the file's text (the site's robots.txt facts);
/// - a path ending in `sitemap.txt` or `sitemap.xml`: a sitemap in the text
///   format, one URL a line (the sitemap's URLs and the facts of its file,
///   found through robots.txt when a `Sitemap:` line of the example's
///   robots.txt names it); an XML sitemap is [`Described`], since the engine's
///   crawler, not this crate, parses those;
/// - anything else with a body: an HTML page (a fragment is wrapped as in
///   [`example_page`]), analyzed and summarised as the engine does
///   ([`crate::site::PageSummary::of`]). The first page (or redirect to one) is
///   the start page, at depth 0 (`https://example.com/` when there is none);
///   the others are at depth 1;
/// - a 3xx with a `Location` and no body: a redirect to another part's page,
///   which the crawl records as fetched from this URL;
/// - `fetch error: …` and no body: a crawled URL that gave no answer;
/// - any other status and no body: a link or resource target the scan
///   checked (`2xx`/`3xx` fine, `429` rate limited, else broken). The places of
///   the links to a failing target are taken from the pages as the engine does.
///
/// A body is empty when it holds nothing but comments (remarks). Whatever the
/// part, the `http:` twin of an `https:` start page (same host and path) is
/// the answer to the scan's plain-HTTP probe ([`crate::site::HttpProbe`]): its
/// status, `Location` or fetch error.
///
/// The start page's answer is also the answer to the scan's CORS probe (the
/// same request sent with `Origin:`
/// [`crate::site::cors_reflected_origin::PROBE_ORIGIN`]): an example that shows
/// a reflected origin gives the start page that `Access-Control-Allow-Origin`.
/// No TLS handshake is expressible.
///
/// Comments whose first line is not a URL stay in the body (as remarks); text
/// before the first part makes the example [`Described`], as does a fact line
/// [`example_page`] would not read or a redirect to a URL the example does not
/// serve.
pub fn example_site(example: &str) -> Result<crate::site::SiteInput, Described> {
    use crate::site::{
        cors_reflected_origin::PROBE_ORIGIN, inside_sitemap_scope, link_places, CorsProbe,
        HttpProbe, LinkStatus, PageSummary, RobotsFacts, SiteInput, SitemapFile, SitemapSource,
    };
    #[allow(clippy::expect_used)]
    let origin = url::Url::parse(EXAMPLE_ORIGIN).expect("a valid URL");
    let parts = site_parts(&origin, example)?;
    let mut site = SiteInput::default();
    // Each crawled URL in part order, with what it served.
    let mut served: Vec<(url::Url, Served)> = Vec::new();
    let mut sitemaps: Vec<(u16, &Part<'_>, Vec<String>)> = Vec::new();
    for part in &parts {
        let mut error = None;
        let mut facts = Vec::new();
        for line in &part.facts {
            match line.strip_prefix("fetch error:") {
                Some(reason) => error = Some(reason.trim().to_string()),
                None => facts.push(*line),
            }
        }
        let url = part.url.to_string();
        facts.insert(0, url.as_str());
        let page = page_of(&facts, part.body)?;
        let bodiless = without_comments(part.body).trim().is_empty();
        if part.url.path() == "/robots.txt" {
            site.robots = Some(RobotsFacts {
                url: part.url.to_string(),
                status: page.status,
                error,
                body: format!("{}\n", part.body.trim()),
            });
        } else if ["sitemap.txt", "sitemap.xml"]
            .iter()
            .any(|s| part.url.path().ends_with(s))
        {
            if part.body.trim_start().starts_with('<') {
                return Err(Described(format!(
                    "{}: an XML sitemap (the engine's crawler parses those; write the text form, one URL a line)",
                    part.url
                )));
            }
            let locs: Vec<String> = part
                .body
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            sitemaps.push((page.status, part, locs));
        } else if let Some(reason) = error.filter(|_| bodiless) {
            served.push((part.url.clone(), Served::FetchError(reason)));
        } else if bodiless && (300..400).contains(&page.status) {
            let to = page
                .header("location")
                .and_then(|l| part.url.join(l.trim()).ok())
                .ok_or_else(|| Described(format!("{}: a redirect without Location", part.url)))?;
            served.push((part.url.clone(), Served::Redirect(page.status, to)));
        } else if bodiless {
            served.push((part.url.clone(), Served::Checked(page.status)));
        } else {
            served.push((part.url.clone(), Served::Page(Box::new(page))));
        }
    }
    let start = served
        .iter()
        .find(|(_, s)| matches!(s, Served::Page(_) | Served::Redirect(..)))
        .map(|(u, _)| u.clone())
        .unwrap_or(origin);
    site.start_url = start.to_string();
    let twin = HttpProbe::twin(&start);
    let page_at = |u: &url::Url| {
        served.iter().find_map(|(at, s)| match s {
            Served::Page(p) if crate::site::same_url(at.as_str(), u.as_str()) => Some(p),
            _ => None,
        })
    };
    // Each page's links with where they are, for the places of failing targets.
    let mut places = Vec::new();
    for (at, s) in &served {
        if twin.as_ref() == Some(at) {
            // The scan's probe of the `http:` twin reads the first answer only.
            let (status, location, error) = match s {
                Served::Page(p) => (p.status, None, None),
                Served::Redirect(status, to) => (*status, Some(to.to_string()), None),
                Served::FetchError(e) => (0, None, Some(e.clone())),
                Served::Checked(status) => (*status, None, None),
            };
            site.http_probe = Some(HttpProbe {
                url: at.to_string(),
                status,
                location,
                error,
            });
            continue;
        }
        let depth = u32::from(*at != start);
        let page = match s {
            Served::Page(p) => {
                let mut p = (**p).clone();
                p.depth = depth;
                p
            }
            Served::Redirect(_, to) => {
                let target = page_at(to).ok_or_else(|| {
                    Described(format!(
                        "{at} redirects to {to}, which the example does not serve"
                    ))
                })?;
                let mut p = (**target).clone();
                p.url = at.clone();
                p.depth = depth;
                p
            }
            Served::FetchError(reason) => {
                site.pages.push(PageSummary {
                    url: at.as_str().into(),
                    final_url: at.as_str().into(),
                    depth,
                    fetch_error: Some(reason.clone()),
                    ..PageSummary::default()
                });
                continue;
            }
            Served::Checked(status) => {
                let status = *status;
                site.link_status.insert(
                    at.to_string(),
                    match status {
                        200..=399 => LinkStatus::Ok { status },
                        429 => LinkStatus::RateLimited,
                        _ => LinkStatus::Broken { status },
                    },
                );
                continue;
            }
        };
        let cx = crate::PageContext::parse(&page);
        let summary = PageSummary::of(&cx);
        places.push((summary.links.clone(), link_places(&cx)));
        if *at == start {
            site.cors_probe = Some(CorsProbe {
                url: page.final_url.to_string(),
                origin: PROBE_ORIGIN.to_string(),
                status: page.status,
                allow_origin: page
                    .header("access-control-allow-origin")
                    .map(str::to_string),
                allow_credentials: page
                    .header("access-control-allow-credentials")
                    .map(str::to_string),
                error: None,
            });
        }
        site.pages.push(summary);
    }
    for (links, at) in places {
        for (link, place) in links.iter().zip(at) {
            let failing = site
                .link_status
                .get(&**link)
                .is_some_and(|s| !matches!(s, LinkStatus::Ok { .. }));
            if failing {
                site.link_places
                    .entry(link.to_string())
                    .or_default()
                    .push(place);
            }
        }
    }
    let announced = |u: &url::Url| {
        site.robots.as_ref().is_some_and(|r| {
            r.body.lines().any(|l| {
                l.split_once(':').is_some_and(|(k, v)| {
                    k.trim().eq_ignore_ascii_case("sitemap") && v.trim() == u.as_str()
                })
            })
        })
    };
    for (status, part, locs) in sitemaps {
        let source = if announced(&part.url) {
            SitemapSource::Robots
        } else {
            SitemapSource::Conventional
        };
        let fetched = (200..300).contains(&status);
        let outside: Vec<String> = locs
            .iter()
            .filter(|l| !inside_sitemap_scope(part.url.as_str(), l))
            .cloned()
            .collect();
        site.sitemaps.push(SitemapFile {
            url: part.url.to_string(),
            source,
            status,
            kind: fetched.then(|| "text".to_string()),
            loc_count: if fetched { locs.len() as u64 } else { 0 },
            bytes: if fetched {
                part.body.trim().len() as u64
            } else {
                0
            },
            outside_count: outside.len() as u64,
            outside,
            ..SitemapFile::default()
        });
        if fetched {
            site.sitemap_urls.extend(locs);
        }
    }
    Ok(site)
}

/// The text with its `<!-- … -->` comments removed (an unclosed one runs to
/// the end).
fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        rest = rest[open..]
            .find("-->")
            .map_or("", |close| &rest[open + close + 3..]);
    }
    out.push_str(rest);
    out
}

/// Splits a site example into its parts (see [`example_site`]).
fn site_parts<'e>(origin: &url::Url, example: &'e str) -> Result<Vec<Part<'e>>, Described> {
    // (start of the header comment, end of it, the part's URL, its fact lines)
    let mut headers = Vec::new();
    let mut from = 0;
    while let Some(open) = example[from..].find("<!--").map(|i| i + from) {
        let Some(close) = example[open..].find("-->").map(|i| i + open) else {
            break;
        };
        let mut lines = example[open + 4..close]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty());
        let first = lines.next().unwrap_or("");
        let is_url = !first.contains(char::is_whitespace)
            && (first.starts_with('/')
                || first.starts_with("https://")
                || first.starts_with("http://"));
        if is_url {
            let url = origin
                .join(first)
                .map_err(|_| Described(first.to_string()))?;
            headers.push((open, close + 3, url, lines.collect::<Vec<_>>()));
        }
        from = close + 3;
    }
    let Some(first) = headers.first() else {
        return Err(Described("a site example names no URL".into()));
    };
    if !example[..first.0].trim().is_empty() {
        return Err(Described(example[..first.0].trim().to_string()));
    }
    let ends: Vec<usize> = headers
        .iter()
        .skip(1)
        .map(|h| h.0)
        .chain([example.len()])
        .collect();
    Ok(headers
        .into_iter()
        .zip(ends)
        .map(|((_, body_start, url, facts), end)| Part {
            url,
            facts,
            body: &example[body_start..end],
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::{example_site, Described};
    use crate::site::{HttpProbe, LinkStatus, SitemapSource};

    /// Every kind of part becomes the fact the engine would record.
    #[test]
    fn a_site_example_becomes_the_engines_site_input() {
        let site = example_site(
            r#"<!-- / -->
<title>Home</title>
<a href="/old">Old</a> <a href="/gone">Gone</a> <img src="/hero.webp" alt="">
<!-- /old
HTTP/1.1 301 Moved Permanently
Location: /new -->
<!-- /new -->
<h1>New</h1>  <!-- a remark, not a part -->
<!-- /gone
fetch error: timed out -->
<!-- /hero.webp
HTTP/1.1 404 Not Found -->
<!-- https://example.com/ok.css
HTTP/1.1 200 OK -->
<!-- /robots.txt -->
User-agent: *
Sitemap: https://example.com/sitemap.txt
<!-- /sitemap.txt -->
https://example.com/new
https://other.example/x
<!-- http://example.com/
HTTP/1.1 302 Found
Location: https://example.com/ -->"#,
        )
        .unwrap();
        assert_eq!(site.start_url, "https://example.com/");
        let pages: Vec<(&str, &str, u32, Option<&str>)> = site
            .pages
            .iter()
            .map(|p| (&*p.url, &*p.final_url, p.depth, p.fetch_error.as_deref()))
            .collect();
        assert_eq!(
            pages,
            vec![
                ("https://example.com/", "https://example.com/", 0, None),
                (
                    "https://example.com/old",
                    "https://example.com/new",
                    1,
                    None
                ),
                (
                    "https://example.com/new",
                    "https://example.com/new",
                    1,
                    None
                ),
                (
                    "https://example.com/gone",
                    "https://example.com/gone",
                    1,
                    Some("timed out")
                ),
            ]
        );
        // The redirect's summary is the page it led to.
        assert_eq!(site.pages[1].h1_key, site.pages[2].h1_key);
        assert!(site.pages[1].h1_key.is_some());
        assert_eq!(
            site.pages[0].links,
            vec![
                "https://example.com/old".into(),
                "https://example.com/gone".into()
            ]
        );
        assert_eq!(
            site.link_status.into_iter().collect::<Vec<_>>(),
            vec![
                (
                    "https://example.com/hero.webp".to_string(),
                    LinkStatus::Broken { status: 404 }
                ),
                (
                    "https://example.com/ok.css".to_string(),
                    LinkStatus::Ok { status: 200 }
                ),
            ]
        );
        // Places are kept for the failing targets the pages link to (the
        // image is a resource, not a link).
        assert!(site.link_places.is_empty());
        let robots = site.robots.unwrap();
        assert_eq!(robots.url, "https://example.com/robots.txt");
        assert_eq!(robots.status, 200);
        assert_eq!(
            robots.body,
            "User-agent: *\nSitemap: https://example.com/sitemap.txt\n"
        );
        assert_eq!(site.sitemaps.len(), 1);
        let map = &site.sitemaps[0];
        assert_eq!(map.url, "https://example.com/sitemap.txt");
        assert_eq!(map.source, SitemapSource::Robots);
        assert_eq!(map.kind.as_deref(), Some("text"));
        assert_eq!((map.status, map.loc_count), (200, 2));
        assert_eq!(map.outside, vec!["https://other.example/x".to_string()]);
        assert_eq!(map.outside_count, 1);
        assert_eq!(
            site.sitemap_urls,
            vec!["https://example.com/new", "https://other.example/x"]
        );
        assert_eq!(
            site.http_probe,
            Some(HttpProbe {
                url: "http://example.com/".into(),
                status: 302,
                location: Some("https://example.com/".into()),
                error: None,
            })
        );
        let cors = site.cors_probe.unwrap();
        assert_eq!(
            (cors.url.as_str(), cors.status, cors.allow_origin),
            ("https://example.com/", 200, None)
        );
        assert!(site.tls.is_none());
    }

    /// A link to a failing target keeps its place, as the engine's do.
    #[test]
    fn links_to_failing_targets_keep_their_places() {
        let site = example_site(
            "<!-- / -->\n<p><a href=\"/old-page\">Our old offer</a></p>\n<!-- /old-page\nHTTP/1.1 410 Gone -->",
        )
        .unwrap();
        let places = &site.link_places["https://example.com/old-page"];
        assert_eq!(places.len(), 1);
        assert_eq!(places[0].page_url, "https://example.com/");
        assert_eq!(places[0].text.as_deref(), Some("Our old offer"));
        assert_eq!(
            site.link_status["https://example.com/old-page"],
            LinkStatus::Broken { status: 410 }
        );
    }

    #[test]
    fn what_a_site_example_cannot_say_is_described() {
        let err = |s: &str| example_site(s).err().map(|Described(d)| d);
        assert_eq!(
            err("two pages share a title"),
            Some("a site example names no URL".into())
        );
        assert_eq!(
            err("<p>before</p>\n<!-- / -->\n<h1>Home</h1>"),
            Some("<p>before</p>".into())
        );
        assert_eq!(
            err("<!-- / -->\n<h1>Home</h1>\n<!-- /sitemap.xml -->\n<urlset></urlset>"),
            Some("https://example.com/sitemap.xml: an XML sitemap (the engine's crawler parses those; write the text form, one URL a line)".into())
        );
        assert_eq!(
            err("<!-- /old\nHTTP/1.1 301\nLocation: /elsewhere -->"),
            Some("https://example.com/old redirects to https://example.com/elsewhere, which the example does not serve".into())
        );
        assert_eq!(
            err("<!-- /\nserved slowly -->\n<h1>Home</h1>"),
            Some("served slowly".into())
        );
    }
}
