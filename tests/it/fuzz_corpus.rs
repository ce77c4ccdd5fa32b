//! The fuzz targets' saved corpus (`fuzz/corpus/<target>/`), replayed on the
//! stable toolchain without the fuzzer: every file through the same function
//! its libFuzzer target calls (`fuzz/src/lib.rs`, included here as a module),
//! so an input that once crashed a target, saved in the corpus, fails the
//! ordinary test suite too. `scripts/fuzz` runs the coverage-guided fuzzer.

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::path::PathBuf;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
        .join(target)
}

#[test]
fn every_saved_input_runs_through_its_target_without_a_crash() {
    let mut replayed = Vec::new();
    for (name, target) in targets::TARGETS {
        let dir = corpus_dir(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(
            files.len() >= 3,
            "{name}: the saved corpus has {} inputs",
            files.len()
        );
        for file in &files {
            let data = std::fs::read(file).unwrap();
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "{name} crashed on {}", file.display());
        }
        replayed.push((*name, files.len()));
    }
    assert_eq!(replayed.len(), 8, "{replayed:?}");
}

#[test]
fn every_fuzz_target_binary_is_listed_and_calls_its_function() {
    let fuzz = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
    for (name, _) in targets::TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{name} is not a [[bin]] of fuzz/Cargo.toml"
        );
        let source =
            std::fs::read_to_string(fuzz.join("fuzz_targets").join(format!("{name}.rs"))).unwrap();
        assert!(
            source.contains(&format!("sitescan_fuzz::{name}(data)")),
            "fuzz_targets/{name}.rs does not call sitescan_fuzz::{name}"
        );
    }
}
