//! Site credentials: what a site's scans sign in with (extra headers,
//! cookies, HTTP basic auth, a login form, browser login steps).
//!
//! They are write-only: saved sealed with the service's secret key
//! ([`crate::secret_key`]), described by names only
//! ([`CredentialsDescription`]), opened by the worker at scan time and handed
//! to the engine beside the scan's config, never inside it (the config is
//! stored with the scan and its queue job). Whatever a scan produces for
//! storage (report, error, regression lists) goes through a [`Scrubber`] of
//! the secret values first.

use std::io::Read;

use aho_corasick::{AhoCorasick, MatchKind};
use chrono::Utc;
use sitescan_engine::auth::{AuthLimits, LoginStep, SiteAuth};
use url::Url;

use crate::error::{Error, Problems, Result};
use crate::secret_key::SecretKey;
use crate::store::{
    CredentialsDescription, LoginFormDescription, LoginStepDescription, ReportFile, Store,
    StoredCredentials,
};

/// Most headers, cookies, login form fields or login steps.
pub const MAX_ITEMS: usize = 50;
/// Longest name or value, in bytes.
pub const MAX_VALUE_BYTES: usize = 4096;
/// The service's bounds on what one site's credentials hold: tighter than the
/// library's, since they are stored for every site and sent on every request.
const LIMITS: AuthLimits = AuthLimits {
    max_entries: MAX_ITEMS,
    max_steps: MAX_ITEMS,
    max_value_bytes: MAX_VALUE_BYTES,
};
/// What replaces a secret value in stored text (the engine's marker).
pub use sitescan_engine::auth::REDACTED;

/// The description of the credentials of a site of `account_id`
/// (`credentials` not found when it has none; `site` not found when the site
/// is none of the account's).
pub async fn credentials(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
) -> Result<CredentialsDescription> {
    super::sites::site(store, account_id, site_id).await?;
    match store.credentials(site_id).await? {
        Some(c) if c.account_id == account_id => Ok(c.description),
        _ => Err(Error::not_found("credentials", site_id)),
    }
}

/// Saves (replacing) the credentials of a site of `account_id`, after
/// checking every field ([`validate`] against the site's URL), sealed with
/// `key`. [`Error::SecretKeyMissing`] when the service has no key. Returns
/// their description.
pub async fn set_credentials(
    store: &dyn Store,
    key: Option<&SecretKey>,
    account_id: &str,
    site_id: &str,
    auth: SiteAuth,
) -> Result<CredentialsDescription> {
    let site = super::sites::site(store, account_id, site_id).await?;
    let key = key.ok_or(Error::SecretKeyMissing)?;
    let start = Url::parse(&site.url).map_err(|e| Error::Corrupt(format!("site URL: {e}")))?;
    validate(&auth, &start)?;
    let description = describe(site_id, &auth, Utc::now());
    let plaintext = serde_json::to_vec(&auth).map_err(|e| Error::Corrupt(e.to_string()))?;
    let stored = StoredCredentials {
        site_id: site_id.to_string(),
        account_id: account_id.to_string(),
        sealed: key.seal(site_id, &plaintext)?,
        description: description.clone(),
    };
    if !store.put_credentials(stored).await? {
        return Err(Error::not_found("site", site_id));
    }
    tracing::info!(site_id, kinds = ?description.kinds, "site credentials saved");
    Ok(description)
}

/// Removes the credentials of a site of `account_id` (`credentials` not
/// found when it has none).
pub async fn remove_credentials(store: &dyn Store, account_id: &str, site_id: &str) -> Result<()> {
    credentials(store, account_id, site_id).await?;
    if !store.delete_credentials(site_id).await? {
        return Err(Error::not_found("credentials", site_id));
    }
    tracing::info!(site_id, "site credentials removed");
    Ok(())
}

