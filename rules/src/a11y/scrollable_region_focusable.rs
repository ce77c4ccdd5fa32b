//! `scrollable-region-focusable`: a region that scrolls can be reached with the
//! keyboard (WCAG 2.1.1 and 2.1.3, ACT 0ssw9k).

use scraper::ElementRef;

use super::support::{cant_tell_because, reason};
use crate::aria::html::is_html;
use crate::css::cascade::is_unresolved;
use crate::css::extent::{content_extent, length, overflow, padding, Bounds};
use crate::css::Viewport;
use crate::{Category, Check, Impact, Level, PageContext, Rule, RuleMeta, Visits};

/// Checks that boxes with scrolling overflow and content that overflows them
/// are, or contain, something in the tab order.
pub struct ScrollableRegionFocusable;

static META: RuleMeta = RuleMeta {
    id: "scrollable-region-focusable",
    category: Category::Accessibility,
    title: "Scrollable regions can be reached with the keyboard",
    help: "Add tabindex=\"0\" to the scrolling element (with an accessible name), or put a focusable element inside it.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/keyboard.html",
    wcag: &["2.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["0ssw9k"],
    docs: r#"## What it checks
Every visible element (not an `iframe`) whose computed `overflow` is `auto` or
`scroll` in an axis where it has a fixed size (`height`/`max-height` or
`width`/`max-width`), and that holds visible content: when neither it nor any
element inside it is in the tab order, keyboard users cannot scroll it. Whether
the content really overflows is measured by the browser in render mode (its
scroll size against its padding box, and its computed `overflow`); in a
static scan it is estimated from the cascade: text width is
bounded per character between narrow and wide common fonts, line height between
1.0 and 1.4 times the font size. Content that overflows by more than the box's
padding even at its smallest fails; content that fits even at its largest is
fine; anything between is reported for review (*cannot tell*).

## No silent pass
A region it applies to ends passed, failed or "needs review" (cannot tell)
with the reason in `data.reason`, as in
[`color-contrast`](color-contrast.md#no-silent-pass): `text-extent` (the
estimate of the content's size straddles the box's), `size-unresolved` (its
`height` or `max-height` uses custom properties or `calc()` that do not
resolve, so the content may overflow it), `styles-incomplete` (a stylesheet the
page uses could not be loaded). A region that can take focus, or holds
something that can, passes whatever its size. A `width` that does not resolve
is taken as its container's, as a percentage is.

## Why it matters
Browsers do not all let the keyboard scroll a region that takes no focus, so
its hidden content is out of reach for people who cannot use a mouse.

## Failing
```html
<section style="width: 200px; height: 50px; overflow-y: scroll">
  <p>A long abstract: Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible. Following these guidelines will make content more accessible to a wider range of people with disabilities, including accommodations for blindness and low vision, deafness and hearing loss, and limited movement.</p>
</section>
```

## Passing
```html
<section style="width: 200px; height: 50px; overflow-y: scroll" tabindex="0" aria-label="Abstract">
  <p>A long abstract: Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible. Following these guidelines will make content more accessible to a wider range of people with disabilities, including accommodations for blindness and low vision, deafness and hearing loss, and limited movement.</p>
</section>
```

## Cannot tell
```html
<section style="width: 200px; height: var(--abstract-height); overflow-y: scroll">
  <p>A long abstract: Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible. Following these guidelines will make content more accessible to a wider range of people with disabilities, including accommodations for blindness and low vision, deafness and hearing loss, and limited movement.</p>
</section>
```
"#,
    ..RuleMeta::BASE
};

/// Whether content overflows a box of `size` (plus `pad` of padding) by more
/// than the padding: `Some(true)` surely, `Some(false)` surely not, `None` when
/// the estimate straddles it.
fn overflows(content: Bounds, size: f32, pad: f32) -> Option<bool> {
    if content.lo - size > pad {
        Some(true)
    } else if content.hi <= size {
        Some(false)
    } else {
        None
    }
}

/// The fixed size of an axis from `prop` or `max-prop`, content-box.
fn fixed(cx: &PageContext<'_>, el: ElementRef<'_>, prop: &str, pad: f32) -> Option<f32> {
    let style = cx.style(el);
    let fs = style.font_size;
    let size = style
        .get(prop)
        .and_then(|v| length(v, fs, Viewport::DESKTOP))
        .or_else(|| {
            style
                .get(&format!("max-{prop}"))
                .and_then(|v| length(v, fs, Viewport::DESKTOP))
        })?;
    let border_box = style.get("box-sizing").is_some_and(|v| v == "border-box");
    Some(if border_box {
        (size - pad).max(0.0)
    } else {
        size
    })
}

impl Rule for ScrollableRegionFocusable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || matches!(el.value().name(), "iframe" | "html" | "body") {
            return;
        }
        let page = cx.page();
        if !page.overflow_declared() {
            return;
        }
        let style = page.style(el);
        // Render mode: the browser's computed overflow and its scroll and
        // client sizes settle what the cascade estimates.
        // An element with a layout box has its computed overflow; its scroll
        // and client sizes are there when that overflow scrolls.
        let measured = page.rendered(el.id()).filter(|f| f.bounds.is_some());
        let scrolls = |axis| matches!(overflow(style, axis), "auto" | "scroll");
        let (sx, sy) = match measured {
            Some(f) => (
                matches!(f.overflow_x.as_str(), "auto" | "scroll"),
                matches!(f.overflow_y.as_str(), "auto" | "scroll"),
            ),
            None => (scrolls('x'), scrolls('y')),
        };
        if !(sx || sy) || !page.is_visible(el) {
            return;
        }
        let focusable = page.in_tab_order(el)
            || el
                .descendants()
                .filter_map(ElementRef::wrap)
                .any(|d| page.in_tab_order(d));
        if focusable {
            cx.pass();
            return;
        }
        // Sizes not read (the element went away before they were): the
        // estimate below.
        if let Some((scroll, client)) = measured.and_then(|f| Some((f.scroll?, f.client?))) {
            // Inert (outside an open modal dialog): nobody can reach it now,
            // whatever its focusability.
            if page.tree().is_inert(el.id()) {
                cx.pass();
                return;
            }
            // The region scrolls when its scroll distance (scroll size less
            // the padding box) is more than its padding on an axis that
            // scrolls, and it has visible content; a box collapsed to
            // nothing hides its content on purpose.
            let pad = padding(style, Viewport::DESKTOP);
            let (pad_x, pad_y) = (pad[1] + pad[3], pad[0] + pad[2]);
            let over = (sx && scroll.width - client.width > pad_x.max(1.0))
                || (sy && scroll.height - client.height > pad_y.max(1.0));
            let has_content = || {
                content_extent(
                    page.styles(),
                    el,
                    Bounds::exact(client.width),
                    Viewport::DESKTOP,
                    &|e| page.is_visible(e),
                )
                .has_content
            };
            if over && client.width > 1.0 && client.height > 1.0 && has_content() {
                cx.fail(
                    el,
                    "This region scrolls, but neither it nor anything inside it can take keyboard focus.",
                );
            }
            return;
        }
        let pad = padding(style, Viewport::DESKTOP);
        let (pad_x, pad_y) = (pad[1] + pad[3], pad[0] + pad[2]);
        let width = fixed(page, el, "width", pad_x);
        let height = fixed(page, el, "height", pad_y);
        // A box collapsed to nothing hides its content on purpose.
        if height.is_some_and(|h| h <= 1.0) || width.is_some_and(|w| w <= 1.0) {
            return;
        }
        // A height that does not resolve may be any height: the content may
        // overflow it. (A width that does not resolve is taken as its
        // container's, like a percentage.)
        let height_unresolved = sy && height.is_none() && {
            let s = page.style(el);
            s.get("height").is_some_and(is_unresolved)
                || s.get("max-height").is_some_and(is_unresolved)
        };
        if !sx && height.is_none() && !height_unresolved {
            // Only vertical scrolling, and no fixed height: the box grows with
            // its content.
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
                    .find_map(|a| {
                        let s = page.style(a);
                        s.get("width")
                            .and_then(|v| length(v, s.font_size, Viewport::DESKTOP))
                    })
                    .unwrap_or(Viewport::DESKTOP.width - 16.0),
            ),
        };
        let extent = content_extent(page.styles(), el, avail, Viewport::DESKTOP, &|e| {
            page.is_visible(e)
        });
        if !extent.has_content {
            return;
        }
        // A sheet the page uses is missing: it may size the box otherwise.
        if let Some(why) = page.styles_incomplete() {
            cant_tell_because(
                cx,
                el,
                format!("This region scrolls and nothing in it can take keyboard focus; whether its content overflows needs review: {why}."),
                reason::STYLES_INCOMPLETE,
            );
            return;
        }
        let x = match (sx, width) {
            (false, _) => Some(false),
            (true, Some(w)) => overflows(extent.width, w, pad_x),
            // An auto width fills the container: content wider than the widest
            // the container can be surely overflows; other content is taken to
            // fit (the container's own width is not known without layout).
            (true, None) => Some(extent.width.lo - avail.hi > pad_x),
        };
        let y = match (sy, height) {
            (true, Some(h)) => overflows(extent.height, h, pad_y),
            _ => Some(false),
        };
        match (x, y) {
            (Some(true), _) | (_, Some(true)) => {
                cx.fail(
                    el,
                    "This region scrolls, but neither it nor anything inside it can take keyboard focus.",
                );
            }
            _ if height_unresolved => cant_tell_because(
                cx,
                el,
                "This region may scroll and nothing in it can take keyboard focus; its height uses custom properties or calc() that cannot be resolved, so check whether its content overflows.",
                reason::SIZE_UNRESOLVED,
            ),
            (Some(false), Some(false)) => {}
            _ => cant_tell_because(
                cx,
                el,
                "This region may scroll (overflow auto or scroll) and nothing in it can take keyboard focus; check whether its content overflows.",
                reason::TEXT_EXTENT,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const LONG: &str = "Web Content Accessibility Guidelines (WCAG) 2.1 covers a wide range of recommendations for making Web content more accessible. Following these guidelines will make content more accessible to a wider range of people with disabilities, including accommodations for blindness and low vision, deafness and hearing loss, limited movement, speech disabilities, photosensitivity, and combinations of these.";

    #[test]
    fn examples() {
        let pass = [
            format!("<section style='height:100px;width:500px;overflow:scroll' tabindex=0><p>{LONG}</p></section>"),
            format!("<section style='height:100px;width:500px;overflow:auto'><a href=/>Top</a><p>{LONG}</p></section>"),
            // Focusable: passes whatever its unresolved height is.
            format!("<section style='height:var(--h);overflow:auto' tabindex=0><p>{LONG}</p></section>"),
        ];
        let pass_inapplicable = [
            format!("<section style='height:100px;width:500px'><p>{LONG}</p></section>"),
            format!("<section style='height:100px;width:500px;overflow:hidden'><p>{LONG}</p></section>"),
            "<section style='height:95px;width:500px;overflow:auto'><p>Short text</p></section>".to_string(),
            "<section style='height:20px;width:500px;overflow-x:scroll'><div style='width:1000px;height:1px'></div></section>".to_string(),
            format!("<div style='overflow:auto'><p>{LONG}</p></div>"),
            // A resolved custom property is a known height the content fits.
            "<section style='--h:95px;height:var(--h);width:500px;overflow:auto'><p>Short text</p></section>".to_string(),
            "<iframe src=/a width=500 height=200 style='overflow:scroll'></iframe>".to_string(),
        ];
        let fail = [
            format!("<section style='height:100px;width:500px;overflow-y:scroll'><h1>Abstract</h1><p>{LONG} {LONG}</p></section>"),
            "<style>section{height:100px;width:400px;overflow-y:auto;white-space:nowrap}section>img{display:inline-block;width:80px}</style><section><img src=a.png alt=A><img src=a.png alt=B><img src=a.png alt=C><img src=a.png alt=D><img src=a.png alt=E><img src=a.png alt=F></section>".to_string(),
        ];
        let cant = [
            format!("<section style='height:210px;width:530px;overflow:scroll;padding:30px 0 30px 30px'><div>{LONG} {LONG}</div></section>"),
            format!("<section style='height:var(--h);width:500px;overflow-y:auto'><p>{LONG}</p></section>"),
            format!("<section style='max-height:calc(100vh - 10em);overflow:auto'><p>{LONG}</p></section>"),
        ];
        RuleTester::new(&ScrollableRegionFocusable)
            .pass(&pass.iter().map(|h| ("section", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&fail.iter().map(|h| ("section", h.as_str())).collect::<Vec<_>>())
            .cant_tell(&cant.iter().map(|h| ("section", h.as_str())).collect::<Vec<_>>())
            .run();
    }
}
