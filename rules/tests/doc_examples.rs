//! Every rule's documented examples run, so the docs cannot drift from the
//! rule: each `## Failing` example fails and each `## Passing` example applies
//! and passes.
//!
//! A page rule's example is a page (see [`docs::example_page`] for the response
//! facts its leading comments may state); a site rule's is a site, one part per
//! URL (see [`docs::example_site`]). Two conventions of the docs are read here:
//!
//! - a section that says "reported for review" shows a cant-tell: its example
//!   must be reported for review and not fail;
//! - a `## Cannot tell` section (the rules built on the cascade or on layout
//!   bounds) shows what the rule cannot decide: its example must be reported
//!   for review, not fail, and name the reason in `data.reason`;
//! - a rule in [`PASSING_BY_ABSENCE`] is fixed by removing what it applies to
//!   (the `<blink>`, the deprecated role), so its Passing example must be a page
//!   the rule does not apply to.
//!
//! A few rules' examples abbreviate or describe what a page cannot hold; they are
//! listed in [`DESCRIBED`] (page rules) or [`SITE_DESCRIBED`] (site rules) with
//! the reason, and covered by their own tests.

use sitescan_rules::site::analyze_site;
use sitescan_rules::{analyze, docs, registry, Finding, Outcome, RuleTally};

/// Rules whose doc examples are not runnable pages, with why. Each is still
/// tested by its rule file's `RuleTester` cases.
const DESCRIBED: &[(&str, &str)] = &[
    ("server-response-time", "time to first byte of the response"),
    ("download-time", "time until the body is complete"),
    ("html-size", "a page of megabytes, described"),
    (
        "text-compression",
        "sizes and encodings of the page and a script",
    ),
    (
        "third-party-origins",
        "fourteen third-party origins, described",
    ),
    (
        "start-page-redirects",
        "a chain of redirects before the page",
    ),
    ("redirect-chain", "a chain of redirects before the page"),
    ("page-depth", "the crawl path that reached the page"),
    ("total-byte-weight", "sizes of the page's subresources"),
    ("long-cache-ttl", "cache headers of a subresource"),
    ("oversized-images", "pixel and byte sizes of an image file"),
    ("unminified-code", "kilobytes of script, abbreviated"),
    ("dom-size", "hundreds of elements, abbreviated"),
    ("too-many-links", "hundreds of links, abbreviated"),
    ("thin-content", "a description of 200 words, abbreviated"),
    (
        "long-paragraphs",
        "paragraphs of hundreds of words, abbreviated",
    ),
    ("readability", "a long passage, abbreviated"),
    (
        "spelling",
        "needs the system dictionary (tested in tests/fixtures.rs)",
    ),
    (
        "analysis-incomplete",
        "a scan option (a page budget), reported by the runner",
    ),
    (
        "keyboard-trap",
        "keys pressed in a browser (render mode; tested in tests/it/render.rs)",
    ),
    (
        "focus-visible-rendered",
        "keys pressed in a browser (render mode; tested in tests/it/render.rs)",
    ),
    (
        "character-key-shortcuts",
        "keys sent in a browser (render mode; tested in tests/it/render.rs)",
    ),
    (
        "first-contentful-paint",
        "lab timings measured in a browser (render mode; tested in tests/it/web_vitals.rs)",
    ),
    (
        "largest-contentful-paint",
        "lab timings measured in a browser (render mode; tested in tests/it/web_vitals.rs)",
    ),
    (
        "cumulative-layout-shift",
        "lab timings measured in a browser (render mode; tested in tests/it/web_vitals.rs)",
    ),
    (
        "total-blocking-time",
        "lab timings measured in a browser (render mode; tested in tests/it/web_vitals.rs)",
    ),
];

