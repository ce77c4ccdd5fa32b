//! Small helpers the accessibility rules of this crate share (name checks,
//! applicability filters), so each rule file holds only what is particular to it.

use scraper::ElementRef;

use crate::aria::html::is_html;
use crate::Check;

/// Records a pass when `el` has a non-empty accessible name, else a failure saying
/// `what` has none.
pub(crate) fn require_name(el: ElementRef<'_>, cx: &mut Check<'_, '_>, what: &str) {
    let page = cx.page();
    if page.accessible_name(el).trim().is_empty() {
        cx.fail(el, format!("{what} has no accessible name."));
    } else {
        cx.pass();
    }
}

/// Whether rules about exposed elements should skip `el`: not included in the
/// accessibility tree, or inside an element whose children are presentational.
pub(crate) fn not_exposed(el: ElementRef<'_>, cx: &Check<'_, '_>) -> bool {
    let page = cx.page();
    page.is_hidden(el) || page.is_presentational_child(el)
}

/// Whether `el` is the HTML element `tag`.
pub(crate) fn is_tag(el: ElementRef<'_>, tag: &str) -> bool {
    is_html(el) && el.value().name() == tag
}

/// Whether `el` carries an explicit `role` attribute that resolves to one of `roles`
/// (the computed role, so conflict resolution and invalid tokens are honoured).
pub(crate) fn has_explicit_role(el: ElementRef<'_>, cx: &Check<'_, '_>, roles: &[&str]) -> bool {
    crate::aria::tree::explicit_role(el).is_some()
        && cx.page().role(el).is_some_and(|r| roles.contains(&r))
}
