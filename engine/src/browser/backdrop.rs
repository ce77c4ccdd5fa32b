//! The real backdrop of text the browser cannot blend into one colour: text
//! over a background image, a gradient, an `<img>` or video behind it.
//!
//! The snapshot ([`super::facts`]) gives each element the background colour
//! Chromium blends behind its text, and none when something other than
//! colours lies there. For those elements (visible, with a computed colour
//! and own text, no text shadow, no blend mode or filter on the way up) the
//! backdrop is measured: the element's own text is hidden (`color:
//! transparent` and its kin, on the measured elements only, those of one
//! band at a time), the region holding the boxes of their own text runs is
//! shot with `Page.captureScreenshot`, the text is shown again, and the text colour is compared with every pixel under those boxes
//! ([`MeasuredBackdrop::measure`]). The result goes onto the element's facts
//! ([`sitescan_rules::rendered::ElementFacts::backdrop`]); `color-contrast`
//! decides from it when every pixel falls on the same side of its threshold.
//!
//! **Leaving the page as it was.** The hiding rules live in one constructed
//! stylesheet adopted by the document (`document.adoptedStyleSheets`, no
//! element added to the DOM) and apply through one marker attribute,
//! [`MARK`], set on the measured element only while it is shot. Transitions
//! are off under the marker, and the colour comes back in two steps (marker
//! `keep`, a style flush, then no marker), so no colour transition runs on
//! the way in or out. The sheet is removed at the end, whatever happened in
//! between. It runs after the DOM is serialized and before the narrow
//! layouts and the keyboard walk, which see the page as it was.
//!
//! **In the viewport.** Each band is shot in the viewport when it can be:
//! the page is scrolled so that the band lies in the viewport clear of every
//! fixed box ([`viewport_scroll`]) and the picture is taken without
//! `captureBeyondViewport` ([`Shot::Viewport`]), which spares Chromium
//! painting the whole document for each picture. Otherwise (a fixed box
//! reaches the band where the page was, the band is larger than the free
//! rows, an element inside a fixed box, fixed boxes that cannot be told) it
//! is shot in the document as before, with the page where it was; the page
//! is scrolled back at the end.
//!
//! **Bounds.** At most [`MAX_MEASURED_PER_PAGE`] elements per page: those
//! with an image or gradient under their text, or in a box out of flow,
//! first, then the others, each in document order; at most [`MAX_RECTS`] text boxes each, clipped to
//! [`MAX_CLIP`] CSS pixels and shot at a scale that keeps each picture
//! within [`MAX_PIXELS`]; the elements are shot together in bands of at
//! most [`MAX_CLIP`] (one picture each, [`bands`]); no new band is started
//! after [`TIME_BUDGET`], and nothing is shot on a document taller than
//! [`MAX_DOC_HEIGHT`].
//! The scripts run in an isolated world, so the page's scripts cannot
//! replace the DOM functions they call. A failure leaves the elements it
//! did not reach unmeasured (the rule then keeps its static answer).

use std::time::Duration;

use serde_json::Value;
use sitescan_rules::rendered::{MeasuredBackdrop, RenderedFacts};
use tokio::time::Instant;

use super::cdp::{Connection, Wait, World};
use super::picture::{capture, decode, Format, Shot};
use super::BrowserError;

/// Most elements whose backdrop is measured on one page. Each band of them
/// costs two script calls and a screenshot (some 30 to 60 ms on a
/// quiet machine): 40 keeps a
/// page with a large hero image or a gradient body within a couple of
/// seconds, and covers the text over images that most pages have (headings
/// and buttons on a banner). Text over an image or in a box out of flow goes
/// first: the rule cannot judge it without a picture, and judges the rest
/// over its ancestors' colours.
pub const MAX_MEASURED_PER_PAGE: usize = 40;

/// Most candidate stamps handed to the page's script (shown elements with a
/// colour, in document order); the script keeps the first
/// [`MAX_MEASURED_PER_PAGE`] that have own text over an image.
const MAX_CANDIDATES: usize = 5_000;

/// Most text boxes (one per line of each own text node) measured per
/// element.
pub const MAX_RECTS: usize = 32;

/// The largest region shot per element, CSS pixels (width, height): the
/// text boxes beyond it are left out.
pub const MAX_CLIP: (f64, f64) = (1280.0, 1024.0);

/// Most pixels in one element's picture: a larger region is shot scaled
/// down (the browser averages the pixels), which bounds both the PNG the
/// browser encodes and the pixels judged here.
pub const MAX_PIXELS: f64 = 262_144.0;

/// Tallest document whose text backdrops are shot. A picture of a region
/// beyond the viewport makes Chromium lay out and paint the whole document:
/// some 0.1 s for a 20,000-pixel page, 1.3 s for a 300,000-pixel one (a
/// table of contents of 49,000 elements), and far more with other tabs
/// rendering beside it. Taller documents keep the static judgement.
pub const MAX_DOC_HEIGHT: f64 = 32_768.0;

/// No new picture is taken after this long on one page.
pub const TIME_BUDGET: Duration = Duration::from_secs(5);
/// Most pixels in one band's picture ([`bands`]): a band as large as
/// [`MAX_CLIP`] is shot at scale 1.
const MAX_BAND_PIXELS: f64 = MAX_CLIP.0 * MAX_CLIP.1;
/// Most bytes one decoded backdrop picture may take: RGBA of
/// [`MAX_BAND_PIXELS`], with room for a device scale of 2.
const MAX_DECODED_BYTES: usize = MAX_BAND_PIXELS as usize * 4 * 4;

/// Most elements walked to find the fixed boxes ([`viewport_scroll`]); on a larger
/// document no band is shot in the viewport.
const MAX_PIN_SCAN: usize = 100_000;

/// Most fixed boxes kept ([`viewport_scroll`]); with more, no band is shot in the
/// viewport.
const MAX_PINS: usize = 64;

/// Most elements walked inside the fixed boxes to find what they paint
/// ([`viewport_scroll`]); with more, no band is shot in the viewport.
const MAX_PIN_NODES: usize = 20_000;

/// The attribute that hides the measured element's text (`hide`), or keeps
/// transitions off while its colour comes back (`keep`).
pub const MARK: &str = "data-sitescan-backdrop";

