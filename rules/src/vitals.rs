//! Lab Web Vitals of a rendered page (render mode only): what the browser
//! measured while it loaded the page ([`Page::vitals`](crate::Page::vitals)).
//!
//! The engine injects a `PerformanceObserver` script into every rendered page
//! before its own scripts run and reads what it observed once the page is
//! ready: paint timings (First Contentful Paint), `largest-contentful-paint`
//! entries with their element, `layout-shift` entries with the elements that
//! moved, `longtask` entries (Total Blocking Time), and `event` entries when
//! the keyboard walk pressed keys (Interaction to Next Paint). Requests and
//! bytes by resource type come from the engine's own request interception,
//! which fetches everything a rendered page loads.
//!
//! A static scan leaves [`crate::Page::vitals`] `None`, and the rules built on
//! it (`first-contentful-paint`, `largest-contentful-paint`,
//! `cumulative-layout-shift`, `total-blocking-time`) report nothing there.
//!
//! Thresholds are the Core Web Vitals ones ([`Metric::thresholds`]), so the
//! buckets match PageSpeed Insights, Lighthouse and CrUX.

use serde::{Deserialize, Serialize};

/// Most layout-shift sources kept per page.
pub const MAX_SHIFT_SOURCES: usize = 10;
/// Most resource types tallied per page.
pub const MAX_RESOURCE_TYPES: usize = 32;

/// One of the lab metrics the rules judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// First Contentful Paint, milliseconds.
    Fcp,
    /// Largest Contentful Paint, milliseconds.
    Lcp,
    /// Cumulative Layout Shift (unitless).
    Cls,
    /// Total Blocking Time, milliseconds.
    Tbt,
    /// Interaction to Next Paint, milliseconds.
    Inp,
    /// Time to first byte, milliseconds.
    Ttfb,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 6] = [
        Metric::Ttfb,
        Metric::Fcp,
        Metric::Lcp,
        Metric::Cls,
        Metric::Tbt,
        Metric::Inp,
    ];

    /// The upper bound of "good" and of "needs improvement" (above it:
    /// poor), as web.dev and Lighthouse publish them: FCP 1.8 s / 3 s, LCP
    /// 2.5 s / 4 s, CLS 0.1 / 0.25, TBT 200 ms / 600 ms, INP 200 ms / 500 ms,
    /// TTFB 800 ms / 1.8 s.
    pub fn thresholds(self) -> (f64, f64) {
        match self {
            Metric::Fcp => (1800.0, 3000.0),
            Metric::Lcp => (2500.0, 4000.0),
            Metric::Cls => (0.1, 0.25),
            Metric::Tbt => (200.0, 600.0),
            Metric::Inp => (200.0, 500.0),
            Metric::Ttfb => (800.0, 1800.0),
        }
    }

    /// The bucket `value` falls in.
    pub fn bucket(self, value: f64) -> Bucket {
        let (good, poor) = self.thresholds();
        if value <= good {
            Bucket::Good
        } else if value <= poor {
            Bucket::NeedsImprovement
        } else {
            Bucket::Poor
        }
    }

    /// The key of the metric in JSON (`lcp_ms`, `cls`...).
    pub fn key(self) -> &'static str {
        match self {
            Metric::Fcp => "fcp_ms",
            Metric::Lcp => "lcp_ms",
            Metric::Cls => "cls",
            Metric::Tbt => "tbt_ms",
            Metric::Inp => "inp_ms",
            Metric::Ttfb => "ttfb_ms",
        }
    }

    /// The metric's value on a page, if measured.
    pub fn of(self, v: &WebVitals) -> Option<f64> {
        match self {
            Metric::Fcp => v.fcp_ms,
            Metric::Lcp => v.lcp_ms,
            Metric::Cls => v.cls,
            Metric::Tbt => v.tbt_ms,
            Metric::Inp => v.inp_ms,
            Metric::Ttfb => v.ttfb_ms,
        }
    }

    /// Writes a value for a message: `2.61 s`, `0.183`, `340 ms`.
    pub fn format(self, value: f64) -> String {
        match self {
            Metric::Cls => format!("{value:.3}"),
            Metric::Fcp | Metric::Lcp if value >= 1000.0 => format!("{:.2} s", value / 1000.0),
            _ => format!("{value:.0} ms"),
        }
    }
}

