//! Helpers shared by the SEO, security, performance and quality rules: cached
//! selectors, URL and header facts, and the parsers several rules need (CSP,
//! `Set-Cookie`, text statistics, the JavaScript library table).
//!
//! Nothing here is a rule; rules live one per file in their category folders.

pub mod blocks;
pub mod cookies;
pub mod csp;
pub mod js_libs;
pub mod robots;
pub mod text;

use scraper::ElementRef;
use url::Url;

use crate::{Page, PageContext};

/// A `&'static scraper::Selector` parsed once from a literal.
macro_rules! selector {
    ($s:expr) => {{
        static SEL: std::sync::OnceLock<scraper::Selector> = std::sync::OnceLock::new();
        SEL.get_or_init(|| {
            #[allow(clippy::expect_used)]
            scraper::Selector::parse($s).expect("selector literal parses")
        })
    }};
}
pub(crate) use selector;

/// Elements matching a CSS selector literal, in the order [`scraper::Html::select`]
/// gives them.
///
/// A selector whose every alternative names its element type (`meta[name]`,
/// `script[src], link[href]`) is tested only on elements of those types, from
/// the page's index ([`PageContext::elements_named`]), instead of on every
/// element of the document: rules select this way some twenty times a page.
pub(crate) fn select<'a>(
    cx: &'a PageContext<'_>,
    sel: &'static scraper::Selector,
) -> impl Iterator<Item = ElementRef<'a>> + 'a {
    let candidates: Option<Vec<ego_tree::NodeId>> = selector_types(sel).map(|types| {
        let mut nodes: Vec<ego_tree::NodeId> = types
            .iter()
            .flat_map(|t| cx.elements_named(t).iter().copied())
            .collect();
        if types.len() > 1 {
            // Node ids order as nodes were created, the order `Html::select` keeps.
            nodes.sort_unstable();
        }
        nodes
    });
    let (indexed, whole) = match candidates {
        Some(nodes) => (Some(nodes.into_iter()), None),
        None => (None, Some(cx.doc().select(sel))),
    };
    let indexed = indexed
        .into_iter()
        .flatten()
        .filter_map(move |n| cx.element(n))
        .filter(move |el| sel.matches(el));
    indexed.chain(whole.into_iter().flatten())
}

/// The element types a selector can match, when every alternative of it names
/// one (lowercase ASCII, no namespace): `None` for `.x`, `[role]`, `svg|a`...
/// Read once per selector literal from its serialization and kept by address
/// (the selectors are statics).
fn selector_types(sel: &'static scraper::Selector) -> Option<std::sync::Arc<[String]>> {
    use scraper::selector::ToCss;
    use std::sync::{Arc, Mutex, OnceLock};
    type Cache = Mutex<rustc_hash::FxHashMap<usize, Option<Arc<[String]>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = std::ptr::from_ref(sel) as usize;
    let mut guard = cache.lock().unwrap_or_else(|p| p.into_inner());
    guard
        .entry(key)
        .or_insert_with(|| {
            let text = sel.to_css_string();
            let mut types: Vec<String> = Vec::new();
            for part in crate::css::split_selector_list(&text) {
                let t = rightmost_type(part)?;
                if !types.iter().any(|x| x == t) {
                    types.push(t.to_string());
                }
            }
            (!types.is_empty()).then(|| types.into())
        })
        .clone()
}

/// The type selector opening the rightmost compound of a complex selector, when
/// it is a plain lowercase name.
fn rightmost_type(selector: &str) -> Option<&str> {
    let bytes = selector.as_bytes();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b' ' | b'>' | b'+' | b'~' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    let compound = &selector[start..];
    // The whole identifier: `foreignObject` must not read as `foreign`.
    let end = compound
        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '\\'))
        .unwrap_or(compound.len());
    let name = &compound[..end];
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !compound.contains('|');
    plain.then_some(name)
}

/// The URL relative references on the page resolve against: the first
/// `<base href>` when it parses, else the final URL.
pub(crate) fn base_url(cx: &PageContext<'_>) -> Url {
    let page = cx.page();
    select(cx, selector!("base[href]"))
        .next()
        .and_then(|b| b.value().attr("href"))
        .and_then(|h| page.final_url.join(h.trim()).ok())
        .unwrap_or_else(|| page.final_url.clone())
}

