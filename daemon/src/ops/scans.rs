//! Scans: what a scan request may ask for (rules, limits, patterns, the page
//! budget under the service's ceiling), starting one under the plan's page
//! cap and daily quota, reading, listing and canceling scans, and loading
//! their reports.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sitescan_engine::baseline::{apply_baseline, parse_report};
use sitescan_engine::config::{StatusRange, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES};
use sitescan_engine::{PageBudget, Report};
use sitescan_rules::{registry, Category};

use crate::error::{Error, Problems, Result};
use crate::queue::Job;
use crate::state::{ApiSettings, AppState, RenderWorkers};
use crate::store::{new_id, Account, AppliedConfig, Page, Scan, ScanStatus, Store};
use crate::views::{BudgetParam, RenderOptionsParam, RenderReadiness, WaitingReason};

/// Rule entries accepted in one request.
pub const MAX_RULES: usize = 50;
/// Largest `max_pages` a request may ask for.
pub const MAX_PAGES_LIMIT: u64 = 100_000;
/// Largest `max_depth` a request may ask for.
pub const MAX_DEPTH_LIMIT: u64 = 50;

/// The rules a type-specific endpoint runs when none are named.
pub fn default_rules(category: Category) -> Vec<String> {
    match category {
        Category::Accessibility => vec!["wcag-aa".to_string()],
        other => vec![other.as_str().to_string()],
    }
}

