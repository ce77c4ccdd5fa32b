//! Site-level checks that need the network, end to end: link and resource
//! statuses (HEAD, GET where HEAD is refused, cached, polite) and the security grade.

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
    // The crawled 404 is not fetched again; the external one gets HEAD alone
    // (a 404 to HEAD is believed); a subresource gets the one GET that also
    // records its facts.
    assert_eq!(server.count("/missing.html"), 1);
    assert_eq!(server.count("/external-gone"), 1);
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

/// A site whose page links to, and loads an image from, another loopback server
/// (`other`): the pages of a `links` scope test.
fn site_linking_to(other: &FixtureServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let o = other.origin();
    std::fs::write(
        dir.path().join("index.html"),
        format!(
            r#"<!DOCTYPE html>
<html lang="en"><head><title>Links scope</title></head><body>
<p><a href="/here.html">A page of this site</a></p>
<p><a href="{o}/ok.html">Another site's page</a></p>
<p><a href="{o}/external-gone">Another site's missing page</a></p>
<img src="{o}/img/logo.svg" alt="Logo" width="10" height="10">
</body></html>"#
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("here.html"),
        r#"<!DOCTYPE html><html lang="en"><head><title>Here</title></head><body><p><a href="/gone.html">gone</a></p></body></html>"#,
    )
    .unwrap();
    dir
}

/// `links: internal` sends nothing to other hosts and says so in the stats and
/// notes; `all` checks them; the site's own broken links are found either way.
#[tokio::test]
async fn the_links_setting_leaves_other_sites_unchecked_and_counts_them() {
    use sitescan::LinkScope;
    let other = FixtureServer::start(site_dir("links")).await.unwrap();
    let dir = site_linking_to(&other);
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let url = server.url();
    let scan = |links: LinkScope| {
        let scanner = Scanner::builder()
            .allow_private(true)
            .rate_per_host(200.0)
            .rules(&["broken-links", "broken-resources", "total-byte-weight"])
            .links(links)
            .build()
            .unwrap();
        let url = url.clone();
        async move { scanner.scan(&url).await }
    };
    let broken = |report: &sitescan::Report| -> Vec<String> {
        let mut v: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.rule_id.starts_with("broken-"))
            .map(|f| f.message.clone())
            .collect();
        v.sort();
        v
    };
    let o = other.origin();
    let gone = format!(
        "The link to {}/gone.html is broken: it answers 404.",
        server.origin()
    );

    let report = scan(LinkScope::All).await.unwrap();
    let mut expected = vec![
        format!("The link to {o}/external-gone is broken: it answers 404."),
        gone.clone(),
    ];
    expected.sort();
    assert_eq!(broken(&report), expected);
    assert_eq!(other.count("/ok.html"), 1, "HEAD");
    assert_eq!(other.count("/img/logo.svg"), 1, "one GET for its facts");
    assert_eq!(report.stats.skipped.links, 0);

    other.clear();
    let report = scan(LinkScope::Internal).await.unwrap();
    assert_eq!(other.requests().len(), 0, "{:?}", other.paths());
    assert_eq!(broken(&report), vec![gone.clone()]);
    assert_eq!(report.stats.skipped.links, 3);
    assert_eq!(report.config.links, LinkScope::Internal);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n == "3 link/resource URLs on other sites were not checked (links: internal)"),
        "{:?}",
        report.notes
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["stats"]["skipped"]["links"], 3);
    assert_eq!(json["config"]["links"], "internal");

    // `none`: the crawl's own 404 is still known; nothing else is requested.
    server.clear();
    let report = scan(LinkScope::None).await.unwrap();
    assert_eq!(other.requests().len(), 0);
    assert_eq!(broken(&report), vec![gone]);
    assert_eq!(report.stats.skipped.links, 3);
    assert_eq!(server.count("/gone.html"), 1, "fetched once, by the crawl");
}
