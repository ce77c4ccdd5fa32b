//! `cross-origin-isolation`: COOP is set, and COOP / COEP / CORP values are valid.

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `Cross-Origin-Opener-Policy`, `-Embedder-Policy` and `-Resource-Policy`.
pub struct CrossOriginIsolation;

/// Valid values of each header (the part before any `;` report parameters).
pub const COOP: &[&str] = &[
    "same-origin",
    "same-origin-allow-popups",
    "noopener-allow-popups",
    "unsafe-none",
];
/// Valid `Cross-Origin-Embedder-Policy` values.
pub const COEP: &[&str] = &["require-corp", "credentialless", "unsafe-none"];
/// Valid `Cross-Origin-Resource-Policy` values.
pub const CORP: &[&str] = &["same-origin", "same-site", "cross-origin"];

static META: RuleMeta = RuleMeta {
    id: "cross-origin-isolation",
    category: Category::Security,
    title: "Cross-origin isolation headers are set and valid",
    help: "Send `Cross-Origin-Opener-Policy: same-origin` (or `same-origin-allow-popups`); make sure any COEP and CORP headers use valid values.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/origin-isolation",
    impact: Impact::Minor,
    docs: r#"## What it checks
HTML pages send `Cross-Origin-Opener-Policy` with a value other than `unsafe-none`
(Lighthouse's `origin-isolation` audit). Any `Cross-Origin-Opener-Policy`,
`Cross-Origin-Embedder-Policy` or `Cross-Origin-Resource-Policy` header present must
hold a valid value (the MDN HTTP Observatory's `*-header-invalid` results). COEP and
CORP are not required: they matter only for pages that need cross-origin isolation.

## Why it matters
Without COOP, any page that opens yours in a popup keeps a handle to its window and
can probe it (XS-Leaks, Spectre-style side channels). Invalid values are ignored by
browsers, so the protection the developer intended is silently missing.

## Failing
```html
<!-- Cross-Origin-Opener-Policy: same-orign -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- Cross-Origin-Opener-Policy: same-origin -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// The policy token of a structured header value (`same-origin; report-to="x"`).
pub fn token(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .trim_matches('"')
        .to_ascii_lowercase()
}

impl Rule for CrossOriginIsolation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let mut failed = false;
        for (name, valid) in [
            ("Cross-Origin-Opener-Policy", COOP),
            ("Cross-Origin-Embedder-Policy", COEP),
            ("Cross-Origin-Resource-Policy", CORP),
        ] {
            if let Some(v) = page.header(name) {
                if !valid.contains(&token(v).as_str()) {
                    failed = true;
                    cx.fail_page(format!(
                        "{name} `{}` is not a valid value ({}); browsers ignore it.",
                        v.trim(),
                        valid.join(", ")
                    ))
                    .with_snippet(header_snippet(name, v));
                }
            }
        }
        match page.header("cross-origin-opener-policy").map(token) {
            None => {
                failed = true;
                cx.fail_page("No Cross-Origin-Opener-Policy: pages that open this one keep a handle to its window.");
            }
            Some(t) if t == "unsafe-none" => {
                failed = true;
                cx.fail_page("Cross-Origin-Opener-Policy is unsafe-none, which isolates nothing.");
            }
            Some(_) => {}
        }
        if !failed {
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
        let p = || RuleTester::page("<p>x</p>");
        RuleTester::new(&CrossOriginIsolation)
            .pass_page("(page)", p().with_header("Cross-Origin-Opener-Policy", "same-origin"))
            .pass_page("(page)", 
                p().with_header(
                    "Cross-Origin-Opener-Policy",
                    "same-origin-allow-popups; report-to=\"r\"",
                )
                .with_header("Cross-Origin-Embedder-Policy", "require-corp")
                .with_header("Cross-Origin-Resource-Policy", "same-site"),
            )
            .fail_page("(page)", p())
            .fail_page("(page)", p().with_header("Cross-Origin-Opener-Policy", "same-orign"))
            .fail_page("(page)", p().with_header("Cross-Origin-Opener-Policy", "unsafe-none"))
            .fail_page("(page)", 
                p().with_header("Cross-Origin-Opener-Policy", "same-origin")
                    .with_header("Cross-Origin-Resource-Policy", "anyone"),
            )
            .run();
    }
}
