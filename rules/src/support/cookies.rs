//! `Set-Cookie` parsing for the cookie rule and the security grade.
//!
//! Hand-written rather than the `cookie` crate: that crate normalises what it
//! reads (an invalid `SameSite` value silently becomes "unset"), and the checks
//! need exactly what the server sent.

/// One cookie as set by a response header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCookie {
    /// Cookie name (case kept).
    pub name: String,
    /// The raw header value, for snippets.
    pub raw: String,
    /// `Secure` attribute present.
    pub secure: bool,
    /// `HttpOnly` attribute present.
    pub http_only: bool,
    /// `SameSite` value as sent (`None` when the attribute is absent).
    pub same_site: Option<String>,
    /// `Path` value.
    pub path: Option<String>,
    /// `Domain` attribute present.
    pub domain: Option<String>,
    /// `Expires` or `Max-Age` present (a persistent cookie).
    pub persistent: bool,
}

impl SetCookie {
    /// Parses one `Set-Cookie` value; `None` when it has no `name=` pair.
    pub fn parse(raw: &str) -> Option<SetCookie> {
        let mut parts = raw.split(';');
        let pair = parts.next()?.trim();
        let (name, _) = pair.split_once('=')?;
        let name = name.trim();
        if name.is_empty() {
            return None;
        }
        let mut c = SetCookie {
            name: name.to_string(),
            raw: raw.to_string(),
            secure: false,
            http_only: false,
            same_site: None,
            path: None,
            domain: None,
            persistent: false,
        };
        for attr in parts {
            let (key, value) = match attr.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (attr.trim(), None),
            };
            match key.to_ascii_lowercase().as_str() {
                "secure" => c.secure = true,
                "httponly" => c.http_only = true,
                "samesite" => c.same_site = Some(value.unwrap_or("").to_string()),
                "path" => c.path = value.map(str::to_string),
                "domain" => c.domain = value.map(str::to_string),
                "expires" | "max-age" => c.persistent = true,
                _ => {}
            }
        }
        Some(c)
    }

    /// Whether the name marks a session or login cookie (the MDN HTTP Observatory
    /// looks for `sess` and `login`; common frameworks add `sid`, `auth`, `token`).
    pub fn is_session(&self) -> bool {
        let n = self.name.to_ascii_lowercase();
        ["sess", "login", "auth", "token"]
            .iter()
            .any(|k| n.contains(k))
            || n == "sid"
            || n.ends_with("_sid")
            || n.ends_with("-sid")
            || n.ends_with("sessid")
    }

    /// Whether the name marks an anti-CSRF token.
    pub fn is_anti_csrf(&self) -> bool {
        let n = self.name.to_ascii_lowercase();
        n.contains("csrf") || n.contains("xsrf")
    }

    /// Whether the `SameSite` value, when present, is one browsers accept.
    pub fn same_site_valid(&self) -> bool {
        self.same_site.as_deref().is_none_or(|v| {
            ["strict", "lax", "none"]
                .iter()
                .any(|ok| v.eq_ignore_ascii_case(ok))
        })
    }

    /// Problems with the `__Host-` / `__Secure-` prefix rules (RFC 6265bis 4.1.3).
    pub fn prefix_problem(&self) -> Option<String> {
        if self.name.starts_with("__Host-") {
            if !self.secure {
                return Some("a __Host- cookie must have Secure".into());
            }
            if self.domain.is_some() {
                return Some("a __Host- cookie must not have Domain".into());
            }
            if self.path.as_deref() != Some("/") {
                return Some("a __Host- cookie must have Path=/".into());
            }
        } else if self.name.starts_with("__Secure-") && !self.secure {
            return Some("a __Secure- cookie must have Secure".into());
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_attributes() {
        let c = SetCookie::parse("SESSIONID=abc; Path=/; Secure; HttpOnly; SameSite=Lax").unwrap();
        assert!(c.secure && c.http_only && c.is_session() && c.same_site_valid());
        assert_eq!(c.path.as_deref(), Some("/"));
        let bad = SetCookie::parse("x=1; SameSite=Loose").unwrap();
        assert!(!bad.same_site_valid());
        assert!(SetCookie::parse("novalue").is_none());
        let host = SetCookie::parse("__Host-id=1; Secure; Path=/app").unwrap();
        assert_eq!(
            host.prefix_problem().unwrap(),
            "a __Host- cookie must have Path=/"
        );
    }
}
