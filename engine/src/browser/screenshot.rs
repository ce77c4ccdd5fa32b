//! Pictures of a rendered page: a clipped screenshot of each failing element,
//! with a margin and a highlight around its box, and a small thumbnail of the
//! page's first screen.
//!
//! Taken after the page's rules ran, in the tab still on the page
//! ([`super::pool::HeldTab`]), then the tab is released. When activating the
//! page's scripted controls ran its code ([`super::activate`], the last step
//! of its render), the tab first loads the page again, its document from
//! memory ([`super::pool::HeldTab::restore`]), so the pictures show the page
//! as it was judged, not as a toggle left it; a page without candidate
//! controls is pictured as it is. A finding names its element by a selector
//! unique in the serialized DOM, which is the DOM the browser holds (or holds
//! again, the page's scripts run as they ran the first time): the selectors are looked up there, in an isolated
//! world (`Page.createIsolatedWorld`), so the page's own scripts cannot
//! replace the functions the lookup calls. Each box is taken in document
//! coordinates and shot with `Page.captureScreenshot`'s `clip` (beyond the
//! viewport); the highlight is drawn here on the decoded PNG, so nothing is
//! added to the page.
//!
//! Bounded: at most [`MAX_SHOTS_PER_PAGE`] elements per page, each clip at
//! most [`MAX_CLIP_WIDTH`] by [`MAX_CLIP_HEIGHT`] CSS pixels (a larger box is
//! shown from its top left), the page's pictures within
//! [`TIME_BUDGET`], and per scan the count and bytes of
//! [`crate::config::ScreenshotOptions`] ([`ShotBudget`]). Pictures past the
//! scan's cap are not taken, and the report's notes say how many.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;
use sitescan_rules::{Finding, Outcome, Scope};

use super::cdp::{Connection, Wait, World};
use super::picture::{capture, decode, Format, Shot};
use super::pool::HeldTab;
use super::BrowserError;
use crate::config::ScreenshotOptions;
use crate::report::{Screenshot, Screenshots};

/// Space around the element's box in its picture, CSS pixels.
pub const MARGIN: f64 = 16.0;
/// Widest clip of one element, CSS pixels.
pub const MAX_CLIP_WIDTH: f64 = 1280.0;
/// Tallest clip of one element, CSS pixels.
pub const MAX_CLIP_HEIGHT: f64 = 1024.0;
/// The highlight's colour (RGB): a magenta few designs use, so the ring
/// stands out on most pages.
pub const HIGHLIGHT: [u8; 3] = [255, 0, 128];
/// The highlight's width, image pixels.
pub const RING: u32 = 3;
/// Most elements pictured on one page.
pub const MAX_SHOTS_PER_PAGE: usize = 50;
/// A thumbnail's scale of the page's first screen.
pub const THUMBNAIL_SCALE: f64 = 0.25;
/// The thumbnail's JPEG quality (small over sharp).
pub const THUMBNAIL_QUALITY: u8 = 60;
/// Longest time one page's pictures may take; what is not taken by then is
/// left out.
pub const TIME_BUDGET: Duration = Duration::from_secs(20);
/// No element's picture is started after this long on one page, so that
/// the thumbnail, taken last, still has time.
const ELEMENTS_TIME: Duration = Duration::from_secs(15);
/// Most bytes a decoded element picture may take (RGBA of the largest clip,
/// at a device scale up to 2).
const MAX_DECODED_BYTES: usize = (MAX_CLIP_WIDTH as usize * 2) * (MAX_CLIP_HEIGHT as usize * 2) * 4;

/// A scan's pictures and what is left of its caps; shared by its pages.
#[derive(Debug)]
pub struct ShotBudget {
    max: usize,
    max_bytes: u64,
    taken: AtomicUsize,
    bytes: AtomicU64,
    /// Failing elements (and pages) left without a picture by the caps.
    missed: AtomicUsize,
    next_id: AtomicU64,
    shots: Mutex<Vec<Screenshot>>,
}

impl ShotBudget {
    /// The budget of a scan taking pictures under `options`.
    pub fn new(options: &ScreenshotOptions) -> ShotBudget {
        ShotBudget {
            max: options.max,
            max_bytes: options.max_bytes,
            taken: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            missed: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
            shots: Mutex::new(Vec::new()),
        }
    }

