//! `redirect-chain`: URLs reach their page in at most one redirect.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages reached through two or more redirects.
pub struct RedirectChain;

static META: RuleMeta = RuleMeta {
    id: "redirect-chain",
    category: Category::Seo,
    title: "No redirect chains",
    help: "Point links and redirects straight at the final URL so each request needs at most one redirect.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/301-redirects",
    impact: Impact::Serious,
    docs: r#"## What it checks
The crawl records each redirect hop before a page. Two or more hops (for example
`http://example.com/a` → `https://example.com/a` → `https://example.com/a/`) fail
(seonaut's `ERROR_REDIRECT_CHAIN`); the chain is in the finding's data. Redirect
loops never reach a page: the crawler reports them as fetch errors.

## Why it matters
Every hop costs a round trip for visitors and crawl budget for search engines, and
search engines stop following after a few hops.

## Failing
```html
<!-- /old → /older → /new -->
<html lang="en"><head><title>New</title></head><body></body></html>
```

## Passing
```html
<!-- /old → /new -->
<html lang="en"><head><title>New</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for RedirectChain {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if page.redirects.len() >= 2 {
            let chain: Vec<String> = page
                .redirects
                .iter()
                .map(|h| format!("{} ({})", h.url, h.status))
                .chain(std::iter::once(page.final_url.to_string()))
                .collect();
            cx.fail_page(format!(
                "{} redirects before the page: {}.",
                page.redirects.len(),
                chain.join(" → ")
            ))
            .with_data(serde_json::json!({"hops": page.redirects}));
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Hop;

    #[test]
    fn examples() {
        let hop = |from: &str, to: &str| Hop {
            url: from.into(),
            status: 301,
            location: to.into(),
        };
        let mut one = RuleTester::page("<p>x</p>");
        one.redirects = vec![hop("http://example.com/", "https://example.com/")];
        let mut two = RuleTester::page("<p>x</p>");
        two.redirects = vec![
            hop("http://example.com/old", "https://example.com/old"),
            hop("https://example.com/old", "https://example.com/"),
        ];
        RuleTester::new(&RedirectChain)
            .pass_page("(page)", RuleTester::page("<p>x</p>"))
            .pass_page("(page)", one)
            .fail_page("(page)", two)
            .run();
    }
}
