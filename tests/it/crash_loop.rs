//! A page that takes the process down does not take the other tenants' scans
//! with it: `sitescan serve` is killed with SIGKILL (as an abort or an
//! out-of-memory kill would end it) while one scan's page is in analysis and
//! another scan waits on its site. After two such kills the first scan is
//! failed naming the page; the other was never charged and completes with
//! its first attempt.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;

use crate::api_support::{admin_ok, sitescan, KeyedApi};

/// `sitescan serve` on `dir` with two workers (both scans run at once).
struct Serve {
    child: std::process::Child,
    base: String,
}

impl Serve {
    fn start(dir: &Path) -> Serve {
        use std::io::BufRead;
        let mut child = sitescan()
            .args([
                "serve",
                "--bind",
                "127.0.0.1:0",
                "--workers",
                "2",
                "--allow-private",
            ])
            .arg("--data-dir")
            .arg(dir)
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        Serve {
            child,
            base: v["listening"].as_str().unwrap().to_string(),
        }
    }

    /// SIGKILL: no shutdown code runs, as when a page aborts the process.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl KeyedApi for Serve {
    fn base(&self) -> &str {
        &self.base
    }
}

/// A site whose `/` links to `/held.html`, which is answered only once
/// `release` turns true: a scan of it stays running, fetching, for as long as
/// the test wants. Counts the requests for `/held.html`.
async fn held_site(release: watch::Receiver<bool>) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let held = Arc::new(AtomicUsize::new(0));
    let counter = held.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            let (counter, mut release) = (counter.clone(), release.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16_384 {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                let (status, body) = match path.as_str() {
                    "/" => ("200 OK", "<!doctype html><html lang=\"en\"><head><title>Home</title></head><body><main><h1>Home</h1><p><a href=\"/held.html\">Held</a></p></main></body></html>"),
                    "/held.html" => {
                        counter.fetch_add(1, Ordering::SeqCst);
                        while !*release.borrow() {
                            if release.changed().await.is_err() {
                                return;
                            }
                        }
                        ("200 OK", "<!doctype html><html lang=\"en\"><head><title>Held</title></head><body><main><h1>Held</h1><p>Answered at last.</p></main></body></html>")
                    }
                    _ => ("404 Not Found", "not found"),
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(reply.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    (base, held)
}

/// A page slow to analyse (long, many elements each rule looks at), served
/// as a site's only page.
pub(crate) fn slow_page_site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from(
        "<!doctype html><html lang=\"en\"><head><title>Long</title></head><body><main><h1>Long</h1>",
    );
    for i in 0..SLOW_PAGE_SECTIONS {
        body.push_str(&format!(
            "<section><h2>Part {i}</h2><p style=\"color:#777\">Text {i} with <a href=\"#s{i}\">a link</a>, \
             <img src=\"i{i}.png\"> and <button>act {i}</button>.</p>\
             <label>Field {i} <input name=\"f{i}\"></label><ul><li>one</li><li>two</li></ul></section>"
        ));
    }
    body.push_str("</main></body></html>");
    std::fs::write(dir.path().join("index.html"), body).unwrap();
    dir
}

/// Sections of the slow page: seconds of analysis in a debug build.
const SLOW_PAGE_SECTIONS: usize = 6_000;

/// The pages of `scan` recorded as in analysis (the embedded backend keeps
/// them in `<data-dir>/analysis/<scan id>`, one URL a line).
fn in_analysis(dir: &Path, scan: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join("analysis").join(scan))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

async fn until(what: &str, secs: u64, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn scan_of(server: &Serve, key: &str, id: &str) -> Value {
    let (s, b) = server.get(&format!("/api/v1/scans/{id}"), key).await;
    assert_eq!(s, 200, "{b}");
    b["data"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_kills_the_process_twice_fails_its_scan_and_spares_the_others() {
    let slow_dir = slow_page_site();
    let slow = sitescan_fixtures::FixtureServer::start(slow_dir.path())
        .await
        .unwrap();
    let (release, release_rx) = watch::channel(false);
    let (held_base, held) = held_site(release_rx).await;

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let acc = admin_ok(data, &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let key = admin_ok(data, &["key", "create", "--account", &acc, "--name", "ci"]);
    let key = key["key"].as_str().unwrap().to_string();
    let bad_site = admin_ok(data, &["site", "add", "--account", &acc, &slow.url()]);
    let good_site = admin_ok(
        data,
        &["site", "add", "--account", &acc, &format!("{held_base}/")],
    );

    let server = Serve::start(data);
    let mut ids = Vec::new();
    for site in [&good_site, &bad_site] {
        let (s, b) = server
            .post(
                &format!("/api/v1/sites/{}/scans", site["id"].as_str().unwrap()),
                &key,
                json!({"config": {"rules": ["wcag-aa"]}}),
            )
            .await;
        assert_eq!(s, 202, "{b}");
        ids.push(b["data"]["id"].as_str().unwrap().to_string());
    }
    let (good, bad) = (ids[0].clone(), ids[1].clone());
    let slow_page = slow.url();

    let mut server = server;
    for kill in 1..=2usize {
        // The other scan waits on its held page (its `/` analysed, nothing of
        // it in analysis), and the slow page is in analysis: kill -9.
        until("the other scan to wait on its held page", 60, || {
            held.load(Ordering::SeqCst) == kill && in_analysis(data, &good).is_empty()
        })
        .await;
        // Fetched at this attempt (so the restart already charged the record
        // of the last one), and recorded as in analysis.
        until("the slow page to be in analysis", 60, || {
            slow.count("/") == kill && in_analysis(data, &bad) == [slow_page.clone()]
        })
        .await;
        assert_eq!(scan_of(&server, &key, &good).await["status"], "running");
        server.kill();
        server = Serve::start(data);
    }

    // The scan whose page was in analysis at both kills is failed, naming it,
    // without being run a third time.
    let mut failed;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        failed = scan_of(&server, &key, &bad).await;
        if failed["status"] != "running" && failed["status"] != "queued" {
            break;
        }
        assert!(Instant::now() < deadline, "{failed}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(
        failed["error"],
        format!(
            "the page {slow_page} crashed the scanner 2 times (the process died while \
             analysing it); the scan was stopped"
        )
    );
    assert_eq!(failed["attempts"], 2, "{failed}");
    assert_eq!(slow.count("/"), 2, "fetched at the two attempts only");

    // The other scan was interrupted twice but charged nothing: released, it
    // completes with its first attempt.
    until("the other scan's third wait", 60, || {
        held.load(Ordering::SeqCst) == 3
    })
    .await;
    release.send(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let s = scan_of(&server, &key, &good).await;
        if s["status"] == "completed" {
            break s;
        }
        assert_eq!(s["status"], "running", "{s}");
        assert!(Instant::now() < deadline, "{s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["attempts"], 1, "{done}");
    assert_eq!(done["summary"]["pages_fetched"], 2, "{done}");
    assert!(in_analysis(data, &good).is_empty());
    assert!(in_analysis(data, &bad).is_empty());
}
