//! What a browser learned by driving a rendered page's keyboard: the facts of
//! render mode's keyboard walk ([`Page::interaction`](crate::Page::interaction)).
//!
//! A static scan cannot press keys: it leaves [`crate::Page::interaction`]
//! `None`, and the rules built on these facts (`keyboard-trap`,
//! `focus-visible-rendered`, `character-key-shortcuts`) report nothing
//! there, neither a failure nor a pass. In render mode the engine presses
//! Tab through the page from its start, and Tab and Shift+Tab from every
//! element in the tab order it could not leave, and records for each element
//! what focus did ([`FocusedElement`]); then it sends the printable keys to
//! the page and records the ones that act on it ([`Shortcuts`]).
//!
//! Elements are named by their [`FocusedElement::path`] in the serialized DOM
//! the rules see, so a rule finds the same element the other rules report on.

use scraper::ElementRef;
use serde::{Deserialize, Serialize};

/// Most elements a walk reports (the engine stops recording past it).
pub const MAX_ELEMENTS: usize = 2000;

/// The keyboard walk of one rendered page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interaction {
    /// Every element in the tab order the walk judged, in the order Tab first
    /// reached it from the start of the page (then the ones it reached only
    /// by starting on them).
    pub elements: Vec<FocusedElement>,
    /// Key presses sent.
    pub presses: u32,
    /// The walk judged every element in the page's tab order within its
    /// bounds (presses and time). False: the elements left out are not in
    /// [`Interaction::elements`] and the rules say so on the page.
    pub complete: bool,
    /// A script moved focus after a key press was handled (a timer or an
    /// event handler that calls `focus()` later): each press then waited for
    /// the page to settle before focus was read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub script_moves_focus: bool,
    /// What activating each scripted control did (see [`Activation`]), after
    /// the walk: the first [`MAX_ACTIVATIONS`] focusable elements in
    /// document order that run a script when activated and do not lead to
    /// another page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activations: Vec<Activation>,
    /// The page's character key shortcuts (see [`Shortcuts`]); `None` when
    /// the browser did not look for them (the search failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortcuts: Option<Shortcuts>,
}

/// Most shortcut keys a page reports (the search stops looking for more).
pub const MAX_SHORTCUTS: usize = 16;
/// Most controls the search for a way to turn a shortcut off activates
/// (those visible at first, and those an opener about shortcuts shows).
pub const MAX_MECHANISM_CONTROLS: usize = 40;
/// Most controls named for shortcuts the search could not try that a
/// [`Shortcuts`] lists.
pub const MAX_ELSEWHERE: usize = 4;

/// The character key shortcuts of a rendered page (WCAG 2.1.4): keys of a
/// single printable character (a letter in either case, a digit, a
/// punctuation mark or symbol, Space) that act on the page when pressed
/// without Ctrl, Alt or Meta while no element has focus.
///
/// After the keyboard walk, the browser blurs whatever has focus and sends
/// each printable key to the page (key-down, key-press, key-up, as events
/// the page's listeners receive but whose default actions do not run, so
/// nothing is typed or scrolled). A key acts when, beyond what a Shift key
/// alone does there, a listener cancelled it, the DOM changed, focus moved
/// or a navigation started; twice in a row, so that a one-off reaction is
/// not taken for a shortcut. A key that acts only while some element has
/// focus is not sent there: it is "active only on focus", which WCAG
/// allows.
///
/// For each key found, the browser looks for a way to turn it off or remap
/// it: it activates the page's visible controls one at a time (checkboxes,
/// radio buttons, switches, buttons; never a link to another page or a
/// form's submit button) and sends the key again; a control after which the
/// key no longer acts is its [`Mechanism`]. Controls shown only by
/// activating an opener whose name or nearby text is about shortcuts or
/// keys ("Keyboard shortcuts…") are tried too; controls behind an opener
/// named for something else are not findable by a user and are not tried.
/// A checkbox or switch tried is set back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortcuts {
    /// Printable keys sent.
    pub keys_tried: u32,
    /// Every printable key was sent within the search's bounds (time).
    pub complete: bool,
    /// The keys that act, in the order tried, at most [`MAX_SHORTCUTS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub found: Vec<Shortcut>,
    /// Visible controls the search could not try whose name is about
    /// shortcuts or the keyboard (a select, a text field, a link whose name
    /// also speaks of settings), and links to the site's settings or
    /// preferences page, as short labels, at most [`MAX_ELSEWHERE`]: a way
    /// to turn a shortcut off may be there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<String>,
}

