//! Sites: list and register (the URL validated by the domain's
//! `ops::sites::register_site`), remove after a confirmation page, and per site the scan
//! history with scores, a trend chart and the "Scan now" form, which starts
//! scans through `ops::scans::start_scan` (so the plan's quota is the same).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect};
use chrono::Utc;
use maud::{html, Markup};
use sitescan_engine::{LinkScope, Priority, RenderWait};
use sitescan_rules::Category;

use super::auth::{Form, SignedIn};
use super::layout::{self, FieldErrors, Section, CATEGORIES};
use super::{DashState, PageError, PageResult};
use crate::error::Error;
use crate::ops::scans::{default_rules, max_wait_ms_from_secs, start_scan, NewScan};
use crate::ops::sites::{register_site, remove_site};
use crate::store::{Scan, ScanStatus, Site};
use crate::views::{RenderOptionsParam, ScreenshotsParam, ViewportParam};

/// The link checks of the "Scan now" form, as (form value, label).
pub const LINK_CHOICES: &[(&str, &str)] = &[
    ("all", "All links and resources, on any host"),
    ("internal", "Only this site's links and resources"),
    ("none", "None beyond the pages crawled"),
];

/// Scans shown in a site's history (and its trend).
pub const HISTORY: usize = 20;

fn category(value: &str) -> Option<Category> {
    match value {
        "accessibility" => Some(Category::Accessibility),
        "seo" => Some(Category::Seo),
        "security" => Some(Category::Security),
        "performance" => Some(Category::Performance),
        "quality" => Some(Category::Quality),
        _ => None,
    }
}

async fn scans_today(state: &DashState, me: &SignedIn) -> Result<u32, PageError> {
    Ok(state
        .app
        .store
        .scans_created_on(&me.account.id, Utc::now().date_naive())
        .await?)
}

#[derive(Debug, Default)]
struct SiteDraft {
    url: String,
    name: String,
}

async fn render_list(
    state: &DashState,
    me: &SignedIn,
    draft: &SiteDraft,
    errors: &FieldErrors,
    notice: Option<&str>,
) -> Result<Html<String>, PageError> {
    let sites = state.app.store.list_sites(&me.account.id).await?;
    let mut last: Vec<Option<Scan>> = Vec::with_capacity(sites.len());
    for site in &sites {
        let page = state
            .app
            .store
            .list_scans(&me.account.id, &site.id, None, 1)
            .await?;
        last.push(page.items.into_iter().next());
    }
    let used = scans_today(state, me).await?;
    let main = html! {
        @if let Some(n) = notice { p.notice role="status" { (n) } }
        (layout::scans_left(&me.account, used))
        h2 id="sites-heading" { "Your sites" }
        @if sites.is_empty() {
            p { "No sites yet: register one below." }
        } @else {
            table aria-labelledby="sites-heading" id="sites" {
                thead { tr {
                    th scope="col" { "Name" } th scope="col" { "Start URL" }
                    th scope="col" { "Registered" } th scope="col" { "Last scan" } th scope="col" { "Actions" }
                } }
                tbody {
                    @for (site, last) in sites.iter().zip(&last) {
                        tr {
                            th scope="row" { a href=(format!("/sites/{}", site.id)) { (site.name) } }
                            td.url { (site.url) }
                            td { (layout::when(site.created_at)) }
                            td {
                                @match last {
                                    Some(scan) => {
                                        a href=(format!("/scans/{}", scan.id)) { (layout::when(scan.created_at)) }
                                        " " (status_badge(scan.status))
                                    },
                                    None => "None yet",
                                }
                            }
                            td { a href=(format!("/sites/{}/remove", site.id)) aria-label=(format!("Remove {}", site.name)) { "Remove" } }
                        }
                    }
                }
            }
        }
        h2 id="register-heading" { "Register a site" }
        (layout::error_summary(errors))
        form method="post" action="/sites" aria-labelledby="register-heading" novalidate {
            input type="hidden" name="csrf" value=(me.csrf);
            (layout::field(&layout::Field {
                id: "url", name: "url", label: "Start URL", kind: "url", value: &draft.url,
                autocomplete: Some("url"), required: true,
                hint: Some("Where scans start, e.g. https://www.example.com/."),
            }, errors))
            (layout::field(&layout::Field {
                id: "name", name: "name", label: "Name", kind: "text", value: &draft.name,
                autocomplete: Some("off"), required: false, hint: Some("Defaults to the host name."),
            }, errors))
            button type="submit" id="register-site" { "Register site" }
        }
    };
    Ok(layout::page("Sites", Some(me.nav(Section::Sites)), main))
}

