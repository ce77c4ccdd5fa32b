//! The crawler over real HTTP against the fixture server; every politeness claim
//! is checked on the server's own request log.

use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use sitescan::rules::Outcome;
use sitescan::{Error, Report, ScanEvent, Scanner, ScannerBuilder};
use sitescan_fixtures::{generate_site, site_dir, FixtureServer};

/// Loopback allowed (the fixture server), fast rate unless a test is about rate.
fn scanner() -> ScannerBuilder {
    Scanner::builder().allow_private(true).rate_per_host(200.0)
}

async fn serve(site: &str) -> FixtureServer {
    FixtureServer::start(site_dir(site)).await.unwrap()
}

fn page<'r>(report: &'r Report, server: &FixtureServer, path: &str) -> &'r sitescan::PageReport {
    let url = server.url_for(path);
    report
        .pages
        .iter()
        .find(|p| p.url == url)
        .unwrap_or_else(|| panic!("no page {url} in {:#?}", report.pages))
}

/// Asserts no path was requested twice with the same method (the link checker's
/// `HEAD` of an uncrawled link is not a page fetch); the CORS probe
/// (`cors-reflected-origin`), a GET of the start page with an `Origin` header, is
/// a second request on purpose.
fn assert_no_duplicates(server: &FixtureServer) {
    let requests: Vec<(String, String, Option<String>)> = server
        .requests()
        .into_iter()
        .map(|r| {
            let origin = r.header("origin").map(str::to_string);
            (r.method, r.path, origin)
        })
        .collect();
    let unique: HashSet<&(String, String, Option<String>)> = requests.iter().collect();
    assert_eq!(
        unique.len(),
        requests.len(),
        "a URL was fetched twice: {requests:?}"
    );
}

/// How many `GET`s asked for this path: page fetches, not link checks.
fn gets(server: &FixtureServer, path: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path == path)
        .count()
}

#[tokio::test]
async fn basic_site_pages_stats_findings_and_one_fetch_per_url() {
    let server = serve("basic").await;
    let report = scanner()
        .rules(&["document-title"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();

    let mut urls: Vec<&str> = report.pages.iter().map(|p| p.url.as_str()).collect();
    urls.sort();
    let mut expected: Vec<String> = [
        "/",
        "/about.html",
        "/contact.html",
        "/from-sitemap.html",
        "/guide.pdf",
        "/missing.html",
    ]
    .iter()
    .map(|p| server.url_for(p))
    .collect();
    expected.sort();
    assert_eq!(urls, expected);

    assert_no_duplicates(&server);
    let mut paths = server.paths();
    paths.sort();
    assert_eq!(
        paths,
        vec![
            "/",
            "/about.html",
            "/contact.html",
            "/from-sitemap.html",
            "/guide.pdf",
            "/missing.html",
            "/robots.txt",
            "/sitemap.xml",
            "/style.css"
        ]
    );
    for r in server.requests() {
        assert_eq!(
            r.host.as_deref(),
            Some(&*format!("127.0.0.1:{}", server.port()))
        );
        assert_eq!(
            r.header("user-agent"),
            Some(sitescan::config::DEFAULT_USER_AGENT)
        );
    }

    // One real finding: the page without a title.
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(f.rule_id, "document-title");
    assert_eq!(f.outcome, Outcome::Failed);
    assert_eq!(f.page_url, server.url_for("/contact.html"));
    assert_eq!(page(&report, &server, "/contact.html").findings, 1);

    let s = &report.stats;
    assert_eq!(s.pages_fetched, 6);
    // localhost/elsewhere.html, example.invalid, and the sitemap's localhost URL.
    assert_eq!(s.skipped.scope, 3);
    assert_eq!(s.skipped.content_type, 1, "the PDF is recorded, not parsed");
    assert_eq!(s.skipped.robots, 0);
    assert_eq!(s.errors.get("http_4xx"), Some(&1));
    assert!(!s.truncated);
    assert_eq!(s.urls_left, 0);

    let pdf = page(&report, &server, "/guide.pdf");
    assert_eq!(pdf.content_type.as_deref(), Some("application/pdf"));
    assert_eq!(page(&report, &server, "/missing.html").status, 404);
    let home = page(&report, &server, "/");
    assert_eq!(home.depth, 0);
    assert!(home.bytes > 0);

    let title_rule = report
        .rules
        .iter()
        .find(|r| r.rule_id == "document-title")
        .unwrap();
    // Four 200 pages and the 404 page (HTML too) were checked.
    assert_eq!(title_rule.pages_applicable, 5);
    assert_eq!(title_rule.pages_failed, 1);
    // document-title (serious) fails 1 of 5 pages: ⌊100 × (1 − 0.3 × √⅕)⌋.
    assert_eq!(
        report.summary[&sitescan::rules::Category::Accessibility].score,
        Some(86)
    );
}

#[tokio::test]
async fn robots_txt_groups_wildcards_and_crawl_delay_are_obeyed() {
    let server = serve("robots").await;
    let report = scanner()
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let paths = server.paths();
    for forbidden in [
        "/private/secret.html",
        "/private/open/more.html",
        "/report.pdf",
        "/tmp/x.html",
        "/tmpfile.html",
    ] {
        assert!(
            !paths.iter().any(|p| p == forbidden),
            "{forbidden} was fetched: {paths:?}"
        );
    }
    for allowed in [
        "/public.html",
        "/private/open",
        "/report.pdf?download=1",
        "/tmp-public/ok.html",
    ] {
        assert_eq!(
            server.count(allowed),
            1,
            "{allowed} not fetched once: {paths:?}"
        );
    }
    assert_eq!(report.stats.skipped.robots, 5);
    // A redirect into a disallowed path is not followed either.
    let hop = page(&report, &server, "/go-private");
    assert_eq!(hop.status, 301);
    assert!(
        hop.error
            .as_deref()
            .unwrap()
            .contains("robots.txt disallows"),
        "{hop:?}"
    );
    assert_no_duplicates(&server);

    // Crawl-delay 0.25 s raises the 200/s rate: requests are at least ~250 ms apart.
    let times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= Duration::from_millis(200),
            "gap {gap:?} under the crawl delay"
        );
    }
}

