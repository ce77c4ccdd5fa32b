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

/// Why a rule built on the cascade or on layout bounds cannot tell: the
/// `data.reason` of its cant-tell findings, one vocabulary for every such rule
/// so the report's notes count them alike (see `color-contrast`'s docs, "No
/// silent pass").
pub(crate) mod reason {
    /// A stylesheet the page uses could not be loaded, or went over the caps.
    pub(crate) const STYLES_INCOMPLETE: &str = "styles-incomplete";
    /// The text color uses `var()` or `calc()` that does not resolve.
    pub(crate) const TEXT_COLOR_UNRESOLVED: &str = "text-color-unresolved";
    /// A link's or its text's color does not resolve.
    pub(crate) const COLOR_UNRESOLVED: &str = "color-unresolved";
    /// A background color on the way down does not resolve.
    pub(crate) const BACKGROUND_COLOR_UNRESOLVED: &str = "background-color-unresolved";
    /// A size (`width`, `height`, their minimum or maximum, `padding`) uses
    /// `var()` or a math function that does not resolve.
    pub(crate) const SIZE_UNRESOLVED: &str = "size-unresolved";
    /// A rotation under an orientation query uses `var()` or `calc()` that
    /// does not resolve.
    pub(crate) const ROTATION_UNRESOLVED: &str = "rotation-unresolved";
    /// A `transform` scales the element or an ancestor: sizes drawn differ
    /// from sizes declared.
    pub(crate) const TRANSFORM: &str = "transform";
    /// The room text takes is only estimated (font metrics, wrapping), and
    /// the estimate straddles the box's size.
    pub(crate) const TEXT_EXTENT: &str = "text-extent";
    /// An `outline` uses custom properties that do not resolve: it may be
    /// removed or drawn.
    pub(crate) const OUTLINE_UNRESOLVED: &str = "outline-unresolved";
    /// A script's focus handler may draw the focus indicator.
    pub(crate) const FOCUS_HANDLER: &str = "focus-handler";
    /// A link's hover and focus cues are not known.
    pub(crate) const STATE_CUES_UNKNOWN: &str = "state-cues-unknown";
}

/// Records a cant-tell on `el` with `message` and the reason in `data.reason`
/// (see [`reason`]).
pub(crate) fn cant_tell_because(
    cx: &mut Check<'_, '_>,
    el: ElementRef<'_>,
    message: impl Into<String>,
    why: &str,
) {
    cx.cant_tell(el, message)
        .with_data(serde_json::json!({ "reason": why }));
}
