//! One fetch: redirects followed hop by hop (each hop checked against the SSRF
//! guard and the caller's scope), bounded retries with backoff, `Retry-After`
//! honored, the body streamed in under a size cap, charset decoding.
//!
//! The cap holds for what a body inflates to, counted as it inflates: a gzip
//! bomb costs the cap, not its ratio (see [`CappedSink`]). A body over the cap is
//! kept up to it and flagged [`Fetched::truncated`] (we chose to stop); a body
//! that stops before its end (connection closed or failed, `Content-Length` not
//! reached, the timeout while reading) is a failed fetch
//! ([`FetchError::BodyIncomplete`], [`FetchError::BodyTimeout`]) and its
//! fragment is dropped, so no rule ever judges half a page as the page.
//!
//! A failed fetch is a value ([`Fetched::error`]), not an `Err`: the crawl records
//! it on the page and goes on (lychee's habit).

use std::sync::Arc;
use std::time::Duration;

use std::io::Write;

use reqwest::header::{
    HeaderMap, HeaderValue, ACCEPT_ENCODING, CONTENT_ENCODING, LOCATION, RETRY_AFTER,
};
use reqwest::redirect::Policy;
use sitescan_rules::{Header, Hop};
use tokio::time::Instant;
use url::Url;

use super::credentials::Credentials;
use super::host_limits::HostPool;
use super::scope::normalize;
use super::ssrf::{check_literal, GuardedResolver, PrivateAddressRefused};
use crate::config::ScanConfig;
use crate::error::{Error, Result};

/// Longest `Retry-After` waited; a server asking for more gets the page recorded
/// as failed instead of stalling the scan.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
/// First backoff of a transient failure without `Retry-After`; doubles per retry.
pub const RETRY_BACKOFF: Duration = Duration::from_millis(250);

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// The host resolves to (or is) an address the SSRF guard refuses.
    Private(PrivateAddressRefused),
    /// No connection could be made (DNS, refused, TLS).
    Connect(String),
    /// The connect or total timeout passed.
    Timeout,
    /// A redirect pointed back into its own chain.
    RedirectLoop,
    /// More hops than allowed.
    TooManyRedirects,
    /// A redirect without a usable `Location`.
    BadRedirect(String),
    /// Anything else reqwest reported.
    Http(String),
    /// The body stopped before its end: the connection failed or closed
    /// mid-body, or fewer bytes came than `Content-Length` announced. What came
    /// is a fragment, never analyzed as the page.
    BodyIncomplete {
        /// Body bytes received on the wire before it stopped.
        received: u64,
        /// `Content-Length`, when the server announced one.
        expected: Option<u64>,
        /// What the transport reported.
        cause: String,
    },
    /// The request timeout passed while the body was still arriving (a stalled
    /// or trickling body).
    BodyTimeout {
        /// Body bytes received on the wire before the timeout.
        received: u64,
        /// `Content-Length`, when the server announced one.
        expected: Option<u64>,
    },
}

impl FetchError {
    /// The key under which the report counts this error (`stats.errors`).
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::Private(_) => "private_address",
            FetchError::Connect(_) => "connect",
            FetchError::Timeout => "timeout",
            FetchError::RedirectLoop => "redirect_loop",
            FetchError::TooManyRedirects => "too_many_redirects",
            FetchError::BadRedirect(_) => "bad_redirect",
            FetchError::Http(_) => "http",
            FetchError::BodyIncomplete { .. } => "body_incomplete",
            FetchError::BodyTimeout { .. } => "timeout",
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Private(p) => write!(f, "{p}; refused by the private-address guard"),
            FetchError::Connect(e) => write!(f, "connection failed: {e}"),
            FetchError::Timeout => f.write_str("timed out"),
            FetchError::RedirectLoop => f.write_str("redirect loop"),
            FetchError::TooManyRedirects => f.write_str("too many redirects"),
            FetchError::BadRedirect(e) => write!(f, "bad redirect: {e}"),
            FetchError::Http(e) => write!(f, "request failed: {e}"),
            FetchError::BodyIncomplete {
                received,
                expected,
                cause,
            } => {
                write!(f, "body cut short after {received} bytes")?;
                if let Some(n) = expected {
                    write!(f, " of the {n} announced by Content-Length")?;
                }
                write!(f, " ({cause})")
            }
            FetchError::BodyTimeout { received, expected } => {
                write!(f, "timed out reading the body after {received} bytes")?;
                if let Some(n) = expected {
                    write!(f, " of the {n} announced by Content-Length")?;
                }
                Ok(())
            }
        }
    }
}

