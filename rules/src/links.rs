//! Links and resources of a parsed page, as absolute URLs: what the crawler
//! follows (`<a href>`, `<area href>`, `<link rel=next>`) and what the page loads
//! (scripts, stylesheets, images, iframes), plus the robots directives that say
//! whether to follow them (`rel=nofollow`, `<meta name=robots>`).
//!
//! Pure DOM work, no I/O: the engine calls [`extract`] while the page's DOM is
//! alive and keeps only these plain values. [`stylesheet_hrefs`] is the cheap
//! pre-pass the engine runs on the raw HTML before the one full parse.

use std::cell::{Cell, RefCell};
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
    /// `<link rel=stylesheet href>` (not an alternate or disabled one).
    Stylesheet,
    /// `<img src>`.
    Image,
    /// `<iframe src>`.
    Iframe,
    /// A web font: `<link rel=preload as=font>` or the first `url()` of an
    /// `@font-face` `src`.
    Font,
    /// `<video src>`, `<audio src>`, `<source src>`.
    Media,
    /// Anything else a page loads (`<track>`, a web app manifest, a preload of
    /// another kind).
    Other,
}

impl ResourceKind {
    /// The lowercase name used in messages and data (`script`, `image`).
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Script => "script",
            ResourceKind::Stylesheet => "stylesheet",
            ResourceKind::Image => "image",
            ResourceKind::Iframe => "iframe",
            ResourceKind::Font => "font",
            ResourceKind::Media => "media",
            ResourceKind::Other => "other",
        }
    }

    /// Whether browsers treat it as a static asset worth caching long
    /// (Lighthouse's static resource types: font, image, media, script,
    /// stylesheet).
    pub fn is_static(self) -> bool {
        matches!(
            self,
            ResourceKind::Script
                | ResourceKind::Stylesheet
                | ResourceKind::Image
                | ResourceKind::Font
                | ResourceKind::Media
        )
    }
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

/// Whether a `<link>` with these `rel` tokens and this `disabled` attribute
/// loads a stylesheet that styles the page: `rel=stylesheet`, not an
/// alternate sheet (applied only when the visitor picks it), and not
/// `disabled` (HTML fetches and applies no sheet for a disabled link: sites
/// ship their other colour themes that way, and a theme switcher toggles the
/// attribute).
fn applied_stylesheet(rel: &str, disabled: bool) -> bool {
    rel_tokens_have(rel, "stylesheet") && !rel_tokens_have(rel, "alternate") && !disabled
}

/// The links, resources and robots directives of a parsed page. Relative URLs are
/// resolved against the first `<base href>`, else the page's final URL. Links past the
/// page budget's `max_links` are counted, not kept, and recorded as an overrun.
pub fn extract(cx: &PageContext<'_>) -> PageLinks {
    let page_url = &cx.page().final_url;
    let mut base = page_url.clone();
    let mut out = PageLinks::default();
    let mut base_seen = false;
    let max_links = cx.budget().max_links;
    let mut found: u64 = 0;
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
                    // Past the page's cap links are counted, not kept: each
                    // kept one may cost a queued URL and a request.
                    found += 1;
                    if out.links.len() >= max_links {
                        continue;
                    }
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
                        found += 1;
                        if out.links.len() >= max_links {
                            continue;
                        }
                        out.links.push(Link {
                            url: url.to_string(),
                            kind: LinkKind::Next,
                            nofollow: rel_has(el, "nofollow"),
                        });
                    }
                    if applied_stylesheet(
                        el.value().attr("rel").unwrap_or(""),
                        el.value().attr("disabled").is_some(),
                    ) {
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
    if out.links.len() as u64 != found {
        cx.overrun(crate::budget::Overrun {
            limit: crate::budget::Limit::Links,
            count: found,
        });
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
    /// How many `<style>` elements come before the `<link>` in the document:
    /// the cascade places the sheet between them in document order.
    pub styles_before: usize,
}

/// Stylesheet links of raw HTML, without building a DOM: those that style the
/// page (not alternate or disabled sheets).
///
/// The engine must fetch linked stylesheets *before* the rules run, and the rules
/// run on the one full parse of the page on a rayon worker. Parsing twice (once
/// on the async side for the hrefs) would double the parse cost, and scraper's
/// `Html` is not `Send`, so the DOM cannot travel back and forth. This pre-pass
/// instead runs html5ever's tokenizer alone (see [`scan_start_tags`]), with no
/// tree to build: it skips comments and the text of `<script>`, `<style>` and
/// other raw-text elements, honors the first `<base href>` and reads attributes
/// as the parse will.
pub fn stylesheet_hrefs(html: &str, page_url: &Url) -> Vec<StylesheetRef> {
    prepass(html, page_url, false).stylesheets
}

/// What the start-tag pre-pass found in a page: its stylesheet links and, when
/// asked for, every subresource it loads. One pass gives both, so a scan that
/// also checks subresources reads the raw HTML once, not once per list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrePass {
    /// As [`stylesheet_hrefs`] returns them.
    pub stylesheets: Vec<StylesheetRef>,
    /// As [`subresource_refs`] returns them (empty unless asked for).
    pub subresources: Vec<SubresourceRef>,
    /// The `<style>` elements that hold an `@import`, in document order:
    /// the engine follows their imports as it follows linked sheets'.
    pub importing_styles: Vec<InlineStyleRef>,
}

