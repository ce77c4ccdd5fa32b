//! [`RuleTester`]: runs a rule's examples and checks each ACT outcome on the
//! element the example names; used by every rule's tests.
//!
//! ```text
//! RuleTester::new(&ImageAlt)
//!     .pass(&[("img", r#"<img src=a.png alt="Logo">"#)])
//!     .fail(&[("img", "<img src=a.png>")])
//!     .inapplicable(&["<img src=a.png hidden>"])
//!     .run();
//! ```
//!
//! Each example names its target with a CSS selector (the first element that
//! matches it) or [`PAGE`] for an outcome recorded on the page as a whole:
//!
//! - `pass`: the rule recorded a pass on the target, and no failure and no
//!   cant-tell anywhere on the page. A page on which the rule never applied does
//!   not pass: that is what `inapplicable` is for.
//! - `fail`: the rule recorded a failure on the target.
//! - `cant_tell`: the rule recorded a cant-tell on the target and no failure
//!   anywhere.
//! - `inapplicable`: the rule recorded nothing at all.
//!
//! The messages of every failing and cant-tell example are compared with a
//! snapshot, `rules/snapshots/<test>.snap`, so a change of wording shows up in
//! review; `SITESCAN_BLESS=1` rewrites the snapshots. (A plain text file rather
//! than `insta`: this module is part of the library, which takes no test-only
//! dependency, and the project already blesses its generated docs this way.)

use std::fmt::Write as _;
use std::panic::Location;
use std::path::PathBuf;

use ego_tree::NodeId;
use scraper::{ElementRef, Selector};

use crate::context::{Outcome, PageContext, Traced};
use crate::page::Page;
use crate::run::{analyze_traced, Rule};

/// The target of an example whose outcome is about the page as a whole (a
/// header, a missing element), not one element.
pub const PAGE: &str = "(page)";

/// Runs examples through one rule and panics with a readable report when any
/// example disagrees, or when the messages differ from the rule's snapshot.
///
/// A fragment (no `<html`) is wrapped in a minimal valid document with
/// `lang="en"` and a title, so only the rule under test matters.
pub struct RuleTester {
    rule: &'static dyn Rule,
    cases: Vec<Case>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Pass,
    Fail,
    CantTell,
    Inapplicable,
}

impl Expect {
    fn word(self) -> &'static str {
        match self {
            Expect::Pass => "pass",
            Expect::Fail => "fail",
            Expect::CantTell => "cant-tell",
            Expect::Inapplicable => "inapplicable",
        }
    }
}

struct Case {
    expect: Expect,
    /// A selector or [`PAGE`]; `None` for inapplicable examples.
    target: Option<String>,
    page: Page,
    at: &'static Location<'static>,
}

/// The text of a sheet [`RuleTester::page_with_sheets`] cannot reach (the
/// server does not answer), unlike a URL left out (`HTTP 404`).
pub const UNREACHABLE: &str = "\u{0}unreachable";

impl RuleTester {
    /// A tester for `rule`.
    pub fn new(rule: &'static dyn Rule) -> RuleTester {
        RuleTester {
            rule,
            cases: Vec::new(),
        }
    }

    /// Wraps a fragment as a page at `https://example.com/`.
    pub fn page(html: &str) -> Page {
        let body = if html.contains("<html")
            || html.contains("<!DOCTYPE")
            || html.contains("<!doctype")
        {
            html.to_string()
        } else {
            format!("<!DOCTYPE html><html lang=\"en\"><head><title>Test</title></head><body>{html}</body></html>")
        };
        Page::from_html("https://example.com/", &body)
    }

