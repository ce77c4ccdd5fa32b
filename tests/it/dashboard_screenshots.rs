//! Render mode's pictures in the dashboard over real HTTP (the in-process
//! `serve` of `api_support`, its one worker rendering in a real Chromium):
//! the findings explorer shows each pictured finding's screenshot and, where
//! it names a page first (once per page, so once per group sorted by page),
//! the page's thumbnail, both served by `/scans/{scanId}/screenshots/{id}`
//! with the session's tenancy and the same bytes as the API's route; our own
//! rules find nothing on those pages; a static scan's rows have no picture.

use serde_json::{json, Value};
use sitescan_daemon::dashboard::pictures::PICTURE_CONTENT_SECURITY_POLICY as PICTURE_CSP;
use sitescan_daemon::dashboard::CONTENT_SECURITY_POLICY as CSP;
use sitescan_daemon::store::Plan;
use sitescan_fixtures::FixtureServer;

use crate::api_support::TestApi;
use crate::dashboard::{self_scan, sign_in, user, Browser};

/// Runs a scan of `site` (only `image-alt`, one page) through the API and
/// waits for it; returns its id and its JSON report.
async fn scan(api: &TestApi, key: &str, site: &str, render: bool) -> (String, Value) {
    let mut config = json!({"rules": ["image-alt"], "max_pages": 1});
    if render {
        config["render"] = json!(true);
        config["render_options"] = json!({"wait": "load", "quiet_ms": 0});
    }
    let (status, body) = api
        .post(
            &format!("/api/v1/sites/{site}/scans"),
            key,
            json!({ "config": config }),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let done = api.wait_terminal(&id, key, 120).await;
    assert_eq!(done["status"], "completed", "{done}");
    let (status, report) = api.get(&format!("/api/v1/scans/{id}/report"), key).await;
    assert_eq!(status, 200, "{report}");
    (id, report["data"].clone())
}

/// The picture id the report gives the finding about `selector`.
fn shot_of(report: &Value, selector: &str) -> Option<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["selector"] == selector)
        .unwrap_or_else(|| panic!("no finding about {selector}: {report}"))["screenshot"]
        .as_str()
        .map(str::to_string)
}

/// The explorer's row of the finding about `selector` (its `<tr>` to `</tr>`).
fn row_of<'a>(body: &'a str, selector: &str) -> &'a str {
    body.split("<tr data-fingerprint=")
        .skip(1)
        .map(|tr| &tr[..tr.find("</tr>").unwrap()])
        .find(|tr| tr.contains(&format!("<code>{selector}</code>")))
        .unwrap_or_else(|| panic!("no row about {selector} in {body}"))
}

/// The `<img>` the explorer shows for picture `shot` of scan `scan`, in its
/// link to the picture at full size.
fn picture_markup(scan: &str, shot: &str, selector: &str) -> String {
    format!(
        r#"<a class="shot" href="/scans/{scan}/screenshots/{shot}"><img class="shot" src="/scans/{scan}/screenshots/{shot}" alt="Screenshot of {selector} (rule image-alt), framed in magenta" width="160" height="100" loading="lazy"></a>"#
    )
}

/// The thumbnail the explorer shows in the page cell of the first row naming
/// page `url`, in its link to the picture.
fn thumbnail_markup(scan: &str, thumb: &str, url: &str) -> String {
    format!(
        r#"<td class="url"><a class="thumb" href="/scans/{scan}/screenshots/{thumb}"><img class="thumb" src="/scans/{scan}/screenshots/{thumb}" alt="Thumbnail of the page {url} as rendered (its first screen)" width="128" height="80" loading="lazy"></a>{url}</td>"#
    )
}

/// The explorer's rows, in order (each `<tr>` to `</tr>`).
fn rows(body: &str) -> Vec<&str> {
    body.split("<tr data-fingerprint=")
        .skip(1)
        .map(|tr| &tr[..tr.find("</tr>").unwrap()])
        .collect()
}

