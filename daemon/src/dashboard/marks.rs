//! Triage marks in the dashboard: the "Mark…" form (status and note) and the
//! "Unmark" button of a finding, shown in the findings explorer
//! ([`super::explorer`]) beside each row with the mark its fingerprint has on
//! the site NOW (a finding marked after the scan shows marked; the scan's
//! scores stay as they were at completion, see `crate::ops::marks`). Plain
//! forms (no script needed); every change goes through `ops::marks`, so the
//! checks are the API's.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect};
use maud::{html, Markup};

use super::auth::{Form, SignedIn};
use super::{DashState, PageResult};
use crate::ops::marks::{put_mark, remove_mark};
use crate::store::SiteMark;
use crate::views::marks::PutMark;

/// The mark of one finding and its controls: the status and note when it is
/// marked, with "Unmark"; else a "Mark…" form. The forms post to
/// `/sites/{site_id}/marks/{fingerprint}` and come back to `back`; `i` makes
/// the form's ids unique on the page.
pub fn mark_control(
    site_id: &str,
    fingerprint: &str,
    mark: Option<&SiteMark>,
    csrf: &str,
    back: &str,
    i: usize,
) -> Markup {
    html! {
        @if let Some(m) = mark {
            span.mark-status { (mark_label(m.status.as_str())) }
            @if !m.note.is_empty() { " " span.hint { "Note: " (m.note) } }
            form.inline method="post" action=(format!("/sites/{site_id}/marks/{fingerprint}/remove")) {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="back" value=(back);
                button.secondary type="submit" { "Unmark" }
            }
        } @else {
            details.mark-form {
                summary { "Mark…" }
                form method="post" action=(format!("/sites/{site_id}/marks/{fingerprint}")) {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="back" value=(back);
                    div.field {
                        label for=(format!("mark-status-{i}")) { "Status" }
                        select id=(format!("mark-status-{i}")) name="status" {
                            option value="ignored" { "Ignored (real, accepted)" }
                            option value="false_positive" { "False positive" }
                        }
                    }
                    div.field {
                        label for=(format!("mark-note-{i}")) { "Note" }
                        input type="text" id=(format!("mark-note-{i}")) name="note" maxlength="2000";
                    }
                    button type="submit" { "Mark" }
                }
            }
        }
    }
}

fn mark_label(status: &str) -> &'static str {
    match status {
        "false_positive" => "False positive",
        _ => "Ignored",
    }
}

/// Where to go after a change: the `back` of the form when it is one of our
/// scan pages, else the site.
fn back_to(form: &Form, site_id: &str) -> String {
    match form.get("back") {
        Some(b) if b.starts_with("/scans/") && !b.contains("//") && b.len() < 2000 => b.to_string(),
        _ => format!("/sites/{site_id}"),
    }
}

/// `POST /sites/{siteId}/marks/{fingerprint}`: marks the finding.
pub async fn mark(
    State(state): State<DashState>,
    me: SignedIn,
    Path((site_id, fp)): Path<(String, String)>,
    form: Form,
) -> PageResult {
    let body = PutMark {
        status: form.get("status").unwrap_or_default().to_string(),
        note: form.get("note").map(str::to_string),
    };
    put_mark(
        state.app.store.as_ref(),
        &me.account.id,
        &site_id,
        &fp,
        body,
        Some(me.user.email.clone()),
    )
    .await?;
    Ok(Redirect::to(&format!("{}#triage", back_to(&form, &site_id))).into_response())
}

/// `POST /sites/{siteId}/marks/{fingerprint}/remove`: unmarks the finding.
pub async fn unmark(
    State(state): State<DashState>,
    me: SignedIn,
    Path((site_id, fp)): Path<(String, String)>,
    form: Form,
) -> PageResult {
    remove_mark(state.app.store.as_ref(), &me.account.id, &site_id, &fp).await?;
    Ok(Redirect::to(&format!("{}#triage", back_to(&form, &site_id))).into_response())
}
