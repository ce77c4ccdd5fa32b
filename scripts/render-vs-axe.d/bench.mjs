// scripts/render-vs-axe's engine: the same pages, served on 127.0.0.1, checked
// by sitescan's render mode and by axe-core in Chromium with the same number of
// tabs; prints pages per second of each, the ratio, and the browsers' memory
// per tab.
//
// Usage (through scripts/render-vs-axe, which installs and builds what this needs):
//   node bench.mjs [--pages N] [--tabs T] [--runs R] [--no-keys] [--floor] [--before BIN] [--viewport WxH] <corpus-dir>
//
//   <corpus-dir>  a directory of HTML pages; N of its *.html files (spread
//                 evenly over the sorted list, the same every run) are linked
//                 from a generated index page, and the crawl is held to them
//   --pages N     pages (default 60)
//   --tabs T      tabs of each tool (sitescan's --concurrency; default 4)
//   --runs R      runs of each tool, the best kept (default 2)
//   --no-keys     leave sitescan's keyboard rules (keyboard-trap,
//                 focus-visible-rendered, character-key-shortcuts) out, as
//                 axe has none
//   --before BIN  also run another sitescan binary (an older build) in the
//                 same run, between the same axe runs: its ratio is printed
//                 beside the current one's
//   --viewport WxH the viewport both tools lay pages out in (default
//                 1280x720: Playwright's default and sitescan's), given to
//                 each explicitly: sitescan's --viewport, Playwright's
//                 newContext({ viewport })
//   --floor       also time the two floors under both tools, in the same
//                 runs: Playwright loading each page to network idle with
//                 nothing checked (the wait every tool that waits for
//                 network idle pays: no tool can beat axe by more than
//                 axe's time over this one), and sitescan with one rule
//                 that needs only the rendered DOM (image-alt) and no
//                 pictures (load, snapshot, rules: render mode's own floor)
//
// Readiness is the same for both: network idle, no request for 500 ms after
// `load` (sitescan's default wait; Playwright's `networkidle`). Both run their
// accessibility rules only: sitescan `--rules accessibility --links none`,
// axe-core its default rules.
//
// Environment: SITESCAN_BIN (the sitescan binary), SITESCAN_CHROMIUM (the browser).

import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join, relative, resolve, sep } from 'node:path';

