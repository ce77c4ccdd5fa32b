//! `zoomed-text-clipped`: text is not cut off by `overflow: hidden` when the
//! page is zoomed to 200% (WCAG 1.4.4, ACT 59br37).

use scraper::ElementRef;

use super::support::{cant_tell_because, reason};
use crate::aria::html::is_html;
use crate::css::cascade::is_unresolved;
use crate::css::extent::{content_extent, length, line_height, overflow, padding, Bounds};
use crate::css::Viewport;
use crate::{Category, Check, Impact, Level, Need, PageContext, Rule, RuleMeta, Visits};

/// Checks boxes that clip their overflow against the room their text needs at
/// 200% zoom.
pub struct ZoomedTextClipped;

static META: RuleMeta = RuleMeta {
    id: "zoomed-text-clipped",
    category: Category::Accessibility,
    title: "Text is not clipped when zoomed to 200%",
    help: "Let the box grow with its text (min-height instead of height), let it scroll (overflow: auto), or end clipped lines with text-overflow: ellipsis and offer the full text.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/resize-text.html",
    wcag: &["1.4.4"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["59br37"],
    needs: &[Need::NarrowViewport],
    docs: r#"## What it checks
The page as a 1280×1024 desktop shows it at 200% zoom: a 640×512 CSS-pixel
viewport, with the `@media` rules that apply there. Every visible element that
clips its overflow (`overflow: hidden` or `clip` in an axis) and holds text:
- vertically, with a fixed `height`/`max-height`, its text must fit, unless the
  `line-height` equals the height (the text is deliberately one line);
- horizontally, text kept on one line (`white-space: nowrap`) or words wider
  than the box must fit, unless `text-overflow: ellipsis` marks the cut.
Text size is estimated from the cascade (width bounded per character between
narrow and wide common fonts, line height between 1.0 and 1.4 times the font
size): text that cannot fit even at its smallest fails, text that fits even at
its largest passes, anything between is reported for review (*cannot tell*).
Boxes that scroll instead (`overflow: auto`) are fine.

In render mode (`--render`) the browser lays the page out at 640×512 CSS
pixels and measures it instead of estimating: each visible box that clips its
overflow and holds visible text **fails** when a line of its text lies partly
outside its padding box (findings carry `data.measured = "browser"`), a text
runs on past its edge, or the next line
starts right past its edge (text cut across with `text-overflow: ellipsis` is
marked, not cut), and passes otherwise: text moved wholly out of view
further away (the other slides of a carousel) is not counted as cut. Boxes
collapsed to a pixel or less (closed panels, visually hidden text) are not
judged. Elements a script added after the page was measured, and everything
past the measuring's caps, keep the estimate above.

## No silent pass
A box it applies to ends passed, failed or "needs review" (cannot tell) with
the reason in `data.reason`, as in
[`color-contrast`](color-contrast.md#no-silent-pass): `text-extent` (the
estimate of the text's size straddles the box's), `size-unresolved` (a
`height` or `max-height`, or the `width` of text kept on one line, uses custom
properties or `calc()` that do not resolve, so the box may be any size), `styles-incomplete` (a stylesheet the
page uses could not be loaded). Text already cut off by a size that is known
fails whatever the unresolved one is.

## Why it matters
People with low vision zoom text; a fixed-size box that hides its overflow cuts
the zoomed text off where nobody can reach it.

## Failing
```html
<div style="overflow: hidden; height: 1.5em">Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore, while I nodded, nearly napping, suddenly there came a tapping.</div>
```

## Passing
```html
<div style="overflow: hidden; min-height: 1.5em">Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore, while I nodded, nearly napping, suddenly there came a tapping.</div>
```

## Cannot tell
```html
<div style="overflow: hidden; height: var(--panel-height)">Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore, while I nodded, nearly napping, suddenly there came a tapping.</div>
```
"#,
    ..RuleMeta::BASE
};

const VP: Viewport = Viewport::ZOOMED;

/// A fixed size from `prop` or `max-prop` in the zoomed styles.
fn fixed(cx: &PageContext<'_>, el: ElementRef<'_>, prop: &str) -> Option<f32> {
    let style = cx.zoomed_style(el);
    let fs = style.font_size;
    style.get(prop).and_then(|v| length(v, fs, VP)).or_else(|| {
        style
            .get(&format!("max-{prop}"))
            .and_then(|v| length(v, fs, VP))
    })
}

/// Whether `prop` or `max-prop` is declared with `var()` or a math function
/// that does not resolve in the zoomed styles.
fn unresolved(cx: &PageContext<'_>, el: ElementRef<'_>, prop: &str) -> bool {
    let style = cx.zoomed_style(el);
    style.get(prop).is_some_and(is_unresolved)
        || style
            .get(&format!("max-{prop}"))
            .is_some_and(is_unresolved)
}

/// Whether content of `need` is cut off by a box of `size` plus `pad` padding:
/// `Some(true)` surely, `Some(false)` surely not, `None` in between.
fn clipped(need: Bounds, size: f32, pad: f32) -> Option<bool> {
    if need.lo > size + pad + 0.5 {
        Some(true)
    } else if need.hi <= size + pad {
        Some(false)
    } else {
        None
    }
}

impl Rule for ZoomedTextClipped {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || matches!(el.value().name(), "html" | "body") {
            return;
        }
        let page = cx.page();
        if !page.overflow_declared() {
            return;
        }
        // Render mode: the browser's layout at 640 pixels settles a stamped
        // box; past a cap of the measuring the estimate below stands.
        let zoomed = page
            .rendered_page()
            .and_then(|r| r.narrow.as_ref())
            .and_then(|n| n.zoomed.as_ref());
        if let (Some(layout), Some(stamp)) = (zoomed, page.stamp(el.id())) {
            match layout.clipping(stamp) {
                Some(c) if c.cut => {
                    cx.fail(
                        el,
                        "At 200% zoom (640 CSS pixels wide) the browser shows this box cutting off its text.",
                    )
                    .with_data(serde_json::json!({ "viewport": 640, "measured": "browser" }));
                    return;
                }
                Some(_) => {
                    cx.pass();
                    return;
                }
                // Not a box that clips text there.
                None if layout.complete => return,
                None => {}
            }
        }
        let style = page.zoomed_style(el);
        let clips = |axis| matches!(overflow(style, axis), "hidden" | "clip");
        let (cx_, cy_) = (clips('x'), clips('y'));
        if !(cx_ || cy_) {
            return;
        }
        // Hidden at zoom: not rendered, or a visually-hidden clip pattern.
        let zoom_hidden = |e: ElementRef<'_>| {
            std::iter::once(e)
                .chain(e.ancestors().filter_map(ElementRef::wrap))
                .any(|a| {
                    let s = page.zoomed_style(a);
                    s.display == "none" || s.visibility_hidden || s.is_visually_clipped()
                })
        };
        if !page.is_visible(el) || page.is_hidden(el) || zoom_hidden(el) {
            return;
        }
        let visible = |e: ElementRef<'_>| page.is_visible(e) && !page.is_hidden(e);
        let has_text = el.descendants().any(|n| {
            n.value().as_text().is_some_and(|t| !t.trim().is_empty())
                && n.parent()
                    .and_then(ElementRef::wrap)
                    .is_some_and(|p| visible(p) && !matches!(p.value().name(), "script" | "style"))
        });
        if !has_text {
            return;
        }
        // A sheet the page uses is missing: it may size the box otherwise.
        if let Some(why) = page.styles_incomplete() {
            cant_tell_because(
                cx,
                el,
                format!("At 200% zoom this box clips its overflow; whether its text fits needs review: {why}."),
                reason::STYLES_INCOMPLETE,
            );
            return;
        }
        let pad = padding(style, VP);
        let width = fixed(page, el, "width");
        // A box collapsed to nothing (`max-height: 0` of a closed accordion
        // panel, a 1px visually-hidden box) hides its text on purpose.
        let collapsed = |size: Option<f32>| size.is_some_and(|s| s <= 1.0);
        if (cy_ && collapsed(fixed(page, el, "height"))) || (cx_ && collapsed(width)) {
            return;
        }
        let avail = match width {
            Some(w) => Bounds::exact(w),
            // An auto width fills its container, taken at its widest: the
            // nearest ancestor with a fixed width, or the viewport less the
            // body margin.
            None => Bounds::exact(
                el.ancestors()
                    .filter_map(ElementRef::wrap)
                    .find_map(|a| fixed(page, a, "width"))
                    .unwrap_or(VP.width - 16.0),
            ),
        };
        let extent = content_extent(page.zoomed_styles(), el, avail, VP, &visible);

        let y = if cy_ {
            match fixed(page, el, "height") {
                None => Some(false),
                Some(h) => {
                    let lh = line_height(style, VP);
                    if lh.lo == lh.hi && (lh.lo - h).abs() < 0.5 {
                        // One line by design: the height is the line height.
                        Some(false)
                    } else {
                        clipped(extent.height, h, pad[0] + pad[2])
                    }
                }
            }
        } else {
            Some(false)
        };
        let ellipsis = style
            .get("text-overflow")
            .is_some_and(|v| v.contains("ellipsis"));
        // Across, only text kept on one line depends on the width: wrapping
        // text takes an unknown width like a percentage, as its container's.
        let one_line = style
            .get("white-space")
            .is_some_and(|v| matches!(v, "nowrap" | "pre"));
        let width_unknown = one_line && unresolved(page, el, "width");
        let x = if cx_ && !ellipsis && width_unknown {
            // The box may be wider or narrower than any container.
            None
        } else if cx_ && !ellipsis {
            match width {
                Some(w) => clipped(extent.width, w, pad[1] + pad[3]),
                // An auto width fills its container: only content wider than
                // the widest the container can be is surely cut.
                None => Some(extent.width.lo > avail.hi + pad[1] + pad[3] + 0.5)
                    .filter(|c| *c || extent.width.hi <= avail.hi),
            }
        } else {
            Some(false)
        };
        // A size that does not resolve may be any size, in an axis that clips
        // and that the fixed sizes known do not already show is cut.
        let unknown_axis = (cy_ && y != Some(true) && unresolved(page, el, "height"))
            || (cx_ && !ellipsis && width_unknown);
        match (x, y) {
            (Some(true), _) | (_, Some(true)) => {
                cx.fail(
                    el,
                    "At 200% zoom this box hides the overflow of text that does not fit in it.",
                );
            }
            _ if unknown_axis => cant_tell_because(
                cx,
                el,
                "At 200% zoom this box clips its overflow and its size uses custom properties or calc() that cannot be resolved; check it zoomed.",
                reason::SIZE_UNRESOLVED,
            ),
            (Some(false), Some(false)) => cx.pass(),
            _ => cant_tell_because(
                cx,
                el,
                "At 200% zoom this box may cut off its text (overflow hidden with a fixed size); check it zoomed.",
                reason::TEXT_EXTENT,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const POEM: &str = "Once upon a midnight dreary, while I pondered, weak and weary, Over many a quaint and curious volume of forgotten lore. While I nodded, nearly napping, suddenly there came a tapping.";

    #[test]
    fn examples() {
        let pass = [
            format!("<div style='overflow:hidden'>{POEM}</div>"),
            format!("<div style='overflow:hidden;min-height:1.5em'>{POEM}</div>"),
            format!("<div style='white-space:nowrap;overflow:hidden;text-overflow:ellipsis'>{POEM}</div>"),
            format!("<div style='overflow:hidden;height:16px;line-height:16px;font-size:16px'>{POEM}</div>"),
            format!("<div style='overflow:hidden;height:2em'><div style='overflow:auto;height:2em'>{POEM}</div></div>"),
            "<div style='overflow:hidden;height:40px'>Short</div>".to_string(),
            // A custom property that resolves is known.
            "<div style='--h:40px;overflow:hidden;height:var(--h)'>Short</div>".to_string(),
        ];
        let pass_inapplicable = [
            format!("<div style='overflow:auto;height:1.5em'>{POEM}</div>"),
            format!("<p style='display:none;overflow:hidden;height:1px'>{POEM}</p>"),
            format!("<div style='overflow:hidden;height:1em' aria-hidden=true>{POEM}</div>"),
            format!("<div style='overflow:hidden;max-height:0'>{POEM}</div>"),
        ];
        let fail = [
            format!("<div style='overflow:hidden;height:1.5em;font-size:16px'>{POEM}</div>"),
            format!("<div style='overflow:hidden;height:16vh'>{POEM}<br>{POEM}<br>{POEM}<br>{POEM}<br>{POEM}<br>{POEM}</div>"),
            format!("<style>@media screen and (max-width:640px){{.c{{height:1.5em;overflow:hidden}}}}</style><div class=c>{POEM}</div>"),
            format!("<div style='overflow-y:hidden;height:10px;white-space:nowrap;text-overflow:ellipsis'>{POEM}</div>"),
            format!("<div style='overflow-x:hidden;white-space:nowrap;width:50px;height:16px;line-height:16px'>{POEM}</div>"),
            // Cut off in height whatever the unresolved width is.
            format!("<div style='overflow:hidden;height:1.5em;font-size:16px;width:var(--w)'>{POEM}</div>"),
        ];
        let cant = [
            format!("<div style='overflow:hidden;height:60px;width:600px'>{POEM}</div>"),
            format!("<div style='overflow:hidden;height:var(--h)'>{POEM}</div>"),
            format!("<div style='overflow:hidden;max-height:calc(100vh - 4em)'>{POEM}</div>"),
            format!("<div style='overflow-x:hidden;white-space:nowrap;width:var(--w)'>{POEM}</div>"),
        ];
        RuleTester::new(&ZoomedTextClipped)
            .pass(&pass.iter().map(|h| ("div", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&fail.iter().map(|h| ("div", h.as_str())).collect::<Vec<_>>())
            .cant_tell(&cant.iter().map(|h| ("div", h.as_str())).collect::<Vec<_>>())
            .run();
    }

    #[test]
    fn the_browsers_layout_at_640_pixels_replaces_the_estimate() {
        use crate::narrow::{Clipping, NarrowFacts, ViewportLayout};
        use crate::rendered::{ElementFacts, RenderedFacts};
        use crate::{Outcome, Page};
        use std::sync::Arc;

        // #a is estimated to clip (fails statically), #b to fit, #c is
        // unstamped (added by a script).
        let body = format!(
            "<html data-sitescan-node=0><head data-sitescan-node=1></head><body data-sitescan-node=2>\
             <div id=a data-sitescan-node=3 style='overflow:hidden;height:1.5em;font-size:16px'>{POEM}</div>\
             <div id=b data-sitescan-node=4 style='overflow:hidden'>{POEM}</div>\
             <div id=c style='overflow:hidden;height:1.5em;font-size:16px'>{POEM}</div></body></html>"
        );
        let outcomes = |layout: Option<ViewportLayout>| {
            let mut page = Page::from_html("https://example.com/", &body);
            page.rendered = Some(Arc::new(RenderedFacts {
                elements: vec![Some(ElementFacts::default()); 5],
                narrow: Some(Box::new(NarrowFacts {
                    zoomed: layout,
                    ..NarrowFacts::default()
                })),
                ..RenderedFacts::default()
            }));
            let a = crate::analyze(&page, &[&ZoomedTextClipped]);
            let got: Vec<(Outcome, String)> = a
                .findings
                .iter()
                .map(|f| (f.outcome, f.selector.clone()))
                .collect();
            (got, a.tallies[0].passed)
        };
        let layout = |clipping: Vec<Clipping>, complete: bool| ViewportLayout {
            width: 640.0,
            height: 512.0,
            scroll_width: 640.0,
            clipping,
            complete,
            ..ViewportLayout::default()
        };
        let fail = |s: &str| (Outcome::Failed, s.to_string());
        // No layout: the estimates.
        assert_eq!(outcomes(None), (vec![fail("#a"), fail("#c")], 1));
        // The browser: #a fits after all, #b cuts its text; #c keeps its estimate.
        let measured = layout(
            vec![
                Clipping { stamp: 3, cut: false },
                Clipping { stamp: 4, cut: true },
            ],
            true,
        );
        assert_eq!(outcomes(Some(measured)), (vec![fail("#b"), fail("#c")], 1));
        // Not listed in a complete layout: no clipping box with text there.
        assert_eq!(outcomes(Some(layout(vec![], true))), (vec![fail("#c")], 0));
        // Past a cap: unlisted boxes keep their estimate.
        assert_eq!(
            outcomes(Some(layout(vec![], false))),
            (vec![fail("#a"), fail("#c")], 1)
        );
    }
}
