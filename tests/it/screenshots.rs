//! Render mode's pictures with a real Chromium (a missing browser fails these
//! tests): a highlighted, clipped screenshot of each failing element and a
//! thumbnail of each page, their caps, the HTML report embedding them, and
//! `GET /api/v1/scans/{scanId}/screenshots/{id}` on both backends (embedded,
//! and Redis under a unique prefix) with the reports' tenancy.
//!
//! The fixture page places two images without a text alternative at known
//! positions (absolutely positioned SVGs of one flat colour); a script writes
//! the viewport's size into the first image's attributes, so the finding's
//! snippet says what size the thumbnail must have.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};
use sitescan::browser::{configure, LaunchOptions};
use sitescan::{RenderOptions, RenderWait, Report, Scanner, ScreenshotOptions};
use sitescan_daemon::api::auth::new_key;
use sitescan_daemon::executor::EngineExecutor;
use sitescan_daemon::queue::Queue;
use sitescan_daemon::service::Service;
use sitescan_daemon::store::embedded::Embedded;
use sitescan_daemon::store::{new_id, Account, Plan, Site, Store};
use sitescan_daemon::worker::WorkerSettings;
use sitescan_engine::browser::screenshot::{HIGHLIGHT, MARGIN};
use sitescan_fixtures::FixtureServer;

use crate::api_support::assert_error;
use crate::fleet_support::{backend, shared_redis, PrefixGuard};

/// `#a`: 100 by 50 CSS pixels at (200, 150); `#b`: 40 by 30 at (600, 400).
const PAGE: &str = r##"<!doctype html>
<html lang="en"><head><title>Pictures</title>
<style>html, body { margin: 0; background: #fff } img { position: absolute; display: block }</style></head>
<body><h1 style="margin: 0; font-size: 16px">Pictures</h1>
<img id="a" src="/green.svg" style="left: 200px; top: 150px; width: 100px; height: 50px">
<img id="b" src="/green.svg" style="left: 600px; top: 400px; width: 40px; height: 30px">
<script>document.getElementById('a').dataset.vp = innerWidth + 'x' + innerHeight;</script>
</body></html>"##;

/// The images' one colour.
const GREEN: [u8; 3] = [0, 170, 0];

pub(crate) fn site_dir(dir: &Path) {
    std::fs::write(dir.join("index.html"), PAGE).unwrap();
    std::fs::write(
        dir.join("green.svg"),
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10" preserveAspectRatio="none"><rect width="10" height="10" fill="#00aa00"/></svg>"##,
    )
    .unwrap();
    std::fs::write(dir.join("robots.txt"), "User-agent: *\nAllow: /\n").unwrap();
}

fn browser_for_tests() {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(10),
        ..LaunchOptions::from_env()
    });
}

async fn scan(url: &str, shots: ScreenshotOptions) -> Report {
    browser_for_tests();
    Scanner::builder()
        .rules(&["image-alt"])
        .allow_private(true)
        .rate_per_host(200.0)
        .max_pages(1)
        .render(true)
        .render_options(RenderOptions {
            wait: RenderWait::Load,
            quiet_ms: 0,
            screenshots: shots,
            ..RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(url)
        .await
        .unwrap()
}

/// A decoded PNG: width, height, RGB(A) pixels and channels.
struct Image {
    width: u32,
    height: u32,
    channels: usize,
    pixels: Vec<u8>,
}

impl Image {
    fn decode(bytes: &[u8]) -> Image {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        pixels.truncate(info.buffer_size());
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        };
        Image {
            width: info.width,
            height: info.height,
            channels,
            pixels,
        }
    }

    fn rgb(&self, x: u32, y: u32) -> [u8; 3] {
        let at = (y as usize * self.width as usize + x as usize) * self.channels;
        [self.pixels[at], self.pixels[at + 1], self.pixels[at + 2]]
    }
}

/// Width and height of a baseline JPEG (its SOF0 segment).
pub(crate) fn jpeg_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(&[0xFF, 0xD8, 0xFF]), "not a JPEG");
    let mut i = 2;
    while i + 9 < bytes.len() {
        assert_eq!(bytes[i], 0xFF, "JPEG segment at {i}");
        let marker = bytes[i + 1];
        let len = usize::from(bytes[i + 2]) << 8 | usize::from(bytes[i + 3]);
        if (0xC0..=0xC2).contains(&marker) {
            let h = u32::from(bytes[i + 5]) << 8 | u32::from(bytes[i + 6]);
            let w = u32::from(bytes[i + 7]) << 8 | u32::from(bytes[i + 8]);
            return (w, h);
        }
        i += 2 + len;
    }
    panic!("no SOF segment");
}

