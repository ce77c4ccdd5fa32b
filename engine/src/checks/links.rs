//! Link and resource checking for the `broken-links` and `broken-resources` rules.
//!
//! Each URL is checked once per scan (results cached): `HEAD`, then `GET` when
//! `HEAD` is refused or fails (many servers mishandle `HEAD`), following redirects.
//! Requests go through the scan's [`HostPool`] (per-host rate and concurrency) and
//! the same private-address guard as the crawl. A `429` is retried once after its
//! `Retry-After` (capped) and otherwise reported as rate limited, never as broken.

use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use reqwest::redirect::Policy;
use sitescan_rules::site::LinkStatus;
use url::Url;

use crate::config::ScanConfig;
use crate::crawl::fetch::retry_after;
use crate::crawl::host_limits::HostPool;
use crate::crawl::ssrf::{check_literal, CachingResolver};
use crate::error::{Error, Result};

/// Statuses that count as working, after redirects (lychee's default accepts
/// 100–103 and 2xx; redirects are followed here, so their final status counts).
pub const DEFAULT_ACCEPT: RangeInclusive<u16> = 100..=399;

/// Most URLs checked in one scan; the rest are reported as skipped in a note.
pub const DEFAULT_MAX_LINK_CHECKS: usize = 2000;

/// Longest `Retry-After` honoured before giving up as rate limited.
pub const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(30);

