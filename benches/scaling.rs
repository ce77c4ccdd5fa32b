//! Whether any page rule is super-linear in page size.
//!
//! Generates pages of 1,000, 10,000 and 100,000 units of several shapes (links in
//! one text block, sibling elements, nesting levels, and the shapes rules index or
//! walk: ids and idrefs, headings, table cells, form fields, `lang` attributes,
//! `style` attributes, stylesheet rules), parses each and runs every page rule of
//! the registry on it, and prints the time per unit. A linear rule set keeps the
//! time per unit flat from one size to the next; a rule that is not shows it at
//! once. Nesting is capped by the parse ([`sitescan::rules::dom::ParseLimits`],
//! 512 levels as in Chromium), so a deep page costs what a flat one does.
//!
//! `cargo bench --bench scaling` measures links, nodes and nesting at every size
//! and the other shapes up to 10,000 units (a few minutes). Under
//! `cargo test --benches` (criterion's test mode) only 500-unit pages run, once
//! each. `SITESCAN_SCALING_SIZES=1000,10000` and
//! `SITESCAN_SCALING_SHAPES=links,nesting` choose what runs;
//! `SITESCAN_SCALING_PER_RULE=1` adds each rule's own time on every page (after
//! the facts rules share are computed), to find the rule that grows.
//!
//! Lines starting with `sitescan-scaling` are machine-readable (`key=value`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use sitescan::rules::{analyze, analyze_parsed, registry, Page, PageContext, Rule};

/// Page sizes of a full run, in units of the shape.
const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
/// Largest page of the shapes beyond links, nodes and nesting in a full run:
/// some cost a lot per unit (language detection per `lang` element), and
/// 100,000 of them would make the run take many minutes.
const EXTRA_MAX: usize = 10_000;
/// Page size in test mode.
const QUICK_SIZE: usize = 500;

/// A generated page shape: name, what one unit is, and the page of `n` units.
struct Shape {
    name: &'static str,
    /// Measured at every size (links, nodes, nesting); the others up to [`EXTRA_MAX`].
    core: bool,
    unit: &'static str,
    page: fn(usize) -> String,
}

