// sitescan's render-mode Web Vitals against Lighthouse's, on the same pages.
// Run through ../compare-lighthouse, which installs Lighthouse here first.
//
// Serves the given directories on 127.0.0.1 (nothing leaves loopback), picks
// pages from them, scans those pages with `sitescan scan --render` (one page
// at a time) and runs Lighthouse on each (Debian's chromium, headless,
// `--throttling-method=provided`: no throttling, as sitescan's default
// preset, and the same viewport, given to both explicitly: sitescan's
// `--viewport`, Lighthouse's `screenEmulation`; 1280 × 720 unless `--viewport
// WxH` says otherwise), then prints both tools' FCP, LCP,
// CLS and TBT side by side with the agreement: the share of pages in the same
// good / needs-improvement / poor bucket, LCP and FCP within 20 %, CLS within
// 0.02.
//
// --lighthouse-twice runs Lighthouse a second, independent time on each page
// in the same runs (it opens each run, before sitescan and the first
// Lighthouse run) and prints how well Lighthouse agrees with itself by the
// same measures: the noise floor of the comparison, since sitescan cannot be
// expected to agree with Lighthouse better than Lighthouse agrees with
// itself on the same machine at the same moment. Both Lighthouse figures are
// shown; sitescan is compared with the first.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { Launcher } from 'chrome-launcher';

const here = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const perDir = Number(opt('--pages', '12'));
const sitescan = opt('--sitescan', process.env.SITESCAN_BIN || 'sitescan');
const jsonOut = opt('--json', null);
const runs = Number(opt('--runs', '1'));
// A second sitescan binary (say, a build before a change), run on the same
// pages in the same runs, interleaved with the other two tools: its numbers
// get their own columns and agreement lines.
const baseline = opt('--baseline', null);
// The viewport both tools lay pages out in (sitescan's default, a desktop
// window): passed to each explicitly, never left to a tool's default.
const viewportArg = opt('--viewport', '1280x720');
const viewportMatch = /^(\d{3,4})x(\d{3,4})$/.exec(viewportArg);
// A flag without a value: Lighthouse a second time per run.
const twiceAt = args.indexOf('--lighthouse-twice');
const lighthouseTwice = twiceAt >= 0;
if (lighthouseTwice) args.splice(twiceAt, 1);
const dirs = args.map((d) => resolve(d));
if (!dirs.length || !Number.isInteger(perDir) || perDir < 1 || !Number.isInteger(runs) || runs < 1 || !viewportMatch) {
  console.error('usage: compare-lighthouse [--pages N] [--runs N] [--sitescan BIN] [--baseline BIN] [--viewport WxH] [--lighthouse-twice] [--json FILE] DIR...');
  process.exit(2);
}
const chrome = process.env.CHROME_PATH || '/usr/bin/chromium';
const VIEWPORT = { width: Number(viewportMatch[1]), height: Number(viewportMatch[2]) };

// --- the pages -------------------------------------------------------------
/// Every .html file under `root`, sorted (bounded walk, no recursion).
function htmlFiles(root) {
  const out = [];
  const stack = [''];
  while (stack.length && out.length < 100000) {
    const rel = stack.pop();
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = join(rel, name);
      const st = statSync(join(root, p));
      if (st.isDirectory()) stack.push(p);
      else if (name.endsWith('.html')) out.push(p);
    }
  }
  return out.sort();
}

/// `n` files spread evenly over the sorted list (deterministic).
function spread(files, n) {
  if (files.length <= n) return files;
  const step = files.length / n;
  return Array.from({ length: n }, (_, i) => files[Math.floor(i * step)]);
}

