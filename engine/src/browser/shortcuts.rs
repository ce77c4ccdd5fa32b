//! A rendered page's character key shortcuts (WCAG 2.1.4): keys of one
//! printable character that act on the page, and whether a control of the
//! page turns each off or remaps it
//! ([`sitescan_rules::interaction::Shortcuts`]).
//!
//! One script, in an isolated world of the page's main frame (the page's
//! scripts cannot see or replace it), after the keyboard walk: it blurs
//! whatever has focus, and sends each printable key (letters in both cases,
//! digits, punctuation and symbols of a US keyboard, Space) to the body as
//! key-down, key-press and key-up events. Such events reach the page's
//! listeners but have no default action: nothing is typed, scrolled or
//! activated by the browser itself. A Shift key alone is sent first, twice:
//! what it does (a library marking "the user is on the keyboard", a live
//! region echoing keys) is what any key does, and is not a shortcut. A key
//! acts when, beyond that, the DOM changed (a `MutationObserver`), focus
//! moved, a navigation started (the Navigation API's `navigate` event,
//! cancelled so the page stays) or a listener cancelled the key; and again
//! when sent a second time, so that a one-off reaction to the first key is
//! not taken for a shortcut. The page's microtasks run after each key (a
//! framework's batched update); its timers do not, so that a clock ticking
//! meanwhile is not taken for a key's effect.
//!
//! For each key that acts, the script then looks for a way to turn it off
//! or remap it: it clicks the page's visible controls one at a time
//! (checkboxes, radio buttons, switches, buttons, disclosure summaries;
//! never a link to another page or a form's submit button, as
//! [`super::interact`]'s reveal chooses) and sends the key again. A control
//! after which the key no longer acts is the key's mechanism. A control
//! whose name, description or the visible text just before it is about
//! shortcuts or the keyboard (`exit_keys::SHORTCUT_WORDS`, read the way
//! the keyboard-trap instructions are) is an opener: the controls its click
//! shows are tried too. A checkbox, switch, pressed or expanded button
//! tried is clicked again to set it back, a radio button's group gets its
//! old choice back; the `style` and `aria-*` attributes the clicks changed
//! get their old values back when the element's computed style is the same
//! either way (`restyle`), as a menu that set `overflow: visible`
//! on the body when it closed.
//!
//! This runs the page's code and may change its DOM, so it comes after
//! every fact and the serialized DOM were taken, with the page's requests
//! refused; it comes before the activations of [`super::activate`], which
//! open menus and dialogs a user would not have opened before pressing a
//! key. Bounded in keys ([`MAX_SHORTCUTS`] found), controls
//! ([`MAX_MECHANISM_CONTROLS`]), openers ([`MAX_OPENERS`]), mutation
//! records read and time ([`TIME_BUDGET`], checked in the page).

use std::time::Duration;

use serde_json::Value;
use sitescan_rules::interaction::{
    Mechanism, Shortcut, Shortcuts, MAX_ELSEWHERE, MAX_MECHANISM_CONTROLS, MAX_SHORTCUTS,
};

use super::cdp::{Connection, Wait, World};
use super::exit_keys::{word_pattern, SETTINGS_PAGE_WORDS, SETTINGS_WORDS, SHORTCUT_WORDS};
use super::BrowserError;

/// Longest time the page may spend sending keys to find shortcuts.
const FIND_MS: u64 = 500;
/// Longest time the whole script may take, the search for mechanisms
/// included (checked between keys and controls).
const TOTAL_MS: u64 = 2_000;
/// Longest time the script of one page takes, as the render's own bound
/// counts it: the search, and putting back the attributes it changed to
/// no effect (`restyle`).
pub const TIME_BUDGET: Duration = Duration::from_millis(TOTAL_MS + super::restyle::SETTLE_MS);
/// Most openers about shortcuts whose shown controls are tried.
pub const MAX_OPENERS: usize = 3;
/// Most visible controls compared before and after an opener's click.
const MAX_VISIBLE: usize = 400;
/// How long an opener that showed nothing at once gets to show its
/// controls (a dialog rendered on a timer or an animation frame).
const OPENER_WAIT_MS: u64 = 50;
/// Longest label kept.
const MAX_TEXT: usize = 80;
/// Mutation records read per key.
const MAX_RECORDS: usize = 512;
/// Longest serialized DOM compared before and after the search's clicks
/// (characters); a longer page counts as changed by any click.
const MAX_DOM: usize = 4_000_000;
/// Most form controls whose state is compared with it.
const MAX_FORM: usize = 5_000;

