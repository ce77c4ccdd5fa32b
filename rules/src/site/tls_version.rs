//! `tls-version`: the site speaks TLS 1.2 or 1.3 and no longer TLS 1.0 / 1.1.

use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// Judges the protocol versions the server accepts.
pub struct TlsVersion;

static META: RuleMeta = RuleMeta {
    id: "tls-version",
    category: Category::Security,
    title: "The server uses TLS 1.2 or 1.3 and refuses TLS 1.0 and 1.1",
    help: "Enable TLS 1.3 (and TLS 1.2 for older clients) and disable TLS 1.0 and 1.1 in the server or load balancer configuration.",
    help_url: "https://www.rfc-editor.org/rfc/rfc8996",
    impact: Impact::Serious,
    needs: &[Need::Tls],
    docs: r#"## What it checks
Once per scan, when the site is served over https, sitescan makes two handshakes with
the start page's host:

1. one offering TLS 1.3 and 1.2, which records the negotiated version (1.3 is best,
   1.2 is fine); a server that answers it with a protocol-version alert supports
   neither and fails;
2. one offering at most TLS 1.1 (a bare ClientHello, nothing more is sent): a
   server that answers with a ServerHello still accepts a protocol that RFC 8996
   deprecated in 2021, and fails.

Ciphers and key exchange details are not graded here; the certificate is
`tls-certificate`'s business. A server that speaks nothing newer than TLS 1.1
cannot be crawled at all (the crawl itself speaks TLS 1.2 and 1.3), so the scan
fails to connect before this rule runs; what this rule finds in practice is a
server that still accepts TLS 1.0 or 1.1 beside a modern version.

## Why it matters
TLS 1.0 and 1.1 rely on SHA-1 and CBC constructions with known attacks (BEAST,
downgrade); browsers stopped supporting them in 2020 and PCI DSS forbids them.
Keeping them enabled only helps attackers force a weaker connection.

## Failing
```html
<!-- nginx: ssl_protocols TLSv1 TLSv1.1 TLSv1.2; -->
```

## Passing
```html
<!-- nginx: ssl_protocols TLSv1.2 TLSv1.3; -->
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl SiteRule for TlsVersion {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let Some(tls) = &site.tls else {
            return;
        };
        let at = tls.origin_url();
        let data = serde_json::json!({
            "host": tls.host,
            "negotiated": tls.protocol,
            "legacy_accepted": tls.legacy_accepted,
        });
        let mut failed = false;
        if tls.modern_unsupported {
            failed = true;
            out.fail_with(
                &at,
                format!(
                    "{} supports neither TLS 1.3 nor TLS 1.2{}.",
                    tls.host,
                    tls.legacy_accepted
                        .as_deref()
                        .map(|v| format!(": its best is {}", pretty(v)))
                        .unwrap_or_default()
                ),
                data.clone(),
            );
        } else if let Some(old) = &tls.legacy_accepted {
            failed = true;
            out.fail_with(
                &at,
                format!(
                    "{} still accepts {}, deprecated since 2021 (RFC 8996).",
                    tls.host,
                    pretty(old)
                ),
                data,
            );
        }
        if !failed {
            if tls.protocol.is_some() {
                out.pass();
            } else if let Some(e) = &tls.handshake_error {
                out.cant_tell(
                    &at,
                    format!(
                        "The TLS handshake with {} failed ({e}), so its protocol versions could not be checked.",
                        tls.host
                    ),
                );
            }
        }
    }
}

/// `TLSv1.1` -> `TLS 1.1`.
fn pretty(version: &str) -> String {
    version.replacen("TLSv", "TLS ", 1)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{run, site};
    use super::super::tls_certificate::tests::{cert, facts};
    use super::*;

    fn check(tls: crate::site::TlsFacts) -> Vec<(String, String)> {
        let mut input = site(Vec::new());
        input.tls = Some(tls);
        run(&TlsVersion, &input)
    }

    #[test]
    fn modern_versions_pass() {
        let tls = facts(vec![cert(&["shop.example"])]);
        assert!(check(tls.clone()).is_empty());
        let mut twelve = tls;
        twelve.protocol = Some("TLSv1.2".into());
        assert!(check(twelve).is_empty());
    }

    #[test]
    fn legacy_versions_fail() {
        let mut both = facts(vec![cert(&["shop.example"])]);
        both.legacy_accepted = Some("TLSv1.0".into());
        assert_eq!(
            check(both),
            vec![(
                "https://shop.example/".to_string(),
                "shop.example still accepts TLS 1.0, deprecated since 2021 (RFC 8996).".to_string()
            )]
        );
        let mut old_only = facts(Vec::new());
        old_only.protocol = None;
        old_only.handshake_error = Some("received fatal alert: ProtocolVersion".into());
        old_only.modern_unsupported = true;
        old_only.legacy_accepted = Some("TLSv1.1".into());
        old_only.port = 8443;
        assert_eq!(
            check(old_only),
            vec![(
                "https://shop.example:8443/".to_string(),
                "shop.example supports neither TLS 1.3 nor TLS 1.2: its best is TLS 1.1."
                    .to_string()
            )]
        );
    }
}
