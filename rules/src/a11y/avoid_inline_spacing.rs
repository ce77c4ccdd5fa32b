//! `avoid-inline-spacing`: important text spacing in `style` attributes leaves room for user overrides (ACT 24afc2, 78fd32, 9e45ec).

use scraper::ElementRef;

use crate::aria::html::is_html;
use crate::css::cascade::length_px;
use crate::css::parse_declarations;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `!important` letter-spacing, word-spacing and line-height set in `style` attributes meet the WCAG 1.4.12 minimums.
pub struct AvoidInlineSpacing;

static META: RuleMeta = RuleMeta {
    id: "avoid-inline-spacing",
    category: Category::Accessibility,
    title: "Inline text spacing can be adjusted",
    help: "Remove !important from inline letter-spacing, word-spacing and line-height, or set them at least to 0.12em, 0.16em and 1.5.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/text-spacing.html",
    wcag: &["1.4.12"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["24afc2", "78fd32", "9e45ec"],
    docs: r##"## What it checks
Each HTML element with visible text of its own whose `style` attribute declares `letter-spacing`, `word-spacing` or `line-height` as `!important` (the declaration that wins among the attribute's own) has a value of at least 0.12 times the font size for letter spacing, 0.16 times for word spacing and 1.5 times for line height. Users' style sheets cannot override an important inline declaration, so smaller values block the text-spacing adjustments WCAG 1.4.12 requires.

## Why it matters
People with dyslexia or low vision widen letter, word and line spacing to read; important inline styles lock the spacing.

## Failing
```html
<p style="letter-spacing: 0.1em !important">Text that cannot be spaced out.</p>
```

## Passing
```html
<p style="letter-spacing: 0.12em !important">Text with enough room.</p>
```
"##,
    ..RuleMeta::BASE
};

/// The properties checked and their minimum, as a multiple of the font size.
const MINIMUMS: &[(&str, f32)] = &[
    ("letter-spacing", 0.12),
    ("word-spacing", 0.16),
    ("line-height", 1.5),
];

/// The value, in pixels, of a spacing declaration for text of `font_size` pixels.
/// `None` for values that defer to the parent (`inherit`, `unset`) or can't be
/// resolved statically.
fn spacing_px(property: &str, value: &str, font_size: f32) -> Option<f32> {
    let v = value.trim().to_ascii_lowercase();
    match v.as_str() {
        "inherit" | "unset" | "revert" | "revert-layer" => return None,
        "normal" | "initial" => {
            // `normal` line height is about 1.2 in browsers; spacing `normal` is 0.
            return Some(if property == "line-height" {
                1.2 * font_size
            } else {
                0.0
            });
        }
        _ => {}
    }
    if let Some(em) = v.strip_suffix("em").filter(|n| !n.ends_with('r')) {
        return em.trim().parse::<f32>().ok().map(|x| x * font_size);
    }
    if let Some(pct) = v.strip_suffix('%') {
        return pct
            .trim()
            .parse::<f32>()
            .ok()
            .map(|x| x * font_size / 100.0);
    }
    if property == "line-height" {
        if let Ok(n) = v.parse::<f32>() {
            return Some(n * font_size);
        }
    }
    length_px(&v)
}

/// Whether the element's text can wrap onto several lines (line height only matters
/// then): not with `white-space: nowrap` / `pre`, nor when a fixed pixel width is
/// wider than the whole text could be (0.6em per character is a generous average).
fn may_wrap(el: ElementRef<'_>, style: &crate::css::ComputedStyle) -> bool {
    if matches!(style.get("white-space"), Some("nowrap" | "pre")) {
        return false;
    }
    let Some(width) = style.get("width").and_then(length_px) else {
        return true;
    };
    let chars: usize = el
        .text()
        .map(|t| {
            t.split_whitespace()
                .map(|w| w.chars().count() + 1)
                .sum::<usize>()
        })
        .sum();
    chars as f32 * 0.6 * style.font_size > width
}

/// Whether the element has visible text of its own.
fn has_own_text(el: ElementRef<'_>) -> bool {
    el.children()
        .filter_map(|c| c.value().as_text())
        .any(|t| t.chars().any(|c| !c.is_whitespace()))
}

impl Rule for AvoidInlineSpacing {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(style) = crate::dom::attr(el, "style") else {
            return;
        };
        if !has_own_text(el) {
            return;
        }
        let page = cx.page();
        if !page.is_visible(el) {
            return;
        }
        let decls = parse_declarations(style);
        let font_size = page.style(el).font_size;
        for (property, minimum) in MINIMUMS {
            // Among the attribute's own declarations, the last important one wins.
            let Some(decl) = decls
                .iter()
                .rev()
                .find(|d| d.name == *property && d.important)
            else {
                continue;
            };
            let Some(px) = spacing_px(property, &decl.value, font_size) else {
                continue;
            };
            if *property == "line-height" && !may_wrap(el, page.style(el)) {
                continue;
            }
            let ratio = if font_size > 0.0 { px / font_size } else { 0.0 };
            if ratio + 1e-4 >= *minimum {
                cx.pass();
            } else {
                cx.fail(
                    el,
                    format!(
                        "`{property}: {} !important` is {ratio:.2} times the font size; users cannot raise it to {minimum}.",
                        decl.value
                    ),
                );
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
        RuleTester::new(&AvoidInlineSpacing)
            .pass(&[
                r##"<p style="letter-spacing: 0.15em !important">Text</p>"##,
                r##"<style>p{font-size:25px}</style><p style="letter-spacing: 3px !important">Text</p>"##,
                r##"<p style="letter-spacing: 0.1em !important; letter-spacing: 0.15em !important">Text</p>"##,
                r##"<p style="letter-spacing: 0.15em !important; letter-spacing: 0.1em">Text</p>"##,
                r##"<p style="letter-spacing: 0.1em">Not important</p>"##,
                r##"<p style="line-height: 1.5 !important">Text</p>"##,
                r##"<p style="word-spacing: 0.2em !important">Text</p>"##,
                r##"<div style="letter-spacing: 0.1em !important"></div>"##,
                r##"<p style="display:none;letter-spacing: 0.1em !important">Text</p>"##,
                r##"<p style="letter-spacing: 0.1em"><span style="letter-spacing: inherit !important">Text</span></p>"##,
                r##"<div style="overflow-x: scroll"><p style="line-height: 1em !important; width: 1000px">Short text that never wraps.</p></div>"##,
                r##"<p style="line-height: 1 !important; white-space: nowrap">One line</p>"##,
            ])
            .fail(&[
                r##"<p style="letter-spacing: 0.1em !important">Text</p>"##,
                r##"<style>p{font-size:20px}</style><p style="letter-spacing: 2px !important">Text</p>"##,
                r##"<p style="letter-spacing: normal !important">Text</p>"##,
                r##"<p style="line-height: 1.2 !important">Text</p>"##,
                r##"<p style="line-height: normal !important">Text</p>"##,
                r##"<p style="word-spacing: 0.1em !important">Text</p>"##,
            ])
            .run();
    }
}
