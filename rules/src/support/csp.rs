//! Content-Security-Policy parsing and evaluation, classified as Google's CSP
//! Evaluator classifies its findings (types and severities listed in
//! `../shared/research/PEERS.md` §2.4), plus the MDN HTTP Observatory's CSP result
//! used by the security grade.
//!
//! Hand-written: no maintained Rust crate evaluates policies (the parsers on
//! crates.io stop at syntax), and the grammar is a few lines of splitting.

use serde::Serialize;

/// Directives of CSP Level 3 and the ones browsers still recognise.
const KNOWN_DIRECTIVES: &[&str] = &[
    "child-src",
    "connect-src",
    "default-src",
    "fenced-frame-src",
    "font-src",
    "frame-src",
    "img-src",
    "manifest-src",
    "media-src",
    "object-src",
    "prefetch-src",
    "script-src",
    "script-src-attr",
    "script-src-elem",
    "style-src",
    "style-src-attr",
    "style-src-elem",
    "worker-src",
    "base-uri",
    "plugin-types",
    "sandbox",
    "form-action",
    "frame-ancestors",
    "navigate-to",
    "report-uri",
    "report-to",
    "upgrade-insecure-requests",
    "block-all-mixed-content",
    "require-sri-for",
    "require-trusted-types-for",
    "trusted-types",
    "webrtc",
    "reflected-xss",
    "referrer",
    "disown-opener",
];

/// Directives CSP Evaluator reports as deprecated.
const DEPRECATED: &[&str] = &["reflected-xss", "referrer", "disown-opener", "prefetch-src"];

/// Quoted keywords a source list may hold (nonces and hashes are checked apart).
const KEYWORDS: &[&str] = &[
    "'self'",
    "'none'",
    "'unsafe-inline'",
    "'unsafe-eval'",
    "'strict-dynamic'",
    "'unsafe-hashes'",
    "'report-sample'",
    "'unsafe-allow-redirects'",
    "'wasm-unsafe-eval'",
    "'inline-speculation-rules'",
    "'script'",
    "'allow-duplicates'",
];

/// Directives whose values are not source lists.
const NON_SOURCE: &[&str] = &[
    "sandbox",
    "report-uri",
    "report-to",
    "plugin-types",
    "require-sri-for",
    "trusted-types",
    "require-trusted-types-for",
    "upgrade-insecure-requests",
    "block-all-mixed-content",
    "webrtc",
    "referrer",
    "reflected-xss",
];

/// One directive: lowercased name and its values in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// Lowercased directive name.
    pub name: String,
    /// Its values (source expressions, tokens), case kept.
    pub values: Vec<String>,
}

/// One policy (one comma-separated member of a CSP header).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Directives in order; repeats kept (browsers use the first).
    pub directives: Vec<Directive>,
}

impl Policy {
    /// Parses one policy: directives separated by `;`, values by white space.
    pub fn parse(text: &str) -> Policy {
        let directives = text
            .split(';')
            .filter_map(|d| {
                let mut parts = d.split_ascii_whitespace();
                let name = parts.next()?.to_ascii_lowercase();
                Some(Directive {
                    name,
                    values: parts.map(str::to_string).collect(),
                })
            })
            .collect();
        Policy { directives }
    }

    /// Parses a header value that may carry several comma-separated policies.
    pub fn parse_header(value: &str) -> Vec<Policy> {
        value
            .split(',')
            .map(Policy::parse)
            .filter(|p| !p.directives.is_empty())
            .collect()
    }

    /// The first directive of a name (browsers ignore repeats).
    pub fn get(&self, name: &str) -> Option<&Directive> {
        self.directives.iter().find(|d| d.name == name)
    }

    /// The source list that governs scripts: `script-src`, else `default-src`.
    pub fn effective(&self, name: &str) -> Option<&Directive> {
        self.get(name).or_else(|| self.get("default-src"))
    }

    /// Whether a directive name appears twice (the repeat is ignored by browsers).
    pub fn has_duplicate_directive(&self) -> bool {
        self.directives
            .iter()
            .enumerate()
            .any(|(i, d)| self.directives[..i].iter().any(|e| e.name == d.name))
    }

