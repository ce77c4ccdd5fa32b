//! `content-security-policy`: an enforced CSP that CSP Evaluator would not flag.

use crate::support::csp::{evaluate, CspFinding, Policy, Severity};
use crate::support::{header_snippet, http_equiv};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Evaluates the page's Content-Security-Policy as Google's CSP Evaluator does.
pub struct ContentSecurityPolicy;

static META: RuleMeta = RuleMeta {
    id: "content-security-policy",
    category: Category::Security,
    title: "Content-Security-Policy is enforced and strict",
    help: "Send a Content-Security-Policy that restricts scripts with nonces or hashes (e.g. `script-src 'nonce-…' 'strict-dynamic'; object-src 'none'; base-uri 'none'`).",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/csp-xss",
    impact: Impact::Serious,
    docs: r#"## What it checks
The enforced policies (every `Content-Security-Policy` header, comma-separated
policies and `<meta http-equiv="Content-Security-Policy">`) are parsed and evaluated
as Google's CSP Evaluator classifies its findings:

- no enforced policy at all, or only `Content-Security-Policy-Report-Only` (which
  enforces nothing);
- syntax: unknown directives, a missing semicolon (a directive name inside another
  directive), unquoted or unknown keywords, repeated directives;
- high: `'unsafe-inline'` in the effective `script-src` without a nonce or hash;
  `*` or plain `http:` / `https:` / `data:` sources in `script-src`, `object-src` or
  `base-uri` (ignored when `'strict-dynamic'` is used); missing `script-src` (and
  `default-src`) or `object-src`; missing `base-uri` when scripts are allowed by nonce
  (or hash plus `'strict-dynamic'`);
- medium: `http://` sources, nonces shorter than 8 characters;
- strict CSP: a host or scheme allowlist in `script-src` without `'strict-dynamic'`
  (`STRICT_DYNAMIC`: allowlists are bypassable through JSONP endpoints and old
  libraries on allowed hosts; Lighthouse's `csp-xss` fails it too, which is why no
  list of bypassable hosts is kept — every allowlist is already reported).

These are failures. "Maybe" findings — `'unsafe-eval'`, `'unsafe-hashes'` — are
reported as needing review. The evaluator also classifies, without reporting here:
the backward-compatibility advice for strict policies (`UNSAFE_INLINE_FALLBACK`,
`ALLOWLIST_FALLBACK`, which Lighthouse shows only as warnings) and informational
findings (deprecated directives, IP sources, nonce charset, `'strict-dynamic'`
without a nonce or hash, no `require-trusted-types-for 'script'`, no reporting
destination or `report-to` only). Flash-object bypasses (`OBJECT_ALLOWLIST_BYPASS`)
are not checked: no browser runs plugins since 2021, and a missing or wide
`object-src` is already high. With several enforced policies a resource must pass
all of them, so a security weakness is reported only when every policy has it; a
missing `base-uri` is reported only when no policy sets one. Each finding's data
holds CSP Evaluator's type and severity.

## Why it matters
A strict CSP is the main defence in depth against cross-site scripting: even when
an attacker injects markup, the browser refuses to run scripts the policy does not
allow. Allowlist policies with `'unsafe-inline'` or wide sources stop almost nothing.

## Failing
```html
<!-- Content-Security-Policy: script-src 'self' 'unsafe-inline' https: -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```

## Passing
```html
<!-- Content-Security-Policy: script-src 'nonce-r4nd0m123' 'strict-dynamic'; object-src 'none'; base-uri 'none' -->
<html lang="en"><head><title>Shop</title></head><body></body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

const SYNTAX_KINDS: &[&str] = &[
    "UNKNOWN_DIRECTIVE",
    "DUPLICATE_DIRECTIVE",
    "MISSING_SEMICOLON",
    "INVALID_KEYWORD",
];

impl Rule for ContentSecurityPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let mut sources: Vec<(String, Policy)> = Vec::new();
        for value in page.header_all("content-security-policy") {
            for p in Policy::parse_header(value) {
                sources.push((header_snippet("Content-Security-Policy", value), p));
            }
        }
        for value in http_equiv(cx.page(), "content-security-policy") {
            for p in Policy::parse_header(value) {
                sources.push((
                    format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{value}\">"),
                    p,
                ));
            }
        }
        if sources.is_empty() {
            if let Some(ro) = page.header("content-security-policy-report-only") {
                cx.fail_page("Only Content-Security-Policy-Report-Only is sent: violations are reported but nothing is blocked.")
                    .with_snippet(header_snippet("Content-Security-Policy-Report-Only", ro));
            } else {
                cx.fail_page("The page has no Content-Security-Policy.");
            }
            return;
        }
        let evaluated: Vec<(String, Vec<CspFinding>)> = sources
            .iter()
            .map(|(snippet, p)| (snippet.clone(), evaluate(p)))
            .collect();
        let in_every = |kind: &str, directive: &str| {
            evaluated.iter().all(|(_, fs)| {
                fs.iter()
                    .any(|f| f.kind == kind && f.directive == directive)
            })
        };
        // A missing base-uri is judged across the policies (CSP Evaluator's
        // checkMultipleMissingBaseUriDirective): one policy's base-uri covers all.
        let base_uri_anywhere = sources.iter().any(|(_, p)| p.get("base-uri").is_some());
        let mut reported = 0;
        let mut seen: Vec<(&str, String, Option<String>)> = Vec::new();
        for (snippet, findings) in &evaluated {
            for f in findings {
                let syntax = SYNTAX_KINDS.contains(&f.kind);
                let missing_base_uri = f.kind == "MISSING_DIRECTIVES" && f.directive == "base-uri";
                if missing_base_uri {
                    if base_uri_anywhere {
                        continue;
                    }
                } else if !syntax && !in_every(f.kind, &f.directive) {
                    continue;
                }
                let key = (f.kind, f.directive.clone(), f.value.clone());
                if !syntax && seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                let data = serde_json::json!({
                    "csp_evaluator_type": f.kind,
                    "severity": f.severity,
                    "directive": f.directive,
                    "value": f.value,
                });
                match f.severity {
                    Severity::High | Severity::Syntax | Severity::Medium => {
                        reported += 1;
                        cx.fail_page(f.message.clone())
                            .with_snippet(snippet.clone())
                            .with_data(data);
                    }
                    Severity::HighMaybe | Severity::MediumMaybe => {
                        reported += 1;
                        cx.cant_tell_page(f.message.clone())
                            .with_snippet(snippet.clone())
                            .with_data(data);
                    }
                    // Lighthouse's csp-xss fails a host allowlist without
                    // 'strict-dynamic'; the fallbacks for old browsers are advice.
                    Severity::StrictCsp if f.kind == "STRICT_DYNAMIC" => {
                        reported += 1;
                        cx.fail_page(f.message.clone())
                            .with_snippet(snippet.clone())
                            .with_data(data);
                    }
                    Severity::StrictCsp | Severity::Info => {}
                }
            }
        }
        if reported == 0 {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::{analyze, Page};

    fn csp(v: &str) -> Page {
        RuleTester::page("<p>x</p>").with_header("Content-Security-Policy", v)
    }

    #[test]
    fn examples() {
        RuleTester::new(&ContentSecurityPolicy)
            .pass_page("(page)", csp(
                "script-src 'nonce-r4nd0m123' 'strict-dynamic'; object-src 'none'; base-uri 'none'",
            ))
            .pass_page("(page)", csp(
                "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
            ))
            .pass_page("(page)", csp("default-src 'self', img-src *"))
            .pass(&[("(page)", r#"<meta http-equiv="Content-Security-Policy" content="default-src 'self'">"#)])
            .fail_page("(page)", RuleTester::page("<p>none</p>"))
            .fail_page("(page)", 
                RuleTester::page("<p>x</p>")
                    .with_header("Content-Security-Policy-Report-Only", "default-src 'self'"),
            )
            .fail_page("(page)", csp("script-src 'self' 'unsafe-inline'; object-src 'none'"))
            .fail_page("(page)", csp("default-src 'self' object-src 'none'"))
            .fail_page("(page)", csp("default-src *"))
            .fail_page("(page)", csp("img-src 'self'"))
            .fail_page("(page)", csp("script-src 'nonce-abcdefgh'; object-src 'none'"))
            .run();
    }

    #[test]
    fn unsafe_eval_needs_review() {
        let page = csp("default-src 'self' 'unsafe-eval'");
        let a = analyze(&page, &[&ContentSecurityPolicy]);
        assert_eq!(a.findings.len(), 1);
        assert_eq!(a.findings[0].outcome, crate::Outcome::CantTell);
        assert_eq!(
            a.findings[0].data.as_ref().unwrap()["csp_evaluator_type"],
            "SCRIPT_UNSAFE_EVAL"
        );
    }

    /// `(CSP Evaluator type, outcome)` of each finding.
    fn types(page: &Page) -> Vec<(String, crate::Outcome)> {
        analyze(page, &[&ContentSecurityPolicy])
            .findings
            .iter()
            .map(|f| {
                (
                    f.data.as_ref().unwrap()["csp_evaluator_type"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    f.outcome,
                )
            })
            .collect()
    }

    #[test]
    fn host_allowlists_fail_and_strict_policy_advice_does_not() {
        use crate::Outcome::Failed;
        assert_eq!(
            types(&csp(
                "script-src 'self' https://cdn.example; object-src 'none'"
            )),
            vec![("STRICT_DYNAMIC".to_string(), Failed)]
        );
        // Missing fallbacks for old browsers, Trusted Types and reporting: advice only.
        assert_eq!(
            types(&csp(
                "script-src 'nonce-r4nd0m123' 'strict-dynamic'; object-src 'none'; base-uri 'none'"
            )),
            vec![]
        );
    }

    #[test]
    fn a_missing_base_uri_is_judged_across_policies() {
        let nonce = "script-src 'nonce-r4nd0m123'; object-src 'none'";
        let page = |second: &str| {
            RuleTester::page("<p>x</p>")
                .with_header("Content-Security-Policy", nonce)
                .with_header("Content-Security-Policy", second)
        };
        let a = analyze(&page("object-src 'none'"), &[&ContentSecurityPolicy]);
        assert_eq!(a.findings.len(), 1, "{:#?}", a.findings);
        assert_eq!(
            a.findings[0].message,
            "base-uri is missing: an injected <base> can redirect nonced scripts; set base-uri 'none' or 'self'."
        );
        assert_eq!(types(&page("base-uri 'self'")), vec![]);
    }

    #[test]
    fn a_stricter_second_policy_covers_a_weak_one() {
        let page = RuleTester::page("<p>x</p>")
            .with_header(
                "Content-Security-Policy",
                "script-src * 'unsafe-inline'; object-src 'none'",
            )
            .with_header(
                "Content-Security-Policy",
                "script-src 'self'; object-src 'none'",
            );
        let a = analyze(&page, &[&ContentSecurityPolicy]);
        assert!(a.findings.is_empty(), "{:#?}", a.findings);
    }
}
