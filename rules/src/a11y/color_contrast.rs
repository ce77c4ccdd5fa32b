//! `color-contrast`: visible text has at least 4.5:1 contrast (3:1 when large) with
//! its background, from the computed cascade (WCAG 1.4.3, ACT afw4f7).
//!
//! The background is composited from the element's own background and its
//! ancestors' (with `opacity` applied as group opacity) over a white canvas.
//! Gradients are checked at every color stop. Anything the static cascade cannot
//! know — background images, positioned content without its own opaque backdrop,
//! text shadows that may be the real backdrop, blend modes and filters — gives a
//! cant-tell, never a pass; only an opaque text-shadow halo all round the glyphs,
//! which is their backdrop whatever lies behind it, is measured instead.

use scraper::ElementRef;
use serde_json::json;

use crate::aria::html::is_html;
use crate::aria::tree::is_disabled;
use crate::css::color::{contrast_ratio, gradient_stops};
use crate::css::Rgba;
use crate::{Category, Check, Impact, Level, PageContext, Rule, RuleMeta, Visits};

/// Checks the contrast of each element's own text against its background.
pub struct ColorContrast;

static META: RuleMeta = RuleMeta {
    id: "color-contrast",
    category: Category::Accessibility,
    title: "Text has enough contrast",
    help: "Darken the text or lighten the background (or the reverse) until the ratio is at least 4.5:1, or 3:1 for large text.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/contrast-minimum.html",
    wcag: &["1.4.3"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["afw4f7"],
    docs: r##"## What it checks
Each visible text node in an HTML element has a contrast ratio of at least 4.5:1
with the background behind it, or 3:1 for large text (at least 24px, or at least
18.66px and bold). Colors come from the computed cascade: `<style>`, linked sheets
and `style` attributes, with alpha and `opacity` composited. Text of disabled
controls and their labels is exempt, as is a lone symbol such as "X" or icon-font
glyphs. Where the background cannot be known from CSS alone (images, gradients
that straddle the threshold, positioned content, text shadows) the result is
"needs review", never a pass, with one exception: text with an opaque halo all
round it (a centred blurred `text-shadow`, or shadows in all four directions)
whose contrast with the halo is enough passes whatever lies behind. Findings carry `contrast_ratio`, `expected`, `fg` and `bg`.

## Why it matters
People with low vision or color deficiencies, and anyone reading in sunlight,
cannot read low-contrast text.

## Failing
```html
<p style="color: #aaa; background: #fff">Light grey on white: 2.3:1</p>
```

## Passing
```html
<p style="color: #333; background: #fff">Dark grey on white: 12.6:1</p>
```
"##,
    ..RuleMeta::BASE
};

/// Whether `el` has text of its own (not only white space or a lone symbol).
fn has_own_text(el: ElementRef<'_>) -> bool {
    // This runs on every element: look at the characters, build nothing.
    let mut visible = el
        .children()
        .filter_map(|c| c.value().as_text())
        .flat_map(|t| t.chars())
        .filter(|c| !c.is_whitespace());
    match (visible.next(), visible.next()) {
        (None, _) => false,
        // A lone letter or symbol ("X", "»") conveys no human language.
        (Some(c), None) => c.is_numeric(),
        _ => true,
    }
}

/// The element's own text, white space folded (for messages).
fn own_text(el: ElementRef<'_>) -> String {
    let text: String = el
        .children()
        .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
        .collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text inside a disabled widget, or labelling one, is exempt.
fn part_of_disabled_widget(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    let aria_disabled = |e: ElementRef<'_>| {
        crate::dom::attr(e, "aria-disabled").is_some_and(|v| v.trim() == "true")
    };
    let chain: Vec<ElementRef<'_>> = std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .collect();
    if chain.iter().any(|e| is_disabled(*e) || aria_disabled(*e)) {
        return true;
    }
    // A label (or a labelledby target) of a disabled control.
    for e in &chain {
        if e.value().name() == "label" {
            let controls: Vec<ElementRef<'_>> = match crate::dom::attr(*e, "for") {
                Some(id) => cx.element_by_id(id).into_iter().collect(),
                None => e
                    .descendants()
                    .filter_map(ElementRef::wrap)
                    .filter(|d| {
                        matches!(d.value().name(), "input" | "select" | "textarea" | "button")
                    })
                    .take(1)
                    .collect(),
            };
            if controls.into_iter().any(|c| {
                is_disabled(c)
                    || aria_disabled(c)
                    || c.ancestors()
                        .filter_map(ElementRef::wrap)
                        .any(aria_disabled)
            }) {
                return true;
            }
        }
        if let Some(id) = e.value().id() {
            // The per-document id-reference index, not a walk of the document.
            let disabled_referrer = cx
                .referrers("aria-labelledby", id)
                .into_iter()
                .any(|r| is_disabled(r) || aria_disabled(r));
            if disabled_referrer {
                return true;
            }
        }
    }
    false
}