    /// Whether any known directive is present.
    pub fn has_known_directive(&self) -> bool {
        self.directives
            .iter()
            .any(|d| KNOWN_DIRECTIVES.contains(&d.name.as_str()))
    }
}

/// CSP Evaluator's severities, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    /// An XSS bypass is likely.
    High,
    /// The policy does not parse as intended.
    Syntax,
    /// A weakness worth fixing.
    Medium,
    /// Possibly high, depending on what the allowed hosts serve.
    HighMaybe,
    /// Not a strict (nonce- or hash-based) CSP, or missing its fallbacks for
    /// older browsers.
    StrictCsp,
    /// Possibly medium.
    MediumMaybe,
    /// Informational.
    Info,
}

/// One finding of the evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CspFinding {
    /// CSP Evaluator's finding type (`SCRIPT_UNSAFE_INLINE`, ...).
    pub kind: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The directive concerned.
    pub directive: String,
    /// The offending value, when there is one.
    pub value: Option<String>,
    /// What is wrong, for a person.
    pub message: String,
}

fn finding(
    kind: &'static str,
    severity: Severity,
    directive: &str,
    value: Option<&str>,
    message: String,
) -> CspFinding {
    CspFinding {
        kind,
        severity,
        directive: directive.to_string(),
        value: value.map(str::to_string),
        message,
    }
}

fn is_nonce(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    l.starts_with("'nonce-") && l.ends_with('\'')
}

fn is_hash(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    (l.starts_with("'sha256-") || l.starts_with("'sha384-") || l.starts_with("'sha512-"))
        && l.ends_with('\'')
}

fn has(d: &Directive, keyword: &str) -> bool {
    d.values.iter().any(|v| v.eq_ignore_ascii_case(keyword))
}

/// Whether a source list carries a nonce or a hash.
pub fn has_nonce_or_hash(d: &Directive) -> bool {
    d.values.iter().any(|v| is_nonce(v) || is_hash(v))
}

fn is_ip_source(v: &str) -> bool {
    let host = v
        .split("://")
        .nth(1)
        .unwrap_or(v)
        .split(['/', ':'])
        .next()
        .unwrap_or("");
    host.parse::<std::net::Ipv4Addr>().is_ok()
}

