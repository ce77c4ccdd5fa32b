//! The `sitescan` binary: commands, output contracts and exit codes.

use std::process::Command;

fn sitescan() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sitescan"))
}

#[test]
fn rules_json_lists_every_rule_with_its_metadata() {
    let out = sitescan()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = rules.as_array().unwrap();
    assert_eq!(rules.len(), sitescan::rules::registry::all_meta().count());
    let title = rules.iter().find(|r| r["id"] == "document-title").unwrap();
    for key in [
        "id", "category", "title", "wcag", "level", "impact", "act", "help_url",
    ] {
        assert!(title.get(key).is_some(), "missing {key}");
    }
    assert_eq!(title["wcag"], serde_json::json!(["2.4.2"]));
    assert_eq!(title["scope"], "page");
    assert_eq!(title["defers_to"], serde_json::json!([]));
    // One problem, one rule: the owners a rule gives way to, and the host
    // facts reported once per host.
    let empty_link = rules.iter().find(|r| r["id"] == "empty-link").unwrap();
    assert_eq!(empty_link["defers_to"], serde_json::json!(["link-name"]));
    let hsts = rules
        .iter()
        .find(|r| r["id"] == "strict-transport-security")
        .unwrap();
    assert_eq!(hsts["scope"], "host");
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = sitescan().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand"));
}

// ---- sitescan scan ----

use sitescan_fixtures::{site_dir, FixtureServer};

/// Runs `sitescan` with `args` off the runtime (the fixture server keeps serving).
async fn run(args: Vec<String>, env: Vec<(&'static str, String)>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        let mut cmd = sitescan();
        cmd.args(&args).env_remove("RUST_LOG");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    })
    .await
    .unwrap()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `scan <url> --rate 100 <rest>`: a scan of a fixture site, unthrottled.
