//! The W3C ACT Rules conformance runner: how accessibility accuracy is measured.
//!
//! [`run`] reads an ACT test-case folder (`manifest.json`, one file per example,
//! `assets/`; see `../shared/conformance/act/README.md`), maps each ACT rule to the
//! sitescan rules whose [`RuleMeta::act`](sitescan_rules::RuleMeta) lists it, runs
//! every example through those rules and classifies each ACT rule as ACT
//! implementation reports do:
//!
//! - a **failed** example must yield at least one finding with outcome `failed`
//!   from a mapped rule;
//! - **passed** and **inapplicable** examples must yield no `failed` finding;
//! - an example where the rules only say `cant-tell` is neither right nor wrong: it
//!   makes the rule *partially consistent*, never consistent and never inconsistent.
//!
//! Per ACT rule: `consistent` (every example right), `partially consistent` (no
//! example wrong, some cant-tell or untested), `inconsistent` (at least one example
//! wrong), `untested` (no sitescan rule maps to it).
//!
//! That is stricter than the W3C's own reports (`act-rules/act-tools`,
//! `getConsistency`), which call a rule consistent ("complete") when no example
//! is wrong, none is untested and at least one failed example is reported failed:
//! a cant-tell on any example is accepted there. The published figures of other
//! tools in `implementations.json` are counted that way, so each rule also says
//! whether it would be consistent by that count ([`RuleResult::consistent_as_published`]),
//! and the totals count those rules apart; the verdicts, the floor and the
//! headline figures stay the strict ones.
//!
//! **Examples that need a script.** sitescan checks the HTML as served and never
//! runs scripts. An example with `has_script` (a `<script>`, an `on*` handler or a
//! `javascript:` URL) describes the page *after* its scripts ran, so a static
//! checker cannot produce that example's outcome. Such examples are *untested*:
//! their static outcome is still computed and shown, but they are not judged. This
//! follows the ACT report convention, where an example a tool reports no outcome
//! for is "untested" and keeps the rule at best partially consistent: a rule with
//! a scripted example is therefore never reported consistent, and a scripted
//! example never makes a rule inconsistent. The decision is made from the manifest
//! before running, never from the outcome.
//!
//! The engine may read files, the rules crate may not: this module builds each
//! [`Page`] itself (the example's published URL, linked `/test-assets/` stylesheets
//! loaded from `assets/`, no headers) and hands it to [`sitescan_rules::analyze`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sitescan_rules::{analyze, registry, Outcome, Page, Rule, Stylesheet};

use crate::error::{Error, Result};

mod render;
pub use render::{run_render, RenderRun};

/// What an example is expected to yield, from the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expected {
    /// The example meets the rule.
    Passed,
    /// The example fails the rule.
    Failed,
    /// The rule does not apply to the example.
    Inapplicable,
}

/// What sitescan's mapped rules said about one example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Actual {
    /// At least one finding with outcome `failed`.
    Failed,
    /// No failure, at least one `cant-tell`.
    CantTell,
    /// No failed and no cant-tell finding (passed or inapplicable).
    NoFailure,
    /// A mapped rule panicked on the example.
    Error,
}

/// The verdict on one example.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseVerdict {
    /// The outcome is the expected one.
    Correct,
    /// Only cant-tell: not judged right or wrong.
    CantTell,
    /// The outcome contradicts the expected one (a missed failure, a false failure,
    /// or a rule crash).
    Wrong,
    /// Needs a script to reach the state the example describes: not judged.
    UntestedScript,
}

/// How an ACT rule fares overall, as ACT implementation reports classify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Every example has the expected outcome.
    Consistent,
    /// No example is wrong, but some are cant-tell or untested.
    PartiallyConsistent,
    /// At least one example is wrong.
    Inconsistent,
    /// No sitescan rule maps to this ACT rule.
    Untested,
}

impl Consistency {
    /// The label used in the text table.
    pub fn label(self) -> &'static str {
        match self {
            Consistency::Consistent => "consistent",
            Consistency::PartiallyConsistent => "partial",
            Consistency::Inconsistent => "inconsistent",
            Consistency::Untested => "untested",
        }
    }
}

