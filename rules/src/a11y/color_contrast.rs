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

use super::support::reason;
use crate::aria::html::is_html;
use crate::aria::tree::is_disabled;
use crate::css::color::{contrast_ratio, gradient_stops};
use crate::css::Rgba;
use crate::rendered::{Ink, MeasuredBackdrop, Rect};
use crate::{Category, Check, Impact, Level, Need, PageContext, Rule, RuleMeta, Visits};

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
    needs: &[Need::MeasuredBackdrop],
    docs: r##"## What it checks
Each visible text node in an HTML element has a contrast ratio of at least 4.5:1
with the background behind it, or 3:1 for large text (at least 24px, or at least
18.66px and bold). Colors come from the computed cascade: `<style>`, linked sheets
and the sheets they `@import`, and `style` attributes, with `@media`, `@supports`
and cascade layers honoured and alpha and `opacity` composited (see
[what the cascade implements](../conformance.md#what-the-cascade-implements)).
Text of disabled controls and their labels is exempt, as are a lone letter
such as "X", icon-font glyphs, and own text made only of punctuation and
symbols (one or many: the `"""` or `{%` of a highlighted code sample, a `»`)
when the element's whole text has no words. With words around it in the same
element, such text is checked in the element's color: the ` | ` separators of
a language bar whose links hold the words, one separator as much as several.
axe-core leaves the same text out.

## In render mode
When the page was rendered ([render mode](../render.md)), the browser's own
colours decide where it knows them: the computed text colour, faded by the
opacity the text is painted with, over the one background colour Chromium
blends behind the text (every ancestor's and every overlapping box's
background composited), with the computed font size and weight for "large".
Such findings carry `data.measured = "browser"`.

Over an image, a gradient, or an `<img>` or video behind the text, there is
no single colour: the backdrop is measured instead. The text is hidden, the
boxes of its own text are shot in a screenshot, and the text colour is
compared with every pixel of that backdrop: the text passes when every pixel
gives enough contrast, fails when none does, and needs review
(`mixed-backdrop`) when some do and some do not. These findings carry
`data.measured = "screenshot"`, the lowest ratio (`contrast_ratio`, with the
`fg` and `bg` giving it), the highest (`contrast_ratio_max`) and the number
of `pixels`. At most 40 elements are measured per page; text past them, text
with a `text-shadow`, and text under a blend mode or filter are left to the
static judgement below, and end as described there, with one difference: the
colours are the browser's where it computed them (the text's colour and size,
and each box's background colour, background image and opacity down to the
canvas), not the stylesheets', which a script may have changed. Text that
an ancestor clipping its overflow hides where it lies (the items of a fixed,
scrolling sidebar below its fold) is judged that way too: there the blended
colour and a picture show what lies behind the ancestor, not behind the text
as a reader scrolling the sidebar sees it.

Text that positioning put where it is (a table of contents in a fixed
sidebar, scrolled in an absolutely positioned box) or that has a positioned
box beside it is judged over its ancestors' backgrounds when the layout puts
nothing else under it: no other element's box overlaps the text's, out-of-flow
boxes counted 2 CSS px wider. What the page's scrolling moves against the
text counts wherever it can pass: a `fixed` or `sticky` element anywhere in
the text's columns (anywhere at all on a page wider than its viewport), and,
for text in a `fixed` box, anything outside that box unless an opaque
background inside it hides what passes under. Such a `fixed` or `sticky`
element passes over in-flow text, never under it, unless a negative
`z-index` carries it below; over text that is itself positioned (a heading
made `position: relative` for its anchor) only when its `z-index` raises it
above the text in their stacking context. An element's box counts as far as
it paints: grown by its computed outline (width and offset), box shadows
(offset, blur and spread) and filter (`blur()`, `drop-shadow()`), so a
button's 2-pixel focus outline reaches 2 pixels, not the whole page. Text
in a `sticky` box, an element whose filter paints where no length says (a
filter by URL), and an element a script added after the snapshot out of
flow or inside an out-of-flow box keep the answer unknown, as before (one
added in flow is taken to lie in its nearest known ancestor's box).

Content a `content-visibility: auto` box skips while it is off screen is
laid out before the snapshot, as a reader scrolling there gets it, and
judged with the rest; `content-visibility: hidden` content stays hidden.

## No silent pass
Every text element it applies to ends passed, failed or "needs review"
(cannot tell), never silently. It cannot tell, and says why in the message and
in the finding's `data.reason`, when:

| `reason` | what is unknown |
|---|---|
| `styles-incomplete` | a stylesheet the page uses could not be loaded by the scan (no answer, a server error, robots.txt, the page's cap on stylesheets or `@import` depth), so any color may be another. A sheet the server refuses with a 4xx is missing for browsers too: the page is judged as browsers render it, and its note says so. |
| `text-color-unresolved` | the text color uses `var()` or `calc()` that does not resolve |
| `background-color-unresolved` | a background color on the way down does not resolve |
| `background-image` | the text sits on a background image |
| `gradient` | a gradient behind it passes at some stops and fails at others |
| `positioned` | the text is positioned out of flow over content only layout knows. In render mode it is judged over its ancestors' backgrounds when the layout puts nothing else under its box (see below) |
| `positioned-sibling` | an out-of-flow sibling that paints (an image, a box with a background) may lie behind or over the text. In render mode a sibling counts only when its boxes or its elements' boxes, grown by what they paint beyond them (outline, shadows, filter), come within 2 CSS px of the text's box, or it is `position: fixed` (scrolling moves it): a sidebar beside the text is no longer a reason; and even then the text is judged when the layout puts nothing else under its box (see below) |
| `blend-mode-or-filter` | `mix-blend-mode` or `filter` changes the colors painted |
| `text-shadow` | a shadow changes the backdrop of thin text |
| `mixed-backdrop` | render mode: the measured backdrop gives enough contrast under part of the text only |

Except where the text passes whatever the unknown part is: text whose contrast
with both black and white is enough passes over any background image or
positioned content, and text with an opaque halo all round it (a centred
blurred `text-shadow`, or shadows in all four directions) whose contrast with
the halo is enough passes whatever lies behind. The report's notes count the
cannot-tell findings of a scan by reason, so you see how much was decided.
Findings carry `contrast_ratio`, `expected`, `fg` and `bg`.

The same holds for every rule built on the cascade or on layout bounds, with
reasons from the same list: [`link-in-text-block`](link-in-text-block.md)
(`styles-incomplete`, `color-unresolved`, `state-cues-unknown`),
[`target-size`](target-size.md) (`styles-incomplete`, `size-unresolved`,
`transform`), [`zoomed-text-clipped`](zoomed-text-clipped.md) and
[`scrollable-region-focusable`](scrollable-region-focusable.md)
(`styles-incomplete`, `size-unresolved`, `text-extent`),
[`css-orientation-lock`](css-orientation-lock.md) (`styles-incomplete`,
`rotation-unresolved`) and [`focus-visible`](focus-visible.md)
(`styles-incomplete`, `outline-unresolved`, `focus-handler`).

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

## Cannot tell
```html
<p style="color: #777; background: url(paper.jpg)">Mid grey over a photo: 4.5:1 on white, 4.7:1 on black, unknown in between</p>
```
"##,
    ..RuleMeta::BASE
};

/// Whether `el` has text of its own to check: not only white space, not a
/// lone letter, and not punctuation and symbols apart from any words.
///
/// One rule for punctuation-only own text, whatever its length: punctuation
/// and symbols (`"""`, `{%`, `»`, `--`, a lone ` | `) carry their meaning with
/// the words around them, whose contrast is checked; a syntax-highlighted
/// code sample would otherwise be reported once per quote mark. The
/// element's whole text decides, as in axe-core: the ` | ` separators of a
/// `<p>` whose links hold the words are read with them, in the paragraph's
/// color, one separator as much as several.
fn has_own_text(el: ElementRef<'_>) -> bool {
    // This runs on every element: look at the characters, build nothing.
    let mut visible = el
        .children()
        .filter_map(|c| c.value().as_text())
        .flat_map(|t| t.chars())
        .filter(|c| !c.is_whitespace());
    let Some(first) = visible.next() else {
        return false;
    };
    let mut words = first.is_alphanumeric();
    let mut lone = true;
    for c in visible {
        lone = false;
        if c.is_alphanumeric() {
            words = true;
            break;
        }
    }
    if words {
        // A lone letter ("X") conveys no human language; a lone digit does.
        return !lone || first.is_numeric();
    }
    // Bounded: the first 4096 characters of the whole text.
    el.text()
        .flat_map(str::chars)
        .take(4096)
        .any(char::is_alphanumeric)
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

/// What kept the contrast from being known: a key for the report's counts
/// (`data.reason` of the cant-tell finding) and the words of its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unknown {
    reason: &'static str,
    why: &'static str,
    /// Whether the text color is known and the backdrop alone is not: then
    /// text that contrasts enough with both black and white passes whatever
    /// the backdrop is.
    backdrop_only: bool,
}

impl Unknown {
    const BLEND: Unknown = Unknown {
        reason: "blend-mode-or-filter",
        why: "a blend mode or filter changes the colors",
        backdrop_only: false,
    };
    const IMAGE: Unknown = Unknown {
        reason: "background-image",
        why: "the background is an image",
        backdrop_only: true,
    };
    const BACKGROUND: Unknown = Unknown {
        reason: reason::BACKGROUND_COLOR_UNRESOLVED,
        why: "the background color is not known (custom properties or calc)",
        backdrop_only: true,
    };
    const POSITIONED: Unknown = Unknown {
        reason: "positioned",
        why: "the text is positioned over content that cannot be known statically",
        backdrop_only: true,
    };
    const OVERLAP: Unknown = Unknown {
        reason: "positioned-sibling",
        why: "positioned content beside the text (an image, a painted box) may lie behind or over it",
        backdrop_only: true,
    };
    const VARIANTS: Unknown = Unknown {
        reason: "background-variants",
        why: "too many background variants",
        backdrop_only: true,
    };
}

/// Elements that paint something when positioned out of flow beside text:
/// replaced content, and any element with a background of its own.
fn paints(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    if matches!(
        el.value().name(),
        "img" | "picture" | "video" | "canvas" | "svg" | "iframe" | "object" | "embed"
    ) {
        return true;
    }
    let style = cx.style(el);
    style.background_image || style.background_color.is_none_or(|c| c.a > 0.0)
}

/// Whether a positioned element paints beside text: out of flow
/// (`absolute`, `fixed`), rendered, and painting something.
fn positioned_painter(cx: &PageContext<'_>, s: ElementRef<'_>) -> bool {
    let style = cx.style(s);
    style.is_positioned()
        && style.display != "none"
        && !style.visibility_hidden
        && !style.is_visually_clipped()
        && paints(cx, s)
}

/// Whether a sibling of `e` (the text element `text` or one of its
/// ancestors) is positioned out of flow and paints: it may sit behind the
/// text (a hero image under a heading) or over it, which only layout knows.
/// In render mode layout is known: a sibling whose painted area
/// ([`painted_area`]) misses the text's box by [`CLEAR_MARGIN`] does not
/// count.
fn positioned_sibling(cx: &PageContext<'_>, e: ElementRef<'_>, text: ElementRef<'_>) -> bool {
    let Some(parent) = e.parent() else {
        return false;
    };
    // Once per page: each parent's painting positioned children with their
    // painted areas (most pages have few or none, so text needs no look at
    // its siblings, and no box is walked again per text element).
    let painters = cx.positioned_parents_cell().get_or_init(|| {
        let mut by_parent: rustc_hash::FxHashMap<_, Vec<_>> = Default::default();
        for s in cx
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|s| positioned_painter(cx, *s))
        {
            if let Some(p) = s.parent() {
                by_parent
                    .entry(p.id())
                    .or_default()
                    .push((s.id(), painted_area(cx, s)));
            }
        }
        by_parent
    });
    let Some(siblings) = painters.get(&parent.id()) else {
        return false;
    };
    let area = cx
        .rendered(text.id())
        .and_then(|f| f.bounds)
        .map(|t| grown(t, CLEAR_MARGIN));
    siblings.iter().any(|(s, painted)| {
        *s != e.id()
            && match (painted, area) {
                (Some(boxes), Some(t)) => boxes.iter().any(|p| crate::boxes::overlap(p, &t)),
                _ => true,
            }
    })
}

/// Render mode: whether the backdrop of `text` is its ancestors'
/// backgrounds (down to `opaque`, the first opaque one, if any) although a
/// positioned box put it where it is or lies beside it: no element but its
/// ancestors and its own content paints under its box, now or as the page
/// scrolls.
///
/// - Text inside a `fixed` box moves with it. Then only that box's own
///   elements can lie under the text, and only if the opaque background is
///   in it too: anything else passes under the box as the page scrolls, and
///   stays hidden below an opaque background there.
/// - Otherwise every element counts by its layout box, and a `fixed` or
///   `sticky` one across the text's columns (anywhere, on a page that
///   scrolls sideways), which scrolling moves under or over the text. Text
///   in a `sticky` box is not known.
///
/// Layout boxes do not show what paints beyond them. An element declaring a
/// shadow, an outline or a filter may paint anywhere (as for positioned
/// siblings, [`painted_area`]), and an out-of-flow element's box counts
/// [`CLEAR_MARGIN`] wider (spilled glyphs and borders).
fn alone_over_ancestors(
    cx: &PageContext<'_>,
    text: ElementRef<'_>,
    opaque: Option<ElementRef<'_>>,
) -> bool {
    use crate::boxes::{BoxIndex, Reach};
    let Some(area) = cx
        .rendered(text.id())
        .and_then(|f| f.bounds)
        .filter(|r| r.width > 0.0 && r.height > 0.0)
    else {
        return false;
    };
    let position = |e: ElementRef<'_>| cx.style(e).get("position");
    let mut ancestors = text.ancestors().filter_map(ElementRef::wrap);
    let fixed = ancestors.clone().find(|a| position(*a) == Some("fixed"));
    if ancestors.any(|a| position(a) == Some("sticky")) {
        return false;
    }
    if let Some(f) = fixed {
        // The opaque background must be the fixed box's or inside it.
        let inside = opaque.is_some_and(|o| o == f || o.ancestors().any(|a| a.id() == f.id()));
        if !inside {
            return false;
        }
    }
    let index = cx.boxes_cell().get_or_init(|| {
        let mut index = BoxIndex::new(
            cx.root()
                .descendants()
                .filter_map(ElementRef::wrap)
                .filter_map(|e| {
                    // Added by a script after the snapshot: its box is not
                    // known. In flow, it is taken to lie in its nearest
                    // known ancestor's box; out of flow, in an out-of-flow
                    // box, or painting beyond itself, anywhere.
                    let Some(facts) = cx.rendered(e.id()) else {
                        // (A few steps up at most: a script may add a deep
                        // tree.)
                        let known = e
                            .ancestors()
                            .take(64)
                            .filter_map(ElementRef::wrap)
                            .find(|a| cx.rendered(a.id()).is_some());
                        let within = known
                            .filter(|a| {
                                !cx.style(e).is_positioned()
                                    && !cx.style(*a).is_positioned()
                                    && !spills(cx, e)
                            })
                            .and_then(|a| cx.rendered(a.id()).and_then(|f| f.bounds));
                        return Some(match within {
                            Some(r) => (e.id(), r, Reach::Box),
                            None => {
                                let anywhere = Rect { x: 0.0, y: 0.0, width: 1.0, height: 1.0 };
                                (e.id(), anywhere, Reach::Anywhere)
                            }
                        });
                    };
                    if !facts.is_visible() {
                        return None;
                    }
                    let mut r = facts.bounds?;
                    let reach = match ink(cx, e) {
                        Ink::Anywhere => Reach::Anywhere,
                        Ink::Within(beyond) => {
                            r = grown(r, beyond);
                            if matches!(position(e), Some("fixed" | "sticky")) {
                                Reach::Columns
                            } else {
                                Reach::Box
                            }
                        }
                    };
                    if cx.style(e).is_positioned() {
                        r = grown(r, CLEAR_MARGIN);
                    }
                    Some((e.id(), r, reach))
                }),
        );
        index.scrolls_sideways = scrolls_sideways(cx, index.right());
        index
    });
    // Whether `node` is `text` itself or in it, and whether it is in the
    // fixed box (when there is one): one walk up from it, each step counted
    // against the page's looks (`None` once they are spent).
    let relation = |node: ego_tree::NodeId| -> Option<(bool, bool)> {
        let n = cx.doc().tree.get(node)?;
        let mut in_text = false;
        let mut in_fixed = fixed.is_none();
        for a in std::iter::once(n).chain(n.ancestors()) {
            if !index.spend(1) {
                return None;
            }
            in_text |= a.id() == text.id();
            in_fixed |= fixed.is_some_and(|f| f.id() == a.id());
            if in_text && in_fixed {
                break;
            }
        }
        Some((in_text, in_fixed))
    };
    let chain: rustc_hash::FxHashSet<_> = text.ancestors().map(|a| a.id()).collect();
    // An element that may lie under the text: not one of its ancestors, not
    // its own content, and (text in a fixed box) in that box. Not known
    // counts.
    let other = |node: ego_tree::NodeId| {
        if chain.contains(&node) {
            return false;
        }
        match relation(node) {
            Some((in_text, in_fixed)) => !in_text && in_fixed,
            None => true,
        }
    };
    // Text in a fixed box moves with the other fixed boxes: their boxes
    // tell. Else they count across the text's columns, or anywhere on a page
    // wider than its viewport (it scrolls sideways too).
    let columns = if fixed.is_some() {
        Reach::Box
    } else if index.scrolls_sideways {
        Reach::Anywhere
    } else {
        Reach::Columns
    };
    // A fixed or sticky element in the text's stacking context (the nearest
    // layered ancestor's, or the page's), with no negative `z-index`, is
    // painted after the text's in-flow content: it passes over the text,
    // never under it. Text that is itself layered (a heading made
    // `position: relative` for its anchor) is painted in its stacking
    // context's positioned layer: a fixed or sticky element passes over it
    // when it is raised in that context (a `z-index` above the text's 0).
    // A value declared other than its initial one.
    let set = |e: ElementRef<'_>, name: &str, initial: &str| {
        cx.style(e).get(name).is_some_and(|v| v.trim() != initial)
    };
    // What groups an element's painting whatever its position.
    let grouped = |e: ElementRef<'_>| {
        set(e, "transform", "none")
            || set(e, "filter", "none")
            || set(e, "mix-blend-mode", "normal")
            || cx.style(e).opacity < 1.0
    };
    let layered = |e: ElementRef<'_>| !matches!(position(e), None | Some("static")) || grouped(e);
    let z_index = |e: ElementRef<'_>| {
        cx.style(e)
            .get("z-index")
            .and_then(|z| z.trim().parse::<i64>().ok())
    };
    // Whether `e` makes a stacking context of its own (the properties the
    // rules read; one missed makes the context found an outer one, where a
    // raised box is still raised over everything at the text's level).
    let stacks = |e: ElementRef<'_>| {
        matches!(position(e), Some("fixed" | "sticky"))
            || (position(e).is_some_and(|p| p != "static") && z_index(e).is_some())
            || set(e, "isolation", "auto")
            || grouped(e)
    };
    let text_is_layered = layered(text);
    let context = if text_is_layered {
        if z_index(text).unwrap_or(0) != 0 {
            Err(())
        } else {
            Ok(text.ancestors().filter_map(ElementRef::wrap).find(|a| stacks(*a)))
        }
    } else {
        Ok(text.ancestors().filter_map(ElementRef::wrap).find(|a| layered(*a)))
    };
    let negative = |e: ElementRef<'_>| {
        cx.style(e)
            .get("z-index")
            .is_some_and(|z| z.trim().starts_with('-'))
    };
    let passes_over = |node: ego_tree::NodeId| {
        let Ok(context) = context else {
            return false;
        };
        let Some(e) = cx.doc().tree.get(node).and_then(ElementRef::wrap) else {
            return false;
        };
        if !matches!(position(e), Some("fixed" | "sticky")) || negative(e) {
            return false;
        }
        if text_is_layered {
            // Its level in the text's context: that of its outermost
            // ancestor below the context that stacks (itself, else).
            let mut level = z_index(e).unwrap_or(0);
            for a in e.ancestors().filter_map(ElementRef::wrap) {
                if !index.spend(1) {
                    return false;
                }
                if context.is_some_and(|c| c.id() == a.id()) {
                    return level > 0;
                }
                if stacks(a) {
                    level = z_index(a).unwrap_or(0);
                }
            }
            return context.is_none() && level > 0;
        }
        // Up to the text's stacking context: a negative `z-index` on the
        // way carries the box under the text.
        for a in e.ancestors().filter_map(ElementRef::wrap) {
            if !index.spend(1) {
                return false;
            }
            if context.is_some_and(|c| c.id() == a.id()) {
                return true;
            }
            if negative(a) {
                return false;
            }
        }
        context.is_none()
    };
    index.any_reaching(&area, columns, |n| !passes_over(n) && other(n)) == Some(false)
        && index.any_overlapping(&area, other) == Some(false)
}

