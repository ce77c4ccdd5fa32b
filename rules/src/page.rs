//! The fetched page as rules see it: what the crawler recorded on the wire.
//!
//! The parsed document is not stored here; [`crate::PageContext`] parses once and
//! owns the DOM for exactly as long as the rules of that page run.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::resources::{ResourceFacts, ResourceKind, Subresource};

/// One response header, name lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Lowercase header name.
    pub name: String,
    /// Raw value (lossily decoded as UTF-8).
    pub value: String,
}

/// One hop of a redirect chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// URL that answered with a redirect.
    pub url: String,
    /// Its status code (301, 302, 303, 307, 308).
    pub status: u16,
    /// The `Location` it pointed to, resolved.
    pub location: String,
}

/// A stylesheet that applies to the page, fetched by the engine: a linked one,
/// or one a linked sheet imports (`@import`), placed just before the sheet
/// that imports it, as CSS orders them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stylesheet {
    /// Where it came from.
    pub url: String,
    /// Its text, shared with the engine's per-scan sheet cache (the pages
    /// linking one sheet hold one copy of it).
    pub text: Arc<str>,
    /// The `media` attribute of the `<link>` that loaded it (or that loaded
    /// the sheet importing it), if any.
    pub media: Option<String>,
    /// For an imported sheet: the media query lists of the `@import` rules
    /// that brought it in, outermost first. It applies where all of these and
    /// [`Stylesheet::media`] hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub import_media: Vec<String>,
    /// For an imported sheet: the cascade layer an `@import … layer(…)` put
    /// it in, dotted; anonymous layers carry a name no author can write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// For an imported sheet: the cascade layers the sheets importing it
    /// declared (`@layer a, b;`) ahead of the `@import`, dotted. They come
    /// before the sheet's own layers in the page's layer order, which is
    /// fixed by first appearance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers_before: Vec<String>,
    /// For a sheet a `<style>` element imports: the element's
    /// [`crate::css::style_key`]. The cascade places the sheet just before
    /// that element's own rules; `None` for sheets of linked chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style_element: Option<u64>,
    /// For a sheet of a linked chain: how many of the page's `<style>`
    /// elements come before its `<link>` ([`crate::links::StylesheetRef`]).
    /// The cascade takes the page's sheets in document order.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub styles_before: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A stylesheet the page uses that the engine could not load: its styles
/// are computed without it, so what depends on the cascade may be wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingStylesheet {
    /// Its URL, resolved.
    pub url: String,
    /// Why it is missing: `HTTP 404`, a fetch error, `robots.txt disallows
    /// it`, `import nested deeper than 4`...
    pub reason: String,
    /// The server answered with a client error (`HTTP 404`, `410`...),
    /// which a browser loading the page gets too: the page renders without
    /// the sheet there as well, so the styles computed without it are the
    /// ones a browser shows. False when only the scan went without it (a
    /// fetch error, a server error, robots.txt, a limit).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub browser_too: bool,
}

impl MissingStylesheet {
    /// Why a sheet could not be had, from the status the server answered
    /// (`None`: no answer, or the scan's own refusal, named by `reason`).
    pub fn new(url: impl Into<String>, status: Option<u16>, reason: impl Into<String>) -> Self {
        MissingStylesheet {
            url: url.into(),
            reason: reason.into(),
            // 408 and 429 say "not now", which a browser may not meet.
            browser_too: status.is_some_and(|s| (400..500).contains(&s) && s != 408 && s != 429),
        }
    }
}

