//! `frame-title-unique`: frames with the same accessible name embed the same
//! content (WCAG 4.1.2, ACT 4b1c6c).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks `iframe`s that share an accessible name.
pub struct FrameTitleUnique;

static META: RuleMeta = RuleMeta {
    id: "frame-title-unique",
    category: Category::Accessibility,
    title: "Frames with the same name embed the same content",
    help: "Give each iframe a name (title) that says what it holds, different from the others unless it embeds the same content.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["4b1c6c"],
    docs: r#"## What it checks
`iframe` elements exposed to assistive technologies that share a non-empty
accessible name (compared case-insensitively): when all of them load the same
URL (resolved, ignoring a trailing slash) they pass. When the URLs differ,
whether the frames are equivalent (the same content in another form) needs a
person: the outcome is *cannot tell*.

## Why it matters
Screen readers list frames by name. Two frames named alike but holding different
content cannot be told apart.

## Failing
```html
<iframe title="Map" src="/map/paris"></iframe><iframe title="Map" src="/map/rome"></iframe>
```
(reported for review: the same name for different pages)

## Passing
```html
<iframe title="Map of Paris" src="/map/paris"></iframe><iframe title="Map of Rome" src="/map/rome"></iframe>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for FrameTitleUnique {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let base = &page.page().final_url;
        // (name, what it loads, the element to report): frames of this document,
        // and frames of `srcdoc` documents, which share its top-level browsing
        // context and are reported on their container.
        let mut frames: Vec<(String, String, ElementRef<'_>)> = Vec::new();
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            if !(is_html(el) && el.value().name() == "iframe") || page.is_hidden(el) {
                continue;
            }
            let name = page.accessible_name(el).trim().to_lowercase();
            if !name.is_empty() {
                frames.push((name, target(base, el), el));
            }
            if let Some(srcdoc) = el.value().attr("srcdoc") {
                nested_frames(base, srcdoc, 0, &mut |name, loads| {
                    frames.push((name, loads, el));
                });
            }
        }
        let mut done = vec![false; frames.len()];
        for i in 0..frames.len() {
            if done[i] {
                continue;
            }
            let group: Vec<usize> = (i..frames.len())
                .filter(|j| frames[*j].0 == frames[i].0)
                .collect();
            for j in &group {
                done[*j] = true;
            }
            if group.len() < 2 {
                continue;
            }
            if group.iter().all(|j| frames[*j].1 == frames[i].1) {
                cx.pass_on(frames[i].2);
                continue;
            }
            let mut reported: Vec<ego_tree::NodeId> = Vec::new();
            for j in group {
                let el = frames[j].2;
                if reported.contains(&el.id()) {
                    continue;
                }
                reported.push(el.id());
                cx.cant_tell(
                    el,
                    format!("Several frames are named \"{}\" but load different pages; check they hold equivalent content or name them apart.", frames[i].0),
                );
            }
        }
    }
}

/// What a frame loads: its resolved `src` without a trailing slash, plus its
/// `srcdoc`.
fn target(base: &url::Url, el: ElementRef<'_>) -> String {
    let src = el.value().attr("src").unwrap_or("").trim();
    let resolved = base
        .join(src)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| src.to_string());
    let srcdoc = el.value().attr("srcdoc").unwrap_or("");
    format!("{}|{}", resolved.trim_end_matches('/'), srcdoc)
}

/// Frames inside a `srcdoc` document (recursively, a few levels deep), named by
/// `aria-label` or `title`.
fn nested_frames(base: &url::Url, srcdoc: &str, depth: u32, found: &mut dyn FnMut(String, String)) {
    /// A parsed `srcdoc` document, its iframes left to visit, and its level.
    type Level = (scraper::Html, std::vec::IntoIter<ego_tree::NodeId>, u32);
    fn open(srcdoc: &str, depth: u32) -> Level {
        let doc = crate::dom::parse_document(srcdoc);
        let frames: Vec<ego_tree::NodeId> = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|el| el.value().name() == "iframe")
            .map(|el| el.id())
            .collect();
        (doc, frames.into_iter(), depth)
    }
    // An explicit stack of open documents, not recursion, in the same order.
    let mut stack: Vec<Level> = Vec::new();
    if depth <= 3 {
        stack.push(open(srcdoc, depth));
    }
    while let Some((doc, frames, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(id) = frames.next() else {
            stack.pop();
            continue;
        };
        let Some(el) = doc.tree.get(id).and_then(ElementRef::wrap) else {
            continue;
        };
        let name = ["aria-label", "title"]
            .iter()
            .filter_map(|a| el.value().attr(a))
            .map(|v| v.trim().to_lowercase())
            .find(|v| !v.is_empty());
        if let Some(name) = name {
            found(name, target(base, el));
        }
        let inner = el.value().attr("srcdoc").map(str::to_string);
        if let Some(inner) = inner {
            if depth < 3 {
                stack.push(open(&inner, depth + 1));
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
        RuleTester::new(&FrameTitleUnique)
            .pass(&[
                ("iframe", "<iframe title=Map src=/a></iframe><iframe title=map src=/a/></iframe>"),
            ])
            .inapplicable(&[
                "<iframe title='Map of Paris' src=/p></iframe><iframe title='Map of Rome' src=/r></iframe>",
                "<iframe title=Map src=/a></iframe><iframe title=Map src=/b style='display:none'></iframe>",
            ])
            .cant_tell(&[
                ("iframe", "<iframe title=Map src=/a></iframe><iframe title=Map src=/b></iframe>"),
                ("iframe", r#"<iframe title=Map src=/a></iframe><iframe title=Box srcdoc="<iframe title='Map' src='/b'></iframe>"></iframe>"#),
            ])
            .run();
    }
}
