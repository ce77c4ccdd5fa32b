//! How long a page's analysis runs past its time budget: generates hostile
//! pages (many elements under a large stylesheet, a paragraph of thousands of
//! links, long label chains, a wall of text), analyzes each with every page rule
//! under a small time budget, and prints the time with no budget, the time
//! under the budget and the overshoot. A long overshoot names a loop that does
//! not check `PageContext::should_stop` often enough.
//!
//! ```sh
//! cargo run -p sitescan-rules --example budget_overshoot [budget_ms] [scale] [whole]
//! ```
//!
//! The time with no budget is measured only when `whole` is given (the links
//! page is quadratic in debug builds).

use std::time::{Duration, Instant};

use sitescan_rules::{analyze_with, registry, Cancel, Page, PageBudget, Stylesheet};

fn pages(scale: usize) -> Vec<(&'static str, Page)> {
    let doc = |body: String| {
        format!("<!DOCTYPE html><html lang=en><head><title>T</title></head><body><main><h1>T</h1>{body}</main></body></html>")
    };
    let mut out = Vec::new();

    // Elements that each defeat style sharing, under rules keyed on their tag.
    let rules: String = (0..scale / 4)
        .map(|i| format!("div:not(#x{i}) {{ color: #{:06x} }}\n", i * 97 % 0xffffff))
        .collect();
    let divs: String = (0..scale)
        .map(|i| format!("<div id=d{i}>t{i}</div>"))
        .collect();
    let mut page = Page::from_html("https://example.com/css", &doc(divs));
    page.stylesheets.push(Stylesheet {
        url: "https://example.com/s.css".into(),
        text: rules.into(),
        media: None,
        ..Default::default()
    });
    out.push(("elements under a large stylesheet", page));

    let links: String = (0..scale)
        .map(|i| format!("<a href=/p{i}>link {i}</a> word "))
        .collect();
    out.push((
        "links in one paragraph",
        Page::from_html("https://example.com/links", &doc(format!("<p>{links}</p>"))),
    ));

    let labelled: String = (0..scale / 4)
        .map(|i| {
            format!(
                "<span id=l{i}>label {i}</span><button aria-labelledby=\"l{i} l{}\">b</button>",
                i / 2
            )
        })
        .collect();
    out.push((
        "labelled buttons",
        Page::from_html("https://example.com/names", &doc(labelled)),
    ));

    let words: String = (0..scale * 4)
        .map(|i| format!("Sentence number {i} is written here. "))
        .collect();
    out.push((
        "a wall of text",
        Page::from_html("https://example.com/text", &doc(format!("<p>{words}</p>"))),
    ));
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let budget_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let scale: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(8000);
    let measure_whole = args.next().is_some_and(|a| a == "whole");
    let rules = registry::select(&["all"])
        .map(|s| s.page)
        .unwrap_or_default();
    for (name, page) in pages(scale) {
        let unbounded = PageBudget {
            time: Duration::MAX,
            ..PageBudget::DEFAULT
        };
        let start = Instant::now();
        let full = if measure_whole {
            analyze_with(&page, &rules, unbounded, Cancel::new())
        } else {
            Default::default()
        };
        let whole = start.elapsed();
        let budget = PageBudget {
            time: Duration::from_millis(budget_ms),
            ..PageBudget::DEFAULT
        };
        let start = Instant::now();
        let cut = analyze_with(&page, &rules, budget, Cancel::new());
        let took = start.elapsed();
        println!(
            "{name:<36} whole {:>8.0} ms ({} findings)  budget {budget_ms} ms: {:>6.0} ms, overshoot {:>6.0} ms, {}",
            whole.as_secs_f64() * 1000.0,
            full.findings.len(),
            took.as_secs_f64() * 1000.0,
            (took.as_secs_f64() * 1000.0 - budget_ms as f64).max(0.0),
            cut.incomplete.as_deref().unwrap_or("complete")
        );
    }
}
