//! A scan's credentials at work: the [`SiteAuth`] a scan was given, tied to
//! the origin (scheme, host and port) of its start URL.
//!
//! Every request the scan makes asks [`Credentials::apply`] first, which adds
//! the headers, the basic authentication and the session's cookies only when
//! the request's own URL is on that origin. The crawler follows redirects hop
//! by hop and asks again for each hop, so a redirect to another origin never
//! carries them; the render interceptor asks for each request the browser
//! makes; the link checker stops a redirect that leaves the origin.
//!
//! The session's cookies live in a small jar of our own rather than reqwest's:
//! it holds only cookies of the scan's origin (set by the `cookies` of the
//! [`SiteAuth`], by the site's answers to the sign-in and the crawl, or taken
//! from the browser after the sign-in steps), ignores `Domain` and `Path` (a
//! cookie of the origin goes to all its paths, never to another host), drops a
//! cookie the site expires (a sign-out clearing its session), and is bounded.
//! reqwest's jar would send a cookie to every port of its domain.

use std::borrow::Cow;
use std::sync::Mutex;

use base64::Engine as _;
use regex::Regex;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, COOKIE, SET_COOKIE};
use url::{Origin, Url};

use crate::auth::{SiteAuth, MIN_SCRUBBED_LEN, REDACTED};
use crate::error::{Error, Result};

/// Cookies the jar keeps at most; later new names are ignored.
pub const MAX_JAR_COOKIES: usize = 100;
/// Longest cookie (name and value) the jar keeps, in bytes.
pub const MAX_COOKIE_BYTES: usize = 4096;