    fn full(&self) -> bool {
        self.taken.load(Ordering::SeqCst) >= self.max
    }

    fn miss(&self, n: usize) {
        self.missed.fetch_add(n, Ordering::SeqCst);
    }

    /// Keeps a picture when it fits the caps; its id, or `None` (counted as
    /// missed) when it does not.
    fn admit(&self, prefix: &str, content_type: &'static str, bytes: Vec<u8>) -> Option<String> {
        if self.taken.fetch_add(1, Ordering::SeqCst) >= self.max {
            self.taken.fetch_sub(1, Ordering::SeqCst);
            self.miss(1);
            return None;
        }
        let len = bytes.len() as u64;
        if self.bytes.fetch_add(len, Ordering::SeqCst) + len > self.max_bytes {
            self.bytes.fetch_sub(len, Ordering::SeqCst);
            self.taken.fetch_sub(1, Ordering::SeqCst);
            self.miss(1);
            return None;
        }
        let id = format!("{prefix}-{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        self.shots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Screenshot {
                id: id.clone(),
                content_type,
                bytes: Bytes::from(bytes),
            });
        Some(id)
    }

    /// The report's note when the caps left something without a picture.
    pub fn note(&self) -> Option<String> {
        let missed = self.missed.load(Ordering::SeqCst);
        (missed > 0).then(|| {
            format!(
                "screenshots: {missed} failing element(s) or page(s) have no picture: the scan's cap of {} pictures or {} bytes was reached (render_options.screenshots)",
                self.max, self.max_bytes
            )
        })
    }

    /// The pictures taken, in the order they were taken.
    pub fn take(&self) -> Screenshots {
        Screenshots {
            shots: std::mem::take(&mut *self.shots.lock().unwrap_or_else(|p| p.into_inner())),
        }
    }
}

/// Takes the pictures of a page whose rules ran: one per failing element of
/// `findings` (each names its picture in `screenshot`) and the page's
/// thumbnail, whose id is returned. Then releases the tab.
pub async fn shoot(
    mut held: HeldTab,
    findings: &mut [Finding],
    budget: &ShotBudget,
) -> Option<String> {
    // The page as it was judged first (a page whose controls were activated
    // is loaded again); a page that cannot be brought back gets no pictures
    // rather than pictures of something else.
    if let Err(e) = held.restore().await {
        tracing::debug!(error = %e, "the page could not be loaded again; no pictures");
        held.release().await;
        return None;
    }
    // What is taken before a failure or the time limit stays: each
    // element's picture is linked to its findings as soon as it is kept (a
    // picture counted in the scan's caps is never one no finding names).
    let mut thumbnail = None;
    match tokio::time::timeout(
        TIME_BUDGET,
        shoot_in(&held, findings, budget, &mut thumbnail),
    )
    .await
    {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(error = %e, "the page's pictures were not all taken"),
        Err(_) => tracing::debug!("the page's pictures took too long; the rest left out"),
    }
    held.release().await;
    thumbnail
}

/// Whether a finding is about one element the page shows.
fn pictured(f: &Finding) -> bool {
    f.outcome == Outcome::Failed && f.scope == Scope::Page && !f.selector.is_empty()
}

/// Looks up each selector's box (document coordinates) and the document's
/// and viewport's sizes and the page's scroll. Answers `{boxes: [[x, y, w,
/// h] | null], doc: [w, h], view: [w, h], at: [x, y]}`.
fn boxes_script(selectors: &[&str]) -> String {
    // A JSON array is a JavaScript array literal.
    let list = serde_json::to_string(selectors).unwrap_or_else(|_| "[]".into());
    format!(
        "(() => {{ const sx = window.scrollX, sy = window.scrollY; \
         const boxes = {list}.map((s) => {{ try {{ const e = document.querySelector(s); if (!e) return null; \
         const r = e.getBoundingClientRect(); return [r.left + sx, r.top + sy, r.width, r.height]; }} catch (x) {{ return null; }} }}); \
         const d = document.documentElement; \
         return {{ boxes, doc: [Math.max(d.scrollWidth, d.clientWidth), Math.max(d.scrollHeight, d.clientHeight)], \
         view: [window.innerWidth, window.innerHeight], at: [sx, sy] }}; }})()"
    )
}