#[tokio::test]
async fn page_limit_is_exact_and_reports_what_was_left() {
    let server = serve("limits").await;
    let report = scanner()
        .max_pages(5)
        .concurrency(8)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    // Uncrawled links may get a HEAD from the link checker (broken-links);
    // page fetches are GETs.
    let page_requests: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && (r.path.ends_with(".html") || r.path == "/"))
        .filter(|r| r.header("origin").is_none()) // the CORS probe is no page fetch
        .map(|r| r.path)
        .collect();
    assert_eq!(page_requests.len(), 5, "{page_requests:?}");
    assert_eq!(report.pages.len(), 5);
    assert_no_duplicates(&server);
    assert!(report.stats.truncated);
    // The index links 12 pages; 4 of them were fetched.
    assert_eq!(report.stats.urls_left, 8);
    assert_eq!(report.stats.skipped.limit, 8);
    assert!(report.notes.iter().any(|n| n.contains("max_pages = 5")));
}

#[tokio::test]
async fn per_host_rate_is_held() {
    let server = serve("limits").await;
    scanner()
        .rate_per_host(5.0)
        .concurrency(8)
        .max_pages(4)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    assert!(times.len() >= 5, "robots, index, sitemap and pages");
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        // 5/s is 200 ms; allow for arrival jitter on a busy machine.
        assert!(
            gap >= Duration::from_millis(150),
            "gap {gap:?} breaks 5 req/s"
        );
    }
}

#[tokio::test]
async fn retry_after_is_waited_and_transient_errors_retried() {
    let server = serve("retry").await;
    let report = scanner()
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let busy: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/busy.html")
        .map(|r| r.at)
        .collect();
    assert_eq!(busy.len(), 2, "one 429, one retry");
    assert!(
        busy[1] - busy[0] >= Duration::from_millis(950),
        "Retry-After: 1 not waited: {:?}",
        busy[1] - busy[0]
    );
    assert_eq!(server.count("/flaky.html"), 2, "503 retried once");
    assert_eq!(page(&report, &server, "/busy.html").status, 200);
    assert_eq!(page(&report, &server, "/flaky.html").status, 200);
    assert!(report.stats.errors.is_empty(), "{:?}", report.stats.errors);
}

