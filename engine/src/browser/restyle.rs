//! Putting back attribute changes that change nothing the page shows, for
//! the page scripts that run the page's code and then compare its DOM with
//! the one judged ([`super::shortcuts`]).
//!
//! A control clicked and set back often leaves attributes behind that it did
//! not find: Python's documentation sets `document.body.style.overflow` to
//! `hidden` when its menu opens and to `visible` when it closes, so `<body>`
//! ends with `style="overflow: visible"` where it had no style at all, and
//! its menu gets `aria-expanded="false"` and `aria-hidden="true"`, its label
//! `aria-pressed="false"`, which the page did not have. The page looks the
//! same, but the serialized DOM differs, and a page kept for its pictures
//! would be loaded a second time for nothing.
//!
//! The attributes watched are those the browser does not render by
//! themselves: `style`, whose effect is the element's computed style, and
//! ARIA's (`aria-*`), which are for assistive technologies. Either shows
//! only through the computed style and the page's style sheets, so whether a
//! change of them shows can be told.
//!
//! [`script`] is a JavaScript function expression a page script embeds and
//! calls with the document element when its page is as judged. A
//! `MutationObserver` keeps the first old value of each watched attribute
//! that changes (at most [`MAX_RESTYLED`] attributes of elements). Its
//! `settle()`, called once the page's controls are set back, disconnects the
//! watch and, for each element whose watched attributes are no longer their
//! old values, reads the element's computed style (every property, custom
//! ones too) with the attributes as they are and with the old values back;
//! when the two are the same the old values stay (the change had no
//! effect), else the current values are set again (the change was real).
//! The exact comparison of the DOM runs after it, as before, and judges the
//! rest.
//!
//! It changes nothing (and the page counts as changed as before) past the
//! bound of attributes, or when the style rules could not all be read (at
//! most [`MAX_RULES`] rules). An element keeps its current values when a
//! style rule names one of its changed attributes (`[aria-expanded=true] +
//! nav`, `body[style]`, `content: attr(aria-label)`: the attribute may show
//! on other elements or in a pseudo-element), or when it has a running
//! animation or transition (its computed style is then a moment of it,
//! the same with either value at the start of a transition). Style sheets
//! of another origin cannot be read: what they name is not known, and is
//! taken as nothing. It stops at [`SETTLE_MS`]; the elements not reached
//! keep their current values.
//!
//! The `activate` phase ([`super::activate`]) has no such comparison: a page
//! with any candidate control is loaded again, as its activations are not set
//! back (a skip link moves focus, a toggle hides a menu and stays so).

/// Most attributes (of all elements) whose old value is kept; past it,
/// nothing is put back.
pub(crate) const MAX_RESTYLED: usize = 200;
/// Most style rules read for the attributes they name; past it, nothing is
/// put back.
pub(crate) const MAX_RULES: usize = 20_000;
/// Longest time `settle()` takes (milliseconds, checked between elements).
pub(crate) const SETTLE_MS: u64 = 250;