/// A `<style>` element that holds an `@import`, found by [`prepass`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineStyleRef {
    /// Its text.
    pub text: String,
    /// Its `media` attribute, if any.
    pub media: Option<String>,
    /// The base URL in force, which its imports resolve against.
    pub base: Url,
}

/// Runs the start-tag pre-pass once: the stylesheet links of [`stylesheet_hrefs`]
/// and, with `with_subresources`, the subresources of [`subresource_refs`].
pub fn prepass(html: &str, page_url: &Url, with_subresources: bool) -> PrePass {
    let mut stylesheets = Vec::new();
    let mut importing_styles = Vec::new();
    let mut subresources = Subresources::default();
    let mut styles_seen = 0;
    scan_start_tags(html, page_url, |tag, base| {
        if tag.name == "style" {
            styles_seen += 1;
        }
        if tag.name == "style"
            && tag
                .text
                .as_bytes()
                .windows(7)
                .any(|w| w.eq_ignore_ascii_case(b"@import"))
        {
            importing_styles.push(InlineStyleRef {
                text: tag.text.clone(),
                media: tag.attr("media").map(str::to_string),
                base: base.clone(),
            });
        }
        if tag.name == "link" {
            let rel = tag.attr("rel").unwrap_or("");
            if applied_stylesheet(rel, tag.attr("disabled").is_some()) {
                if let Some(url) = tag.attr("href").and_then(|h| resolve(base, h)) {
                    stylesheets.push(StylesheetRef {
                        url,
                        media: tag.attr("media").map(str::to_string),
                        styles_before: styles_seen,
                    });
                }
            }
        }
        if with_subresources {
            subresources.tag(tag, base);
        }
    });
    PrePass {
        stylesheets,
        subresources: subresources.finish(),
        importing_styles,
    }
}

/// A subresource found by [`subresource_refs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubresourceRef {
    /// Absolute `http(s)` URL, fragment removed.
    pub url: Url,
    /// How the page loads it.
    pub kind: ResourceKind,
}

/// The subresources raw HTML loads, without building a DOM, in document order
/// and each URL once: `<img src>`, `<script src>`, `<link href>` with `rel`
/// `stylesheet` (not `alternate`, not `disabled`), `icon`, `preload` (kind from `as`),
/// `modulepreload` or `manifest`, `<video src>`, `<audio src>`, `<source src>`,
/// `<track src>`, and the first `url()` of each `@font-face` `src` in inline
/// `<style>` elements. The same start-tag pre-pass as [`stylesheet_hrefs`] (and
/// for the same reason: the engine fetches these before the one full parse);
/// `srcset` candidates are not listed (the browser picks one by viewport), nor
/// are `<iframe>` documents (pages, not subresources).
pub fn subresource_refs(html: &str, page_url: &Url) -> Vec<SubresourceRef> {
    prepass(html, page_url, true).subresources
}

