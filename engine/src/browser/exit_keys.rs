//! Keys a page tells its users to press to leave a keyboard trap ("press
//! Ctrl+M to exit the editor"), read from its text, and how to press them
//! over the DevTools protocol. WCAG 2.1.2 allows a trap that such a
//! documented key leaves; the keyboard walk ([`super::interact`]) presses
//! what this finds from inside the trap.
//!
//! A key combination (`Ctrl+M`, `Control-Shift-F6`, `Alt + Down`) is
//! recognised anywhere in the text: the modifiers make it unambiguous. A key
//! alone is recognised only after a verb that asks for it (`press Escape`,
//! `hit F6`, `press the End key`), a letter or digit alone only when written
//! as one capital (`press M`), so that "press a button" names no key. Tab and
//! Shift+Tab are not exits here: they are the standard navigation the walk
//! already tried.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

/// Most keys read from one text.
pub(crate) const MAX_KEYS: usize = 8;
/// Longest excerpt of the text kept around a key (characters).
const EXCERPT: usize = 120;

/// A key with its modifiers, as the page names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Combo {
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub meta: bool,
    /// The DOM `key` value without Shift (`m`, `Escape`, `F6`, `ArrowDown`).
    key: &'static str,
    /// The DOM `code` value (`KeyM`, `Escape`).
    code: &'static str,
    /// The Windows virtual key code (`keyCode` in the page).
    vk: u32,
}

const KEY_PATTERN: &str = r"f(?:2[0-4]|1[0-9]|[1-9])|esc(?:ape)?|enter|return|space(?:bar)?|tab|home|end|page\s*up|page\s*down|pg\s*up|pg\s*dn|delete|del|backspace|insert|(?:arrow\s*)?(?:up|down|left|right)(?:\s*arrow)?|[a-z0-9]";

/// Modifiers joined to a key by `+` or `-`.
static COMBO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b((?:(?:ctrl|control|ctl|strg|alt|option|opt|shift|meta|cmd|command|super|win)\s*[+\-]\s*)+)({KEY_PATTERN})\b"
    ))
    .expect("the combination pattern is valid")
});

/// A named key alone, after a verb that asks for it.
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"(?i)\b(?:press|hit|use|tap|push|type)(?:\s+(?:the|a|an))?\s+["'“‘`]?({KEY_PATTERN})["'”’`]?(?:\s+key)?\b"#
    ))
    .expect("the named key pattern is valid")
});

/// One capital letter or digit alone, after a verb that asks for it.
static LETTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\b(?i:press|hit|tap|push)(?:\s+(?i:the))?\s+["'“‘`]?([A-Z0-9])["'”’`]?(?:\s+(?i:key))?\b"#)
        .expect("the letter pattern is valid")
});

