//! `valid-lang`: `lang` attributes inside the body are valid language tags
//! (WCAG 3.1.2, ACT de46e4).

use scraper::{ElementRef, Node};

use crate::langtag;
use crate::structure::{ancestors, is_html_tag};
use crate::{Category, Check, Impact, Level, PageContext, Rule, RuleMeta, Visits};

/// Checks `lang` on elements in `<body>` that carry text in that language.
pub struct ValidLang;

static META: RuleMeta = RuleMeta {
    id: "valid-lang",
    category: Category::Accessibility,
    title: "lang attributes are valid language tags",
    help: "Use a BCP 47 language tag whose primary subtag is registered, e.g. lang=\"fr\" or lang=\"es-MX\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-parts.html",
    wcag: &["3.1.2"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["de46e4"],
    docs: r#"## What it checks
Every element inside `<body>` with a `lang` attribute that is not empty, and that
passes its language on to some text (text nodes or accessible names of
descendants without a `lang` of their own) that is visible or exposed to
assistive technologies: the primary subtag of the value is registered in the IANA
Language Subtag Registry. A value of only white space fails.

## Why it matters
Screen readers switch pronunciation for passages in another language only when
the language tag is one they know.

## Failing
```html
<p lang="english">Hello</p>
```

## Passing
```html
<p lang="en">Hello</p>
```
"#,
    ..RuleMeta::BASE
};

/// Whether some content inherits its language from `el` and is perceivable.
fn carries_text(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    // An explicit stack of child iterators, not recursion: the walk follows the
    // page's nesting, which a hostile page makes as deep as it likes.
    let mut stack = vec![el.children()];
    while let Some(children) = stack.last_mut() {
        let Some(child) = children.next() else {
            stack.pop();
            continue;
        };
        match child.value() {
            Node::Text(t) if !t.trim().is_empty() => {
                if let Some(parent) = child.parent().and_then(ElementRef::wrap) {
                    if cx.is_visible(parent) || !cx.is_hidden(parent) {
                        return true;
                    }
                }
            }
            Node::Element(e) => {
                let Some(child_el) = ElementRef::wrap(child) else {
                    continue;
                };
                // A descendant with its own language is a boundary.
                if child_el.id() != el.id() && e.attr("lang").is_some_and(|l| !l.trim().is_empty())
                {
                    continue;
                }
                let names_itself = ["alt", "aria-label", "title"]
                    .iter()
                    .any(|a| e.attr(a).is_some_and(|v| !v.trim().is_empty()));
                if names_itself
                    && !cx.is_hidden(child_el)
                    && !cx.accessible_name(child_el).trim().is_empty()
                {
                    return true;
                }
                stack.push(child.children());
            }
            _ => {}
        }
    }
    false
}

impl Rule for ValidLang {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(lang) = el.value().attr("lang") else {
            return;
        };
        if lang.is_empty() || !ancestors(el).any(|a| is_html_tag(a, "body")) {
            return;
        }
        if !carries_text(cx.page(), el) {
            return;
        }
        if langtag::is_valid(lang) {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("lang=\"{lang}\" is not a valid language tag: its primary subtag is not registered."),
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
        RuleTester::new(&ValidLang)
            .pass(&[
                ("article", "<article lang=en>Hello</article>"),
                ("p", "<p lang='en-US-GB'>Hello</p>"),
                ("div", "<article lang=invalid><div lang=en>Hello</div></article>"),
            ])
            .inapplicable(&[
                "<p lang=xx><span style='display:none'>Hidden</span></p>",
                "<div lang=invalid><img src=a.png alt=''></div>",
                "<div lang=invalid></div>",
                "<p lang=''>Hello</p>",
            ])
            .fail(&[
                ("article", "<article lang=dutch>Hallo</article>"),
                ("article", "<article lang='  '>Hello</article>"),
                ("article", "<article lang=english><p aria-hidden=true>Hello</p></article>"),
                ("div", "<div lang=invalid><img src=a.png alt='Fireworks'></div>"),
                ("p", "<p lang=eng>Hello</p>"),
            ])
            .run();
    }
}