#[tokio::test]
async fn redirects_are_followed_hop_by_hop_and_loops_stopped() {
    let server = serve("redirects").await;
    let report = scanner()
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();

    let chain = page(&report, &server, "/start");
    let hops: Vec<(&str, u16)> = chain
        .redirects
        .iter()
        .map(|h| (h.url.as_str(), h.status))
        .collect();
    assert_eq!(
        hops,
        vec![
            (&*server.url_for("/start"), 301),
            (&*server.url_for("/hop1"), 302),
            (&*server.url_for("/hop2"), 307),
        ]
    );
    assert_eq!(chain.final_url, server.url_for("/final.html"));
    assert_eq!(
        server.count("/final.html"),
        1,
        "the chain's end is fetched once"
    );

    let lp = page(&report, &server, "/loop-a");
    assert_eq!(lp.error.as_deref(), Some("redirect loop"));
    assert_eq!(server.count("/loop-a"), 1);
    assert_eq!(server.count("/loop-b"), 1);
    assert_eq!(report.stats.errors.get("redirect_loop"), Some(&1));

    let away = page(&report, &server, "/away");
    assert!(
        away.error.as_deref().unwrap().contains("out of scope"),
        "{away:?}"
    );
    assert!(server
        .requests()
        .iter()
        .all(|r| r.host.as_deref() != Some(&*format!("localhost:{}", server.port()))));

    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.path == "/" && r.header("origin").is_none())
            .count(),
        1,
        "a redirect to a fetched URL is not followed"
    );
    assert_no_duplicates(&server);
}

