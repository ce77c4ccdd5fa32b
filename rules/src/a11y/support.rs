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

#[cfg(test)]
mod tests {
    use crate::{analyze, registry, Page};

    /// Deep nesting, odd Unicode in CSS and attributes, broken references and
    /// malformed values: every accessibility rule runs without a panic.
    #[test]
    fn hostile_pages_do_not_panic() {
        let deep = format!(
            "<button>{}deep{}</button><div role=list>{}</div>",
            "<span>".repeat(1000),
            "</span>".repeat(1000),
            "<div>".repeat(1000)
        );
        let pages = [
            deep,
            r#"<style>.a\é:hover, #é\😀 ü, :is(, [x="]{color:var(--x,var(--y,}
               @media ((( { p { color: rgb(300 -2 9 / 4) } } p{font: 12px/ ;background:linear-gradient(}
               a{outline:none}</style>
               <p style="color:#zzz;background:url(;opacity:-1;font-size:-4px;letter-spacing:1e99em !important">x</p>
               <div role="" aria-labelledby="  x y x " aria-owns="a a a" id=a>t</div>
               <label for=""><input id="" aria-valuenow=NaN role="slider spinbutton"></label>
               <svg role=img><title></title><text>t</text></svg><math><mi>x</mi></math>
               <table role=grid><tr><th scope=bogus headers="h h">h</th></tr></table>
               <img alt="" aria-labelledby=a tabindex=-99999999999999999999>
               <details><summary role=none aria-label></summary></details>"#
                .to_string(),
            "<html><body aria-hidden=true><a href>".to_string(),
            String::new(),
        ];
        let rules = registry::select(&["accessibility"]).unwrap();
        for html in &pages {
            let page = Page::from_html("https://example.com/", html);
            let a = analyze(&page, &rules.page);
            assert!(a.errors.is_empty(), "{:?}", a.errors);
        }
    }
}
