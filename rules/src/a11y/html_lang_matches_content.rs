//! `html-lang-matches-content`: the page's `lang` names the language its text is
//! written in (WCAG 3.1.1, ACT ucwvc8).

use scraper::{ElementRef, Node};

use crate::langtag::{self, Assessment};
use crate::structure::{is_html_tag, page_is_html};
use crate::{Category, Check, Impact, Level, PageContext, Rule, RuleMeta, Visits};

/// Compares the page language with a language guessed from its text.
pub struct HtmlLangMatchesContent;

static META: RuleMeta = RuleMeta {
    id: "html-lang-matches-content",
    category: Category::Accessibility,
    title: "Page language matches its text",
    help: "Set lang on <html> to the language most of the page is written in; mark passages in other languages with their own lang.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-page.html",
    wcag: &["3.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["ucwvc8"],
    docs: r#"## What it checks
For an HTML page whose `<html lang>` is a valid language tag: the text that takes
its language from `<html>` (the title, visible or exposed text and text
alternatives outside elements with their own `lang`) is written in that language.
The language is guessed with the `lingua` crate (n-gram models of up to five
letters, accurate down to a few words) for the common Latin-script languages of
the web, and from letter-trigram statistics (the `whatlang` crate) for the others.
Text that plausibly reads as the declared language passes (text valid in two
languages included); text that confidently reads as another language fails; an
unsure guess, or a declared language neither detector knows, is reported for
review (*cannot tell*). Close languages (Croatian and Serbian, Danish and
Norwegian, Indonesian and Malay, Czech and Slovak, …) are not told apart.

## Why it matters
Screen readers read the page with the pronunciation rules of the declared
language; text in another language becomes unintelligible.

## Failing
```html
<html lang="da"><head><title>Accessibility testing</title></head><body><p>The rules format defines a way to write accessibility test rules that tools and people can share.</p></body></html>
```

## Passing
```html
<html lang="en"><head><title>Accessibility testing</title></head><body><p>The rules format defines a way to write accessibility test rules that tools and people can share.</p></body></html>
```
"#,
    ..RuleMeta::BASE
};

/// The text that inherits its language from `owner`: text nodes (visible or
/// exposed) and the accessible names of elements named by attributes, outside
/// descendants with a `lang` of their own.
pub(crate) fn inherited_text(cx: &PageContext<'_>, owner: ElementRef<'_>) -> String {
    // An explicit stack of child iterators, not recursion: the walk follows the
    // page's nesting, which a hostile page makes as deep as it likes.
    let mut out = String::new();
    let mut stack = vec![owner.children()];
    while let Some(children) = stack.last_mut() {
        let Some(child) = children.next() else {
            stack.pop();
            continue;
        };
        match child.value() {
            Node::Text(t) if !t.trim().is_empty() => {
                let Some(parent) = child.parent().and_then(ElementRef::wrap) else {
                    continue;
                };
                if matches!(
                    parent.value().name(),
                    "script" | "style" | "template" | "noscript"
                ) {
                    continue;
                }
                if cx.is_visible(parent) || !cx.is_hidden(parent) {
                    out.push(' ');
                    out.push_str(t.trim());
                }
            }
            Node::Element(e) => {
                let Some(el) = ElementRef::wrap(child) else {
                    continue;
                };
                // One pass over the attributes: looking four names up with
                // `attr` interns each name again on every element.
                let (mut own_lang, mut named) = (false, false);
                for (name, value) in e.attrs.iter() {
                    if name.prefix.is_some() || name.ns != html5ever::ns!() {
                        continue;
                    }
                    match &*name.local {
                        "lang" => own_lang = !value.trim().is_empty(),
                        "alt" | "aria-label" | "aria-labelledby" => named = true,
                        _ => {}
                    }
                }
                if el.id() != owner.id() && own_lang {
                    continue;
                }
                if named && !cx.is_hidden(el) {
                    out.push(' ');
                    out.push_str(cx.accessible_name(el).trim());
                }
                stack.push(child.children());
            }
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Records the outcome of comparing `declared` with the language of `text`.
pub(crate) fn judge(cx: &mut Check<'_, '_>, el: ElementRef<'_>, declared: &str, text: &str) {
    match langtag::assess(declared, text) {
        Assessment::Matches => cx.pass_on(el),
        Assessment::Differs {
            detected,
            confidence,
        } => {
            cx.fail(
                el,
                format!("lang=\"{declared}\" but the text reads as \"{detected}\" (confidence {confidence:.2})."),
            )
            .with_data(serde_json::json!({"declared": declared, "detected": detected, "confidence": confidence}));
        }
        Assessment::Unsure => {
            cx.cant_tell(
                el,
                format!("Check that the text is in the language lang=\"{declared}\" names (too little or ambiguous text to tell)."),
            );
        }
        Assessment::Unknown => {
            cx.cant_tell(
                el,
                format!("Check that the text is in the language lang=\"{declared}\" names (it cannot be guessed automatically)."),
            );
        }
    }
}

impl Rule for HtmlLangMatchesContent {
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
        let root = cx.page().root();
        if !is_html_tag(root, "html") {
            return;
        }
        let Some(lang) = root.value().attr("lang").map(str::trim) else {
            return;
        };
        if !langtag::is_valid(lang) {
            return;
        }
        let text = inherited_text(cx.page(), root);
        if text.is_empty() {
            return;
        }
        judge(cx, root, lang, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const EN: &str = "The Accessibility Conformance Testing Rules Format defines a format for writing accessibility test rules. These rules can be used for developing automated testing tools and manual testing methodologies.";

    #[test]
    fn examples() {
        let pass = [
            format!("<html lang=en><head><title>ACT</title></head><body><p>{EN}</p></body></html>"),
            format!("<html lang=EN-gb><body><p>{EN}</p></body></html>"),
        ];
        let pass_inapplicable = [
            format!("<html lang=nl><head><title>Met de kippen op stok</title></head><body><p lang=en>{EN}</p></body></html>"),
            "<html lang=en></html>".to_string(),
            format!("<html lang=eng><body><p>{EN}</p></body></html>"),
        ];
        let fail = [
            format!("<html lang=da><head><title>ACT</title></head><body><p>{EN}</p></body></html>"),
            format!("<html lang=nl><body><p>{EN}</p></body></html>"),
        ];
        RuleTester::new(&HtmlLangMatchesContent)
            .pass(&pass.iter().map(|h| ("html", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&fail.iter().map(|h| ("html", h.as_str())).collect::<Vec<_>>())
            .cant_tell(&[
                ("html", "<html lang=lb><body><p>Lëtzebuerg ass e Land an Europa.</p></body></html>"),
            ])
            .run();
    }
}
