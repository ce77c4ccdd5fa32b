//! Credentials on a site's page: what is set (names only, never a value)
//! and a write-only form that sets or replaces them, through
//! `ops::credentials` (the API's checks and sealing), and a button that
//! removes them. No value typed is ever written back into a page: a form
//! with problems comes back empty.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use maud::{html, Markup};
use sitescan_engine::auth::{BasicAuth, NameValue, SiteAuth};

use super::auth::{Form, SignedIn};
use super::layout::{self, FieldErrors, Section};
use super::{DashState, PageError, PageResult};
use crate::error::Error;
use crate::ops::credentials::{credentials, remove_credentials, set_credentials};
use crate::store::{CredentialsDescription, Site};

/// API field -> form element, for problems (`headers[0].name` belongs to the header row).
const FIELDS: &[(&str, &str)] = &[
    ("basic.username", "cred-basic-username"),
    ("basic.password", "cred-basic-password"),
    ("headers", "cred-header-name"),
    ("cookies", "cred-cookie-name"),
];

/// The site page's "Credentials" section.
pub async fn section(
    state: &DashState,
    me: &SignedIn,
    site: &Site,
    errors: &FieldErrors,
) -> Result<Markup, PageError> {
    let set = match credentials(state.app.store.as_ref(), &me.account.id, &site.id).await {
        Ok(d) => Some(d),
        Err(Error::NotFound {
            kind: "credentials",
            ..
        }) => None,
        Err(e) => return Err(e.into()),
    };
    let no_key = state.app.settings.secret_key.is_none();
    Ok(html! {
        h2 id="credentials-heading" { "Credentials" }
        p { "What this site's scans sign in with. Values are kept encrypted and never shown again: to change one, give them all anew." }
        @match &set {
            Some(d) => { (description(d)) }
            None => { p id="credentials-none" { "None: scans see the site signed out." } }
        }
        @if no_key {
            p.notice role="status" id="credentials-no-key" { "This server has no secret key (SITESCAN_SECRET_KEY), so it cannot keep credentials." }
        } @else {
            (layout::error_summary(errors))
            form method="post" action=(format!("/sites/{}/credentials", site.id)) aria-labelledby="credentials-heading" novalidate autocomplete="off" {
                input type="hidden" name="csrf" value=(me.csrf);
                (layout::field(&layout::Field {
                    id: "cred-basic-username", name: "basic_username", label: "Basic auth user name (optional)", kind: "text", value: "",
                    autocomplete: Some("off"), required: false, hint: None,
                }, errors))
                (layout::field(&layout::Field {
                    id: "cred-basic-password", name: "basic_password", label: "Basic auth password", kind: "password", value: "",
                    autocomplete: Some("new-password"), required: false, hint: None,
                }, errors))
                (layout::field(&layout::Field {
                    id: "cred-header-name", name: "header_name", label: "Header name (optional)", kind: "text", value: "",
                    autocomplete: Some("off"), required: false, hint: Some("Sent with every request to this site, such as Authorization."),
                }, errors))
                (layout::field(&layout::Field {
                    id: "cred-header-value", name: "header_value", label: "Header value", kind: "password", value: "",
                    autocomplete: Some("new-password"), required: false, hint: None,
                }, errors))
                (layout::field(&layout::Field {
                    id: "cred-cookie-name", name: "cookie_name", label: "Cookie name (optional)", kind: "text", value: "",
                    autocomplete: Some("off"), required: false, hint: None,
                }, errors))
                (layout::field(&layout::Field {
                    id: "cred-cookie-value", name: "cookie_value", label: "Cookie value", kind: "password", value: "",
                    autocomplete: Some("new-password"), required: false, hint: None,
                }, errors))
                div.field {
                    label for="cred-json" { "Or everything as JSON (login form, login steps…)" }
                    (layout::field_notes("cred-json", Some("The body of PUT /api/v1/sites/{siteId}/credentials; when given, the fields above must be empty."), errors))
                    textarea id="cred-json" name="json" rows="3" spellcheck="false"
                        aria-invalid=[errors.get("cred-json").map(|_| "true")]
                        aria-describedby=[layout::describedby("cred-json", true, errors)] {}
                }
                button type="submit" id="save-credentials" { @if set.is_some() { "Replace credentials" } @else { "Save credentials" } }
            }
        }
        @if set.is_some() {
            form method="post" action=(format!("/sites/{}/credentials/remove", site.id)) {
                input type="hidden" name="csrf" value=(me.csrf);
                button.danger type="submit" id="remove-credentials" { "Remove credentials" }
            }
        }
    })
}