/// The viewport the script wrote into `#a` (`data-vp="WxH"` in its snippet).
fn viewport(report: &Report) -> (u32, u32) {
    let a = report.findings.iter().find(|f| f.selector == "#a").unwrap();
    let vp = a
        .snippet
        .split("data-vp=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no viewport in {}", a.snippet));
    let (w, h) = vp.split_once('x').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

/// Checks the picture of `#a`: the box and the margin, the highlight just
/// outside the box's edges, the element itself inside, the page beyond.
pub(crate) fn assert_picture_of_a(png: &[u8]) {
    let img = Image::decode(png);
    let m = MARGIN as u32;
    assert_eq!((img.width, img.height), (100 + 2 * m, 50 + 2 * m));
    let ring = HIGHLIGHT;
    // Just outside each edge of the box.
    assert_eq!(img.rgb(m - 1, m + 25), ring, "left edge");
    assert_eq!(img.rgb(m + 100, m + 25), ring, "right edge");
    assert_eq!(img.rgb(m + 50, m - 1), ring, "top edge");
    assert_eq!(img.rgb(m + 50, m + 50), ring, "bottom edge");
    // The element, and the white page around the ring.
    assert_eq!(img.rgb(m + 50, m + 25), GREEN, "the element");
    assert_eq!(img.rgb(0, 0), [255, 255, 255], "the margin");
}

