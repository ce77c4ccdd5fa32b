//! Lab Web Vitals of a rendered page ([`sitescan_rules::vitals`]): what the
//! browser measured while it loaded the page, and the throttling it loaded it
//! under.
//!
//! **How they are collected.** Every tab gets an observer script
//! (`vitals.js`) that runs in each document before the page's own scripts
//! (`Page.addScriptToEvaluateOnNewDocument`), in an isolated world: the
//! page's scripts share its DOM but not its globals, so they can neither read
//! nor rewrite the record. It registers `PerformanceObserver`s for paint
//! timings, `largest-contentful-paint`, `layout-shift`, `longtask`,
//! `long-animation-frame` and `event` entries, and notes elements inserted and
//! images loaded after the first paint (the candidates for what made a later
//! shift). Once the page is ready and stamped ([`super::facts`]), one
//! evaluation in the same world (`vitals_collect.js`) turns the record into
//! the metrics: FCP, LCP and its element, CLS as the worst session window
//! with the elements that moved and what moved them, TBT from the long tasks
//! after FCP, the render-blocking resources and the scripts of the long
//! frames; after a keyboard walk, INP from its key presses ([`collect_inp`]).
//! Requests and bytes by resource type come from our own interception
//! ([`super::intercept`]), which fetches every request of the page.
//!
//! No trace is recorded: a trace is megabytes per page, the observers are a
//! few kilobytes and cost the page nearly nothing, so the metrics are
//! collected on every rendered page.
//!
//! **Time origin.** The browser is served the document the crawler already
//! fetched ([`super::intercept`]), so its own time to first byte is near zero.
//! FCP and LCP are reported from the navigation as a browser fetching the page
//! itself would see them: the crawler's measured time to first byte plus the
//! browser's time from its first byte ([`finish`]).
//!
//! **Throttling** ([`Throttle`]): *applied* throttling, as Lighthouse's
//! `devtools` mode (not its default simulated mode, which loads the page
//! unthrottled and models a slow device afterwards): the CPU is slowed with
//! `Emulation.setCPUThrottlingRate`, the mobile preset emulates a phone's
//! viewport (unless one is given: [`DeviceMetrics::of`]), and the network is slowed by the interceptor, which holds each
//! response it fulfils for the preset's round trip and transfer time (the
//! browser's own `Network.emulateNetworkConditions` is set too, but responses
//! fulfilled through the `Fetch` domain never reach the network stack it
//! throttles).
//!
//! **Bounds.** Every list the page script keeps is capped (500 entries per
//! kind, 200 recent insertions), the answer is one protocol message under the
//! connection's cap, and the parse here keeps at most
//! [`MAX_SHIFT_SOURCES`](sitescan_rules::vitals::MAX_SHIFT_SOURCES) elements per
//! list, strings cut to their documented lengths, and only finite numbers.

use std::time::Duration;

use serde_json::{json, Value};
use sitescan_rules::vitals::{
    BlockingResource, BlockingScript, ShiftSource, VitalElement, WebVitals, MAX_BLOCKING_RESOURCES,
    MAX_BLOCKING_SCRIPTS, MAX_SHIFT_SOURCES,
};

use super::cdp::{Connection, Wait, World};
use super::BrowserError;
use crate::config::{RenderOptions, Throttle, ViewportSize, DEFAULT_VIEWPORT};

/// The isolated world the observer runs and is read in.
pub const WORLD: &str = "sitescan-vitals";

/// The observer, injected before each document's scripts.
pub const OBSERVER: &str = include_str!("vitals.js");

/// The read-out, evaluated once the page is ready.
const COLLECT: &str = include_str!("vitals_collect.js");

/// What a throttling preset applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// Round trip added to every response, milliseconds.
    pub latency_ms: u64,
    /// Download throughput, bytes per second.
    pub download_bps: u64,
    /// Upload throughput, bytes per second.
    pub upload_bps: u64,
    /// CPU slowdown factor (1: none).
    pub cpu_rate: f64,
    /// The viewport the preset emulates unless one is given
    /// ([`RenderOptions::viewport`]).
    pub viewport: DeviceMetrics,
}

/// The device a tab is emulated as (`Emulation.setDeviceMetricsOverride`):
/// set when the tab is prepared ([`prepare_tab`]) and set again whenever
/// something changed it for a while (the narrow layouts of
/// [`super::reflow`]), so every phase of every page in the tab sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceMetrics {
    /// Width, CSS pixels.
    pub width: u32,
    /// Height, CSS pixels.
    pub height: u32,
    /// Device pixels per CSS pixel.
    pub scale: f64,
    /// A mobile device (the page's viewport `<meta>` applies, overlay
    /// scrollbars).
    pub mobile: bool,
}

