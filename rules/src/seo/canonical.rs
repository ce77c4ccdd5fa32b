//! `canonical`: one valid, absolute canonical URL, consistent between HTML and HTTP.

use crate::support::{has_rel, in_head, link_header, select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `<link rel="canonical">` and the `Link: …; rel="canonical"` header.
pub struct Canonical;

static META: RuleMeta = RuleMeta {
    id: "canonical",
    category: Category::Seo,
    title: "Page declares one valid canonical URL",
    help: "Add one <link rel=\"canonical\" href=\"https://…\"> in <head> with an absolute URL, and keep any Link header in agreement.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
    impact: Impact::Moderate,
    docs: r#"## What it checks
On HTML pages (2xx), the canonical URL declared by `<link rel="canonical">` and by
the `Link` response header:

- at least one is present (missing fails);
- the HTML has at most one canonical link, and it sits in `<head>` (search engines
  ignore one in `<body>`);
- the `href` is an absolute `http(s)` URL (relative canonicals fail, seonaut's
  `ERROR_RELATIVE_CANONICAL_URL`) that parses;
- the HTML and the header name the same URL (seonaut's `ERROR_CANONICAL_MISMATCH`).

Where the canonical points (a redirect, an error, a noindex page) is checked across
the site by `canonical-target`.

## Why it matters
Canonicals tell search engines which of several URLs with the same content to index
and rank. Conflicting or broken ones are ignored, so duplicate URLs compete with each
other.

## Failing
```html
<head><link rel="canonical" href="/mugs"></head>
```

## Passing
```html
<!-- https://example.com/mugs -->
<head><link rel="canonical" href="https://example.com/mugs"></head>
```
"#,
    ..RuleMeta::BASE
};

fn is_absolute_http(href: &str) -> bool {
    url::Url::parse(href.trim()).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
}

impl Rule for Canonical {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let html: Vec<_> = select(pcx, selector!("link[rel][href]"))
            .filter(|l| has_rel(*l, "canonical"))
            .collect();
        let header: Vec<String> = link_header(page)
            .into_iter()
            .filter(|l| l.rel.iter().any(|r| r == "canonical"))
            .map(|l| l.target)
            .collect();
        if html.is_empty() && header.is_empty() {
            cx.fail_page("The page declares no canonical URL.");
            return;
        }
        let mut failed = false;
        if html.len() > 1 {
            failed = true;
            cx.fail(
                html[1],
                format!("The page has {} canonical links; keep one.", html.len()),
            );
        }
        for l in &html {
            let href = l.value().attr("href").unwrap_or("");
            if !in_head(*l) {
                failed = true;
                cx.fail(
                    *l,
                    "The canonical link is in <body>, where search engines ignore it.",
                );
            }
            if !is_absolute_http(href) {
                failed = true;
                cx.fail(
                    *l,
                    format!("The canonical URL `{href}` is not an absolute http(s) URL."),
                );
            }
        }
        for h in &header {
            if !is_absolute_http(h) {
                failed = true;
                cx.fail_page(format!(
                    "The Link header's canonical `{h}` is not an absolute http(s) URL."
                ))
                .with_snippet(format!("Link: <{h}>; rel=\"canonical\""));
            }
        }
        if let (Some(l), Some(h)) = (html.first(), header.first()) {
            let a = l
                .value()
                .attr("href")
                .and_then(|x| page.final_url.join(x.trim()).ok());
            let b = page.final_url.join(h.trim()).ok();
            if a != b {
                failed = true;
                cx.fail(
                    *l,
                    format!("The HTML canonical and the Link header's canonical (<{h}>) differ."),
                );
            }
        }
        if !failed {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    fn head(extra: &str) -> String {
        format!("<html><head><title>T</title>{extra}</head><body><p>x</p></body></html>")
    }

    #[test]
    fn examples() {
        RuleTester::new(&Canonical)
            .pass(&[("(page)", &head(r#"<link rel="canonical" href="https://example.com/mugs">"#))])
            .pass_page("(page)", RuleTester::page("<p>x</p>").with_header("Link", r#"<https://example.com/>; rel="canonical""#))
            .pass_page("(page)", 
                RuleTester::page(&head(r#"<link rel="canonical" href="https://example.com/">"#))
                    .with_header("Link", r#"<https://example.com/>; rel="canonical""#),
            )
            .fail(&[
                ("(page)", &head("")),
                ("link", &head(r#"<link rel="canonical" href="/mugs">"#)),
                ("html > head > link:nth-child(3)", &head(r#"<link rel="canonical" href="https://example.com/a"><link rel="canonical" href="https://example.com/b">"#)),
                ("link", r#"<html><head><title>T</title></head><body><link rel="canonical" href="https://example.com/"></body></html>"#),
            ])
            .fail_page("link", 
                RuleTester::page(&head(r#"<link rel="canonical" href="https://example.com/a">"#))
                    .with_header("Link", r#"<https://example.com/b>; rel="canonical""#),
            )
            .run();
    }
}
