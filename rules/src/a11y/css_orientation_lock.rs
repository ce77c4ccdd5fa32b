//! `css-orientation-lock`: content is not locked to one display orientation by
//! CSS rotation in orientation media queries (WCAG 1.3.4, ACT b33eff).

use scraper::{ElementRef, Selector};

use super::support::{cant_tell_because, reason};
use crate::css::cascade::is_unresolved;
use crate::css::{RawRule, SheetCaps};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks rotations applied under `(orientation: …)` media queries.
pub struct CssOrientationLock;

static META: RuleMeta = RuleMeta {
    id: "css-orientation-lock",
    category: Category::Accessibility,
    title: "Content is not locked to one orientation",
    help: "Do not rotate the page by 90 degrees in portrait or landscape media queries; let content follow the device orientation.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/orientation.html",
    wcag: &["1.3.4"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["b33eff"],
    docs: r#"## What it checks
Style rules inside `@media` blocks whose query tests `orientation` and that set
`transform` (`rotate()`, `rotateZ()`, `rotate3d(0, 0, 1, a)`, `matrix()`,
`matrix3d()`) or `rotate` on elements that are visible and hold text. The
rotation under the orientation query, relative to the rotation the same selector
has outside media queries, must not be a quarter turn (90° or 270°, within half a
degree): that is how pages force a portrait layout on landscape screens.

## No silent pass
An element it applies to ends passed, failed or "needs review" (cannot tell)
with the reason in `data.reason`, as in
[`color-contrast`](color-contrast.md#no-silent-pass): `rotation-unresolved`
(the rotation under the orientation query uses custom properties or `calc()`
that do not resolve), `styles-incomplete` (a stylesheet the page uses could
not be loaded, and may rotate the element otherwise or undo the rotation).

## Why it matters
People with devices mounted in one orientation (on a wheelchair, for example)
cannot turn them. A page that rotates itself when the device is in the "wrong"
orientation shows sideways text to them.

## Failing
```html
<style>@media (orientation: portrait) { html { transform: rotate(90deg); } }</style>
```

## Passing
```html
<style>@media (orientation: portrait) { html { transform: rotate(0turn); } }</style>
```

## Cannot tell
```html
<style>@media (orientation: portrait) { html { transform: rotate(var(--turn)); } }</style>
```
"#,
    ..RuleMeta::BASE
};

/// An angle in degrees (`deg`, `rad`, `grad`, `turn`).
fn angle(value: &str) -> Option<f64> {
    let v = value.trim();
    let units: [(&str, f64); 4] = [
        ("deg", 1.0),
        ("grad", 0.9),
        ("rad", 180.0 / std::f64::consts::PI),
        ("turn", 360.0),
    ];
    for (unit, factor) in units {
        if let Some(n) = v.strip_suffix(unit) {
            return n.trim().parse::<f64>().ok().map(|x| x * factor);
        }
    }
    (v == "0").then_some(0.0)
}

fn args(f: &str) -> Vec<&str> {
    f.split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect()
}

/// The rotation about the z axis, in degrees, of a `transform` or `rotate` value;
/// `None` when it has none this rule can read.
pub fn rotation(property: &str, value: &str) -> Option<f64> {
    let v = value.trim().to_ascii_lowercase();
    if property == "rotate" {
        // `rotate: 90deg` or `rotate: z 90deg` / `0 0 1 90deg`.
        return v.split_whitespace().last().and_then(angle);
    }
    let mut total = None;
    let mut rest = v.as_str();
    while let Some(open) = rest.find('(') {
        let name = rest[..open]
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .to_string();
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        let a = args(inner);
        let deg = match name.as_str() {
            "rotate" | "rotatez" => a.first().and_then(|x| angle(x)),
            "rotate3d" if a.len() == 4 => {
                let axis: Vec<f64> = a[..3].iter().filter_map(|x| x.parse().ok()).collect();
                if axis.len() == 3 && axis[0] == 0.0 && axis[1] == 0.0 && axis[2] != 0.0 {
                    angle(a[3]).map(|d| d * axis[2].signum())
                } else {
                    None
                }
            }
            "matrix" | "matrix3d" if a.len() >= 2 => {
                let m: Vec<f64> = a.iter().filter_map(|x| x.parse().ok()).collect();
                (m.len() >= 2).then(|| m[1].atan2(m[0]).to_degrees())
            }
            _ => None,
        };
        if let Some(d) = deg {
            total = Some(total.unwrap_or(0.0) + d);
        }
        rest = &rest[open + close + 1..];
    }
    total
}

/// Whether a `transform` or `rotate` value may rotate by an amount only the
/// page's custom properties or a math function know (`rotate(var(--turn))`,
/// a whole `var(--t)`); a translation with `var()` rotates nothing.
fn rotation_unresolved(property: &str, value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    is_unresolved(&v)
        && (property == "rotate"
            || v.starts_with("var(")
            || v.contains("rotate")
            || v.contains("matrix"))
}

/// The rotations of one sheet under `@media` blocks that test `orientation`:
/// (media prelude, selectors, degrees or `None` when they do not resolve, the
/// same selectors' rotation outside any media block).
struct OrientationRotations(Vec<(String, String, Option<f64>, f64)>);

fn orientation_rotations(css: &str, caps: &mut SheetCaps) -> OrientationRotations {
    let rules = caps.parse_all_media(css);
    let rotations = |rule: &RawRule| -> Vec<f64> {
        rule.declarations
            .iter()
            .filter(|d| d.name == "transform" || d.name == "rotate")
            .filter_map(|d| rotation(&d.name, &d.value))
            .collect()
    };
    // Rotations outside media queries, by selector text (the last one wins).
    let mut base: Vec<(&str, f64)> = Vec::new();
    for rule in rules.iter().filter(|r| r.media.is_empty()) {
        for degrees in rotations(rule) {
            base.push((rule.selectors.as_str(), degrees));
        }
    }
    let mut out = Vec::new();
    for rule in &rules {
        let prelude = rule.media.join(" and ").to_ascii_lowercase();
        if !prelude.contains("orientation") {
            continue;
        }
        let unresolved = rule
            .declarations
            .iter()
            .filter(|d| d.name == "transform" || d.name == "rotate")
            .any(|d| rotation_unresolved(&d.name, &d.value));
        // A rotation that does not resolve makes the rule's whole turn unknown.
        let turns: Vec<Option<f64>> = if unresolved {
            vec![None]
        } else {
            rotations(rule).into_iter().map(Some).collect()
        };
        for degrees in turns {
            let base_deg = base
                .iter()
                .rev()
                .find(|(s, _)| *s == rule.selectors)
                .map(|(_, d)| *d)
                .unwrap_or(0.0);
            out.push((prelude.clone(), rule.selectors.clone(), degrees, base_deg));
        }
    }
    OrientationRotations(out)
}

impl Rule for CssOrientationLock {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        if !cx.page().page().is_html() {
            return;
        }
        let page = cx.page();
        let incomplete = page.styles_incomplete();
        for (css, caps) in page.author_sheets() {
            // Derived once per sheet text, not once per page.
            let locks = crate::css::sheet_facts(css, caps, orientation_rotations);
            for (prelude, selectors, degrees, base_deg) in &locks.0 {
                let (prelude, degrees, base_deg) = (prelude.as_str(), *degrees, *base_deg);
                let Ok(selector) = Selector::parse(selectors) else {
                    continue;
                };
                let targets: Vec<ElementRef<'_>> = page
                    .doc()
                    .select(&selector)
                    .filter(|el| page.is_visible(*el) && el.text().any(|t| !t.trim().is_empty()))
                    .collect();
                if targets.is_empty() {
                    continue;
                }
                for el in targets {
                    // A sheet the page uses is missing: it may rotate the
                    // element otherwise, or undo this rotation.
                    if let Some(why) = incomplete {
                        cant_tell_because(
                            cx,
                            el,
                            format!("Under @media {prelude} this element is rotated; whether that locks the orientation needs review: {why}."),
                            reason::STYLES_INCOMPLETE,
                        );
                        continue;
                    }
                    let Some(degrees) = degrees else {
                        cant_tell_because(
                            cx,
                            el,
                            format!("Under @media {prelude} this element is rotated by an angle from custom properties or calc() that cannot be resolved; check it is not a quarter turn."),
                            reason::ROTATION_UNRESOLVED,
                        );
                        continue;
                    };
                    let relative = (degrees - base_deg).rem_euclid(180.0);
                    let quarter = (relative - 90.0).abs() <= 0.5;
                    if quarter {
                        cx.fail(
                                el,
                                format!("Under @media {prelude} this element is rotated by {:.1}°, locking the content to one orientation.", degrees - base_deg),
                            );
                    } else {
                        cx.pass_on(el);
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

    fn page(css: &str) -> String {
        format!("<html lang=en><head><style>{css}</style></head><body>Content</body></html>")
    }

    #[test]
    fn examples() {
        let pass = [
            "@media (orientation: portrait) { html { transform: rotateZ(1turn); } }",
            "@media (orientation: portrait) { html { transform: matrix(1, -1.22465e-15, 1.22465e-15, 1, 0, 0); } }",
            "@media (orientation: portrait) { html { rotate: 0turn; } }",
        ].map(page);
        let pass_inapplicable = [
            "body { transform: rotate(90deg); }",
            "@media (orientation: portrait) { body { transform: translateX(100px); } }",
            // A translation with custom properties rotates nothing.
            "@media (orientation: portrait) { body { transform: translateX(var(--x)); } }",
        ].map(page);
        let cant = [
            "@media (orientation: portrait) { html { transform: rotate(var(--turn)); } }",
            "@media (orientation: landscape) { html { rotate: calc(1turn / 4); } }",
            "@media (orientation: portrait) { body { transform: var(--lock); } }",
        ]
        .map(page);
        let fail = [
            "@media (orientation: portrait) { html { transform: rotate(1.5708rad); } }",
            "@media (orientation: landscape) { body { transform: matrix3d(0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1); } }",
            "body { transform: rotate(2.5deg); } @media (orientation: landscape) { body { transform: rotate(92.5deg); } }",
            "@media (orientation: portrait) { html { rotate: 90deg; } }",
        ]
        .map(page);
        RuleTester::new(&CssOrientationLock)
            .pass(&pass.iter().map(|h| ("html", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&["html", "body", "body", "html"].into_iter().zip(&fail).map(|(t, h)| (t, h.as_str())).collect::<Vec<_>>())
            .cant_tell(&["html", "html", "body"].into_iter().zip(&cant).map(|(t, h)| (t, h.as_str())).collect::<Vec<_>>())
            .run();
    }

    #[test]
    fn rotations_parse() {
        assert_eq!(rotation("transform", "rotate(90deg)"), Some(90.0));
        assert_eq!(rotation("transform", "translateX(10px)"), None);
        assert_eq!(rotation("rotate", "z 0.25turn"), Some(90.0));
        let r = rotation("transform", "rotate3d(0, 0, 1, 270deg)").unwrap();
        assert!((r - 270.0).abs() < 1e-9);
    }
}
