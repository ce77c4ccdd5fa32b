//! Redis servers, key prefixes, tenants and `sitescan worker` processes for the
//! fleet tests (`fleet.rs`) and the fleet's scale-out measurement
//! (`benches/fleet_scale.rs`, which includes this file), on loopback only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sitescan_daemon::store::redis::{RedisBackend, RedisSettings};
use sitescan_daemon::store::{fixture, new_id, Account, Plan, Scan, Site, Store};

pub fn redis_bin() -> String {
    std::env::var("SITESCAN_TEST_REDIS_BIN").unwrap_or_else(|_| "redis-server".to_string())
}

/// A loopback port nothing listens on (yet).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether a Redis answers `PING` on this loopback port.
pub fn pings(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(
        &format!("127.0.0.1:{port}").parse().unwrap(),
        Duration::from_millis(200),
    ) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

/// A `redis-server` owned by a test: on a free port, its data (AOF) in a temp
/// dir so a restart keeps the data; killed on drop.
pub struct RedisServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts one on a free port.
    pub fn start() -> RedisServer {
        RedisServer::start_on(free_port())
    }

    /// Starts one on `port`.
    pub fn start_on(port: u16) -> RedisServer {
        let mut server = RedisServer {
            port,
            dir: tempfile::tempdir().unwrap(),
            child: None,
        };
        server.restart();
        server
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts it again (after [`RedisServer::stop`]), on the same port and data.
    pub fn restart(&mut self) {
        assert!(self.child.is_none());
        let child = Command::new(redis_bin())
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {} (set SITESCAN_TEST_REDIS_BIN): {e}",
                    redis_bin()
                )
            });
        self.child = Some(child);
        wait_for("redis-server to answer", Duration::from_secs(10), || {
            pings(self.port)
        });
    }

    /// Stops it (SIGTERM: it writes its AOF and exits).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal(child.id(), "TERM");
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The Redis a test uses: the machine's on 6379 when it answers (unless
/// `SITESCAN_TEST_REDIS_OWN` is set), else its own on a free port.
pub fn shared_redis() -> (String, Option<RedisServer>) {
    if std::env::var_os("SITESCAN_TEST_REDIS_OWN").is_none() && pings(6379) {
        ("redis://127.0.0.1:6379/".to_string(), None)
    } else {
        let server = RedisServer::start();
        (server.url(), Some(server))
    }
}

/// Deletes every key under its prefix when dropped.
pub struct PrefixGuard {
    url: String,
    pub prefix: String,
}

impl PrefixGuard {
    pub fn new(url: &str) -> PrefixGuard {
        PrefixGuard {
            url: url.to_string(),
            prefix: format!("sitescan-test-{}", new_id("t").unwrap()),
        }
    }
}

impl Drop for PrefixGuard {
    fn drop(&mut self) {
        let Ok(client) = redis::Client::open(self.url.as_str()) else {
            return;
        };
        let Ok(mut conn) = client.get_connection_with_timeout(Duration::from_secs(2)) else {
            return;
        };
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{}:*", self.prefix))
            .query(&mut conn)
            .unwrap_or_default();
        for batch in keys.chunks(500) {
            let _: redis::RedisResult<()> = redis::cmd("DEL").arg(batch).query(&mut conn);
        }
    }
}

/// The Redis backend under `prefix`, with this visibility timeout and attempts.
pub async fn backend(
    url: &str,
    prefix: &str,
    visibility: Duration,
    max_attempts: u32,
) -> RedisBackend {
    let mut settings = RedisSettings::new(url).unwrap();
    settings.prefix = prefix.to_string();
    settings.visibility_timeout = visibility;
    settings.max_attempts = max_attempts;
    RedisBackend::connect(settings).await.unwrap()
}

/// Polls `ok` until it holds; panics after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends `kill -SIG` to a process.
pub fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{sig} {pid} failed");
}

/// An enterprise account and a site of it at `url`.
pub async fn tenant(store: &RedisBackend, url: &str) -> (Account, Site) {
    fixture::tenant(store, Plan::Enterprise, url).await.unwrap()
}

/// A `sitescan worker` process; killed on drop.
pub struct Worker {
    /// The process.
    pub child: Child,
}

impl Worker {
    /// Starts a worker on `url` under `prefix`, logging to `log`, and waits
    /// for its start line.
    pub fn start(url: &str, prefix: &str, extra: &[&str], log: &Path) -> Worker {
        Worker::start_with_env(url, prefix, extra, &[], log)
    }

    /// [`Worker::start`] with these environment variables set.
    pub fn start_with_env(
        url: &str,
        prefix: &str,
        extra: &[&str],
        env: &[(&str, &str)],
        log: &Path,
    ) -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sitescan"))
            .args([
                "worker",
                "--redis",
                url,
                "--redis-prefix",
                prefix,
                "--allow-private",
            ])
            .args(extra)
            .envs(env.iter().copied())
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(
            line.contains("\"worker\""),
            "worker did not start: {line:?} (log {})",
            log.display()
        );
        Worker { child }
    }

    /// Waits for it to exit; panics after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "worker did not exit");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls the scans until every one satisfies `ok`, riding out Redis outages;
/// panics after `timeout`.
pub async fn wait_scans(
    store: &RedisBackend,
    ids: &[String],
    timeout: Duration,
    ok: impl Fn(&Scan) -> bool,
) -> Vec<Scan> {
    let deadline = Instant::now() + timeout;
    loop {
        // A Redis outage in the middle: retry until the deadline.
        let mut all = Vec::new();
        let mut failed = false;
        for id in ids {
            match store.scan_by_id(id).await {
                Ok(Some(s)) => all.push(s),
                _ => failed = true,
            }
        }
        if !failed && all.iter().all(&ok) {
            return all;
        }
        assert!(
            Instant::now() < deadline,
            "timed out; scans: {:?}",
            all.iter()
                .map(|s| (s.status, s.attempts, s.error.clone()))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