/// Collects [`subresource_refs`] tag by tag during the pre-pass.
#[derive(Default)]
struct Subresources {
    out: Vec<SubresourceRef>,
    fonts: Vec<Url>,
}

impl Subresources {
    /// Adds a URL once, in document order.
    fn push(&mut self, url: Url, kind: ResourceKind) {
        if !self.out.iter().any(|r| r.url == url) {
            self.out.push(SubresourceRef { url, kind });
        }
    }

    /// Records what one start tag loads.
    fn tag(&mut self, tag: &StartTag, base: &Url) {
        let src = || tag.attr("src").and_then(|h| resolve(base, h));
        match tag.name.as_str() {
            "img" => {
                if let Some(u) = src() {
                    self.push(u, ResourceKind::Image)
                }
            }
            "script" => {
                if let Some(u) = src() {
                    self.push(u, ResourceKind::Script)
                }
            }
            "video" | "audio" | "source" => {
                if let Some(u) = src() {
                    self.push(u, ResourceKind::Media)
                }
            }
            "track" => {
                if let Some(u) = src() {
                    self.push(u, ResourceKind::Other)
                }
            }
            "link" => {
                let rel = tag.attr("rel").unwrap_or("");
                let kind = if rel_tokens_have(rel, "stylesheet") {
                    applied_stylesheet(rel, tag.attr("disabled").is_some())
                        .then_some(ResourceKind::Stylesheet)
                } else if rel_tokens_have(rel, "icon") {
                    Some(ResourceKind::Image)
                } else if rel_tokens_have(rel, "modulepreload") {
                    Some(ResourceKind::Script)
                } else if rel_tokens_have(rel, "preload") {
                    Some(
                        match tag
                            .attr("as")
                            .map(|a| a.trim().to_ascii_lowercase())
                            .as_deref()
                        {
                            Some("font") => ResourceKind::Font,
                            Some("image") => ResourceKind::Image,
                            Some("script") => ResourceKind::Script,
                            Some("style") => ResourceKind::Stylesheet,
                            Some("audio") | Some("video") => ResourceKind::Media,
                            _ => ResourceKind::Other,
                        },
                    )
                } else if rel_tokens_have(rel, "manifest") {
                    Some(ResourceKind::Other)
                } else {
                    None
                };
                if let (Some(kind), Some(u)) =
                    (kind, tag.attr("href").and_then(|h| resolve(base, h)))
                {
                    self.push(u, kind)
                }
            }
            "style" => self.fonts.extend(font_face_urls(&tag.text, base)),
            _ => {}
        }
    }

    /// The list: tags in document order, then the fonts of inline `@font-face`.
    fn finish(mut self) -> Vec<SubresourceRef> {
        for u in std::mem::take(&mut self.fonts) {
            self.push(u, ResourceKind::Font);
        }
        self.out
    }
}

