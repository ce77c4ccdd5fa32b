//! The `sitescan` binary: commands, output contracts and exit codes.

use std::process::Command;

fn sitescan() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sitescan"))
}

#[test]
fn rules_json_lists_every_rule_with_its_metadata() {
    let out = sitescan()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = rules.as_array().unwrap();
    assert_eq!(rules.len(), sitescan::rules::registry::all_meta().count());
    let title = rules.iter().find(|r| r["id"] == "document-title").unwrap();
    for key in [
        "id", "category", "title", "wcag", "level", "impact", "act", "help_url",
    ] {
        assert!(title.get(key).is_some(), "missing {key}");
    }
    assert_eq!(title["wcag"], serde_json::json!(["2.4.2"]));
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = sitescan().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand"));
}
