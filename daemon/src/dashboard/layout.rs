//! The page frame and the pieces pages share, rendered with `maud` (the
//! template engine of the HTML report too: one in the project).
//!
//! Accessibility is built in here so pages cannot forget it: a skip link,
//! `header`/`nav`/`main`/`footer` landmarks, exactly one `h1` (the page title),
//! labels on every field, field errors tied to their field with
//! `aria-describedby` and `aria-invalid`, an error summary linking to the
//! fields, `aria-current` on the navigation, charts with text alternatives.
//! Nothing here writes a `style` attribute or an inline script: the CSP
//! forbids both.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use chrono::{DateTime, Utc};
use maud::{html, Markup, DOCTYPE};

use crate::error::Error;

/// The score categories as (form and query value, label): the "Scan now"
/// form, the trend, the explorer's filter and the comparison.
pub const CATEGORIES: &[(&str, &str)] = &[
    ("accessibility", "Accessibility (WCAG 2.1 AA)"),
    ("seo", "SEO"),
    ("security", "Security"),
    ("performance", "Performance"),
    ("quality", "Content quality"),
];
use crate::store::{Account, Plan};

/// The stylesheet, embedded in the binary.
pub const CSS: &str = include_str!("assets/app.css");
/// The one script: progressive enhancement only (copy buttons, scan polling).
pub const JS: &str = include_str!("assets/app.js");

/// The site icon (a magnifier on the header's navy), linked from every page
/// so browsers do not probe `/favicon.ico` and log a failed request.
pub const FAVICON: &str = include_str!("assets/favicon.svg");

/// `?v=` of the asset URLs: the first hex digits of the content's SHA-256, so
/// a new build gets new URLs and assets can be cached for a year.
static CSS_URL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "/assets/app.css?v={}",
        &crate::secrets::hash_secret(CSS)[..12]
    )
});
static JS_URL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "/assets/app.js?v={}",
        &crate::secrets::hash_secret(JS)[..12]
    )
});

static FAVICON_URL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "/assets/favicon.svg?v={}",
        &crate::secrets::hash_secret(FAVICON)[..12]
    )
});

/// The URL of the stylesheet (with its content hash).
pub fn css_url() -> &'static str {
    &CSS_URL
}

/// `GET /favicon.ico`: the icon, for clients that ask the conventional
/// address without reading the page's `<link rel="icon">` (the SVG itself:
/// browsers go by the content type, not the name). Cached for a day, not a
/// year: this URL does not change when the icon does.
pub async fn favicon() -> Response {
    let mut resp = (StatusCode::OK, FAVICON).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    resp
}

/// `GET /assets/{file}`: the embedded CSS, JS and icon.
pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "app.css" => (CSS, "text/css; charset=utf-8"),
        "app.js" => (JS, "text/javascript; charset=utf-8"),
        "favicon.svg" => (FAVICON, "image/svg+xml"),
        _ => {
            return (
                StatusCode::NOT_FOUND,
                error_page("Not found", "There is no such file."),
            )
                .into_response()
        }
    };
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    resp
}

/// Which part of the dashboard a page belongs to (marks the navigation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Sites, scans and reports.
    Sites,
    /// Settings, then API keys.
    Keys,
    /// Webhooks.
    Webhooks,
}

/// The navigation of a signed-in page.
#[derive(Debug, Clone)]
pub struct Nav<'a> {
    /// The user's e-mail.
    pub email: &'a str,
    /// The account (its plan is shown).
    pub account: &'a Account,
    /// The session's CSRF token (the sign-out form).
    pub csrf: &'a str,
    /// The current section.
    pub section: Section,
}

/// A plan's name as people read it.
pub fn plan_name(plan: Plan) -> &'static str {
    match plan {
        Plan::Starter => "Starter",
        Plan::Professional => "Professional",
        Plan::Enterprise => "Enterprise",
    }
}

