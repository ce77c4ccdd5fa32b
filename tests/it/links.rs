//! Link checks and crawl order, end to end: deterministic page sets under a page
//! limit, one `broken-links` finding per target with every place linking to it,
//! `HEAD` without `GET` where `HEAD` is answered, the link phase's progress, and a
//! scan without outside network (a network namespace) that says so instead of
//! reporting every other site broken.

use std::path::Path;

use futures::StreamExt;
use serde_json::Value;
use sitescan::rules::Outcome;
use sitescan::{Phase, ScanEvent, Scanner};
use sitescan_fixtures::FixtureServer;

use crate::netns::{self, Host};

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body><main>{body}</main></body></html>"
    )
}

/// A site of about 200 pages in four levels, with links between branches, a
/// redirect from each odd branch into the next branch, a missing page linked
/// from everywhere, and a sitemap listing two deep pages. `delay` gives each
/// path's response delay in milliseconds.
fn layered_site(dir: &Path, delay: impl Fn(&str) -> u64) {
    let mut headers = String::new();
    let mut write = |path: &str, html: String| {
        std::fs::write(dir.join(path.trim_start_matches('/')), html).unwrap();
        let ms = delay(path);
        if ms > 0 {
            headers.push_str(&format!("{path}\n  Delay-Ms: {ms}\n"));
        }
    };
    let home: String = (1..=8)
        .map(|i| format!("<a href=\"/s{i}.html\">Section {i}</a> "))
        .collect();
    write("/index.html", page("Home", &home));
    for i in 1..=8 {
        let mut body: String = (1..=6)
            .map(|j| format!("<a href=\"/s{i}-{j}.html\">Part {i}.{j}</a> "))
            .collect();
        body.push_str(&format!(
            "<a href=\"/s{}-1.html\">Next section</a> ",
            i % 8 + 1
        ));
        if i % 2 == 1 {
            body.push_str(&format!("<a href=\"/r{i}.html\">Moved</a> "));
        }
        body.push_str("<a href=\"/missing.html\">Old page</a>");
        write(&format!("/s{i}.html"), page(&format!("Section {i}"), &body));
        for j in 1..=6 {
            let body: String = (1..=3)
                .map(|k| format!("<a href=\"/s{i}-{j}-{k}.html\">Leaf {k}</a> "))
                .chain(std::iter::once(
                    "<a href=\"/missing.html\">Old</a>".to_string(),
                ))
                .collect();
            write(
                &format!("/s{i}-{j}.html"),
                page(&format!("Part {i}.{j}"), &body),
            );
            for k in 1..=3 {
                write(
                    &format!("/s{i}-{j}-{k}.html"),
                    page(
                        &format!("Leaf {i}.{j}.{k}"),
                        "<p>Leaf.</p><img src=\"/x.png\">",
                    ),
                );
            }
        }
    }
    let mut redirects = String::new();
    for i in (1..=8).step_by(2) {
        redirects.push_str(&format!(
            "/r{i}.html\n  Status: 302\n  Location: {{{{origin}}}}/s{}-2.html\n",
            i % 8 + 1
        ));
    }
    std::fs::write(dir.join("_headers"), format!("{redirects}{headers}")).unwrap();
    std::fs::write(
        dir.join("sitemap.xml"),
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
         <url><loc>/s8-6-3.html</loc></url><url><loc>/s1-1-1.html</loc></url></urlset>",
    )
    .unwrap();
}

/// The report as JSON without what depends on timing or on the server's port:
/// times, durations and the applied concurrency removed, the origin replaced.
fn comparable(report: &sitescan::Report, origin: &str) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in ["started_at", "finished_at", "ttfb_ms", "total_ms", "config"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = serde_json::to_string(report)
        .unwrap()
        .replace(origin, "ORIGIN");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    strip(&mut v);
    v
}