fn wrap(head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Scaling</title>\
         <meta name=viewport content=\"width=device-width\">{head}</head><body><main>{body}</main></body></html>"
    )
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "links",
        core: true,
        unit: "link",
        page: |n| {
            let mut body = String::from("<p>Text before the links ");
            for i in 0..n {
                let _ = write!(body, "<a href=\"/page/{i}\">link {i}</a> and some words ");
            }
            body.push_str("</p>");
            wrap("", &body)
        },
    },
    Shape {
        name: "nodes",
        core: true,
        unit: "element",
        page: |n| {
            let mut body = String::new();
            for i in 0..n / 2 {
                let _ = write!(body, "<div class=c{}><span>word {i}</span></div>", i % 10);
            }
            wrap("", &body)
        },
    },
    Shape {
        name: "nesting",
        core: true,
        unit: "level",
        page: |n| {
            let body = format!("{}deep text{}", "<div>".repeat(n), "</div>".repeat(n));
            wrap("", &body)
        },
    },
    Shape {
        name: "nesting-span",
        core: false,
        unit: "level",
        page: |n| {
            let body = format!(
                "<p>{}deep text{}</p>",
                "<span lang=en>".repeat(n),
                "</span>".repeat(n)
            );
            wrap("", &body)
        },
    },
    Shape {
        name: "nesting-list",
        core: false,
        unit: "level",
        page: |n| {
            let body = format!(
                "{}deep text{}",
                "<ul><li><a href=/x>item</a>".repeat(n / 2),
                "</li></ul>".repeat(n / 2)
            );
            wrap("", &body)
        },
    },
    Shape {
        name: "idrefs",
        core: false,
        unit: "id+reference",
        page: |n| {
            let mut body = String::new();
            for i in 0..n / 2 {
                let _ = write!(
                    body,
                    "<label id=l{i} for=f{i}>Field {i}</label><input id=f{i} aria-labelledby=\"l{i}\" aria-describedby=\"l{i}\">"
                );
            }
            wrap("", &body)
        },
    },
    Shape {
        name: "headings",
        core: false,
        unit: "heading",
        page: |n| {
            let mut body = String::new();
            for i in 0..n {
                let _ = write!(body, "<h{}>Heading {i}</h{}>", 2 + i % 3, 2 + i % 3);
            }
            wrap("", &format!("<h1>Title</h1>{body}"))
        },
    },
    Shape {
        name: "table-cells",
        core: false,
        unit: "cell",
        page: |n| {
            let mut body = String::from("<table><tr><th>A</th><th>B</th><th>C</th><th>D</th></tr>");
            for i in 0..n / 4 {
                let _ = write!(
                    body,
                    "<tr><td>{i}</td><td headers=h>b</td><td>c</td><td>d</td></tr>"
                );
            }
            body.push_str("</table>");
            wrap("", &body)
        },
    },
    Shape {
        name: "form-fields",
        core: false,
        unit: "field",
        page: |n| {
            let mut body = String::from("<form action=/f>");
            for i in 0..n {
                let _ = write!(
                    body,
                    "<input name=f{i} autocomplete=email><select><option>o{i}</option></select>"
                );
            }
            body.push_str("</form>");
            wrap("", &body)
        },
    },
    Shape {
        name: "lang",
        core: false,
        unit: "lang attribute",
        page: |n| {
            let mut body = String::new();
            for i in 0..n {
                let lang = ["en", "fr", "de", "xx-invalid"][i % 4];
                let _ = write!(body, "<p lang={lang}>Some words in a paragraph {i}.</p>");
            }
            wrap("", &body)
        },
    },
    Shape {
        name: "style-attrs",
        core: false,
        unit: "style attribute",
        page: |n| {
            let mut body = String::new();
            for i in 0..n {
                let _ = write!(
                    body,
                    "<p style=\"color:#{:03x};background:#fff;line-height:1.2;letter-spacing:0.1em\">Text {i}</p>",
                    i % 0x1000
                );
            }
            wrap("", &body)
        },
    },
    Shape {
        name: "css-rules",
        core: false,
        unit: "stylesheet rule",
        page: |n| {
            let mut css = String::from("<style>");
            for i in 0..n {
                let _ = write!(
                    css,
                    ".c{i} p > a:hover, #x{i} {{ color: #{:03x}; }}",
                    i % 0x1000
                );
            }
            css.push_str("</style>");
            let mut body = String::new();
            for i in 0..100 {
                let _ = write!(body, "<p class=c{i}><a href=/a{i}>link</a> text</p>");
            }
            wrap(&css, &body)
        },
    },
    Shape {
        name: "css-vars",
        core: false,
        unit: "custom property",
        page: |n| {
            let mut css = String::from("<style>:root { --v0: #123456; ");
            for i in 1..n {
                let _ = write!(css, "--v{i}: var(--v{}); ", i - 1);
            }
            let _ = write!(css, "}} p {{ color: var(--v{}); }}</style>", n - 1);
            wrap(
                &css,
                "<p>Text coloured through a chain of custom properties.</p>",
            )
        },
    },
];

