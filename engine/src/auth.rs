//! Credentials for scanning pages behind a login.
//!
//! A [`SiteAuth`] is handed to the scanner beside the [`crate::ScanConfig`], never
//! inside it: the config is stored with every scan and shown in its report, the
//! credentials are not. They are sent only to the origin (scheme, host and port)
//! of the scan's start URL; links to other origins are fetched without them.
//!
//! `Debug` prints names, never values, so a credential logged by mistake still
//! shows no secret. [`SiteAuth::secret_forms`] lists every secret value in the
//! forms it may take in text, for callers that scrub text they are about to store.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use url::Url;

/// URL patterns a scan with credentials never requests unless
/// [`SiteAuth::sign_out_exclude`] replaces them: links that would end the
/// session (sign out, log off, destroy the session). Case-insensitive regular
/// expressions matched against the whole URL, like `exclude`.
pub const DEFAULT_SIGN_OUT_EXCLUDE: &[&str] = &[
    r"(?i)(log|sign)[-_ ]?(out|off)",
    r"(?i)[?&](action|do|cmd)=(logout|logoff|signout|signoff)\b",
    r"(?i)/session/(destroy|delete|end)",
    r"(?i)/sessions?/(sign|log)_?out",
    r"(?i)/(deauth|unauthenticate|revoke)\b",
    r"(?i)/wp-login\.php\?.*action=logout",
];

/// Login steps a [`SiteAuth`] may have at most.
pub const MAX_LOGIN_STEPS: usize = 50;
/// Headers, cookies or form fields a [`SiteAuth`] may have at most, each.
pub const MAX_AUTH_ENTRIES: usize = 100;
/// Longest value (header, cookie, field, selector, pattern) a [`SiteAuth`]
/// may hold, in bytes.
pub const MAX_AUTH_VALUE_BYTES: usize = 8 * 1024;
/// Secrets shorter than this are not scrubbed from text: they would match
/// inside ordinary words ([`SiteAuth::secret_forms`]).
pub const MIN_SCRUBBED_LEN: usize = 4;
/// What a scrubbed secret is replaced with.
pub const REDACTED: &str = "[redacted]";
/// Compiled size a sign-out pattern may take (as the regex crate counts it).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// Request headers a [`SiteAuth`] may not set: the client sets them itself,
/// or they have fields of their own (`cookies`, `basic`).
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "cookie",
    "upgrade",
    "te",
    "trailer",
    "keep-alive",
    "proxy-connection",
];

/// Everything a scan may present to the site to be let in.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteAuth {
    /// Extra request headers (an `Authorization: Bearer …`, an API gateway key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<NameValue>,
    /// Cookies sent with every request to the site's origin (a session cookie
    /// copied from a browser).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cookies: Vec<NameValue>,
    /// HTTP basic authentication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicAuth>,
    /// A sign-in form posted once before the crawl starts (static and render
    /// scans); the cookies it sets are kept for the scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login_form: Option<LoginForm>,
    /// Sign-in steps run in the browser before a render scan's crawl starts
    /// (when set, render scans use these instead of `login_form`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub login_steps: Vec<LoginStep>,
    /// URL patterns (regular expressions) the crawler never requests because
    /// they would end the session. `None` means the documented default list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sign_out_exclude: Option<Vec<String>>,
}

/// A header or cookie: its name is shown, its value is a secret.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NameValue {
    /// Header or cookie name.
    pub name: String,
    /// Its value (secret).
    pub value: String,
}

/// HTTP basic authentication credentials.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasicAuth {
    /// User name.
    pub username: String,
    /// Password (secret).
    pub password: String,
}

/// A sign-in form for static scans: fetch `page` (optional, to pick up the
/// form's hidden fields such as a CSRF token and any cookies it sets), POST
/// `fields` to `action`, then check that the sign-in worked.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginForm {
    /// The page that shows the form; its hidden inputs are posted too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
    /// Where the form posts (same origin as the scan).
    pub action: String,
    /// Field names and values posted (values are secrets).
    pub fields: BTreeMap<String, String>,
    /// How to tell the sign-in worked.
    #[serde(default)]
    pub success: LoginCheck,
}

/// A sign-in worked when every check that is set holds. With none set, a
/// final status in 200..=399 after the POST counts as success.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LoginCheck {
    /// A cookie the site must have set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookie: Option<String>,
    /// A page to fetch after signing in (default: where the POST landed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Text that page must contain ("Sign out", the user's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
}