/// The font each `@font-face` rule of a stylesheet makes the browser download:
/// the first `url()` of its `src` (browsers take the first format they support,
/// and sites list the best one, usually WOFF2, first), resolved against
/// `sheet_url`. `data:` URLs and `local()` sources are not downloads.
pub fn font_face_urls(css: &str, sheet_url: &Url) -> Vec<Url> {
    static URL: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(url_re) = URL
        .get_or_init(|| Regex::new(r#"(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)"#).ok())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for block in crate::performance::font_display::font_face_blocks(css) {
        // The `src` descriptor, up to the next descriptor: split on `;` only
        // outside `url()` (data URLs hold `;`).
        let lower = block.to_ascii_lowercase();
        let Some(at) = find_descriptor(&lower, "src") else {
            continue;
        };
        let Some(cap) = url_re.captures(&block[at..]) else {
            continue;
        };
        let raw = cap
            .get(1)
            .or_else(|| cap.get(2))
            .or_else(|| cap.get(3))
            .map(|m| m.as_str())
            .unwrap_or("");
        if let Some(u) = resolve(sheet_url, raw) {
            if !out.contains(&u) {
                out.push(u);
            }
        }
    }
    out
}

/// Where the value of descriptor `name` starts in a lowercased declaration block.
fn find_descriptor(lower: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let start = from + i;
        let before_ok = start == 0
            || lower[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c == ';' || c == '{' || c.is_whitespace());
        let rest = lower[start + name.len()..].trim_start();
        if before_ok && rest.starts_with(':') {
            let colon = lower.len() - rest.len();
            return Some(colon + 1);
        }
        from = start + name.len();
    }
    None
}

fn rel_tokens_have(rel: &str, token: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|t| t.eq_ignore_ascii_case(token))
}

/// One start tag seen by [`scan_start_tags`].
pub struct StartTag {
    /// Lowercase element name.
    pub name: String,
    attrs: Vec<(String, String)>,
    /// For `<style>`: its text up to `</style>`; empty otherwise.
    pub text: String,
}