/// The longest the measurements may take for a tab whose calls have
/// `call_timeout` each: the render's overall limit grows by this when they
/// are taken (the budget, the element started last and the calls around).
pub fn budget(call_timeout: Duration) -> Duration {
    TIME_BUDGET + call_timeout * 6
}

/// Finds the candidates (`[stamp, 1 when the snapshot gave an opaque
/// blended colour]`) whose own text needs its backdrop measured, and makes
/// the hiding sheet ready. Answers `{items: [[stamp, [[x, y, w, h], ...],
/// 1 inside a fixed box]], pins: [[x, y, w, h], ...] or null, view: [w, h,
/// scroll x, scroll y], doc: [w, h]}`: text boxes in document coordinates,
/// the fixed boxes ([`viewport_scroll`]) in the viewport's.
fn setup_script(candidates: &[(u32, bool)]) -> String {
    let candidates: Vec<[u32; 2]> = candidates
        .iter()
        .map(|(s, blended)| [*s, u32::from(*blended)])
        .collect();
    let list = serde_json::to_string(&candidates).unwrap_or_else(|_| "[]".into());
    format!(
        r#"(() => {{
  {find}
  const sx = window.scrollX, sy = window.scrollY;
  const opaque = (c) => {{
    const m = /^rgba?\(([^)]*)\)$/.exec(c.backgroundColor);
    if (!m) return false;
    const p = m[1].split(/[\s,\/]+/).filter((x) => x);
    return p.length < 4 || Number(p[3]) >= 1;
  }};
  const REPLACED = new Set(['IMG', 'PICTURE', 'VIDEO', 'CANVAS', 'SVG', 'svg', 'IFRAME', 'OBJECT', 'EMBED']);
  // An image lies under the text (even where the snapshot blended a
  // colour: Chromium blends some gradients into one of their stops) when
  // there is a background image on the way up to the first opaque
  // background (`onImage`) or, where the text is on screen, replaced
  // content or an image painted under it (`paintedUnder`). With `moved`,
  // `onImage` also answers for a box out of flow on that way up, which the
  // rule's fallback cannot put over its ancestors' colours.
  const onImage = (e, moved) => {{
    for (let a = e, k = 0; a && k < 512; a = a.parentElement, k++) {{
      const c = getComputedStyle(a);
      if (c.backgroundImage !== 'none') return true;
      if (opaque(c)) return false;
      if (moved && (c.position === 'absolute' || c.position === 'fixed' || c.position === 'sticky')) return true;
    }}
    return false;
  }};
  // Replaced content or an image painted under the text's middle, where
  // the text is on screen.
  const paintedUnder = (e, r) => {{
    const x = r[0] - sx + r[2] / 2, y = r[1] - sy + r[3] / 2;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return false;
    let below = false;
    for (const h of document.elementsFromPoint(x, y)) {{
      if (h === e) {{ below = true; continue; }}
      if (!below || e.contains(h)) continue;
      if (REPLACED.has(h.tagName)) return true;
      const c = getComputedStyle(h);
      if (c.backgroundImage !== 'none') return true;
      if (opaque(c)) return false;
    }}
    return false;
  }};
  // Text over an image or in a box out of flow first (the rule cannot
  // judge it without a picture: its fallback over the ancestors' colours
  // stops at the image, and may not know what lies under a box out of
  // flow), then, in document order, the other text the snapshot blended no
  // colour for (which the fallback judges over the ancestors' colours).
  const first = [], rest = [];
  for (const [s, blended] of {list}) {{
    if (first.length >= {MAX_MEASURED_PER_PAGE}) break;
    const e = find(s);
    if (!e) continue;
    let own = false;
    for (let c = e.firstChild, k = 0; c && k < 64; c = c.nextSibling, k++) {{
      if (c.nodeType === 3 && c.data.trim()) {{ own = true; break; }}
    }}
    if (!own) continue;
    // A blended colour stands for a box out of flow: only an image under
    // it makes it measured.
    const image = onImage(e, !blended);
    if (!blended && !image && rest.length >= {MAX_MEASURED_PER_PAGE}) continue;
    if (getComputedStyle(e).textShadow !== 'none') continue;
    // A blend mode or filter changes the text's colour as painted. An
    // ancestor that clips (a scrolled sidebar) may hide the text where it
    // is: the picture would show what lies behind the ancestor there.
    let mixed = false;
    const clips = [];
    for (let a = e, k = 0; a && k < 512; a = a.parentElement, k++) {{
      const c = getComputedStyle(a);
      if (c.mixBlendMode !== 'normal' || c.filter !== 'none') {{ mixed = true; break; }}
      if (a !== e && a !== document.body && a !== document.documentElement
          && (c.overflowX !== 'visible' || c.overflowY !== 'visible')) clips.push(a.getBoundingClientRect());
    }}
    if (mixed) continue;
    const rects = [];
    for (let c = e.firstChild, k = 0; c && k < 64 && rects.length < {MAX_RECTS}; c = c.nextSibling) {{
      if (c.nodeType !== 3 || !c.data.trim()) continue;
      k++;
      const range = document.createRange();
      range.selectNodeContents(c);
      for (const q of range.getClientRects()) {{
        if (q.width > 0 && q.height > 0 && rects.length < {MAX_RECTS}) rects.push([q.left + sx, q.top + sy, q.width, q.height]);
      }}
    }}
    if (!rects.length) continue;
    // Text not wholly inside every clipping ancestor is not shot.
    if (clips.some((b) => rects.some((q) => q[0] - sx < b.left - 1 || q[1] - sy < b.top - 1
        || q[0] - sx + q[2] > b.right + 1 || q[1] - sy + q[3] > b.bottom + 1))) continue;
    const under = image || paintedUnder(e, rects[0]);
    if (blended && !under) continue;
    (under ? first : rest).push([s, rects, e]);
  }}
  const items = [], els = [];
  for (const [s, rects, e] of first.concat(rest).slice(0, {MAX_MEASURED_PER_PAGE})) {{
    items.push([s, rects]);
    els.push(e);
  }}
  // Boxes that stay in the viewport while the page scrolls (position
  // fixed: the union of their content's boxes as clipped, grown by their
  // own shadow and outline), in viewport coordinates; null when they cannot be told
  // (a sticky box moves with the scroll, a filter paints beyond the box,
  // a shadow root or a custom element may hide a fixed box from this walk).
  // The boxes of `root` and of everything in it but other fixed boxes, each
  // cut by the boxes that clip it on the way up to `root` (the union,
  // viewport coordinates); null past MAX_PIN_NODES elements.
  const paintedBox = (root) => {{
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const clips = new Map();
    const open = [-Infinity, -Infinity, Infinity, Infinity];
    // A fixed box inside is one of the pins itself.
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {{
      acceptNode: (e) => getComputedStyle(e).position === 'fixed' ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    }});
    let n = 0;
    for (let e = root; e; e = walker.nextNode()) {{
      if (++n > {MAX_PIN_NODES}) return null;
      const up = e === root ? open : (clips.get(e.parentElement) || open);
      const r = e.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) {{
        const a = Math.max(r.left, up[0]), t = Math.max(r.top, up[1]);
        const z = Math.min(r.right, up[2]), w = Math.min(r.bottom, up[3]);
        if (z >= a && w >= t) {{ x0 = Math.min(x0, a); y0 = Math.min(y0, t); x1 = Math.max(x1, z); y1 = Math.max(y1, w); }}
      }}
      const c = getComputedStyle(e);
      const cx = c.overflowX !== 'visible', cy = c.overflowY !== 'visible';
      clips.set(e, cx || cy ? [cx ? Math.max(up[0], r.left) : up[0], cy ? Math.max(up[1], r.top) : up[1],
        cx ? Math.min(up[2], r.right) : up[2], cy ? Math.min(up[3], r.bottom) : up[3]] : up);
    }}
    return x1 >= x0 ? {{ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }} : {{ left: 0, top: 0, width: 0, height: 0 }};
  }};
  let pins = [];
  const pinned = new Set();
  if (items.length) {{
    for (let i = 0; i < all.length; i++) {{
      if (i >= {MAX_PIN_SCAN}) {{ pins = null; break; }}
      const e = all[i];
      if (e.shadowRoot || e.localName.includes('-')) {{ pins = null; break; }}
      const c = getComputedStyle(e);
      if (c.position !== 'fixed' && c.position !== 'sticky') continue;
      // Without a box (in a hidden subtree) it paints nothing.
      if (!e.getClientRects().length) continue;
      if (c.position === 'sticky' || c.filter !== 'none' || pins.length >= {MAX_PINS}) {{ pins = null; break; }}
      pinned.add(e);
      const b = paintedBox(e);
      if (!b) {{ pins = null; break; }}
      // A shadow reaches at most its offsets, its spread and one and a
      // half times its blur (three standard deviations) past the box.
      let ext = 1;
      for (const v of (c.boxShadow === 'none' ? '' : c.boxShadow).match(/-?[0-9.]+px/g) || []) ext += 1.5 * (Math.abs(parseFloat(v)) || 0);
      if (c.outlineStyle !== 'none') ext += Math.abs(parseFloat(c.outlineWidth) || 0) + Math.abs(parseFloat(c.outlineOffset) || 0);
      pins.push([b.left - ext, b.top - ext, b.width + 2 * ext, b.height + 2 * ext]);
    }}
  }}
  // An element inside a fixed box moves in the document as the page
  // scrolls: its band is shot without scrolling.
  for (let i = 0; i < items.length; i++) {{
    let inside = pins === null;
    for (let a = els[i], k = 0; a && k < 512 && !inside; a = a.parentElement, k++) inside = pinned.has(a);
    items[i].push(inside ? 1 : 0);
  }}
  if (items.length) {{
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('[{MARK}], [{MARK}] * {{ transition: none !important }} ' +
      '[{MARK}="hide"], [{MARK}="hide"]::first-line, [{MARK}="hide"]::first-letter {{ color: transparent !important; ' +
      '-webkit-text-fill-color: transparent !important; -webkit-text-stroke-color: transparent !important; ' +
      'text-shadow: none !important; text-decoration-color: transparent !important; caret-color: transparent !important }}');
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    window.__sitescanBackdrop = {{ sheet, els }};
  }}
  const d = document.documentElement;
  return {{ items, pins, view: d ? [d.clientWidth, d.clientHeight, sx, sy] : [0, 0, 0, 0],
    doc: d ? [Math.max(d.scrollWidth, d.clientWidth), Math.max(d.scrollHeight, d.clientHeight)] : [0, 0] }};
}})()"#,
        find = super::facts::find_by_stamp_js(),
    )
}

