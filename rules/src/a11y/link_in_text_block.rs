//! `link-in-text-block`: links inside text are distinguishable without relying on color.

use ego_tree::NodeId;
use rustc_hash::{FxHashMap, FxHashSet};
use scraper::ElementRef;

use scraper::Selector;
use serde_json::json;

use super::support::reason;
use crate::aria::html::is_html;
use crate::css::color::contrast_ratio;
use crate::css::{split_selector_list, Rgba, SheetCaps};
use crate::PageContext;
use crate::{Category, Check, Impact, Level, Need, Rule, RuleMeta, Visits};

/// Checks that links within a block of text are underlined (or otherwise styled) rather than told apart by color alone.
pub struct LinkInTextBlock;

static META: RuleMeta = RuleMeta {
    id: "link-in-text-block",
    category: Category::Accessibility,
    title: "Links in text are distinguishable without color",
    help: "Underline links in running text (or give them a border or different weight), or make their color contrast at least 3:1 with the text and add a focus/hover indicator.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/use-of-color.html",
    wcag: &["1.4.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    needs: &[Need::LinkStates],
    docs: r##"## What it checks
Each visible link inside a block of running text (the nearest block-level ancestor has text outside the link) is set apart from the text by more than color: an underline, a bottom border, or a different font weight or style. A link told apart only by a color with at least 3:1 contrast against the text needs review (it also needs a non-color cue on hover and focus); one with less contrast fails.

## No silent pass
A link it applies to ends passed, failed or "needs review" (cannot tell) with
the reason in `data.reason`, as in
[`color-contrast`](color-contrast.md#no-silent-pass): `styles-incomplete`,
`color-unresolved` (the link's or the text's color uses custom properties or
`calc()` that do not resolve), `state-cues-unknown` (the link differs by a
color of 3:1 or more, and its hover and focus cues are not known). A link with
a non-color cue passes whatever its colors are.

## Render mode
In [render mode](../render.md) the link's and the text's colours are the
browser's computed ones (the non-color cues at rest still come from the
cascade), and the hover and focus cues are not guessed from the stylesheets:
the browser shows each link hovered (`:hover` forced on it and its
ancestors) and focused (`:focus` and `:focus-visible` on it, `:focus-within`
on its ancestors), with transitions stopped so that each look is the
state's own, and compares each look with the link at rest. An underline, a
bottom border or an outline that appears, a change of shadow, background or
font, or a change in what the link's `::before` or `::after` draws (an
underline that grows) is a cue. A link told apart by a color of 3:1 or more
passes when both states show a cue, and fails when one does not (the data
names the cue each state shows: `hover_cue`, `focus_cue`), as the ACT rule
"Inline link has different foreground color and distinguishable style on
hover and focus" expects. The states are forced for the page's first 1,000
links without an underline at rest (document order), all at once: a style
that depends on *another* link being hovered (a sibling combinator, `:has()`)
reads as if it were. A link beyond them, or one a script added after the
snapshot, is judged as in a static scan.

## Why it matters
People who cannot perceive the color difference cannot find the links in the text.

## Failing
```html
<p style="color:#333">Read our <a href="/terms" style="color:#444;text-decoration:none">terms</a> first.</p>
```

## Passing
```html
<p style="color:#333">Read our <a href="/terms" style="color:#0645ad">terms</a> first.</p>
```

## Cannot tell
```html
<p style="color:#000">Read our <a href="/terms" style="color:#1a73e8;text-decoration:none">terms</a> first.</p>
```
"##,
    ..RuleMeta::BASE
};

/// Selectors (with `:hover` / `:focus` stripped) of rules that give a link a
/// non-color cue on hover and on focus (WCAG technique G183).
struct StateCues {
    hover: Vec<Selector>,
    focus: Vec<Selector>,
    /// Rules that remove the focus outline.
    no_outline: Vec<Selector>,
}

