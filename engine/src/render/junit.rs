//! JUnit XML, the test-report format CI servers show in their test tabs (GitLab's
//! `artifacts:reports:junit`, Jenkins' JUnit plugin).
//!
//! One `testsuite` per category with rules in the report; one `testcase` per rule
//! and page (classname `<category>.<rule-id>`, name the page URL). A testcase
//! with failed findings has one `failure` whose type is the worst impact and whose
//! body lists every finding; one with only cant-tell findings is `skipped` (it
//! needs a person); the others passed. Pages that could not be fetched are not
//! test cases: no rule ran on them.
//!
//! A finding about a whole host or one subresource (one problem shown on many
//! pages) is one testcase of its own, named by its host (`host
//! https://example.com`) or resource URL, whose body lists the pages; it fails
//! none of the per-page testcases, so failures count problems.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use sitescan_rules::{Category, Finding, Impact, Outcome, Scope};

use super::{count, known_rules, outcome_name, RuleInfo};
use crate::error::{Error, Result};
use crate::report::Report;

struct Case<'r> {
    classname: String,
    page: std::borrow::Cow<'r, str>,
    findings: Vec<&'r Finding>,
}

/// The testcase name of a finding about a host or a resource; `None` for a
/// finding about one page.
fn subject(f: &Finding) -> Option<String> {
    match f.scope {
        Scope::Page => None,
        Scope::Host => Some(format!(
            "host {}",
            url::Url::parse(&f.page_url)
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|_| f.page_url.clone())
        )),
        Scope::Resource => Some(f.resource.clone().unwrap_or_else(|| f.page_url.clone())),
    }
}

impl Case<'_> {
    fn failed(&self) -> Vec<&Finding> {
        self.findings
            .iter()
            .copied()
            .filter(|f| f.outcome == Outcome::Failed)
            .collect()
    }
    fn skipped(&self) -> bool {
        self.failed().is_empty() && !self.findings.is_empty()
    }
}

