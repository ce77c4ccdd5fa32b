//! `clickjacking-protection`: pages say who may frame them.

use crate::support::csp::Policy;
use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `X-Frame-Options` or CSP `frame-ancestors`.
pub struct ClickjackingProtection;

static META: RuleMeta = RuleMeta {
    id: "clickjacking-protection",
    category: Category::Security,
    title: "Page restricts who may frame it",
    help: "Send `Content-Security-Policy: frame-ancestors 'self'` (or 'none'), or `X-Frame-Options: DENY` / `SAMEORIGIN`.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/clickjacking-mitigation",
    impact: Impact::Serious,
    docs: r#"## What it checks
HTML pages either have a `frame-ancestors` directive in an enforced
`Content-Security-Policy` header (browsers ignore it in `<meta>`), or an
`X-Frame-Options` header of `DENY` or `SAMEORIGIN`. An `X-Frame-Options` header with
any other value (including the obsolete `ALLOW-FROM`, which browsers ignore) fails
unless `frame-ancestors` is set.

## Why it matters
A page that any site can frame can be overlaid with decoys so that users click
buttons they cannot see (clickjacking): buying, deleting, granting permissions.

## Failing
```html
<!-- no X-Frame-Options, no frame-ancestors -->
<html lang="en"><head><title>Account</title></head><body><button>Delete</button></body></html>
```

## Passing
```html
<!-- Content-Security-Policy: frame-ancestors 'none' -->
<html lang="en"><head><title>Account</title></head><body><button>Delete</button></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl Rule for ClickjackingProtection {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let frame_ancestors = page.header_all("content-security-policy").any(|v| {
            Policy::parse_header(v)
                .iter()
                .any(|p| p.get("frame-ancestors").is_some())
        });
        if frame_ancestors {
            cx.pass();
            return;
        }
        match page.header("x-frame-options") {
            Some(v)
                if v.trim().eq_ignore_ascii_case("deny")
                    || v.trim().eq_ignore_ascii_case("sameorigin") =>
            {
                cx.pass()
            }
            Some(v) => {
                cx.fail_page(format!(
                    "X-Frame-Options `{}` is not DENY or SAMEORIGIN, so browsers ignore it.",
                    v.trim()
                ))
                .with_snippet(header_snippet("X-Frame-Options", v));
            }
            None => {
                cx.fail_page("Neither X-Frame-Options nor CSP frame-ancestors restricts framing.");
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
        let p = || RuleTester::page("<p>x</p>");
        RuleTester::new(&ClickjackingProtection)
            .pass_page("(page)", p().with_header("X-Frame-Options", "DENY"))
            .pass_page("(page)", p().with_header("X-Frame-Options", "sameorigin"))
            .pass_page("(page)", p().with_header("Content-Security-Policy", "frame-ancestors 'self'"))
            .fail_page("(page)", p())
            .fail_page("(page)", p().with_header("X-Frame-Options", "ALLOW-FROM https://a.example"))
            .fail(&[
                ("(page)", r#"<meta http-equiv="Content-Security-Policy" content="frame-ancestors 'none'">"#),
            ])
            .run();
    }
}
