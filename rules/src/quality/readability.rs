//! `readability`: English text is not very hard to read (Flesch reading ease).

use crate::support::text::readability;
use crate::support::{select, selector};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Scores the page's prose with Flesch reading ease and Flesch-Kincaid grade.
pub struct Readability;

/// Lowest acceptable Flesch reading ease (below 30 is "very difficult", the level
/// of academic papers).
pub const MIN_READING_EASE: f64 = 30.0;
/// Fewest words for a meaningful score.
pub const MIN_WORDS: usize = 100;

static META: RuleMeta = RuleMeta {
    id: "readability",
    category: Category::Quality,
    title: "Text is not very difficult to read",
    help: "Use shorter sentences and everyday words; split long paragraphs and explain jargon.",
    help_url: "https://en.wikipedia.org/wiki/Flesch%E2%80%93Kincaid_readability_tests",
    impact: Impact::Minor,
    docs: r#"## What it checks
For pages in English (`<html lang>` starting with `en`), the prose of the page — the
text of `<p>`, `<li>`, `<dd>`, `<blockquote>`, `<td>` and `<figcaption>` inside
`<main>` when there is one, else inside `<body>` — is scored when it has at least
100 words:

- Flesch reading ease = 206.835 − 1.015 × (words ÷ sentences) − 84.6 × (syllables ÷ words);
- Flesch-Kincaid grade = 0.39 × (words ÷ sentences) + 11.8 × (syllables ÷ words) − 15.59.

Syllables are counted by vowel groups with a silent final "e" dropped. A reading ease
below 30 ("very difficult") fails; both scores are in the finding's data. Pages in
other languages, or without `lang`, are skipped: the formulas and syllable counts are
calibrated for English only, so the rule is inapplicable there, and the report's
notes say how many pages were skipped for it.

## Why it matters
Hard text loses readers: most adults read comfortably at a reading ease of 60 or
more (grade 8–9). Plain language also helps people reading in a second language and
people with cognitive disabilities.

## Failing
```html
<p>Notwithstanding the aforementioned considerations, organisational stakeholders
must institutionalise comprehensive interdepartmental communication methodologies …</p>
```

## Passing
```html
<p>We make mugs by hand. Each one is fired in a wood kiln, so no two look the same.</p>
```
"#,
    needs: &[Need::LanguageSkipNote],
    ..RuleMeta::BASE
};

/// The page's prose, blocks joined with sentence breaks.
pub fn prose(cx: &crate::PageContext<'_>) -> String {
    let scope = select(cx, selector!("main"))
        .next()
        .or_else(|| select(cx, selector!("body")).next());
    let Some(scope) = scope else {
        return String::new();
    };
    let mut out = String::new();
    for block in cx.text_blocks() {
        if cx.should_stop() {
            return out;
        }
        let inside = cx
            .element(block.node)
            .is_some_and(|b| b.ancestors().any(|a| a.id() == scope.id()));
        if !inside {
            continue;
        }
        out.push_str(&block.text);
        if !block.text.ends_with(['.', '!', '?']) {
            out.push('.');
        }
        out.push(' ');
    }
    out
}

/// The report note for the pages `readability` skipped because they do not declare
/// English (`None` when every HTML page it could judge is English), so a scan never
/// reads as if their text had been judged.
pub fn skipped_note(pages: &[crate::site::PageSummary]) -> Option<String> {
    let skipped: Vec<&crate::site::PageSummary> = pages
        .iter()
        .filter(|p| p.html && (200..300).contains(&p.status))
        .filter(|p| {
            !p.lang
                .as_deref()
                .map(|l| l.trim().to_ascii_lowercase())
                .is_some_and(|l| l == "en" || l.starts_with("en-"))
        })
        .collect();
    let first = skipped.first()?;
    let lang = first.lang.as_deref().filter(|l| !l.trim().is_empty());
    Some(format!(
        "readability was not checked on {} page(s) not declared as English in <html lang> (such as {}{}): its formulas are calibrated for English text only",
        skipped.len(),
        first.final_url,
        lang.map(|l| format!(", lang=\"{l}\"")).unwrap_or_default()
    ))
}

/// Whether the page declares English.
pub fn is_english(cx: &crate::PageContext<'_>) -> bool {
    let root = cx.root().value();
    root.attr("lang")
        .or_else(|| root.attr("xml:lang"))
        .map(|l| l.trim().to_ascii_lowercase())
        .is_some_and(|l| l == "en" || l.starts_with("en-"))
}

impl Rule for Readability {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !is_english(pcx) {
            return;
        }
        let text = prose(pcx);
        let Some(r) = readability(&text) else {
            return;
        };
        if r.words < MIN_WORDS {
            return;
        }
        let data = serde_json::json!({
            "flesch_reading_ease": (r.reading_ease * 10.0).round() / 10.0,
            "flesch_kincaid_grade": (r.grade * 10.0).round() / 10.0,
            "words": r.words,
            "sentences": r.sentences,
            "min": MIN_READING_EASE,
        });
        if r.reading_ease < MIN_READING_EASE {
            cx.fail_page(format!(
                "The text is very difficult to read: Flesch reading ease {:.0} (grade {:.0}); aim for 60 or more.",
                r.reading_ease, r.grade
            ))
            .with_data(data);
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const EASY: &str = "We make mugs by hand. Each one is fired in a wood kiln. No two look the same. You can pick one up in the shop. We also ship them. It takes two days. ";
    const HARD: &str = "Notwithstanding aforementioned organisational considerations, institutional stakeholders necessarily prioritise comprehensive interdepartmental communication methodologies, facilitating multidimensional operationalisation of sustainability initiatives. ";

    #[test]
    fn examples() {
        RuleTester::new(&Readability)
            .pass(&[
                ("(page)", &format!("<p>{}</p>", EASY.repeat(5))),
            ])
            .inapplicable(&[
                &format!("<p>{}</p>", "short text"),
                &format!(
                    "<html lang=\"de\"><body><p>{}</p></body></html>",
                    HARD.repeat(8)
                ),
            ])
            .fail(&[("(page)", &format!("<main><p>{}</p></main>", HARD.repeat(8))),
            ])
            .run();
    }

    #[test]
    fn skipped_pages_get_a_note() {
        use crate::site::PageSummary;
        let page = |url: &str, lang: Option<&str>| PageSummary {
            url: url.into(),
            final_url: url.into(),
            status: 200,
            html: true,
            lang: lang.map(Into::into),
            ..PageSummary::default()
        };
        assert_eq!(
            skipped_note(&[page("https://example.com/", Some("en-GB"))]),
            None
        );
        assert_eq!(
            skipped_note(&[
                page("https://example.com/", Some("en")),
                page("https://example.com/de/", Some("de")),
                page("https://example.com/x", None),
            ])
            .as_deref(),
            Some("readability was not checked on 2 page(s) not declared as English in <html lang> (such as https://example.com/de/, lang=\"de\"): its formulas are calibrated for English text only")
        );
    }
}
