//! `modern-http`: pages are served over HTTP/2 or HTTP/3.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages whose final response came over HTTP/1.x.
pub struct ModernHttp;

static META: RuleMeta = RuleMeta {
    id: "modern-http",
    category: Category::Performance,
    title: "Page is served over HTTP/2 or newer",
    help: "Enable HTTP/2 (and HTTP/3) on the server or CDN.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/uses-http2",
    impact: Impact::Minor,
    docs: r#"## What it checks
The HTTP version of each page's final response, as negotiated by the crawler, is
HTTP/2 or HTTP/3. HTTP/1.0 and HTTP/1.1 fail (Lighthouse's `modern-http-insight`).
Since browsers speak HTTP/2 only over TLS, a plain-HTTP page that fails here also
fails `is-on-https`.

## Why it matters
HTTP/2 multiplexes all requests of a page over one connection and compresses
headers; with HTTP/1.1 browsers open at most six connections per host and queue the
rest, which slows pages with many resources.

## Failing
```html
<!-- HTTP/1.1 200 OK -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```

## Passing
```html
<!-- HTTP/2 200 -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl Rule for ModernHttp {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let v = page.http_version.trim().to_ascii_uppercase();
        if v.is_empty() {
            return;
        }
        if v.starts_with("HTTP/1") || v == "HTTP/0.9" {
            cx.fail_page(format!("The page was served over {}.", page.http_version))
                .with_data(serde_json::json!({"http_version": page.http_version}));
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
        let with = |v: &str| {
            let mut p = RuleTester::page("<p>x</p>");
            p.http_version = v.into();
            p
        };
        RuleTester::new(&ModernHttp)
            .pass_page("(page)", with("HTTP/2"))
            .pass_page("(page)", with("HTTP/3"))
            .fail_page("(page)", with("HTTP/1.1"))
            .fail_page("(page)", with("HTTP/1.0"))
            .run();
    }
}