/// The credentials a scan of `site_id` signs in with, opened with `key`:
/// `None` when the site has none. Fails when it has some and there is no key
/// ([`Error::SecretKeyMissing`]), or they do not open with it
/// ([`Error::Unsealable`]).
pub async fn scan_credentials(
    store: &dyn Store,
    key: Option<&SecretKey>,
    site_id: &str,
) -> Result<Option<SiteAuth>> {
    let Some(stored) = store.credentials(site_id).await? else {
        return Ok(None);
    };
    let key = key.ok_or(Error::SecretKeyMissing)?;
    open(key, &stored).map(Some)
}

/// Opens stored credentials with `key` (the site id of the record is bound
/// in: a record moved to another site does not open).
pub fn open(key: &SecretKey, stored: &StoredCredentials) -> Result<SiteAuth> {
    let plaintext = key.open(&stored.site_id, &stored.sealed)?;
    // The plaintext authenticated: it is ours, so a parse failure means a
    // format change, and the error must not echo the plaintext.
    serde_json::from_slice(&plaintext).map_err(|e| {
        Error::Unsealable(format!(
            "the stored credentials of site `{}` opened but are not readable (line {}, column {})",
            stored.site_id,
            e.line(),
            e.column()
        ))
    })
}

/// The start-up check of `serve` and `worker`: credentials in the store and
/// no key to open them is a configuration error (scans of those sites would
/// all fail).
pub async fn check_start_up(store: &dyn Store, key: Option<&SecretKey>) -> Result<()> {
    if key.is_none() && store.any_credentials().await? {
        return Err(Error::Config(format!(
            "the store holds site credentials and no secret key is set: start with {} (or {}) \
             set to the key they were saved with",
            crate::secret_key::KEY_ENV,
            crate::secret_key::KEY_FILE_ENV
        )));
    }
    Ok(())
}

/// Checks every field of `auth` for a site whose scans start at `start`,
/// naming each bad one (`headers[0].name`, `login_form.action`, ...). The
/// checks are the engine's ([`SiteAuth::problems_within`]: names, values,
/// selectors, and URLs on the start URL's origin, since credentials only ever
/// go there), within the service's tighter size limits; sign-out patterns
/// follow the same rules as a scan's `include` and `exclude`.
pub fn validate(auth: &SiteAuth, start: &Url) -> Result<()> {
    let mut problems = Problems::default();
    if auth.is_empty() {
        problems.add(
            "credentials",
            "set at least one of headers, cookies, basic, login_form, login_steps",
        );
    }
    for p in auth.problems_within(start, LIMITS) {
        problems.add(p.field, p.problem);
    }
    let mut patterns = Problems::default();
    if let Some(list) = &auth.sign_out_exclude {
        super::scans::validate_patterns("sign_out_exclude", list, &mut patterns);
    }
    for p in patterns.list() {
        // A pattern the engine refused already is not named twice.
        if !problems.names(&p.field) {
            problems.add(p.field.clone(), p.problem.clone());
        }
    }
    problems.finish()
}

/// What `auth` holds, names only.
pub fn describe(
    site_id: &str,
    auth: &SiteAuth,
    updated_at: chrono::DateTime<Utc>,
) -> CredentialsDescription {
    let mut kinds = Vec::new();
    for (set, kind) in [
        (!auth.headers.is_empty(), "headers"),
        (!auth.cookies.is_empty(), "cookies"),
        (auth.basic.is_some(), "basic"),
        (auth.login_form.is_some(), "login_form"),
        (!auth.login_steps.is_empty(), "login_steps"),
    ] {
        if set {
            kinds.push(kind.to_string());
        }
    }
    CredentialsDescription {
        site_id: site_id.to_string(),
        kinds,
        headers: auth.headers.iter().map(|h| h.name.clone()).collect(),
        cookies: auth.cookies.iter().map(|c| c.name.clone()).collect(),
        basic_username: auth.basic.as_ref().map(|b| b.username.clone()),
        login_form: auth.login_form.as_ref().map(|f| LoginFormDescription {
            page: f.page.clone(),
            action: f.action.clone(),
            fields: f.fields.keys().cloned().collect(),
            success: f.success.clone(),
        }),
        login_steps: auth
            .login_steps
            .iter()
            .map(|s| match s {
                LoginStep::Goto { url } => LoginStepDescription {
                    step: "goto".to_string(),
                    selector: None,
                    url: Some(url.clone()),
                },
                LoginStep::Fill { selector, .. } => LoginStepDescription {
                    step: "fill".to_string(),
                    selector: Some(selector.clone()),
                    url: None,
                },
                LoginStep::Click { selector } => LoginStepDescription {
                    step: "click".to_string(),
                    selector: Some(selector.clone()),
                    url: None,
                },
                LoginStep::WaitFor { selector } => LoginStepDescription {
                    step: "wait_for".to_string(),
                    selector: Some(selector.clone()),
                    url: None,
                },
            })
            .collect(),
        sign_out_exclude: auth.sign_out_exclude.clone(),
        updated_at,
    }
}

