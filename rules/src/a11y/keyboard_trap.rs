//! `keyboard-trap`: focus can leave every element in the tab order with Tab or
//! Shift+Tab, or else with a key the page tells its users about (WCAG 2.1.2;
//! ACT a1b64e, ebe86a and their composite 80af7b). Render mode only: the
//! browser presses the keys ([`crate::interaction`]).

use scraper::ElementRef;

use crate::dom::attr;
use crate::interaction::{FocusedElement, TrapExit};
use crate::{Category, Check, Impact, Level, Need, Rule, RuleMeta, Visits};

/// Fails elements focus cannot leave with the keyboard, from the browser's
/// keyboard walk of the rendered page.
pub struct KeyboardTrap;

static META: RuleMeta = RuleMeta {
    id: "keyboard-trap",
    category: Category::Accessibility,
    title: "Focus can leave every element with the keyboard",
    help: "Let Tab and Shift+Tab move focus on: do not send focus back from blur, focusout or keydown handlers. A widget that keeps focus on purpose must let a key out and say which (\"press Ctrl+M to leave the editor\"); a modal dialog must close on Escape.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/no-keyboard-trap.html",
    wcag: &["2.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["a1b64e", "ebe86a"],
    needs: &[Need::Interaction],
    docs: r##"## What it checks
Render mode only (`--render`): the browser presses Tab from the start of the
page through every element in the tab order, waiting for the page's own
handlers after each press. For each element it reached (and each element in
the tab order it did not reach, focused directly), it then presses Tab again
and again, and Shift+Tab again and again. An element from which one direction
takes focus off the page passes (as ACT's a1b64e asks: one direction is
enough). When neither direction does, because focus keeps cycling among a set
of elements while the page has others, the element is in a **trap**, and the
walk tries the other ways out WCAG 2.1.2 allows, pressing each with focus on
an element of the trap:

- **Escape**, when the trap is inside a modal dialog (`role="dialog"` or
  `alertdialog` with `aria-modal="true"`, or a `<dialog>` the browser shows as
  modal): keeping focus inside an open modal dialog is the pattern WAI-ARIA
  asks for, and Escape closes it.
- **A key the page documents** (WCAG: "the user is advised of the method for
  moving focus away"; ACT ebe86a): the page's visible text and the
  descriptions of the trap's elements (`title`, `aria-label`,
  `aria-description`, `aria-describedby`) are read for a key or key
  combination in a sentence about getting out ("Press Ctrl+M to exit",
  "Control-Shift-F6 moves focus out", "press Escape to leave the grid").
  When there is none, the trap's elements are activated one by one (at most
  three; never a link to another page or a form's submit button) in case
  help appears only then, as a "How do I leave?" link shows it.

A key **frees** focus when focus is then off the trap and Tab from there
leaves the page. The element passes when a key frees it, and **fails** when
the page names no key (`data.reason: "no-instructions"`), when Escape does
not let focus out of a modal dialog and the page names no other key
(`"modal-dialog"`), or when the keys it names do not free it
(`"exit-fails"`). The finding names the elements focus cycles among in
`data.cycle`, and the keys tried and the instructions read in `data.keys`
and `data.instructions`. A key the browser keeps for itself (Ctrl+W,
Alt+Left, F5) is never pressed: such a trap is for review
(`"exit-untried"`).

ACT's a1b64e alone ("via standard navigation") would fail a trap that a
documented key leaves; WCAG 2.1.2 does not, and neither does this rule (ACT's
composite 80af7b). None of a1b64e's examples has one.

A static scan does not run this rule's check: it reports nothing for it,
neither a failure nor a pass. The walk is bounded (presses and time per page,
at most three traps tried with other keys). A walk cut short is one finding
for review on the page (`data.reason: "walk-incomplete"`), with how many
elements it did not judge (`data.unjudged`), the first of them
(`data.labels`) and the Tab keys it pressed (`data.presses`; the cheap walk of
a page no script moves focus on presses one and focuses the rest itself); an
element a finished walk could not keep focus on, to
press keys from it, is for review on its own, and a
modal-dialog trap it had no time to press Escape in is for review
(`"modal-dialog"`, cannot tell).

## Why it matters
A keyboard user whose focus cannot leave a widget cannot reach anything else
on the page, nor the browser's own controls: the page is unusable without a
mouse. A way out that is not standard is only a way out if the page says
what it is.

## Failing
```html
<a href="/">Home</a>
<button onblur="setTimeout(() => this.focus(), 10)">Stay</button>
<a href="/about">About</a>
```

```html
<p>Press Ctrl+M to leave the editor.</p>
<div contenteditable="true" onkeydown="if (event.key === 'Tab') event.preventDefault()">Text</div>
<a href="/about">About</a>
```

## Passing
```html
<a href="/">Home</a>
<button>Go</button>
<a href="/about">About</a>
```

```html
<p>Press Ctrl+M to leave the editor.</p>
<div contenteditable="true" onkeydown="if (event.key === 'Tab') event.preventDefault(); if (event.ctrlKey && event.key === 'm') document.getElementById('about').focus()">Text</div>
<a id="about" href="/about">About</a>
```
"##,
    ..RuleMeta::BASE
};

/// At most this many labels of a cycle go into a message.
const MESSAGE_LABELS: usize = 5;
/// At most this many labels of elements an unfinished walk did not judge
/// go into the finding's data.
const UNJUDGED_LABELS: usize = 20;

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
        let mut unjudged: Vec<&str> = Vec::new();
        for e in &walk.elements {
            let el = e.find(page.root());
            if e.trapped() {
                let modal = el.is_some_and(|el| in_modal_dialog(el, modal_open))
                    || e.exit.as_ref().is_some_and(|x| x.modal);
                match (judge_trap(e, modal), el) {
                    (None, Some(el)) => cx.pass_on(el),
                    (None, None) => cx.pass(),
                    (Some((Verdict::Fail, msg, data)), Some(el)) => {
                        cx.fail(el, msg).with_data(data);
                    }
                    (Some((Verdict::Fail, msg, data)), None) => {
                        cx.fail_page(msg).with_data(data);
                    }
                    (Some((Verdict::Review, msg, data)), Some(el)) => {
                        cx.cant_tell(el, msg).with_data(data);
                    }
                    (Some((Verdict::Review, msg, data)), None) => {
                        cx.cant_tell_page(msg).with_data(data);
                    }
                }
            } else if e.escapes() {
                match el {
                    Some(el) => cx.pass_on(el),
                    None => cx.pass(),
                }
            } else if walk.complete {
                let msg = format!(
                    "The keyboard walk could not tell whether focus can leave {}: focus could not be kept there to press keys from it.",
                    e.label
                );
                let data = serde_json::json!({ "reason": "walk-incomplete", "label": e.label });
                match el {
                    Some(el) => cx.cant_tell(el, msg).with_data(data),
                    None => cx.cant_tell_page(msg).with_data(data),
                };
            } else {
                // A walk cut short leaves whole stretches of the page
                // unjudged, for one reason: one finding says so, not one
                // per element (a long page would get a thousand).
                unjudged.push(e.label.as_str());
            }
        }
        if !walk.complete {
            let n = unjudged.len();
            let named = if n == 0 {
                String::new()
            } else {
                let shown = unjudged.iter().take(MESSAGE_LABELS).copied().collect::<Vec<_>>();
                let more = n.saturating_sub(MESSAGE_LABELS);
                format!(
                    " {n} {} in the tab order {} not judged: {}{}.",
                    if n == 1 { "element" } else { "elements" },
                    if n == 1 { "was" } else { "were" },
                    shown.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                )
            };
            cx.cant_tell_page(format!(
                "The keyboard walk reached its bounds (key presses or time) before it could tell for every element in the tab order whether focus can leave it.{named}"
            ))
            .with_data(serde_json::json!({
                "reason": "walk-incomplete",
                "presses": walk.presses,
                "unjudged": n,
                "labels": unjudged.iter().take(UNJUDGED_LABELS).collect::<Vec<_>>(),
            }));
        }
    }
}