    /// [`RuleTester::page`] with its linked stylesheets loaded as the engine
    /// loads them: `sheets` holds the texts by absolute URL (a URL not in it
    /// answers `HTTP 404`; one whose text is [`UNREACHABLE`] does not
    /// answer), `@import` chains are followed by the engine's
    /// [`crate::css::ImportWalk`] (those of `<style>` elements too), and at most `max_sheets` sheets are
    /// fetched in all.
    pub fn page_with_sheets(html: &str, sheets: &[(&str, &str)], max_sheets: usize) -> Page {
        let mut page = Self::page(html);
        let text_of = |url: &url::Url| match sheets.iter().find(|(u, _)| *u == url.as_str()) {
            Some((_, t)) if *t == UNREACHABLE => Err((None, "connection refused".to_string())),
            Some((_, t)) => Ok(std::sync::Arc::from(*t)),
            None => Err((Some(404), "HTTP 404".to_string())),
        };
        let prepass = crate::links::prepass(&page.body, &page.final_url, false);
        for link in prepass.stylesheets {
            if page.stylesheets.len() >= max_sheets {
                page.stylesheets_skipped += 1;
                continue;
            }
            let text = match text_of(&link.url) {
                Ok(text) => text,
                Err(_) if !crate::css::media_may_apply(link.media.as_deref()) => continue,
                Err((status, reason)) => {
                    page.stylesheets_missing.push(crate::MissingStylesheet::new(
                        link.url.to_string(),
                        status,
                        reason,
                    ));
                    continue;
                }
            };
            let room = crate::css::Room {
                sheets: max_sheets - page.stylesheets.len(),
                bytes: usize::MAX,
            };
            let walk = crate::css::ImportWalk::new(link.url, link.media, text, room).run(text_of);
            page.stylesheets.extend(walk.sheets);
            page.stylesheets_missing.extend(walk.missing);
            page.stylesheets_skipped += walk.skipped;
        }
        for style in prepass.importing_styles {
            if !crate::css::media_may_apply(style.media.as_deref()) {
                continue;
            }
            let room = crate::css::Room {
                sheets: max_sheets.saturating_sub(page.stylesheets.len()),
                bytes: usize::MAX,
            };
            let walk = crate::css::ImportWalk::for_style_element(
                style.base,
                style.media,
                style.text.into(),
                room,
            )
            .run(text_of);
            page.stylesheets.extend(walk.sheets);
            page.stylesheets_missing.extend(walk.missing);
            page.stylesheets_skipped += walk.skipped;
        }
        page
    }

    #[track_caller]
    fn add(mut self, expect: Expect, cases: &[(&str, &str)]) -> Self {
        let at = Location::caller();
        self.cases.extend(cases.iter().map(|(target, html)| Case {
            expect,
            target: Some((*target).to_string()),
            page: Self::page(html),
            at,
        }));
        self
    }

    #[track_caller]
    fn add_page(mut self, expect: Expect, target: Option<&str>, page: Page) -> Self {
        self.cases.push(Case {
            expect,
            target: target.map(str::to_string),
            page,
            at: Location::caller(),
        });
        self
    }

    /// `(target, html)` examples on which the rule must record a pass on the
    /// target, and no failure or cant-tell anywhere.
    #[track_caller]
    pub fn pass(self, cases: &[(&str, &str)]) -> Self {
        self.add(Expect::Pass, cases)
    }

    /// `(target, html)` examples on which the rule must record a failure on
    /// the target.
    #[track_caller]
    pub fn fail(self, cases: &[(&str, &str)]) -> Self {
        self.add(Expect::Fail, cases)
    }

    /// `(target, html)` examples on which the rule must record a cant-tell on
    /// the target and no failure anywhere.
    #[track_caller]
    pub fn cant_tell(self, cases: &[(&str, &str)]) -> Self {
        self.add(Expect::CantTell, cases)
    }

    /// Examples on which the rule must not apply: no outcome at all.
    #[track_caller]
    pub fn inapplicable(mut self, cases: &[&str]) -> Self {
        let at = Location::caller();
        self.cases.extend(cases.iter().map(|html| Case {
            expect: Expect::Inapplicable,
            target: None,
            page: Self::page(html),
            at,
        }));
        self
    }

    /// A whole page (with headers, timings…) that must pass on `target`.
    #[track_caller]
    pub fn pass_page(self, target: &str, page: Page) -> Self {
        self.add_page(Expect::Pass, Some(target), page)
    }