/// Shows the text of the items `shown` again (transitions kept off until
/// their colour is back), scrolls the page to `scroll` (at once, whatever
/// its `scroll-behavior`) and hides the text of the items `hidden`, style
/// flushed. With `end`, also removes the hiding sheet. Answers the scroll
/// position after.
///
/// It does not wait for a frame: the picture taken next waits for one of
/// its own, which paints the hidden text and the new scroll position (and
/// what the page's scroll handlers, run at that frame's start, changed);
/// the exact ratios of `render_layout`'s backdrop tests hold so.
fn step_script(shown: &[usize], hidden: &[usize], end: bool, scroll: Option<(f64, f64)>) -> String {
    let list = |v: &[usize]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
    let scroll = scroll.map_or_else(|| "null".to_string(), |(x, y)| format!("[{x}, {y}]"));
    format!(
        r#"new Promise((resolve) => {{
  const st = window.__sitescanBackdrop;
  const at = () => [window.scrollX, window.scrollY];
  if (!st) {{ resolve(null); return; }}
  const scroll = {scroll};
  if (scroll && (window.scrollX !== scroll[0] || window.scrollY !== scroll[1])) {{
    window.scrollTo({{ left: scroll[0], top: scroll[1], behavior: 'instant' }});
  }}
  const shown = {shown}.map((i) => st.els[i]).filter((e) => e);
  const hidden = {hidden}.map((i) => st.els[i]).filter((e) => e);
  for (const e of shown) e.setAttribute('{MARK}', 'keep');
  if (shown.length) getComputedStyle(shown[0]).color;
  for (const e of shown) e.removeAttribute('{MARK}');
  if ({end}) {{
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== st.sheet);
    delete window.__sitescanBackdrop;
  }}
  if (!hidden.length) {{ resolve(at()); return; }}
  for (const e of hidden) e.setAttribute('{MARK}', 'hide');
  getComputedStyle(hidden[0]).color;
  resolve(at());
}})"#,
        shown = list(shown),
        hidden = list(hidden),
    )
}

