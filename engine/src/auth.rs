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
}
