// scripts/compare-axe's engine: runs axe-core in Chromium and sitescan on the
// same pages and prints, per shared rule, where the two agree element by element.
//
// Usage (through scripts/compare-axe, which installs and builds what this needs):
//   node compare.mjs [--pages N] [--match REGEX] [--json FILE] [--show N] <corpus-dir|url-list>
//
//   <corpus-dir>   a directory of HTML pages, served on 127.0.0.1 (ephemeral port);
//                  N of its *.html/*.htm files are scanned, spread evenly over the
//                  sorted list (the same N pages every run)
//   <url-list>     a file of URLs, one per line (# comments), scanned as they are
//   --pages N      pages sampled from a corpus directory (default 80; 0: all)
//   --match REGEX  only sample corpus files whose path (relative to the directory) matches
//   --json FILE    also write every page's outcomes and the totals as JSON
//   --show N       disagreements listed per rule and kind (default 10; 0: all)
//
// Environment: SITESCAN_BIN (the sitescan binary), SITESCAN_CHROMIUM (the browser).
//
// How elements are matched: each element is keyed by its path of child indices
// from <html> in the HTML as parsed, before any script ran (an init script tags
// the elements as the parser inserts them). axe's node targets are resolved in
// the live DOM and keyed by that tag, so an element a script moved still
// matches; sitescan's unique selectors are resolved in a script-free parse of
// the same HTML. An element that scripts made has no such path: its key starts
// with `live:` and only axe can report it. A sitescan selector that matches
// nothing stays unmatched and is listed as such.
//
// Counting, per shared rule and element: `agree` both fail it; `only axe` axe
// reports a violation, sitescan does not fail it (split by whether sitescan
// said cannot tell); `only sitescan` sitescan fails it, axe reports no violation
// and no incomplete; `axe incomplete` sitescan fails it, axe could not decide.
// Recall = agree / (agree + only axe); precision = agree / (agree + only sitescan).
// Disagreements that match a documented difference (rules.json) are counted
// apart and left out of both.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** Chromium's switches: without the background-networking ones it keeps trying
 * to reach Google's services and stalls on a machine without outside network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PAGE_TIMEOUT_MS = 60_000;