/// Groups the items' regions (`(item, region)`, in document order) into
/// bands shot in one picture each: items are added to a band while the
/// union of their regions stays within `limit` (at most [`MAX_CLIP`]: the
/// viewport's free span when the bands are shot in the viewport).
///
/// One picture per band rather than per element: a screenshot of a tab that
/// is not the browser's front one waits for a frame of its own, some
/// hundreds of milliseconds when other tabs render beside it, so forty
/// elements took up to 20 s on a long page; their text is hidden together
/// (no element's text lies under another's own text boxes).
fn bands(regions: &[(usize, Region)], limit: (f64, f64)) -> Vec<(Region, Vec<usize>)> {
    let mut order: Vec<&(usize, Region)> = regions.iter().collect();
    order.sort_by(|a, b| a.1.clip[1].total_cmp(&b.1.clip[1]));
    let mut out: Vec<(Region, Vec<usize>)> = Vec::new();
    for (item, r) in order {
        if let Some((band, items)) = out.last_mut() {
            let x0 = band.clip[0].min(r.clip[0]);
            let y0 = band.clip[1].min(r.clip[1]);
            let x1 = (band.clip[0] + band.clip[2]).max(r.clip[0] + r.clip[2]);
            let y1 = (band.clip[1] + band.clip[3]).max(r.clip[1] + r.clip[3]);
            if x1 - x0 <= limit.0 && y1 - y0 <= limit.1 {
                band.clip = [x0, y0, x1 - x0, y1 - y0];
                items.push(*item);
                continue;
            }
        }
        out.push((r.clone(), vec![*item]));
    }
    for (band, _) in &mut out {
        band.scale = (MAX_BAND_PIXELS / (band.clip[2] * band.clip[3]))
            .sqrt()
            .min(1.0);
        band.rects.clear();
    }
    out
}

/// Measures the backdrop of the elements of `facts` the browser gave no
/// opaque blended colour, in the tab `session` (main frame `frame`). A hung
/// or crashed tab is an error (the render fails); any other failure is
/// logged and leaves the elements it did not reach unmeasured.
pub(crate) async fn measure(
    conn: &Connection,
    session: &str,
    frame: &str,
    facts: &mut RenderedFacts,
    timeout: Duration,
) -> Result<(), BrowserError> {
    // Every shown element with a colour: the page's script keeps those with
    // own text, and of those with a blended colour the ones over an image.
    let candidates: Vec<(u32, bool)> = facts
        .elements
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let f = f.as_ref()?;
            let shown = f.is_visible()
                && f.color.is_some()
                && f.bounds.is_some_and(|b| b.width > 0.0 && b.height > 0.0);
            let blended = f.background.is_some_and(|b| b.is_opaque());
            shown
                .then(|| u32::try_from(i).ok().map(|i| (i, blended)))
                .flatten()
        })
        .take(MAX_CANDIDATES)
        .collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let started = Instant::now();
    match measure_in(conn, session, frame, facts, &candidates, timeout, started).await {
        Ok(n) => {
            tracing::debug!(
                measured = n,
                ms = started.elapsed().as_millis() as u64,
                "measured text backdrops"
            );
            Ok(())
        }
        Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => Err(e),
        Err(e) => {
            tracing::debug!(error = %e, "the text backdrops were not measured");
            Ok(())
        }
    }
}

