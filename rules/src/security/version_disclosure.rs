//! `version-disclosure`: response headers do not reveal software versions.

use regex::Regex;
use std::sync::OnceLock;

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `Server`, `X-Powered-By` and similar headers for version numbers.
pub struct VersionDisclosure;

/// Headers that commonly name the server software.
pub const HEADERS: &[&str] = &[
    "server",
    "x-powered-by",
    "x-aspnet-version",
    "x-aspnetmvc-version",
    "x-generator",
];

static META: RuleMeta = RuleMeta {
    id: "version-disclosure",
    category: Category::Security,
    title: "Headers do not disclose software versions",
    help: "Remove version numbers from `Server` and drop `X-Powered-By`, `X-AspNet-Version` and similar headers (e.g. nginx `server_tokens off`, Apache `ServerTokens Prod`, PHP `expose_php = Off`).",
    help_url: "https://owasp.org/www-project-secure-headers/#x-powered-by",
    impact: Impact::Minor,
    docs: r#"## What it checks
The `Server`, `X-Powered-By`, `X-AspNet-Version`, `X-AspNetMvc-Version` and
`X-Generator` headers must not contain a version number (digits with at least one
dot, such as `nginx/1.18.0` or `PHP/7.4.3`; `X-AspNet-Version` always fails since
its value is a version). A bare product name (`Server: nginx`) passes.

## Why it matters
Exact versions tell attackers which known vulnerabilities to try, and let automated
scanners pick the site out of millions.

## Failing
```html
<!-- Server: Apache/2.4.41 (Ubuntu)
     X-Powered-By: PHP/7.4.3 -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- Server: Apache -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

fn version_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\d+\.\d+").ok()).as_ref()
}

impl Rule for VersionDisclosure {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(re) = version_re() else {
            return;
        };
        for name in HEADERS {
            for value in page.header_all(name) {
                let always = name.starts_with("x-aspnet");
                if always || re.is_match(value) {
                    cx.fail_page(format!(
                        "The `{name}` header discloses a software version: {}.",
                        value.trim()
                    ))
                    .with_snippet(header_snippet(name, value));
                } else {
                    cx.pass();
                }
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
        RuleTester::new(&VersionDisclosure)
            .inapplicable_page(p())
            .pass_page("(page)", p().with_header("Server", "nginx"))
            .fail_page("(page)", p().with_header("Server", "Apache/2.4.41 (Ubuntu)"))
            .fail_page("(page)", p().with_header("X-Powered-By", "PHP/7.4.3"))
            .fail_page("(page)", p().with_header("X-AspNet-Version", "4"))
            .run();
    }
}