impl DeviceMetrics {
    /// The device of a render under `options`. Precedence: the viewport
    /// given (`--viewport`, at scale 1, not mobile), else the throttling
    /// preset's (a phone for `mobile`, 1350 × 940 for `desktop`), else
    /// [`DEFAULT_VIEWPORT`] (1280 × 720, scale 1, not mobile).
    pub fn of(options: &RenderOptions) -> DeviceMetrics {
        let desktop = |v: ViewportSize| DeviceMetrics {
            width: v.width,
            height: v.height,
            scale: 1.0,
            mobile: false,
        };
        match (options.viewport, preset(options.throttle)) {
            (Some(v), _) => desktop(v),
            (None, Some(p)) => p.viewport,
            (None, None) => desktop(DEFAULT_VIEWPORT),
        }
    }

    /// Emulates this device in the tab `session`.
    pub async fn apply(
        &self,
        conn: &Connection,
        session: &str,
        timeout: Duration,
    ) -> Result<(), BrowserError> {
        conn.call(
            Some(session),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": self.width, "height": self.height,
                   "deviceScaleFactor": self.scale, "mobile": self.mobile}),
            timeout,
        )
        .await
        .map(drop)
    }
}

/// The preset of `throttle`; `None` for [`Throttle::None`]. The numbers are
/// Lighthouse's devtools-mode presets: "slow 4G" on a mid-range phone (562.5
/// ms request latency, 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up, 4× CPU,
/// a 412 × 823 viewport at 1.75×) and its desktop preset (40 ms, 10 Mbit/s,
/// no CPU slowdown, 1350 × 940).
pub fn preset(throttle: Throttle) -> Option<Preset> {
    match throttle {
        Throttle::None => None,
        Throttle::Mobile => Some(Preset {
            latency_ms: 563,
            download_bps: 1_638_400 * 9 / 10 / 8,
            upload_bps: 750_000 * 9 / 10 / 8,
            cpu_rate: 4.0,
            viewport: DeviceMetrics {
                width: 412,
                height: 823,
                scale: 1.75,
                mobile: true,
            },
        }),
        Throttle::Desktop => Some(Preset {
            latency_ms: 40,
            download_bps: 10_240_000 / 8,
            upload_bps: 10_240_000 / 8,
            cpu_rate: 1.0,
            viewport: DeviceMetrics {
                width: 1350,
                height: 940,
                scale: 1.0,
                mobile: false,
            },
        }),
    }
}

impl Preset {
    /// How long a response of `bytes` is held before the page gets it.
    pub fn delay(&self, bytes: u64) -> Duration {
        let transfer_ms = bytes.saturating_mul(1000) / self.download_bps.max(1);
        Duration::from_millis(self.latency_ms.saturating_add(transfer_ms))
    }
}

/// Readies a new tab: the observer registered for every document it loads,
/// its device emulated (`device`, [`DeviceMetrics::of`] the render's
/// options) and the throttling preset applied.
pub async fn prepare_tab(
    conn: &Connection,
    session: &str,
    throttle: Throttle,
    device: DeviceMetrics,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let s = Some(session);
    conn.call(
        s,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": OBSERVER, "worldName": WORLD}),
        timeout,
    )
    .await?;
    // Always set: the headless window's own 800 × 600 (780 × 493 inside)
    // is a phone-sized layout on many sites.
    device.apply(conn, session, timeout).await?;
    let Some(p) = preset(throttle) else {
        return Ok(());
    };
    conn.call(
        s,
        "Emulation.setCPUThrottlingRate",
        json!({"rate": p.cpu_rate}),
        timeout,
    )
    .await?;
    // Throttles what the browser fetches itself; what the interceptor
    // fulfils is held by the interceptor (see the module docs).
    let network = conn
        .call(
            s,
            "Network.emulateNetworkConditions",
            json!({
                "offline": false,
                "latency": p.latency_ms,
                "downloadThroughput": p.download_bps,
                "uploadThroughput": p.upload_bps,
            }),
            timeout,
        )
        .await;
    if let Err(e) = network {
        tracing::debug!(error = %e, "Network.emulateNetworkConditions was refused");
    }
    Ok(())
}

/// Evaluates `expr` in the observer's world of the tab's main frame.
async fn eval_in_world(
    conn: &Connection,
    session: &str,
    frame: &str,
    expr: &str,
    timeout: Duration,
) -> Result<Value, BrowserError> {
    // Names the world the observer was injected in: the protocol answers with
    // that world's context in the frame's current document.
    let context = conn.isolated_world(session, frame, WORLD, timeout).await?;
    conn.evaluate(
        session,
        World::Isolated(context),
        expr,
        Wait::Value,
        timeout,
    )
    .await
}

