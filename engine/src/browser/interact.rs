//! The keyboard walk of a rendered page: Tab and Shift+Tab pressed in the
//! browser, and what focus did ([`sitescan_rules::interaction`]).
//!
//! After the page is ready (and its DOM serialized), the walk presses Tab from
//! the start of the page with `Input.dispatchKeyEvent` until focus leaves the
//! page (reaches the browser's own controls), recording each element reached
//! and how it looks focused against before the walk. Then, from each element
//! in the tab order whose way out is not known yet, it presses Tab again and
//! again, and Shift+Tab again and again: an element from which neither
//! direction leaves the page, because focus keeps cycling among a set of
//! elements, is trapped (ACT a1b64e).
//!
//! The script that watches focus runs in an isolated world of the page's main
//! frame: the page's scripts share the DOM with it but cannot see or replace
//! its functions and state. Everything it answers is still treated as
//! hostile (bounded, validated).
//!
//! Cost: most pages move focus only through the keys' own default actions,
//! so presses are sent in batches and focus is read from a log the script
//! keeps at each key-up. A page whose scripts move focus later (a blur
//! handler's timer) is walked again with a settling wait after each press.
//! Presses and time are bounded per page ([`MAX_PRESSES`], [`TIME_BUDGET`]).
//!
//! Most of a press's cost is the browser's (1 to 3 ms of its processor time
//! on a documentation page), so a page whose scripts cannot have a say in
//! where Tab goes is not walked press by press ([`PROBE`], `walk_fast`): one
//! real Tab reaches the first element, the others are focused by script and
//! described as Tab would have left them, one real Tab leaves the page from
//! the last. Anything unexpected on the way and the page is walked in full.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{json, Value};
use sitescan_rules::interaction::{
    ExitKey, FocusStyle, FocusedElement, Interaction, TrapExit, MAX_ELEMENTS, MAX_EXIT_KEYS,
    MAX_INSTRUCTIONS,
};
use tokio::time::Instant;

use super::cdp::{Connection, Wait, World};
use super::exit_keys::{find_keys, Combo};
use super::BrowserError;

/// Most key presses for one page.
pub const MAX_PRESSES: u32 = 1000;
/// Presses allowed per element in the tab order (plus [`PRESS_SLACK`]).
const PRESSES_PER_ELEMENT: u32 = 3;
/// Presses allowed beyond the per-element ones.
const PRESS_SLACK: u32 = 64;
/// Longest walk of one page, all its passes together (the cheap one, the
/// full one, the slow one where scripts move focus, and the keys tried on
/// the traps found). A guard against a page
/// that makes each press slow, not the usual bound: the presses are
/// ([`MAX_PRESSES`]), and they do not depend on how busy the machine is. It
/// is generous so that a slow walk (a wait after every press) of a page of a
/// few dozen elements ends on a loaded machine too: a walk cut short by time
/// leaves elements unjudged, and the same page would get other findings on
/// a quieter run.
pub const TIME_BUDGET: Duration = Duration::from_millis(WALK_MS + EXIT_MS);
/// The walks' part of [`TIME_BUDGET`].
const WALK_MS: u64 = 10_000;
/// The part of [`TIME_BUDGET`] kept for trying to free focus from the traps
/// found with other keys (only on a page with a trap).
const EXIT_MS: u64 = 2_000;
/// Presses allowed for trying to free focus from the traps found, beyond
/// the walks' own.
const EXIT_PRESSES: u32 = 64;
/// Most traps (cycles) a page has other keys tried on.
const MAX_TRAPS: usize = 3;
/// Most elements of a trap activated to show instructions that appear only
/// then.
const MAX_REVEAL: usize = 3;
/// How long an exit key gets for the page's handlers before focus is read
/// (a dialog that closes, a handler that moves focus, a 10 ms timer).
const KEY_SETTLE_MS: u64 = 60;
/// Most presses sent at once while no script moves focus on its own (a
/// walk from an element starts with two, as it usually stops at the next
/// element, and doubles).
const BATCH: usize = 16;
/// The first batch of a walk from an element.
const FIRST_BATCH: usize = 2;
/// How long a press waits for the page's own handlers once a script was seen
/// moving focus after a key (ACT's examples use 10 ms timers).
const SETTLE_MS: u64 = 30;
/// Longest one call of the cheap walk focuses elements before it hands
/// back (and is called again where it stopped): well within a call's
/// timeout on a loaded machine, whatever the page's size.
const FAST_CHUNK_MS: u64 = 1_000;

/// Tests' own walk budget (the cheap walk's too) and cheap-walk call
/// length, milliseconds, in place of [`Limits::of`]'s: a walk cut short by
/// time is otherwise a matter of the machine's speed.
#[cfg(test)]
pub(crate) static TEST_LIMITS: std::sync::Mutex<Option<(u64, u64)>> = std::sync::Mutex::new(None);

/// The walk's time limits.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// The key-by-key walks' budget ([`WALK_MS`]).
    walk: Duration,
    /// The cheap walk's: [`WALK_MS`] and one call's timeout, as long as the
    /// cheap walk could take when it was one call, so that a loaded machine
    /// does not leave a page unjudged that it judged before.
    cheap: Duration,
    /// Longest one call of the cheap walk ([`FAST_CHUNK_MS`]).
    chunk_ms: u64,
}

impl Limits {
    fn of(call_timeout: Duration) -> Limits {
        #[cfg(test)]
        if let Some((walk, chunk_ms)) = *TEST_LIMITS.lock().unwrap_or_else(|p| p.into_inner()) {
            let walk = Duration::from_millis(walk);
            return Limits {
                walk,
                cheap: walk,
                chunk_ms,
            };
        }
        let walk = Duration::from_millis(WALK_MS);
        Limits {
            walk,
            cheap: walk + call_timeout,
            chunk_ms: FAST_CHUNK_MS,
        }
    }
}
/// Longest label kept.
const MAX_LABEL: usize = 80;
/// Labels kept for a cycle.
const MAX_CYCLE: usize = 10;
/// The property names the script may report as changed.
const LOOK_NAMES: &[&str] = &[
    "outline",
    "border",
    "box-shadow",
    "background",
    "color",
    "text-decoration",
    "text-shadow",
    "opacity",
    "transform",
    "filter",
    "::before",
    "::after",
];