/// Why a redirect was not followed (the caller's verdict on a hop target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopStop {
    /// The target was fetched (or queued) already.
    AlreadySeen,
    /// The target is outside the scan's scope.
    OutOfScope,
    /// robots.txt disallows the target.
    Robots,
}

/// Which bodies a fetch reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyPolicy {
    /// Every body (robots.txt, sitemaps, stylesheets).
    Always,
    /// Only bodies that may be HTML: a response declaring another media type
    /// (a PDF, an image) is recorded from its headers and its body is not
    /// downloaded.
    HtmlOnly,
}

impl BodyPolicy {
    fn wants(self, content_type: Option<&str>) -> bool {
        match (self, content_type) {
            (BodyPolicy::Always, _) | (BodyPolicy::HtmlOnly, None) => true,
            (BodyPolicy::HtmlOnly, Some(ct)) => {
                matches!(ct, "text/html" | "application/xhtml+xml" | "")
            }
        }
    }
}

/// What one fetch produced.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// URL as requested.
    pub url: Url,
    /// URL of the last response (or of the redirect target not followed).
    pub final_url: Url,
    /// Status of the last response; 0 when none came.
    pub status: u16,
    /// Headers of the last response, names lowercase.
    pub headers: Vec<Header>,
    /// Redirect hops followed or refused.
    pub redirects: Vec<Hop>,
    /// The redirect target was not followed, and why.
    pub stopped: Option<HopStop>,
    /// Time to first byte of the last response, milliseconds.
    pub ttfb_ms: u64,
    /// Whole fetch including hops and body, milliseconds.
    pub total_ms: u64,
    /// `HTTP/1.1`, `HTTP/2`, ...
    pub http_version: String,
    /// Media type, lowercase, no parameters.
    pub content_type: Option<String>,
    /// The body, cut at the cap.
    pub body: Vec<u8>,
    /// The body was longer than the cap (after decompression).
    pub truncated: bool,
    /// Body bytes received on the wire (compressed size when compressed).
    pub wire_bytes: u64,
    /// The body was not downloaded ([`BodyPolicy::HtmlOnly`] and not HTML).
    pub body_skipped: bool,
    /// `Content-Length` of the last response, when given.
    pub content_length: Option<u64>,
    /// Why it failed, when it did.
    pub error: Option<FetchError>,
}

impl Fetched {
    fn empty(url: &Url) -> Fetched {
        Fetched {
            url: url.clone(),
            final_url: url.clone(),
            status: 0,
            headers: Vec::new(),
            redirects: Vec::new(),
            stopped: None,
            ttfb_ms: 0,
            total_ms: 0,
            http_version: String::new(),
            content_type: None,
            body: Vec::new(),
            truncated: false,
            wire_bytes: 0,
            body_skipped: false,
            content_length: None,
            error: None,
        }
    }

    /// First value of a response header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// The `charset` parameter of `Content-Type`.
    pub fn charset(&self) -> Option<String> {
        let ct = self.header("content-type")?;
        ct.split(';').skip(1).find_map(|p| {
            let (k, v) = p.split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("charset")
                .then(|| v.trim().trim_matches(['"', '\'']).to_string())
        })
    }
}

/// The scan's HTTP client plus its politeness pool.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    hosts: Arc<HostPool>,
    allow_private: bool,
    max_redirects: u32,
    retries: u32,
    /// The scan's credentials: added to each request (each redirect hop) on
    /// their origin, and that origin's `Set-Cookie` kept.
    auth: Option<Arc<Credentials>>,
}

impl Fetcher {
    /// Builds the client for a configuration: redirects off (followed here),
    /// proxies off (a proxy would resolve names past the SSRF guard), and the
    /// guarded DNS resolver unless private addresses are allowed.
    pub fn new(config: &ScanConfig, hosts: Arc<HostPool>) -> Result<Fetcher> {
        // Decompression is ours, not reqwest's: reqwest would strip
        // `Content-Encoding` (which rules check), hide the bytes on the wire
        // (which the report counts), and hand over whatever one poll inflated,
        // so a cap could only be checked after a bomb went off. Ours counts every
        // 32 KiB it inflates (`read_capped`). We offer the encodings flate2
        // decodes; brotli and zstd would need decoders of their own for no gain
        // in what the rules see.
        let mut defaults = HeaderMap::new();
        defaults.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip, deflate"));
        let mut builder = reqwest::Client::builder()
            .redirect(Policy::none())
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
            .default_headers(defaults)
            .no_proxy()
            .user_agent(config.user_agent.clone())
            .connect_timeout(Duration::from_millis(config.connect_timeout_ms))
            .timeout(Duration::from_millis(config.timeout_ms));
        if !config.allow_private {
            builder = builder.dns_resolver(Arc::new(GuardedResolver));
        }
        for pem in &config.ca_certs {
            for cert in reqwest::Certificate::from_pem_bundle(pem.as_bytes())
                .map_err(|e| Error::Config(format!("ca_certs: not PEM certificates: {e}")))?
            {
                builder = builder.add_root_certificate(cert);
            }
        }
        if config.tls_insecure {
            builder = builder.danger_accept_invalid_certs(true);
        }
        let client = builder.build().map_err(|e| Error::Client(e.to_string()))?;
        Ok(Fetcher {
            client,
            hosts,
            allow_private: config.allow_private,
            max_redirects: config.max_redirects,
            retries: config.retries,
            auth: None,
        })
    }