#[tokio::test]
async fn private_addresses_are_refused_without_allow_private() {
    let server = serve("basic").await;
    let guarded = Scanner::builder().build().unwrap();
    match guarded.scan(&server.url()).await {
        Err(Error::PrivateAddress { addr, .. }) => assert_eq!(addr, "127.0.0.1"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A name resolving to loopback goes through the guarded resolver.
    let by_name = format!("http://localhost:{}/", server.port());
    match guarded.scan(&by_name).await {
        Err(Error::PrivateAddress { .. }) => {}
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(server.requests().is_empty(), "nothing may reach the server");
}

#[tokio::test]
async fn error_pages_non_html_oversized_and_malformed() {
    let server = serve("errors").await;
    let report = scanner()
        .rules(&["document-title"])
        .max_body_bytes(100_000)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let big = page(&report, &server, "/big.html");
    // Reading stopped at the cap: a chunk past 100 kB came in, not 12 MB.
    assert!(
        (100_000..1_000_000).contains(&big.bytes),
        "{} bytes read",
        big.bytes
    );
    assert!(big.error.as_deref().unwrap().contains("larger than 100000"));
    assert_eq!(report.stats.errors.get("too_large"), Some(&1));

    let malformed = page(&report, &server, "/malformed.html");
    assert_eq!(malformed.status, 200);
    assert_eq!(malformed.error, None);
    assert!(malformed.rule_errors.is_empty());

    assert_eq!(page(&report, &server, "/boom.html").status, 500);
    assert_eq!(report.stats.errors.get("http_5xx"), Some(&1));
    assert_eq!(report.stats.errors.get("http_4xx"), Some(&1));
    assert_eq!(report.stats.skipped.content_type, 3, "json, png and pdf");
    // A 20 MB PDF is recorded from its headers; its body is not downloaded.
    let pdf = page(&report, &server, "/manual.pdf");
    assert_eq!((pdf.bytes, pdf.error.as_deref()), (20_000_000, None));
    for p in ["/latin1.html", "/bogus-charset.html"] {
        let pr = page(&report, &server, p);
        assert_eq!((pr.status, pr.error.as_deref()), (200, None));
    }
    // Every HTML page had a title, charset trouble or not.
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

#[tokio::test]
async fn depth_limit_stops_descent() {
    let server = serve("deep").await;
    let report = scanner()
        .max_depth(3)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(report.pages.len(), 4);
    assert_eq!(server.count("/level3.html"), 1);
    assert_eq!(gets(&server, "/level4.html"), 0);
    // No robots.txt (404) means everything is allowed.
    assert_eq!(server.count("/robots.txt"), 1);
    assert_eq!(report.stats.skipped.robots, 0);
    assert_eq!(report.stats.skipped.depth, 1);
    assert!(!report.stats.truncated);
}

#[tokio::test]
async fn sitemap_index_and_gzip_sitemaps_seed_the_crawl() {
    let server = serve("sitemaps").await;
    let report = scanner()
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    for p in ["/a.html", "/b.html", "/d.html"] {
        assert_eq!(page(&report, &server, p).status, 200);
    }
    assert_eq!(server.count("/hidden/c.html"), 0, "robots.txt disallows it");
    assert_eq!(report.stats.skipped.robots, 1);
    for file in [
        "/sitemap_index.xml",
        "/sitemap-pages.xml.gz",
        "/sitemap-more.xml",
        "/sitemap.xml",
    ] {
        assert_eq!(server.count(file), 1, "{file}");
    }
    assert_no_duplicates(&server);
}

#[tokio::test]
async fn robots_forbidding_everything_or_failing_stops_the_scan() {
    let server = serve("robots-forbid").await;
    match scanner().build().unwrap().scan(&server.url()).await {
        Err(e @ Error::RobotsDisallowed { .. }) => {
            assert!(e.to_string().contains("robots.txt"), "{e}")
        }
        other => panic!("expected robots refusal, got {other:?}"),
    }
    assert_eq!(server.paths(), vec!["/robots.txt"]);

    let server = serve("robots-5xx").await;
    match scanner()
        .retries(0)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
    {
        Err(e @ Error::Unreachable { .. }) => assert!(e.to_string().contains("503"), "{e}"),
        other => panic!("expected unreachable, got {other:?}"),
    }
    assert_eq!(server.paths(), vec!["/robots.txt"]);
}

#[tokio::test]
async fn stream_yields_pages_then_the_report_and_drop_cancels() {
    let server = serve("limits").await;
    let scanner = scanner().max_pages(3).build().unwrap();
    let events: Vec<ScanEvent> = scanner.scan_stream(&server.url()).collect().await;
    let pages = events
        .iter()
        .filter(|e| matches!(e, ScanEvent::Page(_)))
        .count();
    assert_eq!(pages, 3);
    let progress: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            ScanEvent::Progress(p) if p.phase == sitescan::Phase::Crawl => Some(p.pages_done),
            _ => None,
        })
        .collect();
    assert_eq!(progress, vec![1, 2, 3]);
    // Then the link phase and the end, each with the crawl's final counts.
    let after: Vec<(sitescan::Phase, u64)> = events
        .iter()
        .filter_map(|e| match e {
            ScanEvent::Progress(p) if p.phase != sitescan::Phase::Crawl => {
                Some((p.phase, p.pages_done))
            }
            _ => None,
        })
        .collect();
    assert_eq!(after.last(), Some(&(sitescan::Phase::Finish, 3)));
    assert!(after
        .iter()
        .all(|(phase, done)| *done == 3 && *phase != sitescan::Phase::Crawl));
    match events.last() {
        Some(ScanEvent::Finished(report)) => assert_eq!(report.pages.len(), 3),
        other => panic!("last event {other:?}"),
    }

    // Dropping the stream after the first page stops the crawl.
    let server = serve("limits").await;
    let slow = Scanner::builder()
        .allow_private(true)
        .rate_per_host(10.0)
        .build()
        .unwrap();
    let mut stream = Box::pin(slow.scan_stream(&server.url()));
    while let Some(e) = stream.next().await {
        if matches!(e, ScanEvent::Page(_)) {
            break;
        }
    }
    drop(stream);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let after_drop = server.requests().len();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        server.requests().len(),
        after_drop,
        "requests went on after the drop"
    );
    assert!(after_drop < 8, "{:?}", server.paths());
}

#[tokio::test]
async fn scanner_is_shared_across_tasks_and_invalid_config_is_refused() {
    fn assert_traits<T: Clone + Send + Sync + 'static>() {}
    assert_traits::<Scanner>();

    let a = serve("deep").await;
    let b = serve("limits").await;
    let scanner = scanner().max_pages(3).build().unwrap();
    let (ra, rb) = tokio::join!(
        tokio::spawn({
            let s = scanner.clone();
            let u = a.url();
            async move { s.scan(&u).await }
        }),
        tokio::spawn({
            let s = scanner.clone();
            let u = b.url();
            async move { s.scan(&u).await }
        })
    );
    assert_eq!(ra.unwrap().unwrap().pages.len(), 3);
    assert_eq!(rb.unwrap().unwrap().pages.len(), 3);

    for bad in [
        Scanner::builder().rules(&["nope"]).build(),
        Scanner::builder().exclude(&["("]).build(),
        Scanner::builder().max_pages(0).build(),
        Scanner::builder().concurrency(0).build(),
        Scanner::builder().rate_per_host(f64::NAN).build(),
        Scanner::builder().user_agent("bad\nagent").build(),
        Scanner::builder().retries(1000).build(),
        Scanner::builder().rate_per_host(-1.0).build(),
        Scanner::builder().max_body_bytes(0).build(),
    ] {
        assert!(matches!(bad, Err(Error::Config(_))), "{bad:?}");
    }
    let s = Scanner::builder().build().unwrap();
    assert!(matches!(
        s.scan("not a url").await,
        Err(Error::InvalidUrl { .. })
    ));
    assert!(matches!(
        s.scan("ftp://example.com/").await,
        Err(Error::InvalidUrl { .. })
    ));
}

#[tokio::test]
async fn generated_site_is_crawled_completely_once() {
    let dir = tempfile::tempdir().unwrap();
    generate_site(60, 42, dir.path()).unwrap();
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let report = scanner()
        .rules(&["document-title"])
        .max_pages(100)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(report.pages.len(), 60);
    assert!(report.pages.iter().all(|p| p.status == 200));
    assert_no_duplicates(&server);
    assert_eq!(
        server.count("/style.css"),
        1,
        "stylesheets are cached per scan"
    );
}

#[tokio::test]
async fn nofollow_and_meta_robots_are_recorded_and_honored() {
    let server = serve("nofollow").await;
    let report = scanner()
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(gets(&server, "/skip.html"), 0);
    assert_eq!(gets(&server, "/never.html"), 0);
    assert_eq!(page(&report, &server, "/").nofollow_links, 1);
    assert_eq!(
        page(&report, &server, "/follow.html")
            .meta_robots
            .as_deref(),
        Some("noindex, nofollow")
    );

    // Ignoring robots rules follows them all (for sites you own).
    let server = serve("nofollow").await;
    let report = scanner()
        .respect_robots(false)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(report.pages.len(), 4);
    // Read once for the robots-txt rule (which `all` selects), never obeyed.
    assert_eq!(server.count("/robots.txt"), 1);
    let server = serve("nofollow").await;
    scanner()
        .rules(&["document-title"])
        .respect_robots(false)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        server.count("/robots.txt"),
        0,
        "not even fetched when no rule reads it"
    );
}