impl StartTag {
    /// The first value of an attribute (name matched case-insensitively).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Calls `each` with every start tag of a resource-loading element (`link`,
/// `script`, `img`, `video`, `audio`, `source`, `track`, `style`) outside
/// comments, raw-text content and `<template>` contents, with the base URL in
/// force (the first `<base href>`, else `page_url`).
///
/// html5ever's tokenizer, without its tree builder: the engine's pre-pass before
/// the one full parse (see [`stylesheet_hrefs`] for why it cannot share that
/// parse). The tokenizer reads comments, CDATA, quoted attribute values holding
/// `>` and character references the way the parse will; the sink switches it to
/// the raw-text states as the tree builder would for `script`, `style` and the
/// like, so markup in their text is not read as tags.
pub fn scan_start_tags(html: &str, page_url: &Url, mut each: impl FnMut(&StartTag, &Url)) {
    use html5ever::buffer_queue::BufferQueue;
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::{Tokenizer, TokenizerOpts};
    use html5ever::TokenizerResult;

    let sink = prepass_sink::StartTags {
        each: RefCell::new(&mut each),
        page_url,
        base: RefCell::new(None),
        style: RefCell::new(None),
        template_depth: Cell::new(0),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // A script end tag suspends the tokenizer for the script to run; there is
    // none to run, so it goes on.
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
}

/// The token sink of [`scan_start_tags`].
mod prepass_sink {
    use std::cell::{Cell, RefCell};

    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
    use url::Url;

    use super::StartTag;

    /// Elements reported to the callback (besides `base`, which sets the base).
    const REPORTED: &[&str] = &[
        "link", "script", "img", "video", "audio", "source", "track", "style", "textarea", "title",
        "noscript", "xmp",
    ];

    /// The callback is called from `process_token`, which takes `&self`.
    type Each<'e> = RefCell<&'e mut dyn FnMut(&StartTag, &Url)>;

    pub(super) struct StartTags<'e, 'u> {
        pub(super) each: Each<'e>,
        pub(super) page_url: &'u Url,
        /// The first `<base href>`'s URL, once seen.
        pub(super) base: RefCell<Option<Url>>,
        /// The `<style>` whose text is being read, reported at its end tag.
        pub(super) style: RefCell<Option<StartTag>>,
        /// How many `<template>`s are open: their contents load nothing.
        pub(super) template_depth: Cell<usize>,
    }

    impl StartTags<'_, '_> {
        fn report(&self, tag: &StartTag) {
            let base = self.base.borrow();
            let base = base.as_ref().unwrap_or(self.page_url);
            (self.each.borrow_mut())(tag, base);
        }
    }

    impl TokenSink for StartTags<'_, '_> {
        type Handle = ();

        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            match token {
                Token::CharacterTokens(text) => {
                    if let Some(style) = self.style.borrow_mut().as_mut() {
                        style.text.push_str(&text);
                    }
                }
                Token::TagToken(tag) if tag.kind == TagKind::EndTag => {
                    let name = &*tag.name;
                    if name == "template" {
                        self.template_depth
                            .set(self.template_depth.get().saturating_sub(1));
                    } else if name == "style" {
                        let style = self.style.borrow_mut().take();
                        if let Some(style) = style {
                            self.report(&style);
                        }
                    }
                }
                Token::TagToken(tag) => {
                    let name = tag.name.to_string();
                    if name == "template" {
                        if !tag.self_closing {
                            self.template_depth.set(self.template_depth.get() + 1);
                        }
                        return TokenSinkResult::Continue;
                    }
                    // Raw-text elements switch the tokenizer whether or not
                    // they are reported, as the tree builder does. `<noscript>`
                    // among them: the engine (like a browser with scripting on,
                    // and like the DOM the rules see) does not load what it holds.
                    let raw = match name.as_str() {
                        "script" => Some(RawKind::ScriptData),
                        "style" | "xmp" | "noscript" | "iframe" | "noembed" | "noframes" => {
                            Some(RawKind::Rawtext)
                        }
                        "textarea" | "title" => Some(RawKind::Rcdata),
                        _ => None,
                    };
                    if self.template_depth.get() > 0 {
                        return raw.map_or(TokenSinkResult::Continue, TokenSinkResult::RawData);
                    }
                    let start = StartTag {
                        attrs: tag
                            .attrs
                            .iter()
                            .map(|a| (a.name.local.to_string(), a.value.to_string()))
                            .collect(),
                        name,
                        text: String::new(),
                    };
                    if start.name == "base" {
                        let mut base = self.base.borrow_mut();
                        if base.is_none() {
                            // Only the first <base> counts, even without href.
                            *base = Some(
                                start
                                    .attr("href")
                                    .and_then(|h| self.page_url.join(h.trim()).ok())
                                    .unwrap_or_else(|| self.page_url.clone()),
                            );
                        }
                    } else if start.name == "style" {
                        // Reported with its text at `</style>` (or the end).
                        *self.style.borrow_mut() = Some(start);
                    } else if REPORTED.contains(&start.name.as_str()) {
                        self.report(&start);
                    }
                    if let Some(kind) = raw {
                        return TokenSinkResult::RawData(kind);
                    }
                }
                Token::EOFToken => {
                    let style = self.style.borrow_mut().take();
                    if let Some(style) = style {
                        self.report(&style);
                    }
                }
                _ => {}
            }
            TokenSinkResult::Continue
        }
    }
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
            <link rel="stylesheet" href="/dark.css" disabled><link rel="alternate stylesheet" href="/alt.css">
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
            <style>p { color: red }</style>
            <link href='/print.css' rel='Stylesheet' media=print>
            <link rel="alternate stylesheet" href="/alt.css">
            <link rel="stylesheet" href="/dark.css" disabled>
            <link rel="icon" href="/favicon.ico"></head>"#;
        let got = stylesheet_hrefs(html, &url);
        assert_eq!(
            got,
            vec![
                StylesheetRef {
                    url: Url::parse("https://example.com/p/main.css").unwrap(),
                    media: Some("screen".into()),
                    styles_before: 0,
                },
                StylesheetRef {
                    url: Url::parse("https://example.com/print.css").unwrap(),
                    media: Some("print".into()),
                    styles_before: 1,
                },
            ]
        );
    }