/// One example and what happened to it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseResult {
    /// File name inside the rule's folder, e.g. `failed-2.html`.
    pub file: String,
    /// The ACT test case id (SHA-1 of the code), as in EARL reports.
    pub testcase_id: String,
    /// The expected outcome.
    pub expected: Expected,
    /// What the mapped rules said (for scripted examples: what they said about the
    /// HTML as served).
    pub actual: Actual,
    /// The verdict.
    pub verdict: CaseVerdict,
    /// Whether the example needs a script.
    pub has_script: bool,
    /// Ids of the sitescan rules that reported `failed`.
    pub failed_by: Vec<String>,
    /// Messages of the findings (failed and cant-tell), for reading wrong cases.
    pub messages: Vec<String>,
}

/// One ACT rule and its verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RuleResult {
    /// ACT rule id, e.g. `b5c3f8`.
    pub act_id: String,
    /// ACT rule name.
    pub name: String,
    /// Whether every input aspect is static (DOM, headers, CSS, accessibility tree,
    /// language).
    pub static_decidable: bool,
    /// Whether the rule judges natural-language meaning.
    pub needs_language: bool,
    /// sitescan rules mapped to it (through their `act` metadata).
    pub mapped: Vec<String>,
    /// The verdict.
    pub consistency: Consistency,
    /// Examples judged correct.
    pub correct: usize,
    /// Examples with only cant-tell.
    pub cant_tell: usize,
    /// Examples judged wrong.
    pub wrong: usize,
    /// Scripted examples, not judged.
    pub untested_script: usize,
    /// Consistent as the W3C's published reports count: no example wrong, none
    /// untested, and at least one failed example reported failed (cant-tell
    /// accepted anywhere else). Always true for a consistent rule.
    #[serde(default)]
    pub consistent_as_published: bool,
    /// Every example (empty for untested rules).
    pub cases: Vec<CaseResult>,
}

/// Counts of ACT rules by verdict over one selection of rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// ACT rules in the selection.
    pub rules_considered: usize,
    /// Rules with at least one mapped sitescan rule.
    pub implemented: usize,
    /// Consistent rules.
    pub consistent: usize,
    /// Partially consistent rules.
    pub partially_consistent: usize,
    /// Inconsistent rules.
    pub inconsistent: usize,
    /// Rules consistent as the W3C's published reports count them (cant-tell
    /// accepted): the consistent ones and partial ones whose only shortfall is
    /// cant-tell. For published implementations: the same as `consistent`.
    #[serde(default)]
    pub consistent_as_published: usize,
}

impl Totals {
    fn of<'a>(rules: impl Iterator<Item = &'a RuleResult>) -> Totals {
        let mut t = Totals::default();
        for r in rules {
            t.rules_considered += 1;
            match r.consistency {
                Consistency::Consistent => t.consistent += 1,
                Consistency::PartiallyConsistent => t.partially_consistent += 1,
                Consistency::Inconsistent => t.inconsistent += 1,
                Consistency::Untested => continue,
            }
            t.implemented += 1;
            t.consistent_as_published += usize::from(r.consistent_as_published);
        }
        t
    }
}

/// A published implementation's figures over the same rules, from
/// `implementations.json`, to compare with.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PeerTotals {
    /// Tool key, e.g. `axe-core`.
    pub key: String,
    /// Tool name and version.
    pub name: String,
    /// Over the ACT rules of the manifest.
    pub rules_in_manifest: Totals,
    /// Over the static-decidable rules of the manifest.
    pub static_decidable_rules: Totals,
}

