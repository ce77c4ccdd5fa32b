//! Render mode's lab Web Vitals with a real Chromium (Debian's `chromium`; a
//! missing browser fails these tests). The sandbox is off as in `render.rs`
//! (root in a container).
//!
//! No assertion is on a measured time: what the tests check is which element
//! the browser names (the LCP image, the inserted banner), which rules fail,
//! and lower bounds the fixture guarantees by construction (a server that
//! holds an image for 2.6 s cannot give an LCP under 2.5 s; a throttled
//! document is held for the preset's latency before the browser gets it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use serde_json::{json, Value};
use sitescan::browser::{configure, LaunchOptions};
use sitescan::rules::vitals::WebVitals;
use sitescan::rules::Outcome;
use sitescan::{RenderOptions, RenderWait, Report, Scanner, Throttle};
use sitescan_daemon::store::Plan;

use crate::api_support::TestApi;

const RULES: [&str; 4] = [
    "first-contentful-paint",
    "largest-contentful-paint",
    "cumulative-layout-shift",
    "total-blocking-time",
];

/// One answer: content type, body, and how long to hold it.
#[derive(Clone)]
struct Answer {
    content_type: &'static str,
    body: String,
    delay: Duration,
}

#[derive(Default)]
struct Site {
    answers: Mutex<HashMap<String, Answer>>,
    log: Mutex<Vec<String>>,
}

/// A server on 127.0.0.1 answering from a table (404 otherwise), logging
/// each request's path.
struct Server {
    port: u16,
    site: Arc<Site>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Server {
    async fn start() -> Server {
        let site = Arc::new(Site::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&site));
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
        Server {
            port,
            site,
            _stop: tx,
        }
    }

    fn set(&self, path: &str, content_type: &'static str, body: &str, delay: Duration) {
        self.site.answers.lock().unwrap().insert(
            path.to_string(),
            Answer {
                content_type,
                body: body.to_string(),
                delay,
            },
        );
    }

    fn page(&self, path: &str, body: &str) {
        self.set(path, "text/html; charset=utf-8", body, Duration::ZERO);
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn count(&self, path: &str) -> usize {
        self.site
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == path)
            .count()
    }
}

async fn answer(State(site): State<Arc<Site>>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    site.log.lock().unwrap().push(path.clone());
    let found = site.answers.lock().unwrap().get(&path).cloned();
    let Some(a) = found else {
        return Response::builder()
            .status(404)
            .body(Body::from("not found"))
            .unwrap();
    };
    tokio::time::sleep(a.delay).await;
    Response::builder()
        .header("content-type", a.content_type)
        .body(Body::from(a.body))
        .unwrap()
}

fn scanner(options: RenderOptions) -> Scanner {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(5),
        ..LaunchOptions::from_env()
    });
    Scanner::builder()
        .rules(&RULES)
        .allow_private(true)
        .rate_per_host(200.0)
        .max_pages(1)
        .render(true)
        .render_options(options)
        .build()
        .unwrap()
}

/// The one page's vitals of a report.
fn vitals(report: &Report) -> &WebVitals {
    report.pages[0]
        .vitals
        .as_deref()
        .unwrap_or_else(|| panic!("no vitals on {:?}", report.pages[0]))
}

