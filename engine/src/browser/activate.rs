//! Activating a rendered page's scripted controls, after its keyboard walk:
//! what a skip button or a "hide the menu" toggle does, which no static
//! reading of the page can tell ([`sitescan_rules::interaction::Activation`]).
//!
//! The controls are the first [`MAX_ACTIVATIONS`] focusable elements in
//! document order that run a script when activated (an inline activation
//! handler such as `onclick`, or a `javascript:` link) and are not links to
//! another page: the candidates the bypass rules (WCAG 2.4.1) cannot judge
//! without running them. Each is focused and Enter is pressed, as a keyboard
//! user would; when that changes nothing the browser can see, it is clicked,
//! as assistive technologies activate elements. Then the URL fragment, the
//! focused element and which elements stopped being rendered are compared
//! with before.
//!
//! Activating runs the page's code, so it is the last thing done on a page
//! (its DOM and facts were taken before) and nothing it asks the network for
//! is fetched: the caller freezes the page's requests first
//! ([`super::intercept::PageJob::freeze`]). Main-frame navigations to other
//! documents are refused as always; `alert()` and friends are dismissed.
//! A scan taking screenshots activates as well (its findings are the same);
//! when there were candidate controls, the tab kept for the pictures loads the
//! page again first ([`super::pool::HeldTab::restore`]), so they show the page
//! as it was judged.
//!
//! The watcher runs in an isolated world of the page's main frame, as the
//! keyboard walk's does: the page's scripts cannot see or replace it. Its
//! answers are still bounded and validated. Bounded in time
//! ([`TIME_BUDGET`]), controls, elements compared ([`MAX_COMPARED`]) and
//! elements reported ([`MAX_COLLAPSED`]).

use std::time::Duration;

use serde_json::{json, Value};
use sitescan_rules::interaction::{Activation, MAX_ACTIVATIONS, MAX_COLLAPSED};
use tokio::time::Instant;

use super::cdp::{Connection, Wait, World};
use super::BrowserError;
use super::MAX_ELEMENT_PATH;

/// Longest time the activations of one page may take.
pub const TIME_BUDGET: Duration = Duration::from_millis(1500);
/// Most elements whose rendering is compared before and after (the first in
/// document order).
pub const MAX_COMPARED: usize = 20_000;
/// How long the page's handlers get after a press or click (ACT's examples
/// and most pages' toggles act at once or on a short timer).
const SETTLE_MS: u64 = 60;
/// Longest label and fragment kept.
const MAX_TEXT: usize = 80;

