//! `x-content-type-options`: responses send `X-Content-Type-Options: nosniff`.

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks for `X-Content-Type-Options: nosniff`.
pub struct XContentTypeOptions;

static META: RuleMeta = RuleMeta {
    id: "x-content-type-options",
    category: Category::Security,
    title: "Responses forbid MIME sniffing",
    help: "Send `X-Content-Type-Options: nosniff` on every response.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Content-Type-Options",
    impact: Impact::Moderate,
    docs: r#"## What it checks
The response carries `X-Content-Type-Options` with the value `nosniff` (any case,
surrounding white space ignored). A missing header or any other value fails.

## Why it matters
Without `nosniff` browsers may guess a response's type from its content, so an
uploaded "image" or a JSON response can be executed as a script or stylesheet.

## Failing
```html
<!-- X-Content-Type-Options: sniff -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- X-Content-Type-Options: nosniff -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl Rule for XContentTypeOptions {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        match cx.page().page().header("x-content-type-options") {
            None => {
                cx.fail_page("The response sends no X-Content-Type-Options header.");
            }
            Some(v) if v.trim().eq_ignore_ascii_case("nosniff") => cx.pass(),
            Some(v) => {
                cx.fail_page(format!(
                    "X-Content-Type-Options is `{}`; the only valid value is `nosniff`.",
                    v.trim()
                ))
                .with_snippet(header_snippet("X-Content-Type-Options", v));
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
        RuleTester::new(&XContentTypeOptions)
            .pass_page("(page)", p().with_header("X-Content-Type-Options", "nosniff"))
            .pass_page("(page)", p().with_header("X-Content-Type-Options", " NoSniff "))
            .fail_page("(page)", p())
            .fail_page("(page)", p().with_header("X-Content-Type-Options", "sniff"))
            .run();
    }
}
