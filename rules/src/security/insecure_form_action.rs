//! `insecure-form-action`: forms submit over HTTPS, to the page's own origin.

use crate::support::{base_url, is_https, resolve, same_origin, select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks where each `<form>` submits.
pub struct InsecureFormAction;

static META: RuleMeta = RuleMeta {
    id: "insecure-form-action",
    category: Category::Security,
    title: "Forms submit over HTTPS to the site itself",
    help: "Make every form submit to an https: URL; check that forms posting to other origins are meant to.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content#mixed_content_examples",
    impact: Impact::Serious,
    docs: r#"## What it checks
Each `<form>`'s submission URL — its `action` resolved against the page and its
`<base>`, or the page itself when there is no `action` — and any `formaction` of its
buttons:

- fails when the URL is plain `http:` (the form data travels unencrypted), and
  fails when the page itself is plain HTTP and the form has a password field;
- needs review when it submits to another origin (it may be intended — a payment
  provider, a newsletter service — or a sign of injected markup).

## Why it matters
Passwords, addresses and card numbers typed into a form that posts over HTTP can
be read and changed by anyone on the network path, even when the form itself was
shown on an HTTPS page.

## Failing
```html
<form action="http://example.com/login" method="post"><input type="password" name="p"></form>
```

## Passing
```html
<form action="/login" method="post"><input type="password" name="p"></form>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for InsecureFormAction {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        let base = base_url(pcx);
        for form in select(pcx, selector!("form")) {
            let mut targets: Vec<String> =
                vec![form.value().attr("action").unwrap_or("").to_string()];
            for b in form.select(selector!("[formaction]")) {
                targets.extend(b.value().attr("formaction").map(str::to_string));
            }
            let mut failed = false;
            for raw in &targets {
                let Some(url) = resolve(&base, raw) else {
                    continue;
                };
                if url.scheme() == "http" {
                    failed = true;
                    cx.fail(form, format!("The form submits to {url} over plain HTTP."));
                } else if matches!(url.scheme(), "http" | "https")
                    && !same_origin(&url, &page.final_url)
                {
                    failed = true;
                    cx.cant_tell(form, format!("The form submits to another origin ({url}); check that this is intended."));
                }
            }
            if !is_https(page)
                && form
                    .select(selector!("input[type=password i]"))
                    .next()
                    .is_some()
                && !failed
            {
                failed = true;
                cx.fail(form, "A password form is served on a plain HTTP page.");
            }
            if !failed {
                cx.pass_on(form);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Page;

    #[test]
    fn examples() {
        RuleTester::new(&InsecureFormAction)
            .pass(&[
                ("form", r#"<form action="/login" method="post"><input type="password" name="p"></form>"#),
                ("form", r#"<form><input name="q"></form>"#),
            ])
            .fail(&[
                ("form", r#"<form action="http://example.com/login"><input name="u"></form>"#),
                ("form", r#"<form action="/a"><button formaction="http://example.com/b">Go</button></form>"#),
            ])
            .cant_tell(&[("form", r#"<form action="https://pay.example.net/checkout"></form>"#),
            ])
            .fail_page("form", Page::from_html(
                "http://example.com/",
                r#"<form action="/login"><input type="password" name="p"></form>"#,
            ))
            .run();
    }
}
