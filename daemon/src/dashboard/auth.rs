//! Who is using the dashboard: users, passwords, sessions and CSRF tokens.
//!
//! - Passwords are hashed with argon2id (the `argon2` crate's default
//!   parameters, a fresh 16-byte salt each), off the async runtime. A sign-in
//!   for an unknown e-mail verifies against a fixed dummy hash, so it takes as
//!   long as a wrong password: timing does not tell which e-mails exist.
//! - A session id is 32 random bytes (hex) in the `sitescan_session` cookie
//!   (`HttpOnly`, `SameSite=Lax`, `Path=/`, `Secure` unless local plain-http
//!   development, see [`super::DashboardSettings`]); the store keeps only its
//!   SHA-256. Signed-out visitors get a session too, holding the CSRF token of
//!   the sign-in and set-password forms; signing in replaces it with a NEW
//!   session (new id, new CSRF token), so a session id planted before sign-in
//!   is worthless after it.
//! - Every POST form carries the session's synchronizer token in a hidden
//!   `csrf` field; [`Form`] refuses (403) a body without the right one.
//! - Sign-in attempts are limited per e-mail ([`LOGIN_PER_EMAIL`] in a burst,
//!   one more every [`LOGIN_EMAIL_PERIOD`]) and per client IP
//!   ([`LOGIN_PER_IP`], one more every [`LOGIN_IP_PERIOD`]), with governor;
//!   password settings count against the per-IP limit too (each one hashes).
//! - Password-setting links (`/set-password?token=...`) come from
//!   `sitescan admin user create` / `reset-password`: the token is 32 random
//!   bytes, stored as its SHA-256, valid [`PASSWORD_LINK_HOURS`] hours, used once.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Query, Request, State};
use axum::http::{header, request::Parts, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Utc;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use maud::html;
use serde::Deserialize;

use super::layout::{self, FieldErrors};
use super::{DashState, PageError, PageResult, MAX_FORM_BYTES};
use crate::ops::users;
pub use crate::ops::users::{MAX_PASSWORD, MIN_PASSWORD, PASSWORD_LINK_HOURS};
use crate::secrets::{hash_secret, random_hex};
use crate::store::{Account, Session, Site, User};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "sitescan_session";
/// Lifetime of a signed-in session (absolute: sign in again after it).
pub const SESSION_HOURS: i64 = 12;
/// Lifetime of a signed-out visitor's session (it only carries a CSRF token).
pub const VISITOR_SESSION_HOURS: i64 = 2;
/// Sign-in attempts per e-mail in a burst.
pub const LOGIN_PER_EMAIL: u32 = 5;
/// One more attempt per e-mail every this long.
pub const LOGIN_EMAIL_PERIOD: Duration = Duration::from_secs(60);
/// Sign-in attempts per client IP in a burst.
pub const LOGIN_PER_IP: u32 = 20;
/// One more attempt per client IP every this long.
pub const LOGIN_IP_PERIOD: Duration = Duration::from_secs(6);
/// A session's `last_seen_at` is written at most this often.
const TOUCH_EVERY_SECS: i64 = 60;

type Limiter = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock>;

/// The sign-in attempt limits (token buckets keyed by e-mail and by IP).
pub struct LoginLimits {
    per_email: Limiter,
    per_ip: Limiter,
    /// Attempts seen; every [`FORGET_EVERY`] the full buckets are dropped, so
    /// memory follows the e-mails and IPs trying now, not every one ever seen.
    attempts: std::sync::atomic::AtomicU64,
}

/// See [`LoginLimits`]'s `attempts`.
const FORGET_EVERY: u64 = 1024;

impl std::fmt::Debug for LoginLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginLimits").finish_non_exhaustive()
    }
}

fn quota(burst: u32, period: Duration) -> Quota {
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    Quota::with_period(period)
        .unwrap_or_else(|| Quota::per_minute(burst))
        .allow_burst(burst)
}

