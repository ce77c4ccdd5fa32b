//! `area-alt`: image map areas that are links have an accessible name (ACT c487ae).

use scraper::ElementRef;

use super::support::require_name;
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `area` elements with an `href` have a non-empty accessible name.
pub struct AreaAlt;

static META: RuleMeta = RuleMeta {
    id: "area-alt",
    category: Category::Accessibility,
    title: "Image map areas have alternative text",
    help: "Give each linked area an alt attribute that says where it leads.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/link-purpose-in-context.html",
    wcag: &["2.4.4", "4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["c487ae"],
    docs: r##"## What it checks
Each `area` element with an `href` (a link) has a non-empty accessible name, from `alt`, `aria-label` or `aria-labelledby`.

## Why it matters
Each area is a separate link. Without a name, screen readers announce the URL or nothing, and users cannot tell the areas apart.

## Failing
```html
<img src="map.png" usemap="#m" alt="Regions"><map name="m"><area href="/north" shape="rect" coords="0,0,10,10"></map>
```

## Passing
```html
<img src="map.png" usemap="#m" alt="Regions"><map name="m"><area href="/north" alt="North region" shape="rect" coords="0,0,10,10"></map>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AreaAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["area"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        // `area` is never rendered itself (`display: none` in the UA sheet), so it is
        // checked whenever it is a link, not only when "visible".
        if !is_html(el) || crate::dom::attr(el, "href").is_none() {
            return;
        }
        if crate::dom::attr(el, "aria-hidden").is_some_and(|v| v.trim() == "true") {
            return;
        }
        require_name(el, cx, "This image map area");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AreaAlt)
            .pass(&[
                ("area", r##"<map name=m><area href=/a alt="North"></map>"##),
                ("area", r##"<map name=m><area href=/a aria-label="North"></map>"##),
            ])
            .inapplicable(&[
                r##"<map name=m><area alt=""></map>"##,
            ])
            .fail(&[
                ("area", r##"<map name=m><area href=/a></map>"##),
                ("area", r##"<map name=m><area href=/a alt=""></map>"##),
            ])
            .run();
    }
}
