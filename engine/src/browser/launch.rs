//! Finding and starting Chromium: the binary (`SITESCAN_CHROMIUM`, else
//! `chromium` on the `PATH`), its flags, a throwaway profile, the protocol pipe,
//! and the sink every request the interceptor does not see is sent to.
//!
//! The pipe is set up without `unsafe`: Chromium reads commands on fd 3 and
//! writes on fd 4, and `/bin/sh` moves our stdin/stdout pipes there before it
//! `exec`s the browser (so the child we hold is the browser itself).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::process::{Child, Command};

use super::cdp::{Connection, Wait, World};
use super::BrowserError;

/// Pages one browser renders before it is replaced by a fresh one (memory a
/// long-lived browser gathers is given back).
pub const DEFAULT_RECYCLE_AFTER: usize = 500;
/// Longest wait for one protocol call (a call that takes longer means a hung
/// tab or browser).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest wait for a browser to start and answer.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);
/// The tail of the browser's stderr kept for error messages.
const STDERR_TAIL: usize = 4096;
/// What a browser that is there but does not start is told to try.
const REINSTALL_HINT: &str = "reinstall Debian's `chromium` package (apt-get install chromium) or set SITESCAN_CHROMIUM to a browser that starts";

/// How this process starts its browser. Process-wide: one browser serves every
/// scan of the process, so these are the service operator's settings, never a
/// scan's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    /// The browser binary; `None`: `SITESCAN_CHROMIUM`, else `chromium` on the
    /// `PATH`.
    pub binary: Option<PathBuf>,
    /// Chromium's own sandbox (default on). It cannot run as root: run workers
    /// as an unprivileged user. Turned off only where that is impossible (tests
    /// in a root container), by `SITESCAN_CHROMIUM_NO_SANDBOX=1`.
    pub sandbox: bool,
    /// Pages rendered before the browser is replaced
    /// ([`DEFAULT_RECYCLE_AFTER`]).
    pub recycle_after: usize,
    /// Longest wait for one protocol call ([`DEFAULT_CALL_TIMEOUT`]).
    pub call_timeout: Duration,
}

impl LaunchOptions {
    /// The defaults, with `SITESCAN_CHROMIUM` and
    /// `SITESCAN_CHROMIUM_NO_SANDBOX` read from the environment.
    pub fn from_env() -> LaunchOptions {
        let no_sandbox = std::env::var("SITESCAN_CHROMIUM_NO_SANDBOX")
            .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        LaunchOptions {
            binary: std::env::var_os("SITESCAN_CHROMIUM")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            sandbox: !no_sandbox,
            recycle_after: DEFAULT_RECYCLE_AFTER,
            call_timeout: DEFAULT_CALL_TIMEOUT,
        }
    }
}

static OPTIONS: OnceLock<Mutex<Option<LaunchOptions>>> = OnceLock::new();

/// Sets how this process starts its browser (before the first render scan; a
/// browser already running keeps its options until it is recycled). Without
/// it, [`LaunchOptions::from_env`] applies.
pub fn configure(options: LaunchOptions) {
    let slot = OPTIONS.get_or_init(|| Mutex::new(None));
    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(options);
}

/// The options in force.
pub(crate) fn options() -> LaunchOptions {
    OPTIONS
        .get()
        .and_then(|m| m.lock().unwrap_or_else(|p| p.into_inner()).clone())
        .unwrap_or_else(LaunchOptions::from_env)
}

