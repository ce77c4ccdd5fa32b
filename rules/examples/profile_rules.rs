//! A small driver for instruction-count profiles of the rule phase
//! (`valgrind --tool=callgrind`): parses N pages of a directory of HTML files and,
//! unless `parse` is given, runs every per-page rule of the registry on them.
//!
//! ```sh
//! cargo build --release -p sitescan-rules --example profile_rules
//! valgrind --tool=callgrind target/release/examples/profile_rules \
//!     /usr/share/doc/python3.11/html 30 rules
//! ```
//!
//! Instruction counts are repeatable on a loaded machine where wall-clock time is
//! not, so `(parse + rules) / parse` can be read from two callgrind runs (`parse`
//! and `rules` modes) over the same pages.
//!
//! The `split` mode runs the same rules but first computes the facts rules share
//! (styles, zoomed styles, accessibility tree) in functions of their own, so an
//! inclusive profile charges them to `shared_facts` instead of whichever rule
//! happened to ask first.
//!
//! The `dump` mode prints every page's findings and tallies, and every element's
//! computed style at both viewports, as text: run it before and after a change
//! meant to save time only, and diff the two outputs.

use std::path::{Path, PathBuf};

use sitescan_rules::{analyze, analyze_parsed, registry, Page, PageContext};

/// The lazily computed facts many rules share, forced up front (`split` mode).
#[inline(never)]
fn shared_facts(cx: &PageContext<'_>) -> usize {
    let root = cx.root();
    usize::from(cx.styles().get(root.id()).is_some())
        + usize::from(cx.zoomed_styles().get(root.id()).is_some())
        + usize::from(cx.is_hidden(root))
}

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            html_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
}

/// Prints what the rules and the cascade say about a page (`dump` mode).
fn dump(page: &Page, rules: &[&'static dyn sitescan_rules::Rule]) -> usize {
    let cx = PageContext::parse(page);
    println!("page {}", page.url);
    for el in cx
        .root()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        // Custom properties sit in a hash map whose order varies between runs.
        let style = |s: &sitescan_rules::css::ComputedStyle| {
            let text = format!("{s:?}");
            text.split(", vars: ")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        println!(
            "{} {}\n  {}",
            el.value().name(),
            style(cx.style(el)),
            style(cx.zoomed_style(el))
        );
    }
    let a = analyze_parsed(&cx, rules);
    for t in &a.tallies {
        println!(
            "tally {} {} {} {}",
            t.rule_id, t.passed, t.failed, t.cant_tell
        );
    }
    for f in &a.findings {
        println!("{}", serde_json::to_string(f).unwrap_or_default());
    }
    for e in &a.errors {
        println!("error {} {}", e.rule_id, e.message);
    }
    a.findings.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(count)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: profile_rules DIR PAGES [parse|rules|split|dump] [CSS-FILE...]");
        std::process::exit(2);
    };
    let Ok(count) = count.parse::<usize>() else {
        eprintln!("PAGES must be a number");
        std::process::exit(2);
    };
    // The `spelling` rule runs only with a dictionary, as in a scan: load Debian's
    // hunspell-en-us when it is there.
    let dictionary = ["aff", "dic"]
        .map(|ext| std::fs::read_to_string(format!("/usr/share/hunspell/en_US.{ext}")));
    match dictionary {
        [Ok(aff), Ok(dic)] => {
            if let Err(e) = sitescan_rules::quality::spelling::install_dictionary(&aff, &dic) {
                eprintln!("profile_rules: the spelling dictionary does not load: {e}");
            }
        }
        _ => eprintln!(
            "profile_rules: no /usr/share/hunspell/en_US dictionary: spelling does not run"
        ),
    }
    let mode = args.get(3).map(String::as_str).unwrap_or("rules");
    // Linked stylesheets to attach to every page, as the engine does after fetching them.
    let sheets: Vec<sitescan_rules::Stylesheet> = args
        .iter()
        .skip(4)
        .filter_map(|p| {
            Some(sitescan_rules::Stylesheet {
                url: format!("http://corpus.test/{p}"),
                text: std::fs::read_to_string(p).ok()?.into(),
                media: None,
                ..Default::default()
            })
        })
        .collect();
    let mut files = Vec::new();
    html_files(Path::new(dir), &mut files);
    files.sort();
    let step = (files.len() / count.max(1)).max(1);
    let pages: Vec<Page> = files
        .iter()
        .step_by(step)
        .take(count)
        .filter_map(|f| {
            let body = std::fs::read(f).ok()?;
            let rel = f.strip_prefix(dir).ok()?;
            let mut page = Page::from_html(
                &format!("http://corpus.test/{}", rel.to_string_lossy()),
                &String::from_utf8_lossy(&body),
            );
            page.stylesheets = sheets.clone();
            Some(page)
        })
        .collect();
    let rules = match registry::select(&["all"]) {
        Ok(s) => s.page,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut total = 0usize;
    for page in &pages {
        total += if mode == "parse" {
            PageContext::parse(page).doc().tree.nodes().len()
        } else if mode == "dump" {
            dump(page, &rules)
        } else if mode == "split" {
            let cx = PageContext::parse(page);
            let facts = shared_facts(&cx);
            let a = analyze_parsed(&cx, &rules);
            facts + a.findings.len() + a.tallies.len()
        } else {
            let a = analyze(page, &rules);
            a.findings.len() + a.tallies.len()
        };
    }
    println!(
        "{} pages, {} rules, result {total}",
        pages.len(),
        rules.len()
    );
}
