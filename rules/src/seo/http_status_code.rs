//! `http-status-code`: crawled pages answer with success.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages whose final status is 4xx or 5xx.
pub struct HttpStatusCode;

static META: RuleMeta = RuleMeta {
    id: "http-status-code",
    category: Category::Seo,
    title: "Page answers with a success status",
    help: "Fix or remove links to pages that answer 4xx/5xx, or restore the pages (redirect moved ones with 301).",
    help_url: "https://developer.chrome.com/docs/lighthouse/seo/http-status-code",
    impact: Impact::Critical,
    docs: r#"## What it checks
The final status of each crawled URL (after redirects) is below 400. 4xx (not found,
gone, forbidden) and 5xx (server errors) fail, with the status in the finding's data
(Lighthouse's `http-status-code`; seonaut's `ERROR_40x` / `ERROR_50x`). A 429 is
reported as rate limiting, not as a missing page.

## Why it matters
Error pages are dropped from search results, waste crawl budget, and every link to
them is a dead end for visitors.

## Failing
```html
<!-- HTTP/1.1 404 Not Found -->
<html lang="en"><head><title>Not found</title></head><body></body></html>
```

## Passing
```html
<!-- HTTP/1.1 200 OK -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HttpStatusCode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let status = page.status;
        let data = serde_json::json!({"status": status});
        match status {
            429 => {
                cx.fail_page("The server answered 429 Too Many Requests: the page was rate limited, not checked.")
                    .with_data(data);
            }
            400..=499 => {
                cx.fail_page(format!("The page answers {status} (client error)."))
                    .with_data(data);
            }
            500..=599 => {
                cx.fail_page(format!("The page answers {status} (server error)."))
                    .with_data(data);
            }
            _ => cx.pass(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        let with = |s: u16| {
            let mut p = RuleTester::page("<p>x</p>");
            p.status = s;
            p
        };
        RuleTester::new(&HttpStatusCode)
            .pass_page("(page)", with(200))
            .pass_page("(page)", with(304))
            .fail_page("(page)", with(404))
            .fail_page("(page)", with(503))
            .fail_page("(page)", with(429))
            .run();
    }
}
