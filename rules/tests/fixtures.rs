//! Fixture pages and sites under `fixtures/sites/` (repository root):
//!
//! - `clean/`: one page (plus its `_headers`) that every page rule of every
//!   category must pass — zero findings, no rule errors;
//! - `seo-site/`: a small crawl (`site.json`) whose site-rule findings must equal
//!   `expect.json` exactly (no missing, no extra finding). Regenerate with
//!   `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test fixtures` and review the diff.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sitescan_rules::site::{analyze_site, PageSummary, SiteInput};
use sitescan_rules::{analyze, registry, Category, Page, PageContext};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sites")
}

/// The headers the fixture server sends for `path`, read from the site's
/// `_headers` by the server's own parser (status and directives such as
/// `Delay-Ms` are the server's business, not headers).
fn headers_for(dir: &Path, path: &str) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("_headers")) else {
        return Vec::new();
    };
    let file = sitescan_fixtures::headers::HeadersFile::parse(&text).expect("a valid _headers");
    file.rule_for(path)
        .map(|rule| rule.headers.clone())
        .unwrap_or_default()
}

#[test]
fn clean_page_has_no_findings_in_any_category() {
    let dir = fixtures().join("clean");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    let mut page = Page::from_html("https://www.example.com/", &html);
    page.headers.clear();
    for (k, v) in headers_for(&dir, "/") {
        page = page.with_header(&k, &v);
    }
    page.http_version = "HTTP/2".into();
    page.ttfb_ms = 80;
    page.total_ms = 120;
    let analysis = analyze(&page, registry::page_rules());
    assert!(analysis.errors.is_empty(), "{:#?}", analysis.errors);
    assert!(
        analysis.findings.is_empty(),
        "the clean page has findings:\n{:#?}",
        analysis.findings
    );
    // Every category ran and applied somewhere on the page.
    for category in Category::ALL {
        let applied = analysis.tallies.iter().any(|t| {
            !t.inapplicable() && registry::meta(&t.rule_id).is_some_and(|m| m.category == category)
        });
        assert!(applied, "no {category} rule applied to the clean page");
    }
    let score = sitescan_rules::security::grade::page_score(&PageContext::parse(&page));
    assert_eq!(score.grade, "A+", "{:#?}", score.tests);
}

#[derive(Deserialize)]
struct SiteFile {
    start_url: String,
    sitemap: Vec<String>,
    pages: Vec<SitePage>,
}

#[derive(Deserialize)]
struct SitePage {
    /// The page's HTML; absent for a URL whose fetch failed (`error`).
    #[serde(default)]
    file: Option<String>,
    url: String,
    #[serde(default)]
    final_url: Option<String>,
    depth: u32,
    /// The fetch error of a URL that gave no answer, as the crawl records it.
    #[serde(default)]
    error: Option<String>,
}

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Expected {
    rule_id: String,
    page_url: String,
    message: String,
}

#[test]
fn seo_site_has_exactly_the_expected_site_findings() {
    let dir = fixtures().join("seo-site");
    let site: SiteFile =
        serde_json::from_str(&std::fs::read_to_string(dir.join("site.json")).unwrap()).unwrap();
    let mut input = SiteInput {
        start_url: site.start_url,
        pages: Vec::new(),
        sitemap_urls: site.sitemap,
        ..SiteInput::default()
    };
    for p in &site.pages {
        let Some(file) = &p.file else {
            input.pages.push(PageSummary {
                url: p.url.as_str().into(),
                final_url: p.url.as_str().into(),
                depth: p.depth,
                fetch_error: p.error.clone(),
                ..PageSummary::default()
            });
            continue;
        };
        let html = std::fs::read_to_string(dir.join(file)).unwrap();
        let mut page = Page::from_html(p.final_url.as_deref().unwrap_or(&p.url), &html);
        page.url = url::Url::parse(&p.url).unwrap();
        page.depth = p.depth;
        input
            .pages
            .push(PageSummary::of(&PageContext::parse(&page)));
    }
    let (_, findings, errors) = analyze_site(&input, registry::site_rules());
    assert!(errors.is_empty(), "{errors:#?}");
    let got: Vec<Expected> = findings
        .into_iter()
        .map(|f| Expected {
            rule_id: f.rule_id,
            page_url: f.page_url,
            message: f.message,
        })
        .collect();
    let expect_path = dir.join("expect.json");
    if std::env::var_os("SITESCAN_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&got).unwrap();
        std::fs::write(&expect_path, text + "\n").unwrap();
        return;
    }
    let expected: Vec<Expected> =
        serde_json::from_str(&std::fs::read_to_string(&expect_path).unwrap()).unwrap();
    let missing: Vec<&Expected> = expected.iter().filter(|e| !got.contains(e)).collect();
    let extra: Vec<&Expected> = got.iter().filter(|g| !expected.contains(g)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "site findings differ from expect.json\nmissing: {missing:#?}\nextra: {extra:#?}"
    );
}

/// With Debian's real `en_US` dictionary, the clean page has no spelling findings
/// and a typo is found. `scripts/test` installs `hunspell-en-us`; without it
/// this fails unless missing tools are allowed (`SITESCAN_ALLOW_MISSING`).
#[test]
fn spelling_with_the_system_dictionary() {
    use sitescan_rules::quality::spelling::{install_dictionary, Spelling};
    let dir = Path::new("/usr/share/hunspell");
    let (aff, dic) = match (
        std::fs::read_to_string(dir.join("en_US.aff")),
        std::fs::read(dir.join("en_US.dic")),
    ) {
        (Ok(a), Ok(d)) => (a, String::from_utf8_lossy(&d).into_owned()),
        _ => {
            sitescan_fixtures::missing(
                "spelling_with_the_system_dictionary",
                "the dictionary /usr/share/hunspell/en_US.{aff,dic}",
                "apt-get install hunspell-en-us",
            );
            return;
        }
    };
    install_dictionary(&aff, &dic).unwrap();
    let html = std::fs::read_to_string(fixtures().join("clean/index.html")).unwrap();
    let clean = Page::from_html("https://www.example.com/", &html);
    let a = analyze(&clean, &[&Spelling]);
    assert!(a.findings.is_empty(), "{:#?}", a.findings);
    assert!(a.tallies[0].passed > 5);
    let typo = Page::from_html(
        "https://www.example.com/",
        "<html lang=\"en\"><body><p>Your order was recieved and will ship tomorow.</p></body></html>",
    );
    let a = analyze(&typo, &[&Spelling]);
    assert_eq!(a.findings.len(), 1);
    assert_eq!(
        a.findings[0].message,
        "Possible spelling mistakes: recieved, tomorow."
    );
}