/// The browser binary to run.
pub fn find_binary(options: &LaunchOptions) -> Result<PathBuf, BrowserError> {
    if let Some(path) = &options.binary {
        if path.is_file() {
            return Ok(path.clone());
        }
        return Err(BrowserError::Missing(format!(
            " (SITESCAN_CHROMIUM names {}, which is not a file)",
            path.display()
        )));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
        .ok_or_else(|| BrowserError::Missing(String::new()))
}

/// The browser binary render scans of this process would run, found the way
/// they find it (the options in force: [`configure`]d, else
/// [`LaunchOptions::from_env`]). A service asks this at start-up to know
/// whether it can take render scans at all.
pub fn configured_binary() -> Result<PathBuf, BrowserError> {
    find_binary(&options())
}

/// The flags every browser gets (besides the profile, pipe, sink and sandbox).
fn flags(sink_port: u16) -> Vec<String> {
    let mut f: Vec<String> = [
        "--headless",
        "--remote-debugging-pipe",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-sync",
        "--disable-breakpad",
        "--disable-dev-shm-usage",
        "--metrics-recording-only",
        "--mute-audio",
        "--hide-scrollbars",
        // Cross-site frames would be separate targets whose requests the
        // tab's interceptor does not pause (they would fail at the sink):
        // keeping them in the page's process keeps them under the interceptor.
        // The OS sandbox still confines the renderer.
        "--disable-site-isolation-trials",
        // HTTPS upgrades would turn the `http:` navigation we serve into an
        // `https:` request for a document we did not fetch.
        //
        // The omnibox popups (`WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`):
        // a headless browser has no address bar, yet it preloads their WebUI
        // in a renderer of its own at start, which spends about half a
        // second of CPU in the browser's first two seconds, the very time
        // the first page of a scan loads: measured to slow that page's
        // first paint (see docs/src/web-vitals.md).
        "--disable-features=IsolateOrigins,site-per-process,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,AutofillServerCommunication,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
        // WebRTC may only use proxied TCP, which goes to the sink: no UDP to
        // any address a page names.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        // `<-loopback>`: loopback too goes through the proxy (Chromium sends
        // it direct by default).
        "--proxy-bypass-list=<-loopback>",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    f.push(format!("--proxy-server=http://127.0.0.1:{sink_port}"));
    f
}

/// A running browser: the process, its protocol connection, its profile
/// directory (deleted after the process is killed) and its sink.
pub struct Process {
    /// Killed when dropped. In a mutex so a shared browser can ask whether
    /// it still runs ([`Process::exited`]).
    child: std::sync::Mutex<Child>,
    /// The protocol connection.
    pub conn: Arc<Connection>,
    sink: tokio::task::AbortHandle,
    /// Connections the sink refused (requests that were not intercepted).
    pub leaks: Arc<AtomicU64>,
    _profile: tempfile::TempDir,
}

impl Process {
    /// Whether the browser process has ended (killed, crashed). Asked of
    /// the process itself: the protocol pipe's reader notices the end only
    /// once it is scheduled, which on a busy machine can be after a new
    /// scan was handed the dead browser.
    pub fn exited(&self) -> bool {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        !matches!(child.try_wait(), Ok(None))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let child = self.child.get_mut().unwrap_or_else(|p| p.into_inner());
        let _ = child.start_kill();
        self.sink.abort();
    }
}

/// The runtime the browsers' pipes, stderr readers and sinks run on.
///
/// A browser outlives the scan (and the tokio runtime) that started it: it
/// serves every scan of the process. Were its pipe tasks spawned on the
/// caller's runtime, a caller that shut its runtime down (a test, an embedder
/// running several) would close the pipe under every other scan using that
/// browser. One small runtime of our own, started on first use and never
/// stopped, keeps them alive.
fn io_runtime() -> Result<&'static tokio::runtime::Runtime, BrowserError> {
    static RT: OnceLock<std::result::Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("sitescan-browser")
            .enable_all()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| BrowserError::Launch(format!("no runtime for the browser: {e}")))
}

/// Starts a browser (on the browsers' own runtime) and checks that it
/// answers.
pub async fn start(options: &LaunchOptions) -> Result<Process, BrowserError> {
    let options = options.clone();
    io_runtime()?
        .spawn(async move { launch(&options).await })
        .await
        .map_err(|e| BrowserError::Launch(e.to_string()))?
}

