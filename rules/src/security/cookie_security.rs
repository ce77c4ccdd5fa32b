//! `cookie-security`: cookies carry the attributes that protect them.

use crate::support::cookies::SetCookie;
use crate::support::{header_snippet, is_https};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks each `Set-Cookie` header of the page's response.
pub struct CookieSecurity;

static META: RuleMeta = RuleMeta {
    id: "cookie-security",
    category: Category::Security,
    title: "Cookies are Secure, HttpOnly where it matters, and valid",
    help: "Set cookies with `Secure`, session cookies also with `HttpOnly`, use a valid `SameSite` (Strict, Lax or None), and follow the `__Host-` / `__Secure-` prefix rules.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Cookies#security",
    impact: Impact::Serious,
    docs: r#"## What it checks
Each `Set-Cookie` header of the response (one outcome per cookie):

- on an HTTPS page, the cookie has `Secure` (MDN HTTP Observatory:
  `cookies-without-secure-flag`);
- a session cookie — a name containing `sess`, `login`, `auth` or `token`, or `sid`
  — has `HttpOnly` (`cookies-session-without-httponly-flag`);
- `SameSite`, when present, is `Strict`, `Lax` or `None`
  (`cookies-samesite-flag-invalid`), and `SameSite=None` comes with `Secure`
  (browsers reject it otherwise);
- an anti-CSRF cookie (`csrf` / `xsrf` in the name) has `SameSite`
  (`cookies-anticsrf-without-samesite-flag`);
- `__Secure-` cookies have `Secure`; `__Host-` cookies have `Secure`, `Path=/` and
  no `Domain` (RFC 6265bis).

## Why it matters
A cookie without `Secure` is sent over plain HTTP where anyone can read it; a
session cookie readable by scripts is stolen by the first XSS; an invalid
`SameSite` silently falls back to the browser default.

## Failing
```html
<!-- Set-Cookie: sessionid=abc123; Path=/ -->
<html lang="en"><head><title>Account</title></head><body></body></html>
```

## Passing
```html
<!-- Set-Cookie: __Host-sessionid=abc123; Path=/; Secure; HttpOnly; SameSite=Lax -->
<html lang="en"><head><title>Account</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// What is wrong with one cookie on a page served over `https`.
pub fn cookie_problems(c: &SetCookie, https: bool) -> Vec<String> {
    let mut out = Vec::new();
    if https && !c.secure {
        out.push("it lacks Secure".to_string());
    }
    if c.is_session() && !c.http_only {
        out.push("it looks like a session cookie but lacks HttpOnly".to_string());
    }
    if !c.same_site_valid() {
        out.push(format!(
            "SameSite={} is not Strict, Lax or None",
            c.same_site.as_deref().unwrap_or("")
        ));
    } else if c
        .same_site
        .as_deref()
        .is_some_and(|v| v.eq_ignore_ascii_case("none"))
        && !c.secure
    {
        out.push("SameSite=None requires Secure".to_string());
    }
    if c.is_anti_csrf() && c.same_site.is_none() {
        out.push("it looks like an anti-CSRF token but has no SameSite".to_string());
    }
    if let Some(p) = c.prefix_problem() {
        out.push(p);
    }
    out
}

impl Rule for CookieSecurity {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let https = is_https(page);
        for raw in page.header_all("set-cookie") {
            let Some(c) = SetCookie::parse(raw) else {
                continue;
            };
            let problems = cookie_problems(&c, https);
            if problems.is_empty() {
                cx.pass();
            } else {
                cx.fail_page(format!("Cookie `{}`: {}.", c.name, problems.join("; ")))
                    .with_snippet(header_snippet("Set-Cookie", raw));
            }
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
        let p = |c: &str| RuleTester::page("<p>x</p>").with_header("Set-Cookie", c);
        RuleTester::new(&CookieSecurity)
            .inapplicable_page(RuleTester::page("<p>no cookies</p>"))
            .pass_page("(page)", p(
                "__Host-sessionid=1; Path=/; Secure; HttpOnly; SameSite=Lax",
            ))
            .pass_page("(page)", p("theme=dark; Secure; SameSite=Strict"))
            .pass_page("(page)", 
                Page::from_html("http://example.com/", "<p>x</p>")
                    .with_header("Set-Cookie", "theme=dark"),
            )
            .fail_page("(page)", p("sessionid=1; Path=/"))
            .fail_page("(page)", p("PHPSESSID=1; Secure"))
            .fail_page("(page)", p("theme=dark; Secure; SameSite=Sometimes"))
            .fail_page("(page)", p("theme=dark; SameSite=None"))
            .fail_page("(page)", p("csrftoken=1; Secure"))
            .fail_page("(page)", p("__Secure-x=1"))
            .fail_page("(page)", p("__Host-x=1; Secure; Path=/; Domain=example.com"))
            .run();
    }
}