async fn fetch(b: &Browser, path: &str) -> reqwest::Response {
    b.client
        .get(format!("{}{path}", b.base))
        .header(
            "cookie",
            format!("sitescan_session={}", b.cookie.as_deref().unwrap()),
        )
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explorer_shows_each_pictured_finding_with_its_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    crate::screenshots::site_dir(dir.path());
    let server = FixtureServer::start(dir.path()).await.unwrap();
    let api = TestApi::start_rendering().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let key = api.key(&account).await;
    let site = api.site(&account, &server.url()).await;
    let (id, report) = scan(&api, &key, &site, true).await;
    let a = shot_of(&report, "#a").expect("#a has a picture");
    let b_shot = shot_of(&report, "#b").expect("#b has a picture");
    assert_ne!(a, b_shot);

    // The explorer: each row shows its own finding's picture.
    let mut b = sign_in(&api, &email).await;
    let page = b.get(&format!("/scans/{id}/findings")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        page.headers
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok()),
        Some(CSP),
        "same-origin pictures are allowed by default-src 'self'"
    );
    assert!(CSP.starts_with("default-src 'self';") && !CSP.contains("img-src"));
    let row_a = row_of(&page.body, "#a");
    assert!(row_a.contains(&picture_markup(&id, &a, "#a")), "{row_a}");
    assert!(!row_a.contains(&b_shot), "{row_a}");
    let row_b = row_of(&page.body, "#b");
    assert!(
        row_b.contains(&picture_markup(&id, &b_shot, "#b")),
        "{row_b}"
    );
    // The page's thumbnail: in the page cell of the first row naming the
    // page (both findings are on the one page), and nowhere else.
    let thumb = report["pages"][0]["thumbnail"]
        .as_str()
        .expect("the page has a thumbnail");
    let page_url = report["findings"][0]["page_url"].as_str().unwrap();
    let thumb_cell = thumbnail_markup(&id, thumb, page_url);
    let listed = rows(&page.body);
    assert_eq!(listed.len(), 2);
    assert!(listed[0].contains(&thumb_cell), "{}", listed[0]);
    assert!(!listed[1].contains(thumb), "{}", listed[1]);
    assert!(listed[1].contains(&format!(r#"<td class="url">{page_url}</td>"#)));
    assert_eq!(page.body.matches("<img ").count(), 3);
    assert_eq!(
        page.body
            .matches(&format!("/screenshots/{thumb}\""))
            .count(),
        2
    );
    // Grouped by page: the group starts with its page's thumbnail.
    let by_page = b.get(&format!("/scans/{id}/findings?sort=page")).await;
    assert_eq!(by_page.status, 200);
    let listed = rows(&by_page.body);
    assert!(listed[0].contains(&thumb_cell), "{}", listed[0]);
    assert!(!listed[1].contains(thumb));
    // Our own rules over both views (alt text, sizes, contrast, headers).
    let css = b.get("/assets/app.css").await.body;
    for (path, answer) in [("findings", &page), ("findings?sort=page", &by_page)] {
        let problems = self_scan(&format!("{}/scans/{id}/{path}", api.base), answer, &css);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    // The route: the picture the API serves, byte for byte.
    let resp = fetch(&b, &format!("/scans/{id}/screenshots/{a}")).await;
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
    assert_eq!(
        header(&resp, "x-content-type-options").as_deref(),
        Some("nosniff")
    );
    // Opened on its own, in the browser's image document: its own policy.
    assert_eq!(
        header(&resp, "content-security-policy").as_deref(),
        Some(PICTURE_CSP)
    );
    let png = resp.bytes().await.unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    crate::screenshots::assert_picture_of_a(&png);
    let from_api = api
        .req(
            reqwest::Method::GET,
            &format!("/api/v1/scans/{id}/screenshots/{a}"),
            Some(&key),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(from_api.status(), 200);
    assert_eq!(from_api.bytes().await.unwrap(), png);
    // The page's thumbnail, as JPEG: the API's bytes.
    let resp = fetch(&b, &format!("/scans/{id}/screenshots/{thumb}")).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/jpeg"));
    assert_eq!(
        header(&resp, "x-content-type-options").as_deref(),
        Some("nosniff")
    );
    let jpeg = resp.bytes().await.unwrap();
    assert!(jpeg.starts_with(&[0xFF, 0xD8, 0xFF]));
    let from_api = api
        .req(
            reqwest::Method::GET,
            &format!("/api/v1/scans/{id}/screenshots/{thumb}"),
            Some(&key),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(from_api.status(), 200);
    assert_eq!(from_api.bytes().await.unwrap(), jpeg);

    // A picture the report does not have, or an id of the wrong shape: 404.
    for bad in ["shot-999", "..%2Freport"] {
        let resp = fetch(&b, &format!("/scans/{id}/screenshots/{bad}")).await;
        assert_eq!(resp.status(), 404, "{bad}");
    }
    // Signed out: to the sign-in page, no picture.
    let resp = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/scans/{id}/screenshots/{a}", api.base))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    assert!(header(&resp, "location").unwrap().starts_with("/login?"));

    // Another account: the scan, its explorer and its pictures are not found.
    let (_, other) = user(&api, Plan::Enterprise).await;
    let stranger = sign_in(&api, &other).await;
    let resp = fetch(&stranger, &format!("/scans/{id}/screenshots/{thumb}")).await;
    assert_eq!(resp.status(), 404);
    let resp = fetch(&stranger, &format!("/scans/{id}/screenshots/{a}")).await;
    assert_eq!(resp.status(), 404);
    assert_eq!(
        header(&resp, "content-type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    let body = resp.text().await.unwrap();
    assert!(!body.contains("PNG"));
    let resp = fetch(&stranger, &format!("/scans/{id}/findings")).await;
    assert_eq!(resp.status(), 404);

    // A static scan of the same page: the same findings, no pictures.
    let (static_id, static_report) = scan(&api, &key, &site, false).await;
    assert_eq!(shot_of(&static_report, "#a"), None);
    assert_eq!(shot_of(&static_report, "#b"), None);
    let page = b.get(&format!("/scans/{static_id}/findings")).await;
    assert_eq!(page.status, 200);
    row_of(&page.body, "#a");
    row_of(&page.body, "#b");
    assert!(!page.body.contains("<img"), "{}", page.body);
    assert!(!page.body.contains("/screenshots/"));
    api.stop().await;
}
