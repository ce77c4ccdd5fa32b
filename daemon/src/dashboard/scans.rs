//! A scan's page: live status and progress, cancel, then the report.
//!
//! - Live status: the page works without JavaScript (a "Refresh" link; no
//!   meta refresh, which our own accessibility rules flag). With the small
//!   script, it polls `/scans/{id}/status` (JSON) and reloads when the scan
//!   has finished.
//! - The report is the engine's HTML renderer, which inlines its CSS (one
//!   `<style>` element and `style` attributes for its bars). Rather than
//!   weaken the dashboard's CSP, it is shown in an `<iframe>` from
//!   `/scans/{id}/report`, a route with its OWN policy: no scripts at all
//!   (`default-src 'none'`), and styles allowed only by the SHA-256 of the
//!   exact `<style>` text and of each `style` attribute value the document
//!   contains (`'unsafe-hashes'` limited to those hashes), framable only by
//!   us (`frame-ancestors 'self'`).
//! - Downloads: every format of `GET /api/v1/scans/{id}/report?format=`, via
//!   the same loading and rendering functions.

use std::collections::BTreeSet;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use base64::Engine as _;
use maud::html;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sitescan_engine::render::{count, findings_phrase, render, Format};

use super::auth::{Form, SignedIn};
use super::layout::{self, Section};
use super::sites::status_badge;
use super::{DashState, PageError, PageResult};
use crate::ops::scans::{cancel_scan, load_report, off_async, waiting_reason};
use crate::store::{Progress, Scan, ScanStatus, ScanSummary};
use crate::views::download::Download;
use sitescan_engine::Phase;

async fn own_scan(state: &DashState, me: &SignedIn, id: &str) -> Result<Scan, PageError> {
    state
        .app
        .store
        .scan(&me.account.id, id)
        .await?
        .ok_or_else(|| PageError::not_found("scan"))
}

/// `GET /scans/{scanId}`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let scan = own_scan(&state, &me, &id).await?;
    let site = state.app.store.site(&me.account.id, &scan.site_id).await?;
    let waiting = waiting_reason(&state.app, &scan).await;
    let progress = scan.progress.unwrap_or_default();
    let live = !scan.status.is_terminal();
    let title = format!(
        "Scan of {}",
        site.as_ref().map(|s| s.name.as_str()).unwrap_or(&scan.url)
    );
    let main = html! {
        p {
            @if let Some(site) = &site { "Site: " a href=(format!("/sites/{}", site.id)) { (site.name) } " · " }
            "Started " (layout::when(scan.created_at))
            " · rules: " (scan.config.rules.join(", "))
            " · priority " (scan.config.priority.as_str())
            " · up to " (scan.config.max_pages) " pages"
            " · " span id="scan-mode" {
                @if scan.config.render { "rendered with a browser (JavaScript run)" } @else { "static HTML (no JavaScript)" }
            }
        }
        section aria-labelledby="status-heading" data-poll=[live.then(|| format!("/scans/{}/status", scan.id))] {
            h2 id="status-heading" { "Status" }
            p { "Status: " span id="scan-status" role="status" { (status_badge(scan.status)) } }
            @if let Some(w) = &waiting {
                p id="scan-waiting" { "Waiting: " (w.message) "." }
            }
            @if live {
                @let (bar_value, bar_max) = progress_bar(&progress);
                p { "Phase: " span id="scan-phase" { (phase_label(progress.phase)) } }
                p { "Pages checked: " span id="scan-pages" { (progress.pages_done) } }
                p id="scan-links-line" hidden[progress.phase != Phase::Links] {
                    "Links checked: " span id="scan-links" { (progress.links_checked) }
                    " of " span id="scan-links-total" { (progress.links_total) }
                }
                progress id="scan-progress" max=(bar_max) value=(bar_value) aria-label="Scan progress" {
                    (bar_value) " of " (bar_max)
                }
                div.actions {
                    a href=(format!("/scans/{}", scan.id)) id="refresh" { "Refresh" }
                    form.inline method="post" action=(format!("/scans/{}/cancel", scan.id)) {
                        input type="hidden" name="csrf" value=(me.csrf);
                        button.secondary type="submit" id="cancel-scan" { "Cancel scan" }
                    }
                }
            }
            @if let Some(err) = &scan.error { p.error { "The scan failed: " (err) } }
        }
        @if let (ScanStatus::Completed, Some(summary)) = (scan.status, &scan.summary) {
            h2 id="summary-heading" { "Summary" }
            p { (count(summary.pages_fetched, "page", "pages")) " · " (summary_findings(summary))
                @if summary.truncated { " · stopped at the page limit" } }
            table aria-labelledby="summary-heading" id="summary" {
                thead { tr {
                    th scope="col" { "Category" } th scope="col" class="n" { "Score" }
                    th scope="col" class="n" { "Critical" } th scope="col" class="n" { "Serious" }
                    th scope="col" class="n" { "Moderate" } th scope="col" class="n" { "Minor" }
                    th scope="col" class="n" { "To review" }
                } }
                tbody {
                    @for (cat, r) in &summary.categories {
                        tr {
                            th scope="row" { (cat) }
                            td.n { (r.score.map(|s| s.to_string()).unwrap_or_else(|| "–".into())) }
                            td.n { (r.critical) } td.n { (r.serious) } td.n { (r.moderate) }
                            td.n { (r.minor) } td.n { (r.cant_tell) }
                        }
                    }
                }
            }
            @if let Some(r) = &summary.regressions {
                (regressions_section(&scan.id, r))
            }
            h2 id="downloads-heading" { "Download the report" }
            ul.downloads aria-labelledby="downloads-heading" {
                @for f in Format::ALL {
                    li { a href=(format!("/scans/{}/download?format={}", scan.id, f.name()))
                        download { (f.name().to_uppercase()) } }
                }
            }
            h2 id="report-heading" { "Report" }
            p { a.button href=(super::fullreport::href(&scan.id)) id="view-report" { "View the full report" }
                " " a.button.secondary href=(super::explorer::href(&scan.id)) id="explore" { "Explore the findings" } }
        }
    };
    Ok(layout::page(&title, Some(me.nav(Section::Sites)), main).into_response())
}