/// Checks URLs with caching and politeness.
pub struct LinkChecker {
    client: reqwest::Client,
    hosts: Arc<HostPool>,
    cache: Mutex<HashMap<String, LinkStatus>>,
    accept: Vec<RangeInclusive<u16>>,
    concurrency: usize,
    allow_private: bool,
    /// The client's resolver, warmed with every host before the checks start.
    resolver: Arc<CachingResolver>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl LinkChecker {
    /// A checker with the scan's timeouts, user agent, redirect limit and
    /// private-address policy, sharing the crawl's host pool.
    pub fn new(config: &ScanConfig, hosts: Arc<HostPool>) -> Result<LinkChecker> {
        let allow_private = config.allow_private;
        let max_redirects = config.max_redirects as usize;
        let policy = Policy::custom(move |attempt| {
            if attempt.previous().len() > max_redirects {
                attempt.error("too many redirects")
            } else if !allow_private && check_literal(attempt.url()).is_err() {
                attempt.error("redirect to a private address")
            } else {
                attempt.follow()
            }
        });
        let mut builder = reqwest::Client::builder()
            .redirect(policy)
            .no_proxy()
            .user_agent(config.user_agent.clone())
            .connect_timeout(Duration::from_millis(config.connect_timeout_ms))
            .timeout(Duration::from_millis(config.timeout_ms));
        // One lookup per host for the whole check (see `CachingResolver`).
        let resolver = Arc::new(CachingResolver::new(!allow_private));
        builder = builder.dns_resolver(Arc::clone(&resolver));
        let client = builder.build().map_err(|e| Error::Client(e.to_string()))?;
        Ok(LinkChecker {
            client,
            hosts,
            cache: Mutex::new(HashMap::new()),
            accept: vec![DEFAULT_ACCEPT],
            concurrency: config.concurrency.max(1),
            allow_private,
            resolver,
        })
    }

    /// Replaces the accepted final statuses.
    pub fn with_accept(mut self, accept: Vec<RangeInclusive<u16>>) -> LinkChecker {
        self.accept = accept;
        self
    }

    /// Records a status known from elsewhere (a page the crawl fetched).
    pub fn seed(&self, url: &str, status: LinkStatus) {
        lock(&self.cache).entry(url.to_string()).or_insert(status);
    }

    /// The status of one URL, from the cache or the network.
    pub async fn check(&self, url: &Url) -> LinkStatus {
        let key = url.to_string();
        if let Some(s) = lock(&self.cache).get(&key) {
            return s.clone();
        }
        let status = self.fetch_status(url).await;
        lock(&self.cache).insert(key, status.clone());
        status
    }

    /// Checks every URL (at most `max`, the rest marked skipped), `concurrency`
    /// at a time overall and politely per host; returns every URL's status.
    pub async fn check_all(&self, urls: Vec<Url>, max: usize) -> BTreeMap<String, LinkStatus> {
        let mut out = BTreeMap::new();
        let mut todo = Vec::new();
        for u in urls {
            if todo.len() >= max && !lock(&self.cache).contains_key(u.as_str()) {
                out.insert(
                    u.to_string(),
                    LinkStatus::Skipped {
                        reason: format!("more than {max} URLs to check"),
                    },
                );
            } else {
                todo.push(u);
            }
        }
        // The host names the checks will resolve, looked up together first.
        let hosts: std::collections::BTreeSet<String> = {
            let cache = lock(&self.cache);
            todo.iter()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .filter(|u| !cache.contains_key(u.as_str()))
                .filter_map(|u| match u.host() {
                    Some(url::Host::Domain(d)) => Some(d.to_string()),
                    _ => None,
                })
                .collect()
        };
        self.resolver.prefetch(hosts).await;
        let results: Vec<(String, LinkStatus)> = stream::iter(todo)
            .map(|u| async move { (u.to_string(), self.check(&u).await) })
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        out.extend(results);
        out
    }

    async fn fetch_status(&self, url: &Url) -> LinkStatus {
        if !matches!(url.scheme(), "http" | "https") {
            return LinkStatus::Skipped {
                reason: format!("scheme {} is not checked", url.scheme()),
            };
        }
        if !self.allow_private {
            if let Err(refused) = check_literal(url) {
                return LinkStatus::Skipped {
                    reason: format!("private address refused ({refused})"),
                };
            }
        }
        let mut waited = false;
        loop {
            let head = self.send(reqwest::Method::HEAD, url).await;
            let result = match head {
                Ok((status, _)) if self.accepted(status) || status == 429 => head,
                // HEAD refused, unsupported or failing: ask again with GET.
                _ => self.send(reqwest::Method::GET, url).await,
            };
            return match result {
                Ok((429, wait)) => match wait {
                    Some(w) if !waited && w <= MAX_RATE_LIMIT_WAIT => {
                        tracing::info!(url = %url, wait_ms = w.as_millis() as u64, "link check rate limited; waiting");
                        self.hosts.pause(url, w);
                        waited = true;
                        continue;
                    }
                    _ => LinkStatus::RateLimited,
                },
                Ok((status, _)) if self.accepted(status) => LinkStatus::Ok { status },
                Ok((status, _)) => LinkStatus::Broken { status },
                Err(e) if e.contains("private address") => LinkStatus::Skipped { reason: e },
                Err(reason) => LinkStatus::Unreachable { reason },
            };
        }
    }

    fn accepted(&self, status: u16) -> bool {
        self.accept.iter().any(|r| r.contains(&status))
    }

    /// One request; the body is not read. Returns the status and any
    /// `Retry-After`.
    async fn send(
        &self,
        method: reqwest::Method,
        url: &Url,
    ) -> std::result::Result<(u16, Option<Duration>), String> {
        let permit = self.hosts.acquire(url).await;
        let result = self.client.request(method, url.as_str()).send().await;
        drop(permit);
        match result {
            Ok(resp) => Ok((resp.status().as_u16(), retry_after(resp.headers()))),
            Err(e) => Err(describe(&e)),
        }
    }
}

fn describe(e: &reqwest::Error) -> String {
    let chain = {
        let mut s = e.to_string();
        let mut src = std::error::Error::source(e);
        while let Some(inner) = src {
            s.push_str(": ");
            s.push_str(&inner.to_string());
            src = inner.source();
        }
        s
    };
    if chain.contains("private") || chain.contains("forbidden address") {
        format!("private address refused ({chain})")
    } else if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_redirect() {
        format!("redirect problem ({chain})")
    } else if e.is_connect() {
        format!("connection failed ({chain})")
    } else {
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::http::{Method, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::any;
    use axum::Router;

    /// A loopback server: /ok 200, /gone 404, /no-head (405 to HEAD, 200 to GET),
    /// /busy (429 with Retry-After: 0, then 429 again), /moved → /ok; counts hits.
    async fn server() -> (String, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let h = Arc::clone(&hits);
        let app =
            Router::new().route(
                "/{*path}",
                any(move |method: Method, uri: axum::http::Uri| {
                    let h = Arc::clone(&h);
                    async move {
                        h.fetch_add(1, Ordering::SeqCst);
                        match uri.path() {
                            "/ok" => StatusCode::OK.into_response(),
                            "/no-head" if method == Method::HEAD => {
                                StatusCode::METHOD_NOT_ALLOWED.into_response()
                            }
                            "/no-head" => StatusCode::OK.into_response(),
                            "/busy" => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")])
                                .into_response(),
                            "/moved" => (StatusCode::MOVED_PERMANENTLY, [("location", "/ok")])
                                .into_response(),
                            _ => StatusCode::NOT_FOUND.into_response(),
                        }
                    }
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}"), hits)
    }

    fn checker(allow_private: bool) -> LinkChecker {
        let config = ScanConfig {
            allow_private,
            rate_per_host: 1000.0,
            ..ScanConfig::default()
        };
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        LinkChecker::new(&config, hosts).unwrap()
    }

    #[tokio::test]
    async fn statuses_head_fallback_rate_limits_and_cache() {
        let (base, hits) = server().await;
        let c = checker(true);
        let u = |p: &str| Url::parse(&format!("{base}{p}")).unwrap();
        assert_eq!(c.check(&u("/ok")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(hits.load(Ordering::SeqCst), 1, "one HEAD");
        assert_eq!(c.check(&u("/ok")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(hits.load(Ordering::SeqCst), 1, "cached");
        assert_eq!(
            c.check(&u("/gone")).await,
            LinkStatus::Broken { status: 404 }
        );
        assert_eq!(hits.load(Ordering::SeqCst), 3, "HEAD then GET");
        assert_eq!(
            c.check(&u("/no-head")).await,
            LinkStatus::Ok { status: 200 }
        );
        assert_eq!(hits.load(Ordering::SeqCst), 5);
        assert_eq!(c.check(&u("/moved")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(c.check(&u("/busy")).await, LinkStatus::RateLimited);
    }

    #[tokio::test]
    async fn private_addresses_are_skipped_and_budget_is_kept() {
        let (base, hits) = server().await;
        let c = checker(false);
        let url = Url::parse(&format!("{base}/ok")).unwrap();
        assert!(matches!(c.check(&url).await, LinkStatus::Skipped { .. }));
        assert_eq!(hits.load(Ordering::SeqCst), 0, "never contacted");

        let c = checker(true);
        let urls: Vec<Url> = ["/ok", "/gone", "/no-head"]
            .iter()
            .map(|p| Url::parse(&format!("{base}{p}")).unwrap())
            .collect();
        let got = c.check_all(urls, 2).await;
        assert_eq!(got.len(), 3);
        assert_eq!(got[&format!("{base}/ok")], LinkStatus::Ok { status: 200 });
        assert_eq!(
            got[&format!("{base}/gone")],
            LinkStatus::Broken { status: 404 }
        );
        assert!(matches!(
            got[&format!("{base}/no-head")],
            LinkStatus::Skipped { .. }
        ));
    }

    #[tokio::test]
    async fn unreachable_hosts_are_reported() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let c = checker(true);
        let url = Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
        assert!(matches!(
            c.check(&url).await,
            LinkStatus::Unreachable { .. }
        ));
    }
}