/// Under a page limit the same site gives the same pages and the same report,
/// whatever the concurrency and however long each page takes: one page at a
/// time against eight at once, with delays that favour opposite branches.
#[tokio::test]
async fn page_sets_and_reports_do_not_depend_on_timing_or_concurrency() {
    let hash = |s: &str| {
        s.bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
    };
    let slow_odd = tempfile::tempdir().unwrap();
    layered_site(slow_odd.path(), |p| (hash(p) % 4) * 12);
    let slow_even = tempfile::tempdir().unwrap();
    layered_site(slow_even.path(), |p| ((hash(p) + 2) % 4) * 12);
    let scan = |dir: &Path, concurrency: usize| {
        let dir = dir.to_path_buf();
        async move {
            let server = FixtureServer::start(&dir).await.unwrap();
            let report = Scanner::builder()
                .allow_private(true)
                .rate_per_host(1000.0)
                .concurrency(concurrency)
                .max_pages(30)
                .rules(&[
                    "broken-links",
                    "document-title",
                    "duplicate-title",
                    "image-alt",
                ])
                .build()
                .unwrap()
                .scan(&server.url())
                .await
                .unwrap();
            let pages: Vec<String> = report
                .pages
                .iter()
                .map(|p| p.url.replace(&server.origin(), ""))
                .collect();
            (pages, comparable(&report, &server.origin()))
        }
    };
    let (one, one_report) = scan(slow_odd.path(), 1).await;
    assert_eq!(one.len(), 30);
    // The start page, its eight sections and the sitemap's two pages come first.
    for p in ["/", "/s1.html", "/s8.html", "/s8-6-3.html", "/s1-1-1.html"] {
        assert!(one.contains(&p.to_string()), "{p} missing from {one:?}");
    }
    assert!(!one.contains(&"/s8-6-2.html".to_string()), "{one:?}");
    for (dir, concurrency) in [
        (slow_odd.path(), 8),
        (slow_even.path(), 8),
        (slow_even.path(), 1),
        (slow_odd.path(), 32),
    ] {
        let (pages, report) = scan(dir, concurrency).await;
        assert_eq!(pages, one, "concurrency {concurrency}");
        assert_eq!(report, one_report, "concurrency {concurrency}");
    }
}

