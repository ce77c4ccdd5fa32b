//! Guard against recursion over what a page sends: every page rule runs over
//! documents nested 20,000 deep in several ways, on a thread with a deliberately
//! small stack. A walk that recurses per nesting level (of elements, JSON-LD,
//! CSS blocks or `var()` chains) overflows it and aborts the test binary; a rule
//! that panics shows up in the analysis errors.
//!
//! The parse holds element nesting to [`ParseLimits::DEFAULT`] (512, as
//! Chromium), so the rules see documents 512 deep: the stack here is small
//! enough that a recursive walk over 512 levels does not fit in it (see
//! `a_recursive_walk_does_not_fit`). DOM helpers are also run on a tree parsed
//! without the cap, 20,000 deep.

use std::fmt::Write as _;

use scraper::ElementRef;
use sitescan_rules::dom::{self, ParseLimits};
use sitescan_rules::{analyze, registry, Page};

/// Nesting of the generated pages.
const DEPTH: usize = 2_000;
/// Stack of the thread the rules run on.
const STACK: usize = 256 * 1024;

/// Runs `f` on a thread with [`STACK`] bytes of stack.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .expect("spawn a thread");
    match handle.join() {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e),
    }
}

fn page(body: &str, head: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><title>Deep</title>{head}</head><body>{body}</body></html>"
    )
}

/// `DEPTH` levels of `open`, some text, then the closing tags.
fn nested(open: &str, close: &str) -> String {
    let mut s = String::with_capacity((open.len() + close.len()) * DEPTH + 32);
    for _ in 0..DEPTH {
        s.push_str(open);
    }
    s.push_str("Deep text <a href=/x>a link</a> <img src=i.png alt=picture>");
    for _ in 0..DEPTH {
        s.push_str(close);
    }
    page(&s, "")
}

