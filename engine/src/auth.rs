//! Credentials for scanning pages behind a login.
//!
//! A [`SiteAuth`] is handed to the scanner beside the [`crate::ScanConfig`], never
//! inside it: the config is stored with every scan and shown in its report, the
//! credentials are not. They are sent only to the origin (scheme, host and port)
//! of the scan's start URL; links to other origins are fetched without them.
//!
//! `Debug` prints names, never values, so a credential logged by mistake still
//! shows no secret. [`SiteAuth::secrets`] lists every secret value, for callers
//! that scrub text they are about to store.

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

    /// Every secret value, for scrubbing text before it is stored or shown.
    /// Empty values are left out (they would match everywhere).
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
    let url = start
        .join(raw.trim())
        .map_err(|e| format!("{field}: `{raw}` is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("{field}: `{raw}` is not an http(s) URL"));
    }
    if url.origin() != start.origin() {
        return Err(format!(
            "{field}: `{url}` is not on the scan's origin {}; credentials and sign-in go only to the start URL's scheme, host and port",
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

fn check_len(field: &str, value: &str) -> Result<(), String> {
    if value.len() > MAX_AUTH_VALUE_BYTES {
        return Err(format!("{field}: longer than {MAX_AUTH_VALUE_BYTES} bytes"));
    }
    Ok(())
}

fn check_selector(field: &str, selector: &str) -> Result<(), String> {
    check_len(field, selector)?;
    if selector.trim().is_empty() {
        return Err(format!("{field}: the CSS selector is empty"));
    }
    scraper::Selector::parse(selector)
        .map_err(|e| format!("{field}: `{selector}` is not a CSS selector: {e}"))?;
    Ok(())
}

impl SiteAuth {
    /// Checks everything a scan starting at `start` would use, before any
    /// request: header names and values, cookie names and values, the basic
    /// user name, that every sign-in URL is on `start`'s origin, the CSS
    /// selectors, the sign-out patterns, and the sizes. `Err` is one sentence
    /// naming the bad field (`headers[0].name`, `login_form.action`, ...); it
    /// never contains a secret value.
    pub fn validate(&self, start: &Url) -> Result<(), String> {
        if !matches!(start.scheme(), "http" | "https") {
            return Err(format!("the start URL `{start}` is not an http(s) URL"));
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
            if n > MAX_AUTH_ENTRIES {
                return Err(format!("{what}: more than {MAX_AUTH_ENTRIES} entries"));
            }
        }
        for (i, h) in self.headers.iter().enumerate() {
            let field = format!("headers[{i}]");
            check_len(&field, &h.name)?;
            check_len(&field, &h.value)?;
            let name = reqwest::header::HeaderName::from_bytes(h.name.trim().as_bytes())
                .map_err(|_| format!("{field}.name: `{}` is not a header name", h.name))?;
            if RESERVED_HEADERS.contains(&name.as_str()) {
                return Err(format!(
                    "{field}.name: `{}` cannot be set here{}",
                    h.name,
                    if name.as_str() == "cookie" {
                        " (use `cookies`)"
                    } else {
                        ""
                    }
                ));
            }
            if reqwest::header::HeaderValue::from_str(&h.value).is_err() {
                return Err(format!(
                    "{field}.value: the value of `{}` is not a valid header value (printable text, no line breaks)",
                    h.name
                ));
            }
        }
        for (i, c) in self.cookies.iter().enumerate() {
            let field = format!("cookies[{i}]");
            check_len(&field, &c.name)?;
            check_len(&field, &c.value)?;
            if !cookie_name_ok(&c.name) {
                return Err(format!("{field}.name: `{}` is not a cookie name", c.name));
            }
            if !cookie_value_ok(&c.value) {
                return Err(format!(
                    "{field}.value: the value of cookie `{}` has characters a cookie cannot carry (spaces, `;`, `,`, quotes, control characters)",
                    c.name
                ));
            }
        }
        if let Some(b) = &self.basic {
            check_len("basic.username", &b.username)?;
            check_len("basic.password", &b.password)?;
            if b.username.contains(':') || b.username.chars().any(char::is_control) {
                return Err("basic.username: must not contain `:` or control characters".into());
            }
            if b.password.chars().any(char::is_control) {
                return Err("basic.password: must not contain control characters".into());
            }
        }
        if let Some(form) = &self.login_form {
            if let Some(page) = &form.page {
                resolve_on_origin(start, "login_form.page", page)?;
            }
            resolve_on_origin(start, "login_form.action", &form.action)?;
            if form.fields.is_empty() {
                return Err("login_form.fields: name at least one field to post".into());
            }
            for (name, value) in &form.fields {
                check_len("login_form.fields", name)?;
                check_len(&format!("login_form.fields.{name}"), value)?;
                if name.is_empty() {
                    return Err("login_form.fields: a field name is empty".into());
                }
            }
            let check = &form.success;
            if let Some(cookie) = &check.cookie {
                if !cookie_name_ok(cookie) {
                    return Err(format!(
                        "login_form.success.cookie: `{cookie}` is not a cookie name"
                    ));
                }
            }
            if let Some(url) = &check.url {
                resolve_on_origin(start, "login_form.success.url", url)?;
            }
            if let Some(text) = &check.contains {
                check_len("login_form.success.contains", text)?;
                if text.is_empty() {
                    return Err("login_form.success.contains: the text is empty".into());
                }
            }
        }
        if self.login_steps.len() > MAX_LOGIN_STEPS {
            return Err(format!("login_steps: more than {MAX_LOGIN_STEPS} steps"));
        }
        for (i, step) in self.login_steps.iter().enumerate() {
            let field = format!("login_steps[{i}]");
            match step {
                LoginStep::Goto { url } => {
                    resolve_on_origin(start, &format!("{field}.url"), url)?;
                }
                LoginStep::Fill { selector, value } => {
                    check_selector(&format!("{field}.selector"), selector)?;
                    check_len(&format!("{field}.value"), value)?;
                }
                LoginStep::Click { selector } | LoginStep::WaitFor { selector } => {
                    check_selector(&format!("{field}.selector"), selector)?;
                }
            }
            if i == 0 && !matches!(step, LoginStep::Goto { .. }) {
                return Err(format!(
                    "{field}: the first login step must be a `goto` (the page to sign in on)"
                ));
            }
        }
        if let Some(patterns) = &self.sign_out_exclude {
            for (i, p) in patterns.iter().enumerate() {
                check_len(&format!("sign_out_exclude[{i}]"), p)?;
                compile_pattern(p).map_err(|e| {
                    format!("sign_out_exclude[{i}]: `{p}` is not a valid regular expression: {e}")
                })?;
            }
        }
        Ok(())
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
