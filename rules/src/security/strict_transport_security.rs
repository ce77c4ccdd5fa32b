//! `strict-transport-security`: HTTPS pages send a valid, long-lived HSTS header.

use crate::support::{header_snippet, is_https};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks the `Strict-Transport-Security` header of HTTPS pages.
pub struct StrictTransportSecurity;

/// Six months in seconds: the MDN HTTP Observatory's minimum `max-age`.
pub const MIN_MAX_AGE: u64 = 15_768_000;

/// One year: the minimum `max-age` for the browsers' preload list.
pub const PRELOAD_MAX_AGE: u64 = 31_536_000;

static META: RuleMeta = RuleMeta {
    id: "strict-transport-security",
    category: Category::Security,
    title: "HTTPS pages send a valid HSTS header",
    help: "Send `Strict-Transport-Security: max-age=63072000; includeSubDomains; preload` (at least six months) on every HTTPS response.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Strict-Transport-Security",
    impact: Impact::Serious,
    docs: r#"## What it checks
On pages served over HTTPS, the first `Strict-Transport-Security` header:
is present; parses (a numeric `max-age`, no repeated directive); has a `max-age` of
at least six months (15768000 seconds, the MDN HTTP Observatory's threshold); and,
when it asks for `preload`, meets the preload list's requirements (`max-age` of a
year or more and `includeSubDomains`). Plain HTTP pages are left to `is-on-https`
(browsers ignore HSTS sent over HTTP).

## Why it matters
Without HSTS the first request of a visit may go over plain HTTP, where an attacker
can strip the redirect to HTTPS and keep the victim on an insecure connection.

## Failing
```html
<!-- Strict-Transport-Security: max-age=3600 -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- Strict-Transport-Security: max-age=63072000; includeSubDomains; preload -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// A parsed HSTS header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hsts {
    /// `max-age` in seconds.
    pub max_age: u64,
    /// `includeSubDomains` present.
    pub include_subdomains: bool,
    /// `preload` present.
    pub preload: bool,
}

/// Parses an HSTS header value (RFC 6797 6.1); `Err` says what is wrong.
pub fn parse_hsts(value: &str) -> Result<Hsts, String> {
    let mut max_age = None;
    let mut include_subdomains = false;
    let mut preload = false;
    let mut seen: Vec<String> = Vec::new();
    for part in value.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (name, val) = match part.split_once('=') {
            Some((n, v)) => (
                n.trim().to_ascii_lowercase(),
                Some(v.trim().trim_matches('"')),
            ),
            None => (part.to_ascii_lowercase(), None),
        };
        if seen.contains(&name) {
            return Err(format!("directive `{name}` appears twice"));
        }
        seen.push(name.clone());
        match name.as_str() {
            "max-age" => {
                let v = val.ok_or("max-age has no value")?;
                max_age = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("max-age `{v}` is not a number of seconds"))?,
                );
            }
            "includesubdomains" => include_subdomains = true,
            "preload" => preload = true,
            _ => {}
        }
    }
    Ok(Hsts {
        max_age: max_age.ok_or("max-age is missing")?,
        include_subdomains,
        preload,
    })
}

impl Rule for StrictTransportSecurity {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !is_https(page) {
            return;
        }
        let Some(value) = page.header("strict-transport-security") else {
            cx.fail_page("The HTTPS page sends no Strict-Transport-Security header.");
            return;
        };
        let snippet = header_snippet("Strict-Transport-Security", value);
        match parse_hsts(value) {
            Err(why) => {
                cx.fail_page(format!(
                    "The Strict-Transport-Security header is invalid: {why}."
                ))
                .with_snippet(snippet);
            }
            Ok(h) if h.max_age < MIN_MAX_AGE => {
                cx.fail_page(format!(
                    "HSTS max-age is {} seconds; use at least six months ({MIN_MAX_AGE}).",
                    h.max_age
                ))
                .with_snippet(snippet)
                .with_data(serde_json::json!({"max_age": h.max_age, "expected": MIN_MAX_AGE}));
            }
            Ok(h) if h.preload && (!h.include_subdomains || h.max_age < PRELOAD_MAX_AGE) => {
                cx.fail_page("HSTS asks for preload but the preload list needs includeSubDomains and a max-age of at least one year.")
                    .with_snippet(snippet);
            }
            Ok(_) => cx.pass(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Page;

    fn page(hsts: Option<&str>) -> Page {
        let p = RuleTester::page("<p>x</p>");
        match hsts {
            Some(v) => p.with_header("Strict-Transport-Security", v),
            None => p,
        }
    }

    #[test]
    fn examples() {
        RuleTester::new(&StrictTransportSecurity)
            .pass_page("(page)", page(Some("max-age=63072000; includeSubDomains; preload")))
            .pass_page("(page)", page(Some("max-age=15768000")))
            .inapplicable_page(Page::from_html("http://example.com/", "<p>x</p>"))
            .fail_page("(page)", page(None))
            .fail_page("(page)", page(Some("max-age=3600")))
            .fail_page("(page)", page(Some("max-age=abc")))
            .fail_page("(page)", page(Some("includeSubDomains")))
            .fail_page("(page)", page(Some("max-age=1; max-age=63072000")))
            .fail_page("(page)", page(Some("max-age=20000000; preload")))
            .run();
    }

    #[test]
    fn parses() {
        assert_eq!(
            parse_hsts("max-age=\"31536000\"; includeSubDomains").unwrap(),
            Hsts {
                max_age: 31_536_000,
                include_subdomains: true,
                preload: false
            }
        );
    }
}
