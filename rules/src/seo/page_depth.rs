//! `page-depth`: pages are reachable within a few clicks of the start page.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages more than [`MAX_DEPTH`] links away from the start page.
pub struct PageDepth;

/// Most clicks from the start page ("three clicks" is the usual guideline).
pub const MAX_DEPTH: u32 = 3;

static META: RuleMeta = RuleMeta {
    id: "page-depth",
    category: Category::Seo,
    title: "Page is at most three clicks from the start page",
    help: "Link important pages from the home page, navigation or hub pages so they are at most three clicks deep.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
    impact: Impact::Minor,
    docs: r#"## What it checks
The crawl depth of each HTML page — the fewest links from the start page (depth 0)
the crawler followed to find it — is at most 3 (seonaut's `ERROR_PAGE_DEPTH` flags
"high depth" pages; three clicks is the common guideline).

## Why it matters
Deep pages are crawled less often and ranked lower, and visitors rarely get there.

## Failing
```html
<!-- reached by home → category → sub-category → list page 7 → this page (depth 4) -->
<html lang="en"><head><title>Mug 4711</title></head><body></body></html>
```

## Passing
```html
<!-- reached by home → mugs → this page (depth 2) -->
<html lang="en"><head><title>Blue mug</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for PageDepth {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        if page.depth > MAX_DEPTH {
            cx.fail_page(format!(
                "The page is {} clicks from the start page (more than {MAX_DEPTH}).",
                page.depth
            ))
            .with_data(serde_json::json!({"depth": page.depth, "max": MAX_DEPTH}));
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
        let at = |d: u32| {
            let mut p = RuleTester::page("<p>x</p>");
            p.depth = d;
            p
        };
        RuleTester::new(&PageDepth)
            .pass_page("(page)", at(0))
            .pass_page("(page)", at(3))
            .fail_page("(page)", at(4))
            .run();
    }
}
