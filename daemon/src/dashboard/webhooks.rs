//! Webhooks: list and register endpoints (the signing secret shown once),
//! enable or disable, delete after a confirmation page, and per endpoint the
//! delivery log with "Redeliver". Every change goes through the domain's
//! operations (`crate::ops::webhooks`: `register_webhook`, `change_webhook`,
//! `remove_webhook`, `redeliver_delivery`), so validation (https only, the
//! private-address predicate, known events, per-account maximum) is the same
//! as the API's.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect};
use chrono::Utc;
use maud::{html, Markup};

use super::auth::{Form, SignedIn};
use super::layout::{self, FieldErrors, Section};
use super::{DashState, PageError, PageResult};
use crate::error::Error;
use crate::ops::webhooks::{
    change_webhook, redeliver_delivery, register_webhook, remove_webhook, DELIVERIES_LISTED,
};
use crate::store::{DeliveryStatus, Webhook};
use crate::views::webhooks::{CreateWebhook, UpdateWebhook};
use crate::webhooks::EVENT_TYPES;

#[derive(Debug, Default)]
struct HookDraft {
    url: String,
    events: Vec<String>,
    site_id: String,
    description: String,
}

async fn own_hook(state: &DashState, me: &SignedIn, id: &str) -> Result<Webhook, PageError> {
    state
        .app
        .store
        .webhook(&me.account.id, id)
        .await?
        .ok_or_else(|| PageError::not_found("webhook"))
}

async fn render_list(
    state: &DashState,
    me: &SignedIn,
    draft: &HookDraft,
    errors: &FieldErrors,
) -> Result<Html<String>, PageError> {
    let hooks = state.app.store.list_webhooks(&me.account.id).await?;
    let sites = state.app.store.list_sites(&me.account.id).await?;
    let checked = |e: &str| {
        if draft.events.is_empty() {
            e == "scan.completed" || e == "scan.failed"
        } else {
            draft.events.iter().any(|x| x == e)
        }
    };
    let main = html! {
        p { "sitescan POSTs signed JSON events about your scans to these URLs (see the README: verifying the " code { "Sitescan-Signature" } " header)." }
        h2 id="hooks-heading" { "Endpoints" }
        @if hooks.is_empty() {
            p { "No endpoints yet." }
        } @else {
            table aria-labelledby="hooks-heading" id="webhooks" {
                thead { tr {
                    th scope="col" { "URL" } th scope="col" { "Events" } th scope="col" { "State" }
                    th scope="col" { "Created" } th scope="col" { "Actions" }
                } }
                tbody {
                    @for h in &hooks {
                        tr {
                            th scope="row" class="url" { a href=(format!("/webhooks/{}", h.id)) { (h.url) } }
                            td { (h.events.join(", ")) }
                            td {
                                @if h.enabled { "Enabled" } @else { "Disabled" }
                                @if let Some(r) = &h.disabled_reason { br; span.hint { (r) } }
                            }
                            td { (layout::when(h.created_at)) }
                            td { div.actions {
                                (toggle_form(me, h))
                                a href=(format!("/webhooks/{}/delete", h.id)) aria-label=(format!("Delete {}", h.url)) { "Delete" }
                            } }
                        }
                    }
                }
            }
        }
        h2 id="add-heading" { "Add an endpoint" }
        (layout::error_summary(errors))
        form method="post" action="/webhooks" aria-labelledby="add-heading" novalidate {
            input type="hidden" name="csrf" value=(me.csrf);
            (layout::field(&layout::Field {
                id: "url", name: "url", label: "URL", kind: "url", value: &draft.url,
                autocomplete: Some("off"), required: true, hint: Some("An https URL that receives the events."),
            }, errors))
            fieldset id="events" aria-describedby=[layout::describedby("events", false, errors)] {
                legend { "Events" }
                (layout::field_notes("events", None, errors))
                @for e in EVENT_TYPES {
                    label { input type="checkbox" name="events" value=(e) id=(format!("event-{}", e.replace('.', "-"))) checked[checked(e)]; " " (e) }
                }
            }
            div.field {
                label for="site" { "Only scans of (optional)" }
                (layout::field_notes("site", None, errors))
                select id="site" name="site_id" aria-describedby=[layout::describedby("site", false, errors)] {
                    option value="" selected[draft.site_id.is_empty()] { "All sites" }
                    @for s in &sites {
                        option value=(s.id) selected[s.id == draft.site_id] { (s.name) }
                    }
                }
            }
            (layout::field(&layout::Field {
                id: "description", name: "description", label: "Description", kind: "text", value: &draft.description,
                autocomplete: Some("off"), required: false, hint: None,
            }, errors))
            button type="submit" id="add-webhook" { "Add endpoint" }
        }
    };
    Ok(layout::page(
        "Webhooks",
        Some(me.nav(Section::Webhooks)),
        main,
    ))
}