/// One step of a browser sign-in.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum LoginStep {
    /// Load a page of the site.
    Goto {
        /// Its URL (same origin as the scan).
        url: String,
    },
    /// Type a value into the element a CSS selector finds.
    Fill {
        /// CSS selector.
        selector: String,
        /// The value typed (secret).
        value: String,
    },
    /// Click the element a CSS selector finds.
    Click {
        /// CSS selector.
        selector: String,
    },
    /// Wait until a CSS selector finds an element.
    WaitFor {
        /// CSS selector.
        selector: String,
    },
}

impl SiteAuth {
    /// True when nothing is set.
    pub fn is_empty(&self) -> bool {
        self == &SiteAuth::default()
    }

    /// Every secret value in each form it may take in text a scan produces,
    /// for scrubbing that text before it is stored or shown: as given,
    /// percent-encoded (as in a URL or a form body), escaped as inside a JSON
    /// string, and the basic authentication token. Values shorter than
    /// [`MIN_SCRUBBED_LEN`] are left out (they would match inside ordinary
    /// words); longest first, so a secret containing another is replaced
    /// whole; no duplicates.
    pub fn secret_forms(&self) -> Vec<String> {
        use base64::Engine as _;
        let mut out: Vec<String> = Vec::new();
        for secret in self.secrets() {
            out.push(secret.to_string());
            out.push(url::form_urlencoded::byte_serialize(secret.as_bytes()).collect());
            let json = serde_json::to_string(secret).unwrap_or_default();
            if let Some(inner) = json.strip_prefix('"').and_then(|j| j.strip_suffix('"')) {
                out.push(inner.to_string());
            }
        }
        if let Some(b) = &self.basic {
            out.push(
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{}:{}", b.username, b.password)),
            );
        }
        out.retain(|s| s.chars().count() >= MIN_SCRUBBED_LEN);
        out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        out.dedup();
        out
    }

    /// Every secret value, as given. Empty values are left out (they would
    /// match everywhere); [`SiteAuth::secret_forms`] is what scrubbers use.
    pub fn secrets(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        out.extend(self.headers.iter().map(|h| h.value.as_str()));
        out.extend(self.cookies.iter().map(|c| c.value.as_str()));
        if let Some(basic) = &self.basic {
            out.push(&basic.password);
        }
        if let Some(form) = &self.login_form {
            out.extend(form.fields.values().map(String::as_str));
        }
        for step in &self.login_steps {
            if let LoginStep::Fill { value, .. } = step {
                out.push(value);
            }
        }
        out.retain(|s| !s.is_empty());
        out
    }
}

/// A URL of a [`SiteAuth`] (absolute, or relative to the start URL) on the
/// start URL's origin; `Err` names the field.
pub fn resolve_on_origin(start: &Url, field: &str, raw: &str) -> Result<Url, String> {
    on_origin(start, raw).map_err(|problem| format!("{field}: {problem}"))
}

/// [`resolve_on_origin`] without the field's name in the error.
fn on_origin(start: &Url, raw: &str) -> Result<Url, String> {
    let url = start
        .join(raw.trim())
        .map_err(|e| format!("`{raw}` is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`{raw}` is not an http(s) URL"));
    }
    if url.origin() != start.origin() {
        return Err(format!(
            "`{url}` is not on the scan's origin {}; credentials and sign-in go only to the start URL's scheme, host and port",
            start.origin().ascii_serialization()
        ));
    }
    Ok(url)
}

/// Whether `name` is a cookie name browsers accept (an RFC 6265 token).
fn cookie_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
}

/// Whether `value` can go into a `Cookie` header as one cookie's value.
fn cookie_value_ok(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_graphic() && !matches!(b, b';' | b',' | b'\\' | b'"'))
}

/// One thing wrong with a [`SiteAuth`]: the field (`headers[0].name`,
/// `login_form.action`, ...) and what is wrong with it, in one sentence that
/// never contains a secret value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthProblem {
    /// The field, as a path into the JSON form of [`SiteAuth`].
    pub field: String,
    /// What is wrong, without the field's name.
    pub problem: String,
}

impl fmt::Display for AuthProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