/// A trapped element's finding.
enum Verdict {
    Fail,
    Review,
}

/// The keys tried on a trap, for a message: `Ctrl+M`, `Escape and Ctrl+M`.
fn keys_text(exit: &TrapExit) -> String {
    let keys: Vec<&str> = exit.keys.iter().map(|k| k.key.as_str()).collect();
    match keys.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What to report on element `e`, which Tab and Shift+Tab do not leave
/// (`modal`: it is in a modal dialog): `None` when a key the walk tried
/// freed focus (Escape in a modal dialog, or a key the page documents).
fn judge_trap(e: &FocusedElement, modal: bool) -> Option<(Verdict, String, serde_json::Value)> {
    let cycle = cycle_text(e);
    let Some(exit) = &e.exit else {
        // No other key was tried (the walk's bounds ran out first).
        return Some(if modal {
            (
                Verdict::Review,
                format!(
                    "Focus cycles inside a modal dialog from {} ({cycle}): check that Escape or a control of the dialog closes it.",
                    e.label
                ),
                serde_json::json!({ "reason": "modal-dialog", "cycle": e.cycle, "label": e.label }),
            )
        } else {
            (
                Verdict::Fail,
                format!(
                    "Focus cannot leave {} with Tab or Shift+Tab: it cycles among {cycle}.",
                    e.label
                ),
                serde_json::json!({ "cycle": e.cycle, "label": e.label }),
            )
        });
    };
    if exit.freed_by().is_some() {
        return None;
    }
    let data = |reason: &str| {
        serde_json::json!({
            "reason": reason,
            "cycle": e.cycle,
            "label": e.label,
            "keys": exit.keys,
            "instructions": exit.instructions,
        })
    };
    if !exit.all_tried() {
        let untried: Vec<&str> = exit
            .keys
            .iter()
            .filter(|k| k.frees.is_none())
            .map(|k| k.key.as_str())
            .collect();
        return Some((
            Verdict::Review,
            format!(
                "Focus cannot leave {} with Tab or Shift+Tab (it cycles among {cycle}); the walk did not press {} (a key the browser keeps for itself, or out of bounds): check that it lets focus out.",
                e.label,
                untried.join(", ")
            ),
            data("exit-untried"),
        ));
    }
    let documented = exit.keys.iter().any(|k| k.documented);
    Some(if documented {
        let said = exit
            .instructions
            .first()
            .map(|i| format!(" (\"{i}\")"))
            .unwrap_or_default();
        (
            Verdict::Fail,
            format!(
                "Focus cannot leave {} with Tab or Shift+Tab (it cycles among {cycle}), and the keys the page names{said} do not let it out either: {} pressed from inside.",
                e.label,
                keys_text(exit)
            ),
            data("exit-fails"),
        )
    } else if modal {
        (
            Verdict::Fail,
            format!(
                "Focus cycles inside a modal dialog from {} ({cycle}), and Escape does not close it or let focus out; the page names no other key that does.",
                e.label
            ),
            data("modal-dialog"),
        )
    } else {
        (
            Verdict::Fail,
            format!(
                "Focus cannot leave {} with Tab or Shift+Tab: it cycles among {cycle}, and the page names no other key that lets it out.",
                e.label
            ),
            data("no-instructions"),
        )
    })
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
            exit: None,
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
            shortcuts: None,
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
            shortcuts: None,
        };
        let got = outcomes(Some(walk));
        assert_eq!(
            got,
            vec![(
                Outcome::CantTell,
                String::new(),
                "The keyboard walk reached its bounds (key presses or time) before it could tell for every element in the tab order whether focus can leave it. 1 element in the tab order was not judged: a#home.".to_string()
            )]
        );
    }

    #[test]
    fn an_unfinished_walk_is_one_finding_however_many_it_left() {
        // A long page the walk ran out of presses on: one finding, with the
        // count and the first labels, not one per element left.
        let mut elements: Vec<FocusedElement> = (0..1000)
            .map(|i| element(vec![1, i], &format!("a.l{i}"), None))
            .collect();
        elements.insert(0, element(vec![1, 0], "a#home", Some(true)));
        let walk = Interaction {
            elements,
            presses: 1000,
            complete: false,
            script_moves_focus: false,
            activations: Vec::new(),
            shortcuts: None,
        };
        let got = outcomes(Some(walk));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, Outcome::CantTell);
        assert!(
            got[0].2.ends_with("1000 elements in the tab order were not judged: a.l0, a.l1, a.l2, a.l3, a.l4 and 995 more."),
            "{}",
            got[0].2
        );
    }

    #[test]
    fn a_finished_walk_names_each_element_it_could_not_judge() {
        let walk = Interaction {
            elements: vec![
                element(vec![1, 0], "a#home", None),
                element(vec![1, 1], "button#go", Some(true)),
            ],
            presses: 3,
            complete: true,
            script_moves_focus: true,
            activations: Vec::new(),
            shortcuts: None,
        };
        assert_eq!(
            outcomes(Some(walk)),
            vec![(
                Outcome::CantTell,
                "#home".to_string(),
                "The keyboard walk could not tell whether focus can leave a#home: focus could not be kept there to press keys from it.".to_string()
            )]
        );
    }

    #[test]
    fn a_key_that_frees_focus_passes_the_trap_and_one_that_does_not_fails_it() {
        use crate::interaction::{ExitKey, TrapExit};
        let with = |exit: Option<TrapExit>| {
            let mut stay = element(vec![1, 1], "button#stay", Some(false));
            stay.exit = exit;
            let walk = Interaction {
                elements: vec![stay],
                presses: 9,
                complete: true,
                script_moves_focus: true,
                activations: Vec::new(),
                shortcuts: None,
            };
            outcomes(Some(walk))
        };
        let key = |frees| TrapExit {
            instructions: vec!["Press Ctrl+M to leave".into()],
            keys: vec![ExitKey {
                key: "Ctrl+M".into(),
                documented: true,
                frees,
            }],
            ..TrapExit::default()
        };
        assert_eq!(with(Some(key(Some(true)))), vec![]);
        assert_eq!(
            with(Some(key(Some(false)))),
            vec![(
                Outcome::Failed,
                "#stay".to_string(),
                "Focus cannot leave button#stay with Tab or Shift+Tab (it cycles among button#stay), and the keys the page names (\"Press Ctrl+M to leave\") do not let it out either: Ctrl+M pressed from inside.".to_string()
            )]
        );
        assert_eq!(with(Some(key(None)))[0].0, Outcome::CantTell);
        assert_eq!(
            with(Some(TrapExit::default())),
            vec![(
                Outcome::Failed,
                "#stay".to_string(),
                "Focus cannot leave button#stay with Tab or Shift+Tab: it cycles among button#stay, and the page names no other key that lets it out.".to_string()
            )]
        );
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
            shortcuts: None,
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