impl LoginLimits {
    /// The limits of the module docs.
    pub fn new() -> Self {
        LoginLimits {
            per_email: RateLimiter::keyed(quota(LOGIN_PER_EMAIL, LOGIN_EMAIL_PERIOD)),
            per_ip: RateLimiter::keyed(quota(LOGIN_PER_IP, LOGIN_IP_PERIOD)),
            attempts: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Takes one attempt from `ip` alone (setting a password: no e-mail
    /// yet, but a hash to compute); `Err(seconds to wait)` when empty.
    pub fn check_ip(&self, ip: &str) -> Result<(), u64> {
        let now = DefaultClock::default().now();
        self.per_ip
            .check_key(&ip.to_string())
            .map_err(|n| (n.wait_time_from(now).as_secs_f64().ceil() as u64).max(1))
    }

    /// Takes one attempt for `email` from `ip`; `Err(seconds to wait)` when
    /// either bucket is empty.
    pub fn check(&self, email: &str, ip: &str) -> Result<(), u64> {
        let seen = self
            .attempts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if seen % FORGET_EVERY == FORGET_EVERY - 1 {
            for limiter in [&self.per_email, &self.per_ip] {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        }
        let now = DefaultClock::default().now();
        let wait =
            |n: governor::NotUntil<_>| (n.wait_time_from(now).as_secs_f64().ceil() as u64).max(1);
        self.per_ip.check_key(&ip.to_string()).map_err(wait)?;
        self.per_email.check_key(&email.to_string()).map_err(wait)?;
        Ok(())
    }
}

impl Default for LoginLimits {
    fn default() -> Self {
        Self::new()
    }
}

/// Equality that takes the same time wherever the first difference is (for
/// CSRF tokens). Hand-written: three lines do not justify a dependency.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The `Set-Cookie` value of a session cookie (`max_age` 0 deletes it).
fn session_cookie(id: &str, max_age: i64, secure: bool) -> String {
    format!(
        "{SESSION_COOKIE}={id}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{}",
        if secure { "; Secure" } else { "" }
    )
}

/// The session id sent in the `Cookie` header, if any. Hand-parsed: one
/// name=value pair is all we read.
fn cookie_session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The visitor's session, signed in or not (or none at all).
#[derive(Debug, Clone)]
pub struct Visitor {
    /// SHA-256 of the session id and the session, when the cookie names a live one.
    pub session: Option<(String, Session)>,
    /// The signed-in user.
    pub user: Option<User>,
    /// The user's account.
    pub account: Option<Account>,
}

impl FromRequestParts<DashState> for Visitor {
    type Rejection = PageError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &DashState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(v) = parts.extensions.get::<Visitor>() {
            return Ok(v.clone());
        }
        let store = &state.app.store;
        let now = Utc::now();
        let mut visitor = Visitor {
            session: None,
            user: None,
            account: None,
        };
        if let Some(id) = cookie_session_id(&parts.headers) {
            let hash = hash_secret(&id);
            if let Some(session) = store.session(&hash, now).await? {
                if (now - session.last_seen_at).num_seconds() >= TOUCH_EVERY_SECS {
                    store.touch_session(&hash, now).await?;
                }
                if let Some(user_id) = &session.user_id {
                    if let Some(user) = store.user(user_id).await? {
                        visitor.account = store.account(&user.account_id).await?;
                        if visitor.account.is_some() {
                            visitor.user = Some(user);
                        }
                    }
                }
                visitor.session = Some((hash, session));
            }
        }
        parts.extensions.insert(visitor.clone());
        Ok(visitor)
    }
}

/// A signed-in user: handlers that take it cannot run for anyone else. A
/// visitor without a signed-in session is sent to the sign-in page.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The user.
    pub user: User,
    /// The user's account (tenancy: everything shown belongs to it).
    pub account: Account,
    /// The session's CSRF token, for the page's forms.
    pub csrf: String,
    /// SHA-256 of the session id: where the session's one-time flashes are
    /// kept (a new key's secret between the POST and the page showing it).
    pub session_hash: String,
}

impl SignedIn {
    /// A site of the signed-in account (a 404 page otherwise).
    pub async fn own_site(&self, state: &DashState, id: &str) -> Result<Site, PageError> {
        state
            .app
            .store
            .site(&self.account.id, id)
            .await?
            .ok_or_else(|| PageError::not_found("site"))
    }
}

/// Sends a signed-out visitor to the sign-in page (303), remembering where
/// they were going.
#[derive(Debug)]
pub enum AuthRejection {
    /// Not signed in.
    SignIn(String),
    /// The store failed.
    Page(PageError),
}

impl IntoResponse for AuthRejection {
    fn into_response(self) -> Response {
        match self {
            AuthRejection::SignIn(next) => {
                let mut to = url::form_urlencoded::Serializer::new(String::new());
                to.append_pair("next", &next);
                Redirect::to(&format!("/login?{}", to.finish())).into_response()
            }
            AuthRejection::Page(e) => e.into_response(),
        }
    }
}

impl FromRequestParts<DashState> for SignedIn {
    type Rejection = AuthRejection;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &DashState,
    ) -> Result<Self, Self::Rejection> {
        let visitor = Visitor::from_request_parts(parts, state)
            .await
            .map_err(AuthRejection::Page)?;
        match visitor {
            Visitor {
                session: Some((session_hash, session)),
                user: Some(user),
                account: Some(account),
            } => Ok(SignedIn {
                user,
                account,
                csrf: session.csrf_token,
                session_hash,
            }),
            _ => {
                let next = parts
                    .uri
                    .path_and_query()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_else(|| "/".to_string());
                Err(AuthRejection::SignIn(next))
            }
        }
    }
}

impl SignedIn {
    /// The navigation of a page of `section`.
    pub fn nav(&self, section: layout::Section) -> layout::Nav<'_> {
        layout::Nav {
            email: &self.user.email,
            account: &self.account,
            csrf: &self.csrf,
            section,
        }
    }
}

