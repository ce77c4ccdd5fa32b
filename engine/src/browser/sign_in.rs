//! The browser sign-in of a render scan: the [`LoginStep`]s of its
//! [`crate::auth::SiteAuth`] run in a tab of the scan's context before the
//! crawl, so the session the site hands out (its cookies) is the context's.
//!
//! The tab's interceptor runs in sign-in mode ([`super::intercept::PageJob::sign_in`]):
//! the steps' navigations and form posts on the credentials' origin are
//! fetched (with the credentials), everything else follows the usual rules.
//! Elements are found with `document.querySelector` through
//! `Runtime.evaluate`; each step waits for its element up to
//! [`SIGN_IN_STEP_TIMEOUT`], as a person would wait for the page. A step that
//! finds nothing fails the sign-in, naming the step (never the value typed).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;
use url::Url;

use super::cdp::{Connection, Wait, World};
use super::intercept::TabState;
use super::BrowserError;
use crate::auth::{resolve_on_origin, LoginStep};

/// How long one step waits for its page to load or its element to appear.
pub const SIGN_IN_STEP_TIMEOUT: Duration = Duration::from_secs(15);
/// How often a step looks for its element again.
const POLL: Duration = Duration::from_millis(100);

/// What the steps run in: the tab's connection, session and interception state.
pub(crate) struct StepTab<'a> {
    pub(crate) conn: &'a Connection,
    pub(crate) session: &'a str,
    pub(crate) state: &'a TabState,
    pub(crate) call_timeout: Duration,
}

/// One step's short description for errors: its kind and selector or URL,
/// never a value typed.
fn describe(i: usize, step: &LoginStep) -> String {
    match step {
        LoginStep::Goto { url } => format!("login step {} (goto {url})", i + 1),
        LoginStep::Fill { selector, .. } => format!("login step {} (fill `{selector}`)", i + 1),
        LoginStep::Click { selector } => format!("login step {} (click `{selector}`)", i + 1),
        LoginStep::WaitFor { selector } => {
            format!("login step {} (wait_for `{selector}`)", i + 1)
        }
    }
}

/// Runs `steps` in the tab; `start` is the scan's start URL (relative step
/// URLs resolve against it). `Err` is the message of [`crate::Error::Login`].
pub(crate) async fn run_steps(
    tab: &StepTab<'_>,
    start: &Url,
    steps: &[LoginStep],
) -> Result<(), String> {
    for (i, step) in steps.iter().enumerate() {
        let what = || describe(i, step);
        tracing::debug!(step = %what(), "sign-in step");
        let outcome = match step {
            LoginStep::Goto { url } => {
                let url =
                    resolve_on_origin(start, "url", url).map_err(|e| format!("{}: {e}", what()))?;
                goto(tab, &url).await
            }
            LoginStep::Fill { selector, value } => {
                let expr = format!(
                    "(() => {{ const el = document.querySelector({sel}); if (!el) return false; \
                     if (el.focus) el.focus(); \
                     const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype \
                       : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype; \
                     const d = Object.getOwnPropertyDescriptor(proto, 'value'); \
                     if (d && d.set && el instanceof proto.constructor) d.set.call(el, {val}); else el.value = {val}; \
                     el.dispatchEvent(new Event('input', {{bubbles: true}})); \
                     el.dispatchEvent(new Event('change', {{bubbles: true}})); return true; }})()",
                    sel = js_string(selector),
                    val = js_string(value),
                );
                until_true(tab, &expr).await
            }
            LoginStep::Click { selector } => {
                let expr = format!(
                    "(() => {{ const el = document.querySelector({}); if (!el) return false; el.click(); return true; }})()",
                    js_string(selector)
                );
                until_true(tab, &expr).await
            }
            LoginStep::WaitFor { selector } => {
                let expr = format!("!!document.querySelector({})", js_string(selector));
                until_true(tab, &expr).await
            }
        };
        outcome.map_err(|e| format!("{}: {e}", what()))?;
    }
    Ok(())
}

/// A JavaScript string literal of `s` (JSON's is one).
fn js_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Navigates the tab and waits for the page's load event.
async fn goto(tab: &StepTab<'_>, url: &Url) -> Result<(), String> {
    let mut loaded = tab.state.loaded.subscribe();
    tab.state.loaded.send_replace(None);
    let nav = tab
        .conn
        .call(
            Some(tab.session),
            "Page.navigate",
            json!({"url": url.as_str()}),
            tab.call_timeout,
        )
        .await
        .map_err(|e| e.to_string())?;
    if let Some(err) = nav.get("errorText").and_then(Value::as_str) {
        return Err(format!("the page could not be loaded ({err})"));
    }
    let loader = nav
        .get("loaderId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let got_load = tokio::time::timeout(
        SIGN_IN_STEP_TIMEOUT,
        loaded.wait_for(|l| l.as_deref() == Some(loader.as_str())),
    )
    .await
    .is_ok_and(|r| r.is_ok());
    if got_load {
        Ok(())
    } else {
        Err(format!(
            "the page did not load within {} s",
            SIGN_IN_STEP_TIMEOUT.as_secs()
        ))
    }
}

/// Evaluates `expr` until it is `true` (the element is there and was acted
/// on), up to [`SIGN_IN_STEP_TIMEOUT`]. A script error while a page is being
/// replaced (a form just submitted) is a "not yet"; a browser that stopped
/// answering is a failure at once.
async fn until_true(tab: &StepTab<'_>, expr: &str) -> Result<(), String> {
    let deadline = Instant::now() + SIGN_IN_STEP_TIMEOUT;
    loop {
        let got = tab
            .conn
            .evaluate(
                tab.session,
                World::Page,
                expr,
                Wait::Value,
                tab.call_timeout,
            )
            .await;
        match got {
            Ok(Value::Bool(true)) => return Ok(()),
            Ok(_) | Err(BrowserError::Protocol(_) | BrowserError::Script(_)) => {}
            Err(e) => return Err(e.to_string()),
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "no element matched within {} s",
                SIGN_IN_STEP_TIMEOUT.as_secs()
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_described_without_their_values() {
        let fill = LoginStep::Fill {
            selector: "#pw".into(),
            value: "s3cret".into(),
        };
        assert_eq!(describe(1, &fill), "login step 2 (fill `#pw`)");
        assert_eq!(js_string("a\"b</script>"), "\"a\\\"b</script>\"");
    }
}
