//! `reflow`: content fits a 320 CSS pixel wide viewport without scrolling
//! sideways (WCAG 1.4.10), measured in the browser in render mode
//! ([`crate::narrow`]) and estimated from fixed widths in the cascade
//! otherwise.

use ego_tree::NodeRef;
use scraper::{ElementRef, Node};
use serde_json::json;

use crate::aria::html::is_html;
use crate::css::cascade::Styles;
use crate::css::extent::{length, overflow};
use crate::narrow::{ViewportLayout, REFLOW_VIEWPORT};
use crate::{Category, Check, Impact, Level, Need, PageContext, Rule, RuleMeta};

/// Fails content that makes the page scroll sideways at 320 CSS pixels
/// wide, unless it needs two-dimensional layout.
pub struct Reflow;

static META: RuleMeta = RuleMeta {
    id: "reflow",
    category: Category::Accessibility,
    title: "Content reflows to 320 CSS pixels without scrolling sideways",
    help: "Let boxes shrink with the viewport (max-width: 100% instead of a fixed width, flex-wrap, media queries for narrow screens); only content that needs two dimensions (data tables, maps, images, video, code) may scroll sideways, best inside its own scrolling box.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/reflow.html",
    wcag: &["1.4.10"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    needs: &[Need::NarrowViewport],
    docs: r#"## What it checks
The page as a 1280 CSS pixel wide desktop shows it at 400% zoom: a 320×256
CSS pixel viewport, with the `@media` rules that apply there. Content must fit
its width: reading it must not need scrolling both ways.

In render mode (`--render`) the browser lays the page out at 320×256 CSS
pixels and measures it. When the page is wider than the viewport, each
outermost element sticking out past the viewport's edge **fails** (findings
carry `data.measured = "browser"`, the element's `width` and how far it
sticks out, `past`), unless it
is content that needs two-dimensional layout: a data table (a `<table>`
that is not `role="presentation"`, `role="grid"` and the like), a toolbar,
an image, video, canvas, SVG, an embedded frame (maps), a formula, or code
(`<pre>`, `<code>`); such content, or a box made that wide by it, passes. A
box that scrolls or clips sideways itself (`overflow-x` other than
`visible`) keeps its content: only its own width counts. Fixed-position
boxes do not scroll the page and are not counted. A page that scrolls
sideways only because of elements a script added after it was measured is
reported for review.

A static scan has no layout: it fails the outermost visible element whose
`width` or `min-width` in the styles that apply at 320 pixels is an absolute
length wider than 320 pixels (percentages, `auto`, flex and grid sizing,
images without a size and long words are not estimated there).

## Why it matters
People who zoom the page to read it, and people on small screens, lose their
place when every line has to be scrolled sideways to be read.

## Failing
```html
<div style="width: 1000px">Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore.</div>
```

## Passing
```html
<div style="max-width: 1000px">Once upon a midnight dreary, while I pondered, weak and weary, over many a quaint and curious volume of forgotten lore.</div>
```
"#,
    ..RuleMeta::BASE
};

/// Elements whose content needs two-dimensional layout (WCAG 1.4.10's
/// exception), by name.
const TWO_D_NAMES: &[&str] = &[
    "pre", "code", "samp", "kbd", "img", "picture", "video", "audio", "canvas", "svg", "iframe",
    "object", "embed", "math", "map",
];

/// The same, by computed role.
const TWO_D_ROLES: &[&str] = &[
    "table",
    "grid",
    "treegrid",
    "toolbar",
    "img",
    "application",
    "math",
];

/// Whether `el` is, or is inside, content that needs two-dimensional layout.
fn two_dimensional(page: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|a| {
            TWO_D_NAMES.contains(&a.value().name())
                || page.role(a).is_some_and(|r| TWO_D_ROLES.contains(&r))
        })
}

impl Rule for Reflow {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let layout = page
            .rendered_page()
            .and_then(|r| r.narrow.as_ref())
            .and_then(|n| n.reflow.as_ref());
        match layout {
            Some(layout) => measured(layout, cx),
            None => estimated(cx),
        }
    }
}