/// Times one page: parse plus every page rule, each iteration a fresh parse.
fn scan(page: &Page, rules: &[&'static dyn Rule]) -> usize {
    let a = analyze(page, rules);
    black_box(a.findings.len() + a.tallies.len())
}

/// Each rule alone on a parsed page, after the shared facts; slowest first.
fn per_rule(page: &Page, rules: &[&'static dyn Rule]) -> Vec<(&'static str, Duration)> {
    let cx = PageContext::parse(page);
    let root = cx.root();
    black_box(cx.styles().get(root.id()).is_some());
    black_box(cx.zoomed_styles().get(root.id()).is_some());
    black_box(cx.is_hidden(root));
    let mut out: Vec<(&'static str, Duration)> = rules
        .iter()
        .map(|rule| {
            let start = Instant::now();
            black_box(analyze_parsed(&cx, std::slice::from_ref(rule)));
            (rule.meta().id, start.elapsed())
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.1));
    out
}

/// Iteration times criterion asked for, per benchmark.
#[derive(Default)]
struct Recorder(RefCell<BTreeMap<(String, usize), Vec<Duration>>>);

impl Recorder {
    fn time(&self, shape: &str, n: usize, iters: u64, f: impl Fn() -> usize) -> Duration {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let start = Instant::now();
            black_box(f());
            let t = start.elapsed();
            self.0
                .borrow_mut()
                .entry((shape.to_string(), n))
                .or_default()
                .push(t);
            total += t;
        }
        total
    }

    fn median(&self, shape: &str, n: usize) -> Option<Duration> {
        let map = self.0.borrow();
        let mut times = map.get(&(shape.to_string(), n))?.clone();
        times.sort();
        times.get(times.len() / 2).copied()
    }
}

fn list_env(name: &str) -> Option<Vec<String>> {
    std::env::var(name).ok().map(|v| {
        v.split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Criterion's own rule: without `--bench` (as under `cargo test --benches`) each
    // benchmark runs once as a test.
    let quick = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test");
    let sizes_given = std::env::var("SITESCAN_SCALING_SIZES").is_ok();
    let sizes: Vec<usize> = match list_env("SITESCAN_SCALING_SIZES") {
        Some(v) => v.iter().filter_map(|s| s.parse().ok()).collect(),
        None if quick => vec![QUICK_SIZE],
        None => SIZES.to_vec(),
    };
    let only = list_env("SITESCAN_SCALING_SHAPES");
    let shapes: Vec<&Shape> = SHAPES
        .iter()
        .filter(|s| only.as_ref().is_none_or(|o| o.iter().any(|n| n == s.name)))
        .collect();
    let per_rule_table = std::env::var("SITESCAN_SCALING_PER_RULE").is_ok_and(|v| v == "1");
    let rules = registry::page_rules();

    let rec = Rc::new(Recorder::default());
    let mut c = Criterion::default().configure_from_args();
    for shape in &shapes {
        let mut group = c.benchmark_group(format!("scaling/{}", shape.name));
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500));
        for &n in &sizes {
            if !shape.core && n > EXTRA_MAX && !sizes_given {
                continue;
            }
            let page = Page::from_html("http://scaling.test/", &(shape.page)(n));
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
                b.iter_custom(|iters| rec.time(shape.name, n, iters, || scan(&page, rules)))
            });
            if per_rule_table {
                println!("{} n={n}: slowest rules alone", shape.name);
                for (id, t) in per_rule(&page, rules).iter().take(8) {
                    println!("  {id:36} {:10.3} ms", t.as_secs_f64() * 1e3);
                }
            }
        }
        group.finish();
    }

    println!(
        "\nTime per unit, parse + all {} page rules{}:",
        rules.len(),
        if quick {
            " (test mode: one run each, indicative only)"
        } else {
            ""
        }
    );
    print!("  {:14} {:16}", "shape", "unit");
    for n in &sizes {
        print!(" {:>12}", format!("n={n}"));
    }
    println!();
    for shape in &shapes {
        print!("  {:14} {:16}", shape.name, shape.unit);
        for &n in &sizes {
            match rec.median(shape.name, n) {
                Some(t) => {
                    let per_unit = t.as_secs_f64() * 1e6 / n as f64;
                    print!(" {:>9.2} µs", per_unit);
                }
                None => print!(" {:>12}", "-"),
            }
        }
        println!();
    }
    for shape in &shapes {
        for &n in &sizes {
            if let Some(t) = rec.median(shape.name, n) {
                println!(
                    "sitescan-scaling shape={} n={n} total_ms={:.3} per_unit_us={:.3}",
                    shape.name,
                    t.as_secs_f64() * 1e3,
                    t.as_secs_f64() * 1e6 / n as f64
                );
            }
        }
    }
}
