//! `keyboard-trap`: focus can leave every element in the tab order with Tab or
//! Shift+Tab (WCAG 2.1.2, ACT a1b64e). Render mode only: the browser presses
//! the keys ([`crate::interaction`]).

use scraper::ElementRef;

use crate::dom::attr;
use crate::interaction::FocusedElement;
use crate::{Category, Check, Impact, Level, Need, Rule, RuleMeta, Visits};

/// Fails elements focus cannot leave with the standard keys, from the browser's
/// keyboard walk of the rendered page.
pub struct KeyboardTrap;

static META: RuleMeta = RuleMeta {
    id: "keyboard-trap",
    category: Category::Accessibility,
    title: "Focus can leave every element with Tab or Shift+Tab",
    help: "Let Tab and Shift+Tab move focus on: do not send focus back from blur, focusout or keydown handlers (a modal dialog may keep focus inside while it is open if Escape closes it).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/no-keyboard-trap.html",
    wcag: &["2.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["a1b64e"],
    needs: &[Need::Interaction],
    docs: r##"## What it checks
Render mode only (`--render`): the browser presses Tab from the start of the
page through every element in the tab order, waiting for the page's own
handlers after each press. For each element it reached (and each element in
the tab order it did not reach, focused directly), it then presses Tab again
and again, and Shift+Tab again and again: an element **fails** when neither
direction ever takes focus off the page, because focus keeps cycling among a
set of elements while the page has others. An element from which one
direction leaves the page passes (as ACT's a1b64e asks: one direction is
enough). The finding names the elements focus cycles among in `data.cycle`.

A static scan does not run this rule's check: it reports nothing for it,
neither a failure nor a pass. The walk is bounded (presses and time per page);
elements it could not judge are named on the page for review
(`data.reason: "walk-incomplete"`).

Only Tab and Shift+Tab are pressed. Focus kept inside an open modal dialog
(`role="dialog"` or `alertdialog` with `aria-modal="true"`, or a `<dialog>`
the browser shows as modal) is the pattern WAI-ARIA asks for, left with Escape
or a close button: such a cycle is named for review (`data.reason:
"modal-dialog"`), not failed. A trap that another key (a documented shortcut)
opens elsewhere is still reported, and needs a person to check the page tells
how to leave it (WCAG allows that).

## Why it matters
A keyboard user whose focus cannot leave a widget cannot reach anything else
on the page, nor the browser's own controls: the page is unusable without a
mouse.

## Failing
```html
<a href="/">Home</a>
<button onblur="setTimeout(() => this.focus(), 10)">Stay</button>
<a href="/about">About</a>
```

## Passing
```html
<a href="/">Home</a>
<button>Go</button>
<a href="/about">About</a>
```
"##,
    ..RuleMeta::BASE
};

/// At most this many labels of a cycle go into a message.
const MESSAGE_LABELS: usize = 5;

fn cycle_text(e: &FocusedElement) -> String {
    let mut names: Vec<&str> = e
        .cycle
        .iter()
        .take(MESSAGE_LABELS)
        .map(String::as_str)
        .collect();
    if names.is_empty() {
        names.push(&e.label);
    }
    let more = e.cycle.len().saturating_sub(MESSAGE_LABELS);
    let mut s = names.join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

impl Rule for KeyboardTrap {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        // No browser walked the page (a static scan): nothing to say.
        let Some(walk) = page.page().interaction.as_ref() else {
            return;
        };
        // The browser showed a `<dialog>` as modal (`:modal`).
        let modal_open = page.rendered_page().is_some_and(|r| r.modal.is_some());
        for e in &walk.elements {
            let el = e.find(page.root());
            let data = || serde_json::json!({ "cycle": e.cycle, "label": e.label });
            if e.trapped() && el.is_some_and(|el| in_modal_dialog(el, modal_open)) {
                let msg = format!(
                    "Focus cycles inside a modal dialog from {} ({}): check that Escape or a control of the dialog closes it.",
                    e.label,
                    cycle_text(e)
                );
                let data = serde_json::json!({ "reason": "modal-dialog", "cycle": e.cycle, "label": e.label });
                if let Some(el) = el {
                    cx.cant_tell(el, msg).with_data(data);
                }
            } else if e.trapped() {
                let msg = format!(
                    "Focus cannot leave {} with Tab or Shift+Tab: it cycles among {}.",
                    e.label,
                    cycle_text(e)
                );
                match el {
                    Some(el) => cx.fail(el, msg).with_data(data()),
                    None => cx.fail_page(msg).with_data(data()),
                };
            } else if e.escapes() {
                match el {
                    Some(el) => cx.pass_on(el),
                    None => cx.pass(),
                }
            } else {
                let msg = format!(
                    "The keyboard walk could not tell whether focus can leave {}: it ran out of presses or time, or focus could not be kept there to press keys from it.",
                    e.label
                );
                let data = serde_json::json!({ "reason": "walk-incomplete", "label": e.label });
                match el {
                    Some(el) => cx.cant_tell(el, msg).with_data(data),
                    None => cx.cant_tell_page(msg).with_data(data),
                };
            }
        }
        if !walk.complete {
            cx.cant_tell_page(format!(
                "The keyboard walk stopped after {} key presses, before it reached every element in the tab order; the ones it did not reach were not checked.",
                walk.presses
            ))
            .with_data(serde_json::json!({ "reason": "walk-incomplete" }));
        }
    }
}

/// Whether `el` is in (or is) an open modal dialog: an ARIA dialog marked
/// modal, or a `<dialog open>` while the browser shows a modal dialog.
fn in_modal_dialog(el: ElementRef<'_>, modal_open: bool) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|a| {
            let role = attr(a, "role").unwrap_or("").trim().to_ascii_lowercase();
            let aria_dialog = (role == "dialog" || role == "alertdialog")
                && attr(a, "aria-modal").is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            let shown_modal =
                modal_open && a.value().name() == "dialog" && attr(a, "open").is_some();
            aria_dialog || shown_modal
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interaction::Interaction;
    use crate::{Outcome, Page};

    const HTML: &str = "<html><head><title>t</title></head><body><a href=/ id=home>Home</a><button id=stay>Stay</button><button id=go>Go</button></body></html>";

    fn element(path: Vec<u32>, label: &str, leaves: Option<bool>) -> FocusedElement {
        FocusedElement {
            path,
            label: label.into(),
            tab_reached: true,
            leaves_page: leaves,
            cycle: if leaves == Some(false) {
                vec![label.into()]
            } else {
                Vec::new()
            },
            focus_style: None,
        }
    }

    fn outcomes(interaction: Option<Interaction>) -> Vec<(Outcome, String, String)> {
        outcomes_on(HTML, interaction)
    }

    fn outcomes_on(html: &str, interaction: Option<Interaction>) -> Vec<(Outcome, String, String)> {
        let mut page = Page::from_html("https://example.com/", html);
        page.interaction = interaction;
        let analysis = crate::analyze(&page, &[&KeyboardTrap]);
        let mut out: Vec<(Outcome, String, String)> = analysis
            .findings
            .into_iter()
            .map(|f| (f.outcome, f.selector, f.message))
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        out
    }

    #[test]
    fn a_static_scan_reports_nothing() {
        let page = Page::from_html("https://example.com/", HTML);
        let analysis = crate::analyze(&page, &[&KeyboardTrap]);
        assert!(analysis.findings.is_empty());
        let tally = analysis.tallies.iter().find(|t| t.rule_id == "keyboard-trap");
        assert!(tally.is_none_or(|t| t.passed == 0 && t.failed == 0 && t.cant_tell == 0));
    }

    #[test]
    fn a_trapped_element_fails_and_an_escaping_one_passes() {
        let walk = Interaction {
            elements: vec![
                element(vec![1, 0], "a#home", Some(true)),
                element(vec![1, 1], "button#stay", Some(false)),
                element(vec![1, 2], "button#go", Some(true)),
            ],
            presses: 9,
            complete: true,
            script_moves_focus: true,
            activations: Vec::new(),
        };
        assert_eq!(
            outcomes(Some(walk)),
            vec![(
                Outcome::Failed,
                "#stay".to_string(),
                "Focus cannot leave button#stay with Tab or Shift+Tab: it cycles among button#stay.".to_string()
            )]
        );
    }

    #[test]
    fn an_unfinished_walk_is_for_review() {
        let walk = Interaction {
            elements: vec![element(vec![1, 0], "a#home", None)],
            presses: 400,
            complete: false,
            script_moves_focus: false,
            activations: Vec::new(),
        };
        let got = outcomes(Some(walk));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(|(o, _, _)| *o == Outcome::CantTell));
        assert_eq!(got[1].1, "#home");
    }

    #[test]
    fn a_cycle_inside_a_modal_dialog_is_for_review_not_a_failure() {
        let html = "<html><head><title>t</title></head><body><a href=/ id=home>Home</a><div role=dialog aria-modal=true aria-label=Edit><button id=stay>Stay</button></div><button id=go>Go</button></body></html>";
        let walk = Interaction {
            elements: vec![
                element(vec![1, 0], "a#home", Some(true)),
                element(vec![1, 1, 0], "button#stay", Some(false)),
                element(vec![1, 2], "button#go", Some(true)),
            ],
            presses: 9,
            complete: true,
            script_moves_focus: true,
            activations: Vec::new(),
        };
        assert_eq!(
            outcomes_on(html, Some(walk.clone())),
            vec![(
                Outcome::CantTell,
                "#stay".to_string(),
                "Focus cycles inside a modal dialog from button#stay (button#stay): check that Escape or a control of the dialog closes it.".to_string()
            )]
        );
        // The same cycle in a dialog that is not modal is a trap.
        let html = html.replace(" aria-modal=true", "");
        assert_eq!(outcomes_on(&html, Some(walk))[0].0, Outcome::Failed);
    }
}
