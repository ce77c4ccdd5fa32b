//! `html-xml-lang-mismatch`: when `<html>` has both `lang` and `xml:lang`, they
//! name the same primary language (WCAG 3.1.1).

use crate::langtag;
use crate::structure::{is_html_tag, page_is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `lang` and `xml:lang` on `<html>` agree.
pub struct HtmlXmlLangMismatch;

static META: RuleMeta = RuleMeta {
    id: "html-xml-lang-mismatch",
    category: Category::Accessibility,
    title: "Page lang and xml:lang attributes agree",
    help: "Give lang and xml:lang on <html> the same primary language, or drop xml:lang.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/language-of-page.html",
    wcag: &["3.1.1"],
    level: Some(Level::A),
    impact: Impact::Moderate,
    // 5b7ae0 is deprecated by the ACT task force; listed as axe-core lists it.
    act: &["5b7ae0"],
    docs: r#"## What it checks
When the `<html>` element has both a valid `lang` and a valid `xml:lang`, their
primary language subtags are the same (`en-US` and `en-GB` agree; `en` and `fr`
do not).

## Why it matters
Some user agents read `lang`, others `xml:lang`; when they disagree, people get
the page read in the wrong language depending on their tools.

## Failing
```html
<html lang="en" xml:lang="fr"><body>Hello</body></html>
```

## Passing
```html
<html lang="en-US" xml:lang="en-GB"><body>Hello</body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HtmlXmlLangMismatch {
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
        let (Some(lang), Some(xml)) = (root.value().attr("lang"), root.value().attr("xml:lang"))
        else {
            return;
        };
        if !langtag::is_valid(lang) || !langtag::is_valid(xml) {
            return;
        }
        if langtag::same_primary(lang, xml) {
            cx.pass_on(root);
        } else {
            cx.fail(
                root,
                format!("lang=\"{lang}\" and xml:lang=\"{xml}\" name different languages."),
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
        RuleTester::new(&HtmlXmlLangMismatch)
            .pass(&[
                ("html", "<html lang='en-US' xml:lang='en-GB'></html>"),
            ])
            .inapplicable(&[
                "<html lang='en'></html>",
                "<html lang='en' xml:lang='bogus-tag'></html>",
            ])
            .fail(&[("html", "<html lang='en' xml:lang='fr'></html>"),
            ])
            .run();
    }
}