/// One character key shortcut.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shortcut {
    /// The character (`+`, `a`, `A`, ` `).
    pub key: String,
    /// What pressing it did: `"dom"` (the DOM changed), `"focus"` (focus
    /// moved), `"navigation"` (the page navigated or changed its URL
    /// fragment), `"prevented"` (a listener cancelled the key).
    pub effects: Vec<String>,
    /// The control after whose activation the key no longer acts, if the
    /// search found one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<Mechanism>,
    /// Every control the search could find was tried for this key (false:
    /// its bounds ran out first). Meaningless once a mechanism is found.
    pub searched: bool,
}

/// A control that turns a shortcut off or remaps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mechanism {
    /// Where it is (see [`FocusedElement::path`]); `None` when it has no
    /// place in the serialized DOM (in a shadow root, or shown only later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<u32>>,
    /// A short name for messages: `input#remap`.
    pub label: String,
    /// The opener that showed it, when it was not visible at first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed_by: Option<String>,
}

impl Shortcut {
    /// The key as people write it: `Space` for the space bar, else the
    /// character.
    pub fn name(&self) -> &str {
        if self.key == " " {
            "Space"
        } else {
            &self.key
        }
    }
}

/// Most scripted controls a page has activated.
pub const MAX_ACTIVATIONS: usize = 4;
/// Most elements an [`Activation`] lists as collapsed.
pub const MAX_COLLAPSED: usize = 64;

/// What activating one scripted control did: a focusable element with an
/// activation handler (`onclick`, `onkeyup`, …) or a `javascript:` link, not
/// a link to another page. The browser focused it, pressed Enter (and, when
/// that did nothing it could see, clicked it, as assistive technologies
/// do), waited for the page's handlers, and compared. Nothing the page asks
/// the network for while it does is fetched.
///
/// The controls are activated one after another on the same page, so each
/// sees what the ones before it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activation {
    /// The control (see [`FocusedElement::path`]).
    pub path: Vec<u32>,
    /// A short name for messages.
    pub label: String,
    /// The page's URL fragment afterwards, when activation changed it
    /// (`location.assign('#main')`): the id of the element it names, which
    /// becomes the sequential focus navigation starting point. Empty when
    /// it names none (`#`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    /// The element focused afterwards, when activation moved focus off the
    /// control to another element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<Vec<u32>>,
    /// Elements rendered before and not afterwards (`display: none`,
    /// `visibility: hidden`, `hidden`: gone from the screen and from the
    /// accessibility tree alike), the outermost of each, at most
    /// [`MAX_COLLAPSED`]. An element only moved off the screen or only given
    /// `aria-hidden` is not listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub collapsed: Vec<Vec<u32>>,
}

/// What focus did on one element.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusedElement {
    /// Where the element is: the index among its parent's element children
    /// of each element from `<html>` down (empty: `<html>` itself).
    pub path: Vec<u32>,
    /// A short name for messages: `button#save.primary`.
    pub label: String,
    /// Tab from the start of the page reached it.
    pub tab_reached: bool,
    /// Some sequence of Tab and Shift+Tab presses takes focus from it off the
    /// page (to the browser's own controls): `Some(true)`. `Some(false)`: the
    /// walk pressed both keys from it, and from every element they led to,
    /// and focus kept cycling among the same elements (trapped). `None`: not
    /// decided within the walk's bounds.
    pub leaves_page: Option<bool>,
    /// For an element focus cannot leave: the labels of the elements focus
    /// cycles among, at most 10.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cycle: Vec<String>,
    /// How it looked focused by Tab against unfocused; `None` when Tab did
    /// not focus it from the start of the page (no keyboard focus to look at).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus_style: Option<FocusStyle>,
    /// For an element focus cannot leave with Tab or Shift+Tab: what the
    /// walk tried to free focus from its cycle with other keys, and what
    /// happened (see [`TrapExit`]). `None` when it tried nothing (the walk's
    /// bounds ran out first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<TrapExit>,
}

/// Most instruction excerpts a [`TrapExit`] keeps.
pub const MAX_INSTRUCTIONS: usize = 4;
/// Most keys a [`TrapExit`] lists.
pub const MAX_EXIT_KEYS: usize = 4;