/// A whole page: `title` is the `<title>` and the one `h1`.
pub fn page(title: &str, nav: Option<Nav<'_>>, main: Markup) -> Html<String> {
    let link = |href: &str, text: &str, section: Section, nav: &Nav<'_>| {
        html! {
            li {
                @if nav.section == section {
                    a href=(href) aria-current="page" { (text) }
                } @else {
                    a href=(href) { (text) }
                }
            }
        }
    };
    Html(html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · sitescan" }
                link rel="icon" type="image/svg+xml" href=(FAVICON_URL.as_str());
                link rel="stylesheet" href=(css_url());
                script src=(JS_URL.as_str()) defer {}
            }
            body {
                a.skip href="#main" { "Skip to main content" }
                header.top {
                    p.brand { a href="/" { "sitescan" } }
                    @if let Some(nav) = &nav {
                        nav aria-label="Main" {
                            ul {
                                (link("/sites", "Sites", Section::Sites, nav))
                                (link("/settings/keys", "API keys", Section::Keys, nav))
                                (link("/webhooks", "Webhooks", Section::Webhooks, nav))
                            }
                        }
                        div.who {
                            span { (nav.email) " · " (plan_name(nav.account.plan)) " plan" }
                            form method="post" action="/logout" {
                                input type="hidden" name="csrf" value=(nav.csrf);
                                button.link type="submit" id="sign-out" { "Sign out" }
                            }
                        }
                    }
                }
                main id="main" tabindex="-1" {
                    h1 { (title) }
                    (main)
                }
                footer { p { "sitescan · " a href="/api/v1/openapi.json" { "API reference (OpenAPI)" } } }
            }
        }
    }.into_string())
}

/// A page saying what went wrong (no navigation: it may be signed out).
pub fn error_page(title: &str, message: &str) -> Html<String> {
    page(
        title,
        None,
        html! {
            p { (message) }
            p { a href="/" { "Back to the dashboard" } }
        },
    )
}

/// Problems with the fields of a form, in form order.
#[derive(Debug, Clone, Default)]
pub struct FieldErrors(Vec<(String, String)>);

impl FieldErrors {
    /// Adds a problem with field `id`.
    pub fn add(&mut self, field: impl Into<String>, problem: impl Into<String>) {
        self.0.push((field.into(), problem.into()));
    }

    /// The first problem with `field`.
    pub fn get(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, p)| p.as_str())
    }

    /// No problems.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The field problems of an operation's error ([`Error::Invalid`]), with
    /// its field names mapped to form field ids by `fields` (`(op, form)`); a
    /// problem with an unmapped field, or any other error, goes to `fallback`.
    pub fn from_error(e: &Error, fields: &[(&str, &str)], fallback: &str) -> Self {
        let mut out = FieldErrors::default();
        let problems = match e {
            Error::Invalid(p) => p.list(),
            _ => &[],
        };
        for d in problems {
            let field = fields
                .iter()
                .find(|(api, _)| d.field == *api || d.field.starts_with(&format!("{api}[")))
                .map(|(_, form)| *form)
                .unwrap_or(fallback);
            out.add(field, capitalize(&d.problem));
        }
        if out.is_empty() {
            let message = match e {
                Error::NotFound { kind, id } => format!("no {kind} `{id}` in this account"),
                other => other.to_string(),
            };
            out.add(fallback, capitalize(&message));
        }
        out
    }
}

/// A problem as a sentence of the page: capitalized, with a full stop.
pub fn sentence(s: &str) -> String {
    capitalize(s)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => {
            let mut out: String = f.to_uppercase().collect();
            out.push_str(c.as_str());
            if !out.ends_with('.') {
                out.push('.');
            }
            out
        }
        None => String::new(),
    }
}

/// A labelled input.
#[derive(Debug, Clone)]
pub struct Field<'a> {
    /// Its id (and the key of its errors).
    pub id: &'a str,
    /// Its form name.
    pub name: &'a str,
    /// The visible label.
    pub label: &'a str,
    /// `text`, `email`, `password`, `url`.
    pub kind: &'a str,
    /// The current value.
    pub value: &'a str,
    /// `autocomplete`, when it has one.
    pub autocomplete: Option<&'a str>,
    /// Whether it must be filled.
    pub required: bool,
    /// A hint shown under the label.
    pub hint: Option<&'a str>,
}

