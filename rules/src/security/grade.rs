//! The security score and grade of a page and of a site, on the MDN HTTP
//! Observatory's published scale (algorithm version 6).
//!
//! # Formula
//! Each page starts at 100. Each of the Observatory's twelve tests yields one result
//! with a score modifier (table in `../shared/research/PEERS.md` §2.3, ids kept):
//! Content-Security-Policy, cookies, CORS, redirection, Referrer-Policy, HSTS,
//! Subresource Integrity, X-Content-Type-Options, X-Frame-Options, COOP, COEP, CORP.
//! The penalties (negative modifiers) are added first; the bonuses (positive
//! modifiers) are added only when that sum is at least 90 ("extra credit"). The score
//! floors at 0 and has no ceiling. The grade is the score rounded down to a multiple
//! of 5 and looked up: ≥100 A+, 90 A, 85 A-, 80 B+, 70 B, 65 B-, 60 C+, 50 C, 45 C-,
//! 40 D+, 30 D, 25 D-, below F.
//!
//! Differences from the Observatory, because sitescan reads one response per page
//! and uses no network beyond the crawl: the preload list is not consulted (a
//! preload-ready HSTS header scores as `hsts-implemented-max-age-at-least-six-months`,
//! never `hsts-preloaded`); per page, redirection is judged only when the crawl
//! requested an `http:` URL (otherwise `redirection-not-tested`, modifier 0, which
//! the site grade replaces for the start page, below); CORS is judged from
//! the page's own headers (no `crossdomain.xml`). The HTML is always parsed (the
//! HTML5 parser recovers from any input), so `html-not-parseable` never occurs.
//!
//! The **site** score is the lowest score of its HTML pages (an attacker picks the
//! weakest page), and the site grade is that score's grade. Two facts the scan
//! gathers once per site change page results first, as the Observatory's own
//! scanner would see them ([`site_grade_of`]):
//!
//! - an invalid certificate chain of the https origin (untrusted, expired, not yet
//!   valid, or for another host; see `tls-certificate`) turns the HSTS result of
//!   that origin's pages into `hsts-invalid-cert` (−20) and a tested redirection
//!   into `redirection-invalid-cert` (−20). The Observatory grades nothing else of
//!   TLS — not expiry warnings, key sizes, signatures nor protocol versions — so
//!   neither does this grade (`tls-certificate` and `tls-version` report them);
//! - the first answer of the start page's `http:` twin (probed for an HTTPS start
//!   page on the default port; see `redirects-http`) gives the start page's
//!   redirection result when the crawl did not test it ([`http_redirection`]);
//! - a start page that echoed the probe `Origin` together with
//!   `Access-Control-Allow-Credentials: true` (see `cors-reflected-origin`) gets
//!   `cross-origin-resource-sharing-implemented-with-universal-access` (−50), as the
//!   Observatory, which sends an `Origin` itself, reports it.

use serde::{Deserialize, Serialize};

use super::cross_origin_isolation::{token, COEP, COOP, CORP};
use super::referrer_policy::effective_policy;
use super::strict_transport_security::{parse_hsts, MIN_MAX_AGE};
use crate::support::cookies::SetCookie;
use crate::support::csp::Policy;
use crate::support::{base_url, http_equiv, is_https, resolve, same_origin, select, selector};
use crate::PageContext;

/// The score below which bonuses are not counted.
pub const MINIMUM_SCORE_FOR_EXTRA_CREDIT: i32 = 90;

/// One test's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestResult {
    /// Observatory test name (`content-security-policy`, ...).
    pub test: &'static str,
    /// Observatory result id.
    pub result: &'static str,
    /// Its score modifier.
    pub modifier: i32,
}

/// A page's security score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecurityScore {
    /// 0 and up (more than 100 with bonuses).
    pub score: u32,
    /// Letter grade, `A+` … `F`.
    pub grade: &'static str,
    /// The twelve test results, in the Observatory's order.
    pub tests: Vec<TestResult>,
}

/// The grade of a score.
pub fn grade_for(score: u32) -> &'static str {
    match score - score % 5 {
        s if s >= 100 => "A+",
        s if s >= 90 => "A",
        85 => "A-",
        80 => "B+",
        s if s >= 70 => "B",
        65 => "B-",
        60 => "C+",
        s if s >= 50 => "C",
        45 => "C-",
        40 => "D+",
        s if s >= 30 => "D",
        25 => "D-",
        _ => "F",
    }
}

/// Combines modifiers: penalties, then bonuses only at 90 or more; floor 0.
pub fn combine(modifiers: impl IntoIterator<Item = i32>) -> u32 {
    let (mut penalties, mut bonuses) = (0i32, 0i32);
    for m in modifiers {
        if m < 0 {
            penalties += m;
        } else {
            bonuses += m;
        }
    }
    let mut score = 100 + penalties;
    if score >= MINIMUM_SCORE_FOR_EXTRA_CREDIT {
        score += bonuses;
    }
    score.max(0) as u32
}