    /// The same fetcher sending `auth` to its origin (see
    /// [`Credentials::apply`]).
    pub fn with_auth(mut self, auth: Option<Arc<Credentials>>) -> Fetcher {
        self.auth = auth;
        self
    }

    /// The scan's credentials, when it has any.
    pub fn auth(&self) -> Option<&Arc<Credentials>> {
        self.auth.as_ref()
    }

    /// The request builder for `method` on `url`, with the credentials when
    /// `url` is on their origin.
    fn request(&self, method: reqwest::Method, url: &Url) -> reqwest::RequestBuilder {
        let req = self.client.request(method, url.as_str());
        match &self.auth {
            Some(auth) => auth.apply(url, req),
            None => req,
        }
    }

    /// Keeps the cookies an answer from `url` sets, when the scan has
    /// credentials and `url` is on their origin.
    fn absorb(&self, url: &Url, resp: &reqwest::Response) {
        if let Some(auth) = &self.auth {
            auth.absorb(url, resp.headers());
        }
    }

    /// One POST of a urlencoded form to `url` (a sign-in), under the same
    /// politeness and SSRF guard as [`Fetcher::get`], without retries (a POST
    /// is not repeated), without following redirects (the caller does, to
    /// keep them on the origin), reading at most `max_body` bytes.
    pub async fn post_form(&self, url: &Url, form: String, max_body: u64) -> Fetched {
        let mut out = Fetched::empty(url);
        if !self.allow_private {
            if let Err(refused) = check_literal(url) {
                out.error = Some(FetchError::Private(refused));
                return out;
            }
        }
        let permit = self.hosts.acquire(url).await;
        let t0 = Instant::now();
        let result = self
            .request(reqwest::Method::POST, url)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(form)
            .send()
            .await;
        drop(permit);
        match result {
            Ok(resp) => {
                self.absorb(url, &resp);
                out.status = resp.status().as_u16();
                out.ttfb_ms = t0.elapsed().as_millis() as u64;
                out.headers = headers_of(resp.headers());
                if let Some(location) = resp.headers().get(LOCATION) {
                    if let Some(target) =
                        location.to_str().ok().and_then(|l| url.join(l.trim()).ok())
                    {
                        out.final_url = target;
                    }
                }
                match read_capped(resp, max_body).await {
                    Ok(body) => {
                        out.body = body.bytes;
                        out.truncated = body.truncated;
                        out.wire_bytes = body.wire_bytes;
                    }
                    Err(e) => out.error = Some(e),
                }
            }
            Err(e) => out.error = Some(classify(&e)),
        }
        out.total_ms = t0.elapsed().as_millis() as u64;
        out
    }

    /// The politeness pool.
    pub fn hosts(&self) -> &Arc<HostPool> {
        &self.hosts
    }