/// The ids a field is described by: its hint and its error.
fn described_by(id: &str, hint: bool, error: bool) -> Option<String> {
    let mut ids = Vec::new();
    if hint {
        ids.push(format!("{id}-hint"));
    }
    if error {
        ids.push(format!("{id}-error"));
    }
    (!ids.is_empty()).then(|| ids.join(" "))
}

/// A field's hint and error paragraphs.
pub fn field_notes(id: &str, hint: Option<&str>, errors: &FieldErrors) -> Markup {
    html! {
        @if let Some(h) = hint { p.hint id=(format!("{id}-hint")) { (h) } }
        @if let Some(e) = errors.get(id) { p.error id=(format!("{id}-error")) { (e) } }
    }
}

/// The `aria-describedby` of field `id`.
pub fn describedby(id: &str, hint: bool, errors: &FieldErrors) -> Option<String> {
    described_by(id, hint, errors.get(id).is_some())
}

/// An `<input>` with its label, hint and error.
pub fn field(f: &Field<'_>, errors: &FieldErrors) -> Markup {
    let invalid = errors.get(f.id).is_some();
    html! {
        div.field {
            label for=(f.id) { (f.label) @if !f.required { " (optional)" } }
            (field_notes(f.id, f.hint, errors))
            input type=(f.kind) id=(f.id) name=(f.name) value=(f.value)
                autocomplete=[f.autocomplete]
                required[f.required]
                aria-invalid=[invalid.then_some("true")]
                aria-describedby=[describedby(f.id, f.hint.is_some(), errors)];
        }
    }
}

/// A `<select>` (name and id `id`) of `(value, label)` choices, with its
/// label, hint and error; `selected` is the chosen value.
pub fn select(
    id: &str,
    label: &str,
    hint: &str,
    choices: &[(&str, &str)],
    selected: &str,
    errors: &FieldErrors,
) -> Markup {
    let invalid = errors.get(id).is_some();
    html! {
        div.field {
            label for=(id) { (label) }
            (field_notes(id, Some(hint), errors))
            select id=(id) name=(id)
                aria-invalid=[invalid.then_some("true")]
                aria-describedby=[describedby(id, true, errors)] {
                @for (value, text) in choices {
                    option value=(value) selected[*value == selected] { (text) }
                }
            }
        }
    }
}

/// The list of a form's problems, each linking to its field, announced.
pub fn error_summary(errors: &FieldErrors) -> Markup {
    html! {
        @if !errors.is_empty() {
            div.error-summary role="alert" {
                h2 { "There is a problem" }
                ul {
                    @for (field, problem) in &errors.0 {
                        li { a href=(format!("#{field}")) { (problem) } }
                    }
                }
            }
        }
    }
}

/// A time as people read it, machine-readable too.
pub fn when(at: DateTime<Utc>) -> Markup {
    html! { time datetime=(at.to_rfc3339()) { (at.format("%Y-%m-%d %H:%M UTC")) } }
}

/// An optional time, or a dash said as "never".
pub fn when_or(at: Option<DateTime<Utc>>, none: &str) -> Markup {
    match at {
        Some(at) => when(at),
        None => html! { (none) },
    }
}

/// The plan's scan allowance today, said where scans are started.
pub fn scans_left(account: &Account, used: u32) -> Markup {
    html! {
        @match account.plan.scans_per_day() {
            Some(0) => p.plan id="scans-left" {
                "The " (plan_name(account.plan)) " plan includes no scans. Scans and API access need the Professional or Enterprise plan."
            },
            Some(limit) => p.plan id="scans-left" {
                "Scans today: " (used) " of " (limit) " (" (plan_name(account.plan)) " plan, "
                (limit.saturating_sub(used)) " left; the count restarts at midnight UTC)."
                @if let Some(pages) = account.plan.max_pages() { " Up to " (pages) " pages per scan." }
            },
            None => p.plan id="scans-left" {
                "Scans today: " (used) " (" (plan_name(account.plan)) " plan: no daily limit, no page limit)."
            },
        }
    }
}

