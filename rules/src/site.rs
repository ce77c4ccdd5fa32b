//! Site-wide checks: rules that run once after the crawl over small per-page
//! summaries (never DOMs), such as duplicate titles or orphan pages.

use serde::{Deserialize, Serialize};

use crate::context::{Finding, Outcome, RuleTally};
use crate::dom;
use crate::meta::RuleMeta;
use crate::PageContext;

/// What site rules need to know about one page; built while its DOM is alive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageSummary {
    /// URL as requested.
    pub url: String,
    /// URL after redirects.
    pub final_url: String,
    /// HTTP status.
    pub status: u16,
    /// Link depth from the start page.
    pub depth: u32,
    /// Whether the body was HTML.
    pub html: bool,
    /// `<title>` text, folded.
    pub title: Option<String>,
    /// `<meta name=description>` content.
    pub meta_description: Option<String>,
    /// Text of each `<h1>`.
    pub h1: Vec<String>,
    /// `<link rel=canonical>` href, resolved.
    pub canonical: Option<String>,
    /// Whether a meta robots tag or `X-Robots-Tag` says `noindex`.
    pub noindex: bool,
    /// Absolute URLs of `<a href>` links on the page (fragment removed), in order.
    pub links: Vec<String>,
    /// Count of words of visible body text.
    pub word_count: u32,
    /// SHA-256 (hex) of the folded body text, for exact duplicates.
    pub text_hash: String,
}

impl PageSummary {
    /// Builds the summary of a parsed page.
    pub fn of(cx: &PageContext<'_>) -> PageSummary {
        use scraper::{ElementRef, Selector};
        use sha2::{Digest, Sha256};

        let page = cx.page();
        let base = &page.final_url;
        let sel = |s: &str| Selector::parse(s).ok();
        let doc = cx.doc();

        let title = sel("title").and_then(|s| doc.select(&s).next().map(dom::normalized_text));
        let meta_description = sel("meta[name]").and_then(|s| {
            doc.select(&s)
                .find(|m| {
                    m.value()
                        .attr("name")
                        .is_some_and(|n| n.eq_ignore_ascii_case("description"))
                })
                .and_then(|m| m.value().attr("content").map(|c| c.trim().to_string()))
        });
        let h1 = sel("h1")
            .map(|s| doc.select(&s).map(dom::normalized_text).collect())
            .unwrap_or_default();
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
                .map(|u| u.to_string())
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
        let links = sel("a[href]")
            .map(|s| {
                doc.select(&s)
                    .filter_map(|a| a.value().attr("href"))
                    .filter_map(|h| base.join(h.trim()).ok())
                    .filter(|u| matches!(u.scheme(), "http" | "https"))
                    .map(|mut u| {
                        u.set_fragment(None);
                        u.to_string()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let body_text = sel("body")
            .and_then(|s| doc.select(&s).next())
            .map(|b: ElementRef<'_>| visible_text(b))
            .unwrap_or_default();
        let word_count = body_text.split_whitespace().count() as u32;
        let text_hash = hex::encode(Sha256::digest(body_text.as_bytes()));

        PageSummary {
            url: page.url.to_string(),
            final_url: page.final_url.to_string(),
            status: page.status,
            depth: page.depth,
            html: page.is_html(),
            title,
            meta_description,
            h1,
            canonical,
            noindex: meta_noindex || header_noindex,
            links,
            word_count,
            text_hash,
        }
    }
}

/// Text of an element without `<script>`, `<style>`, `<template>` and `<noscript>`,
/// white space folded.
pub fn visible_text(el: scraper::ElementRef<'_>) -> String {
    let mut out = String::new();
    for node in el.descendants() {
        if let Some(text) = node.value().as_text() {
            let hidden = node.ancestors().any(|a| {
                a.value().as_element().is_some_and(|e| {
                    matches!(e.name(), "script" | "style" | "template" | "noscript")
                })
            });
            if hidden {
                continue;
            }
            for word in text.split_whitespace() {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
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
        }
    }

    /// Records a page (or item) that passed.
    pub fn pass(&mut self) {
        self.tally.passed += 1;
    }

    /// Records a failure attributed to a page.
    pub fn fail(&mut self, page_url: &str, message: impl Into<String>) -> &mut Finding {
        self.tally.failed += 1;
        self.findings.push(Finding {
            rule_id: self.meta.id.to_string(),
            category: self.meta.category,
            outcome: Outcome::Failed,
            impact: self.meta.impact,
            page_url: page_url.to_string(),
            selector: String::new(),
            snippet: String::new(),
            message: message.into(),
            wcag: self.meta.wcag.iter().map(|s| s.to_string()).collect(),
            data: None,
            baseline: None,
        });
        let last = self.findings.len() - 1;
        &mut self.findings[last]
    }

    /// The tally and findings recorded.
    pub fn finish(self) -> (RuleTally, Vec<Finding>) {
        (self.tally, self.findings)
    }
}
