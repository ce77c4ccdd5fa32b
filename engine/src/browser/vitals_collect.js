// Reads what vitals.js recorded, in the same isolated world, once the page is
// ready (after the render stamps are on the elements). Returns plain JSON,
// every list capped; the engine parses it defensively (metrics.rs).
(() => {
  const S = globalThis.__sitescanVitals;
  if (!S) return null;
  const STAMP = 'data-sitescan-node';
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const simple = (id) => /^[A-Za-z][A-Za-z0-9_-]*$/.test(id);
  const selectorOf = (el) => {
    const parts = [];
    for (let n = el, depth = 0; n && n.nodeType === 1 && depth < 64; n = n.parentElement, depth++) {
      const tag = n.localName;
      if (n.id && simple(n.id) && document.querySelectorAll('#' + n.id).length === 1) {
        parts.unshift('#' + n.id);
        break;
      }
      if (tag === 'html' || tag === 'body' || tag === 'head') {
        parts.unshift(tag);
        if (tag === 'html') break;
        continue;
      }
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) i++;
      parts.unshift(tag + ':nth-child(' + i + ')');
    }
    return cut(parts.join(' > '), 512);
  };
  const labelOf = (el) => {
    let l = el.localName;
    if (el.id) l += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
    for (const c of cls.slice(0, 2)) l += '.' + c;
    return cut(l, 80);
  };
  const describe = (el) => {
    if (!el || el.nodeType !== 1) return null;
    const raw = el.getAttribute(STAMP);
    const stamp = raw !== null && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : null;
    return { stamp, selector: selectorOf(el), label: labelOf(el) };
  };
  // What started after the engine's own work on the page began (the mark
  // taken before stamping and the snapshot) is the engine's, not the page's.
  const cutoff = typeof S.cutoff === 'number' ? S.cutoff : Infinity;
  const before = (list) => list.filter((e) => e.t < cutoff);
  const fcpEntry = performance.getEntriesByName('first-contentful-paint')[0];
  const fcp = S.fcp !== null ? S.fcp : fcpEntry ? fcpEntry.startTime : null;
  const nav = performance.getEntriesByType('navigation')[0];
  const responseStart = nav ? nav.responseStart : 0;
  // For the engine's debug log only: where the browser's own time went.
  const domInteractive = nav ? nav.domInteractive : null;

  // CLS: the largest session window (gaps under 1 s, at most 5 s long).
  let best = { score: 0, shifts: [] };
  let cur = { score: 0, shifts: [], start: 0, last: 0 };
  for (const s of before(S.shifts)) {
    if (cur.shifts.length && (s.t - cur.last > 1000 || s.t - cur.start > 5000)) {
      cur = { score: 0, shifts: [], start: s.t, last: s.t };
    }
    if (!cur.shifts.length) cur.start = s.t;
    cur.shifts.push(s);
    cur.score += s.v;
    cur.last = s.t;
    if (cur.score > best.score) best = { score: cur.score, shifts: cur.shifts.slice() };
  }
  const rank = (key) => {
    const scores = new Map();
    for (const s of best.shifts) for (const n of s[key]) scores.set(n, (scores.get(n) || 0) + s.v);
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([n, score]) => ({ element: describe(n), score }))
      .filter((x) => x.element);
  };

  // TBT: long tasks clipped to start at FCP, each counting past 50 ms.
  let tbt = null;
  let longTasks = 0;
  if (fcp !== null) {
    tbt = 0;
    for (const t of before(S.tasks)) {
      const end = Math.min(t.t + t.d, cutoff);
      const start = Math.max(t.t, fcp);
      const d = end - start;
      if (d > 50) {
        tbt += d - 50;
        longTasks++;
      }
    }
  }
  const scripts = new Map();
  for (const f of before(S.frames)) {
    if (fcp === null || f.t + f.d < fcp) continue;
    for (const s of f.scripts) {
      const key = s.url + '\u0000' + s.invoker;
      const cur = scripts.get(key) || { url: cut(s.url || location.href, 512), invoker: cut(s.invoker, 128), ms: 0 };
      cur.ms += s.d;
      scripts.set(key, cur);
    }
  }

  // INP: the slowest interaction (its longest event).
  const interactions = new Map();
  for (const e of S.events) {
    const cur = interactions.get(e.id);
    if (!cur || e.d > cur.d) interactions.set(e.id, e);
  }
  let inp = null;
  for (const e of interactions.values()) if (!inp || e.d > inp.d) inp = e;

  const blocking = performance
    .getEntriesByType('resource')
    .filter((r) => r.renderBlockingStatus === 'blocking')
    .sort((a, b) => b.responseEnd - a.responseEnd)
    .slice(0, 10)
    .map((r) => ({ url: cut(r.name, 512), end_ms: r.responseEnd }));

  return {
    response_start: responseStart,
    dom_interactive: domInteractive,
    fcp,
    lcp: S.lcp,
    lcp_element: describe(S.lcpEl),
    cls: fcp === null && !S.shifts.length ? null : best.score,
    cls_sources: rank('sources'),
    cls_causes: rank('causes'),
    tbt,
    long_tasks: longTasks,
    blocking_scripts: [...scripts.values()].sort((a, b) => b.ms - a.ms).slice(0, 10),
    inp: inp ? inp.d : null,
    inp_element: inp ? describe(inp.target) : null,
    render_blocking: blocking,
  };
})()