/// How much a [`SiteAuth`] may hold. The default is the library's own
/// bound ([`MAX_AUTH_ENTRIES`], [`MAX_LOGIN_STEPS`], [`MAX_AUTH_VALUE_BYTES`]);
/// a service storing credentials for its users may set tighter ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthLimits {
    /// Headers, cookies, form fields or sign-out patterns, each.
    pub max_entries: usize,
    /// Steps of a browser sign-in.
    pub max_steps: usize,
    /// Longest name or value, in bytes.
    pub max_value_bytes: usize,
}

impl Default for AuthLimits {
    fn default() -> Self {
        AuthLimits {
            max_entries: MAX_AUTH_ENTRIES,
            max_steps: MAX_LOGIN_STEPS,
            max_value_bytes: MAX_AUTH_VALUE_BYTES,
        }
    }
}

/// The problems found so far by [`SiteAuth::problems_within`].
struct Found {
    limits: AuthLimits,
    list: Vec<AuthProblem>,
}

impl Found {
    fn add(&mut self, field: impl Into<String>, problem: impl Into<String>) {
        self.list.push(AuthProblem {
            field: field.into(),
            problem: problem.into(),
        });
    }

    /// Records a value longer than the limit; true when it is.
    fn too_long(&mut self, field: &str, value: &str) -> bool {
        let max = self.limits.max_value_bytes;
        let long = value.len() > max;
        if long {
            self.add(field, format!("longer than {max} bytes"));
        }
        long
    }

    fn selector(&mut self, field: &str, selector: &str) {
        if self.too_long(field, selector) {
            return;
        }
        if selector.trim().is_empty() {
            self.add(field, "the CSS selector is empty");
        } else if let Err(e) = scraper::Selector::parse(selector) {
            self.add(field, format!("`{selector}` is not a CSS selector: {e}"));
        }
    }

    fn url(&mut self, start: &Url, field: &str, raw: &str) {
        if self.too_long(field, raw) {
            return;
        }
        if let Err(problem) = on_origin(start, raw) {
            self.add(field, problem);
        }
    }
}

impl SiteAuth {
    /// Checks everything a scan starting at `start` would use, before any
    /// request: header names and values, cookie names and values, the basic
    /// user name, that every sign-in URL is on `start`'s origin, the CSS
    /// selectors, the sign-out patterns, and the sizes (the library's
    /// [`AuthLimits::default`]). Every problem is listed, in the order of the
    /// fields; none contains a secret value.
    pub fn problems(&self, start: &Url) -> Vec<AuthProblem> {
        self.problems_within(start, AuthLimits::default())
    }

