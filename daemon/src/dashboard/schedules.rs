//! Scheduled scans on a site's page: the list (cadence, what runs, next run,
//! what the last run did) with enable/disable and remove buttons, and the
//! form that adds one. Every change goes through `ops::schedules`, so the
//! cron, time zone and scan checks are the API's.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use chrono::Utc;
use maud::{html, Markup};
use sitescan_rules::Category;

use super::auth::{Form, SignedIn};
use super::layout::{self, FieldErrors, Section};
use super::{DashState, PageError, PageResult};
use crate::error::Error;
use crate::ops::scans::default_rules;
use crate::ops::schedules::{cadence, change_schedule, create_schedule, remove_schedule, schedule};
use crate::store::{RunStatus, Schedule, Site};
use crate::views::schedules::{CreateSchedule, UpdateSchedule};
use crate::views::ScanRequestConfig;

/// The categories of the form, as (category, label): the "Scan now" form's
/// choices, each running its category's default rules.
const CATEGORIES: [(Category, &str); 5] = [
    (Category::Accessibility, "Accessibility (WCAG 2.1 AA)"),
    (Category::Seo, "SEO"),
    (Category::Security, "Security"),
    (Category::Performance, "Performance"),
    (Category::Quality, "Content quality"),
];

/// The category of a form value (`accessibility`, `seo`, ...).
fn category(value: &str) -> Option<Category> {
    Category::ALL.into_iter().find(|c| c.as_str() == value)
}

/// What the "Add a schedule" form was filled with.
#[derive(Debug, Default)]
pub struct ScheduleDraft {
    cron: String,
    timezone: String,
    categories: Vec<String>,
}