import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function die(msg) {
  process.stderr.write(`render-vs-axe: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { pages: 60, tabs: 4, runs: 2, keys: true, floor: false, before: null, dir: null, viewport: { width: 1280, height: 720 } };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number.parseInt(argv[++i], 10);
      if (!(v > 0)) die(`${a} needs a positive number`);
      return v;
    };
    if (a === '--pages') o.pages = num();
    else if (a === '--tabs') o.tabs = num();
    else if (a === '--runs') o.runs = num();
    else if (a === '--no-keys') o.keys = false;
    else if (a === '--floor') o.floor = true;
    else if (a === '--before') { o.before = argv[++i]; if (!o.before) die('--before needs a binary'); }
    else if (a === '--viewport') {
      const m = /^(\d{3,4})x(\d{3,4})$/.exec(argv[++i] || '');
      if (!m) die('--viewport needs WIDTHxHEIGHT, such as 1280x720');
      o.viewport = { width: Number(m[1]), height: Number(m[2]) };
    }
    else if (a.startsWith('-')) die(`unknown option ${a}`);
    else o.dir = resolve(a);
  }
  if (!o.dir) die('usage: bench.mjs [--pages N] [--tabs T] [--runs R] [--no-keys] [--floor] [--before BIN] [--viewport WxH] <corpus-dir>');
  return o;
}

function htmlFiles(root) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (/\.html?$/.test(name)) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  walk(root);
  return out;
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png', '.svg': 'image/svg+xml', '.jpg': 'image/jpeg', '.gif': 'image/gif', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ico': 'image/x-icon' };

/** Serves the corpus plus `/` (the index of the chosen pages) and an allow-all robots.txt. */
function serve(root, chosen) {
  const index = '<!doctype html><html lang="en"><head><title>Pages</title></head><body><h1>Pages</h1><ul>' +
    chosen.map((p) => `<li><a href="/${p}">${p}</a></li>`).join('') + '</ul></body></html>';
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/') { res.writeHead(200, { 'content-type': TYPES['.html'] }); res.end(index); return; }
    if (path === '/robots.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\nAllow: /\n'); return; }
    const file = resolve(root, '.' + path);
    if (!file.startsWith(root + sep)) { res.writeHead(403); res.end(); return; }
    let st;
    try { st = statSync(file); } catch { res.writeHead(404); res.end(); return; }
    if (!st.isFile()) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'content-length': st.size });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

/** Resident memory (bytes) of every chromium process whose ancestor is `pid`. */
function browserRss(pid) {
  let out;
  try { out = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss=,comm='], { encoding: 'utf8' }); } catch { return 0; }
  const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map(([p, pp, rss, ...c]) => ({ pid: +p, ppid: +pp, rss: +rss * 1024, comm: c.join(' ') }));
  const kids = new Map();
  for (const r of rows) { if (!kids.has(r.ppid)) kids.set(r.ppid, []); kids.get(r.ppid).push(r); }
  let total = 0;
  const stack = [...(kids.get(pid) || [])];
  while (stack.length) {
    const r = stack.pop();
    if (/chrom/i.test(r.comm)) total += r.rss;
    stack.push(...(kids.get(r.pid) || []));
  }
  return total;
}

/** Samples `browserRss(pid())` every 100 ms until stopped; answers the peak. */
function sampler(pid) {
  let peak = 0;
  const t = setInterval(() => { const p = pid(); if (p) peak = Math.max(peak, browserRss(p)); }, 100);
  return () => { clearInterval(t); return peak; };
}

/** Whether `bin` takes `--viewport` (an older build does not, and lays pages
 * out in the headless window's 800 × 600 instead: said once). */
const takesViewport = new Map();
function viewportArgs(bin, viewport) {
  if (!takesViewport.has(bin)) {
    let help = '';
    try { help = execFileSync(bin, ['scan', '--help'], { encoding: 'utf8' }); } catch { /* no help: no flag */ }
    const yes = help.includes('--viewport');
    if (!yes) process.stderr.write(`render-vs-axe: ${bin} has no --viewport; it judges pages in its own default viewport, not ${viewport.width}x${viewport.height}\n`);
    takesViewport.set(bin, yes);
  }
  return takesViewport.get(bin) ? ['--viewport', `${viewport.width}x${viewport.height}`] : [];
}

async function runSitescan(bin, origin, opts, rules, extra = []) {
  const args = ['scan', '--render', ...viewportArgs(bin, opts.viewport), ...extra, '--rules', rules, '--links', 'none', '--max-pages', String(opts.pages + 1), '--max-depth', '1',
    '--concurrency', String(opts.tabs), '--rate', '1000', '--format', 'json', '--output', '/dev/null', origin + '/'];
  const started = performance.now();
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SITESCAN_CHROMIUM_NO_SANDBOX: '1' } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const stop = sampler(() => child.pid);
  const code = await new Promise((ok) => child.on('close', ok));
  const peak = stop();
  const secs = (performance.now() - started) / 1000;
  if (code !== 0 && code !== 1) die(`sitescan exited ${code}: ${stderr}`);
  return { secs, peak };
}

/** axe-core in `opts.tabs` tabs; with `check` false, only the loads (the floor). */
async function runAxe(origin, chosen, opts, check = true) {
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const started = performance.now();
  const browser = await chromium.launch({ executablePath: process.env.SITESCAN_CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  // Explicit, though it is Playwright's default: the same as sitescan's.
  const context = await browser.newContext({ viewport: opts.viewport });
  // Playwright starts the browser as a child of this process.
  const stop = sampler(() => process.pid);
  const urls = [origin + '/', ...chosen.map((p) => `${origin}/${p}`)];
  let next = 0;
  let violations = 0;
  const tab = async () => {
    const page = await context.newPage();
    while (next < urls.length) {
      const url = urls[next++];
      await page.goto(url, { waitUntil: 'networkidle', timeout: 60_000 });
      if (!check) continue;
      await page.evaluate(axeSource);
      const r = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
      violations += r.violations.length;
    }
    await page.close();
  };
  await Promise.all(Array.from({ length: opts.tabs }, tab));
  const peak = stop();
  await browser.close();
  const secs = (performance.now() - started) / 1000;
  return { secs, peak, violations };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!process.env.SITESCAN_BIN) die('SITESCAN_BIN is not set');
  const all = htmlFiles(opts.dir);
  if (all.length === 0) die(`no HTML pages under ${opts.dir}`);
  const n = Math.min(opts.pages, all.length);
  const chosen = Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]);
  opts.pages = n;
  const server = await serve(opts.dir, chosen);
  const origin = `http://127.0.0.1:${server.address().port}`;
  let rules = 'accessibility';
  if (!opts.keys) {
    const list = JSON.parse(execFileSync(process.env.SITESCAN_BIN, ['rules', '--format', 'json'], { encoding: 'utf8' }));
    const items = Array.isArray(list) ? list : list.rules;
    rules = items.filter((r) => r.category === 'accessibility' && !['keyboard-trap', 'focus-visible-rendered', 'character-key-shortcuts'].includes(r.id)).map((r) => r.id).join(',');
  }
  const pages = n + 1; // the index too
  const best = (rs) => rs.reduce((a, b) => (b.secs < a.secs ? b : a));
  const s = [];
  const b = [];
  const a = [];
  const fs = [];
  const fl = [];
  for (let i = 0; i < opts.runs; i++) {
    if (opts.floor) {
      fs.push(await runSitescan(process.env.SITESCAN_BIN, origin, opts, 'image-alt', ['--max-screenshots', '0']));
      fl.push(await runAxe(origin, chosen, opts, false));
    }
    if (opts.before) b.push(await runSitescan(opts.before, origin, opts, rules));
    s.push(await runSitescan(process.env.SITESCAN_BIN, origin, opts, rules));
    a.push(await runAxe(origin, chosen, opts));
  }
  server.close();
  const ss = best(s);
  const aa = best(a);
  const mib = (b) => (b / 1048576).toFixed(0);
  const line = (name, r) => `${name.padEnd(22)} ${String(pages).padStart(5)} pages  ${r.secs.toFixed(2).padStart(7)} s  ${(pages / r.secs).toFixed(2).padStart(7)} pages/s  browser peak RSS ${mib(r.peak).padStart(5)} MiB (${mib(r.peak / opts.tabs)} MiB per tab)`;
  process.stdout.write(`corpus ${opts.dir}, ${opts.tabs} tabs, best of ${opts.runs} runs, viewport ${opts.viewport.width}x${opts.viewport.height}\n`);
  process.stdout.write(line(`sitescan --render${opts.keys ? '' : ' (no keys)'}`, ss) + '\n');
  if (opts.before) process.stdout.write(line(`before${opts.keys ? '' : ' (no keys)'}`, best(b)) + '\n');
  process.stdout.write(line('axe-core (playwright)', aa) + '\n');
  if (opts.floor) {
    process.stdout.write(line('sitescan, image-alt', best(fs)) + '\n');
    process.stdout.write(line('playwright, loads only', best(fl)) + '\n');
  }
  process.stdout.write(`ratio: sitescan ${((pages / ss.secs) / (pages / aa.secs)).toFixed(2)}x axe-core's pages/s\n`);
  if (opts.before) process.stdout.write(`ratio before: ${((pages / best(b).secs) / (pages / aa.secs)).toFixed(2)}x axe-core's pages/s (${opts.before})\n`);
  if (opts.floor) {
    process.stdout.write(`ratio, sitescan with image-alt only and no pictures: ${(aa.secs / best(fs).secs).toFixed(2)}x axe-core's pages/s\n`);
    process.stdout.write(`ceiling: loading alone (no checks) is ${(aa.secs / best(fl).secs).toFixed(2)}x axe-core's pages/s\n`);
  }
}

main().catch((e) => die(e.stack || String(e)));