impl Combo {
    /// The key named by `word` (already matched by [`KEY_PATTERN`]).
    fn key(word: &str) -> Option<(&'static str, &'static str, u32)> {
        let w: String = word
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        let w = w.trim_start_matches("arrow").trim_end_matches("arrow");
        const LETTERS: [&str; 26] = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
            "r", "s", "t", "u", "v", "w", "x", "y", "z",
        ];
        const LETTER_CODES: [&str; 26] = [
            "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK",
            "KeyL", "KeyM", "KeyN", "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV",
            "KeyW", "KeyX", "KeyY", "KeyZ",
        ];
        const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
        const DIGIT_CODES: [&str; 10] = [
            "Digit0", "Digit1", "Digit2", "Digit3", "Digit4", "Digit5", "Digit6", "Digit7",
            "Digit8", "Digit9",
        ];
        const FKEYS: [&str; 24] = [
            "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13",
            "F14", "F15", "F16", "F17", "F18", "F19", "F20", "F21", "F22", "F23", "F24",
        ];
        let mut chars = w.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if c.is_ascii_lowercase() {
                let i = (c as u8 - b'a') as usize;
                return Some((LETTERS[i], LETTER_CODES[i], 65 + i as u32));
            }
            if c.is_ascii_digit() {
                let i = (c as u8 - b'0') as usize;
                return Some((DIGITS[i], DIGIT_CODES[i], 48 + i as u32));
            }
        }
        if let Some(n) = w.strip_prefix('f').and_then(|n| n.parse::<usize>().ok()) {
            if (1..=24).contains(&n) {
                return Some((FKEYS[n - 1], FKEYS[n - 1], 111 + n as u32));
            }
        }
        Some(match w {
            "esc" | "escape" => ("Escape", "Escape", 27),
            "enter" | "return" => ("Enter", "Enter", 13),
            "space" | "spacebar" => (" ", "Space", 32),
            "tab" => ("Tab", "Tab", 9),
            "home" => ("Home", "Home", 36),
            "end" => ("End", "End", 35),
            "pageup" | "pgup" => ("PageUp", "PageUp", 33),
            "pagedown" | "pgdn" => ("PageDown", "PageDown", 34),
            "delete" | "del" => ("Delete", "Delete", 46),
            "backspace" => ("Backspace", "Backspace", 8),
            "insert" => ("Insert", "Insert", 45),
            "up" => ("ArrowUp", "ArrowUp", 38),
            "down" => ("ArrowDown", "ArrowDown", 40),
            "left" => ("ArrowLeft", "ArrowLeft", 37),
            "right" => ("ArrowRight", "ArrowRight", 39),
            _ => return None,
        })
    }

    fn plain(word: &str) -> Option<Combo> {
        let (key, code, vk) = Self::key(word)?;
        Some(Combo {
            ctrl: false,
            alt: false,
            shift: false,
            meta: false,
            key,
            code,
            vk,
        })
    }

    /// Escape alone.
    pub(crate) fn escape() -> Combo {
        Self::plain("escape").expect("Escape is a key")
    }

    /// The combination as people write it: `Ctrl+Alt+M`, `Escape`.
    pub(crate) fn label(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        for (on, name) in [
            (self.ctrl, "Ctrl"),
            (self.alt, "Alt"),
            (self.shift, "Shift"),
            (self.meta, "Meta"),
        ] {
            if on {
                parts.push(name);
            }
        }
        let upper;
        let key = match self.key {
            " " => "Space",
            k if k.len() == 1 => {
                upper = k.to_ascii_uppercase();
                upper.as_str()
            }
            k => k,
        };
        parts.push(key);
        parts.join("+")
    }

    /// Tab or Shift+Tab alone: the standard navigation, not an exit.
    fn standard(&self) -> bool {
        self.key == "Tab" && !self.ctrl && !self.alt && !self.meta
    }

    /// A combination the browser keeps for itself or acts on (closing,
    /// opening or switching tabs and windows, going back or forward,
    /// reloading, leaving the page): never pressed, it would not reach the
    /// page in a user's browser, and here it could take the tab off the page.
    pub(crate) fn reserved(&self) -> bool {
        let primary = self.ctrl || self.meta;
        let k = self.key;
        (primary
            && matches!(
                k,
                "w" | "t" | "n" | "q" | "r" | "l" | "Tab" | "PageUp" | "PageDown" | "F4" | "F5"
            ))
            || (self.alt && matches!(k, "F4" | "ArrowLeft" | "ArrowRight" | "Home"))
            || (self.alt && !primary && k == "Tab")
            || matches!(k, "F5" | "F11" | "F12")
    }

    /// The protocol's modifier bits (Alt 1, Ctrl 2, Meta 4, Shift 8).
    pub(crate) fn modifiers(&self) -> u32 {
        u32::from(self.alt)
            | u32::from(self.ctrl) << 1
            | u32::from(self.meta) << 2
            | u32::from(self.shift) << 3
    }

    /// The `Input.dispatchKeyEvent` parameters of the key going down
    /// (`down`) or up. A printable key without Ctrl, Alt or Meta types its
    /// character, as a keyboard would.
    pub(crate) fn event(&self, down: bool) -> Value {
        let key = if self.shift && self.key.len() == 1 {
            self.key.to_ascii_uppercase()
        } else {
            self.key.to_string()
        };
        let types = key.chars().count() == 1 && !(self.ctrl || self.alt || self.meta);
        let kind = match (down, types) {
            (false, _) => "keyUp",
            (true, true) => "keyDown",
            (true, false) => "rawKeyDown",
        };
        let mut e = json!({"type": kind, "key": key, "code": self.code,
            "windowsVirtualKeyCode": self.vk, "nativeVirtualKeyCode": self.vk,
            "modifiers": self.modifiers()});
        if down && types {
            e["text"] = Value::from(key.clone());
            e["unmodifiedText"] = Value::from(key);
        }
        e
    }
}

/// The text around `start..end` of `text`, on one line, at most
/// [`EXCERPT`] characters.
fn excerpt(text: &str, start: usize, end: usize) -> String {
    // The sentence or line the key is in.
    let from = text[..start]
        .rfind(['\n', '.', '!', '?'])
        .map_or(0, |i| i + 1);
    let to = text[end..]
        .find(['\n', '.', '!', '?'])
        .map_or(text.len(), |i| end + i);
    let s: String = text[from..to]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if s.chars().count() <= EXCERPT {
        return s;
    }
    s.chars().take(EXCERPT - 1).chain(['…']).collect()
}

/// Words of a sentence about getting out: a key named in a sentence
/// without one ("press Enter to submit") is not an exit.
const EXIT_WORDS_LIST: &[&str] = &[
    "exit",
    "exits",
    "leave",
    "leaves",
    "leaving",
    "escape",
    "close",
    "closes",
    "move",
    "moves",
    "out",
    "next",
    "previous",
    "quit",
    "dismiss",
    "focus",
    "navigate",
    "continue",
    "skip",
    "release",
    "toggle",
    "trap",
    "trapped",
    "return",
    "go",
    "get",
    "away",
    "elsewhere",
];

