//! A small DevTools-protocol client over Chromium's `--remote-debugging-pipe`.
//!
//! Why our own instead of chromiumoxide (0.9, the usual tokio-native choice):
//! we call about fifteen methods with JSON we write ourselves, while
//! chromiumoxide compiles a generated protocol crate of well over 100,000 lines
//! on a machine whose two cores every build shares, and its transport is a
//! websocket on a TCP debugging port that any local process (or a page's own
//! script, were the interceptor ever bypassed) could reach. The pipe has no
//! port: only the process that launched the browser holds its ends.
//!
//! Messages are JSON objects, each followed by a NUL byte. A call carries an
//! `id` its answer repeats; events carry a `method` and, for a tab, the
//! `sessionId` of the flat-mode session attached to it. Every call is bounded
//! by a timeout ([`Connection::call`]); a message over [`MAX_MESSAGE_BYTES`] is
//! skipped and fails the call it answered, so a page cannot make us hold an
//! unbounded DOM.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::BrowserError;

/// Largest message read from the browser (a serialized DOM, a response body
/// asked for). Past it the message is skipped, and the call it answers fails.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An event the browser sent: its method and parameters.
#[derive(Debug, Clone)]
pub struct Event {
    /// `Fetch.requestPaused`, `Page.loadEventFired`, ...
    pub method: String,
    /// The event's parameters.
    pub params: Value,
}

type Reply = Result<Value, BrowserError>;

#[derive(Default)]
struct Routes {
    pending: HashMap<u64, oneshot::Sender<Reply>>,
    /// Events per session id (`""`: the browser's own session).
    sessions: HashMap<String, mpsc::UnboundedSender<Event>>,
}

/// One browser's protocol connection, shared by every tab of that browser.
pub struct Connection {
    next_id: AtomicU64,
    out: mpsc::UnboundedSender<Vec<u8>>,
    routes: Arc<Mutex<Routes>>,
    closed: Arc<AtomicBool>,
}

impl Connection {
    /// Starts the reader and writer tasks over the browser's pipe ends.
    pub fn start<R, W>(reader: R, writer: W) -> Arc<Connection>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (out, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
        let routes = Arc::new(Mutex::new(Routes::default()));
        let closed = Arc::new(AtomicBool::new(false));
        let mut writer = writer;
        let closed_w = Arc::clone(&closed);
        tokio::spawn(async move {
            while let Some(mut msg) = rx.recv().await {
                msg.push(0);
                if writer.write_all(&msg).await.is_err() || writer.flush().await.is_err() {
                    break;
                }
            }
            closed_w.store(true, Ordering::SeqCst);
        });
        let routes_r = Arc::clone(&routes);
        let closed_r = Arc::clone(&closed);
        tokio::spawn(async move {
            read_loop(reader, &routes_r).await;
            closed_r.store(true, Ordering::SeqCst);
            // Every call still waiting learns the browser is gone; every tab's
            // event stream ends.
            let mut r = lock(&routes_r);
            for (_, tx) in r.pending.drain() {
                let _ = tx.send(Err(BrowserError::Crashed));
            }
            r.sessions.clear();
        });
        Arc::new(Connection {
            next_id: AtomicU64::new(1),
            out,
            routes,
            closed,
        })
    }

    /// Whether the pipe closed (the browser exited or crashed).
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Receives the events of `session` (`""` for the browser's own).
    pub fn subscribe(&self, session: &str) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.routes).sessions.insert(session.to_string(), tx);
        rx
    }

    /// Stops routing the events of `session`.
    pub fn unsubscribe(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }

    /// Calls `method` on `session` (`None`: the browser itself) and waits at
    /// most `timeout` for the answer.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, BrowserError> {
        if self.is_closed() {
            return Err(BrowserError::Crashed);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.routes).pending.insert(id, tx);
        let bytes = serde_json::to_vec(&msg).map_err(|e| BrowserError::Protocol(e.to_string()))?;
        if self.out.send(bytes).is_err() {
            lock(&self.routes).pending.remove(&id);
            return Err(BrowserError::Crashed);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(BrowserError::Crashed),
            Err(_) => {
                lock(&self.routes).pending.remove(&id);
                Err(BrowserError::Timeout {
                    method: method.to_string(),
                    ms: timeout.as_millis() as u64,
                })
            }
        }
    }
}

/// Where [`Connection::evaluate`] runs a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    /// The page's own main world, where its scripts run (and can see or
    /// replace what ours leave).
    Page,
    /// An isolated world's execution context (`Page.createIsolatedWorld`):
    /// the page's scripts cannot reach it.
    Isolated(i64),
}

/// How [`Connection::evaluate`] waits for a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The script's value as it returns.
    Value,
    /// The value its promise settles to; the browser stops the script after
    /// the call's timeout, so a promise that never settles cannot hang it.
    Promise,
}

