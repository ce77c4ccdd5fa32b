// sitescan's Web Vitals observer: injected into every rendered page before its
// own scripts (Page.addScriptToEvaluateOnNewDocument, in an isolated world, so
// the page's scripts neither see nor change it). It only records; the engine
// reads the record once the page is ready (COLLECT in metrics.rs). Every list
// is capped: a page that shifts or blocks forever cannot grow it.
(() => {
  if (window.top !== window || globalThis.__sitescanVitals) return;
  const CAP = 500;
  const S = {
    fcp: null, lcp: null, lcpEl: null,
    shifts: [], tasks: [], frames: [], events: [], added: [],
  };
  globalThis.__sitescanVitals = S;
  const observe = (type, onEntry, extra) => {
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) onEntry(e);
      }).observe(Object.assign({ type, buffered: true }, extra || {}));
    } catch (_) {
      // An entry type this browser does not know: that metric stays absent.
    }
  };
  const push = (list, item) => { if (list.length < CAP) list.push(item); };
  const painted = () =>
    S.fcp !== null || performance.getEntriesByName('first-contentful-paint').length > 0;
  // Elements inserted, and images or frames that finished loading, after the
  // first paint: the candidates for what made a later layout shift.
  const recent = (node) => {
    if (!painted() || !node || node.nodeType !== 1) return;
    S.added.push({ t: performance.now(), node });
    if (S.added.length > 200) S.added.splice(0, S.added.length - 200);
  };
  try {
    new MutationObserver((records) => {
      if (!painted()) return;
      for (const r of records) for (const n of r.addedNodes) recent(n);
    }).observe(document, { childList: true, subtree: true });
  } catch (_) {}
  document.addEventListener('load', (e) => recent(e.target), true);
  observe('paint', (e) => {
    if (e.name === 'first-contentful-paint') S.fcp = e.startTime;
  });
  observe('largest-contentful-paint', (e) => {
    S.lcp = e.startTime;
    S.lcpEl = e.element || null;
  });
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    const sources = [];
    for (const s of e.sources || []) {
      const n = s.node && (s.node.nodeType === 1 ? s.node : s.node.parentElement);
      if (n) sources.push(n);
    }
    const first = sources[0];
    const causes = [];
    for (const a of S.added) {
      if (a.t < e.startTime - 1000 || a.t > e.startTime + 50) continue;
      if (!a.node.isConnected || causes.includes(a.node) || sources.includes(a.node)) continue;
      // Above what moved (before it in document order) or inside it (a
      // container that moved as its new child pushed its content down);
      // never after it, and never around it.
      if (first) {
        const pos = a.node.compareDocumentPosition(first);
        if (!(pos & (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINS))) continue;
        if (a.node.contains(first)) continue;
      }
      causes.push(a.node);
      if (causes.length >= 10) break;
    }
    push(S.shifts, { t: e.startTime, v: e.value, sources, causes });
  });
  observe('longtask', (e) => push(S.tasks, { t: e.startTime, d: e.duration }));
  observe('long-animation-frame', (e) => {
    const scripts = [];
    for (const s of (e.scripts || []).slice(0, 20)) {
      scripts.push({ url: String(s.sourceURL || ''), invoker: String(s.invoker || ''), d: s.duration });
    }
    push(S.frames, { t: e.startTime, d: e.duration, scripts });
  });
  observe('event', (e) => {
    if (e.interactionId) push(S.events, { id: e.interactionId, d: e.duration, target: e.target || null });
  }, { durationThreshold: 16 });
})();