/// The script; `__NAME__` placeholders are filled by [`script`].
const SCRIPT: &str = r#"(async () => {
  const T0 = performance.now(), FIND_MS = __FIND_MS__, TOTAL_MS = __TOTAL_MS__;
  const MAXK = __MAXK__, MAXCTL = __MAXCTL__, MAXOPEN = __MAXOPEN__, MAXVIS = __MAXVIS__, MAXREC = __MAXREC__, MAXDOM = __MAXDOM__, MAXFORM = __MAXFORM__;
  const RESTYLE = __RESTYLE__;
  const MAXELSE = __MAXELSE__, MAXPATH = __MAXPATH__, MAXTEXT = __MAXTEXT__, OPENER_WAIT = __OPENER_WAIT__;
  const WORDS = new RegExp(__WORDS__, 'i'), SETTINGS = new RegExp(__SETTINGS__, 'i'), PLACE = new RegExp(__PLACE__, 'i');
  const elapsed = () => performance.now() - T0;
  const out = { keysTried: 0, complete: false, found: [], elsewhere: [], changed: false };
  const root = document.documentElement;
  if (!root) { out.complete = true; return out; }
  // Where the page was scrolled: a key that focuses an element scrolls it
  // into view.
  const sx = scrollX, sy = scrollY;
  // The printable keys of a US keyboard: [key, code, keyCode, shift].
  const KEYS = [];
  const PUNCT = [['`', '~', 'Backquote', 192], ['-', '_', 'Minus', 189], ['=', '+', 'Equal', 187], ['[', '{', 'BracketLeft', 219], [']', '}', 'BracketRight', 221], ['\\', '|', 'Backslash', 220], [';', ':', 'Semicolon', 186], ["'", '"', 'Quote', 222], [',', '<', 'Comma', 188], ['.', '>', 'Period', 190], ['/', '?', 'Slash', 191]];
  const SHIFTED = ')!@#$%^&*(';
  for (let i = 0; i < 26; i++) { const l = String.fromCharCode(97 + i); KEYS.push([l, 'Key' + l.toUpperCase(), 65 + i, false]); }
  for (let i = 0; i < 10; i++) KEYS.push([String(i), 'Digit' + i, 48 + i, false]);
  KEYS.push([' ', 'Space', 32, false]);
  for (const [k, , code, vk] of PUNCT) KEYS.push([k, code, vk, false]);
  for (let i = 0; i < 26; i++) { const l = String.fromCharCode(65 + i); KEYS.push([l, 'Key' + l, 65 + i, true]); }
  for (let i = 0; i < 10; i++) KEYS.push([SHIFTED[i], 'Digit' + i, 48 + i, true]);
  for (const [, k, code, vk] of PUNCT) KEYS.push([k, code, vk, true]);
  const SHIFT = ['Shift', 'ShiftLeft', 16, true];

  const text = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const rendered = (el) => {
    try {
      if (!el.isConnected || !el.getClientRects().length) return false;
      if (getComputedStyle(el).visibility !== 'visible') return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    } catch (e) { return false; }
  };
  const path = (el) => {
    const p = [];
    let n = el;
    while (n && n !== root) {
      const parent = n.parentElement;
      if (!parent || p.length >= MAXPATH) return null;
      let i = 0;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) i++;
      p.push(i);
      n = parent;
    }
    return n === root ? p.reverse() : null;
  };
  const label = (el) => {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    else if (s === 'input') s += '[type=' + el.type + ']';
    else if (el.classList && el.classList.length) s += '.' + el.classList[0];
    return s.slice(0, MAXTEXT);
  };
  const refs = (el, attr) => (el.getAttribute(attr) || '').split(/\s+/).slice(0, 4)
    .map((id) => { const d = id && document.getElementById(id); return d ? d.textContent : ''; }).join(' ');
  // An image link's name: its first images' alternatives ("change settings").
  const alts = (el) => [...el.querySelectorAll('img[alt]')].slice(0, 4).map((i) => i.getAttribute('alt')).join(' ');
  const name = (el) => {
    let n = el.getAttribute('aria-label') || refs(el, 'aria-labelledby');
    if (!text(n) && el.labels && el.labels.length) n = [...el.labels].slice(0, 2).map((l) => l.innerText || l.textContent).join(' ');
    if (!text(n) && el.localName === 'input') n = el.value;
    if (!text(n)) n = el.innerText || el.textContent;
    if (!text(n)) n = alts(el);
    if (!text(n)) n = el.getAttribute('title');
    return text(n).slice(0, 300);
  };
  // The visible text just before a control (its previous sibling's, or its
  // wrapper's previous sibling's): a heading or an instruction about it.
  const nearby = (el) => {
    let n = el;
    for (let d = 0; d < 3 && n; d++) {
      const p = n.previousElementSibling;
      if (p) return rendered(p) ? text(p.innerText).slice(0, 300) : '';
      n = n.parentElement;
    }
    return '';
  };
  const aboutKeys = (el) => {
    try { return WORDS.test(name(el)) || WORDS.test(text(refs(el, 'aria-describedby') + ' ' + (el.getAttribute('title') || ''))) || WORDS.test(nearby(el)); } catch (e) { return false; }
  };
  const CTL = 'input[type=checkbox i],input[type=radio i],input[type=button i],button,summary,[role=button],[role=switch],[role=checkbox],[role=radio],[role=menuitemcheckbox],[role=menuitemradio],[aria-pressed]';
  const usable = (el) => {
    const tag = el.localName;
    if (el.disabled || el.closest('[inert]') || el.getAttribute('aria-disabled') === 'true') return false;
    if (['iframe', 'object', 'embed', 'frame'].includes(tag)) return false;
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) {
      const h = (el.getAttribute('href') || '').trim();
      if (!(h === '' || h.startsWith('#') || /^javascript:/i.test(h))) return false;
      if (el.target && el.target !== '_self') return false;
    }
    if (el.form && el.type === 'submit') return false;
    return rendered(el);
  };
  const controls = (max) => {
    const o = [];
    try { for (const el of document.querySelectorAll(CTL)) { if (o.length >= max) break; if (usable(el)) o.push(el); } } catch (e) {}
    return o;
  };
  // The controls and their places now, before any key ran page code.
  const first = controls(MAXCTL + 1);
  const truncated = first.length > MAXCTL;
  const initial = first.slice(0, MAXCTL);
  const places = new Map(initial.map((el) => [el, path(el)]));

  const ids = new WeakMap();
  let nextId = 1;
  const idOf = (n) => { let i = ids.get(n); if (i === undefined) { i = nextId++; ids.set(n, i); } return i; };
  let records = [];
  const keep = (list) => { for (const r of list) { if (records.length >= MAXREC) break; records.push(r); } };
  const mo = new MutationObserver(keep);
  mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  const take = () => { keep(mo.takeRecords()); const r = records; records = []; return r; };
  let navigated = false;
  const onNavigate = (e) => { navigated = true; try { if (e.cancelable) e.preventDefault(); } catch (x) {} };
  const nav = globalThis.navigation;
  try { if (nav) nav.addEventListener('navigate', onNavigate); } catch (e) {}
  const flush = async () => { for (let i = 0; i < 4; i++) await null; };
  // Taking focus off an element is no change of the page as judged: the
  // keyboard walk left focus wherever its last press did.
  const blur = () => {
    const a = document.activeElement;
    if (a && a !== document.body && a !== root && a.blur) { try { a.blur(); } catch (e) {} }
  };
  // Sends key `k` to the body with nothing focused; what it did.
  const fire = async (k) => {
    blur();
    await flush();
    take();
    navigated = false;
    const href = location.href;
    const target = document.body || root;
    const [key, code, vk, shift] = k;
    const ch = key.length === 1 ? key.charCodeAt(0) : 0;
    let prevented = false;
    for (const type of ['keydown', 'keypress', 'keyup']) {
      const press = type === 'keypress';
      // A browser sends no key-press for a key whose key-down was
      // cancelled, nor for a key that types nothing.
      if (press && (prevented || !ch)) continue;
      let ev;
      try {
        ev = new KeyboardEvent(type, { key, code, keyCode: press ? ch : vk, charCode: press ? ch : 0, which: press ? ch : vk, shiftKey: shift, bubbles: true, cancelable: true, composed: true, view: window });
      } catch (e) { continue; }
      try { if (!target.dispatchEvent(ev)) prevented = true; } catch (e) {}
    }
    await flush();
    const sig = new Set();
    for (const r of take()) sig.add(idOf(r.target) + ':' + r.type + ':' + (r.attributeName || ''));
    const a = document.activeElement;
    const focus = !!a && a !== document.body && a !== root;
    return { sig, focus, navigated: navigated || location.href !== href, prevented };
  };
  const effects = (r, base) => {
    const e = [];
    for (const s of r.sig) if (!base.sig.has(s)) { e.push('dom'); break; }
    if (r.focus && !base.focus) e.push('focus');
    if (r.navigated && !base.navigated) e.push('navigation');
    if (r.prevented && !base.prevented) e.push('prevented');
    return e;
  };
  const found = [];
  let budgetOut = false;
  // The DOM as serialized, with what it does not hold of form controls
  // (checked, value, chosen option); null past the bounds, which counts as
  // changed.
  const look = () => {
    const h = root.outerHTML;
    if (h.length > MAXDOM) return null;
    const st = [];
    for (const el of document.querySelectorAll('input,select,textarea')) {
      if (st.length >= MAXFORM) return null;
      st.push([el.checked === true, String(el.value).slice(0, 2000), el.selectedIndex]);
    }
    return h + '\u0000' + JSON.stringify(st);
  };
  let dom0 = null, clicked = false, restyle = null;
  try {
    const b1 = await fire(SHIFT), b2 = await fire(SHIFT);
    const base = { sig: new Set([...b1.sig, ...b2.sig]), focus: b1.focus || b2.focus, navigated: b1.navigated || b2.navigated, prevented: b1.prevented || b2.prevented };
    let i = 0;
    for (; i < KEYS.length; i++) {
      if (elapsed() > FIND_MS || found.length >= MAXK) break;
      const k = KEYS[i];
      out.keysTried++;
      const once = effects(await fire(k), base);
      if (!once.length) continue;
      const twice = effects(await fire(k), base);
      if (!twice.length) continue;
      // Focus moved by a key is taken off again and the scroll put back
      // (below), and a cancelled key changes nothing: only a DOM change or
      // a navigation the page started leave the page other than judged.
      if ([...once, ...twice].some((e) => e === 'dom' || e === 'navigation')) out.changed = true;
      found.push({ k, effects: [...new Set([...once, ...twice])], mechanism: null, searched: false });
    }
    out.complete = i >= KEYS.length;

    // The page as judged, when no key changed it: the search's clicks are
    // set back, and the page counts as changed only if it then differs.
    // From here the style and ARIA attributes are watched: a control set
    // back may leave one that changes nothing shown (super::restyle).
    if (found.length && !out.changed) dom0 = look();
    // A watch that cannot start leaves the comparison as it was.
    if (dom0 !== null) { try { restyle = RESTYLE(root); } catch (e) {} }
    // The search for a way to turn each key off or remap it.
    const pending = () => found.filter((f) => !f.mechanism);
    const state = (el) => {
      const s = { checked: el.checked, pressed: el.getAttribute('aria-pressed'), ariaChecked: el.getAttribute('aria-checked'), expanded: el.getAttribute('aria-expanded'), open: null, radio: null };
      if (el.localName === 'summary' && el.parentElement && el.parentElement.localName === 'details') s.open = el.parentElement.open;
      if (el.localName === 'input' && el.type === 'radio' && el.name) {
        const scope = el.form || document;
        for (const r of scope.querySelectorAll('input[type=radio i]')) if (r.name === el.name && r.checked) s.radio = r;
      }
      return s;
    };
    const click = async (el) => { clicked = true; try { el.click(); } catch (e) {} await flush(); };
    // Sets a control back as it was before its click.
    const restore = async (el, s) => {
      if (!el.isConnected) return;
      if (s.radio) { if (!s.radio.checked) await click(s.radio); return; }
      const details = s.open !== null && el.parentElement && el.parentElement.open !== s.open;
      if (el.checked !== s.checked || el.getAttribute('aria-pressed') !== s.pressed || el.getAttribute('aria-checked') !== s.ariaChecked || el.getAttribute('aria-expanded') !== s.expanded || details) await click(el);
    };
    // Sends each key still without a mechanism; a key that no longer acts
    // has `el` for its mechanism.
    const test = async (el, by) => {
      for (const f of pending()) {
        if (elapsed() > TOTAL_MS) { budgetOut = true; return; }
        if (!effects(await fire(f.k), base).length) {
          f.mechanism = { path: places.has(el) ? places.get(el) : path(el), label: label(el), revealedBy: by };
        }
      }
    };
    let tried = 0, openers = 0;
    const done = new Set();
    if (found.length) {
      for (const el of initial) {
        if (!pending().length) break;
        if (elapsed() > TOTAL_MS || tried >= MAXCTL) { budgetOut = true; break; }
        if (!el.isConnected || done.has(el) || !usable(el)) continue;
        const opener = openers < MAXOPEN && aboutKeys(el);
        const before = opener ? new Set(controls(MAXVIS)) : null;
        done.add(el);
        tried++;
        const s = state(el);
        await click(el);
        await test(el, null);
        if (opener && pending().length && !budgetOut) {
          openers++;
          const shown = () => controls(MAXVIS).filter((c) => !before.has(c) && !done.has(c));
          let revealed = shown();
          if (!revealed.length) { await new Promise((r) => setTimeout(r, OPENER_WAIT)); revealed = shown(); }
          for (const r of revealed) {
            if (!pending().length) break;
            if (elapsed() > TOTAL_MS || tried >= MAXCTL) { budgetOut = true; break; }
            done.add(r);
            tried++;
            const rs = state(r);
            await click(r);
            await test(r, label(el));
            await restore(r, rs);
          }
        }
        await restore(el, s);
      }
    }
    for (const f of found) f.searched = !f.mechanism && !budgetOut && !truncated;
    // Controls named for shortcuts the search could not try: a select, a
    // text field; a link whose name also says it leads to settings, or
    // that it leads to the site's settings page.
    if (pending().length) {
      for (const el of document.querySelectorAll('a[href],area[href],select,input,textarea,[role=link],[role=combobox],[role=listbox]')) {
        if (out.elsewhere.length >= MAXELSE || elapsed() > TOTAL_MS + FIND_MS) break;
        const link = el.matches('a[href],area[href],[role=link]');
        // Most of a long page's links are ruled out by their text alone,
        // before any layout is asked for.
        if (link) {
          const said = (el.textContent || '') + ' ' + (el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('title') || '') + ' ' + refs(el, 'aria-labelledby');
          if (!WORDS.test(said) && !PLACE.test(said + ' ' + alts(el))) continue;
        }
        if (done.has(el) || (el.matches(CTL) && usable(el))) continue;
        if (!rendered(el)) continue;
        const n = name(el);
        if (WORDS.test(n) ? !link || SETTINGS.test(n) : link && PLACE.test(n)) out.elsewhere.push(label(el) + ' (' + n.slice(0, MAXTEXT) + ')');
      }
    }
  } finally {
    try { mo.disconnect(); } catch (e) {}
    try { if (nav) nav.removeEventListener('navigate', onNavigate); } catch (e) {}
    blur();
    try { scrollTo(sx, sy); } catch (e) {}
    if (restyle && !clicked) { try { restyle.stop(); } catch (e) {} }
    if (clicked) {
      let same = false;
      // Style and ARIA attributes the clicks changed to no effect get their
      // old values back first; the page's own observers of the DOM get
      // their turn.
      if (restyle) { try { restyle.settle(); } catch (e) {} await flush(); }
      try { same = dom0 !== null && look() === dom0; } catch (e) {}
      if (!same) out.changed = true;
    }
  }
  out.found = found.map((f) => ({ key: f.k[0], effects: f.effects, mechanism: f.mechanism, searched: f.searched }));
  return out;
})()"#;

