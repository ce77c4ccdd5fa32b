//! Settings → API Keys: create a key (shown exactly once), list keys with
//! their use, revoke one after a confirmation page. Creation and revocation
//! are `ops::keys::create_key` / `revoke_key`, shared with the admin CLI.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect};
use chrono::{Duration, Utc};
use maud::{html, Markup};
use serde::Deserialize;

use super::auth::{Form, SignedIn};
use super::layout::{self, FieldErrors, Section};
use super::{DashState, PageError, PageResult};
use crate::error::Error;
use crate::ops::keys::{create_key, revoke_key, KeyLifetime, DEFAULT_KEY_DAYS};
use crate::store::{ApiKey, Plan};

/// The expiration choices of the form: (value, label). `never` is
/// `expires_at: null`, as everywhere.
pub const EXPIRATIONS: &[(&str, &str)] = &[
    ("30", "30 days"),
    ("60", "60 days"),
    ("90", "90 days"),
    ("180", "180 days"),
    ("365", "365 days"),
    ("never", "Never"),
];
/// Days of usage drawn per key.
pub const USAGE_DAYS: i64 = 30;

/// Parses an expiration choice of [`EXPIRATIONS`].
pub fn parse_expiration(value: &str) -> Option<KeyLifetime> {
    match value {
        "never" => Some(KeyLifetime::Never),
        v => EXPIRATIONS
            .iter()
            .find(|(c, _)| *c == v)
            .and_then(|(c, _)| c.parse::<i64>().ok())
            .map(|d| KeyLifetime::For(Duration::days(d))),
    }
}

/// What the create form holds (re-shown with errors).
#[derive(Debug, Default, Clone)]
struct Draft {
    name: String,
    description: String,
    expires: String,
}

fn plan_notice(plan: Plan) -> Markup {
    html! {
        @if !plan.api_access() {
            p.warning id="plan-api" {
                "API access needs the Professional or Enterprise plan. Your account is on the "
                (layout::plan_name(plan)) " plan: its keys are refused by the API (403 plan_not_allowed) until it is upgraded."
            }
        }
    }
}

fn create_form(me: &SignedIn, draft: &Draft, errors: &FieldErrors) -> Markup {
    let default = DEFAULT_KEY_DAYS.to_string();
    let selected = if draft.expires.is_empty() {
        default.as_str()
    } else {
        draft.expires.as_str()
    };
    html! {
        h2 id="create-heading" { "Create a key" }
        (layout::error_summary(errors))
        form method="post" action="/settings/keys" aria-labelledby="create-heading" novalidate {
            input type="hidden" name="csrf" value=(me.csrf);
            (layout::field(&layout::Field {
                id: "name", name: "name", label: "Name", kind: "text", value: &draft.name,
                autocomplete: Some("off"), required: true, hint: Some("For example the pipeline that uses it."),
            }, errors))
            div.field {
                label for="description" { "Description (optional)" }
                (layout::field_notes("description", None, errors))
                textarea id="description" name="description" rows="2"
                    aria-invalid=[errors.get("description").map(|_| "true")]
                    aria-describedby=[layout::describedby("description", false, errors)] { (draft.description) }
            }
            (layout::select("expires", "Expires after", "The default is 90 days.", EXPIRATIONS, selected, errors))
            button type="submit" id="create-key" { "Create key" }
        }
    }
}

fn usage_chart(key: &ApiKey) -> Markup {
    let today = Utc::now().date_naive();
    let bars: Vec<(String, u64)> = (0..USAGE_DAYS)
        .rev()
        .map(|back| {
            let day = (today - Duration::days(back))
                .format("%Y-%m-%d")
                .to_string();
            let n = key.usage.get(&day).copied().unwrap_or(0);
            (day, n)
        })
        .collect();
    let total: u64 = bars.iter().map(|(_, n)| n).sum();
    let busiest = bars.iter().max_by_key(|(_, n)| *n).filter(|(_, n)| *n > 0);
    let title = match busiest {
        Some((day, n)) => format!(
            "Requests per day over the last {USAGE_DAYS} days: {total} in all, most on {day} ({n})."
        ),
        None => format!("No requests in the last {USAGE_DAYS} days."),
    };
    layout::bar_chart(&format!("usage-{}", key.id), &title, &bars)
}

