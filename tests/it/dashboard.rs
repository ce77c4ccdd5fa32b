//! The dashboard over real HTTP (the in-process `serve` of `api_support`):
//! sign-in and sessions (cookie attributes, rotation, sign-out, CSRF, rate
//! limit, password links), keys shown once and refused by the API once
//! revoked, site validation, the plan's scan quota from the browser, tenancy,
//! and the self-scan quality bar: our own rules over every page, signed in.

use std::collections::HashMap;

use chrono::Utc;
use reqwest::header::{HeaderMap, CONTENT_SECURITY_POLICY, LOCATION, SET_COOKIE};
use reqwest::Method;
use sitescan_daemon::dashboard::CONTENT_SECURITY_POLICY as CSP;
use sitescan_daemon::ops::users::{create_user, issue_password_link};
use sitescan_daemon::store::{Plan, Store};
use sitescan_fixtures::{site_dir, FixtureServer};
use sitescan_rules::{registry, Outcome};
use sitescan_rules::{Header, Page, Stylesheet};

use crate::api_support::{admin, call, TestApi};

const PASSWORD: &str = "correct horse battery staple";

/// One answer: status, headers, body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Answer {
    fn location(&self) -> &str {
        self.headers
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    fn set_cookie(&self) -> Option<String> {
        self.headers
            .get(SET_COOKIE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }

    /// The new key's secret as the page shows it (once).
    fn shown_key(&self) -> String {
        let at = self
            .body
            .find(r#"<code class="secret" id="new-key">"#)
            .unwrap_or_else(|| panic!("no new key in {}", self.body));
        self.body[at..]
            .split('>')
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .unwrap()
            .to_string()
    }

    /// The CSRF token of the page's (first) form.
    fn csrf(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .unwrap_or_else(|| panic!("no csrf field in {}", self.body));
        let rest = &self.body[at + "name=\"csrf\" value=\"".len()..];
        rest[..rest.find('"').unwrap()].to_string()
    }
}

/// A browser without JavaScript: keeps the session cookie, follows nothing.
pub(crate) struct Browser {
    pub(crate) base: String,
    pub(crate) client: reqwest::Client,
    pub(crate) cookie: Option<String>,
}

impl Browser {
    fn new(api: &TestApi) -> Browser {
        Browser::at(&api.base)
    }

    fn at(base: &str) -> Browser {
        Browser {
            base: base.to_string(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookie: None,
        }
    }

    async fn send(&mut self, method: Method, path: &str, form: Option<&[(&str, &str)]>) -> Answer {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(c) = &self.cookie {
            req = req.header("cookie", format!("sitescan_session={c}"));
        }
        if let Some(f) = form {
            req = req.form(f);
        }
        let resp = req.send().await.unwrap();
        let answer = Answer {
            status: resp.status().as_u16(),
            headers: resp.headers().clone(),
            body: resp.text().await.unwrap(),
        };
        if let Some(c) = answer.set_cookie() {
            let value = c
                .strip_prefix("sitescan_session=")
                .and_then(|r| r.split(';').next())
                .unwrap()
                .to_string();
            self.cookie = (!value.is_empty()).then_some(value);
        }
        answer
    }

    pub(crate) async fn get(&mut self, path: &str) -> Answer {
        self.send(Method::GET, path, None).await
    }

    async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Answer {
        self.send(Method::POST, path, Some(form)).await
    }

    /// Posts a form back to the page it is on (with that page's CSRF token).
    async fn fill(&mut self, path: &str, form: &[(&str, &str)]) -> Answer {
        self.submit(path, path, form).await
    }

    /// Posts a form with the CSRF token of the page at `page`.
    async fn submit(&mut self, page: &str, path: &str, form: &[(&str, &str)]) -> Answer {
        let csrf = self.get(page).await.csrf();
        let mut fields = vec![("csrf", csrf.as_str())];
        fields.extend_from_slice(form);
        self.post(path, &fields).await
    }
}

/// An account of `plan` with a user whose password is set; returns its id
/// and the user's e-mail.
pub(crate) async fn user(api: &TestApi, plan: Plan) -> (String, String) {
    user_on(&*api.store, &api.base, plan).await
}

/// [`user`] on any store, for the dashboard served at `base_url`.
async fn user_on(store: &dyn Store, base_url: &str, plan: Plan) -> (String, String) {
    let account = store
        .create_account(sitescan_daemon::store::Account {
            id: sitescan_daemon::store::new_id("acc").unwrap(),
            name: Some("Test".into()),
            plan,
            created_at: Utc::now(),
        })
        .await
        .unwrap()
        .id;
    let email = format!(
        "{}@example.com",
        sitescan_daemon::store::new_id("ann").unwrap()
    );
    let u = create_user(store, &account, &email, Utc::now())
        .await
        .unwrap();
    let base = url::Url::parse(base_url).unwrap();
    let link = issue_password_link(store, &u.id, &base, Utc::now())
        .await
        .unwrap();
    let token = link.split("token=").nth(1).unwrap().to_string();
    let mut b = Browser::at(base_url);
    let page = b.get(&format!("/set-password?token={token}")).await;
    assert_eq!(page.status, 200);
    let set = b
        .post(
            "/set-password",
            &[
                ("csrf", &page.csrf()),
                ("token", &token),
                ("password", PASSWORD),
                ("confirm", PASSWORD),
            ],
        )
        .await;
    assert_eq!((set.status, set.location()), (303, "/login?password=set"));
    (account, email)
}

pub(crate) async fn sign_in(api: &TestApi, email: &str) -> Browser {
    sign_in_at(&api.base, email).await
}

async fn sign_in_at(base: &str, email: &str) -> Browser {
    let mut b = Browser::at(base);
    let login = b
        .fill("/login", &[("email", email), ("password", PASSWORD)])
        .await;
    assert_eq!(
        (login.status, login.location()),
        (303, "/sites"),
        "{}",
        login.body
    );
    b
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_rotates_the_session_and_sign_out_ends_it() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let mut b = Browser::new(&api);

    let gate = b.get("/sites").await;
    assert_eq!(
        (gate.status, gate.location()),
        (303, "/login?next=%2Fsites")
    );

    let page = b.get("/login").await;
    assert_eq!(page.status, 200);
    let cookie = page.set_cookie().unwrap();
    assert!(
        cookie.ends_with("; Path=/; HttpOnly; SameSite=Lax; Max-Age=7200"),
        "{cookie}"
    );
    assert!(
        !cookie.contains("Secure"),
        "plain http on loopback: {cookie}"
    );
    assert_eq!(page.headers[CONTENT_SECURITY_POLICY], CSP);
    assert_eq!(page.headers["x-content-type-options"], "nosniff");
    assert_eq!(
        page.headers["referrer-policy"],
        "strict-origin-when-cross-origin"
    );
    assert_eq!(page.headers["x-frame-options"], "DENY");
    assert_eq!(page.headers["cache-control"], "no-store");
    assert!(page.headers.get("strict-transport-security").is_none());
    let visitor = b.cookie.clone().unwrap();
    let csrf = page.csrf();

    let wrong = b
        .post(
            "/login",
            &[
                ("csrf", &csrf),
                ("email", &email),
                ("password", "not the password"),
            ],
        )
        .await;
    assert_eq!(wrong.status, 401);
    assert!(wrong
        .body
        .contains(r#"<p class="error" id="password-error">Wrong e-mail or password.</p>"#));
    assert!(wrong
        .body
        .contains(r#"aria-invalid="true" aria-describedby="password-error""#));
    assert!(wrong.set_cookie().is_none());

    let unknown = b
        .post(
            "/login",
            &[
                ("csrf", &csrf),
                ("email", "nobody@example.com"),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(unknown.status, 401, "same answer for an unknown e-mail");
    assert!(unknown.body.contains("Wrong e-mail or password."));

    let ok = b
        .post(
            "/login",
            &[
                ("csrf", &csrf),
                ("email", &email.to_uppercase()),
                ("password", PASSWORD),
                ("next", "/settings/keys"),
            ],
        )
        .await;
    assert_eq!((ok.status, ok.location()), (303, "/settings/keys"));
    let cookie = ok.set_cookie().unwrap();
    assert!(
        cookie.ends_with("; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200"),
        "{cookie}"
    );
    let signed_in = b.cookie.clone().unwrap();
    assert_ne!(signed_in, visitor, "a new session id on sign-in");

    // The visitor's session is gone: its id is worthless now.
    let mut old = Browser::new(&api);
    old.cookie = Some(visitor);
    assert_eq!(old.get("/sites").await.status, 303);

    let sites = b.get("/sites").await;
    assert_eq!(sites.status, 200);
    assert!(sites.body.contains(&email));
    let new_csrf = sites.csrf();
    assert_ne!(new_csrf, csrf, "a new CSRF token with the new session");

    // Sign-out needs the token too.
    assert_eq!(b.post("/logout", &[]).await.status, 403);
    let out = b.post("/logout", &[("csrf", &new_csrf)]).await;
    assert_eq!((out.status, out.location()), (303, "/login?signed_out=1"));
    assert!(out
        .set_cookie()
        .unwrap()
        .starts_with("sitescan_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0"));
    let mut again = Browser::new(&api);
    again.cookie = Some(signed_in);
    assert_eq!(again.get("/sites").await.status, 303, "the session ended");
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forms_without_the_right_csrf_token_are_refused() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let mut anon = Browser::new(&api);
    anon.get("/login").await;
    let missing = anon
        .post("/login", &[("email", &email), ("password", PASSWORD)])
        .await;
    assert_eq!(missing.status, 403);
    assert!(missing.body.contains("Form expired"));
    let wrong = anon
        .post(
            "/login",
            &[("csrf", "0000"), ("email", &email), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(wrong.status, 403);

    let mut b = sign_in(&api, &email).await;
    for (path, form) in [
        ("/settings/keys", vec![("name", "ci")]),
        ("/sites", vec![("url", "https://example.com/")]),
    ] {
        assert_eq!(
            b.post(path, &form).await.status,
            403,
            "{path} without a token"
        );
        let mut with_wrong = vec![("csrf", "f00d")];
        with_wrong.extend(form);
        assert_eq!(
            b.post(path, &with_wrong).await.status,
            403,
            "{path} with a wrong token"
        );
    }
    assert!(api.store.list_keys(None).await.unwrap().is_empty());
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_attempts_are_rate_limited_per_email() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let mut b = Browser::new(&api);
    let csrf = b.get("/login").await.csrf();
    for i in 0..sitescan_daemon::dashboard::auth::LOGIN_PER_EMAIL {
        let a = b
            .post(
                "/login",
                &[("csrf", &csrf), ("email", &email), ("password", "wrong")],
            )
            .await;
        assert_eq!(a.status, 401, "attempt {i}");
    }
    let limited = b
        .post(
            "/login",
            &[("csrf", &csrf), ("email", &email), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(limited.status, 429, "even the right password waits");
    assert!(limited
        .body
        .contains("Too many sign-in attempts. Wait 1 minute and try again."));
    let retry: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(limited.set_cookie().is_none());
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_link_works_once() {
    let api = TestApi::start().await;
    let account = api.account(Plan::Starter).await;
    let store: &dyn Store = &*api.store;
    let u = create_user(store, &account, "Bob@Example.com", Utc::now())
        .await
        .unwrap();
    assert_eq!(u.email, "bob@example.com");
    let link = issue_password_link(
        store,
        &u.id,
        &url::Url::parse(&api.base).unwrap(),
        Utc::now(),
    )
    .await
    .unwrap();
    assert!(link.starts_with(&format!("{}/set-password?token=", api.base)));
    let path = link.strip_prefix(&api.base).unwrap().to_string();
    let token = path.split("token=").nth(1).unwrap().to_string();
    let mut b = Browser::new(&api);
    let page = b.get(&path).await;
    assert_eq!(page.status, 200);
    let csrf = page.csrf();
    let short = b
        .post(
            "/set-password",
            &[
                ("csrf", &csrf),
                ("token", &token),
                ("password", "short"),
                ("confirm", "short"),
            ],
        )
        .await;
    assert_eq!(short.status, 422);
    assert!(short
        .body
        .contains(r#"aria-describedby="password-hint password-error""#));
    assert!(short.body.contains("Use at least 12 characters"));
    let set = b
        .post(
            "/set-password",
            &[
                ("csrf", &csrf),
                ("token", &token),
                ("password", PASSWORD),
                ("confirm", PASSWORD),
            ],
        )
        .await;
    assert_eq!((set.status, set.location()), (303, "/login?password=set"));
    let again = b
        .post(
            "/set-password",
            &[
                ("csrf", &csrf),
                ("token", &token),
                ("password", "another long password"),
                ("confirm", "another long password"),
            ],
        )
        .await;
    assert_eq!(again.status, 400);
    assert!(again.body.contains("This link does not work"));
    let stored = api.store.user(&u.id).await.unwrap().unwrap();
    assert!(stored.password_hash.unwrap().starts_with("$argon2id$"));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_shown_once_and_refused_by_the_api_once_revoked() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;

    let blank = b
        .fill("/settings/keys", &[("name", " "), ("expires", "90")])
        .await;
    assert_eq!(blank.status, 422);
    assert!(blank
        .body
        .contains(r#"<p class="error" id="name-error">Give 1 to 100 characters.</p>"#));
    assert!(blank
        .body
        .contains(r#"aria-invalid="true" aria-describedby="name-hint name-error""#));

    let created = b
        .fill(
            "/settings/keys",
            &[
                ("name", "deploys"),
                ("description", "CI"),
                ("expires", "never"),
            ],
        )
        .await;
    let key = api.store.list_keys(Some(&account)).await.unwrap().remove(0);
    let shown_at = format!("/settings/keys/{}/created", key.id);
    assert_eq!(
        (created.status, created.location()),
        (303, shown_at.as_str())
    );
    assert!(!created.body.contains("key_"), "{}", created.body);
    let created = b.get(&shown_at).await;
    assert_eq!(created.status, 200);
    assert_eq!(created.headers["cache-control"], "no-store");
    let secret = created.shown_key();
    assert!(secret.starts_with("key_") && secret.len() == 52, "{secret}");
    assert!(created.body.contains("It is shown only this once"));
    assert!(created.body.contains(r#"data-copy="new-key""#));

    let listed = b.get("/settings/keys").await;
    assert!(!listed.body.contains(&secret), "never shown again");
    assert!(listed
        .body
        .contains(&format!("<code>{}…</code>", &secret[..8])));
    assert!(listed.body.contains("Never"));

    let (status, current) = call(api.req(Method::GET, "/api/v1/keys/current", Some(&secret))).await;
    assert_eq!(status, 200);
    assert_eq!(current["data"]["expires_at"], serde_json::Value::Null);
    assert_eq!(current["data"]["name"], "deploys");

    let confirm = b.get(&format!("/settings/keys/{}/revoke", key.id)).await;
    assert_eq!(confirm.status, 200);
    assert!(confirm.body.contains("This cannot be undone"));
    assert!(
        api.store
            .key(&key.id)
            .await
            .unwrap()
            .unwrap()
            .revoked_at
            .is_none(),
        "the GET changes nothing"
    );
    let revoked = b
        .post(
            &format!("/settings/keys/{}/revoke", key.id),
            &[("csrf", &confirm.csrf())],
        )
        .await;
    assert_eq!(
        (revoked.status, revoked.location()),
        (303, format!("/settings/keys?revoked={}", key.id).as_str())
    );
    let (status, body) = call(api.req(Method::GET, "/api/v1/sites", Some(&secret))).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"]["code"], "invalid_api_key");
    let after = b.get(&format!("/settings/keys?revoked={}", key.id)).await;
    assert!(after.body.contains("The key “deploys” is revoked"));
    api.stop().await;
}

/// Post/redirect/get: the creating POST answers 303, the page it leads to
/// shows the secret once (from the session, never from the URL or a cookie),
/// and reloading that page shows no secret and creates nothing. Another
/// session of the same user cannot take the secret either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reloading_the_key_page_shows_no_key_and_creates_none() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;
    let mut other = sign_in(&api, &email).await;

    let posted = b
        .fill(
            "/settings/keys",
            &[("name", "reload-check"), ("expires", "90")],
        )
        .await;
    let keys = api.store.list_keys(Some(&account)).await.unwrap();
    assert_eq!(keys.len(), 1);
    let key = &keys[0];
    let shown_at = format!("/settings/keys/{}/created", key.id);
    assert_eq!((posted.status, posted.location()), (303, shown_at.as_str()));
    assert!(posted.set_cookie().is_none(), "no secret in a cookie");
    assert!(!posted.location().contains("key_"), "no secret in the URL");

    // The other session of the same user gets the "already shown" page and
    // does not use up the flash of this one.
    let elsewhere = other.get(&shown_at).await;
    assert_eq!(elsewhere.status, 200);
    assert!(!elsewhere.body.contains(r#"id="new-key""#));

    let first = b.get(&shown_at).await;
    assert_eq!(first.status, 200);
    assert!(first.body.contains("<title>Key created · sitescan</title>"));
    let secret = first.shown_key();
    assert!(
        secret.starts_with(&key.prefix) && secret.len() == 52,
        "{secret}"
    );
    assert!(first.body.contains(r#"id="key-warning""#));
    assert!(first.body.contains(r#"id="copy-key""#));
    assert!(first
        .body
        .contains(r#"<a href="/settings/keys">Done: back to API keys</a>"#));

    // The reload: no secret, a message that it was shown once, nothing made.
    let reload = b.get(&shown_at).await;
    assert_eq!(reload.status, 200);
    assert!(
        !reload.body.contains(&secret),
        "the key is nowhere in the page"
    );
    assert!(!reload.body.contains(r#"id="new-key""#));
    assert!(reload
        .body
        .contains("<title>Key already shown · sitescan</title>"));
    assert!(reload.body.contains(&format!(
        "was shown only once, when it was created: sitescan keeps only its first characters, <code>{}…</code>",
        key.prefix
    )));
    assert_eq!(api.store.list_keys(Some(&account)).await.unwrap().len(), 1);
    let (status, _) = call(api.req(Method::GET, "/api/v1/keys/current", Some(&secret))).await;
    assert_eq!(status, 200, "the key shown is the key made");

    // Someone else's key: not found, as everywhere.
    let (_, stranger) = user(&api, Plan::Professional).await;
    let mut s = sign_in(&api, &stranger).await;
    assert_eq!(s.get(&shown_at).await.status, 404);

    // The webhook secret gets the same treatment.
    let hook_post = b
        .fill(
            "/webhooks",
            &[
                ("url", "http://127.0.0.1:9/hook"),
                ("events", "scan.completed"),
            ],
        )
        .await;
    let hook = api.store.list_webhooks(&account).await.unwrap().remove(0);
    let hook_at = format!("/webhooks/{}/created", hook.id);
    assert_eq!(
        (hook_post.status, hook_post.location()),
        (303, hook_at.as_str())
    );
    let shown = b.get(&hook_at).await;
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains(&format!(
        r#"<code class="secret" id="new-secret">{}</code>"#,
        hook.secret
    )));
    let again = b.get(&hook_at).await;
    assert_eq!(again.status, 200);
    assert!(
        !again.body.contains(&hook.secret),
        "the secret is shown once"
    );
    assert!(again
        .body
        .contains("<title>Secret already shown · sitescan</title>"));
    assert_eq!(api.store.list_webhooks(&account).await.unwrap().len(), 1);
    api.stop().await;
}

/// Every page links our icon, and the conventional `/favicon.ico` answers
/// with it (browsers that probe it get no 404).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_icon_is_ours_and_favicon_ico_answers() {
    let api = TestApi::start().await;
    let mut b = Browser::new(&api);
    let login = b.get("/login").await;
    let at = login
        .body
        .find(r#"<link rel="icon" type="image/svg+xml" href=""#)
        .unwrap();
    let href = login.body[at..].split('"').nth(5).unwrap().to_string();
    assert!(href.starts_with("/assets/favicon.svg?v="), "{href}");
    let svg = b.get(&href).await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg.headers["content-type"], "image/svg+xml");
    assert_eq!(
        svg.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(svg
        .body
        .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    let ico = b.get("/favicon.ico").await;
    assert_eq!(ico.status, 200);
    assert_eq!(ico.headers["content-type"], "image/svg+xml");
    assert_eq!(ico.headers["cache-control"], "public, max-age=86400");
    assert_eq!(ico.body, svg.body);
    let not_found = b.get("/assets/nothing.png").await;
    assert_eq!(not_found.status, 404);
    assert!(
        not_found.body.contains(r#"rel="icon""#),
        "error pages link it too"
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_starter_plan_sees_what_it_lacks() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Starter).await;
    let mut b = sign_in(&api, &email).await;
    let keys = b.get("/settings/keys").await;
    assert!(keys
        .body
        .contains("API access needs the Professional or Enterprise plan."));
    let sites = b.get("/sites").await;
    assert!(sites.body.contains("The Starter plan includes no scans."));
    b.fill("/sites", &[("url", "https://example.com/")]).await;
    let site = api.store.list_sites(&account).await.unwrap().remove(0);
    let page = format!("/sites/{}", site.id);
    assert!(b.get(&page).await.body.contains(
        r#"<button type="submit" id="scan-now" disabled aria-describedby="scan-now-reason">"#
    ));
    let refused = b
        .submit(
            &page,
            &format!("{page}/scans"),
            &[("categories", "seo"), ("priority", "normal")],
        )
        .await;
    assert_eq!(refused.status, 429);
    assert!(refused.body.contains(
        "The Starter plan includes no scans: scans need the Professional or Enterprise plan."
    ));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sites_are_validated_like_the_api_and_scans_follow_the_plan_quota() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;

    let bad = b.fill("/sites", &[("url", "ftp://example.com/")]).await;
    assert_eq!(bad.status, 422);
    assert!(bad
        .body
        .contains(r#"<p class="error" id="url-error">The scheme must be http or https.</p>"#));
    assert!(bad
        .body
        .contains(r#"aria-describedby="url-hint url-error""#));
    assert!(
        bad.body.contains(r#"value="ftp://example.com/""#),
        "the value is kept"
    );
    // Credentials are refused and never echoed back into the form.
    let secret = b
        .fill("/sites", &[("url", "https://ann:hunter2@example.com/shop")])
        .await;
    assert_eq!(secret.status, 422);
    assert!(!secret.body.contains("hunter2"), "the password is echoed");
    assert!(!secret.body.contains("ann:"), "the user name is echoed");
    assert!(secret.body.contains(r#"value="https://example.com/shop""#));
    let relative = b.fill("/sites", &[("url", "/shop")]).await;
    assert_eq!(relative.status, 422);
    assert!(relative.body.contains("Not an absolute URL"));
    assert!(api.store.list_sites(&account).await.unwrap().is_empty());

    let url = fixture.url();
    let made = b
        .fill("/sites", &[("url", &url), ("name", "Fixture")])
        .await;
    assert_eq!(made.status, 303);
    let site = api.store.list_sites(&account).await.unwrap().remove(0);
    assert_eq!(made.location(), format!("/sites/{}", site.id));
    assert_eq!(site.url, url);

    let page = b.get(&format!("/sites/{}", site.id)).await;
    assert!(page
        .body
        .contains("Scans today: 0 of 2 (Professional plan, 2 left"));
    assert!(page
        .body
        .contains(r#"<button type="submit" id="scan-now">Scan now</button>"#));
    // A pattern that does not compile is named at its field; nothing starts.
    let bad = b
        .submit(
            &format!("/sites/{}", site.id),
            &format!("/sites/{}/scans", site.id),
            &[
                ("categories", "seo"),
                ("priority", "normal"),
                ("links", "internal"),
                ("include", "/docs/\n(unclosed"),
            ],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert!(
        bad.body
            .contains(r#"<textarea id="include" name="include" rows="2" aria-invalid="true""#),
        "{}",
        bad.body
    );
    assert!(bad.body.contains("(unclosed"), "what was typed is kept");
    let mut scans = Vec::new();
    for i in 0..2 {
        // The second scan checks only the site's own links and narrows the
        // crawl with a pattern a line (blank lines ignored).
        let mut fields = vec![
            ("categories", "accessibility"),
            ("categories", "seo"),
            ("priority", "high"),
        ];
        if i == 1 {
            fields.extend([
                ("links", "internal"),
                ("include", "/\n\n"),
                ("exclude", "\\.pdf$\n  /private/ \n"),
            ]);
        }
        let started = b
            .submit(
                &format!("/sites/{}", site.id),
                &format!("/sites/{}/scans", site.id),
                &fields,
            )
            .await;
        assert_eq!(started.status, 303, "{}", started.body);
        scans.push(started.location().trim_start_matches("/scans/").to_string());
    }
    let third = b
        .submit(
            &format!("/sites/{}", site.id),
            &format!("/sites/{}/scans", site.id),
            &[("categories", "accessibility"), ("priority", "normal")],
        )
        .await;
    assert_eq!(third.status, 429);
    assert!(third
        .body
        .contains("No scans left today: the Professional plan allows 2 scans per day (UTC)."));
    assert!(third.body.contains("Scans today: 2 of 2"));
    // Once spent, the site page disables "Scan now" and says why and until when.
    let spent = b.get(&format!("/sites/{}", site.id)).await;
    let midnight = (Utc::now().date_naive() + chrono::Days::new(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let want = format!(
        r#"<p class="blocked" id="scan-now-reason">Scan now is unavailable. Today's scans are used up: the Professional plan allows 2 scans per day (UTC) and 2 were started today. Scans can start again at <time datetime="{}">{}</time>.</p><button type="submit" id="scan-now" disabled aria-describedby="scan-now-reason">Scan now</button>"#,
        midnight.to_rfc3339(),
        midnight.format("%Y-%m-%d %H:%M UTC")
    );
    assert!(spent.body.contains(&want), "no {want} in {}", spent.body);
    assert_eq!(
        api.store
            .scans_created_on(&account, Utc::now().date_naive())
            .await
            .unwrap(),
        2
    );
    let none = b
        .submit(
            &format!("/sites/{}", site.id),
            &format!("/sites/{}/scans", site.id),
            &[("priority", "normal")],
        )
        .await;
    assert_eq!(none.status, 422);
    assert!(none.body.contains("Choose at least one category."));

    let first = api.store.scan(&account, &scans[0]).await.unwrap().unwrap();
    assert_eq!(first.config.rules, vec!["wcag-aa", "seo"]);
    assert_eq!(first.config.priority, sitescan_engine::Priority::High);
    assert_eq!(first.config.max_pages, 100, "the plan's page cap");
    assert_eq!(first.config.links, sitescan_engine::LinkScope::All);
    assert!(first.config.include.is_empty() && first.config.exclude.is_empty());
    let second = api.store.scan(&account, &scans[1]).await.unwrap().unwrap();
    assert_eq!(second.config.links, sitescan_engine::LinkScope::Internal);
    assert_eq!(second.config.include, vec!["/"]);
    assert_eq!(second.config.exclude, vec![r"\.pdf$", "/private/"]);

    // The scan page until the report shows.
    let mut done = false;
    for _ in 0..600 {
        let s = b.get(&format!("/scans/{}/status", scans[0])).await;
        let v: serde_json::Value = serde_json::from_str(&s.body).unwrap();
        if v["terminal"] == true {
            assert_eq!(v["status"], "completed");
            done = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(done, "the scan finished");
    let scan_page = b.get(&format!("/scans/{}", scans[0])).await;
    // The summary line counts like the HTML report's header.
    let summary = api
        .store
        .scan(&account, &scans[0])
        .await
        .unwrap()
        .unwrap()
        .summary
        .unwrap();
    let to_review: u64 = summary.categories.values().map(|c| c.cant_tell).sum();
    let line = sitescan_engine::render::count(summary.pages_fetched, "page", "pages")
        + " · "
        + &sitescan_engine::render::findings_phrase(summary.findings - to_review, to_review);
    assert!(
        scan_page.body.contains(&format!("<p>{line}</p>")),
        "{line}\n{}",
        scan_page.body
    );
    let report_html = b
        .get(&format!("/scans/{}/download?format=html", scans[0]))
        .await;
    assert!(
        report_html.body.contains(&format!(" · {line}</p>")),
        "{line}"
    );
    assert!(scan_page.body.contains(&format!(
        r#"<a class="button" href="/scans/{}/full" id="view-report">View the full report</a>"#,
        scans[0]
    )));
    // The report in full: the dashboard's frame around the whole report.
    let full = b.get(&format!("/scans/{}/full", scans[0])).await;
    assert_eq!(full.status, 200);
    assert_eq!(full.headers[CONTENT_SECURITY_POLICY].to_str().unwrap(), CSP);
    for want in [
        "<h1>Report: Fixture</h1>".to_string(),
        r#"<nav aria-label="Main">"#.to_string(),
        format!(
            r#"<iframe class="report-full" id="report" src="/scans/{}/report" title="Report of the scan of Fixture">"#,
            scans[0]
        ),
        format!(
            r#"<a href="/scans/{0}/full" aria-current="page">Report</a>"#,
            scans[0]
        ),
    ] {
        assert!(full.body.contains(&want), "no {want} in {}", full.body);
    }
    for f in ["json", "html", "sarif", "junit", "csv", "markdown"] {
        assert!(
            scan_page
                .body
                .contains(&format!("/scans/{}/download?format={f}", scans[0])),
            "{f}"
        );
    }
    let report = b.get(&format!("/scans/{}/report", scans[0])).await;
    assert_eq!(report.status, 200);
    let csp = report.headers[CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(
        csp.starts_with("default-src 'none'; style-src 'sha256-"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"));
    assert!(report.body.contains("sitescan report"));
    let sarif = b
        .get(&format!("/scans/{}/download?format=sarif", scans[0]))
        .await;
    assert_eq!(sarif.status, 200);
    assert!(sarif.headers["content-disposition"]
        .to_str()
        .unwrap()
        .ends_with(".sarif\""));
    let site_page = b.get(&format!("/sites/{}", site.id)).await;
    assert!(site_page.body.contains(
        r#"<svg class="chart trend" role="img" aria-labelledby="trend-title trend-desc""#
    ));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_records_are_not_found() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let (theirs, _) = user(&api, Plan::Professional).await;
    let site = api.site(&theirs, "https://example.com/").await;
    let scan = api
        .store
        .create_scan_if_quota(
            crate::contract::scan(&api.store.site(&theirs, &site).await.unwrap().unwrap()),
            Utc::now().date_naive(),
            None,
        )
        .await
        .unwrap();
    let mut b = sign_in(&api, &email).await;
    for path in [
        format!("/sites/{site}"),
        format!("/sites/{site}/remove"),
        format!("/scans/{}", scan.id),
        format!("/scans/{}/status", scan.id),
        format!("/scans/{}/report", scan.id),
        "/sites/site_missing".to_string(),
    ] {
        let a = b.get(&path).await;
        assert_eq!(a.status, 404, "{path}");
        assert!(a.body.contains("Not found"), "{path}");
    }
    let csrf = b.get("/sites").await.csrf();
    let cancel = b
        .post(&format!("/scans/{}/cancel", scan.id), &[("csrf", &csrf)])
        .await;
    assert_eq!(cancel.status, 404);
    let remove = b
        .post(&format!("/sites/{site}/remove"), &[("csrf", &csrf)])
        .await;
    assert_eq!(remove.status, 404);
    assert!(api.store.site(&theirs, &site).await.unwrap().is_some());
    assert_eq!(
        api.store
            .scan_by_id(&scan.id)
            .await
            .unwrap()
            .unwrap()
            .status,
        sitescan_daemon::store::ScanStatus::Queued
    );
    api.stop().await;
}

/// Our rules over one fetched page: the `wcag-aa` set and the security rules
/// whose subject we control (CSP, X-Content-Type-Options, framing, Referrer-Policy).
pub(crate) fn self_scan(url: &str, answer: &Answer, css: &str) -> Vec<String> {
    let mut page = Page::from_html(url, &answer.body);
    page.status = answer.status;
    page.headers = answer
        .headers
        .iter()
        .map(|(k, v)| Header {
            name: k.as_str().to_string(),
            value: v.to_str().unwrap_or("").to_string(),
        })
        .collect();
    page.stylesheets = vec![Stylesheet {
        url: format!("{url}assets/app.css"),
        text: css.into(),
        media: None,
        ..Default::default()
    }];
    let mut names = vec!["wcag-aa"];
    names.extend([
        "content-security-policy",
        "x-content-type-options",
        "clickjacking-protection",
        "referrer-policy",
    ]);
    let selection = registry::select(&names).unwrap();
    let analysis = sitescan_rules::analyze(&page, &selection.page);
    assert!(analysis.errors.is_empty(), "{url}: {:?}", analysis.errors);
    analysis
        .findings
        .iter()
        .filter(|f| matches!(f.outcome, Outcome::Failed | Outcome::CantTell))
        .map(|f| {
            format!(
                "{url}: {} {:?} {} {}",
                f.rule_id, f.outcome, f.selector, f.message
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_passes_our_own_wcag_aa_and_header_rules() {
    let fixture = FixtureServer::start(site_dir("basic")).await.unwrap();
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;
    let css = b.get("/assets/app.css").await;
    assert_eq!(css.headers["content-type"], "text/css; charset=utf-8");
    assert_eq!(
        css.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let css = css.body;

    let mut pages: Vec<(String, Answer)> = Vec::new();
    // Signed out.
    let mut anon = Browser::new(&api);
    pages.push(("/login".into(), anon.get("/login").await));
    pages.push((
        "/set-password?token=abc".into(),
        anon.get("/set-password?token=abc").await,
    ));
    let wrong = anon
        .fill("/login", &[("email", &email), ("password", "wrong")])
        .await;
    pages.push(("POST /login (error)".into(), wrong));

    // Signed in: every page family, with records to show.
    let url = fixture.url();
    b.fill("/sites", &[("url", &url)]).await;
    let site = api.store.list_sites(&account).await.unwrap().remove(0);
    let started = b
        .submit(
            &format!("/sites/{}", site.id),
            &format!("/sites/{}/scans", site.id),
            &[("categories", "accessibility"), ("priority", "normal")],
        )
        .await;
    let scan_path = started.location().to_string();
    let no_category = b
        .submit(
            &format!("/sites/{}", site.id),
            &format!("/sites/{}/scans", site.id),
            &[("priority", "normal")],
        )
        .await;
    assert_eq!(no_category.status, 422);
    pages.push(("POST /sites/{id}/scans (error)".into(), no_category));
    pages.push((format!("{scan_path} (live)"), b.get(&scan_path).await));
    for _ in 0..600 {
        let s = b.get(&format!("{scan_path}/status")).await;
        if s.body.contains("\"terminal\":true") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    pages.push((scan_path.clone(), b.get(&scan_path).await));
    // A schedule on the site page, and the schedule form with its problems.
    let schedule_path = format!("/sites/{}/schedules", site.id);
    let site_path = format!("/sites/{}", site.id);
    let sched = b
        .submit(
            &site_path,
            &schedule_path,
            &[
                ("cron", "daily"),
                ("timezone", "UTC"),
                ("categories", "seo"),
            ],
        )
        .await;
    assert_eq!(sched.status, 303, "{}", sched.body);
    let bad_sched = b
        .submit(
            &site_path,
            &schedule_path,
            &[("cron", "nope"), ("timezone", "Nowhere")],
        )
        .await;
    assert_eq!(bad_sched.status, 422);
    pages.push(("POST /sites/{id}/schedules (error)".into(), bad_sched));
    pages.push(("/sites".into(), b.get("/sites").await));
    pages.push((
        format!("/sites/{}", site.id),
        b.get(&format!("/sites/{}", site.id)).await,
    ));
    pages.push((
        format!("/sites/{}/remove", site.id),
        b.get(&format!("/sites/{}/remove", site.id)).await,
    ));
    let bad_site = b.fill("/sites", &[("url", "ftp://x/")]).await;
    pages.push(("POST /sites (error)".into(), bad_site));
    let key = b
        .fill("/settings/keys", &[("name", "ci"), ("expires", "30")])
        .await;
    assert_eq!(key.status, 303);
    pages.push((key.location().to_string(), b.get(key.location()).await));
    pages.push((
        format!("{} (again)", key.location()),
        b.get(key.location()).await,
    ));
    let k = api.store.list_keys(Some(&account)).await.unwrap().remove(0);
    api.store.record_key_use(&k.id, Utc::now()).await.unwrap();
    pages.push(("/settings/keys".into(), b.get("/settings/keys").await));
    pages.push((
        format!("/settings/keys/{}/revoke", k.id),
        b.get(&format!("/settings/keys/{}/revoke", k.id)).await,
    ));
    let bad_key = b
        .fill("/settings/keys", &[("name", ""), ("expires", "90")])
        .await;
    pages.push(("POST /settings/keys (error)".into(), bad_key));
    let hook = b
        .fill(
            "/webhooks",
            &[
                ("url", &fixture.url_for("/hook")),
                ("events", "scan.completed"),
            ],
        )
        .await;
    assert_eq!(hook.status, 303, "{}", hook.body);
    pages.push((hook.location().to_string(), b.get(hook.location()).await));
    pages.push((
        format!("{} (again)", hook.location()),
        b.get(hook.location()).await,
    ));
    let h = api.store.list_webhooks(&account).await.unwrap().remove(0);
    pages.push(("/webhooks".into(), b.get("/webhooks").await));
    pages.push((
        format!("/webhooks/{}", h.id),
        b.get(&format!("/webhooks/{}", h.id)).await,
    ));
    pages.push((
        format!("/webhooks/{}/delete", h.id),
        b.get(&format!("/webhooks/{}/delete", h.id)).await,
    ));
    let bad_hook = b.fill("/webhooks", &[("url", "not a url")]).await;
    pages.push(("POST /webhooks (error)".into(), bad_hook));
    pages.push((
        "/sites/site_missing (404)".into(),
        b.get("/sites/site_missing").await,
    ));
    let unknown = b
        .client
        .get(format!("{}/no-such-page", api.base))
        .header("accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status().as_u16(), 404);
    pages.push((
        "/no-such-page (browser 404)".into(),
        Answer {
            status: 404,
            headers: unknown.headers().clone(),
            body: unknown.text().await.unwrap(),
        },
    ));

    let mut problems = Vec::new();
    let mut seen = HashMap::new();
    for (name, answer) in &pages {
        assert!(
            answer.body.starts_with("<!DOCTYPE html>"),
            "{name}: {}",
            answer.status
        );
        assert_eq!(answer.headers[CONTENT_SECURITY_POLICY], CSP, "{name}");
        assert!(
            !answer.body.contains("style=") && !answer.body.contains("<style"),
            "{name}: inline style"
        );
        assert!(!answer.body.contains("<script>"), "{name}: inline script");
        assert_eq!(answer.body.matches("<h1").count(), 1, "{name}: one h1");
        problems.extend(
            self_scan(&format!("{}/", api.base), answer, &css)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
        seen.insert(name.clone(), answer.status);
    }
    assert!(
        problems.is_empty(),
        "{} findings:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(seen.len(), pages.len());
    api.stop().await;
}

#[test]
fn admin_cli_creates_users_with_a_password_link() {
    let dir = tempfile::tempdir().unwrap();
    let (code, acc, _) = admin(dir.path(), &["account", "create", "--plan", "professional"]);
    assert_eq!(code, 0);
    let acc = acc["id"].as_str().unwrap().to_string();

    let (code, user, err) = admin(
        dir.path(),
        &[
            "user",
            "create",
            "--account",
            &acc,
            "--email",
            "Ann@Example.com",
            "--base-url",
            "https://scan.example.com",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(user["id"].as_str().unwrap().starts_with("usr_"));
    assert_eq!(user["email"], "ann@example.com");
    assert_eq!(user["password_set"], false);
    let link = user["password_link"].as_str().unwrap();
    assert!(
        link.starts_with("https://scan.example.com/set-password?token="),
        "{link}"
    );
    assert_eq!(
        link.len(),
        "https://scan.example.com/set-password?token=".len() + 64
    );
    assert!(err.contains("open this link within 24 hours"));

    let (code, list, _) = admin(dir.path(), &["user", "list", "--account", &acc]);
    assert_eq!(code, 0);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["email"], "ann@example.com");
    assert!(list[0].get("password_hash").is_none(), "never printed");

    let (code, reset, _) = admin(dir.path(), &["user", "reset-password", "ANN@example.com"]);
    assert_eq!(code, 0);
    let again = reset["password_link"].as_str().unwrap();
    assert!(
        again.starts_with("http://127.0.0.1:8080/set-password?token="),
        "{again}"
    );
    assert_ne!(again.split("token=").nth(1), link.split("token=").nth(1));
    let (code, key, _) = admin(
        dir.path(),
        &[
            "key",
            "create",
            "--account",
            &acc,
            "--name",
            "ci",
            "--expires-in",
            "never",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(key["expires_at"], serde_json::Value::Null);

    // Refusals: exit code 2 and the reason, nothing created.
    let refused = |args: &[&str], why: &str| {
        let (code, _, err) = admin(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    };
    for (account, email, why) in [
        (acc.as_str(), "ann@example.com", "already exists"),
        (&acc, "not-an-email", "is not an e-mail address"),
        ("acc_missing", "b@example.com", "no account `acc_missing`"),
    ] {
        refused(
            &["user", "create", "--account", account, "--email", email],
            why,
        );
    }
    refused(
        &["user", "reset-password", "nobody@example.com"],
        "no user `nobody@example.com`",
    );
    refused(
        &["key", "create", "--account", &acc, "--name", " "],
        "name: give 1 to 100 characters",
    );
    let (code, list, _) = admin(dir.path(), &["user", "list", "--account", &acc]);
    assert_eq!(code, 0);
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "the refusals made no user"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_managed_from_the_dashboard() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;

    let http = b
        .fill(
            "/webhooks",
            &[
                ("url", "ftp://hooks.example.com/"),
                ("events", "scan.completed"),
            ],
        )
        .await;
    assert_eq!(http.status, 422);
    assert!(http
        .body
        .contains(r#"aria-describedby="url-hint url-error""#));
    let no_events = b
        .fill("/webhooks", &[("url", "http://127.0.0.1:9/hook")])
        .await;
    assert_eq!(no_events.status, 422);
    assert!(no_events.body.contains(r#"id="events-error""#));

    let made = b
        .fill(
            "/webhooks",
            &[
                ("url", "http://127.0.0.1:9/hook"),
                ("events", "scan.completed"),
                ("events", "scan.failed"),
                ("description", "ops"),
            ],
        )
        .await;
    let hook = api.store.list_webhooks(&account).await.unwrap().remove(0);
    assert_eq!(
        (made.status, made.location()),
        (303, format!("/webhooks/{}/created", hook.id).as_str())
    );
    let made = b.get(made.location()).await;
    assert_eq!(made.status, 200);
    assert_eq!(hook.events, vec!["scan.completed", "scan.failed"]);
    assert!(made.body.contains(&format!(
        r#"<code class="secret" id="new-secret">{}</code>"#,
        hook.secret
    )));
    let listed = b.get("/webhooks").await;
    assert!(
        !listed.body.contains(&hook.secret),
        "the secret is shown once"
    );
    assert!(listed.body.contains("http://127.0.0.1:9/hook"));

    let page = format!("/webhooks/{}", hook.id);
    let off = b
        .submit(
            &page,
            &format!("/webhooks/{}/enabled", hook.id),
            &[("enabled", "false")],
        )
        .await;
    assert_eq!((off.status, off.location()), (303, page.as_str()));
    assert!(
        !api.store
            .webhook(&account, &hook.id)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );
    b.submit(
        &page,
        &format!("/webhooks/{}/enabled", hook.id),
        &[("enabled", "true")],
    )
    .await;
    assert!(
        api.store
            .webhook(&account, &hook.id)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );

    // A delivery in the log, redelivered as a new one with the same event.
    let now = Utc::now();
    let delivery = sitescan_daemon::store::Delivery {
        id: sitescan_daemon::store::new_id("dlv").unwrap(),
        webhook_id: hook.id.clone(),
        account_id: account.clone(),
        event_id: "evt_1".into(),
        event_type: "scan.completed".into(),
        payload: "{}".into(),
        status: sitescan_daemon::store::DeliveryStatus::Failed,
        attempts: 5,
        next_attempt_at: None,
        created_at: now,
        attempt_log: Vec::new(),
    };
    api.store
        .save_deliveries(vec![delivery.clone()])
        .await
        .unwrap();
    let log = b.get(&page).await;
    assert!(log.body.contains("evt_1"));
    let again = b
        .post(
            &format!("/webhooks/{}/deliveries/{}/redeliver", hook.id, delivery.id),
            &[("csrf", &log.csrf())],
        )
        .await;
    assert_eq!((again.status, again.location()), (303, page.as_str()));
    let deliveries = api.store.list_deliveries(&hook.id, 10).await.unwrap();
    assert_eq!(deliveries.len(), 2);
    assert_eq!(deliveries[0].event_id, "evt_1");
    assert_ne!(deliveries[0].id, delivery.id);

    let confirm = b.get(&format!("/webhooks/{}/delete", hook.id)).await;
    assert_eq!(confirm.status, 200);
    let gone = b
        .post(
            &format!("/webhooks/{}/delete", hook.id),
            &[("csrf", &confirm.csrf())],
        )
        .await;
    assert_eq!((gone.status, gone.location()), (303, "/webhooks"));
    assert!(api.store.list_webhooks(&account).await.unwrap().is_empty());
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setting_a_new_password_signs_out_every_session() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let mut signed_in = sign_in(&api, &email).await;
    assert_eq!(signed_in.get("/sites").await.status, 200);

    let store: &dyn Store = &*api.store;
    let u = store.user_by_email(&email).await.unwrap().unwrap();
    let link = issue_password_link(
        store,
        &u.id,
        &url::Url::parse(&api.base).unwrap(),
        Utc::now(),
    )
    .await
    .unwrap();
    let path = link.strip_prefix(&api.base).unwrap().to_string();
    let token = path.split("token=").nth(1).unwrap().to_string();
    // Until the new password is set, nothing changes.
    assert_eq!(signed_in.get("/sites").await.status, 200);
    let mut other = Browser::new(&api);
    let page = other.get(&path).await;
    let new_password = "a different long passphrase";
    let set = other
        .post(
            "/set-password",
            &[
                ("csrf", &page.csrf()),
                ("token", &token),
                ("password", new_password),
                ("confirm", new_password),
            ],
        )
        .await;
    assert_eq!(set.status, 303);
    let gate = signed_in.get("/sites").await;
    assert_eq!(
        (gate.status, gate.location()),
        (303, "/login?next=%2Fsites")
    );
    let mut fresh = Browser::new(&api);
    let old = fresh
        .fill("/login", &[("email", &email), ("password", PASSWORD)])
        .await;
    assert_eq!(old.status, 401, "the old password is gone");
    api.stop().await;
}

/// The same pages on the fleet's Redis backend (`serve --redis`): users,
/// password links and sessions live in Redis, and keys made in the dashboard
/// work on the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_works_on_the_redis_backend() {
    use sitescan_daemon::dashboard::DashboardSettings;
    let (url, _server) = crate::fleet::shared_redis();
    let guard = crate::fleet::PrefixGuard::new(&url);
    let backend =
        crate::fleet::backend(&url, &guard.prefix, std::time::Duration::from_secs(300), 3).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let base = format!("http://{addr}");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(sitescan_daemon::fleet::serve_api(
        backend.clone(),
        listener,
        600,
        true,
        sitescan::PageBudget::DEFAULT,
        DashboardSettings::new(addr, None),
        async {
            let _ = rx.await;
        },
    ));
    let (account, email) = user_on(&backend, &base, Plan::Enterprise).await;
    let mut b = sign_in_at(&base, &email).await;
    let sites = b.get("/sites").await;
    assert_eq!(sites.status, 200);
    assert!(sites.body.contains("Enterprise plan: no daily limit"));
    let created = b
        .fill("/settings/keys", &[("name", "fleet"), ("expires", "30")])
        .await;
    let key = backend.list_keys(Some(&account)).await.unwrap().remove(0);
    assert_eq!(
        (created.status, created.location()),
        (303, format!("/settings/keys/{}/created", key.id).as_str())
    );
    let created = b.get(created.location()).await;
    assert_eq!(created.status, 200);
    let again = b.get(&format!("/settings/keys/{}/created", key.id)).await;
    assert!(
        again.body.contains("Key already shown") && !again.body.contains("id=\"new-key\""),
        "the Redis session's flash is taken once"
    );
    assert_eq!(
        key.expires_at.unwrap() - key.created_at,
        chrono::Duration::days(30)
    );
    let secret_at = created.body.find("key_").unwrap();
    let secret = &created.body[secret_at..secret_at + 52];
    let resp = reqwest::Client::new()
        .get(format!("{base}/api/v1/keys/current"))
        .header("x-api-key", secret)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let out = b.submit("/sites", "/logout", &[]).await;
    assert_eq!(out.status, 303);
    assert_eq!(b.get("/sites").await.status, 303, "signed out");
    let _ = tx.send(());
    let _ = server.await;
}

/// `next=` after sign-in is a same-origin path or the default page: tabs,
/// newlines and backslashes (which browsers drop or read as `/`), `//`, encoded
/// forms and absolute URLs all fall back to `/sites`; the sign-in form and the
/// signed-in visit to `/login` agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_redirects_only_to_same_origin_paths() {
    let api = TestApi::start().await;
    let (_, email) = user(&api, Plan::Professional).await;
    let hostile = [
        "/\t/evil.example/",
        "/\n/evil.example/",
        "/\r\n/evil.example/",
        "\t//evil.example/",
        "/\\evil.example/",
        "\\\\evil.example/",
        "/\\/evil.example/",
        "//evil.example/",
        "///evil.example/",
        "/.//evil.example/",
        "/%2F/evil.example/",
        "/%5C/evil.example/",
        "https://evil.example/",
        "http:evil.example",
        "javascript:alert(1)",
        "evil.example",
    ];
    // The reported case, through the sign-in form: `next=/%09/evil.example/`.
    let mut b = Browser::new(&api);
    let login = b
        .fill(
            "/login?next=/%09/evil.example/",
            &[
                ("email", &email),
                ("password", PASSWORD),
                ("next", "/\t/evil.example/"),
            ],
        )
        .await;
    assert_eq!((login.status, login.location()), (303, "/sites"));
    // Signed in, `/login?next=...` redirects at once: same rule.
    for next in hostile {
        let q: String = url::form_urlencoded::byte_serialize(next.as_bytes()).collect();
        let a = b.get(&format!("/login?next={q}")).await;
        assert_eq!((a.status, a.location()), (303, "/sites"), "next={next:?}");
    }
    let a = b.get("/login?next=%2Fscans%3Fpage%3D2").await;
    assert_eq!((a.status, a.location()), (303, "/scans?page=2"));
    // A fresh sign-in with a good `next` goes there.
    let mut fresh = Browser::new(&api);
    let login = fresh
        .fill(
            "/login",
            &[("email", &email), ("password", PASSWORD), ("next", "/keys")],
        )
        .await;
    assert_eq!((login.status, login.location()), (303, "/keys"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_page_shows_the_link_phase() {
    use sitescan_daemon::store::{Progress, Site};
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = api
        .store
        .create_site(Site {
            id: sitescan_daemon::store::new_id("site").unwrap(),
            account_id: account.clone(),
            url: "https://example.com/".into(),
            name: "Example".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await
        .unwrap();
    // A running scan as a worker records it (no job queued: no worker takes it).
    let scan = crate::contract::scan(&site);
    let scan = api
        .store
        .create_scan_if_quota(scan, Utc::now().date_naive(), None)
        .await
        .unwrap();
    api.store.start_scan(&scan.id, Utc::now()).await.unwrap();
    let in_links = Progress {
        pages_done: 12,
        pages_queued: 0,
        errors: 0,
        phase: sitescan::Phase::Links,
        links_checked: 17,
        links_total: 40,
    };
    api.store.update_progress(&scan.id, in_links).await.unwrap();

    let page = b.get(&format!("/scans/{}", scan.id)).await;
    assert_eq!(page.status, 200);
    for want in [
        r#"Phase: <span id="scan-phase">checking links</span>"#,
        r#"<p id="scan-links-line">Links checked: <span id="scan-links">17</span> of <span id="scan-links-total">40</span></p>"#,
        r#"<progress id="scan-progress" max="40" value="17""#,
    ] {
        assert!(page.body.contains(want), "no {want} in {}", page.body);
    }
    let s = b.get(&format!("/scans/{}/status", scan.id)).await;
    let v: serde_json::Value = serde_json::from_str(&s.body).unwrap();
    assert_eq!(
        (
            &v["phase"],
            &v["phase_label"],
            &v["links_checked"],
            &v["links_total"]
        ),
        (
            &serde_json::json!("links"),
            &serde_json::json!("checking links"),
            &serde_json::json!(17),
            &serde_json::json!(40)
        )
    );

    // While crawling: pages on the bar, the links line hidden.
    let crawling = Progress {
        pages_done: 3,
        pages_queued: 5,
        ..Progress::default()
    };
    api.store.update_progress(&scan.id, crawling).await.unwrap();
    let page = b.get(&format!("/scans/{}", scan.id)).await;
    for want in [
        r#"Phase: <span id="scan-phase">checking pages</span>"#,
        r#"<p id="scan-links-line" hidden>"#,
        r#"<progress id="scan-progress" max="8" value="3""#,
    ] {
        assert!(page.body.contains(want), "no {want} in {}", page.body);
    }
    api.stop().await;
}

/// Schedules from the site page: the form checks like the API (each field's
/// problem shown beside it), a schedule is listed with its next run, is
/// disabled and enabled again, and removed; another account's is not found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedules_are_managed_from_the_site_page() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Professional).await;
    let (_, other_email) = user(&api, Plan::Professional).await;
    let mut b = sign_in(&api, &email).await;
    b.fill("/sites", &[("url", "https://example.com/")]).await;
    let site = api.store.list_sites(&account).await.unwrap().remove(0);
    let site_path = format!("/sites/{}", site.id);
    let post_path = format!("/sites/{}/schedules", site.id);

    let page = b.get(&site_path).await;
    assert_eq!(page.status, 200);
    assert!(page
        .body
        .contains(r#"<h2 id="schedules-heading">Scheduled scans</h2>"#));
    assert!(page.body.contains("No schedules yet"));

    // Problems are shown beside their fields; nothing is saved.
    let bad = b
        .submit(
            &site_path,
            &post_path,
            &[("cron", "61 * * * *"), ("timezone", "Mars/Olympus")],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.body.contains(r#"id="sched-cron-error""#),
        "{}",
        bad.body
    );
    assert!(bad.body.contains(r#"id="sched-timezone-error""#));
    assert!(bad.body.contains(r#"id="sched-categories-error""#));
    assert!(bad.body.contains("Unknown time zone `Mars/Olympus`"));
    assert!(api
        .store
        .list_schedules(&account, &site.id)
        .await
        .unwrap()
        .is_empty());

    // Added: back to the site page, listed there with its next run.
    let made = b
        .submit(
            &site_path,
            &post_path,
            &[
                ("cron", "0 6 * * 1-5"),
                ("timezone", "Europe/Berlin"),
                ("categories", "accessibility"),
                ("categories", "seo"),
            ],
        )
        .await;
    let s = api
        .store
        .list_schedules(&account, &site.id)
        .await
        .unwrap()
        .remove(0);
    assert_eq!(
        (made.status, made.location()),
        (303, format!("/sites/{}#{}", site.id, s.id).as_str())
    );
    assert_eq!(s.config, serde_json::json!({"rules": ["wcag-aa", "seo"]}));
    assert_eq!(s.timezone, "Europe/Berlin");
    assert!(s.enabled && s.next_run_at.is_some());
    let page = b.get(&site_path).await;
    assert!(
        page.body.contains(&format!(r#"<tr id="{}">"#, s.id)),
        "{}",
        page.body
    );
    assert!(page
        .body
        .contains("<code>0 6 * * 1-5</code> (Europe/Berlin)"));
    assert!(page.body.contains(&s.next_run_at.unwrap().to_rfc3339()));
    assert!(page.body.contains("Not run yet"));

    // Disabled, then enabled again.
    let enabled_path = format!("/schedules/{}/enabled", s.id);
    let off = b
        .submit(&site_path, &enabled_path, &[("enabled", "false")])
        .await;
    assert_eq!(off.status, 303);
    let stored = api.store.schedule(&account, &s.id).await.unwrap().unwrap();
    assert!(!stored.enabled);
    assert_eq!(stored.next_run_at, None);
    let page = b.get(&site_path).await;
    assert!(page.body.contains(">Disabled<"));
    assert!(page
        .body
        .contains(r#"aria-label="Enable schedule 0 6 * * 1-5""#));
    let on = b
        .submit(&site_path, &enabled_path, &[("enabled", "true")])
        .await;
    assert_eq!(on.status, 303);
    assert!(
        api.store
            .schedule(&account, &s.id)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );

    // Another account cannot touch it.
    let mut other = sign_in(&api, &other_email).await;
    for path in [enabled_path.clone(), format!("/schedules/{}/remove", s.id)] {
        let answer = other.submit("/sites", &path, &[("enabled", "false")]).await;
        assert_eq!(answer.status, 404, "{path}");
    }
    let answer = other
        .submit(
            "/sites",
            &post_path,
            &[("cron", "daily"), ("categories", "seo")],
        )
        .await;
    assert_eq!(answer.status, 404);
    assert!(
        api.store
            .schedule(&account, &s.id)
            .await
            .unwrap()
            .unwrap()
            .enabled
    );

    // Removed.
    let gone = b
        .submit(&site_path, &format!("/schedules/{}/remove", s.id), &[])
        .await;
    assert_eq!(gone.status, 303);
    assert!(api
        .store
        .list_schedules(&account, &site.id)
        .await
        .unwrap()
        .is_empty());
    api.stop().await;
}

/// The start-scan form's "Render with a browser (JavaScript)" checkbox goes
/// through the same operation as the API: a service without a browser names
/// the problem at the checkbox (kept ticked), one with a browser starts a
/// render scan, and the scan page says which kind of scan it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_render_checkbox_starts_a_render_scan_through_the_same_operation() {
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(tmp.path()).await;
    let checkbox = r#"<input type="checkbox" name="render" value="on" id="render""#;

    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let site = api.site(&account, &app.url()).await;
    let mut b = sign_in(&api, &email).await;
    let page = b.get(&format!("/sites/{site}")).await;
    assert!(page.body.contains(checkbox), "{}", page.body);
    assert!(page
        .body
        .contains(" Render with a browser (JavaScript)</label>"));
    let refused = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[("categories", "accessibility"), ("render", "on")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains(
            r#"<p class="error" id="render-error">This service cannot render: no browser was found"#
        ),
        "{}",
        refused.body
    );
    assert!(refused.body.contains(&format!(
        r#"{checkbox} checked aria-invalid="true" aria-describedby="render-hint render-error">"#
    )));
    assert!(api
        .store
        .list_scans(&account, &site, None, 10)
        .await
        .unwrap()
        .items
        .is_empty());
    // Unticked, the same form starts a static scan.
    let started = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[("categories", "accessibility")],
        )
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    let scan_page = b.get(started.location()).await;
    assert!(scan_page
        .body
        .contains(r#"<span id="scan-mode">static HTML (no JavaScript)</span>"#));
    api.stop().await;

    let api = TestApi::start_rendering().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let site = api.site(&account, &app.url()).await;
    let mut b = sign_in(&api, &email).await;
    let started = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            // What a browser sends: the checkbox, and the browser options
            // as the page shows them (their defaults).
            &[
                ("categories", "accessibility"),
                ("render", "on"),
                ("wait-until", "network-idle"),
                ("wait-selector", ""),
                ("max-wait", ""),
                ("throttle", "none"),
                ("screenshots", "on"),
                ("max-screenshots", ""),
            ],
        )
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    let id = started.location().trim_start_matches("/scans/").to_string();
    let scan = api.store.scan(&account, &id).await.unwrap().unwrap();
    assert!(scan.config.render);
    assert_eq!(
        scan.config.render_options,
        Some(sitescan_engine::RenderOptions::default())
    );
    let scan_page = b.get(started.location()).await;
    assert!(scan_page
        .body
        .contains(r#"<span id="scan-mode">rendered with a browser (JavaScript run)</span>"#));
    assert!(
        !scan_page.body.contains("scan-waiting"),
        "this service renders"
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_page_shows_what_is_new_and_fixed_since_the_previous_scan() {
    use sitescan_daemon::store::{
        ChangedFinding, FindingChanges, Regressions, ReportFile, ScanOutcome, ScanSummary, Site,
    };
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = api
        .store
        .create_site(Site {
            id: sitescan_daemon::store::new_id("site").unwrap(),
            account_id: account.clone(),
            url: "https://example.com/".into(),
            name: "Example".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await
        .unwrap();
    let finished = |regressions: Regressions| ScanOutcome::Completed {
        summary: ScanSummary {
            pages_fetched: 1,
            regressions: Some(regressions),
            ..Default::default()
        },
        report: ReportFile::from_bytes(b"{}").unwrap(),
        screenshots: Default::default(),
    };
    let mut ids = Vec::new();
    for regressions in [
        Regressions::default(),
        Regressions {
            compared_with: Some("scan_before".into()),
            new: FindingChanges {
                count: 3,
                items: vec![ChangedFinding {
                    fingerprint: "0123456789abcdef0123456789abcdef".into(),
                    rule: "image-alt".into(),
                    impact: "critical".into(),
                    outcome: "failed".into(),
                    page_url: "https://example.com/shop".into(),
                    selector: "#two".into(),
                    message: "The image has no text alternative".into(),
                }],
                ..Default::default()
            },
            fixed: FindingChanges {
                count: 2,
                ..Default::default()
            },
        },
    ] {
        let scan = api
            .store
            .create_scan_if_quota(crate::contract::scan(&site), Utc::now().date_naive(), None)
            .await
            .unwrap();
        api.store.start_scan(&scan.id, Utc::now()).await.unwrap();
        api.store
            .finish_scan(&scan.id, finished(regressions), Utc::now())
            .await
            .unwrap();
        ids.push(scan.id);
    }
    let first = b.get(&format!("/scans/{}", ids[0])).await;
    assert_eq!(first.status, 200);
    assert!(
        first
            .body
            .contains("first completed scan of this site with this configuration"),
        "{}",
        first.body
    );
    let page = b.get(&format!("/scans/{}", ids[1])).await;
    assert_eq!(page.status, 200);
    for want in [
        format!(r#"<p id="changes">3 new since the previous scan / 2 fixed (compared with <a href="/scans/scan_before">scan_before</a>)</p><p><a href="/scans/scan_before/compare?with={}" id="compare-previous">"#, ids[1]),
        "<td>image-alt</td><td>critical</td><td>https://example.com/shop</td><td><code>#two</code></td><td>The image has no text alternative</td>".to_string(),
        "The first 1 of 3 are listed.".to_string(),
    ] {
        assert!(page.body.contains(&want), "no {want} in {}", page.body);
    }
}

/// A completed scan of `site` whose stored report holds `findings` (JSON
/// objects of the report's `findings`), its summary's new findings the
/// fingerprints `new`.
async fn completed_scan_with(
    api: &TestApi,
    site: &sitescan_daemon::store::Site,
    findings: &[serde_json::Value],
    new: &[&serde_json::Value],
    scores: &[(&str, u8)],
    at: chrono::DateTime<Utc>,
) -> String {
    use sitescan_daemon::store::{
        CategoryResult, ChangedFinding, FindingChanges, Regressions, ReportFile, ScanOutcome,
        ScanSummary,
    };
    let report = serde_json::json!({ "schema_version": 1, "findings": findings });
    let items: Vec<ChangedFinding> = new
        .iter()
        .map(|v| {
            let f: sitescan_rules::Finding = serde_json::from_value((*v).clone()).unwrap();
            ChangedFinding {
                fingerprint: sitescan_engine::baseline::fingerprint(&f),
                rule: f.rule_id.clone(),
                impact: f.impact.as_str().into(),
                outcome: "failed".into(),
                page_url: f.page_url.clone(),
                selector: f.selector.clone(),
                message: f.message.clone(),
            }
        })
        .collect();
    let summary = ScanSummary {
        pages_fetched: 1,
        findings: findings.len() as u64,
        categories: scores
            .iter()
            .map(|(c, s)| {
                (
                    c.to_string(),
                    CategoryResult {
                        score: Some(*s),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        regressions: Some(Regressions {
            compared_with: Some("scan_before".into()),
            new: FindingChanges {
                count: items.len() as u64,
                items,
                ..Default::default()
            },
            fixed: FindingChanges::default(),
        }),
        ..Default::default()
    };
    let mut scan = crate::contract::scan(site);
    scan.created_at = at;
    let scan = api
        .store
        .create_scan_if_quota(scan, Utc::now().date_naive(), None)
        .await
        .unwrap();
    api.store.start_scan(&scan.id, Utc::now()).await.unwrap();
    api.store
        .finish_scan(
            &scan.id,
            ScanOutcome::Completed {
                summary,
                report: ReportFile::from_bytes(&serde_json::to_vec(&report).unwrap()).unwrap(),
                screenshots: Default::default(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    scan.id
}

fn finding(
    rule: &str,
    category: &str,
    impact: &str,
    page: &str,
    selector: &str,
    message: &str,
) -> serde_json::Value {
    serde_json::json!({
        "rule_id": rule, "category": category, "outcome": "failed", "impact": impact,
        "page_url": page, "selector": selector, "snippet": "<x>", "message": message, "wcag": [],
    })
}

async fn example_site(api: &TestApi, account: &str) -> sitescan_daemon::store::Site {
    api.store
        .create_site(sitescan_daemon::store::Site {
            id: sitescan_daemon::store::new_id("site").unwrap(),
            account_id: account.to_string(),
            url: "https://example.com/".into(),
            name: "Example".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await
        .unwrap()
}

/// The rows of the explorer's table as (impact, rule, page, selector).
fn explorer_rows(body: &str) -> Vec<(String, String, String, String)> {
    let Some(at) = body.find(r#"<table id="findings""#) else {
        return Vec::new();
    };
    let table = &body[at..body[at..].find("</table>").unwrap() + at];
    let cell = |s: &str, open: &str| {
        let i = s.find(open).unwrap() + open.len();
        s[i..i + s[i..].find('<').unwrap()].to_string()
    };
    table
        .split("<tr data-fingerprint=")
        .skip(1)
        .map(|tr| {
            let tds: Vec<&str> = tr.split("<td").collect();
            (
                cell(tds[1], "\">"),
                cell(tds[2], ">"),
                cell(tds[4], ">"),
                tds[5]
                    .split("<code>")
                    .nth(1)
                    .map(|c| c[..c.find('<').unwrap()].to_string())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_findings_explorer_filters_sorts_searches_and_pages_on_the_server() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = example_site(&api, &account).await;
    let one = finding(
        "image-alt",
        "accessibility",
        "critical",
        "https://example.com/a",
        "#one",
        "The image has no text alternative",
    );
    let two = finding(
        "image-alt",
        "accessibility",
        "critical",
        "https://example.com/b",
        "#two",
        "The image has no text alternative",
    );
    let title = finding(
        "document-title",
        "seo",
        "moderate",
        "https://example.com/a",
        "",
        "The page has no Title element",
    );
    let mut findings = vec![title.clone(), two.clone(), one.clone()];
    for i in 0..60 {
        findings.push(finding(
            "color-contrast",
            "accessibility",
            "serious",
            &format!("https://example.com/c{i:02}"),
            "p",
            "Low contrast",
        ));
    }
    let scan = completed_scan_with(&api, &site, &findings, &[&two], &[], Utc::now()).await;
    let base = format!("/scans/{scan}/findings");
    let row = |impact: &str, rule: &str, page: &str, sel: &str| {
        (
            impact.to_string(),
            rule.to_string(),
            format!("https://example.com/{page}"),
            sel.to_string(),
        )
    };

    let rule = b.get(&format!("{base}?rule=image-alt")).await;
    assert_eq!(rule.status, 200, "{}", rule.body);
    assert!(
        rule.body
            .contains("Findings 1–2 of 2 matching (63 in the report)."),
        "{}",
        rule.body
    );
    assert_eq!(
        explorer_rows(&rule.body),
        vec![
            row("critical", "image-alt", "a", "#one"),
            row("critical", "image-alt", "b", "#two")
        ]
    );
    assert!(rule
        .body
        .contains(r#"<option value="image-alt" selected>image-alt</option>"#));

    let new = b.get(&format!("{base}?new=on")).await;
    assert_eq!(
        explorer_rows(&new.body),
        vec![row("critical", "image-alt", "b", "#two")]
    );
    assert!(new.body.contains(r#"<span class="new">new</span>"#));

    let search = b.get(&format!("{base}?q=title+ELEMENT")).await;
    assert_eq!(
        explorer_rows(&search.body),
        vec![row("moderate", "document-title", "a", "")]
    );
    let seo = b.get(&format!("{base}?category=seo")).await;
    assert_eq!(
        explorer_rows(&seo.body),
        vec![row("moderate", "document-title", "a", "")]
    );
    let impact = b.get(&format!("{base}?impact=serious&page=c59")).await;
    assert_eq!(
        explorer_rows(&impact.body),
        vec![row("serious", "color-contrast", "c59", "p")]
    );
    let none = b.get(&format!("{base}?impact=minor")).await;
    assert!(none
        .body
        .contains("No findings match (of 63 in the report)."));
    assert!(explorer_rows(&none.body).is_empty());

    // Default order: impact, then rule, then page; 50 a page.
    let all = b.get(&base).await;
    let rows = explorer_rows(&all.body);
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[0], row("critical", "image-alt", "a", "#one"));
    assert_eq!(rows[2], row("serious", "color-contrast", "c00", "p"));
    assert_eq!(rows[49], row("serious", "color-contrast", "c47", "p"));
    assert!(all.body.contains(&format!(
        r#"<a href="{base}?p=2" rel="next" id="next-page">Next</a>"#
    )));
    let second = b.get(&format!("{base}?p=2")).await;
    assert!(second
        .body
        .contains("Findings 51–63 of 63 matching (63 in the report)."));
    let rows = explorer_rows(&second.body);
    assert_eq!(rows.len(), 13);
    assert_eq!(rows[0], row("serious", "color-contrast", "c48", "p"));
    assert_eq!(rows[12], row("moderate", "document-title", "a", ""));
    assert!(second.body.contains(&format!(
        r#"<a href="{base}" rel="prev" id="prev-page">Previous</a>"#
    )));

    // By rule: color-contrast first; by page: /a's two findings first, by impact.
    let by_rule = explorer_rows(&b.get(&format!("{base}?sort=rule")).await.body);
    assert_eq!(by_rule[0], row("serious", "color-contrast", "c00", "p"));
    let by_page = explorer_rows(&b.get(&format!("{base}?sort=page&impact=&q=")).await.body);
    assert_eq!(
        &by_page[..3],
        &[
            row("critical", "image-alt", "a", "#one"),
            row("moderate", "document-title", "a", ""),
            row("critical", "image-alt", "b", "#two")
        ]
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trend_chart_has_a_point_per_completed_scan_with_its_date() {
    use chrono::TimeZone;
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = example_site(&api, &account).await;
    let empty = b.get(&format!("/sites/{}", site.id)).await;
    assert!(empty
        .body
        .contains("The trend shows once a scan has completed."));
    let days = [
        (2026, 11, 20, 70u8, 40u8),
        (2026, 11, 22, 80, 55),
        (2026, 11, 25, 95, 60),
    ];
    let mut ids = Vec::new();
    for (y, m, d, a11y, seo) in days {
        let at = Utc.with_ymd_and_hms(y, m, d, 9, 30, 0).unwrap();
        ids.push(
            completed_scan_with(
                &api,
                &site,
                &[],
                &[],
                &[("accessibility", a11y), ("seo", seo)],
                at,
            )
            .await,
        );
    }
    // A scan still queued is not on the chart.
    api.store
        .create_scan_if_quota(crate::contract::scan(&site), Utc::now().date_naive(), None)
        .await
        .unwrap();
    let page = b.get(&format!("/sites/{}", site.id)).await;
    assert_eq!(page.status, 200);
    let body = &page.body;
    let svg = &body[body.find("<svg class=\"chart trend\"").unwrap()..body.find("</svg>").unwrap()];
    assert!(svg.contains(r#"role="img" aria-labelledby="trend-title trend-desc""#));
    assert!(
        svg.contains(
            r#"<title id="trend-title">Scores per category over the last 3 completed scans</title>"#
        ),
        "{svg}"
    );
    assert!(svg.contains(r#"<desc id="trend-desc">From 2026-11-20 to 2026-11-25: accessibility from 70 to 95; seo from 40 to 60. The table below has every value.</desc>"#), "{svg}");
    // Three points a series, each titled with its value and date; three date labels.
    for (cat, scores) in [("accessibility", [70, 80, 95]), ("seo", [40, 55, 60])] {
        let series = &svg[svg
            .find(&format!(r#"<g class="series series-{cat}">"#))
            .unwrap()..];
        let series = &series[..series.find("</g>").unwrap()];
        assert_eq!(series.matches("<circle ").count(), 3, "{series}");
        assert_eq!(series.matches("<polyline ").count(), 1);
        for ((_, _, d, _, _), s) in days.iter().zip(scores) {
            let want = format!("<title>{cat} {s} on 2026-11-{d} 09:30 UTC</title>");
            assert!(series.contains(&want), "no {want} in {series}");
        }
    }
    assert_eq!(
        svg.matches(r#"<g class="series "#).count(),
        2,
        "only categories with scores"
    );
    let labels: Vec<&str> = svg
        .split(r#"<text class="date""#)
        .skip(1)
        .map(|t| {
            let t = &t[t.find('>').unwrap() + 1..];
            &t[..t.find('<').unwrap()]
        })
        .collect();
    assert_eq!(labels, ["11-20", "11-22", "11-25"]);
    for tick in ["0", "25", "50", "75", "100"] {
        assert!(
            svg.contains(&format!(r##"fill="#4a4f57">{tick}</text>"##)),
            "y tick {tick}"
        );
    }
    // The same numbers as a table, oldest first.
    let table = &body[body.find(r#"<table id="trend-data">"#).unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    let rows: Vec<String> = table
        .split("<tr>")
        .skip(2)
        .map(|r| {
            let date = &r[r.find("<time").unwrap()..];
            let date = &date[date.find('>').unwrap() + 1..date.find("</time>").unwrap()];
            let nums: Vec<&str> = r
                .split(r#"<td class="n">"#)
                .skip(1)
                .map(|c| &c[..c.find('<').unwrap()])
                .collect();
            format!("{date} {}", nums.join(" "))
        })
        .collect();
    assert_eq!(
        rows,
        [
            "2026-11-20 09:30 UTC 70 40",
            "2026-11-22 09:30 UTC 80 55",
            "2026-11-25 09:30 UTC 95 60"
        ]
    );
    assert!(table.contains(&format!(r#"<a href="/scans/{}">"#, ids[0])));
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_scans_side_by_side_show_scores_counts_and_findings_only_in_each() {
    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = example_site(&api, &account).await;
    let both = finding(
        "image-alt",
        "accessibility",
        "critical",
        "https://example.com/a",
        "#one",
        "The image has no text alternative",
    );
    let gone = finding(
        "document-title",
        "seo",
        "moderate",
        "https://example.com/a",
        "",
        "The page has no title element",
    );
    let came = finding(
        "image-alt",
        "accessibility",
        "critical",
        "https://example.com/b",
        "#two",
        "The image has no text alternative",
    );
    let a = completed_scan_with(
        &api,
        &site,
        &[both.clone(), gone],
        &[],
        &[("accessibility", 70), ("seo", 90)],
        Utc::now(),
    )
    .await;
    let bb = completed_scan_with(
        &api,
        &site,
        &[both, came],
        &[],
        &[("accessibility", 65), ("seo", 100)],
        Utc::now(),
    )
    .await;
    let page = b.get(&format!("/scans/{a}/compare?with={bb}")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    for want in [
        r#"<th scope="row">Accessibility (WCAG 2.1 AA) score</th><td class="n">70</td><td class="n">65</td><td class="n">-5</td>"#,
        r#"<th scope="row">SEO score</th><td class="n">90</td><td class="n">100</td><td class="n">+10</td>"#,
        r#"<th scope="row">Pages</th><td class="n">1</td><td class="n">1</td><td class="n">+0</td>"#,
        r#"<h2 id="only-a-heading">Only in A (1): fixed in B</h2>"#,
        r#"<td>moderate</td><td>document-title</td><td class="url">https://example.com/a</td><td></td><td>The page has no title element</td>"#,
        r#"<h2 id="only-b-heading">Only in B (1): new in B</h2>"#,
        r#"<td>critical</td><td>image-alt</td><td class="url">https://example.com/b</td><td><code>#two</code></td><td>The image has no text alternative</td>"#,
    ] {
        assert!(page.body.contains(want), "no {want} in {}", page.body);
    }
    assert!(
        !page.body.contains("#one"),
        "a finding in both is in neither list"
    );
    assert_eq!(b.get(&format!("/scans/{a}/compare")).await.status, 400);
    assert_eq!(
        b.get(&format!("/scans/{a}/compare?with=scan_nope"))
            .await
            .status,
        404
    );
    api.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_are_marked_and_unmarked_from_the_scan_page() {
    use sitescan_daemon::store::{ReportFile, ScanOutcome, ScanSummary, Site};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><html lang=\"en\"><head><title>Shop</title></head><body><main><h1>Shop</h1><img id=\"spacer\" src=\"s.gif\"></main></body></html>",
    )
    .unwrap();
    let fixture = FixtureServer::start(dir.path()).await.unwrap();
    let report = sitescan::Scanner::builder()
        .rules(&["image-alt"])
        .max_pages(1)
        .allow_private(true)
        .build()
        .unwrap()
        .scan(&fixture.url())
        .await
        .unwrap();
    assert_eq!(report.findings.len(), 1);
    let fp = sitescan::baseline::fingerprint(&report.findings[0]);

    let api = TestApi::start().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let mut b = sign_in(&api, &email).await;
    let site = api
        .store
        .create_site(Site {
            id: sitescan_daemon::store::new_id("site").unwrap(),
            account_id: account.clone(),
            url: fixture.url(),
            name: "Shop".into(),
            created_at: Utc::now(),
            regression_threshold: Default::default(),
            has_credentials: false,
        })
        .await
        .unwrap();
    let scan = api
        .store
        .create_scan_if_quota(crate::contract::scan(&site), Utc::now().date_naive(), None)
        .await
        .unwrap();
    api.store.start_scan(&scan.id, Utc::now()).await.unwrap();
    let bytes = serde_json::to_vec(&report).unwrap();
    api.store
        .finish_scan(
            &scan.id,
            ScanOutcome::Completed {
                summary: ScanSummary {
                    pages_fetched: 1,
                    findings: 1,
                    ..Default::default()
                },
                report: ReportFile::from_bytes(&bytes).unwrap(),
                screenshots: Default::default(),
            },
            Utc::now(),
        )
        .await
        .unwrap();
    let scan_page = b.get(&format!("/scans/{}", scan.id)).await;
    assert!(
        scan_page.body.contains(&format!(
            r#"href="/scans/{}/findings" id="explore""#,
            scan.id
        )),
        "{}",
        scan_page.body
    );

    let list = format!("/scans/{}/findings", scan.id);
    let page = b.get(&list).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!(r#"data-fingerprint="{fp}""#)),
        "{}",
        page.body
    );
    assert!(page.body.contains("Mark…") && !page.body.contains("data-mark="));
    // An unknown status is refused with the API's words; nothing is marked.
    let refused = b
        .submit(
            &list,
            &format!("/sites/{}/marks/{fp}", site.id),
            &[("status", "wontfix"), ("note", ""), ("back", &list)],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body.contains("unknown status"), "{}", refused.body);
    assert_eq!(api.store.mark(&account, &site.id, &fp).await.unwrap(), None);

    let marked = b
        .submit(
            &list,
            &format!("/sites/{}/marks/{fp}", site.id),
            &[
                ("status", "false_positive"),
                ("note", "a spacer"),
                ("back", &list),
            ],
        )
        .await;
    assert_eq!(
        (marked.status, marked.location()),
        (303, format!("{list}#triage").as_str())
    );
    let stored = api
        .store
        .mark(&account, &site.id, &fp)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, sitescan_rules::MarkStatus::FalsePositive);
    assert_eq!(stored.note, "a spacer");
    assert_eq!(stored.by.as_deref(), Some(email.as_str()));
    let page = b.get(&list).await;
    for want in [
        r#"data-mark="false_positive""#,
        r#"<span class="mark-status">False positive</span>"#,
        "Note: a spacer",
        "Unmark",
        "1 marked on this site now",
    ] {
        assert!(page.body.contains(want), "no {want} in {}", page.body);
    }

    // Another account's user reaches neither the list nor the site's marks.
    let (_, other_email) = user(&api, Plan::Enterprise).await;
    let mut other = sign_in(&api, &other_email).await;
    assert_eq!(other.get(&list).await.status, 404);
    let csrf = other.get("/sites").await.csrf();
    let denied = other
        .post(
            &format!("/sites/{}/marks/{fp}/remove", site.id),
            &[("csrf", &csrf), ("back", &list)],
        )
        .await;
    assert_eq!(denied.status, 404);
    assert!(api
        .store
        .mark(&account, &site.id, &fp)
        .await
        .unwrap()
        .is_some());

    let unmarked = b
        .submit(
            &list,
            &format!("/sites/{}/marks/{fp}/remove", site.id),
            &[("back", &list)],
        )
        .await;
    assert_eq!(
        (unmarked.status, unmarked.location()),
        (303, format!("{list}#triage").as_str())
    );
    assert_eq!(api.store.mark(&account, &site.id, &fp).await.unwrap(), None);
    assert!(!b.get(&list).await.body.contains("data-mark="));
}

/// The start-scan form's "Browser options" reach the scan through the same
/// operation as the API's `config.render_options`: the stored config has
/// exactly what was typed (the defaults filling the rest).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_options_of_the_scan_form_become_the_scans_render_options() {
    let tmp = tempfile::tempdir().unwrap();
    let app = crate::api_render::app_site(tmp.path()).await;
    let api = TestApi::start_rendering().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let site = api.site(&account, &app.url()).await;
    let mut b = sign_in(&api, &email).await;
    let page = b.get(&format!("/sites/{site}")).await;
    for part in [
        r##"<fieldset id="render-options" aria-describedby="render-options-hint"><legend>Browser options</legend><p class="hint" id="render-options-hint">Used only when “Render with a browser” is ticked; leave them as they are for the defaults.</p>"##,
        r##"<select id="wait-until" name="wait-until" aria-describedby="wait-until-hint"><option value="network-idle" selected>The network is idle (no request for 500 ms)</option><option value="load">The load event (then 500 ms)</option></select>"##,
        r##"<label for="wait-selector">Or wait for an element (CSS selector) (optional)</label>"##,
        r##"<input type="text" id="max-wait" name="max-wait" value="" autocomplete="off" aria-describedby="max-wait-hint">"##,
        r##"<input type="checkbox" name="screenshots" value="on" id="screenshots" checked aria-describedby="screenshots-hint"> Take screenshots</label>"##,
    ] {
        assert!(page.body.contains(part), "{part}\n{}", page.body);
    }
    let started = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[
                ("categories", "accessibility"),
                ("render", "on"),
                ("wait-until", "load"),
                ("wait-selector", ""),
                ("max-wait", "12.5"),
                ("throttle", "mobile"),
                ("viewport", "1024x768"),
                ("screenshots", "on"),
                ("max-screenshots", "5"),
            ],
        )
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    let id = started.location().trim_start_matches("/scans/").to_string();
    let scan = api.store.scan(&account, &id).await.unwrap().unwrap();
    assert!(scan.config.render);
    assert_eq!(
        scan.config.render_options,
        Some(sitescan_engine::RenderOptions {
            wait: sitescan_engine::RenderWait::Load,
            quiet_ms: 500,
            max_wait_ms: 12_500,
            screenshots: sitescan_engine::ScreenshotOptions {
                enabled: true,
                max: 5,
                max_bytes: 20 * 1024 * 1024,
            },
            throttle: sitescan_engine::Throttle::Mobile,
            viewport: Some(sitescan_engine::ViewportSize {
                width: 1024,
                height: 768,
            }),
        })
    );

    // A selector replaces the wait choice; screenshots unticked take none.
    let started = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[
                ("categories", "accessibility"),
                ("render", "on"),
                ("wait-until", "network-idle"),
                ("wait-selector", "#root h1"),
                ("max-wait", ""),
                ("throttle", "none"),
                ("max-screenshots", ""),
            ],
        )
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    let id = started.location().trim_start_matches("/scans/").to_string();
    let scan = api.store.scan(&account, &id).await.unwrap().unwrap();
    assert_eq!(
        scan.config.render_options,
        Some(sitescan_engine::RenderOptions {
            wait: sitescan_engine::RenderWait::Selector("#root h1".into()),
            screenshots: sitescan_engine::ScreenshotOptions {
                enabled: false,
                ..Default::default()
            },
            ..Default::default()
        })
    );

    // Unticked "Render with a browser": a static scan, whatever the options
    // say (they are not even read).
    let started = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[
                ("categories", "accessibility"),
                ("wait-selector", "a["),
                ("max-wait", "soon"),
            ],
        )
        .await;
    assert_eq!(started.status, 303, "{}", started.body);
    let id = started.location().trim_start_matches("/scans/").to_string();
    let scan = api.store.scan(&account, &id).await.unwrap().unwrap();
    assert!(!scan.config.render);
    assert_eq!(scan.config.render_options, None);
    api.stop().await;
}

/// A bad browser option is named next to its field, with every value kept:
/// what the form cannot read (the longest wait) and what the operation
/// refuses (a selector the engine cannot parse, too many screenshots: the
/// API's 422 field paths mapped to the form's fields).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_browser_option_is_named_at_its_field_and_the_values_are_kept() {
    let api = TestApi::start_rendering().await;
    let (account, email) = user(&api, Plan::Enterprise).await;
    let site = api.site(&account, "http://127.0.0.1:9/").await;
    let mut b = sign_in(&api, &email).await;

    let refused = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[
                ("categories", "accessibility"),
                ("render", "on"),
                ("wait-until", "load"),
                ("wait-selector", "a["),
                ("max-wait", "15"),
                ("throttle", "desktop"),
                ("screenshots", "on"),
                ("max-screenshots", "5000"),
            ],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    for part in [
        r##"<li><a href="#wait-selector">`a[` is not a CSS selector.</a></li>"##,
        r##"<li><a href="#max-screenshots">Give 0 to 1000 pictures.</a></li>"##,
        r##"<p class="error" id="wait-selector-error">`a[` is not a CSS selector.</p><input type="text" id="wait-selector" name="wait-selector" value="a[" autocomplete="off" aria-invalid="true" aria-describedby="wait-selector-hint wait-selector-error">"##,
        r##"<p class="error" id="max-screenshots-error">Give 0 to 1000 pictures.</p><input type="text" id="max-screenshots" name="max-screenshots" value="5000" autocomplete="off" aria-invalid="true" aria-describedby="max-screenshots-hint max-screenshots-error">"##,
        r##"<input type="text" id="max-wait" name="max-wait" value="15" autocomplete="off" aria-describedby="max-wait-hint">"##,
        r##"<option value="load" selected>"##,
        r##"<option value="desktop" selected>"##,
        r##"<input type="checkbox" name="render" value="on" id="render" checked"##,
    ] {
        assert!(refused.body.contains(part), "{part}\n{}", refused.body);
    }

    let refused = b
        .submit(
            &format!("/sites/{site}"),
            &format!("/sites/{site}/scans"),
            &[
                ("categories", "accessibility"),
                ("render", "on"),
                ("wait-until", "network-idle"),
                ("wait-selector", "#app"),
                ("max-wait", "90"),
                ("throttle", "none"),
                ("viewport", "100x768"),
                ("max-screenshots", ""),
            ],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    for part in [
        r##"<p class="error" id="max-wait-error">Give 0.1 to 60 seconds (e.g. 15 or 0.5).</p><input type="text" id="max-wait" name="max-wait" value="90" autocomplete="off" aria-invalid="true" aria-describedby="max-wait-hint max-wait-error">"##,
        r##"<input type="text" id="wait-selector" name="wait-selector" value="#app" autocomplete="off" aria-describedby="wait-selector-hint">"##,
        r##"<p class="error" id="viewport-error">A viewport width of 100 pixels is out of bounds: give 200 to 4000 pixels (e.g. 1280x720).</p><input type="text" id="viewport" name="viewport" value="100x768" autocomplete="off" aria-invalid="true" aria-describedby="viewport-hint viewport-error">"##,
        // Unticked: kept unticked.
        r##"<input type="checkbox" name="screenshots" value="on" id="screenshots" aria-describedby="screenshots-hint"> Take screenshots</label>"##,
    ] {
        assert!(refused.body.contains(part), "{part}\n{}", refused.body);
    }
    assert!(api
        .store
        .list_scans(&account, &site, None, 10)
        .await
        .unwrap()
        .items
        .is_empty());
    api.stop().await;
}