/// Judges the browser's layout at 320 pixels.
fn measured(layout: &ViewportLayout, cx: &mut Check<'_, '_>) {
    let page = cx.page();
    if !layout.scrolls_sideways() {
        cx.pass();
        return;
    }
    let (mut failed, mut allowed) = (0usize, 0usize);
    for el in page.root().descendants().filter_map(ElementRef::wrap) {
        let Some(o) = page.stamp(el.id()).and_then(|s| layout.overflowing(s)) else {
            continue;
        };
        if two_dimensional(page, el) {
            allowed += 1;
            cx.pass_on(el);
        } else {
            failed += 1;
            cx.fail(
                el,
                format!(
                    "At 320 CSS pixels wide this element is {:.0} pixels wide and sticks out {:.0} pixels past the viewport, so the page scrolls sideways.",
                    o.width, o.past
                ),
            )
            .with_data(json!({ "width": o.width, "past": o.past, "viewport": 320, "measured": "browser" }));
        }
    }
    if failed == 0 && (allowed == 0 || layout.unstamped > 0 || !layout.complete) {
        // The page scrolls, and what makes it so was not seen on the parsed
        // page (added by a script after the measuring, or past a cap).
        cx.cant_tell_page(format!(
            "At 320 CSS pixels wide the page is {:.0} pixels wide and scrolls sideways, but the content that makes it so could not be named; check the page at 320 pixels.",
            layout.scroll_width
        ))
        .with_data(json!({ "scroll_width": layout.scroll_width, "viewport": 320, "measured": "browser" }));
    }
}

/// The width `el` keeps at 320 pixels whatever its content: its `width`
/// (capped by `max-width`) or its `min-width`, when absolute lengths.
fn fixed_width(styles: &Styles, el: ElementRef<'_>) -> Option<(f32, &'static str)> {
    let style = styles.get(el.id())?;
    let fs = style.font_size;
    let px = |prop: &str| {
        style
            .get(prop)
            .and_then(|v| length(v, fs, REFLOW_VIEWPORT))
    };
    // A `max-width` that is not an absolute length (`100%`, `calc()`) may
    // cap the width below the viewport's: the width is not known then.
    let capped_unknown = style
        .get("max-width")
        .is_some_and(|v| v.trim() != "none" && px("max-width").is_none());
    let width = px("width")
        .filter(|_| !capped_unknown)
        .map(|w| px("max-width").map_or(w, |m| w.min(m)));
    match (width, px("min-width")) {
        (Some(w), Some(m)) if m > w => Some((m, "min-width")),
        (Some(w), _) => Some((w, "width")),
        (None, Some(m)) => Some((m, "min-width")),
        (None, None) => None,
    }
}

