//! `html-has-lang`: the `<html>` element has a non-empty `lang` attribute
//! (WCAG 3.1.1, ACT b5c3f8).

use crate::structure::{is_html_tag, page_is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that the document element of an HTML page declares its language.
pub struct HtmlHasLang;

static META: RuleMeta = RuleMeta {
    id: "html-has-lang",
    category: Category::Accessibility,
    title: "Page has a lang attribute",
    help: "Add a lang attribute to the <html> element naming the page's main language, e.g. lang=\"en\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-page.html",
    wcag: &["3.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["b5c3f8"],
    docs: r#"## What it checks
The `<html>` element of an HTML page has a `lang` attribute whose value is not
empty or only white space. `xml:lang` alone does not count: browsers and screen
readers read `lang` in HTML documents.

## Why it matters
Screen readers pick their voice and pronunciation rules from the page language.
Without it, text is read with the user's default language rules, often
unintelligibly.

## Failing
```html
<html><head><title>Shop</title></head><body>Hello</body></html>
```

## Passing
```html
<html lang="en"><head><title>Shop</title></head><body>Hello</body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HtmlHasLang {
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
        match root.value().attr("lang") {
            Some(lang) if !lang.trim().is_empty() => cx.pass_on(root),
            Some(_) => {
                cx.fail(root, "The <html> element's lang attribute is empty.");
            }
            None => {
                cx.fail(root, "The <html> element has no lang attribute.");
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
        RuleTester::new(&HtmlHasLang)
            .pass(&[
                ("html", "<html lang=en><body>x</body></html>"),
                ("html", "<html lang='fr-CA'><body>x</body></html>"),
            ])
            .fail(&[
                ("html", "<html><body>x</body></html>"),
                ("html", "<html lang=''><body>x</body></html>"),
                ("html", "<html lang='  '><body>x</body></html>"),
                ("html", "<html xml:lang='en'><body>x</body></html>"),
            ])
            .run();
    }
}
