//! The ACT examples rendered in the browser (`sitescan conformance --render`).
//!
//! Each HTML example is rendered by render mode's own machinery
//! ([`RenderSession`]): the example is the page's document, served from memory
//! at `http://127.0.0.1:<port>/<rule>/<file>` and wrapped as the W3C publishes
//! it (a fragment gets the doctype, `<html lang="en">`, a `<title>` and
//! `<body>`; a full document gets a doctype when it has none). Every other
//! request the page makes (stylesheets, scripts, frames, images under
//! `/test-assets/`) goes through the interceptor, like a scanned site's, to a
//! small file server on 127.0.0.1 that answers from the folder's `assets/` (and
//! the examples themselves). The serialized DOM and the browser's facts
//! ([`sitescan_rules::rendered`]) then go through the same rules as a scanned
//! page, with the example's published URL.
//!
//! Scripted examples are judged like the others: the browser ran their scripts.
//! SVG and XML examples (all inapplicable) are read as served.
//!
//! One browser, one context, `tabs` tabs rendering in parallel; the rules then
//! run on rayon's pool. Then a second look: each example whose verdict is
//! wrong or cant-tell is rendered again with no other tab running, and the
//! report keeps that verdict and says which changed
//! ([`super::SecondLooks`]). A page's timers and focus moves race the other
//! tabs on a loaded machine; a verdict the rules themselves give comes back
//! the same.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rayon::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

use super::{
    build_page, judge, render_failed, CaseResult, CaseVerdict, ConformanceReport, Mode, Prepared,
    SecondLooks,
};
use crate::browser::intercept::{MainDocument, RobotsCheck};
use crate::browser::RenderSession;
use crate::config::{RenderOptions, RenderWait, ScanConfig};
use crate::crawl::host_limits::HostPool;
use crate::crawl::scope::Scope;
use crate::error::{Error, Result};

/// What became of one example in the browser.
enum Outcome {
    /// Rendered (boxed: a rendered page's facts are large).
    Rendered(Box<crate::browser::pool::Rendered>),
    /// Not HTML (an SVG or XML document): read as served.
    AsServed,
    /// The browser could not render it, and why.
    Failed(String),
}

/// How a render run is set up.
#[derive(Debug, Clone)]
pub struct RenderRun {
    /// Tabs rendering at once.
    pub tabs: usize,
    /// Longest wait for one example, milliseconds.
    pub max_wait_ms: u64,
    /// Quiet period after the network went idle, milliseconds.
    pub quiet_ms: u64,
}

impl Default for RenderRun {
    fn default() -> Self {
        RenderRun {
            tabs: 4,
            max_wait_ms: 3_000,
            quiet_ms: 100,
        }
    }
}

/// Runs every example of the ACT folder `dir` in the browser, through the
/// registered page rules.
///
/// # Errors
/// As [`super::run`], and [`Error::Browser`] when the browser cannot start.
pub async fn run_render(dir: &Path, run: &RenderRun) -> Result<ConformanceReport> {
    let prepared = Arc::new(Prepared::read(dir, sitescan_rules::registry::page_rules())?);
    let server = AssetServer::start(dir.to_path_buf()).await?;
    let config = ScanConfig {
        allow_private: true,
        render: true,
        concurrency: run.tabs.max(1),
        render_options: RenderOptions {
            wait: RenderWait::NetworkIdle,
            quiet_ms: run.quiet_ms,
            max_wait_ms: run.max_wait_ms,
            // The examples are judged, never pictured.
            screenshots: crate::config::ScreenshotOptions {
                enabled: false,
                ..Default::default()
            },
            ..RenderOptions::default()
        },
        ..ScanConfig::default()
    };
    let hosts = Arc::new(HostPool::new(10_000.0, run.tabs.max(1) * 4));
    // Every example is walked with the keyboard: the keyboard-trap,
    // focus-visible and character key shortcut ACT rules need it, and the
    // walk is bounded per page.
    // Text over images is measured in screenshots for the contrast rule.
    let session = RenderSession::start(&config, hosts, true)
        .await?
        .with_measured_backdrop(true);
    let base = format!("http://127.0.0.1:{}/", server.port);
    let robots: RobotsCheck = Arc::new(|_: &Url| true);

    let example = Example {
        prepared: &prepared,
        session: &session,
        config: &config,
        base: &base,
        robots: &robots,
    };
    let rendered: Vec<(usize, Outcome)> = futures::stream::iter(0..prepared.jobs.len())
        .map(|i| async move { (i, example.render(i).await) })
        .buffer_unordered(run.tabs.max(1))
        .collect()
        .await;
    let mut judged = judge_all(&prepared, dir, rendered).await?;

    // A second look, alone: an example whose verdict is wrong or cant-tell is
    // rendered again with no other tab running. Timers, focus moves and the
    // keyboard walk's answers race the other tabs on a loaded machine; a
    // verdict that comes from the rules themselves comes back the same.
    let again: Vec<usize> = judged
        .iter()
        .filter(|(i, r)| {
            matches!(r.verdict, CaseVerdict::Wrong | CaseVerdict::CantTell)
                && example.second_look(**i)
        })
        .map(|(i, _)| *i)
        .take(MAX_SECOND_LOOKS)
        .collect();
    let mut second_looks = SecondLooks::default();
    for i in again {
        let outcome = example.render(i).await;
        let mut redone = judge_all(&prepared, dir, vec![(i, outcome)]).await?;
        if let (Some(second), Some(first)) = (redone.remove(&i), judged.get_mut(&i)) {
            second_looks.examples += 1;
            if second.verdict != first.verdict {
                second_looks.changed.push(format!(
                    "{}/{}: {:?} -> {:?}",
                    prepared.case(&prepared.jobs[i]).0.id,
                    second.file,
                    first.verdict,
                    second.verdict
                ));
            }
            *first = second;
        }
    }
    drop(session);
    drop(server);

    let judged: BTreeMap<(usize, usize), CaseResult> = judged
        .into_iter()
        .map(|(i, r)| {
            let job = &prepared.jobs[i];
            ((job.rule, job.case), r)
        })
        .collect();
    let prepared = Arc::try_unwrap(prepared)
        .map_err(|_| Error::Browser("the examples are still in use".into()))?;
    let mut report = prepared.assemble(dir, judged, Mode::Render)?;
    report.second_looks = second_looks;
    Ok(report)
}