    /// A whole page that must fail on `target`.
    #[track_caller]
    pub fn fail_page(self, target: &str, page: Page) -> Self {
        self.add_page(Expect::Fail, Some(target), page)
    }

    /// A whole page that must be cant-tell on `target`.
    #[track_caller]
    pub fn cant_tell_page(self, target: &str, page: Page) -> Self {
        self.add_page(Expect::CantTell, Some(target), page)
    }

    /// A whole page on which the rule must not apply.
    #[track_caller]
    pub fn inapplicable_page(self, page: Page) -> Self {
        self.add_page(Expect::Inapplicable, None, page)
    }

    /// Runs every example; panics listing each one that disagreed, then
    /// compares the messages with the snapshot.
    pub fn run(self) {
        let id = self.rule.meta().id;
        let mut problems = Vec::new();
        let mut snapshot = format!(
            "rule `{id}`: findings of its failing and cant-tell examples\n(rewrite with SITESCAN_BLESS=1 after reviewing the change)\n"
        );
        for (n, case) in self.cases.iter().enumerate() {
            let cx = PageContext::parse(&case.page);
            let (analysis, traces) = analyze_traced(&cx, &[self.rule]);
            let label = format!(
                "{} example #{} ({}:{}){}",
                case.expect.word(),
                n + 1,
                case.at.file(),
                case.at.line(),
                case.target
                    .as_deref()
                    .map(|t| format!(" on `{t}`"))
                    .unwrap_or_default()
            );
            let report = |why: String| {
                format!(
                    "{label}: {why}\npage: {}\nfindings: {:#?}",
                    case.page.body, analysis.findings
                )
            };
            if let Some(err) = analysis.errors.first() {
                problems.push(report(format!("the rule panicked: {}", err.message)));
                continue;
            }
            let trace: &[Traced] = traces.first().map(Vec::as_slice).unwrap_or(&[]);
            let target = match case.target.as_deref() {
                None => None,
                Some(PAGE) => Some(None),
                Some(sel) => match resolve(&cx, sel) {
                    Ok(node) => Some(Some(node)),
                    Err(why) => {
                        problems.push(report(why));
                        continue;
                    }
                },
            };
            if let Some(why) = disagreement(case.expect, target, trace, &cx) {
                problems.push(report(why));
                continue;
            }
            if matches!(case.expect, Expect::Fail | Expect::CantTell) {
                let _ = writeln!(
                    snapshot,
                    "\n{} on `{}`: {}",
                    case.expect.word(),
                    case.target.as_deref().unwrap_or(PAGE),
                    one_line(&case.page.body)
                );
                for f in &analysis.findings {
                    let outcome = match f.outcome {
                        Outcome::Failed => "failed",
                        Outcome::CantTell => "cant-tell",
                        Outcome::Passed => "passed",
                    };
                    let place = if f.selector.is_empty() {
                        PAGE
                    } else {
                        f.selector.as_str()
                    };
                    let _ = writeln!(snapshot, "  {outcome} {place}: {}", f.message);
                }
            }
        }
        assert!(
            problems.is_empty(),
            "rule `{id}` disagreed with {} example(s):\n\n{}",
            problems.len(),
            problems.join("\n\n")
        );
        check_snapshot(id, &snapshot);
    }
}

/// The first element `sel` matches, or why there is none.
fn resolve(cx: &PageContext<'_>, sel: &str) -> Result<NodeId, String> {
    let parsed = Selector::parse(sel).map_err(|e| format!("target `{sel}` is no selector: {e}"))?;
    cx.doc()
        .select(&parsed)
        .next()
        .map(|el| el.id())
        .ok_or_else(|| format!("target `{sel}` matches no element of the page"))
}