/// "N new since the previous scan / M fixed" and the new findings listed
/// (the first of them, as the summary keeps them).
fn regressions_section(scan_id: &str, r: &crate::store::Regressions) -> maud::Markup {
    maud::html! {
        h2 id="changes-heading" { "Since the previous scan" }
        @match &r.compared_with {
            None => p id="changes" { "This is the first completed scan of this site with this configuration: nothing to compare with." },
            Some(prev) => {
                p id="changes" {
                    (r.new.count) " new since the previous scan / " (r.fixed.count) " fixed"
                    " (compared with " a href=(format!("/scans/{prev}")) { (prev) } ")"
                }
                p { a href=(super::compare::href(prev, scan_id)) id="compare-previous" { "Compare with the previous scan side by side" } }
                @if !r.new.items.is_empty() {
                    table aria-labelledby="changes-heading" id="new-findings" {
                        thead { tr {
                            th scope="col" { "Rule" } th scope="col" { "Impact" }
                            th scope="col" { "Page" } th scope="col" { "Where" }
                            th scope="col" { "What" }
                        } }
                        tbody {
                            @for f in &r.new.items {
                                tr {
                                    td { (f.rule) } td { (f.impact) } td { (f.page_url) }
                                    td { code { (f.selector) } } td { (f.message) }
                                }
                            }
                        }
                    }
                    @if r.new.count > r.new.items.len() as u64 {
                        p { "The first " (r.new.items.len()) " of " (r.new.count) " are listed." }
                    }
                }
            }
        }
    }
}

/// The summary's findings in the words of the HTML report's header
/// ([`findings_phrase`]): `findings` counts the failed ones and the ones to
/// review together, the categories count those to review.
fn summary_findings(summary: &ScanSummary) -> String {
    let to_review: u64 = summary.categories.values().map(|c| c.cant_tell).sum();
    findings_phrase(summary.findings.saturating_sub(to_review), to_review)
}

/// What a scan is doing, in words.
pub fn phase_label(phase: Phase) -> &'static str {
    match phase {
        Phase::Crawl => "checking pages",
        Phase::Links => "checking links",
        Phase::Finish => "writing the report",
    }
}

/// The progress bar's (value, max) in the scan's phase: pages while
/// crawling, links while checking them, full while finishing.
pub fn progress_bar(p: &Progress) -> (u64, u64) {
    match p.phase {
        Phase::Crawl => (p.pages_done, (p.pages_done + p.pages_queued).max(1)),
        Phase::Links => (p.links_checked.min(p.links_total), p.links_total.max(1)),
        Phase::Finish => (1, 1),
    }
}

