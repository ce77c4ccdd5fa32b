//! `too-many-links`: the page does not bury its links among hundreds of others.

use crate::support::http_links;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages with more than [`MAX_LINKS`] links.
pub struct TooManyLinks;

/// Most links a page may have (seonaut's threshold).
pub const MAX_LINKS: usize = 100;

static META: RuleMeta = RuleMeta {
    id: "too-many-links",
    category: Category::Seo,
    title: "Page has at most 100 links",
    help: "Trim navigation and footers, paginate long lists, and keep the links that matter.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
    impact: Impact::Minor,
    docs: r#"## What it checks
The number of `<a href>` / `<area href>` elements with `http(s)` targets (internal
and external) is at most 100 (seonaut's `ERROR_TOO_MANY_LINKS` threshold).

## Why it matters
Each link passes a share of the page's weight; hundreds of links dilute it and make
the page hard to use. Very long link lists are also a sign of generated or spammy
pages.

## Failing
```html
<ul><li><a href="/p/1">1</a></li> … 150 more … </ul>
```

## Passing
```html
<nav><a href="/mugs">Mugs</a> <a href="/bowls">Bowls</a> <a href="/contact">Contact</a></nav>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for TooManyLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let n = http_links(pcx).len();
        if n > MAX_LINKS {
            cx.fail_page(format!("The page has {n} links (over {MAX_LINKS})."))
                .with_data(serde_json::json!({"links": n, "max": MAX_LINKS}));
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
        let links = |n: usize| {
            (0..n)
                .map(|i| format!("<a href=\"/p/{i}\">{i}</a>"))
                .collect::<String>()
        };
        RuleTester::new(&TooManyLinks)
            .pass(&[("(page)", &links(100))])
            .fail(&[("(page)", &links(101))])
            .run();
    }
}