/// The whole conformance run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConformanceReport {
    /// Where the test cases came from (the manifest's `source`).
    pub source: serde_json::Value,
    /// Whether the examples were rendered in a browser ([`run_render`]):
    /// scripted examples are then judged like the others.
    #[serde(default)]
    pub rendered: bool,
    /// One entry per kept ACT rule, in manifest order.
    pub rules: Vec<RuleResult>,
    /// Totals over every kept ACT rule.
    pub totals: Totals,
    /// Totals over the static-decidable ACT rules.
    pub static_decidable: Totals,
    /// Totals over the static-decidable ACT rules that need no language judgement.
    pub static_decidable_without_language: Totals,
    /// Examples run (scripted ones included).
    pub cases_run: usize,
    /// Scripted examples, computed but not judged.
    pub cases_untested_script: usize,
    /// Published figures of other tools (empty when `implementations.json` is absent).
    pub peers: Vec<PeerTotals>,
    /// The examples rendered a second time, alone ([`run_render`] only).
    #[serde(default)]
    pub second_looks: SecondLooks,
}

/// The examples [`run_render`] rendered a second time with no other tab
/// running, because the first render's verdict was wrong or cant-tell. The
/// report holds the second verdict; these say how many there were and which
/// changed, so a verdict that depends on the machine's load shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SecondLooks {
    /// Examples rendered again.
    pub examples: usize,
    /// Each example whose verdict changed: `rule/file: first -> second`.
    pub changed: Vec<String>,
}

impl ConformanceReport {
    /// The result for one ACT rule id.
    pub fn rule(&self, act_id: &str) -> Option<&RuleResult> {
        self.rules.iter().find(|r| r.act_id == act_id)
    }
}

#[derive(Debug, Deserialize)]
struct Manifest {
    #[serde(default)]
    source: serde_json::Value,
    rules: Vec<ManifestRule>,
}

#[derive(Debug, Deserialize)]
struct ManifestRule {
    id: String,
    name: String,
    #[serde(default)]
    static_decidable: bool,
    #[serde(default)]
    needs_language: bool,
    cases: Vec<ManifestCase>,
}

#[derive(Debug, Deserialize)]
struct ManifestCase {
    file: String,
    expected: Expected,
    #[serde(default)]
    testcase_id: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    has_script: bool,
    /// Whether the code is a fragment the W3C wraps in a document.
    #[serde(default)]
    fragment: bool,
    /// The example's heading, e.g. `Passed Example 1`.
    #[serde(default)]
    title: String,
}

#[derive(Debug, Deserialize)]
struct Implementations {
    implementations: Vec<Implementation>,
}

#[derive(Debug, Deserialize)]
struct Implementation {
    key: String,
    name: String,
    /// A string or a number in the published files (`6.55`).
    #[serde(default)]
    version: serde_json::Value,
    rules_in_manifest: Totals,
    static_decidable_rules: Totals,
}