/// `GET /scans/{scanId}/status`: the live status as JSON, for the script.
pub async fn status(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let scan = own_scan(&state, &me, &id).await?;
    let p = scan.progress.unwrap_or_default();
    Ok(axum::Json(serde_json::json!({
        "id": scan.id,
        "status": scan.status.as_str(),
        "terminal": scan.status.is_terminal(),
        "pages_done": p.pages_done,
        "pages_queued": p.pages_queued,
        "errors": p.errors,
        "phase": p.phase,
        "phase_label": phase_label(p.phase),
        "links_checked": p.links_checked,
        "links_total": p.links_total,
    }))
    .into_response())
}

/// The CSP of a report document: its exact inline CSS allowed by hash, nothing else.
pub fn report_policy(html: &str) -> String {
    let hash = |s: &str| {
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s.as_bytes()))
        )
    };
    let mut sources: BTreeSet<String> = BTreeSet::new();
    let mut rest = html;
    while let Some(start) = rest.find("<style>") {
        let after = &rest[start + "<style>".len()..];
        let Some(end) = after.find("</style>") else {
            break;
        };
        sources.insert(hash(&after[..end]));
        rest = &after[end..];
    }
    let mut attrs: BTreeSet<String> = BTreeSet::new();
    let mut rest = html;
    // maud escapes `"` inside attribute values and text, so the next `"` ends
    // the value and ` style="` cannot occur inside text.
    while let Some(start) = rest.find(" style=\"") {
        let after = &rest[start + " style=\"".len()..];
        let Some(end) = after.find('"') else {
            break;
        };
        attrs.insert(hash(&unescape(&after[..end])));
        rest = &after[end..];
    }
    let mut style_src: Vec<String> = sources.into_iter().collect();
    if !attrs.is_empty() {
        style_src.push("'unsafe-hashes'".to_string());
        style_src.extend(attrs);
    }
    if style_src.is_empty() {
        style_src.push("'none'".to_string());
    }
    format!(
        "default-src 'none'; style-src {}; img-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'",
        style_src.join(" ")
    )
}

/// The value of an attribute as the browser reads it (maud's escapes undone).
fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// `GET /scans/{scanId}/report`: the HTML report, for the iframe.
pub async fn report(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let mut report = load_report(state.app.store.as_ref(), &me.account.id, &id).await?;
    // Render mode's pictures, embedded as `data:` URLs (the policy's
    // `img-src data:`).
    crate::ops::screenshots::attach(state.app.store.as_ref(), &id, &mut report).await?;
    let body = off_async(move || render(&report, Format::Html).map_err(crate::Error::Engine))
        .await
        .map_err(PageError::internal)?;
    let body = String::from_utf8(body).map_err(PageError::internal)?;
    let policy = report_policy(&body);
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&policy).map_err(PageError::internal)?,
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
    );
    Ok(resp)
}

/// Query of a download.
#[derive(Debug, Deserialize)]
pub struct DownloadQuery {
    #[serde(default)]
    format: Option<String>,
}

/// `GET /scans/{scanId}/download?format=...`: the report as a file.
pub async fn download(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    Query(q): Query<DownloadQuery>,
) -> Result<Response, PageError> {
    let format: Format =
        q.format
            .as_deref()
            .unwrap_or("json")
            .parse()
            .map_err(|e: sitescan_engine::Error| PageError {
                status: StatusCode::BAD_REQUEST,
                title: "Unknown format",
                message: e.to_string(),
                internal: None,
            })?;
    let mut report = load_report(state.app.store.as_ref(), &me.account.id, &id).await?;
    if format == Format::Html {
        crate::ops::screenshots::attach(state.app.store.as_ref(), &id, &mut report).await?;
    }
    Ok(Download::new_off_async(report, format, &id)
        .await?
        .into_response())
}

/// `POST /scans/{scanId}/cancel`.
pub async fn cancel(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    _form: Form,
) -> PageResult {
    cancel_scan(state.app.store.as_ref(), &me.account.id, &id).await?;
    Ok(Redirect::to(&format!("/scans/{id}")).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_policy_hashes_inline_css() {
        let html = r#"<html><head><style>a{color:red}</style></head><body><span style="width:1%">x</span><span style="width:1%"></span></body></html>"#;
        let p = report_policy(html);
        assert!(
            p.starts_with("default-src 'none'; style-src 'sha256-"),
            "{p}"
        );
        assert_eq!(p.matches("'sha256-").count(), 2, "{p}");
        assert!(p.contains("'unsafe-hashes'"));
        assert!(!p.contains("unsafe-inline"));
        assert!(p.contains("frame-ancestors 'self'"));
    }
}
