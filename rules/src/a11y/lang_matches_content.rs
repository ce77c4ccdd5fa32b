//! `lang-matches-content`: a `lang` on an element in the body names the language
//! of the text it covers (WCAG 3.1.2, ACT off6ek).

use scraper::ElementRef;

use crate::a11y::html_lang_matches_content::{inherited_text, judge};
use crate::langtag;
use crate::structure::{ancestors, is_html, is_html_tag, page_is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Compares each element's `lang` with a language guessed from its text.
pub struct LangMatchesContent;

static META: RuleMeta = RuleMeta {
    id: "lang-matches-content",
    category: Category::Accessibility,
    title: "Passage languages match their text",
    help: "Set each lang attribute to the language of the text it covers.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-parts.html",
    wcag: &["3.1.2"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["off6ek"],
    docs: r#"## What it checks
On HTML pages, every HTML element inside `<body>` with a valid `lang` whose own text (visible or
exposed text and text alternatives, outside descendants with their own `lang`) is
not empty: that text is in the declared language. The language is guessed as
for `html-lang-matches-content` (`lingua` for the common Latin-script languages,
accurate down to a few words; `whatlang` for the others): a confident different
guess fails, a plausible reading as the declared language passes, and ambiguous
text, or a language the detectors do not know, is reported for review (*cannot
tell*).

## Why it matters
Screen readers switch pronunciation at a `lang` attribute; a wrong one makes the
passage unintelligible.

## Failing
```html
<p lang="fr">The rules format defines a way to write accessibility test rules that tools and people can share.</p>
```

## Passing
```html
<p lang="en">The rules format defines a way to write accessibility test rules that tools and people can share.</p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LangMatchesContent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(lang) = el.value().attr("lang").map(str::trim) else {
            return;
        };
        if !page_is_html(cx)
            || !is_html(el)
            || !langtag::is_valid(lang)
            || !ancestors(el).any(|a| is_html_tag(a, "body"))
        {
            return;
        }
        let text = inherited_text(cx.page(), el);
        if text.is_empty() {
            return;
        }
        judge(cx, el, lang, &text);
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
            format!("<p lang=en>{EN}</p>"),
            format!("<div lang=fr><p lang=en>{EN}</p></div>"),
        ];
        let pass_inapplicable = [
            "<p lang=nl></p>".to_string(),
            format!("<p lang=xx-invalid>{EN}</p>"),
        ];
        let fail = [
            format!("<p lang=fr>{EN}</p>"),
            format!("<div lang=nl><span>{EN}</span></div>"),
        ];
        RuleTester::new(&LangMatchesContent)
            .pass(&pass.iter().map(|h| ("p", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&["p", "div"].into_iter().zip(&fail).map(|(t, h)| (t, h.as_str())).collect::<Vec<_>>())
            .run();
    }
}
