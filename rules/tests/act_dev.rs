//! Developer loop over the W3C ACT test cases in `../shared/conformance/act`, for the
//! rules that list ACT ids. Ignored by default (the official runner is
//! `sitescan conformance`); run with
//! `ACT_ONLY=id,id cargo test -p sitescan-rules --test act_dev -- --ignored --nocapture`.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use sitescan_rules::{analyze, registry, Outcome, Page, Stylesheet};

fn act_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/act")
}

fn wrap(html: &str, title: &str, fragment: bool) -> String {
    if fragment {
        format!("<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>{html}</body></html>")
    } else {
        html.to_string()
    }
}

/// Linked stylesheets under /test-assets/ that the manifest copied.
fn linked_sheets(dir: &Path, html: &str) -> Vec<Stylesheet> {
    let mut out = Vec::new();
    let re = regex::Regex::new(r#"<link[^>]+href="(/test-assets/[^"]+\.css)""#).unwrap();
    for cap in re.captures_iter(html) {
        let rel = cap[1].trim_start_matches("/test-assets/");
        if let Ok(text) = std::fs::read_to_string(dir.join("assets").join(rel)) {
            out.push(Stylesheet {
                url: cap[1].to_string(),
                text,
                media: None,
            });
        }
    }
    out
}

#[test]
#[ignore]
fn act_dev_report() {
    let dir = act_dir();
    let Ok(text) = std::fs::read_to_string(dir.join("manifest.json")) else {
        eprintln!("no ACT manifest at {}", dir.display());
        return;
    };
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && a.len() == 6)
        .collect();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let all = registry::select(&["all"]).unwrap();
    let mut totals = (0, 0, 0);
    for rule in manifest["rules"].as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        if !only.is_empty() && !only.iter().any(|o| o == id) {
            continue;
        }
        let ours: Vec<_> = all
            .page
            .iter()
            .copied()
            .filter(|r| r.meta().act.contains(&id))
            .collect();
        if ours.is_empty() {
            continue;
        }
        let mut bad = Vec::new();
        let mut partial = Vec::new();
        for case in rule["cases"].as_array().unwrap() {
            let file = case["file"].as_str().unwrap();
            let expected = case["expected"].as_str().unwrap();
            let Ok(html) = std::fs::read_to_string(dir.join(id).join(file)) else {
                continue;
            };
            let body = wrap(
                &html,
                case["title"].as_str().unwrap_or("x"),
                case["fragment"].as_bool().unwrap_or(false),
            );
            let mut page = Page::from_html("https://example.com/", &body);
            page.stylesheets = linked_sheets(&dir, &body);
            let analysis = analyze(&page, &ours);
            for e in &analysis.errors {
                bad.push(format!("{file}: PANIC {}", e.message));
            }
            let failed = analysis
                .findings
                .iter()
                .any(|f| f.outcome == Outcome::Failed);
            let cant = analysis
                .findings
                .iter()
                .any(|f| f.outcome == Outcome::CantTell);
            let got = if failed {
                "failed"
            } else if cant {
                "cant-tell"
            } else {
                "passed/inapplicable"
            };
            let ok = match expected {
                "failed" => failed,
                _ => !failed && !cant,
            };
            if !ok {
                let msg = format!(
                    "{file}: expected {expected}, got {got} {:?}",
                    analysis
                        .findings
                        .iter()
                        .map(|f| format!("{}: {} [{}]", f.rule_id, f.message, f.selector))
                        .collect::<Vec<_>>()
                );
                if cant && !failed {
                    partial.push(msg)
                } else {
                    bad.push(msg)
                }
            }
        }
        let ids: Vec<&str> = ours.iter().map(|r| r.meta().id).collect();
        let status = if !bad.is_empty() {
            totals.2 += 1;
            "INCONSISTENT"
        } else if !partial.is_empty() {
            totals.1 += 1;
            "partial"
        } else {
            totals.0 += 1;
            "consistent"
        };
        println!(
            "{id} {status:<12} {:?} {}",
            ids,
            rule["name"].as_str().unwrap_or("")
        );
        for b in bad.iter().chain(&partial) {
            println!("    {b}");
        }
    }
    println!(
        "consistent {} partial {} inconsistent {}",
        totals.0, totals.1, totals.2
    );
}

/// Rough timing of the accessibility rules against parsing on a synthetic page;
/// `cargo test --release -p sitescan-rules --test act_dev perf -- --ignored --nocapture`.
#[test]
#[ignore]
fn perf_probe() {
    let mut css = String::new();
    for i in 0..300 {
        css.push_str(&format!(".c{i} {{ color: #{:03x}; }} #i{i} a {{ text-decoration: none }} div > p.k{i} {{ font-size: 1.{i}em }}\n", i % 4096));
    }
    let mut body = String::new();
    for i in 0..400 {
        body.push_str(&format!(
            "<div class=c{i}><h2 id=i{i}>Section {i}</h2><p class=k{i}>Text <a href=/p{i}>link {i}</a> more <img src=a.png alt=\"pic {i}\"></p>\
             <ul><li><button aria-label=\"b{i}\">x</button></li><li><input id=f{i}><label for=f{i}>Field</label></li></ul></div>"
        ));
    }
    let html = format!("<!DOCTYPE html><html lang=en><head><title>t</title><style>{css}</style></head><body>{body}</body></html>");
    let page = Page::from_html("https://example.com/", &html);
    let rules = registry::select(&["accessibility"]).unwrap();
    let n = 5;
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        let _ = scraper::Html::parse_document(&page.body);
    }
    let parse = t0.elapsed() / n;
    let t1 = std::time::Instant::now();
    let mut findings = 0;
    for _ in 0..n {
        findings = analyze(&page, &rules.page).findings.len();
    }
    let total = t1.elapsed() / n;
    println!(
        "{} bytes, {} rules: parse {:?}, parse+rules {:?} (rules/parse = {:.2}), {} findings",
        html.len(),
        rules.page.len(),
        parse,
        total,
        (total.as_secs_f64() - parse.as_secs_f64()) / parse.as_secs_f64(),
        findings
    );
}