/// Most examples rendered a second time in one run.
const MAX_SECOND_LOOKS: usize = 200;

/// What one example needs to be rendered: the run's session and set-up.
#[derive(Clone, Copy)]
struct Example<'a> {
    prepared: &'a Arc<Prepared>,
    session: &'a RenderSession,
    config: &'a ScanConfig,
    base: &'a str,
    robots: &'a RobotsCheck,
}

impl Example<'_> {
    /// Renders example `i` (the `i`th job).
    async fn render(self, i: usize) -> Outcome {
        let job = &self.prepared.jobs[i];
        let (rule, case) = self.prepared.case(job);
        if !is_html(case) {
            return Outcome::AsServed;
        }
        let r = async {
            let url = Url::parse(self.base)
                .and_then(|b| b.join(&format!("{}/{}", rule.id, case.file)))
                .map_err(|e| e.to_string())?;
            let scope = Arc::new(Scope::new(&url, self.config).map_err(|e| e.to_string())?);
            let doc = MainDocument {
                url,
                status: 200,
                headers: vec![sitescan_rules::Header {
                    name: "content-type".into(),
                    value: "text/html; charset=utf-8".into(),
                }],
                body: published(&job.body, case.fragment, &case.title).into_bytes(),
            };
            self.session
                .render(doc, scope, Arc::clone(self.robots))
                .await
                .map_err(|e| e.to_string())
        }
        .await;
        r.map_or_else(Outcome::Failed, |r| Outcome::Rendered(Box::new(r)))
    }

    /// Whether example `i` is worth a second render: an HTML example of a
    /// rule sitescan maps (an unmapped rule's verdict does not come from a
    /// render).
    fn second_look(self, i: usize) -> bool {
        let (rule, case) = self.prepared.case(&self.prepared.jobs[i]);
        is_html(case) && !self.prepared.mapped(rule).is_empty()
    }
}

/// Whether an example is HTML, rendered in the browser (SVG and XML ones
/// are read as served).
fn is_html(case: &super::ManifestCase) -> bool {
    case.language == "html" || case.language.is_empty()
}

/// Judges rendered examples through their mapped rules, on rayon's pool.
async fn judge_all(
    prepared: &Arc<Prepared>,
    dir: &Path,
    rendered: Vec<(usize, Outcome)>,
) -> Result<BTreeMap<usize, CaseResult>> {
    let prepared = Arc::clone(prepared);
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        rendered
            .into_par_iter()
            .map(|(i, r)| {
                let job = &prepared.jobs[i];
                let (rule, case) = prepared.case(job);
                let mapped = prepared.mapped(rule);
                let result: CaseResult = match r {
                    Outcome::AsServed => {
                        let page = build_page(&dir, rule, case, job.body.clone());
                        judge(case, &page, mapped, Mode::Render)
                    }
                    Outcome::Failed(e) => render_failed(case, e),
                    Outcome::Rendered(rendered) => {
                        let rendered = *rendered;
                        let mut page = build_page(&dir, rule, case, rendered.html);
                        page.rendered = rendered.facts.map(Arc::new);
                        page.interaction = rendered.interaction;
                        judge(case, &page, mapped, Mode::Render)
                    }
                };
                (i, result)
            })
            .collect::<BTreeMap<_, _>>()
    })
    .await
    .map_err(|e| Error::Browser(format!("the rules panicked: {e}")))
}

