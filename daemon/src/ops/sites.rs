//! Sites: what a site URL may be, registering and removing sites.

use chrono::Utc;
use sitescan_engine::crawl::ssrf;

use crate::error::{Error, Problems, Result};
use crate::store::{new_id, RegressionThreshold, Site, Store};

/// URLs longer than this are refused.
pub const MAX_URL_LEN: usize = 2048;
/// Longest site name, in bytes.
pub const MAX_SITE_NAME: usize = 200;

/// The account's sites, oldest first.
pub async fn list_sites(store: &dyn Store, account_id: &str) -> Result<Vec<Site>> {
    let mut sites = store.list_sites(account_id).await?;
    for site in &mut sites {
        with_credentials_flag(store, site).await?;
    }
    Ok(sites)
}

/// Sets `site.has_credentials` from the store (the flag is not part of the
/// site's record: credentials are kept apart, see `ops::credentials`).
async fn with_credentials_flag(store: &dyn Store, site: &mut Site) -> Result<()> {
    site.has_credentials = store
        .credentials(&site.id)
        .await?
        .is_some_and(|c| c.account_id == site.account_id);
    Ok(())
}

/// One site of the account (`site` not found when it is none of its).
pub async fn site(store: &dyn Store, account_id: &str, site_id: &str) -> Result<Site> {
    let mut site = store
        .site(account_id, site_id)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
    with_credentials_flag(store, &mut site).await?;
    Ok(site)
}

/// Registers a site of `account_id`: the URL validated by [`validate_site_url`]
/// (private addresses only when `allow_private`), the name 1 to
/// [`MAX_SITE_NAME`] bytes, or the host when none is given. Both fields are
/// checked before answering, so a request with two problems learns of both.
pub async fn register_site(
    store: &dyn Store,
    allow_private: bool,
    account_id: &str,
    raw_url: &str,
    name: Option<String>,
) -> Result<Site> {
    let mut problems = Problems::default();
    let url = problems.take("url", validate_site_url(raw_url, allow_private));
    if name
        .as_ref()
        .is_some_and(|n| n.trim().is_empty() || n.len() > MAX_SITE_NAME)
    {
        problems.add("name", format!("give 1 to {MAX_SITE_NAME} characters"));
    }
    problems.finish()?;
    let Some(url) = url else {
        return Err(Error::Storage(
            "site URL vanished after validation".to_string(),
        ));
    };
    let name = name.unwrap_or_else(|| url.host_str().unwrap_or_default().to_string());
    let site = Site {
        id: new_id("site")?,
        account_id: account_id.to_string(),
        url: url.to_string(),
        name,
        created_at: Utc::now(),
        regression_threshold: Default::default(),
        has_credentials: false,
    };
    store.create_site(site).await
}

/// Changes the settings of a site of `account_id`: its name (1 to
/// [`MAX_SITE_NAME`] bytes) and its `regression_threshold` (`minor`,
/// `moderate`, `serious` or `critical`). Fields not given are kept; both are
/// checked before answering.
pub async fn update_site(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    name: Option<String>,
    regression_threshold: Option<String>,
) -> Result<Site> {
    let mut problems = Problems::default();
    if name
        .as_ref()
        .is_some_and(|n| n.trim().is_empty() || n.len() > MAX_SITE_NAME)
    {
        problems.add("name", format!("give 1 to {MAX_SITE_NAME} characters"));
    }
    let threshold = match regression_threshold.as_deref() {
        None => None,
        Some(t) => match serde_json::from_value::<RegressionThreshold>(serde_json::Value::String(
            t.to_string(),
        )) {
            Ok(t) => Some(t),
            Err(_) => {
                problems.add(
                    "regression_threshold",
                    "one of minor, moderate, serious, critical",
                );
                None
            }
        },
    };
    problems.finish()?;
    let mut site = site(store, account_id, site_id).await?;
    if let Some(name) = name {
        site.name = name;
    }
    if let Some(t) = threshold {
        site.regression_threshold = t;
    }
    let mut site = store
        .update_site(site)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
    with_credentials_flag(store, &mut site).await?;
    Ok(site)
}

/// Removes a site of `account_id` (`site` not found when there is none), and
/// its credentials and triage marks. Its past scans stay readable by id.
pub async fn remove_site(store: &dyn Store, account_id: &str, site_id: &str) -> Result<()> {
    if !store.delete_site(account_id, site_id).await? {
        return Err(Error::not_found("site", site_id));
    }
    store.delete_credentials(site_id).await?;
    store.delete_site_marks(site_id).await?;
    Ok(())
}

/// What a site URL with `user:password@` is told: where credentials would belong,
/// and that there is no such place yet. The URL itself is never echoed.
pub const CREDENTIALS_REFUSED: &str = "the URL carries credentials (user:password@); \
URLs are stored and shown in plain text, so credentials never belong in one. \
Register the URL without them, then give the credentials with \
PUT /api/v1/sites/{siteId}/credentials (the site's Credentials form in the dashboard), \
where they are kept encrypted";

/// An absolute http(s) URL with a host and no credentials; unless private
/// addresses are allowed, hosts the engine's private-address predicate
/// ([`ssrf::is_private_host`], the one predicate of the service) refuses are
/// refused too. Host names are checked again by the crawler's guard after
/// DNS, at scan time.
pub fn validate_site_url(raw: &str, allow_private: bool) -> Result<url::Url> {
    if raw.len() > MAX_URL_LEN {
        return Err(Error::invalid(
            "url",
            format!("longer than {MAX_URL_LEN} characters"),
        ));
    }
    let url = url::Url::parse(raw.trim())
        .map_err(|e| Error::invalid("url", format!("not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::invalid("url", "the scheme must be http or https"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::invalid("url", CREDENTIALS_REFUSED));
    }
    let Some(host) = url.host() else {
        return Err(Error::invalid("url", "the URL has no host"));
    };
    if !allow_private && ssrf::is_private_host(&host) {
        return Err(Error::invalid("url", PRIVATE_REFUSED));
    }
    Ok(url)
}

/// What a refused private, loopback or otherwise local address is told.
pub const PRIVATE_REFUSED: &str = "loopback, private and link-local addresses (and IPv6 forms \
that embed one, such as ::ffff:10.0.0.1, 64:ff9b::/96, 2002::/16 or Teredo) are refused by \
this service";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_urls_are_refused_unless_allowed() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://localhost/",
            "http://10.1.2.3/",
            "http://169.254.169.254/latest",
            "http://[::1]/",
            "http://[fd00::1]/",
        ] {
            assert!(validate_site_url(url, false).is_err(), "{url}");
            assert!(validate_site_url(url, true).is_ok(), "{url}");
        }
        assert!(validate_site_url("https://example.com/", false).is_ok());
        assert!(validate_site_url("ftp://example.com/", true).is_err());
        assert!(validate_site_url("/relative", true).is_err());
        for url in [
            "https://user:pass@example.com/",
            "https://user@example.com/",
            "https://:pass@example.com/",
        ] {
            assert!(validate_site_url(url, true).is_err(), "{url}");
        }
    }
}