/// Site rules whose doc examples are not runnable sites, with why. Each is
/// still tested by its rule file's tests.
const SITE_DESCRIBED: &[(&str, &str)] = &[
    (
        "tls-certificate",
        "the certificate chain of a TLS handshake, described",
    ),
    (
        "tls-version",
        "the TLS versions a server accepts, described",
    ),
    (
        "near-duplicate-content",
        "pages of hundreds of words that differ in a few, abbreviated",
    ),
];

/// Rules whose fix removes what they apply to: their Passing example is a page
/// the rule does not apply to (ACT's inapplicable), with why.
const PASSING_BY_ABSENCE: &[(&str, &str)] = &[
    ("blink", "the fix is no <blink>"),
    ("marquee", "the fix is no <marquee>"),
    ("tabindex", "the fix is no positive tabindex"),
    (
        "audio-caption",
        "every audio is for review; only a page without audio is silent",
    ),
    (
        "aria-allowed-role",
        "the fix is a native element without the role",
    ),
    ("aria-deprecated-role", "the fix is no deprecated role"),
    (
        "image-redundant-alt",
        "the fix is alt=\"\" (a decorative image)",
    ),
    (
        "frame-title-unique",
        "the rule applies to frames sharing a name; the fix names them apart",
    ),
    (
        "frame-focusable-content",
        "the rule applies to frames taken out of the tab order",
    ),
    (
        "image-decorative",
        "the rule applies to images marked decorative",
    ),
    (
        "label-descriptive",
        "every label is for review; only a page without one is silent",
    ),
];

fn listed(list: &[(&str, &str)], id: &str) -> bool {
    list.iter().any(|(l, _)| *l == id)
}

/// The sections whose code blocks are run, in order.
const SECTIONS: [&str; 3] = ["Failing", "Passing", "Cannot tell"];

/// What running one example gave.
struct Seen {
    passed: u32,
    failed: usize,
    cant: usize,
    /// Cant-tell findings without a `data.reason`.
    cant_without_reason: usize,
}

impl Seen {
    fn of(tallies: &[RuleTally], findings: &[Finding]) -> Seen {
        let count = |o: Outcome| findings.iter().filter(|f| f.outcome == o).count();
        Seen {
            passed: tallies.iter().map(|t| t.passed).sum(),
            failed: count(Outcome::Failed),
            cant: count(Outcome::CantTell),
            cant_without_reason: findings
                .iter()
                .filter(|f| f.outcome == Outcome::CantTell)
                .filter(|f| !f.data.as_ref().is_some_and(|d| d["reason"].is_string()))
                .count(),
        }
    }
}

/// Whether an example of the `heading` section of `id`'s docs shows what
/// the section says (`Err` with what it should show when not). `review`:
/// the section says "reported for review"; `by_absence`: the rule is in
/// [`PASSING_BY_ABSENCE`]. One judgment for page and site rules.
fn judge(heading: &str, review: bool, by_absence: bool, seen: &Seen) -> Result<(), &'static str> {
    let Seen {
        passed,
        failed,
        cant,
        cant_without_reason,
    } = *seen;
    let (ok, want) = match heading {
        "Cannot tell" => (
            failed == 0 && cant > 0 && cant_without_reason == 0,
            "reported for review with a data.reason",
        ),
        _ if review => (failed == 0 && cant > 0, "reported for review"),
        "Failing" => (failed > 0, "a failure"),
        _ if by_absence => (
            failed + cant == 0 && passed == 0,
            "inapplicable (PASSING_BY_ABSENCE)",
        ),
        _ => (failed + cant == 0 && passed > 0, "applied and passed"),
    };
    if ok {
        Ok(())
    } else {
        Err(want)
    }
}

