//! # sitescan-fuzz
//!
//! What each fuzz target does with its input, in one place: the libFuzzer
//! targets in `fuzz_targets/` call these functions, and so does the stable
//! replay of the saved corpus (`tests/it/fuzz_corpus.rs` includes this file as
//! a module), so a reproducer saved by `scripts/fuzz` fails the ordinary test
//! suite the same way it crashed the fuzzer.
//!
//! Every function takes arbitrary bytes, runs one parser (or the whole rule
//! engine) over them and panics only when sitescan misbehaves: a panic inside
//! a parser, a rule that crashed (the runner catches rule panics and reports
//! them as rule errors, which these functions turn back into panics), or a
//! broken invariant checked here (bounded sitemap output, normalized URLs
//! that parse back to themselves).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use sitescan_engine::crawl::{robots, scope, sitemap};
use sitescan_rules::css::{self, Styles};
use sitescan_rules::support::cookies::SetCookie;
use sitescan_rules::support::csp::Policy;
use sitescan_rules::{analyze, dom, links, registry, Category, Page, Rule, Stylesheet};
use url::Url;

/// What every target is: a function of the fuzzer's bytes.
pub type Target = fn(&[u8]);

/// Every target by name (the folder of its corpus under `fuzz/corpus/` and
/// its binary in `fuzz_targets/`), for the corpus replay.
pub const TARGETS: &[(&str, Target)] = &[
    ("html_rules", html_rules),
    ("css_cascade", css_cascade),
    ("robots_txt", robots_txt),
    ("sitemap", sitemap),
    ("csp", csp),
    ("set_cookie", set_cookie),
    ("srcset", srcset),
    ("url_normalize", url_normalize),
];

/// The page URL every HTML target pretends to have come from (HTTPS, so the
/// security rules that only judge secure pages run too).
const PAGE_URL: &str = "https://fuzz.example/dir/page.html";

/// A page of `html` at [`PAGE_URL`], or `None` when the constant does not parse
/// (it does; this keeps `expect` out of the targets).
fn page(html: &str) -> Option<Page> {
    Url::parse(PAGE_URL).ok()?;
    Some(Page::from_html(PAGE_URL, html))
}

/// Runs `rules` over `page` and panics when one of them crashed: the runner
/// catches rule panics and keeps going, which would hide them from the fuzzer.
fn run_rules(page: &Page, rules: &[&'static dyn Rule]) -> usize {
    let analysis = analyze(page, rules);
    if let Some(error) = analysis.errors.first() {
        panic!("rule {} crashed: {}", error.rule_id, error.message);
    }
    analysis.findings.len()
}

/// The page rules of one category.
fn rules_of(category: Category) -> Vec<&'static dyn Rule> {
    registry::page_rules()
        .iter()
        .copied()
        .filter(|r| r.meta().category == category)
        .collect()
}

/// HTML (lossily decoded) through every page rule, as a crawled page is.
pub fn html_rules(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    if let Some(page) = page(&html) {
        run_rules(&page, registry::page_rules());
    }
}

/// A stylesheet parsed every way the rules parse one, then cascaded over a
/// small document as a linked sheet and again as an inline `<style>`.
pub fn css_cascade(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for rule in css::parse_stylesheet_all_media(&text) {
        for selector in css::split_selector_list(&rule.selectors) {
            let _ = css::specificity(selector);
        }
        for media in &rule.media {
            let _ = css::media_applies(media);
        }
    }
    let _ = css::parse_stylesheet(&text);
    let _ = css::parse_declarations(&text);
    const DOC: &str = r#"<!doctype html><html lang="en"><head><title>t</title></head><body>
<main id="m" class="c"><h1 style="color:#777">Head</h1><p class="c">Text <a href="/x">link</a>
<span lang="fr">mot</span></p><ul><li>one</li><li><b>two</b></li></ul>
<table><tr><td>cell</td></tr></table><svg><g><text>s</text></g></svg></main></body></html>"#;
    let doc = dom::parse_document(DOC);
    let linked = [Stylesheet {
        url: "https://fuzz.example/style.css".into(),
        text: text.as_ref().into(),
        media: None,
        ..Default::default()
    }];
    let styles = Styles::compute(&doc, &linked);
    for node in doc.root_element().descendants() {
        if let Some(style) = styles.get(node.id()) {
            let _ = style.is_visually_clipped();
        }
    }
    // The same text inline, through the rules that read styles (contrast,
    // text spacing, reflow, ...).
    let inline = DOC.replace(
        "<title>t</title>",
        &format!("<title>t</title><style>{text}</style>"),
    );
    if let Some(page) = page(&inline) {
        run_rules(&page, registry::page_rules());
    }
}