/// The credentials of one scan (see the module documentation).
pub struct Credentials {
    auth: SiteAuth,
    origin: Origin,
    origin_url: Url,
    headers: HeaderMap,
    basic: Option<HeaderValue>,
    jar: Mutex<Vec<(String, String)>>,
    scrub: Vec<String>,
    sign_out: Vec<Regex>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("origin", &self.origin.ascii_serialization())
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Credentials {
    /// Validates `auth` for a scan starting at `start` and ties it to
    /// `start`'s origin.
    pub fn new(auth: SiteAuth, start: &Url) -> Result<Credentials> {
        auth.validate(start)
            .map_err(|e| Error::Config(format!("auth: {e}")))?;
        let sign_out = auth
            .sign_out_patterns()
            .map_err(|e| Error::Config(format!("auth: {e}")))?;
        let mut headers = HeaderMap::new();
        for h in &auth.headers {
            // Validated above; a failure here cannot happen, and is skipped.
            if let (Ok(name), Ok(mut value)) = (
                HeaderName::from_bytes(h.name.trim().as_bytes()),
                HeaderValue::from_str(&h.value),
            ) {
                value.set_sensitive(true);
                headers.append(name, value);
            }
        }
        let basic_token = auth.basic.as_ref().map(|b| {
            base64::engine::general_purpose::STANDARD
                .encode(format!("{}:{}", b.username, b.password))
        });
        let basic = basic_token.as_ref().and_then(|t| {
            let mut v = HeaderValue::from_str(&format!("Basic {t}")).ok()?;
            v.set_sensitive(true);
            Some(v)
        });
        let scrub = auth.secret_forms();
        let jar = auth
            .cookies
            .iter()
            .map(|c| (c.name.clone(), c.value.clone()))
            .collect();
        let origin = start.origin();
        let mut origin_url = start.clone();
        origin_url.set_path("/");
        origin_url.set_query(None);
        origin_url.set_fragment(None);
        Ok(Credentials {
            auth,
            origin,
            origin_url,
            headers,
            basic,
            jar: Mutex::new(jar),
            scrub,
            sign_out,
        })
    }

    /// The credentials as given.
    pub fn auth(&self) -> &SiteAuth {
        &self.auth
    }

    /// The origin's root URL (`http://host:port/`).
    pub fn origin_url(&self) -> &Url {
        &self.origin_url
    }

    /// Whether `url` is on the scan's origin: the only URLs credentials go to.
    pub fn applies(&self, url: &Url) -> bool {
        url.origin() == self.origin
    }

    /// Whether `url` would sign the scan out (a sign-out pattern matches it).
    pub fn is_sign_out(&self, url: &Url) -> bool {
        let s = url.as_str();
        self.sign_out.iter().any(|r| r.is_match(s))
    }

    /// The compiled sign-out patterns in force.
    pub fn sign_out_patterns(&self) -> &[Regex] {
        &self.sign_out
    }

    /// The headers for a request to `url`: the given headers, basic
    /// authentication and the session's cookies when `url` is on the origin,
    /// nothing otherwise. Values are marked sensitive (reqwest and hyper leave
    /// them out of their debug output).
    pub fn headers_for(&self, url: &Url) -> HeaderMap {
        let mut out = HeaderMap::new();
        if !self.applies(url) {
            return out;
        }
        for (name, value) in &self.headers {
            out.append(name.clone(), value.clone());
        }
        if let Some(b) = &self.basic {
            out.insert(AUTHORIZATION, b.clone());
        }
        if let Some(c) = self.cookie_header() {
            out.insert(COOKIE, c);
        }
        out
    }

    /// Adds [`Credentials::headers_for`] to a request to `url`.
    pub fn apply(&self, url: &Url, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if !self.applies(url) {
            return req;
        }
        req.headers(self.headers_for(url))
    }

    /// The `Cookie` header of the jar, when it holds any cookie.
    fn cookie_header(&self) -> Option<HeaderValue> {
        let jar = lock(&self.jar);
        if jar.is_empty() {
            return None;
        }
        let line = jar
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let mut v = HeaderValue::from_str(&line).ok()?;
        v.set_sensitive(true);
        Some(v)
    }

    /// Keeps the cookies an answer from `url` sets, when `url` is on the
    /// origin (answers of other origins are ignored).
    pub fn absorb(&self, url: &Url, headers: &HeaderMap) {
        if !self.applies(url) {
            return;
        }
        for line in headers.get_all(SET_COOKIE) {
            if let Ok(line) = line.to_str() {
                self.set_cookie_line(line);
            }
        }
    }

    /// Keeps one `Set-Cookie` line's cookie (or drops it, when the line
    /// expires it).
    fn set_cookie_line(&self, line: &str) {
        let mut parts = line.split(';');
        let Some((name, value)) = parts.next().and_then(|p| p.split_once('=')) else {
            return;
        };
        let (name, value) = (name.trim(), value.trim().trim_matches('"'));
        let expired = parts.any(|attr| {
            let (k, v) = attr.split_once('=').unwrap_or((attr, ""));
            match k.trim().to_ascii_lowercase().as_str() {
                "max-age" => v.trim().parse::<i64>().is_ok_and(|n| n <= 0),
                "expires" => httpdate::parse_http_date(v.trim())
                    .is_ok_and(|t| t <= std::time::SystemTime::now()),
                _ => false,
            }
        });
        self.set_cookie(name, value, expired);
    }

    fn set_cookie(&self, name: &str, value: &str, expired: bool) {
        if name.is_empty()
            || name.len() + value.len() > MAX_COOKIE_BYTES
            || HeaderValue::from_str(&format!("{name}={value}")).is_err()
            || name.contains([';', ','])
            || value.contains(';')
        {
            return;
        }
        let mut jar = lock(&self.jar);
        let at = jar.iter().position(|(n, _)| n == name);
        match (at, expired) {
            (Some(i), true) => {
                jar.remove(i);
            }
            (Some(i), false) => jar[i].1 = value.to_string(),
            (None, false) if jar.len() < MAX_JAR_COOKIES => {
                jar.push((name.to_string(), value.to_string()))
            }
            _ => {}
        }
    }

    /// The jar's cookies, name and value, in the order they were set.
    pub fn cookies(&self) -> Vec<(String, String)> {
        lock(&self.jar).clone()
    }

    /// Whether the jar holds a cookie of this name.
    pub fn has_cookie(&self, name: &str) -> bool {
        lock(&self.jar).iter().any(|(n, _)| n == name)
    }

    /// Puts cookies taken from elsewhere (the browser, after the sign-in
    /// steps) into the jar.
    pub fn add_cookies(&self, cookies: impl IntoIterator<Item = (String, String)>) {
        for (name, value) in cookies {
            self.set_cookie(&name, &value, false);
        }
    }

    /// `text` with every secret value (and its URL-encoded form, the basic
    /// authentication token, and the values of the session's cookies) replaced by [`REDACTED`]; borrowed when
    /// nothing matched.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.scrub {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        // The session the site handed out (a sign-in's cookie) is as secret
        // as the password that got it.
        for (_, value) in lock(&self.jar).iter() {
            if value.chars().count() >= MIN_SCRUBBED_LEN && out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), REDACTED));
            }
        }
        out
    }

    /// Scrubs a string in place.
    pub fn scrub_string(&self, text: &mut String) {
        if let Cow::Owned(s) = self.scrub(text) {
            *text = s;
        }
    }

    /// Scrubs every string inside a JSON value, in place. No recursion (a
    /// work list), so any depth is safe.
    pub fn scrub_json(&self, value: &mut serde_json::Value) {
        let mut work = vec![value];
        while let Some(v) = work.pop() {
            match v {
                serde_json::Value::String(s) => self.scrub_string(s),
                serde_json::Value::Array(items) => work.extend(items.iter_mut()),
                serde_json::Value::Object(map) => work.extend(map.values_mut()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(v: serde_json::Value) -> Credentials {
        Credentials::new(
            serde_json::from_value(v).unwrap(),
            &Url::parse("http://127.0.0.1:8080/start").unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn credentials_go_only_to_the_start_origin() {
        let c = creds(serde_json::json!({
            "headers": [{"name": "X-Key", "value": "k-s3cret"}],
            "cookies": [{"name": "sid", "value": "c-s3cret"}],
            "basic": {"username": "ann", "password": "b-s3cret"}
        }));
        let on = c.headers_for(&Url::parse("http://127.0.0.1:8080/deep/page?q=1").unwrap());
        assert_eq!(on.get("x-key").unwrap(), "k-s3cret");
        assert_eq!(on.get("cookie").unwrap(), "sid=c-s3cret");
        assert_eq!(
            on.get("authorization").unwrap(),
            &format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("ann:b-s3cret")
            )
        );
        for other in [
            "http://127.0.0.1:8081/",
            "https://127.0.0.1:8080/",
            "http://localhost:8080/",
            "http://127.0.0.2:8080/",
        ] {
            assert!(
                c.headers_for(&Url::parse(other).unwrap()).is_empty(),
                "{other}"
            );
        }
    }

    #[test]
    fn the_jar_keeps_the_origins_cookies_and_drops_expired_ones() {
        let c = creds(serde_json::json!({"cookies": [{"name": "a", "value": "1"}]}));
        let here = Url::parse("http://127.0.0.1:8080/login").unwrap();
        let there = Url::parse("http://127.0.0.1:9999/").unwrap();
        let mut h = HeaderMap::new();
        h.append(SET_COOKIE, "sid=xyz; Path=/; HttpOnly".parse().unwrap());
        h.append(SET_COOKIE, "a=2".parse().unwrap());
        c.absorb(&there, &h);
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(c.cookies(), [pair("a", "1")]);
        c.absorb(&here, &h);
        assert_eq!(c.cookies(), [pair("a", "2"), pair("sid", "xyz")]);
        let mut gone = HeaderMap::new();
        gone.append(SET_COOKIE, "sid=; Max-Age=0".parse().unwrap());
        gone.append(
            SET_COOKIE,
            "a=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT"
                .parse()
                .unwrap(),
        );
        c.absorb(&here, &gone);
        assert!(c.cookies().is_empty());
    }

    #[test]
    fn scrub_replaces_secrets_and_their_encodings() {
        let c = creds(serde_json::json!({
            "headers": [{"name": "Authorization", "value": "Bearer tok/en+1"}],
            "basic": {"username": "ann", "password": "pw-s3cret"},
            "login_form": {"action": "/login", "fields": {"user": "ann", "pass": "f s3cret"}}
        }));
        let basic = base64::engine::general_purpose::STANDARD.encode("ann:pw-s3cret");
        let text = format!(
            "echo: Bearer tok/en+1 | tok%2Fen%2B1? no: Bearer+tok%2Fen%2B1 | Basic {basic} | f+s3cret | ann"
        );
        assert_eq!(
            c.scrub(&text),
            "echo: [redacted] | tok%2Fen%2B1? no: [redacted] | Basic [redacted] | [redacted] | ann"
        );
        let mut v = serde_json::json!({"a": [{"b": "pw-s3cret!"}], "c": 1});
        c.scrub_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": [{"b": "[redacted]!"}], "c": 1}));
    }
}
