//! Bench tool: writes the synthetic site `scripts/bench` scans for its memory
//! figures.
//!
//! ```text
//! cargo run --release --example bench_gen -- PAGES DIR [SEED]
//! ```
//!
//! Calls [`sitescan_fixtures::generate_site`] (deterministic by seed, default 9),
//! then drops what only the fixture server can serve: the generator's `sitemap.xml`
//! and the `Sitemap:` line of `robots.txt` hold an `{{origin}}` placeholder that
//! `FixtureServer` fills in, whereas the plain static server of the benchmark
//! (`bench_serve`) serves files as they are. Every generated page is at most two
//! links from the index, so the crawl still finds them all by links.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(pages), Some(dir)) = (
        args.first().and_then(|p| p.parse::<usize>().ok()),
        args.get(1).map(PathBuf::from),
    ) else {
        eprintln!("usage: bench_gen PAGES DIR [SEED]");
        return ExitCode::from(2);
    };
    let seed = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 9,
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("bench_gen: SEED must be an unsigned integer");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = sitescan_fixtures::generate_site(pages, seed, &dir) {
        eprintln!("bench_gen: cannot write {}: {e}", dir.display());
        return ExitCode::from(3);
    }
    let robots = dir.join("robots.txt");
    let cleaned = std::fs::read_to_string(&robots).map(|text| {
        text.lines()
            .filter(|l| !l.to_ascii_lowercase().starts_with("sitemap:"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    });
    let result = cleaned
        .and_then(|text| std::fs::write(&robots, text))
        .and_then(|()| match std::fs::remove_file(dir.join("sitemap.xml")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        });
    if let Err(e) = result {
        eprintln!(
            "bench_gen: cannot drop the sitemap from {}: {e}",
            dir.display()
        );
        return ExitCode::from(3);
    }
    println!("bench_gen: {pages} pages in {}", dir.display());
    ExitCode::SUCCESS
}
