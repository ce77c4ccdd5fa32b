//! The page laid out again in narrow viewports: 320×256 CSS pixels for
//! reflow (WCAG 1.4.10) and 640×512 for text zoomed to 200% (WCAG 1.4.4),
//! for the rules that need [`sitescan_rules::Need::NarrowViewport`] (see
//! [`sitescan_rules::narrow`] for what they get).
//!
//! After the page's facts are taken (its elements stamped, [`super::facts`])
//! the tab is emulated at each viewport (`Emulation.setDeviceMetricsOverride`,
//! a desktop viewport: `mobile: false`, so the page's viewport `<meta>` does
//! not widen it), one script in an isolated world waits a frame (the page's
//! own resize handlers run) and measures the layout, and the viewport is
//! set back to the tab's own ([`DeviceMetrics`]: `--viewport`, the
//! throttling preset's or the default 1280 × 720) before anything else looks
//! at the page. Set back, not cleared: `Emulation.clearDeviceMetricsOverride`
//! would leave the headless window's 800 × 600 to the keyboard walk, the
//! pictures and the tab's next pages. Each layout is walked only for what the rules read of
//! it: the boxes sticking out sideways at 320 pixels (`reflow`), the boxes
//! clipping their text at 640 (`zoomed-text-clipped`).
//!
//! The script runs in an isolated world so the page's scripts cannot replace
//! the DOM functions it calls; what it reads (stamps, boxes) is the page's
//! and is treated as such: stamps are parsed as integers and everything is
//! capped ([`MAX_OVERFLOWING`], [`MAX_CLIPPING`], [`MAX_FACT_ELEMENTS`] walked
//! elements, [`MAX_TEXT_NODES`] text nodes sampled) in the script and again
//! here. Each call has the tab's call timeout and the script the protocol's
//! own execution timeout. No recursion: the walks are iterative.

use std::time::Duration;

use serde_json::{json, Value};
use sitescan_rules::css::Viewport;
use sitescan_rules::narrow::{
    Clipping, NarrowFacts, Overflowing, ViewportLayout, MAX_CLIPPING, MAX_OVERFLOWING,
    REFLOW_VIEWPORT, ZOOM_VIEWPORT,
};
use sitescan_rules::rendered::{MAX_FACT_ELEMENTS, STAMP_ATTR};

use super::cdp::{Connection, Wait, World};
use super::metrics::DeviceMetrics;
use super::BrowserError;

/// Most text nodes whose line boxes are measured per layout.
pub const MAX_TEXT_NODES: usize = 20_000;

/// Most text nodes measured per clipping box.
const TEXT_PER_BOX: usize = 64;

/// Protocol calls per layout (override, world, measure; the first two sent
/// together); with the restore, what [`budget`] allows for.
const CALLS_PER_LAYOUT: u32 = 3;

/// The longest the narrow layouts may take for a tab whose calls have
/// `call_timeout` each: the render's overall limit grows by this when they
/// are taken.
pub fn budget(call_timeout: Duration) -> Duration {
    call_timeout * (2 * CALLS_PER_LAYOUT + 1)
}

/// Content that needs two-dimensional layout (WCAG 1.4.10's exception), as
/// the `reflow` rule counts it: a wide box made that wide by such content is
/// reported as that content.
const TWO_D: &str =
    "table,pre,code,samp,kbd,img,picture,video,audio,canvas,svg,iframe,object,embed,math,map,\
[role=table],[role=grid],[role=treegrid],[role=toolbar],[role=img],[role=application],[role=math]";

/// What a layout is measured for: the rules read the boxes sticking out
/// sideways only at [`REFLOW_VIEWPORT`] (`reflow`) and the clipping boxes
/// only at [`ZOOM_VIEWPORT`] (`zoomed-text-clipped`), so each layout walks
/// the page once, for what its viewport is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Measure {
    /// The outermost boxes sticking out past the far edge.
    overflowing: bool,
    /// The boxes that clip their overflow and hold text.
    clipping: bool,
}