    /// GETs `url`, following redirects the caller's `hop` check lets through,
    /// reading at most `max_body` bytes of the final body when `policy` wants it.
    pub async fn get(
        &self,
        url: &Url,
        policy: BodyPolicy,
        max_body: u64,
        hop: &(dyn Fn(&Url) -> Option<HopStop> + Send + Sync),
    ) -> Fetched {
        // Timings are the final response's own: from its request being sent to
        // its last byte. Waits for the host's rate and concurrency permits, retry
        // back-offs and earlier redirect hops are the scanner's politeness, not
        // the site's speed; counting them made `download-time` flip between runs
        // with the crawl's concurrency.
        let mut sent_at = Instant::now();
        let mut out = Fetched::empty(url);
        let mut current = url.clone();
        let mut chain: Vec<Url> = vec![url.clone()];
        loop {
            out.final_url = current.clone();
            if !self.allow_private {
                if let Err(refused) = check_literal(&current) {
                    out.error = Some(FetchError::Private(refused));
                    break;
                }
            }
            let (resp, sent, ttfb) = match self.send(&current).await {
                Ok(r) => r,
                Err(e) => {
                    out.error = Some(e);
                    break;
                }
            };
            sent_at = sent;
            out.status = resp.status().as_u16();
            out.ttfb_ms = ttfb.as_millis() as u64;
            out.http_version = format!("{:?}", resp.version());
            out.headers = headers_of(resp.headers());
            out.content_type = out.header("content-type").map(|ct| {
                ct.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
            if resp.status().is_redirection() {
                if let Some(location) = resp.headers().get(LOCATION) {
                    let target = match location
                        .to_str()
                        .map_err(|e| e.to_string())
                        .and_then(|l| current.join(l.trim()).map_err(|e| e.to_string()))
                    {
                        Ok(t) => normalize(&t),
                        Err(e) => {
                            out.error = Some(FetchError::BadRedirect(e));
                            break;
                        }
                    };
                    out.redirects.push(Hop {
                        url: current.to_string(),
                        status: out.status,
                        location: target.to_string(),
                    });
                    if !matches!(target.scheme(), "http" | "https") {
                        out.error = Some(FetchError::BadRedirect(format!(
                            "scheme `{}` is not http(s)",
                            target.scheme()
                        )));
                        break;
                    }
                    if chain.contains(&target) {
                        out.error = Some(FetchError::RedirectLoop);
                        break;
                    }
                    if out.redirects.len() > self.max_redirects as usize {
                        out.error = Some(FetchError::TooManyRedirects);
                        break;
                    }
                    if let Some(stop) = hop(&target) {
                        out.stopped = Some(stop);
                        out.final_url = target;
                        break;
                    }
                    chain.push(target.clone());
                    current = target;
                    continue;
                }
            }
            out.content_length = resp.content_length();
            if !policy.wants(out.content_type.as_deref()) {
                out.body_skipped = true;
                break;
            }
            match read_capped(resp, max_body).await {
                Ok(body) => {
                    out.body = body.bytes;
                    out.truncated = body.truncated;
                    out.wire_bytes = body.wire_bytes;
                }
                Err(e) => out.error = Some(e),
            }
            break;
        }
        out.total_ms = sent_at.elapsed().as_millis() as u64;
        out
    }

    /// One GET of `url` with extra request headers, under the same politeness
    /// and SSRF guard as [`Fetcher::get`], but without retries, without following
    /// redirects and without reading the body: for probes whose answer is in the
    /// response headers (the CORS check sends a foreign `Origin`).
    pub async fn probe(&self, url: &Url, headers: HeaderMap) -> Fetched {
        let mut out = Fetched::empty(url);
        if !self.allow_private {
            if let Err(refused) = check_literal(url) {
                out.error = Some(FetchError::Private(refused));
                return out;
            }
        }
        let permit = self.hosts.acquire(url).await;
        let t0 = Instant::now();
        let result = self
            .request(reqwest::Method::GET, url)
            .headers(headers)
            .send()
            .await;
        drop(permit);
        match result {
            Ok(resp) => {
                self.absorb(url, &resp);
                out.status = resp.status().as_u16();
                out.ttfb_ms = t0.elapsed().as_millis() as u64;
                out.http_version = format!("{:?}", resp.version());
                out.headers = headers_of(resp.headers());
                out.body_skipped = true;
            }
            Err(e) => out.error = Some(classify(&e)),
        }
        out.total_ms = t0.elapsed().as_millis() as u64;
        out
    }

    /// One request with politeness and retries; returns the response (headers
    /// read), when its request was sent (after the permit wait) and its time to
    /// first byte.
    async fn send(
        &self,
        url: &Url,
    ) -> std::result::Result<(reqwest::Response, Instant, Duration), FetchError> {
        let mut attempt = 0u32;
        loop {
            let permit = self.hosts.acquire(url).await;
            let t0 = Instant::now();
            let result = self.request(reqwest::Method::GET, url).send().await;
            drop(permit);
            let ttfb = t0.elapsed();
            if let Ok(resp) = &result {
                self.absorb(url, resp);
            }
            let retry_in = match result {
                Err(e) => {
                    let err = classify(&e);
                    let transient = matches!(err, FetchError::Timeout | FetchError::Connect(_));
                    if !transient || attempt >= self.retries {
                        return Err(err);
                    }
                    backoff(attempt)
                }
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let transient = matches!(status, 429 | 502 | 503 | 504);
                    if !transient || attempt >= self.retries {
                        return Ok((resp, t0, ttfb));
                    }
                    match retry_after(resp.headers()) {
                        Some(wait) if wait > MAX_RETRY_AFTER => return Ok((resp, t0, ttfb)),
                        Some(wait) => {
                            tracing::info!(url = %url, status, wait_ms = wait.as_millis() as u64, "server asked to retry later");
                            self.hosts.pause(url, wait);
                            wait
                        }
                        None => backoff(attempt),
                    }
                }
            };
            attempt += 1;
            tokio::time::sleep(retry_in).await;
        }
    }
}

/// Wait before retry number `attempt + 1`: 250 ms, 500 ms, 1 s, ... capped at
/// about four minutes.
fn backoff(attempt: u32) -> Duration {
    RETRY_BACKOFF * 2u32.pow(attempt.min(10))
}

/// Parses `Retry-After`: delta seconds or an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    // All three HTTP-date forms (IMF-fixdate, RFC 850, asctime), as RFC 9110 asks.
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

fn classify(e: &reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut root = e.to_string();
    while let Some(s) = source {
        if let Some(refused) = s.downcast_ref::<PrivateAddressRefused>() {
            return FetchError::Private(refused.clone());
        }
        root = s.to_string();
        source = s.source();
    }
    if e.is_timeout() {
        FetchError::Timeout
    } else if e.is_connect() {
        FetchError::Connect(root)
    } else {
        FetchError::Http(root)
    }
}

fn headers_of(map: &HeaderMap) -> Vec<Header> {
    map.iter()
        .map(|(n, v)| Header {
            name: n.as_str().to_ascii_lowercase(),
            value: String::from_utf8_lossy(v.as_bytes()).into_owned(),
        })
        .collect()
}

/// A body as read: decoded bytes (cut at the cap) and what came over the wire.
struct Body {
    bytes: Vec<u8>,
    truncated: bool,
    wire_bytes: u64,
}

/// Where decoded bytes go: a buffer that takes at most `cap` bytes and refuses
/// the next one with an error. The decoders write into it 32 KiB at a time
/// (flate2's write-side buffer), so that error stops inflation within 32 KiB of
/// the cap however much a chunk would inflate to; memory is the cap, not the
/// compression ratio.
struct CappedSink {
    buf: Vec<u8>,
    cap: usize,
    /// A byte past the cap was offered: the body is longer than the cap.
    over: bool,
}

impl CappedSink {
    fn new(cap: usize) -> CappedSink {
        CappedSink {
            buf: Vec::new(),
            cap,
            over: false,
        }
    }
}

impl Write for CappedSink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let room = self.cap - self.buf.len();
        if room == 0 || self.over {
            self.over = true;
            return Err(std::io::Error::other("body cap reached"));
        }
        let take = data.len().min(room);
        // Grow by doubling, but never past the cap: a body at the cap holds the
        // cap, not the next power of two above it.
        let needed = self.buf.len() + take;
        if needed > self.buf.capacity() {
            let target = (self.buf.capacity() * 2).max(needed).min(self.cap);
            self.buf.reserve_exact(target - self.buf.len());
        }
        self.buf.extend_from_slice(&data[..take]);
        Ok(take)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The decoder for a `Content-Encoding`, writing into a [`CappedSink`].
///
/// reqwest's own decompression is off on the crawler's client (see
/// [`Fetcher::new`]): besides hiding `Content-Encoding` and the wire size, its
/// decoder yields whatever one poll inflates and the cap could only be checked
/// after it. Here every 32 KiB of output passes the sink's count.
enum Decoder {
    Identity(CappedSink),
    Gzip(flate2::write::MultiGzDecoder<CappedSink>),
    Deflate(flate2::write::ZlibDecoder<CappedSink>),
}

/// What writing one chunk to a [`Decoder`] came to.
enum Fed {
    /// Taken whole; more may come.
    More,
    /// The decoded body reached the cap; stop reading.
    Full,
}

impl Decoder {
    fn for_encoding(encoding: Option<&str>, cap: usize) -> Result<Decoder, FetchError> {
        let sink = CappedSink::new(cap);
        match encoding.map(|e| e.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("identity") => Ok(Decoder::Identity(sink)),
            Some("gzip") | Some("x-gzip") => {
                Ok(Decoder::Gzip(flate2::write::MultiGzDecoder::new(sink)))
            }
            Some("deflate") => Ok(Decoder::Deflate(flate2::write::ZlibDecoder::new(sink))),
            Some(other) => Err(FetchError::Http(format!(
                "the server sent Content-Encoding `{other}`, which was not asked for"
            ))),
        }
    }

