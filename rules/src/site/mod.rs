//! Site-wide checks: rules that run once after the crawl over small per-page
//! summaries (never DOMs), such as duplicate titles or orphan pages.
//!
//! [`PageSummary`] is built per page while its DOM is alive; [`SiteIndex`] looks
//! pages up by URL; [`analyze_site`] runs site rules with the same panic isolation
//! as page rules. The rules themselves are one file each in this folder.

// Each rule of the category, in report order: its module (the file named for
// its id) and its type. Adding a rule is its file plus one line here.
crate::rule_modules! { site:
    duplicate_title::DuplicateTitle,
    duplicate_meta_description::DuplicateMetaDescription,
    duplicate_h1::DuplicateH1,
    duplicate_content::DuplicateContent,
    near_duplicate_content::NearDuplicateContent,
    orphan_page::OrphanPage,
    hreflang_return_links::HreflangReturnLinks,
    canonical_target::CanonicalTarget,
    sitemap_non_indexable::SitemapNonIndexable,
    http_on_https_site::HttpOnHttpsSite,
    unreachable_page::UnreachablePage,
    robots_txt::RobotsTxt,
    sitemap_valid::SitemapValid,
    tls_certificate::TlsCertificate,
    tls_version::TlsVersion,
    cors_reflected_origin::CorsReflectedOrigin,
    redirects_http::RedirectsHttp,
    broken_links::BrokenLinks,
    broken_resources::BrokenResources,
}

pub mod facts;

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::context::{Finding, Occurrence, Outcome, RuleTally};
use crate::dom;
use crate::meta::RuleMeta;
use crate::PageContext;

pub use facts::{
    inside_sitemap_scope, CertInfo, ChainTrust, CorsProbe, HttpProbe, RobotsFacts, SearchAccess,
    SitemapFile, SitemapSource, TlsFacts,
};

/// What site rules need to know about one page; built while its DOM is alive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageSummary {
    /// URL as requested. Shared: the crawl keeps one copy of each URL for the
    /// summaries that name it (as a page or as a link).
    pub url: Arc<str>,
    /// URL after redirects; the same shared string as `url` when there were none.
    pub final_url: Arc<str>,
    /// HTTP status.
    pub status: u16,
    /// Link depth from the start page.
    pub depth: u32,
    /// Whether the body was HTML.
    pub html: bool,
    /// Fingerprint of the `<title>` text as `duplicate-title` compares it (see
    /// [`TextKey`]); `None` without a non-empty title.
    #[serde(default)]
    pub title_key: Option<TextKey>,
    /// Fingerprint of the `<meta name=description>` content as
    /// `duplicate-meta-description` compares it; `None` without a non-empty one.
    #[serde(default)]
    pub meta_description_key: Option<TextKey>,
    /// Fingerprint of the first `<h1>`'s text as `duplicate-h1` compares it;
    /// `None` without a non-empty first `<h1>`.
    #[serde(default)]
    pub h1_key: Option<TextKey>,
    /// `<link rel=canonical>` href, resolved. Shared like `url` (most pages name
    /// themselves).
    pub canonical: Option<Arc<str>>,
    /// Whether a meta robots tag or `X-Robots-Tag` says `noindex`.
    pub noindex: bool,
    /// Absolute URLs of `<a href>` links on the page (fragment removed), in order.
    /// Shared strings: the scan keeps one copy of each URL for all the pages that
    /// link to it (the engine interns them; most links repeat navigation).
    pub links: Vec<Arc<str>>,
    /// Count of words of visible body text.
    pub word_count: u32,
    /// SHA-256 of the folded body text, for exact duplicates; hex on the wire (as
    /// when it was a `String`), 32 bytes in memory rather than a 64-byte string
    /// allocated per page.
    #[serde(with = "hex_digest")]
    pub text_hash: [u8; 32],
    /// MinHash signature of the body text's word 3-shingles, for near-duplicates
    /// (see [`crate::support::text::minhash`]); empty for very short texts.
    #[serde(default)]
    pub minhash: Vec<crate::support::text::MinHashValue>,
    /// Why the fetch ended without an answer to analyse (timeout, redirect loop,
    /// connection failure), as the report's `pages[].error` says it; `None` when
    /// the URL answered.
    #[serde(default)]
    pub fetch_error: Option<String>,
    /// `<html lang>` (else `xml:lang`), trimmed. Shared: a site's pages mostly
    /// declare one language, and the crawl keeps one copy of it.
    #[serde(default)]
    pub lang: Option<Arc<str>>,
    /// Hreflang alternates (HTML and `Link` header), URLs resolved.
    #[serde(default)]
    pub hreflang: Vec<HreflangLink>,
    /// The page's security score on the Observatory scale (HTML pages only).
    #[serde(default)]
    pub security_score: Option<u32>,
    /// What the site grade needs of the Observatory test results behind
    /// `security_score`, so it can apply site facts (an invalid certificate, a
    /// reflected `Origin`) to them; `None` when the page was not scored.
    #[serde(default)]
    pub security_tests: Option<crate::security::grade::KeptResults>,
    /// Absolute `http(s)` URLs of the subresources the page loads (`<img>`,
    /// `<script>`, stylesheet and icon `<link>`, `<iframe>`, `<video>`, `<audio>`,
    /// `<source>`, `<track>`), fragment removed, each once, in document order.
    /// Shared strings, as [`Self::links`].
    #[serde(default)]
    pub resources: Vec<Arc<str>>,
}

