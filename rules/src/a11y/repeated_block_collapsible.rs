//! `repeated-block-collapsible`: each block of repeated content before the
//! page's own content can be collapsed.

use ego_tree::NodeId;
use scraper::ElementRef;

use crate::repeated::{
    activation_of, blocks_before_main, layout, needs_bypass, other_way_past, scripted_controls,
    Block, Layout,
};
use crate::structure::{ancestors, is_html, page_is_html, AncestorMemo};
use crate::{Category, Check, Impact, PageContext, Rule, RuleMeta, Visits};

/// Each block of repeated content before the page's own content can be
/// collapsed.
pub struct RepeatedBlockCollapsible;

static META: RuleMeta = RuleMeta {
    id: "repeated-block-collapsible",
    category: Category::Accessibility,
    title: "Blocks of repeated content can be collapsed",
    help: "Give each block of repeated content before the main content (navigation, sidebars) a control that hides it with display: none or hidden, or put it in a <details> element.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/client-side-script/SCR28",
    wcag: &[],
    level: None,
    impact: Impact::Minor,
    act: &["3e12e1"],
    best_practice: true,
    manual_review: false,
    needs: &[crate::Need::Interaction],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r##"## What it checks
On an HTML page where some of the page's own content comes after blocks of
repeated content (navigation, banner, complementary and search landmarks, and
links and buttons that stand on their own; see `bypass`), each of those blocks can be
collapsed: one control makes all of it invisible **and** removes it from the
accessibility tree. One of the ways to meet WCAG 2.4.1 (technique SCR28). A
block inside an open `<details>` element collapses with its `<summary>`; a
link or button that is itself a collapse control is not asked to collapse.

Whether a scripted control (`onclick` and the like, or a `javascript:` link,
placed before the page's own content) collapses a block cannot be known
without running it: a static scan says *cannot tell* on the first such
control. Render mode (`--render`) activates each of them in the browser
(Enter, or a click when Enter does nothing; the page's requests are refused
meanwhile) and notes which elements stopped being rendered (`display: none`,
`hidden`, `visibility: hidden`, removed). The page **passes** when every block
was collapsed by one activation; it **fails**, on each block that was not,
when every control was activated. Moving a block off the screen, or only
setting `aria-hidden` on it, hides it from one group of users only and does
not count. A page with no control at all fails in both modes.

The rule says nothing on a page that has another way past the blocks: a
`main` landmark, a heading or a skip link that reaches the page's own
content (what `bypass` accepts). There a collapse control is a nicety, and
a finding on the navigation of nearly every page would bury the ones that
matter.

## Why it matters
Keyboard and screen-reader users who can fold the navigation away reach the
page's own content without going through it on every page.

## Failing
```html
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><div><p>Welcome to our shop.</p></div></body>
```

## Passing
```html
<body><details open><summary>Menu</summary><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></details><div><p>Welcome to our shop.</p></div></body>
```
"##,
};

impl Rule for RepeatedBlockCollapsible {
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
            // ACT: no repeated block before the page's own content passes.
            cx.pass();
            return;
        }
        // Another way past the blocks (a main landmark, a heading or a skip
        // link that reaches the page's own content; see `bypass`) already
        // meets WCAG 2.4.1. Folding the blocks away is then a nicety, and a
        // finding on the navigation of nearly every page of a site would
        // bury the findings that matter, so the rule says nothing there.
        if other_way_past(page, l) {
            return;
        }
        let controls = scripted_controls(page, l);
        // A block that is only bypass instruments (a "Toggle menu" or "Skip
        // to content" link stands on its own, so it counts as repeated) is
        // not something they must fold away.
        let blocks: Vec<Block> = blocks_before_main(page, l)
            .into_iter()
            .filter(|b| {
                !b.units.iter().all(|&i| {
                    page.element(l.units[i].element).is_some_and(|el| {
                        controls.iter().any(|c| within(el, *c))
                            || std::iter::once(el)
                                .chain(ancestors(el))
                                .any(same_page_link)
                    })
                })
            })
            .collect();
        // What each activated control took off the screen and out of the
        // accessibility tree.
        let mut known: Vec<(ElementRef<'_>, Vec<NodeId>)> = Vec::new();
        let mut unknown = None;
        for c in &controls {
            match activation_of(page, *c) {
                Some(a) => known.push((
                    *c,
                    a.collapsed
                        .iter()
                        .filter_map(|p| crate::interaction::find_path(page.root(), p))
                        .map(|el| el.id())
                        .collect(),
                )),
                None => unknown = unknown.or(Some(*c)),
            }
        }
        let open: Vec<&Block> = blocks
            .iter()
            .filter(|b| {
                !in_details(page, l, b)
                    && !known
                        .iter()
                        .any(|(c, gone)| collapses(page, l, b, *c, gone))
            })
            .collect();
        if open.is_empty() {
            cx.pass();
        } else if let Some(c) = unknown {
            cx.cant_tell(
                c,
                "A block of repeated content comes before the page's own content; check whether this scripted control hides it (display: none or hidden).",
            );
        } else {
            let message = if controls.is_empty() {
                "This block of repeated content comes before the page's own content, and no control collapses it."
            } else {
                "This block of repeated content comes before the page's own content; activated in the browser, no control hid it from the screen and the accessibility tree."
            };
            for b in open {
                if let Some(el) = page.element(b.element) {
                    cx.fail(el, message);
                }
            }
        }
    }
}