/// Everything the crawler learned about one URL, before parsing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Page {
    /// URL as requested (normalized).
    pub url: Url,
    /// URL after redirects.
    pub final_url: Url,
    /// Final HTTP status.
    pub status: u16,
    /// Response headers of the final response, names lowercased, in order.
    pub headers: Vec<Header>,
    /// Redirect hops before the final response.
    pub redirects: Vec<Hop>,
    /// Time to first byte of the final response, milliseconds.
    pub ttfb_ms: u64,
    /// Total time including the body, milliseconds.
    pub total_ms: u64,
    /// Bytes received on the wire for the body (compressed size when compressed).
    pub transfer_bytes: u64,
    /// `Content-Type` media type, lowercased, without parameters.
    pub content_type: Option<String>,
    /// HTTP version of the final response (`HTTP/1.1`, `HTTP/2`).
    pub http_version: String,
    /// Link depth from the start page (0 for the start page).
    pub depth: u32,
    /// The body decoded to text (HTML pages only; empty otherwise).
    pub body: String,
    /// Linked stylesheets the engine fetched for this page, in document order.
    pub stylesheets: Vec<Stylesheet>,
    /// Subresources the engine fetched for this page (once per scan, shared
    /// across pages), in document order, each URL once; empty when no selected
    /// rule needs them (see [`crate::resources`]).
    #[serde(default)]
    pub subresources: Vec<Subresource>,
    /// Linked stylesheets the engine did not fetch because the page links more
    /// than it fetches per page: the analysis reports them as an overrun of
    /// [`crate::PageBudget::max_stylesheets`] (the page is styled without them).
    #[serde(default)]
    pub stylesheets_skipped: usize,
    /// Stylesheets the page links or imports that could not be loaded, in
    /// the order met; rules built on the cascade say *cannot tell* where
    /// they could change the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stylesheets_missing: Vec<MissingStylesheet>,
    /// What the browser measured, in render mode ([`crate::rendered`]);
    /// `None` for a page read as served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendered: Option<std::sync::Arc<crate::rendered::RenderedFacts>>,
    /// Render mode's keyboard walk of the page (see [`crate::interaction`]);
    /// `None` in a static scan, where the rules built on it report nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interaction: Option<crate::interaction::Interaction>,
    /// Render mode's lab Web Vitals of the page (see [`crate::vitals`]);
    /// `None` in a static scan, where the rules built on them report nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vitals: Option<crate::vitals::WebVitals>,
}

impl Page {
    /// A 200 `text/html` page with the given body and no headers: for tests,
    /// examples and callers that already have the HTML in hand.
    ///
    /// # Panics
    /// Panics when `url` does not parse; meant for literals.
    pub fn from_html(url: &str, html: &str) -> Page {
        #[allow(clippy::expect_used)]
        let url = Url::parse(url).expect("Page::from_html takes a valid absolute URL");
        Page {
            final_url: url.clone(),
            url,
            status: 200,
            headers: vec![Header {
                name: "content-type".into(),
                value: "text/html; charset=utf-8".into(),
            }],
            redirects: Vec::new(),
            ttfb_ms: 0,
            total_ms: 0,
            transfer_bytes: html.len() as u64,
            content_type: Some("text/html".into()),
            http_version: "HTTP/1.1".into(),
            depth: 0,
            body: html.to_string(),
            stylesheets: Vec::new(),
            subresources: Vec::new(),
            stylesheets_skipped: 0,
            stylesheets_missing: Vec::new(),
            rendered: None,
            interaction: None,
            vitals: None,
        }
    }

    /// Adds a response header (builder style, for tests and fixtures).
    pub fn with_header(mut self, name: &str, value: &str) -> Page {
        self.headers.push(Header {
            name: name.to_ascii_lowercase(),
            value: value.to_string(),
        });
        self
    }

    /// Adds a fetched subresource (builder style, for tests and fixtures).
    pub fn with_subresource(mut self, url: &str, kind: ResourceKind, facts: ResourceFacts) -> Page {
        self.subresources.push(Subresource {
            url: url.to_string(),
            kind,
            facts,
        });
        self
    }

    /// The fetched subresource at this absolute URL, if the engine fetched it.
    pub fn subresource(&self, url: &str) -> Option<&Subresource> {
        self.subresources.iter().find(|s| s.url == url)
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// Every value of a header (e.g. `set-cookie`), in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// Whether the body is HTML that rules should parse.
    pub fn is_html(&self) -> bool {
        matches!(
            self.content_type.as_deref(),
            Some("text/html") | Some("application/xhtml+xml") | None
        ) && !self.body.is_empty()
    }
}