#[tokio::test]
async fn every_rule_runs_on_every_fixture_page_without_crashing() {
    for site in ["basic", "errors", "redirects", "robots"] {
        let server = serve(site).await;
        let report = scanner()
            .rules(&["all"])
            .max_body_bytes(100_000)
            .build()
            .unwrap()
            .scan(&server.url())
            .await
            .unwrap();
        for p in &report.pages {
            assert!(p.rule_errors.is_empty(), "{site}: {:?}", p.rule_errors);
        }
        let selected = sitescan::rules::registry::select(&["all"])
            .unwrap()
            .ids()
            .len();
        assert_eq!(
            report.rules.len(),
            selected,
            "every selected rule is summarized"
        );
    }
}

#[tokio::test]
async fn a_start_page_redirecting_to_another_host_moves_the_scan_there() {
    let server = serve("redirects").await;
    let start = format!("http://localhost:{}/go", server.port());
    let report = scanner()
        .rules(&["document-title"])
        .build()
        .unwrap()
        .scan(&start)
        .await
        .unwrap();
    let first = &report.pages[0];
    assert_eq!(first.url, start);
    assert_eq!(first.final_url, server.url());
    // The index's links (now on 127.0.0.1) were crawled.
    assert_eq!(page(&report, &server, "/final.html").status, 200);
    let hosts: HashSet<String> = server
        .requests()
        .iter()
        .filter_map(|r| r.host.clone())
        .collect();
    assert!(hosts.contains(&format!("127.0.0.1:{}", server.port())));
    // robots.txt is read on both hosts, once each.
    assert_eq!(server.count("/robots.txt"), 2);
}