/// Takes the page's elements' pictures, naming each in its findings once
/// kept, and then its thumbnail (into `thumbnail`).
async fn shoot_in(
    held: &HeldTab,
    findings: &mut [Finding],
    budget: &ShotBudget,
    thumbnail: &mut Option<String>,
) -> Result<(), BrowserError> {
    let Some((conn, session, frame)) = held.session() else {
        return Ok(());
    };
    let t = held.call_timeout();
    // The distinct elements, in the findings' order.
    let mut selectors: Vec<String> = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for f in findings.iter().filter(|f| pictured(f)) {
        if listed.insert(f.selector.as_str()) {
            selectors.push(f.selector.clone());
        }
    }
    if selectors.len() > MAX_SHOTS_PER_PAGE {
        budget.miss(selectors.len() - MAX_SHOTS_PER_PAGE);
        selectors.truncate(MAX_SHOTS_PER_PAGE);
    }
    let context = conn
        .isolated_world(session, frame, "sitescan-screenshots", t)
        .await?;
    // A page that broke the script leaves no boxes to picture.
    let facts = match conn
        .evaluate(
            session,
            World::Isolated(context),
            &boxes_script(&selectors.iter().map(String::as_str).collect::<Vec<_>>()),
            Wait::Value,
            t,
        )
        .await
    {
        Err(BrowserError::Script(_)) => Value::Null,
        r => r?,
    };
    let pair = |v: Option<&Value>| -> Option<(f64, f64)> {
        let a = v?.as_array()?;
        Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?))
    };
    let doc = pair(facts.get("doc")).unwrap_or((0.0, 0.0));
    let home = pair(facts.get("at")).unwrap_or((0.0, 0.0));
    let mut scrolled = false;
    let view = pair(facts.get("view")).unwrap_or((0.0, 0.0));
    let boxes: Vec<Option<[f64; 4]>> = facts
        .get("boxes")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|b| {
                    let b = b.as_array()?;
                    let n = |i: usize| b.get(i).and_then(Value::as_f64);
                    Some([n(0)?, n(1)?, n(2)?, n(3)?])
                })
                .collect()
        })
        .unwrap_or_default();

    let started = tokio::time::Instant::now();
    for (selector, bx) in selectors.iter().zip(boxes) {
        let Some((b, plan)) = bx.and_then(|b| Some((b, Plan::new(b, doc)?))) else {
            // Not shown (no box, or outside the document): nothing to picture.
            continue;
        };
        if started.elapsed() >= ELEMENTS_TIME {
            // As a page whose pictures time out: not the scan's caps, so not
            // counted in their note.
            tracing::debug!(selector, "no time left for the page's element pictures");
            break;
        }
        if budget.full() {
            budget.miss(1);
            continue;
        }
        // In the viewport where it fits, scrolled to as a visitor would:
        // a picture of the document makes Chromium paint all of it (a
        // second and more on a long page), and shows what the page draws
        // only where it is scrolled to (scroll-linked styles) as it is at
        // the top.
        let mut shot = Shot::Document;
        if plan.clip[2] <= view.0 && plan.clip[3] <= view.1 {
            let placed = conn
                .evaluate(
                    session,
                    World::Isolated(context),
                    &place_script(selector, b, plan.clip, home),
                    Wait::Value,
                    t,
                )
                .await;
            match placed {
                Ok(v) => {
                    let moved = pair(Some(&v)).is_some_and(|at| at != home);
                    scrolled |= moved;
                    if v.get(2).and_then(Value::as_u64) == Some(1) {
                        shot = Shot::Viewport;
                    }
                }
                Err(BrowserError::Script(_)) => {}
                Err(e) => return Err(e),
            }
        }
        tracing::trace!(selector, clip = ?plan.clip, ?shot, "element picture");
        let png = capture(conn, session, plan.clip, Format::Png, 1.0, shot, t).await?;
        let Some(png) = highlight(&png, &plan) else {
            tracing::debug!(selector, "an element's picture could not be decoded");
            continue;
        };
        if let Some(id) = budget.admit("shot", "image/png", png) {
            for f in findings
                .iter_mut()
                .filter(|f| pictured(f) && f.selector == *selector)
            {
                f.screenshot = Some(id.clone());
            }
        }
    }
    if scrolled {
        // As it was judged: the thumbnail is its first screen as loaded
        // (fixed boxes and scroll-linked styles where they are at the top).
        let back = format!(
            "window.scrollTo({{ left: {}, top: {}, behavior: 'instant' }})",
            home.0, home.1
        );
        conn.evaluate(session, World::Isolated(context), &back, Wait::Value, t)
            .await?;
    }
    *thumbnail = shoot_thumbnail(conn, session, view, budget, t).await?;
    Ok(())
}