    #[test]
    fn subresource_prepass_lists_what_the_page_loads() {
        let url = Url::parse("https://example.com/p/index.html").unwrap();
        let html = r#"<head><base href="/b/"><link rel="stylesheet" href="s.css">
            <link rel="alternate stylesheet" href="alt.css"><link rel="icon" href="/favicon.ico">
            <link rel="stylesheet" href="dark.css" disabled="">
            <link rel=preload as=font href="/f.woff2" crossorigin><link rel="modulepreload" href="m.js">
            <link rel="canonical" href="/p/"><title><img src="no-title.png"></title>
            <script>document.write('<img src="no-script.png">')</script>
            <script src="app.js#x"></script>
            <style>@font-face { font-family: A; src: url("/a.woff2") format("woff2"), url(/a.woff) format("woff"); }
            body { background: url(bg.png) }</style></head><body>
            <!-- <img src="no-comment.png"> --><noscript><img src="no-noscript.png"></noscript>
            <img src="hero.jpg" srcset="hero-2x.jpg 2x"><IMG SRC='hero.jpg'>
            <video src="v.mp4"><track src="t.vtt"></video><audio><source src="a.ogg"></audio>
            <iframe src="frame.html"></iframe><img src="data:image/png;base64,xx"></body>"#;
        let got: Vec<(String, ResourceKind)> = subresource_refs(html, &url)
            .into_iter()
            .map(|r| (r.url.to_string(), r.kind))
            .collect();
        let e = |p: &str, k| (format!("https://example.com{p}"), k);
        assert_eq!(
            got,
            vec![
                e("/b/s.css", ResourceKind::Stylesheet),
                e("/favicon.ico", ResourceKind::Image),
                e("/f.woff2", ResourceKind::Font),
                e("/b/m.js", ResourceKind::Script),
                e("/b/app.js", ResourceKind::Script),
                e("/b/hero.jpg", ResourceKind::Image),
                e("/b/v.mp4", ResourceKind::Media),
                e("/b/t.vtt", ResourceKind::Other),
                e("/b/a.ogg", ResourceKind::Media),
                e("/a.woff2", ResourceKind::Font),
            ]
        );
    }

    /// What a regular expression over the text got wrong: a `>` inside a
    /// quoted attribute value, a comment closed by `--!>`, markup inside a
    /// CDATA section of HTML content (a bogus comment up to the first `>`),
    /// character references in URLs, and `<template>` contents.
    #[test]
    fn prepass_tokenizes_like_the_parser() {
        let url = Url::parse("https://example.com/").unwrap();
        let html = r#"<img alt="a > b" src="/quoted.png">
            <!-- x --!><img src="/after-comment.png">
            <![CDATA[ x ]]><img src="/after-cdata.png">
            <img src="/a.png?x=1&amp;y=2">
            <template><img src="/inert.png"><style>@font-face { src: url(/inert.woff) }</style></template>
            <script>if (a < b) { x = "<img src='/in-script.png'>" }</script><img src="/last.png">"#;
        let got: Vec<String> = subresource_refs(html, &url)
            .into_iter()
            .map(|r| r.url.path().to_string() + r.url.query().map_or("", |_| "?q"))
            .collect();
        assert_eq!(
            got,
            [
                "/quoted.png",
                "/after-comment.png",
                "/after-cdata.png",
                "/a.png?q",
                "/last.png"
            ]
        );
        let amp = subresource_refs(r#"<img src="/a.png?x=1&amp;y=2">"#, &url);
        assert_eq!(amp[0].url.as_str(), "https://example.com/a.png?x=1&y=2");
    }

    #[test]
    fn font_face_urls_take_the_first_source() {
        let sheet = Url::parse("https://cdn.example/css/site.css").unwrap();
        let css = "/* @font-face { src: url(old.woff) } */
            @font-face { font-family: A; src: local(A), url('../fonts/a.woff2') format('woff2'); }
            @font-face { font-family: B; font-display: swap; src: url(data:font/woff2;base64,AAA) }
            @font-face { font-family: C; src:url(c.woff2) }";
        let got: Vec<String> = font_face_urls(css, &sheet)
            .into_iter()
            .map(|u| u.to_string())
            .collect();
        assert_eq!(
            got,
            vec![
                "https://cdn.example/fonts/a.woff2",
                "https://cdn.example/css/c.woff2"
            ]
        );
    }
}