/// A POSTed form whose CSRF token matched the session's. Fields keep their
/// order; a name may repeat (checkboxes).
#[derive(Debug, Clone)]
pub struct Form {
    fields: Vec<(String, String)>,
}

impl Form {
    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

impl FromRequest<DashState> for Form {
    type Rejection = PageError;

    async fn from_request(req: Request, state: &DashState) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = req.into_parts();
        let visitor = Visitor::from_request_parts(&mut parts, state).await?;
        let bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
            .await
            .map_err(|_| PageError {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                title: "Form too large",
                message: format!("A form may send at most {} KiB.", MAX_FORM_BYTES / 1024),
                internal: None,
            })?;
        let fields = parse_form(&bytes);
        let sent = fields
            .iter()
            .find(|(k, _)| k == "csrf")
            .map(|(_, v)| v.as_str())
            .unwrap_or("");
        let expected = visitor
            .session
            .as_ref()
            .map(|(_, s)| s.csrf_token.as_str())
            .unwrap_or("");
        if expected.is_empty() || !constant_time_eq(sent.as_bytes(), expected.as_bytes()) {
            return Err(PageError::csrf());
        }
        Ok(Form { fields })
    }
}

fn parse_form(bytes: &Bytes) -> Vec<(String, String)> {
    url::form_urlencoded::parse(bytes)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// A new session (signed in when `user_id` is set): saved, and its cookie.
async fn new_session(
    state: &DashState,
    user_id: Option<String>,
) -> Result<(Session, HeaderValue), PageError> {
    let now = Utc::now();
    let hours = if user_id.is_some() {
        SESSION_HOURS
    } else {
        VISITOR_SESSION_HOURS
    };
    let id = random_hex(32)?;
    let session = Session {
        user_id,
        csrf_token: random_hex(32)?,
        created_at: now,
        expires_at: now + chrono::Duration::hours(hours),
        last_seen_at: now,
    };
    state
        .app
        .store
        .create_session(&hash_secret(&id), session.clone())
        .await?;
    let cookie = session_cookie(&id, hours * 3600, state.settings.secure_cookies);
    let cookie = HeaderValue::from_str(&cookie).map_err(PageError::internal)?;
    Ok((session, cookie))
}

/// The CSRF token for a signed-out page's form, creating the visitor's
/// session (and its cookie) when there is none.
async fn visitor_csrf(
    state: &DashState,
    visitor: &Visitor,
) -> Result<(String, Option<HeaderValue>), PageError> {
    match &visitor.session {
        Some((_, s)) => Ok((s.csrf_token.clone(), None)),
        None => {
            let (s, cookie) = new_session(state, None).await?;
            Ok((s.csrf_token, Some(cookie)))
        }
    }
}

fn with_cookie(mut resp: Response, cookie: Option<HeaderValue>) -> Response {
    if let Some(c) = cookie {
        resp.headers_mut().append(header::SET_COOKIE, c);
    }
    resp
}

/// The client's IP (from the connection; `unknown` when served without
/// connection info, as in `oneshot` tests). Proxies' forwarding headers are
/// not trusted: they are the client's to forge.
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientIp(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| addr.ip().to_string())
                .unwrap_or_else(|| "unknown".to_string()),
        ))
    }
}

