//! `localhost-links`: public pages do not link to the developer's machine.

use crate::support::http_links;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails links to `localhost` and loopback addresses from non-local pages.
pub struct LocalhostLinks;

static META: RuleMeta = RuleMeta {
    id: "localhost-links",
    category: Category::Seo,
    title: "No links to localhost",
    help:
        "Replace links to localhost / 127.0.0.1 (left over from development) with the public URLs.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
    impact: Impact::Serious,
    docs: r#"## What it checks
On pages whose own host is not local, no `<a href>` / `<area href>` points to
`localhost`, a `*.localhost` name, `127.0.0.0/8`, `0.0.0.0` or `[::1]` (seonaut's
`ERROR_LOCALHOST_LINKS`). Pages served from a local host (a developer scanning their
own machine) are not checked.

## Why it matters
Such links work only on the author's computer: for everyone else they are broken,
and they reveal that content was published from a development setup.

## Failing
```html
<a href="http://localhost:3000/pricing">Pricing</a>
```

## Passing
```html
<a href="/pricing">Pricing</a>
```
"#,
    ..RuleMeta::BASE
};

/// Whether a URL's host is the local machine.
pub fn is_local(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => {
            let d = d.to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback() || ip.is_unspecified(),
        None => false,
    }
}

impl Rule for LocalhostLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if is_local(&pcx.page().final_url) {
            return;
        }
        for (a, url) in http_links(pcx) {
            if is_local(&url) {
                cx.fail(
                    a,
                    format!("The link points to {url}, which only exists on the author's machine."),
                );
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
    use crate::Page;

    #[test]
    fn examples() {
        RuleTester::new(&LocalhostLinks)
            .pass(&[("a", r#"<a href="/pricing">P</a>"#)])
            .inapplicable_page(Page::from_html(
                "http://127.0.0.1:8080/",
                r#"<a href="http://localhost:8080/">P</a>"#,
            ))
            .fail(&[
                ("a", r#"<a href="http://localhost:3000/pricing">P</a>"#),
                ("a", r#"<a href="http://127.0.0.1/x">P</a>"#),
                ("a", r#"<a href="http://[::1]/x">P</a>"#),
                ("a", r#"<a href="http://app.localhost/x">P</a>"#),
            ])
            .run();
    }
}
