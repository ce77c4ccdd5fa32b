//! `css-orientation-lock`: content is not locked to one display orientation by CSS
//! rotations applied under an orientation media query (WCAG 1.3.4, ACT b33eff).

use scraper::{ElementRef, Selector};

use crate::aria::html::is_html;
use crate::css::{parse_stylesheet_all_media, split_selector_list, Declaration};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that no rule under `@media (orientation: ...)` rotates visible content by
/// about a quarter turn.
pub struct CssOrientationLock;

static META: RuleMeta = RuleMeta {
    id: "css-orientation-lock",
    category: Category::Accessibility,
    title: "Content is not locked to one orientation",
    help: "Do not rotate the page with CSS depending on the device orientation; let the content reflow in both.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/orientation.html",
    wcag: &["1.3.4"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["b33eff"],
    docs: r##"## What it checks
No style rule inside an `@media` block with an `orientation` condition applies a
`transform` (`rotate()`, `rotateZ()`, `rotate3d()` about the z axis, `matrix()`,
`matrix3d()`) or a `rotate` property that turns visible content by roughly a quarter
turn (between 45° and 135°, modulo 180°). Rotations of whole turns pass.

## Why it matters
People with a device mounted in one orientation (on a wheelchair, for example)
cannot turn it; content forced into the other orientation is sideways for them.

## Failing
```html
<style>@media (orientation: portrait) { html { transform: rotate(90deg) } }</style>
```

## Passing
```html
<style>@media (orientation: portrait) { html { transform: rotate(1turn) } }</style>
```
"##,
    ..RuleMeta::BASE
};

/// An angle in degrees from a CSS angle (`deg`, `rad`, `grad`, `turn`, or `0`).
fn angle_deg(v: &str) -> Option<f32> {
    let v = v.trim();
    let num = |s: &str| s.trim().parse::<f32>().ok();
    if let Some(n) = v.strip_suffix("deg") {
        return num(n);
    }
    if let Some(n) = v.strip_suffix("grad") {
        return num(n).map(|g| g * 0.9);
    }
    if let Some(n) = v.strip_suffix("rad") {
        return num(n).map(f32::to_degrees);
    }
    if let Some(n) = v.strip_suffix("turn") {
        return num(n).map(|t| t * 360.0);
    }
    (num(v) == Some(0.0)).then_some(0.0)
}

/// The rotation about the z axis, in degrees, a `transform` or `rotate` value
/// applies (summed over the functions of a transform list); `None` when it rotates
/// nothing or cannot be read.
fn rotation(property: &str, value: &str) -> Option<f32> {
    let v = value.trim().to_ascii_lowercase();
    if property == "rotate" {
        // `rotate: <angle>` or `rotate: z <angle>` / `rotate: 0 0 1 <angle>`.
        let last = v.split_whitespace().last()?;
        return angle_deg(last);
    }
    if property != "transform" {
        return None;
    }
    let mut total = None;
    let mut rest = v.as_str();
    while let Some(open) = rest.find('(') {
        let name = rest[..open]
            .trim()
            .rsplit([' ', ')'])
            .next()
            .unwrap_or("")
            .trim();
        let close = rest[open..].find(')')? + open;
        let args: Vec<&str> = rest[open + 1..close].split(',').map(str::trim).collect();
        let angle = match (name, args.as_slice()) {
            ("rotate" | "rotatez", [a]) => angle_deg(a),
            ("rotate3d", [x, y, z, a]) => {
                let axis: Option<Vec<f32>> = [x, y, z].iter().map(|s| s.parse().ok()).collect();
                match axis.as_deref() {
                    Some([0.0, 0.0, z]) if *z != 0.0 => angle_deg(a).map(|d| d * z.signum()),
                    _ => None,
                }
            }
            ("matrix", [a, b, ..]) | ("matrix3d", [a, b, ..]) => {
                let (a, b): (f32, f32) = (a.parse().ok()?, b.parse().ok()?);
                Some(b.atan2(a).to_degrees())
            }
            _ => None,
        };
        if let Some(d) = angle {
            total = Some(total.unwrap_or(0.0) + d);
        }
        rest = &rest[close + 1..];
    }
    total
}

/// Whether an angle turns content by about a quarter turn (45°–135° modulo 180°).
fn quarter_turn(deg: f32) -> bool {
    let m = deg.rem_euclid(180.0);
    (45.0..=135.0).contains(&m)
}

impl Rule for CssOrientationLock {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let mut sheets: Vec<String> = page
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|e| is_html(*e) && e.value().name() == "style")
            .map(|e| e.text().collect())
            .collect();
        sheets.extend(page.page().stylesheets.iter().map(|s| s.text.clone()));
        for sheet in &sheets {
            for rule in parse_stylesheet_all_media(sheet) {
                let by_orientation = rule.media.iter().any(|m| m.contains("orientation"));
                if !by_orientation {
                    continue;
                }
                let rotations: Vec<(&Declaration, f32)> = rule
                    .declarations
                    .iter()
                    .filter_map(|d| rotation(&d.name, &d.value).map(|r| (d, r)))
                    .collect();
                if rotations.is_empty() {
                    continue;
                }
                // Only rotations of content someone can see count.
                let target = split_selector_list(&rule.selectors)
                    .into_iter()
                    .filter_map(|s| Selector::parse(s).ok())
                    .find_map(|sel| {
                        page.root()
                            .descendants()
                            .filter_map(ElementRef::wrap)
                            .find(|e| sel.matches(e) && page.is_visible(*e))
                    });
                let Some(target) = target else {
                    continue;
                };
                for (decl, deg) in rotations {
                    if quarter_turn(deg) {
                        cx.fail(
                            target,
                            format!(
                                "`{}: {}` under `@media {}` rotates the content by {deg:.0}°, locking it to one orientation.",
                                decl.name,
                                decl.value,
                                rule.media.join(" and ")
                            ),
                        );
                    } else {
                        cx.pass();
                    }
                }
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
        let page = |css: &str, body: &str| {
            format!("<html lang=en><head><title>t</title><style>{css}</style></head><body{body}><main>Content</main></body></html>")
        };
        let pass = [
            page("@media (orientation: portrait) { html { transform: rotateZ(1turn); } }", ""),
            page("@media (orientation: portrait) { html { transform: matrix(1, -1.22465e-15, 1.22465e-15, 1, 0, 0); } }", ""),
            page("@media (orientation: portrait) { html { rotate: 0turn; } }", ""),
            page("html { font-size: 22px }", ""),
            page("@media (orientation: landscape) { body { transform: rotate(90deg); } }", " style=\"display:none\""),
            page("body { transform: rotate(90deg) }", ""),
            page("@media (orientation: portrait) { body { transform: translateX(100px) } }", ""),
        ];
        let fail = [
            page("@media (orientation: portrait) { html { transform: rotate(1.5708rad); } }", ""),
            page("@media (orientation: landscape) { body { transform: matrix3d(0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1); } }", ""),
            page("body { transform: rotate(2.5deg) } @media (orientation: landscape) { body { transform: rotate(92.5deg); } }", ""),
            page("@media (orientation: portrait) { html { rotate: 90deg; } }", ""),
        ];
        let pass: Vec<&str> = pass.iter().map(String::as_str).collect();
        let fail: Vec<&str> = fail.iter().map(String::as_str).collect();
        RuleTester::new(&CssOrientationLock)
            .pass(&pass)
            .fail(&fail)
            .run();
    }

    #[test]
    fn angles() {
        assert_eq!(rotation("transform", "rotate(90deg)"), Some(90.0));
        assert_eq!(
            rotation("transform", "rotate3d(0, 0, 1, 270deg)"),
            Some(270.0)
        );
        assert_eq!(rotation("transform", "translateX(4px)"), None);
        assert!(quarter_turn(-90.0) && quarter_turn(270.0) && !quarter_turn(180.0));
    }
}
