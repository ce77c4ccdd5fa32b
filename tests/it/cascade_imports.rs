//! `@import` in `<style>` elements and the layer order `@layer` statements
//! fix ahead of an `@import … layer()`, over the network: the imported
//! sheets are fetched once per scan through the scan's stylesheet path, and
//! the colours they give decide `color-contrast`'s exact findings.

use sitescan::rules::Outcome;

use crate::cascade::{contrast, page, scan_contrast, serve, sheet_stats};

fn failed(path: &str, selector: &str, text: &str) -> (String, Outcome, String, String) {
    (
        path.to_string(),
        Outcome::Failed,
        selector.to_string(),
        format!("Contrast of \"{text}\" is 2.85:1, below 4.5:1."),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_in_style_elements_are_followed_once_per_scan_before_the_element() {
    // Both pages carry the same `<style>`: its import is fetched once. The
    // element's own `.ok` rule comes after the imported sheet's, so it wins;
    // the imported `.note` colour is what fails. A print-only `<style>`'s
    // import is not fetched.
    let style = "<style>@import url(\"css/colors.css\");\n.ok { color: #111111 }</style>\
                 <style media=\"print\">@import url(/css/print.css);</style>";
    let (_dir, server) = serve(&[
        (
            "index.html",
            &page(
                "Home",
                style,
                r#"<p class="note">Faint note on the home page.</p><p class="ok">Dark text.</p><a href="/second.html">Second</a>"#,
            ),
        ),
        (
            "second.html",
            &page(
                "Second",
                style,
                r#"<p class="note">Faint note on the second page.</p><a href="/">Home</a>"#,
            ),
        ),
        (
            "css/colors.css",
            "@import url(base.css);\n.note { color: #999999 }\n.ok { color: #eeeeee }\n",
        ),
        (
            "css/base.css",
            "body { background: #ffffff; color: #222222 }\n",
        ),
        ("css/print.css", ".note { color: #eeeeee }\n"),
    ])
    .await;
    let report = scan_contrast(&server).await;
    assert_eq!(
        contrast(&report, &server),
        vec![
            failed(
                "/",
                "html > body > main > p:nth-child(2)",
                "Faint note on the home page."
            ),
            failed(
                "/second.html",
                "html > body > main > p",
                "Faint note on the second page."
            ),
        ]
    );
    for path in ["/css/colors.css", "/css/base.css"] {
        assert_eq!(server.count(path), 1, "{path}: {:?}", server.paths());
    }
    assert_eq!(server.count("/css/print.css"), 0, "{:?}", server.paths());
    assert_eq!(sheet_stats(&report), (2, 2, 0));
    assert_eq!(report.pages.len(), 2);
    assert!(report.pages.iter().all(|p| p.incomplete.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_import_in_a_style_element_says_so_and_cannot_tell() {
    // robots.txt keeps the scan from the sheet (a browser would load it).
    let (_dir, server) = serve(&[
        (
            "index.html",
            &page(
                "Home",
                "<style>@import url(/css/private/colors.css);\np { color: #000 }</style>",
                "<p>Body text.</p>",
            ),
        ),
        ("css/private/colors.css", "p { color: #999999 }\n"),
        ("robots.txt", "User-agent: *\nDisallow: /css/private/\n"),
    ])
    .await;
    let report = scan_contrast(&server).await;
    let private = server.url_for("/css/private/colors.css");
    let why = format!("the stylesheet {private} could not be loaded (robots.txt disallows it)");
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
    assert_eq!(contrast(&report, &server), expected);
    assert_eq!(server.count("/css/private/colors.css"), 0);
    assert_eq!(sheet_stats(&report), (0, 0, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layer_statements_before_an_import_fix_the_layer_order() {
    // `@layer a, b;` puts b after a whatever comes first later: the layer
    // `@import … layer(b)` fills wins over a, though its sheet is met (in
    // cascade order) before a's rules. In a linked sheet and in a `<style>`.
    let (_dir, server) = serve(&[
        (
            "index.html",
            &page(
                "Home",
                r#"<link rel="stylesheet" href="/css/main.css">"#,
                r#"<p class="note">Faint note in a linked sheet's layer.</p><p class="plain">Plain text.</p><a href="/inline.html">Inline</a>"#,
            ),
        ),
        (
            "inline.html",
            &page(
                "Inline",
                "<style>@layer x, y;\n@import url(/css/y.css) layer(y);\n\
                 @layer x { .note { color: #000000 } }\nbody { background: #ffffff }</style>",
                r#"<p class="note">Faint note in a style element's layer.</p><a href="/">Home</a>"#,
            ),
        ),
        (
            "css/main.css",
            "@layer a, b;\n@import url(b.css) layer(b);\n\
             @layer a { .note { color: #000000 } .plain { color: #999999 } }\n\
             body { background: #ffffff }\n.plain { color: #111111 }\n",
        ),
        ("css/b.css", ".note { color: #999999 }\n"),
        ("css/y.css", ".note { color: #999999 }\n"),
    ])
    .await;
    let report = scan_contrast(&server).await;
    assert_eq!(
        contrast(&report, &server),
        vec![
            failed(
                "/",
                "html > body > main > p:nth-child(2)",
                "Faint note in a linked sheet's layer."
            ),
            failed(
                "/inline.html",
                "html > body > main > p",
                "Faint note in a style element's layer."
            ),
        ]
    );
    for path in ["/css/main.css", "/css/b.css", "/css/y.css"] {
        assert_eq!(server.count(path), 1, "{path}: {:?}", server.paths());
    }
    assert_eq!(sheet_stats(&report), (3, 2, 0));
}