/// Where a value stands against its metric's thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bucket {
    /// At or under the "good" threshold.
    Good,
    /// Over "good", at or under "poor".
    NeedsImprovement,
    /// Over the "poor" threshold.
    Poor,
}

impl Bucket {
    /// `good`, `needs-improvement` or `poor`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Good => "good",
            Bucket::NeedsImprovement => "needs-improvement",
            Bucket::Poor => "poor",
        }
    }
}

/// An element a metric names: by its render stamp when the page's facts were
/// taken (see [`crate::rendered`]), and always by a selector and a label the
/// browser computed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VitalElement {
    /// The element's render stamp ([`crate::rendered::STAMP_ATTR`]), when it
    /// had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamp: Option<u32>,
    /// A CSS selector for it, computed in the browser (ids and
    /// `:nth-child`, at most 512 characters).
    pub selector: String,
    /// A short name for messages: `img#hero.wide`.
    pub label: String,
}

/// One element that moved in the page's worst burst of layout shifts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShiftSource {
    /// The element that moved.
    pub element: VitalElement,
    /// The sum of the scores of the shifts it took part in (a shift with
    /// several sources counts for each).
    pub score: f64,
}

/// Most render-blocking resources kept per page.
pub const MAX_BLOCKING_RESOURCES: usize = 10;
/// Most blocking scripts kept per page.
pub const MAX_BLOCKING_SCRIPTS: usize = 10;

/// A resource that blocked the page's first render.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockingResource {
    /// Its URL (at most 512 characters).
    pub url: String,
    /// When it finished loading, milliseconds from the navigation.
    pub end_ms: f64,
}

/// A script that ran in the page's long animation frames.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockingScript {
    /// The script's URL (the page's own URL for an inline script; at most
    /// 512 characters).
    pub url: String,
    /// What ran it: `Window.onload`, `TimerHandler:setTimeout`,
    /// `BUTTON#buy.onclick`… (at most 128 characters).
    pub invoker: String,
    /// How long it ran, milliseconds, summed over the frames.
    pub ms: f64,
}

/// Requests and bytes of one resource type on one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTally {
    /// The DevTools protocol's resource type: `Document`, `Stylesheet`,
    /// `Script`, `Image`, `Font`, `Fetch`, `XHR`, `Media`, `Other`…
    #[serde(rename = "type")]
    pub kind: String,
    /// Requests the page made of this type (refused ones included).
    pub requests: u64,
    /// Body bytes the page was served for them (decoded).
    pub bytes: u64,
}