/// Render mode: whether a visitor can scroll the page sideways: a box
/// reaches past the viewport's right edge (`right`), and the viewport's
/// overflow (the root's, or the body's when the root's is `visible`, as CSS
/// propagates it) is not `hidden` or `clip`.
fn scrolls_sideways(cx: &PageContext<'_>, right: f32) -> bool {
    let viewport = cx.rendered_page().map_or(0.0, |p| p.viewport.width);
    if right <= viewport + CLEAR_MARGIN {
        return false;
    }
    let overflow = |name: &str| {
        cx.root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == name)
            .and_then(|e| cx.rendered(e.id()))
            .map(|f| f.overflow_x.clone())
    };
    let root = overflow("html");
    let viewport_overflow = match root.as_deref() {
        Some("visible") | Some("") | None => overflow("body"),
        _ => root,
    };
    !matches!(viewport_overflow.as_deref(), Some("hidden" | "clip"))
}

/// Where `e` paints: as far as the browser's computed outline, shadows and
/// filter reach ([`crate::rendered::ink_overflow`]), or, where those were
/// not read, anywhere when it declares any of them.
fn ink(cx: &PageContext<'_>, e: ElementRef<'_>) -> Ink {
    match cx.rendered(e.id()).and_then(|f| f.ink) {
        Some(ink) => ink,
        None if spills(cx, e) => Ink::Anywhere,
        None => Ink::Within(0.0),
    }
}

