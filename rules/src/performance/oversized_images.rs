//! `oversized-images`: images are not heavier or larger than they are shown.

use crate::resources::bytes;
use crate::support::{base_url, select, selector};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Fails `<img>` whose file is over [`MAX_IMAGE_BYTES`], or whose intrinsic size
/// is so much larger than its declared `width`/`height` that at least
/// [`MIN_WASTED_BYTES`] would be saved by serving it at the displayed size.
pub struct OversizedImages;

/// Heaviest image that passes: 500,000 bytes (seonaut's "large image" issue).
pub const MAX_IMAGE_BYTES: u64 = 500_000;

/// Device pixel ratio the displayed size is allowed for: an image may be twice
/// as wide and twice as high as declared (for 2× screens) without waste.
pub const DEVICE_PIXEL_RATIO: u64 = 2;

/// Smallest estimated waste reported (Lighthouse's `uses-responsive-images`
/// ignores less than 4 KiB).
pub const MIN_WASTED_BYTES: u64 = 4096;

static META: RuleMeta = RuleMeta {
    id: "oversized-images",
    category: Category::Performance,
    title: "Images are not oversized",
    help: "Compress large images and serve them at the size they are displayed (use srcset and sizes for different screens).",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/uses-responsive-images",
    impact: Impact::Moderate,
    needs: &[Need::Subresources],
    docs: r#"## What it checks
For each `<img src>` whose file the engine fetched (once per scan; 2xx answers):

- **Heavy:** the transfer size is over 500,000 bytes (seonaut's "large image").
- **Larger than displayed:** the intrinsic size (read from the file's first bytes)
  against the size the `<img>` declares with its `width` and `height`
  attributes (one of them is enough: the other follows the image's aspect
  ratio). Allowing for screens of device pixel ratio 2, the displayed pixels are
  `(2 × width) × (2 × height)`; the share of the file's pixels beyond that, times
  its bytes, estimates the waste, as Lighthouse's `uses-responsive-images` does,
  and a waste of 4 KiB or more fails. Images with `srcset` (the browser picks a
  candidate), without declared dimensions (CSS layout needs a browser), and SVG
  (vector) are not judged on dimensions.

One finding per `<img>`, naming both problems when both apply.

## Why it matters
An image twice as wide as shown carries four times the pixels it needs; a photo of
several megabytes can take longer to load than the rest of the page together.

## Failing
```html
<!-- /team.jpg is 2000 × 1500 px and 480 KB -->
<img src="/team.jpg" alt="Our team" width="100" height="75">
```

## Passing
```html
<!-- /team-200.jpg is 200 × 150 px and 14 KB -->
<img src="/team-200.jpg" alt="Our team" width="100" height="75">
```
"#,
    ..RuleMeta::BASE
};

/// A dimension attribute in CSS pixels (`640`, `640px`); percentages and junk
/// are not a declared size.
fn pixels(v: Option<&str>) -> Option<u64> {
    let v = v?.trim();
    let n: f64 = v.strip_suffix("px").unwrap_or(v).trim().parse().ok()?;
    (n.is_finite() && n >= 1.0).then(|| n.round() as u64)
}

impl Rule for OversizedImages {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if page.subresources.is_empty() {
            return;
        }
        let base = base_url(pcx);
        for img in select(pcx, selector!("img[src]")) {
            let v = img.value();
            let Some(url) = v.attr("src").and_then(|s| crate::links::resolve(&base, s)) else {
                continue;
            };
            let Some(sub) = page.subresource(url.as_str()) else {
                continue;
            };
            let f = &sub.facts;
            if !f.is_ok() {
                continue;
            }
            let size = f.transfer_bytes.unwrap_or(0);
            let mut problems = Vec::new();
            let mut data = serde_json::json!({"url": sub.url, "bytes": size});
            if size > MAX_IMAGE_BYTES {
                problems.push(format!(
                    "weighs {} bytes, more than {}",
                    bytes(size),
                    bytes(MAX_IMAGE_BYTES)
                ));
            }
            let svg = f.content_type.as_deref() == Some("image/svg+xml");
            let (dw, dh) = (pixels(v.attr("width")), pixels(v.attr("height")));
            if let (Some(dims), false, false) = (f.image, svg, v.attr("srcset").is_some()) {
                let (w, h) = (u64::from(dims.width), u64::from(dims.height));
                let shown = match (dw, dh) {
                    (Some(dw), Some(dh)) => Some((dw, dh)),
                    (Some(dw), None) if w > 0 => Some((dw, (dw * h).div_ceil(w))),
                    (None, Some(dh)) if h > 0 => Some(((dh * w).div_ceil(h), dh)),
                    _ => None,
                };
                if let Some((sw, sh)) = shown.filter(|_| w > 0 && h > 0) {
                    let needed =
                        (sw * DEVICE_PIXEL_RATIO).min(w) * (sh * DEVICE_PIXEL_RATIO).min(h);
                    let actual = w * h;
                    let wasted = size as u128 * u128::from(actual - needed) / u128::from(actual);
                    let wasted = wasted as u64;
                    data["intrinsic"] = serde_json::json!({"width": w, "height": h});
                    data["displayed"] = serde_json::json!({"width": sw, "height": sh});
                    if wasted >= MIN_WASTED_BYTES {
                        data["wasted_bytes"] = serde_json::json!(wasted);
                        problems.push(format!(
                            "is {w}×{h} px but displayed at {sw}×{sh}: about {} bytes are wasted even on 2× screens",
                            bytes(wasted)
                        ));
                    }
                }
            }
            if problems.is_empty() {
                cx.pass();
            } else {
                cx.fail(
                    img,
                    format!("The image {} {}.", sub.url, problems.join(", and ")),
                )
                .with_data(data)
                .on_resource(sub.url.as_str());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{ImageDims, ResourceFacts, ResourceKind};
    use crate::testing::RuleTester;

    fn photo(html: &str, size: u64, w: u32, h: u32) -> crate::Page {
        RuleTester::page(html).with_subresource(
            "https://example.com/team.jpg",
            ResourceKind::Image,
            ResourceFacts {
                status: 200,
                content_type: Some("image/jpeg".into()),
                transfer_bytes: Some(size),
                image: Some(ImageDims {
                    width: w,
                    height: h,
                }),
                ..ResourceFacts::default()
            },
        )
    }

    #[test]
    fn examples() {
        let img = |attrs: &str| format!(r#"<img src="/team.jpg" alt="Team" {attrs}>"#);
        RuleTester::new(&OversizedImages)
            // Within 2× of the declared size, no size declared, srcset, light.
            .pass_page("(page)", photo(
                &img(r#"width="1000" height="750""#),
                300_000,
                2000,
                1500,
            ))
            .pass_page("(page)", photo(&img(""), 300_000, 2000, 1500))
            .pass_page("(page)", photo(
                &img(r#"width="100" srcset="/team.jpg 2000w""#),
                300_000,
                2000,
                1500,
            ))
            .pass_page("(page)", photo(&img(r#"width="100" height="75""#), 4_000, 2000, 1500))
            // Much larger than shown (one attribute is enough), or too heavy.
            .fail_page("img", photo(
                &img(r#"width="100" height="75""#),
                300_000,
                2000,
                1500,
            ))
            .fail_page("img", photo(&img(r#"width="100""#), 300_000, 2000, 1500))
            .fail_page("img", photo(
                &img(r#"width="2000" height="1500""#),
                600_000,
                2000,
                1500,
            ))
            .run();
    }

    #[test]
    fn message_names_both_problems() {
        let page = photo(
            r#"<img src="/team.jpg" alt="Team" width="100" height="75">"#,
            600_000,
            2000,
            1500,
        );
        let analysis = crate::analyze(&page, &[&OversizedImages]);
        assert_eq!(analysis.findings.len(), 1);
        assert_eq!(
            analysis.findings[0].message,
            "The image https://example.com/team.jpg weighs 600,000 bytes, more than 500,000, and is 2000×1500 px but displayed at 100×75: about 594,000 bytes are wasted even on 2× screens."
        );
        assert_eq!(pixels(Some("50%")), None);
        assert_eq!(pixels(Some(" 640px")), Some(640));
    }
}