impl Connection {
    /// Evaluates `expr` in `world` of the tab `session` and answers its value
    /// (`Null` when it has none). A script that threw is
    /// [`BrowserError::Script`] with the browser's text for it: callers that
    /// treat a page that broke their script as "no answer" match on that.
    pub async fn evaluate(
        &self,
        session: &str,
        world: World,
        expr: &str,
        wait: Wait,
        timeout: Duration,
    ) -> Result<Value, BrowserError> {
        let mut params = json!({"expression": expr, "returnByValue": true});
        if let World::Isolated(context) = world {
            params["contextId"] = json!(context);
        }
        if wait == Wait::Promise {
            params["awaitPromise"] = json!(true);
            params["timeout"] = json!(timeout.as_millis() as u64);
        }
        let mut r = self
            .call(Some(session), "Runtime.evaluate", params, timeout)
            .await?;
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex
                .pointer("/exception/description")
                .or_else(|| ex.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("exception");
            return Err(BrowserError::Script(sitescan_rules::dom::truncate_chars(
                text, 200,
            )));
        }
        Ok(r.pointer_mut("/result/value")
            .map(Value::take)
            .unwrap_or(Value::Null))
    }

    /// Opens a tab on `about:blank` in the browser context `context` and
    /// attaches to it: its target id (its main frame's id too) and the
    /// session to call it on.
    pub async fn open_tab(
        &self,
        context: &str,
        timeout: Duration,
    ) -> Result<(String, String), BrowserError> {
        let field = |v: &Value, name: &str| {
            v.get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| BrowserError::Protocol(format!("no {name} in the answer")))
        };
        let created = self
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context}),
                timeout,
            )
            .await?;
        let target = field(&created, "targetId")?;
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
                timeout,
            )
            .await?;
        Ok((target, field(&attached, "sessionId")?))
    }

    /// Creates an isolated world named `name` in `frame` of the tab
    /// `session` (or names the one already there) and answers its execution
    /// context, for [`World::Isolated`].
    pub async fn isolated_world(
        &self,
        session: &str,
        frame: &str,
        name: &str,
        timeout: Duration,
    ) -> Result<i64, BrowserError> {
        let world = self
            .call(
                Some(session),
                "Page.createIsolatedWorld",
                json!({"frameId": frame, "worldName": name, "grantUniveralAccess": false}),
                timeout,
            )
            .await?;
        world
            .get("executionContextId")
            .and_then(Value::as_i64)
            .ok_or_else(|| BrowserError::Protocol("no isolated world".into()))
    }
}

/// Reads NUL-terminated messages until the pipe closes, routing answers to
/// their callers and events to their sessions.
async fn read_loop<R: AsyncRead + Unpin>(mut reader: R, routes: &Mutex<Routes>) {
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    // Skipping the rest of a message over the cap.
    let mut skipping = false;
    loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut data = &chunk[..n];
        while let Some(end) = memchr::memchr(0, data) {
            if skipping {
                skipping = false;
            } else {
                buf.extend_from_slice(&data[..end]);
                dispatch(&buf, routes);
            }
            buf.clear();
            data = &data[end + 1..];
        }
        if skipping {
            continue;
        }
        buf.extend_from_slice(data);
        if buf.len() > MAX_MESSAGE_BYTES {
            // Over the cap: fail the call it answers (Chromium writes the
            // `id` first) and drop the message's bytes as they come.
            tracing::warn!(bytes = buf.len(), "browser message over the cap; skipped");
            if let Some(id) = leading_id(&buf) {
                if let Some(tx) = lock(routes).pending.remove(&id) {
                    let _ = tx.send(Err(BrowserError::TooLarge));
                }
            }
            buf = Vec::with_capacity(64 * 1024);
            skipping = true;
        }
    }
}

/// The `id` of a message that starts `{"id":N`, as Chromium's answers do.
fn leading_id(buf: &[u8]) -> Option<u64> {
    let rest = buf.strip_prefix(b"{\"id\":")?;
    let digits: Vec<u8> = rest
        .iter()
        .take(20)
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

fn dispatch(raw: &[u8], routes: &Mutex<Routes>) {
    let Ok(mut msg) = serde_json::from_slice::<Value>(raw) else {
        tracing::debug!("unparsable message from the browser");
        return;
    };
    if let Some(id) = msg.get("id").and_then(Value::as_u64) {
        let tx = lock(routes).pending.remove(&id);
        if let Some(tx) = tx {
            let reply = match msg.get_mut("error") {
                Some(err) => Err(BrowserError::Protocol(
                    err.get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                        .to_string(),
                )),
                None => Ok(msg
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            };
            let _ = tx.send(reply);
        }
        return;
    }
    let Some(method) = msg
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return;
    };
    let session = msg
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let params = msg
        .get_mut("params")
        .map(Value::take)
        .unwrap_or(Value::Null);
    let r = lock(routes);
    if let Some(tx) = r.sessions.get(&session) {
        let _ = tx.send(Event { method, params });
    }
}