    fn sink(&mut self) -> &mut CappedSink {
        match self {
            Decoder::Identity(s) => s,
            Decoder::Gzip(d) => d.get_mut(),
            Decoder::Deflate(d) => d.get_mut(),
        }
    }

    /// Feeds one chunk; an error is a body that does not decode.
    fn feed(&mut self, chunk: &[u8]) -> Result<Fed, FetchError> {
        let result = match self {
            Decoder::Identity(s) => s.write_all(chunk),
            Decoder::Gzip(d) => d.write_all(chunk),
            Decoder::Deflate(d) => d.write_all(chunk),
        };
        self.settle(result)
    }

    /// Flushes what the decoder still holds (and checks the stream's end).
    fn finish(&mut self) -> Result<Fed, FetchError> {
        let result = match self {
            Decoder::Identity(_) => Ok(()),
            Decoder::Gzip(d) => d.try_finish(),
            Decoder::Deflate(d) => d.try_finish(),
        };
        self.settle(result)
    }

    fn settle(&mut self, result: std::io::Result<()>) -> Result<Fed, FetchError> {
        match result {
            _ if self.sink().over => Ok(Fed::Full),
            Ok(()) => Ok(Fed::More),
            Err(e) => Err(FetchError::Http(format!("undecodable body: {e}"))),
        }
    }

