//! `long-paragraphs`: paragraphs are not walls of text.

use crate::support::text::word_count;
use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails `<p>` elements of more than [`MAX_WORDS`] words.
pub struct LongParagraphs;

/// Most words in one paragraph.
pub const MAX_WORDS: usize = 150;

static META: RuleMeta = RuleMeta {
    id: "long-paragraphs",
    category: Category::Quality,
    title: "Paragraphs are not overly long",
    help: "Split paragraphs of more than 150 words; give each paragraph one topic, and use lists and subheadings.",
    help_url: "https://www.nngroup.com/articles/how-users-read-on-the-web/",
    impact: Impact::Minor,
    docs: r#"## What it checks
Each `<p>` has at most 150 words of text. Longer paragraphs fail, with the word
count in the finding's data.

## Why it matters
People scan web pages rather than read them word by word; long blocks of text are
skipped, especially on small screens where 150 words fill the whole view.

## Failing
```html
<p>… one paragraph of 300 words …</p>
```

## Passing
```html
<p>… 80 words …</p><p>… 70 words …</p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LongParagraphs {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        for p in select(pcx, selector!("p")) {
            // The words of the folded text, counted piece by piece: folding
            // joins pieces with a space, so no word spans two of them.
            let n: usize = p.text().map(word_count).sum();
            if n == 0 {
                continue;
            }
            if n > MAX_WORDS {
                cx.fail(
                    p,
                    format!("The paragraph has {n} words (more than {MAX_WORDS})."),
                )
                .with_data(serde_json::json!({"words": n, "max": MAX_WORDS}));
            } else {
                cx.pass();
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
        RuleTester::new(&LongParagraphs)
            .pass(&[("(page)", &format!(
                "<p>{}</p><p>{}</p>",
                "word ".repeat(150),
                "word ".repeat(100)
            ))])
            .fail(&[("p", &format!("<p>{}</p>", "word ".repeat(151)))])
            .run();
    }
}
