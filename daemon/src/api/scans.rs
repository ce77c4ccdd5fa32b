//! Scans: start one (generic and per-type endpoints of SPEC.md), read it, list a
//! site's scans, cancel it, fetch its report.

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use std::time::Duration;

use chrono::Utc;
use sitescan_engine::config::{StatusRange, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES};
use sitescan_engine::PageBudget;
use sitescan_rules::{registry, Category};

use super::auth::Auth;
use super::envelope::{reply, ApiPath, Meta, OptionalJson, RequestContext, RequestId};
use super::error::{ApiError, ErrorCode, Problems};
use super::views::{BudgetParam, ScanRequest, ScanRequestConfig, ScanView};
use super::AppState;
use crate::queue::Job;
use crate::store::{new_id, AppliedConfig, Scan, ScanStatus};

/// Rule entries accepted in one request.
pub const MAX_RULES: usize = 50;
/// Largest `max_pages` a request may ask for.
pub const MAX_PAGES_LIMIT: u64 = 100_000;
/// Largest `max_depth` a request may ask for.
pub const MAX_DEPTH_LIMIT: u64 = 50;
/// Scans per page of a list, by default and at most.
pub const LIST_DEFAULT: usize = 20;
/// See [`LIST_DEFAULT`].
pub const LIST_MAX: usize = 100;

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/sites/{siteId}/scans",
            post(create_scan).get(list_scans),
        )
        .route(
            "/api/v1/sites/{siteId}/accessibility/scans",
            post(create_accessibility_scan),
        )
        .route("/api/v1/sites/{siteId}/seo/scans", post(create_seo_scan))
        .route(
            "/api/v1/sites/{siteId}/performance/scans",
            post(create_performance_scan),
        )
        .route(
            "/api/v1/sites/{siteId}/security/scans",
            post(create_security_scan),
        )
        .route(
            "/api/v1/sites/{siteId}/quality/scans",
            post(create_quality_scan),
        )
        .route("/api/v1/scans/{scanId}", get(get_scan))
        .route("/api/v1/scans/{scanId}/cancel", post(cancel_scan))
        .route("/api/v1/scans/{scanId}/report", get(get_report))
}