/// The watcher, a function expression: `(root) => ({ stop(), settle() })`,
/// where `settle()` answers how many elements got their old attributes back.
/// Its `MutationObserver` is the script's own (an isolated world's), so the
/// page's code neither sees nor stops it.
pub(crate) fn script() -> String {
    format!(
        r#"((root) => {{
  const MAXEL = {MAX_RESTYLED}, MAXRULES = {MAX_RULES}, SETTLE_MS = {SETTLE_MS};
  // Attributes the browser does not render by themselves: what `style` does
  // is the element's computed style; ARIA's is for assistive technologies.
  // Either shows through the page's style sheets, which are read below.
  const watched = (n) => n === 'style' || n.startsWith('aria-');
  // Element -> (attribute -> its value when the watch began, null: absent).
  const old = new Map();
  let pairs = 0, over = false;
  const note = (list) => {{
    for (const r of list) {{
      if (over) return;
      const n = r.attributeName;
      if (!n || r.attributeNamespace || !watched(n)) continue;
      let m = old.get(r.target);
      if (m && m.has(n)) continue;
      if (pairs >= MAXEL) {{ over = true; return; }}
      if (!m) old.set(r.target, (m = new Map()));
      m.set(n, r.oldValue);
      pairs++;
    }}
  }};
  const mo = new MutationObserver(note);
  mo.observe(root, {{ subtree: true, attributes: true, attributeOldValue: true }});
  // The attributes the page's style rules name (in a selector, `[x]`,
  // `:has([x=y])`, or in `attr(x)`); null past the bound (not known). A
  // sheet of another origin cannot be read: what it names is not known, as
  // for a page without it.
  const named = () => {{
    const out = new Set();
    let n = 0;
    const stack = [];
    for (const s of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {{
      try {{ if (s.cssRules) stack.push(s.cssRules); }} catch (e) {{}}
    }}
    const SEL = /\[\s*(?:[\w*-]*\|)?([\w-]+)/g, ATTR = /attr\(\s*([\w-]+)/gi;
    while (stack.length) {{
      for (const r of stack.pop()) {{
        if (++n > MAXRULES) return null;
        let nested = null;
        try {{ nested = r.cssRules; }} catch (e) {{}}
        if (nested && nested.length && !r.selectorText) {{ stack.push(nested); continue; }}
        // An imported sheet is not among the document's.
        try {{ if (r.styleSheet && r.styleSheet.cssRules) stack.push(r.styleSheet.cssRules); }} catch (e) {{}}
        const t = r.cssText || '';
        for (const m of t.matchAll(SEL)) out.add(m[1].toLowerCase());
        for (const m of t.matchAll(ATTR)) out.add(m[1].toLowerCase());
      }}
    }}
    return out;
  }};
  const computed = (el) => {{
    const cs = getComputedStyle(el);
    let s = '';
    for (let i = 0; i < cs.length; i++) s += cs[i] + ':' + cs.getPropertyValue(cs[i]) + ';';
    return s;
  }};
  const moving = (el) => {{ try {{ return el.getAnimations().length > 0; }} catch (e) {{ return true; }} }};
  const put = (el, vals) => {{
    for (const [n, v] of vals) {{ if (v === null) el.removeAttribute(n); else el.setAttribute(n, v); }}
  }};
  return {{
    // Stops watching, nothing put back (no page code ran).
    stop() {{ mo.disconnect(); }},
    settle() {{
      try {{ note(mo.takeRecords()); }} catch (e) {{ over = true; }}
      mo.disconnect();
      if (over || !old.size) return 0;
      let sheets = null;
      try {{ sheets = named(); }} catch (e) {{}}
      if (sheets === null) return 0;
      const until = performance.now() + SETTLE_MS;
      let back = 0;
      for (const [el, m] of old) {{
        if (performance.now() > until) break;
        if (!el.isConnected) continue;
        const was = [], now = [];
        for (const [n, v] of m) {{
          const c = el.getAttribute(n);
          if (c !== v) {{ was.push([n, v]); now.push([n, c]); }}
        }}
        // Named by a style rule: the attribute may show on other elements.
        if (!was.length || was.some(([n]) => sheets.has(n))) continue;
        try {{
          const a = computed(el);
          if (moving(el)) continue;
          put(el, was);
          const b = computed(el);
          if (a !== b || moving(el)) put(el, now);
          else back++;
        }} catch (e) {{
          try {{ put(el, now); }} catch (x) {{}}
        }}
      }}
      return back;
    }},
  }};
}})"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watcher_gets_its_bounds() {
        let s = script();
        assert!(s.contains("MAXEL = 200, MAXRULES = 20000, SETTLE_MS = 250;"));
        assert!(s.contains("attributes: true, attributeOldValue: true"));
        assert!(!s.contains("{{"), "format escapes left");
    }
}