fn toggle_form(me: &SignedIn, h: &Webhook) -> Markup {
    html! {
        form.inline method="post" action=(format!("/webhooks/{}/enabled", h.id)) {
            input type="hidden" name="csrf" value=(me.csrf);
            input type="hidden" name="enabled" value=(if h.enabled { "false" } else { "true" });
            button.secondary type="submit" aria-label=(format!("{} {}", if h.enabled { "Disable" } else { "Enable" }, h.url)) {
                @if h.enabled { "Disable" } @else { "Enable" }
            }
        }
    }
}

/// `GET /webhooks`.
pub async fn list(State(state): State<DashState>, me: SignedIn) -> PageResult {
    Ok(
        render_list(&state, &me, &HookDraft::default(), &FieldErrors::default())
            .await?
            .into_response(),
    )
}

/// `POST /webhooks`: registers the endpoint, then `303` to the page that
/// shows its signing secret once ([`created`]).
pub async fn create(State(state): State<DashState>, me: SignedIn, form: Form) -> PageResult {
    let draft = HookDraft {
        url: form.get("url").unwrap_or("").trim().to_string(),
        events: form.all("events").into_iter().map(str::to_string).collect(),
        site_id: form.get("site_id").unwrap_or("").to_string(),
        description: form.get("description").unwrap_or("").trim().to_string(),
    };
    let body = CreateWebhook {
        url: draft.url.clone(),
        events: draft.events.clone(),
        site_id: (!draft.site_id.is_empty()).then(|| draft.site_id.clone()),
        description: (!draft.description.is_empty()).then(|| draft.description.clone()),
    };
    let store = state.app.store.as_ref();
    let allow_private = state.app.settings.allow_private;
    let hook = match register_webhook(store, allow_private, &me.account.id, body).await {
        Ok(h) => h,
        Err(e @ (Error::Invalid(_) | Error::NotFound { kind: "site", .. })) => {
            let errors = FieldErrors::from_error(
                &e,
                &[
                    ("url", "url"),
                    ("events", "events"),
                    ("description", "description"),
                    ("site_id", "site"),
                ],
                if matches!(e, Error::NotFound { .. }) {
                    "site"
                } else {
                    "url"
                },
            );
            let page = render_list(&state, &me, &draft, &errors).await?;
            return Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response());
        }
        Err(e) => return Err(e.into()),
    };
    // Post/redirect/get, as for API keys: the secret waits in the session
    // for the one page view that shows it; a reload shows it no more and
    // registers nothing.
    let kept = state
        .app
        .store
        .put_flash(
            &me.session_hash,
            &flash_name(&hook.id),
            &hook.secret,
            Utc::now(),
        )
        .await?;
    if kept {
        return Ok(Redirect::to(&format!("/webhooks/{}/created", hook.id)).into_response());
    }
    // The session ended in between: a reload would meet the sign-in page.
    Ok((StatusCode::CREATED, created_page(&me, &hook, &hook.secret)).into_response())
}

/// The session flash holding the signing secret of the new endpoint `id`.
fn flash_name(id: &str) -> String {
    format!("webhook:{id}")
}

/// The page showing a new endpoint's signing secret, this once.
fn created_page(me: &SignedIn, hook: &Webhook, secret: &str) -> Html<String> {
    let main = html! {
        p.warning role="status" id="secret-warning" {
            strong { "Copy the signing secret now." } " It is shown only this once. Your receiver needs it to verify the "
            code { "Sitescan-Signature" } " header of each event."
        }
        p { "Endpoint " (hook.url) " receives: " (hook.events.join(", ")) "." }
        code.secret id="new-secret" { (secret) }
        div.actions {
            button type="button" data-copy="new-secret" id="copy-secret" hidden { "Copy secret" }
            span id="new-secret-copied" role="status" {}
        }
        p { a href="/webhooks" { "Done: back to webhooks" } }
    };
    layout::page("Endpoint added", Some(me.nav(Section::Webhooks)), main)
}

/// `GET /webhooks/{webhookId}/created`: where adding an endpoint leads. Shows
/// the signing secret the first time (taking it out of the session); later
/// visits, a reload included, say it was shown once.
pub async fn created(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let hook = own_hook(&state, &me, &id).await?;
    let secret = state
        .app
        .store
        .take_flash(&me.session_hash, &flash_name(&hook.id), Utc::now())
        .await?;
    if let Some(secret) = secret {
        return Ok(created_page(&me, &hook, &secret).into_response());
    }
    let main = html! {
        p role="status" id="secret-shown" {
            "The signing secret of " code { (hook.url) } " was shown only once, when the endpoint was added. If your receiver does not have it, delete the endpoint and add it again."
        }
        p { a href=(format!("/webhooks/{}", hook.id)) { "Go to the endpoint" } " · " a href="/webhooks" { "Back to webhooks" } }
    };
    Ok(layout::page(
        "Secret already shown",
        Some(me.nav(Section::Webhooks)),
        main,
    )
    .into_response())
}