/// Starts a scan of a site; `config.rules` picks what runs.
#[utoipa::path(post, path = "/api/v1/sites/{siteId}/scans", tag = "scans",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    request_body = ScanRequest,
    responses(
        (status = 202, description = "The scan, queued; Location names it", body = ScanEnvelope,
            headers(("Location" = String, description = "Absolute URL of the scan (on the public URL, else the request's Host)"))),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed (config.rules missing, unknown rule set, bad value)", body = ErrorBody),
        (status = 429, description = "scan_limit_exceeded (Retry-After: seconds to next UTC midnight) or rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn create_scan(
    state: State<AppState>,
    auth: Auth,
    id: RequestId,
    path: ApiPath,
    body: OptionalJson<ScanRequest>,
) -> Result<Response, ApiError> {
    start(state, auth, id, path, body, None).await
}

macro_rules! typed_scan_endpoint {
    ($name:ident, $path:literal, $cat:expr, $what:literal) => {
        #[doc = concat!("Starts ", $what, "; `config` is optional and its rules must stay within the type.")]
        #[utoipa::path(post, path = $path, tag = "scans",
            security(("api_key" = [])),
            params(("siteId" = String, Path, description = "Site id")),
            request_body(content = Option<ScanRequest>, description = "Optional; rules default to the type"),
            responses(
                (status = 202, description = "The scan, queued; Location names it", body = ScanEnvelope,
                    headers(("Location" = String, description = "Absolute URL of the scan (on the public URL, else the request's Host)"))),
                (status = 400, description = "invalid_json", body = ErrorBody),
                (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
                (status = 403, description = "plan_not_allowed", body = ErrorBody),
                (status = 404, description = "site_not_found", body = ErrorBody),
                (status = 413, description = "payload_too_large", body = ErrorBody),
                (status = 415, description = "unsupported_media_type", body = ErrorBody),
                (status = 422, description = "validation_failed (rules outside the type, unknown rule set, bad value)", body = ErrorBody),
                (status = 429, description = "scan_limit_exceeded or rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
            ))]
        pub(crate) async fn $name(
            state: State<AppState>,
            auth: Auth,
            id: RequestId,
            path: ApiPath,
            body: OptionalJson<ScanRequest>,
        ) -> Result<Response, ApiError> {
            start(state, auth, id, path, body, Some($cat)).await
        }
    };
}

typed_scan_endpoint!(
    create_accessibility_scan,
    "/api/v1/sites/{siteId}/accessibility/scans",
    Category::Accessibility,
    "a WCAG 2.1 accessibility scan (default rules: wcag-aa)"
);
typed_scan_endpoint!(
    create_seo_scan,
    "/api/v1/sites/{siteId}/seo/scans",
    Category::Seo,
    "an SEO scan"
);
typed_scan_endpoint!(
    create_performance_scan,
    "/api/v1/sites/{siteId}/performance/scans",
    Category::Performance,
    "a performance scan"
);
typed_scan_endpoint!(
    create_security_scan,
    "/api/v1/sites/{siteId}/security/scans",
    Category::Security,
    "a security scan"
);
typed_scan_endpoint!(
    create_quality_scan,
    "/api/v1/sites/{siteId}/quality/scans",
    Category::Quality,
    "a content quality scan"
);

/// The rules a type-specific endpoint runs when none are named.
pub fn default_rules(category: Category) -> Vec<String> {
    match category {
        Category::Accessibility => vec!["wcag-aa".to_string()],
        other => vec![other.as_str().to_string()],
    }
}

/// Checks the requested rules (and, for a type endpoint, that each stays in
/// its category).
pub fn validate_rules(rules: &[String], category: Option<Category>) -> Result<(), ApiError> {
    if rules.is_empty() {
        return Err(ApiError::validation(
            "config.rules",
            "give at least one rule set or rule id, e.g. [\"wcag-aa\"]",
        ));
    }
    if rules.len() > MAX_RULES {
        return Err(ApiError::validation(
            "config.rules",
            format!("at most {MAX_RULES} entries"),
        ));
    }
    let mut err: Option<ApiError> = None;
    for (i, rule) in rules.iter().enumerate() {
        let field = format!("config.rules[{i}]");
        let problem = if rule.trim().is_empty() || rule.len() > 100 {
            Some("give a rule set or rule id of 1 to 100 characters".to_string())
        } else {
            match registry::select(&[rule.as_str()]) {
                Err(e) => Some(e.to_string()),
                Ok(sel) => category.and_then(|cat| {
                    let outside: Vec<&str> = sel
                        .page
                        .iter()
                        .map(|r| r.meta())
                        .chain(sel.site.iter().map(|r| r.meta()))
                        .filter(|m| m.category != cat)
                        .map(|m| m.id)
                        .collect();
                    (!outside.is_empty()).then(|| {
                        format!(
                            "`{rule}` selects rules outside {cat} (e.g. `{}`); use POST /sites/{{siteId}}/scans to mix types",
                            outside[0]
                        )
                    })
                }),
            }
        };
        if let Some(problem) = problem {
            err = Some(match err {
                None => ApiError::validation(field, problem),
                Some(e) => e.detail(field, problem),
            });
        }
    }
    if let Some(e) = err {
        return Err(e);
    }
    // The engine refuses to run nothing; say so now rather than fail the scan.
    match registry::select(rules) {
        Ok(sel) if sel.is_empty() => Err(ApiError::validation(
            "config.rules",
            "selects no rules (this build has no rule in that set yet); `sitescan rules` lists them",
        )),
        _ => Ok(()),
    }
}

/// Most entries in `config.accept`.
const MAX_ACCEPT_ENTRIES: usize = 50;

/// Validates `config.accept`: every entry a status code or range; returned in
/// their normal form (`200..=299`), as the scan records them.
fn parse_accept(list: &[String]) -> Result<Vec<String>, ApiError> {
    if list.is_empty() || list.len() > MAX_ACCEPT_ENTRIES {
        return Err(ApiError::validation(
            "config.accept",
            format!("give 1 to {MAX_ACCEPT_ENTRIES} status codes or ranges, e.g. [\"200..=299\", \"403\"]"),
        ));
    }
    let mut err: Option<ApiError> = None;
    let mut out = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        match entry.parse::<StatusRange>() {
            Ok(r) => out.push(r.to_string()),
            Err(problem) => {
                let field = format!("config.accept[{i}]");
                err = Some(match err {
                    None => ApiError::validation(field, problem),
                    Some(e) => e.detail(field, problem),
                });
            }
        }
    }
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

async fn start(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    OptionalJson(body): OptionalJson<ScanRequest>,
    category: Option<Category>,
) -> Result<Response, ApiError> {
    let config: ScanRequestConfig = match (body.and_then(|b| b.config), category) {
        (Some(c), _) => c,
        (None, Some(_)) => ScanRequestConfig::default(),
        (None, None) => {
            return Err(ApiError::validation(
                "config",
                "required: {\"config\": {\"rules\": [\"wcag-aa\"]}}",
            ))
        }
    };
    // Missing rules on the generic endpoint are one problem among the
    // others (`validate_rules` names an empty list), not an early return.
    let rules = match (config.rules, category) {
        (Some(r), _) => r,
        (None, Some(cat)) => default_rules(cat),
        (None, None) => Vec::new(),
    };
    let request = NewScan {
        rules,
        priority: config.priority.map(Into::into).unwrap_or_default(),
        max_pages: config.max_pages,
        max_depth: config.max_depth,
        category,
        accept: config.accept,
        budget: config.budget,
        links: config.links.map(Into::into).unwrap_or_default(),
        include: config.include.unwrap_or_default(),
        exclude: config.exclude.unwrap_or_default(),
    };
    let scan = start_scan(&state, &auth.account, &site_id, request).await?;
    let view = ScanView::from(scan);
    let mut resp = reply(StatusCode::ACCEPTED, Meta::new(&id), &view);
    // Absolute (RFC 9110 allows relative, but clients and proxies handle an
    // absolute one everywhere): see `envelope::public_base` for the base.
    if let Ok(v) = HeaderValue::from_str(&RequestContext::absolute(&view.links.self_)) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// Most patterns in `config.include` or `config.exclude`.
pub const MAX_PATTERNS: usize = 20;
/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 500;

/// Checks URL patterns (`config.include`, `config.exclude`) the way the crawl
/// will use them: each must compile as a regular expression (the engine's
/// own compiler, so what passes here cannot fail the scan later). Every bad
/// entry is named.
fn validate_patterns(field: &str, patterns: &[String], problems: &mut Problems) {
    if patterns.len() > MAX_PATTERNS {
        problems.add(field, format!("at most {MAX_PATTERNS} patterns"));
        return;
    }
    for (i, p) in patterns.iter().enumerate() {
        let at = format!("{field}[{i}]");
        if p.is_empty() || p.chars().count() > MAX_PATTERN_CHARS {
            problems.add(
                at,
                format!("give a regular expression of 1 to {MAX_PATTERN_CHARS} characters"),
            );
        } else if let Err(e) =
            sitescan_engine::crawl::scope::compile_patterns(std::slice::from_ref(p), "this")
        {
            problems.add(at, e.to_string());
        }
    }
}

/// What a scan request asks for, once its body is read.
#[derive(Debug, Clone)]
pub(crate) struct NewScan {
    /// Rule sets and rule ids.
    pub(crate) rules: Vec<String>,
    /// Queue priority.
    pub(crate) priority: sitescan_engine::Priority,
    /// Pages asked for (capped by the plan); `None`: the default.
    pub(crate) max_pages: Option<u64>,
    /// Depth asked for; `None`: the default.
    pub(crate) max_depth: Option<u64>,
    /// The type of a type-specific endpoint: rules must stay within it.
    pub(crate) category: Option<Category>,
    /// Final statuses of link checks that count as working, as asked
    /// (`config.accept`); `None`: the default.
    pub(crate) accept: Option<Vec<String>>,
    /// The page budget asked for (`config.budget`); `None`: the defaults.
    pub(crate) budget: Option<BudgetParam>,
    /// Which link and resource URLs are checked (`config.links`).
    pub(crate) links: sitescan_engine::LinkScope,
    /// Only URLs matching one of these are crawled (`config.include`).
    pub(crate) include: Vec<String>,
    /// URLs matching any of these are not crawled (`config.exclude`).
    pub(crate) exclude: Vec<String>,
}

/// The page budget a scan asked for, held under the service's `ceiling`: each
/// limit given must lie within it (else 422 naming the field and the range),
/// each limit not given is the default held under it.
fn apply_budget(asked: BudgetParam, ceiling: &PageBudget) -> Result<PageBudget, ApiError> {
    let defaults = PageBudget::DEFAULT.min(ceiling);
    // Every limit is checked (each bad one named), then the problems, if
    // any, are the answer.
    let problems = std::cell::RefCell::new(Problems::default());
    let limit = |value: Option<u64>, key: &str, least: u64, most: u64, default: u64| match value {
        None => Ok::<u64, ApiError>(default),
        Some(n) if n < least || n > most => {
            problems.borrow_mut().add(
                format!("config.budget.{key}"),
                format!("give {least} to {most} (this service's ceiling)"),
            );
            Ok(default)
        }
        Some(n) => Ok(n),
    };
    let size = |value: Option<u64>, key: &str, least: u64, most: usize, default: usize| {
        let most = u64::try_from(most).unwrap_or(u64::MAX);
        let default = u64::try_from(default).unwrap_or(u64::MAX);
        limit(value, key, least, most, default).map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    };
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let budget = PageBudget {
        time: Duration::from_millis(limit(
            asked.time_ms,
            "time_ms",
            0,
            ms(ceiling.time),
            ms(defaults.time),
        )?),
        max_nodes: size(
            asked.max_nodes,
            "max_nodes",
            1,
            ceiling.max_nodes,
            defaults.max_nodes,
        )?,
        max_depth: size(
            asked.max_depth,
            "max_depth",
            1,
            ceiling.max_depth,
            defaults.max_depth,
        )?,
        max_links: size(
            asked.max_links,
            "max_links",
            0,
            ceiling.max_links,
            defaults.max_links,
        )?,
        max_css_rules: size(
            asked.max_css_rules,
            "max_css_rules",
            0,
            ceiling.max_css_rules,
            defaults.max_css_rules,
        )?,
        max_selectors: size(
            asked.max_selectors,
            "max_selectors",
            0,
            ceiling.max_selectors,
            defaults.max_selectors,
        )?,
        max_stylesheets: size(
            asked.max_stylesheets,
            "max_stylesheets",
            0,
            ceiling.max_stylesheets,
            defaults.max_stylesheets,
        )?,
    };
    problems.into_inner().finish().map(|()| budget)
}

/// Validates a scan request, applies the plan's page cap and quota, saves the
/// scan (the store writes its `scan.queued` event with it) and queues its job:
/// the one code path of the scan
/// endpoints and the dashboard's "Scan now".
pub(crate) async fn start_scan(
    state: &AppState,
    account: &crate::store::Account,
    site_id: &str,
    request: NewScan,
) -> Result<Scan, ApiError> {
    let NewScan {
        rules,
        priority,
        max_pages,
        max_depth,
        category,
        accept,
        budget,
        links,
        include,
        exclude,
    } = request;
    // Every problem of the request is gathered and answered at once.
    let mut problems = Problems::default();
    problems.take("config.rules", validate_rules(&rules, category));
    let requested_pages = match max_pages {
        Some(n) if n == 0 || n > MAX_PAGES_LIMIT => {
            problems.add("config.max_pages", format!("give 1 to {MAX_PAGES_LIMIT}"));
            DEFAULT_MAX_PAGES
        }
        Some(n) => n as usize,
        None => DEFAULT_MAX_PAGES,
    };
    let max_depth = match max_depth {
        Some(n) if n > MAX_DEPTH_LIMIT => {
            problems.add("config.max_depth", format!("give 0 to {MAX_DEPTH_LIMIT}"));
            DEFAULT_MAX_DEPTH
        }
        Some(n) => n as u32,
        None => DEFAULT_MAX_DEPTH,
    };
    let accept = match accept {
        None => None,
        Some(list) => problems.take("config.accept", parse_accept(&list)),
    };
    let budget = problems.take(
        "config.budget",
        apply_budget(budget.unwrap_or_default(), &state.settings.page_budget),
    );
    validate_patterns("config.include", &include, &mut problems);
    validate_patterns("config.exclude", &exclude, &mut problems);
    problems.finish()?;
    let budget = budget.unwrap_or(PageBudget::DEFAULT);
    let plan = account.plan;
    let site = state
        .store
        .site(&account.id, site_id)
        .await?
        .ok_or_else(|| ApiError::site_not_found(site_id))?;
    let plan_max_pages = plan.max_pages();
    let applied = AppliedConfig {
        rules,
        priority,
        max_pages: plan_max_pages.map_or(requested_pages, |cap| requested_pages.min(cap)),
        max_depth,
        plan_max_pages,
        accept,
        budget,
        links,
        include,
        exclude,
    };
    let now = Utc::now();
    let scan = Scan {
        id: new_id("scan")?,
        site_id: site.id.clone(),
        account_id: account.id.clone(),
        url: site.url.clone(),
        status: ScanStatus::Queued,
        config: applied,
        progress: None,
        error: None,
        attempts: 0,
        created_at: now,
        started_at: None,
        finished_at: None,
        summary: None,
        quota_refunded: false,
    };
    let scan = state
        .store
        .create_scan_if_quota(scan, now.date_naive(), plan.scans_per_day())
        .await?;
    state
        .queue
        .enqueue(Job {
            scan_id: scan.id.clone(),
            priority: scan.config.priority,
        })
        .await?;
    Ok(scan)
}

/// The problem of a `cursor` this endpoint did not return.
const BAD_CURSOR: &str =
    "not a cursor this endpoint returned for this site; pass meta.next_cursor of the previous page, or leave cursor out for the first page";

/// A site's scans, newest first, `limit` (1..=100, default 20) per page; pass
/// `meta.next_cursor` back as `cursor` for the next page.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/scans", tag = "scans",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("limit" = Option<u32>, Query, description = "Scans per page, 1 to 100 (default 20)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "meta.next_cursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The site's scans, newest first", body = ScanListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (limit or cursor)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_scans(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let mut limit = LIST_DEFAULT;
    let mut cursor = None;
    let mut problems = Problems::default();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "limit" => match v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=LIST_MAX).contains(n))
            {
                Some(n) => limit = n,
                None => problems.add("limit", format!("give a number from 1 to {LIST_MAX}")),
            },
            "cursor" => {
                if v.is_empty() || v.len() > 100 || v.contains('/') {
                    problems.add("cursor", BAD_CURSOR);
                } else {
                    cursor = Some(v.into_owned());
                }
            }
            _ => {}
        }
    }
    problems.finish()?;
    state
        .store
        .site(&auth.account.id, &site_id)
        .await?
        .ok_or_else(|| ApiError::site_not_found(&site_id))?;
    // A cursor is the id of the last scan of a page this endpoint returned:
    // a scan of this site in this account. Anything else is refused rather
    // than read as "from the start", which would silently repeat page one.
    if let Some(c) = &cursor {
        let known = state
            .store
            .scan(&auth.account.id, c)
            .await?
            .is_some_and(|s| s.site_id == site_id);
        if !known {
            return Err(ApiError::validation("cursor", BAD_CURSOR));
        }
    }
    let page = state
        .store
        .list_scans(&auth.account.id, &site_id, cursor.as_deref(), limit)
        .await?;
    let mut meta = Meta::new(&id);
    meta.count = Some(page.items.len());
    meta.next_cursor = page.next_cursor;
    let items: Vec<ScanView> = page.items.into_iter().map(ScanView::from).collect();
    Ok(reply(StatusCode::OK, meta, items))
}