/// Estimates from the cascade at 320 pixels: fixed widths wider than the
/// viewport fail.
fn estimated(cx: &mut Check<'_, '_>) {
    let page = cx.page();
    let narrow = page
        .styles()
        .restyle_within(page.doc(), REFLOW_VIEWPORT, &|| page.should_stop());
    let styles = narrow.as_ref().unwrap_or_else(|| page.styles());
    let mut failed = false;
    // Depth first without recursion, skipping the branch of an element
    // judged (its descendants stick out with it) or clipping sideways.
    let mut stack: Vec<NodeRef<'_, Node>> = page
        .root()
        .children()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    while let Some(node) = stack.pop() {
        if page.should_stop() {
            return;
        }
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        if !is_html(el)
            || matches!(
                el.value().name(),
                "head" | "script" | "style" | "template" | "noscript"
            )
        {
            continue;
        }
        let Some(style) = styles.get(el.id()) else {
            continue;
        };
        if style.display == "none" || style.get("position") == Some("fixed") {
            continue;
        }
        if let Some((width, prop)) = fixed_width(styles, el) {
            if width > REFLOW_VIEWPORT.width && page.is_visible(el) {
                if two_dimensional(page, el) {
                    cx.pass_on(el);
                } else {
                    failed = true;
                    cx.fail(
                        el,
                        format!(
                            "At 320 CSS pixels wide this element keeps its {prop} of {width:.0} pixels, so the page scrolls sideways."
                        ),
                    );
                }
                continue;
            }
        }
        if overflow(style, 'x') != "visible" {
            continue;
        }
        let first = stack.len();
        stack.extend(node.children());
        stack[first..].reverse();
    }
    if !failed {
        cx.pass();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::narrow::{NarrowFacts, Overflowing};
    use crate::rendered::{ElementFacts, RenderedFacts};
    use crate::testing::{RuleTester, PAGE};
    use crate::{Outcome, Page};

    const TEXT: &str = "Once upon a midnight dreary, while I pondered, weak and weary.";

    #[test]
    fn static_estimate_fails_fixed_widths_wider_than_320_pixels() {
        let pass = [
            format!("<div style='max-width:1000px'>{TEXT}</div>"),
            format!("<div style='width:300px'>{TEXT}</div>"),
            format!("<div style='width:1000px;max-width:100%'>{TEXT}</div>"),
            format!("<style>.w{{width:900px}} @media (max-width:400px){{.w{{width:auto}}}}</style><div class=w>{TEXT}</div>"),
        ];
        let fail = [
            ("div", format!("<div style='width:1000px'>{TEXT}</div>")),
            ("div", format!("<div style='min-width:40em'>{TEXT}</div>")),
            // The outermost only.
            (
                "div",
                format!("<div style='width:900px'><p style='width:800px'>{TEXT}</p></div>"),
            ),
            // A layout table must reflow.
            (
                "table",
                format!("<table role=presentation style='width:900px'><tr><td>{TEXT}</td></tr></table>"),
            ),
        ];
        let fail: Vec<(&str, String)> = fail.into_iter().collect();
        RuleTester::new(&Reflow)
            .pass(&pass.iter().map(|h| (PAGE, h.as_str())).collect::<Vec<_>>())
            .fail(
                &fail
                    .iter()
                    .map(|(t, h)| (*t, h.as_str()))
                    .collect::<Vec<_>>(),
            )
            .run();
    }

    #[test]
    fn static_estimate_allows_two_dimensional_and_contained_content() {
        for html in [
            "<table style='width:900px'><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>",
            "<pre style='width:900px'>fn main() {}</pre>",
            "<div role=toolbar style='width:900px'><button>B</button></div>",
            "<div style='overflow-x:auto;width:300px'><div style='width:900px'>wide</div></div>",
            "<div style='position:fixed;width:900px'>banner</div>",
            "<div style='display:none;width:900px'>gone</div>",
        ] {
            let a = crate::analyze(&RuleTester::page(html), &[&Reflow]);
            assert!(
                a.findings.iter().all(|f| f.outcome != Outcome::Failed),
                "{html}: {:?}",
                a.findings
            );
        }
    }

    /// A rendered page of `body` whose elements are stamped in document
    /// order, with the reflow layout `layout`.
    fn rendered(body: &str, layout: ViewportLayout) -> Page {
        let mut page = Page::from_html("https://example.com/", body);
        page.rendered = Some(Arc::new(RenderedFacts {
            elements: vec![Some(ElementFacts::default()); 16],
            narrow: Some(Box::new(NarrowFacts {
                reflow: Some(layout),
                ..NarrowFacts::default()
            })),
            ..RenderedFacts::default()
        }));
        page
    }

    fn wide(stamps: &[u32], unstamped: u32) -> ViewportLayout {
        ViewportLayout {
            width: 320.0,
            height: 256.0,
            scroll_width: 1008.0,
            overflowing: stamps
                .iter()
                .map(|&stamp| Overflowing {
                    stamp,
                    width: 1000.0,
                    past: 688.0,
                })
                .collect(),
            unstamped,
            complete: true,
            ..ViewportLayout::default()
        }
    }

    fn outcomes(page: &Page) -> Vec<(Outcome, String)> {
        crate::analyze(page, &[&Reflow])
            .findings
            .iter()
            .map(|f| (f.outcome, f.selector.clone()))
            .collect()
    }

    const BODY: &str = "<html data-sitescan-node=0><head data-sitescan-node=1></head><body data-sitescan-node=2>\
        <div id=wide data-sitescan-node=3 style='max-width:100%'>wide by script</div>\
        <table id=data data-sitescan-node=4><tr data-sitescan-node=5><th data-sitescan-node=6>A</th></tr></table>\
        <div id=clip data-sitescan-node=7 style='width:2000px'>fixed but fits at 320 after all</div></body></html>";

    #[test]
    fn measured_layout_replaces_the_estimate() {
        // The browser says the page fits: the fixed width the cascade sees
        // does not fail (a script or media query changed it).
        let fits = ViewportLayout {
            width: 320.0,
            height: 256.0,
            scroll_width: 320.0,
            complete: true,
            ..ViewportLayout::default()
        };
        assert_eq!(outcomes(&rendered(BODY, fits)), []);
        // It sticks out: the element the cascade thought fine fails, the
        // data table is allowed.
        assert_eq!(
            outcomes(&rendered(BODY, wide(&[3, 4], 0))),
            [(Outcome::Failed, "#wide".to_string())]
        );
        // Only a data table sticks out: passed.
        let page = rendered(BODY, wide(&[4], 0));
        let a = crate::analyze(&page, &[&Reflow]);
        assert!(a.findings.is_empty());
        assert_eq!(a.tallies[0].passed, 1);
        // Scrolls, but the cause was added after the stamping: for review.
        assert_eq!(
            outcomes(&rendered(BODY, wide(&[], 1))),
            [(Outcome::CantTell, String::new())]
        );
        // Without the narrow layout (not needed, or not taken) the static
        // estimate stands.
        let mut page = rendered(BODY, fits_none());
        Arc::get_mut(page.rendered.as_mut().unwrap()).unwrap().narrow = None;
        assert_eq!(outcomes(&page), [(Outcome::Failed, "#clip".to_string())]);
    }

    fn fits_none() -> ViewportLayout {
        ViewportLayout::default()
    }
}
