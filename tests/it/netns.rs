//! A CLI scan inside a network namespace of its own (`unshare -rn`) whose only
//! interface is its loopback: nothing reaches a real resolver or network, every
//! outside host fails at once (names do not resolve, addresses are
//! unreachable). The fixture server (`fixtures`' `serve` example) serves the
//! site inside the namespace and logs each request it answers.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The fixture server binary: `SITESCAN_FIXTURE_BIN`, else the `serve` example
/// beside this test binary.
pub(crate) fn fixture_server_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("SITESCAN_FIXTURE_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().unwrap();
    // target/debug/deps/it-HASH -> target/debug/examples/serve
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|debug| debug.join("examples").join("serve"))
        .unwrap();
    assert!(
        bin.is_file(),
        "{} missing: build it with `cargo build -p sitescan-fixtures --example serve` \
         or set SITESCAN_FIXTURE_BIN",
        bin.display()
    );
    bin
}

/// Where the scanned site answers inside the namespace.
pub(crate) enum Host {
    /// `127.0.0.1`, which the CLI may fetch (private addresses allowed).
    Loopback,
    /// `192.88.99.1`, added to the namespace's loopback: an address the SSRF
    /// guard allows (it is in no refused range), so `--no-private` scans run.
    Public,
}

/// What one scan in the namespace left behind.
pub(crate) struct NetnsScan {
    /// The CLI's exit code.
    pub(crate) exit: i32,
    /// The CLI's stderr.
    pub(crate) stderr: String,
    /// The JSON report, `Null` when none was written.
    pub(crate) report: Value,
    /// The fixture server's own log: one `METHOD PATH` line per request.
    pub(crate) served: Vec<String>,
}

/// Runs `sitescan scan http://HOST:PORT{start} {flags} --format json` in its own
/// network namespace while the fixture server serves `site` there.
pub(crate) fn scan(site: &Path, host: Host, start: &str, flags: &str) -> NetnsScan {
    let out = tempfile::tempdir().unwrap();
    let script = r#"
set -eu
ip link set lo up
[ "$ADDR" = 127.0.0.1 ] || ip addr add "$ADDR/32" dev lo
"$SERVE" --bind "$BIND" "$SITE" > "$OUT/url" 2> "$OUT/served" &
server=$!
for _ in $(seq 200); do [ -s "$OUT/url" ] && break; sleep 0.05; done
port=$(sed -E 's#^http://[^:]+:([0-9]+)/$#\1#' "$OUT/url")
set +e
"$SITESCAN" scan "http://$ADDR:$port$START" $FLAGS --format json \
    --output "$OUT/report.json" 2> "$OUT/stderr"
echo $? > "$OUT/exit"
kill -TERM $server
wait $server
"#;
    let (addr, bind) = match host {
        Host::Loopback => ("127.0.0.1", "127.0.0.1"),
        Host::Public => ("192.88.99.1", "0.0.0.0"),
    };
    let status = std::process::Command::new("unshare")
        .args(["-rn", "sh", "-c", script])
        .env("SERVE", fixture_server_bin())
        .env("SITESCAN", env!("CARGO_BIN_EXE_sitescan"))
        .env("SITE", site)
        .env("OUT", out.path())
        .env("ADDR", addr)
        .env("BIND", bind)
        .env("START", start)
        .env("FLAGS", flags)
        .status()
        .expect("unshare (util-linux) and ip (iproute2) are needed for this test");
    assert!(status.success(), "the namespace script failed: {status}");
    let read = |name: &str| std::fs::read_to_string(out.path().join(name)).unwrap_or_default();
    NetnsScan {
        exit: read("exit").trim().parse().unwrap(),
        stderr: read("stderr"),
        report: serde_json::from_str(&read("report.json")).unwrap_or(Value::Null),
        served: read("served")
            .lines()
            .filter(|l| l.starts_with("GET ") || l.starts_with("HEAD "))
            .map(str::to_string)
            .collect(),
    }
}