/// Whether an element declares what paints beyond its box: a shadow, an
/// outline or a filter (declared values: the shorthand `outline` is kept as
/// written).
fn spills(cx: &PageContext<'_>, e: ElementRef<'_>) -> bool {
    let style = cx.style(e);
    let declared = |name: &str| {
        style
            .get(name)
            .map(str::trim)
            .is_some_and(|v| !matches!(v, "none" | "hidden" | "0" | "0px"))
    };
    declared("box-shadow") || declared("filter") || declared("outline") || declared("outline-style")
}

/// `r` grown by `m` CSS pixels on every side.
fn grown(r: Rect, m: f32) -> Rect {
    Rect {
        x: r.x - m,
        y: r.y - m,
        width: r.width + 2.0 * m,
        height: r.height + 2.0 * m,
    }
}

/// Most elements of a positioned box looked at by [`painted_area`]; a
/// larger box is taken to paint anywhere.
const MAX_CLEAR_WALK: usize = 2_000;

/// How far (CSS pixels) a painted box must stay from the text's box:
/// glyphs and borders may spill a pixel or two past the boxes layout
/// reports.
const CLEAR_MARGIN: f32 = 2.0;

/// Render mode: the layout boxes the browser gave the positioned box `s`
/// and its elements (at most [`MAX_CLEAR_WALK`]), each grown by what it
/// paints beyond it ([`ink`]), within which it paints; `None` when it may
/// paint anywhere: a static read (no layout), an element the snapshot did
/// not see, one whose reach is not known, or `fixed` positioning, which
/// moves the box over other text as the page scrolls.
fn painted_area(cx: &PageContext<'_>, s: ElementRef<'_>) -> Option<Vec<Rect>> {
    let mut boxes = Vec::new();
    for (seen, d) in s.descendants().filter_map(ElementRef::wrap).enumerate() {
        if seen >= MAX_CLEAR_WALK {
            return None;
        }
        // Added by a script after the snapshot: its box is not known.
        let facts = cx.rendered(d.id())?;
        let Ink::Within(beyond) = ink(cx, d) else {
            return None;
        };
        if cx.style(d).get("position") == Some("fixed") {
            return None;
        }
        // No layout box (not rendered, `display: contents`): paints nothing
        // itself; its children answer for themselves.
        boxes.extend(facts.bounds.map(|b| grown(b, beyond)));
    }
    Some(boxes)
}