/// A small bar chart as inline SVG (presentation attributes only), with
/// `title` as its text alternative. `bars` are (label, value), oldest first.
pub fn bar_chart(id: &str, title: &str, bars: &[(String, u64)]) -> Markup {
    const W: u32 = 4;
    const GAP: u32 = 1;
    const H: u32 = 24;
    let max = bars.iter().map(|(_, v)| *v).max().unwrap_or(0).max(1);
    let width = bars.len() as u32 * (W + GAP);
    html! {
        svg.chart role="img" aria-labelledby=(format!("{id}-title")) width=(width) height=(H)
            viewBox=(format!("0 0 {width} {H}")) xmlns="http://www.w3.org/2000/svg" {
            title id=(format!("{id}-title")) { (title) }
            @for (i, (_, v)) in bars.iter().enumerate() {
                @let h = if *v == 0 { 1 } else { ((*v as f64 / max as f64) * (H - 1) as f64).ceil() as u32 };
                rect x=(i as u32 * (W + GAP)) y=(H - h) width=(W) height=(h)
                    fill=(if *v == 0 { "#c4c8ce" } else { "#0b57d0" }) {}
            }
        }
    }
}

/// Line colours of the trend chart, by category (distinct, 3:1 on white).
pub const CATEGORY_COLORS: &[(&str, &str)] = &[
    ("accessibility", "#0b57d0"),
    ("seo", "#8a3ffc"),
    ("security", "#b3400b"),
    ("performance", "#1a7f37"),
    ("quality", "#6b4f00"),
];

/// Scores (0-100) per category over time as inline SVG lines; `series` are
/// (category, points oldest first). The text alternative is `title`.
pub fn trend_chart(id: &str, title: &str, series: &[(String, Vec<u8>)]) -> Markup {
    const W: f64 = 320.0;
    const H: f64 = 120.0;
    let n = series.iter().map(|(_, p)| p.len()).max().unwrap_or(0);
    let x = |i: usize| {
        if n <= 1 {
            W / 2.0
        } else {
            8.0 + i as f64 * (W - 16.0) / (n - 1) as f64
        }
    };
    let y = |score: u8| 8.0 + (100.0 - f64::from(score)) * (H - 16.0) / 100.0;
    html! {
        svg.chart.trend role="img" aria-labelledby=(format!("{id}-title")) width=(W) height=(H)
            viewBox=(format!("0 0 {W} {H}")) xmlns="http://www.w3.org/2000/svg" {
            title id=(format!("{id}-title")) { (title) }
            line x1="8" y1=(y(100)) x2=(W - 8.0) y2=(y(100)) stroke="#d5d8dd" stroke-width="1" {}
            line x1="8" y1=(y(50)) x2=(W - 8.0) y2=(y(50)) stroke="#d5d8dd" stroke-width="1" {}
            line x1="8" y1=(y(0)) x2=(W - 8.0) y2=(y(0)) stroke="#d5d8dd" stroke-width="1" {}
            @for (cat, points) in series {
                @let color = CATEGORY_COLORS.iter().find(|(c, _)| c == cat).map(|(_, c)| *c).unwrap_or("#1b1b1b");
                @let path: Vec<String> = points.iter().enumerate().map(|(i, s)| format!("{:.1},{:.1}", x(i), y(*s))).collect();
                @if points.len() > 1 {
                    polyline points=(path.join(" ")) fill="none" stroke=(color) stroke-width="2" {}
                }
                @for (i, s) in points.iter().enumerate() {
                    circle cx=(format!("{:.1}", x(i))) cy=(format!("{:.1}", y(*s))) r="3" fill=(color) {}
                }
            }
        }
    }
}