/// One `text-shadow` layer.
struct Shadow {
    color: Option<Rgba>,
    x: f32,
    y: f32,
    blur: f32,
}

/// Parses a `text-shadow` list; an empty list for `none` or values it can't read.
fn parse_shadows(value: &str) -> Vec<Shadow> {
    if value.trim() == "none" {
        return Vec::new();
    }
    let mut out = Vec::new();
    for layer in crate::css::split_selector_list(value) {
        // Tokens, keeping functional colors (`rgb(...)`) whole.
        let mut tokens: Vec<String> = Vec::new();
        let mut depth = 0;
        let mut cur = String::new();
        for c in layer.chars() {
            match c {
                '(' => {
                    depth += 1;
                    cur.push(c);
                }
                ')' => {
                    depth -= 1;
                    cur.push(c);
                }
                c if c.is_whitespace() && depth == 0 => {
                    if !cur.is_empty() {
                        tokens.push(std::mem::take(&mut cur));
                    }
                }
                c => cur.push(c),
            }
        }
        if !cur.is_empty() {
            tokens.push(cur);
        }
        let mut color = None;
        let mut lengths = Vec::new();
        for t in &tokens {
            if let Some(px) = crate::css::cascade::length_px(t) {
                lengths.push(px);
            } else if let Some(c) = Rgba::parse(t) {
                color = Some(c);
            } else {
                return Vec::new();
            }
        }
        if lengths.len() < 2 {
            return Vec::new();
        }
        out.push(Shadow {
            color,
            x: lengths[0],
            y: lengths[1],
            blur: lengths.get(2).copied().unwrap_or(0.0),
        });
    }
    out
}

/// Whether shadows draw a halo around the whole glyph: one centred blurred
/// shadow, or offsets in all four directions.
fn surrounds(shadows: &[Shadow]) -> bool {
    shadows
        .iter()
        .any(|s| s.x == 0.0 && s.y == 0.0 && s.blur > 0.0)
        || (shadows.iter().any(|s| s.x > 0.0)
            && shadows.iter().any(|s| s.x < 0.0)
            && shadows.iter().any(|s| s.y > 0.0)
            && shadows.iter().any(|s| s.y < 0.0))
}

/// The lowest contrast between opaque text and an opaque text-shadow halo that
/// surrounds it, when both colors are known without the backdrop: nothing faded
/// or blended above the text, and every shadow layer opaque. `None` otherwise.
fn halo_contrast(cx: &PageContext<'_>, el: ElementRef<'_>, fg: Rgba) -> Option<f32> {
    let style = cx.style(el);
    let shadows = style.get("text-shadow").map(parse_shadows)?;
    if shadows.is_empty() || !surrounds(&shadows) || !fg.is_opaque() {
        return None;
    }
    let faded = std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|e| {
            let s = cx.style(e);
            s.opacity < 1.0
                || s.get("mix-blend-mode").is_some_and(|v| v != "normal")
                || s.get("filter").is_some_and(|v| v != "none")
        });
    if faded {
        return None;
    }
    let colors: Option<Vec<Rgba>> = shadows.iter().map(|s| s.color.or(style.color)).collect();
    let colors = colors?;
    if !colors.iter().all(|c| c.is_opaque()) {
        return None;
    }
    colors
        .iter()
        .map(|c| contrast_ratio(fg, *c))
        .reduce(f32::min)
}