function die(msg) {
  process.stderr.write(`compare-axe: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { pages: 80, match: null, json: null, show: 10, target: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--pages') opts.pages = Number.parseInt(value(), 10);
    else if (a === '--match') opts.match = new RegExp(value());
    else if (a === '--json') opts.json = value();
    else if (a === '--show') opts.show = Number.parseInt(value(), 10);
    else if (a === '-h' || a === '--help') {
      process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(3, 17).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
      process.exit(0);
    } else if (a.startsWith('-')) die(`unknown option ${a}`);
    else if (opts.target) die('give one corpus directory or URL list');
    else opts.target = a;
  }
  if (!opts.target) die('usage: scripts/compare-axe [--pages N] [--match REGEX] [--json FILE] [--show N] <corpus-dir|url-list>');
  if (!Number.isInteger(opts.pages) || opts.pages < 0) die('--pages takes a whole number');
  if (!Number.isInteger(opts.show) || opts.show < 0) die('--show takes a whole number');
  return opts;
}

/** Every *.html/*.htm file under `root`, relative, sorted; symlinked
 * directories are not descended (Debian's doc trees link shared assets). */
function htmlFiles(root) {
  const out = [];
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if ((entry.isFile() || entry.isSymbolicLink()) && /\.html?$/i.test(entry.name)) {
        out.push(relative(root, full).split(sep).join('/'));
      }
    }
  }
  return out.sort();
}

/** `n` items spread evenly over `items` (all of them when n is 0 or too big). */
function sample(items, n) {
  if (n === 0 || n >= items.length) return items;
  const picked = [];
  for (let i = 0; i < n; i++) picked.push(items[Math.floor((i * items.length) / n)]);
  return picked;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.css': 'text/css',
  '.js': 'text/javascript', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg',
  '.gif': 'image/gif', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.woff': 'font/woff',
  '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.json': 'application/json', '.txt': 'text/plain',
};

/** A static file server for `root` on 127.0.0.1, on a port the system picks. */
async function serve(root) {
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = resolve(root, '.' + path);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const size = statSync(file).size;
      res.writeHead(200, { 'content-type': TYPES[extname(file).toLowerCase()] || 'application/octet-stream', 'content-length': size });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  return server;
}

function run(cmd, args) {
  return new Promise((ok) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => ok({ code: -1, stdout, stderr: String(e) }));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}

/** The sitescan rule ids the binary has. */
async function sitescanRuleIds(bin) {
  const r = await run(bin, ['rules', '--format', 'json']);
  if (r.code !== 0) die(`${bin} rules --format json failed: ${r.stderr.trim()}`);
  return new Set(JSON.parse(r.stdout).map((rule) => rule.id));
}

/** sitescan's findings on one page: scanned alone (max one page, no link checks). */
async function sitescanPage(bin, url, rules, dir, n) {
  const out = join(dir, `report-${n}.json`);
  // A generous page budget: this measures what the rules conclude, not how
  // fast (a debug build takes seconds on a large page); a page still over it is
  // reported as not fully analyzed.
  const r = await run(bin, ['scan', url, '--max-pages', '1', '--max-depth', '0', '--links', 'none',
    '--page-time', '120', '--rules', rules.join(','), '--format', 'json', '--output', out]);
  if (r.code !== 0 && r.code !== 1) {
    return { error: `sitescan exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}` };
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const page = report.pages && report.pages[0];
  if (page && page.error) return { error: `sitescan: ${JSON.stringify(page.error)}` };
  const findings = [];
  for (const f of report.findings) {
    const places = f.occurrences && f.occurrences.length ? f.occurrences : [f];
    for (const p of places) {
      findings.push({ rule: f.rule_id, outcome: f.outcome, selector: p.selector || 'html', snippet: p.snippet || f.snippet || '', message: f.message });
    }
  }
  return { findings, incomplete: page && page.incomplete ? page.incomplete : null };
}

/**
 * Before any of the page's scripts runs, tags each element the HTML parser
 * inserts with its path in the document as parsed: the parser delivers its
 * mutation records at the microtask checkpoint it performs before running each
 * script, so an element a script later moves (or a wrapper it adds) keeps the
 * path it has in the HTML, which is where sitescan's selector points. The first
 * sighting wins; elements inserted after parsing get no static path.
 */
const STATIC_PATHS = `(() => {
  const paths = new WeakMap();
  const styles = new WeakMap();
  window.__compareAxeStaticPaths = paths;
  window.__compareAxeStaticStyles = styles;
  const pathOf = (el) => {
    const steps = [];
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
      if (!e.parentElement) return null;
      steps.push(Array.prototype.indexOf.call(e.parentElement.children, e));
    }
    return steps.length ? 'html/' + steps.reverse().join('/') : 'html';
  };
  const tag = (el) => {
    if (paths.has(el)) return;
    const p = pathOf(el);
    if (p) paths.set(el, p);
    styles.set(el, el.getAttribute('style') || '');
    for (const c of el.children) tag(c);
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) tag(n);
  });
  observer.observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', () => {
    for (const r of observer.takeRecords()) for (const n of r.addedNodes) if (n.nodeType === 1) tag(n);
    observer.disconnect();
    if (document.documentElement) tag(document.documentElement);
  }, { once: true });
})();`;

/** Runs axe in the page and resolves both tools' elements to the same keys:
 * an element's path in the HTML as parsed (before scripts), else `live:` and
 * its path in the live DOM (an element a script made). */
async function axePage(context, axeSource, url, selectors) {
  const page = await context.newPage();
  try {
    const resp = await page.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    if (!resp || !resp.ok()) return { error: `browser: HTTP ${resp ? resp.status() : 'no response'}` };
    const html = await resp.text();
    await page.addScriptTag({ content: axeSource });
    return await page.evaluate(async ({ selectors, html }) => {
      const pathOf = (el) => {
        const steps = [];
        for (let e = el; e && e !== el.ownerDocument.documentElement; e = e.parentElement) {
          if (!e.parentElement) return null;
          steps.push(Array.prototype.indexOf.call(e.parentElement.children, e));
        }
        return steps.length ? 'html/' + steps.reverse().join('/') : 'html';
      };
      const staticPaths = window.__compareAxeStaticPaths || new WeakMap();
      const key = (el) => staticPaths.get(el) || 'live:' + pathOf(el);
      const resolveTarget = (target) => {
        if (target.length !== 1 || typeof target[0] !== 'string') return 'frame:' + JSON.stringify(target);
        try {
          const el = document.querySelector(target[0]);
          return el ? key(el) : 'unresolved:' + target[0];
        } catch {
          return 'unresolved:' + target[0];
        }
      };
      // eslint-disable-next-line no-undef
      const result = await axe.run(document, { resultTypes: ['violations', 'incomplete'] });
      const nodes = (list) => list.flatMap((rule) => rule.nodes.map((n) => ({
        rule: rule.id, key: resolveTarget(n.target), target: n.target.join(' '), html: n.html,
        message: (n.failureSummary || '').replace(/\s+/g, ' ').trim(),
      })));
      // sitescan's selectors point into the HTML as served: resolve them in a
      // parse of it in which no script runs.
      const parsed = new DOMParser().parseFromString(html, 'text/html');
      const keys = {};
      for (const sel of selectors) {
        try {
          const el = parsed.querySelector(sel);
          keys[sel] = el ? pathOf(el) : null;
        } catch {
          keys[sel] = null;
        }
      }
      // Elements a script moved or restyled (inline style, e.g. shown after
      // loading): their place or look in the live DOM differs from the HTML's,
      // so an answer that depends on order, ancestry or visibility may differ.
      const staticStyles = window.__compareAxeStaticStyles || new WeakMap();
      const moved = [];
      for (const el of document.querySelectorAll('*')) {
        const p = staticPaths.get(el);
        if (p && (p !== pathOf(el) || staticStyles.get(el) !== (el.getAttribute('style') || ''))) moved.push(p);
      }
      return { violations: nodes(result.violations), incomplete: nodes(result.incomplete), keys, moved };
    }, { selectors, html });
  } catch (e) {
    return { error: `browser: ${String(e.message || e).split('\n')[0]}` };
  } finally {
    await page.close();
  }
}

/** A documented difference from rules.json that this disagreement matches, or null. */
function documented(differences, rule, side, item) {
  for (const d of differences) {
    if (d.axe_rule !== rule || d.side !== side) continue;
    const text = `${item.snippet}\n${item.message}`;
    if (d.matches && !new RegExp(d.matches, 's').test(text)) continue;
    return d;
  }
  return null;
}

/**
 * Element-level agreement on one page: the outcomes of every shared rule.
 * `axe` is axePage's answer, `ss` sitescanPage's; `mapping` axe id → sitescan id.
 */
export function comparePage(url, axe, ss, mapping, differences) {
  const rows = [];
  const movedSet = new Set(axe.moved || []);
  for (const [axeRule, m] of Object.entries(mapping)) {
    const ssRule = m.sitescan;
    const violations = new Map();
    const incomplete = new Map();
    for (const n of axe.violations) if (n.rule === axeRule) violations.set(n.key, n);
    for (const n of axe.incomplete) if (n.rule === axeRule) incomplete.set(n.key, n);
    const failed = new Map();
    const cantTell = new Map();
    for (const f of ss.findings) {
      if (f.rule !== ssRule) continue;
      const k = axe.keys[f.selector] || `unmatched:${f.selector}`;
      (f.outcome === 'failed' ? failed : cantTell).set(k, f);
    }
    // `nested`: the two tools report one problem on different elements of the
    // same subtree (region: sitescan the outermost element outside landmarks,
    // axe each element inside it; th-has-data-cells: axe the table, sitescan
    // the header cell), so an element inside or around the other's is the same
    // problem.
    const nested = m.match === 'nested';
    const related = (a, b) => a === b || (nested && (a.startsWith(b + '/') || b.startsWith(a + '/')));
    const find = (map, k) => {
      if (map.has(k)) return map.get(k);
      for (const [other, v] of map) if (related(k, other)) return v;
      return undefined;
    };
    const findInside = find;
    const push = (kind, key, a, s) => {
      const item = {
        rule: axeRule, kind, page: url, key,
        script_changed: key.startsWith('live:') || movedSet.has(key) || [...movedSet].some((m) => key.startsWith(m + '/')),
        axe_target: a ? a.target : null, sitescan_selector: s ? s.selector : null,
        snippet: (a ? a.html : s.snippet) || '',
        message: [a ? `axe: ${a.message}` : '', s ? `sitescan: ${s.message}` : ''].filter(Boolean).join(' / '),
      };
      if (kind === 'only_axe' || kind === 'only_sitescan') {
        const d = documented(differences, axeRule, kind === 'only_axe' ? 'only-axe' : 'only-sitescan', item);
        if (d) {
          item.kind = 'documented';
          item.difference = d.doc;
        }
      }
      rows.push(item);
    };
    for (const [k, a] of violations) {
      const f = find(failed, k);
      if (f) push('agree', k, a, f);
      else if (find(cantTell, k)) push('only_axe_sitescan_cant_tell', k, a, find(cantTell, k));
      else push('only_axe', k, a, null);
    }
    for (const [k, s] of failed) {
      const a = findInside(violations, k);
      // In element mode the agreement was counted above; `nested` counts the
      // sitescan element too, for precision.
      if (a) {
        if (nested) rows.push({ rule: axeRule, kind: 'sitescan_agree', page: url, key: k });
        continue;
      }
      const i = findInside(incomplete, k);
      if (i) push('axe_incomplete', k, i, s);
      else push('only_sitescan', k, null, s);
    }
  }
  return rows;
}

const KINDS = ['agree', 'only_axe', 'only_axe_sitescan_cant_tell', 'only_sitescan', 'axe_incomplete', 'documented', 'sitescan_agree'];

/** Counts per rule and the totals: recall and precision over shared rules. */
export function totals(rows, nestedRules = new Set()) {
  const perRule = new Map();
  for (const r of rows) {
    if (!perRule.has(r.rule)) perRule.set(r.rule, Object.fromEntries(KINDS.map((k) => [k, 0])));
    perRule.get(r.rule)[r.kind] += 1;
  }
  const all = Object.fromEntries(KINDS.map((k) => [k, 0]));
  for (const c of perRule.values()) for (const k of KINDS) all[k] += c[k];
  // Precision counts sitescan's elements: in element mode one per agreement,
  // in `nested` mode the sitescan elements related to an axe violation.
  let ssAgree = 0;
  for (const [rule, c] of perRule) ssAgree += nestedRules.has(rule) ? c.sitescan_agree : c.agree;
  const missed = all.only_axe + all.only_axe_sitescan_cant_tell;
  const recall = all.agree + missed ? all.agree / (all.agree + missed) : 1;
  const precision = ssAgree + all.only_sitescan ? ssAgree / (ssAgree + all.only_sitescan) : 1;
  return { perRule, all, recall, precision };
}

function clip(s, n) {
  const one = String(s).replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const data = JSON.parse(readFileSync(join(HERE, 'rules.json'), 'utf8'));
  const bin = process.env.SITESCAN_BIN;
  if (!bin || !existsSync(bin)) die('SITESCAN_BIN is not set to the sitescan binary (run scripts/compare-axe, which builds it)');
  const browserPath = process.env.SITESCAN_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(browserPath)) die(`no browser at ${browserPath}: apt-get install chromium, or set SITESCAN_CHROMIUM`);

  const have = await sitescanRuleIds(bin);
  const mapping = {};
  for (const [a, v] of Object.entries(data.rules)) {
    const m = typeof v === 'string' ? { sitescan: v } : v;
    if (have.has(m.sitescan)) mapping[a] = m;
    else process.stderr.write(`compare-axe: rules.json maps ${a} to ${m.sitescan}, which this sitescan does not have; skipped\n`);
  }
  const ssRules = [...new Set(Object.values(mapping).map((m) => m.sitescan))].sort();
  const nestedRules = new Set(Object.entries(mapping).filter(([, m]) => m.match === 'nested').map(([a]) => a));

  let server = null;
  let urls;
  const target = resolve(opts.target);
  if (!existsSync(target)) die(`${opts.target}: no such directory or file`);
  if (statSync(target).isDirectory()) {
    let files = htmlFiles(target);
    if (opts.match) files = files.filter((f) => opts.match.test(f));
    if (!files.length) die(`${opts.target}: no HTML files${opts.match ? ' matching --match' : ''}`);
    const picked = sample(files, opts.pages);
    server = await serve(target);
    const base = `http://127.0.0.1:${server.address().port}/`;
    urls = picked.map((f) => base + f.split('/').map(encodeURIComponent).join('/'));
    process.stderr.write(`compare-axe: ${picked.length} of ${files.length} pages of ${opts.target}, served at ${base}\n`);
  } else {
    urls = readFileSync(target, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    if (!urls.length) die(`${opts.target}: no URLs`);
  }

  const work = mkdtempSync(join(tmpdir(), 'compare-axe-'));
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 1024 } });
  await context.addInitScript({ content: STATIC_PATHS });
  const rows = [];
  const failures = [];
  const unmapped = new Map();
  const started = Date.now();
  try {
    for (const [i, url] of urls.entries()) {
      const ss = await sitescanPage(bin, url, ssRules, work, i);
      if (ss.error) {
        failures.push({ url, error: ss.error });
        continue;
      }
      const selectors = [...new Set(ss.findings.map((f) => f.selector))];
      const axe = await axePage(context, axeSource, url, selectors);
      if (axe.error) {
        failures.push({ url, error: axe.error });
        continue;
      }
      for (const v of axe.violations) {
        if (!mapping[v.rule]) unmapped.set(v.rule, (unmapped.get(v.rule) || 0) + 1);
      }
      if (ss.incomplete) failures.push({ url, error: `sitescan did not analyze all of it (its findings are compared anyway): ${ss.incomplete}` });
      rows.push(...comparePage(url, axe, ss, mapping, data.differences));
      process.stderr.write(`\rcompare-axe: ${i + 1}/${urls.length} pages`);
    }
  } finally {
    process.stderr.write('\n');
    await browser.close();
    if (server) server.close();
    rmSync(work, { recursive: true, force: true });
  }

  const t = totals(rows, nestedRules);
  const pagesDone = urls.length - failures.filter((f) => !f.error.startsWith('sitescan did not analyze')).length;
  const out = [];
  out.push(`axe-core ${data.axe_version} in Chromium vs sitescan, ${pagesDone} pages (${urls.length - pagesDone} failed), ${((Date.now() - started) / 1000).toFixed(0)} s`);
  out.push('');
  out.push('| rule | agree | only axe | only axe (sitescan cannot tell) | only sitescan | axe incomplete | documented |');
  out.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const [rule, c] of [...t.perRule.entries()].sort()) {
    out.push(`| ${rule} | ${c.agree} | ${c.only_axe} | ${c.only_axe_sitescan_cant_tell} | ${c.only_sitescan} | ${c.axe_incomplete} | ${c.documented} |`);
  }
  const a = t.all;
  out.push(`| **all** | ${a.agree} | ${a.only_axe} | ${a.only_axe_sitescan_cant_tell} | ${a.only_sitescan} | ${a.axe_incomplete} | ${a.documented} |`);
  out.push('');
  out.push(`element-level recall ${t.recall.toFixed(3)}, precision ${t.precision.toFixed(3)} (shared rules, documented differences excluded)`);
  const scripted = rows.filter((r) => r.script_changed && ['only_axe', 'only_axe_sitescan_cant_tell', 'only_sitescan'].includes(r.kind)).length;
  if (scripted) out.push(`${scripted} of the disagreements are on elements a script made, moved or restyled`);
  if (unmapped.size) {
    out.push(`axe violations of rules sitescan has no counterpart for: ${[...unmapped.entries()].sort().map(([r, n]) => `${r} ${n}`).join(', ')}`);
  }
  for (const f of failures) out.push(`${f.error.startsWith('sitescan did not') ? 'page partly analyzed' : 'page not compared'}: ${f.url}: ${f.error}`);
  const listed = ['only_axe', 'only_axe_sitescan_cant_tell', 'only_sitescan', 'axe_incomplete', 'documented'];
  for (const kind of listed) {
    const items = rows.filter((r) => r.kind === kind);
    if (!items.length) continue;
    out.push('');
    out.push(`## ${kind.replace(/_/g, ' ')} (${items.length})`);
    const byRule = new Map();
    for (const r of items) {
      if (!byRule.has(r.rule)) byRule.set(r.rule, []);
      byRule.get(r.rule).push(r);
    }
    for (const [rule, list] of [...byRule.entries()].sort()) {
      out.push(`### ${rule} (${list.length})`);
      for (const r of opts.show ? list.slice(0, opts.show) : list) {
        out.push(`- ${r.page}`);
        out.push(`  ${r.sitescan_selector ? `sitescan: ${r.sitescan_selector}` : ''}${r.axe_target && r.sitescan_selector ? '  ' : ''}${r.axe_target ? `axe: ${r.axe_target}` : ''}`);
        out.push(`  ${clip(r.snippet, 200)}${r.script_changed ? '  [made or moved by a script]' : ''}`);
        out.push(`  ${clip(r.message, 300)}${r.difference ? ` [documented: ${r.difference}]` : ''}`);
      }
      if (opts.show && list.length > opts.show) out.push(`- … ${list.length - opts.show} more (--show 0 lists all)`);
    }
  }
  process.stdout.write(out.join('\n') + '\n');
  if (opts.json) {
    writeFileSync(opts.json, JSON.stringify({
      axe_version: data.axe_version, pages: pagesDone, failures, recall: t.recall, precision: t.precision,
      totals: t.all, rules: Object.fromEntries(t.perRule), unmapped_axe_violations: Object.fromEntries(unmapped), rows,
    }, null, 2));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`compare-axe: ${e.stack || e}\n`);
    process.exit(2);
  });
}