/// The names of what is set.
fn description(d: &CredentialsDescription) -> Markup {
    html! {
        dl id="credentials-set" {
            @if !d.headers.is_empty() { dt { "Headers" } dd { (d.headers.join(", ")) } }
            @if !d.cookies.is_empty() { dt { "Cookies" } dd { (d.cookies.join(", ")) } }
            @if let Some(user) = &d.basic_username { dt { "Basic auth" } dd { "user " (user) } }
            @if let Some(form) = &d.login_form {
                dt { "Login form" }
                dd { "posts " (form.fields.join(", ")) " to " (form.action) }
            }
            @if !d.login_steps.is_empty() {
                dt { "Login steps" }
                dd { (d.login_steps.iter().map(|s| s.step.as_str()).collect::<Vec<_>>().join(", ")) }
            }
            dt { "Saved" } dd { (layout::when(d.updated_at)) }
        }
    }
}

/// The credentials a filled form gives: its JSON, or its simple fields.
fn from_form(form: &Form) -> Result<SiteAuth, FieldErrors> {
    let get = |name: &str| form.get(name).unwrap_or("").to_string();
    let json = get("json");
    let simple: BTreeMap<&str, String> = [
        "basic_username",
        "basic_password",
        "header_name",
        "header_value",
        "cookie_name",
        "cookie_value",
    ]
    .into_iter()
    .map(|n| (n, get(n)))
    .collect();
    let mut errors = FieldErrors::default();
    if !json.trim().is_empty() {
        if simple.values().any(|v| !v.is_empty()) {
            errors.add("cred-json", "Give the JSON or the fields above, not both.");
            return Err(errors);
        }
        // Serde's message may quote a value: only its position is shown.
        return serde_json::from_str(&json).map_err(|e| {
            errors.add(
                "cred-json",
                format!(
                    "Not credentials JSON (line {}, column {}): see the Authenticated scans docs for its shape.",
                    e.line(),
                    e.column()
                ),
            );
            errors
        });
    }
    let mut auth = SiteAuth::default();
    if !simple["basic_username"].is_empty() || !simple["basic_password"].is_empty() {
        auth.basic = Some(BasicAuth {
            username: simple["basic_username"].trim().to_string(),
            password: simple["basic_password"].clone(),
        });
    }
    if !simple["header_name"].is_empty() || !simple["header_value"].is_empty() {
        auth.headers.push(NameValue {
            name: simple["header_name"].trim().to_string(),
            value: simple["header_value"].clone(),
        });
    }
    if !simple["cookie_name"].is_empty() || !simple["cookie_value"].is_empty() {
        auth.cookies.push(NameValue {
            name: simple["cookie_name"].trim().to_string(),
            value: simple["cookie_value"].clone(),
        });
    }
    Ok(auth)
}

/// `POST /sites/{siteId}/credentials`: sets or replaces the site's
/// credentials; back to the site page, or the section again (empty) with its
/// problems.
pub async fn save(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    form: Form,
) -> PageResult {
    let site = me.own_site(&state, &id).await?;
    let errors = match from_form(&form) {
        Err(errors) => errors,
        Ok(auth) => match set_credentials(
            state.app.store.as_ref(),
            state.app.settings.secret_key.as_ref(),
            &me.account.id,
            &site.id,
            auth,
        )
        .await
        {
            Ok(_) => {
                return Ok(
                    Redirect::to(&format!("/sites/{}#credentials-heading", site.id))
                        .into_response(),
                )
            }
            Err(e @ Error::Invalid(_)) => FieldErrors::from_error(&e, FIELDS, "cred-json"),
            Err(e) => return Err(e.into()),
        },
    };
    let main = html! {
        p { a href=(format!("/sites/{}", site.id)) { "Back to " (site.name) } }
        (section(&state, &me, &site, &errors).await?)
    };
    let page = layout::page(
        &format!("Credentials of {}", site.name),
        Some(me.nav(Section::Sites)),
        main,
    );
    Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
}

/// `POST /sites/{siteId}/credentials/remove`: removes them; back to the site.
pub async fn remove(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    remove_credentials(state.app.store.as_ref(), &me.account.id, &id).await?;
    Ok(Redirect::to(&format!("/sites/{id}#credentials-heading")).into_response())
}
