//! Bench tool: the plain fetch + parse limit `scripts/bench` compares `sitescan scan`
//! against.
//!
//! ```text
//! cargo run --release --example bench_fetch -- REPORT.json [CONCURRENCY]
//! ```
//!
//! Reads the URLs of every page a `sitescan scan` JSON report lists (`pages[].url`),
//! then fetches them all with reqwest (gzip on, `CONCURRENCY` requests in flight,
//! default 16) and parses each HTML body with scraper on the rayon pool, as the scan
//! pipeline does, but without rules, link extraction or any politeness. Prints one
//! `bench-fetch key=value ...` line with pages, bytes, seconds and pages per second.

use std::process::ExitCode;
use std::time::Instant;

use futures::StreamExt;

/// The page URLs of a scan report, in report order.
fn report_urls(path: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path} is not JSON: {e}"))?;
    let pages = report
        .get("pages")
        .and_then(|p| p.as_array())
        .ok_or_else(|| format!("{path} has no `pages` array: is it a sitescan JSON report?"))?;
    Ok(pages
        .iter()
        .filter_map(|p| p.get("url").and_then(|u| u.as_str()).map(str::to_string))
        .collect())
}

/// Fetches one URL and parses its body off the async runtime; returns body bytes
/// and element count, or why it failed.
async fn fetch_parse(client: &reqwest::Client, url: String) -> Result<(usize, usize), String> {
    let resp = client.get(&url).send().await.map_err(|e| e.to_string())?;
    let is_html = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let body = resp.text().await.map_err(|e| e.to_string())?;
    let len = body.len();
    if !is_html {
        return Ok((len, 0));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    rayon::spawn(move || {
        let doc = scraper::Html::parse_document(&body);
        let _ = tx.send(doc.tree.nodes().len());
    });
    let nodes = rx.await.map_err(|e| e.to_string())?;
    Ok((len, nodes))
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(report) = args.next() else {
        eprintln!("usage: bench_fetch REPORT.json [CONCURRENCY]");
        return ExitCode::from(2);
    };
    let concurrency = match args.next().map(|c| c.parse::<usize>()) {
        None => 16,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("bench_fetch: CONCURRENCY must be a positive integer");
            return ExitCode::from(2);
        }
    };
    let urls = match report_urls(&report) {
        Ok(u) if !u.is_empty() => u,
        Ok(_) => {
            eprintln!("bench_fetch: {report} lists no pages");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("bench_fetch: {e}");
            return ExitCode::from(2);
        }
    };
    let client = match reqwest::Client::builder().gzip(true).build() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bench_fetch: cannot build the HTTP client: {e}");
            return ExitCode::from(3);
        }
    };

    let start = Instant::now();
    let pages = urls.len();
    let results: Vec<Result<(usize, usize), String>> = futures::stream::iter(urls)
        .map(|url| fetch_parse(&client, url))
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let secs = start.elapsed().as_secs_f64();

    let mut bytes = 0;
    let mut parsed = 0;
    let mut errors = 0;
    for r in &results {
        match r {
            Ok((len, nodes)) => {
                bytes += len;
                parsed += usize::from(*nodes > 0);
            }
            Err(e) => {
                errors += 1;
                eprintln!("bench_fetch: {e}");
            }
        }
    }
    println!(
        "bench-fetch pages={pages} parsed={parsed} errors={errors} bytes={bytes} secs={secs:.3} \
         pages_per_s={:.1} concurrency={concurrency}",
        pages as f64 / secs
    );
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