fn key_state(key: &ApiKey) -> &'static str {
    if key.revoked_at.is_some() {
        "Revoked"
    } else if key.expires_at.is_some_and(|at| at <= Utc::now()) {
        "Expired"
    } else {
        "Active"
    }
}

fn keys_table(keys: &[ApiKey]) -> Markup {
    html! {
        h2 id="keys-heading" { "Your keys" }
        @if keys.is_empty() {
            p { "No keys yet." }
        } @else {
            table aria-labelledby="keys-heading" id="keys" {
                thead { tr {
                    th scope="col" { "Name" } th scope="col" { "Key" } th scope="col" { "Created" }
                    th scope="col" { "Expires" } th scope="col" { "Last used" }
                    th scope="col" { "Use, last " (USAGE_DAYS) " days" } th scope="col" { "State" }
                    th scope="col" { "Actions" }
                } }
                tbody {
                    @for key in keys {
                        tr id=(format!("key-{}", key.id)) {
                            th scope="row" {
                                (key.name)
                                @if let Some(d) = &key.description { br; span.hint { (d) } }
                            }
                            td { code { (key.prefix) "…" } }
                            td { (layout::when(key.created_at)) }
                            td { (layout::when_or(key.expires_at, "Never")) }
                            td { (layout::when_or(key.last_used_at, "Never")) }
                            td { (usage_chart(key)) }
                            td { (key_state(key)) }
                            td {
                                @if key_state(key) == "Active" {
                                    a href=(format!("/settings/keys/{}/revoke", key.id))
                                        aria-label=(format!("Revoke {}", key.name)) { "Revoke" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

async fn render_list(
    state: &DashState,
    me: &SignedIn,
    draft: &Draft,
    errors: &FieldErrors,
    notice: Option<String>,
) -> Result<Html<String>, PageError> {
    let keys = state.app.store.list_keys(Some(&me.account.id)).await?;
    let main = html! {
        @if let Some(n) = notice { p.notice role="status" { (n) } }
        (plan_notice(me.account.plan))
        p { "Send a key in the " code { "X-API-Key" } " header of every API request. A key is shown once, when it is created; only its first characters are kept for you to recognise it." }
        (create_form(me, draft, errors))
        (keys_table(&keys))
    };
    Ok(layout::page("API keys", Some(me.nav(Section::Keys)), main))
}

/// Query of the list (after a revocation).
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    revoked: Option<String>,
}

/// `GET /settings/keys`.
pub async fn list(
    State(state): State<DashState>,
    me: SignedIn,
    Query(q): Query<ListQuery>,
) -> PageResult {
    let notice = match q.revoked {
        Some(id) => state
            .app
            .store
            .key(&id)
            .await?
            .filter(|k| k.account_id == me.account.id)
            .map(|k| format!("The key “{}” is revoked: the API now refuses it.", k.name)),
        None => None,
    };
    Ok(render_list(
        &state,
        &me,
        &Draft::default(),
        &FieldErrors::default(),
        notice,
    )
    .await?
    .into_response())
}

/// `POST /settings/keys`: creates the key, then `303` to the page that shows
/// it once ([`created`]).
pub async fn create(State(state): State<DashState>, me: SignedIn, form: Form) -> PageResult {
    let draft = Draft {
        name: form.get("name").unwrap_or("").to_string(),
        description: form.get("description").unwrap_or("").to_string(),
        expires: form.get("expires").unwrap_or("").to_string(),
    };
    let lifetime = if draft.expires.is_empty() {
        Some(KeyLifetime::For(Duration::days(DEFAULT_KEY_DAYS.into())))
    } else {
        parse_expiration(&draft.expires)
    };
    let Some(lifetime) = lifetime else {
        let mut errors = FieldErrors::default();
        errors.add("expires", "Choose one of the listed periods.");
        let page = render_list(&state, &me, &draft, &errors, None).await?;
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response());
    };
    let created = create_key(
        &*state.app.store,
        &me.account.id,
        &draft.name,
        Some(draft.description.as_str()),
        lifetime,
        Utc::now(),
    )
    .await;
    let (key, secret) = match created {
        Ok(ok) => ok,
        Err(e @ Error::Invalid(_)) => {
            let errors = FieldErrors::from_error(
                &e,
                &[
                    ("name", "name"),
                    ("description", "description"),
                    ("expires_in", "expires"),
                ],
                "name",
            );
            let page = render_list(&state, &me, &draft, &errors, None).await?;
            return Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response());
        }
        Err(e) => return Err(e.into()),
    };
    // Post/redirect/get: the secret waits in the session (server-side, never
    // in a URL or a cookie) for the one page view that shows it, so reloading
    // that page neither re-sends this form nor shows the key again.
    let kept = state
        .app
        .store
        .put_flash(&me.session_hash, &flash_name(&key.id), &secret, Utc::now())
        .await?;
    if kept {
        return Ok(Redirect::to(&format!("/settings/keys/{}/created", key.id)).into_response());
    }
    // The session ended in between: a reload of this answer would meet the
    // sign-in page, not create a key, so showing the secret here is still once.
    Ok((StatusCode::CREATED, created_page(&me, &key, &secret)).into_response())
}

/// The session flash holding the secret of the new key `id`.
fn flash_name(id: &str) -> String {
    format!("key:{id}")
}

/// The page showing a new key's secret, this once.
fn created_page(me: &SignedIn, key: &ApiKey, secret: &str) -> Html<String> {
    let main = html! {
        (plan_notice(me.account.plan))
        p.warning role="status" id="key-warning" {
            strong { "Copy this key now." } " It is shown only this once: sitescan keeps only a hash of it and cannot show it again. If you lose it, revoke it and create a new one."
        }
        p { "Key “" (key.name) "”, expires " (layout::when_or(key.expires_at, "never")) ":" }
        code.secret id="new-key" { (secret) }
        div.actions {
            button type="button" data-copy="new-key" id="copy-key" hidden { "Copy key" }
            span id="new-key-copied" role="status" {}
        }
        p { "Use it as " code { "X-API-Key: " (key.prefix) "…" } " in your requests." }
        p { a href="/settings/keys" { "Done: back to API keys" } }
    };
    layout::page("Key created", Some(me.nav(Section::Keys)), main)
}

/// `GET /settings/keys/{keyId}/created`: where creating a key leads. Shows
/// the secret the first time (taking it out of the session); any later
/// visit, a reload included, says it was shown once and shows only the
/// prefix. Creates nothing.
pub async fn created(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let key = own_key(&state, &me, &id).await?;
    let secret = state
        .app
        .store
        .take_flash(&me.session_hash, &flash_name(&key.id), Utc::now())
        .await?
        .filter(|s| s.starts_with(&key.prefix));
    if let Some(secret) = secret {
        return Ok(created_page(&me, &key, &secret).into_response());
    }
    let main = html! {
        p role="status" id="key-shown" {
            "The key “" (key.name) "” was shown only once, when it was created: sitescan keeps only its first characters, "
            code { (key.prefix) "…" } ", and cannot show it again. If you did not copy it, revoke it and create a new one."
        }
        p { a href="/settings/keys" { "Back to API keys" } }
    };
    Ok(layout::page("Key already shown", Some(me.nav(Section::Keys)), main).into_response())
}

async fn own_key(state: &DashState, me: &SignedIn, id: &str) -> Result<ApiKey, PageError> {
    state
        .app
        .store
        .key(id)
        .await?
        .filter(|k| k.account_id == me.account.id)
        .ok_or_else(|| PageError::not_found("key"))
}

/// `GET /settings/keys/{keyId}/revoke`: the confirmation step.
pub async fn revoke_confirm(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let key = own_key(&state, &me, &id).await?;
    let main = html! {
        p { "Revoke the key “" (key.name) "” (" code { (key.prefix) "…" } ")? Requests with it will be refused at once (401). This cannot be undone." }
        form method="post" action=(format!("/settings/keys/{}/revoke", key.id)) {
            input type="hidden" name="csrf" value=(me.csrf);
            div.actions {
                button.danger type="submit" id="confirm-revoke" { "Revoke key" }
                a href="/settings/keys" { "Cancel" }
            }
        }
    };
    Ok(layout::page("Revoke key", Some(me.nav(Section::Keys)), main).into_response())
}

/// `POST /settings/keys/{keyId}/revoke`.
pub async fn revoke(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    let key = revoke_key(&*state.app.store, &me.account.id, &id, Utc::now()).await?;
    Ok(Redirect::to(&format!("/settings/keys?revoked={}", key.id)).into_response())
}