/// The pages: element nesting of several kinds, deep JSON-LD, deep CSS.
fn pages() -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("span", nested("<span>", "</span>")),
        ("div", nested("<div>", "</div>")),
        ("ul-li", nested("<ul><li>", "</li></ul>")),
        (
            "ol-li-a",
            nested("<ol><li><a href=/i>item</a>", "</li></ol>"),
        ),
        ("table", nested("<table><tr><td>", "</td></tr></table>")),
        ("svg-g", nested("<svg><g>", "</g></svg>")),
        ("a-span", nested("<a href=/a><span>", "</span></a>")),
        (
            "details",
            nested("<details open><summary>s</summary>", "</details>"),
        ),
        ("blockquote", nested("<blockquote>", "</blockquote>")),
        ("lang", nested("<span lang=fr>", "</span>")),
        ("lang-blank", nested("<span lang=' '>", "</span>")),
        (
            "roles",
            nested(
                "<div role=group aria-label=g><div role=list><div role=listitem>",
                "</div></div></div>",
            ),
        ),
        ("button", nested("<div role=button tabindex=0>", "</div>")),
        ("label", nested("<label>l<span>", "</span></label>")),
        ("frames", {
            // An iframe's srcdoc holding an iframe's srcdoc …, escaped at each level.
            let mut doc = String::from("<p>inner</p>");
            for _ in 0..50 {
                doc = format!(
                    "<iframe title=f srcdoc=\"{}\"></iframe>",
                    doc.replace('&', "&amp;").replace('"', "&quot;")
                );
            }
            page(&doc, "")
        }),
    ];
    let json = format!(
        "<script type=\"application/ld+json\">{}{}</script>",
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    out.push(("json-ld", page("<p>x</p>", &json)));
    let objects = format!(
        "<script type=\"application/ld+json\">{}1{}</script>",
        "{\"@graph\":".repeat(100),
        "}".repeat(100)
    );
    out.push(("json-ld-graph", page("<p>x</p>", &objects)));
    let mut css = String::from("<style>");
    for _ in 0..DEPTH {
        css.push_str("@media screen { ");
    }
    css.push_str("p { color: red }");
    for _ in 0..DEPTH {
        css.push('}');
    }
    css.push_str("</style>");
    out.push(("css-media", page("<p>x</p>", &css)));
    let parens = format!(
        "<style>p {{ color: {}red{} }} a {{ width: calc({}1px{}) }}</style>",
        "(".repeat(DEPTH),
        ")".repeat(DEPTH),
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    out.push(("css-parens", page("<p>x</p>", &parens)));
    let mut vars = String::from("<style>:root { --v0: #123; ");
    for i in 1..DEPTH {
        let _ = write!(vars, "--v{i}: var(--v{}); ", i - 1);
    }
    let _ = write!(
        vars,
        "}} p {{ color: var(--v{}); background: var(--w, var(--x, var(--y, {}))) }}</style>",
        DEPTH - 1,
        "var(--z, ".repeat(DEPTH) + "red" + &")".repeat(DEPTH)
    );
    out.push(("css-vars", page("<p style='color: var(--v9)'>x</p>", &vars)));
    let mut wide = String::from("<style>:root { --a0: x; ");
    for i in 1..40 {
        let _ = write!(
            wide,
            "--a{i}: var(--a{p}) var(--a{p}) var(--a{p}); ",
            p = i - 1
        );
    }
    wide.push_str("} p { color: var(--a39) }</style>");
    out.push(("css-var-bomb", page("<p>x</p>", &wide)));
    out
}

#[test]
fn every_page_rule_survives_deep_pages_on_a_small_stack() {
    let report = on_small_stack(|| {
        let mut report = Vec::new();
        for (name, html) in pages() {
            let page = Page::from_html("http://deep.test/", &html);
            let start = std::time::Instant::now();
            let analysis = analyze(&page, registry::page_rules());
            let errors: Vec<String> = analysis.errors.iter().map(|e| format!("{e:?}")).collect();
            assert!(errors.is_empty(), "{name}: rules failed: {errors:?}");
            assert!(!analysis.tallies.is_empty(), "{name}: no rule ran");
            eprintln!("deep page {name}: {:?}", start.elapsed());
            report.push(format!("{name}: {:?}", start.elapsed()));
        }
        report
    });
    // Timing is reported, not asserted (see benches/scaling.rs).
    println!("{}", report.join("\n"));
}

#[test]
fn deep_pages_are_parsed_to_the_cap() {
    for (name, html) in pages().into_iter().take(14) {
        let (doc, capped) = dom::parse_document_with(&html, &ParseLimits::DEFAULT);
        // An `<a>` inside an `<a>` closes the outer one: that shape does not nest.
        assert_eq!(capped.depth_flattened > 0, name != "a-span", "{name}");
        assert!(!capped.nodes_dropped, "{name}");
        let deepest = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .map(|e| e.ancestors().count())
            .max()
            .unwrap_or(0);
        // Past the cap only leaves, and the table sections (`tbody`, `tr`) the
        // parser implies around a cell.
        assert!(
            deepest <= ParseLimits::DEFAULT.max_depth + 3,
            "{name}: {deepest}"
        );
    }
}

#[test]
fn dom_helpers_walk_an_uncapped_tree_on_a_small_stack() {
    on_small_stack(|| {
        let html = nested("<span>", "</span>");
        let limits = ParseLimits {
            max_depth: usize::MAX,
            max_nodes: usize::MAX,
        };
        let (doc, capped) = dom::parse_document_with(&html, &limits);
        assert_eq!(capped, dom::ParseCapped::default());
        let body = doc
            .root_element()
            .children()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "body")
            .expect("a body");
        assert_eq!(dom::normalized_text(body), "Deep text a link");
        assert_eq!(dom::rendered_text_nodes(body).len(), 3);
        let img = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "img")
            .expect("an img");
        assert_eq!(img.ancestors().count(), DEPTH + 3);
        assert!(dom::unique_selector(img).ends_with("span > img"));
        assert_eq!(dom::snippet(body), "<body>");
        let outer = body
            .children()
            .filter_map(ElementRef::wrap)
            .next()
            .expect("a span");
        assert_eq!(dom::snippet(outer).chars().count(), dom::SNIPPET_MAX_CHARS);
    });
}

/// Set in the child process of [`a_recursive_walk_does_not_fit`].
const OVERFLOW_CHILD: &str = "SITESCAN_TEST_OVERFLOW_CHILD";