/// Scrolls the page so that `clip` (document coordinates, no larger than
/// the viewport) lies in the viewport, in its middle where it was not in
/// view, for the picture of the element `selector` whose box was `b`; and
/// tells whether the picture can be taken there: the element's box is where
/// it was in the document, the clip is in the viewport, and at the middle
/// and the corners of the element's box nothing is on top but the element,
/// its content or its ancestors (a fixed header or a sticky sidebar over it
/// is not). Otherwise the page goes back to `home`. Answers `[scroll x,
/// scroll y, 1 when the picture can be taken in the viewport, else 0]`.
fn place_script(selector: &str, b: [f64; 4], clip: [f64; 4], home: (f64, f64)) -> String {
    let selector = serde_json::to_string(selector).unwrap_or_else(|_| "\"\"".into());
    let [bx, by, bw, bh] = b;
    let [cx, cy, cw, ch] = clip;
    let (hx, hy) = home;
    format!(
        r#"(() => {{
  const d = document.documentElement;
  const vw = d.clientWidth, vh = d.clientHeight;
  const back = () => {{ window.scrollTo({{ left: {hx}, top: {hy}, behavior: 'instant' }}); return [window.scrollX, window.scrollY, 0]; }};
  let e = null;
  try {{ e = document.querySelector({selector}); }} catch (x) {{}}
  if (!e || {cw} > vw || {ch} > vh) return back();
  const mx = Math.max(0, d.scrollWidth - vw), my = Math.max(0, d.scrollHeight - vh);
  let x = window.scrollX, y = window.scrollY;
  if ({cx} < x || {cx} + {cw} > x + vw) x = Math.min(Math.max({cx}, 0), mx);
  if ({cy} < y || {cy} + {ch} > y + vh) y = Math.min(Math.max({cy} - (vh - {ch}) / 2, 0), my);
  if (x !== window.scrollX || y !== window.scrollY) window.scrollTo({{ left: x, top: y, behavior: 'instant' }});
  const sx = window.scrollX, sy = window.scrollY;
  const r = e.getBoundingClientRect();
  if (Math.abs(r.left + sx - {bx}) > 1 || Math.abs(r.top + sy - {by}) > 1 || Math.abs(r.width - {bw}) > 1 || Math.abs(r.height - {bh}) > 1) return back();
  if ({cx} < sx || {cy} < sy || {cx} + {cw} > sx + vw || {cy} + {ch} > sy + vh) return back();
  const l = Math.max(r.left, 0) + 1, t = Math.max(r.top, 0) + 1, rr = Math.min(r.right, vw) - 1, bb = Math.min(r.bottom, vh) - 1;
  for (const [px, py] of [[(l + rr) / 2, (t + bb) / 2], [l, t], [rr, t], [l, bb], [rr, bb]]) {{
    const h = document.elementFromPoint(px, py);
    if (!h || !(h === e || e.contains(h) || h.contains(e))) return back();
  }}
  return [sx, sy, 1];
}})()"#
    )
}