#[test]
#[ignore]
fn perf_per_rule() {
    let mut css = String::new();
    for i in 0..300 {
        css.push_str(&format!(".c{i} {{ color: #{:03x}; }} #i{i} a {{ text-decoration: none }} div > p.k{i} {{ font-size: 1.{i}em }}\n", i % 4096));
    }
    let mut body = String::new();
    for i in 0..400 {
        body.push_str(&format!(
            "<div class=c{i}><h2 id=i{i}>Section {i}</h2><p class=k{i}>Text <a href=/p{i}>link {i}</a> more <img src=a.png alt=\"pic {i}\"></p>\
             <ul><li><button aria-label=\"b{i}\">x</button></li><li><input id=f{i}><label for=f{i}>Field</label></li></ul></div>"
        ));
    }
    let html = format!("<!DOCTYPE html><html lang=en><head><title>t</title><style>{css}</style></head><body>{body}</body></html>");
    let page = Page::from_html("https://example.com/", &html);
    let t = std::time::Instant::now();
    let cx = sitescan_rules::PageContext::parse(&page);
    println!("parse {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let _ = cx.styles();
    println!("styles {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let _ = cx.tree();
    println!("tree {:?}", t.elapsed());
    let rules = registry::select(&["accessibility"]).unwrap();
    for r in &rules.page {
        let t = std::time::Instant::now();
        let _ = sitescan_rules::analyze_parsed(&cx, &[*r]);
        let e = t.elapsed();
        if e.as_micros() > 500 {
            println!("{:<32} {:?}", r.meta().id, e);
        }
    }
}

#[test]
#[ignore]
fn perf_styles() {
    let mut body = String::new();
    for i in 0..400 {
        body.push_str(&format!(
            "<div class=c{i}><h2 id=i{i}>Section {i}</h2><p class=k{i}>Text <a href=/p{i}>link {i}</a> more <img src=a.png alt=\"pic {i}\"></p>\
             <ul><li><button aria-label=\"b{i}\">x</button></li><li><input id=f{i}><label for=f{i}>Field</label></li></ul></div>"
        ));
    }
    for css_rules in [0, 100, 300] {
        let mut css = String::new();
        for i in 0..css_rules {
            css.push_str(&format!(".c{i} {{ color: #{:03x}; }} #i{i} a {{ text-decoration: none }} div > p.k{i} {{ font-size: 1.{i}em }}\n", i % 4096));
        }
        let html = format!("<!DOCTYPE html><html lang=en><head><title>t</title><style>{css}</style></head><body>{body}</body></html>");
        let doc = scraper::Html::parse_document(&html);
        let t = std::time::Instant::now();
        let _ = sitescan_rules::css::Styles::compute(&doc, &[]);
        println!("{css_rules} x3 rules: styles {:?}", t.elapsed());
    }
}

/// Prints the accessibility findings for the HTML file named by `SITESCAN_HTML`.
#[test]
#[ignore]
fn analyze_file() {
    let Ok(path) = std::env::var("SITESCAN_HTML") else {
        return;
    };
    let html = std::fs::read_to_string(&path).unwrap();
    let mut page = Page::from_html("https://example.com/", &html);
    // Linked stylesheets, resolved next to the file.
    let dir = Path::new(&path).parent().unwrap().to_path_buf();
    let re = regex::Regex::new(r#"<link[^>]*rel="?stylesheet"?[^>]*>"#).unwrap();
    let href_re = regex::Regex::new(r#"href="([^"]+)""#).unwrap();
    let media_re = regex::Regex::new(r#"media="([^"]+)""#).unwrap();
    for m in re.find_iter(&html) {
        let Some(href) = href_re.captures(m.as_str()) else {
            continue;
        };
        let href = href[1].split(['?', '#']).next().unwrap_or("").to_string();
        let media = media_re.captures(m.as_str()).map(|c| c[1].to_string());
        if let Ok(text) = std::fs::read_to_string(dir.join(&href)) {
            page.stylesheets.push(Stylesheet {
                url: href,
                text,
                media,
            });
        }
    }
    println!("{} linked stylesheets", page.stylesheets.len());
    let rules = registry::select(&["accessibility"]).unwrap();
    let t = std::time::Instant::now();
    let _ = scraper::Html::parse_document(&page.body);
    let parse = t.elapsed();
    let t = std::time::Instant::now();
    let a = analyze(&page, &rules.page);
    let total = t.elapsed();
    println!(
        "{} bytes: parse {parse:?}, parse+{} rules {total:?}",
        html.len(),
        rules.page.len()
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
}