/// A robots.txt body as the crawler reads it, then asked about a few URLs.
pub fn robots_txt(data: &[u8]) {
    let Ok(base) = Url::parse("https://fuzz.example/robots.txt") else {
        return;
    };
    let robots = robots::Robots::from_response("sitescan", &base, 200, data);
    for path in ["/", "/private/x", "/a.pdf", "/%E2%82%AC?q=1", "/*$"] {
        if let Ok(url) = base.join(path) {
            let _ = robots.allowed(&url);
        }
    }
}

/// A sitemap body (XML, text or gzip): parsed, and what it keeps is bounded.
pub fn sitemap(data: &[u8]) {
    let parsed = sitemap::parse(data);
    assert!(
        parsed.urls.len() <= sitemap::MAX_SITEMAP_URLS,
        "a sitemap kept {} URLs, more than the cap",
        parsed.urls.len()
    );
    assert!(
        parsed.sitemaps.len() <= sitemap::MAX_SITEMAP_URLS,
        "a sitemap index kept {} sitemaps, more than the cap",
        parsed.sitemaps.len()
    );
}

/// A `Content-Security-Policy` header value: parsed, and a page that sends it
/// through the security rules (the header once, and the same text in a
/// `<meta http-equiv>`).
pub fn csp(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for policy in Policy::parse_header(&text) {
        let _ = policy.directives.len();
    }
    let _ = Policy::parse(&text);
    let meta = text.replace('"', "&quot;");
    let html = format!(
        r#"<!doctype html><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="{meta}"><title>t</title></head><body><script src="/a.js"></script><p>x</p></body></html>"#
    );
    if let Some(page) = page(&html) {
        let page = page.with_header("content-security-policy", &text);
        run_rules(&page, &rules_of(Category::Security));
    }
}

/// A `Set-Cookie` value: parsed, judged on HTTP and HTTPS, and sent by a page
/// through the security rules.
pub fn set_cookie(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(cookie) = SetCookie::parse(&text) {
        let _ = sitescan_rules::security::cookie_security::cookie_problems(&cookie, true);
        let _ = sitescan_rules::security::cookie_security::cookie_problems(&cookie, false);
    }
    if let Some(page) = page("<!doctype html><html lang=\"en\"><title>t</title><p>x</p></html>") {
        let page = page
            .with_header("set-cookie", &text)
            .with_header("set-cookie", "id=1; Secure; HttpOnly");
        run_rules(&page, &rules_of(Category::Security));
    }
}

/// A `srcset` value on `<img>` and `<source>`: the start-tag pre-pass that
/// finds subresources, and every page rule (image formats, sizes, mixed
/// content read `srcset`).
pub fn srcset(data: &[u8]) {
    let text = String::from_utf8_lossy(data).replace('"', "&quot;");
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>t</title></head><body>
<img src="/a.jpg" alt="a" width="100" height="50" srcset="{text}" sizes="(max-width: 600px) 100vw, 50vw">
<picture><source srcset="{text}" type="image/webp"><img src="http://fuzz.example/b.png" alt="" srcset="{text}"></picture>
</body></html>"#
    );
    let Ok(url) = Url::parse(PAGE_URL) else {
        return;
    };
    let _ = links::prepass(&html, &url, true);
    if let Some(page) = page(&html) {
        run_rules(&page, registry::page_rules());
    }
}

/// A URL or reference as found in a page: resolved against a page URL,
/// normalized for the crawl, checked as a start URL and reduced as baselines
/// compare pages. The crawl frontier keeps normalized URLs as strings and
/// parses them again when it dequeues them, so a normalized URL must survive
/// that round trip unchanged (or the crawl would fetch another URL than the
/// one it deduplicated), and normalizing it again must change nothing.
pub fn url_normalize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(base) = Url::parse(PAGE_URL) else {
        return;
    };
    let candidates = [links::resolve(&base, &text), Url::parse(&text).ok()];
    for url in candidates.into_iter().flatten() {
        let normalized = scope::normalize(&url);
        let reparsed = Url::parse(normalized.as_str()).map(|u| u.as_str().to_string());
        assert_eq!(
            reparsed.as_deref(),
            Ok(normalized.as_str()),
            "the normalized form of {url} does not parse back to itself"
        );
        // The same URL must get the same key however often it is normalized.
        let again = scope::normalize(&normalized);
        assert_eq!(
            again.as_str(),
            normalized.as_str(),
            "normalizing {url} twice changed it"
        );
    }
    let _ = scope::parse_start_url(&text);
    let _ = sitescan_engine::baseline::normalize_url(&text);
}
