//! `unminified-code`: large inline scripts and styles are minified.

use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails inline `<script>` / `<style>` that minification would shrink a lot.
pub struct UnminifiedCode;

/// Smallest savings (bytes) worth reporting (Lighthouse's 2 KiB threshold).
pub const MIN_SAVINGS: usize = 2048;
/// Smallest savings as a share of the original.
pub const MIN_RATIO: f64 = 0.10;

static META: RuleMeta = RuleMeta {
    id: "unminified-code",
    category: Category::Performance,
    title: "Inline scripts and styles are minified",
    help: "Minify inline CSS and JavaScript at build time (or move them into minified, cacheable files).",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/unminified-javascript",
    impact: Impact::Minor,
    docs: r##"## What it checks
Each inline `<script>` (JavaScript types only) and `<style>` is "minified" by a
heuristic: comments removed (`/* … */`, and for scripts `//` line comments not
preceded by `:`, to spare URLs), each run of white space collapsed to one space, and
white space next to punctuation (`{};,:=()`) dropped. When that saves at least 2,048
bytes (Lighthouse's threshold for `unminified-css` / `unminified-javascript`) and at
least 10 % of the code, the element fails, with the estimated savings in the data.
External files are not downloaded.

The heuristic underestimates what a real minifier saves (no renaming), so it reports
only clear cases.

## Why it matters
Comments and indentation are shipped to every visitor on every page view, since
inline code is not cached separately.

## Failing
```html
<script>
  // Toggle the navigation menu when the button is clicked.
  document.querySelector('#menu').addEventListener('click', function () { … });
  … 3 KB more of commented, indented code …
</script>
```

## Passing
```html
<script>document.querySelector("#menu").addEventListener("click",function(){…});</script>
```
"##,
    ..RuleMeta::BASE
};

/// Size of the code after the heuristic minification described in the docs.
pub fn minified_len(code: &str, js: bool) -> usize {
    let mut stripped = String::with_capacity(code.len());
    let mut rest = code;
    // Block comments.
    while let Some(start) = rest.find("/*") {
        stripped.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => {
                rest = "";
                break;
            }
        }
    }
    stripped.push_str(rest);
    // Line comments (scripts only), sparing `://` in URLs.
    let stripped = if js {
        stripped
            .lines()
            .map(|l| {
                let mut cut = l.len();
                let bytes = l.as_bytes();
                for i in 0..bytes.len().saturating_sub(1) {
                    if bytes[i] == b'/' && bytes[i + 1] == b'/' && (i == 0 || bytes[i - 1] != b':')
                    {
                        cut = i;
                        break;
                    }
                }
                &l[..cut]
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        stripped
    };
    const PUNCT: &[char] = &['{', '}', ';', ',', ':', '=', '(', ')'];
    let mut out = 0usize;
    let mut pending_space = false;
    let mut last: Option<char> = None;
    for c in stripped.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && last.is_some_and(|l| !PUNCT.contains(&l)) && !PUNCT.contains(&c) {
            out += 1;
        }
        pending_space = false;
        out += c.len_utf8();
        last = Some(c);
    }
    out
}

impl Rule for UnminifiedCode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        for el in select(pcx, selector!("script:not([src]), style")) {
            let v = el.value();
            let js = v.name() == "script";
            if js {
                let ty = v.attr("type").map(|t| t.trim().to_ascii_lowercase());
                if !matches!(
                    ty.as_deref(),
                    None | Some("")
                        | Some("text/javascript")
                        | Some("application/javascript")
                        | Some("module")
                ) {
                    continue;
                }
            }
            let code: String = el.text().collect();
            if code.len() < MIN_SAVINGS {
                continue;
            }
            let savings = code.len().saturating_sub(minified_len(&code, js));
            if savings >= MIN_SAVINGS && savings as f64 >= MIN_RATIO * code.len() as f64 {
                cx.fail(
                    el,
                    format!(
                        "Minifying this inline {} would save about {savings} of {} bytes.",
                        if js { "script" } else { "style" },
                        code.len()
                    ),
                )
                .with_data(serde_json::json!({"bytes": code.len(), "savings": savings}));
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
        let pretty_js =
            "  // explain what happens next in detail\n  var total = compute( a , b );\n"
                .repeat(60);
        let min_js = "var total=compute(a,b);".repeat(200);
        let pretty_css =
            "/* the card component */\n.card {\n    color : red ;\n    margin : 0 auto ;\n}\n"
                .repeat(60);
        RuleTester::new(&UnminifiedCode)
            .pass(&[
                ("(page)", &format!("<script>{min_js}</script>")),
            ])
            .inapplicable(&[
                "<script>var x = 1; // short</script>",
                &format!("<script type=\"application/ld+json\">{pretty_js}</script>"),
            ])
            .fail(&[
                ("script", &format!("<script>{pretty_js}</script>")),
                ("style", &format!("<style>{pretty_css}</style>")),
            ])
            .run();
    }

    #[test]
    fn heuristic_keeps_urls_and_words() {
        assert_eq!(
            minified_len("var a = 'http://x';", true),
            "var a='http://x';".len()
        );
        assert_eq!(minified_len("a  b\n\tc", false), "a b c".len());
    }
}
