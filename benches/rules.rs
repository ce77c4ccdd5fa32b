//! Analysis cost against the parse limit.
//!
//! On the same pages this measures parsing alone (html5ever via
//! [`PageContext::parse`]) and parsing plus every per-page rule of the registry
//! (`registry::select(&["all"])`, so rules that land later are measured without
//! touching this file), and prints the ratio `(parse + rules) / parse`. A second
//! group runs the per-page work (parse + rules, as the scan pipeline does it on its
//! rayon pool) on pools of 1 and 2 threads to show that it parallelizes.
//!
//! Pages come from a real third-party corpus, Debian's `python3.11-doc` HTML under
//! `/usr/share/doc/python3.11/html` (`scripts/bench` installs it), when present, and
//! from the synthetic site of `sitescan_fixtures::generate_site` (always).
//!
//! `cargo bench --bench rules` measures every page of each corpus. Under
//! `cargo test --benches` (criterion's test mode, each bench run once) and when
//! `SITESCAN_BENCH_PAGES=N` is set, an evenly spread sample of pages is used so the
//! run takes seconds. `SITESCAN_BENCH_PER_RULE=1` adds a cost table (shared
//! per-document facts, then each rule alone over pre-parsed pages), the first place
//! to look when the ratio target is missed.
//!
//! Ratios come from the iteration times criterion itself measured (recorded through
//! `iter_custom`), medians per benchmark, so both sides of a ratio were measured in
//! the same run on the same machine. Lines starting with `sitescan-bench` are
//! machine-readable (`key=value`) and read by `scripts/bench`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use rayon::prelude::*;
use sitescan::rules::{
    analyze, analyze_parsed, registry, Page, PageContext, Rule, RuleMeta, Visits,
};

/// Where Debian's python3.11-doc package puts its HTML.
const PYTHON_DOCS: &str = "/usr/share/doc/python3.11/html";
/// Pages used in test mode (`cargo test --benches`) when no count is given.
const QUICK_PAGES: usize = 4;
/// Largest corpus page taken in test mode.
const QUICK_MAX_BYTES: u64 = 16 * 1024;
/// Pages of the synthetic site in a full run.
const SYNTHETIC_PAGES: usize = 500;
/// Seed of the synthetic site, so runs compare.
const SYNTHETIC_SEED: u64 = 9;

/// A named set of pages measured together.
struct Corpus {
    name: String,
    pages: Vec<Page>,
    bytes: u64,
}

impl Corpus {
    fn new(name: &str, pages: Vec<Page>) -> Corpus {
        let bytes = pages.iter().map(|p| p.body.len() as u64).sum();
        Corpus {
            name: name.to_string(),
            pages,
            bytes,
        }
    }
}

/// Every `*.html` file under `dir`, sorted so samples are the same from run to run.
fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `limit` paths spread evenly over `paths` (all of them when `limit` is `None`).
fn spread(paths: Vec<PathBuf>, limit: Option<usize>) -> Vec<PathBuf> {
    match limit {
        Some(n) if n < paths.len() => {
            let step = paths.len() as f64 / n as f64;
            (0..n)
                .map(|i| paths[(i as f64 * step) as usize].clone())
                .collect()
        }
        _ => paths,
    }
}

/// Loads the HTML files of `dir` as pages served from `base`.
///
/// Only files of at most `max_bytes` are taken when it is given (test mode keeps to
/// small pages so an unoptimized build runs every rule over them in seconds).
fn load_dir(
    name: &str,
    dir: &Path,
    base: &str,
    limit: Option<usize>,
    max_bytes: Option<u64>,
) -> Option<Corpus> {
    let mut files = html_files(dir);
    if let Some(max) = max_bytes {
        files.retain(|f| std::fs::metadata(f).is_ok_and(|m| m.len() <= max));
    }
    let files = spread(files, limit);
    let mut pages = Vec::with_capacity(files.len());
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(rel) = path.strip_prefix(dir) else {
            continue;
        };
        let url = format!("{base}{}", rel.to_string_lossy());
        let body = String::from_utf8_lossy(&bytes);
        pages.push(Page::from_html(&url, &body));
    }
    (!pages.is_empty()).then(|| Corpus::new(name, pages))
}

/// Median seconds per iteration of each benchmark, from criterion's own samples.
#[derive(Default, Clone)]
struct Recorder(Rc<RefCell<BTreeMap<String, Vec<f64>>>>);

impl Recorder {
    /// Times `iters` runs of `f`, keeps the per-iteration time under `key`, and
    /// returns the total for criterion.
    fn time<R>(&self, key: &str, iters: u64, mut f: impl FnMut() -> R) -> Duration {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        let elapsed = start.elapsed();
        self.0
            .borrow_mut()
            .entry(key.to_string())
            .or_default()
            .push(elapsed.as_secs_f64() / iters.max(1) as f64);
        elapsed
    }

    fn median(&self, key: &str) -> Option<f64> {
        let map = self.0.borrow();
        let mut v = map.get(key)?.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(v[v.len() / 2])
    }
}