/// The watcher: finds the controls, gives every element its path in the DOM
/// as it is now (the one the rules got), and answers the controls' count.
fn install_script() -> String {
    format!(
        r#"(() => {{
  const MAXC = {MAX_ACTIVATIONS}, MAXEL = {MAX_COMPARED}, MAXCOL = {MAX_COLLAPSED};
  const HANDLERS = ['onclick', 'onkeydown', 'onkeyup', 'onkeypress', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup', 'ontouchstart', 'ontouchend'];
  const HTML = 'http://www.w3.org/1999/xhtml';
  const rendered = (el) => el.isConnected && el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
  // Element -> path (index among its parent's element children, from <html>
  // down), in document order, one walk without recursion.
  const paths = new Map(), order = [];
  const root = document.documentElement;
  if (root) {{
    const stack = [[root, []]];
    while (stack.length && order.length < MAXEL) {{
      const [el, p] = stack.pop();
      paths.set(el, p);
      order.push(el);
      const kids = el.children;
      for (let i = kids.length - 1; i >= 0; i--) if (p.length < {MAX_ELEMENT_PATH}) stack.push([kids[i], p.concat([i])]);
    }}
  }}
  const label = (el) => {{
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    else if (el.classList && el.classList.length) s += '.' + el.classList[0];
    return s.slice(0, {MAX_TEXT});
  }};
  const controls = [];
  const sel = HANDLERS.map((h) => '[' + h + ']').join(',') + ',[href]';
  for (const el of document.querySelectorAll(sel)) {{
    if (controls.length >= MAXC) break;
    if (!paths.has(el)) continue;
    const href = el.getAttribute('href');
    const js = href !== null && /^\s*javascript:/i.test(href);
    const handler = HANDLERS.some((h) => (el.getAttribute(h) || '').trim() !== '');
    if (!handler && !js) continue;
    const link = el.namespaceURI === HTML && (el.localName === 'a' || el.localName === 'area');
    if (link && href !== null && href.trim() !== '' && !href.trim().startsWith('#') && !js) continue;
    if (el.tabIndex < 0 || el.disabled || el.closest('[inert]') || !rendered(el)) continue;
    controls.push(el);
  }}
  let before = null, hash = '', control = null;
  const outside = (a) => !a || a === document.body || a === document.documentElement;
  globalThis.__sitescanActivate = {{
    // Notes the state and focuses control `i`; whether it took focus.
    start(i) {{
      control = controls[i] || null;
      if (!control || !control.isConnected) return false;
      before = order.map(rendered);
      hash = location.hash;
      try {{ control.focus(); }} catch (e) {{}}
      return document.activeElement === control;
    }},
    // What changed since `start`; `null` when nothing did.
    changes() {{
      if (!control || !before) return null;
      const out = {{ path: paths.get(control), label: label(control), fragment: null, focused: null, collapsed: [] }};
      if (location.hash !== hash) {{
        let f = location.hash.replace(/^#/, '');
        try {{ f = decodeURIComponent(f); }} catch (e) {{}}
        out.fragment = f.slice(0, {MAX_TEXT});
      }}
      const a = document.activeElement;
      if (!outside(a) && a !== control && paths.has(a)) out.focused = paths.get(a);
      const gone = new Set();
      for (let j = 0; j < order.length; j++) if (before[j] && !rendered(order[j])) gone.add(order[j]);
      for (const el of gone) {{
        if (out.collapsed.length >= MAXCOL) break;
        if (!gone.has(el.parentElement)) out.collapsed.push(paths.get(el));
      }}
      return out.fragment === null && out.focused === null && out.collapsed.length === 0 ? null : out;
    }},
    // Clicks the control (when Enter did nothing).
    click() {{ try {{ if (control && control.isConnected) control.click(); }} catch (e) {{}} return true; }},
    // Forgets control `i` (nothing changed): answers its path and label.
    idle() {{ return control ? {{ path: paths.get(control), label: label(control) }} : null; }},
  }};
  return controls.length;
}})()"#
    )
}

/// Runs `expr` in the watcher's world; `Null` when the page broke it.
async fn eval(
    conn: &Connection,
    session: &str,
    context: i64,
    expr: &str,
    timeout: Duration,
) -> Result<Value, BrowserError> {
    match conn
        .evaluate(
            session,
            World::Isolated(context),
            expr,
            Wait::Value,
            timeout,
        )
        .await
    {
        Err(BrowserError::Script(_)) => Ok(Value::Null),
        r => r,
    }
}

