//! `tls-certificate`: the site's certificate is trusted, in date, for its host
//! name, and neither weakly keyed nor weakly signed.

use std::net::IpAddr;

use super::facts::{CertInfo, ChainTrust, TlsFacts};
use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// Days before expiry from which a certificate is reported as expiring soon.
pub const EXPIRY_WARNING_DAYS: i64 = 30;
/// Smallest RSA modulus accepted, bits (NIST SP 800-131A, CA/Browser Forum).
pub const MIN_RSA_BITS: u32 = 2048;
/// Smallest elliptic-curve key accepted, bits.
pub const MIN_EC_BITS: u32 = 256;

/// Judges the certificate chain the server sent in the scan's own handshake.
pub struct TlsCertificate;

static META: RuleMeta = RuleMeta {
    id: "tls-certificate",
    category: Category::Security,
    title: "The TLS certificate is valid, trusted and not about to expire",
    help: "Serve a certificate from a publicly trusted CA that names every host of the site, with its intermediate certificates, an RSA key of 2048 bits or more (or an EC key) and a SHA-256 or stronger signature; renew it well before it expires.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/Security/Practical_implementation_guides/TLS",
    impact: Impact::Critical,
    needs: &[Need::Tls],
    docs: r#"## What it checks
Once per scan, when the site is served over https, sitescan makes its own TLS
handshake with the start page's host (through the same private-address guard as the
crawl), records the certificates the server sends and validates them itself:

- the chain must lead to a trusted root — webpki's Mozilla-derived roots plus any
  the scan was told to trust (`ca_certs`, `--ca-cert`): a **self-signed**
  certificate or an **unknown issuer** (missing intermediate, private CA) fails;
- the leaf must be **in date**: expired, or not valid yet, fails (critical); one
  that expires within 30 days fails with moderate impact, as a reminder to renew;
- the leaf must name the **host**: a `dNSName` of its subjectAltName equal to the
  host, or a wildcard `*.example.com` covering exactly one label (`a.example.com`,
  not `example.com` nor `a.b.example.com`); IP hosts need an `iPAddress` entry. The
  subject's common name is ignored, as browsers ignore it;
- the leaf's key must not be **weak** (RSA below 2048 bits, EC below 256 bits), and
  no certificate of the chain but a root may be **signed with SHA-1 or MD5**
  (serious).

The crawl can scan sites whose certificate fails here (`--insecure`,
`tls_insecure`), so staging sites can be audited; this rule reports the problem all
the same. The negotiated protocol version is `tls-version`'s business. The security
grade counts an invalid chain the way the MDN HTTP Observatory does
(`hsts-invalid-cert`, `redirection-invalid-cert`); expiry warnings, key sizes and
signatures are not graded (the Observatory does not grade them).

## Why it matters
Browsers refuse a site whose certificate is expired, untrusted or for another name:
visitors see a full-page warning, and those who click through are open to
interception. An expired certificate is the most common cause of such outages.

## Failing
```html
<!-- https://shop.example/ presents:
     subject CN=staging.example, issuer CN=staging.example (self-signed),
     notAfter 2024-01-31, subjectAltName DNS:staging.example -->
```

