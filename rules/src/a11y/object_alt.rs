//! `object-alt`: `object` elements that embed images or media have an accessible name (ACT 8fc3b6).

use scraper::ElementRef;

use super::support::not_exposed;
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `object` elements rendering non-text content have a non-empty accessible name.
pub struct ObjectAlt;

static META: RuleMeta = RuleMeta {
    id: "object-alt",
    category: Category::Accessibility,
    title: "Embedded objects have alternative text",
    help: "Give the object an aria-label, aria-labelledby or title that describes its content.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["8fc3b6"],
    docs: r##"## What it checks
Each `object` element included in the accessibility tree whose `type` (or `data` file extension) is an image, audio or video has a non-empty accessible name. Fallback content inside the object is not its name while the object renders.

## Why it matters
Screen readers cannot describe an embedded image or media player without a text alternative.

## Failing
```html
<object data="chart.png" type="image/png"></object>
```

## Passing
```html
<object data="chart.png" type="image/png" aria-label="Monthly sales chart"></object>
```

## Differences from axe-core
axe-core asks a name of every `<object data>` whose fallback content is not
shown, whatever it embeds. sitescan asks it only of objects that render an
image, audio or video. An object that embeds an HTML page or text shows text,
which screen readers read and navigate as the content itself, like an
`<iframe>`'s document; a name on the `<object>` adds nothing a user meets.
"##,
    ..RuleMeta::BASE
};

/// Whether the object renders an image, audio or video (by MIME type, else by the
/// `data` file extension).
fn renders_media(el: ElementRef<'_>) -> bool {
    if let Some(t) = crate::dom::attr(el, "type") {
        let t = t.trim().to_ascii_lowercase();
        return t.starts_with("image/") || t.starts_with("audio/") || t.starts_with("video/");
    }
    let Some(data) = crate::dom::attr(el, "data") else {
        return false;
    };
    let path = data
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    const EXT: &[&str] = &[
        ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".ico", ".mp3", ".wav",
        ".ogg", ".oga", ".m4a", ".aac", ".flac", ".mp4", ".webm", ".ogv", ".mov", ".m4v",
    ];
    EXT.iter().any(|e| path.ends_with(e))
}

impl Rule for ObjectAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["object"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || !renders_media(el) || not_exposed(el, cx) {
            return;
        }
        if matches!(cx.page().role(el), Some("none" | "presentation")) {
            return;
        }
        let page = cx.page();
        let named = ["aria-label", "aria-labelledby", "title"]
            .iter()
            .any(|a| crate::dom::attr(el, a).is_some());
        if !named || page.accessible_name(el).trim().is_empty() {
            cx.fail(
                el,
                "This object has no accessible name (fallback content does not count).",
            );
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ObjectAlt)
            .pass(&[
                ("object", r##"<object data=a.png type="image/png" aria-label="Chart"></object>"##),
                ("object", r##"<object data=a.mp4 title="Intro video"></object>"##),
            ])
            .inapplicable(&[
                r##"<object data=page.html></object>"##,
                r##"<object data=/help type="text/html"></object>"##,
                r##"<object data=a.png aria-hidden=true></object>"##,
            ])
            .fail(&[
                ("object", r##"<object data=a.png type="image/png"></object>"##),
                ("object", r##"<object data=a.mp3>Song</object>"##),
            ])
            .run();
    }
}