/// What the site grade needs of one page's test results, as its summary keeps
/// them: the modifiers of the three tests a site fact can change, and the sums of
/// the others' penalties and bonuses (all [`combine`] needs of them). A summary of
/// every page is kept until the site rules run; these few integers replace the
/// twelve named results a page used to keep (about 700 bytes a page).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptResults {
    /// Sum of the negative modifiers of the tests no site fact changes (0 or less).
    pub other_penalties: i32,
    /// Sum of the positive modifiers of the tests no site fact changes.
    pub other_bonuses: i32,
    /// The `strict-transport-security` modifier.
    pub hsts: i32,
    /// The `redirection` modifier.
    pub redirection: i32,
    /// Whether the redirection was tested (its result is not
    /// `redirection-not-tested`).
    pub redirection_tested: bool,
    /// The `cross-origin-resource-sharing` modifier.
    pub cors: i32,
}

impl KeptResults {
    /// Keeps what the site grade needs of a page's test results.
    pub fn of(tests: &[TestResult]) -> KeptResults {
        let mut kept = KeptResults::default();
        for t in tests {
            match t.test {
                "strict-transport-security" => kept.hsts = t.modifier,
                "redirection" => {
                    kept.redirection = t.modifier;
                    kept.redirection_tested = t.result != "redirection-not-tested";
                }
                "cross-origin-resource-sharing" => kept.cors = t.modifier,
                _ if t.modifier < 0 => kept.other_penalties += t.modifier,
                _ => kept.other_bonuses += t.modifier,
            }
        }
        kept
    }
}

/// The site's score and grade with the site facts applied (see the module docs):
/// each HTML page's kept results, changed by an invalid certificate of its origin
/// or a reflected credentialed `Origin` on it, are combined again; the weakest page
/// decides. `None` without scored pages.
pub fn site_grade_of(site: &crate::site::SiteInput) -> Option<(u32, &'static str)> {
    let bad_cert = site
        .tls
        .as_ref()
        .filter(|t| crate::site::tls_certificate::chain_invalid(t));
    let reflected = site
        .cors_probe
        .as_ref()
        .filter(|p| p.error.is_none() && p.reflected() && p.credentials());
    let scores = site.pages.iter().filter_map(|p| {
        let score = p.security_score?;
        let Some(kept) = p.security_tests else {
            return Some(score);
        };
        let on_bad_cert = bad_cert.is_some_and(|t| {
            url::Url::parse(&p.final_url).is_ok_and(|u| {
                u.scheme() == "https"
                    && u.host_str()
                        .is_some_and(|h| h.trim_matches(['[', ']']).eq_ignore_ascii_case(&t.host))
                    && u.port_or_known_default() == Some(t.port)
            })
        });
        let probed = reflected.is_some_and(|r| crate::site::same_url(&r.url, &p.final_url));
        let http_twin = site
            .http_probe
            .as_ref()
            .filter(|_| p.depth == 0)
            .map(http_redirection);
        if !on_bad_cert && !probed && http_twin.is_none() {
            return Some(score);
        }
        let hsts = if on_bad_cert { -20 } else { kept.hsts };
        let redirection = match (kept.redirection_tested, http_twin) {
            (true, _) if on_bad_cert => -20,
            (false, Some((_, m))) => m,
            _ => kept.redirection,
        };
        let cors = if probed { -50 } else { kept.cors };
        // The others' sums combine as their terms would: penalties and bonuses
        // are summed apart.
        Some(combine([
            kept.other_penalties,
            kept.other_bonuses,
            hsts,
            redirection,
            cors,
        ]))
    });
    site_grade(scores)
}

/// The Observatory's redirection result for the first answer of the `http:` twin of
/// an HTTPS start page (only the first hop is known: the probe follows none).
pub fn http_redirection(probe: &crate::site::HttpProbe) -> (&'static str, i32) {
    let same_host = probe
        .location
        .as_deref()
        .and_then(|l| url::Url::parse(l).ok())
        .zip(url::Url::parse(&probe.url).ok())
        .is_some_and(|(to, from)| to.host_str() == from.host_str());
    if probe.error.is_some() {
        ("redirection-not-needed-no-http", 0)
    } else if probe.redirects_to_https() && same_host {
        ("redirection-to-https", 0)
    } else if probe.redirects_to_https() {
        ("redirection-off-host-from-http", -5)
    } else if (300..400).contains(&probe.status) {
        ("redirection-not-to-https-on-initial-redirection", -10)
    } else {
        ("redirection-missing", -20)
    }
}

/// The site's score and grade: the weakest page decides. `None` without pages.
pub fn site_grade(page_scores: impl IntoIterator<Item = u32>) -> Option<(u32, &'static str)> {
    page_scores.into_iter().min().map(|s| (s, grade_for(s)))
}

fn t(test: &'static str, result: &'static str, modifier: i32) -> TestResult {
    TestResult {
        test,
        result,
        modifier,
    }
}

