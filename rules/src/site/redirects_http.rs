//! `redirects-http`: the plain-`http:` URL of an HTTPS start page redirects to HTTPS.

use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// Judges the first answer of the start page's `http:` URL: a redirect to `https:`
/// passes; a page served over HTTP, or a redirect elsewhere, fails.
pub struct RedirectsHttp;

static META: RuleMeta = RuleMeta {
    id: "redirects-http",
    category: Category::Security,
    title: "The start page's http: URL redirects to HTTPS",
    help: "Answer every plain-HTTP request with a 301 (or 308) to the same URL on https:, on the same host, and send HSTS from the HTTPS side.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/redirects-http",
    impact: Impact::Serious,
    needs: &[Need::HttpProbe],
    docs: r#"## What it checks
The start page is served over HTTPS; what happens to visitors who type the bare host
name or follow an old `http:` link? (Lighthouse's `redirects-http`, the HTTP
Observatory's `redirection` test.)

- When the scan started from an `http:` URL, the crawl's own fetch tells: it passes
  when the start page ended on `https:` (a site left on plain HTTP is
  `is-on-https`'s).
- When it started from `https:` on the default port, the scan sends one GET to the
  same URL with `http:` on port 80, without following redirects. A redirect whose
  `Location` is `https:` passes; a redirect to another `http:` URL, or any other
  answer (a page served over plain HTTP), fails. No answer at all (nothing listens
  on port 80) passes: there is no plain-HTTP page to fall back to, as the
  Observatory's `redirection-not-needed-no-http` says.
- An HTTPS start page on another port has no conventional plain-HTTP twin and is
  not judged.

## Why it matters
People and old links still reach sites over `http:`. Without a redirect they get an
unencrypted copy of the site (readable and changeable on the network) and never
see the HSTS header that would keep them on HTTPS.

## Failing
```html
<!-- https://shop.example/ -->
<h1>Example Shop</h1>
<!-- http://shop.example/
HTTP/1.1 200 OK -->
<h1>Example Shop</h1>  <!-- the page itself, over plain HTTP -->
```

## Passing
```html
<!-- https://shop.example/ -->
<h1>Example Shop</h1>
<!-- http://shop.example/
HTTP/1.1 301 Moved Permanently
Location: https://shop.example/ -->
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl SiteRule for RedirectsHttp {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let start = site.pages.iter().find(|p| p.depth == 0);
        if let Some(p) = start.filter(|p| p.url.starts_with("http:")) {
            if p.fetch_error.is_none() && p.final_url.starts_with("https:") {
                out.pass();
            }
            return;
        }
        let Some(probe) = &site.http_probe else {
            return;
        };
        let url = &probe.url;
        if probe.error.is_some() || probe.redirects_to_https() {
            out.pass();
            return;
        }
        let status = probe.status;
        let message = match (&probe.location, (300..400).contains(&status)) {
            (Some(to), true) => format!(
                "The start page's http: URL {url} redirects to {to}, not to HTTPS."
            ),
            (None, true) => format!(
                "The start page's http: URL {url} answers {status} without a Location, not a redirect to HTTPS."
            ),
            _ => format!(
                "The start page's http: URL {url} answers {status} instead of redirecting to HTTPS."
            ),
        };
        out.fail(url, message);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;
    use crate::site::HttpProbe;

    fn with_probe(status: u16, location: Option<&str>, error: Option<&str>) -> SiteInput {
        let mut input = site(vec![summary("https://shop.example/", &doc("Home", ""))]);
        input.http_probe = Some(HttpProbe {
            url: "http://shop.example/".into(),
            status,
            location: location.map(str::to_string),
            error: error.map(str::to_string),
        });
        input
    }

    #[test]
    fn probe_answers() {
        let ok = with_probe(301, Some("https://shop.example/"), None);
        assert_eq!(run(&RedirectsHttp, &ok), vec![]);
        let no_listener = with_probe(0, None, Some("connection failed: refused"));
        assert_eq!(run(&RedirectsHttp, &no_listener), vec![]);
        let cases = [
            (
                with_probe(200, None, None),
                "The start page's http: URL http://shop.example/ answers 200 instead of redirecting to HTTPS.",
            ),
            (
                with_probe(302, Some("http://www.shop.example/"), None),
                "The start page's http: URL http://shop.example/ redirects to http://www.shop.example/, not to HTTPS.",
            ),
            (
                with_probe(301, None, None),
                "The start page's http: URL http://shop.example/ answers 301 without a Location, not a redirect to HTTPS.",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(
                run(&RedirectsHttp, &input),
                vec![("http://shop.example/".to_string(), message.to_string())]
            );
        }
    }

    #[test]
    fn a_scan_from_http_is_judged_by_its_own_fetch() {
        let mut redirected = summary("https://shop.example/", &doc("Home", ""));
        redirected.url = "http://shop.example/".into();
        let input = site(vec![redirected]);
        let (tallies, findings, _) = crate::site::analyze_site(&input, &[&RedirectsHttp]);
        assert!(findings.is_empty());
        assert_eq!(tallies[0].passed, 1);
        // Left on plain HTTP: is-on-https reports it, this rule does not apply.
        let plain = site(vec![summary("http://shop.example/", &doc("Home", ""))]);
        let (tallies, findings, _) = crate::site::analyze_site(&plain, &[&RedirectsHttp]);
        assert!(findings.is_empty());
        assert_eq!(tallies[0].passed, 0);
        // No probe (another port, or the rule's fact not gathered): not judged.
        let https = site(vec![summary(
            "https://shop.example:8443/",
            &doc("Home", ""),
        )]);
        assert_eq!(run(&RedirectsHttp, &https), vec![]);
    }
}
