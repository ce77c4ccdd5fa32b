//! Links and resources of a parsed page, as absolute URLs: what the crawler
//! follows (`<a href>`, `<area href>`, `<link rel=next>`) and what the page loads
//! (scripts, stylesheets, images, iframes), plus the robots directives that say
//! whether to follow them (`rel=nofollow`, `<meta name=robots>`).
//!
//! Pure DOM work, no I/O: the engine calls [`extract`] while the page's DOM is
//! alive and keeps only these plain values. [`stylesheet_hrefs`] is the cheap
//! pre-pass the engine runs on the raw HTML before the one full parse.

use std::sync::OnceLock;

use regex::Regex;
use scraper::ElementRef;
use serde::{Deserialize, Serialize};
use url::Url;

use crate::PageContext;

/// What kind of element a followable link came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// `<a href>`.
    Anchor,
    /// `<area href>`.
    Area,
    /// `<link rel=next>`.
    Next,
}

/// A link a crawler may follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Absolute http(s) URL, fragment removed.
    pub url: String,
    /// Where it came from.
    pub kind: LinkKind,
    /// `rel` contains `nofollow`.
    pub nofollow: bool,
}

/// What kind of sub-resource a page loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResourceKind {
    /// `<script src>`.
    Script,
    /// `<link rel=stylesheet href>`.
    Stylesheet,
    /// `<img src>`.
    Image,
    /// `<iframe src>`.
    Iframe,
}

/// A sub-resource the page loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// Absolute URL, fragment removed.
    pub url: String,
    /// What loads it.
    pub kind: ResourceKind,
}

/// Everything [`extract`] found on a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageLinks {
    /// Followable links in document order (duplicates kept).
    pub links: Vec<Link>,
    /// Sub-resources in document order.
    pub resources: Vec<Resource>,
    /// `<meta name=robots>` (or `googlebot`) content, when present.
    pub meta_robots: Option<String>,
    /// The meta robots says `nofollow` (or `none`): follow none of the links.
    pub meta_nofollow: bool,
}

