//! Whether the start page lets a scan run: judged as soon as it is fetched, so a
//! wrong URL or a site that is down fails the scan before anything else is
//! crawled, and no report of an error page passes for a scan of the site.

use crate::report::PageReport;

/// Why the start page cannot begin a scan, or `None` when it can. The scan needs
/// a start URL that ends, after redirects, on a 2xx answer with an HTML page. A
/// start URL that answers 404 or 500, redirects to one, never stops redirecting
/// or answers a PDF means a wrong URL or a site that is down.
///
/// A start page without a `Content-Type` passes (the crawler then judges the
/// body by its first bytes, as browsers do), and so does one whose only error
/// is a body over the size cap (`cut_at_cap`): it was read and analyzed up to
/// the cap, and its report says so.
pub(crate) fn start_page_problem(page: &PageReport, cut_at_cap: bool) -> Option<String> {
    let via = if page.final_url.is_empty() || page.final_url == page.url {
        String::new()
    } else {
        format!(" (redirected to {})", page.final_url)
    };
    if let Some(error) = page.error.as_ref().filter(|_| !cut_at_cap) {
        return Some(format!(
            "the start URL {}{via} could not be read: {error}; check the URL and that the site is up",
            page.url
        ));
    }
    if !(200..300).contains(&page.status) {
        let reason = reqwest::StatusCode::from_u16(page.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        let hint = match page.status {
            300..=399 => "the redirect was not followed to a page",
            401 | 403 => "the site refuses the scanner; scan a page it serves without signing in",
            400..=499 => "check the URL",
            _ => "the site has a problem; try again later",
        };
        return Some(format!(
            "the start URL {}{via} answered HTTP {}{reason}: {hint} (the scan needs a start page that answers 2xx)",
            page.url, page.status
        ));
    }
    match page.content_type.as_deref() {
        None | Some("text/html") | Some("application/xhtml+xml") => None,
        Some(other) => Some(format!(
            "the start URL {}{via} answered with {other}, not an HTML page: give the URL of a web page",
            page.url
        )),
    }
}