/// Evaluates one policy; findings in directive order.
pub fn evaluate(policy: &Policy) -> Vec<CspFinding> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();

    // Parser checks.
    for d in &policy.directives {
        let name = d.name.as_str();
        if !KNOWN_DIRECTIVES.contains(&name) {
            out.push(finding(
                "UNKNOWN_DIRECTIVE",
                Severity::Syntax,
                name,
                None,
                format!("Directive \"{name}\" is not a known CSP directive."),
            ));
            continue;
        }
        if seen.contains(&name) {
            out.push(finding(
                "DUPLICATE_DIRECTIVE",
                Severity::Syntax,
                name,
                None,
                format!("Directive \"{name}\" appears twice; browsers ignore the second."),
            ));
        }
        seen.push(name);
        if DEPRECATED.contains(&name) {
            out.push(finding(
                "DEPRECATED_DIRECTIVE",
                Severity::Info,
                name,
                None,
                format!("Directive \"{name}\" is deprecated."),
            ));
        }
        for v in &d.values {
            let lower = v.to_ascii_lowercase();
            if KNOWN_DIRECTIVES.contains(&lower.as_str()) {
                out.push(finding(
                    "MISSING_SEMICOLON",
                    Severity::Syntax,
                    name,
                    Some(v),
                    format!("Did you forget a semicolon? \"{v}\" looks like a directive inside \"{name}\"."),
                ));
                continue;
            }
            if NON_SOURCE.contains(&name) {
                continue;
            }
            if v.starts_with('\'') {
                if !(KEYWORDS.contains(&lower.as_str()) || is_nonce(v) || is_hash(v)) {
                    out.push(finding(
                        "INVALID_KEYWORD",
                        Severity::Syntax,
                        name,
                        Some(v),
                        format!("{v} is not a CSP keyword."),
                    ));
                }
            } else if KEYWORDS.contains(&format!("'{lower}'").as_str())
                || lower.starts_with("nonce-")
                || lower.starts_with("sha256-")
            {
                out.push(finding(
                    "INVALID_KEYWORD",
                    Severity::Syntax,
                    name,
                    Some(v),
                    format!("\"{v}\" must be single-quoted ('{v}') to act as a keyword; unquoted it is read as a host name."),
                ));
            }
            if is_nonce(v) {
                let body = &v[7..v.len() - 1];
                if body.len() < 8 {
                    out.push(finding(
                        "NONCE_LENGTH",
                        Severity::Medium,
                        name,
                        Some(v),
                        "Nonces should be at least 8 characters long (and random per response)."
                            .to_string(),
                    ));
                }
                if !body
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_'))
                {
                    out.push(finding(
                        "NONCE_CHARSET",
                        Severity::Info,
                        name,
                        Some(v),
                        "Nonces should only use base64 characters.".to_string(),
                    ));
                }
            }
            if lower.starts_with("http://") {
                out.push(finding(
                    "SRC_HTTP",
                    Severity::Medium,
                    name,
                    Some(v),
                    format!("{v} is loaded over plain HTTP; allow only https:// sources."),
                ));
            }
            if is_ip_source(v) {
                out.push(finding(
                    "IP_SOURCE",
                    Severity::Info,
                    name,
                    Some(v),
                    format!("{v}: IP-address sources are ignored in some browsers' wildcard matching and hard to maintain."),
                ));
            }
        }
    }

    // Security checks on the directives that matter for XSS.
    let script = policy.effective("script-src");
    match script {
        None => out.push(finding(
            "MISSING_DIRECTIVES",
            Severity::High,
            "script-src",
            None,
            "script-src is missing (and no default-src): any script may run.".to_string(),
        )),
        Some(d) => {
            let nonce_or_hash = has_nonce_or_hash(d);
            let strict_dynamic = has(d, "'strict-dynamic'");
            if has(d, "'unsafe-inline'") && !nonce_or_hash {
                out.push(finding(
                    "SCRIPT_UNSAFE_INLINE",
                    Severity::High,
                    &d.name,
                    Some("'unsafe-inline'"),
                    "'unsafe-inline' allows inline scripts and event handlers, so injected markup runs: use nonces or hashes.".to_string(),
                ));
            }
            if has(d, "'unsafe-eval'") {
                out.push(finding(
                    "SCRIPT_UNSAFE_EVAL",
                    Severity::MediumMaybe,
                    &d.name,
                    Some("'unsafe-eval'"),
                    "'unsafe-eval' allows eval() and similar sinks; remove it unless the code needs it.".to_string(),
                ));
            }
            if has(d, "'unsafe-hashes'") {
                out.push(finding(
                    "SCRIPT_UNSAFE_HASHES",
                    Severity::MediumMaybe,
                    &d.name,
                    Some("'unsafe-hashes'"),
                    "'unsafe-hashes' allows hashed event-handler attributes; prefer moving handlers to scripts.".to_string(),
                ));
            }
            if strict_dynamic && !nonce_or_hash {
                out.push(finding(
                    "STRICT_DYNAMIC_NOT_STANDALONE",
                    Severity::Info,
                    &d.name,
                    Some("'strict-dynamic'"),
                    "'strict-dynamic' without a nonce or hash blocks every script.".to_string(),
                ));
            }
            // With 'strict-dynamic' (CSP3) host and scheme allowlists are ignored.
            if !strict_dynamic {
                allowlist_checks(d, &mut out);
            }
        }
    }
    match policy.effective("object-src") {
        None => out.push(finding(
            "MISSING_DIRECTIVES",
            Severity::High,
            "object-src",
            None,
            "object-src is missing (and no default-src): plugins can run scripts; set object-src 'none'.".to_string(),
        )),
        Some(d) => allowlist_checks(d, &mut out),
    }
    let uses_nonce = script.is_some_and(|d| d.values.iter().any(|v| is_nonce(v)));
    let hash_dynamic =
        script.is_some_and(|d| d.values.iter().any(|v| is_hash(v)) && has(d, "'strict-dynamic'"));
    strict_csp_checks(policy, script, &mut out);
    match policy.get("base-uri") {
        None if uses_nonce || hash_dynamic => out.push(finding(
            "MISSING_DIRECTIVES",
            Severity::High,
            "base-uri",
            None,
            "base-uri is missing: an injected <base> can redirect nonced scripts; set base-uri 'none' or 'self'.".to_string(),
        )),
        None => {}
        Some(d) => allowlist_checks(d, &mut out),
    }
    out
}