fn data_error(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::ConformanceData {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// Runs every example of the ACT folder `dir` through the registered page rules.
///
/// # Errors
/// [`Error::ConformanceData`] when `manifest.json` is missing or malformed, or an
/// example file it lists cannot be read.
pub fn run(dir: &Path) -> Result<ConformanceReport> {
    run_with(dir, registry::page_rules())
}

/// [`run`] with an explicit set of page rules (for tests of the runner itself).
///
/// # Errors
/// As [`run`].
pub fn run_with(dir: &Path, rules: &[&'static dyn Rule]) -> Result<ConformanceReport> {
    let prepared = Prepared::read(dir, rules)?;
    let outcomes: Vec<((usize, usize), CaseResult)> = prepared
        .jobs
        .par_iter()
        .map(|job| {
            let (rule, case) = prepared.case(job);
            let page = build_page(dir, rule, case, job.body.clone());
            let r = judge(case, &page, prepared.mapped(rule), Mode::Static);
            ((job.rule, job.case), r)
        })
        .collect();
    prepared.assemble(dir, outcomes.into_iter().collect(), Mode::Static)
}

/// Whether examples are read as served or rendered in a browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The HTML as served; scripted examples are not judged.
    Static,
    /// The page the browser shows after its scripts ran; every example is judged.
    Render,
}

/// One example to run: indexes into the manifest and the example's code.
pub(crate) struct Job {
    pub(crate) rule: usize,
    pub(crate) case: usize,
    pub(crate) body: String,
}

/// The manifest, the mapping of ACT rules to sitescan rules and every example
/// read from disk (so I/O errors surface before any work).
pub(crate) struct Prepared {
    manifest: Manifest,
    by_act: BTreeMap<String, Vec<&'static dyn Rule>>,
    pub(crate) jobs: Vec<Job>,
}

impl Prepared {
    pub(crate) fn read(dir: &Path, rules: &[&'static dyn Rule]) -> Result<Prepared> {
        let manifest_path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&manifest_path).map_err(|e| {
            data_error(
                &manifest_path,
                format!("{e}; is this an ACT test-case folder?"),
            )
        })?;
        let manifest: Manifest =
            serde_json::from_str(&text).map_err(|e| data_error(&manifest_path, e))?;
        let mut by_act: BTreeMap<String, Vec<&'static dyn Rule>> = BTreeMap::new();
        for rule in rules {
            for act in rule.meta().act {
                by_act.entry(act.to_string()).or_default().push(*rule);
            }
        }
        let mut jobs = Vec::new();
        for (ri, rule) in manifest.rules.iter().enumerate() {
            if !by_act.contains_key(rule.id.as_str()) {
                continue;
            }
            for (ci, case) in rule.cases.iter().enumerate() {
                let path = dir.join(&rule.id).join(&case.file);
                let body = std::fs::read_to_string(&path).map_err(|e| data_error(&path, e))?;
                jobs.push(Job {
                    rule: ri,
                    case: ci,
                    body,
                });
            }
        }
        Ok(Prepared {
            manifest,
            by_act,
            jobs,
        })
    }

    fn case(&self, job: &Job) -> (&ManifestRule, &ManifestCase) {
        let rule = &self.manifest.rules[job.rule];
        (rule, &rule.cases[job.case])
    }

    fn mapped(&self, rule: &ManifestRule) -> &[&'static dyn Rule] {
        self.by_act
            .get(rule.id.as_str())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    fn assemble(
        self,
        dir: &Path,
        mut results: BTreeMap<(usize, usize), CaseResult>,
        mode: Mode,
    ) -> Result<ConformanceReport> {
        let mut out_rules = Vec::new();
        let mut cases_run = 0;
        let mut cases_untested_script = 0;
        for (ri, rule) in self.manifest.rules.iter().enumerate() {
            let mapped: Vec<String> = self
                .by_act
                .get(rule.id.as_str())
                .map(|v| v.iter().map(|r| r.meta().id.to_string()).collect())
                .unwrap_or_default();
            let cases: Vec<CaseResult> = (0..rule.cases.len())
                .filter_map(|ci| results.remove(&(ri, ci)))
                .collect();
            cases_run += cases.len();
            let count = |v: CaseVerdict| cases.iter().filter(|c| c.verdict == v).count();
            let (correct, cant_tell, wrong, untested_script) = (
                count(CaseVerdict::Correct),
                count(CaseVerdict::CantTell),
                count(CaseVerdict::Wrong),
                count(CaseVerdict::UntestedScript),
            );
            cases_untested_script += untested_script;
            let consistency = if mapped.is_empty() {
                Consistency::Untested
            } else if wrong > 0 {
                Consistency::Inconsistent
            } else if cant_tell > 0 || untested_script > 0 {
                Consistency::PartiallyConsistent
            } else {
                Consistency::Consistent
            };
            // act-tools' "complete": no false positive or negative (our
            // wrong), nothing untested, and a true positive.
            let consistent_as_published = !mapped.is_empty()
                && wrong == 0
                && untested_script == 0
                && cases
                    .iter()
                    .any(|c| c.expected == Expected::Failed && c.actual == Actual::Failed);
            out_rules.push(RuleResult {
                act_id: rule.id.clone(),
                name: rule.name.clone(),
                static_decidable: rule.static_decidable,
                needs_language: rule.needs_language,
                mapped,
                consistency,
                correct,
                cant_tell,
                wrong,
                untested_script,
                consistent_as_published,
                cases,
            });
        }

        let peers = read_peers(dir)?;
        Ok(ConformanceReport {
            source: self.manifest.source,
            rendered: mode == Mode::Render,
            totals: Totals::of(out_rules.iter()),
            static_decidable: Totals::of(out_rules.iter().filter(|r| r.static_decidable)),
            static_decidable_without_language: Totals::of(
                out_rules
                    .iter()
                    .filter(|r| r.static_decidable && !r.needs_language),
            ),
            rules: out_rules,
            cases_run,
            cases_untested_script,
            peers,
            second_looks: SecondLooks::default(),
        })
    }
}

fn read_peers(dir: &Path) -> Result<Vec<PeerTotals>> {
    let path = dir.join("implementations.json");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path).map_err(|e| data_error(&path, e))?;
    let imps: Implementations = serde_json::from_str(&text).map_err(|e| data_error(&path, e))?;
    Ok(imps
        .implementations
        .into_iter()
        .map(|i| PeerTotals {
            name: match i.version {
                serde_json::Value::String(v) if !v.is_empty() => format!("{} {v}", i.name),
                serde_json::Value::Number(v) => format!("{} {v}", i.name),
                _ => i.name,
            },
            key: i.key,
            // Their figures are counted the published way already.
            rules_in_manifest: Totals {
                consistent_as_published: i.rules_in_manifest.consistent,
                ..i.rules_in_manifest
            },
            static_decidable_rules: Totals {
                consistent_as_published: i.static_decidable_rules.consistent,
                ..i.static_decidable_rules
            },
        })
        .collect())
}

/// The page as a browser would get it: the example's published URL, the example's
/// code as the body (fragments as-is; html5ever adds the missing `html`, `head` and
/// `body`), and linked `/test-assets/` stylesheets read from `<dir>/assets/`.
fn build_page(dir: &Path, rule: &ManifestRule, case: &ManifestCase, body: String) -> Page {
    let fallback = format!("https://act-rules.example/{}/{}", rule.id, case.file);
    let url = if url::Url::parse(&case.url).is_ok() {
        case.url.as_str()
    } else {
        fallback.as_str()
    };
    let mut page = Page::from_html(url, &body);
    page.headers.clear();
    page.content_type = Some(
        match case.language.as_str() {
            "svg" => "image/svg+xml",
            "xml" => "application/xml",
            _ => "text/html",
        }
        .to_string(),
    );
    page.stylesheets = linked_stylesheets(dir, &body, &page.final_url);
    page
}

/// Stylesheets linked with `<link rel=stylesheet href="/test-assets/...">`, read
/// from `<dir>/assets/...`. References to assets that are absent (on purpose, per
/// the manifest's `assets_missing`) are left out, as a browser would fail to load
/// them.
fn linked_stylesheets(dir: &Path, body: &str, page_url: &url::Url) -> Vec<Stylesheet> {
    const PREFIX: &str = "/test-assets/";
    // The crawler's own pre-pass finds the links (no second DOM per case).
    let mut sheets = Vec::new();
    for link in sitescan_rules::links::stylesheet_hrefs(body, page_url) {
        let path = link.url.path();
        let Some(start) = path.find(PREFIX) else {
            continue;
        };
        let rest = &path[start + PREFIX.len()..];
        if rest.split('/').any(|seg| seg == "..") {
            continue;
        }
        let file: PathBuf = dir.join("assets").join(rest);
        if let Ok(text) = std::fs::read_to_string(&file) {
            sheets.push(Stylesheet {
                url: format!(
                    "https://www.w3.org/WAI/content-assets/wcag-act-rules/test-assets/{rest}"
                ),
                text: text.into(),
                media: link.media,
                styles_before: link.styles_before,
                ..Default::default()
            });
        }
    }
    sheets
}

fn judge(case: &ManifestCase, page: &Page, mapped: &[&'static dyn Rule], mode: Mode) -> CaseResult {
    let analysis = analyze(page, mapped);
    let mut failed_by: Vec<String> = analysis
        .findings
        .iter()
        .filter(|f| f.outcome == Outcome::Failed)
        .map(|f| f.rule_id.clone())
        .collect();
    failed_by.dedup();
    let cant_tell = analysis
        .findings
        .iter()
        .any(|f| f.outcome == Outcome::CantTell);
    let mut messages: Vec<String> = analysis
        .findings
        .iter()
        .map(|f| format!("{} {:?}: {}", f.rule_id, f.outcome, f.message))
        .collect();
    messages.extend(
        analysis
            .errors
            .iter()
            .map(|e| format!("{} panicked: {}", e.rule_id, e.message)),
    );
    let actual = if !analysis.errors.is_empty() {
        Actual::Error
    } else if !failed_by.is_empty() {
        Actual::Failed
    } else if cant_tell {
        Actual::CantTell
    } else {
        Actual::NoFailure
    };
    let verdict = if case.has_script && mode == Mode::Static {
        CaseVerdict::UntestedScript
    } else {
        match (case.expected, actual) {
            (_, Actual::Error) => CaseVerdict::Wrong,
            (_, Actual::CantTell) => CaseVerdict::CantTell,
            (Expected::Failed, Actual::Failed) => CaseVerdict::Correct,
            (Expected::Failed, Actual::NoFailure) => CaseVerdict::Wrong,
            (_, Actual::Failed) => CaseVerdict::Wrong,
            (_, Actual::NoFailure) => CaseVerdict::Correct,
        }
    };
    CaseResult {
        file: case.file.clone(),
        testcase_id: case.testcase_id.clone(),
        expected: case.expected,
        actual,
        verdict,
        has_script: case.has_script,
        failed_by,
        messages,
    }
}

/// The verdict on an example the browser could not render: wrong, with why.
fn render_failed(case: &ManifestCase, why: String) -> CaseResult {
    CaseResult {
        file: case.file.clone(),
        testcase_id: case.testcase_id.clone(),
        expected: case.expected,
        actual: Actual::Error,
        verdict: CaseVerdict::Wrong,
        has_script: case.has_script,
        failed_by: Vec::new(),
        messages: vec![format!("render failed: {why}")],
    }
}

/// Renders the per-rule table and the totals as plain text.
pub fn render_text(report: &ConformanceReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:<13} {:>4} {:>4} {:>4} {:>4}  {:<4} {:<40} sitescan rules",
        "ACT", "result", "ok", "ct", "bad", "js", "kind", "ACT rule"
    );
    for r in &report.rules {
        let kind = match (r.static_decidable, r.needs_language) {
            (true, false) => "S",
            (true, true) => "S+L",
            (false, _) => "",
        };
        let _ = writeln!(
            s,
            "{:<8} {:<13} {:>4} {:>4} {:>4} {:>4}  {:<4} {:<40} {}",
            r.act_id,
            r.consistency.label(),
            r.correct,
            r.cant_tell,
            r.wrong,
            r.untested_script,
            kind,
            sitescan_rules::dom::truncate_chars(&r.name, 40),
            r.mapped.join(", ")
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "ok = examples right, ct = cant-tell only, bad = wrong, js = needs a script (not judged);\n\
         kind: S = static-decidable, S+L = static-decidable but judges language, blank = needs audio, video or a person"
    );
    let _ = writeln!(s);
    let line = |s: &mut String, label: &str, t: &Totals| {
        let _ = writeln!(
            s,
            "{:<44} {:>3} rules: {:>3} implemented, {:>3} consistent, {:>3} partial, {:>3} inconsistent",
            label,
            t.rules_considered,
            t.implemented,
            t.consistent,
            t.partially_consistent,
            t.inconsistent
        );
    };
    let published = |s: &mut String, t: &Totals| {
        let _ = writeln!(
            s,
            "{:<44} {:>3} rules: {:>3} consistent with cant-tell accepted, as the published reports below count",
            "sitescan, as published reports count",
            t.rules_considered,
            t.consistent_as_published
        );
    };
    line(&mut s, "sitescan, all ACT rules here", &report.totals);
    published(&mut s, &report.totals);
    line(
        &mut s,
        "sitescan, static-decidable",
        &report.static_decidable,
    );
    line(
        &mut s,
        "sitescan, static-decidable without language",
        &report.static_decidable_without_language,
    );
    let _ = writeln!(
        s,
        "{} examples run, {} of them need a script (not judged)",
        report.cases_run, report.cases_untested_script
    );
    if report.rendered {
        let looks = &report.second_looks;
        let _ = writeln!(
            s,
            "{} examples with a wrong or cant-tell verdict rendered again alone; {} verdicts changed{}",
            looks.examples,
            looks.changed.len(),
            if looks.changed.is_empty() {
                String::new()
            } else {
                format!(": {}", looks.changed.join(", "))
            }
        );
    }
    if !report.peers.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "Published implementations (implementations.json), same ACT rules:"
        );
        for p in &report.peers {
            let label = sitescan_rules::dom::truncate_chars(&p.name, 44);
            line(&mut s, &label, &p.rules_in_manifest);
        }
    }
    let mut out: String = s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    /// A throwaway ACT folder for rule 2779a5 (page title), which
    /// `document-title` implements.
    fn fixture(dir: &Path, cases: &[(&str, &str, bool, &str)]) {
        let cases_json: Vec<serde_json::Value> = cases
            .iter()
            .map(|(file, expected, script, _)| {
                serde_json::json!({"file": file, "expected": expected, "testcase_id": file,
                    "url": format!("https://www.w3.org/x/{file}"), "language": "html",
                    "fragment": false, "has_script": script})
            })
            .collect();
        let manifest = serde_json::json!({"source": {"repository": "test"}, "rules": [
            {"id": "2779a5", "name": "HTML page has non-empty title", "static_decidable": true,
             "needs_language": false, "cases": cases_json},
            {"id": "zzzzzz", "name": "Nothing maps here", "static_decidable": true,
             "needs_language": false, "cases": []}
        ]});
        write(dir, "manifest.json", &manifest.to_string());
        for (file, _, _, html) in cases {
            write(dir, &format!("2779a5/{file}"), html);
        }
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "sitescan-conformance-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const TITLED: &str = "<html><head><title>A page</title></head><body></body></html>";
    const UNTITLED: &str = "<html><head></head><body></body></html>";

    #[test]
    fn classifies_consistent_inconsistent_untested_and_scripted() {
        let dir = tempdir("classify");
        fixture(
            &dir,
            &[
                ("passed-1.html", "passed", false, TITLED),
                ("failed-1.html", "failed", false, UNTITLED),
            ],
        );
        let report = run(&dir).unwrap();
        let r = report.rule("2779a5").unwrap();
        assert_eq!(r.consistency, Consistency::Consistent);
        assert_eq!((r.correct, r.wrong), (2, 0));
        assert_eq!(r.mapped, vec!["document-title"]);
        assert_eq!(
            report.rule("zzzzzz").unwrap().consistency,
            Consistency::Untested
        );
        assert_eq!(report.totals.implemented, 1);
        assert_eq!(report.totals.consistent, 1);

        // A passed example that our rule fails makes the ACT rule inconsistent.
        fixture(&dir, &[("passed-1.html", "passed", false, UNTITLED)]);
        let r = run(&dir).unwrap();
        let r = r.rule("2779a5").unwrap();
        assert_eq!(r.consistency, Consistency::Inconsistent);
        assert_eq!(r.cases[0].actual, Actual::Failed);
        assert_eq!(r.cases[0].failed_by, vec!["document-title"]);

        // A scripted example is computed but not judged: partial at best.
        fixture(
            &dir,
            &[
                ("passed-1.html", "passed", true, UNTITLED),
                ("failed-1.html", "failed", false, UNTITLED),
            ],
        );
        let r = run(&dir).unwrap();
        let r = r.rule("2779a5").unwrap();
        assert_eq!(r.consistency, Consistency::PartiallyConsistent);
        assert_eq!(r.untested_script, 1);
        assert_eq!(r.cases[0].verdict, CaseVerdict::UntestedScript);
        assert_eq!(r.cases[0].actual, Actual::Failed);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cant_tell_makes_a_rule_partial_never_consistent() {
        // audio-caption implements e7aa44 and only ever says cant-tell.
        let dir = tempdir("canttell");
        let manifest = serde_json::json!({"rules": [
            {"id": "e7aa44", "name": "Audio element content has text alternative",
             "cases": [
                {"file": "failed-1.html", "expected": "failed", "testcase_id": "a"},
                {"file": "inapplicable-1.html", "expected": "inapplicable", "testcase_id": "b"}
             ]}
        ]});
        write(&dir, "manifest.json", &manifest.to_string());
        write(
            &dir,
            "e7aa44/failed-1.html",
            "<html lang=en><audio src=a.mp3 controls></audio></html>",
        );
        write(
            &dir,
            "e7aa44/inapplicable-1.html",
            "<html lang=en><audio src=a.mp3></audio></html>",
        );
        let report = run(&dir).unwrap();
        let r = report.rule("e7aa44").unwrap();
        assert_eq!(r.consistency, Consistency::PartiallyConsistent);
        assert_eq!((r.correct, r.cant_tell, r.wrong), (1, 1, 0));
        assert_eq!(r.cases[0].actual, Actual::CantTell);
        assert_eq!(report.totals.partially_consistent, 1);
        assert!(render_text(&report).contains("e7aa44   partial"));
        // No failed example reported failed: not consistent the published way
        // either.
        assert!(!r.consistent_as_published);
        assert_eq!(report.totals.consistent_as_published, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn published_count_accepts_cant_tell_once_a_failure_is_found() {
        // focus-visible implements oj04fd: a removed outline fails, one a focus
        // handler may replace is cant-tell.
        let dir = tempdir("published");
        let manifest = serde_json::json!({"rules": [
            {"id": "oj04fd", "name": "Element in sequential focus order has visible focus",
             "cases": [
                {"file": "failed-1.html", "expected": "failed", "testcase_id": "a"},
                {"file": "passed-1.html", "expected": "passed", "testcase_id": "b"}
             ]}
        ]});
        write(&dir, "manifest.json", &manifest.to_string());
        write(
            &dir,
            "oj04fd/failed-1.html",
            "<html lang=en><style>a:focus { outline: none }</style><a href=/>Home</a></html>",
        );
        write(
            &dir,
            "oj04fd/passed-1.html",
            "<html lang=en><style>a:focus { outline: none }</style><a href=/ onfocus=mark(this)>Home</a></html>",
        );
        let report = run(&dir).unwrap();
        let r = report.rule("oj04fd").unwrap();
        assert_eq!(r.consistency, Consistency::PartiallyConsistent);
        assert_eq!((r.correct, r.cant_tell, r.wrong), (1, 1, 0));
        assert!(r.consistent_as_published);
        assert_eq!(
            (
                report.totals.consistent,
                report.totals.consistent_as_published
            ),
            (0, 1)
        );
        assert!(render_text(&report).contains(
            "sitescan, as published reports count           1 rules:   1 consistent with cant-tell accepted"
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_manifest_is_a_clear_error() {
        let dir = tempdir("missing");
        let err = run(&dir).unwrap_err().to_string();
        assert!(err.contains("manifest.json"), "{err}");
        assert!(err.contains("ACT test-case folder"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn linked_test_asset_stylesheets_are_loaded() {
        let dir = tempdir("assets");
        write(&dir, "assets/shared/a.css", "p { color: red }");
        let sheets = linked_stylesheets(
            &dir,
            r#"<link rel="stylesheet" href="/test-assets/shared/a.css" media="screen">
               <link rel="stylesheet" href="/test-assets/shared/missing.css">
               <link rel="icon" href="/test-assets/shared/a.css">
               <link rel="stylesheet" href="/test-assets/../../etc/passwd">"#,
            &url::Url::parse("https://www.w3.org/WAI/testcases/x.html").unwrap(),
        );
        assert_eq!(sheets.len(), 1);
        assert_eq!(&*sheets[0].text, "p { color: red }");
        assert_eq!(sheets[0].media.as_deref(), Some("screen"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
