//! The reflow and zoomed text rules against the page laid out by a real
//! Chromium at 320 and 640 CSS pixels wide (render mode), and against the
//! cascade's estimates (the page as served), on one fixture page served on
//! 127.0.0.1. Each rule's exact findings differ between the two scans where
//! only a layout can tell, so a rule ignoring the measured layout fails here.

use std::time::Duration;

use sitescan::browser::{configure, LaunchOptions};
use sitescan::Scanner;

use crate::render_layout::{findings, serve};

const LONG: &str = "Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible.";

const POEM: &str = "Once upon a midnight dreary, while I pondered, weak and weary, Over many a quaint and curious volume of forgotten lore. While I nodded, nearly napping, suddenly there came a tapping.";

/// A fixed-width box (too wide at 320 pixels in both scans), one the cascade
/// thinks too wide but a transform shrinks, text kept on one line (only a
/// layout sees it run past the edge), a data table (allowed to scroll), a
/// box clipping its text at `height: 1em` (both scans), one whose height
/// equals its line height (one line by design, as ACT 59br37 passes it, in
/// both scans), one sized by a custom property nobody sets (the cascade
/// cannot tell; the browser sizes it to fit), and one a resize handler
/// shrinks to `1em` at narrow widths (only the browser sees it cut).
fn page() -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><title>Reflow</title></head><body>
<div id="fixed" style="width: 1000px">{LONG}</div>
<div id="scaled" style="width: 1000px; transform: scale(0.25); transform-origin: 0 0">{LONG}</div>
<p id="nowrap" style="white-space: nowrap">{LONG}</p>
<table id="data" style="width: 700px"><tr><th>Name</th><th>Value</th></tr><tr><td>Alpha</td><td>1</td></tr></table>
<div id="clipped" style="overflow: hidden; height: 1em; font-size: 16px">{POEM}</div>
<div id="one-line" style="overflow: hidden; height: 1.2em; line-height: 1.2em">{LONG}</div>
<div id="roomy" style="overflow: hidden; height: var(--unset)">Short</div>
<div id="shrinks" style="overflow: hidden">{LONG}</div>
<script>addEventListener('resize', () => {{ document.getElementById('shrinks').style.height = innerWidth < 700 ? '1em' : ''; }});</script>
</body></html>"#
    )
}

fn f(rule: &str, outcome: &'static str, selector: &str) -> (String, &'static str, String) {
    (rule.to_string(), outcome, selector.to_string())
}

#[tokio::test]
async fn reflow_and_zoomed_text_use_the_browsers_narrow_layouts() {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(10),
        ..LaunchOptions::from_env()
    });
    let html = page();
    let (port, _stop) = serve(&[("/", html.as_str())]).await;
    let url = format!("http://127.0.0.1:{port}/");
    let mut out = Vec::new();
    for render in [false, true] {
        let report = Scanner::builder()
            .rules(&["reflow", "zoomed-text-clipped"])
            .allow_private(true)
            .rate_per_host(200.0)
            .max_pages(1)
            .render(render)
            .build()
            .unwrap()
            .scan(&url)
            .await
            .unwrap();
        assert!(
            report.pages.iter().all(|p| p.error.is_none()),
            "{:?}",
            report.pages
        );
        out.push(findings(&report));
    }
    assert_eq!(
        out[0],
        vec![
            f("reflow", "failed", "#fixed"),
            f("reflow", "failed", "#scaled"),
            f("zoomed-text-clipped", "cant-tell", "#roomy"),
            f("zoomed-text-clipped", "failed", "#clipped"),
        ],
        "as served"
    );
    assert_eq!(
        out[1],
        vec![
            f("reflow", "failed", "#fixed"),
            f("reflow", "failed", "#nowrap"),
            f("zoomed-text-clipped", "failed", "#clipped"),
            f("zoomed-text-clipped", "failed", "#shrinks"),
        ],
        "rendered"
    );
}

/// A page that fits 320 pixels passes in render mode although the cascade
/// sees a fixed width wider than that: a script narrows it.
#[tokio::test]
async fn a_page_a_script_makes_fit_passes_rendered() {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(10),
        ..LaunchOptions::from_env()
    });
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Fits</title></head><body>
<div id="col" style="width: 900px">{LONG}</div>
<script>addEventListener('resize', () => {{ document.getElementById('col').style.width = innerWidth < 600 ? 'auto' : '900px'; }});</script>
</body></html>"#
    );
    let (port, _stop) = serve(&[("/", html.as_str())]).await;
    let url = format!("http://127.0.0.1:{port}/");
    let mut got = Vec::new();
    for render in [false, true] {
        let report = Scanner::builder()
            .rules(&["reflow"])
            .allow_private(true)
            .rate_per_host(200.0)
            .max_pages(1)
            .render(render)
            .build()
            .unwrap()
            .scan(&url)
            .await
            .unwrap();
        let tally = report
            .rules
            .iter()
            .find(|t| t.rule_id == "reflow")
            .map(|t| (t.passed, t.failed));
        got.push((findings(&report), tally));
    }
    assert_eq!(got[0].0, vec![f("reflow", "failed", "#col")]);
    assert_eq!(got[1].0, vec![]);
    assert_eq!(got[1].1, Some((1, 0)), "the rendered page passes");
}