/// The script with its bounds and words filled in.
fn script() -> String {
    let json = |words: &[&str]| {
        serde_json::to_string(&word_pattern(words)).expect("a string serializes to JSON")
    };
    SCRIPT
        .replace("__FIND_MS__", &FIND_MS.to_string())
        .replace("__TOTAL_MS__", &TOTAL_MS.to_string())
        .replace("__MAXK__", &MAX_SHORTCUTS.to_string())
        .replace("__MAXCTL__", &MAX_MECHANISM_CONTROLS.to_string())
        .replace("__MAXOPEN__", &MAX_OPENERS.to_string())
        .replace("__MAXVIS__", &MAX_VISIBLE.to_string())
        .replace("__MAXREC__", &MAX_RECORDS.to_string())
        .replace("__MAXDOM__", &MAX_DOM.to_string())
        .replace("__MAXFORM__", &MAX_FORM.to_string())
        .replace("__MAXELSE__", &MAX_ELSEWHERE.to_string())
        .replace("__MAXPATH__", &super::MAX_ELEMENT_PATH.to_string())
        .replace("__MAXTEXT__", &MAX_TEXT.to_string())
        .replace("__OPENER_WAIT__", &OPENER_WAIT_MS.to_string())
        .replace("__RESTYLE__", &super::restyle::script())
        .replace("__WORDS__", &json(SHORTCUT_WORDS))
        .replace("__SETTINGS__", &json(SETTINGS_WORDS))
        .replace("__PLACE__", &json(SETTINGS_PAGE_WORDS))
}