/// The measuring script: waits for a frame (or 100 ms when frames do not
/// come), then answers `{w, h, sw, over: [[stamp, width, past]], unstamped,
/// clip: [[stamp, cut]], complete}`; `over` and `clip` stay empty when
/// `what` does not ask for them.
fn script(what: Measure) -> String {
    let over_on = what.overflowing;
    let clip_on = what.clipping;
    format!(
        r#"new Promise((resolve) => {{
  let done = false;
  const go = () => {{ if (done) return; done = true; try {{ resolve(measure()); }} catch (e) {{ resolve(null); }} }};
  requestAnimationFrame(() => setTimeout(go, 0));
  setTimeout(go, 100);
  function measure() {{
    const de = document.documentElement;
    if (!de) return null;
    const body = document.body;
    const se = document.scrollingElement || de;
    const vw = de.clientWidth, vh = de.clientHeight;
    const sw = se.scrollWidth;
    const rtl = getComputedStyle(de).direction === 'rtl';
    const sx = window.scrollX;
    const scrolls = sw > vw + 1;
    const stampOf = (e) => {{
      const v = e.getAttribute('{STAMP_ATTR}');
      if (v === null || !/^[0-9]{{1,9}}$/.test(v)) return -1;
      return Number(v);
    }};
    let complete = true, unstamped = 0, steps = 0;
    const over = [];
    const note = (culprit, width, past) => {{
      const s = stampOf(culprit);
      if (s < 0) unstamped++;
      else if (over.length < {MAX_OVERFLOWING}) over.push([s, width, past]);
      else complete = false;
    }};
    // The outermost boxes sticking out past the far edge, in a walk that
    // skips the branch of each one found, of fixed boxes (they do not scroll
    // the page) and of boxes clipping or scrolling sideways (they keep
    // their content).
    let e = scrolls && {over_on} ? de : null;
    while (e) {{
      if (++steps > {MAX_FACT_ELEMENTS}) {{ complete = false; break; }}
      let skip = false;
      const cs = getComputedStyle(e);
      if (cs.display === 'none') skip = true;
      else {{
        const r = e.getBoundingClientRect();
        const past = rtl ? -(r.left + sx) : r.right + sx - vw;
        if ((r.width > 0 || r.height > 0) && past > 1 && cs.position !== 'fixed') {{
          let culprit = e;
          if (!e.matches('{TWO_D}')) {{
            const inner = e.querySelectorAll('{TWO_D}');
            for (let k = 0; k < inner.length && k < 64; k++) {{
              const q = inner[k].getBoundingClientRect();
              if (rtl ? q.left <= r.left + 1 : q.right >= r.right - 1) {{ culprit = inner[k]; break; }}
            }}
          }}
          note(culprit, r.width, past);
          skip = true;
        }} else if (cs.position === 'fixed' || (e !== de && e !== body && cs.overflowX !== 'visible')) skip = true;
        else if (e.scrollWidth > e.clientWidth + 1) {{
          // Its content runs past its box: text of its own past the edge
          // (kept on one line, a long word) makes it the culprit.
          let runs = 0;
          for (let c = e.firstChild, k = 0; c && k < 64; c = c.nextSibling) {{
            if (c.nodeType !== 3 || !c.data.trim()) continue;
            k++;
            const range = document.createRange();
            range.selectNodeContents(c);
            const q = range.getBoundingClientRect();
            const p = rtl ? -(q.left + sx) : q.right + sx - vw;
            if (q.width > 0 && p > runs) runs = p;
          }}
          if (runs > 1) {{ note(e, r.width, runs); skip = true; }}
        }}
      }}
      let n = skip ? null : e.firstElementChild;
      while (!n && e && e !== de) {{ n = e.nextElementSibling; if (!n) e = e.parentElement; }}
      e = n;
    }}
    // Every box that clips its overflow and holds visible text, and whether
    // the text is cut off.
    const clip = [];
    const all = document.getElementsByTagName('*');
    if (all.length > {MAX_FACT_ELEMENTS}) complete = false;
    let texts = 0;
    const clips = (v) => v === 'hidden' || v === 'clip';
    for (let i = 0; {clip_on} && i < all.length && i < {MAX_FACT_ELEMENTS}; i++) {{
      const b = all[i];
      if (b === de || b === body) continue;
      // The overflow first: most boxes do not clip, and it is the cheapest
      // test of the three.
      const cs = getComputedStyle(b);
      const cx = clips(cs.overflowX);
      const cy = clips(cs.overflowY);
      if (!cx && !cy) continue;
      if (b.closest('select,textarea,svg,math')) continue;
      const s = stampOf(b);
      if (s < 0) continue;
      if (b.clientWidth <= 1 || b.clientHeight <= 1 || b.getClientRects().length === 0) continue;
      if (clip.length >= {MAX_CLIPPING} || texts >= {MAX_TEXT_NODES}) {{ complete = false; break; }}
      const br = b.getBoundingClientRect();
      const left = br.left + b.clientLeft, top = br.top + b.clientTop;
      const right = left + b.clientWidth, bottom = top + b.clientHeight;
      const ellipsis = cs.textOverflow === 'ellipsis';
      // A height equal to the line height shows one line by design (ACT
      // 59br37): the lines below it are not counted as cut.
      const lh = cs.lineHeight.endsWith('px') ? parseFloat(cs.lineHeight) : 0;
      const inner = b.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
      const oneLine = lh > 0 && Math.abs(lh - inner) < 0.5;
      let hasText = false, cut = false, per = 0;
      const w = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
      let t;
      while (!cut && (t = w.nextNode()) && per < {TEXT_PER_BOX}) {{
        if (!t.data.trim()) continue;
        const p = t.parentElement;
        if (!p || (p.checkVisibility && !p.checkVisibility({{ opacityProperty: true, visibilityProperty: true }}))) continue;
        // Text inside a nearer box that clips or scrolls is that box's.
        let owner = p, up = 0;
        while (owner && owner !== b && up < 64) {{
          const o = getComputedStyle(owner);
          if (o.overflowX !== 'visible' || o.overflowY !== 'visible') break;
          owner = owner.parentElement; up++;
        }}
        if (owner !== b) continue;
        per++; texts++;
        const range = document.createRange();
        range.selectNodeContents(t);
        const rects = range.getClientRects();
        let inside = false, outX = false, outY = false;
        for (let k = 0; k < rects.length && k < 256; k++) {{
          const q = rects[k];
          if (q.width < 1 || q.height < 1) continue;
          hasText = true;
          const overlapX = q.right > left + 0.5 && q.left < right - 0.5;
          const overlapY = q.bottom > top + 0.5 && q.top < bottom - 0.5;
          const pastY = cy && !oneLine && (q.top < top - 1 || q.bottom > bottom + 1);
          const pastX = cx && !ellipsis && (q.left < left - 1 || q.right > right + 1);
          if (overlapX && overlapY) {{
            if (pastX || pastY) cut = true; else inside = true;
          }} else {{
            if (!overlapX) outX = true;
            if (!overlapY) outY = true;
            // The next line just past the bottom, or text running on right
            // past the far edge: cut off, not moved away.
            if (cy && !oneLine && overlapX && q.top >= bottom - 1 && q.top < bottom + q.height) cut = true;
            if (cx && !ellipsis && overlapY && q.left >= right - 1 && q.left < right + q.height) cut = true;
          }}
        }}
        // One text both in view and out of it in a clipped axis: cut.
        if (inside && ((outY && cy && !oneLine) || (outX && cx && !ellipsis))) cut = true;
      }}
      if (hasText) clip.push([s, cut]);
    }}
    return {{ w: vw, h: vh, sw, over, unstamped, clip, complete }};
  }}
}})"#
    )
}