/// Words of a control's name or nearby text about keyboard shortcuts
/// ("Keyboard shortcuts", "Turn off single-key hotkeys"): an opener named
/// so leads to where they are turned off or remapped
/// ([`super::shortcuts`]). "Key" alone is not one of them: documentation
/// is full of links such as "dict.keys()" or "Other key features".
pub(crate) const SHORTCUT_WORDS: &[&str] = &[
    "shortcut",
    "shortcuts",
    "hotkey",
    "hotkeys",
    "keyboard",
    "keystroke",
    "keystrokes",
    "keybinding",
    "keybindings",
    "keymap",
    "keymaps",
    "accesskey",
    "accesskeys",
];

/// Words of a link's name that say it leads to settings ("Keyboard shortcut
/// settings", "Turn off hotkeys"): a link named for shortcuts alone is
/// usually documentation ("How to use connection shortcut methods").
pub(crate) const SETTINGS_WORDS: &[&str] = &[
    "settings",
    "setting",
    "preferences",
    "preference",
    "options",
    "customize",
    "customise",
    "configure",
    "configuration",
    "personalize",
    "personalise",
    "disable",
    "remap",
    "manage",
    "turn off",
];

/// Words of a link's name that say it leads to the site's own settings
/// page ("Settings", "change settings", "Preferences"), where sites keep
/// the switch for their keyboard shortcuts (rustdoc, GitHub): such a link
/// may lead to the mechanism even when it does not name the keyboard.
pub(crate) const SETTINGS_PAGE_WORDS: &[&str] =
    &["settings", "setting", "preferences", "preference"];

/// A pattern matching any of `words` as a whole word, case aside, in the
/// syntax Rust's `regex` and JavaScript's `RegExp` share (`\b`, `(?:…)`; the
/// `i` flag given apart): the one way page text is read for words, here and
/// in the browser.
pub(crate) fn word_pattern(words: &[&str]) -> String {
    format!(r"\b(?:{})\b", words.join("|"))
}

static EXIT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!("(?i){}", word_pattern(EXIT_WORDS_LIST)))
        .expect("the exit word pattern is valid")
});