async fn measure_in(
    conn: &Connection,
    session: &str,
    frame: &str,
    facts: &mut RenderedFacts,
    candidates: &[(u32, bool)],
    timeout: Duration,
    started: Instant,
) -> Result<usize, BrowserError> {
    let context = conn
        .isolated_world(session, frame, "sitescan-backdrop", timeout)
        .await?;
    let eval = |expr: String| async move {
        conn.evaluate(
            session,
            World::Isolated(context),
            &expr,
            Wait::Promise,
            timeout,
        )
        .await
    };
    let setup = eval(setup_script(candidates)).await?;
    let doc = setup
        .get("doc")
        .and_then(Value::as_array)
        .map(|d| {
            let n = |i: usize| d.get(i).and_then(Value::as_f64).unwrap_or(0.0);
            (n(0), n(1))
        })
        .unwrap_or((0.0, 0.0));
    let items: Vec<(u32, Vec<[f64; 4]>, bool)> = setup
        .get("items")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(parse_item).collect())
        .unwrap_or_default();
    let view = setup.get("view").and_then(Value::as_array).map(|v| {
        let n = |i: usize| v.get(i).and_then(Value::as_f64).unwrap_or(0.0);
        View {
            width: n(0),
            height: n(1),
            x: n(2),
            y: n(3),
        }
    });
    // The fixed boxes, when they are known (else no band is shot in the
    // viewport).
    let pins: Option<Vec<[f64; 4]>> = setup
        .get("pins")
        .and_then(Value::as_array)
        .map(|p| p.iter().filter_map(parse_rect).collect())
        .filter(|_| view.is_some_and(|v| v.width >= 1.0 && v.height >= 1.0));
    tracing::debug!(
        candidates = candidates.len(),
        items = items.len(),
        "text backdrops to measure"
    );
    if items.is_empty() {
        return Ok(0);
    }
    let mut measured = 0;
    let regions: Vec<(usize, Region)> = if doc.1 > MAX_DOC_HEIGHT {
        tracing::debug!(height = doc.1, "document too tall to shoot text backdrops");
        Vec::new()
    } else {
        items
            .iter()
            .enumerate()
            .take(MAX_MEASURED_PER_PAGE)
            .filter_map(|(i, (_, rects, _))| Region::new(rects, doc).map(|r| (i, r)))
            .collect()
    };
    // Bands shot in the viewport are at most its free span; the elements
    // inside a fixed box, which move in the document as it scrolls, are
    // banded apart and shot in the document.
    let (loose, fixed): (Regions, Regions) = regions
        .iter()
        .cloned()
        .partition(|(i, _)| pins.is_some() && items.get(*i).is_some_and(|it| !it.2));
    let mut planned = match (view, &pins) {
        (Some(view), Some(pins)) => {
            // The span free of fixed boxes over the columns the text is in.
            let x0 = loose
                .iter()
                .map(|(_, r)| r.clip[0])
                .fold(f64::MAX, f64::min);
            let x1 = loose
                .iter()
                .map(|(_, r)| r.clip[0] + r.clip[2])
                .fold(f64::MIN, f64::max);
            let free = free_span(&view, pins, (x0 - view.x, x1 - view.x));
            bands(
                &loose,
                (
                    MAX_CLIP.0.min(view.width.floor()),
                    MAX_CLIP.1.min((free.1 - free.0).floor()),
                ),
            )
        }
        _ => bands(&loose, MAX_CLIP),
    };
    planned.extend(bands(&fixed, MAX_CLIP));
    // Top down, as the budget cuts them.
    planned.sort_by(|a, b| a.0.clip[1].total_cmp(&b.0.clip[1]));
    let own: std::collections::HashMap<usize, [f64; 4]> =
        regions.iter().map(|(i, r)| (*i, r.clip)).collect();
    let home = view.map(|v| (v.x, v.y));
    let mut scrolled = false;
    let (mut in_view, mut in_doc) = (0usize, 0usize);
    let mut shown: Vec<usize> = Vec::new();
    let outcome = async {
        for (band, members) in planned {
            if started.elapsed() >= TIME_BUDGET {
                tracing::debug!("text backdrop budget spent");
                break;
            }
            let in_fixed = members.iter().any(|i| items.get(*i).is_none_or(|it| it.2));
            let target = match (view, &pins) {
                (Some(view), Some(pins)) if !in_fixed => {
                    viewport_scroll(band.clip, &view, pins, doc)
                }
                _ => None,
            };
            // A picture of the document is taken with the page where it
            // was, as before the bands were shot in the viewport.
            let scroll = target.or(if scrolled { home } else { None });
            let at = eval(step_script(&shown, &members, false, scroll)).await?;
            shown = members.clone();
            let at = at
                .as_array()
                .and_then(|a| Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?)));
            scrolled = at.is_some_and(|a| Some(a) != home);
            // The page may not have scrolled where asked (scroll snapping,
            // a script): then the band is shot in the document.
            let shot = match (target, at, view, &pins) {
                (Some(_), Some((x, y)), Some(view), Some(pins))
                    if fits(band.clip, &View { x, y, ..view }, pins) =>
                {
                    Shot::Viewport
                }
                _ => Shot::Document,
            };
            if shot == Shot::Document && scrolled {
                let back = eval(step_script(&[], &[], false, home)).await?;
                scrolled = back
                    .as_array()
                    .and_then(|a| Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?)))
                    != home;
            }
            tracing::trace!(clip = ?band.clip, ?target, ?at, ?shot, "text backdrop band");
            match shot {
                Shot::Viewport => in_view += 1,
                Shot::Document => in_doc += 1,
            }
            let png = capture(
                conn,
                session,
                band.clip,
                Format::Png,
                band.scale,
                shot,
                timeout,
            )
            .await?;
            let Some((pixels, info)) = decode(&png, MAX_DECODED_BYTES) else {
                continue;
            };
            let channels = match info.color_type {
                png::ColorType::Rgb => 3,
                png::ColorType::Rgba => 4,
                _ => continue,
            };
            let image = Image {
                pixels: &pixels,
                width: info.width,
                height: info.height,
                channels,
            };
            for i in members {
                let Some((stamp, rects, _)) = items.get(i) else {
                    continue;
                };
                // Judged on its own boxes inside its own region, whatever
                // band it was shot in.
                let Some(within) = own.get(&i) else {
                    continue;
                };
                let Some(f) = facts.elements.get(*stamp as usize).and_then(Option::as_ref) else {
                    continue;
                };
                let Some(color) = f.color else {
                    continue;
                };
                let opacity = f.text_opacity.unwrap_or(1.0).clamp(0.0, 1.0);
                // The element's own boxes, judged in the band's picture.
                let region = Region {
                    rects: clamp_rects(rects, *within),
                    ..band.clone()
                };
                let backdrop = MeasuredBackdrop::measure(color, opacity, region.sample(&image));
                if let Some(Some(f)) = facts.elements.get_mut(*stamp as usize) {
                    if backdrop.is_some() {
                        measured += 1;
                    }
                    f.backdrop = backdrop;
                }
            }
        }
        Ok::<(), BrowserError>(())
    }
    .await;
    // Whatever happened, the text is shown again and the sheet removed. When
    // that works the page is as it was, and a call that failed on the way
    // (a screenshot too slow on a busy machine) only leaves the rest
    // unmeasured; when it does not, the tab is not usable (its text may
    // still be hidden) and the error fails the render.
    eval(step_script(
        &shown,
        &[],
        true,
        if scrolled { home } else { None },
    ))
    .await?;
    tracing::debug!(
        viewport = in_view,
        document = in_doc,
        "text backdrop pictures"
    );
    if let Err(e) = outcome {
        tracing::debug!(error = %e, measured, "text backdrop measurement stopped");
    }
    Ok(measured)
}

/// `[stamp, [[x, y, w, h], ...], 1 inside a fixed box]` from the setup
/// script (an item without the flag counts as inside one).
fn parse_item(v: &Value) -> Option<(u32, Vec<[f64; 4]>, bool)> {
    let a = v.as_array()?;
    let stamp = u32::try_from(a.first()?.as_u64()?).ok()?;
    let rects = a
        .get(1)?
        .as_array()?
        .iter()
        .take(MAX_RECTS)
        .filter_map(parse_rect)
        .filter(|r| r[2] > 0.0 && r[3] > 0.0)
        .collect();
    let fixed = a.get(2).and_then(Value::as_u64) != Some(0);
    Some((stamp, rects, fixed))
}

/// `[x, y, w, h]`, finite numbers.
fn parse_rect(r: &Value) -> Option<[f64; 4]> {
    let r = r.as_array()?;
    let n = |i: usize| r.get(i).and_then(Value::as_f64).filter(|v| v.is_finite());
    Some([n(0)?, n(1)?, n(2)?, n(3)?])
}

