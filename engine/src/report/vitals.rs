//! The site's lab Web Vitals in the report summary (render mode): per metric
//! the 75th percentile over the pages measured, as CrUX reports field data,
//! with the count of pages in each bucket, and the slowest pages.
//!
//! In JSON it is `summary.performance.web_vitals`:
//!
//! ```json
//! {"pages": 12, "throttle": "none",
//!  "metrics": {"lcp_ms": {"p75": 2140.0, "bucket": "good", "pages": 12,
//!                         "good": 10, "needs_improvement": 1, "poor": 1}, ...},
//!  "slowest": [{"url": "...", "lcp_ms": 4810.0, "fcp_ms": 900.0, "cls": 0.02,
//!               "tbt_ms": 0.0, "lcp_element": "#hero"}]}
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sitescan_rules::vitals::{round3, Bucket, Metric};

use sitescan_rules::vitals::WebVitals;

/// Most pages listed in [`VitalsSummary::slowest`].
pub const MAX_SLOWEST: usize = 10;

/// The site's lab Web Vitals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VitalsSummary {
    /// Pages with metrics.
    pub pages: u64,
    /// The throttling preset the pages were loaded under.
    pub throttle: String,
    /// Per metric key (`ttfb_ms`, `fcp_ms`, `lcp_ms`, `cls`, `tbt_ms`,
    /// `inp_ms`): its p75 and buckets; a metric no page measured is absent.
    pub metrics: BTreeMap<String, MetricSummary>,
    /// The pages with the slowest Largest Contentful Paint (else First
    /// Contentful Paint), slowest first, at most [`MAX_SLOWEST`].
    pub slowest: Vec<SlowPage>,
}

/// One metric over the site.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    /// The 75th percentile over the pages (nearest rank).
    pub p75: f64,
    /// The bucket of the p75 (`good`, `needs-improvement`, `poor`).
    pub bucket: Option<Bucket>,
    /// Pages that measured it.
    pub pages: u64,
    /// Pages in the good bucket.
    pub good: u64,
    /// Pages that need improvement.
    pub needs_improvement: u64,
    /// Pages in the poor bucket.
    pub poor: u64,
}

/// One of the slowest pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SlowPage {
    /// The page (final URL).
    pub url: String,
    /// Its Largest Contentful Paint, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lcp_ms: Option<f64>,
    /// Its First Contentful Paint, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fcp_ms: Option<f64>,
    /// Its Cumulative Layout Shift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cls: Option<f64>,
    /// Its Total Blocking Time, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tbt_ms: Option<f64>,
    /// The selector of its LCP element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lcp_element: Option<String>,
}

/// The 75th percentile of `values` by nearest rank (`None` when empty).
pub fn p75(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (values.len() * 3).div_ceil(4);
    values.get(rank.saturating_sub(1)).copied()
}

/// The summary over the measured pages, each given by its final URL and its
/// metrics; `None` when no page has metrics (a static scan).
pub fn summarize<'a>(
    pages: impl IntoIterator<Item = (&'a str, &'a WebVitals)>,
) -> Option<VitalsSummary> {
    let measured: Vec<(&str, &WebVitals)> = pages
        .into_iter()
        .filter(|(_, v)| v.note.is_none())
        .collect();
    if measured.is_empty() {
        return None;
    }
    let mut metrics = BTreeMap::new();
    for metric in Metric::ALL {
        let mut values: Vec<f64> = measured
            .iter()
            .filter_map(|(_, v)| metric.of(v))
            .filter(|x| x.is_finite())
            .collect();
        let mut summary = MetricSummary {
            pages: values.len() as u64,
            ..MetricSummary::default()
        };
        for x in &values {
            match metric.bucket(*x) {
                Bucket::Good => summary.good += 1,
                Bucket::NeedsImprovement => summary.needs_improvement += 1,
                Bucket::Poor => summary.poor += 1,
            }
        }
        let Some(p) = p75(&mut values) else {
            continue;
        };
        summary.p75 = round3(p);
        summary.bucket = Some(metric.bucket(p));
        metrics.insert(metric.key().to_string(), summary);
    }
    let mut slowest: Vec<SlowPage> = measured
        .iter()
        .map(|(p, v)| SlowPage {
            url: p.to_string(),
            lcp_ms: v.lcp_ms.map(round3),
            fcp_ms: v.fcp_ms.map(round3),
            cls: v.cls.map(round3),
            tbt_ms: v.tbt_ms.map(round3),
            lcp_element: v.lcp_element.as_ref().map(|e| e.selector.clone()),
        })
        .collect();
    let key = |s: &SlowPage| s.lcp_ms.or(s.fcp_ms).unwrap_or(0.0);
    slowest.sort_by(|a, b| key(b).total_cmp(&key(a)).then_with(|| a.url.cmp(&b.url)));
    slowest.truncate(MAX_SLOWEST);
    Some(VitalsSummary {
        pages: measured.len() as u64,
        throttle: measured
            .first()
            .and_then(|(_, v)| v.throttle.clone())
            .unwrap_or_else(|| "none".into()),
        metrics,
        slowest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &'static str, lcp: f64, cls: f64) -> (&'static str, WebVitals) {
        (
            url,
            WebVitals {
                lcp_ms: Some(lcp),
                fcp_ms: Some(lcp / 2.0),
                cls: Some(cls),
                throttle: Some("none".into()),
                ..WebVitals::default()
            },
        )
    }

    #[test]
    fn p75_is_the_nearest_rank() {
        assert_eq!(p75(&mut []), None);
        assert_eq!(p75(&mut [5.0]), Some(5.0));
        assert_eq!(p75(&mut [4.0, 1.0, 3.0, 2.0]), Some(3.0));
        assert_eq!(p75(&mut [1.0, 2.0, 3.0, 4.0, 5.0]), Some(4.0));
    }

    #[test]
    fn the_site_gets_p75s_buckets_and_its_slowest_pages() {
        let pages = [
            page("http://a/1", 1000.0, 0.0),
            page("http://a/2", 2000.0, 0.05),
            page("http://a/3", 3000.0, 0.3),
            page("http://a/4", 5000.0, 0.0),
        ];
        let s = summarize(pages.iter().map(|(u, v)| (*u, v))).unwrap();
        assert_eq!(s.pages, 4);
        let lcp = &s.metrics["lcp_ms"];
        assert_eq!(lcp.p75, 3000.0);
        assert_eq!(lcp.bucket, Some(Bucket::NeedsImprovement));
        assert_eq!((lcp.good, lcp.needs_improvement, lcp.poor), (2, 1, 1));
        assert_eq!(s.metrics["cls"].poor, 1);
        assert!(!s.metrics.contains_key("inp_ms"));
        assert_eq!(s.slowest[0].url, "http://a/4");
        assert_eq!(s.slowest.len(), 4);
        assert!(summarize(std::iter::empty()).is_none());
    }
}