/// Whether opaque text `fg` has `expected` contrast with both black and
/// white, and so with any backdrop at all.
fn passes_any_backdrop(fg: Rgba, expected: f32) -> bool {
    fg.is_opaque()
        && contrast_ratio(fg, Rgba::BLACK) >= expected
        && contrast_ratio(fg, Rgba::WHITE) >= expected
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
) -> Result<Vec<(Rgba, Rgba)>, Unknown> {
    let mut layers = vec![(fg, Rgba::TRANSPARENT)];
    let mut opaque_below = false;
    // Render mode: a positioned box on the way down, or one beside it, is
    // judged by the layout once the walk is done (`alone_over_ancestors`);
    // the first such doubt is the answer when the layout cannot settle it.
    let laid_out = cx.rendered(el.id()).is_some();
    let mut doubt: Option<Unknown> = None;
    let mut opaque_at = None;
    for e in std::iter::once(el).chain(el.ancestors().filter_map(ElementRef::wrap)) {
        let style = cx.style(e);
        if style.get("mix-blend-mode").is_some_and(|v| v != "normal")
            || style.get("filter").is_some_and(|v| v != "none")
        {
            return Err(Unknown::BLEND);
        }
        let paint = Paint::of(cx, e);
        let opaque = if let Some(value) = paint.image {
            let Some(stops) = gradient_stops(value) else {
                return Err(Unknown::IMAGE);
            };
            // A gradient is painted over the background color.
            let base = paint.color.ok_or(Unknown::BACKGROUND)?;
            let bgs: Vec<Rgba> = stops.into_iter().map(|g| g.over(base)).collect();
            let mut next = Vec::with_capacity(layers.len() * bgs.len());
            for (text, back) in &layers {
                for b in &bgs {
                    next.push((
                        text.over(*b).fade(paint.opacity),
                        back.over(*b).fade(paint.opacity),
                    ));
                }
            }
            layers = next;
            bgs.iter().all(|b| b.is_opaque())
        } else {
            // One background color: composite the layers in place (this runs for
            // every ancestor of every text element).
            let b = paint.color.ok_or(Unknown::BACKGROUND)?;
            for (text, back) in &mut layers {
                *text = text.over(b).fade(paint.opacity);
                *back = back.over(b).fade(paint.opacity);
            }
            b.is_opaque()
        };
        if opaque && paint.opacity >= 1.0 {
            opaque_below = true;
            opaque_at = Some(e);
            // Nothing painted further down shows through an opaque background,
            // unless an ancestor fades the whole group.
            let faded_above = e
                .ancestors()
                .filter_map(ElementRef::wrap)
                .any(|a| Paint::of(cx, a).opacity < 1.0);
            if !faded_above {
                break;
            }
        }
        // Positioned content sits over whatever the layout puts under it, which
        // need not be its DOM ancestors' background.
        if style.is_positioned() && !opaque_below {
            if !laid_out {
                return Err(Unknown::POSITIONED);
            }
            doubt.get_or_insert(Unknown::POSITIONED);
        }
        if !opaque_below && positioned_sibling(cx, e, el) {
            if !laid_out {
                return Err(Unknown::OVERLAP);
            }
            doubt.get_or_insert(Unknown::OVERLAP);
        }
        if layers.len() > 64 {
            return Err(Unknown::VARIANTS);
        }
    }
    if let Some(unknown) = doubt {
        if !alone_over_ancestors(cx, el, opaque_at) {
            return Err(unknown);
        }
    }
    Ok(layers
        .into_iter()
        .map(|(text, back)| (text.over(Rgba::WHITE), back.over(Rgba::WHITE)))
        .collect())
}

/// Whether text of this size (CSS pixels) and weight is "large" for WCAG's
/// contrast thresholds: 24 px, or 18.66 px and bold.
fn is_large(size: f32, bold: bool) -> bool {
    size >= 24.0 || (size >= 18.66 && bold)
}

/// What [`composite`] reads of one element's own painting: its opacity and
/// its background's colour and image.
struct Paint<'a> {
    opacity: f32,
    /// `None`: not resolved (custom properties, `calc`, an unparsed syntax).
    color: Option<Rgba>,
    /// The `background-image` value, when there is one.
    image: Option<&'a str>,
}

impl<'a> Paint<'a> {
    /// In render mode, the values the browser computed, where it read them:
    /// a script, a sheet injected through the CSSOM or one the cascade reads
    /// otherwise than Chromium can paint the page differently from the
    /// stylesheets served. Else the cascade's.
    fn of(cx: &'a PageContext<'_>, e: ElementRef<'_>) -> Self {
        if let Some(f) = cx.rendered(e.id()) {
            if let (Some(color), Some(image)) = (f.background_color, f.background_image.as_deref())
            {
                return Paint {
                    opacity: f.opacity,
                    color: Some(color),
                    image: Some(image).filter(|v| v.trim() != "none"),
                };
            }
        }
        let style = cx.style(e);
        Paint {
            opacity: style.opacity,
            color: style.background_color,
            image: style
                .background_image
                .then(|| style.get("background-image").unwrap_or("")),
        }
    }
}

/// Whether nothing above the text fades or blends it (its color is then the
/// color painted).
fn unfaded(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    !std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|e| {
            let s = cx.style(e);
            s.opacity < 1.0
                || s.get("mix-blend-mode").is_some_and(|v| v != "normal")
                || s.get("filter").is_some_and(|v| v != "none")
        })
}

/// `data` with the cant-tell reason added (see [`Unknown::reason`]).
fn with_reason(mut data: serde_json::Value, reason: &str) -> serde_json::Value {
    if let Some(map) = data.as_object_mut() {
        map.insert("reason".into(), json!(reason));
    }
    data
}

/// Render mode: whether an ancestor that clips what overflows it (a fixed
/// sidebar that scrolls, short of the page's root) hides part of the
/// text's box where the snapshot laid it out. There the browser's blended
/// colour and a picture show what lies behind the ancestor, not behind the
/// text as a reader scrolling the ancestor sees it; the text is judged over
/// its ancestors' colours instead.
fn clipped_away(page: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    let Some(b) = page.rendered(el.id()).and_then(|f| f.bounds) else {
        return false;
    };
    for a in el.ancestors().filter_map(ElementRef::wrap).take(512) {
        if matches!(a.value().name(), "body" | "html") {
            break;
        }
        let Some(f) = page.rendered(a.id()) else {
            continue;
        };
        if f.overflow_x == "visible" && f.overflow_y == "visible" {
            continue;
        }
        let Some(c) = f.bounds else {
            continue;
        };
        if b.x < c.x - 1.0
            || b.y < c.y - 1.0
            || b.x + b.width > c.x + c.width + 1.0
            || b.y + b.height > c.y + c.height + 1.0
        {
            return true;
        }
    }
    false
}

/// Render mode: judges the text with the browser's own colours, when it
/// knows them: the computed text colour, faded by the opacity the text is
/// painted with, over the single background colour the browser blends behind
/// it (every ancestor's and overlapping box's background composited). The
/// browser gives no blended colour over an image or a gradient; then, and for
/// text with a shadow, the static judgement runs. Returns whether it judged.
fn measured(
    page: &PageContext<'_>,
    el: ElementRef<'_>,
    style: &crate::css::ComputedStyle,
    cx: &mut Check<'_, '_>,
) -> bool {
    let Some(f) = page.rendered(el.id()) else {
        return false;
    };
    if style.get("text-shadow").is_some_and(|v| v.trim() != "none") {
        return false;
    }
    if clipped_away(page, el) {
        return false;
    }
    let large = is_large(f.font_size, f.font_weight >= 700.0);
    let expected: f32 = if large { 3.0 } else { 4.5 };
    let Some(color) = f.color else {
        return false;
    };
    // The backdrop measured pixel by pixel wins over the one colour the
    // browser blends (which, over a gradient, can be one of its stops).
    if let Some(backdrop) = f.backdrop.filter(|_| unblended(page, el)) {
        judge_backdrop(page, el, &backdrop, expected, cx);
        return true;
    }
    let Some(bg) = f.background.filter(|b| b.is_opaque()) else {
        return false;
    };
    let fg = color.fade(f.text_opacity.unwrap_or(1.0).clamp(0.0, 1.0)).over(bg);
    let ratio = contrast_ratio(fg, bg);
    // Text the same color as its background is invisible, not low contrast.
    if ratio <= 1.001 {
        return true;
    }
    if ratio >= expected {
        cx.pass();
        return true;
    }
    if part_of_disabled_widget(page, el) {
        return true;
    }
    let snippet: String = own_text(el).chars().take(40).collect();
    cx.fail(
        el,
        format!("Contrast of \"{snippet}\" is {ratio:.2}:1, below {expected}:1."),
    )
    .with_data(json!({
        "contrast_ratio": (f64::from(ratio) * 100.0).round() / 100.0,
        "expected": expected,
        "fg": fg.to_hex(),
        "bg": bg.to_hex(),
        "measured": "browser",
    }));
    true
}

/// Whether no blend mode or filter changes the text's colour as painted
/// (opacity is in the browser's text opacity).
fn unblended(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    !std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|e| {
            let s = cx.style(e);
            s.get("mix-blend-mode").is_some_and(|v| v != "normal")
                || s.get("filter").is_some_and(|v| v != "none")
        })
}