/// What the search came to.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// The shortcuts and their mechanisms.
    pub shortcuts: Shortcuts,
    /// The script ran page code that changed or may have changed the page
    /// (a key changed the DOM or started a navigation; the search's clicks,
    /// set back, left the DOM or a form control other than it was, once the
    /// style and ARIA attributes they changed to no visible effect got their
    /// old values back, [`super::restyle`]): a page
    /// kept for its pictures loads again first. A key that only moved focus
    /// or was cancelled does not count: focus is taken off again and the
    /// scroll put back.
    pub changed: bool,
}

/// The effect names a [`Shortcut`] may carry.
const EFFECTS: &[&str] = &["dom", "focus", "navigation", "prevented"];

/// Reads the script's answer, bounded and validated; `None` when it is not
/// one.
pub(crate) fn parse(v: &Value) -> Option<Found> {
    let text = |v: &Value| -> Option<String> { Some(v.as_str()?.chars().take(MAX_TEXT).collect()) };
    let path = super::element_path;
    let found = v
        .get("found")?
        .as_array()?
        .iter()
        .take(MAX_SHORTCUTS)
        .filter_map(|f| {
            let key = f.get("key")?.as_str()?;
            // One printable ASCII character, as the script sends.
            let mut chars = key.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c == ' ' || c.is_ascii_graphic() => {}
                _ => return None,
            }
            let mut effects: Vec<String> = f
                .get("effects")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .filter(|e| EFFECTS.contains(e))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            effects.dedup();
            let mechanism = f
                .get("mechanism")
                .filter(|m| m.is_object())
                .map(|m| Mechanism {
                    path: m.get("path").and_then(path),
                    label: m.get("label").and_then(text).unwrap_or_default(),
                    revealed_by: m.get("revealedBy").and_then(text),
                });
            Some(Shortcut {
                key: key.to_string(),
                effects,
                mechanism,
                searched: f.get("searched").and_then(Value::as_bool) == Some(true),
            })
        })
        .collect();
    Some(Found {
        shortcuts: Shortcuts {
            keys_tried: v
                .get("keysTried")
                .and_then(Value::as_u64)
                .map_or(0, |n| n.min(1000) as u32),
            complete: v.get("complete").and_then(Value::as_bool) == Some(true),
            found,
            elsewhere: v
                .get("elsewhere")
                .and_then(Value::as_array)
                .map(|a| a.iter().take(MAX_ELSEWHERE).filter_map(text).collect())
                .unwrap_or_default(),
        },
        changed: v.get("changed").and_then(Value::as_bool) != Some(false),
    })
}

