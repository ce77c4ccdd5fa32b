//! Developer loop over the W3C ACT test cases: runs them through the
//! conformance runner (`sitescan_engine::conformance`, the same page building as
//! `sitescan conformance`) and prints, for each implemented ACT rule (or only
//! the ids given), its consistency and every case it did not get right, with
//! the messages of the findings.
//!
//! ```sh
//! cargo run -p sitescan-engine --example act_dev -- ../shared/conformance/act            # every rule
//! cargo run -p sitescan-engine --example act_dev -- ../shared/conformance/act 23a2a8 b4f0c3
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use sitescan_engine::conformance::{self, CaseVerdict};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: act_dev <act-dir> [act-id ...]");
        return ExitCode::FAILURE;
    };
    let only: Vec<String> = args.collect();
    let report = match conformance::run(&dir) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("act_dev: {e}");
            return ExitCode::FAILURE;
        }
    };
    for rule in &report.rules {
        if rule.mapped.is_empty() || (!only.is_empty() && !only.contains(&rule.act_id)) {
            continue;
        }
        println!(
            "{} {:<22} {:?} {}",
            rule.act_id,
            rule.consistency.label(),
            rule.mapped,
            rule.name
        );
        for case in rule
            .cases
            .iter()
            .filter(|c| c.verdict != CaseVerdict::Correct)
        {
            println!(
                "    {}: expected {:?}, got {:?} ({:?}) {}",
                case.file,
                case.expected,
                case.actual,
                case.verdict,
                case.messages.join(" | ")
            );
        }
    }
    let t = &report.totals;
    println!(
        "consistent {} partial {} inconsistent {}",
        t.consistent, t.partially_consistent, t.inconsistent
    );
    ExitCode::SUCCESS
}