#[test]
fn doc_examples_fail_and_pass_as_documented() {
    let mut problems = Vec::new();
    let ids: Vec<&str> = registry::page_rules().iter().map(|r| r.meta().id).collect();
    for (id, _) in DESCRIBED.iter().chain(PASSING_BY_ABSENCE) {
        if !ids.contains(id) {
            problems.push(format!("`{id}` is listed but is no page rule"));
        }
    }
    for rule in registry::page_rules() {
        let m = rule.meta();
        let failing = docs::examples(m.docs, "Failing");
        let passing = docs::examples(m.docs, "Passing");
        if failing.is_empty() || passing.is_empty() {
            problems.push(format!(
                "{}: docs need a Failing and a Passing code block",
                m.id
            ));
            continue;
        }
        if listed(DESCRIBED, m.id) {
            continue;
        }
        for heading in SECTIONS {
            let review = section(m.docs, heading).contains("reported for review");
            for example in docs::examples(m.docs, heading) {
                let page = match docs::example_page(example) {
                    Ok(page) => page,
                    Err(docs::Described(line)) => {
                        problems.push(format!(
                            "{}: the comment line `{line}` is no response fact (list the rule in DESCRIBED if it cannot be one):\n{example}",
                            m.id
                        ));
                        continue;
                    }
                };
                let analysis = analyze(&page, &[*rule]);
                if let Some(err) = analysis.errors.first() {
                    problems.push(format!(
                        "{}: example panicked ({}):\n{example}",
                        m.id, err.message
                    ));
                    continue;
                }
                let seen = Seen::of(&analysis.tallies, &analysis.findings);
                let by_absence = listed(PASSING_BY_ABSENCE, m.id);
                if let Err(want) = judge(heading, review, by_absence, &seen) {
                    problems.push(format!(
                        "{}: the {heading} example should be {want}, got {} passed, {} failed, {} cant-tell:\n{example}\nfindings: {:#?}",
                        m.id, seen.passed, seen.failed, seen.cant, analysis.findings
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} doc example problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

#[test]
fn site_doc_examples_fail_and_pass_as_documented() {
    let mut problems = Vec::new();
    let ids: Vec<&str> = registry::site_rules().iter().map(|r| r.meta().id).collect();
    for (id, _) in SITE_DESCRIBED {
        if !ids.contains(id) {
            problems.push(format!("`{id}` is listed but is no site rule"));
        }
    }
    for rule in registry::site_rules() {
        let m = rule.meta();
        let failing = docs::examples(m.docs, "Failing");
        let passing = docs::examples(m.docs, "Passing");
        if failing.is_empty() || passing.is_empty() {
            problems.push(format!(
                "{}: docs need a Failing and a Passing code block",
                m.id
            ));
            continue;
        }
        if listed(SITE_DESCRIBED, m.id) {
            continue;
        }
        for heading in SECTIONS {
            let review = section(m.docs, heading).contains("reported for review");
            for example in docs::examples(m.docs, heading) {
                let site = match docs::example_site(example) {
                    Ok(site) => site,
                    Err(docs::Described(what)) => {
                        problems.push(format!(
                            "{}: `{what}` is no part of a site example (list the rule in SITE_DESCRIBED if it cannot be one):\n{example}",
                            m.id
                        ));
                        continue;
                    }
                };
                let (tallies, findings, errors) = analyze_site(&site, &[*rule]);
                if let Some(err) = errors.first() {
                    problems.push(format!(
                        "{}: example panicked ({}):\n{example}",
                        m.id, err.message
                    ));
                    continue;
                }
                let seen = Seen::of(&tallies, &findings);
                if let Err(want) = judge(heading, review, false, &seen) {
                    problems.push(format!(
                        "{}: the {heading} example should be {want}, got {} passed, {} failed, {} cant-tell:\n{example}\nfindings: {findings:#?}",
                        m.id, seen.passed, seen.failed, seen.cant
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} site doc example problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

/// The text of one `## heading` section of a rule's docs.
fn section<'d>(docs: &'d str, heading: &str) -> &'d str {
    let marker = format!("## {heading}\n");
    let Some(start) = docs.find(&marker) else {
        return "";
    };
    let rest = &docs[start + marker.len()..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}