/// The page's first screen (`view`: the viewport's size), scaled down to a
/// thumbnail, when the scan's caps allow one.
async fn shoot_thumbnail(
    conn: &Connection,
    session: &str,
    view: (f64, f64),
    budget: &ShotBudget,
    t: Duration,
) -> Result<Option<String>, BrowserError> {
    if view.0 < 1.0 || view.1 < 1.0 {
        return Ok(None);
    }
    if budget.full() {
        budget.miss(1);
        return Ok(None);
    }
    // Whole pixels once scaled: the thumbnail is the first screen's size
    // divided by the scale, rounded down (the browser would round its own way).
    let whole = |v: f64| (v * THUMBNAIL_SCALE).floor() / THUMBNAIL_SCALE;
    let clip = [0.0, 0.0, whole(view.0), whole(view.1)];
    if clip[2] < 1.0 || clip[3] < 1.0 {
        return Ok(None);
    }
    let jpeg = capture(
        conn,
        session,
        clip,
        Format::Jpeg(THUMBNAIL_QUALITY),
        THUMBNAIL_SCALE,
        Shot::Document,
        t,
    )
    .await?;
    Ok(budget.admit("thumb", "image/jpeg", jpeg))
}

/// Where an element's picture is cut and where its highlight goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    /// `[x, y, width, height]` of the clip, whole CSS pixels of the document.
    pub(crate) clip: [f64; 4],
    /// `[left, top, right, bottom]` of the element's box in the clip, CSS
    /// pixels.
    pub(crate) element: [f64; 4],
}

impl Plan {
    /// The clip of box `b` (`[x, y, width, height]`, document coordinates)
    /// with [`MARGIN`] around it, inside a document of `doc` (width, height)
    /// and at most [`MAX_CLIP_WIDTH`] by [`MAX_CLIP_HEIGHT`]; `None` for a box
    /// with no area or outside the document.
    pub(crate) fn new(b: [f64; 4], doc: (f64, f64)) -> Option<Plan> {
        let [x, y, w, h] = b;
        if !b.iter().all(|v| v.is_finite()) || w <= 0.0 || h <= 0.0 {
            return None;
        }
        let x0 = (x - MARGIN).max(0.0).floor();
        let y0 = (y - MARGIN).max(0.0).floor();
        let x1 = (x + w + MARGIN).min(doc.0).ceil().min(x0 + MAX_CLIP_WIDTH);
        let y1 = (y + h + MARGIN).min(doc.1).ceil().min(y0 + MAX_CLIP_HEIGHT);
        if x1 - x0 < 1.0 || y1 - y0 < 1.0 {
            return None;
        }
        Some(Plan {
            clip: [x0, y0, x1 - x0, y1 - y0],
            element: [x - x0, y - y0, x + w - x0, y + h - y0],
        })
    }
}

/// Draws the highlight around the plan's element on `png` (the browser's
/// picture of the plan's clip) and encodes it again; `None` when the picture
/// cannot be read.
pub(crate) fn highlight(png: &[u8], plan: &Plan) -> Option<Vec<u8>> {
    let (mut pixels, info) = decode(png, MAX_DECODED_BYTES)?;
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        _ => return None,
    };
    let (width, height) = (info.width, info.height);
    // Image pixels per CSS pixel (the device scale).
    let scale = f64::from(width) / plan.clip[2].max(1.0);
    let px = |v: f64, most: u32| -> u32 { ((v * scale).round().max(0.0) as u32).min(most) };
    let [l, t, r, b] = plan.element;
    draw_ring(
        &mut pixels,
        (width, height, channels),
        [px(l, width), px(t, height), px(r, width), px(b, height)],
    );
    let mut out = Vec::with_capacity(png.len() + 1024);
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(info.color_type);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&pixels).ok()?;
        writer.finish().ok()?;
    }
    Some(out)
}

