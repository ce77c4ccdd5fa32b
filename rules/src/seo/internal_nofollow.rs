//! `internal-nofollow`: links within the site are followed.

use crate::support::{has_rel, http_links, same_host};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails internal links with `rel="nofollow"`.
pub struct InternalNofollow;

static META: RuleMeta = RuleMeta {
    id: "internal-nofollow",
    category: Category::Seo,
    title: "Internal links are not nofollow",
    help: "Remove rel=\"nofollow\" from links to your own pages; keep out of search with noindex or robots.txt instead.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/qualify-outbound-links",
    impact: Impact::Minor,
    docs: r#"## What it checks
Each `<a href>` / `<area href>` to the page's own host (a leading `www.` ignored)
must not have `nofollow` in `rel` (seonaut's `ERROR_INTERNAL_NOFOLLOW`).

## Why it matters
`nofollow` on internal links stops link equity flowing through the site and may keep
search engines from discovering the target pages; it is not a way to hide pages.

## Failing
```html
<a href="/pricing" rel="nofollow">Pricing</a>
```

## Passing
```html
<a href="/pricing">Pricing</a> <a href="https://ads.example.net/" rel="nofollow sponsored">Ad</a>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for InternalNofollow {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let own = &pcx.page().final_url;
        for (a, url) in http_links(pcx) {
            if !same_host(&url, own) {
                continue;
            }
            if has_rel(a, "nofollow") {
                cx.fail(a, format!("The internal link to {url} is nofollow."));
            } else {
                cx.pass_on(a);
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
        RuleTester::new(&InternalNofollow)
            .pass(&[("a", r#"<a href="/pricing">P</a><a href="https://ads.example.net/" rel="nofollow">Ad</a>"#)])
            .fail(&[
                ("a", r#"<a href="/pricing" rel="nofollow">P</a>"#),
                ("a", r#"<a href="https://www.example.com/x" rel="NoFollow">P</a>"#),
            ])
            .run();
    }
}