/// Scores one parsed page.
pub fn page_score(cx: &PageContext<'_>) -> SecurityScore {
    let page = cx.page();
    let https = is_https(page);
    let hsts_ok = https
        && page
            .header("strict-transport-security")
            .and_then(|v| parse_hsts(v).ok())
            .is_some();
    let mut tests = Vec::with_capacity(12);

    // Content-Security-Policy.
    let mut enforced: Vec<Policy> = page
        .header_all("content-security-policy")
        .flat_map(Policy::parse_header)
        .collect();
    enforced.extend(
        http_equiv(cx, "content-security-policy")
            .into_iter()
            .flat_map(Policy::parse_header),
    );
    let report_only = page.header("content-security-policy-report-only").is_some();
    let (r, m) = crate::support::csp::observatory_result(&enforced, report_only);
    tests.push(t("content-security-policy", r, m));
    let frame_ancestors = page.header_all("content-security-policy").any(|v| {
        Policy::parse_header(v)
            .iter()
            .any(|p| p.get("frame-ancestors").is_some())
    });

    // Cookies.
    let cookies: Vec<SetCookie> = page
        .header_all("set-cookie")
        .filter_map(SetCookie::parse)
        .collect();
    tests.push(if cookies.is_empty() {
        t("cookies", "cookies-not-found", 0)
    } else {
        let mut worst = t(
            "cookies",
            "cookies-secure-with-httponly-sessions-and-samesite",
            5,
        );
        let mut consider = |r: TestResult| {
            if r.modifier < worst.modifier {
                worst = r;
            }
        };
        for c in &cookies {
            if c.is_session() && !c.secure {
                consider(if hsts_ok {
                    t(
                        "cookies",
                        "cookies-session-without-secure-flag-but-protected-by-hsts",
                        -10,
                    )
                } else {
                    t("cookies", "cookies-session-without-secure-flag", -40)
                });
            }
            if c.is_session() && !c.http_only {
                consider(t("cookies", "cookies-session-without-httponly-flag", -30));
            }
            if !c.same_site_valid() {
                consider(t("cookies", "cookies-samesite-flag-invalid", -20));
            }
            if c.is_anti_csrf() && c.same_site.is_none() {
                consider(t("cookies", "cookies-anticsrf-without-samesite-flag", -20));
            }
            if !c.secure {
                consider(if hsts_ok {
                    t(
                        "cookies",
                        "cookies-without-secure-flag-but-protected-by-hsts",
                        -5,
                    )
                } else {
                    t("cookies", "cookies-without-secure-flag", -20)
                });
            }
            if c.same_site.is_none() {
                consider(t("cookies", "cookies-secure-with-httponly-sessions", 0));
            }
        }
        worst
    });

    // CORS.
    let acao = page.header("access-control-allow-origin").map(str::trim);
    let credentials = page
        .header("access-control-allow-credentials")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let own = page.final_url.origin().ascii_serialization();
    tests.push(match acao {
        None => t(
            "cross-origin-resource-sharing",
            "cross-origin-resource-sharing-not-implemented",
            0,
        ),
        Some(a)
            if a.eq_ignore_ascii_case("null")
                || (credentials && a.trim_end_matches('/') != own) =>
        {
            t(
                "cross-origin-resource-sharing",
                "cross-origin-resource-sharing-implemented-with-universal-access",
                -50,
            )
        }
        Some("*") => t(
            "cross-origin-resource-sharing",
            "cross-origin-resource-sharing-implemented-with-public-access",
            0,
        ),
        Some(_) => t(
            "cross-origin-resource-sharing",
            "cross-origin-resource-sharing-implemented-with-restricted-access",
            0,
        ),
    });

    // Redirection (only judged when an http: URL was requested).
    tests.push(if page.url.scheme() != "http" {
        t("redirection", "redirection-not-tested", 0)
    } else if !https && page.redirects.is_empty() {
        t("redirection", "redirection-missing", -20)
    } else if !https {
        t("redirection", "redirection-not-to-https", -20)
    } else {
        let first_hop_https = page
            .redirects
            .first()
            .and_then(|h| url::Url::parse(&h.location).ok())
            .is_some_and(|u| u.scheme() == "https");
        let first_same_host = page
            .redirects
            .first()
            .and_then(|h| url::Url::parse(&h.location).ok())
            .is_some_and(|u| u.host_str() == page.url.host_str());
        if !first_hop_https {
            t(
                "redirection",
                "redirection-not-to-https-on-initial-redirection",
                -10,
            )
        } else if !first_same_host {
            t("redirection", "redirection-off-host-from-http", -5)
        } else {
            t("redirection", "redirection-to-https", 0)
        }
    });

    // Referrer-Policy.
    const PRIVATE: &[&str] = &[
        "no-referrer",
        "same-origin",
        "strict-origin",
        "strict-origin-when-cross-origin",
    ];
    let referrer = page
        .header("referrer-policy")
        .map(str::to_string)
        .or_else(|| {
            crate::support::meta_contents(cx, "referrer")
                .first()
                .and_then(|m| m.value().attr("content"))
                .map(str::to_string)
        });
    tests.push(
        match referrer.as_deref().map(|v| (v, effective_policy(v))) {
            None => t("referrer-policy", "referrer-policy-not-implemented", 0),
            Some((_, None)) => t("referrer-policy", "referrer-policy-header-invalid", -5),
            Some((_, Some(p))) if PRIVATE.contains(&p.as_str()) => {
                t("referrer-policy", "referrer-policy-private", 5)
            }
            Some(_) => t("referrer-policy", "referrer-policy-unsafe", -5),
        },
    );

    // HSTS.
    tests.push(if !https {
        t(
            "strict-transport-security",
            "hsts-not-implemented-no-https",
            -20,
        )
    } else {
        match page.header("strict-transport-security").map(parse_hsts) {
            None => t("strict-transport-security", "hsts-not-implemented", -20),
            Some(Err(_)) => t("strict-transport-security", "hsts-header-invalid", -20),
            Some(Ok(h)) if h.max_age < MIN_MAX_AGE => t(
                "strict-transport-security",
                "hsts-implemented-max-age-less-than-six-months",
                -10,
            ),
            Some(Ok(_)) => t(
                "strict-transport-security",
                "hsts-implemented-max-age-at-least-six-months",
                0,
            ),
        }
    });

    // Subresource integrity.
    tests.push(if !page.is_html() {
        t(
            "subresource-integrity",
            "sri-not-implemented-response-not-html",
            0,
        )
    } else {
        let base = base_url(cx);
        let mut any = false;
        let mut any_integrity = false;
        let (mut ext, mut ext_sri, mut ext_insecure, mut ext_insecure_sri) = (0, 0, 0, 0);
        for s in select(cx, selector!("script[src]")) {
            let Some(u) = s.value().attr("src").and_then(|v| resolve(&base, v)) else {
                continue;
            };
            any = true;
            let has_sri = s
                .value()
                .attr("integrity")
                .is_some_and(|i| !i.trim().is_empty());
            any_integrity |= has_sri;
            if !same_origin(&u, &page.final_url) {
                ext += 1;
                if has_sri {
                    ext_sri += 1;
                }
                if u.scheme() != "https" {
                    ext_insecure += 1;
                    if has_sri {
                        ext_insecure_sri += 1;
                    }
                }
            }
        }
        let sri = "subresource-integrity";
        if !any {
            t(sri, "sri-not-implemented-but-no-scripts-loaded", 0)
        } else if ext == 0 {
            if any_integrity {
                t(sri, "sri-implemented-and-all-scripts-loaded-securely", 5)
            } else {
                t(
                    sri,
                    "sri-not-implemented-but-all-scripts-loaded-from-secure-origin",
                    0,
                )
            }
        } else if ext_insecure > 0 {
            if ext_insecure_sri == ext_insecure {
                t(
                    sri,
                    "sri-implemented-but-external-scripts-not-loaded-securely",
                    -20,
                )
            } else {
                t(
                    sri,
                    "sri-not-implemented-and-external-scripts-not-loaded-securely",
                    -50,
                )
            }
        } else if ext_sri == ext {
            t(
                sri,
                "sri-implemented-and-external-scripts-loaded-securely",
                5,
            )
        } else {
            t(
                sri,
                "sri-not-implemented-but-external-scripts-loaded-securely",
                -5,
            )
        }
    });

    // X-Content-Type-Options.
    tests.push(match page.header("x-content-type-options") {
        None => t(
            "x-content-type-options",
            "x-content-type-options-not-implemented",
            -5,
        ),
        Some(v) if v.trim().eq_ignore_ascii_case("nosniff") => t(
            "x-content-type-options",
            "x-content-type-options-nosniff",
            0,
        ),
        Some(_) => t(
            "x-content-type-options",
            "x-content-type-options-header-invalid",
            -5,
        ),
    });

    // X-Frame-Options.
    tests.push(if frame_ancestors {
        t("x-frame-options", "x-frame-options-implemented-via-csp", 5)
    } else {
        match page
            .header("x-frame-options")
            .map(|v| v.trim().to_ascii_lowercase())
        {
            None => t("x-frame-options", "x-frame-options-not-implemented", -20),
            Some(v) if v == "deny" || v == "sameorigin" => {
                t("x-frame-options", "x-frame-options-sameorigin-or-deny", 5)
            }
            Some(v) if v.starts_with("allow-from") => {
                t("x-frame-options", "x-frame-options-allow-from-origin", 0)
            }
            Some(_) => t("x-frame-options", "x-frame-options-header-invalid", -20),
        }
    });

    // Cross-origin policies.
    let coop = page.header("cross-origin-opener-policy").map(token);
    tests.push(match coop.as_deref() {
        None => t("cross-origin-opener-policy", "coop-not-implemented", 0),
        Some("same-origin") => t(
            "cross-origin-opener-policy",
            "coop-implemented-with-same-origin",
            10,
        ),
        Some("same-origin-allow-popups") => t(
            "cross-origin-opener-policy",
            "coop-implemented-with-same-origin-allow-popups",
            10,
        ),
        Some("noopener-allow-popups") => t(
            "cross-origin-opener-policy",
            "coop-implemented-with-noopener-allow-popups",
            10,
        ),
        Some(v) if COOP.contains(&v) => t(
            "cross-origin-opener-policy",
            "coop-implemented-with-unsafe-none",
            0,
        ),
        Some(_) => t("cross-origin-opener-policy", "coop-header-invalid", -5),
    });
    let coep = page.header("cross-origin-embedder-policy").map(token);
    tests.push(match coep.as_deref() {
        None => t("cross-origin-embedder-policy", "coep-not-implemented", 0),
        Some("require-corp") => t(
            "cross-origin-embedder-policy",
            "coep-implemented-with-require-corp",
            10,
        ),
        Some("credentialless") => t(
            "cross-origin-embedder-policy",
            "coep-implemented-with-credentialless",
            10,
        ),
        Some(v) if COEP.contains(&v) => t(
            "cross-origin-embedder-policy",
            "coep-implemented-with-unsafe-none",
            0,
        ),
        Some(_) => t("cross-origin-embedder-policy", "coep-header-invalid", -5),
    });
    let corp = page.header("cross-origin-resource-policy").map(token);
    tests.push(match corp.as_deref() {
        None => t("cross-origin-resource-policy", "corp-not-implemented", 0),
        Some("same-origin") => t(
            "cross-origin-resource-policy",
            "corp-implemented-with-same-origin",
            10,
        ),
        Some("same-site") => t(
            "cross-origin-resource-policy",
            "corp-implemented-with-same-site",
            10,
        ),
        Some(v) if CORP.contains(&v) => t(
            "cross-origin-resource-policy",
            "corp-implemented-with-cross-origin",
            0,
        ),
        Some(_) => t("cross-origin-resource-policy", "corp-header-invalid", -5),
    });

    let score = combine(tests.iter().map(|r| r.modifier));
    SecurityScore {
        score,
        grade: grade_for(score),
        tests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Page;

    fn score(page: &Page) -> SecurityScore {
        page_score(&PageContext::parse(page))
    }

    #[test]
    fn site_facts_change_the_site_grade() {
        use crate::site::tls_certificate::tests::{cert, facts};
        use crate::site::{ChainTrust, CorsProbe, PageSummary, SiteInput};
        let page = Page::from_html(
            "https://shop.example/",
            "<html lang=en><head><title>x</title></head><body></body></html>",
        )
        .with_header("Strict-Transport-Security", "max-age=63072000");
        let mut site = SiteInput {
            start_url: "https://shop.example/".into(),
            pages: vec![PageSummary::of(&PageContext::parse(&page))],
            ..SiteInput::default()
        };
        // CSP -25, X-Frame-Options -20, X-Content-Type-Options -5.
        assert_eq!(site_grade_of(&site), Some((50, "C")));
        let mut tls = facts(vec![cert(&["shop.example"])]);
        site.tls = Some(tls.clone());
        assert_eq!(
            site_grade_of(&site),
            Some((50, "C")),
            "a valid chain changes nothing"
        );
        tls.trust = ChainTrust::SelfSigned;
        site.tls = Some(tls.clone());
        // hsts-invalid-cert -20; redirection was not tested.
        assert_eq!(site_grade_of(&site), Some((30, "D")));
        tls.port = 8443;
        site.tls = Some(tls);
        assert_eq!(
            site_grade_of(&site),
            Some((50, "C")),
            "another origin's certificate"
        );
        site.cors_probe = Some(CorsProbe {
            url: "https://shop.example/".into(),
            origin: "https://sitescan-origin-probe.invalid".into(),
            status: 200,
            allow_origin: Some("https://sitescan-origin-probe.invalid".into()),
            allow_credentials: Some("true".into()),
            error: None,
        });
        assert_eq!(site_grade_of(&site), Some((0, "F")));
    }

    /// The kept sums give back the page's own score, bonuses only counted at 90
    /// or more as before, and the three changeable tests are kept apart.
    #[test]
    fn kept_results_combine_to_the_page_score() {
        let pages = [
            Page::from_html("https://shop.example/", "<html><body></body></html>")
                .with_header("Strict-Transport-Security", "max-age=63072000"),
            Page::from_html("http://shop.example/", "<html><body></body></html>"),
            Page::from_html("https://shop.example/", "<html><body></body></html>")
                .with_header(
                    "Content-Security-Policy",
                    "default-src 'none'; frame-ancestors 'none'",
                )
                .with_header("Strict-Transport-Security", "max-age=63072000")
                .with_header("X-Content-Type-Options", "nosniff")
                .with_header("Cross-Origin-Opener-Policy", "same-origin")
                .with_header("Referrer-Policy", "no-referrer"),
        ];
        for page in pages {
            let s = page_score(&PageContext::parse(&page));
            let kept = KeptResults::of(&s.tests);
            let score = combine([
                kept.other_penalties,
                kept.other_bonuses,
                kept.hsts,
                kept.redirection,
                kept.cors,
            ]);
            assert_eq!(score, s.score, "{:#?}", s.tests);
            let modifier = |name: &str| s.tests.iter().find(|t| t.test == name).unwrap().modifier;
            assert_eq!(kept.hsts, modifier("strict-transport-security"));
            assert_eq!(kept.redirection, modifier("redirection"));
            assert_eq!(kept.cors, modifier("cross-origin-resource-sharing"));
            assert!(kept.other_penalties <= 0 && kept.other_bonuses >= 0);
        }
    }

    #[test]
    fn the_http_twin_gives_the_start_page_redirection_result() {
        use crate::site::{HttpProbe, PageSummary, SiteInput};
        let page = Page::from_html(
            "https://shop.example/",
            "<html lang=en><head><title>x</title></head><body></body></html>",
        )
        .with_header("Strict-Transport-Security", "max-age=63072000");
        let probe = |status: u16, location: Option<&str>, error: Option<&str>| HttpProbe {
            url: "http://shop.example/".into(),
            status,
            location: location.map(str::to_string),
            error: error.map(str::to_string),
        };
        let cases = [
            (
                probe(301, Some("https://shop.example/"), None),
                "redirection-to-https",
                50,
            ),
            (
                probe(0, None, Some("timed out")),
                "redirection-not-needed-no-http",
                50,
            ),
            (
                probe(301, Some("https://www.shop.example/"), None),
                "redirection-off-host-from-http",
                45,
            ),
            (
                probe(301, Some("http://www.shop.example/"), None),
                "redirection-not-to-https-on-initial-redirection",
                40,
            ),
            (probe(200, None, None), "redirection-missing", 30),
        ];
        for (p, result, score) in cases {
            assert_eq!(http_redirection(&p).0, result);
            let site = SiteInput {
                start_url: "https://shop.example/".into(),
                pages: vec![PageSummary::of(&PageContext::parse(&page))],
                http_probe: Some(p),
                ..SiteInput::default()
            };
            // CSP -25, X-Frame-Options -20, X-Content-Type-Options -5, then this.
            assert_eq!(site_grade_of(&site).map(|s| s.0), Some(score), "{result}");
        }
    }

    #[test]
    fn grade_scale() {
        let cases = [
            (135, "A+"),
            (100, "A+"),
            (99, "A"),
            (90, "A"),
            (89, "A-"),
            (85, "A-"),
            (84, "B+"),
            (80, "B+"),
            (79, "B"),
            (70, "B"),
            (69, "B-"),
            (65, "B-"),
            (64, "C+"),
            (60, "C+"),
            (59, "C"),
            (50, "C"),
            (49, "C-"),
            (45, "C-"),
            (44, "D+"),
            (40, "D+"),
            (39, "D"),
            (30, "D"),
            (29, "D-"),
            (25, "D-"),
            (24, "F"),
            (0, "F"),
        ];
        for (s, g) in cases {
            assert_eq!(grade_for(s), g, "{s}");
        }
    }

    #[test]
    fn extra_credit_only_at_ninety() {
        assert_eq!(combine([-5, 10, 10]), 115);
        assert_eq!(combine([-20, 10, 10]), 80);
        assert_eq!(combine([-100, -50]), 0);
    }

    #[test]
    fn bare_page_gets_an_f_style_penalty_sum() {
        // No headers at all: CSP -25, HSTS -20, XCTO -5, XFO -20 => 30 (D).
        let s = score(&RuleTester::page("<p>x</p>"));
        assert_eq!((s.score, s.grade), (30, "D"));
        assert_eq!(s.tests.len(), 12);
    }

    #[test]
    fn hardened_page_scores_a_plus() {
        let page = RuleTester::page("<p>x</p>")
            .with_header(
                "Content-Security-Policy",
                "default-src 'none'; frame-ancestors 'none'",
            )
            .with_header("Strict-Transport-Security", "max-age=63072000")
            .with_header("X-Content-Type-Options", "nosniff")
            .with_header("Referrer-Policy", "no-referrer")
            .with_header("Cross-Origin-Opener-Policy", "same-origin")
            .with_header(
                "Set-Cookie",
                "__Host-sid=1; Path=/; Secure; HttpOnly; SameSite=Strict",
            );
        let s = score(&page);
        // 100 + CSP 10 + cookies 5 + referrer 5 + XFO via CSP 5 + COOP 10 = 135.
        assert_eq!((s.score, s.grade), (135, "A+"), "{:#?}", s.tests);
    }

    /// The result of one test for a page.
    fn result_of(page: &Page, test: &str) -> (&'static str, i32) {
        let s = score(page);
        let r = s.tests.iter().find(|r| r.test == test).unwrap();
        (r.result, r.modifier)
    }

    fn with(headers: &[(&str, &str)]) -> Page {
        headers
            .iter()
            .fold(RuleTester::page("<p>x</p>"), |p, (k, v)| {
                p.with_header(k, v)
            })
    }

    /// Every result id of the Observatory's header tests this grade can give, with
    /// its modifier (CSP ids: `support::csp` tests).
    #[test]
    fn every_header_result_id() {
        let hsts = ("Strict-Transport-Security", "max-age=63072000");
        /// Response headers, test, expected result id, expected modifier.
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str, i32);
        let cases: &[Case] = &[
            (&[], "cookies", "cookies-not-found", 0),
            (
                &[("Set-Cookie", "sid=1; Secure; HttpOnly; SameSite=Lax")],
                "cookies",
                "cookies-secure-with-httponly-sessions-and-samesite",
                5,
            ),
            (
                &[("Set-Cookie", "sid=1; Secure; HttpOnly")],
                "cookies",
                "cookies-secure-with-httponly-sessions",
                0,
            ),
            (
                &[hsts, ("Set-Cookie", "theme=dark; SameSite=Lax")],
                "cookies",
                "cookies-without-secure-flag-but-protected-by-hsts",
                -5,
            ),
            (
                &[hsts, ("Set-Cookie", "sid=1; HttpOnly; SameSite=Lax")],
                "cookies",
                "cookies-session-without-secure-flag-but-protected-by-hsts",
                -10,
            ),
            (
                &[("Set-Cookie", "theme=dark; SameSite=Lax")],
                "cookies",
                "cookies-without-secure-flag",
                -20,
            ),
            (
                &[("Set-Cookie", "theme=dark; Secure; SameSite=Sometimes")],
                "cookies",
                "cookies-samesite-flag-invalid",
                -20,
            ),
            (
                &[("Set-Cookie", "csrf=1; Secure; HttpOnly")],
                "cookies",
                "cookies-anticsrf-without-samesite-flag",
                -20,
            ),
            (
                &[("Set-Cookie", "sid=1; Secure; SameSite=Lax")],
                "cookies",
                "cookies-session-without-httponly-flag",
                -30,
            ),
            (
                &[("Set-Cookie", "sid=1; HttpOnly; SameSite=Lax")],
                "cookies",
                "cookies-session-without-secure-flag",
                -40,
            ),
            (
                &[],
                "cross-origin-resource-sharing",
                "cross-origin-resource-sharing-not-implemented",
                0,
            ),
            (
                &[("Access-Control-Allow-Origin", "*")],
                "cross-origin-resource-sharing",
                "cross-origin-resource-sharing-implemented-with-public-access",
                0,
            ),
            (
                &[("Access-Control-Allow-Origin", "https://partner.example")],
                "cross-origin-resource-sharing",
                "cross-origin-resource-sharing-implemented-with-restricted-access",
                0,
            ),
            (
                &[
                    ("Access-Control-Allow-Origin", "https://partner.example"),
                    ("Access-Control-Allow-Credentials", "true"),
                ],
                "cross-origin-resource-sharing",
                "cross-origin-resource-sharing-implemented-with-universal-access",
                -50,
            ),
            (&[], "redirection", "redirection-not-tested", 0),
            (&[], "referrer-policy", "referrer-policy-not-implemented", 0),
            (
                &[("Referrer-Policy", "strict-origin-when-cross-origin")],
                "referrer-policy",
                "referrer-policy-private",
                5,
            ),
            (
                &[("Referrer-Policy", "unsafe-url")],
                "referrer-policy",
                "referrer-policy-unsafe",
                -5,
            ),
            (
                &[("Referrer-Policy", "sometimes")],
                "referrer-policy",
                "referrer-policy-header-invalid",
                -5,
            ),
            (
                &[],
                "strict-transport-security",
                "hsts-not-implemented",
                -20,
            ),
            (
                &[hsts],
                "strict-transport-security",
                "hsts-implemented-max-age-at-least-six-months",
                0,
            ),
            (
                &[("Strict-Transport-Security", "max-age=86400")],
                "strict-transport-security",
                "hsts-implemented-max-age-less-than-six-months",
                -10,
            ),
            (
                &[("Strict-Transport-Security", "max-age=soon")],
                "strict-transport-security",
                "hsts-header-invalid",
                -20,
            ),
            (
                &[],
                "subresource-integrity",
                "sri-not-implemented-but-no-scripts-loaded",
                0,
            ),
            (
                &[],
                "x-content-type-options",
                "x-content-type-options-not-implemented",
                -5,
            ),
            (
                &[("X-Content-Type-Options", "nosniff")],
                "x-content-type-options",
                "x-content-type-options-nosniff",
                0,
            ),
            (
                &[("X-Content-Type-Options", "sniff")],
                "x-content-type-options",
                "x-content-type-options-header-invalid",
                -5,
            ),
            (
                &[],
                "x-frame-options",
                "x-frame-options-not-implemented",
                -20,
            ),
            (
                &[("Content-Security-Policy", "frame-ancestors 'self'")],
                "x-frame-options",
                "x-frame-options-implemented-via-csp",
                5,
            ),
            (
                &[("X-Frame-Options", "DENY")],
                "x-frame-options",
                "x-frame-options-sameorigin-or-deny",
                5,
            ),
            (
                &[("X-Frame-Options", "ALLOW-FROM https://a.example")],
                "x-frame-options",
                "x-frame-options-allow-from-origin",
                0,
            ),
            (
                &[("X-Frame-Options", "maybe")],
                "x-frame-options",
                "x-frame-options-header-invalid",
                -20,
            ),
            (&[], "cross-origin-opener-policy", "coop-not-implemented", 0),
            (
                &[("Cross-Origin-Opener-Policy", "same-origin")],
                "cross-origin-opener-policy",
                "coop-implemented-with-same-origin",
                10,
            ),
            (
                &[("Cross-Origin-Opener-Policy", "same-origin-allow-popups")],
                "cross-origin-opener-policy",
                "coop-implemented-with-same-origin-allow-popups",
                10,
            ),
            (
                &[("Cross-Origin-Opener-Policy", "noopener-allow-popups")],
                "cross-origin-opener-policy",
                "coop-implemented-with-noopener-allow-popups",
                10,
            ),
            (
                &[("Cross-Origin-Opener-Policy", "unsafe-none")],
                "cross-origin-opener-policy",
                "coop-implemented-with-unsafe-none",
                0,
            ),
            (
                &[("Cross-Origin-Opener-Policy", "same-site")],
                "cross-origin-opener-policy",
                "coop-header-invalid",
                -5,
            ),
            (
                &[],
                "cross-origin-embedder-policy",
                "coep-not-implemented",
                0,
            ),
            (
                &[("Cross-Origin-Embedder-Policy", "require-corp")],
                "cross-origin-embedder-policy",
                "coep-implemented-with-require-corp",
                10,
            ),
            (
                &[("Cross-Origin-Embedder-Policy", "credentialless")],
                "cross-origin-embedder-policy",
                "coep-implemented-with-credentialless",
                10,
            ),
            (
                &[("Cross-Origin-Embedder-Policy", "unsafe-none")],
                "cross-origin-embedder-policy",
                "coep-implemented-with-unsafe-none",
                0,
            ),
            (
                &[("Cross-Origin-Embedder-Policy", "require-everything")],
                "cross-origin-embedder-policy",
                "coep-header-invalid",
                -5,
            ),
            (
                &[],
                "cross-origin-resource-policy",
                "corp-not-implemented",
                0,
            ),
            (
                &[("Cross-Origin-Resource-Policy", "same-origin")],
                "cross-origin-resource-policy",
                "corp-implemented-with-same-origin",
                10,
            ),
            (
                &[("Cross-Origin-Resource-Policy", "same-site")],
                "cross-origin-resource-policy",
                "corp-implemented-with-same-site",
                10,
            ),
            (
                &[("Cross-Origin-Resource-Policy", "cross-origin")],
                "cross-origin-resource-policy",
                "corp-implemented-with-cross-origin",
                0,
            ),
            (
                &[("Cross-Origin-Resource-Policy", "same-host")],
                "cross-origin-resource-policy",
                "corp-header-invalid",
                -5,
            ),
        ];
        for (headers, test, result, modifier) in cases {
            assert_eq!(
                result_of(&with(headers), test),
                (*result, *modifier),
                "{headers:?}"
            );
        }
        // Plain HTTP without HTTPS at all.
        let http = Page::from_html("http://example.com/", "<p>x</p>");
        assert_eq!(
            result_of(&http, "strict-transport-security"),
            ("hsts-not-implemented-no-https", -20)
        );
    }

    /// Subresource integrity and redirection results that depend on the markup or
    /// the redirect hops.
    #[test]
    fn sri_and_redirection_result_ids() {
        let sri = |html: &str| result_of(&RuleTester::page(html), "subresource-integrity");
        assert_eq!(
            sri(r#"<script src="/app.js" integrity="sha384-x"></script>"#),
            ("sri-implemented-and-all-scripts-loaded-securely", 5)
        );
        assert_eq!(
            sri(r#"<script src="/app.js"></script>"#),
            (
                "sri-not-implemented-but-all-scripts-loaded-from-secure-origin",
                0
            )
        );
        assert_eq!(
            sri(r#"<script src="https://cdn.example/a.js" integrity="sha384-x"></script>"#),
            ("sri-implemented-and-external-scripts-loaded-securely", 5)
        );
        assert_eq!(
            sri(r#"<script src="https://cdn.example/a.js"></script>"#),
            (
                "sri-not-implemented-but-external-scripts-loaded-securely",
                -5
            )
        );
        assert_eq!(
            sri(r#"<script src="http://cdn.example/a.js" integrity="sha384-x"></script>"#),
            (
                "sri-implemented-but-external-scripts-not-loaded-securely",
                -20
            )
        );
        let mut json = RuleTester::page("<p>x</p>");
        json.content_type = Some("application/json".into());
        assert_eq!(
            result_of(&json, "subresource-integrity"),
            ("sri-not-implemented-response-not-html", 0)
        );

        let hop = |to: &str| crate::page::Hop {
            url: String::new(),
            status: 301,
            location: to.to_string(),
        };
        let redirected = |from: &str, to: &str, hops: Vec<crate::page::Hop>| {
            let mut p = Page::from_html(to, "<p>x</p>");
            p.url = url::Url::parse(from).unwrap();
            p.redirects = hops;
            p
        };
        let cases = [
            (
                redirected(
                    "http://example.com/",
                    "https://example.com/",
                    vec![hop("https://example.com/")],
                ),
                "redirection-to-https",
                0,
            ),
            (
                redirected(
                    "http://example.com/",
                    "https://www.example.com/",
                    vec![hop("https://www.example.com/")],
                ),
                "redirection-off-host-from-http",
                -5,
            ),
            (
                redirected(
                    "http://example.com/",
                    "https://example.com/",
                    vec![hop("http://www.example.com/"), hop("https://example.com/")],
                ),
                "redirection-not-to-https-on-initial-redirection",
                -10,
            ),
            (
                redirected(
                    "http://example.com/",
                    "http://www.example.com/",
                    vec![hop("http://www.example.com/")],
                ),
                "redirection-not-to-https",
                -20,
            ),
            (
                redirected("http://example.com/", "http://example.com/", vec![]),
                "redirection-missing",
                -20,
            ),
        ];
        for (page, result, modifier) in cases {
            assert_eq!(
                result_of(&page, "redirection"),
                (result, modifier),
                "{:?}",
                page.redirects
            );
        }
    }

    #[test]
    fn session_cookie_and_insecure_scripts() {
        let page = Page::from_html(
            "http://example.com/",
            r#"<script src="http://cdn.example.net/a.js"></script>"#,
        )
        .with_header("Set-Cookie", "sessionid=1");
        let s = score(&page);
        let by_test = |name: &str| s.tests.iter().find(|r| r.test == name).unwrap().result;
        assert_eq!(by_test("cookies"), "cookies-session-without-secure-flag");
        assert_eq!(
            by_test("subresource-integrity"),
            "sri-not-implemented-and-external-scripts-not-loaded-securely"
        );
        assert_eq!(by_test("redirection"), "redirection-missing");
        assert_eq!(s.score, 0);
        assert_eq!(site_grade([s.score, 135]), Some((0, "F")));
    }
}