/// The lab metrics of one rendered page. Values absent when the browser did
/// not report them (no contentful paint, a page left before the metric was
/// final).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WebVitals {
    /// Time to first byte of the page's document as the crawler measured it
    /// (the browser is served that answer), milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_ms: Option<f64>,
    /// First Contentful Paint, milliseconds from the navigation (the
    /// crawler's time to first byte included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcp_ms: Option<f64>,
    /// Largest Contentful Paint, milliseconds from the navigation (time to
    /// first byte included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lcp_ms: Option<f64>,
    /// The element of the largest contentful paint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lcp_element: Option<VitalElement>,
    /// Cumulative Layout Shift: the largest session window of shifts not
    /// caused by input (1 s gap, 5 s window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cls: Option<f64>,
    /// The elements that moved in that window, most shifted first, at most
    /// [`MAX_SHIFT_SOURCES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cls_sources: Vec<ShiftSource>,
    /// What made them move, as far as the browser can tell: elements inserted,
    /// or images that finished loading, in the second before a shift of that
    /// window and above (before, in document order) the first element that
    /// moved. A late banner is named here, the content it pushed down in
    /// [`WebVitals::cls_sources`]. At most [`MAX_SHIFT_SOURCES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cls_causes: Vec<ShiftSource>,
    /// Total Blocking Time: the sum over long tasks that started after the
    /// first contentful paint of their time past 50 ms, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tbt_ms: Option<f64>,
    /// Long tasks (over 50 ms) counted in the Total Blocking Time.
    #[serde(default)]
    pub long_tasks: u32,
    /// Interaction to Next Paint, milliseconds: the slowest key press of the
    /// keyboard walk. Absent when no interaction was made (the walk runs
    /// only when a selected rule needs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inp_ms: Option<f64>,
    /// The element that had focus during that interaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inp_element: Option<VitalElement>,
    /// The resources that blocked the first render (the browser's
    /// `renderBlockingStatus`), slowest first, at most
    /// [`MAX_BLOCKING_RESOURCES`]: what to look at when FCP is slow.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub render_blocking: Vec<BlockingResource>,
    /// The scripts that ran in the long animation frames after the first
    /// contentful paint (the browser's Long Animation Frames attribution),
    /// longest first, at most [`MAX_BLOCKING_SCRIPTS`]: what to look at when
    /// TBT is high.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocking_scripts: Vec<BlockingScript>,
    /// Requests and bytes by resource type, most bytes first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceTally>,
    /// The throttling preset the page was loaded under (`none`, `mobile`,
    /// `desktop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<String>,
    /// The screen the page was laid out and judged on: the viewport given
    /// (`--viewport`), else the throttling preset's device, else 1280 × 720.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<LabViewport>,
    /// Why some metrics are missing, when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The emulated screen of a render ([`WebVitals::viewport`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LabViewport {
    /// Width, CSS pixels.
    pub width: u32,
    /// Height, CSS pixels.
    pub height: u32,
    /// Device pixels per CSS pixel.
    pub scale: f64,
    /// Whether a mobile device was emulated (the page's viewport `<meta>`
    /// applies).
    pub mobile: bool,
}

impl WebVitals {
    /// Requests of every type.
    pub fn requests(&self) -> u64 {
        self.resources.iter().map(|r| r.requests).sum()
    }

    /// Bytes of every type.
    pub fn bytes(&self) -> u64 {
        self.resources.iter().map(|r| r.bytes).sum()
    }
}

/// What the four Web Vitals rules share: judge `metric` on the page under
/// check and report it once. Nothing is recorded (the rule is inapplicable)
/// when the page has no vitals (a static scan) or the metric was not
/// measured. A good value passes; "needs improvement" fails with a moderate
/// impact, "poor" with a serious one. The finding sits on the first of
/// `elements` the rules' DOM has (by its render stamp), else on the page;
/// `blame` ends the message (naming what is responsible) and `extra` joins
/// the finding's data.
pub(crate) fn judge(
    cx: &mut crate::Check<'_, '_>,
    metric: Metric,
    name: &str,
    elements: &[&VitalElement],
    blame: &str,
    extra: serde_json::Value,
) {
    let page = cx.page();
    let el = elements
        .iter()
        .find_map(|e| e.stamp.and_then(|s| page.element_by_stamp(s)));
    judge_at(cx, metric, name, el, blame, extra);
}

/// [`judge`] with the element to report on found by the rule itself.
pub(crate) fn judge_at(
    cx: &mut crate::Check<'_, '_>,
    metric: Metric,
    name: &str,
    el: Option<scraper::ElementRef<'_>>,
    blame: &str,
    extra: serde_json::Value,
) {
    let Some(value) = cx.page().page().vitals.as_ref().and_then(|v| metric.of(v)) else {
        return;
    };
    if !value.is_finite() {
        return;
    }
    let bucket = metric.bucket(value);
    let (good, poor) = metric.thresholds();
    if bucket == Bucket::Good {
        match el {
            Some(el) => cx.pass_on(el),
            None => cx.pass(),
        }
        return;
    }
    let (limit, impact) = match bucket {
        Bucket::Poor => (poor, crate::Impact::Serious),
        _ => (good, crate::Impact::Moderate),
    };
    let message = format!(
        "{name} was {} ({}: over {}){blame}",
        metric.format(value),
        bucket.as_str().replace('-', " "),
        metric.format(limit),
    );
    let mut data = serde_json::json!({
        metric.key(): round3(value),
        "good": good,
        "poor": poor,
        "bucket": bucket.as_str(),
    });
    if let (Some(map), serde_json::Value::Object(more)) = (data.as_object_mut(), extra) {
        map.extend(more);
    }
    let finding = match el {
        Some(el) => cx.fail(el, message),
        None => cx.fail_page(message),
    };
    finding.with_data(data).impact = impact;
}