/// Where to go after signing in when `next` is missing or not a same-origin path.
const DEFAULT_NEXT: &str = "/sites";

/// Where to go after signing in: a path of this site only, never another origin.
///
/// `next` is resolved as a browser would resolve a `Location` header, against a
/// stand-in base URL, and kept only when the result has the base's origin.
/// Browsers drop tabs and newlines inside URLs and read `\` as `/`, so
/// `/\t/evil.example/` and `/\\evil.example` are `//evil.example/` to them:
/// resolution does the same here, and such values fall back to
/// [`DEFAULT_NEXT`]. What is returned is the resolved path, query and
/// fragment (never the raw text), so the checked value is the one sent. A path
/// that would still begin with `//` after dot-segment removal (`/.//evil`) or
/// whose percent-decoding begins with `//` or `/\` is refused too: a
/// `Location` of `//host` is protocol-relative.
fn safe_next(next: Option<&str>) -> String {
    next.and_then(same_origin_path)
        .unwrap_or_else(|| DEFAULT_NEXT.to_string())
}

fn same_origin_path(next: &str) -> Option<String> {
    // Only a path: not a scheme-relative or absolute URL, and nothing a browser
    // would silently rewrite.
    if !next.starts_with('/') || next.chars().any(|c| c.is_control() || c == '\\') {
        return None;
    }
    let base = url::Url::parse("http://sitescan.invalid/").ok()?;
    let resolved = base.join(next).ok()?;
    if resolved.origin() != base.origin() {
        return None;
    }
    let path = resolved.path();
    // `/%2F...` and `/%5C...` decode to `//` and `/\`: refused for whoever
    // decodes before redirecting (a proxy, a framework down the line).
    let lower = path.to_ascii_lowercase();
    if path.starts_with("//") || lower.starts_with("/%2f") || lower.starts_with("/%5c") {
        return None;
    }
    let mut out = path.to_string();
    if let Some(q) = resolved.query() {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = resolved.fragment() {
        out.push('#');
        out.push_str(f);
    }
    Some(out)
}

/// Query of the sign-in page.
#[derive(Debug, Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    signed_out: Option<String>,
}

/// `GET /login`: the sign-in form (signed-in visitors go on to their sites).
pub async fn login_page(
    State(state): State<DashState>,
    visitor: Visitor,
    Query(q): Query<LoginQuery>,
) -> PageResult {
    if visitor.user.is_some() {
        return Ok(Redirect::to(&safe_next(q.next.as_deref())).into_response());
    }
    let (csrf, cookie) = visitor_csrf(&state, &visitor).await?;
    let notice = if q.password.is_some() {
        Some("Your password is set. Sign in with it.")
    } else if q.signed_out.is_some() {
        Some("You are signed out.")
    } else {
        None
    };
    let body = login_form(
        &csrf,
        q.next.as_deref(),
        "",
        &FieldErrors::default(),
        notice,
    );
    Ok(with_cookie(body.into_response(), cookie))
}

fn login_form(
    csrf: &str,
    next: Option<&str>,
    email: &str,
    errors: &FieldErrors,
    notice: Option<&str>,
) -> Html<String> {
    let main = html! {
        @if let Some(n) = notice { p.notice role="status" { (n) } }
        (layout::error_summary(errors))
        form method="post" action="/login" novalidate {
            input type="hidden" name="csrf" value=(csrf);
            @if let Some(n) = next { input type="hidden" name="next" value=(n); }
            (layout::field(&layout::Field {
                id: "email", name: "email", label: "E-mail", kind: "email", value: email,
                autocomplete: Some("username"), required: true, hint: None,
            }, errors))
            (layout::field(&layout::Field {
                id: "password", name: "password", label: "Password", kind: "password", value: "",
                autocomplete: Some("current-password"), required: true, hint: None,
            }, errors))
            button type="submit" id="sign-in" { "Sign in" }
        }
        p.hint { "No account yet, or forgot the password? Ask your administrator for a password link (" code { "sitescan admin user create" } " or " code { "reset-password" } ")." }
    };
    layout::page("Sign in", None, main)
}

