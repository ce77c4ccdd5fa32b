//! The sign-in before the crawl, and keeping the credentials out of what a
//! scan reports.
//!
//! A scan with a [`crate::auth::LoginForm`] fetches the form's page (its
//! cookies and the form's hidden fields, such as a CSRF token, are kept),
//! posts the fields urlencoded to the form's action, follows the answer's
//! redirects on the origin, and checks that the sign-in worked
//! ([`crate::auth::LoginCheck`]). A render scan with `login_steps` runs them
//! in the browser instead ([`crate::browser::sign_in`]). Either way the
//! session's cookies end up in the scan's jar ([`Credentials`]) and, in
//! render mode, in its browser context. Anything that fails fails the scan
//! with [`Error::Login`], naming the check or step, never a secret.

use std::sync::Arc;

use url::Url;

use super::start::Shared;
use crate::auth::{resolve_on_origin, LoginForm};
use crate::crawl::credentials::Credentials;
use crate::crawl::fetch::{decode_html, BodyPolicy, Fetched, HopStop};
use crate::crawl::scope::Scope;
use crate::error::{Error, Result};
use crate::report::PageReport;
use sitescan_rules::Finding;

/// Hidden fields taken from a sign-in page at most.
const MAX_HIDDEN_FIELDS: usize = 100;

/// Signs in as the credentials say, before the crawl. `start`: the scan's
/// start URL.
pub(super) async fn sign_in(
    shared: &Arc<Shared>,
    creds: &Credentials,
    start: &Url,
    scope: &Scope,
) -> Result<()> {
    let auth = creds.auth();
    let login = |e: String| Error::Login(creds.scrub(&e).into_owned());
    if let Some(render) = &shared.render {
        if !auth.login_steps.is_empty() {
            let weak = Arc::downgrade(shared);
            let robots: crate::browser::intercept::RobotsCheck =
                Arc::new(move |u: &Url| weak.upgrade().is_none_or(|s| s.robots_allow(u)));
            render
                .sign_in(start, Arc::new(scope.clone()), robots)
                .await
                .map_err(login)?;
            tracing::info!(
                steps = auth.login_steps.len(),
                "signed in with the browser steps"
            );
            return Ok(());
        }
    }
    if let Some(form) = &auth.login_form {
        post_login_form(shared, creds, form, start)
            .await
            .map_err(login)?;
        tracing::info!("signed in with the login form");
        if let Some(render) = &shared.render {
            render
                .refresh_cookies()
                .await
                .map_err(|e| Error::Browser(e.to_string()))?;
        }
    }
    Ok(())
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// The form sign-in; `Err` is the message of [`Error::Login`].
async fn post_login_form(
    shared: &Shared,
    creds: &Credentials,
    form: &LoginForm,
    start: &Url,
) -> std::result::Result<(), String> {
    let fetcher = &shared.fetcher;
    let max = shared.config.max_body_bytes;
    let origin = start.origin();
    let on_origin = move |t: &Url| (t.origin() != origin).then_some(HopStop::OutOfScope);
    let action = resolve_on_origin(start, "login_form.action", &form.action)?;
    let mut fields: Vec<(String, String)> = Vec::new();
    if let Some(page) = &form.page {
        let page_url = resolve_on_origin(start, "login_form.page", page)?;
        let got = fetcher
            .get(&page_url, BodyPolicy::Always, max, &on_origin)
            .await;
        if let Some(e) = &got.error {
            return Err(format!(
                "the sign-in page {page_url} could not be read: {e}"
            ));
        }
        if !(200..300).contains(&got.status) {
            return Err(format!(
                "the sign-in page {page_url} answered HTTP {} (it must answer 2xx with the form)",
                got.status
            ));
        }
        let (html, _) = decode_html(&got.body, got.charset().as_deref());
        fields = hidden_fields(&html, &got.final_url, &action);
    }
    for (name, value) in &form.fields {
        fields.retain(|(n, _)| n != name);
        fields.push((name.clone(), value.clone()));
    }
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&fields)
        .finish();
    let mut last = fetcher.post_form(&action, body.clone(), max).await;
    let mut at = action.clone();
    let mut hops = 0u32;
    loop {
        if let Some(e) = &last.error {
            return Err(format!("posting the sign-in form to {action} failed: {e}"));
        }
        let target = last.final_url.clone();
        if !is_redirect(last.status) || target == at || !creds.applies(&target) {
            // Not a redirect, or one off the origin: credentials do not
            // follow it, and the sign-in is judged on this answer.
            break;
        }
        hops += 1;
        if hops > shared.config.max_redirects {
            return Err(format!(
                "posting the sign-in form to {action} led to more than {} redirects",
                shared.config.max_redirects
            ));
        }
        last = if matches!(last.status, 307 | 308) {
            fetcher.post_form(&target, body.clone(), max).await
        } else {
            fetcher
                .get(&target, BodyPolicy::Always, max, &on_origin)
                .await
        };
        at = target;
    }
    judge(shared, creds, form, start, &action, &last).await
}