/// Parses the script's answer, within the caps whatever it holds.
fn parse(v: &Value) -> Option<ViewportLayout> {
    let num = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|f| f.is_finite());
    let stamp = |v: Option<&Value>| {
        v.and_then(Value::as_u64)
            .and_then(|s| u32::try_from(s).ok())
            .filter(|s| (*s as usize) < MAX_FACT_ELEMENTS)
    };
    let list = |key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let over = list("over");
    let clip = list("clip");
    let mut layout = ViewportLayout {
        width: num(v.get("w"))? as f32,
        height: num(v.get("h")).unwrap_or(0.0) as f32,
        scroll_width: num(v.get("sw"))? as f32,
        overflowing: over
            .iter()
            .take(MAX_OVERFLOWING)
            .filter_map(|o| {
                Some(Overflowing {
                    stamp: stamp(o.get(0))?,
                    width: num(o.get(1))? as f32,
                    past: num(o.get(2))? as f32,
                })
            })
            .collect(),
        unstamped: v
            .get("unstamped")
            .and_then(Value::as_u64)
            .map_or(0, |u| u32::try_from(u).unwrap_or(u32::MAX)),
        clipping: clip
            .iter()
            .take(MAX_CLIPPING)
            .filter_map(|c| {
                Some(Clipping {
                    stamp: stamp(c.get(0))?,
                    cut: c.get(1)?.as_bool()?,
                })
            })
            .collect(),
        complete: v.get("complete").and_then(Value::as_bool) == Some(true)
            && over.len() <= MAX_OVERFLOWING
            && clip.len() <= MAX_CLIPPING,
    };
    layout.normalize();
    Some(layout)
}

