//! `GET /scans/{scanId}/compare?with={otherId}`: two completed scans of a
//! site side by side: scores and counts per category, and the findings only
//! in one of them, by fingerprint (the identity regressions and triage use).
//!
//! Bounded: each stored report is streamed finding by finding (never parsed
//! whole); what is held is the fingerprint sets and the first [`MAX_LISTED`]
//! findings of each side.

use std::collections::HashSet;
use std::io::{Seek, SeekFrom};

use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde::Deserialize;
use sitescan_engine::baseline::fingerprint;

use super::auth::SignedIn;
use super::layout::CATEGORIES;
use super::layout::{self, Section};
use super::{DashState, PageError, PageResult};
use crate::ops::regressions::{for_each_stored_finding, stored_report_file};
use crate::ops::scans::off_async;
use crate::store::{Scan, ScanStatus};

/// Findings listed at most on each side (the counts stay exact).
pub const MAX_LISTED: usize = 100;

/// The address comparing `a` with `b`.
pub fn href(a: &str, b: &str) -> String {
    format!("/scans/{a}/compare?with={b}")
}

/// The query: the other scan.
#[derive(Debug, Deserialize)]
pub struct CompareQuery {
    /// The scan compared with (B).
    #[serde(default)]
    pub with: Option<String>,
}

/// A finding present on one side only.
#[derive(Debug, Clone)]
pub struct OnlyIn {
    /// Rule id.
    pub rule: String,
    /// Impact.
    pub impact: String,
    /// Page.
    pub page_url: String,
    /// Selector.
    pub selector: String,
    /// Message.
    pub message: String,
}

/// The findings of each side that the other lacks: (count, first listed).
#[derive(Debug, Default)]
pub struct Difference {
    /// Only in A.
    pub only_a: (u64, Vec<OnlyIn>),
    /// Only in B.
    pub only_b: (u64, Vec<OnlyIn>),
}

fn fingerprints(file: &mut std::fs::File) -> crate::Result<HashSet<String>> {
    let mut set = HashSet::new();
    for_each_stored_finding(&mut *file, &mut |f| {
        set.insert(fingerprint(&f));
    })?;
    file.seek(SeekFrom::Start(0))?;
    Ok(set)
}

fn missing_from(
    file: &mut std::fs::File,
    other: &HashSet<String>,
) -> crate::Result<(u64, Vec<OnlyIn>)> {
    let mut out = (0u64, Vec::new());
    for_each_stored_finding(&mut *file, &mut |f| {
        if other.contains(&fingerprint(&f)) {
            return;
        }
        out.0 += 1;
        if out.1.len() < MAX_LISTED {
            out.1.push(OnlyIn {
                rule: f.rule_id.clone(),
                impact: f.impact.as_str().to_string(),
                page_url: f.page_url.clone(),
                selector: f.selector.clone(),
                message: f.message.clone(),
            });
        }
    })?;
    Ok(out)
}

/// Compares the stored reports `a` and `b` (two passes over each at most).
pub fn difference(mut a: std::fs::File, mut b: std::fs::File) -> crate::Result<Difference> {
    let set_b = fingerprints(&mut b)?;
    let set_a = fingerprints(&mut a)?;
    Ok(Difference {
        only_a: missing_from(&mut a, &set_b)?,
        only_b: missing_from(&mut b, &set_a)?,
    })
}

async fn completed(state: &DashState, me: &SignedIn, id: &str) -> Result<Scan, PageError> {
    let scan = state
        .app
        .store
        .scan(&me.account.id, id)
        .await?
        .ok_or_else(|| PageError::not_found("scan"))?;
    if scan.status != ScanStatus::Completed {
        return Err(crate::Error::NotReady(format!(
            "Scan {} is {}: only completed scans can be compared.",
            scan.id,
            scan.status.as_str()
        ))
        .into());
    }
    Ok(scan)
}

fn listed(id: &str, side: &(u64, Vec<OnlyIn>)) -> Markup {
    html! {
        @if side.1.is_empty() {
            p { "None." }
        } @else {
            table id=(id) {
                thead { tr { th scope="col" { "Impact" } th scope="col" { "Rule" } th scope="col" { "Page" } th scope="col" { "Where" } th scope="col" { "What" } } }
                tbody {
                    @for f in &side.1 {
                        tr { td { (f.impact) } td { (f.rule) } td.url { (f.page_url) } td { @if !f.selector.is_empty() { code { (f.selector) } } } td { (f.message) } }
                    }
                }
            }
            @if side.0 > side.1.len() as u64 { p.hint { "The first " (side.1.len()) " of " (side.0) " are listed." } }
        }
    }
}