/// Resolves `href` against `base`: absolute http(s) URL without fragment.
pub fn resolve(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let mut url = base.join(href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

fn rel_has(el: ElementRef<'_>, token: &str) -> bool {
    el.value().attr("rel").is_some_and(|r| {
        r.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

/// The links, resources and robots directives of a parsed page. Relative URLs are
/// resolved against the first `<base href>`, else the page's final URL.
pub fn extract(cx: &PageContext<'_>) -> PageLinks {
    let page_url = &cx.page().final_url;
    let mut base = page_url.clone();
    let mut out = PageLinks::default();
    let mut base_seen = false;
    for el in cx.root().descendants().filter_map(ElementRef::wrap) {
        let v = el.value();
        let name = v.name();
        let href_url = |attr: &str| v.attr(attr).and_then(|h| resolve(&base, h));
        match name {
            "base" if !base_seen => {
                base_seen = true;
                if let Some(u) = v.attr("href").and_then(|h| page_url.join(h.trim()).ok()) {
                    base = u;
                }
            }
            "a" | "area" => {
                if let Some(url) = href_url("href") {
                    out.links.push(Link {
                        url: url.to_string(),
                        kind: if name == "a" {
                            LinkKind::Anchor
                        } else {
                            LinkKind::Area
                        },
                        nofollow: rel_has(el, "nofollow"),
                    });
                }
            }
            "link" => {
                if let Some(url) = href_url("href") {
                    if rel_has(el, "next") {
                        out.links.push(Link {
                            url: url.to_string(),
                            kind: LinkKind::Next,
                            nofollow: rel_has(el, "nofollow"),
                        });
                    }
                    if rel_has(el, "stylesheet") && !rel_has(el, "alternate") {
                        out.resources.push(Resource {
                            url: url.to_string(),
                            kind: ResourceKind::Stylesheet,
                        });
                    }
                }
            }
            "script" | "img" | "iframe" => {
                if let Some(url) = href_url("src") {
                    out.resources.push(Resource {
                        url: url.to_string(),
                        kind: match name {
                            "script" => ResourceKind::Script,
                            "img" => ResourceKind::Image,
                            _ => ResourceKind::Iframe,
                        },
                    });
                }
            }
            "meta" => {
                let robots = v.attr("name").is_some_and(|n| {
                    n.eq_ignore_ascii_case("robots") || n.eq_ignore_ascii_case("googlebot")
                });
                if let (true, Some(content)) = (robots, v.attr("content")) {
                    let lower = content.to_ascii_lowercase();
                    if lower
                        .split(',')
                        .any(|t| matches!(t.trim(), "nofollow" | "none"))
                    {
                        out.meta_nofollow = true;
                    }
                    out.meta_robots = Some(match out.meta_robots.take() {
                        Some(prev) => format!("{prev}, {}", content.trim()),
                        None => content.trim().to_string(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A `<link rel=stylesheet>` found by [`stylesheet_hrefs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StylesheetRef {
    /// Absolute URL.
    pub url: Url,
    /// The `media` attribute, if any.
    pub media: Option<String>,
}

/// Stylesheet links of raw HTML, without building a DOM.
///
/// The engine must fetch linked stylesheets *before* the rules run, and the rules
/// run on the one full parse of the page on a rayon worker. Parsing twice (once
/// on the async side for the hrefs) would double the parse cost, and scraper's
/// `Html` is not `Send`, so the DOM cannot travel back and forth. This pre-pass
/// instead scans the start tags of `<link>` elements with a regular expression:
/// it skips comments, honors the first `<base href>` and reads `rel`, `href` and
/// `media` attributes (quoted or not), which covers how stylesheets are linked
/// in practice at a tiny fraction of a parse's cost.
pub fn stylesheet_hrefs(html: &str, page_url: &Url) -> Vec<StylesheetRef> {
    static COMMENT: OnceLock<Option<Regex>> = OnceLock::new();
    static TAG: OnceLock<Option<Regex>> = OnceLock::new();
    static ATTR: OnceLock<Option<Regex>> = OnceLock::new();
    let comment = COMMENT.get_or_init(|| Regex::new(r"(?s)<!--.*?(-->|$)").ok());
    let tag = TAG.get_or_init(|| Regex::new(r"(?i)<(link|base)\b([^>]*)>").ok());
    let attr = ATTR.get_or_init(|| {
        Regex::new(r#"(?i)([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))"#).ok()
    });
    let (Some(comment), Some(tag), Some(attr)) = (comment, tag, attr) else {
        return Vec::new();
    };
    let text = comment.replace_all(html, "");
    let mut base = page_url.clone();
    let mut base_seen = false;
    let mut out = Vec::new();
    for cap in tag.captures_iter(&text) {
        let name = cap.get(1).map(|m| m.as_str().to_ascii_lowercase());
        let attrs = cap.get(2).map(|m| m.as_str()).unwrap_or("");
        let mut rel = None;
        let mut href = None;
        let mut media = None;
        for a in attr.captures_iter(attrs) {
            let key = a.get(1).map(|m| m.as_str().to_ascii_lowercase());
            let value = a
                .get(2)
                .or_else(|| a.get(3))
                .or_else(|| a.get(4))
                .map(|m| m.as_str().to_string());
            match key.as_deref() {
                Some("rel") if rel.is_none() => rel = value,
                Some("href") if href.is_none() => href = value,
                Some("media") if media.is_none() => media = value,
                _ => {}
            }
        }
        if name.as_deref() == Some("base") {
            if !base_seen {
                base_seen = true;
                if let Some(u) = href.and_then(|h| page_url.join(h.trim()).ok()) {
                    base = u;
                }
            }
            continue;
        }
        let is_sheet = rel.as_deref().is_some_and(|r| {
            let tokens: Vec<String> = r
                .split_ascii_whitespace()
                .map(str::to_ascii_lowercase)
                .collect();
            tokens.iter().any(|t| t == "stylesheet") && !tokens.iter().any(|t| t == "alternate")
        });
        if let (true, Some(url)) = (is_sheet, href.and_then(|h| resolve(&base, &h))) {
            out.push(StylesheetRef { url, media });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Page;

    #[test]
    fn extracts_links_resources_and_robots() {
        let page = Page::from_html(
            "https://example.com/dir/page.html",
            r##"<html><head>
            <meta name="robots" content="index, nofollow">
            <link rel="stylesheet" href="/s.css"><link rel="next" href="page2.html">
            <script src="app.js"></script></head><body>
            <a href="other.html#x">o</a> <a href="#top">t</a> <a href="mailto:a@b.c">m</a>
            <a href="https://elsewhere.example/" rel="nofollow noopener">e</a>
            <map><area href="/area.html"></map><img src="i.png"><iframe src="//cdn.example/f"></iframe>
            </body></html>"##,
        );
        let cx = PageContext::parse(&page);
        let got = extract(&cx);
        let urls: Vec<(&str, LinkKind, bool)> = got
            .links
            .iter()
            .map(|l| (l.url.as_str(), l.kind, l.nofollow))
            .collect();
        assert_eq!(
            urls,
            vec![
                ("https://example.com/dir/page2.html", LinkKind::Next, false),
                (
                    "https://example.com/dir/other.html",
                    LinkKind::Anchor,
                    false
                ),
                ("https://example.com/dir/page.html", LinkKind::Anchor, false),
                ("https://elsewhere.example/", LinkKind::Anchor, true),
                ("https://example.com/area.html", LinkKind::Area, false),
            ]
        );
        let res: Vec<(&str, ResourceKind)> = got
            .resources
            .iter()
            .map(|r| (r.url.as_str(), r.kind))
            .collect();
        assert_eq!(
            res,
            vec![
                ("https://example.com/s.css", ResourceKind::Stylesheet),
                ("https://example.com/dir/app.js", ResourceKind::Script),
                ("https://example.com/dir/i.png", ResourceKind::Image),
                ("https://cdn.example/f", ResourceKind::Iframe),
            ]
        );
        assert_eq!(got.meta_robots.as_deref(), Some("index, nofollow"));
        assert!(got.meta_nofollow);
    }

    #[test]
    fn base_href_is_honored() {
        let page = Page::from_html(
            "https://example.com/a/b.html",
            r#"<head><base href="/root/"></head><a href="x.html">x</a>"#,
        );
        let got = extract(&PageContext::parse(&page));
        assert_eq!(got.links[0].url, "https://example.com/root/x.html");
    }

    #[test]
    fn stylesheet_prepass_reads_link_tags_outside_comments() {
        let url = Url::parse("https://example.com/p/index.html").unwrap();
        let html = r#"<head><!-- <link rel="stylesheet" href="/old.css"> -->
            <LINK REL=stylesheet HREF=main.css media="screen">
            <link href='/print.css' rel='Stylesheet' media=print>
            <link rel="alternate stylesheet" href="/alt.css">
            <link rel="icon" href="/favicon.ico"></head>"#;
        let got = stylesheet_hrefs(html, &url);
        assert_eq!(
            got,
            vec![
                StylesheetRef {
                    url: Url::parse("https://example.com/p/main.css").unwrap(),
                    media: Some("screen".into())
                },
                StylesheetRef {
                    url: Url::parse("https://example.com/print.css").unwrap(),
                    media: Some("print".into())
                },
            ]
        );
    }
}