/// Rounds to three decimals (for data and reports: a CLS keeps its third
/// decimal, a time its microseconds).
pub fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Names elements for a message: `img#hero, div.banner and 2 more`.
pub(crate) fn labels(elements: &[&VitalElement], most: usize) -> String {
    let names: Vec<&str> = elements
        .iter()
        .take(most)
        .map(|e| e.label.as_str())
        .collect();
    let rest = elements.len().saturating_sub(most);
    match (names.split_last(), rest) {
        (None, _) => String::new(),
        (Some(_), r) if r > 0 => format!("{} and {r} more", names.join(", ")),
        (Some((last, [])), _) => (*last).to_string(),
        (Some((last, before)), _) => format!("{} and {last}", before.join(", ")),
    }
}

/// A rendered page for the rules' tests: `body` holds elements stamped by
/// hand (`data-sitescan-node="N"`, in document order from `<html>` at 0,
/// `<head>` 1, `<title>` 2, `<body>` 3), facts are present for `elements`
/// stamps, and the page's vitals are `vitals`.
#[cfg(test)]
pub(crate) fn rendered_page(body: &str, elements: usize, vitals: WebVitals) -> crate::Page {
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\" data-sitescan-node=\"0\"><head data-sitescan-node=\"1\"><title data-sitescan-node=\"2\">Test</title></head><body data-sitescan-node=\"3\">{body}</body></html>"
    );
    let mut page = crate::Page::from_html("https://example.com/", &html);
    page.rendered = Some(std::sync::Arc::new(crate::rendered::RenderedFacts {
        elements: vec![Some(crate::rendered::ElementFacts::default()); elements],
        ..Default::default()
    }));
    page.vitals = Some(vitals);
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_published_thresholds() {
        assert_eq!(Metric::Lcp.bucket(2500.0), Bucket::Good);
        assert_eq!(Metric::Lcp.bucket(2501.0), Bucket::NeedsImprovement);
        assert_eq!(Metric::Lcp.bucket(4000.0), Bucket::NeedsImprovement);
        assert_eq!(Metric::Lcp.bucket(4001.0), Bucket::Poor);
        assert_eq!(Metric::Cls.bucket(0.1), Bucket::Good);
        assert_eq!(Metric::Cls.bucket(0.2), Bucket::NeedsImprovement);
        assert_eq!(Metric::Cls.bucket(0.26), Bucket::Poor);
        assert_eq!(Metric::Tbt.bucket(601.0), Bucket::Poor);
        assert_eq!(Metric::Fcp.bucket(1800.0), Bucket::Good);
        assert_eq!(Metric::Fcp.format(2612.0), "2.61 s");
        assert_eq!(Metric::Cls.format(0.18349), "0.183");
        assert_eq!(Metric::Tbt.format(340.4), "340 ms");
    }

    #[test]
    fn vitals_round_trip_through_json() {
        let v = WebVitals {
            fcp_ms: Some(120.0),
            lcp_ms: Some(1600.0),
            lcp_element: Some(VitalElement {
                stamp: Some(7),
                selector: "#hero".into(),
                label: "img#hero".into(),
            }),
            cls: Some(0.0),
            resources: vec![ResourceTally {
                kind: "Image".into(),
                requests: 2,
                bytes: 2048,
            }],
            ..WebVitals::default()
        };
        let json = serde_json::to_string(&v).unwrap();
        assert!(json.contains(r#""type":"Image""#));
        let back: WebVitals = serde_json::from_str(&json).unwrap();
        assert_eq!(back, v);
        assert_eq!(back.requests(), 2);
        assert_eq!(back.bytes(), 2048);
    }
}
