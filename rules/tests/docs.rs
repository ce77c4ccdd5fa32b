//! The book's rule index (`docs/src/rules.md`), its table-of-contents entries
//! (`docs/src/SUMMARY.md`) and `docs/src/rules/*.md` are generated from the
//! registry; this test fails when they are stale. Regenerate with
//! `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`.

use std::path::{Path, PathBuf};

use sitescan_rules::{docs, registry};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bless() -> bool {
    std::env::var_os("SITESCAN_BLESS").is_some()
}

/// Checks (or, blessing, rewrites) the generated part of one hand-written page.
fn check_spliced(rel: &str, splice: fn(&str) -> Option<String>) {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let want =
        splice(&text).unwrap_or_else(|| panic!("{rel} lacks the generated section's marker lines"));
    if bless() {
        std::fs::write(&path, want).unwrap_or_else(|e| panic!("{rel}: {e}"));
        return;
    }
    assert!(
        text == want,
        "{rel}'s generated rule section is stale: run `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`"
    );
}

#[test]
fn rule_index_is_current() {
    check_spliced(docs::INDEX_PATH, docs::splice_index);
}

#[test]
fn table_of_contents_lists_every_rule_page() {
    check_spliced(docs::SUMMARY_PATH, docs::splice_summary);
}

#[test]
fn rule_pages_are_current() {
    let dir = root().join(docs::RULE_DOCS_DIR);
    if bless() {
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "md") {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    let mut stale = Vec::new();
    let mut expected_files = Vec::new();
    for m in registry::all_meta() {
        let file = format!("{}.md", m.id);
        let path = dir.join(&file);
        let want = docs::rule_page(m);
        if bless() {
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(file.clone());
        }
        expected_files.push(file);
    }
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && !expected_files.contains(&name) {
                stale.push(format!("{name} (no such rule)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale rule docs in {}: {stale:?}; run `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`",
        docs::RULE_DOCS_DIR
    );
}