/// Replaces every secret value of a [`SiteAuth`] with [`REDACTED`] in text
/// about to be stored, in each form [`SiteAuth::secret_forms`] lists (as
/// written, escaped inside a JSON string, percent-encoded, the basic token).
#[derive(Clone)]
pub struct Scrubber {
    /// `None` when there is nothing to scrub.
    matcher: Option<AhoCorasick>,
    /// The same patterns for streams (which need the standard match kind).
    stream: Option<AhoCorasick>,
    patterns: usize,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scrubber")
            .field("patterns", &self.patterns)
            .finish_non_exhaustive()
    }
}

impl Scrubber {
    /// A scrubber of `auth`'s secrets, in every form the engine knows them
    /// in ([`SiteAuth::secret_forms`], as the engine's own scrubbing of a
    /// scan's text uses them).
    pub fn new(auth: &SiteAuth) -> Self {
        let patterns = auth.secret_forms();
        if patterns.is_empty() {
            return Scrubber {
                matcher: None,
                stream: None,
                patterns: 0,
            };
        }
        // Longest first for in-memory text: a secret that contains another
        // is replaced whole.
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .ok();
        // Streams need the standard match kind, which takes the match that
        // ends first: of two secrets where one is a prefix of the other, the
        // longer one's tail would stay. Secrets are rarely prefixes of each
        // other; the leftmost-longest matcher above covers in-memory text.
        let stream = AhoCorasick::new(&patterns).ok();
        Scrubber {
            matcher,
            stream,
            patterns: patterns.len(),
        }
    }

    /// `text` with every secret replaced.
    pub fn scrub(&self, text: &str) -> String {
        match &self.matcher {
            Some(m) => m.replace_all(text, &vec![REDACTED; self.patterns]),
            None => text.to_string(),
        }
    }

    /// The report with every secret replaced, into a new file (blocking file
    /// I/O: call it from a blocking context). Streams chunk by chunk: the
    /// report is never whole in memory.
    pub fn scrub_report(&self, report: ReportFile) -> Result<ReportFile> {
        let Some(stream) = &self.stream else {
            return Ok(report);
        };
        let mut out = ReportFile::new()?;
        {
            let mut writer = std::io::BufWriter::with_capacity(64 * 1024, out.writer());
            let reader = ChunkReader {
                report: &report,
                index: 0,
                buf: Vec::new(),
                pos: 0,
            };
            stream.try_stream_replace_all(
                std::io::BufReader::with_capacity(64 * 1024, reader),
                &mut writer,
                &vec![REDACTED; self.patterns],
            )?;
            std::io::Write::flush(&mut writer)?;
        }
        Ok(out)
    }
}