/// A scan: status, progress while running (its `phase`: `crawl`, `links`
/// with `links_checked` of `links_total`, `finish`), summary when completed.
#[utoipa::path(get, path = "/api/v1/scans/{scanId}", tag = "scans",
    security(("api_key" = [])),
    params(("scanId" = String, Path, description = "Scan id")),
    responses(
        (status = 200, description = "The scan", body = ScanEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_scan(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
) -> Result<Response, ApiError> {
    let scan = state
        .store
        .scan(&auth.account.id, &scan_id)
        .await?
        .ok_or_else(|| ApiError::scan_not_found(&scan_id))?;
    Ok(reply(StatusCode::OK, Meta::new(&id), ScanView::from(scan)))
}

/// Cancels a queued or running scan (a canceled one stays canceled). A scan
/// canceled while still queued is given back to the day's quota
/// (`quota_refunded: true`); one canceled while running still counts.
#[utoipa::path(post, path = "/api/v1/scans/{scanId}/cancel", tag = "scans",
    security(("api_key" = [])),
    params(("scanId" = String, Path, description = "Scan id")),
    responses(
        (status = 200, description = "The scan, canceled", body = ScanEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 409, description = "scan_not_cancelable: it already completed or failed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn cancel_scan(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
) -> Result<Response, ApiError> {
    let scan = cancel(&state, &auth.account.id, &scan_id).await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), ScanView::from(scan)))
}

