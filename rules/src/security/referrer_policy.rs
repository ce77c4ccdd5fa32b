//! `referrer-policy`: the page does not leak full URLs to other origins.

use crate::support::{header_snippet, meta_contents};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `Referrer-Policy` (header and `<meta name=referrer>`).
pub struct ReferrerPolicy;

/// Every policy token browsers recognise.
const VALID: &[&str] = &[
    "no-referrer",
    "no-referrer-when-downgrade",
    "origin",
    "origin-when-cross-origin",
    "same-origin",
    "strict-origin",
    "strict-origin-when-cross-origin",
    "unsafe-url",
];

/// Tokens that send the full URL (path and query) to other origins.
const UNSAFE: &[&str] = &["unsafe-url", "no-referrer-when-downgrade"];

static META: RuleMeta = RuleMeta {
    id: "referrer-policy",
    category: Category::Security,
    title: "Referrer-Policy does not leak URLs",
    help: "Send `Referrer-Policy: strict-origin-when-cross-origin` (or stricter), or no header at all to get the browsers' safe default.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Referrer-Policy",
    impact: Impact::Minor,
    docs: r#"## What it checks
The effective referrer policy of the page — the last valid token of the
`Referrer-Policy` header (browsers take the last one they recognise, so fallbacks
can be listed first), else of `<meta name="referrer">`. It fails when that policy is
`unsafe-url` or `no-referrer-when-downgrade` (the full URL goes to other origins) or
when a header is present but holds no valid token. No policy at all passes: current
browsers then default to `strict-origin-when-cross-origin`. This mirrors the MDN
HTTP Observatory's `referrer-policy-unsafe` and `referrer-policy-header-invalid`.

## Why it matters
Paths and query strings often carry private data — reset tokens, search terms,
account ids. A leaky policy hands them to every third-party resource and link target.

## Failing
```html
<!-- Referrer-Policy: unsafe-url -->
<html lang="en"><head><title>Reset password</title></head><body></body></html>
```

## Passing
```html
<!-- Referrer-Policy: strict-origin-when-cross-origin -->
<html lang="en"><head><title>Reset password</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// The effective token of a policy list, `None` when no token is valid.
pub fn effective_policy(value: &str) -> Option<String> {
    value
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .rfind(|t| VALID.contains(&t.as_str()))
}

/// Whether a valid policy token leaks full URLs cross-origin.
pub fn is_unsafe(token: &str) -> bool {
    UNSAFE.contains(&token)
}

impl Rule for ReferrerPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let header = page.header("referrer-policy");
        let meta = meta_contents(cx.page(), "referrer")
            .first()
            .and_then(|m| m.value().attr("content"))
            .map(str::to_string);
        let (source, value) = match (header, meta) {
            (Some(h), _) => ("Referrer-Policy", h.to_string()),
            (None, Some(m)) => ("<meta name=referrer>", m),
            (None, None) => {
                cx.pass();
                return;
            }
        };
        match effective_policy(&value) {
            None => {
                cx.fail_page(format!("{source} `{value}` holds no valid policy."))
                    .with_snippet(header_snippet(source, &value));
            }
            Some(t) if is_unsafe(&t) => {
                cx.fail_page(format!(
                    "Referrer policy `{t}` sends full URLs, paths and queries included, to other origins."
                ))
                .with_snippet(header_snippet(source, &value));
            }
            Some(_) => cx.pass(),
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
        RuleTester::new(&ReferrerPolicy)
            .pass_page("(page)", p())
            .pass_page("(page)", p().with_header("Referrer-Policy", "no-referrer"))
            .pass_page("(page)", p().with_header(
                "Referrer-Policy",
                "unsafe-url, strict-origin-when-cross-origin",
            ))
            .pass(&[("(page)", r#"<meta name="referrer" content="same-origin">"#)])
            .fail_page("(page)", p().with_header("Referrer-Policy", "unsafe-url"))
            .fail_page("(page)", p().with_header("Referrer-Policy", "no-referrer-when-downgrade"))
            .fail_page("(page)", p().with_header("Referrer-Policy", "sometimes"))
            .fail(&[("(page)", r#"<meta name="referrer" content="unsafe-url">"#)])
            .run();
    }
}
