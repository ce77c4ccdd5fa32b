//! Per-host politeness, as lychee does it: each host gets a governor token
//! bucket (one request per interval, no burst) and a tokio semaphore (requests in
//! flight), pooled by host. A robots.txt `Crawl-delay` raises the interval, never
//! lowers it; a `Retry-After` pauses the whole host until the given time.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Longest interval between two requests to one host.
pub const MAX_INTERVAL: Duration = Duration::from_secs(3600);

/// The key hosts are pooled by: the host name (or address), whatever the scheme
/// and port, since `http://` and `https://` of one host are one server to spare.
pub fn host_key(url: &Url) -> String {
    url.host_str().unwrap_or("").to_ascii_lowercase()
}

struct Host {
    interval: Mutex<Duration>,
    limiter: Mutex<Arc<DefaultDirectRateLimiter>>,
    in_flight: Arc<Semaphore>,
    paused_until: Mutex<Option<Instant>>,
}

fn limiter(interval: Duration) -> Arc<DefaultDirectRateLimiter> {
    let quota = Quota::with_period(interval.max(Duration::from_micros(1)))
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
        .allow_burst(NonZeroU32::MIN);
    Arc::new(RateLimiter::direct(quota))
}

/// The pool of per-host limiters of one scan.
pub struct HostPool {
    interval: Duration,
    per_host: usize,
    hosts: Mutex<HashMap<String, Arc<Host>>>,
}

/// Held while a request to a host is in flight.
pub struct HostPermit {
    _permit: Option<OwnedSemaphorePermit>,
}

impl HostPool {
    /// A pool allowing `rate_per_host` requests per second and `per_host`
    /// requests in flight to any one host.
    pub fn new(rate_per_host: f64, per_host: usize) -> HostPool {
        let rate = if rate_per_host.is_finite() && rate_per_host > 0.0 {
            rate_per_host
        } else {
            1.0
        };
        // Slower than one request an hour is treated as one an hour (and keeps
        // the conversion from overflowing).
        let interval = Duration::try_from_secs_f64(1.0 / rate)
            .unwrap_or(MAX_INTERVAL)
            .min(MAX_INTERVAL);
        HostPool {
            interval,
            per_host: per_host.max(1),
            hosts: Mutex::new(HashMap::new()),
        }
    }

    fn host(&self, key: &str) -> Arc<Host> {
        let mut hosts = lock(&self.hosts);
        Arc::clone(hosts.entry(key.to_string()).or_insert_with(|| {
            Arc::new(Host {
                interval: Mutex::new(self.interval),
                limiter: Mutex::new(limiter(self.interval)),
                in_flight: Arc::new(Semaphore::new(self.per_host)),
                paused_until: Mutex::new(None),
            })
        }))
    }

    /// Waits for a free slot and the rate limit of the URL's host.
    pub async fn acquire(&self, url: &Url) -> HostPermit {
        let host = self.host(&host_key(url));
        // The semaphore is never closed, so this is always `Some`.
        let permit = Arc::clone(&host.in_flight).acquire_owned().await.ok();
        loop {
            let paused = *lock(&host.paused_until);
            match paused {
                Some(t) if t > Instant::now() => tokio::time::sleep_until(t).await,
                _ => break,
            }
        }
        let current = Arc::clone(&lock(&host.limiter));
        current.until_ready().await;
        HostPermit { _permit: permit }
    }

    /// Raises the host's interval to a robots.txt `Crawl-delay` (seconds).
    pub fn set_crawl_delay(&self, url: &Url, seconds: f32) {
        if !(seconds.is_finite() && seconds > 0.0) {
            return;
        }
        let host = self.host(&host_key(url));
        // Whole milliseconds: f32 seconds (0.1) are not exact.
        // Capped at a minute: a larger Crawl-delay would stall any scan.
        let delay = Duration::from_millis((f64::from(seconds.min(60.0)) * 1000.0).round() as u64);
        let mut interval = lock(&host.interval);
        if delay > *interval {
            *interval = delay;
            *lock(&host.limiter) = limiter(delay);
            drop(interval);
            // The new bucket is full; wait one delay so the request right after
            // robots.txt keeps the gap too.
            self.pause(url, delay);
        }
    }

    /// The interval between requests to the URL's host.
    pub fn interval(&self, url: &Url) -> Duration {
        *lock(&self.host(&host_key(url)).interval)
    }

    /// Pauses the URL's host for `wait` (a `Retry-After`).
    pub fn pause(&self, url: &Url, wait: Duration) {
        let host = self.host(&host_key(url));
        let until = Instant::now() + wait;
        let mut paused = lock(&host.paused_until);
        if paused.is_none_or(|p| p < until) {
            *paused = Some(until);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requests_to_one_host_are_spaced() {
        let pool = HostPool::new(20.0, 4);
        let u = Url::parse("http://example.com/").unwrap();
        let other = Url::parse("http://other.example/").unwrap();
        let start = std::time::Instant::now();
        for _ in 0..4 {
            drop(pool.acquire(&u).await);
        }
        drop(pool.acquire(&other).await);
        // 4 requests at 20/s: three gaps of 50ms.
        assert!(
            start.elapsed() >= Duration::from_millis(140),
            "{:?}",
            start.elapsed()
        );
        pool.set_crawl_delay(&u, 0.1);
        assert_eq!(pool.interval(&u), Duration::from_millis(100));
        pool.set_crawl_delay(&u, 0.01);
        assert_eq!(
            pool.interval(&u),
            Duration::from_millis(100),
            "never lowered"
        );
        assert_eq!(pool.interval(&other), Duration::from_millis(50));
    }
}