/// Whether the text is drawn with an icon font.
fn icon_font(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .find_map(|e| cx.style(e).get("font-family"))
        .is_some_and(|f| f.contains("icon") || f.contains("awesome"))
}

/// Composites the text color `fg` and the transparent backdrop (content painted
/// inside `el`) down through `el` and its ancestors' backgrounds and group
/// opacities, over the white canvas, in one walk. Returns the resulting pairs
/// (text, backdrop), one per background variant (gradient stops multiply them);
/// what makes the backdrop unknowable does not depend on the color painted.
fn composite(
    cx: &PageContext<'_>,
    el: ElementRef<'_>,
    fg: Rgba,
) -> Result<Vec<(Rgba, Rgba)>, &'static str> {
    let mut layers = vec![(fg, Rgba::TRANSPARENT)];
    let mut opaque_below = false;
    for e in std::iter::once(el).chain(el.ancestors().filter_map(ElementRef::wrap)) {
        let style = cx.style(e);
        if style.get("mix-blend-mode").is_some_and(|v| v != "normal")
            || style.get("filter").is_some_and(|v| v != "none")
        {
            return Err("a blend mode or filter changes the colors");
        }
        let opaque = if style.background_image {
            let value = style.get("background-image").unwrap_or("");
            let Some(stops) = gradient_stops(value) else {
                return Err("the background is an image");
            };
            // A gradient is painted over the background color.
            let base = style
                .background_color
                .ok_or("the background color is not known")?;
            let bgs: Vec<Rgba> = stops.into_iter().map(|g| g.over(base)).collect();
            let mut next = Vec::with_capacity(layers.len() * bgs.len());
            for (text, back) in &layers {
                for b in &bgs {
                    next.push((
                        text.over(*b).fade(style.opacity),
                        back.over(*b).fade(style.opacity),
                    ));
                }
            }
            layers = next;
            bgs.iter().all(|b| b.is_opaque())
        } else {
            // One background color: composite the layers in place (this runs for
            // every ancestor of every text element).
            let b = style
                .background_color
                .ok_or("the background color is not known")?;
            for (text, back) in &mut layers {
                *text = text.over(b).fade(style.opacity);
                *back = back.over(b).fade(style.opacity);
            }
            b.is_opaque()
        };
        if opaque && style.opacity >= 1.0 {
            opaque_below = true;
            // Nothing painted further down shows through an opaque background,
            // unless an ancestor fades the whole group.
            let faded_above = e
                .ancestors()
                .filter_map(ElementRef::wrap)
                .any(|a| cx.style(a).opacity < 1.0);
            if !faded_above {
                break;
            }
        }
        // Positioned content sits over whatever the layout puts under it, which
        // need not be its DOM ancestors' background.
        if style.is_positioned() && !opaque_below {
            return Err("the text is positioned over content that cannot be known statically");
        }
        if layers.len() > 64 {
            return Err("too many background variants");
        }
    }
    Ok(layers
        .into_iter()
        .map(|(text, back)| (text.over(Rgba::WHITE), back.over(Rgba::WHITE)))
        .collect())
}