async fn launch(options: &LaunchOptions) -> Result<Process, BrowserError> {
    let binary = find_binary(options)?;
    let profile = tempfile::Builder::new()
        .prefix("sitescan-chromium-")
        .tempdir()
        .map_err(|e| BrowserError::Launch(format!("no temporary profile directory: {e}")))?;
    let leaks = Arc::new(AtomicU64::new(0));
    let (sink_port, sink) = start_sink(Arc::clone(&leaks)).await?;
    let mut args = flags(sink_port);
    args.push(format!("--user-data-dir={}", profile.path().display()));
    if !options.sandbox {
        args.push("--no-sandbox".into());
    }
    args.push("about:blank".into());
    let mut child = spawn(&binary, &args).map_err(|e| {
        sink.abort();
        BrowserError::Launch(format!("{}: {e}; {REINSTALL_HINT}", binary.display()))
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        sink.abort();
        return Err(BrowserError::Launch("no pipe to the browser".into()));
    };
    let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
    let tail_w = Arc::clone(&tail);
    tokio::spawn(async move {
        let mut stderr = stderr;
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let mut t = tail_w.lock().unwrap_or_else(|p| p.into_inner());
            t.extend_from_slice(&buf[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL);
            t.drain(..excess);
        }
    });
    let conn = Connection::start(stdout, stdin);
    let process = Process {
        child: std::sync::Mutex::new(child),
        conn,
        sink,
        leaks,
        _profile: profile,
    };
    match process
        .conn
        .call(None, "Browser.getVersion", json!({}), LAUNCH_TIMEOUT)
        .await
    {
        Ok(v) => {
            let settled = settle(&process.conn).await;
            tracing::info!(
                browser = v.get("product").and_then(|p| p.as_str()).unwrap_or(""),
                sandbox = options.sandbox,
                settle_ms = settled.waited.as_millis() as u64,
                settle_cpu_ms = settled.cpu_ms,
                settled = settled.idle,
                "browser started"
            );
            Ok(process)
        }
        Err(e) => {
            // Give stderr a moment to say why.
            tokio::time::sleep(Duration::from_millis(200)).await;
            let said = String::from_utf8_lossy(&tail.lock().unwrap_or_else(|p| p.into_inner()))
                .lines()
                .rfind(|l| !l.contains("dbus"))
                .unwrap_or("")
                .trim()
                .to_string();
            let hint = if said.contains("--no-sandbox") {
                "Chromium's sandbox cannot run as root: run the worker as an unprivileged user (or, in a throwaway container only, set SITESCAN_CHROMIUM_NO_SANDBOX=1)"
            } else {
                REINSTALL_HINT
            };
            let said = if said.is_empty() {
                String::new()
            } else {
                format!(" ({said})")
            };
            Err(BrowserError::Launch(format!(
                "{}: {e}{said}; {hint}",
                binary.display()
            )))
        }
    }
}

/// How often a new browser's CPU time is read while it settles.
const SETTLE_POLL: Duration = Duration::from_millis(100);
/// Longest wait for a new browser to settle: past it, it is used busy.
const SETTLE_MAX: Duration = Duration::from_secs(3);
/// CPU time (milliseconds, all its processes) a browser may spend in one
/// [`SETTLE_POLL`] and still count as idle: the kernel counts CPU time in
/// 10 ms ticks, so one tick is noise.
const SETTLE_IDLE_CPU_MS: f64 = 10.0;
/// Idle polls in a row that make a browser settled.
const SETTLE_IDLE_POLLS: u32 = 2;
/// Processes followed while settling (a browser has a handful).
const SETTLE_MAX_PROCESSES: usize = 64;

/// How [`settle`] ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Settled {
    /// How long it waited.
    pub waited: Duration,
    /// CPU time the browser's processes spent meanwhile, milliseconds.
    pub cpu_ms: u64,
    /// Whether the browser went idle ([`SETTLE_IDLE_POLLS`] idle polls)
    /// before [`SETTLE_MAX`] or an error.
    pub idle: bool,
}