/// `GET /webhooks/{webhookId}`: the endpoint and its delivery log.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let hook = own_hook(&state, &me, &id).await?;
    let deliveries = state
        .app
        .store
        .list_deliveries(&hook.id, DELIVERIES_LISTED)
        .await?;
    let main = html! {
        p { "URL: " code { (hook.url) } }
        p { "Events: " (hook.events.join(", ")) " · "
            @if hook.enabled { "enabled" } @else { "disabled" }
            @if let Some(r) = &hook.disabled_reason { " (" (r) ")" } }
        div.actions {
            (toggle_form(&me, &hook))
            a href=(format!("/webhooks/{}/delete", hook.id)) { "Delete this endpoint" }
        }
        h2 id="log-heading" { "Delivery log" }
        @if deliveries.is_empty() {
            p { "No deliveries yet." }
        } @else {
            table aria-labelledby="log-heading" id="deliveries" {
                thead { tr {
                    th scope="col" { "Queued" } th scope="col" { "Event" } th scope="col" { "Status" }
                    th scope="col" class="n" { "Attempts" } th scope="col" class="n" { "Last answer" }
                    th scope="col" { "Next attempt" } th scope="col" { "Actions" }
                } }
                tbody {
                    @for d in &deliveries {
                        @let last = d.attempt_log.last();
                        tr {
                            th scope="row" { (layout::when(d.created_at)) }
                            td { (d.event_type) br; code { (d.event_id) } }
                            td { (match d.status { DeliveryStatus::Pending => "pending", DeliveryStatus::Succeeded => "succeeded", DeliveryStatus::Failed => "failed" }) }
                            td.n { (d.attempts) }
                            td.n {
                                @match last {
                                    Some(a) => {
                                        (a.response_status.map(|s| s.to_string()).or_else(|| a.error.clone()).unwrap_or_else(|| "–".into()))
                                        " in " (a.latency_ms) " ms"
                                    },
                                    None => "–",
                                }
                            }
                            td { (layout::when_or(d.next_attempt_at, "–")) }
                            td {
                                form.inline method="post" action=(format!("/webhooks/{}/deliveries/{}/redeliver", hook.id, d.id)) {
                                    input type="hidden" name="csrf" value=(me.csrf);
                                    button.secondary type="submit" aria-label=(format!("Redeliver {} of {}", d.event_type, d.created_at.format("%Y-%m-%d %H:%M:%S"))) { "Redeliver" }
                                }
                            }
                        }
                    }
                }
            }
        }
        p { a href="/webhooks" { "Back to webhooks" } }
    };
    Ok(layout::page("Webhook endpoint", Some(me.nav(Section::Webhooks)), main).into_response())
}

/// `POST /webhooks/{webhookId}/enabled`: `enabled=true|false`.
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
    let body = UpdateWebhook {
        enabled: Some(enabled),
        ..UpdateWebhook::default()
    };
    change_webhook(
        state.app.store.as_ref(),
        state.app.settings.allow_private,
        &me.account.id,
        &id,
        body,
    )
    .await?;
    Ok(Redirect::to(&format!("/webhooks/{id}")).into_response())
}

/// `GET /webhooks/{webhookId}/delete`: the confirmation step.
pub async fn delete_confirm(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let hook = own_hook(&state, &me, &id).await?;
    let main = html! {
        p { "Delete the endpoint " code { (hook.url) } "? Its pending deliveries are dropped." }
        form method="post" action=(format!("/webhooks/{}/delete", hook.id)) {
            input type="hidden" name="csrf" value=(me.csrf);
            div.actions {
                button.danger type="submit" id="confirm-delete" { "Delete endpoint" }
                a href=(format!("/webhooks/{}", hook.id)) { "Cancel" }
            }
        }
    };
    Ok(layout::page("Delete endpoint", Some(me.nav(Section::Webhooks)), main).into_response())
}

/// `POST /webhooks/{webhookId}/delete`.
pub async fn delete(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    remove_webhook(state.app.store.as_ref(), &me.account.id, &id).await?;
    Ok(Redirect::to("/webhooks").into_response())
}

/// `POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`.
pub async fn redeliver(
    State(state): State<DashState>,
    me: SignedIn,
    Path((id, delivery)): Path<(String, String)>,
    _form: Form,
) -> PageResult {
    redeliver_delivery(state.app.store.as_ref(), &me.account.id, &id, &delivery).await?;
    Ok(Redirect::to(&format!("/webhooks/{id}")).into_response())
}