fn state_cues(cx: &PageContext<'_>) -> StateCues {
    let mut cues = StateCues {
        hover: Vec::new(),
        focus: Vec::new(),
        no_outline: Vec::new(),
    };
    for (sheet, caps) in cx.author_sheets() {
        // Parsed once per sheet text, not once per page.
        let one = crate::css::sheet_facts(sheet, caps, sheet_cues);
        cues.hover.extend(one.hover.iter().cloned());
        cues.focus.extend(one.focus.iter().cloned());
        cues.no_outline.extend(one.no_outline.iter().cloned());
    }
    cues
}

/// The state cues of one stylesheet, read within what is left of the page's caps.
fn sheet_cues(sheet: &str, caps: &mut SheetCaps) -> StateCues {
    let mut cues = StateCues {
        hover: Vec::new(),
        focus: Vec::new(),
        no_outline: Vec::new(),
    };
    for rule in caps.parse(sheet) {
        let cue = rule.declarations.iter().any(|d| {
            let v = d.value.to_ascii_lowercase();
            (d.name.starts_with("text-decoration") && v.contains("underline"))
                || (d.name.starts_with("border") && !v.contains("none") && v != "0")
                || (d.name.starts_with("outline") && !v.contains("none") && v != "0")
                || d.name == "box-shadow" && v != "none"
                || d.name.starts_with("background")
                || d.name == "font-weight"
        });
        let removes_outline = rule.declarations.iter().any(|d| {
            let v = d.value.trim().to_ascii_lowercase();
            d.name == "outline" && (v == "none" || v == "0" || v == "0px")
                || d.name == "outline-style" && v == "none"
        });
        for part in split_selector_list(&rule.selectors) {
            if !caps.take_selector() {
                return cues;
            }
            let hover = part.contains(":hover");
            let focus = part.contains(":focus") && !part.contains(":focus-within");
            let plain = part
                .replace(":hover", "")
                .replace(":focus-visible", "")
                .replace(":focus", "")
                .replace(":any-link", "[href]")
                .replace(":link", "[href]");
            let Ok(sel) = Selector::parse(plain.trim()) else {
                continue;
            };
            if removes_outline && (focus || !hover) {
                cues.no_outline.push(sel.clone());
            }
            if cue && hover {
                cues.hover.push(sel.clone());
            }
            if cue && focus {
                cues.focus.push(sel);
            }
        }
    }
    cues
}

/// Whether an element starts a new block (its text is not inline with its parent's).
fn is_block(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    let d = cx.style(el).display.as_str();
    !d.starts_with("inline") && d != "contents"
}

