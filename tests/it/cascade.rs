//! The cascade a browser applies, over the network: a site whose colours
//! live behind `@import` chains is judged by the imported sheets (fetched
//! once per scan, in cascade order, print-only ones not at all), and a page
//! whose sheets could not all be loaded says so and leaves its contrast
//! undecided.

use sitescan::rules::Outcome;
use sitescan::{Report, Scanner};
use sitescan_fixtures::FixtureServer;

pub(crate) fn page(title: &str, head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title>{head}</head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    )
}

/// `color-contrast` findings as `(path, outcome, selector, message)`, sorted.
pub(crate) fn contrast(
    report: &Report,
    server: &FixtureServer,
) -> Vec<(String, Outcome, String, String)> {
    let base = server.url_for("/");
    let mut out: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "color-contrast")
        .map(|f| {
            (
                format!("/{}", f.page_url.trim_start_matches(&base)),
                f.outcome,
                f.selector.clone(),
                f.message.clone(),
            )
        })
        .collect();
    out.sort_by(|a, b| (&a.0, &a.2).cmp(&(&b.0, &b.2)));
    out
}

/// A site of `files` (path, text) in a temporary directory, served.
pub(crate) async fn serve(files: &[(&str, &str)]) -> (tempfile::TempDir, FixtureServer) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let server = FixtureServer::start(dir.path()).await.unwrap();
    (dir, server)
}

/// A scan of the served site with `color-contrast` alone.
pub(crate) async fn scan_contrast(server: &FixtureServer) -> Report {
    Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(&["color-contrast"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap()
}

/// The scan's stylesheet counts: (fetched, of them imported, failed).
pub(crate) fn sheet_stats(report: &Report) -> (u64, u64, u64) {
    (
        report.stats.stylesheets,
        report.stats.stylesheets_imported,
        report.stats.stylesheets_failed,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colours_behind_imports_are_applied_and_each_import_is_fetched_once() {
    let head = r#"<link rel="stylesheet" href="/css/theme.css">"#;
    let home = page(
        "Home",
        head,
        r#"<p class="note">Faint note on the home page.</p><p>Body text.</p><a href="/second.html">Second</a>"#,
    );
    let second = page(
        "Second",
        head,
        r#"<p class="note">Faint note on the second page.</p><p class="ok">Dark text.</p><a href="/">Home</a>"#,
    );
    let (_dir, server) = serve(&[
        ("index.html", &home),
        ("second.html", &second),
        // The theme holds no colour itself: they are two imports down, as
        // Sphinx and many CMS themes chain them.
        (
            "css/theme.css",
            "@import url(colors.css);\n@import url(print.css) print;\n",
        ),
        (
            "css/colors.css",
            "@import url(\"base.css\");\n.note { color: #999999 }\n",
        ),
        (
            "css/base.css",
            "body { background: #ffffff; color: #222222 }\n.note { color: #000000 }\n.ok { color: #111111 }\n",
        ),
        ("css/print.css", ".note { color: #eeeeee }\n"),
    ])
    .await;
    let report = scan_contrast(&server).await;
    let message = |page: &str| {
        format!("Contrast of \"Faint note on the {page} page.\" is 2.85:1, below 4.5:1.")
    };
    assert_eq!(
        contrast(&report, &server),
        vec![
            (
                "/".to_string(),
                Outcome::Failed,
                "html > body > main > p:nth-child(2)".to_string(),
                message("home")
            ),
            (
                "/second.html".to_string(),
                Outcome::Failed,
                "html > body > main > p:nth-child(2)".to_string(),
                message("second")
            ),
        ]
    );
    for path in ["/css/theme.css", "/css/colors.css", "/css/base.css"] {
        assert_eq!(server.count(path), 1, "{path}: {:?}", server.paths());
    }
    assert_eq!(server.count("/css/print.css"), 0);
    assert_eq!(sheet_stats(&report), (3, 2, 0));
    assert!(report.pages.iter().all(|p| p.incomplete.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_whose_imported_sheet_fails_says_so_and_cannot_tell() {
    let home = page(
        "Home",
        r#"<link rel="stylesheet" href="/css/theme.css">"#,
        "<p>Body text.</p>",
    );
    let (_dir, server) = serve(&[
        ("index.html", &home),
        // One import answers 404 (browsers miss it too), the other robots.txt
        // keeps the scan from (browsers would load it).
        (
            "css/theme.css",
            "@import url(gone.css);\n@import url(private/colors.css);\np { color: #000 }\n",
        ),
        ("robots.txt", "User-agent: *\nDisallow: /css/private/\n"),
    ])
    .await;
    let report = scan_contrast(&server).await;
    let gone = server.url_for("/css/gone.css");
    let private = server.url_for("/css/private/colors.css");
    let why = format!("the stylesheet {private} could not be loaded (robots.txt disallows it)");
    let found = contrast(&report, &server);
    let expected: Vec<(String, Outcome, String, String)> =
        ["html > body > main > h1", "html > body > main > p"]
            .iter()
            .map(|s| {
                (
                    "/".to_string(),
                    Outcome::CantTell,
                    s.to_string(),
                    format!("Contrast needs review: {why}."),
                )
            })
            .collect();
    assert_eq!(found, expected);
    assert_eq!(
        report.pages[0].incomplete.as_deref(),
        Some(format!("2 stylesheets of the page could not be loaded: {gone} (HTTP 404, for browsers too), {private} (robots.txt disallows it); styles were computed without them, so rules built on the cascade (color-contrast and others) report cannot tell where they could change the answer").as_str())
    );
    assert_eq!(server.count("/css/gone.css"), 1);
    assert_eq!(server.count("/css/private/colors.css"), 0);
    assert_eq!(sheet_stats(&report), (2, 1, 1));
    assert!(
        report
            .notes
            .contains(&"color-contrast: 0 element(s) decided (passed or failed), 2 cannot tell: 2 styles-incomplete".to_string()),
        "{:?}",
        report.notes
    );
}