/// What [`settle`] remembers between polls: the CPU time of each of the
/// browser's processes (`SystemInfo.getProcessInfo`), and the idle polls in
/// a row.
#[derive(Debug, Default)]
struct Settling {
    cpu: std::collections::HashMap<i64, f64>,
    idle_polls: u32,
    spent_ms: f64,
    polls: u32,
}

impl Settling {
    /// Takes one `SystemInfo.getProcessInfo` answer; whether the browser
    /// is settled now. The growth counted is per process: a process that
    /// started since the last poll counts with all its CPU time, one that
    /// ended counts nothing (its time does not hide the others' growth).
    fn observe(&mut self, answer: &serde_json::Value) -> bool {
        let mut now = std::collections::HashMap::new();
        for p in answer
            .get("processInfo")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .take(SETTLE_MAX_PROCESSES)
        {
            let (Some(id), Some(cpu)) = (
                p.get("id").and_then(|v| v.as_i64()),
                p.get("cpuTime").and_then(|v| v.as_f64()),
            ) else {
                continue;
            };
            if cpu.is_finite() && cpu >= 0.0 {
                now.insert(id, cpu);
            }
        }
        let first = self.polls == 0;
        self.polls += 1;
        let grown_ms: f64 = now
            .iter()
            .map(|(id, cpu)| (cpu - self.cpu.get(id).copied().unwrap_or(0.0)).max(0.0) * 1000.0)
            .sum();
        self.cpu = now;
        if first {
            // Its start so far: no interval to judge yet.
            return false;
        }
        self.spent_ms += grown_ms;
        // Whole milliseconds: the times are seconds in binary floating
        // point (0.28 - 0.27 is a hair over 10 ms).
        if grown_ms.round() <= SETTLE_IDLE_CPU_MS {
            self.idle_polls += 1;
        } else {
            self.idle_polls = 0;
        }
        self.idle_polls >= SETTLE_IDLE_POLLS
    }
}

/// Waits until a browser that just answered has finished starting: its
/// processes (its GPU process, network service, first renderers) keep
/// working for up to seconds after its first answer, and a page loaded
/// meanwhile shares the CPU with them, which was measured to add tens of
/// milliseconds to its first paint and to the crawler's time to first byte
/// of the scan's first page (docs/src/web-vitals.md). Settled: the CPU time
/// of all its processes grew by at most [`SETTLE_IDLE_CPU_MS`] in each of
/// [`SETTLE_IDLE_POLLS`] polls in a row, [`SETTLE_POLL`] apart. Bounded by
/// [`SETTLE_MAX`]; a browser that cannot tell its processes' CPU time is
/// used at once (logged). A browser starts once per process and
/// [`DEFAULT_RECYCLE_AFTER`] pages, so the wait is paid rarely.
async fn settle(conn: &Connection) -> Settled {
    let started = tokio::time::Instant::now();
    let deadline = started + SETTLE_MAX;
    let mut state = Settling::default();
    let idle = loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            break false;
        }
        match conn
            .call(None, "SystemInfo.getProcessInfo", json!({}), left)
            .await
        {
            Ok(answer) => {
                if state.observe(&answer) {
                    break true;
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "the browser's CPU time could not be read; not waiting for it to settle");
                break false;
            }
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        tokio::time::sleep(SETTLE_POLL.min(left)).await;
    };
    Settled {
        waited: started.elapsed(),
        cpu_ms: state.spent_ms.round() as u64,
        idle,
    }
}

/// The page [`probe`] renders: a script sets the title, so the answer
/// proves the page was parsed and its script ran. Percent-encoded, so the
/// URL means the same to every parser.
const PROBE_PAGE: &str = "data:text/html,%3Ctitle%3Esitescan%3C/title%3E%3Cp%3Eprobe%3C/p%3E%3Cscript%3Edocument.title%2B%3D%27-ok%27%3C/script%3E";
/// What [`PROBE_PAGE`] answers once rendered: its scripted title and
/// whether its body was laid out.
const PROBE_ANSWER: &str = "sitescan-ok:true";
/// Looks at the probe page at most this many times (100 ms apart) before
/// taking it for not rendered.
const PROBE_LOOKS: u32 = 50;