/// Why the outcomes a rule recorded disagree with an example, if they do.
/// `target` is `None` for inapplicable examples, `Some(None)` for the page.
fn disagreement(
    expect: Expect,
    target: Option<Option<NodeId>>,
    trace: &[Traced],
    cx: &PageContext<'_>,
) -> Option<String> {
    let count = |o: Outcome| trace.iter().filter(|(t, _)| *t == o).count();
    let (passed, failed, cant) = (
        count(Outcome::Passed),
        count(Outcome::Failed),
        count(Outcome::CantTell),
    );
    let summary = format!("the rule recorded {passed} passed, {failed} failed, {cant} cant-tell");
    let Some(target) = target else {
        return (!trace.is_empty()).then(|| format!("{summary}, expected it not to apply"));
    };
    let on_target = |o: Outcome| trace.iter().any(|(t, n)| *t == o && *n == target);
    let elsewhere = || {
        let places: Vec<String> = trace
            .iter()
            .map(|(o, n)| format!("{o:?} on {}", describe(cx, *n)))
            .collect();
        if places.is_empty() {
            "it did not apply to the page at all".to_string()
        } else {
            format!("it recorded {}", places.join(", "))
        }
    };
    match expect {
        Expect::Pass if failed + cant > 0 => {
            Some(format!("{summary}, expected no failure or cant-tell"))
        }
        Expect::Pass if !on_target(Outcome::Passed) => {
            Some(format!("no pass on the target: {}", elsewhere()))
        }
        Expect::Fail if !on_target(Outcome::Failed) => {
            Some(format!("no failure on the target: {}", elsewhere()))
        }
        Expect::CantTell if failed > 0 => Some(format!("{summary}, expected no failure")),
        Expect::CantTell if !on_target(Outcome::CantTell) => {
            Some(format!("no cant-tell on the target: {}", elsewhere()))
        }
        _ => None,
    }
}

/// A recorded place, as a selector a test could name.
fn describe(cx: &PageContext<'_>, node: Option<NodeId>) -> String {
    match node.and_then(|n| cx.element(n)) {
        None => PAGE.to_string(),
        Some(el) => format!("`{}`", suggest_selector(cx, el)),
    }
}

/// A short selector whose first match is `el`: its tag, its id, or the full
/// unique path.
fn suggest_selector(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    let first_is = |sel: &str| {
        Selector::parse(sel)
            .ok()
            .and_then(|s| cx.doc().select(&s).next())
            .is_some_and(|m| m.id() == el.id())
    };
    let tag = el.value().name().to_string();
    if first_is(&tag) {
        return tag;
    }
    if let Some(id) = el.value().id() {
        let sel = format!("#{id}");
        if first_is(&sel) {
            return sel;
        }
    }
    crate::dom::unique_selector(el)
}

fn one_line(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let inner = flat
        .strip_prefix("<!DOCTYPE html><html lang=\"en\"><head><title>Test</title></head><body>")
        .and_then(|s| s.strip_suffix("</body></html>"))
        .unwrap_or(&flat);
    let mut out: String = inner.chars().take(160).collect();
    if inner.chars().count() > 160 {
        out.push('…');
    }
    out
}

/// Compares `text` with the test's snapshot file, or writes it under
/// `SITESCAN_BLESS`.
fn check_snapshot(rule_id: &str, text: &str) {
    // libtest runs each test on a thread named after it.
    let name = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map(|n| n.replace("::", "__"))
        .unwrap_or_else(|| rule_id.to_string());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("{name}.snap"));
    if std::env::var_os("SITESCAN_BLESS").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create rules/snapshots");
        }
        std::fs::write(&path, text).expect("write the snapshot");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != text {
        let first_diff = have
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| have.lines().count().min(text.lines().count()));
        panic!(
            "rule `{rule_id}`: messages differ from {} (first at line {}):\n--- snapshot\n{}\n--- now\n{}\nreview, then rewrite with `SITESCAN_BLESS=1 cargo test -p sitescan-rules`",
            path.display(),
            first_diff + 1,
            have.lines().nth(first_diff).unwrap_or("(end)"),
            text.lines().nth(first_diff).unwrap_or("(end)"),
        );
    }
}