    /// [`SiteAuth::problems`] with other size limits.
    pub fn problems_within(&self, start: &Url, limits: AuthLimits) -> Vec<AuthProblem> {
        let mut found = Found {
            limits,
            list: Vec::new(),
        };
        if !matches!(start.scheme(), "http" | "https") {
            found.add(
                "url",
                format!("the start URL `{start}` is not an http(s) URL"),
            );
            return found.list;
        }
        for (what, n) in [
            ("headers", self.headers.len()),
            ("cookies", self.cookies.len()),
            (
                "login_form.fields",
                self.login_form.as_ref().map_or(0, |f| f.fields.len()),
            ),
            (
                "sign_out_exclude",
                self.sign_out_exclude.as_ref().map_or(0, Vec::len),
            ),
        ] {
            if n > limits.max_entries {
                found.add(what, format!("more than {} entries", limits.max_entries));
            }
        }
        for (i, h) in self.headers.iter().enumerate() {
            let field = format!("headers[{i}].name");
            if !found.too_long(&field, &h.name) {
                match reqwest::header::HeaderName::from_bytes(h.name.trim().as_bytes()) {
                    Err(_) => found.add(&field, format!("`{}` is not a header name", h.name)),
                    Ok(name) if RESERVED_HEADERS.contains(&name.as_str()) => found.add(
                        &field,
                        format!(
                            "`{}` cannot be set here{}",
                            h.name,
                            if name.as_str() == "cookie" {
                                " (use `cookies`)"
                            } else {
                                ""
                            }
                        ),
                    ),
                    Ok(_) => {}
                }
            }
            let field = format!("headers[{i}].value");
            if !found.too_long(&field, &h.value)
                && reqwest::header::HeaderValue::from_str(&h.value).is_err()
            {
                found.add(
                    field,
                    "not a valid header value (printable text, no line breaks)",
                );
            }
        }
        for (i, c) in self.cookies.iter().enumerate() {
            let field = format!("cookies[{i}].name");
            if !found.too_long(&field, &c.name) && !cookie_name_ok(&c.name) {
                found.add(field, format!("`{}` is not a cookie name", c.name));
            }
            let field = format!("cookies[{i}].value");
            if !found.too_long(&field, &c.value) && !cookie_value_ok(&c.value) {
                found.add(
                    field,
                    "has characters a cookie cannot carry (spaces, `;`, `,`, quotes, control characters)",
                );
            }
        }
        if let Some(b) = &self.basic {
            if !found.too_long("basic.username", &b.username)
                && (b.username.is_empty()
                    || b.username.contains(':')
                    || b.username.chars().any(char::is_control))
            {
                found.add(
                    "basic.username",
                    "give a user name without `:` or control characters",
                );
            }
            if !found.too_long("basic.password", &b.password)
                && b.password.chars().any(char::is_control)
            {
                found.add("basic.password", "must not contain control characters");
            }
        }
        if let Some(form) = &self.login_form {
            if let Some(page) = &form.page {
                found.url(start, "login_form.page", page);
            }
            found.url(start, "login_form.action", &form.action);
            if form.fields.is_empty() {
                found.add("login_form.fields", "name at least one field to post");
            }
            for (name, value) in &form.fields {
                if name.is_empty() {
                    found.add("login_form.fields", "a field name is empty");
                } else if !found.too_long("login_form.fields", name) {
                    let field = format!("login_form.fields.{name}");
                    if !found.too_long(&field, value) && value.chars().any(char::is_control) {
                        found.add(field, "must not contain control characters");
                    }
                }
            }
            let check = &form.success;
            if let Some(cookie) = &check.cookie {
                if !cookie_name_ok(cookie) {
                    found.add(
                        "login_form.success.cookie",
                        format!("`{cookie}` is not a cookie name"),
                    );
                }
            }
            if let Some(url) = &check.url {
                found.url(start, "login_form.success.url", url);
            }
            if let Some(text) = &check.contains {
                if !found.too_long("login_form.success.contains", text) && text.is_empty() {
                    found.add("login_form.success.contains", "the text is empty");
                }
            }
        }
        if self.login_steps.len() > limits.max_steps {
            found.add(
                "login_steps",
                format!("more than {} steps", limits.max_steps),
            );
        }
        for (i, step) in self.login_steps.iter().enumerate() {
            match step {
                LoginStep::Goto { url } => found.url(start, &format!("login_steps[{i}].url"), url),
                LoginStep::Fill { selector, value } => {
                    found.selector(&format!("login_steps[{i}].selector"), selector);
                    found.too_long(&format!("login_steps[{i}].value"), value);
                }
                LoginStep::Click { selector } | LoginStep::WaitFor { selector } => {
                    found.selector(&format!("login_steps[{i}].selector"), selector)
                }
            }
            if i == 0 && !matches!(step, LoginStep::Goto { .. }) {
                found.add(
                    format!("login_steps[{i}]"),
                    "the first login step must be a `goto` (the page to sign in on)",
                );
            }
        }
        if let Some(patterns) = &self.sign_out_exclude {
            for (i, p) in patterns.iter().enumerate() {
                let field = format!("sign_out_exclude[{i}]");
                if !found.too_long(&field, p) {
                    if let Err(e) = compile_pattern(p) {
                        found.add(
                            field,
                            format!("`{p}` is not a valid regular expression: {e}"),
                        );
                    }
                }
            }
        }
        found.list
    }

    /// [`SiteAuth::problems`]' first problem, as one sentence naming the
    /// field (`headers[0].name: ...`); `Ok` when there is none.
    pub fn validate(&self, start: &Url) -> Result<(), String> {
        match self.problems(start).into_iter().next() {
            Some(p) => Err(p.to_string()),
            None => Ok(()),
        }
    }

