//! Render mode's viewport with a real Chromium: pages whose layout changes at
//! 1000 CSS pixels (a media query shows one element on wide screens and
//! another on narrow ones) are judged at 1280 × 720 by default, at the size
//! `--viewport` gives, and at a throttling preset's own size unless
//! `--viewport` is given; and the viewport is still in force after the narrow
//! layouts of the reflow rules (the keyboard walk, the pictures and the tab's
//! next page run after them). Each scan's exact findings differ between the
//! viewports, so a viewport not applied, or lost after the narrow layouts,
//! fails here; the sites' request logs show what was fetched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sitescan::browser::{configure, LaunchOptions};
use sitescan::{RenderOptions, Report, Scanner, ScreenshotOptions, Throttle, ViewportSize};

use crate::render_layout::findings;
use crate::screenshots::jpeg_size;

/// A site on 127.0.0.1 answering from a table (404 otherwise) and logging
/// every request's path.
struct Site {
    port: u16,
    log: Arc<Mutex<Vec<String>>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

type Pages = Arc<(HashMap<String, (&'static str, String)>, Mutex<Vec<String>>)>;

impl Site {
    async fn start(pages: &[(&str, &'static str, String)]) -> Site {
        let table = pages
            .iter()
            .map(|(p, t, b)| (p.to_string(), (*t, b.clone())))
            .collect();
        let state: Pages = Arc::new((table, Mutex::new(Vec::new())));
        let log = Arc::new(Mutex::new(Vec::new()));
        let app = axum::Router::new()
            .fallback(answer)
            .with_state((Arc::clone(&state), Arc::clone(&log)));
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
        Site {
            port,
            log,
            _stop: tx,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The requests since the last call, sorted, and the log emptied. The
    /// browser's own `/favicon.ico`, which it asks for or not depending on
    /// how soon the page is left, is not counted.
    fn take_log(&self) -> Vec<String> {
        let mut log = std::mem::take(&mut *self.log.lock().unwrap());
        log.retain(|p| p != "/favicon.ico");
        log.sort();
        log
    }
}

async fn answer(
    State((pages, log)): State<(Pages, Arc<Mutex<Vec<String>>>)>,
    req: Request,
) -> Response {
    let path = req.uri().path().to_string();
    log.lock().unwrap().push(path.clone());
    match pages.0.get(&path) {
        Some((content_type, body)) => {
            ([("content-type", *content_type)], body.clone()).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn f(rule: &str, outcome: &'static str, selector: &str) -> (String, &'static str, String) {
    (rule.to_string(), outcome, selector.to_string())
}

/// The stylesheet: `#wide` (low contrast, #999 on white: 2.85:1) shows only
/// from 1000 CSS pixels on, `#narrow` (#aaa: 2.32:1) only below.
const CONTRAST_CSS: &str = "body { background: #fff; color: #000; font-size: 16px }
#wide { color: #999; display: none }
#narrow { color: #aaa }
@media (min-width: 1000px) { #wide { display: block } #narrow { display: none } }
";

/// A page whose low-contrast paragraph depends on the viewport's width.
fn contrast_page() -> String {
    r#"<!doctype html><html lang="en"><head><title>Widths</title>
<link rel="stylesheet" href="/site.css"></head><body><main><h1>Widths</h1>
<p id="wide">Shown on wide screens only.</p>
<p id="narrow">Shown on narrow screens only.</p>
<p id="always">Shown everywhere.</p>
</main></body></html>"#
        .to_string()
}

/// `sitescan scan --render` of `url` with only `color-contrast` and `extra`
/// flags: the JSON report.
fn cli_scan(url: &str, extra: &[&str]) -> serde_json::Value {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
    cmd.args([
        "scan",
        "--render",
        "--rules",
        "color-contrast",
        "--max-pages",
        "1",
        "--links",
        "none",
        "--max-screenshots",
        "0",
        "--format",
        "json",
    ])
    .args(extra)
    .arg(url)
    .env("SITESCAN_CHROMIUM_NO_SANDBOX", "1");
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{extra:?}: no gate, exit 0\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `(rule, outcome, selector)` of a JSON report's findings, sorted.
fn json_findings(report: &serde_json::Value) -> Vec<(String, &'static str, String)> {
    let mut out: Vec<_> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let outcome = match f["outcome"].as_str() {
                Some("failed") => "failed",
                Some("cant-tell") => "cant-tell",
                _ => "other",
            };
            (
                f["rule_id"].as_str().unwrap().to_string(),
                outcome,
                f["selector"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The default viewport is a desktop's 1280 × 720: the wide layout's
/// paragraph is judged, the narrow one's is not shown. `--viewport 800x600`
/// judges the narrow layout; `--throttle mobile` its phone (412 pixels wide),
/// unless `--viewport` says otherwise, which wins.
#[test]
fn the_viewport_decides_which_layout_is_judged() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(Site::start(&[
        ("/", "text/html; charset=utf-8", contrast_page()),
        ("/site.css", "text/css", CONTRAST_CSS.to_string()),
    ]));
    let url = site.url("/");
    let wide = vec![f("color-contrast", "failed", "#wide")];
    let narrow = vec![f("color-contrast", "failed", "#narrow")];
    // With the screen the page's vitals say it was laid out on.
    let screen = |w: u32, h: u32, scale: f64, mobile: bool| serde_json::json!({"width": w, "height": h, "scale": scale, "mobile": mobile});
    for (extra, want, laid_out) in [
        (&[][..], &wide, screen(1280, 720, 1.0, false)),
        (
            &["--viewport", "800x600"][..],
            &narrow,
            screen(800, 600, 1.0, false),
        ),
        (
            &["--viewport", "1000x600"][..],
            &wide,
            screen(1000, 600, 1.0, false),
        ),
        (
            &["--viewport", "999x600"][..],
            &narrow,
            screen(999, 600, 1.0, false),
        ),
        (
            &["--throttle", "desktop"][..],
            &wide,
            screen(1350, 940, 1.0, false),
        ),
        (
            &["--throttle", "mobile"][..],
            &narrow,
            screen(412, 823, 1.75, true),
        ),
        (
            &["--throttle", "mobile", "--viewport", "1280x720"][..],
            &wide,
            screen(1280, 720, 1.0, false),
        ),
    ] {
        let report = cli_scan(&url, extra);
        assert_eq!(&json_findings(&report), want, "{extra:?}");
        assert_eq!(
            report["pages"][0]["vitals"]["viewport"], laid_out,
            "{extra:?}"
        );
        let viewport = extra
            .iter()
            .position(|a| *a == "--viewport")
            .map(|i| extra[i + 1]);
        let (w, h) = viewport.and_then(|v| v.split_once('x')).map_or(
            (serde_json::Value::Null, serde_json::Value::Null),
            |(w, h)| {
                (
                    w.parse::<u32>().unwrap().into(),
                    h.parse::<u32>().unwrap().into(),
                )
            },
        );
        // The report's config says what was given, nothing when nothing was.
        assert_eq!(
            report["config"]["render_options"]["viewport"]["width"], w,
            "{extra:?}"
        );
        assert_eq!(
            report["config"]["render_options"]["viewport"]["height"], h,
            "{extra:?}"
        );
        // The crawler fetched the page and its stylesheet once each (for the
        // cascade); the browser was served the page from memory and fetched
        // the stylesheet through the interceptor.
        assert_eq!(
            site.take_log(),
            ["/", "/robots.txt", "/site.css", "/site.css"],
            "{extra:?}"
        );
    }
}

/// Nonsense viewports are usage errors (exit 2) saying the bounds, and the
/// site is never asked for anything.
#[test]
fn a_bad_viewport_is_a_usage_error_naming_the_bounds() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(Site::start(&[(
        "/",
        "text/html; charset=utf-8",
        contrast_page(),
    )]));
    for (args, message) in [
        (
            &["--render", "--viewport", "199x600"][..],
            "error: invalid value '199x600' for '--viewport <WIDTHxHEIGHT>': a viewport width of 199 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)",
        ),
        (
            &["--render", "--viewport", "800x4001"][..],
            "error: invalid value '800x4001' for '--viewport <WIDTHxHEIGHT>': a viewport height of 4001 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720)",
        ),
        (
            &["--render", "--viewport", "wide"][..],
            "error: invalid value 'wide' for '--viewport <WIDTHxHEIGHT>': `wide` is not a viewport: give WIDTHxHEIGHT in CSS pixels, each 200 to 4000 (e.g. 1280x720)",
        ),
        (
            &["--viewport", "800x600"][..],
            "error: --viewport only applies with --render (it says how the browser loads each page): add --render, or leave it out",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"))
            .arg("scan")
            .args(args)
            .arg(site.url("/"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    assert_eq!(site.take_log(), Vec::<String>::new());
}

/// Page `n` of a site: a link shown only from 1000 pixels on and one shown
/// only below, neither with a focus indicator (`focus-visible-rendered`
/// fails the one the keyboard walk reaches), a box 1100 pixels wide
/// (`reflow` fails it at 320), and a link to the next page.
fn walk_page(n: u32) -> String {
    format!(
        r##"<!doctype html><html lang="en"><head><title>Page {n}</title>
<style>
a:focus {{ outline: none }}
#wide-{n} {{ display: none }}
@media (min-width: 1000px) {{ #wide-{n} {{ display: inline }} #narrow-{n} {{ display: none }} }}
#box-{n} {{ width: 1100px }}
</style></head><body><main><h1>Page {n}</h1>
<p><a id="wide-{n}" href="#w">Wide only</a> <a id="narrow-{n}" href="#n">Narrow only</a></p>
<div id="box-{n}">A box wider than a phone.</div>
<p><a id="next-{n}" href="/p{next}" style="outline: 2px solid #000">Next</a></p>
</main></body></html>"##,
        next = n + 1
    )
}

/// Scans `/p1` and `/p2` of `site` in one tab (concurrency 1: the second
/// page reuses the first's tab), rendered with `options`.
async fn walk_scan(site: &Site, options: RenderOptions) -> Report {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(10),
        ..LaunchOptions::from_env()
    });
    let report = Scanner::builder()
        .rules(&["reflow", "focus-visible-rendered"])
        .allow_private(true)
        .rate_per_host(200.0)
        .concurrency(1)
        .max_pages(2)
        .render(true)
        .render_options(options)
        .build()
        .unwrap()
        .scan(&site.url("/p1"))
        .await
        .unwrap();
    assert!(
        report.pages.iter().all(|p| p.error.is_none()),
        "{:?}",
        report.pages
    );
    assert_eq!(report.pages.len(), 2);
    report
}

/// The width of each page's thumbnail, the last picture of the page, taken
/// after its narrow layouts: a quarter of the viewport it was taken in.
fn thumbnails(report: &Report) -> Vec<(u32, u32)> {
    let mut pages: Vec<_> = report.pages.iter().collect();
    pages.sort_by(|a, b| a.url.cmp(&b.url));
    pages
        .iter()
        .map(|p| {
            let id = p.thumbnail.as_deref().expect("a thumbnail");
            jpeg_size(&report.screenshots.get(id).unwrap().bytes)
        })
        .collect()
}

/// The narrow layouts (320 and 640 pixels) set the tab's viewport back when
/// they are done, not clear it: the keyboard walk after them reaches the
/// wide-only link (at the headless window's 800 pixels it would reach the
/// narrow-only one), the pictures are a quarter of 1280 × 720, and the tab's
/// second page is judged the same way. With `--viewport 800x600` the narrow
/// layout is walked and pictured at that size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewport_holds_after_the_narrow_layouts() {
    let site = Site::start(&[
        ("/p1", "text/html; charset=utf-8", walk_page(1)),
        ("/p2", "text/html; charset=utf-8", walk_page(2)),
    ])
    .await;
    let screenshots = ScreenshotOptions::default();
    let report = walk_scan(
        &site,
        RenderOptions {
            screenshots: screenshots.clone(),
            ..RenderOptions::default()
        },
    )
    .await;
    assert_eq!(
        findings(&report),
        vec![
            f("focus-visible-rendered", "failed", "#wide-1"),
            f("focus-visible-rendered", "failed", "#wide-2"),
            f("reflow", "failed", "#box-1"),
            f("reflow", "failed", "#box-2"),
        ]
    );
    assert_eq!(thumbnails(&report), [(320, 180), (320, 180)]);
    // Each page once, by the crawler (the browser is served it from
    // memory); /p3 is past max_pages.
    let log = ["/p1", "/p2", "/robots.txt", "/sitemap.xml"];
    assert_eq!(site.take_log(), log);

    let report = walk_scan(
        &site,
        RenderOptions {
            screenshots,
            viewport: Some(ViewportSize {
                width: 800,
                height: 600,
            }),
            ..RenderOptions::default()
        },
    )
    .await;
    assert_eq!(
        findings(&report),
        vec![
            f("focus-visible-rendered", "failed", "#narrow-1"),
            f("focus-visible-rendered", "failed", "#narrow-2"),
            f("reflow", "failed", "#box-1"),
            f("reflow", "failed", "#box-2"),
        ]
    );
    assert_eq!(thumbnails(&report), [(200, 150), (200, 150)]);
    assert_eq!(site.take_log(), log);

    // The desktop preset keeps its own 1350 × 940 through the narrow
    // layouts too.
    let report = walk_scan(
        &site,
        RenderOptions {
            throttle: Throttle::Desktop,
            ..RenderOptions::default()
        },
    )
    .await;
    assert_eq!(thumbnails(&report), [(337, 235), (337, 235)]);
    assert_eq!(
        findings(&report),
        vec![
            f("focus-visible-rendered", "failed", "#wide-1"),
            f("focus-visible-rendered", "failed", "#wide-2"),
            f("reflow", "failed", "#box-1"),
            f("reflow", "failed", "#box-2"),
        ]
    );
    assert_eq!(site.take_log(), log);
}