    /// The decoded bytes, moved out (no copy). The decoder is spent: its sink
    /// refuses anything more, so dropping it (flate2 finishes on drop) cannot
    /// inflate further.
    fn take(&mut self) -> Vec<u8> {
        let sink = self.sink();
        sink.cap = sink.buf.len();
        sink.over = true;
        std::mem::take(&mut sink.buf)
    }
}

/// Reads the body chunk by chunk, decoding `Content-Encoding` as it comes and
/// stopping once the decoded body would pass `max` bytes (which also stops
/// decompression bombs: see [`CappedSink`]).
///
/// Over the cap is a choice, not a failure: the body is cut at `max` bytes and
/// `truncated` set. A body that stops early is a failure: a transport error
/// mid-body, the request timeout, or fewer bytes than `Content-Length` gives
/// [`FetchError::BodyIncomplete`] / [`FetchError::BodyTimeout`], and the
/// fragment is dropped.
async fn read_capped(mut resp: reqwest::Response, max: u64) -> Result<Body, FetchError> {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let expected = resp.content_length();
    let encoding = resp
        .headers()
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut decoder = Decoder::for_encoding(encoding.as_deref(), max)?;
    let mut wire_bytes = 0u64;
    let mut fed = Fed::More;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                wire_bytes += chunk.len() as u64;
                fed = decoder.feed(&chunk)?;
                if matches!(fed, Fed::Full) {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                tracing::debug!(error = %e, received = wire_bytes, "body read ended early");
                return Err(if e.is_timeout() {
                    FetchError::BodyTimeout {
                        received: wire_bytes,
                        expected,
                    }
                } else {
                    FetchError::BodyIncomplete {
                        received: wire_bytes,
                        expected,
                        cause: root_cause(&e),
                    }
                });
            }
        }
    }
    if matches!(fed, Fed::More) {
        // The transport said the body ended; hyper checks `Content-Length`
        // itself, this is the same check where it cannot (a body it was not
        // told the length of is complete at the connection's end).
        if let Some(n) = expected.filter(|n| wire_bytes < *n) {
            return Err(FetchError::BodyIncomplete {
                received: wire_bytes,
                expected: Some(n),
                cause: "the connection closed early".into(),
            });
        }
        fed = decoder.finish()?;
    }
    Ok(Body {
        bytes: decoder.take(),
        truncated: matches!(fed, Fed::Full),
        wire_bytes,
    })
}

/// The innermost message of an error's source chain (hyper's "end of file
/// before message length reached" rather than reqwest's "error decoding
/// response body").
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut root = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        root = s.to_string();
        source = s.source();
    }
    root
}

/// Decodes an HTML body: BOM first, then the `Content-Type` charset, then a
/// `<meta charset>` / `http-equiv` declaration in the first 1024 bytes, else
/// UTF-8 (as the HTML standard orders them; unknown labels are skipped).
pub fn decode_html(bytes: &[u8], header_charset: Option<&str>) -> (String, &'static str) {
    use encoding_rs::Encoding;
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return (text.into_owned(), enc.name());
    }
    let from_header = header_charset.and_then(|l| Encoding::for_label(l.as_bytes()));
    let enc = from_header
        .or_else(|| meta_charset(bytes))
        .unwrap_or(encoding_rs::UTF_8);
    // A page can only declare an ASCII-compatible encoding in a meta tag; UTF-16
    // labels there mean UTF-8 (HTML standard, "prescan").
    let enc = if from_header.is_none() && !enc.is_ascii_compatible() {
        encoding_rs::UTF_8
    } else {
        enc
    };
    let (text, _, _) = enc.decode(bytes);
    (text.into_owned(), enc.name())
}