/// A missing page linked from several pages, twice on one: one finding, every
/// place listed with its selector, snippet and link text, the first place the
/// finding's own. Applicability counts pages, not links.
#[tokio::test]
async fn one_finding_per_broken_target_with_every_place() {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, html: String| std::fs::write(dir.path().join(name), html).unwrap();
    w(
        "index.html",
        page(
            "Home",
            r#"<nav><a href="/a.html">A</a> <a href="/b.html">B</a></nav><p><a href="/gone.html">Our old offer</a></p>"#,
        ),
    );
    w(
        "a.html",
        page(
            "A",
            r#"<p><a href="/gone.html#top">first</a></p><p><a href="/gone.html" aria-label="Again"></a></p><a href="/">Home</a>"#,
        ),
    );
    w("b.html", page("B", r#"<a href="/a.html">A</a>"#));
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let report = Scanner::builder()
        .allow_private(true)
        .rate_per_host(1000.0)
        .rules(&["broken-links"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let o = server.origin();
    let findings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "broken-links")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = findings[0];
    assert_eq!(f.outcome, Outcome::Failed);
    assert_eq!(
        f.message,
        format!("The link to {o}/gone.html is broken: it answers 404. It is linked 3 times from 2 page(s).")
    );
    let places: Vec<(String, &str, &str, Option<&str>)> = f
        .occurrences
        .iter()
        .map(|p| {
            (
                p.page_url.replace(&o, ""),
                p.selector.as_str(),
                p.snippet.as_str(),
                p.text.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        places,
        vec![
            (
                "/".to_string(),
                "html > body > main > p > a",
                r#"<a href="/gone.html">Our old offer</a>"#,
                Some("Our old offer")
            ),
            (
                "/a.html".to_string(),
                "html > body > main > p:nth-child(1) > a",
                r##"<a href="/gone.html#top">first</a>"##,
                Some("first")
            ),
            (
                "/a.html".to_string(),
                "html > body > main > p:nth-child(2) > a",
                r#"<a aria-label="Again" href="/gone.html"></a>"#,
                Some("Again")
            ),
        ]
    );
    assert_eq!(f.occurrences_total, None);
    assert_eq!(f.page_url, format!("{o}/"));
    assert_eq!(f.selector, "html > body > main > p > a");
    assert_eq!(f.snippet, r#"<a href="/gone.html">Our old offer</a>"#);
    // Pages with a checked link: home and A fail, B passes; /gone.html itself
    // (fetched as a 404 page) links nowhere.
    let rule = report
        .rules
        .iter()
        .find(|r| r.rule_id == "broken-links")
        .unwrap();
    assert_eq!(
        (
            rule.pages_applicable,
            rule.pages_failed,
            rule.passed,
            rule.failed
        ),
        (3, 2, 1, 2)
    );
    // The crawl's own 404 answers for the link: not requested again.
    assert_eq!(server.count("/gone.html"), 1);
}

/// `HEAD` alone for a link that answers it (a 404 included), progress through
/// the link phase, and the phases in order.
#[tokio::test]
async fn links_get_head_alone_and_the_link_phase_reports_progress() {
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("ok.html"), page("Ok", "<p>ok</p>")).unwrap();
    let other = FixtureServer::start(other.path()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The other server under another name: a host of its own for the checks.
    let elsewhere = format!("http://localhost:{}", other.port());
    std::fs::write(
        dir.path().join("index.html"),
        page(
            "Home",
            &format!(
                r#"<a href="{elsewhere}/ok.html">ok</a> <a href="{elsewhere}/gone.html">gone</a> <a href="{elsewhere}/ok.html?again">again</a>"#
            ),
        ),
    )
    .unwrap();
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let scanner = Scanner::builder()
        .allow_private(true)
        .rate_per_host(1000.0)
        .rules(&["broken-links"])
        .build()
        .unwrap();
    let mut events = Box::pin(scanner.scan_stream(&server.url()));
    let mut phases = Vec::new();
    let mut links = Vec::new();
    let mut report = None;
    while let Some(event) = events.next().await {
        match event {
            ScanEvent::Progress(p) => {
                if phases.last() != Some(&p.phase) {
                    phases.push(p.phase);
                }
                if p.phase == Phase::Links {
                    links.push((p.links_checked, p.links_total));
                }
            }
            ScanEvent::Finished(r) => report = Some(r),
            ScanEvent::Failed(e) => panic!("{e}"),
            ScanEvent::Page(_) => {}
        }
    }
    assert_eq!(phases, vec![Phase::Crawl, Phase::Links, Phase::Finish]);
    assert_eq!(links.first(), Some(&(0, 3)));
    assert_eq!(links.last(), Some(&(3, 3)));
    let methods: Vec<(String, String)> = other
        .requests()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    let mut methods = methods;
    methods.sort();
    assert_eq!(
        methods,
        vec![
            ("HEAD".to_string(), "/gone.html".to_string()),
            ("HEAD".to_string(), "/ok.html".to_string()),
            ("HEAD".to_string(), "/ok.html?again".to_string()),
        ]
    );
    let report = report.unwrap();
    let broken: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "broken-links")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        broken,
        vec![format!(
            "The link to {elsewhere}/gone.html is broken: it answers 404."
        )]
    );
}

/// Without outside network every other site fails at DNS or connect: the
/// report says the network looks unreachable, counts their links as not
/// checked, and reports none of them broken; the site's own missing page is
/// still reported. Each failing host is tried once.
#[test]
fn a_scan_without_network_says_so_instead_of_reporting_broken_links() {
    let site = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for host in [
        "docs.example",
        "www.example.org",
        "peps.example",
        "github.example",
    ] {
        for p in 0..5 {
            body.push_str(&format!(
                "<a href=\"https://{host}/page{p}\">{host} {p}</a> "
            ));
        }
    }
    // An address rather than a name: unreachable at connect.
    body.push_str(
        "<a href=\"http://192.0.2.7/doc\">doc</a> <a href=\"http://192.0.2.7/doc2\">doc 2</a>",
    );
    body.push_str("<a href=\"/missing.html\">missing</a>");
    std::fs::write(site.path().join("index.html"), page("Home", &body)).unwrap();

    let got = netns::scan(site.path(), Host::Loopback, "/", "--rules broken-links");
    assert!(got.exit == 0 || got.exit == 1, "{}", got.stderr);
    let report = &got.report;
    let stats = &report["stats"];
    assert_eq!(stats["network_unreachable"], true, "{stats}");
    assert_eq!(stats["skipped"]["network"], 22, "{stats}");
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with(
            "the network looks unreachable: 5 of the 5 hosts the link checks contacted could not be resolved or connected to; 22 link/resource URLs on them were not checked"
        )),
        "{notes:?}"
    );
    let broken: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] == "broken-links")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(
        broken[0].contains("/missing.html is broken: it answers 404."),
        "{broken:?}"
    );
    // The site itself: robots.txt, sitemap, its pages; nothing twice.
    assert_eq!(
        got.served
            .iter()
            .filter(|l| l.ends_with(" /missing.html"))
            .count(),
        1,
        "{:?}",
        got.served
    );
}