/// `GET /scans/{scanId}/compare?with=...`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    Query(q): Query<CompareQuery>,
) -> PageResult {
    let a = completed(&state, &me, &id).await?;
    let Some(with) = q.with.as_deref().filter(|w| !w.is_empty()) else {
        return Err(PageError {
            status: axum::http::StatusCode::BAD_REQUEST,
            title: "Which scan?",
            message: "Name the scan to compare with: ?with=<scan id>.".to_string(),
            internal: None,
        });
    };
    let b = completed(&state, &me, with).await?;
    let store = state.app.store.as_ref();
    let missing = |s: &Scan| PageError::internal(format!("completed scan {} has no report", s.id));
    let fa = stored_report_file(store, &a.id)
        .await?
        .ok_or_else(|| missing(&a))?;
    let fb = stored_report_file(store, &b.id)
        .await?
        .ok_or_else(|| missing(&b))?;
    let diff = off_async(move || difference(fa, fb)).await?;
    let site = state.app.store.site(&me.account.id, &a.site_id).await?;
    let title = format!(
        "Compare scans of {}",
        site.as_ref().map(|s| s.name.as_str()).unwrap_or(&a.url)
    );
    let score = |s: &Scan, cat: &str| {
        s.summary
            .as_ref()
            .and_then(|x| x.categories.get(cat))
            .and_then(|c| c.score)
    };
    let count = |s: &Scan, f: fn(&crate::store::CategoryResult) -> u64| -> u64 {
        s.summary
            .as_ref()
            .map(|x| x.categories.values().map(f).sum())
            .unwrap_or(0)
    };
    let dash = |v: Option<u8>| v.map(|v| v.to_string()).unwrap_or_else(|| "–".into());
    // What a finding on one side only means, read from the older scan to the
    // newer one (the scan page links the previous scan as A).
    let (a_means, b_means) = if a.created_at <= b.created_at {
        ("fixed in B", "new in B")
    } else {
        ("new in A", "fixed in A")
    };
    let main = html! {
        table id="compare-scores" {
            caption { "Scores and counts" }
            thead { tr {
                th scope="col" { "" }
                th scope="col" class="n" { "A: " a href=(format!("/scans/{}", a.id)) { (layout::when(a.created_at)) } }
                th scope="col" class="n" { "B: " a href=(format!("/scans/{}", b.id)) { (layout::when(b.created_at)) } }
                th scope="col" class="n" { "B − A" }
            } }
            tbody {
                @for (cat, label) in CATEGORIES {
                    @let (sa, sb) = (score(&a, cat), score(&b, cat));
                    @if sa.is_some() || sb.is_some() {
                        tr {
                            th scope="row" { (label) " score" }
                            td.n { (dash(sa)) } td.n { (dash(sb)) }
                            td.n { @if let (Some(x), Some(y)) = (sa, sb) { (format!("{:+}", i16::from(y) - i16::from(x))) } @else { "–" } }
                        }
                    }
                }
                @for (label, f) in [
                    ("Critical", (|c: &crate::store::CategoryResult| c.critical) as fn(&crate::store::CategoryResult) -> u64),
                    ("Serious", |c| c.serious), ("Moderate", |c| c.moderate), ("Minor", |c| c.minor),
                    ("To review", |c| c.cant_tell),
                ] {
                    @let (ca, cb) = (count(&a, f), count(&b, f));
                    tr { th scope="row" { (label) } td.n { (ca) } td.n { (cb) } td.n { (format!("{:+}", cb as i64 - ca as i64)) } }
                }
                @let (pa, pb) = (a.summary.as_ref().map_or(0, |s| s.pages_fetched), b.summary.as_ref().map_or(0, |s| s.pages_fetched));
                tr { th scope="row" { "Pages" } td.n { (pa) } td.n { (pb) } td.n { (format!("{:+}", pb as i64 - pa as i64)) } }
            }
        }
        h2 id="only-a-heading" { "Only in A (" (diff.only_a.0) "): " (a_means) }
        (listed("only-a", &diff.only_a))
        h2 id="only-b-heading" { "Only in B (" (diff.only_b.0) "): " (b_means) }
        (listed("only-b", &diff.only_b))
    };
    Ok(layout::page(&title, Some(me.nav(Section::Sites)), main).into_response())
}