/// Marks the end of the page's own load, just before the engine's work on
/// it (stamping, snapshot, serializing): long tasks, frames and shifts from
/// then on are the engine's and are left out. A failure is logged; the
/// read-out then counts up to its own call.
pub async fn mark(conn: &Connection, session: &str, frame: &str, timeout: Duration) {
    let expr = "(() => { const S = globalThis.__sitescanVitals; if (S) S.cutoff = performance.now(); return true; })()";
    if let Err(e) = eval_in_world(conn, session, frame, expr, timeout).await {
        tracing::debug!(error = %e, "the end of the page's load could not be marked");
    }
}

/// Reads the page's metrics (after the render stamps are on its elements,
/// so the elements named carry them). A failure leaves the metrics absent
/// with a note, never fails the render.
pub async fn collect(
    conn: &Connection,
    session: &str,
    frame: &str,
    throttle: Throttle,
    timeout: Duration,
) -> WebVitals {
    let mut vitals = match eval_in_world(conn, session, frame, COLLECT, timeout).await {
        Ok(Value::Null) => WebVitals {
            note: Some("the page's metrics were not recorded".into()),
            ..WebVitals::default()
        },
        Ok(v) => {
            // The browser's own clock, from its navigation start: what it
            // spent before our answer reached it, parsing, and painting.
            tracing::debug!(
                response_start_ms = number(&v, "response_start"),
                dom_interactive_ms = number(&v, "dom_interactive"),
                fcp_ms = number(&v, "fcp"),
                lcp_ms = number(&v, "lcp"),
                "the browser's timings of the page"
            );
            parse(&v)
        }
        Err(e) => {
            tracing::debug!(error = %e, "web vitals could not be read");
            WebVitals {
                note: Some(format!("the page's metrics could not be read: {e}")),
                ..WebVitals::default()
            }
        }
    };
    vitals.throttle = Some(throttle.as_str().to_string());
    vitals
}

/// After a keyboard walk: Interaction to Next Paint from its key presses.
pub async fn collect_inp(
    conn: &Connection,
    session: &str,
    frame: &str,
    vitals: &mut WebVitals,
    timeout: Duration,
) {
    match eval_in_world(conn, session, frame, COLLECT, timeout).await {
        Ok(v) => {
            vitals.inp_ms = number(&v, "inp").map(|ms| ms.max(0.0));
            vitals.inp_element = v.get("inp_element").and_then(element);
        }
        Err(e) => tracing::debug!(error = %e, "INP could not be read"),
    }
}

/// Puts the crawler's time to first byte into the page's metrics: FCP and
/// LCP become times from a navigation that fetched the document itself
/// (see the module docs). Unthrottled, the browser's own first byte (its
/// wait for our answer) is taken out; throttled, it is the preset's latency
/// and transfer time and stays in, on top of the server's real TTFB.
pub fn finish(vitals: &mut WebVitals, ttfb_ms: u64) {
    let throttled = vitals.throttle.as_deref().is_some_and(|t| t != "none");
    let browser_first_byte_ms = if throttled {
        0.0
    } else {
        vitals.ttfb_ms.unwrap_or(0.0)
    };
    let ttfb = ttfb_ms as f64;
    vitals.ttfb_ms = Some(ttfb);
    let shift = |t: Option<f64>| t.map(|t| (t - browser_first_byte_ms).max(0.0) + ttfb);
    vitals.fcp_ms = shift(vitals.fcp_ms);
    vitals.lcp_ms = shift(vitals.lcp_ms);
    for r in &mut vitals.render_blocking {
        r.end_ms = (r.end_ms - browser_first_byte_ms).max(0.0) + ttfb;
    }
}

/// A finite number at `key`.
fn number(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64).filter(|n| n.is_finite())
}

/// A string at `key`, cut to `max` characters.
fn text(v: &Value, key: &str, max: usize) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .chars()
        .take(max)
        .collect()
}

fn element(v: &Value) -> Option<VitalElement> {
    if !v.is_object() {
        return None;
    }
    Some(VitalElement {
        stamp: v
            .get("stamp")
            .and_then(Value::as_u64)
            .and_then(|s| u32::try_from(s).ok()),
        selector: text(v, "selector", 512),
        label: text(v, "label", 80),
    })
}

fn shifts(v: Option<&Value>) -> Vec<ShiftSource> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(MAX_SHIFT_SOURCES)
        .filter_map(|s| {
            Some(ShiftSource {
                element: element(s.get("element")?)?,
                score: number(s, "score")?.max(0.0),
            })
        })
        .collect()
}

