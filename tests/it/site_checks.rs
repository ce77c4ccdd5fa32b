//! Site-level checks that need the network, end to end: link and resource
//! statuses (HEAD with GET fallback, cached, polite) and the security grade.

use sitescan::rules::Outcome;
use sitescan::Scanner;
use sitescan_fixtures::{site_dir, FixtureServer};

#[tokio::test]
async fn broken_links_and_resources_are_found_once_each() {
    let server = FixtureServer::start(site_dir("links")).await.unwrap();
    let report = Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["broken-links", "broken-resources", "security"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let origin = server.origin();
    let localhost = format!("http://localhost:{}", server.port());
    let mut got: Vec<(String, String, Outcome)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id.starts_with("broken-"))
        .map(|f| (f.rule_id.clone(), f.message.clone(), f.outcome))
        .collect();
    // Sorted by message: 127.0.0.1 before localhost, links before resources.
    got.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        got,
        vec![
            (
                "broken-links".to_string(),
                format!("The link to {origin}/missing.html is broken: it answers 404."),
                Outcome::Failed
            ),
            (
                "broken-links".to_string(),
                format!("The link to {localhost}/external-gone is broken: it answers 404."),
                Outcome::Failed
            ),
            (
                "broken-resources".to_string(),
                format!("The resource {origin}/img/missing.webp is broken: it answers 404."),
                Outcome::Failed
            ),
        ]
    );
    // The crawled 404 is not fetched again; the external one gets HEAD, then GET;
    // a subresource gets the one GET that also records its facts.
    assert_eq!(server.count("/missing.html"), 1);
    assert_eq!(server.count("/external-gone"), 2);
    assert_eq!(server.count("/img/missing.webp"), 1);
    // Served over plain HTTP without security headers: the grade is low but present.
    let security = &report.summary[&sitescan::rules::Category::Security];
    assert_eq!(security.grade.as_deref(), Some("F"));
    assert_eq!(security.grade_score, Some(10));
}

/// Readability judges English text only: the pages it skipped are named in a note,
/// never silently passed.
#[tokio::test]
async fn readability_notes_the_pages_it_skipped() {
    let server = FixtureServer::start(site_dir("errors")).await.unwrap();
    let report = Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["readability"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let notes: Vec<&String> = report
        .notes
        .iter()
        .filter(|n| n.starts_with("readability"))
        .collect();
    // latin1.html is French; the other pages are English or not HTML.
    let o = server.origin();
    assert_eq!(
        notes,
        vec![&format!("readability was not checked on 1 page(s) not declared as English in <html lang> (such as {o}/latin1.html, lang=\"fr\"): its formulas are calibrated for English text only")]
    );
    assert!(report
        .findings
        .iter()
        .all(|f| !f.page_url.ends_with("/latin1.html")));
}

/// A redirect loop and a page slower than the timeout are findings of
/// `unreachable-page`, on the URL that was requested.
#[tokio::test]
async fn timeouts_and_redirect_loops_are_unreachable_pages() {
    let found = |report: &sitescan::Report| -> Vec<(String, String)> {
        report
            .findings
            .iter()
            .map(|f| (f.page_url.clone(), f.message.clone()))
            .collect()
    };
    let server = FixtureServer::start(site_dir("redirects")).await.unwrap();
    let report = Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["unreachable-page"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        found(&report),
        vec![(
            server.url_for("/loop-a"),
            "The page could not be fetched: redirect loop.".to_string()
        )]
    );

    let server = FixtureServer::start(site_dir("timeout")).await.unwrap();
    let report = Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["unreachable-page"])
        .timeout_ms(300)
        .retries(0)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        found(&report),
        vec![(
            server.url_for("/slow.html"),
            "The page could not be fetched: timed out.".to_string()
        )]
    );
}
