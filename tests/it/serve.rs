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