/// Lays the page out at `viewport` and measures it; the viewport is left
/// overridden (the caller restores it).
async fn layout_at(
    conn: &Connection,
    session: &str,
    frame: &str,
    viewport: Viewport,
    what: Measure,
    timeout: Duration,
) -> Result<Option<ViewportLayout>, BrowserError> {
    let s = Some(session);
    // Sent together, one round trip: the world does not depend on the
    // viewport (a fresh one per layout, as the page may have navigated
    // itself since the last).
    let (overridden, world) = futures::future::join(
        conn.call(
            s,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": viewport.width as u32, "height": viewport.height as u32,
                   "deviceScaleFactor": 1, "mobile": false}),
            timeout,
        ),
        conn.isolated_world(session, frame, "sitescan-reflow", timeout),
    )
    .await;
    overridden?;
    let context = world?;
    let r = conn
        .evaluate(
            session,
            World::Isolated(context),
            &script(what),
            Wait::Promise,
            timeout,
        )
        .await?;
    Ok(parse(&r))
}

/// Measures the page in the tab `session` (main frame `frame`) at both
/// narrow viewports and sets the tab's `device` back. A hung or crashed tab is an
/// error (the render fails and the tab is closed, as the viewport may still
/// be overridden); anything else leaves a note and the rules their
/// estimates.
pub(crate) async fn measure(
    conn: &Connection,
    session: &str,
    frame: &str,
    device: DeviceMetrics,
    timeout: Duration,
) -> Result<NarrowFacts, BrowserError> {
    let mut facts = NarrowFacts::default();
    let mut failures = Vec::new();
    let at_320 = Measure {
        overflowing: true,
        clipping: false,
    };
    let at_640 = Measure {
        overflowing: false,
        clipping: true,
    };
    for (viewport, what, name) in [
        (REFLOW_VIEWPORT, at_320, "320"),
        (ZOOM_VIEWPORT, at_640, "640"),
    ] {
        let taken = layout_at(conn, session, frame, viewport, what, timeout).await;
        let layout = match taken {
            Ok(Some(l)) => Some(l),
            Ok(None) => {
                failures.push(format!("at {name} pixels: no answer"));
                None
            }
            Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => return Err(e),
            Err(e) => {
                failures.push(format!("at {name} pixels: {e}"));
                None
            }
        };
        match name {
            "320" => facts.reflow = layout,
            _ => facts.zoomed = layout,
        }
    }
    device.apply(conn, session, timeout).await?;
    if !failures.is_empty() {
        tracing::debug!(?failures, "narrow layouts not measured");
        facts.note = Some(format!(
            "the page was not measured in narrow viewports ({}); static estimates used",
            failures.join("; ")
        ));
    }
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_within_the_caps() {
        let over: Vec<Value> = (0..(MAX_OVERFLOWING + 3))
            .map(|i| json!([i, 1000.0, 680.0]))
            .collect();
        let v = json!({
            "w": 320, "h": 256, "sw": 1008,
            "over": over,
            "unstamped": 2,
            "clip": [[9, true], [4, false], ["x", true], [-1, false], [4_000_000_000u64, true], [5]],
            "complete": true,
        });
        let l = parse(&v).unwrap();
        assert!(l.scrolls_sideways());
        assert_eq!(l.overflowing.len(), MAX_OVERFLOWING);
        assert!(!l.complete, "a list over its cap is incomplete");
        assert_eq!(l.unstamped, 2);
        assert_eq!(
            l.clipping,
            [
                Clipping {
                    stamp: 4,
                    cut: false
                },
                Clipping {
                    stamp: 9,
                    cut: true
                }
            ]
        );
        assert!(parse(&json!(null)).is_none());
        assert!(parse(&json!({"w": "wide", "sw": 1})).is_none());
        let fits = parse(&json!({"w": 320, "h": 256, "sw": 320, "complete": true})).unwrap();
        assert!(fits.complete && !fits.scrolls_sideways());
    }

    #[test]
    fn the_script_names_its_caps() {
        let s = script(Measure {
            overflowing: true,
            clipping: true,
        });
        assert!(s.contains(STAMP_ATTR));
        assert!(s.contains(&MAX_FACT_ELEMENTS.to_string()));
        assert!(!s.contains("{{"), "format braces are all escaped");
    }
}
