//! Rules that prefer the browser's facts (computed styles, boxes, blended
//! backgrounds, the open modal dialog, shadow roots) in render mode, each page
//! scanned twice on 127.0.0.1: as served (the cascade's estimate) and
//! rendered in a real Chromium (what the browser measured). The exact
//! findings of both scans are asserted, so a rule that ignored the facts
//! would keep its static answer and fail here.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sitescan::browser::{configure, LaunchOptions};
use sitescan::rules::Outcome;
use sitescan::{Report, Scanner};

/// Serves `pages` (path → HTML) on 127.0.0.1, 404 otherwise.
pub(crate) async fn serve(pages: &[(&str, &str)]) -> (u16, tokio::sync::oneshot::Sender<()>) {
    let pages: Arc<HashMap<String, String>> = Arc::new(
        pages
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect(),
    );
    let app = axum::Router::new().fallback(answer).with_state(pages);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await
            .unwrap();
    });
    (port, tx)
}

async fn answer(State(pages): State<Arc<HashMap<String, String>>>, req: Request) -> Response {
    match pages.get(req.uri().path()) {
        Some(html) => {
            ([("content-type", "text/html; charset=utf-8")], html.clone()).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `(rule, outcome, selector)` of every finding, sorted.
pub(crate) fn findings(report: &Report) -> Vec<(String, &'static str, String)> {
    let mut out: Vec<(String, &'static str, String)> = report
        .findings
        .iter()
        .map(|f| {
            let outcome = match f.outcome {
                Outcome::Failed => "failed",
                Outcome::CantTell => "cant-tell",
                _ => "other",
            };
            (f.rule_id.clone(), outcome, f.selector.clone())
        })
        .collect();
    out.sort();
    out
}

/// Scans the page at `/` of a site serving `html`, as served then rendered,
/// with only `rule`; answers both scans' findings.
async fn both(rule: &str, html: &str) -> [Vec<(String, &'static str, String)>; 2] {
    let [served, rendered] = both_reports(rule, html).await;
    [findings(&served), findings(&rendered)]
}

/// [`both`], answering the two reports.
async fn both_reports(rule: &str, html: &str) -> [Report; 2] {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(10),
        ..LaunchOptions::from_env()
    });
    let (port, _stop) = serve(&[("/", html)]).await;
    let url = format!("http://127.0.0.1:{port}/");
    let mut out = Vec::new();
    for render in [false, true] {
        let report = Scanner::builder()
            .rules(&[rule])
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
        out.push(report);
    }
    [out.remove(0), out.remove(0)]
}

fn f(rule: &str, outcome: &'static str, selector: &str) -> (String, &'static str, String) {
    (rule.to_string(), outcome, selector.to_string())
}

const LONG: &str = "Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible. Following these guidelines will make content more accessible to a wider range of people with disabilities.";

/// A height a script sets through a custom property: the static scan cannot
/// resolve it (cannot tell for both regions); the browser measures that one
/// region's content overflows and the other's does not.
#[tokio::test]
async fn scrollable_region_uses_the_browsers_scroll_sizes() {
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Regions</title></head><body>
<section id="long" style="width: 200px; height: var(--h); overflow-y: auto"><p>{LONG}</p></section>
<section id="short" style="width: 400px; height: var(--h); overflow-y: auto"><p>Hi</p></section>
<script>document.documentElement.style.setProperty('--h', '50px')</script>
</body></html>"#
    );
    let [served, rendered] = both("scrollable-region-focusable", &html).await;
    assert_eq!(
        served,
        vec![
            f("scrollable-region-focusable", "cant-tell", "#long"),
            f("scrollable-region-focusable", "cant-tell", "#short"),
        ]
    );
    assert_eq!(
        rendered,
        vec![f("scrollable-region-focusable", "failed", "#long")]
    );
}

/// Colours the cascade cannot compute (`calc()` inside `rgb()`): cannot tell
/// as served; the browser's computed colour over its blended background
/// fails the pale text and passes the dark one.
#[tokio::test]
async fn color_contrast_uses_the_browsers_colours() {
    let html = r#"<!doctype html><html lang="en"><head><title>Colours</title></head><body style="background: #fff">
<p id="pale" style="color: rgb(calc(100 + 100) 200 200)">Pale text on white</p>
<p id="dark" style="color: rgb(calc(5 + 5) 10 10)">Dark text on white</p>
</body></html>"#;
    let [served, rendered] = both("color-contrast", html).await;
    assert_eq!(
        served,
        vec![
            f("color-contrast", "cant-tell", "#dark"),
            f("color-contrast", "cant-tell", "#pale"),
        ]
    );
    assert_eq!(rendered, vec![f("color-contrast", "failed", "#pale")]);
}

/// Text a script puts in a shadow root: not in the served HTML; in the
/// rendered page's flat tree, with the host's colours.
#[tokio::test]
async fn text_in_a_shadow_root_is_checked() {
    let html = r#"<!doctype html><html lang="en"><head><title>Shadow</title></head><body>
<p id="host" style="color: #aaa; background: #fff"></p>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).textContent = 'Some text in English'</script>
</body></html>"#;
    let [served, rendered] = both("color-contrast", html).await;
    assert_eq!(served, vec![]);
    assert_eq!(rendered, vec![f("color-contrast", "failed", "#host")]);
}

/// A modal dialog opened on load makes the rest of the page inert: the
/// frame taken out of the tab order is no failure while it is open.
#[tokio::test]
async fn an_open_modal_dialog_makes_the_rest_inert() {
    let html = r#"<!doctype html><html lang="en"><head><title>Modal</title></head><body>
<iframe id="frame" tabindex="-1" title="Links" srcdoc="<a href='/'>Home</a>"></iframe>
<dialog id="d"><p>We store no data.</p><button>Close</button></dialog>
<script>document.getElementById('d').showModal()</script>
</body></html>"#;
    let [served, rendered] = both("frame-focusable-content", html).await;
    assert_eq!(
        served,
        vec![f("frame-focusable-content", "failed", "#frame")]
    );
    assert_eq!(rendered, vec![]);
}

/// A control sized through a custom property a script sets: cannot tell as
/// served; the browser's box fails the small one and passes the large one.
#[tokio::test]
async fn target_size_uses_the_browsers_boxes() {
    let html = r#"<!doctype html><html lang="en"><head><title>Targets</title></head><body>
<button id="small" style="width: var(--s); height: var(--s); padding: 0" aria-label="Close">x</button>
<button id="large" style="width: var(--l); height: var(--l); padding: 0" aria-label="Open">o</button>
<script>document.documentElement.style.setProperty('--s', '16px'); document.documentElement.style.setProperty('--l', '32px')</script>
</body></html>"#;
    let [served, rendered] = both("target-size", html).await;
    assert_eq!(
        served,
        vec![
            f("target-size", "cant-tell", "#large"),
            f("target-size", "cant-tell", "#small"),
        ]
    );
    assert_eq!(rendered, vec![f("target-size", "failed", "#small")]);
}

/// A link colour the cascade cannot compute: cannot tell as served; the
/// browser's computed colours differ by under 3:1, and the link has no
/// underline.
#[tokio::test]
async fn link_in_text_block_uses_the_browsers_colours() {
    let html = r#"<!doctype html><html lang="en"><head><title>Links</title></head><body>
<p style="color: #333">Read our <a id="terms" href="/terms" style="color: rgb(calc(60 + 8) 68 68); text-decoration: none">terms</a> first.</p>
</body></html>"#;
    let [served, rendered] = both("link-in-text-block", html).await;
    assert_eq!(served, vec![f("link-in-text-block", "cant-tell", "#terms")]);
    assert_eq!(rendered, vec![f("link-in-text-block", "failed", "#terms")]);
}

/// Links told apart by colour alone (4.66:1 against the text), each with
/// other hover and focus styles. As served, the stylesheets' `:hover` and
/// `:focus` rules are read and three links stay "cannot tell"; rendered,
/// the browser shows each link hovered and focused, so every link is
/// decided, including through an ancestor's `:hover`, an ancestor's
/// `:focus-within`, an element inside the link, a background reached by a
/// transition and an underline an `::after` box grows on hover.
#[tokio::test]
async fn link_in_text_block_shows_each_link_hovered_and_focused() {
    let html = r#"<!doctype html><html lang="en"><head><title>Links</title><style>
body { color: #000; background: #fff }
a { text-decoration: none; color: #1a73e8 }
#nofocus:hover { text-decoration: underline }
#nofocus:focus { outline: none }
#both:hover, #both:focus { text-decoration: underline }
p.h:hover #parent { border-bottom: 1px solid }
#inner:hover span { text-decoration: underline }
.fw a:hover { font-weight: bold }
.fw a:focus { outline: none }
.fw:focus-within a { box-shadow: 0 0 0 2px #000 }
p.g:hover #hoveronly { border-bottom: 1px solid }
#hoveronly:focus { outline: none }
#fade { transition: background-color .3s } #fade:hover { background-color: #ddd }
#grow { position: relative } #grow::after { content: ""; position: absolute; left: 0; bottom: -2px; height: 2px; width: 0; background: #1a73e8; transition: width .3s }
#grow:hover::after { width: 100% }
</style></head><body><main>
<p>Text <a id="none" href="/a">one</a> more.</p>
<p>Text <a id="nofocus" href="/b">two</a> more.</p>
<p>Text <a id="both" href="/c">three</a> more.</p>
<p class="h">Text <a id="parent" href="/d">four</a> more.</p>
<p>Text <a id="inner" href="/e"><span>five</span></a> more.</p>
<p class="fw">Text <a id="within" href="/f">six</a> more.</p>
<p class="g">Text <a id="hoveronly" href="/g">seven</a> more.</p>
<p>Text <a id="fade" href="/h">eight</a> more.</p>
<p>Text <a id="grow" href="/i">nine</a> more.</p>
</main></body></html>"#;
    let [served, rendered] = both_reports("link-in-text-block", html).await;
    let rule = "link-in-text-block";
    assert_eq!(
        findings(&served),
        vec![
            f(rule, "cant-tell", "#grow"),
            f(rule, "cant-tell", "#hoveronly"),
            f(rule, "cant-tell", "#inner"),
            f(rule, "cant-tell", "#nofocus"),
            f(rule, "cant-tell", "#none"),
            f(rule, "cant-tell", "#within"),
        ]
    );
    assert_eq!(
        findings(&rendered),
        vec![
            f(rule, "failed", "#hoveronly"),
            f(rule, "failed", "#nofocus"),
            f(rule, "failed", "#none")
        ]
    );
    let cues = |selector: &str| {
        let found = rendered
            .findings
            .iter()
            .find(|x| x.selector == selector)
            .unwrap();
        (
            found.message.clone(),
            found.data.as_ref().unwrap()["hover_cue"].clone(),
            found.data.as_ref().unwrap()["focus_cue"].clone(),
        )
    };
    assert_eq!(
        cues("#none"),
        (
            "This link differs from the text by color only (4.66:1) and shows no other cue when hovered.".to_string(),
            serde_json::Value::Null,
            serde_json::json!("outline")
        )
    );
    assert_eq!(
        cues("#nofocus"),
        (
            "This link differs from the text by color only (4.66:1) and shows no other cue when focused.".to_string(),
            serde_json::json!("underline"),
            serde_json::Value::Null
        )
    );
    // The ancestor's hover is off while the link is focused.
    let (_, hover, focus) = cues("#hoveronly");
    assert_eq!(
        (hover, focus),
        (serde_json::json!("border"), serde_json::Value::Null)
    );
    let passed = rendered
        .rules
        .iter()
        .find(|r| r.rule_id == rule)
        .map(|r| r.passed)
        .unwrap();
    assert_eq!(passed, 6);
    // The states are taken back off before the keyboard walk, which compares
    // each link focused with the link at rest: a link left focused would
    // look the same both ways and fail `focus-visible-rendered`.
    let (port, _stop) = serve(&[("/", html)]).await;
    let walked = Scanner::builder()
        .rules(&[rule, "focus-visible-rendered"])
        .allow_private(true)
        .rate_per_host(200.0)
        .max_pages(1)
        .render(true)
        .build()
        .unwrap()
        .scan(&format!("http://127.0.0.1:{port}/"))
        .await
        .unwrap();
    assert_eq!(
        findings(&walked),
        vec![
            f("focus-visible-rendered", "failed", "#hoveronly"),
            f("focus-visible-rendered", "failed", "#nofocus"),
            f(rule, "failed", "#hoveronly"),
            f(rule, "failed", "#nofocus"),
            f(rule, "failed", "#none"),
        ]
    );
}

/// Past the page's 40 pictured backdrops, the text the rule cannot judge
/// without a picture is shot first: 45 paragraphs whose text the snapshot
/// blends no colour for (a bold word in each) come before a paragraph over
/// a dark image and a menu taken out of flow over the first paragraph. In
/// document order the 40 pictures went to the paragraphs, which the rule
/// judges over their ancestors' white anyway, and left the other two
/// "cannot tell".
#[tokio::test]
async fn color_contrast_shoots_text_over_images_and_out_of_flow_first() {
    let dark = flat_image("%23111");
    let plain: String = (0..45)
        .map(|i| format!("<p>Plain <b>text</b> number {i} here.</p>\n"))
        .collect();
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Many</title></head><body style="background: #fff; color: #000">
{plain}<p id="dark" style="width: 400px; color: #555; background: #fff {dark}">Mid grey over a dark photo</p>
<div id="nav" style="position: absolute; top: 0; right: 0; width: 300px; color: #bbb">Menu <b>one</b> | <b>two</b></div>
</body></html>"#
    );
    let [served, rendered] = both_reports("color-contrast", &html).await;
    let rule = "color-contrast";
    assert_eq!(
        findings(&served),
        vec![
            f(rule, "cant-tell", "#dark"),
            f(rule, "cant-tell", "#nav"),
            f(rule, "cant-tell", "#nav > b:nth-child(1)"),
            f(rule, "cant-tell", "#nav > b:nth-child(2)"),
        ]
    );
    assert_eq!(
        findings(&rendered),
        vec![
            f(rule, "failed", "#dark"),
            f(rule, "failed", "#nav"),
            f(rule, "failed", "#nav > b:nth-child(1)"),
            f(rule, "failed", "#nav > b:nth-child(2)"),
        ]
    );
    for found in &rendered.findings {
        let data = found.data.as_ref().unwrap();
        assert_eq!(data["measured"], "screenshot", "{}", found.selector);
        let expected = if found.selector == "#dark" {
            2.53
        } else {
            1.92
        };
        assert_eq!(data["contrast_ratio"], expected, "{}", found.selector);
    }
    // Every paragraph passes, pictured or not.
    let summary = rendered.rules.iter().find(|r| r.rule_id == rule).unwrap();
    assert_eq!(
        (summary.passed, summary.failed, summary.cant_tell),
        (90, 4, 0)
    );
}

/// Content under `content-visibility: auto` is not laid out while it is off
/// screen: no boxes, no pictures. Render mode lays it out as a reader
/// scrolling there gets it (a box of that kind inside another too), and
/// judges it. Content the browser skips for good (`content-visibility:
/// hidden`, a closed `<details>`) is not shown and not judged, though a
/// closed `<details>` in such a box keeps empty boxes once laid out.
#[tokio::test]
async fn color_contrast_lays_out_content_visibility_auto_before_judging() {
    let dark = flat_image("%23111");
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Deferred</title></head><body style="background: #fff; color: #000; margin: 0">
<p id="top">At the top</p>
<details open><summary>Open</summary><p id="open" style="width: 400px; color: #555; background: #fff {dark}">In an open details</p></details>
<div style="height: 3000px"></div>
<section style="content-visibility: auto; contain-intrinsic-size: auto 400px">
<p id="dark" style="width: 400px; color: #555; background: #fff {dark}">Mid grey over a dark photo</p>
<details><summary>More</summary><table><tr><td><p id="closed" style="width: 400px; color: #555; background: #fff {dark}">In a closed details</p></td></tr></table></details>
<div style="margin-top: 2000px; content-visibility: auto; contain-intrinsic-size: auto 300px">
<p id="nested" style="width: 400px; color: #555; background: #fff {dark}">Mid grey over a dark photo, deeper</p>
</div>
</section>
<section style="content-visibility: hidden">
<p id="hidden" style="width: 400px; color: #555; background: #fff {dark}">Never shown</p>
</section>
</body></html>"#
    );
    let [served, rendered] = both_reports("color-contrast", &html).await;
    let rule = "color-contrast";
    assert_eq!(
        findings(&served),
        vec![
            f(rule, "cant-tell", "#dark"),
            f(rule, "cant-tell", "#nested"),
            f(rule, "cant-tell", "#open"),
        ]
    );
    assert_eq!(
        findings(&rendered),
        vec![
            f(rule, "failed", "#dark"),
            f(rule, "failed", "#nested"),
            f(rule, "failed", "#open"),
        ]
    );
    for found in &rendered.findings {
        let data = found.data.as_ref().unwrap();
        assert_eq!(data["measured"], "screenshot", "{}", found.selector);
        assert_eq!(data["contrast_ratio"], 2.53, "{}", found.selector);
    }
    let summary = rendered.rules.iter().find(|r| r.rule_id == rule).unwrap();
    assert_eq!(
        (summary.passed, summary.failed, summary.cant_tell),
        (3, 3, 0)
    );
}

/// Text a scrolling sidebar clips away (a fixed menu taller than its box) is
/// not where its picture would be taken: there, the page behind the sidebar
/// shows. It is judged over its ancestors' colours instead; the items the
/// sidebar shows are measured in pictures.
#[tokio::test]
async fn color_contrast_does_not_shoot_text_a_scrolling_box_clips_away() {
    let items: String = (0..30)
        .map(|i| format!("<p id=\"i{i}\" style=\"margin: 0; height: 30px; color: #ccc\">Item number <code>{i}</code></p>\n"))
        .collect();
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Menu</title></head><body style="margin: 0; background: #fff; color: #000">
<nav style="position: fixed; top: 0; left: 0; width: 200px; height: 200px; overflow-y: auto; background: #222">
{items}</nav>
<main style="margin-left: 220px"><p>Body text</p></main>
</body></html>"#
    );
    let [_, rendered] = both_reports("color-contrast", &html).await;
    let rule = "color-contrast";
    assert_eq!(findings(&rendered), vec![]);
    let summary = rendered.rules.iter().find(|r| r.rule_id == rule).unwrap();
    // 30 items and their code, and the body's paragraph.
    assert_eq!(
        (summary.passed, summary.failed, summary.cant_tell),
        (61, 0, 0)
    );
}

/// A data URL of a flat SVG image in `fill` (`%23` for `#`), escaped to
/// sit unquoted in a `style` attribute.
fn flat_image(fill: &str) -> String {
    let svg = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><rect width='8' height='8' fill='{fill}'/></svg>"
    );
    let escaped = svg
        .replace('<', "%3C")
        .replace('>', "%3E")
        .replace('\'', "%27")
        .replace(' ', "%20");
    format!("url(data:image/svg+xml,{escaped})")
}