/// (De)serializes a digest of any length as a lowercase hex string, the wire form
/// of [`PageSummary::text_hash`] and [`TextKey`].
mod hex_digest {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer, const N: usize>(
        digest: &[u8; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(digest))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let mut digest = [0u8; N];
        hex::decode_to_slice(text.as_bytes(), &mut digest).map_err(D::Error::custom)?;
        Ok(digest)
    }
}

/// A fingerprint of a short text (a title, a description, a heading) for telling
/// pages with equal texts apart from the others: the first 128 bits of the
/// text's SHA-256.
///
/// Site rules compare such texts across every page of a scan, so each page's
/// summary keeps them until the crawl ends. Kept as strings they were a good
/// part of a summary's memory (a description alone is often 150 bytes); the
/// duplicate rules only ever ask whether two texts are equal, and their messages
/// name the other pages, not the text. Two different texts get the same key with
/// probability about 2⁻¹²⁸ per pair: never, in practice, on any site.
///
/// Hex on the wire, as [`PageSummary::text_hash`].
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct TextKey(#[serde(with = "hex_digest")] [u8; 16]);

impl TextKey {
    /// The key of `text`, exactly as given (fold it first).
    pub fn of(text: &str) -> TextKey {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(text.as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        TextKey(key)
    }
}

/// What checking one URL over the network found (filled in by the engine for the
/// link rules; see `engine::checks::links`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinkStatus {
    /// Answered with an accepted status (after redirects).
    Ok {
        /// Final status.
        status: u16,
    },
    /// Answered with a status outside the accepted ones (4xx, 5xx).
    Broken {
        /// Final status.
        status: u16,
    },
    /// The server answered 429 Too Many Requests even after waiting: not known
    /// to be broken.
    RateLimited,
    /// No answer: DNS failure, refused connection, timeout, TLS error, redirect
    /// loop.
    Unreachable {
        /// What went wrong.
        reason: String,
    },
    /// Not checked on purpose (a private address the scan may not contact, or the
    /// check budget was spent).
    Skipped {
        /// Why.
        reason: String,
    },
}

/// One hreflang alternate of a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HreflangLink {
    /// The language code as written (`en-GB`, `x-default`).
    pub lang: String,
    /// The alternate's URL, resolved against the page (fragment removed).
    pub url: String,
}

