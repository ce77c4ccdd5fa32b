//! `is-crawlable`: the page does not block indexing.

use crate::support::robots_directives;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages with `noindex` (or `none`) in meta robots or `X-Robots-Tag`.
pub struct IsCrawlable;

static META: RuleMeta = RuleMeta {
    id: "is-crawlable",
    category: Category::Seo,
    title: "Page is not blocked from indexing",
    help: "Remove `noindex` from the robots meta tag and the X-Robots-Tag header of pages that should appear in search results.",
    help_url: "https://developer.chrome.com/docs/lighthouse/seo/is-crawlable",
    impact: Impact::Critical,
    docs: r#"## What it checks
HTML pages (2xx) have no `noindex` (or `none`) directive in `<meta name="robots">`,
`<meta name="googlebot">`, `<meta name="bingbot">` or an `X-Robots-Tag` header (also
when scoped to one of those bots, `X-Robots-Tag: googlebot: noindex`). As in
Lighthouse, a page deliberately kept out of search should be excluded from the scan
rather than have this rule ignored. Pages blocked by robots.txt are never fetched.

## Why it matters
A `noindex` page never appears in search results. A leftover `noindex` from a
staging site is one of the most common ways to lose all search traffic.

## Failing
```html
<head><meta name="robots" content="noindex, follow"></head>
```

## Passing
```html
<head><meta name="robots" content="index, follow"></head>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for IsCrawlable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let blocking: Vec<_> = robots_directives(pcx)
            .into_iter()
            .filter(|d| d.directive == "noindex")
            .collect();
        match blocking.first() {
            None => cx.pass(),
            Some(d) => {
                cx.fail_page(format!(
                    "{} says noindex: search engines will drop the page.",
                    d.source
                ))
                .with_snippet(d.source.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        let p = || RuleTester::page("<p>x</p>");
        RuleTester::new(&IsCrawlable)
            .pass(&[
                ("(page)", r#"<meta name="robots" content="index, follow">"#),
                ("(page)", "<p>no robots meta</p>"),
            ])
            .pass_page("(page)", p().with_header("X-Robots-Tag", "otherbot: noindex"))
            .fail(&[
                ("(page)", r#"<meta name="robots" content="noindex, follow">"#),
                ("(page)", r#"<meta name="GoogleBot" content="NONE">"#),
            ])
            .fail_page("(page)", p().with_header("X-Robots-Tag", "noindex"))
            .fail_page("(page)", p().with_header("X-Robots-Tag", "googlebot: noindex, nofollow"))
            .run();
    }
}
