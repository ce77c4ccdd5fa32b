//! `modern-image-formats`: images use WebP, AVIF or SVG rather than legacy formats.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails `<img>` that load only JPEG, PNG, GIF, BMP or TIFF.
pub struct ModernImageFormats;

/// File extensions of legacy raster formats.
pub const LEGACY: &[&str] = &["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff"];

static META: RuleMeta = RuleMeta {
    id: "modern-image-formats",
    category: Category::Performance,
    title: "Images use modern formats",
    help: "Serve images as AVIF or WebP (with a <picture> fallback if needed); use SVG for logos and icons.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/uses-webp-images",
    impact: Impact::Minor,
    docs: r#"## What it checks
Each `<img>` whose `src` ends in a legacy raster extension (`.jpg`, `.jpeg`, `.png`,
`.gif`, `.bmp`, `.tif`, `.tiff`; the query string ignored) fails unless it sits in a
`<picture>` with a `<source>` of type `image/avif` or `image/webp` (or whose
`srcset` names `.avif` / `.webp` files). Formats are judged by the URL, since images
are not downloaded; a `.jpg` URL that content-negotiates to WebP is a false positive
to note in a baseline.

## Why it matters
AVIF and WebP are typically 25–50 % smaller than JPEG and PNG at the same quality:
faster pages and less data for mobile visitors.

## Failing
```html
<img src="/photos/mug.jpg" alt="Blue mug" width="640" height="480">
```

## Passing
```html
<picture><source srcset="/photos/mug.avif" type="image/avif"><img src="/photos/mug.jpg" alt="Blue mug" width="640" height="480"></picture>
```
"#,
    ..RuleMeta::BASE
};

fn extension(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next()?;
    let last = path.rsplit('/').next()?;
    let (_, ext) = last.rsplit_once('.')?;
    Some(ext.to_ascii_lowercase())
}

fn modern_source(picture: ElementRef<'_>) -> bool {
    picture
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| c.value().name() == "source")
        .any(|s| {
            let ty = s.value().attr("type").unwrap_or("").to_ascii_lowercase();
            let set = s.value().attr("srcset").unwrap_or("").to_ascii_lowercase();
            ty.contains("avif")
                || ty.contains("webp")
                || set.contains(".avif")
                || set.contains(".webp")
        })
}

impl Rule for ModernImageFormats {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(src) = el.value().attr("src").map(str::trim) else {
            return;
        };
        if src.starts_with("data:") {
            return;
        }
        let Some(ext) = extension(src) else {
            return;
        };
        if !LEGACY.contains(&ext.as_str()) {
            cx.pass();
            return;
        }
        let in_modern_picture = el
            .parent()
            .and_then(ElementRef::wrap)
            .filter(|p| p.value().name() == "picture")
            .is_some_and(modern_source);
        if in_modern_picture {
            cx.pass();
        } else {
            let url = crate::support::resource_url(cx.page(), src);
            let f = cx.fail(
                el,
                format!("The image is a .{ext}; serve it as AVIF or WebP."),
            );
            if let Some(url) = url {
                f.on_resource(url);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ModernImageFormats)
            .pass(&[
                ("img", r#"<img src="/a.webp" alt=""><img src="/logo.svg" alt=""><img src="/b.avif?v=2" alt="">"#),
                ("img", r#"<picture><source srcset="/a.avif" type="image/avif"><img src="/a.jpg" alt=""></picture>"#),
            ])
            .fail(&[
                ("img", r#"<img src="/photos/mug.JPG?w=200" alt="">"#),
                ("img", r#"<picture><source srcset="/a-2x.jpg 2x"><img src="/a.png" alt=""></picture>"#),
            ])
            .run();
    }
}