/// The absolute `http(s)` URL a subresource attribute (`src`, `href`) names,
/// for a finding's [`crate::Finding::on_resource`]: the engine reports one
/// finding per resource and scan. `None` for `data:` URLs and the like.
pub(crate) fn resource_url(cx: &PageContext<'_>, raw: &str) -> Option<String> {
    crate::links::resolve(&base_url(cx), raw).map(String::from)
}

/// Resolves an attribute value against the page's base URL.
pub(crate) fn resolve(base: &Url, href: &str) -> Option<Url> {
    base.join(href.trim()).ok()
}

/// Every `<a href>` / `<area href>` of the page resolving to an `http(s)` URL.
pub(crate) fn http_links<'a>(cx: &'a PageContext<'_>) -> Vec<(ElementRef<'a>, Url)> {
    // Resolved once per page and cached on the context (four rules ask).
    let links = cx.http_links_cell().get_or_init(|| {
        let base = base_url(cx);
        select(cx, selector!("a[href], area[href]"))
            .filter_map(|a| {
                let u = resolve(&base, a.value().attr("href")?)?;
                matches!(u.scheme(), "http" | "https").then_some((a.id(), u))
            })
            .collect()
    });
    links
        .iter()
        .filter_map(|(node, u)| Some((cx.element(*node)?, u.clone())))
        .collect()
}

/// Whether two URLs are on the same site for link purposes: same host, ignoring a
/// leading `www.` and the scheme.
pub(crate) fn same_host(a: &Url, b: &Url) -> bool {
    let h = |u: &Url| {
        u.host_str()
            .unwrap_or("")
            .trim_start_matches("www.")
            .to_ascii_lowercase()
    };
    h(a) == h(b)
}

/// Whether the page itself was served over HTTPS.
pub(crate) fn is_https(page: &Page) -> bool {
    page.final_url.scheme() == "https"
}

/// Whether two URLs share scheme, host and port.
pub(crate) fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin()
}

/// The registrable-ish site of a host: its last two labels (`www.example.com` ->
/// `example.com`), or the whole host for IP addresses and single labels.
///
/// A public-suffix list would be exact for `example.co.uk`; two labels is the
/// documented approximation, used only to tell first from third parties.
pub(crate) fn site_of(url: &Url) -> String {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let labels: Vec<&str> = d.trim_end_matches('.').split('.').collect();
            if labels.len() <= 2 {
                d.to_ascii_lowercase()
            } else {
                labels[labels.len() - 2..].join(".").to_ascii_lowercase()
            }
        }
        Some(host) => host.to_string(),
        None => String::new(),
    }
}

/// Whether the `rel` attribute of an element holds a token (case-insensitive).
pub(crate) fn has_rel(el: ElementRef<'_>, token: &str) -> bool {
    el.value().attr("rel").is_some_and(|r| {
        r.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

/// The `content` of every `<meta name=NAME>` (case-insensitive name), in order.
pub(crate) fn meta_contents<'a>(cx: &'a PageContext<'_>, name: &'a str) -> Vec<ElementRef<'a>> {
    select(cx, selector!("meta[name]"))
        .filter(|m| {
            m.value()
                .attr("name")
                .is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
        })
        .collect()
}

/// The `content` of every `<meta property=NAME>` (Open Graph), in order.
pub(crate) fn meta_property<'a>(cx: &'a PageContext<'_>, name: &str) -> Option<&'a str> {
    select(cx, selector!("meta[property]"))
        .find(|m| {
            m.value()
                .attr("property")
                .is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
        })
        .and_then(|m| m.value().attr("content"))
}

/// Every value of `<meta http-equiv=NAME content>` (case-insensitive), in order.
pub(crate) fn http_equiv<'a>(cx: &'a PageContext<'_>, name: &str) -> Vec<&'a str> {
    select(cx, selector!("meta[http-equiv][content]"))
        .filter(|m| {
            m.value()
                .attr("http-equiv")
                .is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
        })
        .filter_map(|m| m.value().attr("content"))
        .collect()
}

/// Whether the element sits inside `<head>`.
pub(crate) fn in_head(el: ElementRef<'_>) -> bool {
    el.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| a.value().name() == "head")
}