/// The watcher, evaluated once in the isolated world; answers the ids of the
/// elements in the tab order, in document order.
const INSTALL: &str = r#"(() => {
  const MAX = 2000, MAX_SCROLLERS = 200;
  if (globalThis.__k) return globalThis.__k.candidates();
  const ids = new WeakMap(), byId = new Map(), info = new Map(), fresh = [];
  let next = 1;
  const idOf = (el) => { let i = ids.get(el); if (i === undefined) { i = next++; ids.set(el, i); byId.set(i, el); } return i; };
  const outside = (a) => !a || a === document.body || a === document.documentElement;
  const active = () => { const a = document.activeElement; return outside(a) ? null : a; };
  const clear = (c) => /^transparent$|^rgba\(.*,\s*0\)$/.test(c);
  const drawn = (st, w, c) => st !== 'none' && st !== 'hidden' && parseFloat(w) > 0 && !clear(c);
  const box = (cs) => {
    const out = {};
    out['outline'] = drawn(cs.outlineStyle, cs.outlineWidth, cs.outlineColor) ? [cs.outlineStyle, cs.outlineWidth, cs.outlineColor, cs.outlineOffset].join(' ') : 'none';
    out['border'] = ['Top', 'Right', 'Bottom', 'Left'].map((s) => drawn(cs['border' + s + 'Style'], cs['border' + s + 'Width'], cs['border' + s + 'Color']) ? [cs['border' + s + 'Style'], cs['border' + s + 'Width'], cs['border' + s + 'Color']].join(' ') : 'none').join('|');
    out['box-shadow'] = cs.boxShadow;
    out['background'] = cs.backgroundColor + ' ' + cs.backgroundImage;
    out['color'] = cs.color;
    out['text-decoration'] = cs.textDecorationLine === 'none' ? 'none' : [cs.textDecorationLine, cs.textDecorationStyle, cs.textDecorationColor].join(' ');
    out['text-shadow'] = cs.textShadow;
    out['opacity'] = cs.opacity;
    out['transform'] = cs.transform;
    out['filter'] = cs.filter;
    return out;
  };
  const pseudo = (el, p) => {
    const cs = getComputedStyle(el, p);
    if (!cs || cs.content === 'none' || cs.content === 'normal' || cs.display === 'none') return 'none';
    const b = box(cs);
    return cs.content + ' ' + Object.keys(b).map((k) => b[k]).join(';');
  };
  const look = (el) => {
    try { for (const a of el.getAnimations({ subtree: true })) { try { a.finish(); } catch (e) {} } } catch (e) {}
    const cs = getComputedStyle(el);
    const out = box(cs);
    out['::before'] = pseudo(el, '::before');
    out['::after'] = pseudo(el, '::after');
    out['visibility'] = cs.visibility;
    return out;
  };
  const differ = (a, b) => Object.keys(a).filter((k) => k !== 'visibility' && a[k] !== b[k]);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right + scrollX > 0 && r.bottom + scrollY > 0 && getComputedStyle(el).visibility === 'visible';
  };
  const path = (el) => {
    const p = [];
    let n = el;
    while (n && n !== document.documentElement && p.length < 256) {
      const parent = n.parentElement;
      if (!parent) return null;
      p.push(Array.prototype.indexOf.call(parent.children, n));
      n = parent;
    }
    return n === document.documentElement ? p.reverse() : null;
  };
  const label = (el) => {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    else if (el.classList && el.classList.length) s += '.' + el.classList[0];
    return s.slice(0, 80);
  };
  const base = new Map();
  const SEL = 'a[href],area[href],button,input,select,textarea,iframe,summary,details,[tabindex],[contenteditable],audio[controls],video[controls],embed,object';
  const candidates = () => {
    const out = [];
    for (const el of document.querySelectorAll(SEL)) {
      if (out.length >= MAX) break;
      if (el.tabIndex < 0 || el.disabled || el.closest('[inert]') || el.getClientRects().length === 0) continue;
      if (getComputedStyle(el).visibility !== 'visible') continue;
      const id = idOf(el);
      if (!base.has(id)) base.set(id, look(el));
      out.push(id);
    }
    return out;
  };
  let muts = new Set();
  const mo = new MutationObserver((list) => { for (const r of list) if (muts.size < 64 && r.target.nodeType === 1) muts.add(r.target); });
  mo.observe(document.documentElement, { attributes: true, subtree: true, attributeFilter: ['class', 'style', 'hidden'] });
  const takeMuts = () => { for (const r of mo.takeRecords()) if (muts.size < 64 && r.target.nodeType === 1) muts.add(r.target); const m = [...muts]; muts = new Set(); return m; };
  // The scroll positions the page had before the walk, of the elements
  // scrolled then (none on most pages): focusing an element scrolls its
  // scroll containers to it, and the page is pictured after the walk as it
  // was judged, a sidebar's links at its top included (`unscroll`).
  const scrolledBefore = new Map(), touched = new Set();
  try {
    const all = document.getElementsByTagName('*');
    if (all.length <= 100000) {
      for (let i = 0; i < all.length && scrolledBefore.size < MAX; i++) {
        const el = all[i];
        if (el.scrollTop || el.scrollLeft) scrolledBefore.set(el, [el.scrollLeft, el.scrollTop]);
      }
    }
  } catch (e) {}
  const describe = (a, id, measure) => {
    if (touched.size < MAX * 2) touched.add(a);
    if (info.has(id) || info.size >= MAX) return;
    const b = base.get(id);
    const d = { id, path: path(a), label: label(a), style: null };
    if (measure && b) d.style = { changed: differ(look(a), b), elsewhere: false, visible: visible(a) };
    info.set(id, d);
    fresh.push(d);
  };
  // The tab stops in document order (ids) when the tab order is the
  // candidates' document order whatever the page's scripts did, else null:
  // nothing that orders focus otherwise (a positive tabindex, shadow trees,
  // frames, a reading-flow container), nothing with tab stops of its own
  // (a radio group, a date field, media controls), no dialog or popover, no
  // inline key or focus handler. A visible scroll container with no
  // candidate (and no other such container) inside is a tab stop of its own
  // in Chromium, in its document place: it joins the candidates. Code
  // blocks wider than their column are such containers on most
  // documentation pages.
  // The radio buttons the last `qualifies` found are not tab stops: the
  // cheap walk describes them (not as Tab reaches them) once it is through.
  let offStops = [];
  const qualifies = (ids) => {
    offStops = [];
    if (ids.length >= MAX) return null;
    if (document.querySelector('iframe,frame,frameset,object,embed,area,applet,audio[controls],video[controls],dialog,[popover],[contenteditable],slot,template,input[type=date],input[type=time],input[type=datetime-local],input[type=month],input[type=week],input[type=file],[hidden=until-found],[onkeydown],[onkeyup],[onkeypress],[onfocus],[onblur],[onfocusin],[onfocusout]')) return null;
    for (const el of document.querySelectorAll('[tabindex]')) if (el.tabIndex > 0) return null;
    const all = document.getElementsByTagName('*');
    if (all.length > 100000) return null;
    const root = document.documentElement, body = document.body;
    const els = ids.map((id) => byId.get(id));
    let scrollers = [];
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      if (el.shadowRoot || el.localName.indexOf('-') >= 0) return null;
      if (el === root || el === body) continue;
      // Its overflow is asked first: reading every element's scroll and
      // client sizes costs more.
      const cs = getComputedStyle(el);
      if (/auto|scroll|overlay/.test(cs.overflowX + ' ' + cs.overflowY) && (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) && cs.visibility === 'visible' && !els.some((c) => c && el.contains(c))) {
        // Document order: a container that holds this one came before it,
        // and is no tab stop once this one is.
        scrollers = scrollers.filter((s) => !s.contains(el));
        if (scrollers.length >= MAX_SCROLLERS) return null;
        scrollers.push(el);
      }
    }
    const flows = new Set();
    for (const id of ids) {
      const el = byId.get(id);
      if (!el) return null;
      for (let n = el.parentElement; n && n !== root && !flows.has(n); n = n.parentElement) {
        flows.add(n);
        const cs = getComputedStyle(n);
        if ((cs.readingFlow && cs.readingFlow !== 'normal') || (cs.readingOrder && cs.readingOrder !== '0')) return null;
      }
    }
    // A named radio group is one tab stop: its checked button, else its
    // first (Tab comes forward); the arrows move within it. A group whose
    // stop is not a candidate (hidden, disabled) is left to the full walk.
    const groups = new Map();
    for (const el of els) {
      if (!el || el.localName !== 'input' || el.type !== 'radio' || !el.name) continue;
      const owner = el.form || el.getRootNode();
      let byName = groups.get(owner);
      if (!byName) groups.set(owner, (byName = new Map()));
      if (!byName.has(el.name)) byName.set(el.name, []);
      byName.get(el.name).push(el);
    }
    // The checked button of each group, in one pass over the page's radios
    // (not one per group).
    const checkedOf = new Map();
    if (groups.size) {
      for (const r of document.querySelectorAll('input[type=radio i]')) {
        if (!r.checked || !r.name) continue;
        const byName = groups.get(r.form || r.getRootNode());
        if (byName && byName.has(r.name)) checkedOf.set(byName.get(r.name), r);
      }
    }
    const skipped = new Set();
    for (const byName of groups.values()) {
      for (const members of byName.values()) {
        const checked = checkedOf.get(members) || null;
        if (checked && !members.includes(checked)) return null;
        const stop = checked || members[0];
        for (const m of members) if (m !== stop) skipped.add(m);
      }
    }
    offStops = [...skipped];
    const kept = skipped.size ? els.filter((el) => !skipped.has(el)) : els;
    if (!scrollers.length && !skipped.size) return ids;
    if (kept.length + scrollers.length >= MAX) return null;
    const stops = kept.concat(scrollers);
    stops.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    return stops.map(idOf);
  };
  // Focuses the stops `ids` from `from` on, for at most `ms` (Chromium's
  // first focus of a link in a large table alone takes some milliseconds):
  // answers [where it stopped, 1 when only the time did].
  const fast = (ids, keys, from, ms) => {
    const until = performance.now() + ms;
    takeMuts();
    for (let i = from; i < ids.length; i++) {
      if (i > from && performance.now() >= until) return [i, 1];
      const el = byId.get(ids[i]);
      if (!el) return [i, 0];
      if (i > 0) {
        self = true;
        // The walk's pictures and boxes do not need the page scrolled to
        // each element (focus otherwise scrolls it into view).
        try { el.focus({ preventScroll: true }); } finally { self = false; }
      }
      if (document.activeElement !== el || !el.matches(':focus-visible')) return [i, 0];
      last = ids[i];
      describe(el, ids[i], true);
      if (keys) {
        const e = new KeyboardEvent('keydown', { key: 'Tab', code: 'Tab', keyCode: 9, which: 9, bubbles: true, cancelable: true, composed: true, view: window });
        el.dispatchEvent(e);
        if (e.defaultPrevented || document.activeElement !== el) return [i, 0];
      }
      if (takeMuts().length) return [i, 0];
    }
    pending = null;
    for (const el of offStops) describe(el, idOf(el), false);
    return [ids.length, 0];
  };
  let pending = null, last = 0;
  const log = [];
  const record = (measure) => {
    const a = active();
    const changedNow = takeMuts();
    if (pending) {
      const p = pending;
      pending = null;
      if (p.els.some((el, i) => JSON.stringify(look(el)) !== p.looks[i])) {
        const d = info.get(p.id);
        if (d && d.style) d.style.elsewhere = true;
      }
    }
    if (!a) { last = 0; if (log.length < 100000) log.push(0); return 0; }
    const id = idOf(a);
    last = id;
    if (log.length < 100000) log.push(id);
    describe(a, id, measure);
    const els = changedNow.filter((el) => el !== a && !a.contains(el));
    pending = { id, els, looks: els.map((el) => JSON.stringify(look(el))) };
    return id;
  };
  let inKey = false, slow = false, self = false, scriptMoved = false, guard = false;
  // Only the browser's own key events count: a page's script can dispatch
  // look-alikes.
  addEventListener('keydown', (e) => { if (e.isTrusted && e.key === 'Tab') inKey = true; }, true);
  addEventListener('keyup', (e) => { if (!e.isTrusted || e.key !== 'Tab') return; inKey = false; if (!slow) record(true); }, true);
  // While the walk presses a page's documented exit keys, a key the page
  // left unhandled is marked handled once the page's own listeners ran
  // (this one is added after them): the browser then does not act on it
  // itself (Ctrl+R reloads, Alt+Left goes back). Escape is left alone: the
  // browser closing a modal <dialog> on it is what is being tried; and Tab,
  // whose default is the move being watched.
  addEventListener('keydown', (e) => { if (guard && e.isTrusted && e.key !== 'Escape' && e.key !== 'Tab') e.preventDefault(); }, false);
  // The text a trap's instructions may be in: the page's visible text, then
  // the descriptions of the elements `els` (bounded).
  const texts = (els) => {
    const parts = [];
    let n = 0;
    const add = (s) => { if (!s || n >= 40000) return; s = String(s).slice(0, 40000 - n); n += s.length; parts.push(s); };
    try { add(document.body ? document.body.innerText : ''); } catch (e) {}
    for (const el of els.slice(0, 10)) {
      if (!el || !el.getAttribute) continue;
      add(el.getAttribute('title'));
      add(el.getAttribute('aria-description'));
      add(el.getAttribute('aria-label'));
      for (const ref of (el.getAttribute('aria-describedby') || '').split(/\s+/).slice(0, 8)) {
        const d = ref && document.getElementById(ref);
        if (d) add(d.textContent);
      }
    }
    return parts.join('\n');
  };
  // Focus coming back to the page from outside (the browser's side of a
  // Tab) is not a script's move; a move from outside is caught by comparing
  // where focus is with where the last key left it.
  addEventListener('focusin', (e) => { if (!inKey && !self && e.relatedTarget && ids.get(e.target) !== last) { scriptMoved = true; } }, true);
  globalThis.__k = {
    candidates,
    take() { const a = active(); return { log: log.splice(0), fresh: fresh.splice(0), scriptMoved, now: a ? idOf(a) : 0, last }; },
    // Waits for the page after each press (`on`), or reads focus at each
    // key-up again, forgetting the script moves seen so far.
    slow(on) { slow = on !== false; if (!slow) { scriptMoved = false; pending = null; } return 0; },
    settle(ms) { return new Promise((r) => setTimeout(() => r(record(true)), ms)); },
    blur() {
      self = true;
      try { const a = document.activeElement; if (a && a.blur) a.blur(); } finally { self = false; }
      // The next Tab starts at the top: a caret at the start of the body is
      // the sequential focus navigation starting point.
      try { const s = getSelection(), r = document.createRange(); r.setStart(document.body || document.documentElement, 0); r.collapse(true); s.removeAllRanges(); s.addRange(r); } catch (e) {}
      pending = null; last = 0;
      return 0;
    },
    // Puts the sequential focus navigation starting point back at the top
    // once elements were focused (blurring one leaves it there): a
    // placeholder at the start of the body takes focus and is removed.
    restart() {
      self = true;
      try {
        const host = document.body || document.documentElement;
        const t = document.createElement('span');
        t.tabIndex = -1;
        host.insertBefore(t, host.firstChild);
        t.focus();
        t.remove();
      } catch (e) {} finally { self = false; }
      pending = null; last = 0;
      return 0;
    },
    qualifies(ids) { try { return qualifies(ids); } catch (e) { return null; } },
    // What a trap of the elements `ids` offers for leaving it: whether it
    // is inside a modal dialog, and the text its instructions may be in.
    trapInfo(ids) {
      const els = ids.map((id) => byId.get(id)).filter((el) => el && el.isConnected);
      let modal = false;
      for (const el of els) {
        try { if (el.closest('[role=dialog][aria-modal=true i],[role=alertdialog][aria-modal=true i]') || el.closest('dialog:modal')) modal = true; } catch (e) {}
      }
      return { modal, text: texts(els) };
    },
    // Activates element `id` of a trap (a click, as assistive technologies
    // activate) to show instructions that appear only then; answers the
    // text afterwards. Not an element whose activation leads to another
    // page or window (a link elsewhere, a form's submit button): null.
    reveal(id) {
      const el = byId.get(id);
      if (!el || !el.isConnected) return null;
      const tag = el.localName;
      if (['iframe', 'object', 'embed', 'frame'].includes(tag)) return null;
      if (tag === 'a' || tag === 'area') {
        const h = (el.getAttribute('href') || '').trim();
        if (!(h.startsWith('#') || /^javascript:/i.test(h))) return null;
        if (el.target && el.target !== '_self') return null;
      }
      if (el.form && !['button', 'reset', 'checkbox', 'radio'].includes(el.type)) return null;
      self = true;
      try { el.click(); } catch (e) {} finally { self = false; }
      return new Promise((r) => setTimeout(() => r(texts([el])), 60));
    },
    guard(on) { guard = !!on; return 0; },
    // Forgets what was recorded (a cheap walk given up: the full walk
    // describes the elements afresh).
    // Puts back the scroll of every element that holds one the walk
    // focused (its containers, the document's scroller); answers how many
    // moved.
    unscroll() {
      const done = new Set();
      let moved = 0;
      for (const el of touched) {
        for (let n = el.parentElement, depth = 0; n && depth < 256; n = n.parentElement, depth++) {
          if (done.has(n)) break;
          done.add(n);
          const [l, t] = scrolledBefore.get(n) || [0, 0];
          if (n.scrollLeft !== l || n.scrollTop !== t) {
            moved++;
            try { n.scrollLeft = l; n.scrollTop = t; } catch (e) {}
          }
        }
      }
      return moved;
    },
    reset() { info.clear(); fresh.length = 0; log.length = 0; pending = null; last = 0; scriptMoved = false; takeMuts(); },
    // Focuses each element of `ids` (the tab order; the first one reached by
    // a real Tab) in turn and describes how it looks, as a Tab would have
    // left it; with `keys`, sends each an untrusted Tab key-down first, for
    // the page's key-down listeners. Answers how many elements went as Tab
    // would have gone: focus held, `:focus-visible` matched, the key not
    // cancelled, nothing on the page changed.
    fast(ids, keys, from, ms) { try { return fast(ids, keys, from, ms); } catch (e) { return -1; } },
    // Describes the stops `ids` from `from` on that a cheap walk out of
    // time did not reach (not as Tab leaves them): listed, not judged.
    rest(ids, from) {
      for (let i = from; i < ids.length; i++) { const el = byId.get(ids[i]); if (el) describe(el, ids[i], false); }
      return 0;
    },
    focus(id) {
      const el = byId.get(id);
      if (!el) return 0;
      self = true;
      try { el.focus(); } finally { self = false; }
      pending = null;
      const a = active();
      if (!a) { last = 0; return 0; }
      const got = idOf(a);
      last = got;
      if (!info.has(got) && info.size < MAX) { const d = { id: got, path: path(a), label: label(a), style: null }; info.set(got, d); fresh.push(d); }
      return got;
    },
  };
  return candidates();
})()"#;