/// `rects` cut to `clip` (all `[x, y, w, h]`); the empty ones dropped.
fn clamp_rects(rects: &[[f64; 4]], clip: [f64; 4]) -> Vec<[f64; 4]> {
    rects
        .iter()
        .filter_map(|r| {
            let x0 = r[0].max(clip[0]);
            let y0 = r[1].max(clip[1]);
            let x1 = (r[0] + r[2]).min(clip[0] + clip[2]);
            let y1 = (r[1] + r[3]).min(clip[1] + clip[3]);
            (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
        })
        .collect()
}

/// The viewport when the backdrops are measured: its size without
/// scrollbars (the root's client size) and the page's scroll position, CSS
/// pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct View {
    width: f64,
    height: f64,
    x: f64,
    y: f64,
}

/// The tallest span `[top, bottom)` of the viewport's rows in which no
/// fixed box (`pins`, viewport coordinates) reaches the columns `cols`
/// (`[left, right)`, viewport coordinates).
fn free_span(view: &View, pins: &[[f64; 4]], cols: (f64, f64)) -> (f64, f64) {
    let mut taken: Vec<(f64, f64)> = pins
        .iter()
        .filter(|p| p[0] < cols.1 && p[0] + p[2] > cols.0)
        .map(|p| (p[1].floor().max(0.0), (p[1] + p[3]).ceil().min(view.height)))
        .filter(|(a, b)| b > a)
        .collect();
    taken.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = (0.0, 0.0);
    let mut from = 0.0;
    for (a, b) in taken
        .into_iter()
        .chain(std::iter::once((view.height, view.height)))
    {
        if a - from > best.1 - best.0 {
            best = (from, a);
        }
        from = f64::max(from, b);
    }
    best
}

/// Whether no fixed box (`pins`, viewport coordinates) reaches `clip`
/// (document coordinates) with the page scrolled to `view.x`, `view.y`.
fn clear(clip: [f64; 4], view: &View, pins: &[[f64; 4]]) -> bool {
    let (x0, y0) = (clip[0] - view.x, clip[1] - view.y);
    let (x1, y1) = (x0 + clip[2], y0 + clip[3]);
    pins.iter()
        .all(|p| p[0] >= x1 || p[0] + p[2] <= x0 || p[1] >= y1 || p[1] + p[3] <= y0)
}

/// Whether `clip` (document coordinates) lies inside the viewport with the
/// page scrolled to `view.x`, `view.y`, clear of every fixed box (`pins`).
fn fits(clip: [f64; 4], view: &View, pins: &[[f64; 4]]) -> bool {
    let (x0, y0) = (clip[0] - view.x, clip[1] - view.y);
    x0 >= 0.0
        && y0 >= 0.0
        && x0 + clip[2] <= view.width
        && y0 + clip[3] <= view.height
        && clear(clip, view, pins)
}

/// Where to scroll the page (x, y) so that `clip` lies in the viewport clear
/// of the fixed boxes `pins`, staying where it is when it already does;
/// `None` (shot in the document) when a fixed box reaches it where the page
/// is (`view`), or when no scroll position of a document of `doc` (width,
/// height) shows it clear of them (a clip taller than the rows free of
/// them, or wider than the viewport).
///
/// A picture of the document (`captureBeyondViewport`) keeps the layout,
/// the viewport and the fixed boxes where they are and paints beyond the
/// viewport; a picture in the viewport after scrolling differs from it only
/// where the fixed boxes moved with the viewport (and where the page itself
/// reacts to the scroll). A clip that no fixed box reaches before or after
/// the scroll is the same in both.
fn viewport_scroll(
    clip: [f64; 4],
    view: &View,
    pins: &[[f64; 4]],
    doc: (f64, f64),
) -> Option<(f64, f64)> {
    if !clear(clip, view, pins) {
        return None;
    }
    if fits(clip, view, pins) {
        return Some((view.x, view.y));
    }
    let max_x = (doc.0 - view.width).max(0.0).floor();
    let max_y = (doc.1 - view.height).max(0.0).floor();
    let x = if clip[0] >= view.x && clip[0] + clip[2] <= view.x + view.width {
        view.x
    } else {
        clip[0].clamp(0.0, max_x)
    };
    let cols = (clip[0] - x, clip[0] + clip[2] - x);
    let free = free_span(view, pins, cols);
    let y = (clip[1] - free.0).clamp(0.0, max_y);
    let moved = View { x, y, ..*view };
    fits(clip, &moved, pins).then_some((x, y))
}

/// Items' regions: `(item, region)`.
type Regions = Vec<(usize, Region)>;

/// A decoded picture: 8-bit samples, `channels` per pixel.
struct Image<'a> {
    pixels: &'a [u8],
    width: u32,
    height: u32,
    channels: usize,
}

/// What is shot for one element: the clip around its text boxes and the
/// scale, and the boxes whose pixels are judged.
#[derive(Debug, Clone, PartialEq)]
struct Region {
    /// `[x, y, width, height]`, whole CSS pixels of the document.
    clip: [f64; 4],
    /// The picture's scale (at most 1), so it holds at most [`MAX_PIXELS`].
    scale: f64,
    /// The text boxes, document coordinates.
    rects: Vec<[f64; 4]>,
}

impl Region {
    /// The region of text boxes `rects` in a document of `doc` (width,
    /// height): their union inside the document, at most [`MAX_CLIP`] from
    /// its top left; `None` when nothing of them is in the document.
    fn new(rects: &[[f64; 4]], doc: (f64, f64)) -> Option<Region> {
        let mut x0 = f64::MAX;
        let mut y0 = f64::MAX;
        let mut x1 = f64::MIN;
        let mut y1 = f64::MIN;
        for r in rects {
            x0 = x0.min(r[0]);
            y0 = y0.min(r[1]);
            x1 = x1.max(r[0] + r[2]);
            y1 = y1.max(r[1] + r[3]);
        }
        let x0 = x0.max(0.0).floor();
        let y0 = y0.max(0.0).floor();
        let x1 = x1.min(doc.0).ceil().min(x0 + MAX_CLIP.0);
        let y1 = y1.min(doc.1).ceil().min(y0 + MAX_CLIP.1);
        if !(x1 - x0 >= 1.0 && y1 - y0 >= 1.0) {
            return None;
        }
        let (w, h) = (x1 - x0, y1 - y0);
        let scale = (MAX_PIXELS / (w * h)).sqrt().min(1.0);
        Some(Region {
            clip: [x0, y0, w, h],
            scale,
            rects: rects.to_vec(),
        })
    }