/// `GET /sites`.
pub async fn list(State(state): State<DashState>, me: SignedIn) -> PageResult {
    Ok(render_list(
        &state,
        &me,
        &SiteDraft::default(),
        &FieldErrors::default(),
        None,
    )
    .await?
    .into_response())
}

/// `POST /sites`: registers a site (same validation as `POST /api/v1/sites`).
pub async fn create(State(state): State<DashState>, me: SignedIn, form: Form) -> PageResult {
    let draft = SiteDraft {
        url: form.get("url").unwrap_or("").trim().to_string(),
        name: form.get("name").unwrap_or("").trim().to_string(),
    };
    let name = (!draft.name.is_empty()).then(|| draft.name.clone());
    let store = state.app.store.as_ref();
    let allow_private = state.app.settings.allow_private;
    match register_site(store, allow_private, &me.account.id, &draft.url, name).await {
        Ok(site) => Ok(Redirect::to(&format!("/sites/{}", site.id)).into_response()),
        Err(e @ Error::Invalid(_)) => {
            let errors = FieldErrors::from_error(&e, &[("url", "url"), ("name", "name")], "url");
            let draft = SiteDraft {
                url: without_credentials(&draft.url),
                ..draft
            };
            let page = render_list(&state, &me, &draft, &errors, None).await?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

/// The typed URL to show again in the form, without any `user:pass@` part:
/// credentials are refused, never stored, and never echoed into a page (or a
/// browser's history of it). An unparsable value with an `@` is not shown at all.
fn without_credentials(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            // Both setters fail only on URLs that cannot have credentials.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        Ok(_) => raw.to_string(),
        Err(_) if raw.contains('@') => String::new(),
        Err(_) => raw.to_string(),
    }
}

/// The status of a scan as a word with its class.
pub fn status_badge(status: ScanStatus) -> Markup {
    html! { span class=(format!("status status-{}", status.as_str())) { (status.as_str()) } }
}

fn history_table(scans: &[Scan]) -> Markup {
    html! {
        @if scans.is_empty() {
            p { "No scans yet." }
        } @else {
            table aria-labelledby="history-heading" id="history" {
                thead { tr {
                    th scope="col" { "Started" } th scope="col" { "Status" } th scope="col" { "Pages" }
                    @for (_, label) in CATEGORIES { th scope="col" class="n" { (label) } }
                } }
                tbody {
                    @for scan in scans {
                        tr {
                            th scope="row" { a href=(format!("/scans/{}", scan.id)) { (layout::when(scan.created_at)) } }
                            td { (status_badge(scan.status)) }
                            td.n { (scan.summary.as_ref().map(|s| s.pages_fetched.to_string()).unwrap_or_else(|| "–".into())) }
                            @for (cat, _) in CATEGORIES {
                                td.n {
                                    (scan.summary.as_ref()
                                        .and_then(|s| s.categories.get(*cat))
                                        .and_then(|c| c.score)
                                        .map(|s| s.to_string())
                                        .unwrap_or_else(|| "–".into()))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[derive(Debug, Default)]
struct ScanDraft {
    categories: Vec<String>,
    priority: String,
    links: String,
    /// One URL pattern a line, as typed.
    include: String,
    exclude: String,
    /// "Render with a browser" is ticked.
    render: bool,
    /// Render mode's options, as typed ([`RenderDraft`]).
    browser: RenderDraft,
}

/// The "Browser options" of the "Scan now" form, as typed: they only
/// matter when "Render with a browser" is ticked (and are only checked then).
#[derive(Debug)]
struct RenderDraft {
    /// `network-idle` or `load`.
    wait_until: String,
    /// A CSS selector to wait for instead (empty: none).
    wait_selector: String,
    /// Longest wait per page, seconds (empty: the default).
    max_wait: String,
    /// `none`, `mobile` or `desktop`.
    throttle: String,
    /// The viewport, `WIDTHxHEIGHT` (empty: the default).
    viewport: String,
    /// "Take screenshots" is ticked.
    screenshots: bool,
    /// Most screenshots per scan (empty: the default).
    max_screenshots: String,
}

impl Default for RenderDraft {
    fn default() -> Self {
        RenderDraft {
            wait_until: "network-idle".into(),
            wait_selector: String::new(),
            max_wait: String::new(),
            throttle: "none".into(),
            viewport: String::new(),
            screenshots: true,
            max_screenshots: String::new(),
        }
    }
}

/// The choices of "Wait until", as (form value, label).
pub const WAIT_CHOICES: &[(&str, &str)] = &[
    (
        "network-idle",
        "The network is idle (no request for 500 ms)",
    ),
    ("load", "The load event (then 500 ms)"),
];

/// The choices of "Throttling", as (form value, label).
pub const THROTTLE_CHOICES: &[(&str, &str)] = &[
    ("none", "None"),
    ("mobile", "Mobile: slow 4G, 4× slower CPU, a phone's screen"),
    ("desktop", "Desktop: a fast connection, a desktop screen"),
];

/// Where the API's problems with `config.render_options` show in the form.
const RENDER_FIELDS: &[(&str, &str)] = &[
    ("config.render_options.wait.selector", "wait-selector"),
    ("config.render_options.wait", "wait-until"),
    ("config.render_options.max_wait_ms", "max-wait"),
    ("config.render_options.throttle", "throttle"),
    ("config.render_options.viewport", "viewport"),
    ("config.render_options.screenshots.max", "max-screenshots"),
    ("config.render_options.screenshots", "screenshots"),
    ("config.render_options", "render"),
];

impl RenderDraft {
    fn from_form(form: &Form) -> RenderDraft {
        RenderDraft {
            wait_until: form.get("wait-until").unwrap_or("network-idle").to_string(),
            wait_selector: form.get("wait-selector").unwrap_or("").trim().to_string(),
            max_wait: form.get("max-wait").unwrap_or("").trim().to_string(),
            throttle: form.get("throttle").unwrap_or("none").to_string(),
            viewport: form.get("viewport").unwrap_or("").trim().to_string(),
            screenshots: form.get("screenshots").is_some_and(|v| v == "on"),
            max_screenshots: form.get("max-screenshots").unwrap_or("").trim().to_string(),
        }
    }

    /// The API's `render_options` of what was typed; what cannot be read is
    /// added to `errors` at its field. The bounds and the selector are the
    /// operation's to check (its problems are mapped back by
    /// [`RENDER_FIELDS`]).
    fn options(&self, errors: &mut FieldErrors) -> RenderOptionsParam {
        let wait = if !self.wait_selector.is_empty() {
            Some(RenderWait::Selector(self.wait_selector.clone()))
        } else {
            match self.wait_until.as_str() {
                "network-idle" => Some(RenderWait::NetworkIdle),
                "load" => Some(RenderWait::Load),
                _ => {
                    errors.add(
                        "wait-until",
                        "Choose the network being idle or the load event.",
                    );
                    None
                }
            }
        };
        let max_wait_ms = if self.max_wait.is_empty() {
            None
        } else {
            match max_wait_ms_from_secs(&self.max_wait) {
                Ok(ms) => Some(ms),
                Err(problem) => {
                    errors.add("max-wait", layout::sentence(&problem));
                    None
                }
            }
        };
        if self.throttle.parse::<sitescan_engine::Throttle>().is_err() {
            errors.add("throttle", "Choose none, mobile or desktop.");
        }
        let viewport = if self.viewport.is_empty() {
            None
        } else {
            match self.viewport.parse::<sitescan_engine::ViewportSize>() {
                Ok(v) => Some(ViewportParam {
                    width: v.width.into(),
                    height: v.height.into(),
                }),
                Err(problem) => {
                    errors.add("viewport", layout::sentence(&problem));
                    None
                }
            }
        };
        let max = if self.max_screenshots.is_empty() || !self.screenshots {
            None
        } else {
            match self.max_screenshots.parse::<usize>() {
                Ok(n) => Some(n),
                Err(_) => {
                    errors.add(
                        "max-screenshots",
                        "Give a whole number of pictures, such as 50 (0 takes none).",
                    );
                    None
                }
            }
        };
        RenderOptionsParam {
            wait,
            quiet_ms: None,
            max_wait_ms,
            throttle: Some(self.throttle.clone()),
            viewport,
            screenshots: Some(ScreenshotsParam {
                enabled: Some(self.screenshots),
                max,
                max_bytes: None,
            }),
        }
    }
}

/// The "Browser options" group of the "Scan now" form.
fn render_group(draft: &RenderDraft, errors: &FieldErrors) -> Markup {
    let invalid = |id: &str| errors.get(id).map(|_| "true");
    html! {
        fieldset id="render-options" aria-describedby="render-options-hint" {
            legend { "Browser options" }
            p.hint id="render-options-hint" {
                "Used only when “Render with a browser” is ticked; leave them as they are for the defaults."
            }
            (layout::select("wait-until", "Wait until", "What each page is given time for before it is checked.", WAIT_CHOICES, &draft.wait_until, errors))
            (layout::field(&layout::Field {
                id: "wait-selector", name: "wait-selector", label: "Or wait for an element (CSS selector)",
                kind: "text", value: &draft.wait_selector, autocomplete: Some("off"), required: false,
                hint: Some("When given, each page waits for an element matching it (e.g. #app h1), then 500 ms, instead."),
            }, errors))
            (layout::field(&layout::Field {
                id: "max-wait", name: "max-wait", label: "Longest wait per page, in seconds",
                kind: "text", value: &draft.max_wait, autocomplete: Some("off"), required: false,
                hint: Some("0.1 to 60 (default 10). Past it the page is checked as it is."),
            }, errors))
            (layout::select("throttle", "Throttling", "The network and CPU pages are loaded with, for their Web Vitals.", THROTTLE_CHOICES, &draft.throttle, errors))
            (layout::field(&layout::Field {
                id: "viewport", name: "viewport", label: "Viewport (width x height, in pixels)",
                kind: "text", value: &draft.viewport, autocomplete: Some("off"), required: false,
                hint: Some("Each side 200 to 4000, such as 800x600. Empty: 1280x720, or the throttling preset's own screen."),
            }, errors))
            div.field {
                (layout::field_notes("screenshots", Some("A highlighted picture of each failing element and a thumbnail of each page, shown in the report."), errors))
                label {
                    input type="checkbox" name="screenshots" value="on" id="screenshots" checked[draft.screenshots]
                        aria-invalid=[invalid("screenshots")]
                        aria-describedby=[layout::describedby("screenshots", true, errors)];
                    " Take screenshots"
                }
            }
            (layout::field(&layout::Field {
                id: "max-screenshots", name: "max-screenshots", label: "Most screenshots per scan",
                kind: "text", value: &draft.max_screenshots, autocomplete: Some("off"), required: false,
                hint: Some("0 to 1000 (default 200); at most 20 MB of pictures in any case."),
            }, errors))
        }
    }
}

/// The non-empty lines of a textarea, trimmed: one pattern each.
fn patterns(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

async fn render_site(
    state: &DashState,
    me: &SignedIn,
    site: &Site,
    draft: &ScanDraft,
    errors: &FieldErrors,
) -> Result<Html<String>, PageError> {
    let page = state
        .app
        .store
        .list_scans(&me.account.id, &site.id, None, HISTORY)
        .await?;
    let used = scans_today(state, me).await?;
    let block = super::quota::scan_block(&me.account, used, Utc::now());
    let checked = |cat: &str| {
        if draft.categories.is_empty() {
            cat == "accessibility"
        } else {
            draft.categories.iter().any(|c| c == cat)
        }
    };
    let priority = if draft.priority.is_empty() {
        "normal"
    } else {
        draft.priority.as_str()
    };
    let links = if draft.links.is_empty() {
        "all"
    } else {
        draft.links.as_str()
    };
    let schedules = super::schedules::section(
        state,
        me,
        site,
        &super::schedules::ScheduleDraft::default(),
        &FieldErrors::default(),
    )
    .await?;
    let credentials = super::credentials::section(state, me, site, &FieldErrors::default()).await?;
    let main = html! {
        p { "Start URL: " a href=(site.url) { (site.url) } }
        h2 id="scan-heading" { "Scan now" }
        (layout::scans_left(&me.account, used))
        (layout::error_summary(errors))
        form method="post" action=(format!("/sites/{}/scans", site.id)) aria-labelledby="scan-heading" novalidate {
            input type="hidden" name="csrf" value=(me.csrf);
            fieldset id="categories" aria-describedby=[layout::describedby("categories", false, errors)] {
                legend { "What to check" }
                (layout::field_notes("categories", None, errors))
                @for (value, label) in CATEGORIES {
                    label {
                        input type="checkbox" name="categories" value=(value) id=(format!("cat-{value}")) checked[checked(value)];
                        " " (label)
                    }
                }
            }
            div.field {
                label for="priority" { "Priority" }
                (layout::field_notes("priority", None, errors))
                select id="priority" name="priority" aria-describedby=[layout::describedby("priority", false, errors)] {
                    @for p in ["low", "normal", "high"] {
                        option value=(p) selected[p == priority] { (p) }
                    }
                }
            }
            div.field {
                label for="links" { "Links to check" }
                (layout::field_notes("links", Some("Whether the scan checks that the links and resources it finds answer. In a network that cannot reach other sites, check only this site's."), errors))
                select id="links" name="links" aria-describedby=[layout::describedby("links", true, errors)] {
                    @for (value, label) in LINK_CHOICES {
                        option value=(value) selected[*value == links] { (label) }
                    }
                }
            }
            div.field {
                label for="include" { "Only crawl URLs matching (optional)" }
                (layout::field_notes("include", Some("One pattern a line: a regular expression found anywhere in the URL, such as /docs/. Leave empty to crawl the whole site."), errors))
                textarea id="include" name="include" rows="2"
                    aria-invalid=[errors.get("include").map(|_| "true")]
                    aria-describedby=[layout::describedby("include", true, errors)] { (draft.include) }
            }
            div.field {
                label for="exclude" { "Skip URLs matching (optional)" }
                (layout::field_notes("exclude", Some("One pattern a line, as above: matching URLs are not crawled."), errors))
                textarea id="exclude" name="exclude" rows="2"
                    aria-invalid=[errors.get("exclude").map(|_| "true")]
                    aria-describedby=[layout::describedby("exclude", true, errors)] { (draft.exclude) }
            }
            div.field {
                (layout::field_notes("render", Some("Loads each page in headless Chromium and checks the page people see once its scripts ran (pages built by JavaScript). Slower than the default, which checks the HTML the server sends."), errors))
                label {
                    input type="checkbox" name="render" value="on" id="render" checked[draft.render]
                        aria-invalid=[errors.get("render").map(|_| "true")]
                        aria-describedby=[layout::describedby("render", true, errors)];
                    " Render with a browser (JavaScript)"
                }
            }
            (render_group(&draft.browser, errors))
            @if let Some(b) = &block { (super::quota::reason(b)) }
            button type="submit" id="scan-now" disabled[block.is_some()]
                aria-describedby=[block.as_ref().map(|_| super::quota::REASON_ID)] { "Scan now" }
        }
        h2 id="trend-heading" { "Trend" }
        (super::trend::section(&page.items))
        h2 id="history-heading" { "Scan history" }
        (history_table(&page.items))
        (schedules)
        (credentials)
        p { a href=(format!("/sites/{}/remove", site.id)) { "Remove this site" } }
    };
    Ok(layout::page(&site.name, Some(me.nav(Section::Sites)), main))
}

/// `GET /sites/{siteId}`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let site = me.own_site(&state, &id).await?;
    Ok(render_site(
        &state,
        &me,
        &site,
        &ScanDraft::default(),
        &FieldErrors::default(),
    )
    .await?
    .into_response())
}

/// `POST /sites/{siteId}/scans`: "Scan now", through the API's `start_scan`.
pub async fn scan_now(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    form: Form,
) -> PageResult {
    let site = me.own_site(&state, &id).await?;
    let draft = ScanDraft {
        categories: form
            .all("categories")
            .into_iter()
            .map(str::to_string)
            .collect(),
        priority: form.get("priority").unwrap_or("normal").to_string(),
        links: form.get("links").unwrap_or("all").to_string(),
        include: form.get("include").unwrap_or("").to_string(),
        exclude: form.get("exclude").unwrap_or("").to_string(),
        render: form.get("render").is_some_and(|v| v == "on"),
        browser: RenderDraft::from_form(&form),
    };
    let mut errors = FieldErrors::default();
    let mut rules: Vec<String> = Vec::new();
    for value in &draft.categories {
        match category(value) {
            Some(cat) => rules.extend(default_rules(cat)),
            None => errors.add("categories", format!("Unknown category “{value}”.")),
        }
    }
    if draft.categories.is_empty() {
        errors.add("categories", "Choose at least one category.");
    }
    let priority = draft.priority.parse::<Priority>().unwrap_or_else(|_| {
        errors.add("priority", "Choose low, normal or high.");
        Priority::Normal
    });
    let links = draft.links.parse::<LinkScope>().unwrap_or_else(|_| {
        errors.add("links", "Choose all, internal or none.");
        LinkScope::All
    });
    // The browser options only matter (and are only checked) for a render
    // scan.
    let render_options = draft.render.then(|| draft.browser.options(&mut errors));
    if errors.is_empty() {
        let request = NewScan {
            rules,
            priority,
            max_pages: None,
            max_depth: None,
            category: None,
            accept: None,
            budget: None,
            links,
            include: patterns(&draft.include),
            exclude: patterns(&draft.exclude),
            render: draft.render,
            render_options,
        };
        match start_scan(&state.app, &me.account, &site.id, request).await {
            Ok(scan) => return Ok(Redirect::to(&format!("/scans/{}", scan.id)).into_response()),
            Err(Error::QuotaExceeded { .. }) => {
                let plan = layout::plan_name(me.account.plan);
                let problem = match me.account.plan.scans_per_day() {
                    Some(0) | None => format!(
                        "The {plan} plan includes no scans: scans need the Professional or Enterprise plan."
                    ),
                    Some(n) => format!(
                        "No scans left today: the {plan} plan allows {n} scans per day (UTC). Try again after midnight UTC, or upgrade the plan."
                    ),
                };
                errors.add("categories", problem);
                let page = render_site(&state, &me, &site, &draft, &errors).await?;
                return Ok((StatusCode::TOO_MANY_REQUESTS, page).into_response());
            }
            Err(e @ Error::Invalid(_)) => {
                let fields: Vec<(&str, &str)> = [
                    ("config.include", "include"),
                    ("config.exclude", "exclude"),
                    ("config.render", "render"),
                ]
                .into_iter()
                .chain(RENDER_FIELDS.iter().copied())
                .collect();
                errors = FieldErrors::from_error(&e, &fields, "categories");
            }
            Err(e) => return Err(e.into()),
        }
    }
    let page = render_site(&state, &me, &site, &draft, &errors).await?;
    Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
}

/// `GET /sites/{siteId}/remove`: the confirmation step.
pub async fn remove_confirm(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let site = me.own_site(&state, &id).await?;
    let main = html! {
        p { "Remove “" (site.name) "” (" (site.url) ")? Its past scans stay readable by their links; no new scans can be started." }
        form method="post" action=(format!("/sites/{}/remove", site.id)) {
            input type="hidden" name="csrf" value=(me.csrf);
            div.actions {
                button.danger type="submit" id="confirm-remove" { "Remove site" }
                a href=(format!("/sites/{}", site.id)) { "Cancel" }
            }
        }
    };
    Ok(layout::page("Remove site", Some(me.nav(Section::Sites)), main).into_response())
}

/// `POST /sites/{siteId}/remove`.
pub async fn remove(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    remove_site(state.app.store.as_ref(), &me.account.id, &id).await?;
    Ok(Redirect::to("/sites").into_response())
}
