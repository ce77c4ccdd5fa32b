//! `dead-end`: pages link somewhere.

use crate::support::http_links;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails HTML pages with no outgoing `http(s)` link.
pub struct DeadEnd;

static META: RuleMeta = RuleMeta {
    id: "dead-end",
    category: Category::Seo,
    title: "Page links to other pages",
    help: "Add navigation or related links so visitors and crawlers can continue from this page.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
    impact: Impact::Minor,
    docs: r#"## What it checks
HTML pages that answer 2xx have at least one `<a href>` or `<area href>` to an
`http(s)` URL, internal or external (seonaut's `DEAD_END`).

## Why it matters
A page without links is a dead end: visitors must go back, and crawlers cannot
continue — link equity that reaches it goes nowhere.

## Failing
```html
<body><h1>Thanks for your order</h1><p>We will email you.</p></body>
```

## Passing
```html
<body><h1>Thanks for your order</h1><p><a href="/">Back to the shop</a></p></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for DeadEnd {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !(200..300).contains(&pcx.page().status) {
            return;
        }
        if http_links(pcx).is_empty() {
            cx.fail_page("The page has no links to other pages.");
        } else {
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
        RuleTester::new(&DeadEnd)
            .pass(&[
                ("(page)", r#"<a href="/">Home</a>"#),
                ("(page)", r#"<a href="https://other.example/">Out</a>"#),
            ])
            .fail(&[
                ("(page)", "<p>nothing</p>"),
                ("(page)", r#"<a href="mailto:a@example.com">Mail</a>"#),
            ])
            .run();
    }
}
