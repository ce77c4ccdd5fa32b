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
//! reads a fetched page. Frames' documents are not in it (as they are not in
//! fetched HTML).
//!
//! **Shadow roots.** A page with open shadow roots is serialized as its flat
//! tree instead, the tree the browser renders and builds the accessibility
//! tree from: a shadow host's children are its shadow root's children, a
//! `<slot>` holds the nodes assigned to it (or its fallback content). Ids stay
//! scoped as in the browser: every id and id reference inside a shadow root is
//! prefixed with that root's number (`sitescan-shadow3-`), so a reference
//! across a shadow boundary (which the browser does not follow) finds nothing
//! here either. A `<title>`, `<base>` or `<meta>` inside a shadow root is left
//! out: it acts only from the document tree (a shadow tree's title is not the
//! page's). Closed shadow roots cannot be read and stay out. The walk is
//! iterative (no recursion on the page's depth). Before serializing, the
//! elements are stamped for the browser's facts ([`super::facts`]).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::Instant;

use super::intercept::TabState;
use super::BrowserError;
use crate::config::{RenderOptions, RenderWait};

/// How often a selector or the network is looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

/// The expression that serializes the page (its flat tree when it has open
/// shadow roots).
pub const SERIALIZE: &str = r#"(() => {
  const dt = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement;
  if (!root) return dt;
  const all = document.getElementsByTagName('*');
  let hosts = false;
  for (let i = 0; i < all.length; i++) { if (all[i].shadowRoot) { hosts = true; break; } }
  if (!hosts) return dt + root.outerHTML;
  const HTML = 'http://www.w3.org/1999/xhtml';
  const VOID = new Set(['area','base','basefont','bgsound','br','col','embed','frame','hr','img','input','keygen','link','meta','param','source','track','wbr']);
  const RAW = new Set(['script','style','xmp','iframe','noembed','noframes','plaintext','noscript']);
  const IDREFS = new Set(['id','for','headers','list','form','aria-labelledby','aria-describedby','aria-owns','aria-controls','aria-activedescendant','aria-flowto','aria-details','aria-errormessage','popovertarget','commandfor']);
  const text = s => s.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const quote = s => s.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/"/g, '&quot;');
  const roots = new Map();
  const prefix = n => {
    const r = n.getRootNode();
    if (!(r instanceof ShadowRoot)) return '';
    if (!roots.has(r)) roots.set(r, roots.size + 1);
    return 'sitescan-shadow' + roots.get(r) + '-';
  };
  const kids = n => {
    if (n.shadowRoot) return Array.from(n.shadowRoot.childNodes);
    if (n.localName === 'slot' && n.getRootNode() instanceof ShadowRoot) {
      const a = n.assignedNodes();
      return a.length ? a : Array.from(n.childNodes);
    }
    if (n.localName === 'template' && n.content) return Array.from(n.content.childNodes);
    return Array.from(n.childNodes);
  };
  const out = [];
  const stack = [[root, false]];
  while (stack.length) {
    const [n, closing] = stack.pop();
    if (closing) { out.push('</' + n.localName + '>'); continue; }
    if (n.nodeType === 3) {
      const p = n.parentNode;
      out.push(p && p.nodeType === 1 && RAW.has(p.localName) ? n.data : text(n.data));
      continue;
    }
    if (n.nodeType === 8) { out.push('<!--' + n.data + '-->'); continue; }
    if (n.nodeType !== 1) continue;
    const pre = prefix(n);
    // Document metadata acts only from the document tree.
    if (pre && n.namespaceURI === HTML && (n.localName === 'title' || n.localName === 'base' || n.localName === 'meta')) continue;
    let s = '<' + n.localName;
    for (const a of n.attributes) {
      let v = a.value;
      if (pre && IDREFS.has(a.name)) v = v.split(/\s+/).filter(t => t).map(t => pre + t).join(' ');
      s += ' ' + a.name + '="' + quote(v) + '"';
    }
    out.push(s + '>');
    if (n.namespaceURI === HTML && VOID.has(n.localName)) continue;
    stack.push([n, true]);
    const k = kids(n);
    for (let i = k.length - 1; i >= 0; i--) stack.push([k[i], false]);
  }
  return dt + out.join('');
})()"#;

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