/// CSP Evaluator's strict-CSP and reporting checks (types 400-601): a host or
/// scheme allowlist without `'strict-dynamic'` (`STRICT_DYNAMIC`), nonces or hashes
/// without the `'unsafe-inline'` fallback for browsers that predate them
/// (`UNSAFE_INLINE_FALLBACK`), `'strict-dynamic'` without an `https:` fallback
/// (`ALLOWLIST_FALLBACK`), no `require-trusted-types-for 'script'`, and no
/// reporting destination (or only `report-to`, which some browsers ignore).
fn strict_csp_checks(policy: &Policy, script: Option<&Directive>, out: &mut Vec<CspFinding>) {
    if let Some(d) = script {
        let allowlist = d.values.iter().any(|v| !v.starts_with('\''));
        let strict_dynamic = has(d, "'strict-dynamic'");
        if allowlist && !strict_dynamic {
            out.push(finding(
                "STRICT_DYNAMIC",
                Severity::StrictCsp,
                &d.name,
                None,
                "Host allowlists can often be bypassed (JSONP endpoints, old libraries on allowed CDNs): use nonces or hashes with 'strict-dynamic'.".to_string(),
            ));
        }
        if has_nonce_or_hash(d) && !has(d, "'unsafe-inline'") {
            out.push(finding(
                "UNSAFE_INLINE_FALLBACK",
                Severity::StrictCsp,
                &d.name,
                None,
                "Add 'unsafe-inline' as a fallback: browsers that support nonces and hashes ignore it, older ones need it to run the page's scripts.".to_string(),
            ));
        }
        if strict_dynamic
            && !d.values.iter().any(|v| {
                matches!(v.to_ascii_lowercase().as_str(), "http:" | "https:" | "*")
                    || v.contains('.')
            })
        {
            out.push(finding(
                "ALLOWLIST_FALLBACK",
                Severity::StrictCsp,
                &d.name,
                None,
                "Add https: (and http:) as a fallback: browsers that support 'strict-dynamic' ignore them, older ones need them.".to_string(),
            ));
        }
    }
    let trusted_types = policy
        .get("require-trusted-types-for")
        .is_some_and(|d| has(d, "'script'"));
    if !trusted_types {
        out.push(finding(
            "REQUIRE_TRUSTED_TYPES_FOR_SCRIPTS",
            Severity::Info,
            "require-trusted-types-for",
            None,
            "Consider require-trusted-types-for 'script' to lock down DOM XSS sinks.".to_string(),
        ));
    }
    match (policy.get("report-uri"), policy.get("report-to")) {
        (None, None) => out.push(finding(
            "REPORTING_DESTINATION_MISSING",
            Severity::Info,
            "report-uri",
            None,
            "No reporting destination (report-uri or report-to): violations go unnoticed."
                .to_string(),
        )),
        (None, Some(_)) => out.push(finding(
            "REPORT_TO_ONLY",
            Severity::Info,
            "report-to",
            None,
            "Only report-to is set, which some browsers do not support: add report-uri too."
                .to_string(),
        )),
        _ => {}
    }
}

