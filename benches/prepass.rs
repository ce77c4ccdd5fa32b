//! The start-tag pre-pass (`sitescan::rules::links::prepass`): what the engine
//! runs on every page's raw HTML, before the one full parse, to find the
//! stylesheets (and, when subresources are checked, everything the page loads)
//! it must fetch first. It runs html5ever's tokenizer with no tree, so it should
//! cost a fraction of the parse; the full parse (`PageContext::parse`) of the
//! same page is measured beside it for that comparison.
//!
//! The page is the largest HTML file of Debian's `python3.11-doc` under
//! `/usr/share/doc/python3.11/html` when present (`scripts/bench` installs it):
//! real markup, comments, inline scripts and styles. Without it, a page of about
//! 1 MB is built here with the same ingredients (stylesheet links, scripts,
//! images, links, comments and raw-text elements holding `<link>` look-alikes
//! the pre-pass must skip). `cargo bench --bench prepass` measures;
//! `cargo test --benches` runs each once. Throughput is bytes of HTML.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sitescan::rules::links::prepass;
use sitescan::rules::{Page, PageContext};

/// Where Debian's python3.11-doc package puts its HTML.
const PYTHON_DOCS: &str = "/usr/share/doc/python3.11/html";

/// The largest `.html` file under `dir`, walked with a queue (no recursion).
fn largest_html(dir: &Path) -> Option<PathBuf> {
    let mut queue = vec![dir.to_path_buf()];
    let mut best: Option<(u64, PathBuf)> = None;
    while let Some(d) = queue.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                queue.push(path);
            } else if path.extension().is_some_and(|x| x == "html")
                && best.as_ref().is_none_or(|(size, _)| meta.len() > *size)
            {
                best = Some((meta.len(), path));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// A page of about 1 MB with the markup a pre-pass meets on real sites.
fn built_page() -> String {
    let mut html = String::from(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Catalogue</title>\n",
    );
    for i in 0..12 {
        html.push_str(&format!(
            "<link rel=stylesheet href=\"/css/part-{i}.css\" media=\"screen\">\n<link rel=preload as=font href=\"/fonts/f{i}.woff2\" crossorigin>\n"
        ));
    }
    html.push_str(
        "<style>@font-face{font-family:X;src:url(/fonts/x.woff2)}</style></head><body>\n",
    );
    for i in 0..2_000 {
        html.push_str(&format!(
            "<!-- item {i}: <link rel=stylesheet href=/commented.css> -->\n<div class=\"card c{m}\" data-id=\"{i}\"><h2><a href=\"/products/{i}?ref=list&amp;page={p}\">Product {i}</a></h2>\n<img src=\"/img/{i}.webp\" alt=\"Product {i}\" width=320 height=240 loading=lazy>\n<p>Hand-made in small batches; each piece differs a little from the photo. <a href='/care#{i}'>Care</a> and <a href=https://partner.example/{i}>partner</a>.</p>\n<script type=application/json>{{\"id\":{i},\"html\":\"<link rel=stylesheet href=/in-script.css>\"}}</script></div>\n",
            m = i % 7,
            p = i / 50
        ));
    }
    html.push_str("<script src=/js/app.js defer></script></body></html>\n");
    html
}

fn bench(c: &mut Criterion) {
    let (name, html) = match largest_html(Path::new(PYTHON_DOCS))
        .and_then(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))
    {
        Some((path, html)) => (
            format!(
                "python-docs/{}",
                path.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            ),
            html,
        ),
        None => ("built".to_string(), built_page()),
    };
    let url =
        url::Url::parse("https://docs.example/library/page.html").unwrap_or_else(|e| panic!("{e}"));
    let found = prepass(&html, &url, true);
    println!(
        "sitescan-prepass page={name} bytes={} stylesheets={} subresources={}",
        html.len(),
        found.stylesheets.len(),
        found.subresources.len()
    );
    let mut g = c.benchmark_group("prepass");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(html.len() as u64));
    g.bench_function(format!("{name}/stylesheets"), |b| {
        b.iter(|| prepass(black_box(&html), &url, false).stylesheets.len())
    });
    g.bench_function(format!("{name}/stylesheets+subresources"), |b| {
        b.iter(|| prepass(black_box(&html), &url, true).subresources.len())
    });
    let page = Page::from_html(url.as_str(), &html);
    g.bench_function(format!("{name}/full parse"), |b| {
        b.iter(|| PageContext::parse(black_box(&page)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