/// The picture of the finding about `sel`; it must have one.
fn picture_of(report: &Report, sel: &str) -> sitescan_engine::report::Screenshot {
    let id = report
        .findings
        .iter()
        .find(|f| f.selector == sel)
        .and_then(|f| f.screenshot.clone())
        .unwrap_or_else(|| panic!("{sel} has no picture: {:?}", report.findings));
    report.screenshots.get(&id).unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_elements_get_highlighted_pictures_and_the_page_a_thumbnail() {
    let dir = tempfile::tempdir().unwrap();
    site_dir(dir.path());
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let report = scan(&server.url(), ScreenshotOptions::default()).await;

    let failed: Vec<(&str, Option<&str>)> = report
        .findings
        .iter()
        .map(|f| (f.selector.as_str(), f.screenshot.as_deref()))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    let shot = |sel: &str| picture_of(&report, sel);
    let a = shot("#a");
    assert_eq!(a.content_type, "image/png");
    assert_picture_of_a(&a.bytes);
    let b = Image::decode(&shot("#b").bytes);
    let m = MARGIN as u32;
    assert_eq!((b.width, b.height), (40 + 2 * m, 30 + 2 * m));
    assert_eq!(b.rgb(m - 1, m + 15), HIGHLIGHT);

    // The thumbnail: the first screen at a quarter of its size, as JPEG.
    let page = &report.pages[0];
    let thumb = report
        .screenshots
        .get(page.thumbnail.as_deref().expect("a thumbnail"))
        .unwrap();
    assert_eq!(thumb.content_type, "image/jpeg");
    let (w, h) = viewport(&report);
    assert_eq!(
        jpeg_size(&thumb.bytes),
        (w / 4, h / 4),
        "a quarter of the {w}x{h} viewport"
    );
    assert_eq!(report.screenshots.shots.len(), 3);
    assert!(report.notes.iter().all(|n| !n.starts_with("screenshots:")));

    // The JSON names the pictures; the bytes are never in it.
    let json: Value = serde_json::to_value(&report).unwrap();
    let ids: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["screenshot"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(
        json["pages"][0]["thumbnail"],
        page.thumbnail.as_deref().unwrap()
    );
    assert!(json.get("screenshots").is_none());
    // And the schema knows the new fields.
    let schema: Value =
        serde_json::from_str(include_str!("../../schema/report.schema.json")).unwrap();
    let validator = jsonschema::options().build(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    // The self-contained HTML report embeds them.
    let html = String::from_utf8(
        sitescan::render::render(&report, sitescan::render::Format::Html).unwrap(),
    )
    .unwrap();
    assert!(html.contains(&format!("src=\"{}\"", a.data_url())));
    assert!(html.contains(&format!("src=\"{}\"", thumb.data_url())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_leaves_the_second_element_without_a_picture_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    site_dir(dir.path());
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let report = scan(
        &server.url(),
        ScreenshotOptions {
            max: 1,
            ..ScreenshotOptions::default()
        },
    )
    .await;
    let pictured: Vec<(&str, bool)> = report
        .findings
        .iter()
        .map(|f| (f.selector.as_str(), f.screenshot.is_some()))
        .collect();
    assert_eq!(pictured, [("#a", true), ("#b", false)]);
    assert_eq!(report.screenshots.shots.len(), 1);
    assert_eq!(report.pages[0].thumbnail, None);
    let note = "screenshots: 2 failing element(s) or page(s) have no picture: the scan's cap of 1 pictures or 20971520 bytes was reached (render_options.screenshots)";
    assert!(report.notes.iter().any(|n| n == note), "{:?}", report.notes);

    // Off: no picture, no note.
    let report = scan(
        &server.url(),
        ScreenshotOptions {
            enabled: false,
            ..ScreenshotOptions::default()
        },
    )
    .await;
    assert!(report.findings.iter().all(|f| f.screenshot.is_none()));
    assert!(report.screenshots.is_empty());
    assert!(report.notes.iter().all(|n| !n.starts_with("screenshots:")));
}

/// A page 20,000 pixels tall whose images without a text alternative take
/// their colour from how far the page is scrolled (a scroll-driven
/// animation, red at the top to blue at the bottom). `#mid` lies half way
/// down; `#under` lies under a fixed band across the middle of the viewport
/// wherever the page is scrolled to put it there.
const FAR_PAGE: &str = r##"<!doctype html>
<html lang="en"><head><title>Far down</title>
<style>
html, body { margin: 0; background: #fff }
@keyframes tint { from { background-color: rgb(255, 0, 0) } to { background-color: rgb(0, 0, 255) } }
img { position: absolute; display: block; width: 100px; height: 50px; animation: tint linear both; animation-timeline: scroll(root) }
#band { position: fixed; left: 500px; width: 300px; top: calc(50% - 40px); height: 80px; background: rgb(0, 128, 0) }
</style></head>
<body><h1 style="margin: 0; font-size: 16px">Far down</h1>
<div style="height: 20000px"></div>
<img id="mid" src="/clear.svg" style="left: 200px; top: 10000px">
<img id="under" src="/clear.svg" style="left: 550px; top: 15000px">
<div id="band"></div>
</body></html>"##;

/// An element far down a long page is pictured as a visitor scrolled to it
/// sees it, in the viewport (not in a picture of the whole document, which
/// shows the page as it is at its top); where something fixed would lie
/// over it in the viewport, it is pictured in the document as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_element_far_down_is_pictured_where_a_visitor_scrolls_to_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), FAR_PAGE).unwrap();
    std::fs::write(
        dir.path().join("clear.svg"),
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("robots.txt"), "User-agent: *\nAllow: /\n").unwrap();
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let report = scan(&server.url(), ScreenshotOptions::default()).await;
    let picture = |sel: &str| Image::decode(&picture_of(&report, sel).bytes);
    let m = MARGIN as u32;

    // Half way down: scrolled to about half of the animation, purple.
    let mid = picture("#mid");
    assert_eq!((mid.width, mid.height), (100 + 2 * m, 50 + 2 * m));
    assert_eq!(mid.rgb(m - 1, m + 25), HIGHLIGHT);
    let [r, g, b] = mid.rgb(m + 50, m + 25);
    assert!(
        (90..=165).contains(&r) && g == 0 && (90..=165).contains(&b),
        "#mid is painted as scrolled half way: {:?}",
        [r, g, b]
    );

    // The band would cover it in the viewport: the document's picture, with
    // the page at its top (red), and no band in it.
    let under = picture("#under");
    assert_eq!(
        under.rgb(m + 50, m + 25),
        [255, 0, 0],
        "#under at the top's colour"
    );
    for y in 0..under.height {
        for x in 0..under.width {
            assert_ne!(under.rgb(x, y), [0, 128, 0], "the band at ({x}, {y})");
        }
    }
}

/// A service on `store` whose one worker renders.
struct Svc {
    base: String,
    store: Arc<dyn Store>,
    client: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Svc {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

impl Svc {
    async fn start(store: Arc<dyn Store>, queue: Arc<dyn Queue>) -> Svc {
        browser_for_tests();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let service = Service {
            store: Arc::clone(&store),
            queue,
            executor: Arc::new(EngineExecutor),
            workers: WorkerSettings {
                workers: 1,
                allow_private: true,
                page_budget: sitescan::PageBudget::DEFAULT,
                rate_per_host: 200.0,
                render: true,
                secret_key: None,
            },
            rate_per_minute: 10_000,
            grace: Duration::from_secs(2),
            webhooks: sitescan_daemon::webhooks::DeliverySettings::new(true),
            schedules: sitescan_daemon::scheduler::SchedulerSettings {
                min_interval: Duration::from_secs(60),
                tick: Duration::from_secs(1),
            },
        };
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            service
                .run(listener, async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        Svc {
            base,
            store,
            client: reqwest::Client::new(),
            stop: Some(tx),
        }
    }

    /// A new enterprise account, its key, and a site of it at `url`.
    async fn tenant(&self, url: &str) -> (String, String) {
        let account = Account {
            id: new_id("acc").unwrap(),
            name: Some("Test".into()),
            plan: Plan::Enterprise,
            created_at: Utc::now(),
        };
        let account = self.store.create_account(account).await.unwrap().id;
        let (key, secret, hash) = new_key(
            &account,
            "test",
            None,
            chrono::Duration::days(1),
            Utc::now(),
        )
        .unwrap();
        self.store.create_key(key, &hash).await.unwrap();
        let site = Site {
            id: new_id("site").unwrap(),
            account_id: account.clone(),
            url: url.into(),
            name: "pictures".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        };
        let site = self.store.create_site(site).await.unwrap().id;
        (site, secret)
    }

    async fn get(&self, path: &str, key: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .header("X-API-Key", key)
            .send()
            .await
            .unwrap()
    }

    async fn get_json(&self, path: &str, key: &str) -> (u16, Value) {
        crate::api_support::json_of(self.get(path, key).await).await
    }
}

/// A render scan of `url` through the API of `svc`, checked against what
/// its report names: the owner gets each picture, another tenant a 404.
async fn pictures_through_the_api(svc: &Svc, url: &str) {
    let (site, key) = svc.tenant(url).await;
    let (_, stranger) = svc.tenant(url).await;
    let resp = svc
        .client
        .post(format!("{}/api/v1/sites/{site}/scans", svc.base))
        .header("X-API-Key", &key)
        .json(
            &json!({"config": {"rules": ["image-alt"], "max_pages": 1, "render": true,
            "render_options": {"wait": "load", "quiet_ms": 0}}}),
        )
        .send()
        .await
        .unwrap();
    let (status, body) = crate::api_support::json_of(resp).await;
    assert_eq!(status, 202, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (_, scan) = svc.get_json(&format!("/api/v1/scans/{id}"), &key).await;
        let status = scan["data"]["status"].as_str().unwrap().to_string();
        if status == "completed" {
            break;
        }
        assert!(status != "failed" && status != "canceled", "{scan}");
        assert!(std::time::Instant::now() < deadline, "scan still {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, report) = svc
        .get_json(&format!("/api/v1/scans/{id}/report"), &key)
        .await;
    assert_eq!(status, 200, "{report}");
    let a = report["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["selector"] == "#a")
        .unwrap()["screenshot"]
        .as_str()
        .expect("#a names its picture")
        .to_string();
    let thumb = report["data"]["pages"][0]["thumbnail"]
        .as_str()
        .expect("the page names its thumbnail")
        .to_string();

    let path = format!("/api/v1/scans/{id}/screenshots/{a}");
    let resp = svc.get(&path, &key).await;
    assert_eq!(resp.status(), 200);
    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/png"));
    assert_eq!(
        header(&resp, "cache-control").as_deref(),
        Some("private, max-age=86400, immutable")
    );
    let png = resp.bytes().await.unwrap();
    assert_picture_of_a(&png);

    let resp = svc
        .get(&format!("/api/v1/scans/{id}/screenshots/{thumb}"), &key)
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/jpeg"));
    assert!(resp.bytes().await.unwrap().starts_with(&[0xFF, 0xD8, 0xFF]));

    // Another tenant: the scan does not exist for it.
    let (status, body) = svc.get_json(&path, &stranger).await;
    assert_error(status, &body, 404, "scan_not_found");
    // The owner, with an id the report does not name or of the wrong shape.
    let (status, body) = svc
        .get_json(&format!("/api/v1/scans/{id}/screenshots/shot-999"), &key)
        .await;
    assert_error(status, &body, 404, "screenshot_not_found");
    let (status, body) = svc
        .get_json(&format!("/api/v1/scans/{id}/screenshots/..%2Freport"), &key)
        .await;
    assert_error(status, &body, 404, "screenshot_not_found");

    // The HTML report the API renders embeds the stored pictures.
    let resp = svc
        .get(&format!("/api/v1/scans/{id}/report?format=html"), &key)
        .await;
    assert_eq!(resp.status(), 200);
    let html = resp.text().await.unwrap();
    let shot = sitescan_engine::report::Screenshot {
        id: a,
        content_type: "image/png",
        bytes: png,
    };
    assert!(html.contains(&format!("src=\"{}\"", shot.data_url())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_serves_pictures_to_their_owner_on_the_embedded_backend() {
    let dir = tempfile::tempdir().unwrap();
    site_dir(dir.path());
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let db = tempfile::tempdir().unwrap();
    let store = Arc::new(Embedded::open(db.path()).unwrap());
    let svc = Svc::start(store.clone(), store).await;
    pictures_through_the_api(&svc, &server.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_serves_pictures_to_their_owner_on_the_redis_backend() {
    let dir = tempfile::tempdir().unwrap();
    site_dir(dir.path());
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let (url, _own) = shared_redis();
    let guard = PrefixGuard::new(&url);
    let redis = Arc::new(backend(&url, &guard.prefix, Duration::from_secs(60), 3).await);
    let svc = Svc::start(redis.clone(), redis).await;
    pictures_through_the_api(&svc, &server.url()).await;
}