pub(super) fn render(report: &Report) -> Result<Vec<u8>> {
    let err = |e: std::io::Error| Error::Render {
        format: "junit",
        reason: e.to_string(),
    };
    // Pages rules ran on: fetched without error, plus any page a finding names.
    let mut pages: Vec<&str> = report
        .pages
        .iter()
        .filter(|p| p.error.is_none())
        .map(|p| p.final_url.as_str())
        .collect();
    for f in report.findings.iter().filter(|f| f.scope.is_page()) {
        if !pages.contains(&f.page_url.as_str()) {
            pages.push(f.page_url.as_str());
        }
    }
    let mut by_key: BTreeMap<(&str, &str), Vec<&Finding>> = BTreeMap::new();
    let mut grouped: BTreeMap<(&str, String), Vec<&Finding>> = BTreeMap::new();
    for f in &report.findings {
        match subject(f) {
            None => by_key
                .entry((f.rule_id.as_str(), f.page_url.as_str()))
                .or_default()
                .push(f),
            Some(name) => grouped
                .entry((f.rule_id.as_str(), name))
                .or_default()
                .push(f),
        }
    }
    let rules = known_rules(report);
    let suites: Vec<(Category, Vec<Case<'_>>)> = Category::ALL
        .into_iter()
        .map(|category| {
            let cases = rules
                .iter()
                .filter(|r| r.category == category)
                .flat_map(|r: &RuleInfo<'_>| {
                    let per_page = pages.iter().map(|page| Case {
                        classname: format!("{}.{}", category, r.id),
                        page: std::borrow::Cow::Borrowed(*page),
                        findings: by_key.get(&(r.id, *page)).cloned().unwrap_or_default(),
                    });
                    let per_problem = grouped
                        .range((r.id, String::new())..)
                        .take_while(|((id, _), _)| *id == r.id)
                        .map(|((_, name), findings)| Case {
                            classname: format!("{}.{}", category, r.id),
                            page: std::borrow::Cow::Owned(name.clone()),
                            findings: findings.clone(),
                        });
                    per_page.chain(per_problem).collect::<Vec<_>>()
                })
                .collect::<Vec<_>>();
            (category, cases)
        })
        .filter(|(_, cases)| !cases.is_empty())
        .collect();

    let tally = |cases: &[Case<'_>]| {
        let failures = cases.iter().filter(|c| !c.failed().is_empty()).count();
        let skipped = cases.iter().filter(|c| c.skipped()).count();
        (cases.len(), failures, skipped)
    };
    let seconds = (report.finished_at - report.started_at)
        .num_milliseconds()
        .max(0) as f64
        / 1000.0;
    let timestamp = report.started_at.format("%Y-%m-%dT%H:%M:%S").to_string();

    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .map_err(err)?;
    let all: Vec<&Case<'_>> = suites.iter().flat_map(|(_, c)| c).collect();
    let total = all.len();
    let total_failures = all.iter().filter(|c| !c.failed().is_empty()).count();
    let total_skipped = all.iter().filter(|c| c.skipped()).count();
    let mut root = BytesStart::new("testsuites");
    root.push_attribute((
        "name",
        xml_safe(&format!("sitescan {}", report.site)).as_str(),
    ));
    root.push_attribute(("tests", total.to_string().as_str()));
    root.push_attribute(("failures", total_failures.to_string().as_str()));
    root.push_attribute(("errors", "0"));
    root.push_attribute(("skipped", total_skipped.to_string().as_str()));
    root.push_attribute(("time", format!("{seconds:.3}").as_str()));
    w.write_event(Event::Start(root)).map_err(err)?;
    for (category, cases) in &suites {
        let (tests, failures, skipped) = tally(cases);
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", category.as_str()));
        suite.push_attribute(("tests", tests.to_string().as_str()));
        suite.push_attribute(("failures", failures.to_string().as_str()));
        suite.push_attribute(("errors", "0"));
        suite.push_attribute(("skipped", skipped.to_string().as_str()));
        suite.push_attribute(("time", "0"));
        suite.push_attribute(("timestamp", timestamp.as_str()));
        w.write_event(Event::Start(suite)).map_err(err)?;
        for case in cases {
            let mut tc = BytesStart::new("testcase");
            tc.push_attribute(("classname", xml_safe(&case.classname).as_str()));
            tc.push_attribute(("name", xml_safe(&case.page).as_str()));
            tc.push_attribute(("time", "0"));
            let failed = case.failed();
            if case.findings.is_empty() {
                w.write_event(Event::Empty(tc)).map_err(err)?;
                continue;
            }
            w.write_event(Event::Start(tc)).map_err(err)?;
            if failed.is_empty() {
                let mut skip = BytesStart::new("skipped");
                skip.push_attribute((
                    "message",
                    format!(
                        "{} to review by hand",
                        count(case.findings.len() as u64, "finding", "findings")
                    )
                    .as_str(),
                ));
                w.write_event(Event::Start(skip)).map_err(err)?;
                w.write_event(Event::Text(BytesText::new(&xml_safe(&details(
                    &case.findings,
                )))))
                .map_err(err)?;
                w.write_event(Event::End(BytesEnd::new("skipped")))
                    .map_err(err)?;
            } else {
                // `failed` is not empty here, so the fallback never shows.
                let worst = failed
                    .iter()
                    .map(|f| f.impact)
                    .max()
                    .unwrap_or(Impact::Minor);
                let first = xml_safe(&failed[0].message);
                let message = if failed.len() == 1 {
                    first
                } else {
                    format!(
                        "{}; first: {first}",
                        count(failed.len() as u64, "finding", "findings")
                    )
                };
                let mut failure = BytesStart::new("failure");
                failure.push_attribute(("message", message.as_str()));
                failure.push_attribute(("type", worst.as_str()));
                w.write_event(Event::Start(failure)).map_err(err)?;
                w.write_event(Event::Text(BytesText::new(&xml_safe(&details(
                    &case.findings,
                )))))
                .map_err(err)?;
                w.write_event(Event::End(BytesEnd::new("failure")))
                    .map_err(err)?;
            }
            w.write_event(Event::End(BytesEnd::new("testcase")))
                .map_err(err)?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))
            .map_err(err)?;
    }
    w.write_event(Event::End(BytesEnd::new("testsuites")))
        .map_err(err)?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// The failure body: one block per finding.
fn details(findings: &[&Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "[{} {}] {}",
            f.impact,
            outcome_name(f.outcome),
            f.message
        );
        if !f.selector.is_empty() {
            let _ = writeln!(out, "  at: {}", f.selector);
        }
        if !f.snippet.is_empty() {
            let _ = writeln!(out, "  snippet: {}", f.snippet);
        }
        if !f.wcag.is_empty() {
            let _ = writeln!(out, "  WCAG: {}", f.wcag.join(", "));
        }
        if !f.occurrences.is_empty() {
            let _ = writeln!(
                out,
                "  {} (listed: {}):",
                count(f.occurrence_count(), "place", "places"),
                f.occurrences.len()
            );
            for o in &f.occurrences {
                if o.selector.is_empty() {
                    let _ = writeln!(out, "    {}", o.page_url);
                } else {
                    let _ = writeln!(out, "    {} at {}", o.page_url, o.selector);
                }
            }
        }
    }
    out
}

