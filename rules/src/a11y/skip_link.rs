//! `skip-link`: a skip link reaches the page's own content.

use crate::repeated::{
    control_bypass, heading_reaches_main, landmark_reaches_main, layout, needs_bypass,
    scripted_controls, skip_link_target, ControlBypass,
};
use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// A skip link reaches the page's own content.
pub struct SkipLink;

static META: RuleMeta = RuleMeta {
    id: "skip-link",
    category: Category::Accessibility,
    title: "A skip link reaches the page's own content",
    help: "Put a link such as <a href=\"#main\">Skip to main content</a> first in the page, pointing just before the main content.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/general/G1",
    wcag: &[],
    level: None,
    impact: Impact::Moderate,
    act: &["ye5d6e"],
    best_practice: true,
    manual_review: false,
    needs: &[crate::Need::Interaction],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r##"## What it checks
On an HTML page where some of the page's own content comes after a block of
repeated content, a focusable same-page link (`href="#id"`) placed before that
content points to an element that exists and is just before it: the first
perceivable content at or after the target is the page's own content. One of
the ways to meet WCAG 2.4.1 (see `bypass`). When a landmark or a heading
already leads to the content, a page without a working skip link is not reported.
A focusable control before the content that runs a script when activated
(`onclick` and the like, or a `javascript:` link) without leaving the page may
move focus to the content (`<button onclick="location.assign('#main')">`): when
no link does, a static scan says *cannot tell*. Render mode (`--render`)
activates such controls in the browser (Enter, or a click when Enter does
nothing; the page's requests are refused meanwhile): one that moved focus, or
the page's fragment, just before the page's own content **passes**; when every
one was activated and none did, the page **fails** (one that collapses the
repeated content instead is a bypass too, and is not reported).

## Why it matters
Keyboard users reach a skip link with one Tab and jump past the navigation; a
skip link to a missing id, or to a point still inside the navigation, does not
help.

## Failing
```html
<body><a href="#content">Skip to content</a><nav><a href="/">Home</a></nav><div id="main"><p>Welcome</p></div></body>
```

## Passing
```html
<body><a href="#main">Skip to content</a><nav><a href="/">Home</a></nav><div id="main"><p>Welcome</p></div></body>
```
"##,
};

impl Rule for SkipLink {
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
        if !needs_bypass(l) || skip_link_target(page, l).is_some() {
            cx.pass();
        } else if landmark_reaches_main(page, l) || heading_reaches_main(page, l) {
            // A landmark or heading already lets people bypass the blocks: a skip
            // link would be a nicety, not a finding.
        } else {
            let controls = scripted_controls(page, l);
            let verdicts: Vec<ControlBypass> =
                controls.iter().map(|c| control_bypass(page, l, *c)).collect();
            if verdicts.contains(&ControlBypass::MovesFocus) {
                cx.pass();
            } else if verdicts.contains(&ControlBypass::Collapses) {
                // The repeated content can be collapsed: bypassed, though not
                // by moving focus.
            } else if let Some(at) = verdicts.iter().position(|v| *v == ControlBypass::Unknown) {
                cx.cant_tell(
                    controls[at],
                    "No same-page link before the content points just before the page's own content; check whether this scripted control moves focus there.",
                );
            } else if controls.is_empty() {
                cx.fail_page("No focusable same-page link before the content points just before the page's own content, and no landmark or heading leads there either.");
            } else {
                cx.fail_page("No focusable same-page link before the content points just before the page's own content, no landmark or heading leads there either, and activated in the browser, the page's scripted controls did not move focus there.");
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
        RuleTester::new(&SkipLink)
            .pass(&[("(page)", r#"<a href=#m>Skip</a><nav><a href=/>Home</a></nav><div id=m><p>Welcome</p></div>"#), ("(page)", r#"<a href=#j>Skip</a><aside><p>About</p><span id=j></span></aside><div><p>Welcome</p></div>"#), ("(page)", r#"<p>Only content</p>"#)])
            .inapplicable(&["<nav><a href=/>Home</a></nav><main><p>Welcome</p></main>"])
            .fail(&[("(page)", r#"<a href=#nope>Skip</a><nav><a href=/>Home</a></nav><div id=m><p>Welcome</p></div>"#), ("(page)", r#"<a href=#b>Skip</a><a href=/2>Next</a><aside><p id=b>About</p></aside><div><p>Welcome</p></div>"#), ("(page)", r#"<a href=/2>Next</a><aside><p>About</p></aside><div><p>Welcome</p></div>"#)])
            .fail(&[("(page)", r#"<a href=/2 onclick="track()">Next</a><aside><p>About</p></aside><div><p>Welcome</p></div>"#)])
            .cant_tell(&[
                ("div", r#"<div role=link onclick="location.assign('#main')" tabindex=0>Skip to main content</div><aside><p>About</p></aside><div id=main><p>Welcome</p></div>"#),
                ("button", r#"<button onclick="location.assign('#main')">Skip</button><aside><p>About</p></aside><div id=main><p>Welcome</p></div>"#),
            ])
            .run();
    }

    #[test]
    fn render_mode_activates_scripted_controls() {
        use crate::a11y::bypass::tests::activated;
        use crate::interaction::Activation;
        const SKIP: &str = r#"<div role=link tabindex=0 onclick="location.assign('#main')">Skip to main content</div><aside><p>About</p></aside><div id=main><p>Welcome</p></div>"#;
        let did = |fragment: Option<&str>, collapsed: Vec<Vec<u32>>| Activation {
            path: vec![1, 0],
            label: "div".into(),
            fragment: fragment.map(str::to_string),
            focused: None,
            collapsed,
        };
        RuleTester::new(&SkipLink)
            .pass_page("(page)", activated(SKIP, did(Some("main"), vec![])))
            .fail_page("(page)", activated(SKIP, did(None, vec![])))
            .fail_page("(page)", activated(SKIP, did(Some("nowhere"), vec![])))
            // Collapsing the repeated block bypasses it without moving focus:
            // not this rule's finding.
            .inapplicable_page(activated(SKIP, did(None, vec![vec![1, 1]])))
            .run();
    }
}
