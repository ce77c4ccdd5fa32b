//! `cors-reflected-origin`: the site does not grant CORS access to any origin
//! that asks.

use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// The `Origin` the scan sends in its one probe request: a name under `.invalid`
/// (RFC 2606), which no real site can own, so an answer naming it was echoed.
pub const PROBE_ORIGIN: &str = "https://sitescan-origin-probe.invalid";

/// Judges the start page's answer to a request from a foreign origin.
pub struct CorsReflectedOrigin;

static META: RuleMeta = RuleMeta {
    id: "cors-reflected-origin",
    category: Category::Security,
    title: "CORS does not echo the requesting Origin",
    help: "Compare the request's Origin with an explicit allow list before echoing it in Access-Control-Allow-Origin; never combine an echoed origin with Access-Control-Allow-Credentials: true.",
    help_url: "https://portswigger.net/web-security/cors",
    impact: Impact::Critical,
    needs: &[Need::CorsProbe],
    docs: r#"## What it checks
Once per scan sitescan requests the start page one more time (within the same
per-host rate limit as the crawl) with `Origin: https://sitescan-origin-probe.invalid`,
an origin nobody can own. When `Access-Control-Allow-Origin` of the answer names that
origin, the server echoes whatever origin asks:

- with `Access-Control-Allow-Credentials: true` it fails as **critical**: any web
  site can read the page as the visitor, with their cookies (the MDN HTTP
  Observatory's `cross-origin-resource-sharing-implemented-with-universal-access`,
  −50, which the security grade then counts for the start page);
- without credentials it fails as **moderate**: reads are limited to what anyone
  can fetch, but the echoing policy becomes critical as soon as credentials are
  switched on.

`cors-policy` judges the CORS headers of every crawled page as served without an
`Origin`; this rule is the one active check.

## Why it matters
Echoing the Origin header is the most common CORS misconfiguration: it turns the
same-origin policy off for the page, so a malicious site can read account data,
CSRF tokens or API answers of its visitors.

## Failing
```html
<!-- /
Access-Control-Allow-Origin: https://sitescan-origin-probe.invalid
Access-Control-Allow-Credentials: true -->
<!-- the server copies the request's Origin (here the scan's probe) into
     Access-Control-Allow-Origin, and allows credentials -->
<h1>Example Pottery</h1>
```

## Passing
```html
<!-- / -->
<!-- no Access-Control-Allow-Origin (or a fixed, trusted origin) -->
<h1>Example Pottery</h1>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl SiteRule for CorsReflectedOrigin {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let Some(probe) = &site.cors_probe else {
            return;
        };
        if probe.error.is_some() || probe.status == 0 {
            return;
        }
        if !probe.reflected() {
            out.pass();
            return;
        }
        let data = serde_json::json!({
            "origin_sent": probe.origin,
            "access_control_allow_origin": probe.allow_origin,
            "access_control_allow_credentials": probe.allow_credentials,
        });
        if probe.credentials() {
            out.fail_with(
                &probe.url,
                format!(
                    "The page grants credentialed CORS access to any origin: a request from {} was answered with that origin and Access-Control-Allow-Credentials: true.",
                    probe.origin
                ),
                data,
            );
        } else {
            out.fail_with(
                &probe.url,
                format!(
                    "The page echoes any Origin in Access-Control-Allow-Origin (a request from {} was allowed); it becomes critical once credentials are allowed.",
                    probe.origin
                ),
                data,
            )
            .impact = Impact::Moderate;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::site;
    use super::super::{analyze_site, CorsProbe};
    use super::*;

    fn check(allow_origin: Option<&str>, credentials: Option<&str>) -> Vec<(Impact, String)> {
        let mut input = site(Vec::new());
        input.cors_probe = Some(CorsProbe {
            url: "https://example.com/".into(),
            origin: PROBE_ORIGIN.into(),
            status: 200,
            allow_origin: allow_origin.map(str::to_string),
            allow_credentials: credentials.map(str::to_string),
            error: None,
        });
        let (tallies, findings, _) = analyze_site(&input, &[&CorsReflectedOrigin]);
        if findings.is_empty() {
            assert_eq!(tallies[0].passed, 1);
        }
        findings
            .into_iter()
            .map(|f| {
                assert_eq!(f.page_url, "https://example.com/");
                (f.impact, f.message)
            })
            .collect()
    }

    #[test]
    fn reflection_fails_critical_with_credentials() {
        assert_eq!(
            check(Some(PROBE_ORIGIN), Some("true")),
            vec![(Impact::Critical, "The page grants credentialed CORS access to any origin: a request from https://sitescan-origin-probe.invalid was answered with that origin and Access-Control-Allow-Credentials: true.".to_string())]
        );
        assert_eq!(check(Some(PROBE_ORIGIN), None)[0].0, Impact::Moderate);
    }

    #[test]
    fn fixed_or_absent_policies_pass() {
        assert!(check(None, None).is_empty());
        assert!(check(Some("*"), None).is_empty());
        assert!(check(Some("https://app.example.com"), Some("true")).is_empty());
        // No probe sent: nothing judged.
        assert!(analyze_site(&site(Vec::new()), &[&CorsReflectedOrigin])
            .1
            .is_empty());
    }
}