fn scan_args(url: &str, rest: &[&str]) -> Vec<String> {
    let mut all = vec!["scan", url, "--rate", "100"];
    all.extend_from_slice(rest);
    args(&all)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The last non-empty stderr line: the one-line message of a failed run.
fn last_line(out: &std::process::Output) -> String {
    stderr(out)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_prints_the_json_report_of_the_fixture_site() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let out = run(
        scan_args(&server.url(), &["--rules", "document-title"]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["site"], server.url());
    for key in ["started_at", "finished_at", "config", "rules"] {
        assert!(report.get(key).is_some(), "missing {key}");
    }
    assert_eq!(
        report["config"]["allow_private"], true,
        "the CLI may scan localhost"
    );
    let stats = &report["stats"];
    assert_eq!(stats["pages_fetched"], 6);
    for key in ["robots", "scope", "limit", "depth", "type"] {
        assert!(stats["skipped"][key].is_u64(), "stats.skipped.{key}");
    }
    assert_eq!(stats["truncated"], false);
    assert!(stats["errors"].is_object());
    for category in ["accessibility", "seo", "security", "performance", "quality"] {
        let c = &report["summary"][category];
        for key in ["score", "critical", "serious", "moderate", "minor"] {
            assert!(c.get(key).is_some(), "summary.{category}.{key}");
        }
    }
    assert_eq!(report["summary"]["accessibility"]["serious"], 1);
    let pages = report["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 6);
    for key in ["url", "final_url", "status", "ttfb_ms", "bytes"] {
        assert!(pages[0].get(key).is_some(), "pages[].{key}");
    }
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert_eq!(f["rule_id"], "document-title");
    assert_eq!(f["category"], "accessibility");
    assert_eq!(f["outcome"], "failed");
    assert_eq!(f["impact"], "serious");
    assert_eq!(f["page_url"], server.url_for("/contact.html"));
    assert_eq!(f["wcag"], serde_json::json!(["2.4.2"]));
    for key in ["selector", "snippet", "message"] {
        assert!(f.get(key).is_some(), "findings[].{key}");
    }
    // Not a terminal: plain log lines on stderr, no escape codes.
    let err = stderr(&out);
    assert!(err.contains("scan finished"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_on_sets_exit_code_one_at_or_above_the_threshold() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let url = server.url();
    let serious = run(
        scan_args(&url, &["--rules", "document-title", "--fail-on", "serious"]),
        vec![],
    )
    .await;
    assert_eq!(serious.status.code(), Some(1), "{}", stderr(&serious));
    let critical = run(
        scan_args(
            &url,
            &["--rules", "document-title", "--fail-on", "critical"],
        ),
        vec![],
    )
    .await;
    assert_eq!(critical.status.code(), Some(0), "{}", stderr(&critical));
    let env = run(
        args(&["scan", &url, "--rate", "100", "--rules", "document-title"]),
        vec![("SITESCAN_FAIL_ON", "minor".into())],
    )
    .await;
    assert_eq!(env.status.code(), Some(1), "SITESCAN_FAIL_ON honored");
    let bad = run(args(&["scan", &url, "--fail-on", "huge"]), vec![]).await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("critical, serious, moderate or minor"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_file_env_flags_and_page_limit() {
    let server = FixtureServer::start(site_dir("limits")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.json");
    let out = run(
        args(&["scan", &server.url(), "--output", file.to_str().unwrap()]),
        vec![
            ("SITESCAN_MAX_PAGES", "2".into()),
            ("SITESCAN_RATE", "100".into()),
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "the report went to the file");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(report["pages"].as_array().unwrap().len(), 2);
    assert_eq!(report["stats"]["truncated"], true);
    assert_eq!(report["config"]["max_pages"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_exit_with_a_one_line_message_saying_what_to_do() {
    // Bad URL: usage error.
    let out = run(args(&["scan", "not a url"]), vec![]).await;
    assert_eq!(out.status.code(), Some(2));
    let line = last_line(&out);
    assert!(line.starts_with("error: invalid URL `not a url`"), "{line}");
    assert!(line.contains("http://"), "{line}");

    // Unknown rule set: usage error.
    let out = run(
        args(&["scan", "http://127.0.0.1:9/", "--rules", "wcag-zz"]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(last_line(&out).contains("unknown rule set or rule id `wcag-zz`"));

    // A CA file that cannot be read, or holds no certificate: usage error.
    let out = run(
        args(&[
            "scan",
            "https://127.0.0.1:9/",
            "--ca-cert",
            "/no/such/ca.pem",
        ]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let line = last_line(&out);
    assert!(
        line.starts_with("error: cannot read the CA certificate file /no/such/ca.pem"),
        "{line}"
    );
    let not_pem = std::env::temp_dir().join(format!("sitescan-not-pem-{}.txt", std::process::id()));
    std::fs::write(&not_pem, "hello").unwrap();
    let out = run(
        args(&[
            "scan",
            "https://127.0.0.1:9/",
            "--ca-cert",
            not_pem.to_str().unwrap(),
        ]),
        vec![],
    )
    .await;
    let _ = std::fs::remove_file(&not_pem);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        last_line(&out).contains("ca_certs: no `-----BEGIN CERTIFICATE-----` block found"),
        "{}",
        last_line(&out)
    );

    // Unreachable host: nothing listens on port 1.
    let out = run(args(&["scan", "http://127.0.0.1:1/"]), vec![]).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let line = last_line(&out);
    assert!(
        line.starts_with("error: could not fetch http://127.0.0.1:1/"),
        "{line}"
    );
    assert!(line.contains("check the URL"), "{line}");

    // Private address refused with --no-private.
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let out = run(args(&["scan", &server.url(), "--no-private"]), vec![]).await;
    assert_eq!(out.status.code(), Some(3));
    let line = last_line(&out);
    assert!(
        line.contains("private or local address (127.0.0.1)"),
        "{line}"
    );
    assert!(line.contains("--no-private"), "{line}");
    assert!(server.requests().is_empty());

    // robots.txt forbids everything.
    let server = FixtureServer::start(site_dir("robots-forbid"))
        .await
        .unwrap();
    let out = run(args(&["scan", &server.url()]), vec![]).await;
    assert_eq!(out.status.code(), Some(3));
    let line = last_line(&out);
    assert!(line.contains("robots.txt of 127.0.0.1 disallows"), "{line}");
    assert!(line.contains("--ignore-robots"), "{line}");
    assert!(out.stdout.is_empty(), "no report when the scan cannot run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_keeps_findings_in_tmpdir_leaves_nothing_there_and_says_when_it_cannot() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("out");
    std::fs::create_dir(&report).unwrap();
    let spool = tmp.path().join("spool");
    std::fs::create_dir(&spool).unwrap();
    let scan = |tmpdir: String, format: &str| {
        run(
            scan_args(
                &server.url(),
                &[
                    "--format",
                    format,
                    "--output",
                    &report.join(format).to_string_lossy(),
                ],
            ),
            vec![("TMPDIR", tmpdir)],
        )
    };
    for format in ["json", "csv", "sarif"] {
        let out = scan(spool.to_string_lossy().into_owned(), format).await;
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            stderr(&out)
        );
        let written = std::fs::read(report.join(format)).unwrap();
        assert!(written.len() > 100, "{format}");
        assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0, "{format}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report.join("json")).unwrap()).unwrap();
    assert!(json["findings"].as_array().unwrap().len() > 5);

    // An unusable temporary directory stops the scan before it starts, saying why.
    let missing = tmp.path().join("no-such-dir");
    let out = scan(missing.to_string_lossy().into_owned(), "json").await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let line = last_line(&out);
    assert!(line.contains("temporary file"), "{line}");
    assert!(line.contains("set TMPDIR"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_flag_and_env_leave_other_hosts_unchecked_and_bad_values_are_usage_errors() {
    // The fixture links to http://localhost:PORT/..., another host than the
    // scanned 127.0.0.1 (the same server, so its log shows any request).
    let server = FixtureServer::start(site_dir("links")).await.unwrap();
    let scan = |flag: Option<&str>, env: Vec<(&'static str, String)>| {
        let mut a = args(&[
            "scan",
            &server.url(),
            "--rate",
            "200",
            "--rules",
            "broken-links,broken-resources",
        ]);
        if let Some(f) = flag {
            a.extend(args(&["--links", f]));
        }
        run(a, env)
    };
    let out = scan(Some("internal"), vec![]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["config"]["links"], "internal");
    assert_eq!(report["stats"]["skipped"]["links"], 2);
    assert_eq!(server.count("/external-gone"), 0);
    assert_eq!(
        server.count("/img/missing.webp"),
        1,
        "the site's own resources are checked"
    );

    server.clear();
    let out = scan(None, vec![("SITESCAN_LINKS", "all".into())]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stats"]["skipped"]["links"], 0);
    assert_eq!(
        server.count("/external-gone"),
        1,
        "HEAD alone: a 404 is believed"
    );

    server.clear();
    let out = scan(None, vec![("SITESCAN_LINKS", "none".into())]).await;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["config"]["links"], "none");
    assert_eq!(
        server.count("/external-gone") + server.count("/img/missing.webp"),
        0
    );

    server.clear();
    let bad = scan(Some("external"), vec![]).await;
    assert_eq!(bad.status.code(), Some(2));
    let err = stderr(&bad);
    assert!(
        err.contains("invalid value 'external' for '--links <SCOPE>'"),
        "{err}"
    );
    assert!(err.contains("all, internal, none"), "{err}");
    assert!(
        server.requests().is_empty(),
        "nothing fetched on a usage error"
    );
}

// ---- the start page decides whether the scan ran ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_url_that_is_no_2xx_html_page_exits_3_without_a_report() {
    let server = FixtureServer::start(site_dir("start-page")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let origin = server.url_for("");
    let origin = origin.trim_end_matches('/');
    let cases = [
        (
            "/missing",
            format!("error: the start URL {origin}/missing answered HTTP 404 Not Found: check the URL (the scan needs a start page that answers 2xx)"),
        ),
        (
            "/moved",
            format!("error: the start URL {origin}/moved (redirected to {origin}/gone) answered HTTP 404 Not Found: check the URL (the scan needs a start page that answers 2xx)"),
        ),
        (
            "/down",
            format!("error: the start URL {origin}/down answered HTTP 503 Service Unavailable: the site has a problem; try again later (the scan needs a start page that answers 2xx)"),
        ),
        (
            "/guide.pdf",
            format!("error: the start URL {origin}/guide.pdf answered with application/pdf, not an HTML page: give the URL of a web page"),
        ),
    ];
    for (path, message) in cases {
        let file = dir.path().join("report.json");
        let out = run(
            scan_args(
                &server.url_for(path),
                &[
                    "--rules",
                    "document-title",
                    "--output",
                    file.to_str().unwrap(),
                ],
            ),
            vec![],
        )
        .await;
        assert_eq!(out.status.code(), Some(3), "{path}: {}", stderr(&out));
        assert_eq!(last_line(&out), message, "{path}");
        assert!(
            !file.exists(),
            "{path}: no report when the scan could not run"
        );
        assert!(out.stdout.is_empty(), "{path}");
        // Judged as soon as the start page came back: the links of the error
        // page (to / and /about.html) were never followed.
        assert_eq!(server.count("/about.html"), 0, "{path}: crawled on");
        assert_eq!(server.count("/"), 0, "{path}: crawled on");
    }

    // A redirect loop ends on no page at all.
    let out = run(
        scan_args(&server.url_for("/loop"), &["--rules", "document-title"]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let line = last_line(&out);
    assert_eq!(
        line,
        format!("error: the start URL {origin}/loop could not be read: redirect loop; check the URL and that the site is up")
    );
    assert!(out.stdout.is_empty());

    // The same site's home page answers 200 with HTML: a normal run.
    let out = run(
        scan_args(&server.url(), &["--rules", "document-title"]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["pages"][0]["status"], 200);
}

// ---- a stdout that cannot take the report ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_or_a_closed_pipe_on_stdout_exits_3_saying_which() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let url = server.url();
    let scan = move |stdout: std::process::Stdio, close: bool| {
        let url = url.clone();
        tokio::task::spawn_blocking(move || {
            let mut child = sitescan()
                .args(["scan", &url, "--rate", "100", "--rules", "document-title"])
                .env_remove("RUST_LOG")
                .stdout(stdout)
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            if close {
                // The reader goes away before the scan writes a byte.
                drop(child.stdout.take());
            }
            child.wait_with_output().unwrap()
        })
    };

    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = scan(full.into(), false).await.unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        last_line(&out),
        "error: cannot write the report to stdout: No space left on device (os error 28)"
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));

    let out = scan(std::process::Stdio::piped(), true).await.unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        last_line(&out),
        "error: cannot write the report to stdout: the reader closed the pipe before all of it was written"
    );
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

// ---- a person at a terminal ----

/// Quotes `s` for `sh -c`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Drops ANSI escape sequences and carriage returns from terminal output.
fn strip_terminal(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    // Parameters, then one final byte in @..~.
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A `$BROWSER` that records what it was asked to open in `marker`.
fn fake_browser(dir: &std::path::Path, marker: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("browser.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nprintf '%s' \"$1\" > {}\n",
            sh_quote(&marker.to_string_lossy())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Waits (bounded) for the detached browser to write its marker.
fn wait_for_marker(marker: &std::path::Path) -> String {
    // Up to 30 s: the detached opener is a process of its own, slow to start on
    // a loaded machine.
    for _ in 0..600 {
        if let Ok(s) = std::fs::read_to_string(marker) {
            if !s.is_empty() {
                return s;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the browser was never started with the report");
}

/// Runs `sitescan` under a pseudo-terminal (util-linux `script`), in `cwd`;
/// returns the terminal's text and the exit code.
async fn run_on_terminal(
    args: Vec<String>,
    cwd: std::path::PathBuf,
    env: Vec<(&'static str, String)>,
) -> (String, Option<i32>) {
    run_on_terminal_to(args, cwd, env, None).await
}

/// [`run_on_terminal`], the terminal kept open (up to 30 s) after `sitescan`
/// exits until `marker` is written. A program `sitescan` started in the
/// background (the `--open` browser) is in the terminal's foreground process
/// group and gets its hang-up when `script` closes the terminal: on a loaded
/// machine that can come before the program did its work.
async fn run_on_terminal_until(
    args: Vec<String>,
    cwd: std::path::PathBuf,
    env: Vec<(&'static str, String)>,
    marker: &std::path::Path,
) -> (String, Option<i32>) {
    let m = sh_quote(&marker.to_string_lossy());
    let then = format!(
        "; rc=$?; i=0; while [ ! -s {m} ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; exit $rc"
    );
    run_in_terminal(args, cwd, env, None, then).await
}

/// [`run_on_terminal`], stdout sent to `stdout_to` when given (stderr stays
/// on the terminal).
async fn run_on_terminal_to(
    args: Vec<String>,
    cwd: std::path::PathBuf,
    env: Vec<(&'static str, String)>,
    stdout_to: Option<std::path::PathBuf>,
) -> (String, Option<i32>) {
    run_in_terminal(args, cwd, env, stdout_to, String::new()).await
}

/// The terminal runner: `then` is shell text run after `sitescan` in the
/// terminal (it must keep `sitescan`'s exit code).
async fn run_in_terminal(
    args: Vec<String>,
    cwd: std::path::PathBuf,
    env: Vec<(&'static str, String)>,
    stdout_to: Option<std::path::PathBuf>,
    then: String,
) -> (String, Option<i32>) {
    tokio::task::spawn_blocking(move || {
        let mut line = std::iter::once(env!("CARGO_BIN_EXE_sitescan").to_string())
            .chain(args)
            .map(|a| sh_quote(&a))
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(path) = stdout_to {
            line = format!("{line} > {}", sh_quote(&path.to_string_lossy()));
        }
        line.push_str(&then);
        let mut cmd = Command::new("script");
        cmd.args(["-q", "-e", "-c", &line, "/dev/null"])
            .current_dir(&cwd)
            .env_remove("RUST_LOG")
            .env("TERM", "xterm-256color")
            .stdin(std::process::Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .output()
            .expect("`script` (util-linux) runs the terminal tests");
        (strip_terminal(&out.stdout), out.status.code())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_scan_prints_a_summary_saves_the_report_and_opens_it() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let marker = tools.path().join("opened");
    let browser = fake_browser(tools.path(), &marker);
    let (text, code) = run_on_terminal_until(
        scan_args(
            &server.url(),
            &["--rules", "document-title,broken-links", "--open"],
        ),
        cwd.path().to_path_buf(),
        vec![("BROWSER", browser.to_string_lossy().into_owned())],
        &marker,
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert!(
        !text.contains("\"schema_version\""),
        "no JSON on the terminal:\n{text}"
    );
    assert!(!text.contains("\"findings\""), "{text}");

    // The summary: header, scores, top issues with an example page, where the
    // report went.
    assert!(
        text.contains(&format!("sitescan {}\n", server.url())),
        "{text}"
    );
    assert!(text.contains("6 pages scanned in "), "{text}");
    assert!(
        text.contains("Category        Score  Critical  Serious  Moderate  Minor  To review\n"),
        "{text}"
    );
    assert!(
        text.contains("\nSEO                 —  not checked: no rule of the category ran\n"),
        "{text}"
    );
    assert!(text.contains("\nTop issues\n"), "{text}");
    assert!(
        text.contains("  serious  broken-links  Links are not broken\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  serious  document-title  Page has a title\n           1 finding on 1 page · e.g. {}\n           The page has no <title> element.\n",
            server.url_for("/contact.html")
        )),
        "{text}"
    );

    // The files it names exist, whole, in the working directory.
    let mut saved: Vec<std::path::PathBuf> = std::fs::read_dir(cwd.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    saved.sort();
    assert_eq!(saved.len(), 2, "{saved:?}");
    let (html, json) = (&saved[0], &saved[1]);
    assert!(html.extension().is_some_and(|e| e == "html"), "{saved:?}");
    let name = json.file_name().unwrap().to_string_lossy().into_owned();
    let port = server
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    assert!(
        name.starts_with(&format!("sitescan-127.0.0.1-{port}-")) && name.ends_with(".json"),
        "{name}"
    );
    assert!(
        text.contains(&format!("  JSON  {}\n", json.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!("  HTML  {}\n", html.display())),
        "{text}"
    );
    assert!(
        text.contains("The HTML report was opened in your browser."),
        "{text}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["stats"]["pages_fetched"], 6);
    let page = std::fs::read_to_string(html).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        &page[..50.min(page.len())]
    );

    // --open handed exactly that HTML file to the browser.
    assert_eq!(wait_for_marker(&marker), html.to_string_lossy());

    // Asking for a format on the terminal gets that format, as before.
    let (text, code) = run_on_terminal(
        scan_args(&server.url(), &["--rules", "document-title"]),
        cwd.path().to_path_buf(),
        vec![("SITESCAN_FORMAT", "json".into())],
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("\"schema_version\": 1"), "{text}");
    assert!(!text.contains("Top issues"), "{text}");
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        2,
        "no new files"
    );

    // The report to a file, the terminal on stderr: the JSON in the file, one
    // line with the counts and scores on the terminal.
    let out = tools.path().join("report.json");
    let (text, code) = run_on_terminal_to(
        scan_args(&server.url(), &["--rules", "document-title,broken-links"]),
        cwd.path().to_path_buf(),
        vec![],
        Some(out.clone()),
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(report["stats"]["pages_fetched"], 6);
    assert!(
        text.ends_with(
            "sitescan: 6 pages scanned, 4 findings; scores: accessibility 86, quality 82\n"
        ),
        "{text}"
    );
    assert!(!text.contains("Top issues"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_with_a_json_output_writes_an_html_copy_to_the_temporary_directory() {
    let server = FixtureServer::start(site_dir("basic")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let marker = dir.path().join("opened");
    let browser = fake_browser(dir.path(), &marker);
    let file = dir.path().join("report.json");
    let out = run(
        scan_args(
            &server.url(),
            &[
                "--rules",
                "document-title",
                "--output",
                file.to_str().unwrap(),
            ],
        ),
        vec![
            ("SITESCAN_OPEN", "true".into()),
            ("BROWSER", browser.to_string_lossy().into_owned()),
            ("TMPDIR", tmp.to_string_lossy().into_owned()),
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let copies: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "{copies:?}");
    let html = &copies[0];
    assert!(html.extension().is_some_and(|e| e == "html"));
    assert!(
        stderr(&out).contains(&format!(
            "sitescan: HTML report written to {}\n",
            html.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(wait_for_marker(&marker), html.to_string_lossy());
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        report["schema_version"], 1,
        "the JSON report is still written"
    );
}
