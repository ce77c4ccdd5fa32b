//! `robots-directives`: no directives that hide links, snippets or images.

use crate::support::robots_directives;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails `nofollow`, `nosnippet`, `noimageindex` and `max-snippet:0`.
pub struct RobotsDirectives;

static META: RuleMeta = RuleMeta {
    id: "robots-directives",
    category: Category::Seo,
    title: "Robots directives do not hide links, snippets or images",
    help: "Remove `nofollow`, `nosnippet`, `noimageindex` and `max-snippet:0` unless the page must hide them from search engines.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/robots-meta-tag",
    impact: Impact::Minor,
    docs: r#"## What it checks
The robots directives of HTML pages (`<meta name="robots">`, `googlebot`, `bingbot`,
`X-Robots-Tag`) contain none of: `nofollow` (links on the page are not followed),
`nosnippet` or `max-snippet:0` (no text snippet in results; seonaut's
`ERROR_NOSNIPPET`), `noimageindex` (images not indexed; seonaut's
`ERROR_NOIMAGEINDEX`). One finding per directive. `noindex` is `is-crawlable`'s.

## Why it matters
These directives are often left over from templates. They make search results less
attractive and cut the page's links out of the site's link graph.

## Failing
```html
<head><meta name="robots" content="nofollow, nosnippet"></head>
```

## Passing
```html
<head><meta name="robots" content="index, follow, max-image-preview:large"></head>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for RobotsDirectives {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !(200..300).contains(&pcx.page().status) {
            return;
        }
        let mut failed = false;
        for d in robots_directives(pcx) {
            let why = match d.directive.replace(' ', "").as_str() {
                "nofollow" => "search engines will not follow the page's links",
                "nosnippet" | "max-snippet:0" => "search results will show no text snippet",
                "noimageindex" => "the page's images will not be indexed",
                _ => continue,
            };
            failed = true;
            cx.fail_page(format!("{} says {}: {why}.", d.source, d.directive))
                .with_snippet(d.source.clone());
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

    #[test]
    fn examples() {
        RuleTester::new(&RobotsDirectives)
            .pass(&[
                ("(page)", r#"<meta name="robots" content="index, follow, max-snippet:-1">"#),
                ("(page)", "<p>x</p>"),
            ])
            .fail(&[
                ("(page)", r#"<meta name="robots" content="nofollow">"#),
                ("(page)", r#"<meta name="robots" content="nosnippet">"#),
                ("(page)", r#"<meta name="googlebot" content="noimageindex">"#),
                ("(page)", r#"<meta name="robots" content="max-snippet:0">"#),
                ("(page)", r#"<meta name="robots" content="none">"#),
            ])
            .fail_page("(page)", RuleTester::page("<p>x</p>").with_header("X-Robots-Tag", "nosnippet"))
            .run();
    }
}
