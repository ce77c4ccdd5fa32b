//! `/sites`: register, list, read and remove the account's sites.

use std::net::IpAddr;

use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use chrono::Utc;
use sitescan_engine::crawl::ssrf;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestId};
use super::error::{ApiError, Problems};
use super::views::{CreateSite, SiteDeleted};
use super::AppState;
use crate::store::{new_id, Site};
use axum::extract::State;

/// URLs longer than this are refused.
pub const MAX_URL_LEN: usize = 2048;

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sites", get(list_sites).post(create_site))
        .route("/api/v1/sites/{siteId}", get(get_site).delete(delete_site))
}

/// Lists the sites of the caller's account, oldest first.
#[utoipa::path(get, path = "/api/v1/sites", tag = "sites",
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The account's sites", body = SiteListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_sites(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
) -> Result<Response, ApiError> {
    let sites = state.store.list_sites(&auth.account.id).await?;
    let mut meta = Meta::new(&id);
    meta.count = Some(sites.len());
    Ok(reply(StatusCode::OK, meta, sites))
}

/// Registers a site.
#[utoipa::path(post, path = "/api/v1/sites", tag = "sites",
    security(("api_key" = [])),
    request_body = CreateSite,
    responses(
        (status = 201, description = "The site, registered", body = SiteEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: the URL is not absolute http(s), or is a private address", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn create_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiJson(body): ApiJson<CreateSite>,
) -> Result<Response, ApiError> {
    let site = register_site(&state, &auth.account.id, &body.url, body.name).await?;
    Ok(reply(StatusCode::CREATED, Meta::new(&id), site))
}

/// Registers a site of `account_id`: the URL validated by [`validate_site_url`]
/// (private addresses only when the service allows them), the name 1 to 200
/// characters or the host. The one code path of `POST /sites` and the dashboard.
pub(crate) async fn register_site(
    state: &AppState,
    account_id: &str,
    raw_url: &str,
    name: Option<String>,
) -> Result<Site, ApiError> {
    // Both fields are checked before answering, so a request with two
    // problems learns of both.
    let mut problems = Problems::default();
    let url = problems.take(
        "url",
        validate_site_url(raw_url, state.settings.allow_private),
    );
    if name
        .as_ref()
        .is_some_and(|n| n.trim().is_empty() || n.len() > 200)
    {
        problems.add("name", "give 1 to 200 characters");
    }
    problems.finish()?;
    let Some(url) = url else {
        return Err(ApiError::internal("site URL vanished after validation"));
    };
    let name = name.unwrap_or_else(|| url.host_str().unwrap_or_default().to_string());
    let site = Site {
        id: new_id("site")?,
        account_id: account_id.to_string(),
        url: url.to_string(),
        name,
        created_at: Utc::now(),
    };
    Ok(state.store.create_site(site).await?)
}

/// One site of the account.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "The site", body = SiteEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    let site = state
        .store
        .site(&auth.account.id, &site_id)
        .await?
        .ok_or_else(|| ApiError::site_not_found(&site_id))?;
    Ok(reply(StatusCode::OK, Meta::new(&id), site))
}

/// Removes a site. Its past scans stay readable by id.
#[utoipa::path(delete, path = "/api/v1/sites/{siteId}", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "Removed", body = SiteDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn delete_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    remove_site(&state, &auth.account.id, &site_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        SiteDeleted {
            id: site_id,
            deleted: true,
        },
    ))
}

/// Removes a site of `account_id` (`site_not_found` when there is none): the
/// one code path of `DELETE /sites/{siteId}` and the dashboard.
pub(crate) async fn remove_site(
    state: &AppState,
    account_id: &str,
    site_id: &str,
) -> Result<(), ApiError> {
    if !state.store.delete_site(account_id, site_id).await? {
        return Err(ApiError::site_not_found(site_id));
    }
    Ok(())
}

/// What a site URL with `user:password@` is told: where credentials would belong,
/// and that there is no such place yet. The URL itself is never echoed.
pub const CREDENTIALS_REFUSED: &str = "the URL carries credentials (user:password@); \
URLs are stored and shown in plain text, so credentials never belong in one. \
sitescan cannot sign in to a site yet (there is no credentials setting): \
register the URL without them";

/// An absolute http(s) URL with a host and no credentials; unless private
/// addresses are allowed, `localhost` names and IP literals the SSRF guard
/// refuses ([`sitescan_engine::crawl::ssrf::is_forbidden`], the one predicate
/// of the service) are refused too. Host names are checked again by the
/// crawler's guard after DNS, at scan time.
pub fn validate_site_url(raw: &str, allow_private: bool) -> Result<url::Url, ApiError> {
    if raw.len() > MAX_URL_LEN {
        return Err(ApiError::validation(
            "url",
            format!("longer than {MAX_URL_LEN} characters"),
        ));
    }
    let url = url::Url::parse(raw.trim())
        .map_err(|e| ApiError::validation("url", format!("not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ApiError::validation(
            "url",
            "the scheme must be http or https",
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ApiError::validation("url", CREDENTIALS_REFUSED));
    }
    let Some(host) = url.host() else {
        return Err(ApiError::validation("url", "the URL has no host"));
    };
    if !allow_private {
        let private = match host {
            url::Host::Domain(d) => ssrf::is_local_name(d),
            url::Host::Ipv4(ip) => ssrf::is_forbidden(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => ssrf::is_forbidden(IpAddr::V6(ip)),
        };
        if private {
            return Err(ApiError::validation("url", PRIVATE_REFUSED));
        }
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
