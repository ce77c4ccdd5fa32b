//! The `sitescan serve` and `sitescan admin` binaries: the admin commands'
//! output contract, restart persistence (kill the server mid-scan, start it
//! again, the scan completes) and graceful shutdown on SIGTERM.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::api_support::{admin, slow_site, KeyedApi, ServeProcess};

#[test]
fn admin_creates_accounts_keys_and_sites_and_prints_one_json_object() {
    let dir = tempfile::tempdir().unwrap();
    let (code, acc, _) = admin(
        dir.path(),
        &[
            "account",
            "create",
            "--plan",
            "professional",
            "--name",
            "Acme",
        ],
    );
    assert_eq!(code, 0);
    let acc_id = acc["id"].as_str().unwrap().to_string();
    assert!(acc_id.starts_with("acc_"));
    assert_eq!(acc["plan"], "professional");

    let (code, key, stderr) = admin(
        dir.path(),
        &[
            "key",
            "create",
            "--account",
            &acc_id,
            "--name",
            "ci",
            "--description",
            "deploys",
            "--expires-in",
            "30d",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let secret = key["key"].as_str().unwrap().to_string();
    assert!(
        secret.starts_with("key_") && secret.len() >= 4 + 32,
        "{secret}"
    );
    assert!(secret[4..].chars().all(|c| c.is_ascii_hexdigit()));
    let key_id = key["id"].as_str().unwrap().to_string();
    assert!(stderr.contains("not shown again"));

    let (code, list, _) = admin(dir.path(), &["key", "list", "--account", &acc_id]);
    assert_eq!(code, 0);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], key_id.as_str());
    assert_eq!(list[0]["description"], "deploys");
    let listed = list.to_string();
    assert!(!listed.contains(&secret[4..]), "the secret is never listed");

    let (code, site, _) = admin(
        dir.path(),
        &["site", "add", "--account", &acc_id, "https://example.com/"],
    );
    assert_eq!(code, 0);
    assert!(site["id"].as_str().unwrap().starts_with("site_"));

    let (code, revoked, _) = admin(dir.path(), &["key", "revoke", &key_id]);
    assert_eq!(code, 0);
    assert!(revoked["revoked_at"].is_string());

    let (code, _, stderr) = admin(dir.path(), &["account", "create", "--plan", "gold"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown plan"));
    let (code, _, _) = admin(
        dir.path(),
        &["key", "create", "--account", "acc_nope", "--name", "x"],
    );
    assert_eq!(code, 2);
    let (code, _, _) = admin(
        dir.path(),
        &[
            "key",
            "create",
            "--account",
            &acc_id,
            "--name",
            "x",
            "--expires-in",
            "soon",
        ],
    );
    assert_eq!(code, 2);
    let (code, _, _) = admin(
        dir.path(),
        &["site", "add", "--account", &acc_id, "not a url"],
    );
    assert_eq!(code, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_interrupted_by_a_killed_server_completes_after_restart() {
    let (_site_dir, site) = slow_site(6, 300).await;
    let dir = tempfile::tempdir().unwrap();
    let (_, acc, _) = admin(dir.path(), &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let (_, key, _) = admin(
        dir.path(),
        &["key", "create", "--account", &acc, "--name", "ci"],
    );
    let key = key["key"].as_str().unwrap().to_string();
    let (_, s, _) = admin(dir.path(), &["site", "add", "--account", &acc, &site.url()]);
    let site_id = s["id"].as_str().unwrap().to_string();

    let server = ServeProcess::start(dir.path(), &[]);
    let (s, body) = server
        .post(
            &format!("/api/v1/sites/{site_id}/scans"),
            &key,
            json!({"config": {"rules": ["wcag-aa"]}}),
        )
        .await;
    assert_eq!(s, 202, "{body}");
    let scan_id = body["data"]["id"].as_str().unwrap().to_string();

    // Wait until it is running with at least one page done and none in
    // analysis (pages answer after 300 ms: it waits on a fetch), then kill -9.
    let in_analysis = dir.path().join("analysis").join(&scan_id);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, b) = server.get(&format!("/api/v1/scans/{scan_id}"), &key).await;
        if b["data"]["status"] == "running"
            && b["data"]["progress"]["pages_done"].as_u64().unwrap_or(0) >= 1
            && !in_analysis.exists()
        {
            break;
        }
        assert_ne!(
            b["data"]["status"], "completed",
            "the scan finished before the kill: slow the site down"
        );
        assert!(Instant::now() < deadline, "{b}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(server);

    let server = ServeProcess::start(dir.path(), &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let (s, b) = server.get(&format!("/api/v1/scans/{scan_id}"), &key).await;
        assert_eq!(s, 200, "{b}");
        if b["data"]["status"] == "completed" {
            break b["data"].clone();
        }
        assert!(
            b["data"]["status"] == "running" || b["data"]["status"] == "queued",
            "{b}"
        );
        assert!(Instant::now() < deadline, "{b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Interrupted while fetching, not analysing: the crash is not charged.
    assert_eq!(done["attempts"], 1, "{done}");
    assert_eq!(done["summary"]["pages_fetched"], 6, "{done}");
    let (s, report) = server
        .get(&format!("/api/v1/scans/{scan_id}/report"), &key)
        .await;
    assert_eq!(s, 200);
    assert_eq!(report["data"]["pages"].as_array().unwrap().len(), 6);
    let (_, sites) = server.get("/api/v1/sites", &key).await;
    assert_eq!(sites["data"][0]["id"], site_id.as_str());
}

#[test]
fn serve_stops_gracefully_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = ServeProcess::start(dir.path(), &[]);
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn admin_says_why_when_serve_holds_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let _server = ServeProcess::start(dir.path(), &[]);
    let (code, _, stderr) = admin(dir.path(), &["account", "create", "--plan", "enterprise"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("another sitescan process"), "{stderr}");
}

/// `serve` whose browser goes away after it started (Chromium removed or
/// broken under it): a render scan fails, promptly, with what went wrong and
/// the package to install; static scans still run; `/readyz` says render
/// scans cannot run now and why; nothing restarts the browser on its own in
/// a loop; and once the browser starts again render scans work again, with
/// the same process.
///
/// `SITESCAN_CHROMIUM` names a wrapper script that writes its pid (the
/// browser's, as it `exec`s) and a line per start, then runs Debian's
/// chromium, or exits 1 while a `broken` file sits beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_stops_starting_fails_render_scans_until_it_starts_again() {
    let tools = tempfile::tempdir().unwrap();
    let wrapper = tools.path().join("chromium");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\n\
         here=$(dirname \"$0\")\n\
         echo start >> \"$here/starts\"\n\
         if [ -e \"$here/broken\" ]; then echo 'chromium: cannot open shared object file' >&2; exit 1; fi\n\
         echo $$ > \"$here/browser.pid\"\n\
         exec /usr/bin/chromium \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    let starts = || {
        std::fs::read_to_string(tools.path().join("starts"))
            .unwrap_or_default()
            .lines()
            .count()
    };

    let site_dir = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(site_dir.path()).await;
    let dir = tempfile::tempdir().unwrap();
    let (_, acc, _) = admin(dir.path(), &["account", "create", "--plan", "enterprise"]);
    let acc = acc["id"].as_str().unwrap().to_string();
    let (_, key, _) = admin(
        dir.path(),
        &["key", "create", "--account", &acc, "--name", "ci"],
    );
    let key = key["key"].as_str().unwrap().to_string();
    let (_, s, _) = admin(dir.path(), &["site", "add", "--account", &acc, &app.url()]);
    let site_id = s["id"].as_str().unwrap().to_string();

    let mut cmd = crate::api_support::sitescan();
    cmd.args([
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--workers",
        "1",
        "--allow-private",
        "--rate",
        "100",
    ])
    .arg("--data-dir")
    .arg(dir.path())
    .env("SITESCAN_CHROMIUM", &wrapper)
    .env("SITESCAN_CHROMIUM_NO_SANDBOX", "1")
    .env("RUST_LOG", "warn")
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::null());
    let mut server = ServeProcess::spawn(cmd);

    let scan = |render: bool| json!({"config": {"rules": crate::api_render::APP_RULES, "max_pages": 1, "render": render}});
    let run = |server: &ServeProcess, render: bool| {
        let body = scan(render);
        let key = key.clone();
        let path = format!("/api/v1/sites/{site_id}/scans");
        let base = server.base.clone();
        async move {
            let api = Base(base);
            let (s, b) = api.post(&path, &key, body).await;
            assert_eq!(s, 202, "{b}");
            let id = b["data"]["id"].as_str().unwrap().to_string();
            // Bounded: a render scan whose browser cannot start must not hang.
            let deadline = Instant::now() + Duration::from_secs(90);
            loop {
                let (_, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
                let status = b["data"]["status"].as_str().unwrap_or("").to_string();
                if ["completed", "failed", "canceled"].contains(&status.as_str()) {
                    break b["data"].clone();
                }
                assert!(Instant::now() < deadline, "{b}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let ready = |server: &ServeProcess| {
        let base = server.base.clone();
        async move {
            let r = reqwest::get(format!("{base}/readyz")).await.unwrap();
            assert_eq!(r.status().as_u16(), 200, "static scans still run: ready");
            let v: serde_json::Value = r.json().await.unwrap();
            v["data"]["render"].clone()
        }
    };

    // Before any render scan: nothing started, render scans available.
    assert_eq!(ready(&server).await, json!({"available": true}));
    assert_eq!(starts(), 0);
    let done = run(&server, true).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(starts(), 1);
    assert_eq!(ready(&server).await, json!({"available": true}));

    // The browser breaks: its binary now fails, and the running one dies.
    std::fs::write(tools.path().join("broken"), "").unwrap();
    let pid = std::fs::read_to_string(tools.path().join("browser.pid")).unwrap();
    let killed = Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    let proc_dir = format!("/proc/{}", pid.trim());
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&proc_dir).exists()
        && !std::fs::read_to_string(format!("{proc_dir}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
    {
        assert!(Instant::now() < deadline, "the browser did not die");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let asked = Instant::now();
    let failed = run(&server, true).await;
    eprintln!(
        "a render scan without a browser failed {} ms after it was created",
        asked.elapsed().as_millis()
    );
    assert_eq!(failed["status"], "failed", "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!(
            "chromium did not start: {}: the browser exited or crashed (chromium: cannot open shared object file); reinstall Debian's `chromium` package (apt-get install chromium) or set SITESCAN_CHROMIUM to a browser that starts",
            wrapper.display()
        )),
        "{error}"
    );
    assert_eq!(starts(), 2, "one start tried");
    let render = ready(&server).await;
    assert_eq!(render["available"], false, "{render}");
    assert!(
        render["problem"]
            .as_str()
            .unwrap()
            .contains("apt-get install chromium"),
        "{render}"
    );
    assert!(render["retry_in_s"].as_u64().unwrap() <= 1, "{render}");

    // A static scan on the same process completes.
    let done = run(&server, false).await;
    assert_eq!(done["status"], "completed", "{done}");
    // Nothing starts the browser again by itself: no loop in the background.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(starts(), 2, "no start without a render scan");
    // The process is alive and serving.
    assert!(server.child.try_wait().unwrap().is_none());

    // The browser is back: render scans work again without a restart. (The
    // failed start's backoff, 1 s, passed during the wait above.)
    std::fs::remove_file(tools.path().join("broken")).unwrap();
    let done = run(&server, true).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["summary"]["pages_fetched"], 1, "{done}");
    assert_eq!(starts(), 3);
    assert_eq!(ready(&server).await, json!({"available": true}));
    assert_eq!(
        app.count("/api/hero.json"),
        2,
        "two scans rendered the page"
    );

    // The browser breaks in the middle of a scan: the scan stops with the
    // browser's error at its next page instead of failing page after page.
    let (_slow_dir, slow) = crate::api_support::slow_site(8, 400).await;
    let api = Base(server.base.clone());
    let (s, b) = api
        .post("/api/v1/sites", &key, json!({"url": slow.url()}))
        .await;
    assert_eq!(s, 201, "{b}");
    let slow_id = b["data"]["id"].as_str().unwrap().to_string();
    let (s, b) = api
        .post(
            &format!("/api/v1/sites/{slow_id}/scans"),
            &key,
            json!({"config": {"rules": ["page-has-heading-one"], "render": true}}),
        )
        .await;
    assert_eq!(s, 202, "{b}");
    let id = b["data"]["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
        assert_eq!(
            b["data"]["status"].as_str().map(|s| s != "completed"),
            Some(true),
            "the scan ended before the browser broke: slow the site down: {b}"
        );
        if b["data"]["progress"]["pages_done"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        assert!(Instant::now() < deadline, "{b}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    std::fs::write(tools.path().join("broken"), "").unwrap();
    let pid = std::fs::read_to_string(tools.path().join("browser.pid")).unwrap();
    assert!(Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(90);
    let failed = loop {
        let (_, b) = api.get(&format!("/api/v1/scans/{id}"), &key).await;
        let status = b["data"]["status"].as_str().unwrap_or("").to_string();
        if ["completed", "failed", "canceled"].contains(&status.as_str()) {
            break b["data"].clone();
        }
        assert!(Instant::now() < deadline, "{b}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(failed["status"], "failed", "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "chromium did not start: {}: the browser exited or crashed (chromium: cannot open shared object file); reinstall Debian's `chromium` package (apt-get install chromium)",
            wrapper.display()
        )),
        "{error}"
    );
    assert!(
        slow.count("/p7.html") == 0,
        "the scan stopped before the last page: {:?}",
        slow.paths()
    );
    assert_eq!(ready(&server).await["available"], false);
    assert!(server.child.try_wait().unwrap().is_none());
    let _ = server.child.kill();
    let _ = server.child.wait();
}

/// A bare API base URL, for [`KeyedApi`]'s calls.
struct Base(String);

impl KeyedApi for Base {
    fn base(&self) -> &str {
        &self.0
    }
}
