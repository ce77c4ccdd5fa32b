//! Triage on a scan: `/scans/{scanId}/findings` lists the scan's findings,
//! each with the mark its fingerprint has on the site NOW (so a finding
//! marked after the scan shows marked; the scan's scores stay as they were
//! at completion, see `crate::ops::marks`), a "Mark…" form (status and
//! note) and an "Unmark" button. Marked findings are greyed with their
//! status. Plain forms (no script needed); every change goes through
//! `ops::marks`, so the checks are the API's.
//!
//! [`findings_list`] is the one template piece: the findings explorer of the
//! dashboard can render it (or post to the same routes) for its own lists.

use std::collections::HashMap;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect};
use maud::{html, Markup};
use sitescan_engine::baseline::fingerprint;
use sitescan_rules::{Finding, Outcome};

use super::auth::{Form, SignedIn};
use super::layout::{self, Section};
use super::{DashState, PageError, PageResult};
use crate::ops::marks::{list_marks, put_mark, remove_mark, MAX_MARKS_PER_SITE};
use crate::ops::scans::load_report;
use crate::store::SiteMark;
use crate::views::marks::PutMark;

/// Findings listed at most on the page (the report has them all).
pub const MAX_LISTED: usize = 500;

/// A finding as the list shows it: its fingerprint and current mark.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    /// The finding.
    pub finding: &'a Finding,
    /// Its fingerprint.
    pub fingerprint: String,
    /// Its mark on the site now, if any.
    pub mark: Option<&'a SiteMark>,
}

/// The list of `rows` with their mark controls; the forms post to
/// `/sites/{site_id}/marks/{fingerprint}` and come back to `back`.
pub fn findings_list(site_id: &str, rows: &[Row<'_>], csrf: &str, back: &str) -> Markup {
    html! {
        ul.triage id="triage" {
            @for (i, r) in rows.iter().enumerate() {
                @let f = r.finding;
                li.finding data-fingerprint=(r.fingerprint) data-mark=[r.mark.map(|m| m.status.as_str())] {
                    p {
                        @if let Some(m) = r.mark {
                            span.mark-status { (mark_label(m.status.as_str())) } " "
                        }
                        strong { (f.rule_id) } " · " (f.impact.as_str())
                        @if f.outcome == Outcome::CantTell { " · to review" }
                        " · " (f.message)
                    }
                    p.hint {
                        (f.page_url)
                        @if !f.selector.is_empty() { " · " code { (f.selector) } }
                    }
                    @if let Some(m) = r.mark {
                        @if !m.note.is_empty() { p.hint { "Note: " (m.note) } }
                        form.inline method="post" action=(format!("/sites/{site_id}/marks/{}/remove", r.fingerprint)) {
                            input type="hidden" name="csrf" value=(csrf);
                            input type="hidden" name="back" value=(back);
                            button.secondary type="submit" { "Unmark" }
                        }
                    } @else {
                        details.mark-form {
                            summary { "Mark…" }
                            form method="post" action=(format!("/sites/{site_id}/marks/{}", r.fingerprint)) {
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
        }
    }
}

fn mark_label(status: &str) -> &'static str {
    match status {
        "false_positive" => "False positive",
        _ => "Ignored",
    }
}

/// `GET /scans/{scanId}/findings`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let store = state.app.store.as_ref();
    let scan = store
        .scan(&me.account.id, &id)
        .await?
        .ok_or_else(|| PageError::not_found("scan"))?;
    let report = load_report(store, &me.account.id, &id).await?;
    let marks = list_marks(
        store,
        &me.account.id,
        &scan.site_id,
        None,
        MAX_MARKS_PER_SITE,
    )
    .await?
    .items;
    let by_fp: HashMap<&str, &SiteMark> =
        marks.iter().map(|m| (m.fingerprint.as_str(), m)).collect();
    let rows: Vec<Row<'_>> = report
        .findings
        .iter()
        .take(MAX_LISTED)
        .map(|f| {
            let fp = fingerprint(f);
            Row {
                finding: f,
                mark: by_fp.get(fp.as_str()).copied(),
                fingerprint: fp,
            }
        })
        .collect();
    let marked = rows.iter().filter(|r| r.mark.is_some()).count();
    let back = format!("/scans/{id}/findings");
    let main = html! {
        p { a href=(format!("/scans/{id}")) { "Back to the scan" } }
        p {
            (report.findings.len()) " findings"
            @if report.findings.len() > MAX_LISTED { " (the first " (MAX_LISTED) " listed)" }
            " · " (marked) " marked on this site now. "
            "A marked finding counts in no score, count or gate of the scans started after it was marked; "
            "this scan's scores stay as they were when it completed."
        }
        (findings_list(&scan.site_id, &rows, &me.csrf, &back))
    };
    Ok(layout::page("Findings and triage", Some(me.nav(Section::Sites)), main).into_response())
}

/// Where to go after a change: the `back` of the form when it is one of our
/// scan pages, else the site.
fn back_to(form: &Form, site_id: &str) -> String {
    match form.get("back") {
        Some(b) if b.starts_with("/scans/") && !b.contains("//") && b.len() < 200 => b.to_string(),
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