/// A header line for a finding's snippet: `name: value`, cut to a readable length.
pub(crate) fn header_snippet(name: &str, value: &str) -> String {
    crate::dom::truncate_chars(&format!("{name}: {value}"), crate::dom::SNIPPET_MAX_CHARS)
}

/// Parses a dotted version (`3.4.1`, `1.12`) into numeric parts; `None` when a
/// part is not a number. Pre-release suffixes (`-rc.1`) are dropped.
///
/// Hand-written rather than the `semver` crate because library versions seen in
/// URLs are often two-part (`1.12`) which strict semver rejects.
pub(crate) fn parse_version(v: &str) -> Option<Vec<u64>> {
    let core = v.split(['-', '+']).next()?;
    let parts: Option<Vec<u64>> = core.split('.').map(|p| p.parse().ok()).collect();
    parts.filter(|p| !p.is_empty() && p.len() <= 4)
}

/// Orders two parsed versions, missing parts counting as zero.
pub(crate) fn cmp_version(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        match x.cmp(&y) {
            std::cmp::Ordering::Equal => continue,
            other => return other,
        }
    }
    std::cmp::Ordering::Equal
}

/// Where a robots directive came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsDirective {
    /// `<meta name="robots">`, `<meta name="googlebot">` or `X-Robots-Tag`.
    pub source: String,
    /// The directive, lowercased (`noindex`, `max-snippet:0`, ...).
    pub directive: String,
}

/// Every robots directive of the page: `<meta name="robots">` and the crawler
/// specific `googlebot` / `bingbot` metas, plus `X-Robots-Tag` headers (with or
/// without a `botname:` prefix). `none` expands to `noindex` and `nofollow`.
pub fn robots_directives(cx: &PageContext<'_>) -> Vec<RobotsDirective> {
    const BOTS: &[&str] = &["robots", "googlebot", "bingbot"];
    let mut out = Vec::new();
    let mut push = |source: String, list: &str| {
        for d in list.split(',') {
            let d = d.trim().to_ascii_lowercase();
            if d.is_empty() {
                continue;
            }
            if d == "none" {
                for x in ["noindex", "nofollow"] {
                    out.push(RobotsDirective {
                        source: source.clone(),
                        directive: x.to_string(),
                    });
                }
            } else {
                out.push(RobotsDirective {
                    source: source.clone(),
                    directive: d,
                });
            }
        }
    };
    for m in select(cx, selector!("meta[name][content]")) {
        let name = m
            .value()
            .attr("name")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if BOTS.contains(&name.as_str()) {
            push(
                format!("<meta name=\"{name}\">"),
                m.value().attr("content").unwrap_or(""),
            );
        }
    }
    for v in cx.page().header_all("x-robots-tag") {
        // `googlebot: noindex` applies to that bot; directives never contain `: `
        // except `max-snippet:` style values, which have no space.
        let list = match v.split_once(": ") {
            Some((bot, rest)) if !bot.contains(',') => {
                if !BOTS.contains(&bot.trim().to_ascii_lowercase().as_str()) {
                    continue;
                }
                rest
            }
            _ => v,
        };
        push("X-Robots-Tag".to_string(), list);
    }
    out
}

/// One member of an HTTP `Link` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkValue {
    /// The URI reference between `<` and `>`, as written.
    pub target: String,
    /// `rel` tokens, lowercased.
    pub rel: Vec<String>,
    /// Other parameters (`hreflang`, `type`, ...), names lowercased, quotes removed.
    pub params: Vec<(String, String)>,
}