/// How the walk tried to free focus from a keyboard trap (a cycle Tab and
/// Shift+Tab do not leave) with the keys WCAG 2.1.2 allows besides them: a
/// key or key combination the page tells the user about ("press Ctrl+M to
/// leave the editor"), and Escape in a modal dialog (the way WAI-ARIA's
/// modal dialog pattern closes it). Each key is pressed with focus on an
/// element of the cycle; it frees focus when focus is then off the cycle
/// and Tab from there takes it off the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrapExit {
    /// The cycle is inside a modal dialog (`role="dialog"` or
    /// `alertdialog` with `aria-modal="true"`, or a `<dialog>` shown modal):
    /// Escape was tried first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub modal: bool,
    /// Short excerpts of the page's text that name the keys in
    /// [`TrapExit::keys`] (visible text of the page, or the descriptions of
    /// the cycle's elements), at most [`MAX_INSTRUCTIONS`]. Empty: the page
    /// names no key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<String>,
    /// The element of the cycle whose activation showed the instructions,
    /// when they were not on the page before (a "how do I leave?" link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed_by: Option<String>,
    /// The keys tried, in order, at most [`MAX_EXIT_KEYS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<ExitKey>,
}

/// One key (or key combination) tried on a trap.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitKey {
    /// The key as written for people: `Escape`, `Ctrl+M`, `Alt+Shift+F6`.
    pub key: String,
    /// The page names it ([`TrapExit::instructions`]); false for Escape
    /// pressed in a modal dialog without instructions.
    pub documented: bool,
    /// `Some(true)`: after the key, focus was off the cycle and Tab took it
    /// off the page. `Some(false)`: focus stayed in the cycle, or came back
    /// to it. `None`: not pressed or not decided (a combination the browser
    /// keeps for itself, such as Ctrl+W; the walk's bounds ran out).
    pub frees: Option<bool>,
}

impl TrapExit {
    /// A key tried freed focus.
    pub fn freed_by(&self) -> Option<&ExitKey> {
        self.keys.iter().find(|k| k.frees == Some(true))
    }

    /// Every key found was pressed and none freed focus.
    pub fn all_tried(&self) -> bool {
        self.keys.iter().all(|k| k.frees.is_some())
    }
}

/// The look of an element focused by Tab, against its look before the walk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FocusStyle {
    /// The visible properties that differ (`outline`, `border`, `box-shadow`,
    /// `background`, `color`, `text-decoration`, `::before`, `::after`, …):
    /// empty when nothing about the element itself changed.
    pub changed: Vec<String>,
    /// A script changed how another element looks while this one had focus
    /// (an indicator drawn elsewhere, as ACT's oj04fd allows), and changed it
    /// back when focus moved on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elsewhere: bool,
    /// The element has a box on the page (not zero-sized and not moved off
    /// the page, as a skip link's "sentinel" is): a focus indicator on it
    /// could be seen.
    pub visible: bool,
}

/// The element at `path` under `root` (the `<html>` element): see
/// [`FocusedElement::path`].
pub fn find_path<'a>(root: ElementRef<'a>, path: &[u32]) -> Option<ElementRef<'a>> {
    let mut at = root;
    for &i in path {
        at = at.children().filter_map(ElementRef::wrap).nth(i as usize)?;
    }
    Some(at)
}

impl FocusedElement {
    /// No Tab or Shift+Tab presses take focus off the page from it.
    pub fn trapped(&self) -> bool {
        self.leaves_page == Some(false)
    }

    /// Tab and Shift+Tab presses take focus off the page from it.
    pub fn escapes(&self) -> bool {
        self.leaves_page == Some(true)
    }

    /// The element at [`FocusedElement::path`] under `root` (the `<html>`
    /// element), if the parsed document has one there.
    pub fn find<'a>(&self, root: ElementRef<'a>) -> Option<ElementRef<'a>> {
        find_path(root, &self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_elements_of_the_parsed_page() {
        let doc = scraper::Html::parse_document(
            "<html><head><title>t</title></head><body><p>x</p><div><a href=/ id=a>a</a><button id=b>b</button></div></body></html>",
        );
        let at = |path: Vec<u32>| {
            FocusedElement {
                path,
                ..FocusedElement::default()
            }
            .find(doc.root_element())
            .and_then(|e| e.value().id().map(str::to_string))
        };
        assert_eq!(at(vec![1, 1, 0]), Some("a".into()));
        assert_eq!(at(vec![1, 1, 1]), Some("b".into()));
        assert_eq!(at(vec![1, 1, 7]), None);
        assert_eq!(at(vec![9]), None);
    }

    #[test]
    fn trapped_is_decided_not_unknown() {
        let e = |l| FocusedElement {
            leaves_page: l,
            ..FocusedElement::default()
        };
        assert!(e(Some(false)).trapped());
        assert!(!e(None).trapped());
        assert!(e(Some(true)).escapes());
        assert!(!e(None).escapes());
    }
}