/// The rules of a schedule's stored config, for the list.
fn rules_of(s: &Schedule) -> String {
    s.config
        .get("rules")
        .and_then(|r| r.as_array())
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

fn last_outcome(s: &Schedule) -> Markup {
    match &s.last_outcome {
        None if s.last_run_at.is_some() => html! { "Running" },
        None => html! { "Not run yet" },
        Some(o) => match o.status {
            RunStatus::Started => html! {
                @if let Some(id) = &o.scan_id { a href=(format!("/scans/{id}")) { "Scan started" } }
                @else { "Scan started" }
            },
            RunStatus::SkippedQuota => html! { "Skipped: no scans left that day" },
            RunStatus::Error => html! { "Not started: " (o.error.as_deref().unwrap_or("error")) },
        },
    }
}

/// The site page's "Scheduled scans" section.
pub async fn section(
    state: &DashState,
    me: &SignedIn,
    site: &Site,
    draft: &ScheduleDraft,
    errors: &FieldErrors,
) -> Result<Markup, PageError> {
    let schedules = state
        .app
        .store
        .list_schedules(&me.account.id, &site.id)
        .await?;
    let timezone = if draft.timezone.is_empty() {
        "UTC"
    } else {
        draft.timezone.as_str()
    };
    let checked = |cat: &str| {
        if draft.categories.is_empty() {
            cat == "accessibility"
        } else {
            draft.categories.iter().any(|c| c == cat)
        }
    };
    Ok(html! {
        h2 id="schedules-heading" { "Scheduled scans" }
        @if schedules.is_empty() {
            p { "No schedules yet: add one below to scan this site regularly." }
        } @else {
            table aria-labelledby="schedules-heading" id="schedules" {
                thead { tr {
                    th scope="col" { "When" } th scope="col" { "Rules" } th scope="col" { "Next run" }
                    th scope="col" { "Last run" } th scope="col" { "Actions" }
                } }
                tbody {
                    @for s in &schedules {
                        tr id=(s.id) {
                            th scope="row" { code { (s.cron) } " (" (s.timezone) ")" }
                            td { (rules_of(s)) }
                            td { @if s.enabled { (layout::when_or(s.next_run_at, "None")) } @else { "Disabled" } }
                            td {
                                @if let Some(at) = s.last_run_at { (layout::when(at)) ": " }
                                (last_outcome(s))
                            }
                            td {
                                div.actions {
                                    form method="post" action=(format!("/schedules/{}/enabled", s.id)) {
                                        input type="hidden" name="csrf" value=(me.csrf);
                                        input type="hidden" name="enabled" value=(if s.enabled { "false" } else { "true" });
                                        button type="submit" aria-label=(format!("{} schedule {}", if s.enabled { "Disable" } else { "Enable" }, s.cron)) {
                                            @if s.enabled { "Disable" } @else { "Enable" }
                                        }
                                    }
                                    form method="post" action=(format!("/schedules/{}/remove", s.id)) {
                                        input type="hidden" name="csrf" value=(me.csrf);
                                        button.danger type="submit" aria-label=(format!("Remove schedule {}", s.cron)) { "Remove" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        h3 id="add-schedule-heading" { "Add a schedule" }
        p { "Scheduled scans count against the plan's scans per day like any other; a run with none left is skipped and shown here." }
        (layout::error_summary(errors))
        form method="post" action=(format!("/sites/{}/schedules", site.id)) aria-labelledby="add-schedule-heading" novalidate {
            input type="hidden" name="csrf" value=(me.csrf);
            (layout::field(&layout::Field {
                id: "sched-cron", name: "cron", label: "When (cron expression)", kind: "text", value: &draft.cron,
                autocomplete: Some("off"), required: true,
                hint: Some("Five fields: minute hour day-of-month month day-of-week, e.g. 0 6 * * 1-5 for 06:00 on weekdays. Or hourly, daily (at midnight) or weekly (Monday at midnight)."),
            }, errors))
            (layout::field(&layout::Field {
                id: "sched-timezone", name: "timezone", label: "Time zone", kind: "text", value: timezone,
                autocomplete: Some("off"), required: true,
                hint: Some("An IANA name such as Europe/Berlin, America/New_York or UTC."),
            }, errors))
            fieldset id="sched-categories" aria-describedby=[layout::describedby("sched-categories", false, errors)] {
                legend { "What to check" }
                (layout::field_notes("sched-categories", None, errors))
                @for (cat, label) in CATEGORIES {
                    @let value = cat.as_str();
                    label {
                        input type="checkbox" name="categories" value=(value) id=(format!("sched-cat-{value}")) checked[checked(value)];
                        " " (label)
                    }
                }
            }
            button type="submit" id="add-schedule" { "Add schedule" }
        }
    })
}

/// `POST /sites/{siteId}/schedules`: adds a schedule (the API's checks);
/// back to the site page, or the form again with its problems.
pub async fn create(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    form: Form,
) -> PageResult {
    let site = me.own_site(&state, &id).await?;
    let draft = ScheduleDraft {
        cron: form.get("cron").unwrap_or("").trim().to_string(),
        timezone: form.get("timezone").unwrap_or("").trim().to_string(),
        categories: form
            .all("categories")
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let mut errors = FieldErrors::default();
    let mut rules: Vec<String> = Vec::new();
    for value in &draft.categories {
        match category(value) {
            Some(cat) => rules.extend(default_rules(cat)),
            None => errors.add("sched-categories", format!("Unknown category “{value}”.")),
        }
    }
    if draft.categories.is_empty() {
        errors.add("sched-categories", "Choose at least one category.");
    }
    let fields: &[(&str, &str)] = &[
        ("cron", "sched-cron"),
        ("timezone", "sched-timezone"),
        ("config", "sched-categories"),
    ];
    if !errors.is_empty() {
        // The other fields' problems are shown at once too.
        let zone = if draft.timezone.is_empty() {
            "UTC"
        } else {
            &draft.timezone
        };
        if let Err(e) = cadence(
            &draft.cron,
            zone,
            state.app.settings.schedule_min_interval,
            Utc::now(),
        ) {
            let found = FieldErrors::from_error(&e, fields, "sched-cron");
            for id in ["sched-cron", "sched-timezone"] {
                if let Some(problem) = found.get(id) {
                    errors.add(id, problem.to_string());
                }
            }
        }
    } else {
        let body = CreateSchedule {
            cron: draft.cron.clone(),
            timezone: (!draft.timezone.is_empty()).then(|| draft.timezone.clone()),
            config: ScanRequestConfig {
                rules: Some(rules),
                ..ScanRequestConfig::default()
            },
            enabled: None,
        };
        match create_schedule(
            state.app.store.as_ref(),
            &state.app.settings,
            &me.account,
            &site.id,
            body,
        )
        .await
        {
            Ok(s) => {
                return Ok(Redirect::to(&format!("/sites/{}#{}", site.id, s.id)).into_response())
            }
            Err(e @ Error::Invalid(_)) => {
                errors = FieldErrors::from_error(&e, fields, "sched-cron");
            }
            Err(e) => return Err(e.into()),
        }
    }
    let main = html! {
        p { a href=(format!("/sites/{}", site.id)) { "Back to " (site.name) } }
        (section(&state, &me, &site, &draft, &errors).await?)
    };
    let page = layout::page(
        &format!("Schedules of {}", site.name),
        Some(me.nav(Section::Sites)),
        main,
    );
    Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
}

/// `POST /schedules/{scheduleId}/enabled`: enables (`enabled=true`) or
/// disables (`enabled=false`) a schedule; back to its site.
pub async fn set_enabled(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    form: Form,
) -> PageResult {
    let enabled = match form.get("enabled") {
        Some("true") => true,
        Some("false") => false,
        _ => {
            return Err(PageError {
                status: StatusCode::BAD_REQUEST,
                title: "Cannot do that",
                message: "The form must say enabled=true or enabled=false.".to_string(),
                internal: None,
            })
        }
    };
    let body = UpdateSchedule {
        enabled: Some(enabled),
        ..UpdateSchedule::default()
    };
    let s = change_schedule(
        state.app.store.as_ref(),
        &state.app.settings,
        &me.account,
        &id,
        body,
    )
    .await?;
    Ok(Redirect::to(&format!("/sites/{}#{}", s.site_id, s.id)).into_response())
}

/// `POST /schedules/{scheduleId}/remove`: removes a schedule (its scans
/// stay); back to its site.
pub async fn remove(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    let s = schedule(state.app.store.as_ref(), &me.account.id, &id).await?;
    remove_schedule(state.app.store.as_ref(), &me.account.id, &id).await?;
    Ok(Redirect::to(&format!("/sites/{}#schedules-heading", s.site_id)).into_response())
}
