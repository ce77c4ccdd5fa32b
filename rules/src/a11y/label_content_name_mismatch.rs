//! `label-content-name-mismatch`: a widget's visible text is part of its accessible name (ACT 2ee8b8).

use scraper::ElementRef;

use crate::aria::roles::{is_widget, role_def, NameFrom};
use crate::PageContext;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that widgets named by `aria-label` / `aria-labelledby` include their visible text in the name.
pub struct LabelContentNameMismatch;

static META: RuleMeta = RuleMeta {
    id: "label-content-name-mismatch",
    category: Category::Accessibility,
    title: "Visible label is part of the accessible name",
    help: "Start the aria-label with the visible text (or drop aria-label and let the text name the control).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/label-in-name.html",
    wcag: &["2.5.3"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["2ee8b8"],
    docs: r##"## What it checks
Each element included in the accessibility tree with a widget role that takes its name from content (`button`, `link`, `checkbox`, `menuitem`, `tab`, ...), with visible text content and an `aria-label` or `aria-labelledby`, has an accessible name that contains the visible text (case-insensitive, punctuation and white space folded).

## Why it matters
Voice control users say what they see ("click Send"); if the name differs, the command does not work.

## Failing
```html
<button aria-label="Submit form">Send</button>
```

## Passing
```html
<button aria-label="Send the form">Send</button>
```
"##,
    ..RuleMeta::BASE
};

/// ACT "label in name" tokens: bracketed text removed, hyphens joined, lowercase
/// alphanumeric words, each flagged when followed by `.` (a possible abbreviation).
fn tokens(s: &str) -> Vec<(String, bool)> {
    let mut plain = String::new();
    let mut depth = 0u32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '-' | '\u{ad}' => {}
            _ if depth == 0 => plain.extend(c.to_lowercase()),
            _ => {}
        }
    }
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut word = String::new();
    for c in plain.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push((std::mem::take(&mut word), c == '.'));
            }
        }
    }
    out
}

/// Whether the visible tokens appear, in order and contiguously, in the name; an
/// abbreviated visible word matches a name word it starts.
fn contained(name: &[(String, bool)], visible: &[(String, bool)]) -> bool {
    if visible.is_empty() {
        return true;
    }
    name.windows(visible.len()).any(|w| {
        w.iter().zip(visible).all(|((n, _), (v, abbr))| {
            n == v || (*abbr && v.chars().count() >= 2 && n.starts_with(v.as_str()))
        })
    })
}

/// The element's visible inner text: text of visible elements, with spaces between
/// block-level boxes and none between inline ones.
fn visible_text(cx: &PageContext<'_>, el: ElementRef<'_>, out: &mut String) {
    /// An element whose children are being read, and whether it is a block
    /// (a space follows it).
    struct Frame<'a> {
        el: ElementRef<'a>,
        children: ego_tree::iter::Children<'a, scraper::Node>,
        block: bool,
    }
    // Elements more than this far below `el` add nothing (a bound kept from the
    // recursive walk this replaced).
    const MAX_DEPTH: usize = 200;
    // An explicit stack, not recursion: the page decides how deep it goes.
    let mut stack = vec![Frame {
        el,
        children: el.children(),
        block: false,
    }];
    while let Some(frame) = stack.last_mut() {
        let parent = frame.el;
        let Some(child) = frame.children.next() else {
            if stack.pop().is_some_and(|f| f.block) {
                out.push(' ');
            }
            continue;
        };
        if let Some(text) = child.value().as_text() {
            if cx.is_visible(parent) {
                out.push_str(text);
            }
            continue;
        }
        let Some(c) = ElementRef::wrap(child) else {
            continue;
        };
        if c.value().name() == "br" {
            out.push(' ');
            continue;
        }
        let block = !cx.style(c).display.starts_with("inline") && cx.style(c).display != "contents";
        if block {
            out.push(' ');
        }
        if stack.len() > MAX_DEPTH {
            if block {
                out.push(' ');
            }
            continue;
        }
        stack.push(Frame {
            el: c,
            children: c.children(),
            block,
        });
    }
}

/// Whether the text is drawn with an icon font (then it is non-text content).
fn icon_font(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .find_map(|e| cx.style(e).get("font-family"))
        .is_some_and(|f| f.contains("icon") || f.contains("awesome"))
}

impl Rule for LabelContentNameMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let labelled = ["aria-label", "aria-labelledby"]
            .iter()
            .any(|a| crate::dom::attr(el, a).is_some_and(|v| !v.trim().is_empty()));
        if !labelled {
            return;
        }
        let page = cx.page();
        let Some(role) = page.role(el) else {
            return;
        };
        let from_content = role_def(role).is_some_and(|r| r.name_from == NameFrom::Content);
        if !is_widget(role) || !from_content || page.is_hidden(el) {
            return;
        }
        let mut raw = String::new();
        visible_text(page, el, &mut raw);
        let visible = tokens(&raw);
        // A lone letter (an "X" close glyph) or an icon font is non-text content:
        // nothing to match. A lone digit is text.
        let letters: String = visible.iter().map(|(w, _)| w.as_str()).collect();
        let mut chars = letters.chars();
        let lone_symbol = match (chars.next(), chars.next()) {
            (None, _) => true,
            (Some(c), None) => !c.is_numeric(),
            _ => false,
        };
        if lone_symbol || icon_font(page, el) {
            return;
        }
        let name = page.accessible_name(el);
        if contained(&tokens(&name), &visible) {
            cx.pass();
        } else {
            let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            cx.fail(
                el,
                format!(
                    "The accessible name \"{name}\" does not contain the visible text \"{text}\"."
                ),
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
        RuleTester::new(&LabelContentNameMismatch)
            .pass(&[
                ("button", r##"<button aria-label="Send the form">Send</button>"##),
                ("a", r##"<a href=x aria-label="Next page">next page</a>"##),
                ("div", r##"<div role=link tabindex=0 aria-label="ACT rules page">ACT rules</div>"##),
                ("button", r##"<button aria-label="Search">Search…</button>"##),
                ("a", r##"<a href=# aria-label="ACT"><div style="display:inline">A</div><div style="display:inline">C</div><div style="display:inline">T</div></a>"##),
                ("button", r##"<button aria-label="Search by date">Search by date (YYYY-MM-DD)</button>"##),
                ("a", r##"<a aria-label="University Avenue" href=#>University Ave.</a>"##),
                ("a", r##"<a href=# aria-label="non-standard">nonstandard</a>"##),
            ])
            .inapplicable(&[
                r##"<button>Send</button>"##,
                r##"<button aria-label="anything">X</button>"##,
            ])
            .fail(&[
                ("button", r##"<button aria-label="Submit form">Send</button>"##),
                ("a", r##"<a href=x aria-label="Home">Start</a>"##),
                ("div", r##"<div role=button aria-label="Dismiss">Close</div>"##),
                ("a", r##"<a aria-label="1a" href=#>1</a>"##),
                ("a", r##"<a href=# aria-label="ACT"><div>A</div><div>C</div></a>"##),
            ])
            .run();
    }
}
