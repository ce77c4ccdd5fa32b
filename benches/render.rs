//! Renderer and baseline cost on a large report.
//!
//! A synthetic report of 500 pages with 20 findings each (10,000 findings over
//! every registered rule id, snippets with markup to escape) is rendered in every
//! format, and compared with a baseline in which a tenth of the findings differ.
//! `cargo bench --bench render` measures; `cargo test --benches` runs each once.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sitescan::baseline::apply_baseline;
use sitescan::render::{render, Format};
use sitescan::report::score::summarize;
use sitescan::rules::{registry, Finding, Outcome};
use sitescan::{CrawlStats, PageReport, Report, RuleSummary, ScanConfig, SCHEMA_VERSION};

const PAGES: usize = 500;
const PER_PAGE: usize = 20;

fn report(seed: usize) -> Report {
    let metas: Vec<_> = registry::all_meta().collect();
    let mut findings = Vec::with_capacity(PAGES * PER_PAGE);
    let mut pages = Vec::with_capacity(PAGES);
    for p in 0..PAGES {
        let url = format!(
            "https://big.example/section-{}/page-{p}?id={p}&sort=asc",
            p % 17
        );
        for i in 0..PER_PAGE {
            let m = metas[(p * PER_PAGE + i) % metas.len()];
            // One finding in ten changes between the two reports.
            let variant = if (p * PER_PAGE + i) % 10 == 0 {
                seed
            } else {
                0
            };
            findings.push(Finding {
                rule_id: m.id.to_string(),
                category: m.category,
                outcome: if i % 7 == 0 {
                    Outcome::CantTell
                } else {
                    Outcome::Failed
                },
                impact: m.impact,
                page_url: url.clone(),
                selector: format!("main > div:nth-child({i}) > p.item-{variant}"),
                snippet: format!("<p class=\"item-{variant}\">Text & \"quotes\" <b>{i}</b></p>"),
                message: format!("{} failed on element {i}", m.title),
                wcag: m.wcag.iter().map(|s| s.to_string()).collect(),
                data: None,
                baseline: None,
                occurrences: Vec::new(),
                occurrences_total: None,
                scope: Default::default(),
                resource: None,
                mark: None,
                screenshot: None,
            });
        }
        pages.push(PageReport {
            url: url.clone(),
            final_url: url,
            status: 200,
            findings: PER_PAGE as u64,
            ..Default::default()
        });
    }
    let rules: Vec<RuleSummary> = metas
        .iter()
        .map(|m| RuleSummary {
            rule_id: m.id.to_string(),
            category: Some(m.category),
            pages_applicable: PAGES as u64,
            pages_failed: (PAGES / 3) as u64,
            ..Default::default()
        })
        .collect();
    Report {
        schema_version: SCHEMA_VERSION,
        scan_id: None,
        site: "https://big.example/".into(),
        started_at: chrono::Utc::now(),
        finished_at: chrono::Utc::now(),
        config: ScanConfig::default(),
        stats: CrawlStats {
            pages_fetched: PAGES as u64,
            ..Default::default()
        },
        summary: summarize(&rules, &findings),
        pages,
        findings,
        rules,
        notes: Vec::new(),
        fixed: None,
        baseline: None,
        screenshots: Default::default(),
    }
}

fn bench(c: &mut Criterion) {
    let base = report(1);
    let current = report(2);
    let mut compared = current.clone();
    apply_baseline(&mut compared, &base);

    let mut g = c.benchmark_group("render_10k_findings");
    g.sample_size(10);
    g.throughput(Throughput::Elements(current.findings.len() as u64));
    for format in Format::ALL {
        g.bench_function(format.name(), |b| {
            b.iter(|| render(black_box(&compared), format).map(|v| v.len()))
        });
    }
    g.bench_function("apply_baseline", |b| {
        b.iter(|| {
            let mut r = current.clone();
            apply_baseline(&mut r, black_box(&base));
            r.baseline.map(|s| s.new)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
