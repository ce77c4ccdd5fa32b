//! `subresource-integrity`: cross-origin scripts and stylesheets carry `integrity`.

use crate::support::{base_url, has_rel, resolve, same_origin, select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails cross-origin `<script src>` and `<link rel=stylesheet>` without SRI.
pub struct SubresourceIntegrity;

static META: RuleMeta = RuleMeta {
    id: "subresource-integrity",
    category: Category::Security,
    title: "Cross-origin scripts and stylesheets use Subresource Integrity",
    help: "Add `integrity=\"sha384-…\"` and `crossorigin=\"anonymous\"` to scripts and stylesheets loaded from other origins, or host them yourself.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/Security/Subresource_Integrity",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Every `<script src>` and `<link rel="stylesheet" href>` whose URL (resolved against
the page and its `<base>`) is on another origin than the page must have an
`integrity` attribute holding at least one `sha256-`, `sha384-` or `sha512-` hash.
Same-origin resources are not checked (as in the MDN HTTP Observatory's
`subresource-integrity` test).

## Why it matters
A compromised CDN or third-party host can serve anything in place of the expected
file, and a script runs with the full rights of your page. With SRI the browser
refuses any file whose hash does not match.

## Failing
```html
<script src="https://cdn.example.net/lib.js"></script>
```

## Passing
```html
<script src="https://cdn.example.net/lib.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>
```
"#,
    ..RuleMeta::BASE
};

fn valid_integrity(v: &str) -> bool {
    v.split_ascii_whitespace().any(|h| {
        let l = h.to_ascii_lowercase();
        (l.starts_with("sha256-") || l.starts_with("sha384-") || l.starts_with("sha512-"))
            && h.len() > 7
    })
}

impl Rule for SubresourceIntegrity {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let base = base_url(pcx);
        let page_url = &pcx.page().final_url;
        for el in select(pcx, selector!("script[src], link[href]")) {
            let v = el.value();
            let url = match v.name() {
                "script" => v.attr("src"),
                _ if has_rel(el, "stylesheet") => v.attr("href"),
                _ => None,
            };
            let Some(url) = url.and_then(|u| resolve(&base, u)) else {
                continue;
            };
            if !matches!(url.scheme(), "http" | "https") || same_origin(&url, page_url) {
                continue;
            }
            if v.attr("integrity").is_some_and(valid_integrity) {
                cx.pass_on(el);
            } else {
                cx.fail(
                    el,
                    format!("{url} is loaded from another origin without an integrity hash."),
                )
                .on_resource(url.as_str());
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
        RuleTester::new(&SubresourceIntegrity)
            .pass(&[
                ("script", r#"<script src="https://cdn.example.net/lib.js" integrity="sha384-abcdef" crossorigin="anonymous"></script>"#),
            ])
            .inapplicable(&[
                r#"<script src="/app.js"></script><link rel="stylesheet" href="https://example.com/a.css">"#,
                r#"<link rel="preconnect" href="https://cdn.example.net">"#,
            ])
            .fail(&[
                ("script", r#"<script src="https://cdn.example.net/lib.js"></script>"#),
                ("link", r#"<link rel="stylesheet" href="//fonts.example.net/a.css">"#),
                ("script", r#"<script src="https://cdn.example.net/lib.js" integrity="md5-abc"></script>"#),
                ("script", r#"<base href="https://static.example.org/"><script src="app.js"></script>"#),
            ])
            .run();
    }
}