impl LinkValue {
    /// The value of a parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses every `Link` header of a page (RFC 8288), skipping malformed members.
///
/// Hand-written: the format is small, and commas inside `<...>` or quoted values
/// are the only subtlety.
pub fn link_header(page: &Page) -> Vec<LinkValue> {
    let mut out = Vec::new();
    for value in page.header_all("link") {
        let mut rest = value;
        while let Some(open) = rest.find('<') {
            let Some(close) = rest[open..].find('>') else {
                break;
            };
            let target = rest[open + 1..open + close].trim().to_string();
            rest = &rest[open + close + 1..];
            // Parameters run until the next top-level comma.
            let mut end = rest.len();
            let mut quoted = false;
            for (i, c) in rest.char_indices() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            let params_text = &rest[..end];
            rest = &rest[end..];
            let mut link = LinkValue {
                target,
                rel: Vec::new(),
                params: Vec::new(),
            };
            for p in params_text.split(';') {
                let Some((k, v)) = p.split_once('=') else {
                    continue;
                };
                let k = k.trim().to_ascii_lowercase();
                let v = v.trim().trim_matches('"').to_string();
                if k == "rel" {
                    link.rel = v
                        .split_ascii_whitespace()
                        .map(str::to_ascii_lowercase)
                        .collect();
                } else {
                    link.params.push((k, v));
                }
            }
            out.push(link);
        }
    }
    out
}

/// Parses an HTTP date (`Date`, `Expires`, `Last-Modified`) in any of the three
/// forms RFC 9110 accepts: IMF-fixdate, RFC 850 and asctime.
pub fn http_date(value: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    httpdate::parse_http_date(value.trim())
        .ok()
        .map(chrono::DateTime::<chrono::Utc>::from)
}

#[cfg(test)]
mod tests {
    /// The three forms are the same instant; anything else is no date.
    #[test]
    fn http_dates_in_all_three_forms() {
        let want = super::http_date("Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(want.map(|d| d.timestamp()), Some(784111777));
        assert_eq!(super::http_date("Sunday, 06-Nov-94 08:49:37 GMT"), want);
        assert_eq!(super::http_date(" Sun Nov  6 08:49:37 1994 "), want);
        assert_eq!(super::http_date("0"), None);
        assert_eq!(super::http_date("tomorrow"), None);
    }

    #[test]
    fn indexed_select_equals_a_document_walk() {
        let page = Page::from_html(
            "https://example.com/",
            r#"<html><head><meta name=a content=1><link rel=x href=/l><SCRIPT src=s></SCRIPT>
            <meta property=og:title content=t></head><body><table><tr><td>x</td></tr>
            <meta name=b content=2></table><a href=/a>a</a><svg><a href=/s>s</a><foreignObject/></svg>
            <area href=/m><script>1</script><p class=q><span lang=en-GB>t</span></p></body></html>"#,
        );
        let cx = PageContext::parse(&page);
        let same = |sel: &'static scraper::Selector| {
            let fast: Vec<_> = select(&cx, sel).map(|e| e.id()).collect();
            let slow: Vec<_> = cx.doc().select(sel).map(|e| e.id()).collect();
            assert_eq!(fast, slow, "{sel:?}");
            fast.len()
        };
        assert_eq!(same(selector!("meta[name]")), 2);
        assert_eq!(same(selector!("a[href], area[href]")), 3);
        assert_eq!(same(selector!("script:not([src]), link")), 2);
        assert_eq!(same(selector!("body p > span[lang|=en]")), 1);
        assert_eq!(same(selector!(".q, meta")), 4);
        assert_eq!(same(selector!("foreignObject")), 1);
        assert_eq!(rightmost_type("div > p.x:not(.y)"), Some("p"));
        assert_eq!(rightmost_type("svg|a"), None);
        assert_eq!(rightmost_type("[role]"), None);
    }

    #[test]
    fn link_headers_parse() {
        let page = Page::from_html("https://example.com/", "")
            .with_header("Link", r#"<https://example.com/a>; rel="canonical", <https://example.com/de>; rel=alternate; hreflang="de-DE""#);
        let links = link_header(&page);
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].rel, vec!["canonical"]);
        assert_eq!(links[1].target, "https://example.com/de");
        assert_eq!(links[1].param("hreflang"), Some("de-DE"));
    }

    use super::*;

    #[test]
    fn versions_compare_numerically() {
        let v = |s| parse_version(s).unwrap();
        assert!(cmp_version(&v("3.10.0"), &v("3.5.0")).is_gt());
        assert!(cmp_version(&v("1.12"), &v("1.12.0")).is_eq());
        assert!(cmp_version(&v("3.5.0-rc.1"), &v("3.5.0")).is_eq());
        assert!(parse_version("x.1").is_none());
    }

    #[test]
    fn sites_are_last_two_labels() {
        let u = |s| Url::parse(s).unwrap();
        assert_eq!(site_of(&u("https://www.example.com/")), "example.com");
        assert_eq!(site_of(&u("https://cdn.other.org/x")), "other.org");
        assert_eq!(site_of(&u("http://127.0.0.1:8080/")), "127.0.0.1");
    }
}
