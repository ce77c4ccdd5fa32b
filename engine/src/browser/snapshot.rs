//! When a rendered page is ready, and what is taken from it.
//!
//! Ready is the main frame's `load` event, then the scan's wait
//! ([`RenderWait`]): nothing more, the network idle (no request of the page in
//! flight for the quiet period), or a CSS selector matching; then the quiet
//! period. The whole wait is bounded by `max_wait_ms` from the navigation:
//! past it the DOM is taken as it is.
//!
//! What is taken is the serialized DOM: the doctype and
//! `document.documentElement.outerHTML`, which the static parser reads as it
//! reads a fetched page. Shadow roots and frames' documents are not in it (as
//! they are not in fetched HTML).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;

use super::intercept::TabState;
use super::BrowserError;
use crate::config::{RenderOptions, RenderWait};

/// How often a selector or the network is looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

/// The expression that serializes the page.
pub const SERIALIZE: &str = "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + (document.documentElement ? document.documentElement.outerHTML : '')";

/// How the wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    /// The wait's condition held.
    Settled,
    /// `max_wait_ms` passed first; the DOM was taken as it was.
    TimedOut,
}

/// Waits for the tab to be ready per `options`. `loader` is the navigation's
/// loader id; `eval` evaluates an expression in the page (bounded by the
/// call timeout).
pub(crate) async fn wait_ready<F, Fut>(
    state: &TabState,
    loader: &str,
    options: &RenderOptions,
    started: Instant,
    eval: F,
) -> Result<Ready, BrowserError>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<Value, BrowserError>>,
{
    let deadline = started + Duration::from_millis(options.max_wait_ms);
    let quiet = Duration::from_millis(options.quiet_ms);
    let mut loaded = state.loaded.subscribe();
    // The load event of this navigation.
    let got_load =
        tokio::time::timeout_at(deadline, loaded.wait_for(|l| l.as_deref() == Some(loader)))
            .await
            .is_ok_and(|r| r.is_ok());
    if !got_load {
        return Ok(Ready::TimedOut);
    }
    // `None`: wait for the network; `Some(expr)`: for the expression.
    let cond: Option<String> = match &options.wait {
        RenderWait::Load => return quiet_then(options, quiet, deadline).await,
        RenderWait::NetworkIdle => None,
        RenderWait::Selector(sel) => Some(format!(
            "(() => {{ try {{ return document.querySelector({}) !== null }} catch (e) {{ return false }} }})()",
            json!(sel)
        )),
    };
    let settled = loop {
        if Instant::now() >= deadline {
            break false;
        }
        let met = match &cond {
            None => network_idle(state, quiet),
            Some(expr) => eval(expr.clone()).await?.as_bool() == Some(true),
        };
        if met {
            break true;
        }
        tokio::time::sleep(POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
    };
    if !settled {
        return Ok(Ready::TimedOut);
    }
    // The quiet period after the condition (for the network wait it is the
    // condition itself).
    if cond.is_none() {
        return Ok(Ready::Settled);
    }
    quiet_then(options, quiet, deadline).await
}

/// No request of the page in flight, none started or ended for `quiet`.
fn network_idle(state: &TabState, quiet: Duration) -> bool {
    if state.inflight.load(Ordering::SeqCst) != 0 {
        return false;
    }
    let last = *state.last_change.lock().unwrap_or_else(|p| p.into_inner());
    last.elapsed() >= quiet
}

/// Waits the quiet period (within the deadline): the page is ready.
async fn quiet_then(
    _options: &RenderOptions,
    quiet: Duration,
    deadline: Instant,
) -> Result<Ready, BrowserError> {
    tokio::time::sleep_until((Instant::now() + quiet).min(deadline)).await;
    Ok(Ready::Settled)
}