/// Whether the sign-in worked, as the form's [`crate::auth::LoginCheck`] says.
async fn judge(
    shared: &Shared,
    creds: &Credentials,
    form: &LoginForm,
    start: &Url,
    action: &Url,
    landed: &Fetched,
) -> std::result::Result<(), String> {
    let status = landed.status;
    if status >= 400 || (!is_redirect(status) && status >= 300) || status < 200 {
        return Err(format!(
            "posting the sign-in form to {action} answered HTTP {status} (the success check needs 200..=399)"
        ));
    }
    let check = &form.success;
    if let Some(name) = &check.cookie {
        if !creds.has_cookie(name) {
            return Err(format!(
                "the cookie `{name}` was not set after posting the form to {action} (the answer was HTTP {status}); check the fields and the success cookie's name"
            ));
        }
    }
    if check.url.is_none() && check.contains.is_none() {
        return Ok(());
    }
    let (url, body, charset) = match &check.url {
        Some(u) => {
            let u = resolve_on_origin(start, "login_form.success.url", u)?;
            // Redirects are not followed: a page behind the login redirects
            // to the sign-in page when the session was not accepted.
            let no_redirects = |_: &Url| Some(HopStop::OutOfScope);
            let got = shared
                .fetcher
                .get(
                    &u,
                    BodyPolicy::Always,
                    shared.config.max_body_bytes,
                    &no_redirects,
                )
                .await;
            if let Some(e) = &got.error {
                return Err(format!("the success page {u} could not be read: {e}"));
            }
            if !(200..300).contains(&got.status) {
                let via = got
                    .redirects
                    .first()
                    .map(|h| format!(" (redirected to {})", h.location))
                    .unwrap_or_default();
                return Err(format!(
                    "the success page {u} answered HTTP {}{via} after signing in: the session was not accepted",
                    got.status
                ));
            }
            let charset = got.charset();
            (u, got.body, charset)
        }
        None => (
            landed.final_url.clone(),
            landed.body.clone(),
            landed.charset(),
        ),
    };
    if let Some(text) = &check.contains {
        let (html, _) = decode_html(&body, charset.as_deref());
        if !html.contains(text.as_str()) {
            return Err(format!(
                "the page {url} does not contain the text `{text}` after signing in"
            ));
        }
    }
    Ok(())
}

/// The hidden inputs (name, value) of the sign-in page's form that posts to
/// `action`: the form whose resolved action is `action`, else the first with
/// a password field, else the page's only form.
fn hidden_fields(html: &str, page: &Url, action: &Url) -> Vec<(String, String)> {
    use scraper::{Html, Selector};
    let doc = Html::parse_document(html);
    let (Ok(forms), Ok(hidden), Ok(password)) = (
        Selector::parse("form"),
        Selector::parse("input[type=hidden i][name]"),
        Selector::parse("input[type=password i]"),
    ) else {
        return Vec::new();
    };
    let same = |a: &Url, b: &Url| {
        let (mut a, mut b) = (a.clone(), b.clone());
        a.set_fragment(None);
        b.set_fragment(None);
        a == b
    };
    let all: Vec<_> = doc.select(&forms).collect();
    let chosen = all
        .iter()
        .find(|f| {
            let target = match f.value().attr("action").map(str::trim) {
                None | Some("") => Some(page.clone()),
                Some(a) => page.join(a).ok(),
            };
            target.is_some_and(|t| same(&t, action))
        })
        .or_else(|| all.iter().find(|f| f.select(&password).next().is_some()))
        .or_else(|| (all.len() == 1).then(|| &all[0]));
    let Some(form) = chosen else {
        return Vec::new();
    };
    form.select(&hidden)
        .take(MAX_HIDDEN_FIELDS)
        .filter_map(|input| {
            let v = input.value();
            Some((
                v.attr("name")?.to_string(),
                v.attr("value").unwrap_or("").to_string(),
            ))
        })
        .collect()
}

/// A page's report entry and findings with the credentials' secrets
/// replaced ([`Credentials::scrub`]): a page that echoes a request header or
/// puts a token into a URL shows `[redacted]` in the report instead.
pub(super) fn scrub_page(creds: &Credentials, page: &mut PageReport, findings: &mut [Finding]) {
    scrub_value(creds, page);
    for f in findings {
        scrub_value(creds, f);
    }
}

/// Scrubs every string of a serializable value, through its JSON form.
pub(super) fn scrub_value<T>(creds: &Credentials, value: &mut T)
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let Ok(mut json) = serde_json::to_value(&*value) else {
        return;
    };
    let before = json.clone();
    creds.scrub_json(&mut json);
    if json == before {
        return;
    }
    match serde_json::from_value(json) {
        Ok(v) => *value = v,
        Err(e) => tracing::warn!(error = %e, "a scrubbed value did not read back"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_fields_come_from_the_form_that_posts_to_the_action() {
        let page = Url::parse("http://s.test/login").unwrap();
        let action = Url::parse("http://s.test/session").unwrap();
        let html = r#"<form action="/search"><input type="hidden" name="q" value="x"></form>
            <form method="post" action="session#f"><input type=HIDDEN name=csrf value="t0k">
            <input type="hidden" name="next"><input name="user"></form>"#;
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(
            hidden_fields(html, &page, &action),
            [pair("csrf", "t0k"), pair("next", "")]
        );
        let by_password = r#"<form action="/elsewhere"><input type="hidden" name="a" value="1">
            <input type="password" name="p"></form><form><input type="hidden" name="b"></form>"#;
        assert_eq!(hidden_fields(by_password, &page, &action), [pair("a", "1")]);
        assert!(hidden_fields("<p>no form</p>", &page, &action).is_empty());
    }
}