/// Down a long page under a fixed bar, the backdrops are shot in the
/// viewport: the page is scrolled to each band, clear of the bar, and shows
/// what a reader scrolled there sees (the page's scroll handler has run:
/// `#scrolled`'s photo turns dark once the page is scrolled past 4,000
/// pixels). The bar stays out of every picture (a red pixel would change
/// the ratios), and the ratios are those of the pictures of the whole
/// document (`color_contrast_measures_text_over_images`).
#[tokio::test]
async fn color_contrast_shoots_backdrops_down_a_long_page_in_the_viewport() {
    let dark = flat_image("%23111");
    let white = flat_image("%23fff");
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Far down</title></head><body style="background: #fff; margin: 0">
<div style="position: fixed; left: 0; top: 150px; width: 100%; height: 40px; background: #c00"></div>
<div style="height: 3000px"></div>
<p id="dark" style="width: 400px; color: #555; background: #fff {dark}">Mid grey over a dark photo</p>
<div style="height: 3000px"></div>
<p id="scrolled" style="width: 400px; color: #555; background: #fff {white}">Mid grey over a photo a scroll darkens</p>
<div style="height: 3000px"></div>
<p id="half" style="width: 300px; color: #555; background: linear-gradient(to right, #000 50%, #fff 50%)">Mid grey over a gradient that is half black and half white, wrapping over several lines</p>
<div style="height: 3000px"></div>
<script>addEventListener('scroll', () => {{ if (scrollY > 4000) document.getElementById('scrolled').style.backgroundImage = 'linear-gradient(#111, #111)'; }});</script>
</body></html>"#
    );
    let [served, rendered] = both_reports("color-contrast", &html).await;
    assert_eq!(
        findings(&served),
        vec![
            f("color-contrast", "cant-tell", "#dark"),
            f("color-contrast", "cant-tell", "#half"),
            f("color-contrast", "cant-tell", "#scrolled"),
        ]
    );
    assert_eq!(
        findings(&rendered),
        vec![
            f("color-contrast", "cant-tell", "#half"),
            f("color-contrast", "failed", "#dark"),
            f("color-contrast", "failed", "#scrolled"),
        ]
    );
    let data = |sel: &str| {
        rendered
            .findings
            .iter()
            .find(|f| f.selector == sel)
            .and_then(|f| f.data.clone())
            .unwrap()
    };
    for sel in ["#dark", "#scrolled"] {
        let d = data(sel);
        assert_eq!(d["measured"], "screenshot", "{sel}");
        assert_eq!(d["bg"], "#111111", "{sel}");
        assert_eq!(d["contrast_ratio"], 2.53, "{sel}");
        assert_eq!(d["contrast_ratio_max"], 2.53, "{sel}");
    }
    let half = data("#half");
    assert_eq!(half["reason"], "mixed-backdrop");
    assert_eq!(half["contrast_ratio"], 2.82);
    assert_eq!(half["contrast_ratio_max"], 7.46);
}