impl PageSummary {
    /// Whether search engines may index the page: HTML, 2xx, not noindex.
    pub fn indexable(&self) -> bool {
        self.html && (200..300).contains(&self.status) && !self.noindex
    }

    /// Whether the page declares itself canonical (or declares no canonical).
    pub fn self_canonical(&self) -> bool {
        self.canonical
            .as_deref()
            .is_none_or(|c| same_url(c, &self.final_url))
    }
}

/// Whether two URL strings name the same resource (parsed, fragment dropped).
pub fn same_url(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        url::Url::parse(s).ok().map(|mut u| {
            u.set_fragment(None);
            u.to_string()
        })
    };
    match (norm(a), norm(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Pages of a site looked up by requested or final URL.
pub struct SiteIndex<'s> {
    /// Keys borrow the summaries' own URL strings where they are already in
    /// normal form (see [`key`]).
    by_url: std::collections::HashMap<Cow<'s, str>, &'s PageSummary>,
}

impl<'s> SiteIndex<'s> {
    /// Indexes every page by its requested and its final URL.
    pub fn new(site: &'s SiteInput) -> SiteIndex<'s> {
        let mut by_url = std::collections::HashMap::new();
        for p in &site.pages {
            for u in [&p.final_url, &p.url] {
                if let Some(k) = key(u) {
                    by_url.entry(k).or_insert(p);
                }
            }
        }
        SiteIndex { by_url }
    }

    /// The page fetched at (or redirected to) this URL.
    pub fn get(&self, url: &str) -> Option<&'s PageSummary> {
        key(url).and_then(|k| self.by_url.get(&*k).copied())
    }
}

/// The URL without its fragment, as the parser writes it: how site rules compare
/// page URLs.
fn key(u: &str) -> Option<Cow<'_, str>> {
    url::Url::parse(u).ok().map(|mut url| {
        url.set_fragment(None);
        // Most URLs are written the way the parser writes them: keep the page's
        // own string rather than a copy per page.
        if url.as_str() == u {
            Cow::Borrowed(u)
        } else {
            Cow::Owned(url.into())
        }
    })
}