/// Wildcards and plain schemes in a directive that controls script execution.
fn allowlist_checks(d: &Directive, out: &mut Vec<CspFinding>) {
    for v in &d.values {
        let lower = v.to_ascii_lowercase();
        if lower == "*" {
            out.push(finding(
                "PLAIN_WILDCARD",
                Severity::High,
                &d.name,
                Some(v),
                format!("{} should not allow '*' as a source.", d.name),
            ));
        } else if matches!(lower.as_str(), "http:" | "https:" | "data:") {
            out.push(finding(
                "PLAIN_URL_SCHEMES",
                Severity::High,
                &d.name,
                Some(v),
                format!(
                    "{v} in {} allows loading from any host of that scheme.",
                    d.name
                ),
            ));
        }
    }
}

/// The MDN HTTP Observatory's CSP result: `(result id, score modifier)`.
///
/// `enforced` are the policies of `Content-Security-Policy` headers and `<meta
/// http-equiv>`; `report_only` tells whether a report-only policy exists.
/// Documented approximation of Observatory algorithm 6: "unsafe" script sources are
/// `'unsafe-inline'` without nonce/hash, `*`, `data:`, `http:`, `https:` (unless
/// `'strict-dynamic'`) or no script-src/default-src at all.
pub fn observatory_result(enforced: &[Policy], report_only: bool) -> (&'static str, i32) {
    if enforced.is_empty() {
        return if report_only {
            ("csp-not-implemented-but-reporting-enabled", -25)
        } else {
            ("csp-not-implemented", -25)
        };
    }
    if enforced.iter().all(|p| !p.has_known_directive()) {
        return ("csp-header-invalid", -25);
    }
    // A resource must satisfy every policy, so the strictest one decides.
    let any = |f: &dyn Fn(&Policy) -> bool| enforced.iter().all(f);
    let script_unsafe = |p: &Policy| match p.effective("script-src") {
        None => true,
        Some(d) => {
            let sd = has(d, "'strict-dynamic'");
            (has(d, "'unsafe-inline'") && !has_nonce_or_hash(d))
                || (!sd
                    && d.values.iter().any(|v| {
                        matches!(
                            v.to_ascii_lowercase().as_str(),
                            "*" | "data:" | "http:" | "https:"
                        )
                    }))
        }
    };
    let insecure = |p: &Policy, names: &[&str]| {
        names.iter().any(|n| {
            p.effective(n).is_some_and(|d| {
                d.values.iter().any(|v| {
                    let l = v.to_ascii_lowercase();
                    l == "http:" || l.starts_with("http://")
                })
            })
        })
    };
    const ACTIVE: &[&str] = &[
        "script-src",
        "object-src",
        "style-src",
        "frame-src",
        "child-src",
        "connect-src",
        "worker-src",
    ];
    const PASSIVE: &[&str] = &["img-src", "media-src", "font-src"];
    if any(&script_unsafe) {
        return ("csp-implemented-with-unsafe-inline", -20);
    }
    if any(&|p| insecure(p, ACTIVE)) {
        return ("csp-implemented-with-insecure-scheme", -20);
    }
    if any(&|p| {
        p.effective("script-src")
            .is_some_and(|d| has(d, "'unsafe-eval'"))
    }) {
        return ("csp-implemented-with-unsafe-eval", -10);
    }
    // The results that pass the test; a policy repeating a directive (browsers
    // ignore the repeat) turns each of them into `…-but-duplicate-directives`, as
    // the Observatory does.
    let passing = if any(&|p| insecure(p, PASSIVE)) {
        (
            "csp-implemented-with-insecure-scheme-in-passive-content-only",
            -10,
        )
    } else if any(&|p| {
        p.effective("style-src")
            .is_some_and(|d| has(d, "'unsafe-inline'"))
    }) {
        ("csp-implemented-with-unsafe-inline-in-style-src-only", 0)
    } else if enforced.iter().any(|p| {
        p.get("default-src")
            .is_some_and(|d| d.values.len() == 1 && has(d, "'none'"))
    }) {
        ("csp-implemented-with-no-unsafe-default-src-none", 10)
    } else {
        ("csp-implemented-with-no-unsafe", 5)
    };
    if enforced.iter().any(Policy::has_duplicate_directive) {
        return ("csp-implemented-but-duplicate-directives", 0);
    }
    passing
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds of the security and syntax findings (strict-CSP advice and
    /// informational findings are checked by `strict_csp_and_info`).
    fn kinds(policy: &str) -> Vec<&'static str> {
        evaluate(&Policy::parse(policy))
            .into_iter()
            .filter(|f| !matches!(f.severity, Severity::StrictCsp | Severity::Info))
            .map(|f| f.kind)
            .collect()
    }

    /// `(kind, severity)` of the strict-CSP and informational findings.
    fn advice(policy: &str) -> Vec<(&'static str, Severity)> {
        evaluate(&Policy::parse(policy))
            .into_iter()
            .filter(|f| matches!(f.severity, Severity::StrictCsp | Severity::Info))
            .map(|f| (f.kind, f.severity))
            .collect()
    }

    #[test]
    fn strict_csp_and_info() {
        use Severity::{Info, StrictCsp};
        assert_eq!(
            advice("script-src 'nonce-r4nd0mAbC' 'strict-dynamic' 'unsafe-inline' https:; object-src 'none'; base-uri 'none'; require-trusted-types-for 'script'; report-uri /csp"),
            vec![]
        );
        assert_eq!(
            advice("script-src https://cdn.example; object-src 'none'"),
            vec![
                ("STRICT_DYNAMIC", StrictCsp),
                ("REQUIRE_TRUSTED_TYPES_FOR_SCRIPTS", Info),
                ("REPORTING_DESTINATION_MISSING", Info)
            ]
        );
        assert_eq!(
            advice("script-src 'nonce-r4nd0mAbC' 'strict-dynamic'; require-trusted-types-for 'script'; report-to csp"),
            vec![
                ("UNSAFE_INLINE_FALLBACK", StrictCsp),
                ("ALLOWLIST_FALLBACK", StrictCsp),
                ("REPORT_TO_ONLY", Info)
            ]
        );
        assert_eq!(
            advice("script-src 'strict-dynamic'; object-src 'none'; report-uri /r; require-trusted-types-for 'script'"),
            vec![
                ("STRICT_DYNAMIC_NOT_STANDALONE", Info),
                ("ALLOWLIST_FALLBACK", StrictCsp)
            ]
        );
        assert_eq!(
            advice("default-src 'self'; img-src 10.0.0.1; referrer no-referrer; script-src 'nonce-ab$cdefgh' 'unsafe-inline'; report-uri /r; require-trusted-types-for 'script'"),
            vec![
                ("IP_SOURCE", Info),
                ("DEPRECATED_DIRECTIVE", Info),
                ("NONCE_CHARSET", Info),
            ]
        );
    }

    #[test]
    fn unsafe_hashes_and_duplicates() {
        assert_eq!(
            kinds("script-src 'self' 'unsafe-hashes' 'sha256-abc='; object-src 'none'; base-uri 'self'"),
            vec!["SCRIPT_UNSAFE_HASHES"]
        );
        assert_eq!(
            kinds("default-src 'self'; object-src 'none'; default-src *"),
            vec!["DUPLICATE_DIRECTIVE"]
        );
        assert!(Policy::parse("default-src 'self'; default-src *").has_duplicate_directive());
        assert!(!Policy::parse("default-src 'self'; img-src *").has_duplicate_directive());
    }

    #[test]
    fn strict_policy_has_no_findings() {
        assert!(kinds(
            "script-src 'nonce-r4nd0mAbC' 'strict-dynamic'; object-src 'none'; base-uri 'none'"
        )
        .is_empty());
        assert!(kinds("default-src 'self'; object-src 'none'").is_empty());
    }

    #[test]
    fn classic_weaknesses() {
        assert_eq!(
            kinds("script-src 'self' 'unsafe-inline' 'unsafe-eval' https: *"),
            vec![
                "SCRIPT_UNSAFE_INLINE",
                "SCRIPT_UNSAFE_EVAL",
                "PLAIN_URL_SCHEMES",
                "PLAIN_WILDCARD",
                "MISSING_DIRECTIVES"
            ]
        );
        assert_eq!(
            kinds("script-src 'nonce-abc'; object-src 'none'"),
            vec!["NONCE_LENGTH", "MISSING_DIRECTIVES"]
        );
        assert_eq!(
            kinds("img-src http://x.example"),
            vec!["SRC_HTTP", "MISSING_DIRECTIVES", "MISSING_DIRECTIVES"]
        );
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(
            kinds("default-src 'self' object-src 'none'"),
            vec!["MISSING_SEMICOLON"]
        );
        assert_eq!(
            kinds("default-src self; object-src 'none'"),
            vec!["INVALID_KEYWORD"]
        );
        assert_eq!(
            kinds("default-src 'self'; scrpt-src x; object-src 'none'"),
            vec!["UNKNOWN_DIRECTIVE"]
        );
    }

    #[test]
    fn observatory_classes() {
        let p = |s: &str| vec![Policy::parse(s)];
        assert_eq!(observatory_result(&[], true).1, -25);
        assert_eq!(observatory_result(&p("default-src 'none'"), false).1, 10);
        assert_eq!(observatory_result(&p("default-src 'self'"), false).1, 5);
        assert_eq!(
            observatory_result(&p("default-src 'self' 'unsafe-inline'"), false).1,
            -20
        );
        assert_eq!(
            observatory_result(&p("default-src 'self'; img-src http:"), false).1,
            -10
        );
        assert_eq!(
            observatory_result(
                &p("default-src 'self'; style-src 'self' 'unsafe-inline'"),
                false
            )
            .1,
            0
        );
        assert_eq!(
            observatory_result(&p("frame-ancestors 'none'"), false).1,
            -20
        );
        assert_eq!(observatory_result(&p("nonsense"), false).1, -25);
    }

    /// Every CSP result id of the Observatory, with its modifier.
    #[test]
    fn observatory_result_ids() {
        let r = |s: &str| observatory_result(&[Policy::parse(s)], false);
        assert_eq!(observatory_result(&[], false), ("csp-not-implemented", -25));
        assert_eq!(
            observatory_result(&[], true),
            ("csp-not-implemented-but-reporting-enabled", -25)
        );
        assert_eq!(r("nonsense here"), ("csp-header-invalid", -25));
        assert_eq!(
            r("default-src 'none'"),
            ("csp-implemented-with-no-unsafe-default-src-none", 10)
        );
        assert_eq!(
            r("default-src 'self'"),
            ("csp-implemented-with-no-unsafe", 5)
        );
        assert_eq!(
            r("default-src 'self'; style-src 'self' 'unsafe-inline'"),
            ("csp-implemented-with-unsafe-inline-in-style-src-only", 0)
        );
        assert_eq!(
            r("default-src 'self'; img-src http://img.example"),
            (
                "csp-implemented-with-insecure-scheme-in-passive-content-only",
                -10
            )
        );
        assert_eq!(
            r("default-src 'self' 'unsafe-eval'"),
            ("csp-implemented-with-unsafe-eval", -10)
        );
        assert_eq!(
            r("script-src 'self' 'unsafe-inline'"),
            ("csp-implemented-with-unsafe-inline", -20)
        );
        assert_eq!(
            r("default-src 'self'; connect-src http://api.example"),
            ("csp-implemented-with-insecure-scheme", -20)
        );
        assert_eq!(
            r("default-src 'self'; img-src 'self'; img-src *"),
            ("csp-implemented-but-duplicate-directives", 0)
        );
        // A failing policy stays failing even with a repeated directive.
        assert_eq!(
            r("default-src * ; default-src 'self'"),
            ("csp-implemented-with-unsafe-inline", -20)
        );
        // A nonce or hash cancels 'unsafe-inline'; 'strict-dynamic' cancels https:.
        assert_eq!(
            r("default-src 'self'; script-src 'nonce-r4nd0mAbC' 'unsafe-inline' 'strict-dynamic' https:"),
            ("csp-implemented-with-no-unsafe", 5)
        );
    }
}