/// The example's code as the W3C publishes it: a fragment wrapped in a
/// document with `lang="en"` and the example's title, a full document given a
/// doctype when it has none.
fn published(code: &str, fragment: bool, title: &str) -> String {
    if fragment {
        let title = title
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        return format!(
            "<!DOCTYPE html><html lang=\"en\"><head><title>{title}</title></head><body>{code}</body></html>"
        );
    }
    let head = code.trim_start();
    if head.len() >= 9 && head[..9].eq_ignore_ascii_case("<!doctype") {
        code.to_string()
    } else {
        format!("<!DOCTYPE html>{code}")
    }
}

/// Largest request head read by the asset server.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// A file server on 127.0.0.1 for the examples' assets: `/test-assets/<path>`
/// from `<dir>/assets/<path>`, `/<rule>/<file>` from `<dir>/<rule>/<file>`,
/// 404 otherwise. One request per connection. Stops when dropped.
struct AssetServer {
    port: u16,
    task: tokio::task::AbortHandle,
}

impl Drop for AssetServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl AssetServer {
    async fn start(dir: PathBuf) -> Result<AssetServer> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::Browser(format!("asset server: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Browser(format!("asset server: {e}")))?
            .port();
        let dir = Arc::new(dir);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let dir = Arc::clone(&dir);
                tokio::spawn(async move {
                    let _ =
                        tokio::time::timeout(Duration::from_secs(10), serve(stream, &dir)).await;
                });
            }
        })
        .abort_handle();
        Ok(AssetServer { port, task })
    }
}

async fn serve(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await?;
        if n == 0 || head.len() + n > MAX_REQUEST_HEAD {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let path = line.split(' ').nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let file = local_file(dir, path);
    let body = match &file {
        Some(f) => tokio::fs::read(f).await.ok(),
        None => None,
    };
    let (status, body) = match body {
        Some(b) => ("200 OK", b),
        None => ("404 Not Found", b"not found".to_vec()),
    };
    let content_type = content_type(file.as_deref());
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&body).await?;
    stream.shutdown().await
}

/// The file a request path names, never outside `dir`.
fn local_file(dir: &Path, path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(path)?;
    let segs: Vec<&str> = decoded.split('/').filter(|s| !s.is_empty()).collect();
    if segs
        .iter()
        .any(|s| *s == ".." || *s == "." || s.contains('\\'))
    {
        return None;
    }
    let (root, rest): (PathBuf, &[&str]) = match segs.as_slice() {
        ["test-assets", rest @ ..] if !rest.is_empty() => (dir.join("assets"), rest),
        [rule, _] => (dir.join(rule), &segs[1..]),
        _ => return None,
    };
    let mut p = root;
    for s in rest {
        p.push(s);
    }
    p.is_file().then_some(p)
}

fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = path.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(file: Option<&Path>) -> &'static str {
    let ext = file
        .and_then(|f| f.extension())
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "vtt" => "text/vtt; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_published_as_the_w3c_wraps_them() {
        assert_eq!(
            published("<p>x</p>", true, "Passed Example 1"),
            "<!DOCTYPE html><html lang=\"en\"><head><title>Passed Example 1</title></head><body><p>x</p></body></html>"
        );
        assert_eq!(
            published("<html><p>x</p></html>", false, ""),
            "<!DOCTYPE html><html><p>x</p></html>"
        );
        assert_eq!(
            published("<!doctype html><p>x</p>", false, ""),
            "<!doctype html><p>x</p>"
        );
    }

    #[test]
    fn the_asset_server_never_leaves_its_folder() {
        let dir = std::env::temp_dir().join(format!("sitescan-act-assets-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("assets/shared")).unwrap();
        std::fs::create_dir_all(dir.join("abc123")).unwrap();
        std::fs::write(dir.join("assets/shared/a.css"), "p{}").unwrap();
        std::fs::write(dir.join("abc123/passed-1.html"), "<p>").unwrap();
        assert_eq!(
            local_file(&dir, "/test-assets/shared/a.css"),
            Some(dir.join("assets/shared/a.css"))
        );
        assert_eq!(
            local_file(&dir, "/abc123/passed-1.html"),
            Some(dir.join("abc123/passed-1.html"))
        );
        assert_eq!(
            local_file(&dir, "/test-assets/../abc123/passed-1.html"),
            None
        );
        assert_eq!(
            local_file(&dir, "/test-assets/%2e%2e/abc123/passed-1.html"),
            None
        );
        assert_eq!(local_file(&dir, "/test-assets/shared/missing.css"), None);
        assert_eq!(local_file(&dir, "/manifest.json"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