/// Cancels a scan of `account_id` (the store writes the `scan.canceled`
/// event with the cancel, once): the one code path of
/// `POST /scans/{scanId}/cancel` and the dashboard.
pub(crate) async fn cancel(
    state: &AppState,
    account_id: &str,
    scan_id: &str,
) -> Result<Scan, ApiError> {
    let scan = state
        .store
        .cancel_scan(account_id, scan_id, Utc::now())
        .await?;
    // The worker sees the cancel through the store; the job is dropped when taken.
    Ok(scan)
}

/// The report of a completed scan: DESIGN.md's JSON report as `data`, or with
/// `?format=` html, sarif, junit, csv or markdown the rendered file itself.
#[utoipa::path(get, path = "/api/v1/scans/{scanId}/report", tag = "scans",
    security(("api_key" = [])),
    params(
        ("scanId" = String, Path, description = "Scan id"),
        ("format" = Option<String>, Query, description = "json (default: the envelope) or html, sarif, junit, csv, markdown: the rendered file with its own Content-Type"),
    ),
    responses(
        (status = 200, description = "The report", body = ReportEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed: unknown `format`", body = ErrorBody),
        (status = 409, description = "report_not_ready: the scan is queued, running, failed or canceled", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_report(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    if let Some(format) = super::reports::format_param(query.as_deref())? {
        let report = super::reports::load(&state, &auth.account.id, &scan_id).await?;
        return super::reports::rendered(&report, format, &scan_id);
    }
    let scan = state
        .store
        .scan(&auth.account.id, &scan_id)
        .await?
        .ok_or_else(|| ApiError::scan_not_found(&scan_id))?;
    if scan.status != ScanStatus::Completed {
        return Err(ApiError::new(
            ErrorCode::ReportNotReady,
            format!(
                "scan `{scan_id}` is {}: a report exists once it is completed",
                scan.status.as_str()
            ),
        ));
    }
    let bytes = state
        .store
        .report(&scan_id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("completed scan {scan_id} has no report")))?;
    let report: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::internal(format!("stored report of {scan_id} is corrupt: {e}")))?;
    Ok((
        StatusCode::OK,
        axum::Json(serde_json::json!({ "data": report, "meta": Meta::new(&id) })),
    )
        .into_response())
}
