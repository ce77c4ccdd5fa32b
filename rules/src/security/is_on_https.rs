//! `is-on-https`: the page is served over HTTPS.

use crate::support::is_https;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages whose final URL is plain `http:`.
pub struct IsOnHttps;

static META: RuleMeta = RuleMeta {
    id: "is-on-https",
    category: Category::Security,
    title: "Page is served over HTTPS",
    help: "Serve every page over HTTPS and redirect plain HTTP to it.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/is-on-https",
    impact: Impact::Critical,
    docs: r#"## What it checks
The final URL of the page (after redirects) uses the `https:` scheme.

## Why it matters
Over plain HTTP anyone on the network path can read and change the page: inject
scripts, steal form input and cookies. Browsers mark such pages "Not secure", and
many features (service workers, geolocation, HSTS) need a secure context.

## Failing
```html
<!-- fetched from http://example.com/ and not redirected -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- fetched from https://example.com/ -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl Rule for IsOnHttps {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if is_https(page) {
            cx.pass();
        } else {
            // The origin, not the page: the message names the host-wide fact
            // the engine groups on (the pages are its occurrences).
            let origin = page.final_url.origin().ascii_serialization();
            cx.fail_page(format!("The site is served over plain HTTP ({origin})."))
                .with_snippet(page.final_url.to_string());
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
        RuleTester::new(&IsOnHttps)
            .pass(&[("(page)", "<p>secure</p>")])
            .fail_page("(page)", Page::from_html("http://example.com/", "<p>plain</p>"))
            .run();
    }
}
