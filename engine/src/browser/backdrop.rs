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
//! **Bounds.** At most [`MAX_MEASURED_PER_PAGE`] elements per page, in
//! document order; at most [`MAX_RECTS`] text boxes each, clipped to
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
use sitescan_rules::rendered::{MeasuredBackdrop, RenderedFacts, STAMP_ATTR};
use tokio::time::Instant;

use super::cdp::{Connection, Wait, World};
use super::picture::{capture, decode};
use super::BrowserError;

/// Most elements whose backdrop is measured on one page. Each band of them
/// costs two script calls, a frame and a screenshot (some 30 to 60 ms on a
/// quiet machine): 40 keeps a
/// page with a large hero image or a gradient body within a couple of
/// seconds, and covers the text over images that most pages have (headings
/// and buttons on a banner), in document order.
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
/// the hiding sheet ready. Answers `{items: [[stamp, [[x, y, w, h], ...]]],
/// doc: [w, h]}`, boxes in document coordinates.
fn setup_script(candidates: &[(u32, bool)]) -> String {
    let candidates: Vec<[u32; 2]> = candidates
        .iter()
        .map(|(s, blended)| [*s, u32::from(*blended)])
        .collect();
    let list = serde_json::to_string(&candidates).unwrap_or_else(|_| "[]".into());
    format!(
        r#"(() => {{
  const all = document.getElementsByTagName('*');
  const find = (s) => {{
    const e = all[s];
    if (e && e.getAttribute('{STAMP_ATTR}') === String(s)) return e;
    try {{ return document.querySelector('[{STAMP_ATTR}="' + s + '"]'); }} catch (x) {{ return null; }}
  }};
  const sx = window.scrollX, sy = window.scrollY;
  const opaque = (c) => {{
    const m = /^rgba?\(([^)]*)\)$/.exec(c.backgroundColor);
    if (!m) return false;
    const p = m[1].split(/[\s,\/]+/).filter((x) => x);
    return p.length < 4 || Number(p[3]) >= 1;
  }};
  const REPLACED = new Set(['IMG', 'PICTURE', 'VIDEO', 'CANVAS', 'SVG', 'svg', 'IFRAME', 'OBJECT', 'EMBED']);
  // Whether an image lies under the text although the snapshot blended a
  // colour (Chromium blends some gradients into one of their stops): a
  // background image on the way up to the first opaque background, or, where
  // the text is on screen, replaced content or an image painted under it.
  const imageUnder = (e, r) => {{
    for (let a = e, k = 0; a && k < 512; a = a.parentElement, k++) {{
      const c = getComputedStyle(a);
      if (c.backgroundImage !== 'none') return true;
      if (opaque(c)) break;
    }}
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
  const items = [], els = [];
  for (const [s, blended] of {list}) {{
    if (items.length >= {MAX_MEASURED_PER_PAGE}) break;
    const e = find(s);
    if (!e) continue;
    let own = false;
    for (let c = e.firstChild, k = 0; c && k < 64; c = c.nextSibling, k++) {{
      if (c.nodeType === 3 && c.data.trim()) {{ own = true; break; }}
    }}
    if (!own) continue;
    if (getComputedStyle(e).textShadow !== 'none') continue;
    // A blend mode or filter changes the text's colour as painted.
    let mixed = false;
    for (let a = e, k = 0; a && k < 512; a = a.parentElement, k++) {{
      const c = getComputedStyle(a);
      if (c.mixBlendMode !== 'normal' || c.filter !== 'none') {{ mixed = true; break; }}
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
    if (blended && !imageUnder(e, rects[0])) continue;
    items.push([s, rects]);
    els.push(e);
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
  return {{ items, doc: d ? [Math.max(d.scrollWidth, d.clientWidth), Math.max(d.scrollHeight, d.clientHeight)] : [0, 0] }};
}})()"#
    )
}

/// Shows the text of the items `shown` again (transitions kept off until
/// their colour is back) and hides the text of the items `hidden`, then
/// waits for a frame (or 100 ms when frames do not come). With `end`, also
/// removes the hiding sheet.
fn step_script(shown: &[usize], hidden: &[usize], end: bool) -> String {
    let list = |v: &[usize]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
    format!(
        r#"new Promise((resolve) => {{
  const st = window.__sitescanBackdrop;
  if (!st) {{ resolve(false); return; }}
  const shown = {shown}.map((i) => st.els[i]).filter((e) => e);
  const hidden = {hidden}.map((i) => st.els[i]).filter((e) => e);
  for (const e of shown) e.setAttribute('{MARK}', 'keep');
  if (shown.length) getComputedStyle(shown[0]).color;
  for (const e of shown) e.removeAttribute('{MARK}');
  if ({end}) {{
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== st.sheet);
    delete window.__sitescanBackdrop;
  }}
  if (!hidden.length) {{ resolve(true); return; }}
  for (const e of hidden) e.setAttribute('{MARK}', 'hide');
  getComputedStyle(hidden[0]).color;
  let done = false;
  const go = () => {{ if (!done) {{ done = true; resolve(true); }} }};
  requestAnimationFrame(() => setTimeout(go, 0));
  setTimeout(go, 100);
}})"#,
        shown = list(shown),
        hidden = list(hidden),
    )
}