/// Reads a [`ReportFile`] one chunk at a time.
struct ChunkReader<'a> {
    report: &'a ReportFile,
    index: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChunkReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.buf.len() {
            match self.report.chunk(self.index) {
                Ok(Some(chunk)) if !chunk.is_empty() => {
                    self.buf = chunk;
                    self.pos = 0;
                    self.index += 1;
                }
                Ok(_) => return Ok(0),
                Err(e) => return Err(std::io::Error::other(e.to_string())),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> SiteAuth {
        serde_json::from_value(serde_json::json!({
            "headers": [{"name": "Authorization", "value": "Bearer t0k\"en"}],
            "cookies": [{"name": "sid", "value": "c00kie"}],
            "basic": {"username": "ann", "password": "pa ss/wd"},
            "login_form": {"action": "/login", "fields": {"user": "ann", "pass": "f1eld"},
                "success": {"cookie": "session"}},
            "login_steps": [{"step": "goto", "url": "/in"},
                {"step": "fill", "selector": "#pw", "value": "st3p"}]
        }))
        .unwrap()
    }

    #[test]
    fn descriptions_hold_names_never_values() {
        let d = describe("site_1", &auth(), Utc::now());
        assert_eq!(
            d.kinds,
            ["headers", "cookies", "basic", "login_form", "login_steps"]
        );
        let shown = serde_json::to_string(&d).unwrap();
        for secret in ["t0k", "c00kie", "pa ss", "f1eld", "st3p"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("Authorization") && shown.contains("\"ann\""));
    }

    #[test]
    fn validation_names_each_bad_field() {
        let start = Url::parse("https://example.com/app/").unwrap();
        validate(&auth(), &start).unwrap();
        let bad: SiteAuth = serde_json::from_value(serde_json::json!({
            "headers": [{"name": "Bad Name", "value": "x"}, {"name": "Host", "value": "x"},
                {"name": "X-Ok", "value": "a\r\nInjected: 1"}],
            "cookies": [{"name": "sid", "value": "a;b"}],
            "basic": {"username": "a:b", "password": "p"},
            "login_form": {"action": "https://evil.example/login", "fields": {"u": "v"}},
            "login_steps": [{"step": "click", "selector": " "}],
            "sign_out_exclude": ["("]
        }))
        .unwrap();
        let Err(Error::Invalid(p)) = validate(&bad, &start) else {
            panic!("expected problems")
        };
        let fields: Vec<String> = Vec::<crate::error::FieldProblem>::from(p)
            .into_iter()
            .map(|f| f.field)
            .collect();
        assert_eq!(
            fields,
            [
                "headers[0].name",
                "headers[1].name",
                "headers[2].value",
                "cookies[0].value",
                "basic.username",
                "login_form.action",
                "login_steps[0].selector",
                "login_steps[0]",
                "sign_out_exclude[0]"
            ]
        );
        let Err(Error::Invalid(p)) = validate(&SiteAuth::default(), &start) else {
            panic!("empty credentials pass")
        };
        assert!(p.to_string().contains("at least one"), "{p}");
    }

    #[test]
    fn scrubbing_replaces_raw_json_and_url_forms() {
        let s = Scrubber::new(&auth());
        assert_eq!(
            s.scrub(r#"a Bearer t0k\"en c c00kie"#),
            "a [redacted] c [redacted]"
        );
        assert_eq!(
            s.scrub("pa+ss%2Fwd and pa ss/wd"),
            "[redacted] and [redacted]"
        );
        let report = ReportFile::from_bytes(
            format!(
                "{}\"Bearer t0k\\\"en\"{}",
                "x".repeat(crate::store::REPORT_CHUNK - 5),
                "st3p".repeat(3)
            )
            .as_bytes(),
        )
        .unwrap();
        let out = s.scrub_report(report).unwrap();
        let mut text = Vec::new();
        let mut i = 0;
        while let Some(c) = out.chunk(i).unwrap() {
            text.extend(c);
            i += 1;
        }
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.ends_with("\"[redacted]\"[redacted][redacted][redacted]"),
            "{}",
            &text[text.len() - 60..]
        );
        assert_eq!(text.len(), crate::store::REPORT_CHUNK - 5 + 2 + 40);
    }
}