#[tokio::test]
async fn a_slow_page_times_out_as_a_page_error_not_a_failed_scan() {
    let server = serve("timeout").await;
    let report = scanner()
        .rules(&["document-title"])
        .timeout_ms(300)
        .retries(0)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let slow = page(&report, &server, "/slow.html");
    assert_eq!((slow.status, slow.error.as_deref()), (0, Some("timed out")));
    assert_eq!(report.stats.errors.get("timeout"), Some(&1));
    assert_eq!(page(&report, &server, "/fast.html").status, 200);
}

#[tokio::test]
async fn site_rules_run_after_the_crawl_over_in_scope_sitemap_urls() {
    let server = serve("basic").await;
    let report = scanner()
        .rules(&["orphan-page"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    // Listed in the sitemap, linked from nowhere; the sitemap's URL on another
    // host is not the site's and is not judged.
    let orphans: Vec<&str> = report
        .findings
        .iter()
        .map(|f| f.page_url.as_str())
        .collect();
    assert_eq!(orphans, vec![server.url_for("/from-sitemap.html")]);
    let rule = &report.rules[0];
    assert_eq!((rule.rule_id.as_str(), rule.failed), ("orphan-page", 1));
}

#[tokio::test]
async fn compressed_pages_are_decoded_and_counted_on_the_wire() {
    let server = serve("compressed").await;
    let report = scanner()
        .rules(&["text-compression"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let raw = std::fs::metadata(site_dir("compressed").join("index.html"))
        .unwrap()
        .len();
    let home = page(&report, &server, "/");
    assert!(home.bytes < raw / 4, "{} wire bytes for {raw}", home.bytes);
    // Decoded: its link was found and followed.
    assert_eq!(page(&report, &server, "/plain.html").status, 200);
    for r in server.requests() {
        assert_eq!(r.header("accept-encoding"), Some("gzip, deflate"));
    }
    // The rule saw Content-Encoding on the compressed page only.
    let failing: Vec<&str> = report
        .findings
        .iter()
        .map(|f| f.page_url.as_str())
        .collect();
    assert_eq!(failing, vec![server.url_for("/plain.html")]);
}

#[tokio::test]
async fn reports_list_pages_by_depth_then_url_so_rescans_match() {
    let server = serve("limits").await;
    // Timing-based rules (performance) could differ between runs; these cannot.
    let scanner = scanner()
        .rules(&["accessibility", "seo"])
        .concurrency(8)
        .build()
        .unwrap();
    let a = scanner.scan(&server.url()).await.unwrap();
    let b = scanner.scan(&server.url()).await.unwrap();
    let urls = |r: &Report| r.pages.iter().map(|p| p.url.clone()).collect::<Vec<_>>();
    assert_eq!(urls(&a), urls(&b));
    assert_eq!(a.pages[0].url, server.url());
    assert!(a
        .pages
        .windows(2)
        .all(|w| (w[0].depth, &w[0].url) <= (w[1].depth, &w[1].url)));
    assert_eq!(a.findings, b.findings);
}