/// Whether a browser works for render scans, not only starts: starts one
/// (as [`start`]: it must answer its version), renders a tiny `data:` page
/// in a fresh browser context and tab (the steps a scan's first page takes:
/// a context, a target, a navigation, a script), then stops it. A browser
/// that starts but dies on every context or page fails here with
/// [`BrowserError::Crashed`]. Bounded: the start's own timeout, then
/// `options.call_timeout` per call and 50 looks at the page 100 ms apart.
pub async fn probe(options: &LaunchOptions) -> Result<(), BrowserError> {
    let process = start(options).await?;
    let conn = Arc::clone(&process.conn);
    let t = options.call_timeout;
    let field = |v: &serde_json::Value, name: &str| {
        v.get(name)
            .and_then(|x| x.as_str())
            .map(str::to_string)
            .ok_or_else(|| BrowserError::Protocol(format!("no {name} in the probe's answer")))
    };
    let ctx = conn
        .call(None, "Target.createBrowserContext", json!({}), t)
        .await?;
    let ctx = field(&ctx, "browserContextId")?;
    let (_, session) = conn.open_tab(&ctx, t).await?;
    let s = Some(session.as_str());
    let nav = conn
        .call(s, "Page.navigate", json!({"url": PROBE_PAGE}), t)
        .await?;
    if let Some(err) = nav.get("errorText").and_then(|e| e.as_str()) {
        return Err(BrowserError::Navigation(err.to_string()));
    }
    let expression = "document.readyState === 'complete' ? document.title + ':' + (document.body.getBoundingClientRect().width > 0) : ''";
    let mut last = String::new();
    for _ in 0..PROBE_LOOKS {
        last = match conn
            .evaluate(&session, World::Page, expression, Wait::Value, t)
            .await
        {
            Ok(v) => v.as_str().unwrap_or("").to_string(),
            // The document was being replaced: not yet.
            Err(BrowserError::Script(_)) => String::new(),
            Err(e) => return Err(e),
        };
        if last == PROBE_ANSWER {
            // Dropping the process kills it: it only had to render.
            drop(process);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(BrowserError::Navigation(format!(
        "the probe page did not render (it answered `{last}`)"
    )))
}

fn spawn(binary: &Path, args: &[String]) -> std::io::Result<Child> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null")
        .arg(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd.spawn()
}

/// Request lines the sinks of this process refused, most recent last.
static SINK_SEEN: Mutex<std::collections::VecDeque<String>> =
    Mutex::new(std::collections::VecDeque::new());
/// Request lines kept in [`SINK_SEEN`].
const SINK_SEEN_KEPT: usize = 256;

/// The first lines of the requests the sinks of this process refused (at
/// most the last 256): what a page tried that the interceptor could not
/// pause, such as a WebSocket's `CONNECT host:port`.
pub fn sink_requests() -> Vec<String> {
    SINK_SEEN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .cloned()
        .collect()
}

/// A proxy on 127.0.0.1 that refuses every request: the browser's proxy, so
/// a request the interceptor did not pause reaches nothing.
async fn start_sink(
    leaks: Arc<AtomicU64>,
) -> Result<(u16, tokio::task::AbortHandle), BrowserError> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| BrowserError::Launch(format!("no sink port: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| BrowserError::Launch(e.to_string()))?
        .port();
    let task = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            leaks.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(async move {
                let mut head = [0u8; 256];
                let n = tokio::time::timeout(Duration::from_secs(2), sock.read(&mut head))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or(0);
                let line = String::from_utf8_lossy(&head[..n]);
                let first = line.lines().next().unwrap_or("").to_string();
                tracing::debug!(
                    request = first.as_str(),
                    "refused a browser request the interceptor did not see"
                );
                {
                    let mut seen = SINK_SEEN.lock().unwrap_or_else(|p| p.into_inner());
                    if seen.len() >= SINK_SEEN_KEPT {
                        seen.pop_front();
                    }
                    seen.push_back(first);
                }
                let _ = sock
                    .write_all(
                        b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
            });
        }
    });
    Ok((port, task.abort_handle()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(procs: &[(i64, f64)]) -> serde_json::Value {
        json!({"processInfo": procs.iter().map(|(id, cpu)| json!({"type": "renderer", "id": id, "cpuTime": cpu})).collect::<Vec<_>>()})
    }

    #[test]
    fn a_browser_is_settled_after_two_polls_in_a_row_without_cpu_growth() {
        let mut s = Settling::default();
        // Its start so far is not judged.
        assert!(!s.observe(&info(&[(1, 0.2)])));
        // Still starting: a new renderer with its own time, the browser's
        // process growing.
        assert!(!s.observe(&info(&[(1, 0.26), (2, 0.05)])));
        // One idle poll (one 10 ms tick is noise), then a busy one: the
        // count starts again.
        assert!(!s.observe(&info(&[(1, 0.27), (2, 0.05)])));
        assert!(!s.observe(&info(&[(1, 0.27), (2, 0.30)])));
        assert!(!s.observe(&info(&[(1, 0.27), (2, 0.30)])));
        // A process that ended hides nothing and counts nothing.
        assert!(s.observe(&info(&[(1, 0.28)])));
        assert_eq!(s.spent_ms.round() as u64, 60 + 50 + 10 + 250 + 10);
    }

    #[test]
    fn a_garbled_process_list_never_settles_by_itself() {
        let mut s = Settling::default();
        for answer in [
            json!("junk"),
            json!({"processInfo": [{"id": "x", "cpuTime": 1}]}),
            json!({"processInfo": [{"id": 3, "cpuTime": -1.0}]}),
        ] {
            s.observe(&answer);
        }
        // Nothing readable grew: idle, as a browser that does nothing.
        assert_eq!(s.idle_polls, 2);
        assert_eq!(s.spent_ms, 0.0);
        // A process that appears with CPU time spent counts as growth.
        assert!(!s.observe(&info(&[(3, 0.5)])));
        assert_eq!(s.idle_polls, 0);
    }

    /// The flag is honoured by the browser we run (a renamed feature would
    /// be ignored in silence): a started browser has no omnibox popup
    /// target, which it otherwise preloads at start. Without the sandbox,
    /// as the other unit tests that start a browser (they run as root in
    /// CI).
    #[tokio::test]
    async fn a_started_browser_has_no_omnibox_popup() {
        let options = LaunchOptions {
            sandbox: false,
            ..LaunchOptions::from_env()
        };
        let process = start(&options).await.unwrap();
        let targets = process
            .conn
            .call(None, "Target.getTargets", json!({}), DEFAULT_CALL_TIMEOUT)
            .await
            .unwrap();
        let urls: Vec<&str> = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["url"].as_str())
            .collect();
        assert!(urls.contains(&"about:blank"), "{urls:?}");
        assert!(
            !urls.iter().any(|u| u.starts_with("chrome://omnibox-popup")),
            "{urls:?}"
        );
    }

    #[test]
    fn the_headless_omnibox_popups_are_not_preloaded() {
        let f = flags(9);
        let features = f
            .iter()
            .find_map(|a| a.strip_prefix("--disable-features="))
            .unwrap();
        let off: Vec<&str> = features.split(',').collect();
        assert!(off.contains(&"WebUIOmniboxPopup"), "{features}");
        assert!(off.contains(&"WebUIOmniboxAimPopup"), "{features}");
        assert_eq!(
            f.iter()
                .filter(|a| a.starts_with("--disable-features="))
                .count(),
            1
        );
    }
}
