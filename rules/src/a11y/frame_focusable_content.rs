//! `frame-focusable-content`: frames taken out of the tab order hold no content
//! people need to Tab to (WCAG 2.1.1, ACT akn7bn).

use scraper::ElementRef;

use crate::aria::tree::tabindex;
use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Page, PageContext, Rule, RuleMeta, Visits};

/// Checks `iframe`s with a negative `tabindex`.
pub struct FrameFocusableContent;

static META: RuleMeta = RuleMeta {
    id: "frame-focusable-content",
    category: Category::Accessibility,
    title: "Frames with interactive content stay in the tab order",
    help: "Remove tabindex=\"-1\" from iframes whose content has links, buttons or fields.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/keyboard.html",
    wcag: &["2.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["akn7bn"],
    docs: r#"## What it checks
Every visible `iframe` (larger than 1×1 pixel, not hidden, not inert) with a
negative `tabindex`: its content must have nothing in the sequential focus order.
Content given inline with `srcdoc` is checked; content loaded from `src` cannot be
seen from this page, so such a frame is reported for review (*cannot tell*).

## Why it matters
A negative `tabindex` on an iframe makes browsers skip everything inside it
when people press Tab, so keyboard users cannot reach its links and fields.

## Failing
```html
<iframe tabindex="-1" srcdoc="<a href='/'>Home</a>"></iframe>
```

## Passing
```html
<iframe srcdoc="<a href='/'>Home</a>"></iframe>
```
"#,
    ..RuleMeta::BASE
};

fn tiny(el: ElementRef<'_>) -> bool {
    let dim = |a: &str| {
        el.value()
            .attr(a)
            .and_then(|v| v.trim().trim_end_matches("px").parse::<f32>().ok())
    };
    matches!(dim("width"), Some(w) if w <= 1.0) || matches!(dim("height"), Some(h) if h <= 1.0)
}

impl Rule for FrameFocusableContent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["iframe"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || tabindex(el).is_none_or(|t| t >= 0) || tiny(el) {
            return;
        }
        let page = cx.page();
        if page.is_hidden(el) || !page.is_visible(el) || page.tree().is_inert(el.id()) {
            return;
        }
        if let Some(srcdoc) = el.value().attr("srcdoc") {
            let inner = Page::from_html(page.page().final_url.as_str(), srcdoc);
            let inner_cx = PageContext::parse(&inner);
            let tabbable = inner_cx
                .root()
                .descendants()
                .filter_map(ElementRef::wrap)
                .any(|e| inner_cx.in_tab_order(e));
            if tabbable {
                cx.fail(el, "This frame has tabindex=-1 but its content has elements people need to Tab to.");
            }
            return;
        }
        if el.value().attr("src").is_some_and(|s| !s.trim().is_empty()) {
            cx.cant_tell(
                el,
                "This frame has tabindex=-1; check its content has no links, buttons or fields.",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&FrameFocusableContent)
            .inapplicable(&[
                r#"<iframe srcdoc="<a href='/'>Home</a>"></iframe>"#,
                r#"<iframe tabindex="-1" srcdoc="<h1>Hello</h1>"></iframe>"#,
                r#"<iframe tabindex="-1" hidden srcdoc="<a href='/'>Home</a>"></iframe>"#,
                r#"<iframe tabindex="-1" width="1" height="1" srcdoc="<a href='/'>Home</a>"></iframe>"#,
                r#"<iframe tabindex="-1" srcdoc="<a href='/' tabindex='-1'>Home</a>"></iframe>"#,
                r#"<iframe tabindex="-1" inert srcdoc="<a href='/'>Home</a>"></iframe>"#,
            ])
            .fail(&[("iframe", r#"<iframe tabindex="-1" srcdoc="<a href='/'>Home</a>"></iframe>"#),
            ])
            .cant_tell(&[("iframe", r#"<iframe tabindex="-1" src="/widget.html"></iframe>"#),
            ])
            .run();
    }
}
