//! The book's "Monitoring a site from scratch" (`docs/src/schedules.md`) run as
//! printed: its `sh` blocks, in order, in one bash process, in a fresh
//! temporary directory, with the demo site (python3's http.server) and
//! `sitescan serve` on free loopback ports (`SITE_PORT`, `API_PORT`). Only the
//! first block's three lines that build the release binary, put it on PATH and
//! move to a fresh directory are swapped for the binary of this test run and
//! the test's directory; every other line runs as printed. Each step's output
//! is checked against what the page says a reader sees, and afterwards the
//! store itself: the demo schedule made exactly the plan's two scans, the
//! webhook (a public URL, `https://hooks.example.com/...`) was never
//! delivered to, and the credentials are stored sealed. Nothing may still
//! run or listen at the end.
//!
//! The demo schedule fires every 15 seconds, so the page waits about a
//! minute in all; the guard below only bounds a hang. Needs `bash`,
//! `python3`, `curl`, `jq` and `openssl` (`scripts/test` installs them).

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Timelike, Utc};
use sitescan_daemon::store::Store;

use crate::docs::{code_blocks, read};
use crate::walkthrough::{json, need_tools, numbered_script, run_bash, split_steps, two_ports};

const PAGE: &str = "docs/src/schedules.md";
/// How long the page may take before the test gives up on it: it sleeps 55 s
/// and scans a one-page site twice; the rest is a loaded machine's margin.
const GUARD: Duration = Duration::from_secs(420);

/// The lines of the first block that the test does itself (the binary it
/// built on PATH, its own fresh directory as the working directory).
const SWAPPED: [&str; 3] = [
    "cargo build --release",
    "export PATH=\"$PWD/target/release:$PATH\"",
    "cd \"$(mktemp -d)\"",
];

fn utc(v: &serde_json::Value) -> DateTime<Utc> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| panic!("not an RFC 3339 time: {v}"))
}