    /// The picture's pixels whose centres lie inside a text box, as RGB
    /// (each pixel once, even where boxes overlap).
    fn sample<'a>(&'a self, image: &'a Image<'a>) -> impl Iterator<Item = [u8; 3]> + 'a {
        // Image pixels per CSS pixel: the scale times the device's.
        let per_x = f64::from(image.width) / self.clip[2];
        let per_y = f64::from(image.height) / self.clip[3];
        let [cx, cy, _, _] = self.clip;
        let inside = move |x: u32, y: u32| {
            let dx = cx + (f64::from(x) + 0.5) / per_x;
            let dy = cy + (f64::from(y) + 0.5) / per_y;
            self.rects
                .iter()
                .any(|r| dx >= r[0] && dx < r[0] + r[2] && dy >= r[1] && dy < r[1] + r[3])
        };
        // Only the pixels of the boxes' union are visited: a band's picture
        // holds many elements, and each is judged on its own boxes.
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for r in &self.rects {
            x0 = x0.min(r[0]);
            y0 = y0.min(r[1]);
            x1 = x1.max(r[0] + r[2]);
            y1 = y1.max(r[1] + r[3]);
        }
        let to_px = |d: f64, origin: f64, per: f64, max: u32| {
            ((d - origin) * per).clamp(0.0, f64::from(max)) as u32
        };
        let (px0, px1) = if self.rects.is_empty() {
            (0, 0)
        } else {
            (
                to_px(x0, cx, per_x, image.width),
                to_px(x1, cx, per_x, image.width)
                    .saturating_add(1)
                    .min(image.width),
            )
        };
        let (py0, py1) = if self.rects.is_empty() {
            (0, 0)
        } else {
            (
                to_px(y0, cy, per_y, image.height),
                to_px(y1, cy, per_y, image.height)
                    .saturating_add(1)
                    .min(image.height),
            )
        };
        (py0..py1)
            .flat_map(move |y| (px0..px1).map(move |x| (x, y)))
            .filter(move |(x, y)| inside(*x, *y))
            .filter_map(move |(x, y)| {
                let at = (y as usize * image.width as usize + x as usize) * image.channels;
                let p = image.pixels.get(at..at + 3)?;
                Some([p[0], p[1], p[2]])
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitescan_rules::rendered::STAMP_ATTR;

    #[test]
    fn a_region_is_the_text_boxes_inside_the_document_and_bounded() {
        // Two lines of text: their union, whole pixels.
        let r = Region::new(
            &[[10.5, 20.2, 100.0, 18.0], [10.5, 38.2, 40.0, 18.0]],
            (800.0, 600.0),
        )
        .unwrap();
        assert_eq!(r.clip, [10.0, 20.0, 101.0, 37.0]);
        assert_eq!(r.scale, 1.0);
        // A box partly above the document is cut at its top.
        let r = Region::new(&[[0.0, -10.0, 50.0, 20.0]], (800.0, 600.0)).unwrap();
        assert_eq!(r.clip, [0.0, 0.0, 50.0, 10.0]);
        // Outside the document: nothing to shoot.
        assert!(Region::new(&[[900.0, 0.0, 50.0, 20.0]], (800.0, 600.0)).is_none());
        assert!(Region::new(&[], (800.0, 600.0)).is_none());
        // A huge box: clipped to MAX_CLIP, shot scaled to MAX_PIXELS.
        let r = Region::new(&[[0.0, 0.0, 5000.0, 5000.0]], (5000.0, 5000.0)).unwrap();
        assert_eq!((r.clip[2], r.clip[3]), MAX_CLIP);
        let shot = (r.clip[2] * r.scale) * (r.clip[3] * r.scale);
        assert!(shot <= MAX_PIXELS + 1.0, "{shot}");
    }

    #[test]
    fn only_pixels_under_the_text_boxes_are_sampled() {
        // A 4×2 picture of a clip at (10, 10), 4×2 CSS pixels: the left
        // half dark, the right half light; a text box over the left half.
        let dark = [0u8, 0, 0, 255];
        let light = [255u8, 255, 255, 255];
        let row: Vec<u8> = [dark, dark, light, light].concat();
        let pixels: Vec<u8> = [row.clone(), row].concat();
        let image = Image {
            pixels: &pixels,
            width: 4,
            height: 2,
            channels: 4,
        };
        let region = Region {
            clip: [10.0, 10.0, 4.0, 2.0],
            scale: 1.0,
            rects: vec![[10.0, 10.0, 2.0, 2.0]],
        };
        let got: Vec<[u8; 3]> = region.sample(&image).collect();
        assert_eq!(got, vec![[0, 0, 0]; 4]);
        // Overlapping boxes count each pixel once; a device scale of 2
        // (8×4 picture) maps back to the same CSS pixels.
        let region = Region {
            rects: vec![[10.0, 10.0, 2.0, 2.0], [11.0, 10.0, 1.0, 2.0]],
            ..region
        };
        assert_eq!(region.sample(&image).count(), 4);
        let big: Vec<u8> = (0..4)
            .flat_map(|_| [dark, dark, dark, dark, light, light, light, light].concat())
            .collect();
        let image = Image {
            pixels: &big,
            width: 8,
            height: 4,
            channels: 4,
        };
        assert_eq!(
            region.sample(&image).collect::<Vec<_>>(),
            vec![[0, 0, 0]; 16]
        );
    }

    #[test]
    fn the_scripts_carry_the_marker_and_the_caps() {
        let s = setup_script(&[(3, false), (7, true)]);
        assert!(s.contains("[[3,0],[7,1]]"));
        assert!(s.contains(MARK) && s.contains(STAMP_ATTR));
        assert!(s.contains(&MAX_MEASURED_PER_PAGE.to_string()));
        let s = step_script(&[0], &[], true, None);
        assert!(s.contains("[0].map(") && s.contains("[].map(") && s.contains("if (true)"));
        assert!(s.contains("const scroll = null;"));
        let s = step_script(&[], &[1], false, Some((0.0, 4956.0)));
        assert!(s.contains("const scroll = [0, 4956];") && s.contains("behavior: 'instant'"));
    }

    #[test]
    fn the_free_span_is_the_tallest_run_of_rows_clear_of_fixed_boxes() {
        let view = View {
            width: 780.0,
            height: 493.0,
            x: 0.0,
            y: 0.0,
        };
        // No fixed box: the whole viewport.
        assert_eq!(free_span(&view, &[], (0.0, 780.0)), (0.0, 493.0));
        // A bar across the top (its shadow included) and a menu pushed off
        // the left edge: the rows below the bar, for text right of the menu.
        let pins = [[-4.0, -4.0, 788.0, 48.0], [-326.0, -16.0, 332.0, 525.0]];
        assert_eq!(free_span(&view, &pins, (16.0, 760.0)), (44.0, 493.0));
        // Text in the columns the menu's shadow reaches: no free row.
        assert_eq!(free_span(&view, &pins, (0.0, 760.0)).1, 0.0);
        // A bar at the top and one at the bottom: the rows between; the
        // larger of two gaps.
        let pins = [
            [0.0, 0.0, 780.0, 40.0],
            [0.0, 400.0, 780.0, 93.0],
            [0.0, 100.5, 780.0, 10.0],
        ];
        assert_eq!(free_span(&view, &pins, (0.0, 780.0)), (111.0, 400.0));
    }

    #[test]
    fn a_band_is_scrolled_into_the_free_rows_or_shot_in_the_document() {
        let view = View {
            width: 780.0,
            height: 493.0,
            x: 0.0,
            y: 0.0,
        };
        let bar = [[-4.0, -4.0, 788.0, 48.0]];
        let doc = (780.0, 30_000.0);
        // Already in view below the bar: no scroll.
        assert_eq!(
            viewport_scroll([16.0, 47.0, 700.0, 400.0], &view, &bar, doc),
            Some((0.0, 0.0))
        );
        // Further down: scrolled so that it starts just below the bar.
        assert_eq!(
            viewport_scroll([16.0, 5000.0, 700.0, 400.0], &view, &bar, doc),
            Some((0.0, 4956.0))
        );
        // At the document's top, under the bar whatever the scroll: in the
        // document (as before, the bar is in its picture).
        assert_eq!(
            viewport_scroll([16.0, 10.0, 700.0, 20.0], &view, &bar, doc),
            None
        );
        // Taller than the free rows: in the document.
        assert_eq!(
            viewport_scroll([16.0, 5000.0, 700.0, 460.0], &view, &bar, doc),
            None
        );
        // By the document's end: scrolled as far as it goes.
        assert_eq!(
            viewport_scroll([16.0, 29_800.0, 700.0, 150.0], &view, &bar, doc),
            Some((0.0, 29_507.0))
        );
        // Wider than the viewport: in the document.
        assert_eq!(
            viewport_scroll([0.0, 5000.0, 800.0, 20.0], &view, &[], (1600.0, 30_000.0)),
            None
        );
        // To the right of a wide document: scrolled sideways too.
        assert_eq!(
            viewport_scroll(
                [1000.0, 5000.0, 300.0, 20.0],
                &view,
                &[],
                (1600.0, 30_000.0)
            ),
            Some((820.0, 5000.0))
        );
        // A fixed box in the middle of the viewport: a band clear of it fits
        // where it is, one across it is moved below it.
        let mid = [[300.0, 200.0, 100.0, 50.0]];
        assert!(fits([16.0, 10.0, 200.0, 300.0], &view, &mid));
        assert!(!fits([16.0, 10.0, 400.0, 300.0], &view, &mid));
        assert_eq!(
            viewport_scroll([16.0, 10.0, 400.0, 100.0], &view, &mid, doc),
            Some((0.0, 0.0))
        );
        assert_eq!(
            viewport_scroll([16.0, 150.0, 400.0, 100.0], &view, &mid, doc),
            None
        );
        assert_eq!(
            viewport_scroll([16.0, 1000.0, 400.0, 100.0], &view, &mid, doc),
            Some((0.0, 750.0))
        );
    }

    #[test]
    fn an_element_is_judged_inside_its_own_region_only() {
        let clip = [10.0, 10.0, 100.0, 50.0];
        assert_eq!(
            clamp_rects(
                &[
                    [0.0, 0.0, 50.0, 20.0],
                    [20.0, 20.0, 10.0, 10.0],
                    [200.0, 0.0, 5.0, 5.0]
                ],
                clip
            ),
            vec![[10.0, 10.0, 40.0, 10.0], [20.0, 20.0, 10.0, 10.0]]
        );
    }

    #[test]
    fn items_read_their_fixed_flag() {
        let v: Value = serde_json::json!([4, [[1.0, 2.0, 3.0, 4.0], [0, 0, 0, 0]], 0]);
        assert_eq!(parse_item(&v), Some((4, vec![[1.0, 2.0, 3.0, 4.0]], false)));
        let v: Value = serde_json::json!([4, [[1.0, 2.0, 3.0, 4.0]], 1]);
        assert_eq!(parse_item(&v).map(|i| i.2), Some(true));
        // Without the flag, counted as inside a fixed box (never scrolled).
        let v: Value = serde_json::json!([4, [[1.0, 2.0, 3.0, 4.0]]]);
        assert_eq!(parse_item(&v).map(|i| i.2), Some(true));
    }

    #[test]
    fn regions_are_shot_together_in_bands_within_the_clip_cap() {
        let region =
            |y: f64, h: f64| Region::new(&[[10.0, y, 100.0, h]], (1280.0, 9000.0)).unwrap();
        let regions = vec![
            (0, region(2100.0, 20.0)),
            (1, region(10.0, 20.0)),
            (2, region(500.0, 20.0)),
            (3, region(1030.0, 20.0)),
        ];
        let got = bands(&regions, MAX_CLIP);
        let members: Vec<Vec<usize>> = got.iter().map(|(_, m)| m.clone()).collect();
        // Top down: 10..520 fit one band; 1030 would make it 1040 high, and
        // 2100 would make the next 1090.
        assert_eq!(members, vec![vec![1, 2], vec![3], vec![0]]);
        assert_eq!(got[0].0.clip, [10.0, 10.0, 100.0, 510.0]);
        assert_eq!(got[0].0.scale, 1.0);
        assert!(got.iter().all(|(b, _)| b.rects.is_empty()));
        // Within a viewport's 437 free rows: 10..520 no longer fit one band.
        let got = bands(&regions, (780.0, 437.0));
        let members: Vec<Vec<usize>> = got.iter().map(|(_, m)| m.clone()).collect();
        assert_eq!(members, vec![vec![1], vec![2], vec![3], vec![0]]);
    }
}