    /// The sign-out patterns in force: [`SiteAuth::sign_out_exclude`] when
    /// set (an empty list turns the exclusion off), else
    /// [`DEFAULT_SIGN_OUT_EXCLUDE`]; compiled. `Err` as in
    /// [`SiteAuth::validate`].
    pub fn sign_out_patterns(&self) -> Result<Vec<regex::Regex>, String> {
        match &self.sign_out_exclude {
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    compile_pattern(p).map_err(|e| {
                        format!(
                            "sign_out_exclude[{i}]: `{p}` is not a valid regular expression: {e}"
                        )
                    })
                })
                .collect(),
            None => DEFAULT_SIGN_OUT_EXCLUDE
                .iter()
                .map(|p| compile_pattern(p).map_err(|e| e.to_string()))
                .collect(),
        }
    }
}

fn compile_pattern(p: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(p)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}

impl fmt::Debug for SiteAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SiteAuth")
            .field("headers", &self.headers)
            .field("cookies", &self.cookies)
            .field("basic", &self.basic)
            .field("login_form", &self.login_form)
            .field("login_steps", &self.login_steps)
            .field("sign_out_exclude", &self.sign_out_exclude)
            .finish()
    }
}

impl fmt::Debug for NameValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=[redacted]", self.name)
    }
}

impl fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:[redacted]", self.username)
    }
}

impl fmt::Debug for LoginForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoginForm")
            .field("page", &self.page)
            .field("action", &self.action)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .field("success", &self.success)
            .finish()
    }
}