/// Drops characters XML 1.0 cannot carry even escaped (most C0 controls,
/// U+FFFE, U+FFFF), so odd bytes in a page can never make the report unparsable.
fn xml_safe(s: &str) -> String {
    s.chars()
        .filter(|c| {
            matches!(*c, '\t' | '\n' | '\r') || (*c >= ' ' && *c != '\u{FFFE}' && *c != '\u{FFFF}')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;
    use quick_xml::events::Event;
    use quick_xml::Reader;

    #[derive(Debug, Default)]
    struct Parsed {
        suites: Vec<(String, usize, usize, usize)>,
        cases: usize,
        failures: Vec<(String, String, String, String)>,
        skipped: Vec<(String, String)>,
        root: (String, String),
    }

    fn attr(e: &BytesStart<'_>, name: &str) -> String {
        e.try_get_attribute(name)
            .unwrap()
            .map(|a| a.unescape_value().unwrap().into_owned())
            .unwrap_or_default()
    }

    fn parse(xml: &[u8]) -> Parsed {
        let mut r = Reader::from_reader(xml);
        let mut p = Parsed::default();
        let mut current = (String::new(), String::new());
        let mut in_failure: Option<(String, String)> = None;
        let mut buf = Vec::new();
        loop {
            match r.read_event_into(&mut buf).unwrap() {
                Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testsuites" => {
                    p.root = (attr(&e, "tests"), attr(&e, "failures"));
                }
                Event::Start(e) if e.name().as_ref() == b"testsuite" => p.suites.push((
                    attr(&e, "name"),
                    attr(&e, "tests").parse().unwrap(),
                    attr(&e, "failures").parse().unwrap(),
                    attr(&e, "skipped").parse().unwrap(),
                )),
                Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testcase" => {
                    p.cases += 1;
                    current = (attr(&e, "classname"), attr(&e, "name"));
                }
                Event::Start(e) if e.name().as_ref() == b"failure" => {
                    in_failure = Some((attr(&e, "type"), attr(&e, "message")));
                }
                Event::Start(e) if e.name().as_ref() == b"skipped" => {
                    p.skipped.push(current.clone());
                }
                Event::Text(t) => {
                    if let Some((ty, msg)) = in_failure.take() {
                        let body = t.unescape().unwrap().into_owned();
                        p.failures
                            .push((format!("{} {}", current.0, current.1), ty, msg, body));
                    }
                }
                Event::Eof => break,
                _ => {}
            }
            buf.clear();
        }
        p
    }

    #[test]
    fn suites_per_category_cases_per_rule_and_page_failures_carry_findings() {
        let report = sample::report();
        let xml = render(&report).unwrap();
        let p = parse(&xml);
        // 4 fetched pages (the timed-out one is not a case); 3 + 1 + 1 + 1 + 1 rules.
        assert_eq!(
            p.suites,
            vec![
                ("accessibility".into(), 12, 4, 1),
                ("seo".into(), 4, 1, 0),
                ("security".into(), 4, 1, 0),
                ("performance".into(), 4, 1, 0),
                ("quality".into(), 4, 1, 0),
            ]
        );
        assert_eq!(p.cases, 28);
        assert_eq!(p.root, ("28".into(), "8".into()));
        let image = p
            .failures
            .iter()
            .find(|f| f.0 == "accessibility.image-alt https://shop.example/products?id=3&sort=asc")
            .unwrap();
        assert_eq!(image.1, "critical");
        assert_eq!(image.2, "Image has no text alternative");
        assert!(
            image
                .3
                .contains(r#"snippet: <img src="p.png?x=1&y=<2>" title='"quoted"'>"#),
            "{}",
            image.3
        );
        // The contrast failure on / and the cant-tell on /about: only the latter is skipped.
        assert_eq!(
            p.skipped,
            vec![(
                "accessibility.color-contrast".to_string(),
                "https://shop.example/about".to_string()
            )]
        );
        let broken = p
            .failures
            .iter()
            .find(|f| f.0.starts_with("quality.broken-link"))
            .unwrap();
        assert_eq!(
            broken.2,
            "Link to /old answers 404 <script>alert(1)</script>"
        );
    }

    #[test]
    fn control_characters_never_reach_the_xml() {
        let mut report = sample::report();
        report.findings[0].message = "bad \u{1} byte \u{FFFF}".into();
        let xml = render(&report).unwrap();
        let p = parse(&xml);
        assert!(p.failures.iter().any(|f| f.2 == "bad  byte "));
    }

    #[test]
    fn a_clean_site_is_all_passing_cases() {
        let p = parse(&render(&sample::empty_report()).unwrap());
        assert_eq!(p.suites, vec![("accessibility".into(), 1, 0, 0)]);
        assert!(p.failures.is_empty());
    }
}