/// Looks for the character key shortcuts of the page in the tab `session`
/// (main frame `frame`); the caller froze the page's requests. Errors are
/// the browser's (a hung tab), or [`BrowserError::Script`] when the page
/// broke the script or its answer is not one.
pub(crate) async fn find_shortcuts(
    conn: &Connection,
    session: &str,
    frame: &str,
    call_timeout: Duration,
) -> Result<Found, BrowserError> {
    let context = conn
        .isolated_world(session, frame, "sitescan-shortcuts", call_timeout)
        .await?;
    let answer = conn
        .evaluate(
            session,
            World::Isolated(context),
            &script(),
            Wait::Promise,
            call_timeout.max(TIME_BUDGET * 2),
        )
        .await?;
    parse(&answer).ok_or_else(|| BrowserError::Script("an unreadable shortcut answer".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_script_gets_every_bound_and_the_shared_words() {
        let s = script();
        assert!(!s.contains("__"), "a placeholder left unfilled");
        assert!(s.contains(r#"new RegExp("\\b(?:shortcut|shortcuts|"#));
        assert!(s.contains("MAXK = 16,"));
        assert!(s.contains(r#"new RegExp("\\b(?:settings|setting|"#));
    }

    #[test]
    fn answers_are_read_bounded_and_validated() {
        let f = parse(&json!({
            "keysTried": 95, "complete": true, "changed": true,
            "found": [
                {"key": "+", "effects": ["dom", "prevented", "bogus"], "mechanism": null, "searched": true},
                {"key": "a", "effects": ["focus"], "mechanism": {"path": [1, 2, 0], "label": "input#remap", "revealedBy": "input.open"}, "searched": false},
                {"key": "ab", "effects": ["dom"]},
                {"key": "\u{e9}", "effects": ["dom"]},
                {"effects": ["dom"]}
            ],
            "elsewhere": ["a (Keyboard settings)", 3]
        }))
        .unwrap();
        assert!(f.changed);
        let s = f.shortcuts;
        assert_eq!((s.keys_tried, s.complete), (95, true));
        assert_eq!(s.found.len(), 2, "only single printable characters");
        assert_eq!(s.found[0].effects, ["dom", "prevented"]);
        assert!(s.found[0].searched && s.found[0].mechanism.is_none());
        let m = s.found[1].mechanism.as_ref().unwrap();
        assert_eq!(m.path.as_deref(), Some(&[1, 2, 0][..]));
        assert_eq!(m.revealed_by.as_deref(), Some("input.open"));
        assert_eq!(s.elsewhere, ["a (Keyboard settings)"]);
        // Bounded: keys, labels.
        let many: Vec<Value> = (0..40)
            .map(|_| json!({"key": "x", "effects": ["dom"], "mechanism": {"path": [], "label": "y".repeat(500)}}))
            .collect();
        let f = parse(&json!({"found": many})).unwrap();
        assert_eq!(f.shortcuts.found.len(), MAX_SHORTCUTS);
        let label = &f.shortcuts.found[0].mechanism.as_ref().unwrap().label;
        assert_eq!(label.len(), MAX_TEXT);
        assert!(parse(&json!(null)).is_none());
        assert!(parse(&json!({"keysTried": 3})).is_none());
    }
}
