//! The book's "A first scan with curl" (`docs/src/service/walkthrough.md`) run as
//! printed: its `sh` blocks, in order, in one bash process, in a fresh temporary
//! directory, with the demo site (python3's http.server) and `sitescan serve` on
//! free loopback ports. Only the first block (`cargo build --release`, then PATH
//! and `cd`) is swapped for the binary this test run built. Each block's output
//! is checked against what a newcomer should see, and at the end nothing may
//! still listen or hold the store's lock.
//!
//! Needs `bash`, `python3`, `curl` and `jq` (`scripts/test` installs them).

use std::io::Read;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::docs::{code_blocks, read};

const PAGE: &str = "docs/src/service/walkthrough.md";
/// How long the whole walkthrough may take before the test gives up on it (a
/// guard against a hang, not a speed check: a scan of two pages takes seconds).
const GUARD: Duration = Duration::from_secs(300);

/// A free loopback port (bound, then released).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the walkthrough's process group (bash and whatever it started) when
/// the test ends, whichever way it ends.
pub(crate) struct Group(pub(crate) u32);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0)])
            .stderr(Stdio::null())
            .status();
    }
}

/// Runs the script in a process group of its own, `path_dir` first on PATH,
/// with `SITE_PORT` and `API_PORT` set and no `SITESCAN_*` of the caller's;
/// returns its stdout, its stderr, and whether anything it started was still
/// running once it ended. Panics (the group killed) when it runs longer than
/// `guard`.
pub(crate) fn run_bash(
    script: &str,
    dir: &Path,
    path_dir: &Path,
    site_port: u16,
    api_port: u16,
    guard: Duration,
) -> (String, String, bool) {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(dir)
        .env(
            "PATH",
            format!(
                "{}:{}",
                path_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("SITE_PORT", site_port.to_string())
        .env("API_PORT", api_port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // The walkthrough sets what it needs; nothing of the caller's may leak in.
    for (name, _) in std::env::vars() {
        if name.starts_with("SITESCAN_") {
            cmd.env_remove(name);
        }
    }
    let mut child = cmd.spawn().expect("bash runs");
    let _group = Group(child.id());
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > guard {
            let _ = child.kill();
            let _ = child.wait();
            // Dropping the group guard kills its background jobs, which closes the pipes.
            drop(_group);
            panic!(
                "the walkthrough did not finish within {guard:?}:\n{}\n--- stderr\n{}",
                out.join().unwrap(),
                err.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // bash is done; its background jobs must be too (the page stops them):
    // `kill -0` on the group succeeds while any of them is alive.
    let leftovers = Command::new("kill")
        .args(["-0", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    drop(_group);
    (out.join().unwrap(), err.join().unwrap(), leftovers)
}

/// The line parsed as JSON (a panic naming it when it is not).
pub(crate) fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

/// Panics naming the first of `tools` not on PATH.
pub(crate) fn need_tools(tools: &[&str]) {
    for tool in tools {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            found,
            "the walkthrough needs `{tool}` (scripts/test installs it)"
        );
    }
}

/// Two distinct free loopback ports: the demo site's and the API's.
pub(crate) fn two_ports() -> (u16, u16) {
    let site_port = free_port();
    let api_port = loop {
        let port = free_port();
        if port != site_port {
            break port;
        }
    };
    (site_port, api_port)
}

/// The blocks as one script, each announced by a line `@@ step N` (N its
/// index in `blocks`, from `first`), then `@@ end`.
pub(crate) fn numbered_script(blocks: &[String], first: usize) -> String {
    let mut script = String::new();
    for (i, block) in blocks.iter().enumerate().skip(first) {
        script.push_str(&format!("echo '@@ step {i}'\n{block}\n"));
    }
    script.push_str("echo '@@ end'\n");
    script
}

/// The script's stdout split by its `@@ step N` lines: the lines of step N
/// at index N, what follows `@@ end` at index `blocks`.
pub(crate) fn split_steps(stdout: &str, blocks: usize) -> Vec<Vec<&str>> {
    let mut steps: Vec<Vec<&str>> = vec![Vec::new(); blocks + 1];
    let mut current = None;
    for line in stdout.lines() {
        if let Some(n) = line.strip_prefix("@@ step ") {
            current = Some(n.parse::<usize>().unwrap());
        } else if line == "@@ end" {
            current = Some(blocks);
        } else if let Some(n) = current {
            steps[n].push(line.trim_end_matches('\r'));
        }
    }
    steps
}

#[test]
fn walkthrough_runs_as_printed() {
    need_tools(&["bash", "python3", "curl", "jq"]);
    let page = read(PAGE);
    let blocks = code_blocks(&page, "sh");
    assert!(blocks.len() >= 9, "{PAGE} has {} sh blocks", blocks.len());
    assert!(
        blocks[0].contains("cargo build --release")
            && blocks[0].contains("target/release")
            && blocks[0].contains("cd \"$(mktemp -d)\""),
        "the first block builds, puts the binary on PATH and moves to a fresh directory:\n{}",
        blocks[0]
    );

    // Block 0 is replaced by what it does here: this run's binary on PATH, a
    // fresh directory (below).
    let script = numbered_script(&blocks, 1);

    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_sitescan"));
    let (site_port, api_port) = two_ports();
    let (stdout, stderr, leftovers) = run_bash(
        &script,
        dir.path(),
        bin.parent().unwrap(),
        site_port,
        api_port,
        GUARD,
    );
    let context = format!("--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert!(
        !leftovers,
        "the walkthrough left a process running (serve or the demo site)\n{context}"
    );

    let steps = split_steps(&stdout, blocks.len());
    assert!(
        stdout.contains("@@ end"),
        "the walkthrough stopped early\n{context}"
    );
    let site_url = format!("http://127.0.0.1:{site_port}/");

    // 2. The demo site answers.
    assert_eq!(steps[1], ["demo site up"], "step 1\n{context}");

    // 3. An account and a key, printed without the key's secret.
    assert_eq!(steps[2].len(), 1, "step 2\n{context}");
    let line = steps[2][0];
    assert!(
        line.starts_with("account acc_") && line.contains(", key key_") && line.ends_with("..."),
        "step 2: {line}\n{context}"
    );
    assert_eq!(
        line.rsplit("key_").next().unwrap().len(),
        "1234...".len(),
        "{line}"
    );

    // 4. serve says where it listens.
    assert_eq!(
        steps[3],
        [format!("{{\"listening\":\"http://127.0.0.1:{api_port}\"}}")],
        "step 3\n{context}"
    );

    // 5. The site is registered (the record, then the count of sites).
    let (last, record) = steps[4].split_last().unwrap();
    assert_eq!(*last, "1", "step 4\n{context}");
    let site = json(&record.join("\n"));
    assert_eq!(site["url"], site_url.as_str(), "{site}");
    assert_eq!(site["name"], "Demo shop");
    let site_id = site["id"].as_str().unwrap();
    assert!(site_id.starts_with("site_"), "{site}");

    // 6. 202 with the scan's absolute address (on the Host the request was
    // sent to: serve has no --public-url here), then the queued scan.
    assert_eq!(steps[5].len(), 3, "step 5\n{context}");
    assert_eq!(steps[5][0], "HTTP/1.1 202 Accepted");
    let scan = json(steps[5][2]);
    let scan_id = scan["id"].as_str().unwrap();
    assert!(scan_id.starts_with("scan_"), "{scan}");
    assert_eq!(scan["status"], "queued");
    assert_eq!(
        steps[5][1].to_ascii_lowercase(),
        format!("location: http://127.0.0.1:{api_port}/api/v1/scans/{scan_id}")
    );

    // 7. Progress lines while it runs, then the finished scan.
    let end = steps[6]
        .iter()
        .position(|l| *l == "{")
        .expect("the final object");
    for progress in &steps[6][..end] {
        let p = json(progress);
        assert!(p["status"] == "queued" || p["status"] == "running", "{p}");
    }
    let done = json(&steps[6][end..].join("\n"));
    assert_eq!(done["status"], "completed", "{done}\n{context}");
    assert_eq!(done["pages"], 2, "{done}");
    assert_eq!(done["findings"], 3, "{done}");
    assert_eq!(done["accessibility"]["critical"], 2, "{done}");
    assert_eq!(done["accessibility"]["serious"], 1, "{done}");

    // 8. The findings, one line each, and the HTML report on disk.
    let about = format!("{site_url}about.html");
    assert_eq!(
        steps[7],
        [
            format!("image-alt {site_url} html > body > main > img"),
            format!("image-alt {about} html > body > main > p > a > img"),
            format!("link-name {about} html > body > main > p > a"),
            "report.html written".to_string(),
        ],
        "step 7\n{context}"
    );

    // 9. The key's record.
    assert_eq!(steps[8].len(), 1, "step 8\n{context}");
    let key = json(steps[8][0]);
    assert_eq!(key["name"], "walkthrough", "{key}");
    assert!(key["expires_at"].is_string(), "{key}");

    // 10. After `serve` stopped, `admin` opens the store again.
    assert_eq!(steps[9], ["[\"walkthrough\"]"], "step 9\n{context}");
    assert!(steps[10].is_empty(), "{context}");

    // The work happened in the directory the test gave it: the demo site saw
    // each page fetched once, the HTML report is there, and nothing is left
    // running: neither port answers, and the store opens (its lock is free).
    let log = std::fs::read_to_string(dir.path().join("site.log")).unwrap();
    assert_eq!(
        log.matches("\"GET /about.html HTTP/1.1\" 200").count(),
        1,
        "{log}"
    );
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.to_ascii_lowercase().starts_with("<!doctype html"),
        "{}",
        &html[..html.len().min(200)]
    );
    for port in [site_port, api_port] {
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "something still listens on {port}\n{context}"
        );
    }
    sitescan_daemon::store::embedded::Embedded::open(&dir.path().join("sitescan-data"))
        .expect("the store is free once the walkthrough is over");
}