fn meta_charset(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("<meta") {
        rest = &rest[i + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(j) = tag.find("charset") {
            let after = tag[j + 7..].trim_start();
            if let Some(value) = after.strip_prefix('=') {
                let value = value.trim_start().trim_start_matches(['"', '\'']);
                let end = value
                    .find(|c: char| {
                        c == '"' || c == '\'' || c == ';' || c.is_whitespace() || c == '/'
                    })
                    .unwrap_or(value.len());
                if let Some(enc) = encoding_rs::Encoding::for_label(&value.as_bytes()[..end]) {
                    return Some(enc);
                }
            }
        }
    }
    None
}

/// A gzip stream that inflates to about `len` zero bytes (within 258), built by hand in
/// `len / 258 * 13` bits (one literal, then `<length 258, distance 1>` copies
/// in a fixed-Huffman block), so tests need not compress gigabytes. Its
/// trailer's CRC is left zero: every reader under test stops at a cap first.
#[cfg(test)]
pub(crate) fn gzip_bomb(len: u64) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let (mut acc, mut nbits) = (0u32, 0u32);
    let mut put = |out: &mut Vec<u8>, value: u32, bits: u32, msb_first: bool| {
        for i in 0..bits {
            let bit = if msb_first {
                (value >> (bits - 1 - i)) & 1
            } else {
                (value >> i) & 1
            };
            acc |= bit << nbits;
            nbits += 1;
            if nbits == 8 {
                out.push(acc as u8);
                acc = 0;
                nbits = 0;
            }
        }
    };
    put(&mut out, 1, 1, false); // BFINAL
    put(&mut out, 1, 2, false); // BTYPE = fixed Huffman
    put(&mut out, 0x30, 8, true); // literal 0
    for _ in 0..len.saturating_sub(1) / 258 {
        put(&mut out, 0b1100_0101, 8, true); // length 258 (code 285)
        put(&mut out, 0, 5, true); // distance 1
    }
    put(&mut out, 0, 7, true); // end of block
    if nbits > 0 {
        out.push(acc as u8);
    }
    out.extend_from_slice(&[0; 4]); // CRC (unchecked, see above)
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charset_from_bom_header_meta() {
        let latin = b"<meta charset=\"windows-1252\"><p>caf\xe9</p>";
        assert_eq!(
            decode_html(latin, None).0,
            "<meta charset=\"windows-1252\"><p>café</p>"
        );
        assert_eq!(decode_html(latin, Some("no-such")).1, "windows-1252");
        let equiv = b"<meta http-equiv=Content-Type content='text/html; charset=iso-8859-1'>\xe9";
        assert!(decode_html(equiv, None).0.ends_with('é'));
        assert_eq!(decode_html("é".as_bytes(), Some("utf-8")).0, "é");
        assert_eq!(decode_html(b"\xef\xbb\xbfhi", Some("windows-1252")).0, "hi");
        assert_eq!(decode_html(b"\xe9", None).0, "\u{fffd}");
        assert_eq!(decode_html(b"<meta charset=utf-16>x", None).1, "UTF-8");
    }

    fn response(encoding: Option<&str>, body: Vec<u8>) -> reqwest::Response {
        let mut b = axum::http::Response::builder().status(200);
        if let Some(e) = encoding {
            b = b.header("content-encoding", e);
        }
        reqwest::Response::from(b.body(body).unwrap())
    }

    #[test]
    fn the_hand_built_bomb_inflates_to_zeros() {
        let bomb = gzip_bomb(1 << 20);
        let mut got = Vec::new();
        let err = std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(bomb.as_slice()),
            &mut got,
        );
        // All data comes out; only the (deliberately zero) CRC is refused.
        assert!(err.is_err());
        assert_eq!(got.len(), 1 + (((1 << 20) - 1) / 258) * 258);
        assert!(got.iter().all(|b| *b == 0));
        assert!(bomb.len() < 8 * 1024, "{}", bomb.len());
    }

    #[tokio::test]
    async fn a_bomb_in_one_chunk_stops_at_the_cap_without_spare_capacity() {
        // 1 GiB in one 5 MB chunk: inflation stops within 32 KiB of the cap
        // (it would take seconds and a gigabyte otherwise), and the buffer is
        // the cap, not the next power of two.
        let cap = 10 * 1024 * 1024 + 7;
        let got = read_capped(response(Some("gzip"), gzip_bomb(1 << 30)), cap)
            .await
            .unwrap();
        assert_eq!((got.bytes.len() as u64, got.truncated), (cap, true));
        assert_eq!(got.bytes.capacity() as u64, cap);
        // Exactly at the cap is whole, not truncated.
        let exact = b"x".repeat(100);
        let got = read_capped(response(Some("gzip"), gzip(&exact)), 100)
            .await
            .unwrap();
        assert_eq!((got.bytes, got.truncated), (exact, false));
    }

    fn streamed(chunks: Vec<std::io::Result<&'static [u8]>>) -> reqwest::Response {
        let stream =
            futures::stream::iter(chunks.into_iter().map(|c| c.map(bytes::Bytes::from_static)));
        let body = reqwest::Body::wrap_stream(stream);
        reqwest::Response::from(axum::http::Response::builder().body(body).unwrap())
    }

    #[tokio::test]
    async fn a_body_that_breaks_off_is_an_error_not_a_fragment() {
        let cut = read_capped(
            streamed(vec![
                Ok(b"<html><body>half a pa".as_slice()),
                Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "connection reset",
                )),
            ]),
            1 << 20,
        )
        .await;
        let Err(e) = cut else {
            panic!("a cut body was read as whole");
        };
        assert_eq!(e.kind(), "body_incomplete");
        assert!(
            e.to_string().starts_with("body cut short after 21 bytes ("),
            "{e}"
        );
        assert!(e.to_string().contains("connection reset"), "{e}");
        let whole = read_capped(streamed(vec![Ok(b"<p>a</p>".as_slice())]), 1 << 20)
            .await
            .unwrap();
        assert_eq!(whole.bytes, b"<p>a</p>");
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[tokio::test]
    async fn bodies_are_decoded_and_capped_after_decoding() {
        let html = b"<p>hello</p>".repeat(100);
        let packed = gzip(&html);
        let got = read_capped(response(Some("gzip"), packed.clone()), 1 << 20)
            .await
            .unwrap();
        assert_eq!((got.bytes, got.truncated), (html.clone(), false));
        assert_eq!(got.wire_bytes, packed.len() as u64);

        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&html).unwrap();
        let got = read_capped(response(Some("deflate"), z.finish().unwrap()), 1 << 20)
            .await
            .unwrap();
        assert_eq!(got.bytes, html);

        // A decompression bomb stops at the cap.
        let bomb = gzip(&vec![0u8; 8 << 20]);
        let got = read_capped(response(Some("gzip"), bomb), 64 * 1024)
            .await
            .unwrap();
        assert_eq!((got.bytes.len(), got.truncated), (64 * 1024, true));

        let plain = read_capped(response(None, html.clone()), 100)
            .await
            .unwrap();
        assert_eq!((plain.bytes.len(), plain.truncated), (100, true));

        assert!(read_capped(response(Some("br"), html.clone()), 1 << 20)
            .await
            .is_err());
        assert!(read_capped(response(Some("gzip"), html), 1 << 20)
            .await
            .is_err());
    }

    /// A loopback server whose one page answers after `delay`, counting requests.
    async fn slow_page(delay: Duration) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&hits);
        let app = axum::Router::new().route(
            "/",
            axum::routing::get(move || {
                let counted = Arc::clone(&counted);
                async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(delay).await;
                    ([("content-type", "text/html")], "<p>late</p>")
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}/"), hits)
    }

    #[tokio::test]
    async fn timings_leave_out_the_wait_for_the_hosts_rate() {
        // One request per 3 s to the host: the second GET waits about 3 s for
        // its turn before its request is sent. That wait is the scanner's
        // politeness; the page's timings are its own 150 ms answer.
        let (url, hits) = slow_page(Duration::from_millis(150)).await;
        let config = ScanConfig {
            allow_private: true,
            ..ScanConfig::default()
        };
        let fetcher = Fetcher::new(&config, Arc::new(HostPool::new(1.0 / 3.0, 1))).unwrap();
        let url = Url::parse(&url).unwrap();
        let no_hops = |_: &Url| None;
        let first = fetcher
            .get(&url, BodyPolicy::Always, 1 << 20, &no_hops)
            .await;
        let queued_at = Instant::now();
        let second = fetcher
            .get(&url, BodyPolicy::Always, 1 << 20, &no_hops)
            .await;
        let waited = queued_at.elapsed();
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert_eq!((first.status, second.status), (200, 200));
        assert_eq!(second.body, b"<p>late</p>");
        // The second call really waited for its turn...
        assert!(waited >= Duration::from_millis(2500), "{waited:?}");
        // ...and its timings are the answer's: at least the server's delay,
        // well short of the wait before it.
        for fetched in [&first, &second] {
            assert!(fetched.ttfb_ms >= 150, "{}", fetched.ttfb_ms);
            assert!(fetched.total_ms >= fetched.ttfb_ms);
            assert!(fetched.total_ms < 2000, "{}", fetched.total_ms);
        }
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, "3".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