/// Groups the items' regions (`(item, region)`, in document order) into
/// bands shot in one picture each: items are added to a band while the
/// union of their regions stays within [`MAX_CLIP`].
///
/// One picture per band rather than per element: a screenshot of a tab that
/// is not the browser's front one waits for a frame of its own, some
/// hundreds of milliseconds when other tabs render beside it, so forty
/// elements took up to 20 s on a long page; their text is hidden together
/// (no element's text lies under another's own text boxes).
fn bands(regions: &[(usize, Region)]) -> Vec<(Region, Vec<usize>)> {
    let mut order: Vec<&(usize, Region)> = regions.iter().collect();
    order.sort_by(|a, b| a.1.clip[1].total_cmp(&b.1.clip[1]));
    let mut out: Vec<(Region, Vec<usize>)> = Vec::new();
    for (item, r) in order {
        if let Some((band, items)) = out.last_mut() {
            let x0 = band.clip[0].min(r.clip[0]);
            let y0 = band.clip[1].min(r.clip[1]);
            let x1 = (band.clip[0] + band.clip[2]).max(r.clip[0] + r.clip[2]);
            let y1 = (band.clip[1] + band.clip[3]).max(r.clip[1] + r.clip[3]);
            if x1 - x0 <= MAX_CLIP.0 && y1 - y0 <= MAX_CLIP.1 {
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
    let items: Vec<(u32, Vec<[f64; 4]>)> = setup
        .get("items")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(parse_item).collect())
        .unwrap_or_default();
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
            .filter_map(|(i, (_, rects))| Region::new(rects, doc).map(|r| (i, r)))
            .collect()
    };
    let mut shown: Vec<usize> = Vec::new();
    let outcome = async {
        for (band, members) in bands(&regions) {
            if started.elapsed() >= TIME_BUDGET {
                tracing::debug!("text backdrop budget spent");
                break;
            }
            eval(step_script(&shown, &members, false)).await?;
            shown = members.clone();
            let png = capture(conn, session, band.clip, "png", None, band.scale, timeout).await?;
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
                let Some((stamp, rects)) = items.get(i) else {
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
                    rects: rects.clone(),
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
    eval(step_script(&shown, &[], true)).await?;
    if let Err(e) = outcome {
        tracing::debug!(error = %e, measured, "text backdrop measurement stopped");
    }
    Ok(measured)
}

/// `[stamp, [[x, y, w, h], ...]]` from the setup script.
fn parse_item(v: &Value) -> Option<(u32, Vec<[f64; 4]>)> {
    let a = v.as_array()?;
    let stamp = u32::try_from(a.first()?.as_u64()?).ok()?;
    let rects = a
        .get(1)?
        .as_array()?
        .iter()
        .take(MAX_RECTS)
        .filter_map(|r| {
            let r = r.as_array()?;
            let n = |i: usize| r.get(i).and_then(Value::as_f64).filter(|v| v.is_finite());
            Some([n(0)?, n(1)?, n(2)?, n(3)?])
        })
        .filter(|r| r[2] > 0.0 && r[3] > 0.0)
        .collect();
    Some((stamp, rects))
}

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
        let s = step_script(&[0], &[], true);
        assert!(s.contains("[0].map(") && s.contains("[].map(") && s.contains("if (true)"));
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
        let got = bands(&regions);
        let members: Vec<Vec<usize>> = got.iter().map(|(_, m)| m.clone()).collect();
        // Top down: 10..520 fit one band; 1030 would make it 1040 high, and
        // 2100 would make the next 1090.
        assert_eq!(members, vec![vec![1, 2], vec![3], vec![0]]);
        assert_eq!(got[0].0.clip, [10.0, 10.0, 100.0, 510.0]);
        assert_eq!(got[0].0.scale, 1.0);
        assert!(got.iter().all(|(b, _)| b.rects.is_empty()));
    }
}