/// Checks the requested rules (and, for a type endpoint, that each stays in
/// its category).
pub fn validate_rules(rules: &[String], category: Option<Category>) -> Result<()> {
    if rules.is_empty() {
        return Err(Error::invalid(
            "config.rules",
            "give at least one rule set or rule id, e.g. [\"wcag-aa\"]",
        ));
    }
    if rules.len() > MAX_RULES {
        return Err(Error::invalid(
            "config.rules",
            format!("at most {MAX_RULES} entries"),
        ));
    }
    let mut problems = Problems::default();
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
            problems.add(field, problem);
        }
    }
    problems.finish()?;
    // The engine refuses to run nothing; say so now rather than fail the scan.
    match registry::select(rules) {
        Ok(sel) if sel.is_empty() => Err(Error::invalid(
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
fn parse_accept(list: &[String]) -> Result<Vec<String>> {
    if list.is_empty() || list.len() > MAX_ACCEPT_ENTRIES {
        return Err(Error::invalid(
            "config.accept",
            format!("give 1 to {MAX_ACCEPT_ENTRIES} status codes or ranges, e.g. [\"200..=299\", \"403\"]"),
        ));
    }
    let mut problems = Problems::default();
    let mut out = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        match entry.parse::<StatusRange>() {
            Ok(r) => out.push(r.to_string()),
            Err(problem) => problems.add(format!("config.accept[{i}]"), problem),
        }
    }
    problems.finish().map(|()| out)
}

/// Most patterns in `config.include` or `config.exclude`.
pub const MAX_PATTERNS: usize = 20;
/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 500;

/// Checks URL patterns (`config.include`, `config.exclude`) the way the crawl
/// will use them: each must compile as a regular expression (the engine's
/// own compiler, so what passes here cannot fail the scan later). Every bad
/// entry is named.
pub(crate) fn validate_patterns(field: &str, patterns: &[String], problems: &mut Problems) {
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
pub struct NewScan {
    /// Rule sets and rule ids.
    pub rules: Vec<String>,
    /// Queue priority.
    pub priority: sitescan_engine::Priority,
    /// Pages asked for (capped by the plan); `None`: the default.
    pub max_pages: Option<u64>,
    /// Depth asked for; `None`: the default.
    pub max_depth: Option<u64>,
    /// The type of a type-specific endpoint: rules must stay within it.
    pub category: Option<Category>,
    /// Final statuses of link checks that count as working, as asked
    /// (`config.accept`); `None`: the default.
    pub accept: Option<Vec<String>>,
    /// The page budget asked for (`config.budget`); `None`: the defaults.
    pub budget: Option<BudgetParam>,
    /// Which link and resource URLs are checked (`config.links`).
    pub links: sitescan_engine::LinkScope,
    /// Only URLs matching one of these are crawled (`config.include`).
    pub include: Vec<String>,
    /// URLs matching any of these are not crawled (`config.exclude`).
    pub exclude: Vec<String>,
    /// Render mode (`config.render`).
    pub render: bool,
    /// How render mode waits (`config.render_options`).
    pub render_options: Option<RenderOptionsParam>,
}

/// Longest quiet period a scan may ask render mode for, milliseconds.
pub const MAX_RENDER_QUIET_MS: u64 = 10_000;
/// Shortest and longest wait for one rendered page a scan may ask for,
/// milliseconds: a page gets at least a moment to run its scripts, and no
/// scan holds a browser tab for more than a minute per page.
pub const RENDER_MAX_WAIT_MS: std::ops::RangeInclusive<u64> = 100..=60_000;
/// Most pictures a scan may ask for (`render_options.screenshots.max`).
pub const MAX_SCREENSHOTS: usize = 1000;
/// Most bytes of pictures a scan may ask for
/// (`render_options.screenshots.max_bytes`).
pub const MAX_SCREENSHOT_BYTES: u64 = 100 * 1024 * 1024;
/// Longest CSS selector of `wait: {"selector": ...}`, in characters.
pub const MAX_RENDER_SELECTOR_CHARS: usize = 200;

/// What `config.render: true` is told when this service's workers cannot
/// render.
pub const CANNOT_RENDER: &str = "this service cannot render: no browser was found where it runs scans (its operator installs Debian's `chromium` package, or sets SITESCAN_CHROMIUM, and restarts it); leave `render` out for a static scan";

/// Checks render mode's request: options only with `render: true`, each
/// within its bounds, a selector the engine will accept (its own parser, so
/// what passes here cannot fail the scan later), and a service that can
/// render at all. Returns the options as applied (defaults filled in), or
/// `None` for a static scan.
fn apply_render(
    settings: &ApiSettings,
    render: bool,
    asked: Option<RenderOptionsParam>,
    problems: &mut Problems,
) -> Option<sitescan_engine::RenderOptions> {
    if !render {
        if asked.is_some() {
            problems.add(
                "config.render_options",
                "only with \"render\": true (render options say how a browser waits for a page)",
            );
        }
        return None;
    }
    if settings.render_workers == (RenderWorkers::InProcess { render: false }) {
        problems.add("config.render", CANNOT_RENDER);
    }
    let asked = asked.unwrap_or_default();
    let mut options = sitescan_engine::RenderOptions::default();
    if let Some(quiet) = asked.quiet_ms {
        if quiet > MAX_RENDER_QUIET_MS {
            problems.add(
                "config.render_options.quiet_ms",
                format!("give 0 to {MAX_RENDER_QUIET_MS} milliseconds"),
            );
        }
        options.quiet_ms = quiet;
    }
    if let Some(max_wait) = asked.max_wait_ms {
        if !RENDER_MAX_WAIT_MS.contains(&max_wait) {
            problems.add(
                "config.render_options.max_wait_ms",
                format!(
                    "give {} to {} milliseconds",
                    RENDER_MAX_WAIT_MS.start(),
                    RENDER_MAX_WAIT_MS.end()
                ),
            );
        }
        options.max_wait_ms = max_wait;
    }
    if let Some(shots) = asked.screenshots {
        if let Some(enabled) = shots.enabled {
            options.screenshots.enabled = enabled;
        }
        if let Some(max) = shots.max {
            if max > MAX_SCREENSHOTS {
                problems.add(
                    "config.render_options.screenshots.max",
                    format!("give 0 to {MAX_SCREENSHOTS} pictures"),
                );
            }
            options.screenshots.max = max;
        }
        if let Some(bytes) = shots.max_bytes {
            if bytes > MAX_SCREENSHOT_BYTES {
                problems.add(
                    "config.render_options.screenshots.max_bytes",
                    format!("give 0 to {MAX_SCREENSHOT_BYTES} bytes"),
                );
            }
            options.screenshots.max_bytes = bytes;
        }
    }
    if let Some(throttle) = asked.throttle.as_deref() {
        match throttle.parse::<sitescan_engine::Throttle>() {
            Ok(t) => options.throttle = t,
            Err(_) => problems.add(
                "config.render_options.throttle",
                "give \"none\", \"mobile\" or \"desktop\"",
            ),
        }
    }
    if let Some(v) = asked.viewport {
        let mut side = |name: &str, pixels: u64| match u32::try_from(pixels)
            .ok()
            .filter(|p| sitescan_engine::VIEWPORT_SIDE.contains(p))
        {
            Some(p) => p,
            None => {
                problems.add(
                    format!("config.render_options.viewport.{name}"),
                    sitescan_engine::ViewportSize::bounds(),
                );
                0
            }
        };
        let width = side("width", v.width);
        let height = side("height", v.height);
        options.viewport = Some(sitescan_engine::ViewportSize { width, height });
    }
    if let Some(wait) = asked.wait {
        if let sitescan_engine::RenderWait::Selector(sel) = &wait {
            if let Err(problem) = check_wait_selector(sel) {
                problems.add("config.render_options.wait.selector", problem);
                return Some(options);
            }
        }
        options.wait = wait;
    }
    Some(options)
}

/// Reads a longest wait per rendered page given in seconds (fractions
/// allowed, as people type it: `15`, `0.5`) as the milliseconds of
/// `render_options.max_wait_ms`, within [`RENDER_MAX_WAIT_MS`]. `Err` says
/// what to give. `--max-wait` and the dashboard's "Longest wait" read with
/// this.
pub fn max_wait_ms_from_secs(s: &str) -> std::result::Result<u64, String> {
    let (least, most) = (*RENDER_MAX_WAIT_MS.start(), *RENDER_MAX_WAIT_MS.end());
    let range = || {
        format!(
            "give {} to {} seconds (e.g. 15 or 0.5)",
            least as f64 / 1000.0,
            most as f64 / 1000.0
        )
    };
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds: {}", range()))?;
    let ms = secs * 1000.0;
    if !ms.is_finite() || ms < least as f64 || ms > most as f64 {
        return Err(range());
    }
    Ok(ms.round() as u64)
}

/// Checks the CSS selector of `wait: {"selector": ...}` as the scan will use
/// it: 1 to [`MAX_RENDER_SELECTOR_CHARS`] characters the engine's own
/// selector parser accepts (so what passes here cannot fail the scan later).
/// `Err` says what to give. The API, the dashboard and `remote scan`'s
/// `--wait-selector` all check with this.
pub fn check_wait_selector(sel: &str) -> std::result::Result<(), String> {
    if sel.trim().is_empty() || sel.chars().count() > MAX_RENDER_SELECTOR_CHARS {
        return Err(format!(
            "give a CSS selector of 1 to {MAX_RENDER_SELECTOR_CHARS} characters"
        ));
    }
    let probe = sitescan_engine::ScanConfig {
        render: true,
        render_options: sitescan_engine::RenderOptions {
            wait: sitescan_engine::RenderWait::Selector(sel.to_string()),
            ..Default::default()
        },
        ..Default::default()
    };
    match sitescan_engine::Scanner::builder().config(probe).build() {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("`{sel}` is not a CSS selector")),
    }
}

/// Whether render scans can run now, for `/readyz`: on `serve`'s own
/// workers, whether they render at all and whether their browser starts
/// (after failed starts it says why, and when the next start is tried); on
/// a fleet, whether a render worker is alive. `None` when the queue cannot
/// be asked.
pub async fn render_readiness(state: &AppState) -> Option<RenderReadiness> {
    let unavailable = |problem: String, retry_in_s: Option<u64>| RenderReadiness {
        available: false,
        problem: Some(problem),
        retry_in_s,
    };
    let available = RenderReadiness {
        available: true,
        problem: None,
        retry_in_s: None,
    };
    match state.settings.render_workers {
        RenderWorkers::InProcess { render: false } => Some(unavailable(CANNOT_RENDER.into(), None)),
        RenderWorkers::InProcess { render: true } => match sitescan_engine::browser::health() {
            sitescan_engine::browser::BrowserHealth::Failing {
                error, retry_in, ..
            } => Some(unavailable(
                error,
                Some(retry_in.as_secs_f64().ceil() as u64),
            )),
            _ => Some(available),
        },
        RenderWorkers::Fleet => match state.queue.render_available().await {
            Ok(true) => Some(available),
            Ok(false) => Some(unavailable(WaitingReason::no_render_worker().message, None)),
            Err(e) => {
                tracing::warn!(error = %e, "cannot tell whether a render worker is alive");
                None
            }
        },
    }
}

/// Why a queued scan waits, when it waits for a worker that is not there: a
/// render scan while no worker that renders is alive. `None` for any other
/// scan, and whenever the queue cannot be asked (a reason is a hint, never
/// an error of the request).
pub async fn waiting_reason(state: &AppState, scan: &Scan) -> Option<WaitingReason> {
    waiting_reasons(state, std::slice::from_ref(scan))
        .await
        .pop()
        .flatten()
}

/// [`waiting_reason`] of each scan of a list, asking the queue at most once.
pub async fn waiting_reasons(state: &AppState, scans: &[Scan]) -> Vec<Option<WaitingReason>> {
    let waits = |s: &Scan| s.status == ScanStatus::Queued && s.config.render;
    let available = if !scans.iter().any(waits) {
        true
    } else {
        match state.settings.render_workers {
            RenderWorkers::InProcess { render } => render,
            RenderWorkers::Fleet => match state.queue.render_available().await {
                Ok(available) => available,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot tell whether a render worker is alive");
                    true
                }
            },
        }
    };
    scans
        .iter()
        .map(|s| (waits(s) && !available).then(WaitingReason::no_render_worker))
        .collect()
}

/// The page budget a scan asked for, held under the service's `ceiling`: each
/// limit given must lie within it (else 422 naming the field and the range),
/// each limit not given is the default held under it.
fn apply_budget(asked: BudgetParam, ceiling: &PageBudget) -> Result<PageBudget> {
    let defaults = PageBudget::DEFAULT.min(ceiling);
    // Every limit is checked (each bad one named), then the problems, if
    // any, are the answer.
    let problems = std::cell::RefCell::new(Problems::default());
    let limit = |value: Option<u64>, key: &str, least: u64, most: u64, default: u64| match value {
        None => Ok::<u64, Error>(default),
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
/// the one code path of the scan endpoints and the dashboard's "Scan now".
pub async fn start_scan(
    state: &AppState,
    account: &Account,
    site_id: &str,
    request: NewScan,
) -> Result<Scan> {
    start_scan_for(state, account, site_id, request, None).await
}

/// Checks a scan request without starting it: every problem at once, the
/// plan's page cap applied. What [`start_scan`] does first; schedules check
/// their scan `config` with it when saved.
pub fn applied_config(
    settings: &ApiSettings,
    account: &Account,
    request: NewScan,
) -> Result<AppliedConfig> {
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
        render,
        render_options,
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
        apply_budget(budget.unwrap_or_default(), &settings.page_budget),
    );
    validate_patterns("config.include", &include, &mut problems);
    validate_patterns("config.exclude", &exclude, &mut problems);
    let render_options = apply_render(settings, render, render_options, &mut problems);
    problems.finish()?;
    let budget = budget.unwrap_or(PageBudget::DEFAULT);
    let plan = account.plan;
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
        render,
        render_options,
    };
    Ok(applied)
}

/// [`start_scan`] for the scheduler: the scan records the schedule that
/// started it and the time of that run (`schedule_id`, `scheduled_for`).
pub async fn start_scan_for(
    state: &AppState,
    account: &Account,
    site_id: &str,
    request: NewScan,
    run: Option<(String, DateTime<Utc>)>,
) -> Result<Scan> {
    let (schedule_id, scheduled_for) = run.unzip();
    let applied = applied_config(&state.settings, account, request)?;
    let site = state
        .store
        .site(&account.id, site_id)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
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
        schedule_id,
        scheduled_for,
    };
    let scan = state
        .store
        .create_scan_if_quota(scan, now.date_naive(), account.plan.scans_per_day())
        .await?;
    state.queue.enqueue(Job::of(&scan)).await?;
    Ok(scan)
}

