//! Putting back inline style changes that change nothing the page shows,
//! for the page scripts that run the page's code and then compare its DOM
//! with the one judged ([`super::shortcuts`]).
//!
//! A control clicked and set back often leaves a `style` attribute behind
//! that it did not find: Python's documentation sets
//! `document.body.style.overflow` to `hidden` when its menu opens and to
//! `visible` when it closes, so `<body>` ends with `style="overflow:
//! visible"` where it had no style at all. The page looks the same, but the
//! serialized DOM differs, and a page kept for its pictures would be loaded
//! a second time for nothing.
//!
//! [`script`] is a JavaScript function expression a page script embeds and
//! calls with the document element when its page is as judged. It watches
//! the `style` attributes (a `MutationObserver` keeping each element's first
//! old value, for at most [`MAX_RESTYLED`] elements). Its `settle()`, called
//! once the page's controls are set back, disconnects the watch and, for each
//! element whose `style` attribute is no longer its old value, reads the
//! element's computed style (every property, custom ones too) with the
//! attribute as it is and with the old one back; when the two are the same,
//! the old value stays (the change had no effect), else the current value is
//! set again (the change was real). The exact comparison of the DOM runs
//! after it, as before, and judges the rest.
//!
//! It changes nothing (and the page counts as changed as before) when more
//! elements changed their style than the bound, when a style sheet selects on
//! the `style` attribute (the attribute's mere presence or text would then
//! matter to other elements; read in the sheets the page may read, at most
//! [`MAX_RULES`] rules), or, for one element, when it has a running animation
//! or transition (its computed style is then a moment of it, the same with
//! either value at the start of a transition). It stops at
//! [`SETTLE_MS`]; the elements not reached keep their current value.
//!
//! The `activate` phase ([`super::activate`]) has no such comparison: a page
//! with any candidate control is loaded again, as its activations are not set
//! back (a skip link moves focus, a toggle hides a menu and stays so).

/// Most elements whose `style` attribute is watched; past it, nothing is
/// put back.
pub(crate) const MAX_RESTYLED: usize = 200;
/// Most style rules read for a selector on the `style` attribute; past it,
/// nothing is put back.
pub(crate) const MAX_RULES: usize = 20_000;
/// Longest time `settle()` takes (milliseconds, checked between elements).
pub(crate) const SETTLE_MS: u64 = 250;

/// The watcher, a function expression: `(root) => ({ stop(), settle() })`,
/// where `settle()` answers how many elements got their old style back. Its
/// `MutationObserver` is the script's own (an isolated world's), so the
/// page's code neither sees nor stops it.
pub(crate) fn script() -> String {
    format!(
        r#"((root) => {{
  const MAXEL = {MAX_RESTYLED}, MAXRULES = {MAX_RULES}, SETTLE_MS = {SETTLE_MS};
  const old = new Map();
  let over = false;
  const note = (list) => {{
    for (const r of list) {{
      if (over) return;
      if (r.attributeName !== 'style' || old.has(r.target)) continue;
      if (old.size >= MAXEL) {{ over = true; return; }}
      old.set(r.target, r.oldValue);
    }}
  }};
  const mo = new MutationObserver(note);
  mo.observe(root, {{ subtree: true, attributes: true, attributeFilter: ['style'], attributeOldValue: true }});
  // Whether a style rule the page may read selects on the style attribute
  // (`[style]`, `:has([style*=x])`); null past the bound (not known).
  const selectsOnStyle = () => {{
    let n = 0;
    const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
    const stack = [];
    for (const s of sheets) {{
      // A sheet of another origin cannot be read: what it selects on is not
      // known, as for a page without it.
      try {{ if (s.cssRules) stack.push(s.cssRules); }} catch (e) {{}}
    }}
    while (stack.length) {{
      for (const r of stack.pop()) {{
        if (++n > MAXRULES) return null;
        if (r.selectorText && /\[\s*style\b/i.test(r.selectorText)) return true;
        try {{ if (r.cssRules && r.cssRules.length) stack.push(r.cssRules); }} catch (e) {{}}
      }}
    }}
    return false;
  }};
  const computed = (el) => {{
    const cs = getComputedStyle(el);
    let s = '';
    for (let i = 0; i < cs.length; i++) s += cs[i] + ':' + cs.getPropertyValue(cs[i]) + ';';
    return s;
  }};
  const moving = (el) => {{ try {{ return el.getAnimations().length > 0; }} catch (e) {{ return true; }} }};
  const put = (el, v) => {{ if (v === null) el.removeAttribute('style'); else el.setAttribute('style', v); }};
  return {{
    // Stops watching, nothing put back (no page code ran).
    stop() {{ mo.disconnect(); }},
    settle() {{
      try {{ note(mo.takeRecords()); }} catch (e) {{ over = true; }}
      mo.disconnect();
      if (over || !old.size) return 0;
      let sel = true;
      try {{ sel = selectsOnStyle(); }} catch (e) {{}}
      if (sel !== false) return 0;
      const until = performance.now() + SETTLE_MS;
      let back = 0;
      for (const [el, was] of old) {{
        if (performance.now() > until) break;
        if (!el.isConnected) continue;
        const now = el.getAttribute('style');
        if (now === was) continue;
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
        assert!(s.contains("attributeFilter: ['style'], attributeOldValue: true"));
        assert!(!s.contains("{{"), "format escapes left");
    }
}