## Passing
```html
<!-- https://shop.example/ presents a certificate issued by a public CA through
     its intermediate, subjectAltName DNS:shop.example, DNS:*.shop.example,
     valid for another 60 days, ECDSA P-256 key, sha256 signature -->
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// One problem with the certificate chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertProblem {
    /// What is wrong, in a sentence.
    pub message: String,
    /// How bad it is.
    pub impact: Impact,
    /// Whether browsers reject the chain for it (what the security grade counts).
    pub invalid: bool,
}

/// Whether a subjectAltName `dNSName` covers `host` (both ASCII, any case): equal,
/// or a wildcard standing for the whole left-most label of a name with at least
/// three labels (`*.example.com`); partial wildcards (`w*.example.com`) never
/// match, as in browsers.
pub fn name_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim_end_matches('.').to_ascii_lowercase();
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() || pattern.is_empty() {
        return false;
    }
    match pattern.strip_prefix("*.") {
        Some(rest) => {
            if rest.contains('*') || rest.split('.').count() < 2 {
                return false;
            }
            match host.split_once('.') {
                Some((first, tail)) => !first.is_empty() && tail == rest,
                None => false,
            }
        }
        None => !pattern.contains('*') && pattern == host,
    }
}

/// Whether the certificate is valid for `host` (a name or an IP address literal).
pub fn valid_for_host(cert: &CertInfo, host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return cert
            .ip_addresses
            .iter()
            .any(|a| a.parse::<IpAddr>().is_ok_and(|a| a == ip));
    }
    cert.dns_names.iter().any(|n| name_matches(n, host))
}

fn weak_signature(cert: &CertInfo) -> bool {
    let s = cert.signature_algorithm.to_ascii_lowercase();
    s.contains("sha1") || s.contains("sha-1") || s.contains("md5") || s.contains("md2")
}

/// Everything wrong with the chain, most severe first; empty when it is fine or
/// when no certificate was received.
pub fn problems(tls: &TlsFacts) -> Vec<CertProblem> {
    let mut out = Vec::new();
    let Some(leaf) = tls.leaf() else {
        return out;
    };
    let mut push = |message: String, impact: Impact, invalid: bool| {
        out.push(CertProblem {
            message,
            impact,
            invalid,
        })
    };
    match &tls.trust {
        ChainTrust::Trusted => {}
        ChainTrust::SelfSigned => push(
            format!(
                "The certificate of {} is self-signed ({}): browsers do not trust it.",
                tls.host, leaf.subject
            ),
            Impact::Critical,
            true,
        ),
        ChainTrust::UnknownIssuer => push(
            format!(
                "The certificate chain of {} does not lead to a trusted root (issuer {}): an intermediate certificate is missing or the CA is private.",
                tls.host, leaf.issuer
            ),
            Impact::Critical,
            true,
        ),
        ChainTrust::Invalid { reason } => push(
            format!("The certificate chain of {} is invalid: {reason}.", tls.host),
            Impact::Critical,
            true,
        ),
    }
    let day = |d: &chrono::DateTime<chrono::Utc>| d.format("%Y-%m-%d").to_string();
    if tls.checked_at > leaf.not_after {
        let ago = (tls.checked_at - leaf.not_after).num_days();
        push(
            format!(
                "The certificate of {} expired on {} ({ago} days ago).",
                tls.host,
                day(&leaf.not_after)
            ),
            Impact::Critical,
            true,
        );
    } else if tls.checked_at < leaf.not_before {
        push(
            format!(
                "The certificate of {} is not valid before {}.",
                tls.host,
                day(&leaf.not_before)
            ),
            Impact::Critical,
            true,
        );
    } else {
        let left = (leaf.not_after - tls.checked_at).num_days();
        if left < EXPIRY_WARNING_DAYS {
            push(
                format!(
                    "The certificate of {} expires on {}, in {left} days: renew it.",
                    tls.host,
                    day(&leaf.not_after)
                ),
                Impact::Moderate,
                false,
            );
        }
    }
    if !valid_for_host(leaf, &tls.host) {
        let mut names: Vec<&str> = leaf.dns_names.iter().map(String::as_str).collect();
        names.extend(leaf.ip_addresses.iter().map(String::as_str));
        push(
            format!(
                "The certificate is not valid for {}: it names {}.",
                tls.host,
                if names.is_empty() {
                    "no host (no subjectAltName)".to_string()
                } else {
                    names.join(", ")
                }
            ),
            Impact::Critical,
            true,
        );
    }
    let weak_key = match leaf.key_algorithm.as_str() {
        "RSA" => leaf.key_bits > 0 && leaf.key_bits < MIN_RSA_BITS,
        "EC" => leaf.key_bits > 0 && leaf.key_bits < MIN_EC_BITS,
        _ => false,
    };
    if weak_key {
        push(
            format!(
                "The certificate's {} key has only {} bits (at least {} needed).",
                leaf.key_algorithm,
                leaf.key_bits,
                if leaf.key_algorithm == "RSA" {
                    MIN_RSA_BITS
                } else {
                    MIN_EC_BITS
                }
            ),
            Impact::Serious,
            false,
        );
    }
    // A root's own signature is never checked by browsers; every other
    // certificate's is.
    for cert in &tls.chain {
        let root = cert.subject == cert.issuer && !std::ptr::eq(cert, leaf);
        if !root && weak_signature(cert) {
            push(
                format!(
                    "The certificate {} is signed with {}, which browsers no longer accept.",
                    cert.subject, cert.signature_algorithm
                ),
                Impact::Serious,
                false,
            );
        }
    }
    out
}

/// Whether browsers reject the site's certificate chain (untrusted, out of date or
/// for another host): what the security grade counts as an invalid certificate.
pub fn chain_invalid(tls: &TlsFacts) -> bool {
    problems(tls).iter().any(|p| p.invalid)
}

impl SiteRule for TlsCertificate {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let Some(tls) = &site.tls else {
            return;
        };
        let at = tls.origin_url();
        let Some(leaf) = tls.leaf() else {
            // A server that speaks no TLS 1.2+ is tls-version's finding.
            if !tls.modern_unsupported {
                if let Some(e) = &tls.handshake_error {
                    out.cant_tell(
                        &at,
                        format!(
                            "The TLS handshake with {} failed ({e}), so its certificate could not be checked.",
                            tls.host
                        ),
                    );
                }
            }
            return;
        };
        let found = problems(tls);
        if found.is_empty() {
            out.pass();
            return;
        }
        let data = serde_json::json!({
            "host": tls.host,
            "subject": leaf.subject,
            "issuer": leaf.issuer,
            "not_before": leaf.not_before,
            "not_after": leaf.not_after,
            "dns_names": leaf.dns_names,
        });
        for p in found {
            out.fail_with(&at, p.message, data.clone()).impact = p.impact;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::testing::{run, site};
    use super::*;
    use chrono::{TimeZone, Utc};

    pub(crate) fn cert(names: &[&str]) -> CertInfo {
        CertInfo {
            subject: "CN=shop.example".into(),
            issuer: "CN=Example CA".into(),
            not_before: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
            not_after: Utc.with_ymd_and_hms(2026, 12, 31, 0, 0, 0).unwrap(),
            dns_names: names.iter().map(|s| s.to_string()).collect(),
            ip_addresses: Vec::new(),
            key_algorithm: "EC".into(),
            key_bits: 256,
            signature_algorithm: "ecdsa-with-SHA256".into(),
        }
    }

    pub(crate) fn facts(chain: Vec<CertInfo>) -> TlsFacts {
        TlsFacts {
            host: "shop.example".into(),
            port: 443,
            checked_at: Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap(),
            protocol: Some("TLSv1.3".into()),
            cipher_suite: Some("TLS13_AES_128_GCM_SHA256".into()),
            handshake_error: None,
            modern_unsupported: false,
            legacy_accepted: None,
            chain,
            trust: ChainTrust::Trusted,
        }
    }

    fn check(tls: TlsFacts) -> Vec<String> {
        let mut input = site(Vec::new());
        input.tls = Some(tls);
        run(&TlsCertificate, &input)
            .into_iter()
            .map(|(url, message)| {
                assert_eq!(url, "https://shop.example/");
                message
            })
            .collect()
    }

    #[test]
    fn wildcards_cover_one_label() {
        assert!(name_matches("*.example.com", "a.example.com"));
        assert!(name_matches("*.Example.com.", "A.example.COM"));
        assert!(!name_matches("*.example.com", "example.com"));
        assert!(!name_matches("*.example.com", "a.b.example.com"));
        assert!(!name_matches("*.com", "example.com"));
        assert!(!name_matches("w*.example.com", "www.example.com"));
        assert!(!name_matches("*.*.example.com", "a.b.example.com"));
        assert!(name_matches("example.com", "example.com"));
        let mut ip = cert(&[]);
        ip.ip_addresses = vec!["127.0.0.1".into(), "::1".into()];
        assert!(valid_for_host(&ip, "127.0.0.1"));
        assert!(valid_for_host(&ip, "[::1]"));
        assert!(!valid_for_host(&ip, "127.0.0.2"));
    }

    #[test]
    fn a_good_chain_passes() {
        assert!(check(facts(vec![cert(&["shop.example", "*.shop.example"])])).is_empty());
        // No TLS facts (an http site): nothing to judge.
        assert!(run(&TlsCertificate, &site(Vec::new())).is_empty());
    }

    #[test]
    fn expired_expiring_and_future_certificates() {
        let mut old = cert(&["shop.example"]);
        old.not_after = Utc.with_ymd_and_hms(2026, 5, 1, 0, 0, 0).unwrap();
        assert_eq!(
            check(facts(vec![old])),
            vec!["The certificate of shop.example expired on 2026-05-01 (31 days ago)."]
        );
        let mut soon = cert(&["shop.example"]);
        soon.not_after = Utc.with_ymd_and_hms(2026, 6, 15, 0, 0, 0).unwrap();
        assert_eq!(
            check(facts(vec![soon])),
            vec!["The certificate of shop.example expires on 2026-06-15, in 14 days: renew it."]
        );
        let mut future = cert(&["shop.example"]);
        future.not_before = Utc.with_ymd_and_hms(2026, 7, 1, 0, 0, 0).unwrap();
        assert_eq!(
            check(facts(vec![future])),
            vec!["The certificate of shop.example is not valid before 2026-07-01."]
        );
    }

    #[test]
    fn untrusted_and_wrong_host() {
        let mut tls = facts(vec![cert(&["staging.example"])]);
        tls.trust = ChainTrust::SelfSigned;
        tls.chain[0].issuer = "CN=shop.example".into();
        assert_eq!(
            check(tls.clone()),
            vec![
                "The certificate of shop.example is self-signed (CN=shop.example): browsers do not trust it.",
                "The certificate is not valid for shop.example: it names staging.example.",
            ]
        );
        assert!(chain_invalid(&tls));
        tls.trust = ChainTrust::UnknownIssuer;
        tls.chain[0].dns_names = vec!["shop.example".into()];
        assert_eq!(
            check(tls),
            vec!["The certificate chain of shop.example does not lead to a trusted root (issuer CN=shop.example): an intermediate certificate is missing or the CA is private."]
        );
    }

    #[test]
    fn weak_keys_and_signatures() {
        let mut leaf = cert(&["shop.example"]);
        leaf.key_algorithm = "RSA".into();
        leaf.key_bits = 1024;
        let mut intermediate = cert(&[]);
        intermediate.subject = "CN=Old Intermediate".into();
        intermediate.signature_algorithm = "sha1WithRSAEncryption".into();
        let mut root = cert(&[]);
        root.subject = "CN=Root".into();
        root.issuer = "CN=Root".into();
        root.signature_algorithm = "sha1WithRSAEncryption".into();
        let tls = facts(vec![leaf, intermediate, root]);
        assert_eq!(
            check(tls.clone()),
            vec![
                "The certificate's RSA key has only 1024 bits (at least 2048 needed).",
                "The certificate CN=Old Intermediate is signed with sha1WithRSAEncryption, which browsers no longer accept.",
            ]
        );
        assert!(!chain_invalid(&tls), "weak but not rejected outright");
    }

    #[test]
    fn failed_handshake_cannot_tell() {
        let mut tls = facts(Vec::new());
        tls.handshake_error = Some("connection reset".into());
        let mut input = site(Vec::new());
        input.tls = Some(tls.clone());
        let (_, findings, _) = super::super::analyze_site(&input, &[&TlsCertificate]);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].outcome, crate::Outcome::CantTell);
        tls.modern_unsupported = true;
        input.tls = Some(tls);
        assert!(run(&TlsCertificate, &input).is_empty());
    }
}
