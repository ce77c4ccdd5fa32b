//! Rough timings of the rule phase on a synthetic page, and the findings of one
//! HTML file: developer measurements, printed, never asserted (the benches in
//! `benches/` are the measurements CI runs).
//!
//! ```sh
//! cargo run --release -p sitescan-rules --example rule_timings -- probe     # parse vs parse + accessibility rules
//! cargo run --release -p sitescan-rules --example rule_timings -- per-rule  # shared facts, then each rule over 0.5 ms
//! cargo run --release -p sitescan-rules --example rule_timings -- styles    # the cascade with 0, 100 and 300 x 3 CSS rules
//! cargo run --release -p sitescan-rules --example rule_timings -- file page.html  # accessibility findings of a file
//! ```

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use sitescan_rules::{analyze, analyze_parsed, registry, Page, PageContext, Stylesheet};

/// `n` x 3 CSS rules that match elements of [`body`].
fn css(n: usize) -> String {
    (0..n)
        .map(|i| format!(".c{i} {{ color: #{:03x}; }} #i{i} a {{ text-decoration: none }} div > p.k{i} {{ font-size: 1.{i}em }}\n", i % 4096))
        .collect()
}

/// 400 sections of headings, links, images, buttons and labelled fields.
fn body() -> String {
    (0..400)
        .map(|i| format!(
            "<div class=c{i}><h2 id=i{i}>Section {i}</h2><p class=k{i}>Text <a href=/p{i}>link {i}</a> more <img src=a.png alt=\"pic {i}\"></p>\
             <ul><li><button aria-label=\"b{i}\">x</button></li><li><input id=f{i}><label for=f{i}>Field</label></li></ul></div>"
        ))
        .collect()
}

fn synthetic(css_rules: usize) -> String {
    format!(
        "<!DOCTYPE html><html lang=en><head><title>t</title><style>{}</style></head><body>{}</body></html>",
        css(css_rules),
        body()
    )
}

fn probe() {
    let html = synthetic(300);
    let page = Page::from_html("https://example.com/", &html);
    let rules = registry::select(&["accessibility"]).expect("a known rule set");
    let n = 5;
    let t0 = Instant::now();
    for _ in 0..n {
        let _ = scraper::Html::parse_document(&page.body);
    }
    let parse = t0.elapsed() / n;
    let t1 = Instant::now();
    let mut findings = 0;
    for _ in 0..n {
        findings = analyze(&page, &rules.page).findings.len();
    }
    let total = t1.elapsed() / n;
    println!(
        "{} bytes, {} rules: parse {parse:?}, parse+rules {total:?} (rules/parse = {:.2}), {findings} findings",
        html.len(),
        rules.page.len(),
        (total.as_secs_f64() - parse.as_secs_f64()) / parse.as_secs_f64(),
    );
}

fn per_rule() {
    let page = Page::from_html("https://example.com/", &synthetic(300));
    let t = Instant::now();
    let cx = PageContext::parse(&page);
    println!("parse {:?}", t.elapsed());
    let t = Instant::now();
    let _ = cx.styles();
    println!("styles {:?}", t.elapsed());
    let t = Instant::now();
    let _ = cx.tree();
    println!("tree {:?}", t.elapsed());
    let rules = registry::select(&["accessibility"]).expect("a known rule set");
    for r in &rules.page {
        let t = Instant::now();
        let _ = analyze_parsed(&cx, &[*r]);
        let e = t.elapsed();
        if e.as_micros() > 500 {
            println!("{:<32} {e:?}", r.meta().id);
        }
    }
}

fn styles() {
    for css_rules in [0, 100, 300] {
        let doc = scraper::Html::parse_document(&synthetic(css_rules));
        let t = Instant::now();
        let _ = sitescan_rules::css::Styles::compute(&doc, &[]);
        println!("{css_rules} x3 rules: styles {:?}", t.elapsed());
    }
}

/// The accessibility findings of one HTML file, with the stylesheets it links
/// that lie next to it.
fn file(path: &Path) -> Result<(), String> {
    let html = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut page = Page::from_html("https://example.com/", &html);
    let dir = path.parent().unwrap_or(Path::new("."));
    let cx = PageContext::parse(&page);
    let sheets: Vec<(String, Option<String>)> = cx
        .doc()
        .select(
            &scraper::Selector::parse("link[rel~=stylesheet][href]").map_err(|e| e.to_string())?,
        )
        .filter_map(|l| {
            let href = l
                .value()
                .attr("href")?
                .split(['?', '#'])
                .next()?
                .to_string();
            Some((href, l.value().attr("media").map(str::to_string)))
        })
        .collect();
    drop(cx);
    for (href, media) in sheets {
        if let Ok(text) = std::fs::read_to_string(dir.join(&href)) {
            page.stylesheets.push(Stylesheet {
                url: href,
                text: text.into(),
                media,
                ..Default::default()
            });
        }
    }
    println!("{} linked stylesheets", page.stylesheets.len());
    let rules = registry::select(&["accessibility"]).expect("a known rule set");
    let t = Instant::now();
    let a = analyze(&page, &rules.page);
    println!(
        "{} bytes: parse + {} rules {:?}",
        html.len(),
        rules.page.len(),
        t.elapsed()
    );
    for f in &a.findings {
        println!(
            "{:?} {} {} | {} {}",
            f.outcome,
            f.rule_id,
            f.selector,
            f.message,
            f.data.clone().unwrap_or_default()
        );
    }
    for e in &a.errors {
        println!("ERROR {} {}", e.rule_id, e.message);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["probe"] => {
            probe();
            Ok(())
        }
        ["per-rule"] => {
            per_rule();
            Ok(())
        }
        ["styles"] => {
            styles();
            Ok(())
        }
        ["file", path] => file(Path::new(path)),
        _ => Err("usage: rule_timings probe | per-rule | styles | file <page.html>".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rule_timings: {e}");
            ExitCode::FAILURE
        }
    }
}
