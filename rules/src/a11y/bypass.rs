//! `bypass`: page has a way to bypass repeated blocks.

use crate::repeated::{
    heading_reaches_main, landmark_reaches_main, layout, needs_bypass, scripted_control,
    skip_link_target,
};
use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Page has a way to bypass repeated blocks.
pub struct Bypass;

static META: RuleMeta = RuleMeta {
    id: "bypass",
    category: Category::Accessibility,
    title: "Page has a way to bypass repeated blocks",
    help: "Add a skip link to the main content, a <main> landmark, or a heading at the start of the main content.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/bypass-blocks.html",
    wcag: &["2.4.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["cf77f2"],
    best_practice: false,
    manual_review: false,
    needs: &[],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r#"## What it checks
On an HTML page where some of the page's own content comes after a block of
repeated content (navigation, banner, complementary and search landmarks, and
links that stand on their own), at least one way to skip that block exists: an
exposed landmark holding the page's own content, a visible and exposed heading
in the page's own content, or a focusable same-page link placed before the
content whose target is just before it. Which content repeats across pages is
inferred from those markers (see the `repeated` module). When none of these
exists but a focusable control before the content runs a script when activated
(`onclick` and the like, or a `javascript:` link) without leaving the page, that
control may be the mechanism (a skip button, a toggle that collapses the
navigation) and the outcome is *cannot tell*.

## Why it matters
Keyboard and screen-reader users otherwise have to go through the same
navigation on every page before reaching what they came for.

## Failing
```html
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><div><p>Welcome to our shop.</p></div></body>
```

## Passing
```html
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main><p>Welcome to our shop.</p></main></body>
```
"#,
};

impl Rule for Bypass {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        if !page_is_html(cx) {
            return;
        }
        let page = cx.page();
        let l = layout(page);
        if !needs_bypass(l) {
            cx.pass();
            return;
        }
        if landmark_reaches_main(page, l)
            || heading_reaches_main(page, l)
            || skip_link_target(page, l).is_some()
        {
            cx.pass();
        } else if let Some(control) = scripted_control(page, l) {
            cx.cant_tell(
                control,
                "Repeated content comes before the page's own content and no landmark, heading or skip link bypasses it; check whether this scripted control moves focus past it or collapses it.",
            );
        } else {
            cx.fail_page("Repeated content comes before the page's own content, and no landmark, heading or skip link lets people bypass it.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&Bypass)
            .pass(&[("(page)", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><main><p>Welcome</p></main>"#), ("(page)", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><h1>Shop</h1><p>Welcome</p></div>"#), ("(page)", r#"<a href=#m>Skip</a><nav><a href=/>Home</a></nav><div id=m><p>Welcome</p></div>"#), ("(page)", r#"<p>Only content, <a href=/x>with a link</a> inside text.</p>"#)])
            .fail(&[("(page)", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><p>Welcome</p></div>"#), ("(page)", r#"<a href=/x>Read chapter 2</a><aside>About</aside><div><strong>Title</strong><p>Text</p></div>"#)])
            // Scripted controls that do not leave the page, or that no one can
            // reach, are no mechanism.
            .fail(&[
                ("(page)", r#"<a href=/ onclick="track()">Home</a><aside>About</aside><div><p>Welcome</p></div>"#),
                ("(page)", r#"<button onclick="go()" disabled>Skip</button><aside>About</aside><div><p>Welcome</p></div>"#),
                ("(page)", r#"<aside>About</aside><div><p>Welcome</p><button onclick="go()">Later</button></div>"#),
            ])
            .cant_tell(&[
                ("button", r#"<button onclick="location.assign('#main')">Skip to main content</button><aside><p>About</p></aside><div id=main><p>Welcome</p></div>"#),
                ("a", r##"<a href="#" onclick="toggleHidden('nav')">Toggle menu</a><nav id=nav><a href=/>Home</a></nav><div><p>Welcome</p></div>"##),
                ("div", r#"<div role=link tabindex=0 onkeyup="skip(event)">Skip</div><aside><p>About</p></aside><div><p>Welcome</p></div>"#),
                ("a", r#"<a href="javascript:skip()">Skip</a><aside><p>About</p></aside><div><p>Welcome</p></div>"#),
            ])
            .run();
    }
}