/// Presses Enter in the tab (down, the character, up: a button or link
/// activates on the character, a page's own listener may wait for the key-up).
async fn press_enter(
    conn: &Connection,
    session: &str,
    timeout: Duration,
) -> Result<(), BrowserError> {
    for (kind, text) in [("rawKeyDown", None), ("char", Some("\r")), ("keyUp", None)] {
        let mut key = json!({"type": kind, "key": "Enter", "code": "Enter",
                             "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13});
        if let Some(t) = text {
            key["text"] = json!(t);
            key["unmodifiedText"] = json!(t);
        }
        conn.call(Some(session), "Input.dispatchKeyEvent", key, timeout)
            .await?;
    }
    Ok(())
}

/// Reads one answer of the watcher into an [`Activation`].
pub(crate) fn parse_activation(v: &Value) -> Option<Activation> {
    let path = super::element_path;
    let text = |v: &Value| -> Option<String> { Some(v.as_str()?.chars().take(MAX_TEXT).collect()) };
    Some(Activation {
        path: path(v.get("path")?)?,
        label: v.get("label").and_then(text).unwrap_or_default(),
        fragment: v.get("fragment").and_then(text),
        focused: v.get("focused").and_then(path),
        collapsed: v
            .get("collapsed")
            .and_then(Value::as_array)
            .map(|a| a.iter().take(MAX_COLLAPSED).filter_map(path).collect())
            .unwrap_or_default(),
    })
}

/// What activating a page's controls came to.
#[derive(Debug, Default)]
pub(crate) struct Activated {
    /// One per control activated (focused, then Enter or a click).
    pub activations: Vec<Activation>,
    /// The candidate controls the watcher found (at most
    /// [`MAX_ACTIVATIONS`]). None: no page code ran, the page is as it was
    /// judged; any: the page's code may have changed it
    /// ([`super::pool::HeldTab`] loads it again before its pictures).
    pub controls: usize,
}

/// Activates the page's scripted controls in the tab `session` (main frame
/// `frame`); the caller froze the page's requests. Errors are the
/// browser's (a hung tab); a page that breaks the watcher answers fewer
/// activations.
pub(crate) async fn activate_controls(
    conn: &Connection,
    session: &str,
    frame: &str,
    call_timeout: Duration,
) -> Result<Activated, BrowserError> {
    let deadline = Instant::now() + TIME_BUDGET;
    let context = conn
        .isolated_world(session, frame, "sitescan-activate", call_timeout)
        .await?;
    let count = eval(conn, session, context, &install_script(), call_timeout)
        .await?
        .as_u64()
        .map_or(0, |n| (n as usize).min(MAX_ACTIVATIONS));
    let settle = || tokio::time::sleep(Duration::from_millis(SETTLE_MS));
    let mut out = Activated {
        activations: Vec::new(),
        controls: count,
    };
    for i in 0..count {
        if Instant::now() >= deadline {
            break;
        }
        let api = "globalThis.__sitescanActivate";
        let focused = eval(
            conn,
            session,
            context,
            &format!("{api}.start({i})"),
            call_timeout,
        )
        .await?;
        if focused.as_bool() != Some(true) {
            // Not focusable after all, or a script took focus away: not
            // activated by keyboard; nothing is said about it.
            continue;
        }
        press_enter(conn, session, call_timeout).await?;
        settle().await;
        let mut got = eval(
            conn,
            session,
            context,
            &format!("{api}.changes()"),
            call_timeout,
        )
        .await?;
        if got.is_null() {
            eval(
                conn,
                session,
                context,
                &format!("{api}.click()"),
                call_timeout,
            )
            .await?;
            settle().await;
            got = eval(
                conn,
                session,
                context,
                &format!("{api}.changes()"),
                call_timeout,
            )
            .await?;
        }
        if got.is_null() {
            // Activated, nothing changed: an activation that did nothing.
            got = eval(
                conn,
                session,
                context,
                &format!("{api}.idle()"),
                call_timeout,
            )
            .await?;
        }
        if let Some(a) = parse_activation(&got) {
            out.activations.push(a);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_bounded_and_validated() {
        let a = parse_activation(&json!({
            "path": [1, 0], "label": "button#skip", "fragment": "main",
            "focused": null, "collapsed": [[1, 1], [1, "x"], [1, 2]]
        }))
        .unwrap();
        assert_eq!(a.path, vec![1, 0]);
        assert_eq!(a.fragment.as_deref(), Some("main"));
        assert_eq!(a.focused, None);
        // A malformed path is dropped, the others kept.
        assert_eq!(a.collapsed, vec![vec![1, 1], vec![1, 2]]);
        // Without a path there is nothing to name: no activation.
        assert!(parse_activation(&json!({"label": "x"})).is_none());
        assert!(parse_activation(&json!(null)).is_none());
        let long = "x".repeat(500);
        let a = parse_activation(&json!({"path": [], "label": long, "fragment": long})).unwrap();
        assert_eq!(a.label.len(), MAX_TEXT);
        assert_eq!(a.fragment.map(|f| f.len()), Some(MAX_TEXT));
    }
}
