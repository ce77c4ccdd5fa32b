//! `duplicate-content`: no two pages carry exactly the same text.

use super::{report_duplicates, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails pages whose visible text is identical to another page's.
pub struct DuplicateContent;

static META: RuleMeta = RuleMeta {
    id: "duplicate-content",
    category: Category::Seo,
    title: "No exact duplicate pages",
    help: "Serve each piece of content at one URL: redirect or canonicalise the copies (parameters, trailing slashes, print versions).",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
    impact: Impact::Serious,
    docs: r#"## What it checks
Across the crawl, among indexable HTML pages that are their own canonical, no two
pages have the same SHA-256 hash of their visible body text (scripts, styles,
templates and `<noscript>` removed, white space folded). Pages without text are
skipped. Each page of a duplicate group fails, listing the others (seonaut's
`ERROR_DUPLICATED_CONTENT`). Near-identical pages are `near-duplicate-content`'s.

## Why it matters
Duplicate URLs split links and ranking signals between copies, waste crawl budget,
and let search engines pick which copy to show — often not the one you want.

## Failing
```html
<!-- /mugs -->
<h1>Hand-made mugs</h1> <p>Six glazes, fired in a wood kiln.</p>
<!-- /mugs?ref=nav -->
<h1>Hand-made mugs</h1> <p>Six glazes, fired in a wood kiln.</p>
```

## Passing
```html
<!-- /mugs -->
<h1>Hand-made mugs</h1> <p>Six glazes, fired in a wood kiln.</p>
<!-- /mugs?ref=nav -->
<link rel="canonical" href="https://example.com/mugs">
<h1>Hand-made mugs</h1> <p>Six glazes, fired in a wood kiln.</p>
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for DuplicateContent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_duplicates(site, out, "text content", |p| {
            (p.word_count > 0).then_some(p.text_hash)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn exact_copies_are_reported() {
        let input = site(vec![
            summary(
                "https://example.com/mugs",
                &doc("A", "<p>Hand made mugs.</p>"),
            ),
            summary(
                "https://example.com/mugs?ref=nav",
                &doc("B", "<p>Hand   made mugs.</p>"),
            ),
            summary(
                "https://example.com/bowls",
                &doc("C", "<p>Hand made bowls.</p>"),
            ),
            summary("https://example.com/empty1", &doc("D", "")),
            summary("https://example.com/empty2", &doc("E", "")),
        ]);
        let got = run(&DuplicateContent, &input);
        assert_eq!(
            got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
            vec![
                "https://example.com/mugs",
                "https://example.com/mugs?ref=nav"
            ]
        );
    }
}