#[test]
fn monitoring_walkthrough_runs_as_printed() {
    need_tools(&["bash", "python3", "curl", "jq", "openssl"]);
    let page = read(PAGE);
    let section = page
        .split("## Monitoring a site from scratch")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the page has the section");
    let mut blocks = code_blocks(section, "sh");
    assert_eq!(
        blocks.len(),
        9,
        "{PAGE}'s monitoring section has 9 sh blocks"
    );
    for line in SWAPPED {
        assert_eq!(
            blocks[0].lines().filter(|l| l.trim() == line).count(),
            1,
            "the first block has the line `{line}`:\n{}",
            blocks[0]
        );
    }
    blocks[0] = blocks[0]
        .lines()
        .filter(|l| !SWAPPED.contains(&l.trim()))
        .collect::<Vec<_>>()
        .join("\n");
    let script = numbered_script(&blocks, 0);

    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_sitescan"));
    let (site_port, api_port) = two_ports();
    let started = Utc::now();
    let (stdout, stderr, leftovers) = run_bash(
        &script,
        dir.path(),
        bin.parent().unwrap(),
        site_port,
        api_port,
        GUARD,
    );
    let ended = Utc::now();
    // Past a UTC midnight the plan's day turned during the run: the third
    // run may then rightly start a scan.
    let one_day = started.date_naive() == ended.date_naive();
    let serve_log = std::fs::read_to_string(dir.path().join("serve.log")).unwrap_or_default();
    let context = format!("--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- serve.log\n{serve_log}");
    assert!(
        !leftovers,
        "the walkthrough left a process running (serve or the demo site)\n{context}"
    );
    assert!(
        stdout.contains("@@ end"),
        "the walkthrough stopped early\n{context}"
    );
    let steps = split_steps(&stdout, blocks.len());
    let site_url = format!("http://127.0.0.1:{site_port}/");

    // 1. Silent; serve said where it listens.
    assert!(steps[0].is_empty(), "step 1 prints nothing\n{context}");
    let announced = std::fs::read_to_string(dir.path().join("serve.out")).unwrap();
    assert_eq!(
        announced.trim(),
        format!("{{\"listening\":\"http://127.0.0.1:{api_port}\"}}"),
        "{context}"
    );

    // 2. The site's id.
    assert_eq!(steps[1].len(), 1, "step 2\n{context}");
    let site_id = steps[1][0];
    assert!(
        site_id.starts_with("site_") && site_id.len() > "site_".len(),
        "step 2: {site_id}\n{context}"
    );

    // 3. The nightly schedule as created (201's body), at 02:30 in Berlin.
    let nightly = json(&steps[2].join("\n"));
    let nightly_id = nightly["id"].as_str().expect("an id").to_string();
    assert_eq!(nightly["cron"], "30 2 * * *", "{nightly}");
    assert_eq!(nightly["timezone"], "Europe/Berlin", "{nightly}");
    let next = utc(&nightly["next_run_at"]).with_timezone(&chrono_tz::Europe::Berlin);
    assert_eq!(
        (next.hour(), next.minute(), next.second()),
        (2, 30, 0),
        "{nightly}"
    );
    assert!(
        next > started && next <= ended + chrono::Duration::days(1),
        "the next 02:30 in Berlin: {nightly}"
    );
    assert_eq!(nightly.as_object().unwrap().len(), 4, "{nightly}");

    // The 422 names both fields, in order.
    assert_eq!(
        steps[3],
        ["{\"field\":\"cron\"}", "{\"field\":\"timezone\"}"],
        "step 3 (422)\n{context}"
    );

    // 6. (below) lists both schedules: the demo one is the other id.
    let listed: Vec<serde_json::Value> = steps[8][1..3].iter().map(|l| json(l)).collect();
    let demo = listed
        .iter()
        .find(|s| s["cron"] == "*/15 * * * * *")
        .unwrap_or_else(|| panic!("the demo schedule is listed\n{context}"));
    let demo_id = demo["id"].as_str().unwrap().to_string();
    assert_ne!(demo_id, nightly_id);

    // 4. After 25 s: the demo schedule's first scan (or first two), each
    // carrying its schedule and the time of its run (on a 15 s mark), then the
    // schedule's record saying it started the newest of them.
    let (outcome_line, scan_lines) = steps[4].split_last().expect("step 4 prints");
    assert!(
        (1..=2).contains(&scan_lines.len()),
        "one or two scans after 25 s\n{context}"
    );
    let mut scan_ids = Vec::new();
    for line in scan_lines {
        let scan = json(line);
        assert_eq!(
            scan.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["id", "schedule_id", "scheduled_for", "status"],
            "{scan}"
        );
        assert!(scan["id"].as_str().unwrap().starts_with("scan_"), "{scan}");
        assert_eq!(scan["schedule_id"], demo_id.as_str(), "{scan}");
        assert!(
            ["queued", "running", "completed"].contains(&scan["status"].as_str().unwrap()),
            "{scan}"
        );
        let at = utc(&scan["scheduled_for"]);
        assert_eq!(at.second() % 15, 0, "a run on a 15 s mark: {scan}");
        assert_eq!(at.nanosecond(), 0, "{scan}");
        assert!(at > started && at < ended, "{scan}");
        scan_ids.push(scan["id"].as_str().unwrap().to_string());
    }
    let record = json(outcome_line);
    assert_eq!(record["last_outcome"]["status"], "started", "{record}");
    assert_eq!(record["last_outcome"]["error"], serde_json::Value::Null);
    // The newest scan listed, unless the next run came between the two
    // requests (then it is checked against the store below).
    let outcome_scan = record["last_outcome"]["scan_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a scan id: {record}"))
        .to_string();
    assert!(
        outcome_scan == scan_ids[0] || scan_ids.len() == 1,
        "the newest scan is the last run's\n{context}"
    );
    let last_run = utc(&record["last_run_at"]);
    let next_run = utc(&record["next_run_at"]);
    assert!(next_run > last_run, "{record}");
    assert_eq!(next_run.second() % 15, 0, "{record}");

    // 4b. After 30 s more, the third run found the day's 2 scans used up.
    assert_eq!(steps[5].len(), 1, "step 4b\n{context}");
    let outcome = json(steps[5][0]);
    if one_day {
        assert_eq!(outcome["status"], "skipped_quota", "{outcome}\n{context}");
        assert_eq!(outcome["scan_id"], serde_json::Value::Null, "{outcome}");
        assert!(
            outcome["error"].as_str().is_some_and(
                |e| e.starts_with("the plan allows 2 scans per UTC day and they are used up")
            ),
            "{outcome}"
        );
    }

    // 5. The threshold, the webhook (its secret shown once), the mark.
    assert_eq!(steps[6].len(), 3, "step 5\n{context}");
    let threshold = json(steps[6][0]);
    assert_eq!(
        threshold,
        serde_json::json!({"id": site_id, "regression_threshold": "moderate"})
    );
    let hook = json(steps[6][1]);
    let hook_id = hook["id"].as_str().unwrap().to_string();
    assert!(hook_id.starts_with("wh_"), "{hook}");
    assert_eq!(hook["events"], serde_json::json!(["scan.regressed"]));
    assert!(
        hook["secret"]
            .as_str()
            .is_some_and(|s| s.starts_with("whsec_") && s.len() >= 32),
        "{hook}"
    );
    let mark = json(steps[6][2]);
    assert_eq!(mark["status"], "false_positive", "{mark}");
    let fingerprint = mark["fingerprint"].as_str().unwrap().to_string();
    assert!(
        fingerprint.len() >= 16 && fingerprint.chars().all(|c| c.is_ascii_hexdigit()),
        "a fingerprint from the SARIF report, not null: {mark}"
    );

    // 5b. The credentials: what is set, never the secret.
    assert_eq!(steps[7].len(), 1, "step 5b\n{context}");
    let credentials = json(steps[7][0]);
    assert!(
        !steps[7][0].contains("s3cret"),
        "the password never comes back: {credentials}"
    );
    assert_eq!(credentials["site_id"], site_id, "{credentials}");
    assert_eq!(
        credentials["kinds"],
        serde_json::json!(["basic"]),
        "{credentials}"
    );
    assert_eq!(credentials["basic_username"], "staging", "{credentials}");

    // 6. Disabled (no next run), both listed newest first, then removed.
    assert_eq!(steps[8].len(), 4, "step 6\n{context}");
    assert_eq!(
        json(steps[8][0]),
        serde_json::json!({"enabled": false, "next_run_at": null})
    );
    assert_eq!(
        listed,
        [
            serde_json::json!({"id": demo_id, "cron": "*/15 * * * * *", "enabled": false}),
            serde_json::json!({"id": nightly_id, "cron": "30 2 * * *", "enabled": true}),
        ],
        "{context}"
    );
    assert_eq!(
        json(steps[8][3]),
        serde_json::json!({"id": demo_id, "deleted": true}),
        "{context}"
    );
    assert!(steps[9].is_empty(), "{context}");

    // Nothing listens any more, and the store opens (its lock is free).
    for port in [site_port, api_port] {
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "something still listens on {port}\n{context}"
        );
    }
    let data = dir.path().join("sitescan-data");
    let store = sitescan_daemon::store::embedded::Embedded::open(&data)
        .expect("the store is free once the walkthrough is over");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let first = store.scan_by_id(&scan_ids[0]).await.unwrap().unwrap();
        let account = first.account_id.clone();
        let scans = store
            .list_scans(&account, site_id, None, 100)
            .await
            .unwrap()
            .items;
        let site = store.site(&account, site_id).await.unwrap().unwrap();
        assert_eq!(site.url, site_url);
        // Only the demo schedule made scans: the plan's 2, both completed
        // (step 5 read the report of one).
        assert!(
            scans
                .iter()
                .all(|s| s.schedule_id.as_deref() == Some(demo_id.as_str())),
            "{scans:#?}"
        );
        if one_day {
            assert_eq!(scans.len(), 2, "{scans:#?}");
        }
        assert!(
            scans.iter().any(|s| s.id == outcome_scan),
            "step 4's last outcome names a scan of the schedule: {outcome_scan}"
        );
        assert!(
            scans.iter().any(|s| s.status.as_str() == "completed"),
            "{scans:#?}"
        );
        // The webhook's public URL was never contacted: no delivery at all.
        let hook = store.webhook_by_id(&hook_id).await.unwrap().unwrap();
        assert_eq!(hook.url, "https://hooks.example.com/sitescan");
        assert!(
            store
                .list_deliveries(&hook_id, 100)
                .await
                .unwrap()
                .is_empty(),
            "nothing was delivered to hooks.example.com"
        );
        // The mark and the sealed credentials are stored.
        let marks = store.list_marks(&account, site_id).await.unwrap();
        assert_eq!(
            marks
                .iter()
                .map(|m| (m.fingerprint.as_str(), m.status.as_str(), m.note.as_str()))
                .collect::<Vec<_>>(),
            [(fingerprint.as_str(), "false_positive", "checked by hand")]
        );
        let sealed = store.credentials(site_id).await.unwrap().unwrap();
        assert!(sealed.sealed.starts_with("v1:"), "{}", sealed.sealed);
        assert!(!sealed.sealed.contains("s3cret"));
        // Removed: only the nightly schedule is left.
        let left = store.list_schedules(&account, site_id).await.unwrap();
        assert_eq!(
            left.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            [nightly_id.as_str()]
        );
    });

    // The demo site saw one scan per scan made (each fetches `/` once).
    let log = std::fs::read_to_string(dir.path().join("site.log")).unwrap();
    if one_day {
        assert_eq!(log.matches("\"GET / HTTP/1.1\" 200").count(), 2, "{log}");
    }
    // The secret key never reached the logs.
    assert!(!serve_log.contains("s3cret"), "{serve_log}");
}