/// The keys `text` tells its reader to press to get out (in a sentence
/// with a word such as "exit", "leave", "close", "focus" or "next"), each
/// with the excerpt it was read from, in the order they appear, without
/// repeats, at most [`MAX_KEYS`]. Tab and Shift+Tab alone are left out.
pub(crate) fn find_keys(text: &str) -> Vec<(Combo, String)> {
    let mut found: Vec<(usize, Combo, String)> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for c in COMBO.captures_iter(text) {
        let (Some(mods), Some(key), Some(all)) = (c.get(1), c.get(2), c.get(0)) else {
            continue;
        };
        spans.push((all.start(), all.end()));
        let Some(mut combo) = Combo::plain(key.as_str()) else {
            continue;
        };
        for m in mods
            .as_str()
            .split(['+', '-'])
            .map(|m| m.trim().to_ascii_lowercase())
        {
            match m.as_str() {
                "ctrl" | "control" | "ctl" | "strg" => combo.ctrl = true,
                "alt" | "option" | "opt" => combo.alt = true,
                "shift" => combo.shift = true,
                "meta" | "cmd" | "command" | "super" | "win" => combo.meta = true,
                _ => {}
            }
        }
        found.push((all.start(), combo, excerpt(text, all.start(), all.end())));
    }
    for (re, letters) in [(&*NAMED, false), (&*LETTER, true)] {
        for c in re.captures_iter(text) {
            let (Some(key), Some(all)) = (c.get(1), c.get(0)) else {
                continue;
            };
            // The key of a combination found above.
            if spans
                .iter()
                .any(|&(a, b)| a <= key.start() && key.start() < b)
            {
                continue;
            }
            // A letter or digit alone needs [`LETTER`]'s capital.
            if !letters && key.as_str().chars().count() == 1 {
                continue;
            }
            if let Some(combo) = Combo::plain(key.as_str()) {
                found.push((key.start(), combo, excerpt(text, all.start(), all.end())));
            }
        }
    }
    found.sort_by_key(|(at, _, _)| *at);
    let mut out: Vec<(Combo, String)> = Vec::new();
    for (_, combo, ex) in found {
        if combo.standard() || !EXIT_WORDS.is_match(&ex) || out.iter().any(|(c, _)| *c == combo) {
            continue;
        }
        out.push((combo, ex));
        if out.len() >= MAX_KEYS {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        find_keys(text).iter().map(|(c, _)| c.label()).collect()
    }

    #[test]
    fn combinations_are_read_in_their_usual_spellings() {
        assert_eq!(labels("Press Ctrl+M to Exit"), ["Ctrl+M"]);
        assert_eq!(labels("press control - m to leave"), ["Ctrl+M"]);
        assert_eq!(
            labels("Use Ctrl + Shift + F6 to move on."),
            ["Ctrl+Shift+F6"]
        );
        assert_eq!(labels("Alt-Down Arrow moves focus out"), ["Alt+ArrowDown"]);
        assert_eq!(
            labels("To leave: Cmd+Option+E, or Ctrl+Alt+E"),
            ["Alt+Meta+E", "Ctrl+Alt+E"]
        );
        assert_eq!(
            find_keys("Stuck?\nPress Ctrl+M to leave the editor. Then go on.")[0].1,
            "Press Ctrl+M to leave the editor"
        );
        // Not a key: a word that starts like one.
        assert!(labels("Ctrl+Mouse wheel zooms").is_empty());
    }

    #[test]
    fn a_key_alone_needs_a_verb_asking_for_it() {
        assert_eq!(labels("Press Escape to close the dialog"), ["Escape"]);
        assert_eq!(labels("hit the F6 key to move on"), ["F6"]);
        assert_eq!(labels("Press M to leave"), ["M"]);
        assert_eq!(labels("Press 'Esc' to go back"), ["Escape"]);
        // A letter in a sentence is not a key; nor is a verb's object.
        assert!(labels("Press a button to continue").is_empty());
        assert!(labels("Go to the next element").is_empty());
        assert!(labels("The end of the page").is_empty());
        assert!(labels("Use the menu").is_empty());
        // Tab is the standard navigation, not an exit.
        assert!(labels("Press Tab or Shift+Tab to move on").is_empty());
        // A key for something else than getting out.
        assert!(labels("Press Enter to submit the form").is_empty());
    }

    #[test]
    fn repeats_are_dropped_and_the_count_is_bounded() {
        assert_eq!(labels("Ctrl+M exits; press Ctrl + M to exit"), ["Ctrl+M"]);
        let many: String = (b'a'..=b'z')
            .map(|c| format!("Ctrl+{} exits. ", c as char))
            .collect();
        let keys = labels(&many);
        assert_eq!(keys.len(), MAX_KEYS);
        assert_eq!(keys[..3], ["Ctrl+A", "Ctrl+B", "Ctrl+C"]);
    }

    #[test]
    fn word_lists_read_whole_words_only() {
        let shortcuts = Regex::new(&format!("(?i){}", word_pattern(SHORTCUT_WORDS))).unwrap();
        assert!(shortcuts.is_match("Control shortcuts"));
        assert!(shortcuts.is_match("Keyboard settings"));
        assert!(!shortcuts.is_match("Open modal"));
        assert!(!shortcuts.is_match("Monkeys and donkeys"));
        assert!(!shortcuts.is_match("Other Key Features"));
        assert!(!shortcuts.is_match("dict.keys()"));
        assert!(!shortcuts.is_match("KeyboardInterrupt"));
        let settings = Regex::new(&format!("(?i){}", word_pattern(SETTINGS_WORDS))).unwrap();
        assert!(settings.is_match("Keyboard shortcut settings"));
        assert!(settings.is_match("Turn off single-key hotkeys"));
        assert!(!settings.is_match("How to use connection shortcut methods"));
        let page = Regex::new(&format!("(?i){}", word_pattern(SETTINGS_PAGE_WORDS))).unwrap();
        assert!(page.is_match("change settings"));
        assert!(page.is_match("Preferences"));
        assert!(!page.is_match("Options"));
        assert!(!page.is_match("Settingsless"));
        assert!(EXIT_WORDS.is_match("press Ctrl+M to LEAVE"));
        assert!(!EXIT_WORDS.is_match("outside"));
    }

    #[test]
    fn browser_keys_are_reserved_and_events_carry_modifiers() {
        let k = |t: &str| find_keys(&format!("{t} to leave")).remove(0).0;
        assert!(k("Ctrl+W").reserved());
        assert!(k("Alt+Left").reserved());
        assert!(k("press F5").reserved());
        assert!(!k("Ctrl+M").reserved());
        assert!(!Combo::escape().reserved());
        let e = k("Ctrl+M").event(true);
        assert_eq!(e["type"], "rawKeyDown");
        assert_eq!(e["windowsVirtualKeyCode"], 77);
        assert_eq!(e["modifiers"], 2);
        assert_eq!(e["code"], "KeyM");
        let e = k("Press M").event(true);
        assert_eq!(
            (e["type"].as_str(), e["text"].as_str()),
            (Some("keyDown"), Some("m"))
        );
        assert_eq!(Combo::escape().event(false)["key"], "Escape");
    }
}