/// The problem of a `cursor` this endpoint did not return.
pub const BAD_CURSOR: &str =
    "not a cursor this endpoint returned for this site; pass meta.next_cursor of the previous page, or leave cursor out for the first page";

/// Cancels a scan of `account_id` (the store writes the `scan.canceled`
/// event with the cancel, once). A scan canceled while still queued is given
/// back to the day's quota; one canceled while running still counts.
pub async fn cancel_scan(store: &dyn Store, account_id: &str, scan_id: &str) -> Result<Scan> {
    // The worker sees the cancel through the store; the job is dropped when taken.
    store.cancel_scan(account_id, scan_id, Utc::now()).await
}

/// One scan of the account (`scan` not found when it is none of its).
pub async fn scan(store: &dyn Store, account_id: &str, scan_id: &str) -> Result<Scan> {
    store
        .scan(account_id, scan_id)
        .await?
        .ok_or_else(|| Error::not_found("scan", scan_id))
}

/// A page of a site's scans, newest first, `limit` of them after `cursor`
/// (the id of the last scan of the previous page). A cursor that is not a
/// scan of this site in this account is refused rather than read as "from
/// the start", which would silently repeat page one.
pub async fn list_scans(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<Scan>> {
    store
        .site(account_id, site_id)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
    if let Some(c) = cursor {
        let known = store
            .scan(account_id, c)
            .await?
            .is_some_and(|s| s.site_id == site_id);
        if !known {
            return Err(Error::invalid("cursor", BAD_CURSOR));
        }
    }
    store.list_scans(account_id, site_id, cursor, limit).await
}

/// The stored JSON report of a completed scan of the account, as stored.
pub async fn report_bytes(store: &dyn Store, account_id: &str, scan_id: &str) -> Result<Vec<u8>> {
    let scan = scan(store, account_id, scan_id).await?;
    if scan.status != ScanStatus::Completed {
        return Err(Error::NotReady(format!(
            "scan `{scan_id}` is {}: a report exists once it is completed",
            scan.status.as_str()
        )));
    }
    store
        .report(scan_id)
        .await?
        .ok_or_else(|| Error::Corrupt(format!("completed scan {scan_id} has no report")))
}

/// The report of a completed scan of the account. Parsed on the blocking
/// pool: a report of thousands of pages takes seconds to parse, which would
/// stall every request sharing the async thread.
pub async fn load_report(store: &dyn Store, account_id: &str, scan_id: &str) -> Result<Report> {
    let bytes = report_bytes(store, account_id, scan_id).await?;
    let id = scan_id.to_string();
    off_async(move || {
        parse_report(&bytes)
            .map_err(|e| Error::Corrupt(format!("stored report of {id} is unusable: {e}")))
    })
    .await
}

/// Runs CPU-heavy work on a report (parsing, rendering) on the blocking pool.
pub async fn off_async<T, F>(work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Error::Storage(format!("report task failed: {e}")))?
}

/// The report of `scan_id` compared with the earlier scan `with` as
/// baseline: its findings marked new or unchanged, the fixed ones listed.
pub async fn compare_reports(
    store: &dyn Store,
    account_id: &str,
    scan_id: &str,
    with: &str,
) -> Result<Report> {
    let mut report = load_report(store, account_id, scan_id).await?;
    let baseline = load_report(store, account_id, with).await?;
    apply_baseline(&mut report, &baseline);
    Ok(report)
}