impl fmt::Debug for LoginStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoginStep::Goto { url } => write!(f, "goto {url}"),
            LoginStep::Fill { selector, .. } => write!(f, "fill {selector} [redacted]"),
            LoginStep::Click { selector } => write!(f, "click {selector}"),
            LoginStep::WaitFor { selector } => write!(f, "wait_for {selector}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_names_and_never_values() {
        let auth: SiteAuth = serde_json::from_value(serde_json::json!({
            "headers": [{"name": "Authorization", "value": "Bearer s3cret-h"}],
            "cookies": [{"name": "sid", "value": "s3cret-c"}],
            "basic": {"username": "ann", "password": "s3cret-b"},
            "login_form": {"action": "/login", "fields": {"user": "ann", "pass": "s3cret-f"}},
            "login_steps": [{"step": "fill", "selector": "#pw", "value": "s3cret-s"}]
        }))
        .unwrap();
        let shown = format!("{auth:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("Authorization") && shown.contains("sid") && shown.contains("ann"));
        // Login fields in name order: `pass` before `user`.
        assert_eq!(
            auth.secrets(),
            [
                "Bearer s3cret-h",
                "s3cret-c",
                "s3cret-b",
                "s3cret-f",
                "ann",
                "s3cret-s"
            ]
        );
        assert!(SiteAuth::default().is_empty() && !auth.is_empty());
    }

    fn check(v: serde_json::Value) -> Result<(), String> {
        let auth: SiteAuth = serde_json::from_value(v).unwrap();
        auth.validate(&Url::parse("http://site.test:8080/app/").unwrap())
    }

    #[test]
    fn validate_names_the_bad_field() {
        use serde_json::json;
        assert_eq!(check(json!({})), Ok(()));
        assert_eq!(
            check(json!({
                "headers": [{"name": "X-Key", "value": "k"}],
                "cookies": [{"name": "sid", "value": "abc"}],
                "basic": {"username": "ann", "password": "p w"},
                "login_form": {"page": "/login", "action": "http://site.test:8080/login",
                               "fields": {"u": "ann"}, "success": {"url": "/me", "contains": "Hi"}},
                "login_steps": [{"step": "goto", "url": "/login"}, {"step": "fill", "selector": "#u", "value": "x"},
                                {"step": "click", "selector": "button[type=submit]"}, {"step": "wait_for", "selector": ".me"}],
                "sign_out_exclude": ["/bye"]
            })),
            Ok(())
        );
        let err = |v| check(v).unwrap_err();
        let e = err(
            json!({"login_form": {"action": "http://other.test:8080/login", "fields": {"u": "s3cret"}}}),
        );
        assert!(e.starts_with("login_form.action: `http://other.test:8080/login` is not on the scan's origin http://site.test:8080"), "{e}");
        let e = err(
            json!({"login_form": {"action": "https://site.test:8080/login", "fields": {"u": "x"}}}),
        );
        assert!(e.starts_with("login_form.action:"), "{e}");
        let e = err(
            json!({"login_steps": [{"step": "goto", "url": "/"}, {"step": "click", "selector": " "}]}),
        );
        assert_eq!(e, "login_steps[1].selector: the CSS selector is empty");
        let e = err(json!({"login_steps": [{"step": "click", "selector": "#go"}]}));
        assert!(
            e.starts_with("login_steps[0]: the first login step must be a `goto`"),
            "{e}"
        );
        let e = err(
            json!({"login_steps": [{"step": "goto", "url": "/"}, {"step": "wait_for", "selector": "a[["}]}),
        );
        assert!(
            e.starts_with("login_steps[1].selector: `a[[` is not a CSS selector"),
            "{e}"
        );
        let e = err(json!({"sign_out_exclude": ["ok", "(unclosed"]}));
        assert!(
            e.starts_with("sign_out_exclude[1]: `(unclosed` is not a valid regular expression"),
            "{e}"
        );
        let e = err(json!({"headers": [{"name": "Bad Name", "value": "s3cret"}]}));
        assert_eq!(e, "headers[0].name: `Bad Name` is not a header name");
        let e = err(json!({"headers": [{"name": "X-A", "value": "s3cret\nX: y"}]}));
        assert!(
            e.starts_with("headers[0].value:") && !e.contains("s3cret"),
            "{e}"
        );
        let e = err(json!({"headers": [{"name": "Cookie", "value": "a=b"}]}));
        assert_eq!(
            e,
            "headers[0].name: `Cookie` cannot be set here (use `cookies`)"
        );
        let e = err(json!({"cookies": [{"name": "sid", "value": "s3cret; x=y"}]}));
        assert!(
            e.starts_with("cookies[0].value:") && !e.contains("s3cret"),
            "{e}"
        );
        let e = err(json!({"basic": {"username": "a:b", "password": "s3cret"}}));
        assert!(
            e.starts_with("basic.username:") && !e.contains("s3cret"),
            "{e}"
        );
        let e = err(json!({"login_form": {"action": "/login", "fields": {}}}));
        assert!(e.starts_with("login_form.fields:"), "{e}");
    }

    #[test]
    fn problems_lists_every_bad_field_in_order_without_values() {
        let auth: SiteAuth = serde_json::from_value(serde_json::json!({
            "headers": [{"name": "Bad Name", "value": "v-s3cret\r\nX: 1"}],
            "basic": {"username": "a:b", "password": "pw-s3cret"},
            "login_form": {"action": "http://elsewhere.test/login", "fields": {"u": "x"}},
            "login_steps": [{"step": "click", "selector": "#go"}],
        }))
        .unwrap();
        let start = Url::parse("http://site.test:8080/").unwrap();
        let problems = auth.problems(&start);
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "headers[0].name",
                "headers[0].value",
                "basic.username",
                "login_form.action",
                "login_steps[0]"
            ]
        );
        for p in &problems {
            assert!(!p.problem.contains("s3cret"), "{p}");
        }
        assert_eq!(
            auth.validate(&start).unwrap_err(),
            problems[0].to_string(),
            "validate gives the first problem"
        );
        let long = "x".repeat(MAX_AUTH_VALUE_BYTES + 1);
        let auth = SiteAuth {
            basic: Some(BasicAuth {
                username: "ann".into(),
                password: long,
            }),
            ..SiteAuth::default()
        };
        assert_eq!(
            auth.problems(&start),
            [AuthProblem {
                field: "basic.password".into(),
                problem: format!("longer than {MAX_AUTH_VALUE_BYTES} bytes"),
            }]
        );
    }

    #[test]
    fn default_sign_out_patterns_match_sign_out_links_only() {
        let pats = SiteAuth::default().sign_out_patterns().unwrap();
        let hit = |u: &str| pats.iter().any(|p| p.is_match(u));
        for u in [
            "http://s/logout",
            "http://s/account/sign-out",
            "http://s/Log_Off",
            "http://s/index.php?action=logout",
            "http://s/session/destroy",
            "http://s/users/signout",
            "http://s/wp-login.php?action=logout&_wpnonce=1",
        ] {
            assert!(hit(u), "{u}");
        }
        for u in [
            "http://s/",
            "http://s/blog/login-tips",
            "http://s/catalog/out-of-stock",
            "http://s/logo.png",
        ] {
            assert!(!hit(u), "{u}");
        }
        let none = SiteAuth {
            sign_out_exclude: Some(Vec::new()),
            ..SiteAuth::default()
        };
        assert!(none.sign_out_patterns().unwrap().is_empty());
    }
}