/// For every link (`a[href]`), its nearest block-level ancestor, when that block
/// has visible text of its own inline formatting context outside any link (text
/// in nested blocks is not next to the link).
///
/// One walk over the document, keeping the open blocks on a stack and counting
/// the links open inside the innermost one: asking this of every link apart
/// walked the whole block again per link (quadratic in a paragraph of links).
fn text_blocks<'a>(
    cx: &PageContext<'_>,
    root: ElementRef<'a>,
) -> FxHashMap<NodeId, ElementRef<'a>> {
    use ego_tree::iter::Edge;
    /// An open block: the element, and how many links are open inside it.
    struct Open<'a> {
        block: ElementRef<'a>,
        links: usize,
    }
    /// What opening an element pushed, undone when it closes.
    enum Pushed {
        Block,
        Link,
        Nothing,
    }
    let mut blocks: Vec<Open<'a>> = Vec::new();
    let mut pushed: Vec<Pushed> = Vec::new();
    let mut block_of: Vec<(NodeId, ElementRef<'a>)> = Vec::new();
    let mut with_text: FxHashSet<NodeId> = FxHashSet::default();
    for edge in root.traverse() {
        match edge {
            Edge::Open(node) => {
                if let Some(el) = ElementRef::wrap(node) {
                    let link = el.value().name() == "a" && crate::dom::attr(el, "href").is_some();
                    if link {
                        if let Some(open) = blocks.last() {
                            block_of.push((el.id(), open.block));
                        }
                    }
                    if is_block(cx, el) {
                        blocks.push(Open {
                            block: el,
                            links: 0,
                        });
                        pushed.push(Pushed::Block);
                    } else if let (true, Some(open)) = (link, blocks.last_mut()) {
                        open.links += 1;
                        pushed.push(Pushed::Link);
                    } else {
                        pushed.push(Pushed::Nothing);
                    }
                } else if let Some(t) = node.value().as_text() {
                    let Some(open) = blocks.last() else {
                        continue;
                    };
                    if open.links > 0 || with_text.contains(&open.block.id()) {
                        continue;
                    }
                    let visible = node
                        .parent()
                        .and_then(ElementRef::wrap)
                        .is_some_and(|p| cx.is_visible(p));
                    if visible && t.chars().any(char::is_alphanumeric) {
                        with_text.insert(open.block.id());
                    }
                }
            }
            Edge::Close(node) => {
                if node.value().is_element() {
                    match pushed.pop() {
                        Some(Pushed::Block) => {
                            blocks.pop();
                        }
                        Some(Pushed::Link) => {
                            if let Some(open) = blocks.last_mut() {
                                open.links -= 1;
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    block_of
        .into_iter()
        .filter(|(_, block)| with_text.contains(&block.id()))
        .collect()
}

/// Whether the link shows visible text of its own.
fn has_visible_text(cx: &PageContext<'_>, link: ElementRef<'_>) -> bool {
    link.descendants().any(|n| {
        n.value()
            .as_text()
            .is_some_and(|t| t.chars().any(char::is_alphanumeric))
            && n.parent()
                .and_then(ElementRef::wrap)
                .is_some_and(|p| cx.is_visible(p))
    })
}

/// Whether the link has a non-color cue: underline, a visible bottom border, or a
/// weight or style that differs from the text around it.
fn has_non_color_cue(cx: &PageContext<'_>, link: ElementRef<'_>, block: ElementRef<'_>) -> bool {
    let ls = cx.style(link);
    let bs = cx.style(block);
    let text_underlined = link
        .descendants()
        .filter_map(ElementRef::wrap)
        .any(|d| cx.style(d).underline);
    let border = ls
        .get("border-bottom")
        .is_some_and(|b| !b.contains("none") && !b.starts_with('0') && !b.contains("hidden"))
        || ls
            .get("border-bottom-style")
            .is_some_and(|b| b != "none" && b != "hidden");
    let weight_differs = ls.is_bold() != bs.is_bold();
    let style_differs =
        ls.get("font-style").unwrap_or("normal") != bs.get("font-style").unwrap_or("normal");
    text_underlined || border || weight_differs || style_differs
}

impl Rule for LinkInTextBlock {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let mut cues: Option<StateCues> = None;
        let blocks = text_blocks(page, page.root());
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            if !is_html(el) || el.value().name() != "a" || crate::dom::attr(el, "href").is_none() {
                continue;
            }
            if page.role(el) != Some("link") || !page.is_visible(el) || page.is_hidden(el) {
                continue;
            }
            if !has_visible_text(page, el) {
                continue;
            }
            let Some(&block) = blocks.get(&el.id()) else {
                continue;
            };
            // A sheet the page uses is missing: it may underline the link,
            // or color it like the text.
            if let Some(why) = page.styles_incomplete() {
                cx.cant_tell(
                    el,
                    format!("Check that the link is distinguishable from the text: {why}."),
                )
                .with_data(json!({ "reason": reason::STYLES_INCOMPLETE }));
                continue;
            }
            if has_non_color_cue(page, el, block) {
                cx.pass_on(el);
                continue;
            }
            // Render mode: the browser's computed colours, where it has them.
            let color = |e: ElementRef<'_>| {
                page.rendered(e.id())
                    .and_then(|f| f.color)
                    .or(page.style(e).color)
            };
            let (Some(link_color), Some(text_color)) = (color(el), color(block)) else {
                cx.cant_tell(
                    el,
                    "The link or text color cannot be resolved; check that the link is distinguishable.",
                )
                .with_data(json!({ "reason": reason::COLOR_UNRESOLVED }));
                continue;
            };
            let ratio = contrast_ratio(link_color.over(Rgba::WHITE), text_color.over(Rgba::WHITE));
            let data = json!({
                "contrast_ratio": (f64::from(ratio) * 100.0).round() / 100.0,
                "expected": 3.0,
                "fg": link_color.to_hex(),
                "bg": text_color.to_hex(),
            });
            if ratio < 3.0 {
                cx.fail(
                    el,
                    format!("This link is not underlined and its color differs from the text by only {ratio:.2}:1 (needs 3:1)."),
                )
                .with_data(data);
                continue;
            }
            // G183: color with 3:1 plus a non-color cue on hover and on focus.
            // Render mode: the browser showed the link in both states.
            if let Some(states) = page.rendered(el.id()).and_then(|f| f.states.as_deref()) {
                let hover = states.hover.cue_over(&states.rest);
                let focus = states.focus.cue_over(&states.rest);
                if hover.is_some() && focus.is_some() {
                    cx.pass_on(el);
                    continue;
                }
                let when = match (hover, focus) {
                    (None, None) => "hovered or focused",
                    (None, Some(_)) => "hovered",
                    _ => "focused",
                };
                cx.fail(
                    el,
                    format!("This link differs from the text by color only ({ratio:.2}:1) and shows no other cue when {when}."),
                )
                .with_data({
                    let mut data = data;
                    data["hover_cue"] = json!(hover);
                    data["focus_cue"] = json!(focus);
                    data
                });
                continue;
            }
            let cues = cues.get_or_insert_with(|| state_cues(page));
            let on_hover = cues.hover.iter().any(|s| s.matches(&el));
            let on_focus = cues.focus.iter().any(|s| s.matches(&el))
                || !cues.no_outline.iter().any(|s| s.matches(&el));
            if on_hover && on_focus {
                cx.pass_on(el);
            } else {
                cx.cant_tell(
                    el,
                    format!("This link differs from the text by color only ({ratio:.2}:1); check it gets a non-color cue on hover and focus."),
                )
                .with_data({
                    let mut data = data;
                    data["reason"] = json!(reason::STATE_CUES_UNKNOWN);
                    data
                });
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
        RuleTester::new(&LinkInTextBlock)
            .pass(&[
                ("a", r##"<p>Read our <a href=/t>terms</a> first.</p>"##),
                ("a", r##"<p>Read <a href=/t style="text-decoration:none;border-bottom:1px solid">terms</a> now.</p>"##),
                ("a", r##"<p>Read <a href=/t style="text-decoration:none;font-weight:bold">terms</a> now.</p>"##),
                ("a", r##"<style>a{text-decoration:none}a span{text-decoration:underline}</style><p>Read <a href=/t><span>terms</span></a> now.</p>"##),
                ("a", r##"<style>a{color:#1a73e8;text-decoration:none}a:hover,a:focus{text-decoration:underline}</style><p>Read our <a href=/t>terms</a> first.</p>"##),
            ])
            .inapplicable(&[
                r##"<nav><a href=/a style="text-decoration:none">Home</a></nav>"##,
                r##"<p><a href=/t style="text-decoration:none;color:#777">Only a link</a></p>"##,
                r##"<style>a{color:#fff;text-decoration:none}</style><header style="color:#eee"><a href=/><img src=l.png alt=Logo></a><a href=/x>Home</a><form><label>Search <input></label></form></header>"##,
            ])
            .fail(&[
                ("a", r##"<p style="color:#333">Read our <a href=/t style="color:#444;text-decoration:none">terms</a> first.</p>"##),
                ("a", r##"<style>p a{text-decoration:none;color:#222}</style><p>See <a href=/x>this</a> page.</p>"##),
            ])
            .cant_tell(&[
                ("a", r##"<p style="color:#000">Read our <a href=/t style="color:#1a73e8;text-decoration:none">terms</a> first.</p>"##),
                ("a", r##"<style>a{color:#1a73e8;text-decoration:none}a:hover{text-decoration:underline}a:focus{outline:none}</style><p>Read our <a href=/t>terms</a> first.</p>"##),
            ])
            .run();
    }
}