/// Text over images and a gradient: cannot tell as served (the cascade
/// cannot see an image's pixels). Rendered, the backdrop is shot with the
/// text hidden: mid-grey text over a dark image fails (the white colour
/// under the image does not count), over a light image (black under it)
/// passes, and over a gradient half black, half white it stays for review
/// with the measured range. Text over an `<img>` positioned behind it is
/// measured too.
#[tokio::test]
async fn color_contrast_measures_text_over_images() {
    let dark = flat_image("%23111");
    let light = flat_image("%23eee");
    let html = format!(
        r#"<!doctype html><html lang="en"><head><title>Backdrops</title></head><body style="background: #fff">
<p id="dark" style="width: 400px; color: #555; background: #fff {dark}">Mid grey over a dark photo</p>
<p id="light" style="width: 400px; color: #555; background: #000 {light}">Mid grey over a light photo</p>
<p id="half" style="width: 300px; color: #555; background: linear-gradient(to right, #000 50%, #fff 50%)">Mid grey over a gradient that is half black and half white, wrapping over several lines</p>
<div style="position: relative; width: 400px"><img alt="" src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'%3E%3Crect width='8' height='8' fill='%23222'/%3E%3C/svg%3E" style="position: absolute; inset: 0; width: 100%; height: 100%">
<p id="photo" style="position: relative; margin: 0; color: #555">Mid grey over a dark picture behind</p></div>
<p id="after">Plain text after</p>
</body></html>"#
    );
    let [served, rendered] = both_reports("color-contrast", &html).await;
    assert_eq!(
        findings(&served),
        vec![
            f("color-contrast", "cant-tell", "#dark"),
            f("color-contrast", "cant-tell", "#half"),
            f("color-contrast", "cant-tell", "#light"),
            f("color-contrast", "cant-tell", "#photo"),
        ]
    );
    assert_eq!(
        findings(&rendered),
        vec![
            f("color-contrast", "cant-tell", "#half"),
            f("color-contrast", "failed", "#dark"),
            f("color-contrast", "failed", "#photo"),
        ]
    );
    let data = |sel: &str| {
        rendered
            .findings
            .iter()
            .find(|f| f.selector == sel)
            .and_then(|f| f.data.clone())
            .unwrap()
    };
    let dark = data("#dark");
    assert_eq!(dark["measured"], "screenshot");
    assert_eq!(dark["bg"], "#111111");
    assert_eq!(dark["contrast_ratio"], 2.53);
    assert_eq!(dark["contrast_ratio_max"], 2.53);
    let half = data("#half");
    assert_eq!(half["reason"], "mixed-backdrop");
    assert_eq!(half["contrast_ratio"], 2.82);
    assert_eq!(half["contrast_ratio_max"], 7.46);
    // The passes are counted: #light and #after.
    let rule = rendered
        .rules
        .iter()
        .find(|r| r.rule_id == "color-contrast")
        .unwrap();
    assert_eq!((rule.passed, rule.failed, rule.cant_tell), (2, 2, 1));
}
