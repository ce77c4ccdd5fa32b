//! `bypass`: page has a way to bypass repeated blocks.

use crate::repeated::{
    control_bypass, layout, needs_bypass, other_way_past, scripted_controls, ControlBypass,
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
    needs: &[crate::Need::Interaction],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r#"## What it checks
On an HTML page where some of the page's own content comes after a block of
repeated content (navigation, banner, complementary and search landmarks, and
links and buttons that stand on their own), at least one way to skip that block exists: an
exposed landmark holding the page's own content, a visible and exposed heading
in the page's own content, or a focusable same-page link placed before the
content whose target is just before it. Which content repeats across pages is
inferred from those markers (see the `repeated` module). When none of these
exists but a focusable control before the content runs a script when activated
(`onclick` and the like, or a `javascript:` link) without leaving the page, that
control may be the mechanism (a skip button, a toggle that collapses the
navigation). A static scan cannot run it: the outcome is *cannot tell*. Render
mode (`--render`) activates it in the browser (Enter, or a click when Enter
does nothing; the page's requests are refused meanwhile) and the page
**passes** when it moved focus (or the page's fragment) just before the page's
own content, or took every block of repeated content between it and that
content off the screen and out of the accessibility tree (`display: none`,
`hidden`); it **fails** when every such control was activated and did
neither. Moving the repeated content off screen, or only hiding it with
`aria-hidden`, collapses it for one group of users only and does not count.

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
        if other_way_past(page, l) {
            cx.pass();
        } else {
            let controls = scripted_controls(page, l);
            let verdicts: Vec<ControlBypass> =
                controls.iter().map(|c| control_bypass(page, l, *c)).collect();
            if verdicts
                .iter()
                .any(|v| matches!(v, ControlBypass::MovesFocus | ControlBypass::Collapses))
            {
                cx.pass();
            } else if let Some(at) = verdicts.iter().position(|v| *v == ControlBypass::Unknown) {
                cx.cant_tell(
                    controls[at],
                    "Repeated content comes before the page's own content and no landmark, heading or skip link bypasses it; check whether this scripted control moves focus past it or collapses it.",
                );
            } else if controls.is_empty() {
                cx.fail_page("Repeated content comes before the page's own content, and no landmark, heading or skip link lets people bypass it.");
            } else {
                cx.fail_page("Repeated content comes before the page's own content, and no landmark, heading or skip link lets people bypass it; activated in the browser, the page's scripted controls neither moved focus to the content nor hid the repeated content.");
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::interaction::{Activation, Interaction};
    use crate::testing::RuleTester;
    use crate::Page;

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

    /// A page as render mode gives it: `activation` is what activating its
    /// first scripted control (at `path`) did.
    pub(crate) fn activated(html: &str, activation: Activation) -> Page {
        let mut page = RuleTester::page(html);
        page.interaction = Some(Interaction {
            complete: true,
            activations: vec![activation],
            shortcuts: None,
            ..Interaction::default()
        });
        page
    }

    #[test]
    fn render_mode_activates_scripted_controls() {
        const SKIP: &str = r#"<button onclick="location.assign('#main')">Skip</button><aside><p>About</p></aside><div id=main><p>Welcome</p></div>"#;
        const TOGGLE: &str = r##"<a href="#" onclick="toggle('nav')">Toggle menu</a><nav id=nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><p>Welcome</p></div>"##;
        // The button is the body's first child, the nav its second.
        let did = |fragment: Option<&str>, focused: Option<Vec<u32>>, collapsed: Vec<Vec<u32>>| Activation {
            path: vec![1, 0],
            label: "control".into(),
            fragment: fragment.map(str::to_string),
            focused,
            collapsed,
        };
        RuleTester::new(&Bypass)
            // The fragment, or focus, moved just before the content.
            .pass_page("(page)", activated(SKIP, did(Some("main"), None, vec![])))
            .pass_page("(page)", activated(SKIP, did(None, Some(vec![1, 2]), vec![])))
            // The navigation left the screen and the accessibility tree.
            .pass_page("(page)", activated(TOGGLE, did(None, None, vec![vec![1, 1]])))
            // Activated, and nothing a bypass does happened: focus moved
            // into the repeated block, or only part of it was collapsed, or
            // nothing at all.
            .fail_page("(page)", activated(SKIP, did(Some("about"), Some(vec![1, 1]), vec![])))
            .fail_page("(page)", activated(TOGGLE, did(None, None, vec![vec![1, 1, 0]])))
            .fail_page("(page)", activated(TOGGLE, did(None, None, vec![])))
            // What the browser did to another element says nothing about this
            // one.
            .cant_tell_page(
                "button",
                activated(SKIP, Activation { path: vec![1, 1], ..did(Some("main"), None, vec![]) }),
            )
            .run();
    }
}