/// `POST /login`: checks the limits, then the password; on success replaces
/// the visitor's session with a new signed-in one and goes on.
pub async fn login(
    State(state): State<DashState>,
    visitor: Visitor,
    ClientIp(ip): ClientIp,
    form: Form,
) -> PageResult {
    let email = form.get("email").unwrap_or("").trim().to_lowercase();
    let password = form.get("password").unwrap_or("").to_string();
    let next = form.get("next").map(str::to_string);
    let csrf = visitor
        .session
        .as_ref()
        .map(|(_, s)| s.csrf_token.clone())
        .unwrap_or_default();
    let mut errors = FieldErrors::default();
    if email.is_empty() {
        errors.add("email", "Enter your e-mail address.");
    }
    if password.is_empty() {
        errors.add("password", "Enter your password.");
    }
    if !errors.is_empty() {
        let page = login_form(&csrf, next.as_deref(), &email, &errors, None);
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response());
    }
    if let Err(wait) = state.limits.check(&email, &ip) {
        let minutes = wait.div_ceil(60);
        errors.add(
            "email",
            format!(
                "Too many sign-in attempts. Wait {minutes} minute{} and try again.",
                if minutes == 1 { "" } else { "s" }
            ),
        );
        let page = login_form(&csrf, next.as_deref(), &email, &errors, None);
        let mut resp = (StatusCode::TOO_MANY_REQUESTS, page).into_response();
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return Ok(resp);
    }
    let user = match users::sign_in(state.app.store.as_ref(), &email, password).await? {
        Some(u) => u,
        None => {
            errors.add("password", "Wrong e-mail or password.");
            let page = login_form(&csrf, next.as_deref(), &email, &errors, None);
            return Ok((StatusCode::UNAUTHORIZED, page).into_response());
        }
    };
    if let Some((old, _)) = &visitor.session {
        state.app.store.delete_session(old).await?;
    }
    let (_, cookie) = new_session(&state, Some(user.id.clone())).await?;
    tracing::info!(user = %user.id, "signed in");
    let resp = Redirect::to(&safe_next(next.as_deref())).into_response();
    Ok(with_cookie(resp, Some(cookie)))
}

/// `POST /logout`: ends the session and clears the cookie.
pub async fn logout(State(state): State<DashState>, visitor: Visitor, _form: Form) -> PageResult {
    if let Some((hash, _)) = &visitor.session {
        state.app.store.delete_session(hash).await?;
    }
    let cookie = session_cookie("", 0, state.settings.secure_cookies);
    let cookie = HeaderValue::from_str(&cookie).map_err(PageError::internal)?;
    let resp = Redirect::to("/login?signed_out=1").into_response();
    Ok(with_cookie(resp, Some(cookie)))
}

/// Query of the set-password page.
#[derive(Debug, Deserialize)]
pub struct TokenQuery {
    #[serde(default)]
    token: Option<String>,
}

fn set_password_form(csrf: &str, token: &str, errors: &FieldErrors) -> Html<String> {
    let hint = format!("At least {MIN_PASSWORD} characters.");
    let main = html! {
        p { "Choose the password you will sign in to the sitescan dashboard with. This link works only once, and only within " (PASSWORD_LINK_HOURS) " hours of being made; after that, ask your administrator for a new one." }
        (layout::error_summary(errors))
        form method="post" action="/set-password" novalidate {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="token" value=(token);
            (layout::field(&layout::Field {
                id: "password", name: "password", label: "New password", kind: "password", value: "",
                autocomplete: Some("new-password"), required: true, hint: Some(&hint),
            }, errors))
            (layout::field(&layout::Field {
                id: "confirm", name: "confirm", label: "Repeat the new password", kind: "password", value: "",
                autocomplete: Some("new-password"), required: true, hint: None,
            }, errors))
            button type="submit" id="set-password" { "Set password" }
        }
    };
    layout::page("Set your password", None, main)
}

/// `GET /set-password?token=...`: the form of a password link.
pub async fn set_password_page(
    State(state): State<DashState>,
    visitor: Visitor,
    Query(q): Query<TokenQuery>,
) -> PageResult {
    let token = q.token.unwrap_or_default();
    if token.is_empty() {
        return Err(invalid_link());
    }
    let (csrf, cookie) = visitor_csrf(&state, &visitor).await?;
    let page = set_password_form(&csrf, &token, &FieldErrors::default());
    Ok(with_cookie(page.into_response(), cookie))
}