/// The stack is small enough to catch a recursive walk over the capped depth:
/// a walk shaped like the ones rules had (one call per element, a few locals)
/// does not fit in it over 512 levels. An overflow aborts the whole test binary,
/// so the walk runs in a child process (this test binary, running only this
/// test, with [`OVERFLOW_CHILD`] set), and the parent asserts that the child
/// died of a stack overflow.
#[test]
fn a_recursive_walk_does_not_fit() {
    if std::env::var_os(OVERFLOW_CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_recursive_walk_does_not_fit", "--nocapture"])
            .env(OVERFLOW_CHILD, "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("has overflowed its stack"),
            "the recursive walk should overflow the small stack: {:?}\n{stderr}",
            out.status
        );
        return;
    }
    fn walk(node: ego_tree::NodeRef<'_, scraper::Node>, out: &mut Vec<String>) -> usize {
        let mut local = [0u8; 512];
        local[0] = 1;
        let mut n = usize::from(std::hint::black_box(local)[0]);
        for child in node.children() {
            if let Some(t) = child.value().as_text() {
                out.push(t.to_string());
            }
            n += walk(child, out);
        }
        n
    }
    let html = nested("<span>", "</span>");
    on_small_stack(move || {
        let doc = dom::parse_document(&html);
        let mut out = Vec::new();
        walk(*doc.root_element(), &mut out)
    });
}

/// A page nesting 100,000 `<div>`, `<span>` or `<li>` (500 KB or more) used to
/// take 46 s to parse alone: with the depth cap it parses, and every rule runs
/// on it. The times are printed (measured, not asserted).
#[test]
fn hundred_thousand_levels_parse_and_scan() {
    const LEVELS: usize = 100_000;
    for (open, close) in [
        ("<div>", "</div>"),
        ("<span>", "</span>"),
        ("<ul><li>", "</li></ul>"),
    ] {
        let html = page(
            &format!("{}x{}", open.repeat(LEVELS), close.repeat(LEVELS)),
            "",
        );
        let start = std::time::Instant::now();
        let (doc, capped) = dom::parse_document_with(&html, &ParseLimits::DEFAULT);
        let parsed = start.elapsed();
        assert!(
            capped.depth_flattened >= LEVELS - ParseLimits::DEFAULT.max_depth,
            "{open}"
        );
        drop(doc);
        let page = Page::from_html("http://deep.test/", &html);
        let start = std::time::Instant::now();
        let analysis = analyze(&page, registry::page_rules());
        assert!(analysis.errors.is_empty(), "{open}: {:?}", analysis.errors);
        println!(
            "{open} x {LEVELS} ({} bytes): parse {parsed:?}, parse + all rules {:?}",
            html.len(),
            start.elapsed()
        );
    }
}

/// Real pages (the fixture sites and the ACT test cases, when present) parse
/// exactly as scraper parses them: the caps change nothing below them.
#[test]
fn pages_under_the_caps_parse_as_before() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs = vec![
        root.join("fixtures/sites"),
        root.join("../shared/conformance/act"),
    ];
    let mut checked = 0usize;
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let Ok(html) = std::fs::read_to_string(&path) else {
                continue;
            };
            let (doc, capped) = dom::parse_document_with(&html, &ParseLimits::DEFAULT);
            assert_eq!(capped, dom::ParseCapped::default(), "{}", path.display());
            let reference = scraper::Html::parse_document(&html);
            // Template contents are detached by both routes' callers alike; the
            // serialization of the document without them must match.
            let mut reference = reference;
            let inert: Vec<ego_tree::NodeId> = reference
                .tree
                .nodes()
                .filter(|n| {
                    n.value().is_fragment()
                        && n.parent()
                            .and_then(|p| p.value().as_element().map(|e| e.name() == "template"))
                            .unwrap_or(false)
                })
                .flat_map(|f| f.descendants().map(|n| n.id()).collect::<Vec<_>>())
                .collect();
            for id in inert {
                if let Some(mut n) = reference.tree.get_mut(id) {
                    n.detach();
                }
            }
            assert_eq!(doc.html(), reference.html(), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} pages found");
}