/// Runs site rules over a crawl; a rule that panics is reported, not fatal.
pub fn analyze_site(
    site: &SiteInput,
    rules: &[&'static dyn SiteRule],
) -> (Vec<RuleTally>, Vec<Finding>, Vec<crate::RuleError>) {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let (mut tallies, mut findings, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for rule in rules {
        let mut check = SiteCheck::new(rule.meta());
        match catch_unwind(AssertUnwindSafe(|| rule.check_site(site, &mut check))) {
            Ok(()) => {
                let (t, f) = check.finish();
                tallies.push(t);
                findings.extend(f);
            }
            Err(panic) => errors.push(crate::RuleError {
                rule_id: rule.meta().id.to_string(),
                message: crate::panic_message(&*panic)
                    .unwrap_or("rule panicked")
                    .to_string(),
            }),
        }
    }
    (tallies, findings, errors)
}

/// The `<a href>` links of a page as [`PageSummary::links`] lists them: the
/// element and its absolute `http(s)` URL without fragment, in document order,
/// up to the page budget's `max_links` (see `links::extract`).
fn anchor_links<'a>(
    cx: &'a PageContext<'_>,
) -> impl Iterator<Item = (scraper::ElementRef<'a>, url::Url)> + 'a {
    let base = &cx.page().final_url;
    let anchors = scraper::Selector::parse("a[href]").ok();
    anchors
        .into_iter()
        .flat_map(move |s| cx.doc().select(&s).collect::<Vec<_>>())
        .filter_map(move |a| {
            let mut u = base.join(a.value().attr("href")?.trim()).ok()?;
            if !matches!(u.scheme(), "http" | "https") {
                return None;
            }
            u.set_fragment(None);
            Some((a, u))
        })
        .take(cx.budget().max_links)
}

/// Longest link text kept in an [`Occurrence`], in characters.
pub const LINK_TEXT_MAX_CHARS: usize = 120;

/// Where each link of [`PageSummary::links`] is, in the same order: the page,
/// a unique selector, a snippet and the link's text (its visible text, else
/// its `aria-label` or `title`, else the `alt` of an image inside). Built while
/// the DOM is alive, for findings that point a person at the link (one
/// `broken-links` finding lists every place its target is linked from).
pub fn link_places(cx: &PageContext<'_>) -> Vec<Occurrence> {
    let page_url = cx.page().final_url.to_string();
    anchor_links(cx)
        .map(|(a, _)| {
            let selector = cx.selector_of(a);
            let mut text = dom::truncate_chars(&dom::normalized_text(a), LINK_TEXT_MAX_CHARS);
            if text.is_empty() {
                let label = ["aria-label", "title"]
                    .iter()
                    .find_map(|n| a.value().attr(n).map(str::trim).filter(|t| !t.is_empty()))
                    .or_else(|| {
                        a.descendants()
                            .filter_map(scraper::ElementRef::wrap)
                            .find(|e| e.value().name() == "img")
                            .and_then(|img| img.value().attr("alt"))
                            .map(str::trim)
                            .filter(|t| !t.is_empty())
                    });
                text = label
                    .map(|l| dom::truncate_chars(l, LINK_TEXT_MAX_CHARS))
                    .unwrap_or_default();
            }
            Occurrence {
                page_url: page_url.clone(),
                selector,
                snippet: dom::snippet(a),
                text: (!text.is_empty()).then_some(text),
            }
        })
        .collect()
}

impl PageSummary {
    /// Builds the summary of a parsed page.
    pub fn of(cx: &PageContext<'_>) -> PageSummary {
        use scraper::Selector;
        use sha2::{Digest, Sha256};

        let page = cx.page();
        let base = &page.final_url;
        let sel = |s: &str| Selector::parse(s).ok();
        let doc = cx.doc();

        let title_key = sel("title")
            .and_then(|s| doc.select(&s).next().map(dom::normalized_text))
            .and_then(|t| duplicate_title::fold(&t))
            .map(|t| TextKey::of(&t));
        let meta_description_key = sel("meta[name]")
            .and_then(|s| {
                doc.select(&s)
                    .find(|m| {
                        m.value()
                            .attr("name")
                            .is_some_and(|n| n.eq_ignore_ascii_case("description"))
                    })
                    .and_then(|m| m.value().attr("content"))
                    .and_then(duplicate_meta_description::fold)
            })
            .map(|d| TextKey::of(&d));
        let h1_key = sel("h1")
            .and_then(|s| doc.select(&s).next().map(dom::normalized_text))
            .and_then(|h| duplicate_h1::fold(&h))
            .map(|h| TextKey::of(&h));
        let canonical = sel("link[rel][href]").and_then(|s| {
            doc.select(&s)
                .find(|l| {
                    l.value().attr("rel").is_some_and(|r| {
                        r.split_ascii_whitespace()
                            .any(|t| t.eq_ignore_ascii_case("canonical"))
                    })
                })
                .and_then(|l| l.value().attr("href"))
                .and_then(|h| base.join(h.trim()).ok())
                .map(|u| Arc::from(u.as_str()))
        });
        let meta_noindex = sel("meta[name][content]").is_some_and(|s| {
            doc.select(&s).any(|m| {
                m.value().attr("name").is_some_and(|n| {
                    n.eq_ignore_ascii_case("robots") || n.eq_ignore_ascii_case("googlebot")
                }) && m.value().attr("content").is_some_and(|c| {
                    c.to_ascii_lowercase()
                        .split(',')
                        .any(|t| matches!(t.trim(), "noindex" | "none"))
                })
            })
        });
        let header_noindex = page.header_all("x-robots-tag").any(|v| {
            v.to_ascii_lowercase()
                .split(',')
                .any(|t| matches!(t.trim(), "noindex" | "none"))
        });
        let mut links: Vec<Arc<str>> = anchor_links(cx)
            .map(|(_, u)| Arc::from(u.as_str()))
            .collect();
        // Summaries stay until the crawl ends: no spare capacity (collected
        // through a filter, the vector grew by doubling).
        links.shrink_to_fit();
        let body_text = cx.body_text();
        let word_count = body_text.split_whitespace().count() as u32;
        let text_hash: [u8; 32] = Sha256::digest(body_text.as_bytes()).into();
        let minhash = crate::support::text::minhash(body_text);
        let lang = cx
            .root()
            .value()
            .attr("lang")
            .or_else(|| cx.root().value().attr("xml:lang"))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(Arc::from);
        let hreflang = crate::seo::hreflang::alternates(cx)
            .into_iter()
            .filter_map(|(lang, href)| {
                let mut u = base.join(&href).ok()?;
                u.set_fragment(None);
                Some(HreflangLink {
                    lang,
                    url: u.to_string(),
                })
            })
            .collect();
        let security = page
            .is_html()
            .then(|| crate::security::grade::page_score(cx));
        let security_score = security.as_ref().map(|s| s.score);
        let security_tests = security
            .as_ref()
            .map(|s| crate::security::grade::KeptResults::of(&s.tests));
        let mut resources: Vec<Arc<str>> = Vec::new();
        if let Some(s) = sel("img[src], script[src], link[href], iframe[src], video[src], audio[src], source[src], track[src]") {
            for el in doc.select(&s) {
                let v = el.value();
                let raw = if v.name() == "link" {
                    let fetched = v.attr("rel").is_some_and(|r| {
                        r.split_ascii_whitespace().any(|t| {
                            ["stylesheet", "icon", "preload", "modulepreload", "manifest"]
                                .iter()
                                .any(|k| t.eq_ignore_ascii_case(k))
                        })
                    });
                    if !fetched {
                        continue;
                    }
                    v.attr("href")
                } else {
                    v.attr("src")
                };
                let Some(mut u) = raw.and_then(|r| base.join(r.trim()).ok()) else {
                    continue;
                };
                if !matches!(u.scheme(), "http" | "https") {
                    continue;
                }
                u.set_fragment(None);
                if !resources.iter().any(|r| **r == *u.as_str()) {
                    resources.push(Arc::from(u.as_str()));
                }
            }
        }

        resources.shrink_to_fit();

        let url: Arc<str> = Arc::from(page.url.as_str());
        let final_url = if page.final_url == page.url {
            Arc::clone(&url)
        } else {
            Arc::from(page.final_url.as_str())
        };
        PageSummary {
            url,
            final_url,
            status: page.status,
            depth: page.depth,
            html: page.is_html(),
            title_key,
            meta_description_key,
            h1_key,
            canonical,
            noindex: meta_noindex || header_noindex,
            links,
            word_count,
            text_hash,
            minhash,
            fetch_error: None,
            lang,
            hreflang,
            security_score,
            security_tests,
            resources,
        }
    }
}

/// Text of an element without `<script>`, `<style>`, `<template>` and `<noscript>`,
/// white space folded.
pub fn visible_text(el: scraper::ElementRef<'_>) -> String {
    let mut out = String::new();
    for (_, text) in dom::rendered_text_nodes(el) {
        for word in text.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// What a site rule is given: every page's summary plus crawl facts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SiteInput {
    /// The start URL of the scan.
    pub start_url: String,
    /// One summary per fetched page, in crawl order.
    pub pages: Vec<PageSummary>,
    /// URLs listed in the site's sitemaps.
    pub sitemap_urls: Vec<String>,
    /// Network status of link and resource URLs (fragment removed), for the
    /// `broken-links` and `broken-resources` rules; empty when nothing was checked.
    /// The scan leaves out URLs it did not check ([`LinkStatus::Skipped`]: the
    /// rules pass over them, and the report's notes and `stats.skipped.links`
    /// count them), so a URL missing here was not checked.
    #[serde(default)]
    pub link_status: std::collections::BTreeMap<String, LinkStatus>,
    /// Where the links to each failing target are ([`link_places`]), in page
    /// order, at most [`crate::MAX_OCCURRENCES`] per target; the engine fills it
    /// for the targets `link_status` says are broken, unreachable or rate
    /// limited. A target missing here is reported by page only.
    #[serde(default)]
    pub link_places: std::collections::BTreeMap<String, Vec<Occurrence>>,
    /// robots.txt of the site's origin (fetched for these facts even when the
    /// crawl ignores robots.txt); `None` when it was not fetched.
    #[serde(default)]
    pub robots: Option<RobotsFacts>,
    /// Every sitemap file the scan fetched or tried to, in the order found.
    #[serde(default)]
    pub sitemaps: Vec<SitemapFile>,
    /// The TLS handshake with the site's https origin; `None` for an http site
    /// or when no security rule that needs it was selected.
    #[serde(default)]
    pub tls: Option<TlsFacts>,
    /// The start page fetched once more with a foreign `Origin` header; `None`
    /// when not sent.
    #[serde(default)]
    pub cors_probe: Option<CorsProbe>,
    /// The first answer of the `http:` twin of an HTTPS start page on the default
    /// port, when `redirects-http` is selected and the scan started from `https:`.
    #[serde(default)]
    pub http_probe: Option<HttpProbe>,
}

/// A check over the whole site, run once after the crawl.
pub trait SiteRule: Send + Sync + 'static {
    /// The rule's static metadata.
    fn meta(&self) -> &'static RuleMeta;
    /// Runs the check.
    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck);
}

/// The recorder of one site rule.
pub struct SiteCheck {
    meta: &'static RuleMeta,
    tally: RuleTally,
    findings: Vec<Finding>,
    /// Whether the rule counted pages with [`SiteCheck::count`].
    counts_pages: bool,
}

impl SiteCheck {
    /// A recorder for the rule with this metadata.
    pub fn new(meta: &'static RuleMeta) -> SiteCheck {
        SiteCheck {
            meta,
            tally: RuleTally {
                rule_id: meta.id.to_string(),
                ..RuleTally::default()
            },
            findings: Vec::new(),
            counts_pages: false,
        }
    }

    /// Whether the tally counts pages ([`SiteCheck::count`]): then it is the
    /// rule's page applicability as it stands, not a count of other items.
    pub fn counts_pages(&self) -> bool {
        self.counts_pages
    }

    /// Records a page (or item) that passed.
    pub fn pass(&mut self) {
        self.tally.passed += 1;
    }

    /// Records a failure attributed to a page, with a snippet and data.
    pub fn fail_with(
        &mut self,
        page_url: &str,
        message: impl Into<String>,
        data: serde_json::Value,
    ) -> &mut Finding {
        self.fail(page_url, message).with_data(data)
    }

    /// Counts one item (a page, for rules that judge pages but report
    /// findings grouped otherwise) without a finding.
    pub fn count(&mut self, outcome: Outcome) {
        self.counts_pages = true;
        match outcome {
            Outcome::Passed => self.tally.passed += 1,
            Outcome::Failed => self.tally.failed += 1,
            Outcome::CantTell => self.tally.cant_tell += 1,
        }
    }

    /// Records a finding without counting it: for rules whose findings stand
    /// for something else than the items they count (see [`Self::count`]).
    pub fn report(
        &mut self,
        outcome: Outcome,
        page_url: &str,
        message: impl Into<String>,
    ) -> &mut Finding {
        self.push(outcome, page_url, message.into())
    }

    /// Records an item that needs a person's review, attributed to a page.
    pub fn cant_tell(&mut self, page_url: &str, message: impl Into<String>) -> &mut Finding {
        self.tally.cant_tell += 1;
        self.push(Outcome::CantTell, page_url, message.into())
    }

    /// Records a failure attributed to a page.
    pub fn fail(&mut self, page_url: &str, message: impl Into<String>) -> &mut Finding {
        self.tally.failed += 1;
        self.push(Outcome::Failed, page_url, message.into())
    }

    fn push(&mut self, outcome: Outcome, page_url: &str, message: String) -> &mut Finding {
        self.findings.push(Finding {
            rule_id: self.meta.id.to_string(),
            category: self.meta.category,
            outcome,
            impact: self.meta.impact,
            page_url: page_url.to_string(),
            selector: String::new(),
            snippet: String::new(),
            message,
            wcag: self.meta.wcag.iter().map(|s| s.to_string()).collect(),
            data: None,
            baseline: None,
            occurrences: Vec::new(),
            occurrences_total: None,
            scope: self.meta.scope,
            resource: None,
            mark: None,
            screenshot: None,
        });
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }

    /// The tally and findings recorded.
    pub fn finish(self) -> (RuleTally, Vec<Finding>) {
        (self.tally, self.findings)
    }
}

/// Pages that take part in duplicate checks: indexable HTML pages that are their
/// own canonical (a page canonicalised elsewhere is a declared duplicate), each
/// final URL once (two requested URLs that redirect to the same page are one page).
pub(crate) fn duplicate_candidates(site: &SiteInput) -> impl Iterator<Item = &PageSummary> {
    let mut seen = std::collections::HashSet::new();
    site.pages
        .iter()
        .filter(|p| p.indexable() && p.self_canonical())
        .filter(move |p| seen.insert(key(&p.final_url).unwrap_or(Cow::Borrowed(&p.final_url))))
}

/// Reports every page whose `key` (when `Some`) is shared with another candidate
/// page; passes the others. `what` names the key in messages ("title").
pub(crate) fn report_duplicates<K: std::hash::Hash + Eq>(
    site: &SiteInput,
    out: &mut SiteCheck,
    what: &str,
    key: impl Fn(&PageSummary) -> Option<K>,
) {
    // Pages by key, and each candidate page with its group, in page order.
    let mut group_of: std::collections::HashMap<K, usize> = std::collections::HashMap::new();
    let mut groups: Vec<Vec<&PageSummary>> = Vec::new();
    let mut order: Vec<(usize, &PageSummary)> = Vec::new();
    for p in duplicate_candidates(site) {
        if let Some(k) = key(p) {
            let g = *group_of.entry(k).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(p);
            order.push((g, p));
        }
    }
    drop(group_of);
    for (g, p) in order {
        let group = &groups[g];
        if group.len() < 2 {
            out.pass();
            continue;
        }
        let others: Vec<&str> = group
            .iter()
            .filter(|o| o.final_url != p.final_url)
            .map(|o| &*o.final_url)
            .collect();
        out.fail_with(
            &p.final_url,
            format!(
                "The {what} is the same on {} other page(s): {}.",
                others.len(),
                others.join(", ")
            ),
            serde_json::json!({ "duplicates": others }),
        );
    }
}

/// Reports, for every page, each URL of `urls` whose network status is known:
/// broken or unreachable fail, rate limited needs review, OK passes, skipped and
/// unchecked URLs are left out. `what` names the URLs in messages ("link to").
pub(crate) fn report_link_statuses(
    site: &SiteInput,
    out: &mut SiteCheck,
    what: &str,
    urls: impl Fn(&PageSummary) -> &[Arc<str>],
) {
    let mut seen_pages = std::collections::HashSet::new();
    for p in &site.pages {
        if !seen_pages.insert(&*p.final_url) {
            continue;
        }
        for u in urls(p) {
            match site.link_status.get(&**u) {
                None | Some(LinkStatus::Skipped { .. }) => {}
                Some(LinkStatus::Ok { .. }) => out.pass(),
                Some(LinkStatus::Broken { status }) => {
                    out.fail_with(
                        &p.final_url,
                        format!("The {what} {u} is broken: it answers {status}."),
                        serde_json::json!({"url": u, "status": status}),
                    );
                }
                Some(LinkStatus::Unreachable { reason }) => {
                    out.fail_with(
                        &p.final_url,
                        format!("The {what} {u} cannot be reached: {reason}."),
                        serde_json::json!({"url": u, "error": reason}),
                    );
                }
                Some(LinkStatus::RateLimited) => {
                    out.cant_tell(
                        &p.final_url,
                        format!("The {what} {u} could not be checked: the server rate limited the scan (429)."),
                    )
                    .with_data(serde_json::json!({"url": u, "status": 429}));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::summary;
    use super::PageSummary;

    /// A summary travels between processes (fleet workers) as JSON: the text hash
    /// stays a hex string there, and everything comes back equal.
    #[test]
    fn summaries_round_trip_with_a_hex_text_hash() {
        let s = summary(
            "https://example.com/a",
            "<html><head><title>A</title></head><body><h1>A</h1><p>Some text here.</p><a href=/b>b</a></body></html>",
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(
            json["text_hash"].as_str(),
            Some(hex::encode(s.text_hash).as_str())
        );
        assert_eq!(json["text_hash"].as_str().map(str::len), Some(64));
        // The duplicate rules' fingerprints: 128 bits, hex too.
        assert_eq!(s.title_key, Some(super::TextKey::of("a")));
        assert_eq!(json["title_key"].as_str().map(str::len), Some(32));
        assert_eq!(s.h1_key, Some(super::TextKey::of("a")));
        assert_eq!(json["meta_description_key"], serde_json::Value::Null);
        let back: PageSummary = serde_json::from_value(json).unwrap();
        assert_eq!(back, s);
        assert!(s.security_tests.is_some());
        let mut bad = serde_json::to_value(&s).unwrap();
        bad["text_hash"] = "not hex".into();
        assert!(serde_json::from_value::<PageSummary>(bad).is_err());
        let mut bad = serde_json::to_value(&s).unwrap();
        bad["title_key"] = "abcd".into();
        assert!(serde_json::from_value::<PageSummary>(bad).is_err());
    }

    #[test]
    fn text_keys_tell_texts_apart() {
        use super::TextKey;
        assert_eq!(TextKey::of("hand-made mugs"), TextKey::of("hand-made mugs"));
        assert_ne!(
            TextKey::of("hand-made mugs"),
            TextKey::of("hand-made bowls")
        );
        assert_ne!(TextKey::of(""), TextKey::of(" "));
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Builds site inputs from HTML for the site rules' tests.

    use super::{PageSummary, SiteInput};
    use crate::{Page, PageContext};

    /// A summary of `html` served at `url` (200, depth 0).
    pub(crate) fn summary(url: &str, html: &str) -> PageSummary {
        let page = Page::from_html(url, html);
        PageSummary::of(&PageContext::parse(&page))
    }

    /// A site of pages at `https://example.com/…`.
    pub(crate) fn site(pages: Vec<PageSummary>) -> SiteInput {
        SiteInput {
            start_url: "https://example.com/".into(),
            pages,
            sitemap_urls: Vec::new(),
            ..SiteInput::default()
        }
    }

    /// Runs one site rule and returns `(page_url, message)` of each finding.
    pub(crate) fn run(
        rule: &'static dyn super::SiteRule,
        input: &SiteInput,
    ) -> Vec<(String, String)> {
        let (_, findings, errors) = super::analyze_site(input, &[rule]);
        assert!(errors.is_empty(), "{errors:?}");
        findings
            .into_iter()
            .map(|f| (f.page_url, f.message))
            .collect()
    }

    /// A page with a given title, description and h1.
    pub(crate) fn doc(title: &str, body: &str) -> String {
        format!("<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>{body}</body></html>")
    }
}