// The static server runs as a child process: the tools below are run
// synchronously, which would stall a server in this process.
const serverChild = spawn(process.execPath, [join(here, 'serve.mjs'), ...dirs], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise((ok) => serverChild.stdout.once('data', (d) => ok(Number(String(d).trim()))));
const origin = `http://127.0.0.1:${port}`;
const pages = dirs.flatMap((d, i) =>
  spread(htmlFiles(d), perDir).map((f) => `${origin}/c${i}/` + f.split(sep).map(encodeURIComponent).join('/')),
);

// --- the two tools -----------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'compare-lighthouse-'));

/// Runs a command to completion.
function run(cmd, argv, env) {
  return spawnSync(cmd, argv, { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/// Whether `bin` takes `--viewport` (a build from before it does not, and lays
/// pages out in the headless window's 800 × 600 instead: said once).
const takesViewport = new Map();
function viewportArgs(bin) {
  if (!takesViewport.has(bin)) {
    const help = run(bin, ['scan', '--help']);
    const yes = (help.stdout || '').includes('--viewport');
    if (!yes) console.error(`${bin} has no --viewport: it lays pages out in its own default viewport, not ${VIEWPORT.width}x${VIEWPORT.height}`);
    takesViewport.set(bin, yes);
  }
  return takesViewport.get(bin) ? ['--viewport', `${VIEWPORT.width}x${VIEWPORT.height}`] : [];
}

function sitescanOf(url, bin = sitescan) {
  const out = join(work, 'sitescan.json');
  const r = run(bin, [
    'scan', url, '--render', ...viewportArgs(bin), '--max-pages', '1', '--links', 'none', '--rate', '1000',
    '--rules', 'first-contentful-paint,largest-contentful-paint,cumulative-layout-shift,total-blocking-time',
    '--format', 'json', '--output', out,
  ], { SITESCAN_CHROMIUM_NO_SANDBOX: '1', SITESCAN_CHROMIUM: chrome });
  if (r.status !== 0 && r.status !== 1) {
    console.error(`sitescan (${bin}) failed on ${url}: ${r.stderr}`);
    return null;
  }
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const v = report.pages[0]?.vitals;
  if (!v) return null;
  return { fcp: v.fcp_ms ?? null, lcp: v.lcp_ms ?? null, cls: v.cls ?? null, tbt: v.tbt_ms ?? null };
}

// Lighthouse's browser gets the two features sitescan's launch turns off
// (engine/src/browser/launch.rs): a headless Chromium preloads its omnibox
// popups' WebUI at start, half a second of CPU in the very seconds the page
// is measured, which would be Lighthouse measuring its own browser's start
// (docs/src/web-vitals.md). One `--disable-features` holding chrome-launcher's
// own list as well: Chromium takes the last of several.
const launcherOff = Launcher.defaultFlags()
  .filter((f) => f.startsWith('--disable-features='))
  .flatMap((f) => f.slice('--disable-features='.length).split(','));
const LH_DISABLE_FEATURES = `--disable-features=${[...launcherOff, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`;

function lighthouseOf(url) {
  const out = join(work, 'lh.json');
  const r = run(join(here, 'node_modules', '.bin', 'lighthouse'), [
    url, '--quiet', '--output=json', `--output-path=${out}`,
    '--only-categories=performance', '--throttling-method=provided',
    '--form-factor=desktop', `--screenEmulation.width=${VIEWPORT.width}`,
    `--screenEmulation.height=${VIEWPORT.height}`, '--screenEmulation.deviceScaleFactor=1',
    '--screenEmulation.mobile=false', '--max-wait-for-load=30000',
    `--chrome-flags=--headless --no-sandbox --disable-gpu --no-first-run --proxy-server=127.0.0.1:9 ${LH_DISABLE_FEATURES}`,
  ], { CHROME_PATH: chrome });
  if (r.status !== 0) {
    console.error(`lighthouse failed on ${url}: ${r.stderr.slice(-500)}`);
    return null;
  }
  const lh = JSON.parse(readFileSync(out, 'utf8'));
  const a = (id) => lh.audits[id]?.numericValue ?? null;
  return { fcp: a('first-contentful-paint'), lcp: a('largest-contentful-paint'), cls: a('cumulative-layout-shift'), tbt: a('total-blocking-time') };
}

// --- the comparison ------------------------------------------------------------
const THRESHOLDS = { fcp: [1800, 3000], lcp: [2500, 4000], cls: [0.1, 0.25], tbt: [200, 600] };
const bucket = (m, v) => (v === null ? null : v <= THRESHOLDS[m][0] ? 'good' : v <= THRESHOLDS[m][1] ? 'ni' : 'poor');
const close = (m, a, b) => {
  if (a === null || b === null) return false;
  if (m === 'cls') return Math.abs(a - b) <= 0.02;
  return Math.abs(a - b) <= 0.2 * Math.max(a, b);
};
const fmt = (m, v) => (v === null ? '-' : m === 'cls' ? v.toFixed(3) : Math.round(v).toString());

/// Per metric, the median of `runs` measurements (the two tools alternate,
/// so a busy moment of the machine falls on both).
const median = (xs) => {
  const v = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};
const medianOf = (results) =>
  results.includes(null)
    ? null
    : Object.fromEntries(['fcp', 'lcp', 'cls', 'tbt'].map((m) => [m, median(results.map((r) => r[m]))]));

const rows = [];
for (const url of pages) {
  const ss = [];
  const ls = [];
  const bs = [];
  const l2s = [];
  for (let i = 0; i < runs; i++) {
    // The second Lighthouse run opens the round, so sitescan's run sits
    // between the two: they are at least as far apart in time as sitescan's
    // run and the first Lighthouse run, and a change of the machine's load
    // shows in the floor as it does in the comparison.
    if (lighthouseTwice) l2s.push(lighthouseOf(url));
    if (baseline) bs.push(sitescanOf(url, baseline));
    ss.push(sitescanOf(url));
    ls.push(lighthouseOf(url));
  }
  const s = medianOf(ss);
  const l = medianOf(ls);
  const b = baseline ? medianOf(bs) : null;
  const l2 = lighthouseTwice ? medianOf(l2s) : null;
  if (!s || !l || (baseline && !b) || (lighthouseTwice && !l2)) continue;
  rows.push({ url: url.slice(origin.length), s, l, ...(b ? { b } : {}), ...(l2 ? { l2 } : {}) });
  const cells = ['fcp', 'lcp', 'cls', 'tbt'].map(
    (m) => `${fmt(m, s[m])}/${fmt(m, l[m])}${b ? `/${fmt(m, b[m])}` : ''}${l2 ? `/${fmt(m, l2[m])}` : ''}`,
  );
  console.error(`${url.slice(origin.length)}  ${cells.join('  ')}`);
}
serverChild.kill();

const metrics = ['fcp', 'lcp', 'cls', 'tbt'];
// The columns of each metric: sitescan, the baseline, Lighthouse, Lighthouse's
// second run (each row's key and its heading).
const tools = [
  ['s', 'sitescan'],
  ...(baseline ? [['b', 'baseline']] : []),
  ['l', 'Lighthouse'],
  ...(lighthouseTwice ? [['l2', 'Lighthouse again']] : []),
];
const lines = [];
lines.push(`| page | ${metrics.flatMap((m) => tools.map(([, who]) => `${m.toUpperCase()} ${who}`)).join(' | ')} |`);
lines.push(`|---|${metrics.flatMap(() => tools.map(() => '---:')).join('|')}|`);
for (const r of rows) {
  lines.push(`| ${r.url} | ${metrics.flatMap((m) => tools.map(([k]) => fmt(m, r[k][m]))).join(' | ')} |`);
}
const share = (f) => (rows.length ? rows.filter(f).length / rows.length : 0);
const pct = (x) => `${(100 * x).toFixed(0)}%`;
/// The agreement of one tool's numbers (`key` of each row) with Lighthouse's.
const agreement = (key) => ({
  same_bucket: Object.fromEntries(metrics.map((m) => [m, share((r) => bucket(m, r[key][m]) === bucket(m, r.l[m]))])),
  same_bucket_all: share((r) => metrics.every((m) => bucket(m, r[key][m]) === bucket(m, r.l[m]))),
  within: Object.fromEntries(['fcp', 'lcp', 'cls'].map((m) => [m, share((r) => close(m, r[key][m], r.l[m]))])),
});
/// Over the pages, the median of one tool's FCP divided by Lighthouse's: the
/// systematic part of the difference, which the agreement shares mix with
/// the noise.
const fcpRatio = (key) => median(rows.filter((r) => r[key].fcp !== null && r.l.fcp).map((r) => r[key].fcp / r.l.fcp));
const summary = {
  pages: rows.length,
  ...agreement('s'),
  fcp_ratio: fcpRatio('s'),
  ...(baseline ? { baseline: { ...agreement('b'), fcp_ratio: fcpRatio('b') } } : {}),
  ...(lighthouseTwice ? { lighthouse_twice: { ...agreement('l2'), fcp_ratio: fcpRatio('l2') } } : {}),
};
const agreementLines = (a, who) => [
  `${who}Same bucket: FCP ${pct(a.same_bucket.fcp)}, LCP ${pct(a.same_bucket.lcp)}, CLS ${pct(a.same_bucket.cls)}, TBT ${pct(a.same_bucket.tbt)}; all four ${pct(a.same_bucket_all)}`,
  `${who}Within 20%: FCP ${pct(a.within.fcp)}, LCP ${pct(a.within.lcp)}; CLS within 0.02: ${pct(a.within.cls)}`,
  `${who}Median FCP ÷ Lighthouse's: ${a.fcp_ratio === null ? '-' : a.fcp_ratio.toFixed(2)}`,
];
lines.push('');
lines.push(`Pages: ${summary.pages}`);
lines.push(...agreementLines(summary, ''));
if (baseline) lines.push(...agreementLines(summary.baseline, 'Baseline: '));
// The noise floor: Lighthouse's second run against its first, by the same
// measures. sitescan's figures above are only meaningful against these.
if (lighthouseTwice) lines.push(...agreementLines(summary.lighthouse_twice, 'Lighthouse against itself: '));
console.log(lines.join('\n'));
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ summary, rows }, null, 2));