fn parse_all(pages: &[Page]) -> usize {
    pages
        .iter()
        .map(|p| PageContext::parse(p).doc().tree.nodes().len())
        .sum()
}

fn analyze_all(pages: &[Page], rules: &[&'static dyn Rule]) -> usize {
    pages.iter().map(|p| analyze(p, rules).tallies.len()).sum()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool,
        Err(e) => panic!("cannot build a rayon pool of {threads} threads: {e}"),
    }
}

/// Parse only vs parse + every rule, one thread, and the same on 1 and 2 threads.
fn bench_corpus(c: &mut Criterion, rec: &Recorder, corpus: &Corpus, rules: &[&'static dyn Rule]) {
    let name = &corpus.name;
    let mut group = c.benchmark_group(format!("rules/{name}"));
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .throughput(Throughput::Bytes(corpus.bytes));
    group.bench_function("parse", |b| {
        b.iter_custom(|n| rec.time(&format!("{name}/parse"), n, || parse_all(&corpus.pages)))
    });
    group.bench_function("parse+rules", |b| {
        b.iter_custom(|n| {
            rec.time(&format!("{name}/parse+rules"), n, || {
                analyze_all(&corpus.pages, rules)
            })
        })
    });
    group.finish();

    let mut group = c.benchmark_group(format!("threads/{name}"));
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .throughput(Throughput::Bytes(corpus.bytes));
    for threads in [1, 2] {
        let pool = pool(threads);
        group.bench_with_input(
            BenchmarkId::new("parse", threads),
            &threads,
            |b, &threads| {
                b.iter_custom(|n| {
                    rec.time(&format!("{name}/parse/{threads}t"), n, || {
                        pool.install(|| {
                            corpus
                                .pages
                                .par_iter()
                                .map(|p| PageContext::parse(p).doc().tree.nodes().len())
                                .sum::<usize>()
                        })
                    })
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("parse+rules", threads),
            &threads,
            |b, &threads| {
                b.iter_custom(|n| {
                    rec.time(&format!("{name}/parse+rules/{threads}t"), n, || {
                        pool.install(|| {
                            corpus
                                .pages
                                .par_iter()
                                .map(|p| analyze(p, rules).tallies.len())
                                .sum::<usize>()
                        })
                    })
                })
            },
        );
    }
    group.finish();
}

/// Prints the ratios of one corpus, human-readable and as one `sitescan-bench` line.
fn report(rec: &Recorder, corpus: &Corpus, rules: usize, quick: bool) {
    let name = &corpus.name;
    let (Some(parse), Some(full), Some(t1), Some(t2)) = (
        rec.median(&format!("{name}/parse")),
        rec.median(&format!("{name}/parse+rules")),
        rec.median(&format!("{name}/parse+rules/1t")),
        rec.median(&format!("{name}/parse+rules/2t")),
    ) else {
        return;
    };
    let pages = corpus.pages.len() as f64;
    let mb = corpus.bytes as f64 / 1e6;
    println!(
        "\n{name}: {} pages, {mb:.1} MB, {rules} per-page rules{}",
        corpus.pages.len(),
        if quick {
            " (test mode: one run each, indicative only)"
        } else {
            ""
        }
    );
    println!(
        "  parse only        {:8.1} pages/s {:6.1} MB/s",
        pages / parse,
        mb / parse
    );
    println!(
        "  parse + rules     {:8.1} pages/s {:6.1} MB/s   (parse + rules) / parse = {:.2}",
        pages / full,
        mb / full,
        full / parse
    );
    let parse_speedup = match (
        rec.median(&format!("{name}/parse/1t")),
        rec.median(&format!("{name}/parse/2t")),
    ) {
        (Some(p1), Some(p2)) => p1 / p2,
        _ => f64::NAN,
    };
    println!(
        "  parse + rules 1t  {:8.1} pages/s   2t {:8.1} pages/s   speedup {:.2}x \
         (parse alone: {parse_speedup:.2}x)",
        pages / t1,
        pages / t2,
        t1 / t2
    );
    println!(
        "sitescan-bench corpus={name} pages={} bytes={} rules={rules} parse_pages_per_s={:.1} \
         rules_pages_per_s={:.1} ratio_rules_parse={:.3} pages_per_s_1t={:.1} pages_per_s_2t={:.1} \
         speedup_2t={:.3} parse_speedup_2t={parse_speedup:.3} quick={quick}",
        corpus.pages.len(),
        corpus.bytes,
        pages / parse,
        pages / full,
        full / parse,
        pages / t1,
        pages / t2,
        t1 / t2
    );
}

/// A rule that visits a tag no page has: measures the traversal alone.
struct Traversal;

static TRAVERSAL: RuleMeta = RuleMeta {
    id: "bench-traversal",
    ..RuleMeta::BASE
};

impl Rule for Traversal {
    fn meta(&self) -> &'static RuleMeta {
        &TRAVERSAL
    }
    fn visits(&self) -> Visits {
        Visits::Tags(&["sitescan-bench-none"])
    }
}

/// Where the rule phase spends its time: the shared per-document facts (each timed
/// on fresh documents, in the order they build on each other), then each rule alone
/// on fresh documents whose shared facts are already computed (so a rule is charged
/// for its own work, caches it fills itself included), minus the bare traversal.
/// Seconds per pass over the corpus, and that as a share of parse time.
fn per_rule(corpus: &Corpus, rules: &[&'static dyn Rule], parse_secs: f64) {
    let fresh =
        || -> Vec<PageContext<'_>> { corpus.pages.iter().map(PageContext::parse).collect() };
    let warm = |parsed: &[PageContext<'_>]| {
        for cx in parsed {
            black_box(cx.ids());
            black_box(cx.styles());
            black_box(cx.tree());
        }
    };
    let share = |secs: f64| 100.0 * secs / parse_secs;

    let parsed = fresh();
    let mut facts = Vec::new();
    let mut fact = |name: &'static str, f: &dyn Fn(&PageContext<'_>)| {
        let start = Instant::now();
        for cx in &parsed {
            f(cx);
        }
        facts.push((name, start.elapsed().as_secs_f64()));
    };
    fact("ids", &|cx| {
        black_box(cx.ids());
    });
    fact("styles (css cascade)", &|cx| {
        black_box(cx.styles());
    });
    fact("tree (aria facts)", &|cx| {
        black_box(cx.tree());
    });
    drop(parsed);

    let own = |rules: &[&'static dyn Rule]| {
        (0..2)
            .map(|_| {
                let parsed = fresh();
                warm(&parsed);
                let start = Instant::now();
                for cx in &parsed {
                    black_box(analyze_parsed(cx, rules));
                }
                start.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let traversal = own(&[&Traversal]);
    let mut costs: Vec<(&str, f64)> = rules
        .iter()
        .map(|r| (r.meta().id, (own(&[*r]) - traversal).max(0.0)))
        .collect();
    costs.sort_by(|a, b| b.1.total_cmp(&a.1));
    let all = own(rules);
    let fact_total: f64 = facts.iter().map(|f| f.1).sum();

    println!(
        "\n{}: parse {:.1} ms; rule phase {:.1} ms = {:.2}x parse (+ shared facts {:.1} ms = {:.2}x)",
        corpus.name,
        parse_secs * 1e3,
        all * 1e3,
        all / parse_secs,
        fact_total * 1e3,
        fact_total / parse_secs
    );
    println!(
        "  {:44} {:8.2} ms {:6.1}%",
        "(one traversal)",
        traversal * 1e3,
        share(traversal)
    );
    for (name, secs) in facts {
        println!(
            "  {:44} {:8.2} ms {:6.1}%",
            format!("shared: {name}"),
            secs * 1e3,
            share(secs)
        );
    }
    for (id, secs) in costs {
        println!("  {id:44} {:8.2} ms {:6.1}%", secs * 1e3, share(secs));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // Criterion's own rule: without `--bench` (as under `cargo test --benches`) each
    // benchmark runs once as a test.
    let quick = !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test");
    let limit = std::env::var("SITESCAN_BENCH_PAGES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .or(quick.then_some(QUICK_PAGES));

    let selection = match registry::select(&["all"]) {
        Ok(s) => s,
        Err(e) => panic!("the `all` rule set must resolve: {e}"),
    };
    let rules = selection.page;
    // `spelling` is one of the per-page rules: load the dictionary a scan loads, so
    // the bench pays for it too (without one the rule does nothing).
    if let Some(note) = sitescan_engine::spelling::install_spelling_dictionary().note() {
        eprintln!("rules bench: {note}");
    }

    let mut corpora = Vec::new();
    match load_dir(
        "python-docs",
        Path::new(PYTHON_DOCS),
        "http://docs.python.test/",
        limit,
        quick.then_some(QUICK_MAX_BYTES),
    ) {
        Some(c) => corpora.push(c),
        None => eprintln!(
            "rules bench: {PYTHON_DOCS} not found; install python3.11-doc (scripts/bench does) \
             to measure the real corpus"
        ),
    }

    // Kept alive until the pages are loaded.
    let synthetic_dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("cannot create a temporary directory: {e}"),
    };
    let synthetic_pages = limit.unwrap_or(SYNTHETIC_PAGES);
    if let Err(e) =
        sitescan_fixtures::generate_site(synthetic_pages, SYNTHETIC_SEED, synthetic_dir.path())
    {
        panic!("cannot generate the synthetic site: {e}");
    }
    match load_dir(
        "synthetic",
        synthetic_dir.path(),
        "http://synthetic.test/",
        None,
        None,
    ) {
        Some(c) => corpora.push(c),
        None => panic!("the generated site has no pages"),
    }
    drop(synthetic_dir);

    let rec = Recorder::default();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    for corpus in &corpora {
        bench_corpus(&mut c, &rec, corpus, &rules);
    }
    c.final_summary();
    for corpus in &corpora {
        report(&rec, corpus, rules.len(), quick);
    }
    if std::env::var_os("SITESCAN_BENCH_PER_RULE").is_some() {
        for corpus in &corpora {
            if let Some(parse) = rec.median(&format!("{}/parse", corpus.name)) {
                per_rule(corpus, &rules, parse);
            }
        }
    }
}