/// Bits of [`PROBE`]'s answer.
const PROBE_KEYDOWN: u64 = 1;
/// A listener or handler for any other key or focus event, a listener the
/// probe cannot read, a shadow root attached by script.
const PROBE_OTHER: u64 = 2;
/// A key-down listener whose source names `isTrusted` (it could tell our
/// untrusted key-down from the browser's) or cannot be read.
const PROBE_TRUSTED: u64 = 4;
/// A page script moved focus (`focus()`, `blur()`, a modal dialog, a
/// popover).
const PROBE_FOCUS: u64 = 8;

/// Evaluated in the page's own world on every new document, before its
/// scripts (when the keyboard is walked): notes which key and focus
/// listeners the page's scripts add and whether they move focus, so that a
/// page whose scripts cannot have a say in where Tab goes is judged without
/// pressing Tab once per element. Read back with `window.__sitescanProbe()`,
/// a property the page cannot redefine or delete. A page can only make the
/// answer more cautious (call the marker), never quieter; frames report to
/// the top document where it is theirs to reach (same origin).
pub(crate) const PROBE: &str = r#"(() => {
  let flags = 0;
  try {
    const W = window, apply = Reflect.apply, toStr = Function.prototype.toString;
    const mark = (b) => { flags |= b; try { if (W.top !== W) W.top.__sitescanProbeMark(b); } catch (e) {} };
    const OTHER = new Set(['keyup', 'keypress', 'focus', 'blur', 'focusin', 'focusout', 'domfocusin', 'domfocusout', 'domactivate', 'selectionchange']);
    const note = (type, fn) => {
      const t = String(type).toLowerCase();
      if (t === 'keydown') {
        mark(1);
        if (typeof fn !== 'function') { mark(4); return; }
        let src = '';
        try { src = apply(toStr, fn, []); } catch (e) { mark(4); return; }
        if (/isTrusted|\[native code\]/.test(src)) mark(4);
      } else if (OTHER.has(t)) mark(2);
    };
    Object.defineProperty(W, '__sitescanProbe', { value: () => flags, writable: false, configurable: false, enumerable: false });
    Object.defineProperty(W, '__sitescanProbeMark', { value: (b) => { flags |= (b & 15); }, writable: false, configurable: false, enumerable: false });
    const ET = EventTarget.prototype, add = ET.addEventListener;
    ET.addEventListener = { addEventListener(type, fn) { try { note(type, fn); } catch (e) { mark(2); } return apply(add, this, arguments); } }.addEventListener;
    const NAMES = ['onkeydown', 'onkeyup', 'onkeypress', 'onfocus', 'onblur', 'onfocusin', 'onfocusout', 'onselectionchange'];
    const protos = [W, W.Window && Window.prototype, W.Document && Document.prototype, W.HTMLElement && HTMLElement.prototype, W.SVGElement && SVGElement.prototype, W.MathMLElement && MathMLElement.prototype, W.HTMLBodyElement && HTMLBodyElement.prototype, W.HTMLFrameSetElement && HTMLFrameSetElement.prototype];
    for (const p of protos) {
      if (!p) continue;
      for (const n of NAMES) {
        const d = Object.getOwnPropertyDescriptor(p, n);
        if (!d || !d.set || !d.configurable) continue;
        const set = d.set;
        Object.defineProperty(p, n, { get: d.get, set: { set(v) { try { if (v) note(n.slice(2), v); } catch (e) { mark(2); } return apply(set, this, [v]); } }.set, enumerable: d.enumerable, configurable: true });
      }
    }
    const wrap = (p, n, b) => {
      if (!p || typeof p[n] !== 'function') return;
      const f = p[n];
      p[n] = { [n]() { mark(b); return apply(f, this, arguments); } }[n];
    };
    for (const p of [W.HTMLElement && HTMLElement.prototype, W.SVGElement && SVGElement.prototype, W.MathMLElement && MathMLElement.prototype]) {
      wrap(p, 'focus', 8);
      wrap(p, 'blur', 8);
    }
    wrap(W.HTMLDialogElement && HTMLDialogElement.prototype, 'showModal', 8);
    wrap(W.HTMLDialogElement && HTMLDialogElement.prototype, 'show', 8);
    wrap(W.HTMLElement && HTMLElement.prototype, 'showPopover', 8);
    wrap(W.HTMLElement && HTMLElement.prototype, 'togglePopover', 8);
    wrap(W.Element && Element.prototype, 'attachShadow', 2);
  } catch (e) {
    flags |= 2;
    try { Object.defineProperty(window, '__sitescanProbe', { value: () => flags, writable: false, configurable: false }); } catch (e2) {}
  }
})();"#;

