//! `vulnerable-js-library`: no script of a library version with known vulnerabilities.

use crate::support::js_libs::{table, Detection};
use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Matches script URLs and inline banners against `rules/data/js-libs.json`.
pub struct VulnerableJsLibrary;

static META: RuleMeta = RuleMeta {
    id: "vulnerable-js-library",
    category: Category::Security,
    title: "No JavaScript libraries with known vulnerabilities",
    help: "Upgrade the library to a version without known vulnerabilities (the finding lists the advisories).",
    help_url: "https://owasp.org/Top10/A06_2021-Vulnerable_and_Outdated_Components/",
    impact: Impact::Serious,
    docs: r#"## What it checks
Each `<script src>` URL is matched against the URL patterns, and each inline
`<script>` against the banner patterns (`/*! jQuery v3.4.1 …`), of the libraries
in the project's data file `rules/data/js-libs.json` (jQuery, jQuery UI, Bootstrap,
AngularJS, Lodash, Moment.js, Handlebars, DOMPurify). A library version that lies in
an affected range of a listed advisory fails, with the CVE ids, summaries and
advisory URLs in the finding's data. A recognised version without advisories passes.
The table ships with the binary: no network is used, and its `version` date says how
current it is. Script bodies loaded from URLs without a version in their name are not
fetched, so such libraries are not identified.

## Why it matters
Old library versions carry public exploits (for example jQuery before 3.5.0,
CVE-2020-11022: XSS through HTML passed to DOM methods) that attackers scan for.

## Failing
```html
<script src="https://code.jquery.com/jquery-3.4.1.min.js"></script>
```

## Passing
```html
<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>
```
"#,
    ..RuleMeta::BASE
};

fn report(
    cx: &mut Check<'_, '_>,
    el: scraper::ElementRef<'_>,
    d: &Detection<'_>,
    resource: Option<String>,
) {
    if d.vulnerabilities.is_empty() {
        cx.pass();
        return;
    }
    let ids: Vec<&str> = d.vulnerabilities.iter().map(|v| v.id.as_str()).collect();
    let data: Vec<serde_json::Value> = d
        .vulnerabilities
        .iter()
        .map(|v| serde_json::json!({"id": v.id, "summary": v.summary, "source": v.source}))
        .collect();
    let f = cx
        .fail(
            el,
            format!(
                "{} {} has known vulnerabilities: {}.",
                d.library,
                d.version,
                ids.join(", ")
            ),
        )
        .with_data(serde_json::json!({
            "library": d.library,
            "version": d.version,
            "vulnerabilities": data,
        }));
    // A script file is one problem however many pages load it; an inline
    // copy stays a finding of its page.
    if let Some(url) = resource {
        f.on_resource(url);
    }
}

impl Rule for VulnerableJsLibrary {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let mut scripts = select(pcx, selector!("script")).peekable();
        // The table compiles a few hundred patterns on first use (about 46 M
        // instructions): a scan of pages without scripts never needs it.
        if scripts.peek().is_none() {
            return;
        }
        let Some(table) = table() else {
            return;
        };
        for el in scripts {
            let detection = match el.value().attr("src") {
                Some(src) => table.detect_url(src),
                None => table.detect_banner(&el.text().collect::<String>()),
            };
            if let Some(d) = detection {
                let resource = el
                    .value()
                    .attr("src")
                    .and_then(|src| crate::support::resource_url(pcx, src));
                report(cx, el, &d, resource);
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
        RuleTester::new(&VulnerableJsLibrary)
            .pass(&[
                ("(page)", r#"<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>"#),
                ("(page)", r#"<script>/*! jQuery v3.6.0 | (c) OpenJS Foundation */</script>"#),
            ])
            .inapplicable(&[
                r#"<script src="/app.js"></script>"#,
            ])
            .fail(&[
                ("script", r#"<script src="https://code.jquery.com/jquery-3.4.1.min.js"></script>"#),
                ("script", r#"<script src="https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.15/lodash.min.js"></script>"#),
                ("script", r#"<script>/*! jQuery v1.12.4 | (c) jQuery Foundation */ var x;</script>"#),
                ("script", r#"<script src="https://ajax.googleapis.com/ajax/libs/angularjs/1.5.8/angular.min.js"></script>"#),
            ])
            .run();
    }
}
