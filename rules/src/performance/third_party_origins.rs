//! `third-party-origins`: the page does not depend on many other sites.

use std::collections::BTreeSet;

use crate::support::{base_url, has_rel, resolve, select, selector, site_of};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages loading subresources from more than [`MAX_THIRD_PARTY`] origins of
/// other sites.
pub struct ThirdPartyOrigins;

/// Most third-party origins a page may load from.
pub const MAX_THIRD_PARTY: usize = 10;

static META: RuleMeta = RuleMeta {
    id: "third-party-origins",
    category: Category::Performance,
    title: "Page loads from few third-party origins",
    help: "Drop unused tags and widgets, self-host fonts and libraries, and load the remaining third parties lazily.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/third-party-summary",
    impact: Impact::Minor,
    docs: r#"## What it checks
The distinct origins of the page's subresources — `<script src>`, `<link
rel="stylesheet|preload|modulepreload|icon" href>`, `<img src>`, `<iframe src>`,
`<video>` / `<audio>` / `<source>` `src` — that belong to another site than the page
(site = the host's last two labels, so `cdn.example.com` is first-party for
`www.example.com`) number at most 10. The list is in the finding's data.

## Why it matters
Each third-party origin costs a DNS lookup, a TLS handshake and a connection before
its first byte, competes for bandwidth, and may block the main thread; every one is
also a privacy and availability dependency.

## Failing
```html
<!-- scripts, fonts, pixels and widgets from 14 different third-party origins -->
<script src="https://tags.a.example/t.js"></script> …
```

## Passing
```html
<script src="/app.js" defer></script><link rel="stylesheet" href="/site.css">
```
"#,
    ..RuleMeta::BASE
};

impl Rule for ThirdPartyOrigins {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let base = base_url(pcx);
        let own = site_of(&pcx.page().final_url);
        let mut origins = BTreeSet::new();
        let sel = selector!(
            "script[src], link[href], img[src], iframe[src], video[src], audio[src], source[src]"
        );
        for el in select(pcx, sel) {
            let v = el.value();
            let raw = if v.name() == "link" {
                let fetched = ["stylesheet", "preload", "modulepreload", "icon"]
                    .iter()
                    .any(|r| has_rel(el, r));
                if !fetched {
                    continue;
                }
                v.attr("href")
            } else {
                v.attr("src")
            };
            let Some(url) = raw.and_then(|r| resolve(&base, r)) else {
                continue;
            };
            if matches!(url.scheme(), "http" | "https") && site_of(&url) != own {
                origins.insert(url.origin().ascii_serialization());
            }
        }
        let n = origins.len();
        if n > MAX_THIRD_PARTY {
            cx.fail_page(format!(
                "The page loads from {n} third-party origins (more than {MAX_THIRD_PARTY})."
            ))
            .with_data(serde_json::json!({"origins": origins, "max": MAX_THIRD_PARTY}));
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
        let scripts = |n: usize| {
            (0..n)
                .map(|i| {
                    format!("<script src=\"https://t{i}.vendor{i}.example/a.js\" defer></script>")
                })
                .collect::<String>()
        };
        RuleTester::new(&ThirdPartyOrigins)
            .pass(&[
                ("(page)", &scripts(10)),
                ("(page)", r#"<img src="https://cdn.example.com/a.webp" alt=""><script src="/a.js"></script>"#),
            ])
            .fail(&[("(page)", &scripts(11)),
            ])
            .run();
    }
}