/// How a walk in one direction ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    /// Focus left the page.
    Outside,
    /// Focus came back to an element the walk had reached: these cycle.
    Cycle(Vec<u32>),
    /// Reached an element whose way out in this direction is known.
    Known(bool),
}

/// Looks at a walk's sequence so far (`seq[0]` its start, `0` for outside)
/// and says how it ended, if it did, with the number of entries used.
fn ended(seq: &[u32], known: &HashMap<u32, bool>) -> Option<(End, usize)> {
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for (i, &id) in seq.iter().enumerate() {
        if id == 0 {
            // The first entry is the document itself on a walk from the start.
            if i > 0 {
                return Some((End::Outside, i + 1));
            }
            continue;
        }
        if let Some(&first) = seen.get(&id) {
            return Some((End::Cycle(seq[first..i].to_vec()), i + 1));
        }
        if i > 0 {
            if let Some(&k) = known.get(&id) {
                return Some((End::Known(k), i + 1));
            }
        }
        seen.insert(id, i);
    }
    None
}

/// One element's facts as the script described them.
struct Seen {
    path: Option<Vec<u32>>,
    label: String,
    style: Option<FocusStyle>,
}

fn parse_seen(v: &Value) -> Option<(u32, Seen)> {
    let id = u32::try_from(v.get("id")?.as_u64()?).ok()?;
    let path = v.get("path").and_then(super::element_path);
    let label: String = v
        .get("label")
        .and_then(Value::as_str)
        .unwrap_or("element")
        .chars()
        .take(MAX_LABEL)
        .collect();
    let style = v.get("style").filter(|s| s.is_object()).map(|s| {
        let mut changed: Vec<String> = s
            .get("changed")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|n| LOOK_NAMES.contains(n))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        changed.sort();
        changed.dedup();
        FocusStyle {
            changed,
            elsewhere: s.get("elsewhere").and_then(Value::as_bool) == Some(true),
            visible: s.get("visible").and_then(Value::as_bool) == Some(true),
        }
    });
    Some((id, Seen { path, label, style }))
}

/// Drives the keyboard of one tab.
struct Walker<'a> {
    conn: &'a Connection,
    session: &'a str,
    context: i64,
    call_timeout: Duration,
    presses: u32,
    max_presses: u32,
    deadline: Instant,
    /// When the cheap walk stops going on ([`Limits::cheap`]).
    cheap_deadline: Instant,
    /// Longest one call of the cheap walk ([`FAST_CHUNK_MS`]).
    chunk_ms: u64,
    slow: bool,
    script_moved: bool,
    seen: HashMap<u32, Seen>,
    /// Elements whose style was read on the first walk after they were
    /// focused by Tab from the start.
    order: Vec<u32>,
    /// The first and the last element Tab reaches from the top: where the
    /// browser puts focus back when a key took it off the page (headless
    /// Chromium has no controls of its own to hold it).
    wrap: (Option<u32>, Option<u32>),
    /// When the first key was pressed: the walk's set-up (watcher,
    /// candidates, the cheap walk's checks) ends there.
    first_press: &'a mut Option<Instant>,
}