/// Whether `el` is a link to a place on the same page (`href="#…"`).
fn same_page_link(el: ElementRef<'_>) -> bool {
    is_html(el)
        && matches!(el.value().name(), "a" | "area")
        && crate::dom::attr(el, "href").is_some_and(|h| h.trim_start().starts_with('#'))
}

/// Whether `el` is `container` or inside it.
fn within(el: ElementRef<'_>, container: ElementRef<'_>) -> bool {
    el.id() == container.id() || ancestors(el).any(|a| a.id() == container.id())
}

/// Whether activating `control` took every unit of `block` (but the
/// control's own text) inside one of `gone`, the elements it stopped
/// rendering.
fn collapses(
    cx: &PageContext<'_>,
    l: &Layout,
    block: &Block,
    control: ElementRef<'_>,
    gone: &[NodeId],
) -> bool {
    if gone.is_empty() {
        return false;
    }
    let mut hidden = AncestorMemo::new(|a| gone.contains(&a.id()));
    let mut any = false;
    for &i in &block.units {
        let Some(el) = cx.element(l.units[i].element) else {
            return false;
        };
        if within(el, control) {
            continue;
        }
        if !hidden.any(el) {
            return false;
        }
        any = true;
    }
    any
}

/// Whether every unit of `block` is in the content of a `<details>` element
/// (not its `<summary>`): the summary folds it away with no script.
fn in_details(cx: &PageContext<'_>, l: &Layout, block: &Block) -> bool {
    block.units.iter().all(|&i| {
        cx.element(l.units[i].element).is_some_and(|el| {
            for a in std::iter::once(el).chain(ancestors(el)) {
                if !is_html(a) {
                    continue;
                }
                match a.value().name() {
                    "summary" => return false,
                    "details" => return true,
                    _ => {}
                }
            }
            false
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a11y::bypass::tests::activated;
    use crate::interaction::Activation;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&RepeatedBlockCollapsible)
            .pass(&[
                // Nothing repeated comes before the page's own content.
                ("(page)", r#"<main><p>Welcome</p></main><footer><a href=/>Home</a></footer>"#),
                ("(page)", r#"<details open><summary>Menu</summary><nav><a href=/>Home</a> <a href=/s>Shop</a></nav></details><div><p>Welcome</p></div>"#),
            ])
            .fail(&[
                ("nav", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><p>Welcome</p></div>"#),
                // The summary is inside the block: the rest stays.
                ("nav", r#"<nav><details open><summary>More</summary><a href=/a>A</a></details><a href=/>Home</a></nav><div><p>Welcome</p></div>"#),
            ])
            // Another way past the block (a skip link, a main landmark, a
            // heading): the rule says nothing.
            .inapplicable(&[
                r#"<a href=#m>Skip</a><nav><a href=/>Home</a></nav><main id=m><p>Welcome</p></main>"#,
                r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><main><p>Welcome</p></main>"#,
                r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><h1>Shop</h1><p>Welcome</p></div>"#,
            ])
            .cant_tell(&[
                ("a", r##"<a href="#" onclick="toggleHidden('nav')">Toggle menu</a><nav id=nav><a href=/>Home</a></nav><div><p>Welcome</p></div>"##),
                ("button", r#"<button onclick="hide()">Hide menu</button><nav><a href=/>Home</a></nav><aside><p>About</p></aside><div><p>Welcome</p></div>"#),
            ])
            .run();
    }

    #[test]
    fn render_mode_reads_what_activation_hid() {
        // The button is the body's first child, the nav its second, the
        // aside its third.
        const ONE: &str = r#"<button onclick="toggle()">Toggle menu</button><nav><a href=/>Home</a> <a href=/s>Shop</a></nav><div><p>Welcome</p></div>"#;
        const TWO: &str = r#"<button onclick="toggle()">Toggle</button><nav><a href=/>Home</a></nav><aside><p>About</p></aside><div><p>Welcome</p></div>"#;
        const INNER: &str = r#"<nav><button onclick="toggle()">Menu</button><ul><li><a href=/>Home</a></li></ul></nav><div><p>Welcome</p></div>"#;
        let did = |path: Vec<u32>, collapsed: Vec<Vec<u32>>| Activation {
            path,
            label: "button".into(),
            fragment: None,
            focused: None,
            collapsed,
        };
        RuleTester::new(&RepeatedBlockCollapsible)
            .pass_page("(page)", activated(ONE, did(vec![1, 0], vec![vec![1, 1]])))
            .pass_page(
                "(page)",
                activated(TWO, did(vec![1, 0], vec![vec![1, 1], vec![1, 2]])),
            )
            // A menu button inside the navigation folds the rest of it.
            .pass_page("(page)", activated(INNER, did(vec![1, 0, 0], vec![vec![1, 0, 1]])))
            // Nothing hidden, or only part of the block, or one block of two.
            .fail_page("nav", activated(ONE, did(vec![1, 0], vec![])))
            .fail_page("nav", activated(ONE, did(vec![1, 0], vec![vec![1, 1, 1]])))
            .fail_page("aside", activated(TWO, did(vec![1, 0], vec![vec![1, 1]])))
            // What the browser did to another element says nothing about
            // this control.
            .cant_tell_page("button", activated(ONE, did(vec![1, 1], vec![vec![1, 1]])))
            .run();
    }
}
