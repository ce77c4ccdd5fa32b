//! `character-key-shortcuts`: a key of one printable character that acts on
//! the page can be turned off or remapped (WCAG 2.1.4; ACT ffbc54). Render
//! mode only: the browser sends the keys ([`crate::interaction::Shortcuts`]).

use crate::interaction::{find_path, Shortcut, Shortcuts};
use crate::{Category, Check, Impact, Level, Need, Rule, RuleMeta, Visits};

/// Fails single printable-character keys that act on the page when no
/// control of the page turns them off or remaps them.
pub struct CharacterKeyShortcuts;

static META: RuleMeta = RuleMeta {
    id: "character-key-shortcuts",
    category: Category::Accessibility,
    title: "Single-character keyboard shortcuts can be turned off or remapped",
    help: "Give every shortcut of a single letter, digit, punctuation or symbol key a control that turns it off or remaps it to a combination with Ctrl, Alt or Meta, or make it act only while its own component has focus.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/character-key-shortcuts.html",
    wcag: &["2.1.4"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["ffbc54"],
    needs: &[Need::Interaction],
    docs: r##"## What it checks
Render mode only (`--render`): after the keyboard walk, the browser takes
focus off every element and sends each printable key of a US keyboard
(letters in both cases, digits, punctuation and symbols, Space) to the page,
as key-down, key-press and key-up events. Such events reach the page's
listeners but do nothing of their own: nothing is typed or scrolled. A key
is a **shortcut** when, beyond what a Shift key alone does on that page, the
DOM changed, focus moved, the page navigated or a listener cancelled the
key, and that twice in a row. A key that acts only while one of the page's
elements has focus is not sent there: it is "active only on focus", which
WCAG allows.

For each shortcut, the browser then looks for a way to turn it off or remap
it: it clicks the page's visible controls one at a time (checkboxes, radio
buttons, switches, buttons, `<summary>`; at most 40; never a link to
another page or a form's submit button) and sends the key again. The
shortcut **passes** when, after some control, the key no longer acts on its
own (turned off, or remapped to need Ctrl, Alt or Meta). A control whose
name, description or the visible text just before it speaks of shortcuts,
hotkeys, key bindings or the keyboard ("Keyboard shortcuts") is an opener: the
controls its click shows (a settings dialog) are tried too. Controls hidden
behind an opener named for something else ("Open modal") are not tried: a
user would not look for the setting there. Each checkbox, switch or
expanded button tried is set back.

A shortcut **fails** when no control turns it off or remaps it
(`data.reason: "no-mechanism"`). It is for review when the search stopped
at its bounds (time, or a page with more than 40 controls:
`"search-incomplete"`), or when the page has a control the search cannot
try whose name speaks of shortcuts or the keyboard (a select, a text field,
or a link whose name also speaks of settings, options or turning off), or a
link to the site's settings page (its name, or its image's alternative,
speaks of settings or preferences: rustdoc keeps its "disable keyboard
shortcuts" switch behind such a link): `"settings-elsewhere"`, listed in
`data.elsewhere`. When the keys
could not all be sent in the time allowed, the page says so for review
(`"keys-untried"`). The finding names the key in `data.key` and what it did
in `data.effects` (`dom`, `focus`, `navigation`, `prevented`).

A static scan does not run this rule's check: it reports nothing for it,
neither a failure nor a pass. A shortcut the page reacts to only on a timer,
or only to key events the browser itself sends, is not seen; nor is a
mechanism that needs text typed or an option chosen.

## Why it matters
People who use speech input speak words that a page receives as keys: each
letter of "Save this" can fire a shortcut. People with tremors hit keys by
accident. A single-key shortcut they cannot turn off acts on the page
without their intent.

## Failing
```html
<ul id="list"></ul>
<script>
  document.addEventListener('keydown', (e) => {
    if (e.key === '+') document.getElementById('list').append(document.createElement('li'));
  });
</script>
```

## Passing
```html
<label><input type="checkbox" id="off"> Turn off the "+" shortcut</label>
<ul id="list"></ul>
<script>
  document.addEventListener('keydown', (e) => {
    if (e.key === '+' && !document.getElementById('off').checked)
      document.getElementById('list').append(document.createElement('li'));
  });
</script>
```

```html
<ul id="list"></ul>
<script>
  document.addEventListener('keydown', (e) => {
    if (e.key === '+' && e.ctrlKey) document.getElementById('list').append(document.createElement('li'));
  });
</script>
```
"##,
    ..RuleMeta::BASE
};

/// The printable keys the browser sends.
const PRINTABLE_KEYS: u32 = 95;

/// What a shortcut did, for a message.
fn effects_text(s: &Shortcut) -> String {
    let said: Vec<&str> = s
        .effects
        .iter()
        .map(|e| match e.as_str() {
            "dom" => "it changed the page's content",
            "focus" => "it moved focus",
            "navigation" => "it navigated",
            _ => "a script handled it",
        })
        .collect();
    if said.is_empty() {
        "a script handled it".to_string()
    } else {
        said.join(", ")
    }
}

/// Why a shortcut without a mechanism is failed or for review, and the
/// message.
fn judge(s: &Shortcut, all: &Shortcuts) -> (bool, &'static str, String) {
    let acts = format!(
        "Pressing the \"{}\" key alone (without Ctrl, Alt or Meta) acts on this page ({})",
        s.name(),
        effects_text(s)
    );
    if !all.elsewhere.is_empty() {
        (
            false,
            "settings-elsewhere",
            format!(
                "{acts}. No control tried on this page turns that shortcut off or remaps it, but {} may lead to a setting that does: check it.",
                all.elsewhere.join(", ")
            ),
        )
    } else if !s.searched {
        (
            false,
            "search-incomplete",
            format!(
                "{acts}. The search for a control that turns that shortcut off or remaps it stopped at its bounds (time, or the page's first 40 controls): check that one does."
            ),
        )
    } else {
        (
            true,
            "no-mechanism",
            format!(
                "{acts}, and no control on this page turns that shortcut off or remaps it to a combination with Ctrl, Alt or Meta."
            ),
        )
    }
}

impl Rule for CharacterKeyShortcuts {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        // No browser sent keys to the page (a static scan, or the search
        // failed): nothing to say.
        let Some(all) = page
            .page()
            .interaction
            .as_ref()
            .and_then(|w| w.shortcuts.as_ref())
        else {
            return;
        };
        for s in &all.found {
            if let Some(m) = &s.mechanism {
                match m.path.as_ref().and_then(|p| find_path(page.root(), p)) {
                    Some(el) => cx.pass_on(el),
                    None => cx.pass(),
                }
                continue;
            }
            let (fails, reason, message) = judge(s, all);
            let mut data = serde_json::json!({
                "reason": reason,
                "key": s.key,
                "effects": s.effects,
            });
            if !all.elsewhere.is_empty() {
                data["elsewhere"] = serde_json::json!(all.elsewhere);
            }
            if fails {
                cx.fail_page(message).with_data(data);
            } else {
                cx.cant_tell_page(message).with_data(data);
            }
        }
        if !all.complete {
            cx.cant_tell_page(format!(
                "Only {} of the {PRINTABLE_KEYS} printable keys were sent to the page in the time allowed; the others were not checked for shortcuts.",
                all.keys_tried
            ))
            .with_data(serde_json::json!({ "reason": "keys-untried" }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interaction::{Interaction, Mechanism};
    use crate::{Outcome, Page};

    const HTML: &str = "<html><head><title>t</title></head><body><label><input type=checkbox id=remap> Use Ctrl</label><ul id=list></ul></body></html>";

    fn shortcut(key: &str, mechanism: Option<Mechanism>, searched: bool) -> Shortcut {
        Shortcut {
            key: key.into(),
            effects: vec!["dom".into(), "prevented".into()],
            mechanism,
            searched,
        }
    }

    fn outcomes(shortcuts: Option<Shortcuts>) -> Vec<(Outcome, String, String, Option<String>)> {
        let mut page = Page::from_html("https://example.com/", HTML);
        page.interaction = Some(Interaction {
            complete: true,
            shortcuts,
            ..Interaction::default()
        });
        let analysis = crate::analyze(&page, &[&CharacterKeyShortcuts]);
        let passed = analysis
            .tallies
            .iter()
            .find(|t| t.rule_id == "character-key-shortcuts")
            .map_or(0, |t| t.passed);
        let mut out: Vec<(Outcome, String, String, Option<String>)> = analysis
            .findings
            .into_iter()
            .map(|f| {
                let reason = f
                    .data
                    .as_ref()
                    .and_then(|d| d["reason"].as_str().map(str::to_string));
                (f.outcome, f.selector, f.message, reason)
            })
            .collect();
        for _ in 0..passed {
            out.push((Outcome::Passed, String::new(), String::new(), None));
        }
        out
    }

    fn all(found: Vec<Shortcut>) -> Shortcuts {
        Shortcuts {
            keys_tried: 95,
            complete: true,
            found,
            elsewhere: Vec::new(),
        }
    }

    #[test]
    fn a_static_scan_reports_nothing() {
        let page = Page::from_html("https://example.com/", HTML);
        let analysis = crate::analyze(&page, &[&CharacterKeyShortcuts]);
        assert!(analysis.findings.is_empty());
        let tally = analysis
            .tallies
            .iter()
            .find(|t| t.rule_id == "character-key-shortcuts");
        assert!(tally.is_none_or(|t| t.passed == 0 && t.failed == 0 && t.cant_tell == 0));
        // A walk without a shortcut search says nothing either.
        assert_eq!(outcomes(None), vec![]);
    }

    #[test]
    fn a_shortcut_without_a_mechanism_fails_naming_its_key() {
        assert_eq!(
            outcomes(Some(all(vec![shortcut("+", None, true)]))),
            vec![(
                Outcome::Failed,
                String::new(),
                "Pressing the \"+\" key alone (without Ctrl, Alt or Meta) acts on this page (it changed the page's content, a script handled it), and no control on this page turns that shortcut off or remaps it to a combination with Ctrl, Alt or Meta.".to_string(),
                Some("no-mechanism".to_string())
            )]
        );
        let space = outcomes(Some(all(vec![shortcut(" ", None, true)])));
        assert!(space[0].2.starts_with("Pressing the \"Space\" key"), "{space:?}");
    }

    #[test]
    fn a_shortcut_with_a_mechanism_passes_on_its_control() {
        let m = Mechanism {
            path: Some(vec![1, 0, 0]),
            label: "input#remap".into(),
            revealed_by: None,
        };
        let got = outcomes(Some(all(vec![shortcut("a", Some(m), false)])));
        assert_eq!(got, vec![(Outcome::Passed, String::new(), String::new(), None)]);
        // No shortcut at all: inapplicable.
        assert_eq!(outcomes(Some(all(Vec::new()))), vec![]);
    }

    #[test]
    fn an_unfinished_search_or_a_setting_elsewhere_is_for_review() {
        let got = outcomes(Some(all(vec![shortcut("k", None, false)])));
        assert_eq!(
            (got[0].0, got[0].3.as_deref()),
            (Outcome::CantTell, Some("search-incomplete"))
        );
        let mut elsewhere = all(vec![shortcut("k", None, true)]);
        elsewhere.elsewhere = vec!["a (Keyboard settings)".into()];
        let got = outcomes(Some(elsewhere));
        assert_eq!(
            (got[0].0, got[0].3.as_deref()),
            (Outcome::CantTell, Some("settings-elsewhere"))
        );
        assert!(got[0].2.contains("but a (Keyboard settings) may lead"));
        let mut untried = all(Vec::new());
        untried.complete = false;
        untried.keys_tried = 40;
        let got = outcomes(Some(untried));
        assert_eq!(
            got,
            vec![(
                Outcome::CantTell,
                String::new(),
                "Only 40 of the 95 printable keys were sent to the page in the time allowed; the others were not checked for shortcuts.".to_string(),
                Some("keys-untried".to_string())
            )]
        );
    }
}
