//! `html-lang-valid`: the `lang` of `<html>` is a valid language tag (WCAG 3.1.1,
//! ACT bf051a).

use crate::langtag;
use crate::structure::{is_html_tag, page_is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that the page language names a registered language.
pub struct HtmlLangValid;

static META: RuleMeta = RuleMeta {
    id: "html-lang-valid",
    category: Category::Accessibility,
    title: "Page lang attribute is a valid language tag",
    help: "Use a BCP 47 language tag whose primary subtag is registered with IANA, e.g. \"en\", \"fr-CA\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-page.html",
    wcag: &["3.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["bf051a"],
    docs: r#"## What it checks
When the `<html>` element has a non-empty `lang` attribute, its primary language
subtag (the part before the first `-`) is registered in the IANA Language Subtag
Registry. ISO 639-2 codes such as `eng` and grandfathered tags such as `i-lux` are
not registered primary subtags.

## Why it matters
Assistive technologies only switch pronunciation for languages they recognise.
A misspelled or invented language tag is as bad as none.

## Failing
```html
<html lang="english"><body>Hello</body></html>
```

## Passing
```html
<html lang="en-GB"><body>Hello</body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HtmlLangValid {
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
        let Some(lang) = root.value().attr("lang") else {
            return;
        };
        if lang.trim().is_empty() {
            return;
        }
        if langtag::is_valid(lang) {
            cx.pass_on(root);
        } else {
            cx.fail(
                root,
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
        RuleTester::new(&HtmlLangValid)
            .pass(&[
                ("html", "<html lang=FR></html>"),
                ("html", "<html lang='en-US-GB'></html>"),
            ])
            .inapplicable(&[
                "<html></html>",
                "<html lang=''></html>",
            ])
            .fail(&[
                ("html", "<html lang='em-US'></html>"),
                ("html", "<html lang='#1'></html>"),
                ("html", "<html lang='eng'></html>"),
                ("html", "<html lang='i-lux'></html>"),
            ])
            .run();
    }
}