/// Render mode, over a backdrop the browser measured pixel by pixel (an
/// image, a gradient, content behind): passed when the text has the
/// expected contrast with every pixel, failed when with none, and cannot
/// tell (`mixed-backdrop`) when with some only. Findings carry the lowest
/// and highest ratios.
fn judge_backdrop(
    page: &PageContext<'_>,
    el: ElementRef<'_>,
    b: &MeasuredBackdrop,
    expected: f32,
    cx: &mut Check<'_, '_>,
) {
    let verdict = b.judge(expected);
    // Text the same color as all its backdrop is invisible, not low contrast.
    if b.max.ratio <= 1.001 {
        return;
    }
    if verdict == Some(true) {
        cx.pass();
        return;
    }
    if part_of_disabled_widget(page, el) {
        return;
    }
    let round = |r: f32| (f64::from(r) * 100.0).round() / 100.0;
    let data = json!({
        "contrast_ratio": round(b.min.ratio),
        "contrast_ratio_max": round(b.max.ratio),
        "expected": expected,
        "fg": b.min.fg.to_hex(),
        "bg": b.min.bg.to_hex(),
        "pixels": b.pixels,
        "measured": "screenshot",
    });
    let snippet: String = own_text(el).chars().take(40).collect();
    let (min, max) = (b.min.ratio, b.max.ratio);
    if verdict == Some(false) {
        let message = if max - min < 0.01 {
            format!("Contrast of \"{snippet}\" is {min:.2}:1 over its backdrop, below {expected}:1.")
        } else {
            format!("Contrast of \"{snippet}\" is {min:.2}:1 to {max:.2}:1 over its backdrop, below {expected}:1 everywhere.")
        };
        cx.fail(el, message).with_data(data);
    } else {
        cx.cant_tell(
            el,
            format!(
                "Contrast needs review: \"{snippet}\" ranges from {min:.2}:1 to {max:.2}:1 over a mixed backdrop (needs {expected}:1)."
            ),
        )
        .with_data(with_reason(data, "mixed-backdrop"));
    }
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
        if measured(page, el, style, cx) {
            return;
        }
        // In render mode the browser's text colour and size, where it read
        // them, as for the backgrounds in `composite`.
        let rendered = page.rendered(el.id()).filter(|f| f.color.is_some());
        let large = match rendered {
            Some(f) => is_large(f.font_size, f.font_weight >= 700.0),
            None => is_large(style.font_size, style.is_bold()),
        };
        let expected: f32 = if large { 3.0 } else { 4.5 };
        // A sheet the page uses is missing: any color here may be another.
        if let Some(why) = page.styles_incomplete() {
            if !part_of_disabled_widget(page, el) {
                cx.cant_tell(el, format!("Contrast needs review: {why}."))
                    .with_data(json!({ "reason": reason::STYLES_INCOMPLETE }));
            }
            return;
        }
        let Some(fg) = rendered.and_then(|f| f.color).or(style.color) else {
            if !part_of_disabled_widget(page, el) {
                cx.cant_tell(
                    el,
                    "Contrast needs review: the text color cannot be resolved (custom properties or calc).",
                )
                .with_data(json!({ "reason": reason::TEXT_COLOR_UNRESOLVED }));
            }
            return;
        };
        let pairs = match composite(page, el, fg) {
            Ok(pairs) => pairs,
            Err(unknown) => {
                // An opaque halo all round the glyphs is their backdrop, whatever
                // the image or content behind it (WCAG's understanding of 1.4.3
                // measures haloed text against the halo); text that contrasts
                // with both black and white does with whatever lies behind.
                if halo_contrast(page, el, fg).is_some_and(|r| r >= expected)
                    || (unknown.backdrop_only
                        && unfaded(page, el)
                        && passes_any_backdrop(fg, expected))
                {
                    cx.pass();
                } else if !part_of_disabled_widget(page, el) {
                    cx.cant_tell(el, format!("Contrast needs review: {}.", unknown.why))
                        .with_data(json!({ "reason": unknown.reason }));
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
                )
                .with_data(json!({ "reason": "text-shadow" }));
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
                .with_data(with_reason(data(), "text-shadow"));
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
            .with_data(with_reason(data(), "gradient"));
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
    use crate::testing::{RuleTester, UNREACHABLE};
    use crate::{analyze, Page};

    /// What the browser computed for a rendered, visible block with the
    /// box `bounds` (`None`: no box), for the layout tests.
    fn boxed(bounds: Option<Rect>) -> Option<crate::rendered::ElementFacts> {
        Some(crate::rendered::ElementFacts {
            display: "block".into(),
            visibility: "visible".into(),
            opacity: 1.0,
            bounds,
            ..Default::default()
        })
    }

    /// A box, for [`boxed`].
    fn r(x: f32, y: f32, width: f32, height: f32) -> Option<Rect> {
        Some(Rect { x, y, width, height })
    }

    /// What the browser computed for a rendered block of 16 px text in
    /// `color`, with its box and its own background colour (`None`: not
    /// read, as from a worker of an earlier version).
    fn text_facts(
        bounds: Option<Rect>,
        color: &str,
        background: Option<&str>,
    ) -> Option<crate::rendered::ElementFacts> {
        Some(crate::rendered::ElementFacts {
            display: "block".into(),
            visibility: "visible".into(),
            opacity: 1.0,
            color: Rgba::parse(color),
            font_size: 16.0,
            font_weight: 400.0,
            bounds,
            background_color: background.and_then(Rgba::parse),
            background_image: background.map(|_| "none".to_string()),
            ..Default::default()
        })
    }

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
                r##"<pre style="background:#fff"><span style="color:#aaa">"""</span></pre>"##,
                r##"<pre style="background:#fff"><span style="color:#aaa">{% </span></pre>"##,
                // Punctuation with no words in the whole text, one symbol or
                // several.
                r##"<p style="background:#fff;color:#ccc"><a href=/next style="color:#000">»</a> | <a href=/last style="color:#000">»»</a></p>"##,
                r##"<a href=/next style="background:#fff;color:#ccc">»</a>"##,
            ])
            .fail(&[
                ("p", r##"<p style="color:#aaa;background:white">Light text</p>"##),
                ("span", r##"<pre style="background:#fff"><span style="color:#aaa">"""Docstring</span></pre>"##),
                ("span", r##"<p style="background:#fff"><span style="color:#aaa">-- 42</span></p>"##),
                // Punctuation-only own text is read with the words of the
                // whole text: two separators, or one.
                ("p", r##"<p style="background:#fff;color:#ccc"><a href=/a style="color:#000">de</a> | <a href=/b style="color:#000">en</a> | <a href=/c style="color:#000">fr</a></p>"##),
                ("p", r##"<p style="background:#fff;color:#ccc"><a href=/a style="color:#000">de</a> | <a href=/b style="color:#000">en</a></p>"##),
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

    /// The page's stylesheet link.
    const LINK: &str = r#"<link rel=stylesheet href="a.css">"#;
    /// No cap on stylesheets reached.
    const ALL: usize = 100;
    const LIGHT: &str = "p { color: #aaa; background: #fff }";
    const DARK: &str = "p { color: #000; background: #fff }";
    /// Light text that wins over `DARK` wherever it applies.
    const FORCED_LIGHT: &str = "p { color: #aaa !important }";

    /// A page with `html_head` and one paragraph `#t`, its sheets by name
    /// under `https://example.com/`, at most `max_sheets` of them fetched.
    fn linked_capped(html_head: &str, sheets: &[(&str, &str)], max_sheets: usize) -> Page {
        let owned: Vec<(String, &str)> = sheets
            .iter()
            .map(|(name, text)| (format!("https://example.com/{name}"), *text))
            .collect();
        let refs: Vec<(&str, &str)> = owned.iter().map(|(u, t)| (u.as_str(), *t)).collect();
        RuleTester::page_with_sheets(
            &format!("{html_head}<p id=t>Some text</p>"),
            &refs,
            max_sheets,
        )
    }

    /// [`linked_capped`] with every sheet fetched.
    fn linked(html_head: &str, sheets: &[(&str, &str)]) -> Page {
        linked_capped(html_head, sheets, ALL)
    }

    /// `a.css` (linked) imports `b.css` under `condition` (`""`, ` print`,
    /// ` supports(...)`), then sets dark text; `b.css` forces light text, so
    /// the text fails exactly when the import applies.
    fn import_when(condition: &str) -> Page {
        let a = format!("@import url(b.css){condition}; {DARK}");
        linked(LINK, &[("a.css", &a), ("b.css", FORCED_LIGHT)])
    }

    /// `a.css` (linked) imports `b.css` and then adds `own`.
    fn import_then(own: &str, imported: &str) -> Page {
        let a = format!("@import url(b.css); {own}");
        linked(LINK, &[("a.css", &a), ("b.css", imported)])
    }

    /// The findings of `color-contrast` on `page`.
    fn contrast(page: &Page) -> crate::PageAnalysis {
        analyze(page, &[&ColorContrast])
    }

    /// Render mode: a positioned sidebar beside the text (the Apache
    /// manual's quick view) is judged by its boxes. Paragraphs with a link
    /// get no blended colour from the browser and, past the backdrop cap,
    /// fall to the cascade: the ones the sidebar's boxes miss are judged
    /// over the canvas, the ones it reaches stay "cannot tell".
    #[test]
    fn a_positioned_sibling_clear_of_the_text_by_its_boxes_does_not_hide_the_backdrop() {
        use crate::rendered::{ElementFacts, RenderedFacts};
        use crate::Outcome;
        use std::sync::Arc;

        // Stamps in document order: html 0, head 1, body 2, #page 3, #side 4,
        // #item 5, #sec 6, #near 7, its link 8, #far 9, its link 10.
        let page_with = |side_style: &str,
                         side_ink: Option<Ink>,
                         item: Option<Rect>,
                         near: Rect,
                         stamped_item: bool| {
            let item_stamp = if stamped_item { " data-sitescan-node=5" } else { "" };
            let body = format!(
                "<html data-sitescan-node=0><head data-sitescan-node=1></head><body data-sitescan-node=2>\
                 <div id=page data-sitescan-node=3>\
                 <div id=side data-sitescan-node=4 style='position:absolute;background:#f0f0f0;{side_style}'>\
                 <span id=item{item_stamp}>Quick view</span></div>\
                 <div id=sec data-sitescan-node=6>\
                 <p id=near data-sitescan-node=7 style='color:#aaa'>Near <a data-sitescan-node=8 href=/a>a</a></p>\
                 <p id=far data-sitescan-node=9 style='color:#aaa'>Far <a data-sitescan-node=10 href=/b>b</a></p>\
                 </div></div></body></html>"
            );
            let mut page = Page::from_html("https://example.com/", &body);
            page.rendered = Some(Arc::new(RenderedFacts {
                elements: vec![
                    boxed(r(0.0, 0.0, 1280.0, 900.0)),
                    boxed(None),
                    boxed(r(0.0, 0.0, 1280.0, 900.0)),
                    boxed(r(0.0, 0.0, 1280.0, 900.0)),
                    boxed(r(1000.0, 100.0, 200.0, 300.0)).map(|f| ElementFacts {
                        ink: side_ink,
                        ..f
                    }),
                    boxed(item),
                    boxed(r(0.0, 0.0, 900.0, 900.0)),
                    boxed(Some(near)),
                    boxed(None),
                    boxed(r(0.0, 500.0, 900.0, 20.0)),
                    boxed(None),
                ],
                ..RenderedFacts::default()
            }));
            let a = analyze(&page, &[&ColorContrast]);
            let mut got: Vec<(String, Outcome)> = a
                .findings
                .iter()
                .map(|f| (f.selector.clone(), f.outcome))
                .collect();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            got
        };
        let page = |side_style: &str, item: Option<Rect>, near: Rect, stamped_item: bool| {
            page_with(side_style, None, item, near, stamped_item)
        };
        let inside = Some(Rect { x: 1010.0, y: 110.0, width: 100.0, height: 20.0 });
        let beside = Rect { x: 0.0, y: 150.0, width: 900.0, height: 20.0 };
        let under = Rect { x: 0.0, y: 150.0, width: 1100.0, height: 20.0 };
        let near_tells = |near: Outcome, far: Outcome| {
            vec![("#far".to_string(), far), ("#near".to_string(), near)]
        };
        use Outcome::{CantTell, Failed};
        // Both clear of the sidebar: both judged over the canvas (#aaa on
        // white fails).
        assert_eq!(page("", inside, beside, true), near_tells(Failed, Failed));
        // The sidebar reaches under #near only.
        assert_eq!(page("", inside, under, true), near_tells(CantTell, Failed));
        // The sidebar's item spills over #far: the item's box counts too.
        let spill = Some(Rect { x: 500.0, y: 490.0, width: 600.0, height: 40.0 });
        assert_eq!(page("", spill, beside, true), near_tells(Failed, CantTell));
        // A gap of one pixel is within the margin for spilled glyphs.
        let touching = Rect { x: 0.0, y: 401.0, width: 1100.0, height: 20.0 };
        assert_eq!(page("", inside, touching, true), near_tells(CantTell, Failed));
        let below = Rect { x: 0.0, y: 403.0, width: 1100.0, height: 20.0 };
        assert_eq!(page("", inside, below, true), near_tells(Failed, Failed));
        // What may paint beyond the boxes keeps the answer unknown.
        // So does a fixed box painted under the page's text (a negative
        // z-index), which scrolling moves anywhere in its columns; one with
        // none is painted over in-flow text, never under it.
        for style in ["box-shadow:0 0 40px #000", "outline:3px solid red", "filter:drop-shadow(0 0 9px #000)", "position:fixed;z-index:-1"] {
            // (A filter also makes the sidebar's own text "cannot tell".)
            let mut got = page(style, inside, beside, true);
            got.retain(|(s, _)| s != "#item");
            assert_eq!(got, near_tells(CantTell, CantTell), "{style}");
        }
        assert_eq!(page("position:fixed", inside, under, true), near_tells(Failed, Failed));
        // Where the browser computed how far the sidebar paints, that
        // reach counts, not the declaration: an outline of 3 pixels stays
        // clear of both paragraphs, a shadow reaching 120 pixels covers
        // both, and a reach not known (a filter by URL) is anywhere.
        let style = "outline:3px solid red";
        let judged = |ink: Ink| {
            let mut got = page_with(style, Some(ink), inside, beside, true);
            got.retain(|(s, _)| s != "#item");
            got
        };
        assert_eq!(judged(Ink::Within(3.0)), near_tells(Failed, Failed));
        assert_eq!(judged(Ink::Within(120.0)), near_tells(CantTell, CantTell));
        assert_eq!(judged(Ink::Anywhere), near_tells(CantTell, CantTell));
        // An element of the sidebar the snapshot did not see (a script added it).
        assert_eq!(page("", inside, beside, false), near_tells(CantTell, CantTell));
    }

    /// Render mode: a sticky header raised by its `z-index` passes over a
    /// heading made `position: relative` (for its anchor) as the page
    /// scrolls, never under it; one not raised is painted under the heading
    /// when it scrolls there (tree order), and a heading raised above the
    /// header may be painted over it.
    #[test]
    fn a_raised_sticky_header_passes_over_layered_text() {
        use crate::rendered::RenderedFacts;
        use crate::Outcome;
        use std::sync::Arc;

        // Stamps: html 0, head 1, body 2, #side 3, #main 4, header 5, #t 6.
        // The fixed sidebar beside the text is why its backdrop is in doubt
        // at all (it paints anywhere down its columns).
        let judge = |header_z: &str, text_z: &str| {
            let body = format!(
                "<html data-sitescan-node=0><head data-sitescan-node=1></head><body data-sitescan-node=2>\
                 <aside id=side data-sitescan-node=3 style='position:fixed;left:0;top:0;background:#222'></aside>\
                 <div id=main data-sitescan-node=4>\
                 <header data-sitescan-node=5 style='position:sticky;top:0;background:#333;{header_z}'></header>\
                 <h2 id=t data-sitescan-node=6 style='position:relative;color:#aaa;{text_z}'>Heading</h2>\
                 </div></body></html>"
            );
            let mut page = Page::from_html("https://example.com/", &body);
            page.rendered = Some(Arc::new(RenderedFacts {
                elements: vec![
                    boxed(r(0.0, 0.0, 1280.0, 900.0)),
                    boxed(None),
                    boxed(r(0.0, 0.0, 1280.0, 900.0)),
                    boxed(r(0.0, 0.0, 200.0, 900.0)),
                    boxed(r(250.0, 0.0, 1030.0, 900.0)),
                    boxed(r(250.0, 0.0, 1030.0, 100.0)),
                    boxed(r(250.0, 500.0, 900.0, 30.0)),
                ],
                viewport: Rect { x: 0.0, y: 0.0, width: 1280.0, height: 720.0 },
                ..RenderedFacts::default()
            }));
            let a = analyze(&page, &[&ColorContrast]);
            a.findings
                .iter()
                .find(|f| f.selector == "#t")
                .map(|f| f.outcome)
        };
        assert_eq!(judge("z-index:1", ""), Some(Outcome::Failed));
        assert_eq!(judge("", ""), Some(Outcome::CantTell));
        assert_eq!(judge("z-index:1", "z-index:2"), Some(Outcome::CantTell));
        assert_eq!(judge("z-index:-1", ""), Some(Outcome::CantTell));
    }

    /// Render mode, text with no blended colour from the browser (a
    /// paragraph with a link) judged past the backdrop cap: the colours are
    /// the ones the browser computed, not the stylesheets' (here a theme
    /// switcher's script painted the page light; the served sheets say dark).
    #[test]
    fn past_the_browsers_blend_the_computed_colours_win_over_the_cascade() {
        use crate::rendered::RenderedFacts;
        use crate::Outcome;
        use std::sync::Arc;

        // Stamps: html 0, head 1, body 2, #box 3, #t 4, its link 5.
        let body = "<html data-sitescan-node=0><head data-sitescan-node=1>\
             <style>#box { background: #000 } #t { color: #fff }</style></head>\
             <body data-sitescan-node=2><div id=box data-sitescan-node=3>\
             <p id=t data-sitescan-node=4>Some text <a data-sitescan-node=5 href=/a>and a link</a></p>\
             </div></body></html>";
        let judge = |browser: bool| {
            let mut page = Page::from_html("https://example.com/", body);
            let facts = |color: &str, background: &str| {
                let bounds = Some(Rect { x: 0.0, y: 0.0, width: 800.0, height: 20.0 });
                text_facts(bounds, color, browser.then_some(background))
            };
            page.rendered = Some(Arc::new(RenderedFacts {
                elements: vec![
                    facts("#000", "rgba(0, 0, 0, 0)"),
                    facts("#000", "rgba(0, 0, 0, 0)"),
                    facts("#000", "rgba(0, 0, 0, 0)"),
                    facts("#000", "#fff"),
                    facts("#777", "rgba(0, 0, 0, 0)"),
                    facts("#777", "rgba(0, 0, 0, 0)"),
                ],
                ..RenderedFacts::default()
            }));
            analyze(&page, &[&ColorContrast])
                .findings
                .into_iter()
                .map(|f| (f.selector, f.outcome, f.data))
                .collect::<Vec<_>>()
        };
        // #777 on the white box the browser painted: 4.48:1 fails, for the
        // paragraph's own text and its link's.
        let got = judge(true);
        assert_eq!(got.len(), 2, "{got:?}");
        for (_, outcome, data) in &got {
            assert_eq!(*outcome, Outcome::Failed);
            let data = data.as_ref().expect("a failure carries its colours");
            assert_eq!(data["fg"], "#777777");
            assert_eq!(data["bg"], "#ffffff");
            assert_eq!(data["contrast_ratio"], 4.48);
        }
        assert_eq!(got[0].0, "#t");
        // Facts without the backgrounds (a worker of an earlier version):
        // the cascade's black box under the browser's text colour, 4.69:1.
        assert!(judge(false).is_empty());
    }

    /// Render mode: text in a positioned box (mdBook's table of contents in
    /// a fixed sidebar, scrolled in an absolute box) is judged over its
    /// ancestors' backgrounds when the layout puts nothing else under it.
    #[test]
    fn positioned_text_with_nothing_else_under_its_box_is_judged() {
        use crate::rendered::RenderedFacts;
        use crate::Outcome::{self, CantTell, Failed};
        use std::sync::Arc;

        let r = |x: f32, y: f32, width: f32, height: f32| Some(Rect { x, y, width, height });
        // Stamps: html 0, head 1, body 2, #side 3, #scroll 4, #one 5 and its
        // strong 6, #two 7 and its strong 8, #badge 9, main 10, #far 11 and
        // its link 12, #bar 13.
        let judge_wide = |side: &str,
                          badge: Option<Rect>,
                          (wrap, bar): (&str, &str),
                          rendered: bool,
                          main_width: f32,
                          body_overflow: &str| {
            let body = format!(
                "<html data-sitescan-node=0><head data-sitescan-node=1></head><body data-sitescan-node=2>\
                 <nav id=side data-sitescan-node=3 style='position:fixed;{side}'>\
                 <div id=scroll data-sitescan-node=4 style='position:absolute'>\
                 <a id=one data-sitescan-node=5 href=/1 style='color:#999'><strong data-sitescan-node=6>1.</strong> One</a>\
                 <a id=two data-sitescan-node=7 href=/2 style='color:#999'><strong data-sitescan-node=8>2.</strong> Two</a>\
                 <span id=badge data-sitescan-node=9 style='position:absolute;background:red'></span></div></nav>\
                 <main data-sitescan-node=10><div style='position:absolute' data-sitescan-node=11>\
                 <p id=far data-sitescan-node=12 style='color:#999'>Far <b>away</b></p></div>\
                 <p id=flow data-sitescan-node=15 style='color:#999'>In <i data-sitescan-node=16>flow</i></p></main>\
                 <div id=wrap data-sitescan-node=14 style='{wrap}'>\
                 <div id=bar data-sitescan-node=13 style='{bar}'></div></div></body></html>"
            );
            let mut page = Page::from_html("https://example.com/", &body);
            let side_bg = if side.contains("background") { "#ffffff" } else { "rgba(0, 0, 0, 0)" };
            let facts = |bounds: Option<Rect>, color: &str, bg: &str| text_facts(bounds, color, Some(bg));
            let clear = "rgba(0, 0, 0, 0)";
            let elements = vec![
                facts(r(0.0, 0.0, 1280.0, 3000.0), "#000", clear),
                facts(None, "#000", clear),
                facts(r(0.0, 0.0, 1280.0, 3000.0), "#000", "#ffffff").map(|mut f| {
                    f.overflow_x = body_overflow.into();
                    f
                }),
                facts(r(0.0, 0.0, 300.0, 720.0), "#000", side_bg),
                facts(r(0.0, 0.0, 300.0, 720.0), "#000", clear),
                facts(r(10.0, 10.0, 200.0, 20.0), "#999", clear),
                facts(r(10.0, 10.0, 20.0, 20.0), "#999", clear),
                facts(r(10.0, 40.0, 200.0, 20.0), "#999", clear),
                facts(r(10.0, 40.0, 20.0, 20.0), "#999", clear),
                facts(badge, "#000", "#ff0000"),
                facts(r(300.0, 0.0, main_width, 3000.0), "#000", clear),
                facts(r(400.0, 2000.0, 600.0, 40.0), "#000", clear),
                facts(r(400.0, 2000.0, 600.0, 20.0), "#999", clear),
                facts(r(0.0, 0.0, 1280.0, 50.0), "#000", "#ffffff"),
                facts(r(0.0, 0.0, 1280.0, 50.0), "#000", clear),
                facts(r(400.0, 2100.0, 600.0, 20.0), "#999", clear),
                facts(r(420.0, 2100.0, 30.0, 20.0), "#999", clear),
            ];
            if rendered {
                page.rendered = Some(Arc::new(RenderedFacts {
                    elements,
                    viewport: Rect { x: 0.0, y: 0.0, width: 1280.0, height: 720.0 },
                    ..RenderedFacts::default()
                }));
            }
            let mut got: Vec<(String, Outcome)> = analyze(&page, &[&ColorContrast])
                .findings
                .into_iter()
                .filter(|f| f.selector.starts_with('#'))
                .map(|f| (f.selector, f.outcome))
                .collect();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            got
        };
        let judge = |side: &str, badge: Option<Rect>, bar: &str, rendered: bool| {
            judge_wide(side, badge, ("", bar), rendered, 980.0, "visible")
        };
        // Each link's numbering (its `strong`) and the in-flow paragraph's
        // `i` end as their parents do; the far paragraph's `b` carries no
        // stamp (a script added it): its box is not known.
        let s = |v: &[(&str, Outcome)]| -> Vec<(String, Outcome)> {
            let mut all: Vec<(String, Outcome)> = Vec::new();
            for (sel, o) in v {
                all.push((sel.to_string(), *o));
                let child = match *sel {
                    "#far" => ("#far > b", CantTell),
                    "#flow" => ("#flow > i", *o),
                    "#one" => ("#one > strong", *o),
                    _ => ("#two > strong", *o),
                };
                all.push((child.0.to_string(), child.1));
            }
            all.sort_by(|a, b| a.0.cmp(&b.0));
            all
        };
        let away = r(900.0, 400.0, 10.0, 10.0);
        // Nothing else under the links nor the far paragraph: judged (#999
        // on white fails).
        assert_eq!(
            judge("background:#fff", away, "", true),
            s(&[("#far", Failed), ("#flow", Failed), ("#one", Failed), ("#two", Failed)])
        );
        // The badge lies under the second link's text only, clear of its
        // numbering's box.
        let mut badge = s(&[("#far", Failed), ("#flow", Failed), ("#one", Failed), ("#two", CantTell)]);
        badge[7].1 = Failed;
        assert_eq!(badge[7].0, "#two > strong");
        assert_eq!(judge("background:#fff", r(150.0, 45.0, 30.0, 10.0), "", true), badge);
        // The sidebar paints no background of its own: the page scrolls
        // under it, so its text is not known.
        assert_eq!(
            judge("", away, "", true),
            s(&[("#far", Failed), ("#flow", Failed), ("#one", CantTell), ("#two", CantTell)])
        );
        // A fixed bar across the far paragraph's columns (at another
        // height): scrolling brings it there. The sidebar's text moves with
        // the bar, and whatever lies outside the sidebar is over it or
        // hidden by its opaque background.
        assert_eq!(
            judge("background:#fff", away, "position:fixed", true),
            s(&[("#far", CantTell), ("#flow", Failed), ("#one", Failed), ("#two", Failed)])
        );
        // The main column reaches past the viewport's right edge: the page
        // scrolls sideways, so the fixed sidebar may pass under any text,
        // unless the body's overflow (the viewport's) is hidden.
        let (away_bg, wide) = ("background:#fff", 1200.0);
        assert_eq!(
            judge_wide(away_bg, away, ("", ""), true, wide, "visible"),
            s(&[("#far", CantTell), ("#flow", Failed), ("#one", Failed), ("#two", Failed)])
        );
        assert_eq!(
            judge_wide(away_bg, away, ("", ""), true, wide, "hidden"),
            s(&[("#far", Failed), ("#flow", Failed), ("#one", Failed), ("#two", Failed)])
        );
        // The in-flow paragraph: a fixed bar across its columns is painted
        // over it, unless a negative z-index on the way puts it under.
        let under_page = ("position:relative;z-index:-1", "position:fixed");
        assert_eq!(
            judge_wide(away_bg, away, under_page, true, 980.0, "visible"),
            s(&[("#far", CantTell), ("#flow", CantTell), ("#one", Failed), ("#two", Failed)])
        );
        // Read as served: no layout, nothing positioned is judged.
        assert_eq!(
            judge("background:#fff", away, "", false),
            s(&[("#far", CantTell), ("#flow", CantTell), ("#one", CantTell), ("#two", CantTell)])
        );
    }

    #[test]
    fn imported_sheets_are_applied_in_cascade_order() {
        RuleTester::new(&ColorContrast)
            // The colors live two imports down.
            .fail_page(
                "#t",
                linked(
                    LINK,
                    &[("a.css", "@import url(b.css);"), ("b.css", "@import 'c.css';"), ("c.css", LIGHT)],
                ),
            )
            // The importing sheet's own rules come after what it imports.
            .pass_page("#t", import_then(DARK, LIGHT))
            .fail_page("#t", import_then(LIGHT, DARK))
            // A cycle is ignored, as browsers ignore it: a.css comes last.
            .fail_page(
                "#t",
                linked(
                    LINK,
                    &[
                        ("a.css", &format!("@import url(b.css); {LIGHT}")),
                        ("b.css", &format!("@import url(a.css); {DARK}")),
                    ],
                ),
            )
            // `@import` after a rule is ignored, as CSS says.
            .pass_page(
                "#t",
                linked(LINK, &[("a.css", &format!("{DARK} @import url(b.css);")), ("b.css", FORCED_LIGHT)]),
            )
            // Print-only imports are not fetched or applied; screen ones are.
            .pass_page("#t", import_when(" print"))
            .fail_page("#t", import_when(" screen"))
            .pass_page("#t", import_when(" (max-width: 600px)"))
            // A false `supports()` keeps the import out.
            .pass_page("#t", import_when(" supports(not (display: grid))"))
            // Imported into a layer: the unlayered rules of a.css win.
            .fail_page(
                "#t",
                linked(LINK, &[("a.css", &format!("@import url(b.css) layer(base); {LIGHT}")), ("b.css", "#t { color: #000 }")]),
            )
            // `<link media>`: a print sheet does not apply, a screen one does.
            .pass_page(
                "#t",
                linked(r#"<link rel=stylesheet href="a.css" media=print>"#, &[("a.css", LIGHT)]),
            )
            .fail_page(
                "#t",
                linked(r#"<link rel=stylesheet href="a.css" media="screen and (min-width: 40em)">"#, &[("a.css", LIGHT)]),
            )
            .run();
    }

    #[test]
    fn sheets_that_could_not_be_loaded_leave_the_contrast_undecided() {
        let chain: Vec<(String, String)> = (0..7)
            .map(|i| {
                let next = format!("@import url(s{}.css); ", i + 1);
                (format!("s{i}.css"), if i < 6 { next } else { DARK.to_string() })
            })
            .collect();
        let chain: Vec<(&str, &str)> = chain.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let gone = || import_then(DARK, UNREACHABLE);
        // b.css answers 404: missing for browsers too.
        let not_found = || linked(LINK, &[("a.css", &format!("@import url(b.css); {DARK}"))]);
        RuleTester::new(&ColorContrast)
            // The imported sheet does not answer.
            .cant_tell_page("#t", gone())
            // The linked sheet does not answer.
            .cant_tell_page("#t", linked(LINK, &[("a.css", UNREACHABLE)]))
            // Sheets that answer 404 are missing for browsers too: the page
            // is judged as browsers render it.
            .pass_page("#t", not_found())
            .fail_page(
                "#t",
                linked(&format!(r#"{LINK}<link rel=stylesheet href="gone.css">"#), &[("a.css", LIGHT)]),
            )
            // A print-only sheet that fails changes nothing.
            .pass_page(
                "#t",
                linked(
                    &format!(r#"<style>{DARK}</style><link rel=stylesheet href="p.css" media=print>"#),
                    &[("p.css", UNREACHABLE)],
                ),
            )
            // Past the page's cap on stylesheets.
            .cant_tell_page("#t", linked_capped(LINK, &[("a.css", &format!("@import url(b.css); {DARK}")), ("b.css", LIGHT)], 1))
            // Nested deeper than followed.
            .cant_tell_page("#t", linked(r#"<link rel=stylesheet href="s0.css">"#, &chain))
            .run();
        let a = contrast(&gone());
        assert_eq!(
            a.findings[0].message,
            "Contrast needs review: the stylesheet https://example.com/b.css could not be loaded (connection refused)."
        );
        assert_eq!(a.findings[0].data, Some(json!({"reason": "styles-incomplete"})));
        assert_eq!(
            a.incomplete.as_deref(),
            Some("1 stylesheet of the page could not be loaded: https://example.com/b.css (connection refused); styles were computed without them, so rules built on the cascade (color-contrast and others) report cannot tell where they could change the answer")
        );
        // The page still says when a sheet answers 404.
        assert_eq!(
            contrast(&not_found()).incomplete.as_deref(),
            Some("1 stylesheet of the page could not be loaded: https://example.com/b.css (HTTP 404, for browsers too); styles were computed without them, as browsers render the page")
        );
    }

    #[test]
    fn supports_layers_and_where_are_honoured() {
        RuleTester::new(&ColorContrast)
            .fail(&[
                ("p", "<style>@supports (display: grid) { p { color: #aaa } }</style><p>Text</p>"),
                // The fallback for a color the cascade cannot read applies.
                ("p", "<style>@supports (color: color-mix(in srgb, red, blue)) { p { color: color-mix(in srgb, #000, #000) } } @supports not (color: color-mix(in srgb, red, blue)) { p { color: #aaa } }</style><p>Text</p>"),
                // Layer order: the later layer wins, whatever the source order.
                ("p", "<style>@layer base, theme; @layer theme { p { color: #aaa } } @layer base { p { color: #000 } }</style><p>Text</p>"),
                // Unlayered beats layered whatever the specificity.
                ("p", "<style>@layer base { #x { color: #000 } } p { color: #aaa }</style><p id=x>Text</p>"),
                // `!important` reverses the order: the layered one wins.
                ("p", "<style>@layer base { p { color: #aaa !important } } p { color: #000 !important }</style><p>Text</p>"),
                // Sublayers rank below their layer's own rules.
                ("p", "<style>@layer a { @layer b { p { color: #000 } } p { color: #aaa } }</style><p>Text</p>"),
                // :where() counts nothing: the later `p` wins.
                ("p", "<style>:where(#x) { color: #000 } p { color: #aaa }</style><p id=x>Text</p>"),
                // :is() counts its most specific argument.
                ("p", "<style>:is(#x, b) { color: #aaa } p.c { color: #000 }</style><p id=x class=c>Text</p>"),
            ])
            .pass(&[
                ("p", "<style>@supports not (display: grid) { p { color: #aaa } }</style><p>Text</p>"),
                ("p", "<style>@layer theme, base; @layer theme { p { color: #aaa } } @layer base { p { color: #000 } }</style><p>Text</p>"),
                ("p", "<style>p { color: #aaa } :is(#x) { color: #000 }</style><p id=x>Text</p>"),
            ])
            .run();
    }

    #[test]
    fn text_contrasting_with_black_and_white_passes_over_any_backdrop() {
        RuleTester::new(&ColorContrast)
            .pass(&[
                // Mid grey, large: at least 3:1 against both black and white.
                ("h1", r##"<div style="background:url(a.jpg)"><h1 style="color:#808080;font-size:32px">Title</h1></div>"##),
            ])
            .cant_tell(&[
                ("p", r##"<div style="background:url(a.jpg)"><p style="color:#808080">Body text</p></div>"##),
                ("h1", r##"<div style="position:relative"><img src=a.jpg alt="" style="position:absolute;inset:0"><h1 style="color:#000">Title</h1></div>"##),
            ])
            .run();
    }

    #[test]
    fn finding_carries_measured_data() {
        let a = contrast(&RuleTester::page(
            r##"<p style="color:#aaa;background:#fff">x y</p>"##,
        ));
        let data = a.findings[0].data.clone().unwrap();
        assert_eq!(data["contrast_ratio"], json!(2.32));
        assert_eq!(data["expected"], json!(4.5));
        assert_eq!(data["fg"], json!("#aaaaaa"));
        assert_eq!(data["bg"], json!("#ffffff"));
    }
}
