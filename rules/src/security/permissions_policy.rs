//! `permissions-policy`: the page declares which powerful features it may use.

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks that a `Permissions-Policy` header is present and parses.
pub struct PermissionsPolicy;

static META: RuleMeta = RuleMeta {
    id: "permissions-policy",
    category: Category::Security,
    title: "Permissions-Policy is declared",
    help: "Send a Permissions-Policy that turns off features the site does not use, e.g. `Permissions-Policy: camera=(), microphone=(), geolocation=()`.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Permissions-Policy",
    impact: Impact::Minor,
    docs: r#"## What it checks
HTML pages send a `Permissions-Policy` header whose members parse as structured
fields: `feature=()`, `feature=*`, `feature=self`, `feature=(self "https://a.example")`,
separated by commas. A missing header is a minor (informational) failure; a header
whose members do not parse fails too, since browsers then drop them.

## Why it matters
The policy limits what the page and the frames it embeds may use — camera,
microphone, geolocation, payment. An injected or compromised third-party frame then
cannot ask for them.

## Failing
```html
<!-- Permissions-Policy: camera 'none' -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- Permissions-Policy: camera=(), microphone=(), geolocation=(self) -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// Members of a Permissions-Policy value that do not parse.
pub fn invalid_members(value: &str) -> Vec<String> {
    let item_ok = |s: &str| {
        s == "*"
            || s == "self"
            || s == "src"
            || (s.len() >= 2 && s.starts_with('"') && s.ends_with('"'))
    };
    value
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .filter(|m| {
            let Some((name, allow)) = m.split_once('=') else {
                return true;
            };
            let name_ok = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
            let allow = allow.trim();
            let allow_ok =
                if let Some(inner) = allow.strip_prefix('(').and_then(|a| a.strip_suffix(')')) {
                    inner.split_ascii_whitespace().all(item_ok)
                } else {
                    item_ok(allow)
                };
            !(name_ok && allow_ok)
        })
        .map(str::to_string)
        .collect()
}

impl Rule for PermissionsPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let Some(value) = page.header("permissions-policy") else {
            cx.fail_page("No Permissions-Policy header limits the browser features this page and its frames may use.");
            return;
        };
        let bad = invalid_members(value);
        if bad.is_empty() {
            cx.pass();
        } else {
            cx.fail_page(format!(
                "Permissions-Policy members that do not parse (browsers drop them): {}.",
                bad.join(", ")
            ))
            .with_snippet(header_snippet("Permissions-Policy", value));
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
        RuleTester::new(&PermissionsPolicy)
            .pass_page("(page)", p().with_header(
                "Permissions-Policy",
                "camera=(), microphone=(), geolocation=(self \"https://maps.example\")",
            ))
            .pass_page("(page)", p().with_header("Permissions-Policy", "fullscreen=*"))
            .fail_page("(page)", p())
            .fail_page("(page)", p().with_header("Permissions-Policy", "camera 'none'"))
            .fail_page("(page)", p().with_header("Permissions-Policy", "geolocation=(https://a.example)"))
            .run();
    }
}
