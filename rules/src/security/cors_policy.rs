//! `cors-policy`: CORS headers do not open credentialed reads to any origin.

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `Access-Control-Allow-Origin` with `-Allow-Credentials`.
pub struct CorsPolicy;

static META: RuleMeta = RuleMeta {
    id: "cors-policy",
    category: Category::Security,
    title: "CORS does not grant credentialed access to other origins",
    help: "Only allow credentialed cross-origin reads from an explicit list of trusted origins; never echo the request's Origin or allow `null`.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTTP/CORS",
    impact: Impact::Critical,
    docs: r#"## What it checks
When the response has `Access-Control-Allow-Origin` (the crawler sends no `Origin`
header, so any specific origin in the answer was chosen by the server alone):

- `*` together with `Access-Control-Allow-Credentials: true` fails (a
  misconfiguration browsers reject, usually a sign the server echoes origins);
- `null` fails: sandboxed frames and `data:` documents of any site have that origin;
- another origin than the page's own together with `Allow-Credentials: true` fails:
  a server that grants credentialed reads to origins nobody asked for typically
  reflects whatever `Origin` it receives (the MDN HTTP Observatory's
  `cross-origin-resource-sharing-implemented-with-universal-access`).

`*` without credentials (public data) passes. Whether the server echoes an
`Origin` it is sent is checked once per scan, with a probe request, by
`cors-reflected-origin`.

## Why it matters
Credentialed CORS to an attacker's origin lets their page read the victim's private
responses — account data, tokens — with the victim's cookies.

## Failing
```html
<!-- Access-Control-Allow-Origin: https://evil.example
     Access-Control-Allow-Credentials: true -->
<html lang="en"><head><title>Account</title></head><body></body></html>
```

## Passing
```html
<!-- Access-Control-Allow-Origin: * -->
<html lang="en"><head><title>Public data</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl Rule for CorsPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(acao) = page.header("access-control-allow-origin") else {
            return;
        };
        let acao = acao.trim();
        let credentials = page
            .header("access-control-allow-credentials")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let own = page.final_url.origin().ascii_serialization();
        let snippet = header_snippet("Access-Control-Allow-Origin", acao);
        if acao.eq_ignore_ascii_case("null") {
            cx.fail_page(
                "Access-Control-Allow-Origin is `null`, which any sandboxed document can have.",
            )
            .with_snippet(snippet);
        } else if acao == "*" && credentials {
            cx.fail_page(
                "Access-Control-Allow-Origin `*` is combined with Allow-Credentials: true.",
            )
            .with_snippet(snippet);
        } else if acao != "*" && credentials && acao.trim_end_matches('/') != own {
            cx.fail_page(format!(
                "Credentialed cross-origin reads are granted to {acao} although no Origin was sent: the server likely reflects any origin."
            ))
            .with_snippet(snippet);
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
        let p = || RuleTester::page("<p>x</p>");
        let cred = |origin: &str| {
            p().with_header("Access-Control-Allow-Origin", origin)
                .with_header("Access-Control-Allow-Credentials", "true")
        };
        RuleTester::new(&CorsPolicy)
            .inapplicable_page(p())
            .pass_page("(page)", p().with_header("Access-Control-Allow-Origin", "*"))
            .pass_page("(page)", cred("https://example.com"))
            .fail_page("(page)", cred("*"))
            .fail_page("(page)", cred("https://evil.example"))
            .fail_page("(page)", p().with_header("Access-Control-Allow-Origin", "null"))
            .run();
    }
}
