//! What every request handler can reach, the API's and the dashboard's alike:
//! the store, the queue, the per-key request limit and the service's
//! settings. Below both front ends (and below `service`, which builds it), so
//! neither has to import the other to share it.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::DefaultClock;
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::queue::Queue;
use crate::store::Store;

/// Settings of the API.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Accept sites on loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most each limit of a scan's page budget may be (`serve`'s budget
    /// flags); a scan's `config.budget` may only lower them.
    pub page_budget: sitescan_engine::PageBudget,
    /// The address clients reach the service at (`serve --public-url`), the
    /// base of absolute URLs (`Location`, `doc_url`); `None`: the request's
    /// `Host` (see `api::envelope::public_base`).
    pub public_url: Option<url::Url>,
    /// The shortest time allowed between two runs of a schedule (`serve
    /// --schedule-min-interval`; see `ops::schedules`).
    pub schedule_min_interval: Duration,
    /// Who runs render scans: what a render scan meets when nobody can.
    pub render_workers: RenderWorkers,
    /// Seals site credentials (`SITESCAN_SECRET_KEY`); `None`: credentials
    /// are refused (`secret_key_missing`).
    pub secret_key: Option<crate::secret_key::SecretKey>,
}

/// Who runs the render scans (`config.render: true`) this API accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderWorkers {
    /// The service's own in-process workers (`serve`), which render when it
    /// found a browser at start-up. When they do not, a render scan is
    /// refused at creation (422 `validation_failed` on `config.render`):
    /// there is no other worker, so it would wait forever.
    InProcess {
        /// A browser was found: the workers render.
        render: bool,
    },
    /// The fleet's `sitescan worker` processes (`serve --redis`), which come
    /// and go: a render scan is queued, and while no `worker --render` is
    /// alive ([`crate::queue::Queue::render_available`]) it shows a
    /// `waiting_reason`, starting once one comes.
    Fleet,
}

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Records.
    pub store: Arc<dyn Store>,
    /// Jobs for the workers.
    pub queue: Arc<dyn Queue>,
    /// Per-key request limit.
    pub rate_limit: RateLimit,
    /// Settings.
    pub settings: ApiSettings,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("rate_limit", &self.rate_limit)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The keyed token buckets.
pub type KeyLimiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// The per-key request limit and its bucket.
#[derive(Clone)]
pub struct RateLimit {
    pub(crate) limiter: Arc<KeyLimiter>,
    pub(crate) per_minute: u32,
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("per_minute", &self.per_minute)
            .finish()
    }
}

impl RateLimit {
    /// `per_minute` requests a minute per key, all of them allowed in a burst.
    pub fn per_minute(per_minute: NonZeroU32) -> Self {
        RateLimit {
            limiter: Arc::new(
                RateLimiter::keyed(Quota::per_minute(per_minute))
                    .with_middleware::<StateInformationMiddleware>(),
            ),
            per_minute: per_minute.get(),
        }
    }

    /// Forgets buckets that are full again (keys idle for a while), so memory
    /// follows the keys in use, not every key ever seen. `Service` calls it
    /// every minute.
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }

    /// How long the bucket takes to gain one request back.
    pub(crate) fn replenish(&self) -> Duration {
        Duration::from_secs(60) / self.per_minute
    }
}

/// Keeps `NonZeroU32` construction in one place for callers with a plain number.
pub fn non_zero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}