/// Parses the read-out (its browser-side times; [`finish`] moves FCP and LCP
/// to the navigation's origin). The browser's first byte is kept in
/// `ttfb_ms` until then.
pub fn parse(v: &Value) -> WebVitals {
    let non_negative = |key| number(v, key).map(|n: f64| n.max(0.0));
    WebVitals {
        // Until `finish`: the browser's own first byte.
        ttfb_ms: non_negative("response_start"),
        fcp_ms: non_negative("fcp"),
        lcp_ms: non_negative("lcp"),
        lcp_element: v.get("lcp_element").and_then(element),
        cls: non_negative("cls"),
        cls_sources: shifts(v.get("cls_sources")),
        cls_causes: shifts(v.get("cls_causes")),
        tbt_ms: non_negative("tbt"),
        long_tasks: v
            .get("long_tasks")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
        inp_ms: None,
        inp_element: None,
        render_blocking: v
            .get("render_blocking")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .take(MAX_BLOCKING_RESOURCES)
            .filter_map(|r| {
                Some(BlockingResource {
                    url: text(r, "url", 512),
                    end_ms: number(r, "end_ms")?.max(0.0),
                })
            })
            .collect(),
        blocking_scripts: v
            .get("blocking_scripts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .take(MAX_BLOCKING_SCRIPTS)
            .filter_map(|s| {
                Some(BlockingScript {
                    url: text(s, "url", 512),
                    invoker: text(s, "invoker", 128),
                    ms: number(s, "ms")?.max(0.0),
                })
            })
            .collect(),
        resources: Vec::new(),
        throttle: None,
        viewport: None,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_viewport_wins_over_the_presets_and_the_default_is_a_desktop() {
        let of = |throttle, viewport| {
            DeviceMetrics::of(&RenderOptions {
                throttle,
                viewport,
                ..RenderOptions::default()
            })
        };
        let desktop = |width, height| DeviceMetrics {
            width,
            height,
            scale: 1.0,
            mobile: false,
        };
        assert_eq!(of(Throttle::None, None), desktop(1280, 720));
        assert_eq!(
            of(Throttle::Mobile, None),
            DeviceMetrics {
                width: 412,
                height: 823,
                scale: 1.75,
                mobile: true
            }
        );
        assert_eq!(of(Throttle::Desktop, None), desktop(1350, 940));
        let given = Some(ViewportSize {
            width: 800,
            height: 600,
        });
        for t in [Throttle::None, Throttle::Mobile, Throttle::Desktop] {
            assert_eq!(of(t, given), desktop(800, 600), "{t}");
        }
    }

    #[test]
    fn the_read_out_is_parsed_defensively_and_moved_to_the_navigation() {
        let raw = json!({
            "response_start": 2.0,
            "fcp": 52.0,
            "lcp": 1602.0,
            "lcp_element": {"stamp": 12, "selector": "#hero", "label": "img#hero"},
            "cls": 0.31,
            "cls_sources": [
                {"element": {"stamp": 20, "selector": "main", "label": "main"}, "score": 0.31},
                {"element": "not an element", "score": 1},
                {"element": {"stamp": -4, "selector": "p", "label": "p"}, "score": "NaN"}
            ],
            "cls_causes": [{"element": {"stamp": null, "selector": "div", "label": "x".repeat(200)}, "score": 0.31}],
            "tbt": -3,
            "long_tasks": 1e12,
            "render_blocking": [{"url": "http://a/s.css", "end_ms": 40.0}],
        });
        let mut v = parse(&raw);
        assert_eq!(v.lcp_element.as_ref().unwrap().stamp, Some(12));
        assert_eq!(v.cls_sources.len(), 1);
        assert_eq!(v.cls_causes[0].element.label.len(), 80);
        assert_eq!(v.cls_causes[0].element.stamp, None);
        assert_eq!(v.tbt_ms, Some(0.0));
        assert_eq!(v.long_tasks, 0);
        finish(&mut v, 100);
        assert_eq!(v.ttfb_ms, Some(100.0));
        assert_eq!(v.fcp_ms, Some(150.0));
        assert_eq!(v.lcp_ms, Some(1700.0));
        assert_eq!(v.render_blocking[0].end_ms, 138.0);
        assert_eq!(parse(&json!("junk")), WebVitals::default());
    }

    #[test]
    fn presets_hold_responses_for_latency_and_transfer() {
        assert!(preset(Throttle::None).is_none());
        let mobile = preset(Throttle::Mobile).unwrap();
        assert_eq!(mobile.delay(0), Duration::from_millis(563));
        // 184,320 bytes a second: 184,320 bytes take one more second.
        assert_eq!(mobile.delay(184_320), Duration::from_millis(1563));
        assert_eq!(preset(Throttle::Desktop).unwrap().cpu_rate, 1.0);
    }
}