fn invalid_link() -> PageError {
    PageError {
        status: StatusCode::BAD_REQUEST,
        title: "This link does not work",
        message: format!(
            "The password link is unknown, already used or older than {PASSWORD_LINK_HOURS} hours. Ask your administrator for a new one (sitescan admin user reset-password)."
        ),
        internal: None,
    }
}

/// `POST /set-password`: checks the policy, then consumes the token and sets
/// the password; on success the visitor signs in with it.
pub async fn set_password(
    State(state): State<DashState>,
    visitor: Visitor,
    ClientIp(ip): ClientIp,
    form: Form,
) -> PageResult {
    let token = form.get("token").unwrap_or("").to_string();
    let password = form.get("password").unwrap_or("").to_string();
    let confirm = form.get("confirm").unwrap_or("");
    let csrf = visitor
        .session
        .as_ref()
        .map(|(_, s)| s.csrf_token.clone())
        .unwrap_or_default();
    let mut errors = FieldErrors::default();
    if let Err(problem) = users::check_password_policy(&password) {
        errors.add("password", problem);
    } else if password != confirm {
        errors.add("confirm", "The two passwords differ.");
    }
    if !errors.is_empty() {
        let page = set_password_form(&csrf, &token, &errors);
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response());
    }
    // Hashing is the expensive part: the per-IP sign-in limit covers it too.
    if let Err(wait) = state.limits.check_ip(&ip) {
        let minutes = wait.div_ceil(60);
        errors.add(
            "password",
            format!(
                "Too many attempts from your address. Wait {minutes} minute{} and try again.",
                if minutes == 1 { "" } else { "s" }
            ),
        );
        let page = set_password_form(&csrf, &token, &errors);
        let mut resp = (StatusCode::TOO_MANY_REQUESTS, page).into_response();
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return Ok(resp);
    }
    let user = users::set_password(state.app.store.as_ref(), &token, password)
        .await?
        .ok_or_else(invalid_link)?;
    tracing::info!(user = %user.id, "password set");
    Ok(Redirect::to("/login?password=set").into_response())
}

impl From<crate::Error> for AuthRejection {
    fn from(e: crate::Error) -> Self {
        AuthRejection::Page(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_local_only() {
        assert_eq!(safe_next(Some("/sites/site_1")), "/sites/site_1");
        assert_eq!(safe_next(Some("//evil.example/")), "/sites");
        assert_eq!(safe_next(Some("https://evil.example/")), "/sites");
        assert_eq!(safe_next(None), "/sites");
        assert_eq!(
            safe_next(Some("/scans/scan_1?tab=findings#top")),
            "/scans/scan_1?tab=findings#top"
        );
        for hostile in [
            "/\t/evil.example/",
            "/\n/evil.example/",
            "/\r\n/evil.example/",
            "\t//evil.example/",
            "/\\evil.example/",
            "\\\\evil.example/",
            "/\\/evil.example/",
            "//evil.example",
            "///evil.example/",
            "/.//evil.example/",
            "/%2F/evil.example/",
            "/%2f%2fevil.example/",
            "/%5Cevil.example/",
            "https://evil.example/",
            "http:evil.example",
            "javascript:alert(1)",
            "evil.example",
            "",
        ] {
            assert_eq!(safe_next(Some(hostile)), "/sites", "{hostile:?}");
        }
    }

    #[test]
    fn cookies_are_read_and_written() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; sitescan_session=abc123; b=2"),
        );
        assert_eq!(cookie_session_id(&h).as_deref(), Some("abc123"));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("sitescan_session=<script>"),
        );
        assert_eq!(cookie_session_id(&h), None);
        assert_eq!(
            session_cookie("ab", 60, true),
            "sitescan_session=ab; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure"
        );
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }

    #[test]
    fn login_limits_kick_in_per_email() {
        let limits = LoginLimits::new();
        for _ in 0..LOGIN_PER_EMAIL {
            assert!(limits.check("a@example.com", "1.2.3.4").is_ok());
        }
        assert!(limits.check("a@example.com", "1.2.3.4").is_err());
        assert!(limits.check("b@example.com", "1.2.3.4").is_ok());
    }
}
