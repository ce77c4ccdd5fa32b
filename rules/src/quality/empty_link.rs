//! `empty-link`: links have content.

use scraper::ElementRef;

use crate::dom::normalized_text;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails `<a href>` with no text, no labelled image and no label attribute.
pub struct EmptyLink;

static META: RuleMeta = RuleMeta {
    id: "empty-link",
    category: Category::Quality,
    title: "Links are not empty",
    help: "Put text in every link, or give icon links an aria-label (or an <img> with alt text).",
    help_url: "https://webaim.org/techniques/hypertext/link_text#empty",
    impact: Impact::Moderate,
    defers_to: &["link-name"],
    docs: r#"## What it checks
Each `<a href>` has content a person can perceive: text (white space does not count),
an `<img>` / `<input type=image>` with non-empty `alt`, an `<svg>` with a `<title>`,
or a non-empty `aria-label`, `aria-labelledby` or `title` on the link. Links with
none of these are empty — usually a leftover from a template or an icon font glyph.

A link nobody meets is left out: one neither shown on screen nor in the
accessibility tree (`display: none`, `visibility: hidden`, in a hidden subtree),
such as the section anchors documentation tools show only while the heading is
hovered (rustdoc's `<a class="anchor" href=#method.new></a>`, whose `§` comes
from CSS on hover).

**Ownership:** an empty link is one problem, owned by the accessibility rule
`link-name` (which judges the full accessible name). When `link-name` runs and
reports the link, this rule's finding on it is dropped; it reports empty links
on its own when `link-name` is not selected (e.g. `--rules quality`).

## Why it matters
An empty link is invisible or meaningless to visitors and screen readers, yet
crawlers still follow it: it clutters the page and points nowhere useful.

## Failing
```html
<a href="/cart"><i class="icon-cart"></i></a>
```

## Passing
```html
<a href="/cart" aria-label="Shopping cart"><i class="icon-cart"></i></a>
```
"#,
    ..RuleMeta::BASE
};

/// Whether an element has perceivable content or a label.
pub fn has_content(el: ElementRef<'_>) -> bool {
    let v = el.value();
    if ["aria-label", "aria-labelledby", "title"]
        .iter()
        .any(|a| v.attr(a).is_some_and(|s| !s.trim().is_empty()))
    {
        return true;
    }
    if !normalized_text(el).is_empty() {
        return true;
    }
    el.descendants().filter_map(ElementRef::wrap).any(|d| {
        let dv = d.value();
        match dv.name() {
            "img" | "input" | "area" => dv.attr("alt").is_some_and(|a| !a.trim().is_empty()),
            "svg" => d
                .children()
                .filter_map(ElementRef::wrap)
                .any(|c| c.value().name() == "title" && !normalized_text(c).is_empty()),
            _ => dv.attr("aria-label").is_some_and(|a| !a.trim().is_empty()),
        }
    })
}

impl Rule for EmptyLink {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if el.value().attr("href").is_none() {
            return;
        }
        let page = cx.page();
        if !page.is_visible(el) && page.is_hidden(el) {
            return;
        }
        if has_content(el) {
            cx.pass();
        } else {
            cx.fail(el, "The link has no text or label.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&EmptyLink)
            .pass(&[
                ("a", r#"<a href="/cart">Cart</a>"#),
                ("a", r#"<a href="/cart" aria-label="Cart"><i class="icon"></i></a>"#),
                ("a", r#"<a href="/"><img src="logo.svg" alt="Example Pottery"></a>"#),
                ("a", r#"<a href="/"><svg><title>Home</title></svg></a>"#),
            ])
            .inapplicable(&[
                r#"<a name="anchor"></a>"#,
                r##"<style>.anchor{display:none}h2:hover .anchor{display:inline}</style><h2>Methods<a class="anchor" href="#methods"></a></h2>"##,
                r#"<a href="/cart" style="visibility:hidden"></a>"#,
            ])
            .fail(&[
                ("a", r#"<a href="/cart"><i class="icon-cart"></i></a>"#),
                ("a", r#"<a href="/"> </a>"#),
                ("a", r#"<a href="/"><img src="logo.svg" alt=""></a>"#),
                // Seen, though not in the accessibility tree.
                ("a", r#"<a href="/cart" aria-hidden="true"><i class="icon-cart"></i></a>"#),
            ])
            .run();
    }
}