/// `(rule, selector, impact)` of every failed finding, sorted.
fn failures(report: &Report) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.outcome == Outcome::Failed)
        .map(|f| {
            (
                f.rule_id.clone(),
                f.selector.clone(),
                f.impact.as_str().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// A 600 × 400 picture of 240 coloured tiles: an image whose intrinsic size
/// makes it the largest paint of the page (smaller than the viewport, where
/// an image covering all of it counts as a background) and whose bytes per
/// pixel are above Chrome's floor for a contentful image (a one-colour
/// placeholder is not one).
fn hero_svg() -> String {
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400">"#);
    for i in 0..240u32 {
        let (x, y) = ((i % 20) * 30, (i / 20) * 34);
        let colour = i.wrapping_mul(2_654_435_761).wrapping_mul(i + 1) & 0xff_ffff;
        svg += &format!(r##"<rect x="{x}" y="{y}" width="30" height="34" fill="#{colour:06x}"/>"##);
    }
    svg + "</svg>"
}

const HERO_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>Mugs</title><style>body{margin:0}</style></head>
<body><p>Welcome to the mug shop.</p>
<img id="hero" src="/hero.svg" width="600" height="400" alt="A red mug">
</body></html>"#;

/// Content that fills the viewport, and a banner a script inserts above it
/// once the page has painted: everything moves down 300 px.
const BANNER_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>News</title>
<style>body{margin:0;font:16px/1.5 sans-serif} .promo{height:300px;background:#fc0}</style></head>
<body><main id="content"><h1>News</h1>
<p>Line one of the news.</p><p>Line two of the news.</p><p>Line three of the news.</p>
<p>Line four of the news.</p><p>Line five of the news.</p><p>Line six of the news.</p>
<p>Line seven of the news.</p><p>Line eight of the news.</p><p>Line nine of the news.</p>
<p>Line ten of the news.</p><p>Line eleven of the news.</p><p>Line twelve of the news.</p>
</main>
<script>
new PerformanceObserver((list, obs) => {
  obs.disconnect();
  setTimeout(() => {
    const b = document.createElement('div');
    b.className = 'promo';
    b.id = 'sale';
    b.textContent = 'Sale!';
    document.body.insertBefore(b, document.body.firstChild);
  }, 100);
}).observe({type: 'paint', buffered: true});
</script>
</body></html>"#;

const FAST_PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>About</title></head>
<body><main><h1>About us</h1><p>We make mugs.</p></main></body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lcp_element_is_the_slow_hero_image() {
    let server = Server::start().await;
    server.page("/", HERO_PAGE);
    // Held past the 2.5 s threshold: the LCP cannot be good.
    let hero = hero_svg();
    server.set(
        "/hero.svg",
        "image/svg+xml",
        &hero,
        Duration::from_millis(2600),
    );
    let report = scanner(RenderOptions::default())
        .scan(&server.url("/"))
        .await
        .unwrap();
    assert_eq!(server.count("/hero.svg"), 1);
    let v = vitals(&report);
    let lcp = v.lcp_element.as_ref().expect("an LCP element");
    assert_eq!(
        (lcp.selector.as_str(), lcp.label.as_str()),
        ("#hero", "img#hero")
    );
    assert!(v.lcp_ms.unwrap() >= 2600.0, "{v:?}");
    assert!(v.fcp_ms.is_some() && v.cls.is_some() && v.tbt_ms.is_some());
    assert_eq!(v.throttle.as_deref(), Some("none"));
    // Requests by type, from the interception: the document and the image.
    let by_type: Vec<(&str, u64, u64)> = v
        .resources
        .iter()
        .map(|r| (r.kind.as_str(), r.requests, r.bytes))
        .collect();
    assert!(
        by_type.contains(&("Image", 1, hero.len() as u64)),
        "{by_type:?}"
    );
    assert!(
        by_type.contains(&("Document", 1, HERO_PAGE.len() as u64)),
        "{by_type:?}"
    );
    // The finding sits on the image (needs improvement or poor, by how
    // long the machine took past the server's hold).
    let failed = failures(&report);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(
        (failed[0].0.as_str(), failed[0].1.as_str()),
        ("largest-contentful-paint", "#hero")
    );
    // The report's summary: p75 over the one page, the page as the slowest.
    let summary = report.summary[&sitescan::rules::Category::Performance]
        .web_vitals
        .as_ref()
        .unwrap();
    assert_eq!(summary.pages, 1);
    assert_eq!(summary.slowest[0].lcp_element.as_deref(), Some("#hero"));
    assert!(summary.metrics["lcp_ms"].bucket.unwrap() > sitescan::rules::vitals::Bucket::Good);
    let html = String::from_utf8(
        sitescan::render::render(&report, sitescan::render::Format::Html).unwrap(),
    )
    .unwrap();
    assert!(html.contains("Web Vitals (lab)") && html.contains("<code>#hero</code>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_banner_shifts_the_layout_and_is_named() {
    let server = Server::start().await;
    server.page("/", BANNER_PAGE);
    let report = scanner(RenderOptions {
        wait: RenderWait::Selector("#sale".into()),
        ..RenderOptions::default()
    })
    .scan(&server.url("/"))
    .await
    .unwrap();
    let v = vitals(&report);
    let cls = v.cls.unwrap();
    assert!(cls > 0.1, "{v:?}");
    let causes: Vec<&str> = v
        .cls_causes
        .iter()
        .map(|c| c.element.label.as_str())
        .collect();
    assert_eq!(causes.first(), Some(&"div#sale.promo"), "{v:?}");
    // What moved is named too (the content pushed down, or the body
    // holding it, as the browser reports it); the banner itself did not move.
    assert!(!v.cls_sources.is_empty(), "{v:?}");
    assert!(
        v.cls_sources.iter().all(|s| s.element.selector != "#sale"),
        "{v:?}"
    );
    let shift: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "cumulative-layout-shift")
        .collect();
    assert_eq!(shift.len(), 1, "{:?}", report.findings);
    assert_eq!(shift[0].selector, "#sale");
    assert!(
        shift[0]
            .message
            .contains("inserted or loaded just before: div#sale.promo"),
        "{}",
        shift[0].message
    );
    assert_eq!(
        shift[0].data.as_ref().unwrap()["causes"][0]["selector"],
        json!("#sale")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_page_has_no_findings_and_a_static_scan_no_vitals() {
    let server = Server::start().await;
    server.page("/", FAST_PAGE);
    let report = scanner(RenderOptions::default())
        .scan(&server.url("/"))
        .await
        .unwrap();
    assert_eq!(failures(&report), []);
    let v = vitals(&report);
    assert_eq!(v.cls, Some(0.0));
    assert!(v.fcp_ms.is_some() && v.lcp_element.is_some(), "{v:?}");
    // Every rule judged the page (passed), none was inapplicable.
    for id in RULES {
        let rule = report.rules.iter().find(|r| r.rule_id == id).unwrap();
        assert_eq!((rule.pages_applicable, rule.pages_failed), (1, 0), "{id}");
    }

    let fixed = Scanner::builder()
        .rules(&RULES)
        .allow_private(true)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&server.url("/"))
        .await
        .unwrap();
    assert!(fixed.pages[0].vitals.is_none());
    assert_eq!(failures(&fixed), []);
    for id in RULES {
        let rule = fixed.rules.iter().find(|r| r.rule_id == id).unwrap();
        assert_eq!(rule.pages_applicable, 0, "{id}");
    }
    assert!(fixed.summary[&sitescan::rules::Category::Performance]
        .web_vitals
        .is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mobile_preset_holds_every_response_for_its_latency() {
    let server = Server::start().await;
    server.page("/", FAST_PAGE);
    let report = scanner(RenderOptions {
        throttle: Throttle::Mobile,
        ..RenderOptions::default()
    })
    .scan(&server.url("/"))
    .await
    .unwrap();
    let v = vitals(&report);
    assert_eq!(v.throttle.as_deref(), Some("mobile"));
    // The document reaches the browser 563 ms after it asked, at the least.
    assert!(v.fcp_ms.unwrap() >= 563.0, "{v:?}");
    assert_eq!(report.config.render_options.throttle, Throttle::Mobile);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_takes_a_throttle_preset_and_names_a_wrong_one() {
    let api = TestApi::start_rendering().await;
    let (account, key) = api.tenant(Plan::Enterprise).await;
    let site_id = api.site(&account, "https://example.com/").await;
    let path = format!("/api/v1/sites/{site_id}/scans");
    let (status, body) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["performance"], "render": true,
                "render_options": {"throttle": "3g"}}}),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(
        body["error"]["details"],
        json!([{"field": "config.render_options.throttle",
            "problem": "give \"none\", \"mobile\" or \"desktop\""}])
    );
    let (status, body): (u16, Value) = api
        .post(
            &path,
            &key,
            json!({"config": {"rules": ["performance"], "render": true,
                "render_options": {"throttle": "mobile"}}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["data"]["config"]["render_options"]["throttle"],
        json!("mobile")
    );
}