/// Colours a [`RING`]-wide frame around `element` (`[left, top, right,
/// bottom]`, image pixels): outside the box where the picture has room,
/// inside it at the picture's edges, so it always shows.
fn draw_ring(pixels: &mut [u8], (width, height, channels): (u32, u32, usize), element: [u32; 4]) {
    let [l, t, r, b] = element;
    let outer = [
        l.saturating_sub(RING),
        t.saturating_sub(RING),
        (r + RING).min(width),
        (b + RING).min(height),
    ];
    let inner = [
        outer[0] + RING,
        outer[1] + RING,
        outer[2].saturating_sub(RING),
        outer[3].saturating_sub(RING),
    ];
    for y in outer[1]..outer[3] {
        for x in outer[0]..outer[2] {
            if x >= inner[0] && x < inner[2] && y >= inner[1] && y < inner[3] {
                continue;
            }
            let at = (y as usize * width as usize + x as usize) * channels;
            if let Some(p) = pixels.get_mut(at..at + 3) {
                p.copy_from_slice(&HIGHLIGHT);
            }
            if channels == 4 {
                if let Some(a) = pixels.get_mut(at + 3) {
                    *a = 255;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clip_has_the_margin_and_stays_in_the_document() {
        let p = Plan::new([200.0, 150.0, 100.0, 50.0], (1280.0, 800.0)).unwrap();
        assert_eq!(p.clip, [184.0, 134.0, 132.0, 82.0]);
        assert_eq!(p.element, [16.0, 16.0, 116.0, 66.0]);
        // At the document's corner: no margin where there is no page.
        let p = Plan::new([0.0, 0.0, 50.0, 20.0], (60.0, 800.0)).unwrap();
        assert_eq!(p.clip, [0.0, 0.0, 60.0, 36.0]);
        // A huge box is shown from its top left, at most the cap.
        let p = Plan::new([10.0, 10.0, 5000.0, 9000.0], (6000.0, 9000.0)).unwrap();
        assert_eq!(p.clip, [0.0, 0.0, MAX_CLIP_WIDTH, MAX_CLIP_HEIGHT]);
        // No area, not finite, outside the document: no picture.
        assert!(Plan::new([10.0, 10.0, 0.0, 10.0], (100.0, 100.0)).is_none());
        assert!(Plan::new([f64::NAN, 10.0, 5.0, 10.0], (100.0, 100.0)).is_none());
        assert!(Plan::new([-500.0, 10.0, 50.0, 10.0], (100.0, 100.0)).is_none());
    }

    #[test]
    fn the_ring_goes_around_the_box_and_inside_at_the_edges() {
        let (w, h) = (20u32, 10u32);
        let mut px = vec![0u8; (w * h * 4) as usize];
        draw_ring(&mut px, (w, h, 4), [5, 0, 10, 10]);
        let at = |x: u32, y: u32| {
            let i = ((y * w + x) * 4) as usize;
            [px[i], px[i + 1], px[i + 2], px[i + 3]]
        };
        let ring = [HIGHLIGHT[0], HIGHLIGHT[1], HIGHLIGHT[2], 255];
        assert_eq!(at(2, 5), ring, "left of the box");
        assert_eq!(at(12, 5), ring, "right of the box");
        assert_eq!(at(7, 0), ring, "top edge: drawn inside");
        assert_eq!(at(7, 5), [0, 0, 0, 0], "the element itself");
        assert_eq!(at(1, 5), [0, 0, 0, 0], "beyond the ring");
        // Garbage is no picture, never a panic.
        let plan = Plan::new([0.0, 0.0, 5.0, 5.0], (10.0, 10.0)).unwrap();
        assert!(highlight(b"not a png", &plan).is_none());
    }

    #[test]
    fn the_budget_caps_count_and_bytes_and_says_so() {
        let b = ShotBudget::new(&ScreenshotOptions {
            enabled: true,
            max: 2,
            max_bytes: 10,
        });
        assert_eq!(b.note(), None);
        assert_eq!(
            b.admit("shot", "image/png", vec![0; 6]).as_deref(),
            Some("shot-1")
        );
        assert_eq!(
            b.admit("shot", "image/png", vec![0; 6]),
            None,
            "over the bytes"
        );
        assert_eq!(
            b.admit("thumb", "image/jpeg", vec![0; 4]).as_deref(),
            Some("thumb-2")
        );
        assert!(b.full());
        assert_eq!(
            b.admit("shot", "image/png", vec![0; 1]),
            None,
            "over the count"
        );
        assert!(b.note().unwrap().starts_with("screenshots: 2 failing"));
        let shots = b.take();
        assert_eq!(shots.shots.len(), 2);
        assert_eq!(shots.bytes(), 10);
    }
}
