//! The ACT conformance floor: runs the W3C ACT test cases in `$SITESCAN_ACT_DIR`,
//! else `../shared/conformance/act` (relative to the package root, where the
//! project keeps them), and fails when an ACT rule listed in
//! `conformance/floor.json` is no longer consistent: `consistent` for the
//! static run, `render_consistent` for the run in Chromium (`--render`).

use std::path::{Path, PathBuf};

use sitescan::conformance::{self, CaseVerdict, Consistency};

fn act_dir() -> PathBuf {
    match std::env::var_os("SITESCAN_ACT_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/act"),
    }
}

/// Whether the ACT test cases are at `dir`; when not, a failure unless a local
/// run allows missing proofs ([`sitescan_fixtures::ALLOW_MISSING`]).
fn has_act_cases(dir: &Path, test: &str) -> bool {
    if dir.join("manifest.json").exists() {
        return true;
    }
    sitescan_fixtures::missing(
        test,
        &format!("the W3C ACT test cases ({}/manifest.json)", dir.display()),
        "put the ACT rules' testcases.json cases there as `scripts/test` expects",
    );
    false
}

fn floor(key: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/floor.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json[key]
        .as_array()
        .unwrap_or_else(|| panic!("floor.json has a `{key}` array"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn act_floor_rules_stay_consistent() {
    let dir = act_dir();
    if !has_act_cases(&dir, "act_floor_rules_stay_consistent") {
        return;
    }
    let report = conformance::run(&dir).unwrap();
    check_floor(&report, &floor("consistent"));
}

/// Every example rendered in a real Chromium (one browser, a pool of tabs):
/// the `render_consistent` rules stay consistent and none is inconsistent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn act_floor_rules_stay_consistent_in_the_browser() {
    let dir = act_dir();
    if !has_act_cases(&dir, "act_floor_rules_stay_consistent_in_the_browser") {
        return;
    }
    sitescan::browser::configure(sitescan::browser::LaunchOptions {
        sandbox: false,
        ..sitescan::browser::LaunchOptions::from_env()
    });
    let report = conformance::run_render(&dir, &conformance::RenderRun::default())
        .await
        .unwrap();
    assert!(report.rendered);
    assert_eq!(
        report.cases_untested_script, 0,
        "scripted examples are judged"
    );
    check_floor(&report, &floor("render_consistent"));
    let inconsistent: Vec<&str> = report
        .rules
        .iter()
        .filter(|r| r.consistency == Consistency::Inconsistent)
        .map(|r| r.act_id.as_str())
        .collect();
    assert!(
        inconsistent.is_empty(),
        "inconsistent in the browser: {inconsistent:?}"
    );
    // Every HTML example still wrong or cant-tell was looked at twice, and so
    // was every one the second look turned right.
    let still_open = report
        .rules
        .iter()
        .filter(|r| !r.mapped.is_empty())
        .flat_map(|r| &r.cases)
        .filter(|c| {
            c.file.ends_with(".html")
                && matches!(c.verdict, CaseVerdict::Wrong | CaseVerdict::CantTell)
        })
        .count();
    let turned_right = report
        .second_looks
        .changed
        .iter()
        .filter(|c| c.ends_with("-> Correct"))
        .count();
    assert_eq!(
        report.second_looks.examples,
        still_open + turned_right,
        "second looks: {:?}",
        report.second_looks.changed
    );
}

fn check_floor(report: &conformance::ConformanceReport, floor: &[String]) {
    let mut problems = Vec::new();
    for id in floor {
        let id = id.as_str();
        let Some(rule) = report.rule(id) else {
            problems.push(format!("{id}: not in the manifest"));
            continue;
        };
        if rule.consistency == Consistency::Consistent {
            // The W3C's published count accepts more, never less.
            if !rule.consistent_as_published {
                problems.push(format!("{id}: consistent but not by the published count"));
            }
            continue;
        }
        let mut lines = vec![format!(
            "{id} ({}): {} [{}]",
            rule.name,
            rule.consistency.label(),
            rule.mapped.join(", ")
        )];
        for case in &rule.cases {
            if case.verdict != CaseVerdict::Correct {
                lines.push(format!(
                    "    {} expected {:?}, got {:?} ({:?}) {}",
                    case.file,
                    case.expected,
                    case.actual,
                    case.verdict,
                    case.messages.join(" | ")
                ));
            }
        }
        problems.push(lines.join("\n"));
    }
    assert!(
        problems.is_empty(),
        "ACT rules in conformance/floor.json regressed:\n{}",
        problems.join("\n")
    );
    assert!(
        report.totals.consistent_as_published >= report.totals.consistent,
        "published count {} below the strict one {}",
        report.totals.consistent_as_published,
        report.totals.consistent
    );
}

#[test]
fn conformance_command_prints_the_table_and_json() {
    let dir = act_dir();
    if !has_act_cases(&dir, "conformance_command_prints_the_table_and_json") {
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["conformance", dir.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = json["rules"].as_array().unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(rules.len(), manifest["rules"].as_array().unwrap().len());
    assert_eq!(
        json["totals"]["rules_considered"].as_u64().unwrap() as usize,
        rules.len()
    );

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["conformance", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2779a5"), "{text}");
    assert!(text.contains("sitescan, all ACT rules here"), "{text}");
}

#[test]
fn conformance_on_a_missing_folder_is_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
        .args(["conformance", "/nonexistent/act"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("manifest.json"));
}
