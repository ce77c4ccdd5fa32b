//! `start-page-redirects`: the start page loads without avoidable redirects.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails a start page reached through redirects other than one scheme upgrade.
pub struct StartPageRedirects;

static META: RuleMeta = RuleMeta {
    id: "start-page-redirects",
    category: Category::Performance,
    title: "Start page loads without avoidable redirects",
    help: "Link and advertise the final URL of the start page; keep at most the one http→https redirect.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/redirects",
    impact: Impact::Moderate,
    docs: r#"## What it checks
For the scan's start page (depth 0), the redirects before the final response: none,
or a single hop that only upgrades `http:` to `https:` on the same host and path,
passes. Anything else — several hops, a hop to another path (`/` → `/en/home`) or
host (`example.com` → `www.example.com`) — fails, with the chain in the data
(Lighthouse's `redirects` audit; the redirect chains of other pages are
`redirect-chain`'s).

## Why it matters
Each redirect adds a full round trip (often hundreds of milliseconds on mobile)
before the browser can even start loading the page everybody lands on first.

## Failing
```html
<!-- https://example.com/ → https://www.example.com/ → https://www.example.com/en/ -->
<html lang="en"><head><title>Home</title></head><body></body></html>
```

## Passing
```html
<!-- http://example.com/ → https://example.com/ -->
<html lang="en"><head><title>Home</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for StartPageRedirects {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if page.depth != 0 {
            return;
        }
        let hops = &page.redirects;
        let scheme_upgrade_only = hops.len() == 1
            && url::Url::parse(&hops[0].url).is_ok_and(|from| {
                let mut upgraded = from.clone();
                from.scheme() == "http"
                    && upgraded.set_scheme("https").is_ok()
                    && url::Url::parse(&hops[0].location).is_ok_and(|to| to == upgraded)
            });
        if hops.is_empty() || scheme_upgrade_only {
            cx.pass();
        } else {
            let chain: Vec<&str> = hops
                .iter()
                .map(|h| h.url.as_str())
                .chain(std::iter::once(page.final_url.as_str()))
                .collect();
            cx.fail_page(format!(
                "The start page is reached through {} redirect(s): {}.",
                hops.len(),
                chain.join(" → ")
            ))
            .with_data(serde_json::json!({"hops": hops}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Hop;

    fn with(hops: &[(&str, &str)]) -> crate::Page {
        let mut p = RuleTester::page("<p>x</p>");
        p.redirects = hops
            .iter()
            .map(|(a, b)| Hop {
                url: (*a).into(),
                status: 301,
                location: (*b).into(),
            })
            .collect();
        p
    }

    #[test]
    fn examples() {
        let mut deep = with(&[("https://example.com/a", "https://example.com/b")]);
        deep.depth = 1;
        RuleTester::new(&StartPageRedirects)
            .pass_page("(page)", with(&[]))
            .pass_page("(page)", with(&[("http://example.com/", "https://example.com/")]))
            .inapplicable_page(deep)
            .fail_page("(page)", with(&[(
                "https://www.example.com/",
                "https://example.com/",
            )]))
            .fail_page("(page)", with(&[
                ("http://example.com/", "https://example.com/"),
                ("https://example.com/", "https://example.com/en/"),
            ]))
            .run();
    }
}