impl Rule for ColorContrast {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el)
            || matches!(
                el.value().name(),
                "script"
                    | "style"
                    | "template"
                    | "title"
                    | "option"
                    | "optgroup"
                    | "textarea"
                    | "noscript"
            )
        {
            return;
        }
        if !has_own_text(el) {
            return;
        }
        let page = cx.page();
        if !page.is_visible(el) || icon_font(page, el) {
            return;
        }
        let style = page.style(el);
        let large = style.font_size >= 24.0 || (style.font_size >= 18.66 && style.is_bold());
        let expected: f32 = if large { 3.0 } else { 4.5 };
        let Some(fg) = style.color else {
            cx.cant_tell(
                el,
                "The text color cannot be resolved (custom properties or calc).",
            );
            return;
        };
        let pairs = match composite(page, el, fg) {
            Ok(pairs) => pairs,
            Err(why) => {
                // An opaque halo all round the glyphs is their backdrop, whatever
                // the image or content behind it (WCAG's understanding of 1.4.3
                // measures haloed text against the halo).
                if halo_contrast(page, el, fg).is_some_and(|r| r >= expected) {
                    cx.pass();
                } else if !part_of_disabled_widget(page, el) {
                    cx.cant_tell(el, format!("Contrast needs review: {why}."));
                }
                return;
            }
        };
        // Pair each text variant with its backdrop variant.
        let ratios: Vec<(f32, Rgba, Rgba)> = pairs
            .iter()
            .map(|(t, b)| (contrast_ratio(*t, *b), *t, *b))
            .collect();
        // Text the same color as its background is invisible, not low contrast.
        if ratios.iter().all(|(r, _, _)| *r <= 1.001) {
            return;
        }
        let (min, fg_min, bg_min) =
            ratios
                .iter()
                .copied()
                .fold((f32::MAX, fg, Rgba::WHITE), |acc, x| {
                    if x.0 < acc.0 {
                        x
                    } else {
                        acc
                    }
                });
        let max = ratios.iter().map(|r| r.0).fold(0.0f32, f32::max);
        // Only findings carry it: most text passes.
        let data = || {
            json!({
                "contrast_ratio": (f64::from(min) * 100.0).round() / 100.0,
                "expected": expected,
                "fg": fg_min.to_hex(),
                "bg": bg_min.to_hex(),
            })
        };

        // A text shadow can be the real backdrop of thin text.
        let shadows = style
            .get("text-shadow")
            .map(parse_shadows)
            .unwrap_or_default();
        if !shadows.is_empty() {
            let surround = surrounds(&shadows);
            let colors: Option<Vec<Rgba>> =
                shadows.iter().map(|s| s.color.or(style.color)).collect();
            let Some(colors) = colors else {
                cx.cant_tell(
                    el,
                    "Contrast needs review: the text shadow color is not known.",
                );
                return;
            };
            let vs_shadow = colors
                .iter()
                .map(|c| contrast_ratio(fg_min, c.over(bg_min)))
                .fold(f32::MAX, f32::min);
            let shadow_data = json!({
                "contrast_ratio": (f64::from(vs_shadow) * 100.0).round() / 100.0,
                "expected": expected,
                "fg": fg_min.to_hex(),
                "bg": colors[0].over(bg_min).to_hex(),
            });
            if vs_shadow >= expected && (surround || min >= expected) {
                cx.pass();
            } else if part_of_disabled_widget(page, el) {
            } else if surround || min < expected && vs_shadow < expected {
                cx.fail(
                    el,
                    format!(
                        "Contrast of the text against its text shadow is {vs_shadow:.2}:1, below {expected}:1."
                    ),
                )
                .with_data(shadow_data);
            } else {
                cx.cant_tell(
                    el,
                    "Contrast needs review: a text shadow changes the backdrop.",
                )
                .with_data(data());
            }
            return;
        }

        if min >= expected {
            cx.pass();
            return;
        }
        if part_of_disabled_widget(page, el) {
            return;
        }
        let snippet: String = own_text(el).chars().take(40).collect();
        if max >= expected {
            cx.cant_tell(
                el,
                format!(
                    "Contrast of \"{snippet}\" ranges from {min:.2}:1 to {max:.2}:1 over a gradient (needs {expected}:1)."
                ),
            )
            .with_data(data());
        } else {
            cx.fail(
                el,
                format!("Contrast of \"{snippet}\" is {min:.2}:1, below {expected}:1."),
            )
            .with_data(data());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::{analyze, Page};

    #[test]
    fn examples() {
        RuleTester::new(&ColorContrast)
            .pass(&[
                ("p", r##"<p style="color:#333;background:#fff">Some text</p>"##),
                ("p", r##"<p>Default colors</p>"##),
                ("a", r##"<a href="/">Default link</a>"##),
                ("p", r##"<p style="color:#000;font-size:18pt;background:#666">Large text</p>"##),
                ("p", r##"<p style="color:#000;font-size:14pt;font-weight:700;background:#666">Large bold</p>"##),
                ("p", r##"<p style="color:#333;background:linear-gradient(to right,#fff,#eee)">Gradient</p>"##),
                ("p", r##"<p style="color:#000;background:#737373;text-shadow:white 0 0 3px">Shadow</p>"##),
                ("a", r##"<div style="background:url(hero.jpg)"><a href=/ style="background:#0b5fff;color:#fff">Opaque button over an image</a></div>"##),
                ("p", r##"<p style="color:#ccc;background:#000 url(a.jpg);text-shadow:0 0 2px black">Haloed text over an image</p>"##),
            ])
            .inapplicable(&[
                r##"<button style="color:#666;background:#000" aria-label="Close">X</button>"##,
                r##"<p style="display:none;color:#eee">Hidden</p>"##,
                r##"<p style="color:white;background:white">Same color</p>"##,
                r##"<button style="color:#777;background:#eee" disabled>Disabled</button>"##,
                r##"<label style="color:#888;background:white">Name <input disabled></label>"##,
            ])
            .fail(&[
                ("p", r##"<p style="color:#aaa;background:white">Light text</p>"##),
                ("p", r##"<p style="color:rgba(0,0,0,.3);background:#fff">Alpha text</p>"##),
                ("p", r##"<div style="background:#fff"><p style="color:#000;opacity:.3">Faded</p></div>"##),
                ("button", r##"<style>.b{color:#777;background:#eee}</style><button class=b>Button</button>"##),
                ("p", r##"<p style="color:#aaa;background:linear-gradient(to right,#fff,#00f)">Gradient</p>"##),
                ("p", r##"<p style="background:#fff;color:#666;text-shadow:#aaa 2px 2px 4px,#aaa -2px 2px 4px,#aaa 2px -2px 4px,#aaa -2px -2px 4px">Surrounded</p>"##),
            ])
            .cant_tell(&[
                ("p", r##"<p style="color:#555;background:black url(a.jpg)">Image</p>"##),
                ("p", r##"<div style="background:url(hero.jpg)"><p>Over an image</p></div>"##),
                ("p", r##"<p style="color:#ccc;background:url(a.jpg);text-shadow:0 0 2px rgba(0,0,0,.5)">Translucent halo</p>"##),
                ("p", r##"<p style="color:#ccc;background:url(a.jpg);text-shadow:2px 2px 2px black">One-sided shadow</p>"##),
                ("p", r##"<p style="background:#fff;color:#666;text-shadow:#aaa 2px 2px 4px">Shadow</p>"##),
                ("p", r##"<div style="background:#fff"><p style="position:absolute;top:0;color:#333">Positioned</p></div>"##),
                ("p", r##"<p style="color:var(--x)">Custom property</p>"##),
                ("p", r##"<p style="color:#333;background:linear-gradient(to right,#fff,#00f)">Gradient</p>"##),
            ])
            .run();
    }

    #[test]
    fn finding_carries_measured_data() {
        let page = Page::from_html(
            "https://example.com/",
            r##"<html><body><p style="color:#aaa;background:#fff">x y</p></body></html>"##,
        );
        let a = analyze(&page, &[&ColorContrast]);
        let data = a.findings[0].data.clone().unwrap();
        assert_eq!(data["contrast_ratio"], json!(2.32));
        assert_eq!(data["expected"], json!(4.5));
        assert_eq!(data["fg"], json!("#aaaaaa"));
        assert_eq!(data["bg"], json!("#ffffff"));
    }
}