impl Walker<'_> {
    fn out_of_budget(&self) -> bool {
        self.presses >= self.max_presses || Instant::now() >= self.deadline
    }

    async fn eval(&self, expr: &str, await_promise: bool) -> Result<Value, BrowserError> {
        let wait = if await_promise {
            Wait::Promise
        } else {
            Wait::Value
        };
        self.conn
            .evaluate(
                self.session,
                World::Isolated(self.context),
                expr,
                wait,
                self.call_timeout,
            )
            .await
    }

    /// [`PROBE`]'s answer, from the page's own world; `None` when it did
    /// not run (or the page broke it).
    async fn probe(&self) -> Result<Option<u64>, BrowserError> {
        let r = self
            .conn
            .evaluate(
                self.session,
                World::Page,
                "window.__sitescanProbe()",
                Wait::Value,
                self.call_timeout,
            )
            .await;
        match r {
            Ok(v) => Ok(v.as_u64()),
            Err(BrowserError::Script(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Sends `n` presses of Tab (Shift+Tab when `back`) without waiting in
    /// between.
    async fn press(&mut self, n: usize, back: bool) -> Result<(), BrowserError> {
        let modifiers = if back { 8 } else { 0 };
        let key = |kind: &str| {
            json!({"type": kind, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9,
                   "nativeVirtualKeyCode": 9, "modifiers": modifiers})
        };
        let mut calls = Vec::with_capacity(n * 2);
        for _ in 0..n {
            for kind in ["rawKeyDown", "keyUp"] {
                calls.push(self.conn.call(
                    Some(self.session),
                    "Input.dispatchKeyEvent",
                    key(kind),
                    self.call_timeout,
                ));
            }
        }
        self.presses += n as u32;
        self.first_press.get_or_insert_with(Instant::now);
        for r in futures::future::join_all(calls).await {
            r?;
        }
        Ok(())
    }

    /// Waits for the page after each press (`true`), or reads focus at each
    /// key-up (`false`, forgetting the script moves seen so far).
    async fn set_slow(&mut self, slow: bool) -> Result<(), BrowserError> {
        self.slow = slow;
        if !slow {
            self.script_moved = false;
        }
        self.eval(&format!("globalThis.__k.slow({slow})"), false)
            .await?;
        Ok(())
    }

    /// Presses `combo` once (down and up), as the keyboard would.
    async fn key(&mut self, combo: &Combo) -> Result<(), BrowserError> {
        self.presses += 1;
        for down in [true, false] {
            self.conn
                .call(
                    Some(self.session),
                    "Input.dispatchKeyEvent",
                    combo.event(down),
                    self.call_timeout,
                )
                .await?;
        }
        Ok(())
    }

    /// The focus log of `n` presses: the key-ups of a batch may still be on
    /// their way when the last press is acknowledged, so the log is read
    /// again (briefly) until it has them.
    async fn take_n(&mut self, n: usize) -> Result<Vec<u32>, BrowserError> {
        let mut log = Vec::new();
        for _ in 0..5 {
            let v = self.eval("globalThis.__k.take()", false).await?;
            log.extend(Self::log_of(&v));
            if self.order.is_empty() {
                self.learn_wrap(&log);
            }
            if log.len() >= n {
                self.note_moves(&v);
                self.absorb(v.get("fresh"));
                return Ok(log);
            }
            self.absorb(v.get("fresh"));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(log)
    }

    fn log_of(v: &Value) -> Vec<u32> {
        v.get("log")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .take(MAX_PRESSES as usize * 2)
                    .filter_map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The focus log since the last call; records the elements described.
    async fn take(&mut self) -> Result<Vec<u32>, BrowserError> {
        let v = self.eval("globalThis.__k.take()", false).await?;
        self.note_moves(&v);
        self.absorb(v.get("fresh"));
        Ok(v.get("log")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .take(MAX_PRESSES as usize * 2)
                    .filter_map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Learns the ends of the tab order from the start walk's log.
    fn learn_wrap(&mut self, log: &[u32]) {
        let mut prev = 0;
        for &id in log {
            if id != 0 && self.wrap.0.is_none() {
                self.wrap.0 = Some(id);
            }
            if id == 0 && prev != 0 && self.wrap.1.is_none() {
                self.wrap.1 = Some(prev);
            }
            prev = id;
        }
    }

    /// A script moved focus: the watcher saw it move outside a key press, or
    /// focus is not where the last key (or our own focus call) left it — a
    /// key that took focus off the page aside, after which the browser puts
    /// it back on the first or last element of the tab order.
    fn note_moves(&mut self, v: &Value) {
        let moved = v.get("scriptMoved").and_then(Value::as_bool) == Some(true);
        let now = v.get("now").and_then(Value::as_u64);
        let last = v.get("last").and_then(Value::as_u64);
        let wrapped = last == Some(0)
            && now.is_some_and(|n| {
                let n = u32::try_from(n).ok();
                n.is_some() && (n == self.wrap.0 || n == self.wrap.1)
            });
        if !self.script_moved && (moved || (!self.slow && now != last && !wrapped)) {
            tracing::debug!(
                focusin = moved,
                ?now,
                ?last,
                "a script moved focus after a key"
            );
            self.script_moved = true;
        }
    }

    fn absorb(&mut self, fresh: Option<&Value>) {
        let Some(list) = fresh.and_then(Value::as_array) else {
            return;
        };
        for v in list.iter().take(MAX_ELEMENTS) {
            if self.seen.len() >= MAX_ELEMENTS {
                return;
            }
            if let Some((id, s)) = parse_seen(v) {
                self.seen.entry(id).or_insert(s);
            }
        }
    }

    /// Walks from `start` (`0`: the start of the page) in one direction
    /// until it is decided or the budget runs out (`None`); returns the
    /// elements walked through (start first) and the end.
    async fn walk(
        &mut self,
        start: u32,
        back: bool,
        known: &HashMap<u32, bool>,
        first_batch: usize,
    ) -> Result<(Vec<u32>, Option<End>), BrowserError> {
        let mut seq = vec![start];
        let mut batch = first_batch.max(1);
        loop {
            if let Some((end, used)) = ended(&seq, known) {
                seq.truncate(used);
                return Ok((seq, Some(end)));
            }
            if self.out_of_budget() || (!self.slow && self.script_moved) {
                return Ok((seq, None));
            }
            if self.slow {
                self.press(1, back).await?;
                let v = self
                    .eval(&format!("globalThis.__k.settle({SETTLE_MS})"), true)
                    .await?;
                let id = v.as_u64().and_then(|i| u32::try_from(i).ok()).unwrap_or(0);
                // The log of the key-ups is not used in slow mode; the
                // descriptions are.
                let _ = self.take().await?;
                seq.push(id);
            } else {
                let room = self.max_presses.saturating_sub(self.presses).max(1) as usize;
                let n = batch.min(room);
                self.press(n, back).await?;
                batch = (batch * 2).min(BATCH);
                let log = self.take_n(n).await?;
                seq.extend(log);
            }
        }
    }

    /// Focuses element `id` by script; whether it holds focus (once the page
    /// settled, where scripts move focus: another element's blur handler may
    /// take it back).
    async fn focus(&mut self, id: u32) -> Result<bool, BrowserError> {
        let as_id = |v: Value| v.as_u64().and_then(|i| u32::try_from(i).ok()).unwrap_or(0);
        let mut got = as_id(
            self.eval(&format!("globalThis.__k.focus({id})"), false)
                .await?,
        );
        if self.slow && got == id {
            got = as_id(
                self.eval(&format!("globalThis.__k.settle({SETTLE_MS})"), true)
                    .await?,
            );
        }
        let _ = self.take().await?;
        Ok(got == id)
    }

    /// Where focus is once the page settled (`0`: outside).
    async fn settled(&mut self) -> Result<u32, BrowserError> {
        tokio::time::sleep(Duration::from_millis(SETTLE_MS)).await;
        let v = self.eval("globalThis.__k.take()", false).await?;
        self.note_moves(&v);
        self.absorb(v.get("fresh"));
        Ok(v.get("now")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
            .unwrap_or(0))
    }
}

/// What the walks found: who leaves the page, who was walked in which
/// direction, and the moves seen.
#[derive(Default)]
struct Ways {
    /// Decided: `true` leaves the page, `false` trapped.
    status: HashMap<u32, bool>,
    forward: HashSet<u32>,
    backward: HashSet<u32>,
    /// Moves seen (either key): from, to.
    moves: HashSet<(u32, u32)>,
    cycles: HashMap<u32, Vec<u32>>,
}

impl Ways {
    /// Takes in one walk: the elements it went through and how it ended.
    fn record(&mut self, back: bool, walked: &[u32], end: &End) {
        for pair in walked.windows(2) {
            if pair[0] != 0 && pair[1] != 0 {
                self.moves.insert((pair[0], pair[1]));
            }
        }
        let ids = walked.iter().copied().filter(|&id| id != 0);
        match end {
            End::Outside | End::Known(true) => {
                for id in ids {
                    self.status.insert(id, true);
                }
            }
            End::Cycle(_) | End::Known(false) => {
                let set = if back {
                    &mut self.backward
                } else {
                    &mut self.forward
                };
                set.extend(ids);
            }
        }
        if let End::Cycle(c) = end {
            for &id in c {
                self.cycles.entry(id).or_insert_with(|| c.clone());
            }
        }
        self.decide();
    }

    /// The cycle a trapped element is in, or the first one the moves seen
    /// from it lead to (sorted, the key of [`try_exits`]' answers).
    fn cycle_of(&self, id: u32) -> Option<Vec<u32>> {
        let mut seen = HashSet::from([id]);
        let mut queue = std::collections::VecDeque::from([id]);
        while let Some(at) = queue.pop_front() {
            if let Some(c) = self.cycles.get(&at) {
                let mut c = c.clone();
                c.sort_unstable();
                c.dedup();
                return Some(c);
            }
            if seen.len() > MAX_ELEMENTS {
                break;
            }
            for &(from, to) in &self.moves {
                if from == at && seen.insert(to) {
                    queue.push_back(to);
                }
            }
        }
        None
    }

    /// Leaving spreads back along the moves seen; an element walked both
    /// ways that cannot reach one that leaves is trapped.
    fn decide(&mut self) {
        loop {
            let mut changed = false;
            for &(from, to) in &self.moves {
                if self.status.get(&to) == Some(&true) && self.status.get(&from) != Some(&true) {
                    self.status.insert(from, true);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for id in self.forward.intersection(&self.backward) {
            self.status.entry(*id).or_insert(false);
        }
    }
}

/// Walks the page's keyboard in the tab `session` (its main frame is
/// `frame`). Errors are the browser's (a hung tab); a page whose watcher
/// fails answers an incomplete walk. `first_press` gets when the first key
/// was pressed (the end of the walk's set-up), if one was.
pub(crate) async fn walk_page(
    conn: &Connection,
    session: &str,
    frame: &str,
    call_timeout: Duration,
    first_press: &mut Option<Instant>,
) -> Result<Interaction, BrowserError> {
    let started = Instant::now();
    let limits = Limits::of(call_timeout);
    let context = conn
        .isolated_world(session, frame, "sitescan-keys", call_timeout)
        .await?;
    let mut w = Walker {
        conn,
        session,
        context,
        call_timeout,
        presses: 0,
        max_presses: 0,
        deadline: Instant::now() + limits.walk,
        cheap_deadline: Instant::now() + limits.cheap,
        chunk_ms: limits.chunk_ms,
        slow: false,
        script_moved: false,
        seen: HashMap::new(),
        order: Vec::new(),
        wrap: (None, None),
        first_press,
    };
    let candidates: Vec<u32> = w
        .eval(INSTALL, false)
        .await?
        .as_array()
        .map(|a| {
            a.iter()
                .take(MAX_ELEMENTS)
                .filter_map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
                .collect()
        })
        .unwrap_or_default();
    w.max_presses = (candidates.len() as u32)
        .saturating_mul(PRESSES_PER_ELEMENT)
        .saturating_add(PRESS_SLACK)
        .min(MAX_PRESSES);
    if candidates.is_empty() {
        return Ok(Interaction {
            complete: true,
            ..Interaction::default()
        });
    }
    let mut ways = Ways::default();
    let tried = walk_fast(&mut w, &candidates).await?;
    let fast = matches!(tried, Fast::Done | Fast::OutOfTime);
    let mut complete = tried != Fast::OutOfTime;
    if fast {
        // With nothing on the page to move focus, Tab from any element goes
        // on to the next stop and, from the last, out: the stops' and, on a
        // finished walk, the other candidates' (radio buttons of a group)
        // alike. Out of time, only the stops reached are judged.
        let others: &[u32] = if complete { &candidates } else { &[] };
        for &id in w.order.iter().chain(others) {
            ways.status.insert(id, true);
        }
    } else {
        if tried == Fast::GaveUp {
            // Start afresh: the full walk describes each element as Tab
            // leaves it, from the top, with the presses it would have had
            // and what is left of the page's time.
            w.eval("globalThis.__k.reset()", false).await?;
            w.eval("globalThis.__k.restart()", false).await?;
            w.seen.clear();
            w.order.clear();
            w.wrap = (None, None);
            w.script_moved = false;
            w.max_presses = w.max_presses.saturating_add(w.presses);
        }
        complete = walk_all(&mut w, &candidates, &mut ways).await?;
    }
    if w.script_moved && !w.slow && !fast {
        // A script moved focus after a key: walk again, waiting after each
        // press for the page's handlers.
        w.slow = true;
        w.eval("globalThis.__k.slow()", false).await?;
        ways = Ways::default();
        w.order.clear();
        complete = walk_all(&mut w, &candidates, &mut ways).await?;
    }
    // Other keys, only where Tab and Shift+Tab found a trap.
    let slow = w.slow;
    let mut exits = HashMap::new();
    if ways.status.values().any(|&leaves| !leaves) {
        match try_exits(&mut w, &candidates, &mut ways, &mut exits).await {
            Ok(()) => {}
            Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => return Err(e),
            // The page went away under the keys (a script navigated): what
            // was tried before stands.
            Err(e) => tracing::debug!(error = %e, "trying exit keys failed"),
        }
    }
    let mut elements = Vec::new();
    let reached: HashSet<u32> = w.order.iter().copied().collect();
    let mut ids = w.order.clone();
    ids.extend(candidates.iter().filter(|c| !reached.contains(c)));
    let mut listed = HashSet::new();
    for id in ids {
        if !listed.insert(id) || elements.len() >= MAX_ELEMENTS {
            continue;
        }
        let leaves = ways.status.get(&id).copied();
        let Some(seen) = w.seen.get(&id) else {
            continue;
        };
        let Some(path) = seen.path.clone() else {
            continue;
        };
        let tab_reached = reached.contains(&id);
        // Not judged (a trap elsewhere took focus back whenever it was put
        // here) and not reached by Tab: nothing to say about it.
        if leaves.is_none() && !tab_reached && complete {
            continue;
        }
        let cycle = if leaves == Some(false) {
            ways.cycles
                .get(&id)
                .map(|c| {
                    c.iter()
                        .take(MAX_CYCLE)
                        .filter_map(|i| w.seen.get(i).map(|s| s.label.clone()))
                        .collect()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        elements.push(FocusedElement {
            path,
            label: seen.label.clone(),
            tab_reached,
            leaves_page: leaves,
            cycle,
            focus_style: if tab_reached {
                seen.style.clone()
            } else {
                None
            },
            exit: if leaves == Some(false) {
                ways.cycle_of(id).and_then(|c| exits.get(&c).cloned())
            } else {
                None
            },
        });
    }
    // The page is pictured after the walk as it was judged: containers the
    // walk scrolled go back (a page that went away under the keys has
    // nothing to put back).
    let unscrolled = match w.eval("globalThis.__k.unscroll()", false).await {
        Ok(v) => v.as_u64().unwrap_or(0),
        Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => return Err(e),
        Err(e) => {
            tracing::debug!(error = %e, "putting the scroll back failed");
            0
        }
    };
    tracing::debug!(
        candidates = candidates.len(),
        unscrolled,
        presses = w.presses,
        fast,
        slow,
        complete,
        ms = started.elapsed().as_millis() as u64,
        "keyboard walk"
    );
    Ok(Interaction {
        elements,
        presses: w.presses,
        complete,
        script_moves_focus: slow,
        activations: Vec::new(),
        shortcuts: None,
    })
}

/// How the cheap walk went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fast {
    /// Not such a page; nothing was pressed or focused.
    NotTried,
    /// Something went otherwise than expected: the page is walked in full,
    /// from a clean start.
    GaveUp,
    /// Every element was judged.
    Done,
    /// The walk's time ran out on the way: the stops in the walker's order
    /// were judged, the others were not.
    OutOfTime,
}

/// Where one call of the cheap walk's `fast` got to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// Through every stop.
    Done,
    /// Stopped for time at this stop, past where the call began.
    Paused(usize),
    /// Focus or the page did something else than expected (or the answer
    /// is not one `fast` gives).
    Failed,
}

/// Reads `fast`'s answer (`[stop reached, 1 when paused for time]`) for a
/// call that began at `from` of `len` stops. The script is the page's to
/// tamper with: a pause that does not move forward is a failure, so the
/// calls always end.
fn fast_progress(went: &Value, from: usize, len: usize) -> Progress {
    let Some([at, paused]) = went.as_array().and_then(|a| match a.as_slice() {
        [at, paused] => Some([at.as_u64(), paused.as_u64()]),
        _ => None,
    }) else {
        return Progress::Failed;
    };
    let (Some(at), Some(paused)) = (at.and_then(|a| usize::try_from(a).ok()), paused) else {
        return Progress::Failed;
    };
    match paused {
        0 if at == len => Progress::Done,
        1 if at > from && at < len => Progress::Paused(at),
        _ => Progress::Failed,
    }
}

/// The cheap walk, for a page whose scripts cannot have a say in where Tab
/// goes ([`PROBE`]: no listener for key-ups, focus or blur, no script that
/// moved focus, key-down listeners that do not look at `isTrusted`) and
/// whose tab order is its tab stops' document order (the watcher's
/// `qualifies`: the candidates, and the scroll containers Chromium makes
/// tab stops). One real Tab from the top must reach the first stop;
/// each of the others is then focused by script and described as Tab would
/// have left it (given an untrusted Tab key-down when the page listens to
/// key-downs, which must neither be cancelled nor move focus); one real Tab
/// from the last must leave the page, and the probe must answer the same
/// after. Then every element leaves the page: with nothing else on the page
/// to move focus, each Tab goes to the next element and the last one's out.
async fn walk_fast(w: &mut Walker<'_>, candidates: &[u32]) -> Result<Fast, BrowserError> {
    if candidates.is_empty() {
        return Ok(Fast::NotTried);
    }
    let Some(flags) = w.probe().await? else {
        return Ok(Fast::NotTried);
    };
    if flags & (PROBE_OTHER | PROBE_TRUSTED | PROBE_FOCUS) != 0 {
        return Ok(Fast::NotTried);
    }
    let ids = Value::from(candidates.to_vec()).to_string();
    // The tab stops: the candidates and the scroll containers between them.
    let stops = w
        .eval(&format!("globalThis.__k.qualifies({ids})"), false)
        .await?;
    let Some(stops) = stop_ids(&stops, candidates) else {
        return Ok(Fast::NotTried);
    };
    let (Some(&first), Some(&end)) = (stops.first(), stops.last()) else {
        return Ok(Fast::NotTried);
    };
    let ids = Value::from(stops.clone()).to_string();
    w.eval("globalThis.__k.blur()", false).await?;
    let _ = w.take().await?;
    w.press(1, false).await?;
    if w.take_n(1).await? != [first] || w.script_moved {
        return Ok(Fast::GaveUp);
    }
    let keys = flags & PROBE_KEYDOWN != 0;
    let mut from = 0;
    loop {
        let went = w
            .eval(
                &format!("globalThis.__k.fast({ids}, {keys}, {from}, {})", w.chunk_ms),
                false,
            )
            .await?;
        match fast_progress(&went, from, stops.len()) {
            Progress::Done => break,
            Progress::Paused(at) if Instant::now() < w.cheap_deadline => from = at,
            // The walk's time ran out: the stops before `at` were judged.
            Progress::Paused(at) => {
                w.eval(&format!("globalThis.__k.rest({ids}, {at})"), false)
                    .await?;
                let _ = w.take().await?;
                if w.script_moved {
                    return Ok(Fast::GaveUp);
                }
                w.order = stops[..at].to_vec();
                return Ok(Fast::OutOfTime);
            }
            Progress::Failed => return Ok(Fast::GaveUp),
        }
    }
    if keys {
        // A listener's timer that moves focus shows up here (as it would
        // on the full walk's settling wait).
        tokio::time::sleep(Duration::from_millis(SETTLE_MS)).await;
    }
    let _ = w.take().await?;
    if w.script_moved {
        return Ok(Fast::GaveUp);
    }
    // Leaving the page, the browser may put focus back on either end.
    w.wrap = (Some(first), Some(end));
    w.press(1, false).await?;
    if w.take_n(1).await? != [0] || w.script_moved {
        return Ok(Fast::GaveUp);
    }
    if w.probe().await? != Some(flags) {
        return Ok(Fast::GaveUp);
    }
    w.order = stops;
    Ok(Fast::Done)
}

/// The watcher's answer to `qualifies`: the page's tab stops in document
/// order, whose candidates (not every one is a stop: a radio group is one)
/// keep the candidates' order, within [`MAX_ELEMENTS`] (the script is the
/// page's to tamper with: a list that is not that is no list).
fn stop_ids(answer: &Value, candidates: &[u32]) -> Option<Vec<u32>> {
    let list = answer.as_array()?;
    if list.is_empty() || list.len() > MAX_ELEMENTS {
        return None;
    }
    let stops: Vec<u32> = list
        .iter()
        .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
        .collect::<Option<_>>()?;
    let place: HashMap<u32, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, i))
        .collect();
    let mut after = None;
    let mut seen = HashSet::new();
    for &id in &stops {
        if id == 0 || !seen.insert(id) {
            return None;
        }
        if let Some(&i) = place.get(&id) {
            if after.is_some_and(|a| i <= a) {
                return None;
            }
            after = Some(i);
        }
    }
    Some(stops)
}

/// Runs one walk and takes it in; when it ended in a cycle, walks back from
/// where focus is (inside the cycle) too. `false`: out of budget.
async fn walk_and_back(
    w: &mut Walker<'_>,
    ways: &mut Ways,
    start: u32,
    first_batch: usize,
) -> Result<bool, BrowserError> {
    let (walked, end) = w.walk(start, false, &ways.status, first_batch).await?;
    let Some(end) = end else {
        return Ok(false);
    };
    ways.record(false, &walked, &end);
    if matches!(end, End::Cycle(_)) {
        let here = walked.last().copied().unwrap_or(0);
        let (walked, end) = w.walk(here, true, &ways.status, FIRST_BATCH).await?;
        let Some(end) = end else {
            return Ok(false);
        };
        ways.record(true, &walked, &end);
    }
    Ok(true)
}

/// The walk from the start, then from each element whose way out is not
/// known; whether every element was judged within the budget.
async fn walk_all(
    w: &mut Walker<'_>,
    candidates: &[u32],
    ways: &mut Ways,
) -> Result<bool, BrowserError> {
    w.eval("globalThis.__k.blur()", false).await?;
    let _ = w.take().await?;
    // A blur handler may put focus back at once: the walk then starts there.
    let start = if w.slow { w.settled().await? } else { 0 };
    // As many presses as the tab order has elements, and one to leave: a
    // page without traps is walked in one batch, and focus is left outside.
    let (walked, end) = w
        .walk(start, false, &ways.status, candidates.len() + 1)
        .await?;
    for &id in &walked {
        if id != 0 && !w.order.contains(&id) {
            w.order.push(id);
        }
    }
    if !w.slow {
        // A timer that moves focus after the last press shows up here.
        let _ = w.settled().await?;
        if w.script_moved {
            return Ok(false);
        }
    }
    let Some(end) = end else {
        return Ok(false);
    };
    ways.record(false, &walked, &end);
    if matches!(end, End::Cycle(_)) {
        let here = walked.last().copied().unwrap_or(0);
        let (walked, end) = w.walk(here, true, &ways.status, FIRST_BATCH).await?;
        let Some(end) = end else {
            return Ok(false);
        };
        ways.record(true, &walked, &end);
    }
    let mut todo: Vec<u32> = w.order.clone();
    todo.extend(candidates.iter().filter(|c| !w.order.contains(c)));
    for id in todo {
        for back in [false, true] {
            if ways.status.contains_key(&id) {
                break;
            }
            let walked_there = if back { &ways.backward } else { &ways.forward };
            if walked_there.contains(&id) {
                continue;
            }
            if w.out_of_budget() || (!w.slow && w.script_moved) {
                return Ok(false);
            }
            if !w.focus(id).await? {
                // Not focusable after all (a script or style prevents it), or
                // a trap elsewhere takes focus back: not judged here.
                break;
            }
            if back {
                let (walked, end) = w.walk(id, true, &ways.status, FIRST_BATCH).await?;
                let Some(end) = end else {
                    return Ok(false);
                };
                ways.record(true, &walked, &end);
            } else if !walk_and_back(w, ways, id, FIRST_BATCH).await? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Tries other keys on each trap Tab and Shift+Tab found (at most
/// [`MAX_TRAPS`], within [`EXIT_PRESSES`] more presses and [`EXIT_MS`]):
/// Escape when the trap is inside a modal dialog, then the keys the page's
/// instructions name ([`find_keys`]), read from its text and the
/// descriptions of the trap's elements, or from the text that activating an
/// element of the trap shows ([`MAX_REVEAL`]). Each key is pressed with
/// focus on an element of the trap; it frees focus when focus is then off
/// the trap and Tab from there leaves the page ([`press_exit`]). Answers go
/// into `out` by trap (its sorted element ids) as they are found, so that a
/// page that goes away midway keeps the ones before. When a key freed focus,
/// the elements left unjudged are walked again ([`judge_rest`]).
///
/// The keys run the page's code and may change it for good (a dialog
/// closed): this is done after every walk, on pages with a trap only.
async fn try_exits(
    w: &mut Walker<'_>,
    candidates: &[u32],
    ways: &mut Ways,
    out: &mut HashMap<Vec<u32>, TrapExit>,
) -> Result<(), BrowserError> {
    let mut traps: Vec<Vec<u32>> = Vec::new();
    for (&id, &leaves) in &ways.status {
        if leaves {
            continue;
        }
        if let Some(c) = ways.cycle_of(id) {
            if !traps.contains(&c) {
                traps.push(c);
            }
        }
    }
    // The order of the page, not of the map.
    traps.sort();
    traps.truncate(MAX_TRAPS);
    if traps.is_empty() {
        return Ok(());
    }
    w.max_presses = w.presses.saturating_add(EXIT_PRESSES);
    w.deadline = Instant::now() + Duration::from_millis(EXIT_MS);
    // Each key waits for the page's handlers; the log of key-ups is not
    // used from here on.
    w.set_slow(true).await?;
    let leaving: HashMap<u32, bool> = ways
        .status
        .iter()
        .filter(|(_, &leaves)| leaves)
        .map(|(&id, &leaves)| (id, leaves))
        .collect();
    w.eval("globalThis.__k.guard(true)", false).await?;
    for trap in traps {
        if w.out_of_budget() {
            break;
        }
        let ids = Value::from(trap.clone()).to_string();
        let info = w
            .eval(&format!("globalThis.__k.trapInfo({ids})"), false)
            .await?;
        let modal = info.get("modal").and_then(Value::as_bool) == Some(true);
        let mut exit = TrapExit {
            modal,
            ..TrapExit::default()
        };
        let mut keys = find_keys(bounded_text(&info["text"]));
        let mut freed = false;
        // Escape first in a modal dialog, before anything is activated (a
        // close button would close the dialog for good).
        if modal && !keys.iter().any(|(k, _)| *k == Combo::escape()) {
            let frees = press_exit(w, &trap, &Combo::escape(), &leaving).await?;
            freed = frees == Some(true);
            exit.keys.push(ExitKey {
                key: Combo::escape().label(),
                documented: false,
                frees,
            });
        }
        if keys.is_empty() && !freed {
            for &id in trap.iter().take(MAX_REVEAL) {
                if w.out_of_budget() {
                    break;
                }
                let text = w
                    .eval(&format!("globalThis.__k.reveal({id})"), true)
                    .await?;
                keys = find_keys(bounded_text(&text));
                if !keys.is_empty() {
                    exit.revealed_by = w.seen.get(&id).map(|s| s.label.clone());
                    break;
                }
            }
        }
        for (_, excerpt) in &keys {
            if exit.instructions.len() < MAX_INSTRUCTIONS && !exit.instructions.contains(excerpt) {
                exit.instructions.push(excerpt.clone());
            }
        }
        for (combo, _) in keys {
            if exit.keys.len() >= MAX_EXIT_KEYS {
                break;
            }
            let frees = if freed || combo.reserved() || w.out_of_budget() {
                None
            } else {
                press_exit(w, &trap, &combo, &leaving).await?
            };
            freed |= frees == Some(true);
            exit.keys.push(ExitKey {
                key: combo.label(),
                documented: true,
                frees,
            });
        }
        out.insert(trap, exit);
    }
    w.eval("globalThis.__k.guard(false)", false).await?;
    if out.values().any(|x| x.freed_by().is_some()) {
        judge_rest(w, candidates, ways).await?;
    }
    Ok(())
}

/// Once a key freed focus from a trap, the elements the walks could not
/// judge because the trap took focus back whenever it was put on them are
/// walked from (Shift+Tab, then Tab), within what is left of the bounds. An
/// element found to leave the page then leaves; nothing else changes (the
/// traps stay as the walks found them, before the key changed the page).
async fn judge_rest(
    w: &mut Walker<'_>,
    candidates: &[u32],
    ways: &mut Ways,
) -> Result<(), BrowserError> {
    let mut after = Ways {
        status: ways.status.clone(),
        ..Ways::default()
    };
    // Focus is read at each key-up again, not once the page settled: a key
    // that takes focus off the page shows as such, where after a wait the
    // browser may have put it back on the other end of the tab order. A
    // script that still moves focus stops the walks (their elements stay
    // unjudged).
    w.set_slow(false).await?;
    let todo: Vec<u32> = candidates
        .iter()
        .copied()
        .filter(|id| !ways.status.contains_key(id))
        .collect();
    'all: for &id in &todo {
        for back in [true, false] {
            if after.status.contains_key(&id) {
                break;
            }
            if w.out_of_budget() || w.script_moved || !w.focus(id).await? {
                break 'all;
            }
            let (walked, end) = w.walk(id, back, &after.status, FIRST_BATCH).await?;
            let Some(end) = end else {
                break 'all;
            };
            tracing::debug!(id, back, ?walked, ?end, "walked again after an exit key");
            after.record(back, &walked, &end);
        }
    }
    for id in todo {
        if after.status.get(&id) == Some(&true) {
            ways.status.insert(id, true);
        }
    }
    Ok(())
}

/// The text the watcher answered, bounded.
fn bounded_text(v: &Value) -> &str {
    let s = v.as_str().unwrap_or("");
    match s.char_indices().nth(40_000) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Presses `combo` with focus on an element of `trap`; whether it freed
/// focus: focus is then off the trap, on an element known to leave the
/// page (`leaving`), or Tab from where it is leaves the page or reaches
/// one. `None`: no element of the trap holds focus any more, or the bounds
/// ran out.
async fn press_exit(
    w: &mut Walker<'_>,
    trap: &[u32],
    combo: &Combo,
    leaving: &HashMap<u32, bool>,
) -> Result<Option<bool>, BrowserError> {
    let mut held = false;
    for &id in trap {
        if w.focus(id).await? {
            held = true;
            break;
        }
    }
    if !held {
        tracing::debug!(
            key = combo.label(),
            ?trap,
            "no element of the trap holds focus"
        );
        return Ok(None);
    }
    w.key(combo).await?;
    tokio::time::sleep(Duration::from_millis(KEY_SETTLE_MS)).await;
    let now = w.settled().await?;
    tracing::debug!(key = combo.label(), now, ?trap, "exit key pressed");
    if trap.contains(&now) {
        return Ok(Some(false));
    }
    if leaving.contains_key(&now) {
        return Ok(Some(true));
    }
    // Tab from there, focus read at each key-up (see [`judge_rest`]).
    w.set_slow(false).await?;
    let (walked, end) = w.walk(now, false, leaving, FIRST_BATCH).await?;
    tracing::debug!(?walked, ?end, "after the exit key");
    w.set_slow(true).await?;
    Ok(match end {
        Some(End::Outside | End::Known(true)) => Some(true),
        Some(End::Cycle(_) | End::Known(false)) => Some(false),
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cheap_walks_calls_must_move_forward_to_go_on() {
        use serde_json::json;
        assert_eq!(fast_progress(&json!([5, 0]), 0, 5), Progress::Done);
        assert_eq!(fast_progress(&json!([3, 1]), 0, 5), Progress::Paused(3));
        assert_eq!(fast_progress(&json!([3, 1]), 2, 5), Progress::Paused(3));
        // Stopped on an element (focus went elsewhere, the page changed).
        assert_eq!(fast_progress(&json!([3, 0]), 0, 5), Progress::Failed);
        // A pause that does not move forward, or goes past the end, or an
        // answer the script does not give: the page tampered with it.
        for bad in [
            json!([2, 1]),
            json!([1, 1]),
            json!([5, 1]),
            json!([9, 0]),
            json!(-1),
            json!([3]),
            json!(["3", 1]),
            json!([3, 2]),
        ] {
            assert_eq!(fast_progress(&bad, 2, 5), Progress::Failed, "{bad}");
        }
    }

    #[test]
    fn walks_end_outside_in_a_cycle_or_at_a_known_element() {
        let none = HashMap::new();
        assert_eq!(ended(&[0, 1, 2, 0], &none), Some((End::Outside, 4)));
        assert_eq!(ended(&[0, 1, 2], &none), None);
        assert_eq!(ended(&[0, 0], &none), Some((End::Outside, 2)));
        assert_eq!(
            ended(&[0, 1, 2, 3, 2, 0], &none),
            Some((End::Cycle(vec![2, 3]), 5))
        );
        assert_eq!(ended(&[5, 5], &none), Some((End::Cycle(vec![5]), 2)));
        let known = HashMap::from([(3, true)]);
        assert_eq!(ended(&[1, 2, 3, 4], &known), Some((End::Known(true), 3)));
        // The start's own way out is what is being found.
        assert_eq!(ended(&[3, 4, 0], &known), Some((End::Outside, 3)));
    }

    #[test]
    fn leaving_spreads_back_along_the_moves_seen() {
        let mut ways = Ways::default();
        // From the top: 1, 2, then 3 keeps focus.
        ways.record(false, &[0, 1, 2, 3, 3], &End::Cycle(vec![3]));
        // Shift+Tab from 3 keeps it too: trapped.
        ways.record(true, &[3, 3], &End::Cycle(vec![3]));
        assert_eq!(ways.status.get(&3), Some(&false));
        // 1 and 2 were only walked forward: not decided yet.
        assert_eq!(ways.status.get(&1), None);
        // Shift+Tab from 2 reaches 1, then leaves: both leave.
        ways.record(true, &[2, 1, 0], &End::Outside);
        assert_eq!(ways.status.get(&1), Some(&true));
        assert_eq!(ways.status.get(&2), Some(&true));
        assert_eq!(ways.status.get(&3), Some(&false));
        assert_eq!(ways.cycles.get(&3), Some(&vec![3]));
        // An element that reaches one that leaves, leaves.
        let mut ways = Ways::default();
        ways.record(true, &[5, 6], &End::Known(false));
        ways.record(false, &[5, 6], &End::Known(false));
        assert_eq!(ways.status.get(&5), Some(&false));
        ways.moves.insert((5, 7));
        ways.status.insert(7, true);
        ways.decide();
        assert_eq!(ways.status.get(&5), Some(&true));
    }
}
