//! Every page rule's documented examples run: each `## Failing` example fails
//! (or, for a review-only rule, asks for review) and each `## Passing` example
//! applies and passes. The docs cannot drift from the rule.
//!
//! An example is a page (see [`docs::example_page`] for the response facts its
//! leading comments may state). A few rules' examples describe context a single
//! page cannot hold; they are listed in [`DESCRIBED`] with the reason, and are
//! covered by their own tests instead.

use sitescan_rules::{analyze, docs, registry, Outcome};

/// Rules whose doc examples are prose about context outside one page, with why.
/// Each is still tested by its rule file's `RuleTester` cases.
const DESCRIBED: &[(&str, &str)] = &[
    ("server-response-time", "time to first byte of the response"),
    ("download-time", "time until the body is complete"),
    (
        "html-size",
        "a page of megabytes, described rather than shown",
    ),
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
    (
        "analysis-incomplete",
        "a scan option (a page budget), reported by the runner",
    ),
];

#[test]
fn doc_examples_fail_and_pass_as_documented() {
    let mut problems = Vec::new();
    let mut described_seen = Vec::new();
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
        let described = DESCRIBED.iter().any(|(id, _)| *id == m.id);
        let mut ran_all = true;
        for (expect_fail, example) in failing
            .iter()
            .map(|e| (true, e))
            .chain(passing.iter().map(|e| (false, e)))
        {
            let page = match docs::example_page(example) {
                Ok(page) => page,
                Err(docs::Described(line)) => {
                    ran_all = false;
                    if !described {
                        problems.push(format!(
                            "{}: the example's comment `{line}` is neither a response fact nor listed in DESCRIBED:\n{example}",
                            m.id
                        ));
                    }
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
            let count = |o: Outcome| analysis.findings.iter().filter(|f| f.outcome == o).count();
            let (failed, cant) = (count(Outcome::Failed), count(Outcome::CantTell));
            let passed: u32 = analysis.tallies.iter().map(|t| t.passed).sum();
            let ok = if expect_fail {
                failed > 0 || (m.manual_review && cant > 0)
            } else {
                failed == 0 && cant == 0 && passed > 0
            };
            if !ok {
                problems.push(format!(
                    "{}: the {} example gave {passed} passed, {failed} failed, {cant} cant-tell:\n{example}\nfindings: {:#?}",
                    m.id,
                    if expect_fail { "Failing" } else { "Passing" },
                    analysis.findings
                ));
            }
        }
        if described {
            described_seen.push(m.id);
            if ran_all {
                problems.push(format!(
                    "{}: every example runs now: remove it from DESCRIBED",
                    m.id
                ));
            }
        }
    }
    for (id, _) in DESCRIBED {
        if !described_seen.contains(id) {
            problems.push(format!("DESCRIBED lists `{id}`, which is no page rule"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} doc example problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
