//! `GET /scans/{scanId}/full`: the report viewed in full, inside the
//! dashboard's frame (navigation, the scan's and site's links, downloads).
//!
//! The engine's HTML report inlines its CSS, which the dashboard's policy
//! forbids on its own pages; rather than weaken that policy, the report
//! document keeps its own route (`/scans/{id}/report`, styles allowed by hash,
//! no scripts) and this page gives it the whole width and the viewport's
//! height below the page header, where the scan page used to show it in a
//! box among other sections.

use axum::extract::{Path, State};
use axum::response::IntoResponse;
use maud::html;
use sitescan_engine::render::Format;

use super::auth::SignedIn;
use super::layout::{self, Section};
use super::{DashState, PageError, PageResult};
use crate::store::ScanStatus;

/// The address of a scan's full report page.
pub fn href(scan_id: &str) -> String {
    format!("/scans/{scan_id}/full")
}

/// `GET /scans/{scanId}/full`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
) -> PageResult {
    let scan = state
        .app
        .store
        .scan(&me.account.id, &id)
        .await?
        .ok_or_else(|| PageError::not_found("scan"))?;
    if scan.status != ScanStatus::Completed {
        return Err(crate::Error::NotReady(format!(
            "This scan is {}: its report exists once it has completed.",
            scan.status.as_str()
        ))
        .into());
    }
    let site = state.app.store.site(&me.account.id, &scan.site_id).await?;
    let site_name = site.as_ref().map(|s| s.name.as_str()).unwrap_or(&scan.url);
    let title = format!("Report: {site_name}");
    let main = html! {
        nav.crumbs aria-label="Breadcrumb" {
            ol {
                li { a href="/sites" { "Sites" } }
                @if let Some(site) = &site { li { a href=(format!("/sites/{}", site.id)) { (site.name) } } }
                li { a href=(format!("/scans/{}", scan.id)) { "Scan of " (layout::when(scan.created_at)) } }
                li { a href=(href(&scan.id)) aria-current="page" { "Report" } }
            }
        }
        p.toolbar {
            a href=(super::explorer::href(&scan.id)) id="explore-findings" { "Explore the findings" }
            " · Download: "
            @for (i, f) in Format::ALL.iter().enumerate() {
                @if i > 0 { ", " }
                a href=(format!("/scans/{}/download?format={}", scan.id, f.name())) download { (f.name().to_uppercase()) }
            }
        }
        iframe.report-full id="report" src=(format!("/scans/{}/report", scan.id)) title=(format!("Report of the scan of {site_name}")) {}
    };
    Ok(layout::page(&title, Some(me.nav(Section::Sites)), main).into_response())
}
